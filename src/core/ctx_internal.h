/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic context / task / progress-engine machinery that DMA, RDMA and
 * sync-event contexts plug into (docs/architecture.md §1, §5).
 *
 * A backend object embeds struct doca_ctx first and fills a static const
 * struct sd_ctx_ops.  Core owns the state machine, task pools, in-flight
 * accounting, completion reporting and notification; the backend owns its queues
 * and engines.
 *
 * State machine (callback fired on every edge, synchronously, in order):
 *
 *   IDLE --doca_ctx_start--> [STARTING] --sd_ctx_set_running--> RUNNING
 *   RUNNING|STARTING --doca_ctx_stop, nothing in flight----------> IDLE
 *   RUNNING|STARTING --doca_ctx_stop with tasks in flight,
 *                      task failed, sd_ctx_fail-----------------> STOPPING
 *   STOPPING --(progress) in-flight drops to 0-------------------------> IDLE
 *
 * Task life: alloc from the ctx's pool -> submit (in flight) -> the backend
 * calls sd_task_complete() from its progress op -> core invokes the success or
 * error callback from doca_pe_progress() (in flight drops just before the
 * callback; a task a graph submitted completes into its graph instance instead,
 * graph_internal.h) -> doca_task_free() returns it to the pool.  Pool memory is freed only
 * with the ctx, so a freed task stays readable until it is allocated again.
 *
 * Threading: everything here runs on the thread that calls the DOCA API for this
 * PE, except sd_pe_wake(), which any thread may call.
 *
 * Stopping and failure: a task completed with an error while the ctx is RUNNING
 * sets ctx->failed (a hint in-order backends may use to flush the rest at once);
 * after that task's error callback the ctx moves RUNNING -> STOPPING by itself
 * (ops->flush is called) and reaches IDLE when its in-flight count drops to 0.
 * While the ctx is STOPPING (stop, failure or sd_ctx_fail), core reports every
 * task whose backend status is SUCCESS as SD_TASK_FLUSH_STATUS through the error
 * callback: DOCA counts completed-but-unreported tasks as in flight and flushes
 * them.  See docs/pe-ctx.md.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_CTX_INTERNAL_H_
#define SD_CTX_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "../util/sd_util.h"
#include "fault_parse.h"

struct sd_task_pool;
struct doca_buf;
struct sd_graph_slot;
struct sd_diag_stats;
struct sd_trace_track;

/* ctx->hold_seq when no failed task waits for earlier ones. */
#define SD_NO_HOLD UINT64_MAX

/* Status given to tasks flushed by a stop or by an earlier task's failure. */
#define SD_TASK_FLUSH_STATUS DOCA_ERROR_IO_FAILED

struct doca_task {
	struct doca_ctx *SD_CORE_PRIVATE(ctx);
	struct sd_task_pool *SD_CORE_PRIVATE(pool);
	union doca_data SD_CORE_PRIVATE(user_data);
	doca_error_t SD_CORE_PRIVATE(status);
	struct sd_list SD_CORE_PRIVATE(link); /* pool free list, backend queues, ctx completion queue */
	uint64_t SD_CORE_PRIVATE(seq);	      /* submission order within the ctx (in-order failure delivery) */
	/* The graph instance node this task runs for, while in flight; NULL (the pool's calloc) otherwise. */
	struct sd_graph_slot *SD_CORE_PRIVATE(graph_slot);
	bool SD_CORE_PRIVATE(allocated);
	bool SD_CORE_PRIVATE(in_flight);
	/* Diagnostics (diag.h), read only while ctx->diag != 0: submit time; a delayed completion's due time. */
	uint64_t SD_CORE_PRIVATE(diag_t0);
	uint64_t SD_CORE_PRIVATE(diag_due);
	/* Strict mode (strict.h), while in flight: the bufs whose in-flight uses this task counts. */
	struct doca_buf *SD_CORE_PRIVATE(strict_bufs)[2];
};

/* One pool per task type of a context (DMA memcpy, RDMA send, ...). */
struct sd_task_pool {
	struct doca_ctx *SD_CORE_PRIVATE(ctx);
	size_t SD_CORE_PRIVATE(task_size); /* sizeof the backend task struct, which starts with struct doca_task */
	uint32_t SD_CORE_PRIVATE(num_tasks);
	uint32_t SD_CORE_PRIVATE(num_allocated);
	void *SD_CORE_PRIVATE(storage);
	struct sd_list SD_CORE_PRIVATE(free_list);
	doca_task_completion_cb_t SD_CORE_PRIVATE(success_cb);
	doca_task_completion_cb_t SD_CORE_PRIVATE(error_cb);
	const char *SD_CORE_PRIVATE(name); /* "memcpy", "send", ... for log lines */
};

/* What a task reads and writes, for strict mode's buf rules (strict.h); heads of lists, NULL: none. */
struct sd_task_bufs {
	const struct doca_buf *src;
	const struct doca_buf *dst;
	bool copy; /* src's data is copied into dst's tail room: the overlap rule applies */
};

/*
 * Every slot may be NULL: sd_ctx_init() copies the table into ctx->run_ops with
 * core's defaults in the empty slots (start: straight to RUNNING; flush, stopped:
 * nothing; progress: 0; submit: NOT_SUPPORTED, logged; validate: SUCCESS; arm,
 * drop: false; bufs: none), so no call site tests for NULL.
 */
struct sd_ctx_ops {
	const char *name; /* "dma", "rdma", ... */
	/*
	 * doca_ctx_start() accepted the request (ctx still IDLE).  Return SUCCESS and
	 * set *running to go straight to RUNNING, or clear it to enter STARTING and
	 * call sd_ctx_set_running() later from the progress op.  IN_PROGRESS also
	 * enters STARTING and doca_ctx_start() returns it (DOCA's Comch client and
	 * consumer do).  Another error leaves the ctx IDLE and is returned by
	 * doca_ctx_start().
	 */
	doca_error_t (*start)(struct doca_ctx *ctx, bool *running);
	/*
	 * The ctx entered STOPPING: complete every task still queued or running
	 * with SD_TASK_FLUSH_STATUS (now, or from later progress calls).
	 */
	void (*flush)(struct doca_ctx *ctx);
	/* The ctx reached IDLE: release what start acquired (pins, threads, ...). */
	void (*stopped)(struct doca_ctx *ctx);
	/* Make progress; return the number of events produced (completions, ...). */
	unsigned (*progress)(struct doca_ctx *ctx);
	/*
	 * Queue a task that core accepted (ctx RUNNING).  SUCCESS: it is in flight and
	 * will be completed through sd_task_complete().  AGAIN: queue full (core
	 * logs it at DBG).  Any other error is returned to the submitter, who keeps
	 * the task; the backend logs that refusal itself.
	 */
	doca_error_t (*submit)(struct doca_task *task);
	/* Full validation for doca_task_try_submit(): INVALID_VALUE etc., logged. */
	doca_error_t (*validate)(struct doca_task *task);
	/*
	 * The application is about to sleep on the PE's notification handle.  Return
	 * true when work is already pending (the PE then wakes at once).  Work that
	 * arrives later must call sd_pe_wake() after making itself visible (release
	 * store or lock), so that either arm sees it or the wake finds the PE armed.
	 */
	bool (*arm)(struct doca_ctx *ctx);
	/*
	 * doca_task_free() of a task in flight (submitted, its callback not yet run).
	 * Return true when the backend let go of it: the task is out of every queue the
	 * backend completes from and it will never be completed, so core ends its flight
	 * and frees it.  false (default) keeps the refusal (logged) and the task stays in
	 * flight.  A backend saying yes never passes the task to sd_task_fail_in_order().
	 * Only the Comch consumer's post_recv does: DOCA programs free their posted
	 * receives before they stop the consumer (docs/comch.md).
	 */
	bool (*drop)(struct doca_task *task);
	/* Strict mode only (SOFTDOCA_STRICT=1, strict.h): fill what the task reads and writes. */
	void (*bufs)(const struct doca_task *task, struct sd_task_bufs *bufs);
	/*
	 * A SUCCESS from this backend is final even once the ctx is STOPPING: its tasks
	 * finish when handed over (a Comch message is in the peer's queue at submit), so a
	 * stop must not report them as flushed.  false (default): core flushes every
	 * task reported while STOPPING, as DOCA does for engines with work in flight.
	 */
	bool success_survives_stop;
	/*
	 * SOFTDOCA_FAULTS <lib>.peer=vanish (optional, docs/diagnostics.md): every
	 * connection of the ctx loses its peer through the backend's own path for a
	 * peer process that died (its callbacks and errors follow from progress).
	 * Called once per ctx.  Without it the ctx fails (sd_ctx_fail()).
	 */
	void (*vanish)(struct doca_ctx *ctx);
};

struct doca_ctx {
	const struct sd_ctx_ops *SD_CORE_PRIVATE(ops); /* as given to sd_ctx_init() (identifies the type) */
	struct sd_ctx_ops SD_CORE_PRIVATE(run_ops);    /* ops with defaults filled in: what core calls */
	struct doca_dev *SD_CORE_PRIVATE(dev);
	struct doca_pe *SD_CORE_PRIVATE(pe);
	struct sd_list SD_CORE_PRIVATE(pe_link); /* in pe->ctxs */
	enum doca_ctx_states SD_CORE_PRIVATE(state);
	doca_ctx_state_changed_callback_t SD_CORE_PRIVATE(state_cb);
	union doca_data SD_CORE_PRIVATE(user_data);
	struct sd_task_pool *SD_CORE_PRIVATE(pools)[16];
	uint32_t SD_CORE_PRIVATE(num_pools);
	size_t SD_CORE_PRIVATE(num_inflight);	   /* submitted, callback not yet invoked */
	struct sd_list SD_CORE_PRIVATE(completed); /* tasks completed, callback not yet invoked */
	/*
	 * In-order failure delivery (sd_task_fail_in_order): tasks submitted and not
	 * yet completed by the backend; while a failed task waits for the tasks
	 * submitted before it, hold_seq is its seq, ahead the number of those still
	 * running, and held the failed task plus every later task that finished,
	 * in submission order.
	 */
	uint64_t SD_CORE_PRIVATE(next_seq);
	size_t SD_CORE_PRIVATE(num_running);
	uint64_t SD_CORE_PRIVATE(hold_seq); /* SD_NO_HOLD when nothing is held */
	size_t SD_CORE_PRIVATE(ahead);
	struct sd_list SD_CORE_PRIVATE(held);
	/* doca_pe_progress() call (pe->generation) during which STOPPING began; 0: outside */
	uint64_t SD_CORE_PRIVATE(stop_generation);
	bool SD_CORE_PRIVATE(failed); /* a task failed while RUNNING, or sd_ctx_fail();
				       * cleared at start */
	uint64_t SD_CORE_PRIVATE(
		refusals_logged); /* bit per refusal reason logged at ERR this run (refusal.h); cleared at start */
	uint32_t SD_CORE_PRIVATE(graph_refs); /* graphs with a node of this ctx: sd_ctx_fini refuses IN_USE */
	/*
	 * Diagnostics (diag.h): SD_DIAG_* bits set at start from SOFTDOCA_FAULTS/TRACE/STATS/STRICT; 0 when every
	 * knob is off, and the hot path's only cost is the test of this byte.  lib names the library in
	 * fault rules ("dma", "comch", "sha"); delayed holds completions an injected delay postpones.
	 */
	uint8_t SD_CORE_PRIVATE(diag);
	const char *SD_CORE_PRIVATE(lib);
	uint32_t SD_CORE_PRIVATE(diag_rules); /* bit per fault rule whose library matches */
	struct sd_list SD_CORE_PRIVATE(delayed);
	struct sd_diag_stats *SD_CORE_PRIVATE(stats);
	struct sd_trace_track *SD_CORE_PRIVATE(trace); /* its SOFTDOCA_TRACE track (trace.c), from the first start */
};

/*
 * Backend object setup/teardown.  sd_ctx_fini() -> BAD_STATE unless IDLE, IN_USE
 * while a graph has a node of the ctx (both logged with api); on SUCCESS it
 * disconnects the ctx from its PE and frees its task pools (tasks still
 * allocated go with them).  It may be called from any callback
 * of the PE, including the ctx's own IDLE state callback inside
 * doca_pe_progress(): the PE's walk skips a ctx that leaves it.  The backend then
 * frees its object, so nothing may touch the ctx after its IDLE callback.
 */
SD_EXPORT void sd_ctx_init(struct doca_ctx *ctx, const struct sd_ctx_ops *ops, struct doca_dev *dev);
SD_EXPORT doca_error_t sd_ctx_fini(struct doca_ctx *ctx, const char *api);

/*
 * Configure a task pool (the *_set_conf functions).  BAD_STATE unless IDLE,
 * INVALID_VALUE for num_tasks == 0 or over max_tasks; reconfiguring an existing
 * pool with no allocated task replaces it.  *pool is created on first call.
 */
SD_EXPORT doca_error_t sd_task_pool_configure(struct doca_ctx *ctx, struct sd_task_pool **pool, const char *name,
					      size_t task_size, uint32_t num_tasks, uint32_t max_tasks,
					      doca_task_completion_cb_t success_cb, doca_task_completion_cb_t error_cb,
					      const char *api);

/*
 * Allocate a task (the *_alloc_init functions).  NULL pool -> BAD_STATE ("call
 * *_set_conf first"), exhausted -> NO_MEMORY; both logged with api.  The returned
 * task has ctx, pool and user_data set; the backend part is NOT cleared.
 */
SD_EXPORT doca_error_t sd_task_alloc(struct sd_task_pool *pool, union doca_data user_data, const char *api,
				     struct doca_task **task);

/*
 * Backend: the task finished with this status.  Callable only from
 * ops->progress/flush/submit (the PE's thread).  Unlinks task->link from whatever
 * list holds it and queues the task for its callback; it stays in flight until
 * the callback is invoked from doca_pe_progress().
 */
SD_EXPORT void sd_task_complete(struct doca_task *task, doca_error_t status);

/*
 * Backend, from ops->submit only (the task is the newest of its ctx): the task
 * cannot run for a reason DOCA would find only when executing it (a data fault:
 * empty source, range, permission...).  It is reported with this status after
 * every task submitted before it has been reported; tasks submitted after it that
 * finish earlier are held back and reported after it (core flushes them, since
 * the failure stops the ctx).  doca_task_submit() still returns SUCCESS.
 */
SD_EXPORT void sd_task_fail_in_order(struct doca_task *task, doca_error_t status);

/* Backend: STARTING -> RUNNING (ignored, logged at DBG, in any other state). */
SD_EXPORT void sd_ctx_set_running(struct doca_ctx *ctx);

/*
 * Backend: the ctx hit a fatal error (e.g. peer gone): RUNNING/STARTING -> STOPPING
 * with flush; IDLE follows from progress once nothing is in flight.  Ignored in
 * IDLE and STOPPING.
 */
SD_EXPORT void sd_ctx_fail(struct doca_ctx *ctx);

/*
 * Backend: a connection event of ctx ("connection established", "disconnected", ...;
 * id names the connection) for SOFTDOCA_TRACE's timeline (docs/diagnostics.md).
 * Only a test of ctx's diagnostics byte when no trace is written.
 */
SD_EXPORT void sd_diag_event(struct doca_ctx *ctx, const char *what, uint64_t id);

/* Wake the PE's notification handle (thread-safe; no-op when nobody waits). */
SD_EXPORT void sd_pe_wake(struct doca_pe *pe);

/* Let the PE's notification handle also wake on fd (EPOLLIN), e.g. a UCX worker fd. */
SD_EXPORT doca_error_t sd_pe_add_wake_fd(struct doca_pe *pe, int fd);
SD_EXPORT void sd_pe_del_wake_fd(struct doca_pe *pe, int fd);

/*
 * A library's *_create, before it allocates: true when SOFTDOCA_FAULTS asks this
 * create to fail (<lib>.create=nomem); the line is logged and the caller returns
 * DOCA_ERROR_NO_MEMORY.  lib is the rule's library name ("dma", "comch", ...).
 */
SD_EXPORT bool sd_fault_create(const char *lib, const char *api);

/*
 * Fault injection on operations that are not Core tasks (Verbs work requests,
 * docs/diagnostics.md), with the rules, seed and log lines of the tasks'.
 * sd_fault_watch: the rules that act on lib's objects on devinfo (a bit each;
 * 0 when none, or SOFTDOCA_FAULTS is off), taken once when an object is made:
 * its hot path tests that word only.
 */
struct doca_devinfo;
SD_EXPORT uint32_t sd_fault_watch(const char *lib, const struct doca_devinfo *devinfo);

struct sd_fault_op {
	enum sd_fault_phase phase; /* SD_FAULT_AT_SUBMIT (a post) or SD_FAULT_AT_COMPLETE */
	const char *names[3];	   /* the operation's names, most specific first ("write_imm", "write", "post_send") */
	bool failed;		   /* a completion that already failed: error kinds let it be */
	const char *who, *what;	   /* for the log line: "verbs QP 17", "write work request 0x2a" */
	const char *again;	   /* what AGAIN means to the caller: "post returns ENOMEM (nothing queued)" */
	const char *(*status_str)(doca_error_t status); /* an error kind's status as the library reports it */
};

struct sd_fault_hit {
	doca_error_t status; /* DOCA_ERROR_AGAIN (a post), an error kind's status, or DOCA_SUCCESS */
	uint64_t delay_ns;   /* the completion waits this long (0: not delayed) */
};

/* One operation: true when a rule of rules hit it (*hit says how; each hit logged). */
SD_EXPORT bool sd_fault_op(uint32_t rules, const struct sd_fault_op *op, struct sd_fault_hit *hit);
/*
 * A down (dev.<device>) or vanish (<lib>.peer) rule of rules whose moment came:
 * its status (DOCA_ERROR_DRIVER, DOCA_ERROR_CONNECTION_RESET), logged naming
 * who; DOCA_SUCCESS while none did.
 */
SD_EXPORT doca_error_t sd_fault_lost(uint32_t rules, const struct doca_devinfo *devinfo, const char *lib,
				     const char *who);

/* Cast a backend's typed completion callback to the generic type core stores. */
#define SD_TASK_CB(cb) ((doca_task_completion_cb_t)(void (*)(void))(cb))

#endif /* SD_CTX_INTERNAL_H_ */
