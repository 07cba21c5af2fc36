/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic context: state machine, state callbacks, completion reporting and
 * the doca_ctx_* API.  Backends plug in through struct sd_ctx_ops (ctx_internal.h).
 */
#include <doca_ctx.h>

#include "diag.h"
#include "graph_internal.h"
#include "pe_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.ctx)

static const char *const state_names[] = {
	[DOCA_CTX_STATE_IDLE] = "IDLE",
	[DOCA_CTX_STATE_STARTING] = "STARTING",
	[DOCA_CTX_STATE_RUNNING] = "RUNNING",
	[DOCA_CTX_STATE_STOPPING] = "STOPPING",
};

const char *
sd_ctx_state_name(enum doca_ctx_states state)
{
	return (unsigned)state < SD_ARRAY_SIZE(state_names) ? state_names[state] : "?";
}

/* --- default ops: what an empty slot of a backend's table does ------------------ */

static doca_error_t
default_start(struct doca_ctx *ctx, bool *running)
{
	*running = true;
	return DOCA_SUCCESS;
}

static void
default_noop(struct doca_ctx *ctx)
{
}

static unsigned
default_progress(struct doca_ctx *ctx)
{
	return 0;
}

static doca_error_t
default_submit(struct doca_task *task)
{
	DOCA_LOG_ERR("doca_task_submit: %s contexts take no tasks of type %s", task->ctx->run_ops.name,
		     task->pool->name);
	return DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t
default_validate(struct doca_task *task)
{
	return DOCA_SUCCESS;
}

static bool
default_arm(struct doca_ctx *ctx)
{
	return false;
}

static bool
default_drop(struct doca_task *task)
{
	return false;
}

void
sd_ctx_init(struct doca_ctx *ctx, const struct sd_ctx_ops *ops, struct doca_dev *dev)
{
	ctx->ops = ops;
	ctx->run_ops = *ops;
	if (ctx->run_ops.name == NULL)
		ctx->run_ops.name = "ctx";
	if (ctx->run_ops.start == NULL)
		ctx->run_ops.start = default_start;
	if (ctx->run_ops.flush == NULL)
		ctx->run_ops.flush = default_noop;
	if (ctx->run_ops.stopped == NULL)
		ctx->run_ops.stopped = default_noop;
	if (ctx->run_ops.progress == NULL)
		ctx->run_ops.progress = default_progress;
	if (ctx->run_ops.submit == NULL)
		ctx->run_ops.submit = default_submit;
	if (ctx->run_ops.validate == NULL)
		ctx->run_ops.validate = default_validate;
	if (ctx->run_ops.arm == NULL)
		ctx->run_ops.arm = default_arm;
	if (ctx->run_ops.drop == NULL)
		ctx->run_ops.drop = default_drop;
	ctx->dev = dev;
	ctx->pe = NULL;
	sd_list_init(&ctx->pe_link);
	ctx->state = DOCA_CTX_STATE_IDLE;
	ctx->state_cb = NULL;
	ctx->user_data.u64 = 0;
	for (uint32_t i = 0; i < SD_ARRAY_SIZE(ctx->pools); i++)
		ctx->pools[i] = NULL;
	ctx->num_pools = 0;
	ctx->num_inflight = 0;
	sd_list_init(&ctx->completed);
	ctx->next_seq = 0;
	ctx->num_running = 0;
	ctx->hold_seq = SD_NO_HOLD;
	ctx->ahead = 0;
	sd_list_init(&ctx->held);
	ctx->diag = 0;
	ctx->lib = NULL;
	ctx->diag_rules = 0;
	sd_list_init(&ctx->delayed);
	ctx->stats = NULL;
	ctx->trace = NULL;
	ctx->stop_generation = 0;
	ctx->failed = false;
	ctx->refusals_logged = 0;
	ctx->graph_refs = 0;
}

doca_error_t
sd_ctx_fini(struct doca_ctx *ctx, const char *api)
{
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("%s: %s context is %s; call doca_ctx_stop() and progress until IDLE before destroying it",
			     api, ctx->run_ops.name, sd_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (ctx->graph_refs != 0) {
		DOCA_LOG_ERR("%s: %s context is a node of %u graphs; destroy them (doca_graph_destroy) first", api,
			     ctx->run_ops.name, ctx->graph_refs);
		return DOCA_ERROR_IN_USE;
	}
	if (ctx->pe != NULL) {
		/* Destroyed from a callback inside doca_pe_progress(): its walk skips this ctx. */
		if (ctx->pe->cursor == &ctx->pe_link)
			ctx->pe->cursor = ctx->pe_link.next;
		sd_list_del(&ctx->pe_link);
		ctx->pe->num_ctxs--;
		ctx->pe = NULL;
	}
	sd_diag_ctx_fini(ctx);
	sd_task_pools_free(ctx);
	return DOCA_SUCCESS;
}

/* --- state machine --------------------------------------------------------------- */

void
sd_ctx_transition(struct doca_ctx *ctx, enum doca_ctx_states next)
{
	enum doca_ctx_states prev = ctx->state;

	ctx->state = next;
	DOCA_LOG_TRC("%s ctx %p: %s -> %s (%zu in flight)", ctx->run_ops.name, (void *)ctx, sd_ctx_state_name(prev),
		     sd_ctx_state_name(next), ctx->num_inflight);
	/* Release the backend's resources before the user learns the ctx is IDLE. */
	if (next == DOCA_CTX_STATE_IDLE)
		ctx->run_ops.stopped(ctx);
	if (sd_unlikely(ctx->diag != 0))
		sd_diag_state(ctx, prev, next);
	/* The callback may start/stop this ctx again: nothing here reads ctx->state after it. */
	if (ctx->state_cb != NULL)
		ctx->state_cb(ctx->user_data, ctx, prev, next);
}

void
sd_ctx_enter_stopping(struct doca_ctx *ctx)
{
	/* Entered inside doca_pe_progress(): IDLE comes from a later progress call. */
	ctx->stop_generation = ctx->pe != NULL && ctx->pe->in_progress ? ctx->pe->generation : 0;
	sd_ctx_transition(ctx, DOCA_CTX_STATE_STOPPING);
	if (ctx->state == DOCA_CTX_STATE_STOPPING)
		ctx->run_ops.flush(ctx);
}

void
sd_ctx_set_running(struct doca_ctx *ctx)
{
	if (ctx->state != DOCA_CTX_STATE_STARTING) {
		DOCA_LOG_DBG("%s ctx %p: start finished while %s; ignored", ctx->run_ops.name, (void *)ctx,
			     sd_ctx_state_name(ctx->state));
		return;
	}
	sd_ctx_transition(ctx, DOCA_CTX_STATE_RUNNING);
}

void
sd_ctx_fail(struct doca_ctx *ctx)
{
	if (ctx->state != DOCA_CTX_STATE_RUNNING && ctx->state != DOCA_CTX_STATE_STARTING)
		return;
	DOCA_LOG_DBG("%s ctx %p: fatal error while %s; stopping", ctx->run_ops.name, (void *)ctx,
		     sd_ctx_state_name(ctx->state));
	ctx->failed = true;
	sd_ctx_enter_stopping(ctx);
}

/* STOPPING began during the doca_pe_progress() call running now: not IDLE before the next. */
static inline bool
stop_is_fresh(const struct doca_ctx *ctx)
{
	return ctx->stop_generation != 0 && ctx->pe->in_progress && ctx->stop_generation == ctx->pe->generation;
}

unsigned
sd_ctx_report(struct doca_ctx *ctx)
{
	struct sd_list batch, *elem;
	unsigned events = 0;

	/*
	 * Report only what completed before this call: a callback that resubmits to a
	 * backend completing inside submit must not keep this loop going forever.
	 */
	sd_list_move_all(&batch, &ctx->completed);
	while ((elem = sd_list_pop_head(&batch)) != NULL) {
		struct doca_task *task = sd_container_of(elem, struct doca_task, link);
		doca_error_t status = task->status;
		doca_task_completion_cb_t cb;

		/*
		 * Once STOPPING, every task still unreported is flushed, even one the
		 * backend finished: DOCA counts unreported completions as in flight.
		 */
		if (sd_unlikely(ctx->state == DOCA_CTX_STATE_STOPPING) && status == DOCA_SUCCESS &&
		    !ctx->run_ops.success_survives_stop)
			task->status = status = SD_TASK_FLUSH_STATUS;
		cb = status == DOCA_SUCCESS ? task->pool->success_cb : task->pool->error_cb;
		task->in_flight = false;
		ctx->num_inflight--;
		/* A graph's task completes into its instance, never into its pool's callbacks. */
		if (sd_unlikely(ctx->diag != 0))
			sd_diag_report(task, status);
		if (sd_unlikely(task->graph_slot != NULL))
			sd_graph_task_done(task, status);
		else
			cb(task, task->user_data, ctx->user_data);
		events++;
		if (sd_unlikely(status != DOCA_SUCCESS) && ctx->state == DOCA_CTX_STATE_RUNNING) {
			DOCA_LOG_DBG("%s ctx %p: a task failed (%s); stopping the context", ctx->run_ops.name,
				     (void *)ctx, doca_error_get_name(status));
			sd_ctx_enter_stopping(ctx);
		}
	}
	if (ctx->state == DOCA_CTX_STATE_STOPPING && ctx->num_inflight == 0 && !stop_is_fresh(ctx)) {
		/* Last use of ctx: its IDLE callback may destroy it. */
		sd_ctx_transition(ctx, DOCA_CTX_STATE_IDLE);
		events++;
	}
	return events;
}

bool
sd_ctx_has_pending(struct doca_ctx *ctx)
{
	bool pending = ctx->run_ops.arm(ctx);

	/* A delayed completion (diag.h) is due at a time nobody signals: the PE must keep polling. */
	return pending || !sd_list_empty(&ctx->completed) || !sd_list_empty(&ctx->delayed) ||
	       (ctx->state == DOCA_CTX_STATE_STOPPING && ctx->num_inflight == 0);
}

/* --- public API ------------------------------------------------------------------- */

doca_error_t
doca_ctx_start(struct doca_ctx *ctx)
{
	bool running = false;
	doca_error_t err;

	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: ctx is NULL; pass the context from the library's *_as_ctx()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->pe == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: %s context is not connected to a progress engine; call "
			     "doca_pe_connect_ctx() first",
			     ctx->run_ops.name);
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_ctx_start: %s context is %s, not IDLE; stop it and progress until IDLE first",
			     ctx->run_ops.name, sd_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	err = sd_diag_ctx_start(ctx);
	if (err != DOCA_SUCCESS)
		return err;
	/* The backend logs its own refusal (missing configuration, caps...). */
	err = ctx->run_ops.start(ctx, &running);
	if (err == DOCA_ERROR_IN_PROGRESS) {
		running = false; /* STARTING, and the caller is told so (Comch clients) */
	} else if (err != DOCA_SUCCESS) {
		DOCA_LOG_DBG("doca_ctx_start: %s backend refused to start: %s", ctx->run_ops.name,
			     doca_error_get_name(err));
		return err;
	}
	ctx->failed = false;
	ctx->refusals_logged = 0;
	ctx->stop_generation = 0;
	sd_ctx_transition(ctx, running ? DOCA_CTX_STATE_RUNNING : DOCA_CTX_STATE_STARTING);
	return err;
}

doca_error_t
doca_ctx_stop(struct doca_ctx *ctx)
{
	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_ctx_stop: ctx is NULL; pass the context from the library's *_as_ctx()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	switch (ctx->state) {
	case DOCA_CTX_STATE_IDLE:
		/* Samples stop twice (callback, then cleanup): the second stop is a no-op. */
		return DOCA_SUCCESS;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_DBG("doca_ctx_stop: %s context already STOPPING with %zu tasks in flight; keep progressing",
			     ctx->run_ops.name, ctx->num_inflight);
		return DOCA_ERROR_IN_PROGRESS;
	default:
		break;
	}
	/*
	 * Synchronous only when nothing is left to tear down and no progress call is
	 * under way; a stop nested in doca_pe_progress() (a task or state callback)
	 * is asynchronous: STOPPING now, IDLE from a later doca_pe_progress().
	 */
	if (ctx->num_inflight == 0 && !ctx->pe->in_progress) {
		sd_ctx_transition(ctx, DOCA_CTX_STATE_IDLE);
		return DOCA_SUCCESS;
	}
	sd_ctx_enter_stopping(ctx);
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return DOCA_SUCCESS;
	DOCA_LOG_DBG("doca_ctx_stop: %s context STOPPING (%zu tasks in flight%s); IDLE follows from doca_pe_progress()",
		     ctx->run_ops.name, ctx->num_inflight,
		     ctx->pe->in_progress ? ", stop requested from a callback" : "");
	return DOCA_ERROR_IN_PROGRESS;
}

doca_error_t
doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks)
{
	if (ctx == NULL || num_inflight_tasks == NULL) {
		DOCA_LOG_ERR("doca_ctx_get_num_inflight_tasks: NULL argument (ctx=%p, out=%p)", (const void *)ctx,
			     (void *)num_inflight_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*num_inflight_tasks = ctx->num_inflight;
	return DOCA_SUCCESS;
}

doca_error_t
doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev)
{
	DOCA_LOG_ERR("doca_ctx_set_datapath_on_gpu: softdoca has no DPA/GPU; run the datapath on the CPU (connect the "
		     "context to a doca_pe)");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev)
{
	DOCA_LOG_ERR("doca_ctx_set_datapath_on_dpa: softdoca has no DPA/GPU; run the datapath on the CPU (connect the "
		     "context to a doca_pe)");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_ctx_set_user_data: ctx is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data)
{
	if (ctx == NULL || user_data == NULL) {
		DOCA_LOG_ERR("doca_ctx_get_user_data: NULL argument (ctx=%p, out=%p)", (const void *)ctx,
			     (void *)user_data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = ctx->user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb)
{
	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_ctx_set_state_changed_cb: ctx is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx->state_cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t
doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
	if (ctx == NULL || state == NULL) {
		DOCA_LOG_ERR("doca_ctx_get_state: NULL argument (ctx=%p, out=%p)", (const void *)ctx, (void *)state);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*state = ctx->state;
	return DOCA_SUCCESS;
}

void
doca_ctx_flush_tasks(struct doca_ctx *ctx)
{
	struct doca_pe *pe;

	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_ctx_flush_tasks: ctx is NULL");
		return;
	}
	if (ctx->state != DOCA_CTX_STATE_STOPPING) {
		DOCA_LOG_WARN("doca_ctx_flush_tasks: %s context is %s; flushing is meaningful only while STOPPING "
			      "(after doca_ctx_stop() returned IN_PROGRESS)",
			      ctx->run_ops.name, sd_ctx_state_name(ctx->state));
		return;
	}
	ctx->run_ops.flush(ctx);
	/* Inside progress the ongoing doca_pe_progress() reports them; otherwise do it now. */
	pe = ctx->pe;
	if (!pe->in_progress) {
		pe->in_progress = true;
		sd_ctx_report(ctx); /* its IDLE callback may destroy ctx */
		pe->in_progress = false;
	}
}

doca_error_t
doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t completion_vector)
{
	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_ctx_set_completion_vector: ctx is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_ctx_set_completion_vector: %s context is %s; set it while IDLE", ctx->run_ops.name,
			     sd_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	if (completion_vector != 0) {
		DOCA_LOG_ERR("doca_ctx_set_completion_vector: vector %u does not exist; softdoca has 1 completion "
			     "vector (use 0)",
			     completion_vector);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo, uint32_t *num_completion_vectors)
{
	if (devinfo == NULL || num_completion_vectors == NULL) {
		DOCA_LOG_ERR("doca_ctx_cap_get_num_completion_vectors: NULL argument (devinfo=%p, out=%p)",
			     (const void *)devinfo, (void *)num_completion_vectors);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*num_completion_vectors = 1;
	return DOCA_SUCCESS;
}
