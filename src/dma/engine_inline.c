/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline DMA engine: jobs wait in a FIFO and are copied with memcpy by the
 * thread that calls doca_pe_progress(), at most conf.poll_budget bytes per call.
 * No lock, no syscall, no allocation: the fastest path for small tasks, and for
 * every size when no CPU is free to copy in parallel (docs/dma.md).
 */
#include <stdlib.h>

#include "../core/sd_core.h"
#include "engine.h"

struct inline_engine {
	struct sd_dma_engine base;
	struct sd_dma_jobq queue;
	bool flushing;
};

static inline struct inline_engine *
to_inline(struct sd_dma_engine *eng)
{
	return sd_container_of(eng, struct inline_engine, base);
}

static doca_error_t
inline_create(const struct sd_dma_engine_conf *conf, struct sd_dma_engine **eng)
{
	struct inline_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	e->base.ops = &sd_dma_engine_inline_ops;
	e->base.conf = *conf;
	sd_dma_jobq_init(&e->queue);
	*eng = &e->base;
	return DOCA_SUCCESS;
}

static void
inline_destroy(struct sd_dma_engine *eng)
{
	free(to_inline(eng));
}

static doca_error_t
inline_enqueue(struct sd_dma_engine *eng, struct sd_dma_job *job)
{
	struct inline_engine *e = to_inline(eng);

	if (sd_unlikely(e->queue.count >= e->base.conf.depth))
		return DOCA_ERROR_AGAIN;
	sd_dma_jobq_push(&e->queue, job);
	return DOCA_SUCCESS;
}

static unsigned
inline_poll(struct sd_dma_engine *eng, struct sd_dma_jobq *done)
{
	struct inline_engine *e = to_inline(eng);
	uint64_t budget = e->base.conf.poll_budget, copied = 0;
	struct sd_dma_job *job, *last = NULL;
	unsigned n = 0;

	if (e->queue.count == 0)
		return 0;
	if (sd_unlikely(e->flushing)) {
		for (job = e->queue.head; job != NULL; job = job->next)
			job->status = e->base.conf.flush_status;
		n = e->queue.count;
		sd_dma_jobq_splice(done, &e->queue);
		return n;
	}
	/* Copy up to the budget (at least one job); the rest waits for the next poll. */
	for (job = e->queue.head; job != NULL; job = job->next) {
		sd_dma_sg_copy(job->src, job->dst, job->len);
		job->status = DOCA_SUCCESS;
		last = job;
		n++;
		copied += job->len;
		if (sd_unlikely(budget != 0 && copied >= budget))
			break;
	}
	/* The copied jobs complete in one batch: hand them over in one splice. */
	sd_dma_jobq_splice_head(done, &e->queue, last, n);
	return n;
}

static void
inline_flush(struct sd_dma_engine *eng)
{
	to_inline(eng)->flushing = true;
}

static void
inline_quiesce(struct sd_dma_engine *eng)
{
	to_inline(eng)->flushing = false;
}

static bool
inline_pending(struct sd_dma_engine *eng)
{
	return to_inline(eng)->queue.count != 0;
}

const struct sd_dma_engine_ops sd_dma_engine_inline_ops = {
	.name = "inline",
	.create = inline_create,
	.destroy = inline_destroy,
	.enqueue = inline_enqueue,
	.poll = inline_poll,
	.flush = inline_flush,
	.quiesce = inline_quiesce,
	.pending = inline_pending,
};
