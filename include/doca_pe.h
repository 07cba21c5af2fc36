/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress engine (PE) and the generic task API of DOCA Core.
 *
 * Object model.  A struct doca_pe drives any number of contexts (struct doca_ctx:
 * a DMA engine, an RDMA endpoint, a sync event...).  A context is connected to
 * exactly one PE with doca_pe_connect_ctx() before it is started, and stays
 * connected until the context is destroyed.  Each context hands out tasks
 * (struct doca_task) from pools sized by its *_set_conf() functions.
 *
 * Call order:
 *   doca_pe_create -> doca_pe_connect_ctx(ctx...) -> doca_ctx_start -> task alloc ->
 *   doca_task_submit -> loop { doca_pe_progress } -> doca_ctx_stop -> ctx destroy ->
 *   doca_pe_destroy
 *
 * Completion callbacks and context state callbacks run only on the thread that
 * calls doca_pe_progress() (or doca_ctx_start()/doca_ctx_stop(), which report
 * their own transitions synchronously), never asynchronously.  A callback may
 * free its task, resubmit it (possibly after changing it), submit other tasks and
 * stop the context; it must not call doca_pe_progress() again.
 *
 * A PE is not thread-safe: use it from one thread at a time.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;
struct doca_task;
struct doca_task_batch;

/* Largest number of tasks one batch may carry. */
enum doca_task_batch_max_tasks_number {
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_16 = 0,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_32 = 1,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_64 = 2,
	DOCA_TASK_BATCH_MAX_TASKS_NUMBER_128 = 3,
};

/* Number of events reported together by an event batch. */
enum doca_event_batch_events_number {
	DOCA_EVENT_BATCH_EVENTS_NUMBER_1 = 0,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_2 = 1,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_4 = 2,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_8 = 3,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_16 = 4,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_32 = 5,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_64 = 6,
	DOCA_EVENT_BATCH_EVENTS_NUMBER_128 = 7,
};

/* Flags of doca_task_submit_ex() (hints; softdoca accepts and ignores them). */
enum doca_task_submit_flag {
	DOCA_TASK_SUBMIT_FLAG_NONE = 0U,
	DOCA_TASK_SUBMIT_FLAG_FLUSH = 1U << 0,
	DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = 1U << 1,
};

/* Which contexts doca_pe_progress() visits after an event wake-up (stored only). */
enum doca_pe_event_mode {
	DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE,
	DOCA_PE_EVENT_MODE_PROGRESS_ALL,
};

/*
 * Completion callback of a task (success or error).  task_user_data is the task's
 * user data, ctx_user_data the user data of the task's context.
 */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

/*
 * Create a progress engine.
 * Returns SUCCESS, INVALID_VALUE (pe NULL), NO_MEMORY, OPERATING_SYSTEM (no
 * eventfd/epoll fd could be created).
 */
DOCA_STABLE doca_error_t doca_pe_create(struct doca_pe **pe);

/*
 * Destroy a progress engine.
 * Returns SUCCESS, INVALID_VALUE, IN_USE (contexts are still connected: destroy
 * them first).
 */
DOCA_STABLE doca_error_t doca_pe_destroy(struct doca_pe *pe);

/*
 * Progress every connected context once and run the callbacks of the tasks that
 * completed.  Returns 1 when anything happened (a task callback ran, a context
 * changed state STARTING->RUNNING or STOPPING->IDLE, a backend produced an event),
 * 0 otherwise (also for pe NULL and for a recursive call, both logged).
 */
DOCA_STABLE uint8_t doca_pe_progress(struct doca_pe *pe);

/*
 * The PE's notification handle: a file descriptor (an epoll fd) that becomes
 * readable (EPOLLIN) after doca_pe_request_notification() once there is
 * something to progress.  It stays owned by the PE; do not close it.
 * Returns SUCCESS, INVALID_VALUE.
 */
DOCA_STABLE doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);

/*
 * Arm the notification handle before sleeping on it.  If work is already
 * pending the handle becomes readable at once.  Returns SUCCESS, INVALID_VALUE.
 */
DOCA_STABLE doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/*
 * Disarm after a wake-up (consumes the pending notification).  handle is not
 * checked: any value is accepted.  Returns SUCCESS, INVALID_VALUE (pe NULL).
 */
DOCA_STABLE doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/*
 * Tasks submitted to any context of this PE whose callback has not run yet.
 * Returns SUCCESS, INVALID_VALUE.
 */
DOCA_STABLE doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/* Record the event mode (softdoca progresses every context either way).  SUCCESS, INVALID_VALUE. */
DOCA_EXPERIMENTAL doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode);

/*
 * Connect an IDLE context to the PE, for the context's whole life.
 * Returns SUCCESS, INVALID_VALUE, NOT_PERMITTED (already connected to a PE),
 * BAD_STATE (context not IDLE).
 */
DOCA_STABLE doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/*
 * Submit a task without validating its parameters (use doca_task_try_submit()
 * for that).  On failure the caller still owns the task and may retry.
 * Returns SUCCESS, INVALID_VALUE (task NULL or not allocated), BAD_STATE (context
 * not RUNNING, or task already submitted), AGAIN (queue full: progress, then
 * retry), or an error of the context type.
 */
DOCA_STABLE doca_error_t doca_task_submit(struct doca_task *task);

/* doca_task_submit() with enum doca_task_submit_flag hints.  Same return values. */
DOCA_EXPERIMENTAL doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/*
 * Validate the task's parameters (buffers, sizes, permissions), then submit it.
 * Returns what doca_task_submit() returns, plus INVALID_VALUE and the context
 * type's validation errors (NOT_PERMITTED, ...).
 */
DOCA_STABLE doca_error_t doca_task_try_submit(struct doca_task *task);

/* Task batches: not provided by softdoca; every call returns NOT_SUPPORTED (logged). */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_submit(struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_try_submit(struct doca_task_batch *task_batch);

/*
 * Return a task to its context's pool.  Legal inside its completion callback.
 * The task's memory stays readable until the pool hands it out again.  Freeing
 * an in-flight task is refused (logged) and the task stays in flight.
 */
DOCA_STABLE void doca_task_free(struct doca_task *task);

DOCA_EXPERIMENTAL void doca_task_batch_free(struct doca_task_batch *task_batch);

/* SUCCESS or the error the task completed with; meaningful in its callbacks. */
DOCA_STABLE doca_error_t doca_task_get_status(const struct doca_task *task);

DOCA_STABLE void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);
DOCA_STABLE union doca_data doca_task_get_user_data(const struct doca_task *task);
DOCA_STABLE struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

/* Batch getters: no batch can exist in softdoca; they return neutral values. */
DOCA_EXPERIMENTAL doca_error_t doca_task_batch_get_status(const struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL void doca_task_batch_set_user_data(struct doca_task_batch *task_batch, union doca_data user_data);
DOCA_EXPERIMENTAL union doca_data doca_task_batch_get_user_data(const struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL struct doca_ctx *doca_task_batch_get_ctx(const struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL union doca_data doca_task_batch_get_ctx_user_data(const struct doca_task_batch *task_batch);
DOCA_EXPERIMENTAL uint16_t doca_task_batch_get_tasks_num(struct doca_task_batch *task_batch);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
