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

#include "ctx_internal.h"
#include "sd_test.h"

/* --- fake backend ---------------------------------------------------------------- */

struct fake_task {
	struct doca_task task; /* first, as the contract requires */
	int value;	       /* < 0: validate refuses; */
	bool fail;	       /* complete with DOCA_ERROR_INVALID_VALUE */
};

struct fake {
	struct doca_ctx ctx;
	struct sd_task_pool *pool;
	struct sd_list queue; /* submitted, completed by progress */
	unsigned queue_len;
	unsigned max_queue;	 /* submit returns AGAIN beyond this (0: unlimited) */
	unsigned per_progress;	 /* completions per progress call (0: all) */
	bool stay_starting;	 /* start enters STARTING ... */
	bool go_running;	 /* ... until progress sees this */
	bool complete_in_submit; /* complete inside submit (an inline engine) */
	bool arm_pending;
	unsigned flushes;
	unsigned stopped_calls;
};

static struct fake *
to_fake(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct fake, ctx);
}

static doca_error_t
fake_start(struct doca_ctx *ctx, bool *running)
{
	*running = !to_fake(ctx)->stay_starting;
	return DOCA_SUCCESS;
}

static void
fake_complete(struct fake *f, struct fake_task *t, doca_error_t status)
{
	f->queue_len--;
	sd_task_complete(&t->task, status);
}

static unsigned
fake_progress(struct doca_ctx *ctx)
{
	struct fake *f = to_fake(ctx);
	unsigned n = 0;
	struct sd_list *elem;

	if (ctx->state == DOCA_CTX_STATE_STARTING && f->go_running)
		sd_ctx_set_running(ctx);
	while ((f->per_progress == 0 || n < f->per_progress) && (elem = f->queue.next) != &f->queue) {
		struct fake_task *t = sd_container_of(elem, struct fake_task, task.link);

		fake_complete(f, t, t->fail ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS);
		n++;
	}
	return n;
}

static doca_error_t
fake_submit(struct doca_task *task)
{
	struct fake *f = to_fake(task->ctx);
	struct fake_task *t = (struct fake_task *)task;

	if (f->max_queue != 0 && f->queue_len >= f->max_queue)
		return DOCA_ERROR_AGAIN;
	sd_list_insert_tail(&f->queue, &task->link);
	f->queue_len++;
	if (f->complete_in_submit)
		fake_complete(f, t, t->fail ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static void
fake_flush(struct doca_ctx *ctx)
{
	struct fake *f = to_fake(ctx);
	struct sd_list *elem, *tmp;

	f->flushes++;
	sd_list_for_each_safe(elem, tmp, &f->queue)
		fake_complete(f, sd_container_of(elem, struct fake_task, task.link), SD_TASK_FLUSH_STATUS);
}

static void
fake_stopped(struct doca_ctx *ctx)
{
	to_fake(ctx)->stopped_calls++;
}

static doca_error_t
fake_validate(struct doca_task *task)
{
	return ((struct fake_task *)task)->value < 0 ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
}

static bool
fake_arm(struct doca_ctx *ctx)
{
	struct fake *f = to_fake(ctx);

	return f->arm_pending || !sd_list_empty(&f->queue);
}

static const struct sd_ctx_ops fake_ops = {
	.name = "fake",
	.start = fake_start,
	.flush = fake_flush,
	.stopped = fake_stopped,
	.progress = fake_progress,
	.submit = fake_submit,
	.validate = fake_validate,
	.arm = fake_arm,
};

/* --- event log ---------------------------------------------------------------------- */

enum ev_kind { EV_STATE, EV_OK, EV_ERR };

struct ev {
	enum ev_kind kind;
	long a; /* STATE: prev; OK/ERR: task user data */
	long b; /* STATE: next; OK/ERR: status */
};

static struct ev evs[512];
static int nev;
static union doca_data last_ctx_user_data;

static void
record(enum ev_kind kind, long a, long b)
{
	ASSERT(nev < (int)SD_ARRAY_SIZE(evs));
	evs[nev++] = (struct ev){kind, a, b};
}

static void
expect_events(const struct ev *exp, int n)
{
	for (int i = 0; i < n && i < nev; i++) {
		if (exp[i].kind != evs[i].kind || exp[i].a != evs[i].a || exp[i].b != evs[i].b)
			sd_test_fail(__FILE__, __LINE__, "event %d: got {%d,%ld,%ld}, expected {%d,%ld,%ld}", i,
				     evs[i].kind, evs[i].a, evs[i].b, exp[i].kind, exp[i].a, exp[i].b);
	}
	ASSERT_EQ(nev, n);
}

#define ST(p, n)                                                                                                       \
	{                                                                                                              \
		EV_STATE, DOCA_CTX_STATE_##p, DOCA_CTX_STATE_##n                                                       \
	}
#define OK(ud)                                                                                                         \
	{                                                                                                              \
		EV_OK, (ud), DOCA_SUCCESS                                                                              \
	}
#define ERR(ud, st)                                                                                                    \
	{                                                                                                              \
		EV_ERR, (ud), (st)                                                                                     \
	}

/* Per-test behaviour of the callbacks: default frees the task. */
static void (*on_task)(struct doca_task *task, bool ok);
static void (*on_state)(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next);

static void
task_cb(struct doca_task *task, union doca_data tud, union doca_data cud, bool ok)
{
	record(ok ? EV_OK : EV_ERR, (long)tud.u64, doca_task_get_status(task));
	last_ctx_user_data = cud;
	if (on_task != NULL)
		on_task(task, ok);
	else
		doca_task_free(task);
}

static void
success_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	task_cb(task, tud, cud, true);
}

static void
error_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	task_cb(task, tud, cud, false);
}

static void
state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	record(EV_STATE, prev, next);
	last_ctx_user_data = user_data;
	if (on_state != NULL)
		on_state(ctx, prev, next);
}

/* --- fixtures ----------------------------------------------------------------------- */

static struct fake *
fake_new(struct doca_pe *pe, uint32_t num_tasks)
{
	struct fake *f = calloc(1, sizeof(*f));

	ASSERT_NOT_NULL(f);
	sd_ctx_init(&f->ctx, &fake_ops, NULL);
	sd_list_init(&f->queue);
	ASSERT_OK(doca_ctx_set_state_changed_cb(&f->ctx, state_cb));
	ASSERT_OK(doca_ctx_set_user_data(&f->ctx, (union doca_data){.u64 = 0xC7C7}));
	ASSERT_OK(sd_task_pool_configure(&f->ctx, &f->pool, "fake", sizeof(struct fake_task), num_tasks, 64, success_cb,
					 error_cb, "test_set_conf"));
	if (pe != NULL)
		ASSERT_OK(doca_pe_connect_ctx(pe, &f->ctx));
	return f;
}

static struct fake_task *
fake_alloc(struct fake *f, long ud)
{
	struct doca_task *task = NULL;

	ASSERT_OK(sd_task_alloc(f->pool, (union doca_data){.u64 = (uint64_t)ud}, "test_alloc", &task));
	((struct fake_task *)task)->value = (int)ud;
	((struct fake_task *)task)->fail = false;
	return (struct fake_task *)task;
}

static void
submit_n(struct fake *f, int n, long first_ud)
{
	for (int i = 0; i < n; i++)
		ASSERT_OK(doca_task_submit(&fake_alloc(f, first_ud + i)->task));
}

static enum doca_ctx_states
state_of(struct fake *f)
{
	enum doca_ctx_states s;

	ASSERT_OK(doca_ctx_get_state(&f->ctx, &s));
	return s;
}

static size_t
inflight(struct fake *f)
{
	size_t n = 99;

	ASSERT_OK(doca_ctx_get_num_inflight_tasks(&f->ctx, &n));
	return n;
}

static struct doca_pe *
pe_new(void)
{
	struct doca_pe *pe = NULL;

	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_NOT_NULL(pe);
	return pe;
}

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

/* --- PE -------------------------------------------------------------------------------- */

TEST(several_contexts_on_one_pe)
{
	struct doca_pe *pe = pe_new();
	struct fake *f[3];
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		f[i] = fake_new(pe, 16);
		ASSERT_OK(doca_ctx_start(&f[i]->ctx));
		submit_n(f[i], 4, i * 10);
	}
	ASSERT_OK(doca_pe_get_num_inflight_tasks(pe, &n));
	ASSERT_EQ(n, 12);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_OK(doca_pe_get_num_inflight_tasks(pe, &n));
	ASSERT_EQ(n, 0);
	/* 3 start edges, then each ctx's tasks in connection order. */
	ASSERT_EQ(nev, 15);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			ASSERT_EQ(evs[3 + i * 4 + j].a, i * 10 + j);
	ASSERT_ERR(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
	for (int i = 0; i < 3; i++) {
		ASSERT_ERR(sd_ctx_fini(&f[i]->ctx, "test"), DOCA_ERROR_BAD_STATE);
		ASSERT_OK(doca_ctx_stop(&f[i]->ctx));
		ASSERT_OK(sd_ctx_fini(&f[i]->ctx, "test"));
	}
	ASSERT_OK(doca_pe_destroy(pe));
}

TEST(connect_rules)
{
	struct doca_pe *pe = pe_new(), *pe2 = pe_new();
	struct fake *f = fake_new(pe, 4);

	ASSERT_ERR(doca_pe_connect_ctx(pe, &f->ctx), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_pe_connect_ctx(pe2, &f->ctx), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_pe_connect_ctx(NULL, &f->ctx), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_connect_ctx(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_pe_destroy(pe2));
	ASSERT_ERR(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
	ASSERT_OK(sd_ctx_fini(&f->ctx, "test"));
	ASSERT_OK(doca_pe_destroy(pe));
	ASSERT_ERR(doca_pe_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_create(NULL), DOCA_ERROR_INVALID_VALUE);
}

static struct doca_pe *the_pe;
static struct fake *idle_peer;
static uint8_t nested_progress_result = 9;
static doca_error_t nested_fini_result = DOCA_SUCCESS;

static void
progress_inside_callback(struct doca_task *task, bool ok)
{
	nested_progress_result = doca_pe_progress(the_pe);
	/* An IDLE ctx of the same PE may be destroyed from a callback. */
	if (idle_peer != NULL) {
		nested_fini_result = sd_ctx_fini(&idle_peer->ctx, "test");
		free(idle_peer);
		idle_peer = NULL;
	}
	doca_task_free(task);
}

TEST(recursive_progress_refused_destroy_of_idle_peer_allowed)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);

	the_pe = pe;
	nested_fini_result = DOCA_ERROR_UNKNOWN;
	idle_peer = fake_new(pe, 1); /* after f in the PE's list: the walk must skip it */
	on_task = progress_inside_callback;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 2, 0);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(nested_progress_result, 0);
	ASSERT_OK(nested_fini_result);
	/* Both tasks were still reported once each. */
	ASSERT_EQ(nev, 3);
	ASSERT_EQ(doca_pe_progress(pe), 0);
}

/* The reactive pattern: the IDLE state callback destroys its own ctx. */
static struct fake *self_destroying;
static doca_error_t self_fini_result = DOCA_ERROR_UNKNOWN;

static void
destroy_self_when_idle(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	self_fini_result = sd_ctx_fini(ctx, "test");
	free(to_fake(ctx));
	self_destroying = NULL;
}

TEST(ctx_destroyed_from_its_own_idle_callback_inside_progress)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	struct fake *after = fake_new(pe, 4); /* visited after f in the same progress call */
	int rounds = 0;

	self_destroying = f;
	on_state = destroy_self_when_idle;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	submit_n(f, 2, 0);
	ASSERT_ERR(doca_ctx_stop(&f->ctx), DOCA_ERROR_IN_PROGRESS);
	on_state = NULL;
	ASSERT_OK(doca_ctx_start(&after->ctx));
	submit_n(after, 1, 10);
	on_state = destroy_self_when_idle;
	while (self_destroying != NULL && rounds++ < 10)
		doca_pe_progress(pe);
	on_state = NULL;
	ASSERT_EQ(self_destroying == NULL, 1);
	ASSERT_OK(self_fini_result);
	/* The other ctx was progressed in the same round, and the PE now holds only it. */
	ASSERT_EQ(inflight(after), 0);
	ASSERT_OK(doca_ctx_stop(&after->ctx));
	ASSERT_ERR(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
	ASSERT_OK(sd_ctx_fini(&after->ctx, "test"));
	free(after);
	ASSERT_OK(doca_pe_destroy(pe));
}

/* Execution errors in submission order (pe_task_error on hardware). */
static void
fail_in_order_submit_hook(struct fake *f, struct fake_task *t)
{
	(void)f;
	sd_list_del(&t->task.link);
	f->queue_len--;
	sd_task_fail_in_order(&t->task, DOCA_ERROR_INVALID_VALUE);
}

TEST(execution_error_reported_after_earlier_tasks)
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
	int rounds = 0;

	/* One completion per progress: task 2 is refused at submit while 0 and 1 still run. */
	f->per_progress = 1;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	for (int i = 0; i < 5; i++) {
		struct fake_task *t = fake_alloc(f, i);

		ASSERT_OK(doca_task_submit(&t->task));
		if (i == 2)
			fail_in_order_submit_hook(f, t);
	}
	ASSERT_EQ(inflight(f), 5);
	while (state_of(f) != DOCA_CTX_STATE_IDLE && rounds++ < 20)
		doca_pe_progress(pe);
	expect_events(exp, 8);
	ASSERT_EQ(inflight(f), 0);
	/* Nothing ahead of it: reported at the next progress. */
	nev = 0;
	ASSERT_OK(doca_ctx_start(&f->ctx));
	{
		struct fake_task *t = fake_alloc(f, 7);

		ASSERT_OK(doca_task_submit(&t->task));
		fail_in_order_submit_hook(f, t);
	}
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(evs[1].kind, EV_ERR);
	ASSERT_EQ(evs[1].a, 7);
}

TEST(progress_return_value)
{
	struct doca_pe *pe = pe_new();
	struct fake *f;

	ASSERT_EQ(doca_pe_progress(pe), 0);
	ASSERT_EQ(doca_pe_progress(NULL), 0);
	f = fake_new(pe, 4);
	ASSERT_EQ(doca_pe_progress(pe), 0);
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_EQ(doca_pe_progress(pe), 0);
	submit_n(f, 1, 0);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(doca_pe_progress(pe), 0);
	/* A STOPPING -> IDLE transition alone counts. */
	submit_n(f, 1, 0);
	f->per_progress = 1;
	ASSERT_ERR(doca_ctx_stop(&f->ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(doca_pe_progress(pe), 1);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(doca_pe_progress(pe), 0);
}

TEST(flush_tasks_reports_now_while_stopping)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);

	ASSERT_OK(doca_ctx_start(&f->ctx));
	doca_ctx_flush_tasks(&f->ctx); /* RUNNING: logged, nothing happens */
	ASSERT_EQ(f->flushes, 0);
	submit_n(f, 2, 0);
	ASSERT_ERR(doca_ctx_stop(&f->ctx), DOCA_ERROR_IN_PROGRESS);
	doca_ctx_flush_tasks(&f->ctx);
	ASSERT_EQ(inflight(f), 0);
	ASSERT_EQ(state_of(f), DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(evs[nev - 1].kind, EV_STATE);
	ASSERT_EQ(evs[nev - 1].b, DOCA_CTX_STATE_IDLE);
}

TEST(misc_ctx_api)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	union doca_data ud = {.u64 = 0};
	uint32_t nvec = 0;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	ASSERT_OK(doca_ctx_get_user_data(&f->ctx, &ud));
	ASSERT_EQ(ud.u64, 0xC7C7);
	ASSERT_ERR(doca_ctx_get_user_data(&f->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ctx_get_state(NULL, &st), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(st, DOCA_CTX_STATE_RUNNING); /* untouched on failure */
	ASSERT_ERR(doca_ctx_set_datapath_on_gpu(&f->ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_ctx_set_datapath_on_dpa(&f->ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_ctx_set_completion_vector(&f->ctx, 0));
	ASSERT_ERR(doca_ctx_set_completion_vector(&f->ctx, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ctx_cap_get_num_completion_vectors((const struct doca_devinfo *)(void *)f, &nvec));
	ASSERT_EQ(nvec, 1);
	ASSERT_OK(doca_ctx_start(&f->ctx));
	ASSERT_ERR(doca_ctx_set_completion_vector(&f->ctx, 0), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_pe_set_event_mode(pe, (enum doca_pe_event_mode)7), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_pe_set_event_mode(pe, DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE));
}

/* --- notification -------------------------------------------------------------------- */

static int
readable_within(int fd, int ms)
{
	int ep = epoll_create1(0), n;
	struct epoll_event ev = {.events = EPOLLIN}, out;

	/* Through a second epoll, exactly as the pe_event sample uses the handle. */
	ASSERT(ep >= 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	n = epoll_wait(ep, &out, 1, ms);
	close(ep);
	return n;
}

static void *
wake_later(void *arg)
{
	usleep(20 * 1000);
	sd_pe_wake(arg);
	return NULL;
}

TEST(notification_handle_wakes_epoll)
{
	struct doca_pe *pe = pe_new();
	struct fake *f = fake_new(pe, 4);
	doca_notification_handle_t h = -1;
	pthread_t th;

	ASSERT_OK(doca_pe_get_notification_handle(pe, &h));
	ASSERT(h >= 0);
	ASSERT_ERR(doca_pe_get_notification_handle(pe, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ctx_start(&f->ctx));

	/* Nothing pending: stays quiet. */
	ASSERT_OK(doca_pe_request_notification(pe));
	ASSERT_EQ(readable_within(h, 50), 0);
	ASSERT_OK(doca_pe_clear_notification(pe, 0));

	/* Queued work: readable at once; clear with handle 0 (pe_event) drains it. */
	submit_n(f, 1, 0);
	ASSERT_OK(doca_pe_request_notification(pe));
	ASSERT_EQ(readable_within(h, 0), 1);
	ASSERT_OK(doca_pe_clear_notification(pe, 0));
	ASSERT_EQ(readable_within(h, 0), 0);
	ASSERT_EQ(doca_pe_progress(pe), 1);

	/* Another thread's wake while armed. */
	ASSERT_OK(doca_pe_request_notification(pe));
	ASSERT_EQ(pthread_create(&th, NULL, wake_later, pe), 0);
	ASSERT_EQ(readable_within(h, 5000), 1);
	pthread_join(th, NULL);
	ASSERT_OK(doca_pe_clear_notification(pe, h));
	ASSERT_EQ(readable_within(h, 0), 0);

	/* A wake while nobody is armed costs nothing and leaves the handle quiet. */
	sd_pe_wake(pe);
	ASSERT_EQ(readable_within(h, 0), 0);

	/* Completions queued but not reported count as pending. */
	submit_n(f, 1, 0);
	f->arm_pending = false;
	ASSERT_EQ(fake_progress(&f->ctx), 1);
	ASSERT_OK(doca_pe_request_notification(pe));
	ASSERT_EQ(readable_within(h, 0), 1);
	ASSERT_OK(doca_pe_clear_notification(pe, 0));
	ASSERT_ERR(doca_pe_request_notification(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_pe_clear_notification(NULL, 0), DOCA_ERROR_INVALID_VALUE);
}

TEST(backend_wake_fd_is_part_of_the_handle)
{
	struct doca_pe *pe = pe_new();
	doca_notification_handle_t h = -1;
	int p[2];
	char c = 'x';

	ASSERT_EQ(pipe(p), 0);
	ASSERT_OK(doca_pe_get_notification_handle(pe, &h));
	ASSERT_OK(sd_pe_add_wake_fd(pe, p[0]));
	ASSERT_EQ(readable_within(h, 0), 0);
	ASSERT_EQ(write(p[1], &c, 1), 1);
	ASSERT_EQ(readable_within(h, 0), 1);
	sd_pe_del_wake_fd(pe, p[0]);
	ASSERT_EQ(readable_within(h, 0), 0);
	ASSERT_ERR(sd_pe_add_wake_fd(pe, -1), DOCA_ERROR_INVALID_VALUE);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
