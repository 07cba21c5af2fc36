/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnostics' knobs (read once per process) and the hooks Core's task
 * path calls when ctx->diag is set, dispatched to fault.c, trace.c and
 * stats.c (diag.h).
 */
#include <pthread.h>
#include <string.h>

#include "../util/sd_env.h"
#include "../util/sd_time.h"
#include "diag.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.diag)

static struct sd_diag_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void
config_load(void)
{
	const char *faults = sd_env_str("SOFTDOCA_FAULTS");
	const char *reason;
	size_t at;

	config.t0_ns = sd_now_ns();
	if (faults != NULL) {
		if (sd_fault_parse(faults, strlen(faults), &config.plan, &reason, &at))
			config.faults_on = config.plan.num_rules != 0;
		else
			DOCA_LOG_ERR("SOFTDOCA_FAULTS refused at byte %zu (\"%.20s\"): %s; no fault is injected "
				     "(grammar: docs/diagnostics.md)",
				     at, faults + (at < strlen(faults) ? at : 0), reason);
	}
	config.trace_path = sd_env_str("SOFTDOCA_TRACE");
	config.stats_on = sd_env_bool("SOFTDOCA_STATS", false);
}

const struct sd_diag_config *
sd_diag_config(void)
{
	pthread_once(&config_once, config_load);
	return &config;
}

doca_error_t
sd_diag_ctx_start(struct doca_ctx *ctx)
{
	const struct sd_diag_config *c = sd_diag_config();

	ctx->diag = 0;
	ctx->lib = sd_fault_lib_of(ctx->run_ops.name);
	if (c->faults_on) {
		sd_fault_ctx_start(ctx);
		if ((ctx->diag & SD_DIAG_FAULT) != 0) {
			doca_error_t err = sd_fault_ctx_check(ctx);

			if (err != DOCA_SUCCESS)
				return err;
		}
	}
	if (c->trace_path != NULL)
		sd_trace_ctx_start(ctx);
	if (c->stats_on)
		sd_stats_ctx_start(ctx);
	return DOCA_SUCCESS;
}

void
sd_diag_ctx_fini(struct doca_ctx *ctx)
{
	if (ctx->stats != NULL)
		sd_stats_print(ctx);
	if (ctx->trace != NULL)
		sd_trace_ctx_fini(ctx);
}

bool
sd_diag_submit(struct doca_task *task, const char *api)
{
	(void)api;
	if ((task->ctx->diag & SD_DIAG_FAULT) != 0 && sd_fault_submit(task)) {
		if ((task->ctx->diag & SD_DIAG_STATS) != 0)
			sd_stats_again(task->ctx);
		return true;
	}
	/* The start of the task's trace slice and of its latency sample. */
	if ((task->ctx->diag & (SD_DIAG_TRACE | SD_DIAG_STATS)) != 0)
		task->diag_t0 = sd_now_ns();
	if ((task->ctx->diag & SD_DIAG_STATS) != 0)
		sd_stats_submit(task);
	return false;
}

void
sd_diag_submit_refused(struct doca_task *task, doca_error_t err)
{
	if ((task->ctx->diag & SD_DIAG_STATS) != 0 && err == DOCA_ERROR_AGAIN)
		sd_stats_again(task->ctx);
}

bool
sd_diag_complete(struct doca_task *task, doca_error_t *status)
{
	return (task->ctx->diag & SD_DIAG_FAULT) != 0 && sd_fault_complete(task, status);
}

unsigned
sd_diag_progress(struct doca_ctx *ctx)
{
	if ((ctx->diag & SD_DIAG_TRACE) != 0)
		sd_trace_progress(ctx);
	return (ctx->diag & SD_DIAG_FAULT) != 0 ? sd_fault_progress(ctx) : 0;
}

void
sd_diag_report(struct doca_task *task, doca_error_t status)
{
	if ((task->ctx->diag & SD_DIAG_STATS) != 0)
		sd_stats_report(task, status);
	if ((task->ctx->diag & SD_DIAG_TRACE) != 0)
		sd_trace_report(task, status);
}

void
sd_diag_state(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	if ((ctx->diag & SD_DIAG_TRACE) != 0)
		sd_trace_state(ctx, prev, next);
}

void
sd_diag_event(struct doca_ctx *ctx, const char *what, uint64_t id)
{
	if (sd_unlikely((ctx->diag & SD_DIAG_TRACE) != 0))
		sd_trace_event(ctx, what, id);
}
