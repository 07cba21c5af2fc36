/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs, their life: create (the connection blob), connect (the UCP
 * endpoint, the peer's pid watch, the HELLO), failure (ops completed with the
 * error, the peer found dead by its pidfd or UCX), abort and destroy (what is
 * owed to the peer sent first, every op completed, nothing left to UCX).  The
 * send side is fabric_tx.c, the receive side fabric_rx.c.
 */
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "fabric_internal.h"
#include "../util/sd_time.h"
#include "../core/sd_core.h"
#include "../util/sd_random.h"

SD_LOG_REGISTER(fabric.ep);

/* ---- failure ---- */

void
fabric_unexp_free(struct fabric_dev *dev, struct fabric_unexp *u)
{
	if (u->rndv_desc != NULL)
		ucp_am_data_release(dev->w.worker, u->rndv_desc);
	free(u->data);
	free(u);
}

/*
 * Move the ep to ERROR: ops not waiting on UCX complete now with err; those
 * with a UCX request outstanding complete from its callback with err.
 */
void
fabric_ep_fail(struct fabric_ep *ep, doca_error_t err)
{
	struct fabric_ctx *ctx = ep->ctx;
	struct sd_list *pos, *tmp;
	/*
	 * A fault of one op (access refused, message too long) carries its own
	 * status already; the others are flushed, as the work requests behind an
	 * error on an RC QP.  A lost connection is every op's error.
	 */
	doca_error_t flush = err == DOCA_ERROR_NOT_PERMITTED || err == DOCA_ERROR_INVALID_VALUE
				     ? DOCA_ERROR_CONNECTION_ABORTED
				     : err;

	if (ep->state == FABRIC_EP_ERROR)
		return;
	DOCA_LOG_DBG("Connection %u failed: %s", ep->id, doca_error_get_name(err));
	ep->state = FABRIC_EP_ERROR;
	ep->err = err;
	sd_list_for_each_safe(pos, tmp, &ep->inflight)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if (op->pending & FABRIC_OPP_ACK) {
			op->pending &= (uint16_t)~FABRIC_OPP_ACK;
			ep->n_inflight_acked--;
		}
		/* no answer will come; a payload being fetched finishes from its callback */
		if (op->pending & FABRIC_OPP_RESP) {
			op->pending &= (uint16_t)~FABRIC_OPP_RESP;
			ep->n_requests--;
		}
		if (op->status == DOCA_SUCCESS)
			op->status = flush;
		if (op->pending == 0) {
			sd_list_del(&op->node);
			fabric_complete(op, op->status);
		}
	}
	fabric_direct_drop(ep, flush);
	while ((pos = sd_list_pop_head(&ep->deferred)) != NULL)
		fabric_complete(sd_container_of(pos, struct fabric_op, node), flush);
	sd_list_for_each_safe(pos, tmp, &ctx->unexpected)
	{
		struct fabric_unexp *u = sd_container_of(pos, struct fabric_unexp, node);

		if (u->ep == ep) {
			sd_list_del(&u->node);
			ctx->n_unexpected--;
			fabric_unexp_free(ctx->dev, u);
		}
	}
	if (ep->ack_queued) {
		sd_list_del(&ep->ack_node);
		ep->ack_queued = false;
	}
	if (!ep->err_reported) {
		ep->err_reported = true;
		sd_list_insert_tail(&ctx->err_eps, &ep->err_node);
	}
}

/* Complete every inflight op whose UCX request is still out (after a forced close). */
void
fabric_ep_complete_orphans(struct fabric_ep *ep, doca_error_t err)
{
	struct sd_list *pos, *tmp;

	sd_list_for_each_safe(pos, tmp, &ep->inflight)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		/* an answer's payload still being fetched completes it from the fetch callback */
		if (!(op->pending & FABRIC_OPP_UCX) || (op->pending & FABRIC_OPP_FETCH))
			continue;
		/* the connection is dead: its ordering state no longer matters */
		fabric_op_orphan(op);
		sd_list_del(&op->node);
		fabric_complete(op, op->status != DOCA_SUCCESS ? op->status : err);
	}
}

/*
 * The peer process is gone (dev->w.lock held): the ep fails as a connection
 * reset (its owner's error callback follows from progress) and the UCP
 * endpoint is force-closed, so requests UCX still holds complete (with an
 * error) instead of waiting forever.
 */
static void
peer_died(struct fabric_ep *ep)
{
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
	ucs_status_ptr_t req;

	fabric_ep_fail(ep, DOCA_ERROR_CONNECTION_RESET);
	if (ep->uep != NULL) {
		req = ucp_ep_close_nbx(ep->uep, &prm);
		ep->close_req = UCS_PTR_IS_PTR(req) ? req : NULL;
		ep->uep = NULL;
		ep->reply_uep = NULL;
	}
	/* requests UCX did not give back (e.g. waiting for wireup) never will: finish their ops */
	fabric_ep_complete_orphans(ep, DOCA_ERROR_CONNECTION_RESET);
}

void
sd_fabric_ep_vanish(struct fabric_ep *ep)
{
	fabric_dev_lock(ep->ctx->dev);
	if (ep->state != FABRIC_EP_ERROR)
		peer_died(ep);
	fabric_dev_unlock(ep->ctx->dev);
}

/*
 * Poll the pidfds of same-host peers (at most every 200 ms; dev->w.lock held)
 * and drop the windows onto regions they revoked (fabric_mapped.c).
 * A dead peer fails its eps and force-closes the UCP endpoint so requests
 * UCX still holds complete (with an error) instead of waiting forever.
 */
void
fabric_liveness_check(struct fabric_dev *dev)
{
	struct sd_list *cpos, *pos;
	uint64_t now;

	if (dev->n_watched == 0)
		return;
	now = sd_now_ns();
	if (now < dev->next_liveness_ns)
		return;
	dev->next_liveness_ns = now + 200 * 1000000ull;
	sd_list_for_each(cpos, &dev->ctxs)
	{
		struct fabric_ctx *ctx = sd_container_of(cpos, struct fabric_ctx, node);

		sd_list_for_each(pos, &ctx->eps)
		{
			struct fabric_ep *ep = sd_container_of(pos, struct fabric_ep, node);
			struct pollfd pfd = {.fd = ep->pidfd, .events = POLLIN};

			if (ep->pidfd < 0 || ep->uep == NULL)
				continue;
			if (poll(&pfd, 1, 0) > 0) {
				DOCA_LOG_INFO("Connection %u lost: peer process exited", ep->id);
			} else if (fabric_direct_peer_replaced(ep)) {
				/* same pid, another program: nothing of the peer's soft NIC answers any more */
				DOCA_LOG_INFO("Connection %u lost: peer process replaced its program (exec)", ep->id);
			} else {
				fabric_wins_sweep(ep);
				continue;
			}
			peer_died(ep);
		}
	}
}

static void
uep_err_cb(void *arg, ucp_ep_h uep, ucs_status_t st)
{
	struct fabric_ep *ep = arg;

	DOCA_LOG_INFO("Connection %u lost: %s", ep->id, ucs_status_string(st));
	fabric_ep_fail(ep, DOCA_ERROR_CONNECTION_RESET);
}

/* ---- create / export / connect / destroy ---- */

/* A new ep, unlisted, its sequence numbers at their start; NULL when out of memory. */
static struct fabric_ep *
ep_alloc(struct fabric_ctx *ctx, void *user)
{
	struct fabric_ep *ep = calloc(1, sizeof(*ep));

	if (ep == NULL)
		return NULL;
	ep->ctx = ctx;
	ep->user = user;
	ep->tx_seq = 1;
	ep->rx_base = 1;
	ep->ack_sent = 1;
	ep->pidfd = -1;
	ep->tx = &fabric_tx_am;
	sd_list_init(&ep->inflight);
	sd_list_init(&ep->deferred);
	sd_list_init(&ep->batch);
	sd_list_init(&ep->batch_node);
	sd_list_init(&ep->err_node);
	sd_list_init(&ep->ack_node);
	return ep;
}

/*
 * Under dev->w.lock: copy the worker's address into a new blob (after the
 * room for its header), give the ep its id and list it in its ctx.  On
 * failure the ep has no blob, no id and is in no list.
 */
static doca_error_t
ep_register(struct fabric_ctx *ctx, struct fabric_ep *ep)
{
	struct fabric_dev *dev = ctx->dev;
	ucp_worker_attr_t wattr = {0};
	ucs_status_t st;
	doca_error_t err;

	fabric_dev_lock(dev);
	wattr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS;
	st = ucp_worker_query(dev->w.worker, &wattr);
	if (st != UCS_OK) {
		fabric_dev_unlock(dev);
		DOCA_LOG_DBG("Failed to query UCP worker address: %s", ucs_status_string(st));
		return DOCA_ERROR_DRIVER;
	}
	ep->blob_len = sizeof(struct fabric_conn_blob) + wattr.address_length;
	if (ep->blob_len > FABRIC_BLOB_MAX) {
		ucp_worker_release_address(dev->w.worker, wattr.address);
		fabric_dev_unlock(dev);
		DOCA_LOG_DBG("Failed to export connection: UCX worker address of %zu bytes exceeds %u",
			     wattr.address_length, FABRIC_BLOB_MAX);
		return DOCA_ERROR_TOO_BIG;
	}
	ep->blob = calloc(1, ep->blob_len);
	if (ep->blob == NULL) {
		ucp_worker_release_address(dev->w.worker, wattr.address);
		fabric_dev_unlock(dev);
		return DOCA_ERROR_NO_MEMORY;
	}
	memcpy(ep->blob + sizeof(struct fabric_conn_blob), wattr.address, wattr.address_length);
	ucp_worker_release_address(dev->w.worker, wattr.address);
	err = fabric_id_alloc((void ***)&dev->eps, &dev->eps_cap, ep, &ep->id);
	if (err != DOCA_SUCCESS) {
		fabric_dev_unlock(dev);
		free(ep->blob);
		ep->blob = NULL;
		return err;
	}
	sd_list_insert_tail(&ctx->eps, &ep->node);
	fabric_dev_unlock(dev);
	return DOCA_SUCCESS;
}

/* The blob's header: what the peer needs to connect back (the address follows it). */
static void
ep_blob_fill(const struct fabric_dev *dev, struct fabric_ep *ep)
{
	struct fabric_conn_blob *b = (struct fabric_conn_blob *)ep->blob;

	b->hdr.magic = FABRIC_CONN_MAGIC;
	b->hdr.version = FABRIC_PROTO_VERSION;
	b->hdr.hdr_len = sizeof(*b);
	b->hdr.total_len = (uint32_t)ep->blob_len;
	b->conn_id = ep->id;
	b->cookie = ep->cookie;
	memcpy(b->host_id, dev->host_id, sizeof(b->host_id));
	b->addr_len = (uint32_t)(ep->blob_len - sizeof(*b));
	b->pid = (uint32_t)getpid();
	b->pid_ns = dev->pid_ns;
	b->tcp_seg = dev->tcp_seg;
	b->domain = ep->domain;
}

doca_error_t
sd_fabric_ep_create(struct fabric_ctx *ctx, void *user, struct fabric_ep **out)
{
	struct fabric_ep *ep;
	doca_error_t err;

	if (ctx == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	ep = ep_alloc(ctx, user);
	if (ep == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = sd_random_bytes(&ep->cookie, sizeof(ep->cookie));
	if (err != DOCA_SUCCESS)
		goto cleanup_ep;
	err = ep_register(ctx, ep);
	if (err != DOCA_SUCCESS)
		goto cleanup_ep;
	ep_blob_fill(ctx->dev, ep);
	*out = ep;
	return DOCA_SUCCESS;

cleanup_ep:
	free(ep);
	return err;
}

void *
sd_fabric_ep_get_user(const struct fabric_ep *ep)
{
	return ep ? ep->user : NULL;
}

void
sd_fabric_ep_set_domain(struct fabric_ep *ep, uint32_t domain)
{
	if (ep == NULL)
		return;
	ep->domain = domain;
	((struct fabric_conn_blob *)ep->blob)->domain = domain;
}

doca_error_t
sd_fabric_ep_export(struct fabric_ep *ep, const void **blob, size_t *len)
{
	if (ep == NULL || blob == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*blob = ep->blob;
	*len = ep->blob_len;
	return DOCA_SUCCESS;
}

/* Same kernel and shm allowed: UCX can use shm/cma to reach the peer. */
static bool
same_host(const struct fabric_dev *dev, const struct fabric_conn_blob *peer)
{
	return dev->shm_enabled && memcmp(peer->host_id, dev->host_id, sizeof(dev->host_id)) == 0;
}

/*
 * Peers reaching each other over tcp must agree on its receive segment (UCX
 * aborts a receiver sent a larger fragment); same-host peers use shm.
 */
static doca_error_t
tcp_seg_check(const struct fabric_ep *ep, const struct fabric_conn_blob *b, const char **reason)
{
	const struct fabric_dev *dev = ep->ctx->dev;

	if (!same_host(dev, b)) {
		uint32_t peer_seg = b->tcp_seg;

		if (peer_seg != 0 && dev->tcp_seg != 0 && peer_seg != dev->tcp_seg) {
			DOCA_LOG_DBG("Connection %u: tcp receive segment %u B at the peer, %u B here", ep->id, peer_seg,
				     dev->tcp_seg);
			if (reason != NULL)
				*reason =
					"the UCX tcp receive segment differs between the peers (UCX aborts a receiver "
					"sent a larger fragment): set UCX_TCP_RX_SEG_SIZE to the same value on both "
					"sides";
			return DOCA_ERROR_NOT_SUPPORTED;
		}
	}
	return DOCA_SUCCESS;
}

/*
 * The pidfd of the peer process pid (dev->w.lock held): the one its other
 * connections use while that process lives (1,024 connections to one peer
 * take one fd, not 1,024 of the default RLIMIT_NOFILE), else a new one - a
 * pid reused after the death of the one we watched gets its own.
 */
static void
watch_get(struct fabric_ep *ep, uint32_t pid)
{
	struct fabric_dev *dev = ep->ctx->dev;
	struct fabric_watch *w = NULL;
	struct sd_list *pos;
	int fd;

	sd_list_for_each(pos, &dev->watches)
	{
		struct fabric_watch *c = sd_container_of(pos, struct fabric_watch, node);
		struct pollfd pfd = {.fd = c->pidfd, .events = POLLIN};

		if (c->pid == pid && poll(&pfd, 1, 0) == 0) {
			w = c;
			break;
		}
	}
	if (w == NULL) {
		fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (fd < 0)
			return;
		w = calloc(1, sizeof(*w));
		if (w == NULL) {
			close(fd);
			return;
		}
		w->pid = pid;
		w->pidfd = fd;
		sd_list_insert_tail(&dev->watches, &w->node);
	}
	w->refs++;
	ep->watch = w;
	ep->pidfd = w->pidfd;
}

/* The ep no longer watches its peer; the last one closes the pidfd. */
static void
watch_put(struct fabric_ep *ep)
{
	struct fabric_watch *w = ep->watch;

	ep->watch = NULL;
	ep->pidfd = -1;
	if (w == NULL || --w->refs > 0)
		return;
	sd_list_del(&w->node);
	close(w->pidfd);
	free(w);
}

/*
 * How the ep learns of the peer's death (dev->w.lock held).  UCX 1.13 has no
 * peer-failure support on shm (sysv/posix/cma): PEER mode would silently push
 * a local peer onto tcp (40x slower puts).  Local peers get NONE and a pidfd
 * watch (opened here when the peer's pid is in our namespace); remote ones
 * get UCX's PEER mode.
 */
static ucp_err_handling_mode_t
peer_watch(struct fabric_ep *ep, const struct fabric_conn_blob *b)
{
	const struct fabric_dev *dev = ep->ctx->dev;

	if (!same_host(dev, b))
		return UCP_ERR_HANDLING_MODE_PEER;
	if (b->pid != 0 && b->pid_ns == dev->pid_ns && dev->pid_ns != 0) {
		watch_get(ep, b->pid);
		ep->peer_pid = b->pid;
		fabric_direct_note_peer_exe(ep);
	}
	if (ep->pidfd < 0)
		DOCA_LOG_INFO("Connection %u: peer pid %u not watchable; its death is not detected", ep->id, b->pid);
	return UCP_ERR_HANDLING_MODE_NONE;
}

doca_error_t
sd_fabric_ep_connect(struct fabric_ep *ep, const void *blob, size_t len, const char **reason)
{
	struct fabric_conn_blob pb, *b = &pb;
	ucp_ep_params_t params = {0};
	struct fabric_dev *dev;
	const char *why = NULL;
	doca_error_t err;
	ucs_status_t st;

	if (ep == NULL || blob == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* the caller logged the reason when it parsed the descriptor around the blob */
	err = sd_fabric_conn_blob_parse(blob, len, b, &why);
	if (err != DOCA_SUCCESS) {
		if (reason != NULL)
			*reason = why;
		return err;
	}
	dev = ep->ctx->dev;
	err = tcp_seg_check(ep, b, reason);
	if (err != DOCA_SUCCESS)
		return err;
	fabric_dev_lock(dev);
	if (ep->uep != NULL || ep->state != FABRIC_EP_IDLE) {
		fabric_dev_unlock(dev);
		if (reason != NULL)
			*reason = "the connection is connected already, or failed";
		return DOCA_ERROR_BAD_STATE;
	}
	params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.address = (const ucp_address_t *)((const uint8_t *)blob + b->hdr.hdr_len);
	params.err_mode = peer_watch(ep, b);
	params.err_handler.cb = uep_err_cb;
	params.err_handler.arg = ep;
	st = ucp_ep_create(dev->w.worker, &params, &ep->uep);
	if (st != UCS_OK) {
		watch_put(ep);
		fabric_dev_unlock(dev);
		DOCA_LOG_DBG("Connection %u: ucp_ep_create: %s", ep->id, ucs_status_string(st));
		if (reason != NULL)
			*reason = "UCX could not create an endpoint to the peer's worker address";
		return fabric_ucs_to_doca(st);
	}
	if (ep->pidfd >= 0) {
		dev->n_watched++;
		fabric_worker_nudge(&dev->w); /* the liveness round is a new deadline of the service thread */
	}
	ep->peer_id = b->conn_id;
	ep->peer_domain = b->domain;
	ep->peer_cookie = b->cookie;
	ep->state = FABRIC_EP_CONNECTED;
	fabric_ep_send_hello(ep);
	fabric_direct_connected(ep);
	fabric_ep_kick(ep);
	fabric_dev_unlock(dev);
	return DOCA_SUCCESS;
}

void
sd_fabric_ep_get_stats(struct fabric_ep *ep, struct fabric_ep_stats *stats)
{
	struct sd_list *pos;

	memset(stats, 0, sizeof(*stats));
	fabric_dev_lock(ep->ctx->dev);
	stats->direct = fabric_ep_direct(ep);
	sd_list_for_each(pos, &ep->inflight) stats->inflight++;
	sd_list_for_each(pos, &ep->deferred) stats->deferred++;
	stats->batched = ep->n_batch;
	stats->inflight += ep->n_batch;
	stats->mapped = ep->n_mapped;
	stats->eager = ep->n_eager;
	stats->image_reads = ep->n_image_reads;
	fabric_dev_unlock(ep->ctx->dev);
}

void
sd_fabric_ep_abort(struct fabric_ep *ep, doca_error_t err)
{
	struct fabric_dev *dev;

	if (ep == NULL)
		return;
	dev = ep->ctx->dev;
	fabric_dev_lock(dev);
	/*
	 * Copies posted before the news of the peer's leaving arrived are done
	 * first, as a NIC executes what it fetched before the disconnect reached
	 * it; a peer that is gone fails them (the AM path then finds the ep dead).
	 */
	if (ep->state == FABRIC_EP_CONNECTED)
		fabric_direct_flush(ep);
	fabric_ep_fail(ep, err);
	/* the owner knows already: no error callback (del leaves the node self-linked) */
	if (ep->err_reported)
		sd_list_del(&ep->err_node);
	fabric_dev_unlock(dev);
}

bool
sd_fabric_ep_is_idle(struct fabric_ep *ep)
{
	bool idle;

	fabric_dev_lock(ep->ctx->dev);
	idle = sd_list_empty(&ep->inflight) && sd_list_empty(&ep->deferred) && ep->n_batch == 0;
	fabric_dev_unlock(ep->ctx->dev);
	return idle;
}

/* Does UCX still hold a request of one of the ep's ops? */
static bool
ep_ucx_pending(const struct fabric_ep *ep)
{
	const struct sd_list *pos;

	sd_list_for_each(pos, &ep->inflight)
	{
		const struct fabric_op *op = sd_container_of(pos, const struct fabric_op, node);

		if (op->pending & FABRIC_OPP_UCX)
			return true;
	}
	return false;
}

/*
 * Progress until a UCP close request completes, for at most 2 s (dev->w.lock
 * held): a forced close normally ends at once, but the library must not
 * hang if UCX never finishes one.  The request is released either way
 * (UCX lets an unfinished request go on without telling us).
 */
/*
 * One round of the worker for a teardown that waits on UCX, then the lock is
 * let go for a moment: the service thread and other application threads of
 * the device go on meanwhile, and whoever progresses completes what we wait
 * for.  Called and returns with dev->w.lock held.
 */
static void
teardown_round(struct fabric_dev *dev)
{
	if (ucp_worker_progress(dev->w.worker) != 0)
		return;
	fabric_dev_unlock(dev);
	sched_yield();
	fabric_dev_lock(dev);
}

static void
close_wait(struct fabric_ep *ep, ucs_status_ptr_t req)
{
	struct fabric_dev *dev = ep->ctx->dev;
	uint64_t deadline = sd_now_ns() + 2000000000ull;

	while (ucp_request_check_status(req) == UCS_INPROGRESS) {
		if (sd_now_ns() > deadline) {
			DOCA_LOG_WARN("Connection %u: UCX did not finish closing its endpoint in 2 s; going on",
				      ep->id);
			break;
		}
		teardown_round(dev);
	}
	ucp_request_free(req);
}

/*
 * Let UCX finish the requests it holds for a connected ep first (sends
 * complete locally once on the wire): UCX 1.13 may still call back a request
 * that was waiting for wireup after a forced close, which would find its op
 * already completed and reused.  Bounded: a peer that never answers leaves
 * them to the forced close.  dev->w.lock held.
 */
static void
ep_drain(struct fabric_ep *ep)
{
	struct fabric_dev *dev = ep->ctx->dev;
	uint64_t deadline = sd_now_ns() + 1000000000ull;
	ucp_request_param_t fprm = {0};
	ucs_status_ptr_t freq;

	/* copies the application posted are done before the teardown */
	fabric_direct_flush(ep);
	while (ep_ucx_pending(ep) && sd_now_ns() < deadline)
		teardown_round(dev);
	/* what the peer is owed (an ack not yet piggybacked) leaves before the close */
	if (ep->ack_sent != ep->rx_base)
		fabric_ep_send_ctrl(ep, FABRIC_AM_ACK, 0, 0, NULL, 0, NULL, 0, false);
	freq = ucp_ep_flush_nbx(ep->uep, &fprm);
	if (UCS_PTR_IS_PTR(freq)) {
		while (ucp_request_check_status(freq) == UCS_INPROGRESS && sd_now_ns() < deadline)
			teardown_round(dev);
		ucp_request_free(freq);
	}
}

/*
 * Rendezvous receives into this ep's messages must not outlive it.  A forced
 * close ends them in UCX; should one still run after 2 s, the ep is to be
 * left allocated (its callback may yet come) instead of freed under it:
 * returns true then.  dev->w.lock held.
 */
static bool
ep_rx_wait(struct fabric_ep *ep)
{
	for (uint64_t until = sd_now_ns() + 2000000000ull; ep->pending_rx > 0 && sd_now_ns() < until;)
		teardown_round(ep->ctx->dev);
	if (ep->pending_rx > 0) {
		DOCA_LOG_ERR("Connection %u: %u receives still running in UCX 2 s after its forced close; the "
			     "connection's memory is left allocated",
			     ep->id, ep->pending_rx);
		return true;
	}
	return false;
}

/* The receives on list that ep filled stop pointing at it. */
static void
recvs_forget_ep(struct sd_list *list, const struct fabric_ep *ep)
{
	struct sd_list *pos;

	sd_list_for_each(pos, list)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if (op->type == FABRIC_OP_RECV && op->src_ep == ep)
			op->src_ep = NULL;
	}
}

void
sd_fabric_ep_destroy(struct fabric_ep *ep)
{
	struct fabric_dev *dev;
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	bool leak;

	if (ep == NULL)
		return;
	dev = ep->ctx->dev;
	fabric_dev_lock(dev);
	if (ep->uep != NULL && ep->state == FABRIC_EP_CONNECTED)
		ep_drain(ep);
	fabric_ep_fail(ep, DOCA_ERROR_CONNECTION_ABORTED);
	/* no error callback for a connection the owner is tearing down */
	if (ep->err_reported)
		sd_list_del(&ep->err_node);
	if (ep->close_req != NULL) {
		close_wait(ep, ep->close_req);
		ep->close_req = NULL;
	}
	if (ep->pidfd >= 0)
		dev->n_watched--;
	watch_put(ep);
	fabric_direct_forget(ep);
	if (ep->uep != NULL) {
		prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
		req = ucp_ep_close_nbx(ep->uep, &prm);
		if (UCS_PTR_IS_PTR(req))
			close_wait(ep, req);
		ep->uep = NULL;
	}
	leak = ep_rx_wait(ep);
	/* whatever UCX did not call back for after a forced close ends here */
	while (!sd_list_empty(&ep->inflight)) {
		struct fabric_op *op = sd_container_of(ep->inflight.next, struct fabric_op, node);

		fabric_op_orphan(op);
		sd_list_del(&op->node);
		fabric_complete(op, DOCA_ERROR_CONNECTION_ABORTED);
	}
	/*
	 * Receives this ep filled, not yet delivered, must not point at it any
	 * more: queued ones, and those of the batch sd_fabric_ctx_progress() is
	 * delivering when a callback of that batch destroys the ep.
	 */
	recvs_forget_ep(&ep->ctx->completions, ep);
	recvs_forget_ep(&ep->ctx->delivering, ep);
	fabric_id_free((void **)dev->eps, dev->eps_cap, ep->id);
	sd_list_del(&ep->node);
	fabric_dev_unlock(dev);
	if (leak)
		return;
	free(ep->blob);
	free(ep);
}
