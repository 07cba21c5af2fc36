/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Equivalents of DOCA's nine progress-engine samples (doca-samples.md §4), driven
 * with DMA memcpy tasks of 1 KiB whose bytes are a per-task value: polling, async
 * stop, event-driven (inline and worker-thread completions), multi-context,
 * reactive stop, single callback, task error with auto-stop, resubmission from
 * callbacks, try_submit.
 */
#include <sys/epoll.h>

#include "dma_test.h"

#define TASK_BYTES 1024

/* Per-test state the callbacks read and write. */
static struct {
	struct env *e;
	unsigned ok, err, flushed;
	unsigned stop_at; /* stop the ctx at this many completions (0: never) */
	doca_error_t stop_ret;
	int states[16];
	unsigned num_states;
	bool verify_failed;
	/* resubmit */
	unsigned next_pair, num_pairs, copies_verified;
	struct doca_buf *srcs[64], *dsts[64];
} st;

static void
fill_task_bytes(struct env *e, unsigned i)
{
	memset(e->mem + (size_t)i * TASK_BYTES, (int)(i + 1), TASK_BYTES);
}

/* What the samples' callbacks do: check every destination byte is the task's value. */
static void
verify_copy(struct doca_dma_task_memcpy *task)
{
	const struct doca_buf *src = doca_dma_task_memcpy_get_src(task);
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(task);
	void *sdata, *ddata;
	size_t len;

	if (doca_buf_get_data((struct doca_buf *)src, &sdata) != DOCA_SUCCESS ||
	    doca_buf_get_data(dst, &ddata) != DOCA_SUCCESS || doca_buf_get_data_len(dst, &len) != DOCA_SUCCESS ||
	    len != TASK_BYTES || memcmp(sdata, ddata, TASK_BYTES) != 0)
		st.verify_failed = true;
}

static void
state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	(void)user_data;
	(void)ctx;
	(void)prev;
	if (st.num_states < sizeof(st.states) / sizeof(st.states[0]))
		st.states[st.num_states++] = (int)next;
}

static void
sample_ok_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	(void)ctx_ud;
	verify_copy(task);
	st.ok++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	if (st.stop_at != 0 && st.ok + st.err == st.stop_at)
		st.stop_ret = doca_ctx_stop(st.e->ctx);
}

static void
sample_err_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	(void)ctx_ud;
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_ERROR_IO_FAILED)
		st.flushed++;
	st.err++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* A sample's setup: n tasks, sources at [i KiB), destinations after them. */
static void
sample_open(struct env *e, unsigned n, doca_dma_task_memcpy_completion_cb_t ok,
	    doca_dma_task_memcpy_completion_cb_t err)
{
	memset(&st, 0, sizeof(st));
	st.e = e;
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	env_open(e, T_HOST_PCI, (size_t)2 * n * TASK_BYTES, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, n);
	ASSERT_OK(doca_dma_task_memcpy_set_conf(e->dma, ok, err, n));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_cb));
	env_start(e);
}

static struct doca_dma_task_memcpy *
sample_task(struct env *e, unsigned n, unsigned i)
{
	struct doca_dma_task_memcpy *t = NULL;
	struct doca_buf *s = NULL, *d = NULL;
	union doca_data ud = {.u64 = i};

	fill_task_bytes(e, i);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, e->mmap, e->mem + (size_t)i * TASK_BYTES, TASK_BYTES, &s));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, e->mem + (size_t)(n + i) * TASK_BYTES, TASK_BYTES,
						     &d));
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, s, d, ud, &t));
	return t;
}

static void
submit_all(struct env *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(sample_task(e, n, i))));
}

static void
assert_idle(struct env *e)
{
	enum doca_ctx_states s;
	size_t inflight = 99;

	ASSERT_OK(doca_ctx_get_state(e->ctx, &s));
	ASSERT_EQ(s, DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(e->ctx, &inflight));
	ASSERT_EQ(inflight, 0);
}

/* pe_polling: 16 tasks, poll until all completed; all succeed and verify. */
TEST(pe_polling)
{
	struct env e;

	sample_open(&e, 16, sample_ok_cb, sample_err_cb);
	submit_all(&e, 16);
	progress_until(e.pe, &st.ok, 16);
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	assert_idle(&e);
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/*
 * pe_async_stop: the 8th completion stops the ctx -> IN_PROGRESS; the other 8 come
 * back through the error callback (flushed); STOPPING then IDLE.
 */
TEST(pe_async_stop)
{
	struct env e;

	sample_open(&e, 16, sample_ok_cb, sample_err_cb);
	st.stop_at = 8;
	submit_all(&e, 16);
	progress_until_idle(e.pe, e.ctx);
	ASSERT_ERR(st.stop_ret, DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(st.ok, 8);
	ASSERT_EQ(st.err, 8);
	ASSERT_EQ(st.flushed, 8);
	ASSERT(!st.verify_failed);
	ASSERT_EQ(st.num_states, 3);
	ASSERT_EQ(st.states[0], DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(st.states[1], DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(st.states[2], DOCA_CTX_STATE_IDLE);
	assert_idle(&e);
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/* pe_event: sleep in epoll on the notification handle between progress calls. */
static void
event_driven(const char *engine)
{
	struct epoll_event ev = {.events = EPOLLIN}, out;
	doca_notification_handle_t fd;
	double end;
	struct env e;
	int ep;

	ASSERT_EQ(setenv("SOFTDOCA_DMA_ENGINE", engine, 1), 0);
	sample_open(&e, 16, sample_ok_cb, sample_err_cb);
	ASSERT_OK(doca_pe_get_notification_handle(e.pe, &fd));
	ep = epoll_create1(0);
	ASSERT(ep >= 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	submit_all(&e, 16);
	end = now_s() + 10;
	while (st.ok < 16) {
		while (doca_pe_progress(e.pe) != 0)
			;
		if (st.ok == 16)
			break;
		ASSERT_OK(doca_pe_request_notification(e.pe));
		/* A finite timeout only so a lost wake-up fails the test instead of hanging it. */
		ASSERT_EQ(epoll_wait(ep, &out, 1, 5000), 1);
		ASSERT_OK(doca_pe_clear_notification(e.pe, 0));
		ASSERT(now_s() < end);
	}
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);
	close(ep);
	env_close(&e);
}

TEST(pe_event_inline)
{
	event_driven("inline");
}

/* Completions produced by the worker thread must wake the sleeping application. */
TEST(pe_event_worker)
{
	event_driven("worker");
}

/* pe_multi_context: 4 DMA contexts on one PE, 16 tasks each. */
static unsigned multi_ok[4];

static void
multi_ok_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	verify_copy(task);
	multi_ok[ctx_ud.u64]++;
	st.ok++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

TEST(pe_multi_context)
{
	struct doca_dma *dma[4];
	struct doca_pe *pe;
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	uint8_t *mem = malloc(4 * 32 * TASK_BYTES);

	memset(&st, 0, sizeof(st));
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	dev = open_dev(T_HOST_PCI);
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_mmap_create(&mmap));
	ASSERT_OK(doca_mmap_set_memrange(mmap, mem, 4 * 32 * TASK_BYTES));
	ASSERT_OK(doca_mmap_add_dev(mmap, dev));
	ASSERT_OK(doca_mmap_start(mmap));
	ASSERT_OK(doca_buf_inventory_create(4 * 32, &inv));
	ASSERT_OK(doca_buf_inventory_start(inv));
	for (uint64_t c = 0; c < 4; c++) {
		union doca_data cud = {.u64 = c};

		ASSERT_OK(doca_dma_create(dev, &dma[c]));
		ASSERT_OK(doca_dma_task_memcpy_set_conf(dma[c], multi_ok_cb, sample_err_cb, 16));
		ASSERT_OK(doca_ctx_set_user_data(doca_dma_as_ctx(dma[c]), cud));
		ASSERT_OK(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma[c])));
		ASSERT_OK(doca_ctx_start(doca_dma_as_ctx(dma[c])));
	}
	for (unsigned c = 0; c < 4; c++)
		for (unsigned i = 0; i < 16; i++) {
			uint8_t *s = mem + (size_t)(c * 32 + i) * TASK_BYTES, *d = s + 16 * TASK_BYTES;
			struct doca_buf *sb, *db;
			struct doca_dma_task_memcpy *t;
			union doca_data ud = {.u64 = i};

			memset(s, (int)(c * 16 + i), TASK_BYTES);
			ASSERT_OK(doca_buf_inventory_buf_get_by_data(inv, mmap, s, TASK_BYTES, &sb));
			ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, mmap, d, TASK_BYTES, &db));
			ASSERT_OK(doca_dma_task_memcpy_alloc_init(dma[c], sb, db, ud, &t));
			ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
		}
	progress_until(pe, &st.ok, 64);
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);
	for (unsigned c = 0; c < 4; c++) {
		ASSERT_EQ(multi_ok[c], 16);
		ASSERT_OK(doca_ctx_stop(doca_dma_as_ctx(dma[c])));
		ASSERT_OK(doca_dma_destroy(dma[c]));
	}
	ASSERT_OK(doca_pe_destroy(pe));
}

/* pe_reactive: the last completion stops the ctx; the loop ends from the state callback. */
static bool reactive_done;

static void
reactive_state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
		  enum doca_ctx_states next)
{
	state_cb(user_data, ctx, prev, next);
	if (next == DOCA_CTX_STATE_IDLE)
		reactive_done = true;
}

TEST(pe_reactive)
{
	struct env e;
	double end;

	sample_open(&e, 16, sample_ok_cb, sample_err_cb);
	ASSERT_OK(doca_ctx_set_state_changed_cb(e.ctx, reactive_state_cb));
	st.stop_at = 16;
	submit_all(&e, 16);
	for (end = now_s() + 10; !reactive_done;) {
		if (doca_pe_progress(e.pe) == 0)
			usleep(10);
		ASSERT(now_s() < end);
	}
	/* Stopped from a completion callback (inside progress): asynchronous even with nothing in flight. */
	ASSERT_ERR(st.stop_ret, DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(st.ok, 16);
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);
	assert_idle(&e);
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/* pe_single_task_comp_cb: one callback for both outcomes, deciding by status. */
static void
single_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS)
		sample_ok_cb(task, ud, ctx_ud);
	else
		sample_err_cb(task, ud, ctx_ud);
}

TEST(pe_single_task_comp_cb)
{
	struct env e;

	sample_open(&e, 16, single_cb, single_cb);
	submit_all(&e, 16);
	progress_until(e.pe, &st.ok, 16);
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);
	env_close(&e);
}

/*
 * pe_task_error: 255 tasks, task 2 has a zero-length source.  Its error callback
 * runs, the ctx stops by itself, the rest are flushed or completed, in-flight
 * reaches 0 and the ctx is IDLE without a stop call.
 */
static doca_error_t task2_status;

static void
error_sample_err_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	if (ud.u64 == 2)
		task2_status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	sample_err_cb(task, ud, ctx_ud);
}

TEST(pe_task_error)
{
	struct env e;
	struct doca_dma_task_memcpy *t;

	sample_open(&e, 255, sample_ok_cb, error_sample_err_cb);
	for (unsigned i = 0; i < 255; i++) {
		t = sample_task(&e, 255, i);
		if (i == 2)
			ASSERT_OK(doca_buf_reset_data_len((struct doca_buf *)doca_dma_task_memcpy_get_src(t)));
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	}
	progress_until_idle(e.pe, e.ctx);
	ASSERT_ERR(task2_status, DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(st.ok + st.err, 255);
	ASSERT(st.err >= 1);
	ASSERT(!st.verify_failed);
	ASSERT_EQ(st.states[st.num_states - 2], DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(st.states[st.num_states - 1], DOCA_CTX_STATE_IDLE);
	assert_idle(&e);
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/* pe_task_resubmit: 4 tasks carry 16 buffer pairs, resubmitted from their callbacks. */
static void
resubmit_ok_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	(void)ctx_ud;
	verify_copy(task);
	st.copies_verified++;
	if (st.next_pair < st.num_pairs) {
		union doca_data next = {.u64 = st.next_pair};

		doca_dma_task_memcpy_set_src(task, st.srcs[st.next_pair]);
		doca_dma_task_memcpy_set_dst(task, st.dsts[st.next_pair]);
		doca_task_set_user_data(doca_dma_task_memcpy_as_task(task), next);
		st.next_pair++;
		if (doca_task_submit(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS)
			st.verify_failed = true;
		return;
	}
	st.ok++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

TEST(pe_task_resubmit)
{
	struct doca_dma_task_memcpy *t[4];
	struct env e;

	sample_open(&e, 16, resubmit_ok_cb, sample_err_cb);
	st.num_pairs = 16;
	for (unsigned i = 0; i < 16; i++) {
		fill_task_bytes(&e, i);
		ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, e.mmap, e.mem + (size_t)i * TASK_BYTES, TASK_BYTES,
							     &st.srcs[i]));
		ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, e.mmap, e.mem + (size_t)(16 + i) * TASK_BYTES,
							     TASK_BYTES, &st.dsts[i]));
	}
	for (unsigned i = 0; i < 4; i++) {
		union doca_data ud = {.u64 = i};

		ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, st.srcs[i], st.dsts[i], ud, &t[i]));
	}
	st.next_pair = 4;
	for (unsigned i = 0; i < 4; i++)
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t[i])));
	progress_until(e.pe, &st.ok, 4);
	ASSERT_EQ(st.copies_verified, 16);
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);
	for (unsigned i = 0; i < 16; i++)
		ASSERT_MEM_EQ(e.mem + (16 + i) * TASK_BYTES, e.mem + i * TASK_BYTES, TASK_BYTES);
	env_close(&e);
}

/* pe_task_try_submit: validated submission of 16 good tasks; a bad one is refused and kept. */
TEST(pe_task_try_submit)
{
	struct doca_dma_task_memcpy *bad;
	struct env e;

	sample_open(&e, 17, sample_ok_cb, sample_err_cb);
	for (unsigned i = 0; i < 16; i++)
		ASSERT_OK(doca_task_try_submit(doca_dma_task_memcpy_as_task(sample_task(&e, 17, i))));
	progress_until(e.pe, &st.ok, 16);
	ASSERT_EQ(st.err, 0);
	ASSERT(!st.verify_failed);

	bad = sample_task(&e, 17, 16);
	ASSERT_OK(doca_buf_reset_data_len((struct doca_buf *)doca_dma_task_memcpy_get_src(bad)));
	ASSERT_ERR(doca_task_try_submit(doca_dma_task_memcpy_as_task(bad)), DOCA_ERROR_INVALID_VALUE);
	/* Refused by validation: no callback, the ctx keeps running. */
	for (int i = 0; i < 10; i++)
		doca_pe_progress(e.pe);
	ASSERT_EQ(st.err, 0);
	doca_task_free(doca_dma_task_memcpy_as_task(bad));
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
