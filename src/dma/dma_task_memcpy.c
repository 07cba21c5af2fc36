/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA memcpy task: its API, the validation shared by doca_task_submit() (whose
 * refusals become the task's completion status, in submission order) and doca_task_try_submit() (which
 * returns them), the choice of an engine, and the pinning of every mmap a task
 * touches while the context runs.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "../core/sd_core.h"
#include "dma_internal.h"

SD_LOG_REGISTER(dma.task);

/*
 * Why a task cannot run: the buf faults DMA shares with RDMA (buf_check.h),
 * then DMA's own; each has one row in dma_refusals (refusal.h).
 */
enum refusal {
	OK = SD_BUF_OK,
	BUF_RELEASED = SD_BUF_RELEASED,
	LIST_TOO_LONG = SD_BUF_LIST_TOO_LONG, /* a: source segments, b: the limit, c: destination segments */
	OUTSIDE_MMAP = SD_BUF_OUTSIDE_MMAP,
	DST_NO_LOCAL_WRITE = SD_BUF_NO_LOCAL_WRITE,
	DST_TOO_SMALL = SD_BUF_NO_ROOM,
	NO_SRC = SD_BUF_NUM_FAULTS,
	NO_DST,
	SRC_TOO_BIG,
	DST_TOO_BIG,
	SRC_EMPTY,
	RDMA_MMAP,
	MIXED_PROCESSES,
	SRC_NO_PCI_READ,
	DST_NO_PCI_WRITE,
	NUM_REFUSALS,
};

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}

/* Indexed by reason; a buf fault without a row here is Core's. */
static const struct sd_refusal dma_refusals[NUM_REFUSALS] = {
	/* DMA's limit counts both lists: its own line */
	[LIST_TOO_LONG] =
		ROW(DOCA_ERROR_INVALID_VALUE,
		    "{api}: {a} source + {c} destination segments exceed max_buf_list_len {b}; split the copy "
		    "into more tasks (doca_dma_cap_task_memcpy_get_max_buf_list_len)"),
	[NO_SRC] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no source buffer; set one with doca_dma_task_memcpy_set_src()"),
	[NO_DST] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no destination buffer; set one with doca_dma_task_memcpy_set_dst()"),
	[SRC_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
			    "{api}: source holds {a} bytes, more than max_buf_size {b}; split the copy "
			    "(doca_dma_cap_task_memcpy_get_max_buf_size)"),
	[DST_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
			    "{api}: destination buffer spans {a} bytes, more than max_buf_size {b}; use a smaller "
			    "destination (doca_dma_cap_task_memcpy_get_max_buf_size)"),
	[SRC_EMPTY] = ROW(DOCA_ERROR_INVALID_VALUE,
			  "{api}: source holds no data (data_len 0); set its data window with doca_buf_set_data() or "
			  "take it with doca_buf_inventory_buf_get_by_data()"),
	[RDMA_MMAP] = ROW(DOCA_ERROR_NOT_PERMITTED,
			  "{api}: a {what} segment lives in an RDMA export (doca_mmap_export_rdma); DMA reaches only "
			  "local memory and PCI exports, use doca_rdma for RDMA peers"),
	[MIXED_PROCESSES] = ROW(DOCA_ERROR_NOT_SUPPORTED,
				"{api}: the {what} list mixes memory of different processes (pid {a} and {b}); use one "
				"task per process"),
	[SRC_NO_PCI_READ] = ROW(DOCA_ERROR_NOT_PERMITTED,
				"{api}: the source is another process's export without PCI read permission "
				"(permissions 0x{ax}); the exporter must set DOCA_ACCESS_FLAG_PCI_READ_ONLY or "
				"PCI_READ_WRITE before doca_mmap_export_pci()"),
	[DST_NO_PCI_WRITE] =
		ROW(DOCA_ERROR_NOT_PERMITTED,
		    "{api}: the destination is another process's export without "
		    "DOCA_ACCESS_FLAG_PCI_READ_WRITE (permissions 0x{ax}); the exporter must grant it before "
		    "doca_mmap_export_pci()"),
};

static inline doca_error_t
refusal_status(unsigned int why)
{
	const struct sd_buf_verdict v = {.why = why};

	return sd_refusal_status(dma_refusals, &v);
}

/* A refusal of v, logged by the log-once rule (refusal.h); returned: the caller gets it (always at ERR). */
static void
log_refusal(struct doca_dma *dma, const char *api, const struct sd_buf_verdict *v, bool returned)
{
	SD_REFUSAL_LOG(&dma->ctx, dma_refusals, api, "memcpy", v, !returned);
}

static inline doca_error_t
refuse(struct sd_buf_verdict *v, enum refusal why, const char *what, uint64_t a, uint64_t b, uint64_t c)
{
	sd_buf_refuse(v, why, what, a, b, c);
	return refusal_status(why);
}

/* The process a segment's memory belongs to: 0 for ours. */
static inline pid_t
seg_pid(const struct doca_buf *seg)
{
	return sd_mmap_pci_pid(sd_buf_mmap(seg));
}

/* Count segments, stopping past limit (lists are short; the bound keeps it so). */
static inline uint32_t
count_segs(const struct doca_buf *list, uint32_t limit)
{
	uint32_t n = 0;

	for (; list != NULL && n <= limit; list = sd_buf_next(list))
		n++;
	return n;
}

/* What alloc_init can see: list lengths and sizes of the buffers given. */
static doca_error_t
check_shape(const struct doca_dma *dma, const struct doca_buf *src, const struct doca_buf *dst,
	    struct sd_buf_verdict *v)
{
	const struct sd_dev_caps *caps = dma->caps;
	uint32_t nsrc = count_segs(src, caps->dma_max_buf_list_len);
	uint32_t ndst = count_segs(dst, caps->dma_max_buf_list_len);
	uint64_t bytes = 0;

	/* The limit is on both lists together. */
	if ((uint64_t)nsrc + ndst > caps->dma_max_buf_list_len)
		return refuse(v, LIST_TOO_LONG, NULL, nsrc, caps->dma_max_buf_list_len, ndst);
	for (const struct doca_buf *b = src; b != NULL; b = sd_buf_next(b))
		bytes += sd_buf_data_len(b);
	if (bytes > caps->dma_max_buf_size)
		return refuse(v, SRC_TOO_BIG, "source", bytes, caps->dma_max_buf_size, 0);
	bytes = 0;
	for (const struct doca_buf *b = dst; b != NULL; b = sd_buf_next(b))
		bytes += sd_buf_len(b);
	if (bytes > caps->dma_max_buf_size)
		return refuse(v, DST_TOO_BIG, "destination", bytes, caps->dma_max_buf_size, 0);
	return DOCA_SUCCESS;
}

/*
 * Range, permission and process checks of one list; *pid is the list's process.
 * Range and local write permission are buf_check.h's; PCI exports are DMA's.
 */
static doca_error_t
check_access(const struct doca_buf *list, bool is_dst, pid_t *pid, struct sd_buf_verdict *v)
{
	const char *what = is_dst ? "destination" : "source";

	*pid = seg_pid(list);
	for (const struct doca_buf *b = list; b != NULL; b = sd_buf_next(b)) {
		const struct doca_mmap *m = sd_buf_mmap(b);
		uint32_t perms = sd_mmap_permissions(m);

		if (sd_unlikely(!sd_buf_check_seg(b, is_dst, what, v)))
			return refusal_status(v->why);
		if (sd_mmap_kind(m) == SD_MMAP_PCI_REMOTE) {
			if (is_dst && !(perms & DOCA_ACCESS_FLAG_PCI_READ_WRITE))
				return refuse(v, DST_NO_PCI_WRITE, what, perms, 0, 0);
			if (!is_dst && !(perms & (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)))
				return refuse(v, SRC_NO_PCI_READ, what, perms, 0, 0);
		} else if (sd_unlikely(sd_mmap_kind(m) != SD_MMAP_LOCAL)) {
			return refuse(v, RDMA_MMAP, what, 0, 0, 0);
		}
		if (sd_unlikely(seg_pid(b) != *pid))
			return refuse(v, MIXED_PROCESSES, what, (uint64_t)*pid, (uint64_t)seg_pid(b), 0);
	}
	return DOCA_SUCCESS;
}

/* The engine of a local copy of len bytes. */
static inline enum sd_dma_engine_id
local_engine(const struct doca_dma *dma, uint64_t len)
{
	switch (dma->mode) {
	case SD_DMA_MODE_INLINE:
		return SD_DMA_ENGINE_INLINE;
	case SD_DMA_MODE_WORKER:
		return SD_DMA_ENGINE_WORKER;
	case SD_DMA_MODE_XPROC:
		return SD_DMA_ENGINE_XPROC;
	default:
		/*
		 * The worker only pays when its copy runs in parallel with the application:
		 * the process may use enough CPUs for a busy-polling application thread and
		 * the worker (and whatever else runs), or the application sleeps on the
		 * notification handle between progress calls.  Otherwise the worker waits
		 * for a core the polling thread holds, and copying inside progress is
		 * strictly better (measurements in docs/dma.md).  Inline copies stay short
		 * per progress call through the engines' poll budget.
		 */
		if (len >= dma->worker_min_bytes && (dma->ncpus >= dma->worker_min_cpus ||
						     (dma->ncpus >= 2 && dma->polls_since_arm <= SD_DMA_EVENT_POLLS)))
			return SD_DMA_ENGINE_WORKER;
		return SD_DMA_ENGINE_INLINE;
	}
}

/*
 * Everything about a task that submit needs: NULL buffers, shape, permissions, room.
 * On SUCCESS job->len is set and *engine names the engine that will run it.
 */
static doca_error_t
check_task(const struct doca_dma *dma, struct sd_dma_job *job, struct sd_buf_verdict *v, enum sd_dma_engine_id *engine)
{
	const struct doca_buf *src = job->src;
	const struct doca_buf *dst = job->dst;
	uint64_t bytes, room;
	pid_t spid, dpid;
	doca_error_t err;

	if (sd_unlikely(src == NULL))
		return refuse(v, NO_SRC, "source", 0, 0, 0);
	if (sd_unlikely(dst == NULL))
		return refuse(v, NO_DST, "destination", 0, 0, 0);
	if (sd_unlikely(!sd_buf_check_held(src, "source", v) || !sd_buf_check_held(dst, "destination", v)))
		return refusal_status(v->why);

	if (sd_likely(sd_buf_next(src) == NULL && sd_buf_next(dst) == NULL)) {
		/* One segment each: the hot path, without the list walks. */
		if (sd_unlikely(dma->caps->dma_max_buf_list_len < 2))
			return refuse(v, LIST_TOO_LONG, NULL, 1, dma->caps->dma_max_buf_list_len, 1);
		bytes = sd_buf_data_len(src);
		if (sd_unlikely(bytes > dma->caps->dma_max_buf_size))
			return refuse(v, SRC_TOO_BIG, "source", bytes, dma->caps->dma_max_buf_size, 0);
		if (sd_unlikely(sd_buf_len(dst) > dma->caps->dma_max_buf_size))
			return refuse(v, DST_TOO_BIG, "destination", sd_buf_len(dst), dma->caps->dma_max_buf_size, 0);
		room = sd_buf_tail_room(dst);
	} else {
		err = check_shape(dma, src, dst, v);
		if (err != DOCA_SUCCESS)
			return err;
		bytes = sd_buf_list_data_len(src);
		room = sd_buf_list_tail_room(dst);
	}
	if (sd_unlikely(bytes == 0))
		return refuse(v, SRC_EMPTY, "source", 0, 0, 0);
	err = check_access(src, false, &spid, v);
	if (sd_unlikely(err != DOCA_SUCCESS))
		return err;
	err = check_access(dst, true, &dpid, v);
	if (sd_unlikely(err != DOCA_SUCCESS))
		return err;
	if (sd_unlikely(!sd_buf_check_room(room, bytes, "destination", v)))
		return refusal_status(v->why);

	job->len = bytes;
	*engine = (spid != 0 || dpid != 0) ? SD_DMA_ENGINE_XPROC : local_engine(dma, bytes);
	return DOCA_SUCCESS;
}

/* ---- pins ---------------------------------------------------------------------- */

static doca_error_t
pin_slow(struct doca_dma *dma, struct doca_mmap *mmap)
{
	for (uint32_t i = 0; i < dma->num_pinned; i++)
		if (dma->pinned[i] == mmap)
			goto hint;
	if (dma->num_pinned == dma->cap_pinned) {
		uint32_t cap = dma->cap_pinned ? dma->cap_pinned * 2 : 8;
		struct doca_mmap **p = realloc(dma->pinned, cap * sizeof(*p));

		if (p == NULL) {
			DOCA_LOG_ERR("doca_task_submit: out of memory tracking the mmaps of a DMA context");
			return DOCA_ERROR_NO_MEMORY;
		}
		dma->pinned = p;
		dma->cap_pinned = cap;
	}
	sd_mmap_pin(mmap);
	dma->pinned[dma->num_pinned++] = mmap;
hint:
	dma->pin_hint[1] = dma->pin_hint[0];
	dma->pin_hint[0] = mmap;
	return DOCA_SUCCESS;
}

/* Pin every mmap of a list for as long as the ctx runs (unpinned when it is IDLE). */
static inline doca_error_t
pin_list(struct doca_dma *dma, const struct doca_buf *list)
{
	for (; list != NULL; list = sd_buf_next(list)) {
		struct doca_mmap *m = sd_buf_mmap(list);
		doca_error_t err;

		if (sd_likely(m == dma->pin_hint[0] || m == dma->pin_hint[1]))
			continue;
		err = pin_slow(dma, m);
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

void
sd_dma_unpin_all(struct doca_dma *dma)
{
	for (uint32_t i = 0; i < dma->num_pinned; i++)
		sd_mmap_unpin(dma->pinned[i]);
	dma->num_pinned = 0;
	dma->pin_hint[0] = dma->pin_hint[1] = NULL;
	dma->fast_src[0] = dma->fast_src[1] = NULL;
	dma->fast_dst = NULL;
}

/* ---- ctx ops: submit and validate ---------------------------------------------- */

/*
 * The hot path: one local segment on each side, in mmaps this run already checked
 * and pinned.  Anything else (including every refusal) takes check_task().
 */
static inline bool
fast_check(struct doca_dma *dma, struct sd_dma_job *job, enum sd_dma_engine_id *engine)
{
	const struct doca_buf *s = job->src;
	const struct doca_buf *d = job->dst;
	uint64_t len, room, max = dma->caps->dma_max_buf_size;

	if (s == NULL || d == NULL || sd_buf_next(s) != NULL || sd_buf_next(d) != NULL)
		return false;
	if ((sd_buf_mmap(s) != dma->fast_src[0] && sd_buf_mmap(s) != dma->fast_src[1]) ||
	    sd_buf_mmap(d) != dma->fast_dst)
		return false;
	len = sd_buf_data_len(s);
	room = sd_buf_tail_room(d);
	/* len - 1 wraps for 0: an empty source also takes the slow path (to be reported). */
	if (len - 1 >= room || len > max || sd_buf_len(d) > max || sd_buf_refcount(s) == 0 || sd_buf_refcount(d) == 0)
		return false;
	if (!sd_mmap_contains(sd_buf_mmap(s), sd_buf_head(s), sd_buf_len(s)) ||
	    !sd_mmap_contains(sd_buf_mmap(d), sd_buf_head(d), sd_buf_len(d)))
		return false;
	job->len = len;
	*engine = local_engine(dma, len);
	return true;
}

/* After a slow-path success: remember single local segments' mmaps for fast_check. */
static inline void
learn_fast(struct doca_dma *dma, const struct sd_dma_job *job)
{
	const struct doca_buf *s = job->src, *d = job->dst;

	if (dma->caps->dma_max_buf_list_len < 2 || sd_buf_next(s) != NULL || sd_buf_next(d) != NULL)
		return;
	/* check_task() accepted them: local kinds are readable; a local dst is writable. */
	if (sd_mmap_kind(sd_buf_mmap(s)) == SD_MMAP_LOCAL && sd_buf_mmap(s) != dma->fast_src[0]) {
		dma->fast_src[1] = dma->fast_src[0];
		dma->fast_src[0] = sd_buf_mmap(s);
	}
	if (sd_mmap_kind(sd_buf_mmap(d)) == SD_MMAP_LOCAL)
		dma->fast_dst = sd_buf_mmap(d);
}

/* Hand a checked job to its engine. */
static inline doca_error_t
enqueue_job(struct doca_dma *dma, struct sd_dma_job *job, enum sd_dma_engine_id id)
{
	struct sd_dma_engine *eng = dma->engines[id];
	doca_error_t err = eng->ops->enqueue(eng, job);

	if (sd_unlikely(err != DOCA_SUCCESS)) {
		DOCA_LOG_DBG("doca_task_submit: DMA %s engine refused the task: %s; call doca_pe_progress() and retry",
			     eng->ops->name, doca_error_get_name(err));
		return err;
	}
	dma->used_engines |= 1u << id;
	dma->queued++;
	return DOCA_SUCCESS;
}

/* Everything but the hot path: full check, refusal as completion status, pins. */
static __attribute__((noinline, cold)) doca_error_t
submit_slow(struct doca_dma *dma, struct doca_dma_task_memcpy *t)
{
	enum sd_dma_engine_id id = SD_DMA_ENGINE_INLINE;
	struct sd_buf_verdict v;
	doca_error_t err;

	err = check_task(dma, &t->job, &v, &id);
	if (err != DOCA_SUCCESS) {
		/* No buffer to report against: the submitter keeps the task. */
		if (v.why == NO_SRC || v.why == NO_DST) {
			log_refusal(dma, "doca_task_submit", &v, true);
			return err;
		}
		/*
		 * A data fault, which hardware finds when its engine reaches the task:
		 * accepted, and reported through the error callback after every task
		 * submitted before it (then the context stops and flushes the rest).
		 */
		log_refusal(dma, "doca_task_submit", &v, false);
		sd_task_fail_in_order(&t->task, err);
		return DOCA_SUCCESS;
	}
	err = pin_list(dma, t->job.src);
	if (err == DOCA_SUCCESS)
		err = pin_list(dma, t->job.dst);
	if (err != DOCA_SUCCESS)
		return err;
	learn_fast(dma, &t->job);
	return enqueue_job(dma, &t->job, id);
}

doca_error_t
sd_dma_task_submit(struct doca_task *task)
{
	struct doca_dma_task_memcpy *t = (struct doca_dma_task_memcpy *)task;
	struct doca_dma *dma = sd_dma_from_ctx(sd_task_ctx(task));
	enum sd_dma_engine_id id;

	if (sd_unlikely(dma->queued >= dma->depth)) {
		DOCA_LOG_DBG("doca_task_submit: DMA queue full (%u tasks queued); call doca_pe_progress() and retry",
			     dma->queued);
		return DOCA_ERROR_AGAIN;
	}
	if (sd_likely(fast_check(dma, &t->job, &id)))
		return enqueue_job(dma, &t->job, id);
	return submit_slow(dma, t);
}

doca_error_t
sd_dma_task_validate(struct doca_task *task)
{
	struct doca_dma_task_memcpy *t = (struct doca_dma_task_memcpy *)task;
	struct doca_dma *dma = sd_dma_from_ctx(sd_task_ctx(task));
	enum sd_dma_engine_id id;
	struct sd_buf_verdict v;
	doca_error_t err;

	err = check_task(dma, &t->job, &v, &id);
	if (err != DOCA_SUCCESS)
		log_refusal(dma, "doca_task_try_submit", &v, true);
	return err;
}

void
sd_dma_task_bufs(const struct doca_task *task, struct sd_task_bufs *bufs)
{
	const struct doca_dma_task_memcpy *t = (const struct doca_dma_task_memcpy *)task;

	bufs->src = t->job.src;
	bufs->dst = t->job.dst;
	bufs->copy = true;
}

/* ---- task API ------------------------------------------------------------------- */

DOCA_STABLE doca_error_t
doca_dma_task_memcpy_set_conf(struct doca_dma *dma, doca_dma_task_memcpy_completion_cb_t task_completion_cb,
			      doca_dma_task_memcpy_completion_cb_t task_error_cb, uint32_t num_memcpy_tasks)
{
	if (dma == NULL || task_completion_cb == NULL || task_error_cb == NULL) {
		DOCA_LOG_ERR("doca_dma_task_memcpy_set_conf: NULL argument (dma %p, completion cb %s, error cb %s); "
			     "both callbacks are required",
			     (void *)dma, task_completion_cb ? "set" : "NULL", task_error_cb ? "set" : "NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_task_pool_configure(&dma->ctx, &dma->memcpy_pool, "memcpy", sizeof(struct doca_dma_task_memcpy),
				      num_memcpy_tasks, dma->caps->dma_max_num_tasks, SD_TASK_CB(task_completion_cb),
				      SD_TASK_CB(task_error_cb), "doca_dma_task_memcpy_set_conf");
}

DOCA_STABLE doca_error_t
doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src, struct doca_buf *dst,
				union doca_data user_data, struct doca_dma_task_memcpy **task)
{
	struct doca_task *base;
	struct sd_buf_verdict v;
	doca_error_t err;

	if (sd_unlikely(dma == NULL || task == NULL)) {
		DOCA_LOG_ERR("doca_dma_task_memcpy_alloc_init: NULL argument (dma %p, task %p)", (void *)dma,
			     (void *)task);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_unlikely(src != NULL &&
			(sd_buf_next(src) != NULL || sd_buf_data_len(src) > dma->caps->dma_max_buf_size)) ||
	    sd_unlikely(dst != NULL && (sd_buf_next(dst) != NULL || sd_buf_len(dst) > dma->caps->dma_max_buf_size)) ||
	    sd_unlikely(dma->caps->dma_max_buf_list_len < 2)) {
		err = check_shape(dma, src, dst, &v);
		if (err != DOCA_SUCCESS) {
			log_refusal(dma, "doca_dma_task_memcpy_alloc_init", &v, true);
			return err;
		}
	}
	err = sd_task_alloc(dma->memcpy_pool, user_data, "doca_dma_task_memcpy_alloc_init", &base);
	if (sd_unlikely(err != DOCA_SUCCESS))
		return err;
	*task = (struct doca_dma_task_memcpy *)base;
	(*task)->job.src = src;
	(*task)->job.dst = dst;
	return DOCA_SUCCESS;
}

DOCA_STABLE struct doca_task *
doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task)
{
	return task == NULL ? NULL : &task->task;
}

DOCA_STABLE void
doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src)
{
	if (task == NULL) {
		DOCA_LOG_ERR("doca_dma_task_memcpy_set_src: task is NULL");
		return;
	}
	task->job.src = src;
}

DOCA_STABLE const struct doca_buf *
doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task)
{
	return task == NULL ? NULL : task->job.src;
}

DOCA_STABLE void
doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst)
{
	if (task == NULL) {
		DOCA_LOG_ERR("doca_dma_task_memcpy_set_dst: task is NULL");
		return;
	}
	task->job.dst = dst;
}

DOCA_STABLE struct doca_buf *
doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task)
{
	return task == NULL ? NULL : task->job.dst;
}
