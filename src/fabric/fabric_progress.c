/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion domains (ctx) and who progresses the worker: the application in
 * sd_fabric_ctx_progress(), or the per-device service thread when the
 * application has not progressed for a while (so one-sided operations and
 * incoming messages are served while the process sits in getchar()).
 *
 * Arbitration.  The app stamps dev->app_progress_ns (atomic, no lock) on every
 * progress call.  The service thread (its loop is fabric_worker.c's, with
 * svc_round and svc_yield_ns below):
 *
 *   loop:  if the app progressed in the last SVC_BACKOFF_NS:   (app is driving)
 *              sleep until that window ends; continue          (worker untouched)
 *          lock
 *          progress the worker, run timers, send acks; while events keep
 *          coming (and the app stays away) go on polling, dropping the lock
 *          between rounds, until SVC_SPIN_NS passed without one
 *          arm the worker (BUSY -> progress again)
 *          unlock; poll(worker efd, wake_fd, next timer)
 *
 * so a busy application never shares the worker with the thread on its fast
 * path, an idle process sleeps in poll() (0% CPU), and a stream of messages
 * (rendezvous fragments, AM writes over tcp) costs one wake-up per burst
 * rather than one per message: without the spin, the thread's eventfd read,
 * ucp_worker_arm and the scheduler took ~40 % of the samples of a write
 * stream.  Completions the thread produces are queued on their ctx (the
 * thread never runs application callbacks) and the ctx's event fd is
 * signalled.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "fabric_internal.h"
#include "../util/sd_time.h"
#include "../core/sd_core.h"

SD_LOG_REGISTER(fabric.progress);

#define SVC_BACKOFF_NS (5 * 1000000ull)
/* How long the service thread keeps polling after the last event before it re-arms and sleeps. */
#define SVC_SPIN_NS (50 * 1000ull)
/* Service rounds that served messages between two progress stamps (a clock read each). */
#define SVC_STAMP_EVERY 16u
#define PROGRESS_BATCH 64

/* Called with dev->w.lock held: the op leaves every fabric list and is queued for its ctx. */
void
fabric_ctx_signal(struct fabric_ctx *ctx)
{
	if (ctx->dev->progressing != ctx && !ctx->event_signaled && atomic_load(&ctx->armed)) {
		uint64_t one = 1;

		ctx->event_signaled = true;
		if (write(ctx->event_fd, &one, sizeof(one)) < 0)
			DOCA_LOG_DBG("Failed to signal fabric ctx event fd: %s", strerror(errno));
	}
}

void
fabric_complete(struct fabric_op *op, doca_error_t status)
{
	struct fabric_ctx *ctx = op->ctx;

	op->status = status;
	op->pending = 0;
	sd_list_insert_tail(&ctx->completions, &op->node);
	fabric_ctx_signal(ctx);
}

/*
 * Clear pending bits of an op in some list; when nothing is pending any more
 * (or on error), complete it.  The first error wins.
 */
void
fabric_op_done_bits(struct fabric_op *op, uint16_t bits, doca_error_t status)
{
	if (status != DOCA_SUCCESS && op->status == DOCA_SUCCESS)
		op->status = status;
	op->pending &= (uint16_t)~bits;
	if (op->pending != 0)
		return;
	sd_list_del(&op->node);
	fabric_complete(op, op->status);
}

/* Progress until the worker has nothing more (at most PROGRESS_BATCH rounds); returns the events seen. */
static unsigned
progress_count(struct fabric_dev *dev)
{
	unsigned n = 0, i, e;

	for (i = 0; i < PROGRESS_BATCH; i++) {
		e = ucp_worker_progress(dev->w.worker);
		if (e == 0)
			break;
		n += e;
	}
	return n;
}

void
fabric_dev_progress_locked(struct fabric_dev *dev)
{
	(void)progress_count(dev);
}

/*
 * Expire messages that waited too long for a receive.  Returns the earliest
 * remaining deadline (0: none).  Called with dev->w.lock held.
 */
uint64_t
fabric_timers_run(struct fabric_dev *dev)
{
	uint64_t now = 0, next = 0;
	struct sd_list *cpos, *pos, *tmp;

	sd_list_for_each(cpos, &dev->ctxs)
	{
		struct fabric_ctx *ctx = sd_container_of(cpos, struct fabric_ctx, node);

		if (sd_list_empty(&ctx->unexpected))
			continue;
		if (now == 0)
			now = sd_now_ns();
		sd_list_for_each_safe(pos, tmp, &ctx->unexpected)
		{
			struct fabric_unexp *u = sd_container_of(pos, struct fabric_unexp, node);
			struct fabric_ep *ep = u->ep;

			if (u->deadline_ns > now) {
				/* UINT64_MAX: waits for ever (no timer) */
				if (u->deadline_ns != UINT64_MAX && (next == 0 || u->deadline_ns < next))
					next = u->deadline_ns;
				continue;
			}
			DOCA_LOG_WARN("Message seq %u on connection %u waited %llu ms without a posted receive; "
				      "failing the connection (post receives before the peer sends)",
				      u->hdr.seq, ep->id, (unsigned long long)(ctx->rnr_timeout_ns / 1000000));
			fabric_ep_send_nak(ep, u->hdr.seq, FABRIC_NAK_RNR_TIMEOUT);
			fabric_ep_fail(ep, DOCA_ERROR_TIME_OUT);
			/* fail() dropped every unexpected message of this ep: restart the scan */
			tmp = ctx->unexpected.next;
		}
	}
	return next;
}

/* ---- completion domain ---- */

doca_error_t
sd_fabric_ctx_create(struct fabric_dev *dev, const struct fabric_ctx_attr *attr, struct fabric_ctx **out)
{
	struct fabric_ctx *ctx;

	if (dev == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ctx->dev = dev;
	sd_list_init(&ctx->eps);
	sd_list_init(&ctx->posted);
	sd_list_init(&ctx->unexpected);
	sd_list_init(&ctx->completions);
	sd_list_init(&ctx->delivering);
	sd_list_init(&ctx->err_eps);
	sd_list_init(&ctx->batched);
	ctx->max_unexpected = (attr && attr->max_unexpected) ? attr->max_unexpected : 64;
	ctx->rnr_timeout_ns = ((attr && attr->rnr_timeout_ms) ? attr->rnr_timeout_ms : 2000) * 1000000ull;
	if (attr != NULL) {
		ctx->ep_error_cb = attr->ep_error_cb;
		ctx->user = attr->user;
		ctx->signal_when_armed = attr->signal_when_armed;
	}
	/* armed until its first progress: an owner may arm before it ever progresses */
	atomic_init(&ctx->armed, true);
	ctx->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ctx->event_fd < 0) {
		DOCA_LOG_ERR("Failed to create fabric ctx event fd: %s", strerror(errno));
		free(ctx);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	fabric_dev_lock(dev);
	sd_list_insert_tail(&dev->ctxs, &ctx->node);
	fabric_dev_unlock(dev);
	*out = ctx;
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_ctx_destroy(struct fabric_ctx *ctx)
{
	struct fabric_dev *dev;
	struct sd_list *pos;

	if (ctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dev = ctx->dev;
	fabric_dev_lock(dev);
	if (!sd_list_empty(&ctx->eps)) {
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to destroy fabric ctx: connections still exist; destroy them first");
		return DOCA_ERROR_IN_USE;
	}
	while ((pos = sd_list_pop_head(&ctx->posted)) != NULL) {
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		fabric_complete(op, DOCA_ERROR_CONNECTION_ABORTED);
	}
	sd_list_del(&ctx->node);
	/* tickets cached for this device's sends: none is taken without a ctx */
	if (sd_list_empty(&dev->ctxs))
		fabric_ticket_cache_free(dev);
	fabric_dev_unlock(dev);
	/* flushed receives get their callbacks before the ctx goes away */
	while ((pos = sd_list_pop_head(&ctx->completions)) != NULL) {
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		op->cb(op);
	}
	close(ctx->event_fd);
	free(ctx);
	return DOCA_SUCCESS;
}

bool
sd_fabric_ctx_has_work(struct fabric_ctx *ctx)
{
	bool work;

	fabric_dev_lock(ctx->dev);
	work = !sd_list_empty(&ctx->completions) || !sd_list_empty(&ctx->err_eps) || !sd_list_empty(&ctx->batched);
	fabric_dev_unlock(ctx->dev);
	return work;
}

bool
sd_fabric_ctx_arm(struct fabric_ctx *ctx)
{
	struct fabric_dev *dev = ctx->dev;

	/*
	 * The application is about to sleep on its notification handle: the
	 * service thread must not wait out its back-off (the application's last
	 * progress may be fresh) while peers' requests wait for the worker.
	 */
	atomic_store_explicit(&dev->app_progress_ns, 0, memory_order_relaxed);
	fabric_worker_wake(&dev->w);
	/* before the re-check, which takes the lock every signaller holds (fabric_internal.h) */
	atomic_store(&ctx->armed, true);
	return sd_fabric_ctx_has_work(ctx);
}

int
sd_fabric_ctx_get_event_fd(struct fabric_ctx *ctx)
{
	return ctx ? ctx->event_fd : -1;
}

void
sd_fabric_ctx_flush_recvs(struct fabric_ctx *ctx, doca_error_t err)
{
	struct sd_list *pos;

	fabric_dev_lock(ctx->dev);
	while ((pos = sd_list_pop_head(&ctx->posted)) != NULL)
		fabric_complete(sd_container_of(pos, struct fabric_op, node), err);
	fabric_dev_unlock(ctx->dev);
}

void
sd_fabric_ctx_set_rnr_timeout(struct fabric_ctx *ctx, uint64_t timeout_ns)
{
	fabric_dev_lock(ctx->dev);
	ctx->rnr_timeout_ns = timeout_ns;
	fabric_dev_unlock(ctx->dev);
}

doca_error_t
sd_fabric_ctx_post_recv(struct fabric_ctx *ctx, struct fabric_op *op, void *buf, size_t len)
{
	struct fabric_dev *dev;

	if (ctx == NULL || op == NULL || (buf == NULL && len != 0) || op->cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dev = ctx->dev;
	op->ctx = ctx;
	op->ep = NULL;
	op->type = FABRIC_OP_RECV;
	op->status = DOCA_SUCCESS;
	op->pending = 0;
	op->buf = buf;
	op->buf_len = len;
	op->len = 0;
	op->imm = 0;
	op->src_ep = NULL;
	fabric_dev_lock(dev);
	sd_list_insert_tail(&ctx->posted, &op->node);
	if (!sd_list_empty(&ctx->unexpected))
		fabric_ctx_deliver_unexpected(ctx);
	fabric_dev_unlock(dev);
	return DOCA_SUCCESS;
}

/*
 * Slow path: the connection errors taken with this call's completions, one by
 * one with the lock released (dev->w.lock held).  Destroying an ep unlinks it
 * from `errs` under the lock, as from ctx->err_eps.
 */
static uint32_t
deliver_ep_errors(struct fabric_ctx *ctx, struct sd_list *errs)
{
	struct fabric_dev *dev = ctx->dev;
	struct sd_list *pos;
	uint32_t n = 0;

	while ((pos = sd_list_pop_head(errs)) != NULL) {
		struct fabric_ep *ep = sd_container_of(pos, struct fabric_ep, err_node);
		doca_error_t err = ep->err;

		fabric_dev_unlock(dev);
		if (ctx->ep_error_cb != NULL)
			ctx->ep_error_cb(ep, err, ctx->user);
		n++;
		fabric_dev_lock(dev);
	}
	return n;
}

uint32_t
sd_fabric_ctx_progress(struct fabric_ctx *ctx)
{
	struct fabric_dev *dev = ctx->dev;
	struct sd_list *pos, errs;
	uint64_t coarse = sd_coarse_now_ns();
	uint32_t n = 0;
	bool errors;

	atomic_store_explicit(&dev->app_progress_ns, coarse, memory_order_relaxed);
	if (++ctx->progress_calls == FABRIC_STAMP_EVERY) {
		ctx->progress_calls = 0;
		fabric_recs_stamp(dev, true);
	}
	/*
	 * The owner is awake: no more eventfd writes until it arms again.  What is
	 * queued from now on is found by this call or the next one, or by the arm's
	 * re-check.  Read first: a busy poller does not write the line every call.
	 */
	if (ctx->signal_when_armed && atomic_load_explicit(&ctx->armed, memory_order_relaxed))
		atomic_store(&ctx->armed, false);
	fabric_dev_lock(dev);
	/*
	 * Acks are deferred by one progress call: a message delivered by the
	 * previous call was acknowledged by the reply its callback (or the code
	 * after this call) posted, or is acknowledged alone here, unless its
	 * connection's messages are still coming and fewer than FABRIC_ACK_BATCH
	 * are owed (a stream: one lone ack per batch; fabric_acks_flush()).
	 * Saves a message per ping-pong; sd_fabric_ep_destroy() sends what is still owed
	 * before a disconnect, and an application that stops progressing has its
	 * acks sent by the service thread.
	 */
	if (!sd_list_empty(&dev->ack_eps))
		fabric_acks_flush(dev, true);
	dev->progressing = ctx;
	/* direct copies posted since the last call, one syscall per peer: delivered below */
	while (!sd_list_empty(&ctx->batched))
		fabric_direct_flush(sd_container_of(ctx->batched.next, struct fabric_ep, batch_node));
	fabric_dev_progress_locked(dev);
	if (!sd_list_empty(&ctx->unexpected))
		fabric_timers_run(dev);
	/* coarse clock: no clock read per call on the fast path; the check itself runs every 200 ms */
	if (dev->n_watched > 0 && coarse >= dev->next_liveness_ns)
		fabric_liveness_check(dev);
	dev->progressing = NULL;
	if (ctx->event_signaled) {
		uint64_t v;

		ctx->event_signaled = false;
		if (read(ctx->event_fd, &v, sizeof(v)) < 0)
			v = 0;
	}
	/*
	 * Deliver what was queued when this call started (an op that completes
	 * inside a callback is delivered by the next call, so a callback that
	 * resubmits cannot keep this loop going).  The batch moves to
	 * ctx->delivering under the lock and its callbacks run without it, one
	 * lock round per call instead of one per op: callbacks may post (taking
	 * the lock), and only this ctx's thread touches ctx->delivering, where
	 * sd_fabric_ep_destroy() still finds the receives of an ep it destroys.
	 */
	while ((pos = sd_list_pop_head(&ctx->completions)) != NULL)
		sd_list_insert_tail(&ctx->delivering, pos);
	/*
	 * The errors go with the same snapshot: the service thread may place a
	 * peer's last message and then see that peer's connection fail while the
	 * callbacks below run; that message's receive is delivered before the
	 * error (by the next call), never after it.
	 */
	sd_list_move_all(&errs, &ctx->err_eps);
	errors = !sd_list_empty(&errs);
	if (sd_list_empty(&ctx->delivering) && !errors) {
		/* nothing delivered: no reply can carry the acks queued meanwhile */
		if (!sd_list_empty(&dev->ack_eps))
			fabric_acks_flush(dev, false);
		fabric_dev_unlock(dev);
		return 0;
	}
	/*
	 * Acks still owed go with the next call's flush, or the service thread's
	 * once the application stops progressing: a thread asleep since before
	 * this call must hear of them (a peer's send would wait for ever).
	 */
	if (!sd_list_empty(&dev->ack_eps))
		fabric_worker_nudge(&dev->w);
	fabric_dev_unlock(dev);
	while ((pos = sd_list_pop_head(&ctx->delivering)) != NULL) {
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		op->cb(op);
		n++;
	}
	if (sd_unlikely(errors)) {
		fabric_dev_lock(dev);
		n += deliver_ep_errors(ctx, &errs);
		fabric_dev_unlock(dev);
	}
	return n;
}

/* ---- service thread (its loop: fabric_worker.c) ---- */

/* One service round with dev->lock held: worker, timers, liveness, acks.  Returns the worker events seen. */
static unsigned
svc_round(void *owner, uint64_t *next)
{
	struct fabric_dev *dev = owner;
	unsigned n = progress_count(dev);

	/* serving messages now: peers may send small writes and reads as messages (fabric_direct_wanted()) */
	if (n > 0 && ++dev->svc_stamp_rounds == SVC_STAMP_EVERY) {
		dev->svc_stamp_rounds = 0;
		fabric_recs_stamp(dev, false);
	}
	*next = fabric_timers_run(dev);
	fabric_liveness_check(dev);
	if (dev->n_watched > 0 && (*next == 0 || dev->next_liveness_ns < *next))
		*next = dev->next_liveness_ns;
	if (!sd_list_empty(&dev->ack_eps))
		fabric_acks_flush(dev, false);
	return n;
}

/*
 * While the application progressed in the last SVC_BACKOFF_NS (coarse
 * clock, as it stamps), the service thread leaves the worker to it, so a busy
 * application never shares the worker; an application that goes to sleep on
 * its notification handle hands the worker over at once (sd_fabric_ctx_arm).
 */
static uint64_t
svc_yield_ns(void *owner)
{
	struct fabric_dev *dev = owner;
	uint64_t last = atomic_load_explicit(&dev->app_progress_ns, memory_order_relaxed);
	uint64_t now = sd_coarse_now_ns();

	return (int64_t)(now - last) < (int64_t)SVC_BACKOFF_NS ? last + SVC_BACKOFF_NS - now : 0;
}

/* The service thread lives as long as the soft NIC: it holds the record table's life lock. */
static void
svc_thread_life(void *owner, bool begin)
{
	if (begin)
		fabric_recs_life_hold(owner);
	else
		fabric_recs_life_release(owner);
}

const struct fabric_worker_ops fabric_dev_svc_ops = {
	.round = svc_round,
	.yield_ns = svc_yield_ns,
	.spin_ns = SVC_SPIN_NS,
	.thread_life = svc_thread_life,
};
