/* SPDX-License-Identifier: BSD-3-Clause */
/* The PE side of the PE / ctx / task tests: several contexts, connect rules, progress, the notification handle. */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "pe_fake.h"

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
