/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The acceleration engines' context (docs/engines.md): what Compress, SHA,
 * Erasure Coding and AES-GCM share.  A library's context embeds struct
 * sd_accel first (so its doca_ctx is the accel's), and each of its task
 * structs embeds struct sd_accel_task first (so its doca_task is the accel
 * task's).  Each task family is a struct sd_accel_kind: how to check a task
 * at submit and how to run it.
 *
 * The engine, like hardware beside the CPU: a task is checked on the
 * submitter's thread (a refusal is logged there, by the library's table), then
 * run either inline, inside doca_pe_progress() (small tasks, or every task
 * when SOFTDOCA_ENGINE_WORKERS=0), or by a worker of the process's engine pool
 * (accel_pool.c: SOFTDOCA_ENGINE_WORKERS threads, default one per CPU the
 * process may use; idle workers sleep).  Completions are delivered by
 * doca_pe_progress() in submission order, whichever thread ran the task, so
 * callbacks come in the order a hardware queue gives and results do not depend
 * on the worker count.  A task that fails stops its context, as on hardware
 * (Core flushes the rest, ctx_internal.h).
 *
 * Threads: sd_accel_* calls and kind->check run on the PE's thread; kind->run
 * runs on a worker or on the PE's thread, and touches only its task, the task's
 * buffers and what the library made immutable before start (keys, matrices).
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_ACCEL_INTERNAL_H_
#define SD_ACCEL_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_ctx.h>

/* Reached through sd_core.h, after the buf checks and refusal tables it uses. */
#include "sd_core.h"

struct sd_accel_task;

/* One task family: its checks, its work and its refusal lines. */
struct sd_accel_kind {
	const char *name;		   /* "compress deflate": {task} in log lines */
	const struct sd_refusal *refusals; /* the library's table (refusal.h), indexed by verdict reason */
	/*
	 * Reasons (bit per verdict reason) for which doca_task_submit returns the
	 * error and the submitter keeps the task (no buffer to report against);
	 * every other refusal is a data fault, accepted and failed in order.
	 */
	uint64_t keep_mask;
	/*
	 * PE thread, at submit and try_submit: everything hardware checks before it
	 * runs the task (buffers held and inside their mmaps, permissions, sizes,
	 * parameters).  true: it may run; false: v says why.  Logs nothing.
	 */
	bool (*check)(struct sd_accel_task *t, struct sd_buf_verdict *v);
	/*
	 * Any thread: do the work and write the outputs (a destination's data_len
	 * grows by what was produced).  true on success; false and v when the data
	 * makes the task fail (a corrupt stream, no room for the output, a wrong
	 * tag): the verdict is rendered with the library's table on the PE's thread.
	 * Logs nothing.
	 */
	bool (*run)(struct sd_accel_task *t, struct sd_buf_verdict *v);
	/* Bytes the task reads (inline below the engine's threshold, else a worker). */
	uint64_t (*cost)(const struct sd_accel_task *t);
};

/* Where a task is between submit and its delivery. */
enum sd_accel_state {
	SD_ACCEL_QUEUED,  /* accepted, not started */
	SD_ACCEL_RUNNING, /* a worker or progress runs it */
	SD_ACCEL_DONE,	  /* finished (or flushed): status and verdict are final */
};

struct sd_accel_task {
	struct doca_task task; /* first: the library's *_as_task() */
	const struct sd_accel_kind *kind;
	struct sd_accel *accel;
	_Atomic int state;	 /* enum sd_accel_state; DONE is stored with release */
	doca_error_t status;	 /* valid once DONE */
	struct sd_buf_verdict v; /* why it failed (status != SUCCESS), rendered at delivery */
	struct sd_list order;	 /* in accel->order: submitted, not delivered (PE thread) */
	struct sd_list queue;	 /* in accel->inline_q or the pool's queue while QUEUED */
};

struct sd_accel {
	struct doca_ctx ctx;	       /* first: the library's *_as_ctx() */
	const char *what;	       /* "compress", "SHA": the context in log lines */
	int log_source;		       /* the library's (refusal and failure lines are its own) */
	struct sd_list order;	       /* tasks in submission order, until delivered */
	struct sd_list inline_q;       /* tasks progress runs itself */
	uint64_t inline_max;	       /* tasks costing at most this run inline */
	bool use_pool;		       /* SOFTDOCA_ENGINE_WORKERS > 0 at start */
	_Atomic uint32_t pool_pending; /* tasks handed to the pool, not yet DONE */
	/*
	 * Optional: doca_ctx_start() asks the library whether it may start (at
	 * least one task family configured, its own objects ready); NULL accepts.
	 * Logs its own refusal.
	 */
	doca_error_t (*may_start)(struct sd_accel *accel);
};

/*
 * Set up the context of a library object (its doca_ctx, on dev); what names it
 * in log lines ("compress"), log_source is the library file's log_source.
 */
SD_EXPORT void sd_accel_init(struct sd_accel *accel, struct doca_dev *dev, const char *what, int log_source,
			     doca_error_t (*may_start)(struct sd_accel *accel));

/* Tear down (sd_ctx_fini's rules: BAD_STATE unless IDLE, logged with api). */
SD_EXPORT doca_error_t sd_accel_fini(struct sd_accel *accel, const char *api);

/*
 * A task just taken from a pool (sd_task_alloc): bind it to its family.  The
 * library sets its own fields afterwards.
 */
static inline void
sd_accel_task_init(struct sd_accel_task *t, struct sd_accel *accel, const struct sd_accel_kind *kind)
{
	t->kind = kind;
	t->accel = accel;
}

static inline struct sd_accel *
sd_accel_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct sd_accel, ctx);
}

/*
 * Buffer lists as flat byte ranges (accel_io.c), for run(): the libraries the
 * engines call take one contiguous input and one output.  A one-segment buffer
 * is used in place; a list is gathered into (or scattered from) a bounce
 * buffer.
 */
struct sd_accel_src {
	const uint8_t *p; /* the data windows of the list, in order */
	uint64_t len;
	void *bounce; /* malloc'd when the list has several segments */
};

struct sd_accel_dst {
	struct doca_buf *list;
	uint8_t *p;   /* room for cap bytes */
	uint64_t cap; /* the tail rooms of the list (after data + data_len of each segment) */
	void *bounce; /* malloc'd when the list has several segments */
};

/* Bytes of the data windows of a list. */
SD_EXPORT uint64_t sd_accel_list_data_len(const struct doca_buf *list);
/* Bytes of the tail rooms of a list. */
SD_EXPORT uint64_t sd_accel_list_tail_room(const struct doca_buf *list);
/* false: out of memory for the bounce buffer. */
SD_EXPORT bool sd_accel_src_open(struct sd_accel_src *s, const struct doca_buf *list);
SD_EXPORT void sd_accel_src_close(struct sd_accel_src *s);
SD_EXPORT bool sd_accel_dst_open(struct sd_accel_dst *d, struct doca_buf *list);
/*
 * n bytes of the output are final (n <= cap): copy them out of the bounce
 * buffer, grow the segments' data_len in order; frees the bounce buffer.
 * n 0 and no commit: sd_accel_dst_close.
 */
SD_EXPORT void sd_accel_dst_commit(struct sd_accel_dst *d, uint64_t n);
SD_EXPORT void sd_accel_dst_close(struct sd_accel_dst *d);

/*
 * A check helper: every segment of list held (the head), inside its mmap, of
 * local memory and, for a destination, writable, at most max_segs segments,
 * the context's device added to each mmap.  Reasons are Core's buffer faults
 * (buf_check.h) and SD_ACCEL_NOT_LOCAL / SD_ACCEL_DEV_NOT_ADDED, which every
 * library's table gets from sd_accel_refusal_rows_init().
 */
enum sd_accel_fault {
	SD_ACCEL_NOT_LOCAL = SD_BUF_NUM_FAULTS, /* an mmap of another process (from an export) */
	SD_ACCEL_DEV_NOT_ADDED,			/* the context's device is not added to the mmap */
	SD_ACCEL_NUM_FAULTS,			/* a library's own reasons start here */
};

SD_EXPORT bool sd_accel_check_list(const struct sd_accel *accel, const struct doca_buf *list, bool writable,
				   uint32_t max_segs, const char *what, struct sd_buf_verdict *v);

/* Rows for SD_ACCEL_NOT_LOCAL and SD_ACCEL_DEV_NOT_ADDED, for a library's table initialiser. */
#define SD_ACCEL_REFUSAL_ROWS                                                                                          \
	[SD_ACCEL_NOT_LOCAL] = {DOCA_ERROR_NOT_SUPPORTED, false,                                                       \
				"{api}: {task} task's {what} buffer lies in an mmap created from an export "           \
				"(another process's memory); the soft engines work on this process's memory: "         \
				"copy the data here with DOCA DMA first"},                                             \
	[SD_ACCEL_DEV_NOT_ADDED] = {DOCA_ERROR_NOT_PERMITTED, false,                                                   \
				    "{api}: {task} task's {what} buffer lies in an mmap the context's device was "     \
				    "not added to; call doca_mmap_add_dev() with that device before "                  \
				    "doca_mmap_start()"}

/* Worker count of the engine pool (SOFTDOCA_ENGINE_WORKERS; 0 = inline only). */
SD_EXPORT uint32_t sd_accel_workers(void);

#endif /* SD_ACCEL_INTERNAL_H_ */
