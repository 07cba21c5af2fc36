/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver-facing interface of the DMA engines (docs/architecture.md §1, §3): the facade in
 * dma.c / dma_task_memcpy.c validates a task and hands it to one engine as a job;
 * the engine copies and reports the job back.  Engines trust their input.
 *
 * Nothing here depends on the ctx/task machinery of core, so each engine can be
 * driven alone by the engine contract suite (tests/unit/dma).
 */
#ifndef SD_DMA_ENGINE_H_
#define SD_DMA_ENGINE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <doca_error.h>

#include "../core/sd_core.h"
#include "../util/sd_util.h"

/*
 * One memcpy as an engine sees it.  The facade fills src, dst and len (the total source
 * bytes, already checked to fit the destination's tail room, within the caps and with
 * the right permissions); the engine sets status and links the job into the done
 * queue.  While a job is owned by an engine nobody else touches it or its buffers.
 */
struct sd_dma_job {
	const struct doca_buf *src;
	struct doca_buf *dst;
	uint64_t len;
	doca_error_t status;
	struct sd_dma_job *next; /* FIFO link, owned by whoever holds the job */
};

/* Singly linked FIFO of jobs (no allocation, O(1) append and pop). */
struct sd_dma_jobq {
	struct sd_dma_job *head;
	struct sd_dma_job **tail;
	uint32_t count;
};

static inline void
sd_dma_jobq_init(struct sd_dma_jobq *q)
{
	q->head = NULL;
	q->tail = &q->head;
	q->count = 0;
}

static inline void
sd_dma_jobq_push(struct sd_dma_jobq *q, struct sd_dma_job *job)
{
	job->next = NULL;
	*q->tail = job;
	q->tail = &job->next;
	q->count++;
}

static inline struct sd_dma_job *
sd_dma_jobq_pop(struct sd_dma_jobq *q)
{
	struct sd_dma_job *job = q->head;

	if (job == NULL)
		return NULL;
	q->head = job->next;
	if (q->head == NULL)
		q->tail = &q->head;
	q->count--;
	return job;
}

/* Move every job of src to the end of dst; src becomes empty. */
static inline void
sd_dma_jobq_splice(struct sd_dma_jobq *dst, struct sd_dma_jobq *src)
{
	if (src->head == NULL)
		return;
	*dst->tail = src->head;
	dst->tail = src->tail;
	dst->count += src->count;
	sd_dma_jobq_init(src);
}

/* Move the first n jobs of src, the last of which is last, to the end of dst. */
static inline void
sd_dma_jobq_splice_head(struct sd_dma_jobq *dst, struct sd_dma_jobq *src, struct sd_dma_job *last, uint32_t n)
{
	if (last->next == NULL) {
		sd_dma_jobq_splice(dst, src);
		return;
	}
	*dst->tail = src->head;
	dst->tail = &last->next;
	dst->count += n;
	src->head = last->next;
	src->count -= n;
	last->next = NULL;
}

struct sd_dma_engine_conf {
	uint32_t depth;		   /* most jobs an engine owns at once (enqueue -> AGAIN past it) */
	doca_error_t flush_status; /* status of jobs dropped by flush */
	/* Completions became ready on another thread (worker); callable from any thread. */
	void (*wake)(void *arg);
	void *wake_arg;
	/*
	 * xproc: is the export behind a PCI_REMOTE mmap still standing (key, range, live)?
	 * Called before the first job of a poll batch touches that mmap; logs its own
	 * refusals.  NULL: no check (engine tests with hand-made mmaps).
	 */
	doca_error_t (*check_remote)(const struct doca_mmap *mmap);
	/*
	 * inline, xproc: one poll() stops starting jobs once it has copied this many bytes
	 * (at least one job per poll), so one doca_pe_progress() call stays short however
	 * much is queued.  0: no limit (a poll runs the whole queue).
	 */
	uint64_t poll_budget;
};

struct sd_dma_engine;

struct sd_dma_engine_ops {
	const char *name;
	doca_error_t (*create)(const struct sd_dma_engine_conf *conf, struct sd_dma_engine **eng);
	/* The engine owns no job (everything reported); stops threads, frees. */
	void (*destroy)(struct sd_dma_engine *eng);
	/* Take a job: SUCCESS, or AGAIN when depth jobs are owned already. */
	doca_error_t (*enqueue)(struct sd_dma_engine *eng, struct sd_dma_job *job);
	/* Append finished jobs (in FIFO order) to done; returns how many. Caller's thread only. */
	unsigned (*poll)(struct sd_dma_engine *eng, struct sd_dma_jobq *done);
	/* Jobs not started yet finish with conf.flush_status (reported by later polls). */
	void (*flush)(struct sd_dma_engine *eng);
	/* Every job was reported after a flush: release threads, accept jobs again. */
	void (*quiesce)(struct sd_dma_engine *eng);
	/* Would poll() report something, or does it have work to run in poll()? */
	bool (*pending)(struct sd_dma_engine *eng);
};

/* Common head of every engine object (each engine embeds it first). */
struct sd_dma_engine {
	const struct sd_dma_engine_ops *ops;
	struct sd_dma_engine_conf conf;
};

/* Copies inside poll(), on the caller's thread: small tasks, no syscall, no lock. */
extern const struct sd_dma_engine_ops sd_dma_engine_inline_ops;
/* Copies on a worker thread fed through SPSC rings: large tasks, deep queues. */
extern const struct sd_dma_engine_ops sd_dma_engine_worker_ops;
/* process_vm_readv/writev for memory of another process (from-export PCI mmaps). */
extern const struct sd_dma_engine_ops sd_dma_engine_xproc_ops;

/*
 * Scatter-gather walking (dma_sg.c).
 *
 * A source window of a segment is [data, data + data_len); a destination window is its
 * tail room [data + data_len, head + len).  A cursor walks the windows of one list.
 */
struct sd_dma_sg_cur {
	const struct doca_buf *seg;
	size_t off; /* bytes of seg's window already consumed */
	bool tail;  /* walking tail rooms (destination) instead of data windows */
};

void sd_dma_sg_cur_init(struct sd_dma_sg_cur *cur, const struct doca_buf *list, bool tail);
/*
 * Describe the next (at most) len bytes of the cursor as at most max iovecs, without
 * advancing.  Returns the number of iovecs; *bytes receives the bytes they cover.
 */
int sd_dma_sg_cur_iov(const struct sd_dma_sg_cur *cur, size_t len, struct iovec *iov, int max, size_t *bytes);
void sd_dma_sg_cur_advance(struct sd_dma_sg_cur *cur, size_t n);

/* Grow the destination segments' data_len by len bytes in order (after a copy of len). */
void sd_dma_sg_commit(struct doca_buf *dst, uint64_t len);

/* Copy len source bytes into the destination's tail room and commit; lists of local memory. */
void sd_dma_sg_copy_list(const struct doca_buf *src, struct doca_buf *dst, uint64_t len);

/*
 * Copy len source bytes into the destination's tail room and commit; all local memory.
 * Inline for the common one-segment case (the inline engine's hot loop).  memmove:
 * DOCA allows overlapping buffers.
 */
static inline void
sd_dma_sg_copy(const struct doca_buf *src, struct doca_buf *dst, uint64_t len)
{
	if (sd_likely(sd_buf_next(src) == NULL && sd_buf_next(dst) == NULL)) {
		memmove(sd_buf_data(dst) + sd_buf_data_len(dst), sd_buf_data(src), len);
		sd_buf_add_data_len(dst, len);
	} else {
		sd_dma_sg_copy_list(src, dst, len);
	}
}

/* Worker threshold and knobs shared by the facade and the benchmark (docs/dma.md). */
#define SD_DMA_WORKER_MIN_BYTES (256u * 1024u) /* auto: tasks this large may go to the worker */
#define SD_DMA_WORKER_MIN_CPUS 3u	       /* auto: ... when the process may run on this many CPUs */
#define SD_DMA_EVENT_POLLS 16u		       /* auto: ... or progress ran at most this often since an arm */
#define SD_DMA_POLL_BUDGET (1024u * 1024u)     /* bytes one progress call copies inline / xproc */
#define SD_DMA_DEFAULT_DEPTH 1024u	       /* per-ctx queue depth (SOFTDOCA_DMA_QUEUE_DEPTH) */

#endif /* SD_DMA_ENGINE_H_ */
