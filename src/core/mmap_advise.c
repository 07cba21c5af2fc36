/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_mmap_advise: a context on Core's machinery (the shape of src/dma/dma.c,
 * through sd_core.h only) with one task, cache invalidate.  The task is checked
 * as hardware would check it (buffer held, local memory, LOCAL_READ_WRITE, the
 * context's device added to the mmap, size) and then done at submit: the soft
 * device writes memory through this CPU's coherent caches, so no line can be
 * stale and the invalidate is a full memory barrier.  The completion is
 * reported by the next doca_pe_progress(), like every task (docs/memory.md
 * "Cache invalidate").
 */
#include <stdatomic.h>
#include <stdlib.h>

#include <doca_mmap_advise.h>

#include "sd_core.h"

SD_LOG_REGISTER(core.mmap_advise);

/* No DOCA call reports a task limit for this context: ample for any pool. */
#define ADVISE_MAX_TASKS (1u << 16)

struct doca_mmap_advise {
	struct doca_ctx ctx; /* first: doca_mmap_advise_as_ctx() */
	struct sd_task_pool *invalidate_pool;
	const struct sd_dev_caps *caps; /* the device's, read-only */
};

struct doca_mmap_advise_task_invalidate_cache {
	struct doca_task task; /* first: doca_mmap_advise_task_invalidate_cache_as_doca_task() */
	struct doca_buf *buf;
};

/* Why a task cannot run: Core's buf faults, then the context's own (refusal.h). */
enum refusal {
	OK = SD_BUF_OK,
	BUF_RELEASED = SD_BUF_RELEASED,
	OUTSIDE_MMAP = SD_BUF_OUTSIDE_MMAP,
	NO_LOCAL_WRITE = SD_BUF_NO_LOCAL_WRITE,
	NO_BUF = SD_BUF_NUM_FAULTS,
	NOT_LOCAL,
	DEV_NOT_ADDED,
	EMPTY,
	TOO_BIG,
	NUM_REFUSALS,
};

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}

static const struct sd_refusal advise_refusals[NUM_REFUSALS] = {
	[NO_BUF] = ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task has no buffer; give it one with "
						 "doca_mmap_advise_task_invalidate_cache_set_buf()"),
	[NOT_LOCAL] = ROW(DOCA_ERROR_NOT_SUPPORTED,
			  "{api}: {task} task's buffer lies in an mmap created from an export (another process's "
			  "memory); invalidate caches in the process that owns the memory, over its own mmap"),
	[DEV_NOT_ADDED] = ROW(DOCA_ERROR_NOT_PERMITTED,
			      "{api}: {task} task's buffer lies in an mmap the context's device was not added to; call "
			      "doca_mmap_add_dev() with that device before doca_mmap_start()"),
	[EMPTY] = ROW(DOCA_ERROR_INVALID_VALUE,
		      "{api}: {task} task's buffer holds no data (data_len 0): nothing to invalidate; set its data "
		      "window with doca_buf_set_data() or take it with doca_buf_inventory_buf_get_by_data()"),
	[TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
			"{api}: {task} task's buffer holds {a} bytes, more than max_buf_size {b}; split it over "
			"several tasks (doca_mmap_advise_task_cache_invalidate_get_max_buf_size)"),
};

static inline struct doca_mmap_advise *
advise_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct doca_mmap_advise, ctx);
}

/* v's status, logged by the log-once rule; returned: the caller gets it (always at ERR). */
static doca_error_t
log_refusal(struct doca_mmap_advise *adv, const char *api, const struct sd_buf_verdict *v, bool returned)
{
	SD_REFUSAL_LOG(&adv->ctx, advise_refusals, api, "cache invalidate", v, !returned);
	return sd_refusal_status(advise_refusals, v);
}

/* Everything hardware would refuse about buf: true if it may run, else false and v says why. */
static bool
check_buf(const struct doca_mmap_advise *adv, const struct doca_buf *buf, struct sd_buf_verdict *v)
{
	uint64_t bytes = 0;

	if (buf == NULL)
		return sd_buf_refuse(v, NO_BUF, NULL, 0, 0, 0);
	if (!sd_buf_check_held(buf, "buffer", v))
		return false;
	for (const struct doca_buf *seg = buf; seg != NULL; seg = sd_buf_next(seg)) {
		const struct doca_mmap *m = sd_buf_mmap(seg);

		if (sd_mmap_kind(m) != SD_MMAP_LOCAL)
			return sd_buf_refuse(v, NOT_LOCAL, "buffer", 0, 0, 0);
		/* Dropping cache lines may drop bytes written through them: the memory must be writable. */
		if (!sd_buf_check_seg(seg, true, "buffer", v))
			return false;
		if (!sd_mmap_has_dev(m, sd_ctx_dev(&adv->ctx)))
			return sd_buf_refuse(v, DEV_NOT_ADDED, "buffer", 0, 0, 0);
		bytes += sd_buf_data_len(seg);
	}
	if (bytes == 0)
		return sd_buf_refuse(v, EMPTY, "buffer", 0, 0, 0);
	if (bytes > adv->caps->cache_invalidate_max_buf_size)
		return sd_buf_refuse(v, TOO_BIG, "buffer", bytes, adv->caps->cache_invalidate_max_buf_size, 0);
	return true;
}

/* --- ctx ops ------------------------------------------------------------------------ */

static doca_error_t
advise_start(struct doca_ctx *ctx, bool *running)
{
	if (advise_from_ctx(ctx)->invalidate_pool == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: mmap advise context has no task type enabled; call "
			     "doca_mmap_advise_task_invalidate_cache_set_conf() before doca_ctx_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	/* Nothing to connect: IDLE -> RUNNING directly (DOCA's sample logs an error on STARTING). */
	*running = true;
	return DOCA_SUCCESS;
}

static doca_error_t
advise_submit(struct doca_task *task)
{
	struct doca_mmap_advise_task_invalidate_cache *t = (struct doca_mmap_advise_task_invalidate_cache *)task;
	struct doca_mmap_advise *adv = advise_from_ctx(sd_task_ctx(task));
	struct sd_buf_verdict v;

	if (sd_unlikely(!check_buf(adv, t->buf, &v))) {
		/* No buffer to report against: the submitter keeps the task. */
		if (v.why == NO_BUF)
			return log_refusal(adv, "doca_task_submit", &v, true);
		/* A data fault, found when the engine reaches the task: reported in order, the ctx stops. */
		sd_task_fail_in_order(task, log_refusal(adv, "doca_task_submit", &v, false));
		return DOCA_SUCCESS;
	}
	/*
	 * The invalidate: every store the soft device made reached memory through this
	 * CPU's coherent caches, so there is no stale line; what remains is the ordering
	 * hardware's completion gives (reads after the callback see the device's writes).
	 */
	atomic_thread_fence(memory_order_seq_cst);
	sd_task_complete(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static doca_error_t
advise_validate(struct doca_task *task)
{
	struct doca_mmap_advise_task_invalidate_cache *t = (struct doca_mmap_advise_task_invalidate_cache *)task;
	struct doca_mmap_advise *adv = advise_from_ctx(sd_task_ctx(task));
	struct sd_buf_verdict v;

	if (check_buf(adv, t->buf, &v))
		return DOCA_SUCCESS;
	return log_refusal(adv, "doca_task_try_submit", &v, true);
}

/* Tasks complete at submit: nothing is ever queued, so progress, flush and arm keep Core's defaults. */
static const struct sd_ctx_ops advise_ctx_ops = {
	.name = "mmap_advise",
	.start = advise_start,
	.submit = advise_submit,
	.validate = advise_validate,
};

/* --- context ------------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise)
{
	struct doca_mmap_advise *adv;

	if (dev == NULL || mmap_advise == NULL) {
		DOCA_LOG_ERR("doca_mmap_advise_create: NULL argument (dev %p, mmap_advise %p)", (void *)dev,
			     (void *)mmap_advise);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(sd_dev_devinfo(dev))->cache_invalidate) {
		DOCA_LOG_ERR("doca_mmap_advise_create: device %s (%s) cannot invalidate caches; pick a device for "
			     "which doca_mmap_advise_cap_task_cache_invalidate_is_supported() returns DOCA_SUCCESS",
			     sd_devinfo_pci_addr(sd_dev_devinfo(dev)), sd_devinfo_ibdev_name(sd_dev_devinfo(dev)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	adv = calloc(1, sizeof(*adv));
	if (adv == NULL) {
		DOCA_LOG_ERR("doca_mmap_advise_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	adv->caps = sd_devinfo_caps(sd_dev_devinfo(dev));
	sd_ctx_init(&adv->ctx, &advise_ctx_ops, dev);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*mmap_advise = adv;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise)
{
	doca_error_t err;

	if (mmap_advise == NULL) {
		DOCA_LOG_ERR("doca_mmap_advise_destroy: mmap_advise is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE unless IDLE (logged by Core). */
	err = sd_ctx_fini(&mmap_advise->ctx, "doca_mmap_advise_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_dev_put(sd_ctx_dev(&mmap_advise->ctx));
	free(mmap_advise);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise)
{
	if (mmap_advise == NULL) {
		DOCA_LOG_ERR("doca_mmap_advise_as_ctx: mmap_advise is NULL");
		return NULL;
	}
	return &mmap_advise->ctx;
}

/* --- capabilities ----------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_mmap_advise_cap_task_cache_invalidate_is_supported: devinfo is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* An expected answer for device filters: not logged as an error. */
	return sd_devinfo_caps(devinfo)->cache_invalidate ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size)
{
	static const char api[] = "doca_mmap_advise_task_cache_invalidate_get_max_buf_size";

	if (devinfo == NULL || buf_size == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, buf_size %p)", api, (const void *)devinfo,
			     (void *)buf_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(devinfo)->cache_invalidate) {
		DOCA_LOG_ERR("%s: device %s cannot invalidate caches; check "
			     "doca_mmap_advise_cap_task_cache_invalidate_is_supported() first",
			     api, sd_devinfo_pci_addr(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*buf_size = sd_devinfo_caps(devinfo)->cache_invalidate_max_buf_size;
	return DOCA_SUCCESS;
}

/* --- the cache invalidate task ---------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_invalidate_cache_set_conf(struct doca_mmap_advise *mmap_advise,
						doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
						doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb,
						uint32_t num_tasks)
{
	static const char api[] = "doca_mmap_advise_task_invalidate_cache_set_conf";

	if (mmap_advise == NULL || completion_cb == NULL || error_cb == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (mmap_advise %p, completion cb %s, error cb %s); both callbacks are "
			     "required",
			     api, (void *)mmap_advise, completion_cb ? "set" : "NULL", error_cb ? "set" : "NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* DOCA's code for this context is NOT_PERMITTED (Core's pools say BAD_STATE). */
	if (sd_ctx_state(&mmap_advise->ctx) != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("%s: the mmap advise context is not IDLE; configure its tasks before doca_ctx_start() "
			     "or after doca_ctx_stop()",
			     api);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return sd_task_pool_configure(&mmap_advise->ctx, &mmap_advise->invalidate_pool, "cache invalidate",
				      sizeof(struct doca_mmap_advise_task_invalidate_cache), num_tasks,
				      ADVISE_MAX_TASKS, SD_TASK_CB(completion_cb), SD_TASK_CB(error_cb), api);
}

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_invalidate_cache_alloc_init(struct doca_mmap_advise *mmap_advise, struct doca_buf *buf,
						  union doca_data user_data,
						  struct doca_mmap_advise_task_invalidate_cache **task)
{
	static const char api[] = "doca_mmap_advise_task_invalidate_cache_alloc_init";
	struct doca_task *base;
	doca_error_t err;

	if (mmap_advise == NULL || task == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (mmap_advise %p, task %p)", api, (void *)mmap_advise, (void *)task);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(mmap_advise->invalidate_pool, user_data, api, &base);
	if (err != DOCA_SUCCESS)
		return err;
	*task = (struct doca_mmap_advise_task_invalidate_cache *)base;
	(*task)->buf = buf;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_task *
doca_mmap_advise_task_invalidate_cache_as_doca_task(struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task == NULL ? NULL : &task->task;
}

DOCA_EXPERIMENTAL void
doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
					       struct doca_buf *buf)
{
	if (task == NULL) {
		DOCA_LOG_ERR("doca_mmap_advise_task_invalidate_cache_set_buf: task is NULL");
		return;
	}
	task->buf = buf;
}

DOCA_EXPERIMENTAL struct doca_buf *
doca_mmap_advise_task_invalidate_cache_get_buf(const struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task == NULL ? NULL : task->buf;
}
