/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixtures of the compress tests (public API only): a compress context on a
 * device of the topology, one mmap holding a source area and a destination
 * area followed by a guard, and run_task(), which submits one task of any
 * family, progresses until its callback ran and restarts the context when
 * the failure stopped it.
 */
#ifndef COMPRESS_TEST_H_
#define COMPRESS_TEST_H_

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "../mmap/mmap_test.h"

enum family {
	F_COMPRESS,
	F_INFLATE,
	F_LZ4_STREAM,
	F_LZ4_BLOCK,
};

#define GUARD_LEN 256u
#define GUARD_BYTE 0xa5

/* Callbacks in the order they ran. */
#define MAX_SEEN 64
static struct {
	unsigned n;
	uint64_t ud[MAX_SEEN];
	doca_error_t status[MAX_SEEN];
	enum doca_ctx_states states[16];
	unsigned num_states;
} seen;

static inline void
seen_task(struct doca_task *task, union doca_data ud)
{
	if (seen.n < MAX_SEEN) {
		seen.ud[seen.n] = ud.u64;
		seen.status[seen.n] = doca_task_get_status(task);
	}
	seen.n++;
}

#define CB_PAIR(fam)                                                                                                   \
	static void fam##_cb(struct doca_compress_task_##fam *task, union doca_data ud, union doca_data ctx_ud)        \
	{                                                                                                              \
		(void)ctx_ud;                                                                                          \
		seen_task(doca_compress_task_##fam##_as_task(task), ud);                                               \
	}
CB_PAIR(compress_deflate)
CB_PAIR(decompress_deflate)
CB_PAIR(decompress_lz4_stream)
CB_PAIR(decompress_lz4_block)

static inline void
state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	(void)prev;
	if (seen.num_states < 16)
		seen.states[seen.num_states++] = next;
}

struct cenv {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_compress *c;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	uint8_t *mem, *src, *dst;
	size_t src_cap, dst_cap;
};

/* The result of one task. */
struct result {
	doca_error_t status;
	size_t out_len;	      /* what the destination's data_len grew by */
	uint32_t crc, second; /* second: Adler (deflate) or xxHash (LZ4) */
};

static inline enum doca_ctx_states
cenv_state(struct cenv *e)
{
	enum doca_ctx_states st;

	ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
	return st;
}

/* Every family configured with n tasks (the device must support each). */
static inline void
cenv_conf_all(struct cenv *e, uint32_t n)
{
	ASSERT_OK(doca_compress_task_compress_deflate_set_conf(e->c, compress_deflate_cb, compress_deflate_cb, n));
	ASSERT_OK(
		doca_compress_task_decompress_deflate_set_conf(e->c, decompress_deflate_cb, decompress_deflate_cb, n));
	ASSERT_OK(doca_compress_task_decompress_lz4_stream_set_conf(e->c, decompress_lz4_stream_cb,
								    decompress_lz4_stream_cb, n));
	ASSERT_OK(doca_compress_task_decompress_lz4_block_set_conf(e->c, decompress_lz4_block_cb,
								   decompress_lz4_block_cb, n));
}

/*
 * Open ibdev, a PE, a compress context with every family (n tasks each) unless
 * conf is false, and one started LOCAL_READ_WRITE mmap of src_cap + dst_cap +
 * GUARD_LEN bytes.  The topology must be chosen first.
 */
static inline void
cenv_open_dev(struct cenv *e, const char *ibdev, size_t src_cap, size_t dst_cap, bool conf)
{
	memset(e, 0, sizeof(*e));
	memset(&seen, 0, sizeof(seen));
	e->dev = open_ibdev(ibdev);
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_compress_create(e->dev, &e->c));
	e->ctx = doca_compress_as_ctx(e->c);
	ASSERT_NOT_NULL(e->ctx);
	ASSERT_OK(doca_pe_connect_ctx(e->pe, e->ctx));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_cb));
	if (conf)
		cenv_conf_all(e, 16);
	e->src_cap = src_cap;
	e->dst_cap = dst_cap;
	e->mem = malloc(src_cap + dst_cap + GUARD_LEN);
	ASSERT_NOT_NULL(e->mem);
	e->src = e->mem;
	e->dst = e->mem + src_cap;
	memset(e->dst, 0, dst_cap + GUARD_LEN);
	memset(e->dst + dst_cap, GUARD_BYTE, GUARD_LEN);
	e->mmap = started_mmap(e->mem, src_cap + dst_cap + GUARD_LEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, e->dev);
	e->inv = started_inventory(256);
}

/* The built-in topology's host function, started. */
static inline void
cenv_open(struct cenv *e, size_t src_cap, size_t dst_cap)
{
	use_builtin_topology();
	cenv_open_dev(e, "mlx5_0", src_cap, dst_cap, true);
	ASSERT_OK(doca_ctx_start(e->ctx));
}

static inline void
cenv_guard_intact(const struct cenv *e)
{
	for (size_t i = 0; i < GUARD_LEN; i++)
		if (e->dst[e->dst_cap + i] != GUARD_BYTE)
			sd_test_fail(__FILE__, __LINE__, "guard byte %zu after the destination was written", i);
}

/* Progress until n callbacks ran in total (20 s at most). */
static inline void
cenv_progress_until(struct cenv *e, unsigned n)
{
	for (long i = 0; seen.n < n; i++) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(50);
		ASSERT(i < 400000);
	}
}

/* After a failure stopped the context: back to IDLE, then RUNNING again. */
static inline void
cenv_restart(struct cenv *e)
{
	for (int i = 0; cenv_state(e) != DOCA_CTX_STATE_IDLE; i++) {
		(void)doca_pe_progress(e->pe);
		ASSERT(i < 100000);
	}
	ASSERT_OK(doca_ctx_start(e->ctx));
}

static inline void
cenv_close(struct cenv *e)
{
	if (cenv_state(e) == DOCA_CTX_STATE_RUNNING) {
		doca_error_t r = doca_ctx_stop(e->ctx);

		ASSERT(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
	}
	for (int i = 0; cenv_state(e) != DOCA_CTX_STATE_IDLE; i++) {
		(void)doca_pe_progress(e->pe);
		ASSERT(i < 100000);
	}
	ASSERT_OK(doca_compress_destroy(e->c));
	ASSERT_OK(doca_pe_destroy(e->pe));
	ASSERT_OK(doca_buf_inventory_destroy(e->inv));
	ASSERT_OK(doca_mmap_destroy(e->mmap));
	ASSERT_OK(doca_dev_close(e->dev));
	free(e->mem);
}

static inline struct doca_buf *
cenv_buf(struct cenv *e, void *addr, size_t len, size_t data_len)
{
	struct doca_buf *b = NULL;

	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, addr, len, &b));
	if (data_len > 0)
		ASSERT_OK(doca_buf_set_data(b, addr, data_len));
	return b;
}

/* A task of family over src and dst (lz4 flags for the stream task); NULL on failure (code in *err). */
static inline struct doca_task *
cenv_alloc(struct cenv *e, enum family f, struct doca_buf *src, struct doca_buf *dst, bool csum, bool indep,
	   uint64_t ud, doca_error_t *err)
{
	union doca_data d = {.u64 = ud};

	switch (f) {
	case F_COMPRESS: {
		struct doca_compress_task_compress_deflate *t = NULL;

		*err = doca_compress_task_compress_deflate_alloc_init(e->c, src, dst, d, &t);
		return t == NULL ? NULL : doca_compress_task_compress_deflate_as_task(t);
	}
	case F_INFLATE: {
		struct doca_compress_task_decompress_deflate *t = NULL;

		*err = doca_compress_task_decompress_deflate_alloc_init(e->c, src, dst, d, &t);
		return t == NULL ? NULL : doca_compress_task_decompress_deflate_as_task(t);
	}
	case F_LZ4_STREAM: {
		struct doca_compress_task_decompress_lz4_stream *t = NULL;

		*err = doca_compress_task_decompress_lz4_stream_alloc_init(e->c, csum, indep, src, dst, d, &t);
		return t == NULL ? NULL : doca_compress_task_decompress_lz4_stream_as_task(t);
	}
	default: {
		struct doca_compress_task_decompress_lz4_block *t = NULL;

		*err = doca_compress_task_decompress_lz4_block_alloc_init(e->c, src, dst, d, &t);
		return t == NULL ? NULL : doca_compress_task_decompress_lz4_block_as_task(t);
	}
	}
}

/* The two checksums of a completed task of family f. */
static inline void
task_checksums(struct doca_task *task, enum family f, struct result *r)
{
	switch (f) {
	case F_COMPRESS:
		r->crc = doca_compress_task_compress_deflate_get_crc_cs((void *)task);
		r->second = doca_compress_task_compress_deflate_get_adler_cs((void *)task);
		break;
	case F_INFLATE:
		r->crc = doca_compress_task_decompress_deflate_get_crc_cs((void *)task);
		r->second = doca_compress_task_decompress_deflate_get_adler_cs((void *)task);
		break;
	case F_LZ4_STREAM:
		r->crc = doca_compress_task_decompress_lz4_stream_get_crc_cs((void *)task);
		r->second = doca_compress_task_decompress_lz4_stream_get_xxh_cs((void *)task);
		break;
	default:
		r->crc = doca_compress_task_decompress_lz4_block_get_crc_cs((void *)task);
		r->second = doca_compress_task_decompress_lz4_block_get_xxh_cs((void *)task);
		break;
	}
}

/*
 * Run one task of family f on the buffers: submit, wait for its callback,
 * record it, free it, and restart the context if its failure stopped it.
 */
static inline struct result
cenv_run_bufs(struct cenv *e, enum family f, struct doca_buf *src, struct doca_buf *dst, bool csum, bool indep)
{
	struct result r = {DOCA_SUCCESS, 0, 0, 0};
	size_t before = 0, after = 0;
	doca_error_t err;
	struct doca_task *t = cenv_alloc(e, f, src, dst, csum, indep, 0x77, &err);
	unsigned n0 = seen.n;

	ASSERT_OK(err);
	ASSERT_OK(doca_buf_get_data_len(dst, &before));
	ASSERT_OK(doca_task_submit(t));
	cenv_progress_until(e, n0 + 1);
	r.status = seen.status[n0];
	ASSERT_EQ(seen.ud[n0], 0x77);
	ASSERT_OK(doca_buf_get_data_len(dst, &after));
	r.out_len = after - before;
	if (r.status == DOCA_SUCCESS)
		task_checksums(t, f, &r);
	doca_task_free(t);
	if (r.status != DOCA_SUCCESS)
		cenv_restart(e);
	return r;
}

/*
 * One task of family f from n bytes at in into a destination of room bytes (at
 * most dst_cap); the output is at e->dst.  The guard after it must stay intact.
 */
static inline struct result
cenv_run(struct cenv *e, enum family f, const void *in, size_t n, size_t room, bool csum, bool indep)
{
	struct doca_buf *src, *dst;
	struct result r;

	ASSERT(n <= e->src_cap && room <= e->dst_cap);
	memcpy(e->src, in, n);
	memset(e->dst, 0, e->dst_cap);
	/* The destination ends where the guard starts, whatever its room. */
	src = cenv_buf(e, e->src, n > 0 ? n : 1, n);
	dst = cenv_buf(e, e->dst + e->dst_cap - room, room, 0);
	r = cenv_run_bufs(e, f, src, dst, csum, indep);
	if (room > 0 && e->dst_cap > room)
		memmove(e->dst, e->dst + e->dst_cap - room, r.out_len);
	cenv_guard_intact(e);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	return r;
}

#endif /* COMPRESS_TEST_H_ */
