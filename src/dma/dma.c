/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA context: creation on a DMA-capable device, capabilities, and the ctx ops
 * that core's state machine calls (start, progress, flush, stop, arm).  Tasks and
 * their validation live in dma_task_memcpy.c, the copying in the engines.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "../util/sd_env.h"
#include "dma_internal.h"

SD_LOG_REGISTER(dma);

/* CPUs this process may run on (the worker engine's choice depends on it); 1 if unknown. */
static uint32_t
usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return (uint32_t)CPU_COUNT(&set);
}

static doca_error_t
dma_start(struct doca_ctx *ctx, bool *running)
{
	struct doca_dma *dma = sd_dma_from_ctx(ctx);

	if (dma->memcpy_pool == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: DMA context has no task type enabled; call "
			     "doca_dma_task_memcpy_set_conf() before doca_ctx_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	dma->ncpus = usable_cpus();
	dma->polls_since_arm = UINT32_MAX; /* busy-polling until the application arms the PE */
	/* DMA needs no connection: IDLE -> RUNNING directly (the samples rely on it). */
	*running = true;
	return DOCA_SUCCESS;
}

static unsigned
dma_progress(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_dma_from_ctx(ctx);
	struct sd_dma_job *job, *next;
	struct sd_dma_jobq done;
	uint32_t used;

	/* Saturating: auto routing looks at it on every submit (dma_task_memcpy.c). */
	dma->polls_since_arm += dma->polls_since_arm != UINT32_MAX;
	if (dma->queued == 0)
		return 0;

	sd_dma_jobq_init(&done);
	for (used = dma->used_engines; used != 0; used &= used - 1) {
		struct sd_dma_engine *eng = dma->engines[__builtin_ctz(used)];

		eng->ops->poll(eng, &done);
	}
	dma->queued -= done.count;

	/* Read next first: a completion may (later) free and resubmit the task. */
	for (job = done.head; job != NULL; job = next) {
		next = job->next;
		sd_task_complete(&sd_dma_task_from_job(job)->task, job->status);
	}
	return done.count;
}

static void
dma_flush(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_dma_from_ctx(ctx);

	for (uint32_t used = dma->used_engines; used != 0; used &= used - 1) {
		struct sd_dma_engine *eng = dma->engines[__builtin_ctz(used)];

		eng->ops->flush(eng);
	}
}

static void
dma_stopped(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_dma_from_ctx(ctx);

	/* Every task was reported: engines own nothing; the worker thread ends here. */
	for (uint32_t used = dma->used_engines; used != 0; used &= used - 1) {
		struct sd_dma_engine *eng = dma->engines[__builtin_ctz(used)];

		eng->ops->quiesce(eng);
	}
	dma->used_engines = 0;
	sd_dma_unpin_all(dma);
}

static bool
dma_arm(struct doca_ctx *ctx)
{
	struct doca_dma *dma = sd_dma_from_ctx(ctx);

	/* The application is about to sleep on the notification handle: event mode. */
	dma->polls_since_arm = 0;
	for (uint32_t used = dma->used_engines; used != 0; used &= used - 1) {
		struct sd_dma_engine *eng = dma->engines[__builtin_ctz(used)];

		if (eng->ops->pending(eng))
			return true;
	}
	return false;
}

static const struct sd_ctx_ops dma_ctx_ops = {
	.name = "dma",
	.start = dma_start,
	.flush = dma_flush,
	.stopped = dma_stopped,
	.progress = dma_progress,
	.submit = sd_dma_task_submit,
	.validate = sd_dma_task_validate,
	.bufs = sd_dma_task_bufs,
	.arm = dma_arm,
};

/* Worker completions: wake an application sleeping on the PE's notification handle. */
static void
dma_wake(void *arg)
{
	struct doca_dma *dma = arg;

	sd_pe_wake(sd_ctx_pe(&dma->ctx));
}

/* SOFTDOCA_DMA_ENGINE: the engine every task uses, or auto (docs/dma.md, docs/knobs.md). */
static enum sd_dma_mode
env_mode(void)
{
	static const char *const names[] = {
		[SD_DMA_MODE_AUTO] = "auto",
		[SD_DMA_MODE_INLINE] = "inline",
		[SD_DMA_MODE_WORKER] = "worker",
		[SD_DMA_MODE_XPROC] = "xproc",
	};

	return (enum sd_dma_mode)sd_env_choice("SOFTDOCA_DMA_ENGINE", names, SD_ARRAY_SIZE(names), SD_DMA_MODE_AUTO);
}

static void
destroy_engines(struct doca_dma *dma)
{
	for (unsigned i = 0; i < SD_DMA_NUM_ENGINES; i++)
		if (dma->engines[i] != NULL)
			dma->engines[i]->ops->destroy(dma->engines[i]);
}

DOCA_STABLE doca_error_t
doca_dma_create(struct doca_dev *dev, struct doca_dma **dma_out)
{
	static const struct sd_dma_engine_ops *const engine_ops[SD_DMA_NUM_ENGINES] = {
		[SD_DMA_ENGINE_INLINE] = &sd_dma_engine_inline_ops,
		[SD_DMA_ENGINE_WORKER] = &sd_dma_engine_worker_ops,
		[SD_DMA_ENGINE_XPROC] = &sd_dma_engine_xproc_ops,
	};
	struct sd_dma_engine_conf conf;
	struct doca_dma *dma;
	doca_error_t err;

	if (dev == NULL || dma_out == NULL) {
		DOCA_LOG_ERR("doca_dma_create: NULL argument (dev %p, dma %p)", (void *)dev, (void *)dma_out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(sd_dev_devinfo(dev))->dma_memcpy) {
		DOCA_LOG_ERR("doca_dma_create: device %s (%s) has no DMA engine; pick a device for which "
			     "doca_dma_cap_task_memcpy_is_supported() returns DOCA_SUCCESS",
			     sd_devinfo_pci_addr(sd_dev_devinfo(dev)), sd_devinfo_ibdev_name(sd_dev_devinfo(dev)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}

	dma = sd_fault_create("dma", "doca_dma_create") ? NULL : calloc(1, sizeof(*dma));
	if (dma == NULL) {
		DOCA_LOG_ERR("doca_dma_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	dma->caps = sd_devinfo_caps(sd_dev_devinfo(dev));
	dma->mode = env_mode();
	dma->depth = (uint32_t)sd_env_u64("SOFTDOCA_DMA_QUEUE_DEPTH", SD_DMA_DEFAULT_DEPTH, 1, 1u << 20);
	dma->worker_min_bytes = sd_env_u64("SOFTDOCA_DMA_WORKER_MIN_BYTES", SD_DMA_WORKER_MIN_BYTES, 1, UINT64_MAX);
	dma->worker_min_cpus =
		(uint32_t)sd_env_u64("SOFTDOCA_DMA_WORKER_MIN_CPUS", SD_DMA_WORKER_MIN_CPUS, 1, CPU_SETSIZE);
	dma->ncpus = 1;
	dma->polls_since_arm = UINT32_MAX;

	conf = (struct sd_dma_engine_conf){
		.depth = dma->depth,
		.flush_status = SD_TASK_FLUSH_STATUS,
		.wake = dma_wake,
		.wake_arg = dma,
		.check_remote = sd_mmap_pci_validate,
		.poll_budget = SD_DMA_POLL_BUDGET,
	};
	for (unsigned i = 0; i < SD_DMA_NUM_ENGINES; i++) {
		err = engine_ops[i]->create(&conf, &dma->engines[i]);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("doca_dma_create: failed to create the %s engine: %s", engine_ops[i]->name,
				     doca_error_get_descr(err));
			goto destroy_engines;
		}
	}

	sd_ctx_init(&dma->ctx, &dma_ctx_ops, dev);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*dma_out = dma;
	return DOCA_SUCCESS;

destroy_engines:
	destroy_engines(dma);
	free(dma);
	return err;
}

DOCA_STABLE doca_error_t
doca_dma_destroy(struct doca_dma *dma)
{
	doca_error_t err;

	if (dma == NULL) {
		DOCA_LOG_ERR("doca_dma_destroy: dma is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE unless IDLE (logged by core); IDLE means engines own no job. */
	err = sd_ctx_fini(&dma->ctx, "doca_dma_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	destroy_engines(dma);
	sd_dma_unpin_all(dma);
	free(dma->pinned);
	sd_dev_put(sd_ctx_dev(&dma->ctx));
	free(dma);
	return DOCA_SUCCESS;
}

DOCA_STABLE struct doca_ctx *
doca_dma_as_ctx(struct doca_dma *dma)
{
	if (dma == NULL) {
		DOCA_LOG_ERR("doca_dma_as_ctx: dma is NULL");
		return NULL;
	}
	return &dma->ctx;
}

DOCA_STABLE doca_error_t
doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_dma_cap_task_memcpy_is_supported: devinfo is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* An expected answer for device filters: not logged as an error. */
	return sd_devinfo_caps(devinfo)->dma_memcpy ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_STABLE doca_error_t
doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks)
{
	if (dma == NULL || max_num_tasks == NULL) {
		DOCA_LOG_ERR("doca_dma_cap_get_max_num_tasks: NULL argument (dma %p, max_num_tasks %p)", (void *)dma,
			     (void *)max_num_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*max_num_tasks = dma->caps->dma_max_num_tasks;
	return DOCA_SUCCESS;
}

/* Shared by the two devinfo-based caps: NULL check and the no-DMA refusal. */
static doca_error_t
check_cap_devinfo(const struct doca_devinfo *devinfo, const void *out, const char *api)
{
	if (devinfo == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, output %p)", api, (const void *)devinfo, out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(devinfo)->dma_memcpy) {
		DOCA_LOG_ERR("%s: device %s has no DMA engine; check doca_dma_cap_task_memcpy_is_supported() first",
			     api, sd_devinfo_pci_addr(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t
doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)
{
	doca_error_t err =
		check_cap_devinfo(devinfo, max_buf_list_len, "doca_dma_cap_task_memcpy_get_max_buf_list_len");

	if (err != DOCA_SUCCESS)
		return err;
	*max_buf_list_len = sd_devinfo_caps(devinfo)->dma_max_buf_list_len;
	return DOCA_SUCCESS;
}

DOCA_STABLE doca_error_t
doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size)
{
	doca_error_t err = check_cap_devinfo(devinfo, buf_size, "doca_dma_cap_task_memcpy_get_max_buf_size");

	if (err != DOCA_SUCCESS)
		return err;
	*buf_size = sd_devinfo_caps(devinfo)->dma_max_buf_size;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **gpu_dma)
{
	if (dma == NULL || gpu_dma == NULL) {
		DOCA_LOG_ERR("doca_dma_get_gpu_handle: NULL argument (dma %p, gpu_dma %p)", (void *)dma,
			     (void *)gpu_dma);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_dma_get_gpu_handle: softdoca has no GPU datapath; run DMA tasks through a "
		     "doca_pe on the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}
