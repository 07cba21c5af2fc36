/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDOCA_STRICT=1 (docs/diagnostics.md "Strict mode"): DOCA's sanitizer.
 * Misuse that hardware tolerates and DOCA leaves undefined keeps its quiet,
 * memory-safe default; in strict mode each case is one [ERR] line
 * "[softdoca-strict] <rule>: <object>; ... at <call site>" and the process
 * prints a count per rule at exit.
 *
 * Cost when off: the hooks sit in cold branches (a task freed in flight, a
 * refused mmap destroy, a nested progress) or behind one test of ctx->diag
 * (SD_DIAG_STRICT, diag.h) or of sd_strict_on (progress, buf release).
 * Bookkeeping (a buf's in-flight uses, a PE's owner thread) exists only in
 * strict mode.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_STRICT_H_
#define SD_STRICT_H_

#include <stdbool.h>

#include "ctx_internal.h"

struct doca_buf_inventory;
struct doca_mmap;
struct doca_pe;

enum sd_strict_rule {
	SD_STRICT_TASK_FREED_IN_FLIGHT,
	SD_STRICT_BUF_RELEASED_IN_FLIGHT,
	SD_STRICT_MMAP_UNDER_BUFS,
	SD_STRICT_CROSS_DEVICE,
	SD_STRICT_COPY_OVERLAP,
	SD_STRICT_PROGRESS_REENTRY,
	SD_STRICT_CONCURRENT_PE,
	SD_STRICT_NUM_RULES,
};

/* SOFTDOCA_STRICT=1, set once by diag.c's knob reading (sd_strict_enable) before any object exists. */
extern bool sd_strict_on;

/* The application's call site: evaluate it in the public entry point (or an always_inline helper of it). */
#define SD_STRICT_CALLER() __builtin_return_address(0)

/* diag.c, SOFTDOCA_STRICT=1: turn the hooks on and register the report at exit. */
void sd_strict_enable(void);

/* One violation: count it and log "[softdoca-strict] <rule>: <object ...>; <fix> at <caller>". */
void sd_strict_report(enum sd_strict_rule rule, const void *caller, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* doca_task_free() of a task in flight; dropped: the backend let go of it (the free goes ahead). */
void sd_strict_task_freed(struct doca_task *task, bool dropped, const void *caller);

/* A submit (ctx->diag has SD_DIAG_STRICT): the buf rules before the backend sees the task. */
void sd_strict_submit_check(struct doca_task *task, const void *caller);
/* The task is in flight: count it as a use of its bufs until its flight ends (sd_strict_untrack). */
void sd_strict_track(struct doca_task *task);
void sd_strict_untrack(struct doca_task *task);

/* doca_buf_dec_refcount() brought buf to 0 (sd_strict_on). */
void sd_strict_buf_release(const struct doca_buf *buf, const void *caller);
/*
 * doca_buf_inventory_destroy() with every buf free: true (reported, the destroy is refused) when a
 * released buf is still used by a submitted task, which the default would free under the task.
 */
bool sd_strict_inventory_in_use(const struct doca_buf_inventory *inv, const void *caller);
/* doca_mmap_destroy/stop() found bufs alive (refused, as by default). */
void sd_strict_mmap_in_use(const struct doca_mmap *mmap, const char *api, const void *caller);

/*
 * A PE's progress or submit begins / ends (sd_strict_on).  enter returns true when this
 * call took the PE (leave it after); false when it was already this thread's (a callback
 * submitting) or another thread's (reported: concurrent use without the PE's lock).
 */
bool sd_strict_pe_enter(struct doca_pe *pe, const char *api, const void *caller);
void sd_strict_pe_leave(struct doca_pe *pe);

#endif /* SD_STRICT_H_ */
