/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker-thread DMA engine, shaped like DPDK's skeleton dmadev: the caller's
 * thread produces jobs into a submission ring, one worker thread copies them and
 * produces them into a completion ring that poll() drains.  The worker sleeps on a
 * condition variable while the submission ring is empty, so an idle context costs
 * no CPU; it is started on the first job and joined when the context stops.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "engine.h"

SD_LOG_REGISTER(dma.engine.worker);

/*
 * Rings and job ownership (indices are free-running uint32_t, masked on access):
 *
 *            app thread                          worker thread
 *   enqueue --> sq[sq_head++]      sq      --> sq[sq_tail++]: copy (or flush)
 *                                                        |
 *   poll    <-- cq[cq_tail++]      cq      <-- cq[cq_head++], wake the PE
 *
 *   owned = sq_head - cq_tail  (queued + being copied + completed, not yet polled)
 *
 *   sq_head, cq_tail: written by the app thread only;  sq_tail, cq_head: worker only.
 *   A producer publishes an index with release after writing the slot; the consumer
 *   reads the index with acquire before reading the slot.  owned <= size (enqueue
 *   refuses beyond depth <= size), so cq can never overflow.
 *
 * Sleeping: the worker sets `sleeping` and re-checks sq under the mutex before
 * waiting; enqueue publishes sq_head and then reads `sleeping` (both seq_cst), so
 * either the worker sees the new job or the app sees the sleeper and signals.
 */
struct worker_engine {
	struct sd_dma_engine base;
	struct sd_dma_job **sq;
	struct sd_dma_job **cq;
	uint32_t mask;
	_Atomic uint32_t sq_head;
	_Atomic uint32_t sq_tail;
	_Atomic uint32_t cq_head;
	_Atomic uint32_t cq_tail;
	atomic_bool sleeping;
	atomic_bool flushing;
	atomic_bool stop;
	bool thread_running;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static inline struct worker_engine *
to_worker(struct sd_dma_engine *eng)
{
	return sd_container_of(eng, struct worker_engine, base);
}

static bool
worker_wait_for_job(struct worker_engine *e, uint32_t tail)
{
	bool stop;

	pthread_mutex_lock(&e->lock);
	atomic_store(&e->sleeping, true);
	while (atomic_load(&e->sq_head) == tail && !atomic_load(&e->stop))
		pthread_cond_wait(&e->cond, &e->lock);
	atomic_store(&e->sleeping, false);
	stop = atomic_load(&e->stop) && atomic_load(&e->sq_head) == tail;
	pthread_mutex_unlock(&e->lock);
	return !stop;
}

/*
 * Completion moderation: is it time to wake an application sleeping on the PE's
 * notification handle?  A wake costs the application a sleep/wake cycle and, on a
 * VM, an inter-processor interrupt for the eventfd write (measured: a wake per
 * 1 MiB completion cost the process ~25 % more CPU per byte than inline copies).
 * So the worker wakes once the completions waiting for the application are at least
 * as many as the jobs it still has queued (the application then refills the ring
 * before the worker runs dry: 32 in flight -> a wake every 16 completions), and
 * always when it has nothing left to copy (one task in flight -> a wake per
 * completion, as before).  A busy-polling application never sleeps and sees every
 * completion at its next progress call; this only delays the wake of a sleeping one
 * while the worker still has at least as many of its jobs to copy as are done.
 */
static inline bool
worker_should_wake(struct worker_engine *e, uint32_t tail, uint32_t chead)
{
	uint32_t queued = atomic_load_explicit(&e->sq_head, memory_order_acquire) - tail;
	uint32_t waiting = chead - atomic_load_explicit(&e->cq_tail, memory_order_relaxed);

	return queued == 0 || waiting >= queued;
}

static void *
worker_main(void *arg)
{
	struct worker_engine *e = arg;
	uint32_t tail = atomic_load_explicit(&e->sq_tail, memory_order_relaxed);
	uint32_t chead = atomic_load_explicit(&e->cq_head, memory_order_relaxed);

	for (;;) {
		struct sd_dma_job *job;

		if (atomic_load_explicit(&e->sq_head, memory_order_acquire) == tail && !worker_wait_for_job(e, tail))
			break;
		job = e->sq[tail & e->mask];
		atomic_store_explicit(&e->sq_tail, ++tail, memory_order_release);

		if (atomic_load_explicit(&e->flushing, memory_order_relaxed)) {
			job->status = e->base.conf.flush_status;
		} else {
			sd_dma_sg_copy(job->src, job->dst, job->len);
			job->status = DOCA_SUCCESS;
		}

		e->cq[chead & e->mask] = job;
		atomic_store_explicit(&e->cq_head, ++chead, memory_order_release);
		if (e->base.conf.wake != NULL && worker_should_wake(e, tail, chead))
			e->base.conf.wake(e->base.conf.wake_arg);
	}
	return NULL;
}

static doca_error_t
worker_create(const struct sd_dma_engine_conf *conf, struct sd_dma_engine **eng)
{
	struct worker_engine *e;
	uint32_t size = 1;

	if (conf->depth == 0 || conf->depth > (1u << 30))
		return DOCA_ERROR_INVALID_VALUE;
	while (size < conf->depth)
		size <<= 1;

	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	e->sq = calloc(size, sizeof(*e->sq));
	if (e->sq == NULL)
		goto free_engine;
	e->cq = calloc(size, sizeof(*e->cq));
	if (e->cq == NULL)
		goto free_sq;
	e->mask = size - 1;
	e->base.ops = &sd_dma_engine_worker_ops;
	e->base.conf = *conf;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	*eng = &e->base;
	return DOCA_SUCCESS;

free_sq:
	free(e->sq);
free_engine:
	free(e);
	return DOCA_ERROR_NO_MEMORY;
}

/* Stop and join the worker once it has drained the submission ring. */
static void
worker_join(struct worker_engine *e)
{
	if (!e->thread_running)
		return;
	pthread_mutex_lock(&e->lock);
	atomic_store(&e->stop, true);
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->thread, NULL);
	e->thread_running = false;
	atomic_store(&e->stop, false);
}

static void
worker_destroy(struct sd_dma_engine *eng)
{
	struct worker_engine *e = to_worker(eng);

	worker_join(e);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e->cq);
	free(e->sq);
	free(e);
}

static doca_error_t
worker_enqueue(struct sd_dma_engine *eng, struct sd_dma_job *job)
{
	struct worker_engine *e = to_worker(eng);
	uint32_t head = atomic_load_explicit(&e->sq_head, memory_order_relaxed);
	uint32_t ctail = atomic_load_explicit(&e->cq_tail, memory_order_relaxed);

	if (sd_unlikely(head - ctail >= e->base.conf.depth))
		return DOCA_ERROR_AGAIN;
	if (sd_unlikely(!e->thread_running)) {
		int rc = pthread_create(&e->thread, NULL, worker_main, e);

		if (rc != 0) {
			DOCA_LOG_ERR("Failed to start the DMA worker thread: %s", strerror(rc));
			return DOCA_ERROR_OPERATING_SYSTEM;
		}
		e->thread_running = true;
	}
	e->sq[head & e->mask] = job;
	atomic_store(&e->sq_head, head + 1); /* seq_cst: pairs with `sleeping`, see above */
	if (atomic_load(&e->sleeping)) {
		pthread_mutex_lock(&e->lock);
		pthread_cond_signal(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
	return DOCA_SUCCESS;
}

static unsigned
worker_poll(struct sd_dma_engine *eng, struct sd_dma_jobq *done)
{
	struct worker_engine *e = to_worker(eng);
	uint32_t tail = atomic_load_explicit(&e->cq_tail, memory_order_relaxed);
	uint32_t head = atomic_load_explicit(&e->cq_head, memory_order_acquire);
	unsigned n = head - tail;

	for (; tail != head; tail++)
		sd_dma_jobq_push(done, e->cq[tail & e->mask]);
	atomic_store_explicit(&e->cq_tail, tail, memory_order_release);
	return n;
}

static void
worker_flush(struct sd_dma_engine *eng)
{
	/* Jobs the worker has not picked up yet come back with the flush status. */
	atomic_store(&to_worker(eng)->flushing, true);
}

static void
worker_quiesce(struct sd_dma_engine *eng)
{
	struct worker_engine *e = to_worker(eng);

	/* Nothing is owned any more: no busy or sleeping thread while the ctx is IDLE. */
	worker_join(e);
	atomic_store(&e->flushing, false);
}

static bool
worker_pending(struct sd_dma_engine *eng)
{
	struct worker_engine *e = to_worker(eng);

	return atomic_load_explicit(&e->cq_head, memory_order_acquire) !=
	       atomic_load_explicit(&e->cq_tail, memory_order_relaxed);
}

const struct sd_dma_engine_ops sd_dma_engine_worker_ops = {
	.name = "worker",
	.create = worker_create,
	.destroy = worker_destroy,
	.enqueue = worker_enqueue,
	.poll = worker_poll,
	.flush = worker_flush,
	.quiesce = worker_quiesce,
	.pending = worker_pending,
};
