/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The acceleration engines' context (accel_internal.h): submit checks a task
 * and queues it inline or on the engine pool; progress runs the inline queue
 * and delivers finished tasks in submission order; flush finishes what has not
 * started.  Every line about a task is logged here with the library's own log
 * source and refusal table, once, on the PE's thread.
 */
#include <sched.h>
#include <stdio.h>

#include "../util/sd_env.h"
#include "sd_core.h"
#include "accel_pool.h"

SD_LOG_REGISTER(core.accel);

/* Tasks whose input is at most this large run inline by default (docs/engines.md). */
#define ACCEL_INLINE_MAX_DEFAULT (16u * 1024u)
/* Bytes of inline work one doca_pe_progress() does at most (at least one task). */
#define ACCEL_PROGRESS_BUDGET (1024u * 1024u)

static inline struct sd_accel_task *
task_from_order(struct sd_list *link)
{
	return (struct sd_accel_task *)sd_task_from_link(link);
}

static inline struct sd_accel_task *
task_from_queue(struct sd_list *link)
{
	return sd_container_of(link, struct sd_accel_task, queue);
}

/* The line of refusal v of task t, at ERR or DBG by the log-once rule, with the library's source. */
static void
log_verdict(struct sd_accel *accel, const struct sd_accel_task *t, const char *api, const struct sd_buf_verdict *v,
	    bool returned)
{
	char line[640];

	sd_refusal_render(line, sizeof(line), sd_refusal_row(t->kind->refusals, v->why), api, t->kind->name, v);
	if (sd_refusal_at_err(&accel->ctx, v->why, !returned))
		doca_log(DOCA_LOG_LEVEL_ERROR, accel->log_source, __FILE__, __LINE__, __func__, "%s", line);
	else
		doca_log(DOCA_LOG_LEVEL_DEBUG, accel->log_source, __FILE__, __LINE__, __func__, "%s", line);
}

/* Run t here (inline queue, or a worker): status and verdict become final, then DONE. */
static void
run_task(struct sd_accel_task *t)
{
	bool ok = t->kind->run(t, &t->v);

	t->status = ok ? DOCA_SUCCESS : sd_refusal_status(t->kind->refusals, &t->v);
	atomic_store_explicit(&t->state, SD_ACCEL_DONE, memory_order_release);
}

void
sd_accel_pool_run(struct sd_accel_task *t)
{
	struct sd_accel *accel = t->accel;
	struct doca_pe *pe = sd_ctx_pe(&accel->ctx);

	run_task(t);
	/* The PE and the context live until pool_pending drops (accel_stopped waits for it). */
	sd_pe_wake(pe);
	atomic_fetch_sub_explicit(&accel->pool_pending, 1, memory_order_release);
}

/* --- ctx ops ------------------------------------------------------------------------ */

static doca_error_t
accel_start(struct doca_ctx *ctx, bool *running)
{
	struct sd_accel *accel = sd_accel_from_ctx(ctx);
	doca_error_t err;

	if (accel->may_start != NULL) {
		err = accel->may_start(accel);
		if (err != DOCA_SUCCESS)
			return err;
	}
	accel->use_pool = sd_accel_workers() > 0;
	if (accel->use_pool && sd_accel_pool_start(sd_accel_workers()) != DOCA_SUCCESS) {
		DOCA_LOG_WARN("doca_ctx_start: %s context: the engine pool could not start its workers; this "
			      "context runs its tasks inside doca_pe_progress()",
			      accel->what);
		accel->use_pool = false;
	}
	accel->inline_max = sd_env_u64("SOFTDOCA_ENGINE_INLINE_MAX", ACCEL_INLINE_MAX_DEFAULT, 0, UINT64_MAX);
	/* Nothing to connect: IDLE -> RUNNING directly (DOCA's samples log an error on STARTING). */
	*running = true;
	return DOCA_SUCCESS;
}

static doca_error_t
accel_submit(struct doca_task *task)
{
	struct sd_accel_task *t = (struct sd_accel_task *)task;
	struct sd_accel *accel = t->accel;
	struct sd_buf_verdict v;

	if (sd_unlikely(!t->kind->check(t, &v))) {
		doca_error_t err = sd_refusal_status(t->kind->refusals, &v);

		/* No buffer to report against: the submitter keeps the task. */
		if (v.why < 64 && (t->kind->keep_mask & (1ull << v.why))) {
			log_verdict(accel, t, "doca_task_submit", &v, true);
			return err;
		}
		/* A data fault, found when the engine reaches the task: reported in order, the ctx stops. */
		log_verdict(accel, t, "doca_task_submit", &v, false);
		sd_task_fail_in_order(task, err);
		return DOCA_SUCCESS;
	}
	t->status = DOCA_SUCCESS;
	t->v.why = SD_BUF_OK;
	atomic_store_explicit(&t->state, SD_ACCEL_QUEUED, memory_order_relaxed);
	sd_list_insert_tail(&accel->order, sd_task_link(task));
	if (!accel->use_pool || t->kind->cost(t) <= accel->inline_max) {
		sd_list_insert_tail(&accel->inline_q, &t->queue);
		return DOCA_SUCCESS;
	}
	atomic_fetch_add_explicit(&accel->pool_pending, 1, memory_order_relaxed);
	sd_accel_pool_push(t);
	return DOCA_SUCCESS;
}

static doca_error_t
accel_validate(struct doca_task *task)
{
	struct sd_accel_task *t = (struct sd_accel_task *)task;
	struct sd_buf_verdict v;

	if (t->kind->check(t, &v))
		return DOCA_SUCCESS;
	log_verdict(t->accel, t, "doca_task_try_submit", &v, true);
	return sd_refusal_status(t->kind->refusals, &v);
}

static unsigned
accel_progress(struct doca_ctx *ctx)
{
	struct sd_accel *accel = sd_accel_from_ctx(ctx);
	uint64_t budget = ACCEL_PROGRESS_BUDGET;
	unsigned n = 0;

	while (!sd_list_empty(&accel->inline_q) && budget > 0) {
		struct sd_accel_task *t = task_from_queue(sd_list_pop_head(&accel->inline_q));
		uint64_t cost = t->kind->cost(t);

		atomic_store_explicit(&t->state, SD_ACCEL_RUNNING, memory_order_relaxed);
		run_task(t);
		budget = cost >= budget ? 0 : budget - cost;
	}
	while (!sd_list_empty(&accel->order)) {
		struct sd_accel_task *t = task_from_order(accel->order.next);

		if (atomic_load_explicit(&t->state, memory_order_acquire) != SD_ACCEL_DONE)
			break;
		if (t->status != DOCA_SUCCESS && t->v.why != SD_BUF_OK)
			log_verdict(accel, t, "doca_pe_progress", &t->v, false);
		sd_task_complete(&t->task, t->status); /* unlinks it from order */
		n++;
	}
	return n;
}

/* Finish every task not started with the flush status; running ones finish on their own. */
static void
accel_flush(struct doca_ctx *ctx)
{
	struct sd_accel *accel = sd_accel_from_ctx(ctx);
	struct sd_list *pos;

	while (!sd_list_empty(&accel->inline_q)) {
		struct sd_accel_task *t = task_from_queue(sd_list_pop_head(&accel->inline_q));

		t->status = SD_TASK_FLUSH_STATUS;
		atomic_store_explicit(&t->state, SD_ACCEL_DONE, memory_order_relaxed);
	}
	sd_list_for_each(pos, &accel->order)
	{
		struct sd_accel_task *t = task_from_order(pos);

		if (sd_accel_pool_cancel(t)) {
			t->status = SD_TASK_FLUSH_STATUS;
			atomic_store_explicit(&t->state, SD_ACCEL_DONE, memory_order_relaxed);
			atomic_fetch_sub_explicit(&accel->pool_pending, 1, memory_order_relaxed);
		}
	}
}

/* Every task was delivered: wait for the workers to let go of the context (a few instructions). */
static void
accel_stopped(struct doca_ctx *ctx)
{
	struct sd_accel *accel = sd_accel_from_ctx(ctx);

	while (atomic_load_explicit(&accel->pool_pending, memory_order_acquire) != 0)
		sched_yield();
}

static bool
accel_arm(struct doca_ctx *ctx)
{
	struct sd_accel *accel = sd_accel_from_ctx(ctx);

	if (!sd_list_empty(&accel->inline_q))
		return true;
	return !sd_list_empty(&accel->order) &&
	       atomic_load_explicit(&task_from_order(accel->order.next)->state, memory_order_acquire) == SD_ACCEL_DONE;
}

static const struct sd_ctx_ops accel_ctx_ops = {
	.name = "accel",
	.start = accel_start,
	.flush = accel_flush,
	.stopped = accel_stopped,
	.progress = accel_progress,
	.submit = accel_submit,
	.validate = accel_validate,
	.arm = accel_arm,
};

/* --- the library's object -------------------------------------------------------------- */

void
sd_accel_init(struct sd_accel *accel, struct doca_dev *dev, const char *what, int log_source,
	      doca_error_t (*may_start)(struct sd_accel *accel))
{
	sd_ctx_init(&accel->ctx, &accel_ctx_ops, dev);
	/* Core's lines about this context ("SHA context is RUNNING") name the library, not "accel". */
	accel->ctx.run_ops.name = what;
	accel->what = what;
	accel->log_source = log_source;
	accel->may_start = may_start;
	sd_list_init(&accel->order);
	sd_list_init(&accel->inline_q);
	atomic_init(&accel->pool_pending, 0);
}

doca_error_t
sd_accel_fini(struct sd_accel *accel, const char *api)
{
	return sd_ctx_fini(&accel->ctx, api);
}

/* --- checks ------------------------------------------------------------------------------ */

bool
sd_accel_check_list(const struct sd_accel *accel, const struct doca_buf *list, bool writable, uint32_t max_segs,
		    const char *what, struct sd_buf_verdict *v)
{
	uint64_t segs = 0;

	if (!sd_buf_check_held(list, what, v))
		return false;
	for (const struct doca_buf *seg = list; seg != NULL; seg = sd_buf_next(seg)) {
		const struct doca_mmap *m = sd_buf_mmap(seg);

		segs++;
		if (sd_mmap_kind(m) != SD_MMAP_LOCAL)
			return sd_buf_refuse(v, SD_ACCEL_NOT_LOCAL, what, 0, 0, 0);
		if (!sd_buf_check_seg(seg, writable, what, v))
			return false;
		if (!sd_mmap_has_dev(m, sd_ctx_dev(&accel->ctx)))
			return sd_buf_refuse(v, SD_ACCEL_DEV_NOT_ADDED, what, 0, 0, 0);
	}
	return sd_buf_check_list_len(segs, max_segs, what, v);
}
