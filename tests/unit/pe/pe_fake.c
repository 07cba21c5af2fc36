/* SPDX-License-Identifier: BSD-3-Clause */
/* The fake backend, event log and fixtures of the PE / ctx / task tests (pe_fake.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "pe_fake.h"

/* --- fake backend ---------------------------------------------------------------- */

struct fake *
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

unsigned
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

struct ev evs[512];
int nev;
union doca_data last_ctx_user_data;

static void
record(enum ev_kind kind, long a, long b)
{
	ASSERT(nev < (int)SD_ARRAY_SIZE(evs));
	evs[nev++] = (struct ev){kind, a, b};
}

void
expect_events(const struct ev *exp, int n)
{
	for (int i = 0; i < n && i < nev; i++) {
		if (exp[i].kind != evs[i].kind || exp[i].a != evs[i].a || exp[i].b != evs[i].b)
			sd_test_fail(__FILE__, __LINE__, "event %d: got {%d,%ld,%ld}, expected {%d,%ld,%ld}", i,
				     evs[i].kind, evs[i].a, evs[i].b, exp[i].kind, exp[i].a, exp[i].b);
	}
	ASSERT_EQ(nev, n);
}

/* Per-test behaviour of the callbacks: default frees the task. */
void (*on_task)(struct doca_task *task, bool ok);
void (*on_state)(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next);

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

void
success_cb(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	task_cb(task, tud, cud, true);
}

void
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

struct fake *
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

struct fake_task *
fake_alloc(struct fake *f, long ud)
{
	struct doca_task *task = NULL;

	ASSERT_OK(sd_task_alloc(f->pool, (union doca_data){.u64 = (uint64_t)ud}, "test_alloc", &task));
	((struct fake_task *)task)->value = (int)ud;
	((struct fake_task *)task)->fail = false;
	return (struct fake_task *)task;
}

void
submit_n(struct fake *f, int n, long first_ud)
{
	for (int i = 0; i < n; i++)
		ASSERT_OK(doca_task_submit(&fake_alloc(f, first_ud + i)->task));
}

enum doca_ctx_states
state_of(struct fake *f)
{
	enum doca_ctx_states s;

	ASSERT_OK(doca_ctx_get_state(&f->ctx, &s));
	return s;
}

size_t
inflight(struct fake *f)
{
	size_t n = 99;

	ASSERT_OK(doca_ctx_get_num_inflight_tasks(&f->ctx, &n));
	return n;
}

struct doca_pe *
pe_new(void)
{
	struct doca_pe *pe = NULL;

	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_NOT_NULL(pe);
	return pe;
}
