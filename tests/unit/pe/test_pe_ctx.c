/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic PE / ctx / task machinery driven through a fake backend: a struct
 * embedding struct doca_ctx whose submit queues tasks that progress completes.
 * Every callback and state edge is recorded in one event log so that tests can
 * compare exact sequences.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "pe_fake.h"

/* --- state machine ------------------------------------------------------------------- */

TEST(start_stop_direct_running)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	static const struct ev exp[] = {ST(IDLE, RUNNING), ST(RUNNING, IDLE)};

	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(last_ctx_user_data.u64, 0xC7C7);
	ASSERT_OK(doca_ctx_stop(&f->ctx));
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(f->stopped_calls, 1);
	/* [I] a second stop on IDLE is SUCCESS and fires nothing. */
	ASSERT_OK(doca_ctx_stop(&f->ctx));
	expect_events(exp, 2);
	ASSERT_EQ(f->stopped_calls, 1);
	ASSERT_EQ(f->flushes, 0);
	ASSERT_OK(sd_ctx_fini(&f->ctx, "test"));
	ASSERT_OK(doca_pe_destroy(pe));
}

TEST(start_needs_pe_and_idle)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(NULL, 4);

	ASSERT_ERR(doca_ctx_start(&f->ctx), DOCA_ERROR_NOT_CONNECTED);
	ASSERT_EQ(nev, 0);
	ASSERT_OK(doca_pe_connect_ctx(pe, &f->ctx));
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_ERR(doca_ctx_start(&f->ctx), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_ctx_start(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(nev, 1);
	ASSERT_OK(doca_ctx_stop(&f->ctx));
}

TEST(starting_until_backend_says_running)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	static const struct ev exp[] = {ST(IDLE, STARTING), ST(STARTING, RUNNING)};

	f->stay_starting = true;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_STARTING);
	ASSERT_ERR(doca_task_submit(&fake_alloc(f, 1)->task), DOCA_ERROR_BAD_STATE);
	ASSERT_EQ(inflight(f), 0);
	ASSERT_EQ(doca_pe_progress(pe), 0);
	f->go_running = true;
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(doca_pe_progress(pe), 0);
	expect_events(exp, 2);
}

TEST(stop_while_starting)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	static const struct ev exp[] = {ST(IDLE, STARTING), ST(STARTING, IDLE)};

	f->stay_starting = true;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_OK(doca_ctx_stop(&f->ctx));
	expect_events(exp, 2);
	ASSERT_EQ(f->stopped_calls, 1);
}

static void
stop_on_running(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	if (next == DOCA_CTX_STATE_RUNNING)
		ASSERT_OK(doca_ctx_stop(ctx));
}

TEST(running_callback_stops_ctx)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	static const struct ev exp[] = {ST(IDLE, RUNNING), ST(RUNNING, IDLE)};

	on_state = stop_on_running;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	expect_events(exp, 2);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_IDLE);
	/* And it can start again. */
	on_state = NULL;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_RUNNING);
}

static atomic_int release_flag;

static void *
release_later(void *arg)
{
	usleep(50 * 1000);
	atomic_store(&release_flag, 1);
	return NULL;
}

static void
block_on_running(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	/* Like an RDMA sample waiting for Enter: another thread lets it go. */
	if (next == DOCA_CTX_STATE_RUNNING) {
		while (!atomic_load(&release_flag))
			usleep(1000);
		submit_n(to_fake(ctx), 1, 7);
	}
}

TEST(running_callback_blocks_and_submits)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	pthread_t th;
	static const struct ev exp[] = {ST(IDLE, RUNNING), OK(7)};

	on_state = block_on_running;
	ASSERT_EQ(pthread_create(&th, NULL, release_later, NULL), 0);
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_EQ(atomic_load(&release_flag), 1);
	ASSERT_EQ(inflight(f), 1);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	expect_events(exp, 2);
	pthread_join(th, NULL);
}

/* --- tasks --------------------------------------------------------------------------- */

TEST(submit_complete_in_order)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	size_t pe_inflight = 99;
	static const struct ev exp[] = {ST(IDLE, RUNNING), OK(10), OK(11), OK(12), OK(13)};

	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 4, 10);
	ASSERT_EQ(inflight(f), 4);
	ASSERT_OK(doca_pe_get_num_inflight_tasks(pe, &pe_inflight));
	ASSERT_EQ(pe_inflight, 4);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(inflight(f), 0);
	ASSERT_EQ(last_ctx_user_data.u64, 0xC7C7);
	ASSERT_EQ(doca_pe_progress(pe), 0);
	expect_events(exp, 5);
	ASSERT_EQ(f->pool->num_allocated, 0);
}

static size_t inflight_seen_in_cb;

static void
note_inflight(struct doca_task *task, bool ok)
{
	inflight_seen_in_cb = inflight(to_fake(doca_task_get_ctx(task)));
	doca_task_free(task);
}

TEST(inflight_drops_before_callback)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);

	ASSERT_OK(doca_ctx_start(&f->ctx));
	on_task = note_inflight;
	submit_n(f, 1, 1);
	doca_pe_progress(pe);
	ASSERT_EQ(inflight_seen_in_cb, 0);
}

TEST(stop_with_inflight_flushes_through_error_callbacks)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	static const struct ev exp[] = {
		ST(IDLE, RUNNING),
		ST(RUNNING, STOPPING),
		ERR(1, DOCA_ERROR_IO_FAILED),
		ERR(2, DOCA_ERROR_IO_FAILED),
		ERR(3, DOCA_ERROR_IO_FAILED),
		ST(STOPPING, IDLE),
	};

	ASSERT_EQ(SD_TASK_FLUSH_STATUS, DOCA_ERROR_IO_FAILED);
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 3, 1);
	ASSERT_ERR(doca_ctx_stop(&f->ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(f->flushes, 1);
	/* Flushed but not reported: still in flight. */
	ASSERT_EQ(inflight(f), 3);
	ASSERT_ERR(doca_ctx_stop(&f->ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_ERR(doca_task_submit(&fake_alloc(f, 9)->task), DOCA_ERROR_BAD_STATE);
	ASSERT_EQ(f->stopped_calls, 0);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(inflight(f), 0);
	ASSERT_EQ(f->stopped_calls, 1);
	expect_events(exp, 6);
	ASSERT_OK(doca_ctx_stop(&f->ctx));
}

TEST(failed_task_stops_ctx_by_itself)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	static const struct ev exp[] = {
		ST(IDLE, RUNNING),
		OK(0),
		OK(1),
		ERR(2, DOCA_ERROR_INVALID_VALUE),
		ST(RUNNING, STOPPING),
		ERR(3, DOCA_ERROR_IO_FAILED),
		ERR(4, DOCA_ERROR_IO_FAILED),
		ST(STOPPING, IDLE),
	};

	ASSERT_OK(doca_ctx_start(&f->ctx));
	for (int i = 0; i < 5; i++) {
		struct fake_task *t = fake_alloc(f, i);

		t->fail = i == 2;
		ASSERT_OK(doca_task_submit(&t->task));
	}
	ASSERT_EQ(doca_pe_progress(pe), 1);
	/* The failure stopped the ctx inside progress: IDLE comes from the next call. */
	expect_events(exp, 7);
	ASSERT_EQ(inflight(f), 0);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	expect_events(exp, 8);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_IDLE);
	/* A restart clears the failure. */
	nev = 0;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 1, 5);
	doca_pe_progress(pe);
	ASSERT_EQ(evs[1].kind, EV_OK);
}

TEST(failed_task_with_one_completion_per_progress)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	struct fake_task *t;
	static const struct ev exp[] = {
		ST(IDLE, RUNNING),
		ERR(0, DOCA_ERROR_INVALID_VALUE),
		ST(RUNNING, STOPPING),
		ERR(1, DOCA_ERROR_IO_FAILED),
		ERR(2, DOCA_ERROR_IO_FAILED),
		ST(STOPPING, IDLE),
	};

	f->per_progress = 1;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	t = fake_alloc(f, 0);
	t->fail = true;
	ASSERT_OK(doca_task_submit(&t->task));
	submit_n(f, 2, 1);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	/* The failure flushed the backend queue; the flushed tasks are still in flight. */
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(inflight(f), 2);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(inflight(f), 0);
	expect_events(exp, 6);
}

TEST(sd_ctx_fail_flushes_and_goes_idle)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	static const struct ev exp[] = {
		ST(IDLE, RUNNING),  ST(RUNNING, STOPPING), ERR(1, DOCA_ERROR_IO_FAILED), ERR(2, DOCA_ERROR_IO_FAILED),
		ST(STOPPING, IDLE),
	};

	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 2, 1);
	sd_ctx_fail(&f->ctx);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	expect_events(exp, 5);
	/* Failing an IDLE ctx does nothing. */
	sd_ctx_fail(&f->ctx);
	ASSERT_EQ(nev, 5);
}

static void
free_then_read(struct doca_task *task, bool ok)
{
	struct fake_task *t = (struct fake_task *)task;

	/* rdma_common.c reads the task after freeing it. */
	doca_task_free(task);
	ASSERT_EQ(t->value, 42);
	ASSERT_EQ(doca_task_get_user_data(task).u64, 42);
	ASSERT_PTR_EQ(doca_task_get_ctx(task), task->ctx);
}

TEST(task_readable_after_free)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	struct fake_task *t, *next;

	ASSERT_OK(doca_ctx_start(&f->ctx));
	on_task = free_then_read;
	t = fake_alloc(f, 42);
	ASSERT_OK(doca_task_submit(&t->task));
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(t->value, 42);
	/* The next allocation hands out another task: the freed one is reused last. */
	next = fake_alloc(f, 1);
	ASSERT_NE((uintptr_t)next, (uintptr_t)t);
	ASSERT_EQ(t->value, 42);
}

static int resubmits;

static void
resubmit_until_16(struct doca_task *task, bool ok)
{
	if (++resubmits < 16) {
		/* Change it like pe_task_resubmit does, then submit it again. */
		((struct fake_task *)task)->value = resubmits;
		doca_task_set_user_data(task, (union doca_data){.u64 = (uint64_t)resubmits + 100});
		ASSERT_OK(doca_task_submit(task));
	} else {
		doca_task_free(task);
	}
}

TEST(resubmit_from_callback)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 1);
	int rounds = 0;

	ASSERT_OK(doca_ctx_start(&f->ctx));
	on_task = resubmit_until_16;
	submit_n(f, 1, 100);
	while (inflight(f) != 0 && rounds++ < 100)
		doca_pe_progress(pe);
	ASSERT_EQ(resubmits, 16);
	ASSERT_EQ(nev, 17);
	for (int i = 1; i <= 16; i++)
		ASSERT_EQ(evs[i].a, 100 + i - 1);
	ASSERT_EQ(f->pool->num_allocated, 0);
}

TEST(resubmit_with_completion_inside_submit_does_not_loop)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 1);

	f->complete_in_submit = true;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	on_task = resubmit_until_16;
	submit_n(f, 1, 100);
	/* Each progress reports what completed before it began: one callback per call. */
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(resubmits, 1);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(resubmits, 2);
}

static int completions;
static doca_error_t stop_result = DOCA_ERROR_UNKNOWN;

static void
stop_at_second(struct doca_task *task, bool ok)
{
	struct doca_ctx *ctx = doca_task_get_ctx(task);

	doca_task_free(task);
	if (++completions == 2)
		stop_result = doca_ctx_stop(ctx);
}

TEST(stop_from_completion_callback)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	int rounds = 0;
	static const struct ev exp[] = {
		ST(IDLE, RUNNING),
		OK(0),
		OK(1),
		ST(RUNNING, STOPPING),
		ERR(2, DOCA_ERROR_IO_FAILED),
		ERR(3, DOCA_ERROR_IO_FAILED),
		ST(STOPPING, IDLE),
	};

	/* pe_async_stop: stop from a callback while others are in flight. */
	f->per_progress = 1;
	on_task = stop_at_second;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 4, 0);
	while (state_of(f) != DOCA_CTX_STATE_IDLE && rounds++ < 100)
		doca_pe_progress(pe);
	ASSERT_ERR(stop_result, DOCA_ERROR_IN_PROGRESS);
	expect_events(exp, 7);
	ASSERT_EQ(inflight(f), 0);
}

TEST(stop_from_last_completion_is_asynchronous)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	static const struct ev exp[] = {ST(IDLE, RUNNING), OK(0), OK(1), ST(RUNNING, STOPPING), ST(STOPPING, IDLE)};

	/* Nothing in flight, but nested in progress: IN_PROGRESS, IDLE from a later progress. */
	on_task = stop_at_second;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 2, 0);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_ERR(stop_result, DOCA_ERROR_IN_PROGRESS);
	expect_events(exp, 4);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_STOPPING);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	expect_events(exp, 5);
	/* DMA samples stop again in cleanup. */
	ASSERT_OK(doca_ctx_stop(&f->ctx));
	/* Outside progress with nothing in flight the stop stays synchronous. */
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_OK(doca_ctx_stop(&f->ctx));
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_IDLE);
}

TEST(completed_but_unreported_tasks_are_flushed_by_stop)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 8);
	static const struct ev exp[] = {
		ST(IDLE, RUNNING),
		OK(0),
		OK(1),
		ST(RUNNING, STOPPING),
		ERR(2, DOCA_ERROR_IO_FAILED),
		ERR(3, DOCA_ERROR_IO_FAILED),
		ST(STOPPING, IDLE),
	};

	/* All four completed by one backend poll; stop at the second report (pe_async_stop). */
	on_task = stop_at_second;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 4, 0);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_ERR(stop_result, DOCA_ERROR_IN_PROGRESS);
	expect_events(exp, 6);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	expect_events(exp, 7);
}

TEST(try_submit_validates)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	struct fake_task *t;

	ASSERT_OK(doca_ctx_start(&f->ctx));
	t = fake_alloc(f, 5);
	t->value = -1;
	ASSERT_ERR(doca_task_try_submit(&t->task), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(inflight(f), 0);
	ASSERT_EQ(f->queue_len, 0);
	/* The caller still owns it: fix and retry. */
	t->value = 5;
	ASSERT_OK(doca_task_try_submit(&t->task));
	ASSERT_EQ(inflight(f), 1);
	ASSERT_ERR(doca_task_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Plain submit does not validate. */
	t = fake_alloc(f, 6);
	t->value = -1;
	ASSERT_OK(doca_task_submit(&t->task));
	ASSERT_OK(doca_task_submit_ex(&fake_alloc(f, 7)->task, DOCA_TASK_SUBMIT_FLAG_FLUSH));
	ASSERT_EQ(inflight(f), 3);
}

TEST(again_passes_through_and_task_stays_owned)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	struct fake_task *t;

	f->max_queue = 1;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 1, 0);
	t = fake_alloc(f, 1);
	ASSERT_ERR(doca_task_submit(&t->task), DOCA_ERROR_AGAIN);
	ASSERT_EQ(inflight(f), 1);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_OK(doca_task_submit(&t->task));
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(nev, 3);
}

TEST(submit_and_free_misuse_refused)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	struct fake_task *t;

	ASSERT_OK(doca_ctx_start(&f->ctx));
	t = fake_alloc(f, 3);
	ASSERT_OK(doca_task_submit(&t->task));
	ASSERT_ERR(doca_task_submit(&t->task), DOCA_ERROR_BAD_STATE);
	/* Freeing an in-flight task is refused: it still completes normally. */
	doca_task_free(&t->task);
	ASSERT_EQ(f->pool->num_allocated, 1);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(f->pool->num_allocated, 0);
	/* Double free and submit after free are refused. */
	doca_task_free(&t->task);
	ASSERT_EQ(f->pool->num_allocated, 0);
	ASSERT_ERR(doca_task_submit(&t->task), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_get_status(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_task_get_ctx(NULL), NULL);
	ASSERT_EQ(doca_task_get_user_data(NULL).u64, 0);
	doca_task_free(NULL);
}

TEST(pool_exhaustion_and_configuration_rules)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 2);
	struct doca_task *a, *b, *c = NULL;
	struct sd_task_pool *none = NULL, *keep = f->pool;

	ASSERT_OK(sd_task_alloc(f->pool, (union doca_data){.u64 = 1}, "t", &a));
	ASSERT_OK(sd_task_alloc(f->pool, (union doca_data){.u64 = 2}, "t", &b));
	ASSERT_ERR(sd_task_alloc(f->pool, (union doca_data){.u64 = 3}, "t", &c), DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(c, NULL);
	ASSERT_ERR(sd_task_alloc(NULL, (union doca_data){.u64 = 3}, "t", &c), DOCA_ERROR_BAD_STATE);
	/* Reconfiguring with allocated tasks is refused; after freeing, it works. */
	ASSERT_ERR(sd_task_pool_configure(&f->ctx, &f->pool, "fake", sizeof(struct fake_task), 3, 64, success_cb,
					  error_cb, "t"),
		   DOCA_ERROR_BAD_STATE);
	doca_task_free(a);
	ASSERT_OK(sd_task_alloc(f->pool, (union doca_data){.u64 = 3}, "t", &c));
	doca_task_free(b);
	doca_task_free(c);
	ASSERT_OK(sd_task_pool_configure(&f->ctx, &f->pool, "fake", sizeof(struct fake_task), 3, 64, success_cb,
					 error_cb, "t"));
	ASSERT_PTR_EQ(f->pool, keep);
	ASSERT_EQ(f->pool->num_tasks, 3);
	ASSERT_ERR(
		sd_task_pool_configure(&f->ctx, &none, "x", sizeof(struct fake_task), 0, 64, success_cb, error_cb, "t"),
		DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_task_pool_configure(&f->ctx, &none, "x", sizeof(struct fake_task), 65, 64, success_cb, error_cb,
					  "t"),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_task_pool_configure(&f->ctx, &none, "x", sizeof(struct fake_task), 1, 64, NULL, error_cb, "t"),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(none, NULL);
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_ERR(sd_task_pool_configure(&f->ctx, &f->pool, "fake", sizeof(struct fake_task), 2, 64, success_cb,
					  error_cb, "t"),
		   DOCA_ERROR_BAD_STATE);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
