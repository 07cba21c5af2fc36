/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA facade's objects, shared by dma.c (context, caps, ctx ops) and
 * dma_task_memcpy.c (task API, validation, routing to an engine).
 */
#ifndef SD_DMA_INTERNAL_H_
#define SD_DMA_INTERNAL_H_

#include <doca_dma.h>

#include "../core/sd_core.h"
#include "engine.h"

enum sd_dma_engine_id {
	SD_DMA_ENGINE_INLINE,
	SD_DMA_ENGINE_WORKER,
	SD_DMA_ENGINE_XPROC,
	SD_DMA_NUM_ENGINES,
};

/* SOFTDOCA_DMA_ENGINE: which engine local copies use (remote ones always use xproc). */
enum sd_dma_mode {
	SD_DMA_MODE_AUTO,
	SD_DMA_MODE_INLINE,
	SD_DMA_MODE_WORKER,
	SD_DMA_MODE_XPROC,
};

struct doca_dma {
	struct doca_ctx ctx; /* first: doca_dma_as_ctx() */
	struct sd_task_pool *memcpy_pool;
	const struct sd_dev_caps *caps; /* the device's, read-only */
	enum sd_dma_mode mode;
	uint32_t depth;		   /* queued jobs above this -> AGAIN */
	uint64_t worker_min_bytes; /* auto: jobs this large may go to the worker */
	uint32_t worker_min_cpus;  /* auto: ... if the process may use this many CPUs */
	uint32_t ncpus;		   /* CPUs in our affinity mask at doca_ctx_start() */
	/*
	 * doca_pe_progress() calls since the application last armed the PE for
	 * notification (saturating): small while it sleeps on the notification handle
	 * between progress calls (event mode), large while it busy-polls.
	 */
	uint32_t polls_since_arm;
	uint32_t queued;       /* jobs given to engines, not yet reported */
	uint32_t used_engines; /* bit per engine that got a job since the last quiesce */
	struct sd_dma_engine *engines[SD_DMA_NUM_ENGINES];
	/* mmaps pinned while the ctx runs (doca_mmap_stop -> BAD_STATE; a destroyed one lives until the unpin) */
	struct doca_mmap **pinned;
	uint32_t num_pinned;
	uint32_t cap_pinned;
	struct doca_mmap *pin_hint[2]; /* the last two mmaps seen: the common case */
	/*
	 * Fast path (dma_task_memcpy.c): local mmaps already pinned, checked readable
	 * (src) and writable (dst) during this run; cleared with the pins.
	 */
	const struct doca_mmap *fast_src[2];
	const struct doca_mmap *fast_dst;
};

struct doca_dma_task_memcpy {
	struct doca_task task; /* first: doca_dma_task_memcpy_as_task() */
	struct sd_dma_job job; /* job.src / job.dst are the task's buffers */
};

static inline struct doca_dma *
sd_dma_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct doca_dma, ctx);
}

static inline struct doca_dma_task_memcpy *
sd_dma_task_from_job(struct sd_dma_job *job)
{
	return sd_container_of(job, struct doca_dma_task_memcpy, job);
}

/* ctx ops implemented by dma_task_memcpy.c */
doca_error_t sd_dma_task_submit(struct doca_task *task);
doca_error_t sd_dma_task_validate(struct doca_task *task);
/* Strict mode (SOFTDOCA_STRICT): a memcpy reads its source and copies it into its destination's tail room. */
void sd_dma_task_bufs(const struct doca_task *task, struct sd_task_bufs *bufs);

/* dma_task_memcpy.c: release every pin taken while running (ctx reached IDLE, destroy). */
void sd_dma_unpin_all(struct doca_dma *dma);

#endif /* SD_DMA_INTERNAL_H_ */
