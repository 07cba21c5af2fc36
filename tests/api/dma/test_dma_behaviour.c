/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Behaviours DOCA programs depend on (issue 11), written the way DOCA's samples
 * use the API: a state callback that tears the context down when it reaches IDLE,
 * a stop from the last completion callback, and a task whose source holds no
 * data in the middle of a batch (pe_task_error).
 */
#include "dma_test.h"

#define TASK_BYTES 256u
#define NUM_TASKS 8u

/* What the callbacks saw, in order. */
static struct {
	struct env *e;
	unsigned n;
	unsigned ud[64];
	doca_error_t status[64];
	enum doca_ctx_states states[16];
	unsigned num_states;
	doca_error_t stop_ret;
	unsigned stop_after;  /* doca_ctx_stop() from the completion that makes this many */
	bool destroy_on_idle; /* the reactive pattern: doca_dma_destroy() from the IDLE callback */
	doca_error_t destroy_ret;
	bool idle;
} seen;

static void
on_task(struct doca_dma_task_memcpy *task, union doca_data ud)
{
	struct doca_task *t = doca_dma_task_memcpy_as_task(task);

	seen.ud[seen.n] = (unsigned)ud.u64;
	seen.status[seen.n] = doca_task_get_status(t);
	seen.n++;
	doca_task_free(t);
	if (seen.stop_after != 0 && seen.n == seen.stop_after)
		seen.stop_ret = doca_ctx_stop(seen.e->ctx);
}

static void
copy_done(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ctx_ud;
	on_task(task, ud);
}

static void
copy_failed(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ctx_ud;
	on_task(task, ud);
}

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	(void)user_data;
	(void)prev;
	(void)ctx;
	if (seen.num_states < sizeof(seen.states) / sizeof(seen.states[0]))
		seen.states[seen.num_states++] = next;
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	seen.idle = true;
	if (seen.destroy_on_idle) {
		seen.destroy_ret = doca_dma_destroy(seen.e->dma);
		seen.e->dma = NULL;
		seen.e->ctx = NULL;
	}
}

static void
open_started(struct env *e, unsigned num_tasks)
{
	memset(&seen, 0, sizeof(seen));
	seen.e = e;
	seen.stop_ret = DOCA_ERROR_UNKNOWN;
	seen.destroy_ret = DOCA_ERROR_UNKNOWN;
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	env_open(e, T_HOST_PCI, (size_t)2 * num_tasks * TASK_BYTES, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, num_tasks);
	ASSERT_OK(doca_dma_task_memcpy_set_conf(e->dma, copy_done, copy_failed, num_tasks));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_changed));
	env_start(e);
}

/* Submit n copies of TASK_BYTES; task `empty` (if < n) gets a source with no data. */
static void
submit_copies(struct env *e, unsigned n, unsigned empty, struct doca_buf **bufs)
{
	for (unsigned i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *t = NULL;
		union doca_data ud = {.u64 = i};

		bufs[2 * i] = src_buf(e, (size_t)i * TASK_BYTES, TASK_BYTES, i);
		bufs[2 * i + 1] = dst_buf(e, (size_t)(n + i) * TASK_BYTES, TASK_BYTES);
		if (i == empty)
			ASSERT_OK(doca_buf_reset_data_len(bufs[2 * i]));
		ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, bufs[2 * i], bufs[2 * i + 1], ud, &t));
		/* Accepted: the empty source is found when the engine reaches the task. */
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	}
}

static void
release_bufs(struct doca_buf **bufs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ASSERT_OK(doca_buf_dec_refcount(bufs[i], NULL));
}

static void
progress_until_flag(struct doca_pe *pe, const bool *flag)
{
	double end = now_s() + 10;

	while (!*(const volatile bool *)flag) {
		if (doca_pe_progress(pe) == 0)
			usleep(10);
		if (now_s() > end)
			sd_test_fail(__FILE__, __LINE__, "flag not set after 10 s");
	}
}

/*
 * pe_reactive: the last completion stops the context; the IDLE state callback
 * destroys it (inside doca_pe_progress); then the program destroys the PE, the
 * inventory and the mmap and closes the device.  Every call succeeds.
 */
TEST(destroy_from_idle_state_callback)
{
	struct doca_buf *bufs[2 * NUM_TASKS];
	struct env e;

	open_started(&e, NUM_TASKS);
	seen.stop_after = NUM_TASKS;
	seen.destroy_on_idle = true;
	submit_copies(&e, NUM_TASKS, UINT32_MAX, bufs);
	progress_until_flag(e.pe, &seen.idle);
	ASSERT_ERR(seen.stop_ret, DOCA_ERROR_IN_PROGRESS);
	ASSERT_OK(seen.destroy_ret);
	ASSERT_EQ(seen.n, NUM_TASKS);
	for (unsigned i = 0; i < NUM_TASKS; i++)
		ASSERT_OK(seen.status[i]);
	/* A later progress call finds nothing of the destroyed context. */
	ASSERT_EQ(doca_pe_progress(e.pe), 0);
	release_bufs(bufs, 2 * NUM_TASKS);
	ASSERT_OK(doca_pe_destroy(e.pe));
	ASSERT_OK(doca_buf_inventory_destroy(e.inv));
	ASSERT_OK(doca_mmap_destroy(e.mmap));
	ASSERT_OK(doca_dev_close(e.dev));
	free(e.mem);
}

/*
 * A stop from a completion callback is asynchronous even with nothing left in
 * flight: IN_PROGRESS, STOPPING when the callback returns, IDLE from a later
 * doca_pe_progress().  Outside progress with nothing in flight it is synchronous.
 */
TEST(stop_inside_progress_is_asynchronous)
{
	struct doca_buf *bufs[2 * NUM_TASKS];
	enum doca_ctx_states s;
	struct env e;
	unsigned calls = 0;

	open_started(&e, NUM_TASKS);
	seen.stop_after = 1;
	submit_copies(&e, 1, UINT32_MAX, bufs);
	while (seen.n == 0 && calls++ < 1000)
		doca_pe_progress(e.pe);
	ASSERT_ERR(seen.stop_ret, DOCA_ERROR_IN_PROGRESS);
	ASSERT_OK(doca_ctx_get_state(e.ctx, &s));
	ASSERT_EQ(s, DOCA_CTX_STATE_STOPPING);
	ASSERT(!seen.idle);
	ASSERT_EQ(doca_pe_progress(e.pe), 1);
	ASSERT(seen.idle);
	ASSERT_EQ(seen.num_states, 3);
	ASSERT_EQ(seen.states[1], DOCA_CTX_STATE_STOPPING);
	/* A second stop in cleanup, as the DMA samples do. */
	ASSERT_OK(doca_ctx_stop(e.ctx));
	env_start(&e);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_ctx_get_state(e.ctx, &s));
	ASSERT_EQ(s, DOCA_CTX_STATE_IDLE);
	release_bufs(bufs, 2);
	env_close(&e);
}

/*
 * pe_task_error: the task with an empty source fails when the engine reaches it:
 * the tasks before it complete first, then its error callback, then the context
 * stops and the tasks after it are flushed through their error callbacks.
 */
static void
check_submission_order(const char *engine)
{
	struct doca_buf *bufs[2 * NUM_TASKS];
	struct env e;

	ASSERT_EQ(setenv("SOFTDOCA_DMA_ENGINE", engine, 1), 0);
	open_started(&e, NUM_TASKS);
	submit_copies(&e, NUM_TASKS, 3, bufs);
	progress_until_idle(e.pe, e.ctx);
	ASSERT_EQ(seen.n, NUM_TASKS);
	for (unsigned i = 0; i < NUM_TASKS; i++) {
		ASSERT_EQ(seen.ud[i], i);
		if (i < 3)
			ASSERT_OK(seen.status[i]);
		else if (i == 3)
			ASSERT_ERR(seen.status[i], DOCA_ERROR_INVALID_VALUE);
		else
			ASSERT_ERR(seen.status[i], DOCA_ERROR_IO_FAILED);
	}
	/* The bytes of the tasks before the failure were copied. */
	for (unsigned i = 0; i < 3; i++)
		ASSERT_MEM_EQ(e.mem + (size_t)(NUM_TASKS + i) * TASK_BYTES, e.mem + (size_t)i * TASK_BYTES, TASK_BYTES);
	ASSERT_EQ(seen.num_states, 3);
	ASSERT_EQ(seen.states[1], DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(seen.states[2], DOCA_CTX_STATE_IDLE);
	release_bufs(bufs, 2 * NUM_TASKS);
	env_close(&e);
}

TEST(execution_error_in_submission_order_inline)
{
	check_submission_order("inline");
}

TEST(execution_error_in_submission_order_worker)
{
	check_submission_order("worker");
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
