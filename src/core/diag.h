/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Diagnostics hardware cannot give (docs/diagnostics.md): fault injection
 * (SOFTDOCA_FAULTS, fault.c), a Chrome/Perfetto trace (SOFTDOCA_TRACE,
 * trace.c) and per-context statistics (SOFTDOCA_STATS, stats.c), hooked into
 * Core's generic task path so every library that completes tasks through
 * sd_task_complete() gets them.
 *
 * Cost when off: doca_ctx_start() sets ctx->diag from the knobs (read once per
 * process); submit, completion and report each test that byte once
 * (sd_unlikely) and call in here only when it is set.  Everything here runs on
 * the PE's thread; the fault rules' counters are atomic because several PEs
 * may share them.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_DIAG_H_
#define SD_DIAG_H_

#include <stdbool.h>
#include <stdint.h>

#include "ctx_internal.h"
#include "fault_parse.h"

#define SD_DIAG_FAULT 0x1u
#define SD_DIAG_TRACE 0x2u
#define SD_DIAG_STATS 0x4u

/* The process's knobs, read once (diag.c). */
struct sd_diag_config {
	bool faults_on;
	struct sd_fault_plan plan;
	uint64_t t0_ns; /* when the plan was loaded: origin of @<time> */
	const char *trace_path;
	bool stats_on;
};

const struct sd_diag_config *sd_diag_config(void);

/* doca_ctx_start(), before the backend: set ctx->diag; an error refuses the start (logged). */
doca_error_t sd_diag_ctx_start(struct doca_ctx *ctx);
/* The ctx reached IDLE / is destroyed (stats printed at destroy). */
void sd_diag_ctx_fini(struct doca_ctx *ctx);

/* Submit, before the backend sees the task: true refuses it with AGAIN (nothing queued). */
bool sd_diag_submit(struct doca_task *task, const char *api);
/* The backend refused a submitted task (the cold branch of submit). */
void sd_diag_submit_refused(struct doca_task *task, doca_error_t err);
/* Backend completion: may change *status; true when the completion was postponed (delay). */
bool sd_diag_complete(struct doca_task *task, doca_error_t *status);
/* Progress visits ctx: release due delayed completions, device down / peer gone. */
unsigned sd_diag_progress(struct doca_ctx *ctx);
/* Just before the task's callback. */
void sd_diag_report(struct doca_task *task, doca_error_t status);
/* A state change of ctx (trace instants). */
void sd_diag_state(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next);

/* The completion without the diagnostics hook (task.c), for released delayed tasks. */
void sd_task_complete_now(struct doca_task *task, doca_error_t status);

/* fault.c */
/* "dma", "comch", "sha": the library name rules and stats lines use for a context. */
const char *sd_fault_lib_of(const char *ctx_name);
void sd_fault_ctx_start(struct doca_ctx *ctx);
doca_error_t sd_fault_ctx_check(struct doca_ctx *ctx);
bool sd_fault_submit(struct doca_task *task);
bool sd_fault_complete(struct doca_task *task, doca_error_t *status);
unsigned sd_fault_progress(struct doca_ctx *ctx);

/* trace.c */
void sd_trace_ctx_start(struct doca_ctx *ctx);
void sd_trace_ctx_fini(struct doca_ctx *ctx);
void sd_trace_report(struct doca_task *task, doca_error_t status);
void sd_trace_progress(struct doca_ctx *ctx);
void sd_trace_state(struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next);
void sd_trace_event(struct doca_ctx *ctx, const char *what, uint64_t id);

/* stats.c */
void sd_stats_ctx_start(struct doca_ctx *ctx);
void sd_stats_submit(struct doca_task *task);
void sd_stats_again(struct doca_ctx *ctx);
void sd_stats_report(struct doca_task *task, doca_error_t status);
void sd_stats_print(struct doca_ctx *ctx);
uint64_t sd_stats_percentile(const struct sd_diag_stats *s, double q);

#endif /* SD_DIAG_H_ */
