/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The erasure coding tests' fixture and reference arithmetic (ec_test.h).
 */
#include <errno.h>

#include "ec_test.h"

struct ec_seen ec_seen;

static void
note(struct doca_task *task, union doca_data ud)
{
	doca_error_t st = doca_task_get_status(task);

	if (ec_seen.n < EC_MAX_SEEN) {
		ec_seen.order[ec_seen.n] = ud.u64;
		ec_seen.status[ec_seen.n] = st;
	}
	ec_seen.n++;
	ec_seen.last = st;
	if (st == DOCA_SUCCESS)
		ec_seen.ok++;
	else
		ec_seen.err++;
	doca_task_free(task);
}

#define EC_CALLBACK(T)                                                                                                 \
	static void T##_cb(struct doca_ec_task_##T *t, union doca_data ud, union doca_data ctx_ud)                     \
	{                                                                                                              \
		(void)ctx_ud;                                                                                          \
		note(doca_ec_task_##T##_as_task(t), ud);                                                               \
	}
EC_CALLBACK(galois_mul)
EC_CALLBACK(create)
EC_CALLBACK(update)
EC_CALLBACK(recover)

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	(void)user_data;
	(void)ctx;
	(void)prev;
	if (ec_seen.num_states < 16)
		ec_seen.states[ec_seen.num_states++] = next;
}

void
ec_env_open_idle(struct ec_env *e, size_t mem_len, uint32_t num_tasks)
{
	memset(e, 0, sizeof(*e));
	memset(&ec_seen, 0, sizeof(ec_seen));
	if (getenv("SOFTDOCA_TOPOLOGY") == NULL)
		use_builtin_topology();
	e->dev = open_ibdev("mlx5_0");
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_ec_create(e->dev, &e->ec));
	e->ctx = doca_ec_as_ctx(e->ec);
	ASSERT_NOT_NULL(e->ctx);
	ASSERT_OK(doca_pe_connect_ctx(e->pe, e->ctx));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_changed));
	ASSERT_OK(doca_ec_task_galois_mul_set_conf(e->ec, galois_mul_cb, galois_mul_cb, num_tasks));
	ASSERT_OK(doca_ec_task_create_set_conf(e->ec, create_cb, create_cb, num_tasks));
	ASSERT_OK(doca_ec_task_update_set_conf(e->ec, update_cb, update_cb, num_tasks));
	ASSERT_OK(doca_ec_task_recover_set_conf(e->ec, recover_cb, recover_cb, num_tasks));
	e->len = mem_len;
	e->mem = aligned_alloc(64, (mem_len + 63) / 64 * 64);
	ASSERT_NOT_NULL(e->mem);
	e->mmap = started_mmap(e->mem, mem_len, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, e->dev);
	e->inv = started_inventory(4096);
}

void
ec_env_open(struct ec_env *e, size_t mem_len, uint32_t num_tasks)
{
	ec_env_open_idle(e, mem_len, num_tasks);
	ASSERT_OK(doca_ctx_start(e->ctx));
}

void
ec_env_restart(struct ec_env *e)
{
	enum doca_ctx_states st;
	time_t until = time(NULL) + 20;

	for (;;) {
		ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		ASSERT(time(NULL) < until);
		doca_pe_progress(e->pe);
	}
	ASSERT_OK(doca_ctx_start(e->ctx));
}

void
ec_env_close(struct ec_env *e)
{
	doca_error_t err = doca_ctx_stop(e->ctx);
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
	time_t until = time(NULL) + 20;

	/* a failed task leaves the context STOPPING: progress it to IDLE */
	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	while (err == DOCA_ERROR_IN_PROGRESS && st != DOCA_CTX_STATE_IDLE) {
		ASSERT(time(NULL) < until);
		doca_pe_progress(e->pe);
		ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
	}
	ASSERT_OK(doca_ec_destroy(e->ec));
	ASSERT_OK(doca_pe_destroy(e->pe));
	ASSERT_OK(doca_buf_inventory_destroy(e->inv));
	ASSERT_OK(doca_mmap_destroy(e->mmap));
	ASSERT_OK(doca_dev_close(e->dev));
	free(e->mem);
}

uint8_t *
ec_arena(struct ec_env *e, size_t len)
{
	uint8_t *p = e->mem + e->used;

	ASSERT(e->used + len <= e->len);
	e->used += (len + 63) / 64 * 64;
	return p;
}

/* Split [p, p + len) into nsegs chained bufs; the first one is smaller (uneven on purpose). */
static struct doca_buf *
chain(struct ec_env *e, uint8_t *p, size_t len, unsigned nsegs, bool with_data)
{
	struct doca_buf *head = NULL;
	size_t off = 0;

	ASSERT(nsegs >= 1 && len >= nsegs);
	for (unsigned s = 0; s < nsegs; s++) {
		size_t n = s + 1 == nsegs ? len - off : (len / nsegs) - (s == 0 ? (len / nsegs) / 3 : 0);
		struct doca_buf *b = NULL;

		if (with_data)
			ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, e->mmap, p + off, n, &b));
		else
			ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, p + off, n, &b));
		if (head == NULL)
			head = b;
		else
			ASSERT_OK(doca_buf_chain_list(head, b));
		off += n;
	}
	return head;
}

struct doca_buf *
ec_src(struct ec_env *e, const void *data, size_t len, unsigned nsegs)
{
	uint8_t *p = ec_arena(e, len > 0 ? len : 1);

	memcpy(p, data, len);
	if (len == 0) {
		struct doca_buf *b = NULL;

		ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, p, 64, &b));
		return b;
	}
	return chain(e, p, len, nsegs, true);
}

struct doca_buf *
ec_dst(struct ec_env *e, size_t room, unsigned nsegs, uint8_t **at)
{
	uint8_t *p = ec_arena(e, room + EC_GUARD);

	memset(p, 0, room);
	memset(p + room, EC_GUARD_BYTE, EC_GUARD);
	if (at != NULL)
		*at = p;
	return chain(e, p, room, nsegs, false);
}

void
ec_assert_guard(const uint8_t *at, size_t room)
{
	for (size_t i = 0; i < EC_GUARD; i++)
		ASSERT_EQ(at[room + i], EC_GUARD_BYTE);
}

size_t
ec_list_data_len(struct doca_buf *list)
{
	size_t total = 0;

	for (struct doca_buf *b = list; b != NULL;) {
		size_t n = 0;

		ASSERT_OK(doca_buf_get_data_len(b, &n));
		total += n;
		ASSERT_OK(doca_buf_get_next_in_list(b, &b));
	}
	return total;
}

void
ec_release(struct doca_buf *buf)
{
	ASSERT_OK(doca_buf_dec_refcount(buf, NULL));
}

doca_error_t
ec_alloc(struct ec_env *e, enum ec_family fam, const struct doca_ec_matrix *m, struct doca_buf *src,
	 struct doca_buf *dst, uint64_t ud, struct doca_task **task)
{
	union doca_data d = {.u64 = ud};
	doca_error_t err;

	switch (fam) {
	case EC_GALOIS_MUL: {
		struct doca_ec_task_galois_mul *t = NULL;

		err = doca_ec_task_galois_mul_allocate_init(e->ec, m, src, dst, d, &t);
		*task = doca_ec_task_galois_mul_as_task(t);
		break;
	}
	case EC_CREATE: {
		struct doca_ec_task_create *t = NULL;

		err = doca_ec_task_create_allocate_init(e->ec, m, src, dst, d, &t);
		*task = doca_ec_task_create_as_task(t);
		break;
	}
	case EC_UPDATE: {
		struct doca_ec_task_update *t = NULL;

		err = doca_ec_task_update_allocate_init(e->ec, m, src, dst, d, &t);
		*task = doca_ec_task_update_as_task(t);
		break;
	}
	default: {
		struct doca_ec_task_recover *t = NULL;

		err = doca_ec_task_recover_allocate_init(e->ec, m, src, dst, d, &t);
		*task = doca_ec_task_recover_as_task(t);
		break;
	}
	}
	return err;
}

void
ec_progress_until(struct ec_env *e, unsigned n)
{
	time_t until = time(NULL) + 20;

	while (ec_seen.n < n) {
		if (time(NULL) > until)
			sd_test_fail(__FILE__, __LINE__, "%u callbacks after 20 s, %u expected", ec_seen.n, n);
		doca_pe_progress(e->pe);
	}
}

doca_error_t
ec_run(struct ec_env *e, enum ec_family fam, const struct doca_ec_matrix *m, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_task *task = NULL;
	unsigned before = ec_seen.n;

	ASSERT_OK(ec_alloc(e, fam, m, src, dst, 7, &task));
	ASSERT_OK(doca_task_submit(task));
	ec_progress_until(e, before + 1);
	ASSERT_EQ(ec_seen.n, before + 1);
	return ec_seen.last;
}

void
ec_fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t s = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(sd_test_rand(&s) >> 7);
}

uint8_t
ref_mul(uint8_t a, uint8_t b)
{
	unsigned x = a, p = 0;

	for (; b != 0; b >>= 1) {
		if (b & 1)
			p ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	return (uint8_t)p;
}

uint8_t
ref_inv(uint8_t a)
{
	for (unsigned b = 1; b < 256; b++)
		if (ref_mul(a, (uint8_t)b) == 1)
			return (uint8_t)b;
	sd_test_fail(__FILE__, __LINE__, "0 has no inverse");
}

uint8_t
ref_coef(int type, size_t k, size_t i, size_t j)
{
	uint8_t p = 1;

	if (type == DOCA_EC_MATRIX_TYPE_CAUCHY)
		return ref_inv((uint8_t)(i ^ (j + k)));
	for (size_t e = 0; e < j; e++)
		p = ref_mul(p, (uint8_t)(i + 1));
	return p;
}

void
ref_apply(const uint8_t *coef, size_t in, size_t out, const uint8_t *src, uint8_t *dst, size_t len)
{
	memset(dst, 0, out * len);
	for (size_t r = 0; r < out; r++)
		for (size_t c = 0; c < in; c++)
			for (size_t x = 0; x < len; x++)
				dst[r * len + x] ^= ref_mul(coef[r * in + c], src[c * len + x]);
}
