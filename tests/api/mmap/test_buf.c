/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_buf_inventory and doca_buf: pools, range checks, refcounts,
 * data window, lists (chain, tail chain, unchain, release through the head),
 * dup, expand, and the mmap's buf accounting.
 */
#include "mmap_test.h"

static uint8_t mem[4096];

/* Inventory of n and an LRW mmap over mem. */
struct fixture {
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
};

static struct fixture
fixture(size_t n)
{
	struct fixture f = {.inv = started_inventory(n),
			    .mmap = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL)};

	return f;
}

static void
fixture_done(struct fixture *f)
{
	ASSERT_OK(doca_buf_inventory_destroy(f->inv));
	ASSERT_OK(doca_mmap_destroy(f->mmap));
}

static uint32_t
num_free(struct doca_buf_inventory *inv)
{
	uint32_t n = 0;

	ASSERT_OK(doca_buf_inventory_get_num_free_elements(inv, &n));
	return n;
}

static uint32_t
num_bufs(struct doca_mmap *mmap)
{
	uint32_t n = 0;

	ASSERT_OK(doca_mmap_get_num_bufs(mmap, &n));
	return n;
}

static struct doca_buf *
get_buf(struct fixture *f, size_t off, size_t len)
{
	struct doca_buf *b = NULL;

	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, mem + off, len, &b));
	return b;
}

static uint32_t
list_len(struct doca_buf *b)
{
	uint32_t n = 0;

	ASSERT_OK(doca_buf_get_list_len(b, &n));
	return n;
}

TEST(inventory_create_rules)
{
	struct doca_buf_inventory *inv = SENTINEL_PTR;
	uint32_t n = 0;

	ASSERT_ERR(doca_buf_inventory_create(0, &inv), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_create(4, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_create((size_t)UINT32_MAX + 1, &inv), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(inv, SENTINEL_PTR);
	ASSERT_OK(doca_buf_inventory_create(3, &inv));
	ASSERT_OK(doca_buf_inventory_get_num_elements(inv, &n));
	ASSERT_EQ(n, 3);
	ASSERT_EQ(num_free(inv), 3);
	ASSERT_ERR(doca_buf_inventory_get_num_elements(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_get_num_free_elements(inv, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_inventory_destroy(inv));
}

TEST(inventory_start_stop_states)
{
	struct doca_buf_inventory *inv = NULL;

	ASSERT_OK(doca_buf_inventory_create(1, &inv));
	ASSERT_ERR(doca_buf_inventory_stop(inv), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_buf_inventory_start(inv));
	ASSERT_ERR(doca_buf_inventory_start(inv), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_buf_inventory_stop(inv));
	ASSERT_ERR(doca_buf_inventory_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	/* destroy of a started inventory stops it implicitly */
	ASSERT_OK(doca_buf_inventory_start(inv));
	ASSERT_OK(doca_buf_inventory_destroy(inv));
}

TEST(inventory_user_data)
{
	struct doca_buf_inventory *inv = NULL;
	union doca_data in = {.u64 = 0xfeed}, out = {.u64 = 0};

	ASSERT_OK(doca_buf_inventory_create(1, &inv));
	ASSERT_OK(doca_buf_inventory_get_user_data(inv, &out));
	ASSERT_EQ(out.u64, 0);
	ASSERT_OK(doca_buf_inventory_set_user_data(inv, in));
	ASSERT_OK(doca_buf_inventory_get_user_data(inv, &out));
	ASSERT_EQ(out.u64, 0xfeed);
	ASSERT_ERR(doca_buf_inventory_set_user_data(NULL, in), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_get_user_data(inv, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_inventory_destroy(inv));
}

TEST(get_by_addr_and_by_data)
{
	struct fixture f = fixture(2);
	struct doca_buf *dst = NULL, *src = NULL;
	void *p = NULL;
	size_t n = 99;
	uint16_t rc = 0;

	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem + 100, 200, &dst));
	ASSERT_OK(doca_buf_get_head(dst, &p));
	ASSERT_PTR_EQ(p, mem + 100);
	ASSERT_OK(doca_buf_get_data(dst, &p));
	ASSERT_PTR_EQ(p, mem + 100);
	ASSERT_OK(doca_buf_get_len(dst, &n));
	ASSERT_EQ(n, 200);
	ASSERT_OK(doca_buf_get_data_len(dst, &n));
	ASSERT_EQ(n, 0);
	ASSERT_OK(doca_buf_get_refcount(dst, &rc));
	ASSERT_EQ(rc, 1);

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(f.inv, f.mmap, mem + 8, 64, &src));
	ASSERT_OK(doca_buf_get_data(src, &p));
	ASSERT_PTR_EQ(p, mem + 8);
	ASSERT_OK(doca_buf_get_data_len(src, &n));
	ASSERT_EQ(n, 64);
	ASSERT_OK(doca_buf_get_len(src, &n));
	ASSERT_EQ(n, 64);

	ASSERT_EQ(num_free(f.inv), 0);
	ASSERT_EQ(num_bufs(f.mmap), 2);
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_EQ(num_free(f.inv), 2);
	ASSERT_EQ(num_bufs(f.mmap), 0);
	fixture_done(&f);
}

/* Re-pointing a held buf keeps its refcount and its list; a free buf or a foreign range is refused, unchanged. */
TEST(reuse_by_addr_and_by_data)
{
	struct fixture f = fixture(3);
	struct doca_buf *head = NULL, *tail = NULL, *next = NULL, *gone = NULL;
	uint32_t elems = 0;
	void *p = NULL;
	size_t n = 0;
	uint16_t rc = 0;

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(f.inv, f.mmap, mem, 64, &head));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem + 512, 64, &tail));
	ASSERT_OK(doca_buf_chain_list(head, tail));
	ASSERT_OK(doca_buf_inc_refcount(head, NULL));

	ASSERT_OK(doca_buf_inventory_buf_reuse_by_addr(head, mem + 1024, 300));
	ASSERT_OK(doca_buf_get_head(head, &p));
	ASSERT_PTR_EQ(p, mem + 1024);
	ASSERT_OK(doca_buf_get_data(head, &p));
	ASSERT_PTR_EQ(p, mem + 1024);
	ASSERT_OK(doca_buf_get_len(head, &n));
	ASSERT_EQ(n, 300);
	ASSERT_OK(doca_buf_get_data_len(head, &n));
	ASSERT_EQ(n, 0);
	ASSERT_OK(doca_buf_get_refcount(head, &rc));
	ASSERT_EQ(rc, 2);
	ASSERT_OK(doca_buf_get_next_in_list(head, &next));
	ASSERT_PTR_EQ(next, tail);

	ASSERT_OK(doca_buf_inventory_buf_reuse_by_data(tail, mem + 2048, 100));
	ASSERT_OK(doca_buf_get_data(tail, &p));
	ASSERT_PTR_EQ(p, mem + 2048);
	ASSERT_OK(doca_buf_get_data_len(tail, &n));
	ASSERT_EQ(n, 100);
	ASSERT_OK(doca_buf_get_len(tail, &n));
	ASSERT_EQ(n, 100);
	ASSERT_OK(doca_buf_get_list_len(head, &elems));
	ASSERT_EQ(elems, 2);

	/* outside the mmap, NULL, a free buf: refused, nothing changed */
	ASSERT_ERR(doca_buf_inventory_buf_reuse_by_data(tail, mem + sizeof(mem) - 8, 16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_reuse_by_addr(NULL, mem, 8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_reuse_by_addr(tail, NULL, 8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_get_data(tail, &p));
	ASSERT_PTR_EQ(p, mem + 2048);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem, 8, &gone));
	ASSERT_OK(doca_buf_dec_refcount(gone, NULL));
	ASSERT_ERR(doca_buf_inventory_buf_reuse_by_addr(gone, mem, 8), DOCA_ERROR_INVALID_VALUE);

	ASSERT_OK(doca_buf_dec_refcount(head, NULL));
	ASSERT_OK(doca_buf_dec_refcount(head, NULL));
	ASSERT_EQ(num_free(f.inv), 3);
	fixture_done(&f);
}

TEST(get_by_args_range_checks)
{
	struct fixture f = fixture(1);
	struct doca_buf *b = SENTINEL_PTR;
	uint8_t other[16];

	/* region outside the mmap */
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, (void *)((uintptr_t)mem - 1), 10, &b),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem + 4000, 97, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem, sizeof(mem) + 1, &b),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, other, 4, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem + 8, SIZE_MAX, &b), DOCA_ERROR_INVALID_VALUE);
	/* data window outside the region */
	ASSERT_ERR(doca_buf_inventory_buf_get_by_args(f.inv, f.mmap, mem + 10, 10, mem + 9, 1, &b),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_args(f.inv, f.mmap, mem + 10, 10, mem + 15, 6, &b),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_args(f.inv, f.mmap, mem + 10, 10, mem + 21, 0, &b),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_args(f.inv, f.mmap, mem + 10, 10, mem + 10, SIZE_MAX, &b),
		   DOCA_ERROR_INVALID_VALUE);
	/* NULL arguments */
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(NULL, f.mmap, mem, 1, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, NULL, mem, 1, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem, 1, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(b, SENTINEL_PTR);
	ASSERT_EQ(num_free(f.inv), 1);
	ASSERT_EQ(num_bufs(f.mmap), 0);

	/* edges are inside: the whole range, and an empty window at the very end */
	ASSERT_OK(doca_buf_inventory_buf_get_by_args(f.inv, f.mmap, mem, sizeof(mem), mem + sizeof(mem), 0, &b));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	fixture_done(&f);
}

TEST(get_needs_started_inventory_and_mmap)
{
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *unstarted = NULL, *m = started_mmap(mem, sizeof(mem), 1, NULL);
	struct doca_buf *b = SENTINEL_PTR;

	ASSERT_OK(doca_buf_inventory_create(1, &inv));
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 1, &b), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_buf_inventory_start(inv));
	ASSERT_OK(doca_mmap_create(&unstarted));
	ASSERT_OK(doca_mmap_set_memrange(unstarted, mem, sizeof(mem)));
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(inv, unstarted, mem, 1, &b), DOCA_ERROR_INVALID_VALUE);
	/* a stopped mmap is not started either */
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 1, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(b, SENTINEL_PTR);
	/* after inventory stop, retrieval is refused but release still works */
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 1, &b));
	ASSERT_OK(doca_buf_inventory_stop(inv));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	ASSERT_EQ(num_free(inv), 1);
	ASSERT_OK(doca_buf_inventory_destroy(inv));
	ASSERT_OK(doca_mmap_destroy(unstarted));
	ASSERT_OK(doca_mmap_destroy(m));
}

TEST(empty_inventory_is_no_memory)
{
	struct fixture f = fixture(1);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = SENTINEL_PTR;

	ASSERT_ERR(doca_buf_inventory_buf_get_by_addr(f.inv, f.mmap, mem, 8, &b), DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(b, SENTINEL_PTR);
	ASSERT_EQ(num_bufs(f.mmap), 1);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	fixture_done(&f);
}

static int free_calls;

static void
count_free(void *addr, size_t len, void *cookie)
{
	free_calls++;
}

TEST(bufs_block_mmap_stop_destroy_and_inventory_destroy)
{
	struct doca_buf_inventory *inv = started_inventory(2);
	struct doca_mmap *m = NULL;
	struct doca_buf *a = NULL, *b = NULL;
	int fd = capture_sdk_log();

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_set_free_cb(m, count_free, NULL));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 8, &a));
	ASSERT_ERR(doca_mmap_destroy(m), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "doca_mmap_destroy: 1 doca_buf(s) still point into the mmap");
	ASSERT_ERR(doca_mmap_stop(m), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_buf_inventory_destroy(inv), DOCA_ERROR_IN_USE);
	ASSERT_LOG_HAS(fd, "doca_buf_inventory_destroy: 1 of 2 bufs are still taken");
	ASSERT_EQ(free_calls, 0);
	/* the refused calls changed nothing: the mmap is still started */
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, m, mem + 8, 8, &b));
	ASSERT_EQ(num_bufs(m), 2);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_ERR(doca_mmap_destroy(m), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_buf_inventory_destroy(inv), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	ASSERT_EQ(num_bufs(m), 0);
	ASSERT_OK(doca_buf_inventory_destroy(inv));
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_EQ(free_calls, 1);
}

TEST(refcount_rules)
{
	struct fixture f = fixture(1);
	struct doca_buf *b = get_buf(&f, 0, 16);
	uint16_t rc = 0;

	ASSERT_OK(doca_buf_inc_refcount(b, &rc));
	ASSERT_EQ(rc, 1); /* value before */
	ASSERT_OK(doca_buf_inc_refcount(b, NULL));
	ASSERT_OK(doca_buf_get_refcount(b, &rc));
	ASSERT_EQ(rc, 3);
	ASSERT_OK(doca_buf_dec_refcount(b, &rc));
	ASSERT_EQ(rc, 3); /* value before */
	ASSERT_OK(doca_buf_dec_refcount(b, &rc));
	ASSERT_EQ(rc, 2);
	ASSERT_EQ(num_free(f.inv), 0);
	ASSERT_OK(doca_buf_dec_refcount(b, &rc));
	ASSERT_EQ(rc, 1);
	ASSERT_EQ(num_free(f.inv), 1);
	ASSERT_EQ(num_bufs(f.mmap), 0);
	rc = 77;
	ASSERT_ERR(doca_buf_dec_refcount(b, &rc), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_buf_inc_refcount(b, &rc), DOCA_ERROR_BAD_STATE);
	ASSERT_EQ(rc, 77);
	ASSERT_ERR(doca_buf_dec_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inc_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	fixture_done(&f);
}

TEST(refcount_saturates)
{
	struct fixture f = fixture(1);
	struct doca_buf *b = get_buf(&f, 0, 16);
	uint16_t rc = 0;

	for (unsigned i = 1; i < UINT16_MAX; i++)
		ASSERT_OK(doca_buf_inc_refcount(b, NULL));
	ASSERT_OK(doca_buf_get_refcount(b, &rc));
	ASSERT_EQ(rc, UINT16_MAX);
	ASSERT_ERR(doca_buf_inc_refcount(b, &rc), DOCA_ERROR_TOO_BIG);
	for (unsigned i = 0; i < UINT16_MAX; i++)
		ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	ASSERT_EQ(num_free(f.inv), 1);
	fixture_done(&f);
}

TEST(data_window)
{
	struct fixture f = fixture(1);
	struct doca_buf *b = get_buf(&f, 100, 100);
	void *p = NULL;
	size_t n = 0;

	ASSERT_OK(doca_buf_set_data(b, mem + 110, 50));
	ASSERT_OK(doca_buf_get_data(b, &p));
	ASSERT_PTR_EQ(p, mem + 110);
	ASSERT_OK(doca_buf_get_data_len(b, &n));
	ASSERT_EQ(n, 50);
	ASSERT_ERR(doca_buf_set_data(b, mem + 99, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_set_data(b, mem + 150, 51), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_set_data(b, mem + 201, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_set_data(NULL, mem, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_set_data(b, mem + 200, 0)); /* empty window at the end */
	ASSERT_OK(doca_buf_set_data(b, mem + 110, 50));
	/* refusals changed nothing */
	ASSERT_OK(doca_buf_get_data(b, &p));
	ASSERT_PTR_EQ(p, mem + 110);

	/* set_data_len keeps the pointer and is bounded by the region end (90 bytes from data) */
	ASSERT_OK(doca_buf_set_data_len(b, 90));
	ASSERT_ERR(doca_buf_set_data_len(b, 91), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_set_data_len(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_get_data_len(b, &n));
	ASSERT_EQ(n, 90);
	ASSERT_OK(doca_buf_reset_data_len(b));
	ASSERT_OK(doca_buf_get_data_len(b, &n));
	ASSERT_EQ(n, 0);
	ASSERT_OK(doca_buf_get_data(b, &p));
	ASSERT_PTR_EQ(p, mem + 110);
	ASSERT_ERR(doca_buf_reset_data_len(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_data(b, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_data_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_head(b, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	fixture_done(&f);
}

TEST(single_buf_list_queries)
{
	struct fixture f = fixture(1);
	struct doca_buf *b = get_buf(&f, 0, 8), *o = SENTINEL_PTR;
	uint8_t v = 9;

	ASSERT_EQ(list_len(b), 1);
	ASSERT_OK(doca_buf_get_next_in_list(b, &o));
	ASSERT_PTR_EQ(o, NULL);
	ASSERT_OK(doca_buf_get_last_in_list(b, &o));
	ASSERT_PTR_EQ(o, b);
	ASSERT_OK(doca_buf_is_first_in_list(b, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_buf_is_last_in_list(b, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_buf_is_in_list(b, &v));
	ASSERT_EQ(v, 0);
	ASSERT_ERR(doca_buf_is_in_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_next_in_list(NULL, &o), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_get_last_in_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	fixture_done(&f);
}

TEST(chain_list_and_release_through_head)
{
	struct fixture f = fixture(4);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = get_buf(&f, 8, 8), *c = get_buf(&f, 16, 8), *o = NULL;
	uint16_t rc = 0;
	uint32_t n = 9;
	uint8_t v = 9;

	ASSERT_OK(doca_buf_chain_list(b, c)); /* b -> c */
	ASSERT_OK(doca_buf_chain_list(a, b)); /* a -> b -> c */
	ASSERT_EQ(list_len(a), 3);
	ASSERT_OK(doca_buf_get_next_in_list(a, &o));
	ASSERT_PTR_EQ(o, b);
	ASSERT_OK(doca_buf_get_next_in_list(b, &o));
	ASSERT_PTR_EQ(o, c);
	ASSERT_OK(doca_buf_get_last_in_list(a, &o));
	ASSERT_PTR_EQ(o, c);
	ASSERT_OK(doca_buf_get_last_in_list(b, &o));
	ASSERT_PTR_EQ(o, c);
	ASSERT_OK(doca_buf_is_first_in_list(b, &v));
	ASSERT_EQ(v, 0);
	ASSERT_OK(doca_buf_is_in_list(c, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_buf_is_in_list(a, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_buf_is_last_in_list(b, &v));
	ASSERT_EQ(v, 0);
	ASSERT_OK(doca_buf_is_last_in_list(c, &v));
	ASSERT_EQ(v, 1);
	/* inner elements: no list length, no release */
	ASSERT_ERR(doca_buf_get_list_len(b, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(n, 9);
	rc = 77;
	ASSERT_ERR(doca_buf_dec_refcount(c, &rc), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_EQ(rc, 77);
	/* an extra reference on the head keeps the whole list */
	ASSERT_OK(doca_buf_inc_refcount(a, NULL));
	ASSERT_OK(doca_buf_dec_refcount(a, &rc));
	ASSERT_EQ(rc, 2);
	ASSERT_EQ(num_free(f.inv), 1);
	ASSERT_EQ(num_bufs(f.mmap), 3);
	/* head reaches 0: every element returns */
	ASSERT_OK(doca_buf_dec_refcount(a, &rc));
	ASSERT_EQ(rc, 1);
	ASSERT_EQ(num_free(f.inv), 4);
	ASSERT_EQ(num_bufs(f.mmap), 0);
	/* all four can be taken again as independent bufs */
	for (int i = 0; i < 4; i++) {
		o = get_buf(&f, 0, 1);
		ASSERT_EQ(list_len(o), 1);
	}
	ASSERT_EQ(num_free(f.inv), 0);
}

TEST(chain_list_refusals)
{
	struct fixture f = fixture(4);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = get_buf(&f, 8, 8), *c = get_buf(&f, 16, 8);
	struct doca_buf *d = get_buf(&f, 24, 8);
	int fd = capture_sdk_log();

	ASSERT_ERR(doca_buf_chain_list(NULL, b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_chain_list(a, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_chain_list(a, a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_inc_refcount(b, NULL));
	ASSERT_ERR(doca_buf_chain_list(a, b), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(fd, "list2 has refcount 2; it must be 1");
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	ASSERT_OK(doca_buf_chain_list(a, b));
	/* b is now inner: neither side may be a non-head */
	ASSERT_ERR(doca_buf_chain_list(c, b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_chain_list(b, c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(list_len(a), 2);
	/* a free buf cannot be chained */
	ASSERT_OK(doca_buf_dec_refcount(d, NULL));
	ASSERT_ERR(doca_buf_chain_list(c, d), DOCA_ERROR_BAD_STATE);
	ASSERT_EQ(list_len(c), 1);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_OK(doca_buf_dec_refcount(c, NULL));
	ASSERT_EQ(num_free(f.inv), 4);
	fixture_done(&f);
}

TEST(chain_list_tail)
{
	struct fixture f = fixture(4);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = get_buf(&f, 8, 8), *c = get_buf(&f, 16, 8);
	struct doca_buf *d = get_buf(&f, 24, 8), *o = NULL;

	ASSERT_OK(doca_buf_chain_list_tail(a, a, b));
	ASSERT_ERR(doca_buf_chain_list_tail(a, a, c), DOCA_ERROR_INVALID_VALUE); /* a is no longer the tail */
	ASSERT_ERR(doca_buf_chain_list_tail(a, NULL, c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_chain_list_tail(a, b, c));
	ASSERT_OK(doca_buf_get_last_in_list(a, &o));
	ASSERT_OK(doca_buf_chain_list_tail(a, o, d));
	ASSERT_EQ(list_len(a), 4);
	ASSERT_OK(doca_buf_get_last_in_list(a, &o));
	ASSERT_PTR_EQ(o, d);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_EQ(num_free(f.inv), 4);
	fixture_done(&f);
}

TEST(unchain_list)
{
	struct fixture f = fixture(4);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = get_buf(&f, 8, 8), *c = get_buf(&f, 16, 8);
	struct doca_buf *d = get_buf(&f, 24, 8), *o = NULL;
	uint16_t rc = 0;
	uint8_t v = 0;

	ASSERT_OK(doca_buf_chain_list(a, b));
	ASSERT_OK(doca_buf_chain_list(a, c));
	ASSERT_OK(doca_buf_chain_list(a, d)); /* a b c d */
	ASSERT_ERR(doca_buf_unchain_list(a, a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_unchain_list(b, c), DOCA_ERROR_INVALID_VALUE); /* b is not a head */
	ASSERT_ERR(doca_buf_unchain_list(NULL, c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_unchain_list(a, c)); /* a b | c d */
	ASSERT_EQ(list_len(a), 2);
	ASSERT_EQ(list_len(c), 2);
	ASSERT_OK(doca_buf_get_last_in_list(a, &o));
	ASSERT_PTR_EQ(o, b);
	ASSERT_OK(doca_buf_is_last_in_list(b, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_buf_get_last_in_list(c, &o));
	ASSERT_PTR_EQ(o, d);
	ASSERT_OK(doca_buf_is_first_in_list(c, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_buf_get_refcount(c, &rc));
	ASSERT_EQ(rc, 1);
	/* c no longer belongs to a */
	ASSERT_ERR(doca_buf_unchain_list(a, c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_unchain_list(a, d), DOCA_ERROR_INVALID_VALUE);
	/* each part releases on its own */
	ASSERT_OK(doca_buf_dec_refcount(c, NULL));
	ASSERT_EQ(num_free(f.inv), 2);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_EQ(num_free(f.inv), 4);
	fixture_done(&f);
}

TEST(dup_single_and_list)
{
	struct fixture f = fixture(5);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = get_buf(&f, 8, 8), *d = SENTINEL_PTR, *o = NULL;
	void *p = NULL;
	size_t n = 0;

	ASSERT_OK(doca_buf_set_data(a, mem + 2, 3));
	ASSERT_OK(doca_buf_inventory_buf_dup(f.inv, a, &d));
	ASSERT_OK(doca_buf_get_data(d, &p));
	ASSERT_PTR_EQ(p, mem + 2);
	ASSERT_OK(doca_buf_get_data_len(d, &n));
	ASSERT_EQ(n, 3);
	ASSERT_OK(doca_buf_get_head(d, &p));
	ASSERT_PTR_EQ(p, mem);
	ASSERT_EQ(num_bufs(f.mmap), 3);
	ASSERT_OK(doca_buf_dec_refcount(d, NULL));

	ASSERT_OK(doca_buf_chain_list(a, b));
	ASSERT_OK(doca_buf_inventory_buf_dup(f.inv, a, &d)); /* whole list: 2 more */
	ASSERT_EQ(list_len(d), 2);
	ASSERT_OK(doca_buf_get_next_in_list(d, &o));
	ASSERT_OK(doca_buf_get_head(o, &p));
	ASSERT_PTR_EQ(p, mem + 8);
	ASSERT_EQ(num_free(f.inv), 1);
	/* not enough elements for another list copy: nothing is taken */
	o = SENTINEL_PTR;
	ASSERT_ERR(doca_buf_inventory_buf_dup(f.inv, a, &o), DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(o, SENTINEL_PTR);
	ASSERT_EQ(num_free(f.inv), 1);
	/* an inner element alone */
	ASSERT_OK(doca_buf_inventory_buf_dup(f.inv, b, &o));
	ASSERT_EQ(list_len(o), 1);
	ASSERT_ERR(doca_buf_inventory_buf_dup(NULL, b, &o), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_buf_dup(f.inv, NULL, &o), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_dec_refcount(o, NULL));
	ASSERT_OK(doca_buf_dec_refcount(d, NULL));
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_ERR(doca_buf_inventory_buf_dup(f.inv, a, &o), DOCA_ERROR_INVALID_VALUE); /* a is free */
	ASSERT_OK(doca_buf_inventory_stop(f.inv));
	ASSERT_EQ(num_free(f.inv), 5);
	fixture_done(&f);
}

TEST(dup_needs_started_inventory)
{
	struct fixture f = fixture(2);
	struct doca_buf *a = get_buf(&f, 0, 8), *o = SENTINEL_PTR;

	ASSERT_OK(doca_buf_inventory_stop(f.inv));
	ASSERT_ERR(doca_buf_inventory_buf_dup(f.inv, a, &o), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(o, SENTINEL_PTR);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	fixture_done(&f);
}

TEST(expand)
{
	struct fixture f = fixture(1);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = NULL;
	uint32_t n = 0;

	ASSERT_ERR(doca_buf_inventory_expand(f.inv, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_expand(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_buf_inventory_expand(f.inv, UINT32_MAX), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_buf_inventory_expand(f.inv, 3));
	ASSERT_OK(doca_buf_inventory_get_num_elements(f.inv, &n));
	ASSERT_EQ(n, 4);
	ASSERT_EQ(num_free(f.inv), 3);
	/* bufs taken before the expansion stay valid, new ones chain with them */
	for (int i = 0; i < 3; i++) {
		b = get_buf(&f, 8 + 8 * i, 8);
		ASSERT_OK(doca_buf_chain_list(a, b));
	}
	ASSERT_EQ(list_len(a), 4);
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_EQ(num_free(f.inv), 4);
	fixture_done(&f);
}

TEST(one_inventory_many_mmaps_overlapping_bufs)
{
	static uint8_t other[64];
	struct fixture f = fixture(3);
	struct doca_mmap *m2 = started_mmap(other, sizeof(other), 1, NULL);
	struct doca_buf *a = get_buf(&f, 0, 8), *b = get_buf(&f, 0, 8), *c = NULL;

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(f.inv, m2, other, 64, &c));
	ASSERT_EQ(num_bufs(f.mmap), 2);
	ASSERT_EQ(num_bufs(m2), 1);
	ASSERT_ERR(doca_mmap_destroy(m2), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_buf_dec_refcount(c, NULL));
	ASSERT_OK(doca_mmap_destroy(m2));
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	fixture_done(&f);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
