/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Task pools, submission, completion and the doca_task_* API.  The submit ->
 * complete -> callback path takes no lock, allocates nothing, makes no syscall
 * and logs nothing unless something is refused.
 */
#include <stdlib.h>

#include <doca_pe.h>

#include "diag.h"
#include "graph_internal.h"
#include "pe_internal.h"
#include "sd_log.h"
#include "strict.h"

SD_LOG_REGISTER(core.task)

/* --- pools --------------------------------------------------------------------- */

/* Carve storage into num_tasks tasks, all free; FIFO so a freed task is reused last. */
static void
pool_fill(struct sd_task_pool *pool)
{
	sd_list_init(&pool->free_list);
	for (uint32_t i = 0; i < pool->num_tasks; i++) {
		struct doca_task *task =
			(struct doca_task *)(void *)((char *)pool->storage + (size_t)i * pool->task_size);

		task->ctx = pool->ctx;
		task->pool = pool;
		task->user_data.u64 = 0;
		task->status = DOCA_SUCCESS;
		task->allocated = false;
		task->in_flight = false;
		sd_list_insert_tail(&pool->free_list, &task->link);
	}
	pool->num_allocated = 0;
}

doca_error_t
sd_task_pool_configure(struct doca_ctx *ctx, struct sd_task_pool **pool, const char *name, size_t task_size,
		       uint32_t num_tasks, uint32_t max_tasks, doca_task_completion_cb_t success_cb,
		       doca_task_completion_cb_t error_cb, const char *api)
{
	struct sd_task_pool *p = *pool;
	void *storage;

	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("%s: the %s context is not IDLE; configure %s tasks before doca_ctx_start()", api,
			     ctx->run_ops.name, name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (success_cb == NULL || error_cb == NULL) {
		DOCA_LOG_ERR("%s: %s callback is NULL; both the completion and the error callback are required", api,
			     success_cb == NULL ? "completion" : "error");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (num_tasks == 0 || (max_tasks != 0 && num_tasks > max_tasks)) {
		DOCA_LOG_ERR("%s: num_tasks %u out of range [1, %u]; use at most the capability's max_num_tasks", api,
			     num_tasks, max_tasks != 0 ? max_tasks : UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (task_size < sizeof(struct doca_task)) {
		DOCA_LOG_ERR("%s: internal error: task size %zu smaller than struct doca_task", api, task_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (p != NULL && p->num_allocated != 0) {
		DOCA_LOG_ERR("%s: %u %s tasks are still allocated; free them (doca_task_free) before reconfiguring",
			     api, p->num_allocated, name);
		return DOCA_ERROR_BAD_STATE;
	}
	if (p == NULL && ctx->num_pools == SD_ARRAY_SIZE(ctx->pools)) {
		DOCA_LOG_ERR("%s: internal error: more than %zu task types on one context", api,
			     SD_ARRAY_SIZE(ctx->pools));
		return DOCA_ERROR_NO_MEMORY;
	}

	storage = calloc(num_tasks, task_size);
	if (storage == NULL) {
		DOCA_LOG_ERR("%s: cannot allocate %u %s tasks of %zu bytes; lower num_tasks", api, num_tasks, name,
			     task_size);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL) {
			DOCA_LOG_ERR("%s: out of memory for the %s task pool", api, name);
			goto free_storage;
		}
		p->ctx = ctx;
		ctx->pools[ctx->num_pools++] = p;
		*pool = p;
	} else {
		free(p->storage);
	}
	p->name = name;
	p->task_size = task_size;
	p->num_tasks = num_tasks;
	p->storage = storage;
	p->success_cb = success_cb;
	p->error_cb = error_cb;
	pool_fill(p);
	return DOCA_SUCCESS;

free_storage:
	free(storage);
	return DOCA_ERROR_NO_MEMORY;
}

void
sd_task_pools_free(struct doca_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->num_pools; i++) {
		if (ctx->pools[i]->num_allocated != 0)
			DOCA_LOG_DBG("%s ctx %p destroyed with %u %s tasks still allocated", ctx->run_ops.name,
				     (void *)ctx, ctx->pools[i]->num_allocated, ctx->pools[i]->name);
		free(ctx->pools[i]->storage);
		free(ctx->pools[i]);
		ctx->pools[i] = NULL;
	}
	ctx->num_pools = 0;
}

doca_error_t
sd_task_alloc(struct sd_task_pool *pool, union doca_data user_data, const char *api, struct doca_task **task)
{
	struct sd_list *elem;
	struct doca_task *t;

	if (sd_unlikely(pool == NULL)) {
		DOCA_LOG_ERR("%s: this task type is not configured; call its *_set_conf() before doca_ctx_start()",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	elem = sd_list_pop_head(&pool->free_list);
	if (sd_unlikely(elem == NULL)) {
		DOCA_LOG_DBG("%s: all %u %s tasks are allocated; free some (doca_task_free) or raise num_tasks in "
			     "*_set_conf()",
			     api, pool->num_tasks, pool->name);
		return DOCA_ERROR_NO_MEMORY;
	}
	t = sd_container_of(elem, struct doca_task, link);
	t->allocated = true;
	t->in_flight = false;
	t->status = DOCA_SUCCESS;
	t->user_data = user_data;
	pool->num_allocated++;
	*task = t;
	return DOCA_SUCCESS;
}

/* --- completion -------------------------------------------------------------------- */

/* Queue a finished task for its callback. */
static inline void
report_later(struct doca_ctx *ctx, struct doca_task *task, doca_error_t status)
{
	if (sd_unlikely(status != DOCA_SUCCESS) && ctx->state == DOCA_CTX_STATE_RUNNING)
		ctx->failed = true;
	task->status = status;
	sd_list_insert_tail(&ctx->completed, &task->link);
}

/* Insert a finished task into ctx->held, which is kept in submission order. */
static void
hold(struct doca_ctx *ctx, struct doca_task *task, doca_error_t status)
{
	struct sd_list *pos = ctx->held.prev;

	task->status = status;
	/* Usually the newest: the scan stops at once. */
	while (pos != &ctx->held && sd_container_of(pos, struct doca_task, link)->seq > task->seq)
		pos = pos->prev;
	sd_list_insert_head(pos, &task->link);
}

/* Every task submitted before the held failure has finished: release them all, in order. */
static void
release_held(struct doca_ctx *ctx)
{
	struct sd_list *elem;

	ctx->hold_seq = SD_NO_HOLD;
	while ((elem = sd_list_pop_head(&ctx->held)) != NULL) {
		struct doca_task *task = sd_container_of(elem, struct doca_task, link);

		report_later(ctx, task, task->status);
	}
}

static __attribute__((noinline, cold)) void
complete_while_holding(struct doca_ctx *ctx, struct doca_task *task, doca_error_t status)
{
	if (task->seq > ctx->hold_seq) {
		hold(ctx, task, status);
		return;
	}
	report_later(ctx, task, status);
	if (--ctx->ahead == 0)
		release_held(ctx);
}

void
sd_task_complete_now(struct doca_task *task, doca_error_t status)
{
	struct doca_ctx *ctx = task->ctx;

	sd_list_del(&task->link);
	ctx->num_running--;
	if (sd_unlikely(ctx->hold_seq != SD_NO_HOLD)) {
		complete_while_holding(ctx, task, status);
		return;
	}
	report_later(ctx, task, status);
}

void
sd_task_complete(struct doca_task *task, doca_error_t status)
{
	/* Diagnostics off: this test is their whole cost (diag.h). */
	if (sd_unlikely(task->ctx->diag != 0) && sd_diag_complete(task, &status))
		return;
	sd_task_complete_now(task, status);
}

void
sd_task_fail_in_order(struct doca_task *task, doca_error_t status)
{
	struct doca_ctx *ctx = task->ctx;

	sd_list_del(&task->link);
	ctx->num_running--;
	if (ctx->hold_seq != SD_NO_HOLD) {
		hold(ctx, task, status);
		return;
	}
	/* The task is the newest: everything still running was submitted before it. */
	if (ctx->num_running == 0) {
		report_later(ctx, task, status);
		return;
	}
	ctx->hold_seq = task->seq;
	ctx->ahead = ctx->num_running;
	hold(ctx, task, status);
}

/* --- submission -------------------------------------------------------------------- */

/* The cheap checks of every submit flavour; logs the refusal. */
static inline doca_error_t
submit_check(const struct doca_task *task, const char *api)
{
	if (sd_unlikely(task == NULL)) {
		DOCA_LOG_ERR("%s: task is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_unlikely(!task->allocated)) {
		DOCA_LOG_ERR("%s: %s task %p is not allocated (freed already?); allocate it with its *_alloc_init()",
			     api, task->pool->name, (const void *)task);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_unlikely(task->in_flight)) {
		DOCA_LOG_ERR("%s: %s task %p is already in flight; resubmit it only from its completion callback", api,
			     task->pool->name, (const void *)task);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_unlikely(task->ctx->state != DOCA_CTX_STATE_RUNNING)) {
		DOCA_LOG_ERR("%s: the %s context is not RUNNING (%s); submit after the RUNNING state callback and "
			     "before doca_ctx_stop()",
			     api, task->ctx->run_ops.name, sd_ctx_state_name(task->ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* Hand a checked task to the backend. */
static inline doca_error_t
submit_backend(struct doca_task *task, const char *api)
{
	struct doca_ctx *ctx = task->ctx;
	doca_error_t err;

	/* In flight before the backend sees it: it may complete the task inside submit. */
	task->in_flight = true;
	task->seq = ctx->next_seq++;
	ctx->num_inflight++;
	ctx->num_running++;
	err = ctx->run_ops.submit(task);
	if (sd_unlikely(err != DOCA_SUCCESS)) {
		task->in_flight = false;
		ctx->num_inflight--;
		ctx->num_running--;
		if (ctx->diag != 0)
			sd_diag_submit_refused(task, err);
		/* The backend logged other refusals itself; AGAIN is expected under load. */
		DOCA_LOG_DBG("%s: %s task not submitted: %s%s", api, task->pool->name, doca_error_get_name(err),
			     err == DOCA_ERROR_AGAIN ? " (queue full; progress, then retry)" : "");
	}
	return err;
}

/* Submit with diagnostics on: strict mode's rules around it, an injected AGAIN queues nothing. */
static __attribute__((noinline, cold)) doca_error_t
submit_diag(struct doca_task *task, const char *api, const void *caller)
{
	struct doca_ctx *ctx = task->ctx;
	bool strict = (ctx->diag & SD_DIAG_STRICT) != 0, took = false;
	doca_error_t err;

	if (strict) {
		took = sd_strict_pe_enter(ctx->pe, api, caller);
		sd_strict_submit_check(task, caller);
	}
	err = sd_diag_submit(task, api) ? DOCA_ERROR_AGAIN : submit_backend(task, api);
	if (strict && err == DOCA_SUCCESS)
		sd_strict_track(task);
	if (took)
		sd_strict_pe_leave(ctx->pe);
	return err;
}

/* Inlined into each public submit, so the caller is the application's call site. */
static inline __attribute__((always_inline)) doca_error_t
submit_checked(struct doca_task *task, const char *api)
{
	/* Diagnostics off: this test is their whole cost (diag.h). */
	if (sd_unlikely(task->ctx->diag != 0))
		return submit_diag(task, api, SD_STRICT_CALLER());
	return submit_backend(task, api);
}

doca_error_t
doca_task_submit(struct doca_task *task)
{
	doca_error_t err = submit_check(task, "doca_task_submit");

	if (sd_unlikely(err != DOCA_SUCCESS))
		return err;
	return submit_checked(task, "doca_task_submit");
}

doca_error_t
doca_task_submit_ex(struct doca_task *task, uint32_t flags)
{
	/* sd:no-effect: flags ignored; FLUSH and OPTIMIZE_REPORTS are doorbell hints and a software queue has no
	 * doorbell */
	doca_error_t err = submit_check(task, "doca_task_submit_ex");

	if (sd_unlikely(err != DOCA_SUCCESS))
		return err;
	return submit_checked(task, "doca_task_submit_ex");
}

doca_error_t
doca_task_try_submit(struct doca_task *task)
{
	doca_error_t err = submit_check(task, "doca_task_try_submit");

	if (err != DOCA_SUCCESS)
		return err;
	/* validate logs its own refusal. */
	err = task->ctx->run_ops.validate(task);
	if (err != DOCA_SUCCESS)
		return err;
	return submit_checked(task, "doca_task_try_submit");
}

/* --- submission by a graph (graph_run.c) ------------------------------------------ */

doca_error_t
sd_task_graph_check(const struct doca_task *task, const char *api)
{
	return submit_check(task, api);
}

/* doca_task_submit() for a graph node: the task's report goes to slot (sd_ctx_report). */
doca_error_t
sd_task_graph_submit(struct doca_task *task, struct sd_graph_slot *slot, const char *api)
{
	doca_error_t err = submit_check(task, api);

	if (err != DOCA_SUCCESS)
		return err;
	task->graph_slot = slot;
	err = submit_checked(task, api);
	if (err != DOCA_SUCCESS)
		task->graph_slot = NULL;
	return err;
}

/* --- task object ------------------------------------------------------------------- */

void
doca_task_free(struct doca_task *task)
{
	struct sd_task_pool *pool;

	if (sd_unlikely(task == NULL)) {
		DOCA_LOG_ERR("doca_task_free: task is NULL");
		return;
	}
	pool = task->pool;
	if (sd_unlikely(!task->allocated)) {
		DOCA_LOG_ERR("doca_task_free: %s task %p is already free; free each task once", pool->name,
			     (void *)task);
		return;
	}
	if (sd_unlikely(task->in_flight)) {
		struct doca_ctx *ctx = task->ctx;
		bool dropped = ctx->run_ops.drop(task);

		if ((ctx->diag & SD_DIAG_STRICT) != 0)
			sd_strict_task_freed(task, dropped, SD_STRICT_CALLER());
		if (!dropped) {
			DOCA_LOG_ERR("doca_task_free: %s task %p is in flight; free it in its completion or error "
				     "callback",
				     pool->name, (void *)task);
			return;
		}
		/* The backend let go of it and never completes it: its flight ends here, without a callback. */
		task->in_flight = false;
		ctx->num_inflight--;
		ctx->num_running--;
	}
	task->allocated = false;
	pool->num_allocated--;
	/* Tail: the memory stays readable for as long as possible ([S3.3] reads after free). */
	sd_list_insert_tail(&pool->free_list, &task->link);
}

doca_error_t
doca_task_get_status(const struct doca_task *task)
{
	if (task == NULL) {
		DOCA_LOG_ERR("doca_task_get_status: task is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return task->status;
}

void
doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
	if (task == NULL) {
		DOCA_LOG_ERR("doca_task_set_user_data: task is NULL");
		return;
	}
	task->user_data = user_data;
}

union doca_data
doca_task_get_user_data(const struct doca_task *task)
{
	union doca_data none = {.u64 = 0};

	if (task == NULL) {
		DOCA_LOG_ERR("doca_task_get_user_data: task is NULL");
		return none;
	}
	return task->user_data;
}

struct doca_ctx *
doca_task_get_ctx(const struct doca_task *task)
{
	if (task == NULL) {
		DOCA_LOG_ERR("doca_task_get_ctx: task is NULL");
		return NULL;
	}
	return task->ctx;
}

/* --- task batches: not provided ------------------------------------------------------ */
/*
 * No softdoca library allocates a batch, so no struct doca_task_batch exists:
 * submissions are refused and the getters return neutral values.
 */

doca_error_t
doca_task_batch_submit(struct doca_task_batch *task_batch)
{
	DOCA_LOG_ERR("doca_task_batch_submit: softdoca has no task batches; allocate and submit the tasks one by one");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_task_batch_try_submit(struct doca_task_batch *task_batch)
{
	DOCA_LOG_ERR(
		"doca_task_batch_try_submit: softdoca has no task batches; allocate and submit the tasks one by one");
	return DOCA_ERROR_NOT_SUPPORTED;
}

void
doca_task_batch_free(struct doca_task_batch *task_batch)
{
	DOCA_LOG_ERR("doca_task_batch_free: no batch exists in softdoca (no library allocates one)");
}

doca_error_t
doca_task_batch_get_status(const struct doca_task_batch *task_batch)
{
	DOCA_LOG_ERR("doca_task_batch_get_status: no batch exists in softdoca (no library allocates one)");
	return DOCA_ERROR_NOT_SUPPORTED;
}

void
doca_task_batch_set_user_data(struct doca_task_batch *task_batch, union doca_data user_data)
{
	DOCA_LOG_ERR("doca_task_batch_set_user_data: no batch exists in softdoca (no library allocates one)");
}

union doca_data
doca_task_batch_get_user_data(const struct doca_task_batch *task_batch)
{
	union doca_data none = {.u64 = 0};

	DOCA_LOG_ERR("doca_task_batch_get_user_data: no batch exists in softdoca (no library allocates one)");
	return none;
}

struct doca_ctx *
doca_task_batch_get_ctx(const struct doca_task_batch *task_batch)
{
	DOCA_LOG_ERR("doca_task_batch_get_ctx: no batch exists in softdoca (no library allocates one)");
	return NULL;
}

union doca_data
doca_task_batch_get_ctx_user_data(const struct doca_task_batch *task_batch)
{
	union doca_data none = {.u64 = 0};

	DOCA_LOG_ERR("doca_task_batch_get_ctx_user_data: no batch exists in softdoca (no library allocates one)");
	return none;
}

uint16_t
doca_task_batch_get_tasks_num(struct doca_task_batch *task_batch)
{
	DOCA_LOG_ERR("doca_task_batch_get_tasks_num: no batch exists in softdoca (no library allocates one)");
	return 0;
}
