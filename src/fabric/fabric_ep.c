/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: a UCP endpoint plus the state that turns UCP into RC semantics
 * (sequence numbers, cumulative acks, the ordering rule, the ack window), the
 * posting of every op type, and the active-message handler of the receiver.
 *
 * Op life cycle (all under dev->lock):
 *   post -> deferred   while not connected, held by ordering or the window
 *        -> inflight   issued; op->pending says what is awaited (UCX, ACK)
 *        -> ctx->completions when pending reaches 0 or on error
 * Ordering: ep->onesided counts writes/atomics not yet remotely complete;
 * SEND/SEND_IMM/WRITE_IMM notifications are not issued while it is non-zero,
 * and once anything is deferred, later ops queue behind it (FIFO).
 */
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <errno.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "fabric_internal.h"
#include "../core/sd_log.h"
#include "../util/sd_copy.h"
#include "../util/sd_random.h"

SD_LOG_REGISTER(fabric.ep);

static inline bool
seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static bool
needs_ack(const struct fabric_op *op, enum fabric_write_mode mode)
{
	switch (op->type) {
	case FABRIC_OP_SEND:
	case FABRIC_OP_SEND_IMM:
		return true;
	case FABRIC_OP_WRITE:
		return mode == FABRIC_WRITE_AM;
	case FABRIC_OP_WRITE_IMM:
		return op->stage == 1 || mode == FABRIC_WRITE_AM;
	default:
		return false;
	}
}

static bool
is_message(const struct fabric_op *op)
{
	return op->type == FABRIC_OP_SEND || op->type == FABRIC_OP_SEND_IMM ||
	       (op->type == FABRIC_OP_WRITE_IMM && op->stage == 1);
}

static ucp_ep_h
ep_uep(const struct fabric_ep *ep)
{
	return ep->uep != NULL ? ep->uep : ep->reply_uep;
}

static void
hdr_init(struct fabric_ep *ep, struct fabric_am_hdr *h, uint8_t type)
{
	memset(h, 0, sizeof(*h));
	h->magic = FABRIC_AM_MAGIC;
	h->version = FABRIC_PROTO_VERSION;
	h->type = type;
	h->dst_id = ep->peer_id;
	h->cookie = ep->peer_cookie;
	h->src_id = ep->id;
	h->src_cookie = ep->cookie;
	/* piggyback: every message carries the cumulative ack */
	h->ack = ep->rx_base;
	ep->ack_sent = ep->rx_base;
}

/* ---- UCX completion callbacks (dev->lock held: inside progress) ---- */

static void write_stage_done(struct fabric_op *op, doca_error_t status);
static void ep_kick(struct fabric_ep *ep);

/* The data part of a WRITE/WRITE_IMM travelling as an AM (acked like a message). */
static bool
is_am_write_stage(const struct fabric_op *op)
{
	return op->ep->write_mode == FABRIC_WRITE_AM &&
	       (op->type == FABRIC_OP_WRITE || (op->type == FABRIC_OP_WRITE_IMM && op->stage == 0));
}

/*
 * UCX callbacks get a ticket, not the op: when an op must complete before UCX
 * is done with its request (forced close of a dead or torn-down endpoint; UCX
 * 1.13 may call back a request that waited for wireup even after that), the
 * ticket is orphaned and the late callback only frees it.  Atomic replies land
 * in the ticket for the same reason.
 */
struct fabric_ticket {
	struct fabric_ticket_link link; /* in dev->ticket_cache while free */
	struct fabric_dev *dev;
	struct fabric_op *op;
	uint64_t reply;
};

/*
 * Tickets are recycled through dev->ticket_cache (they move only with
 * dev->lock held): a malloc/free pair per send cost a third of the post path
 * of an 8-byte send.  The cache is freed with the device's last ctx, so a
 * ticket returned while no ctx exists is freed at once.
 */
static struct fabric_ticket *
ticket_new(struct fabric_op *op)
{
	struct fabric_dev *dev = op->ctx->dev;
	struct fabric_ticket *t;

	if (dev->ticket_cache != NULL) {
		t = sd_container_of(dev->ticket_cache, struct fabric_ticket, link);
		dev->ticket_cache = t->link.next;
		dev->n_ticket_cache--;
	} else {
		t = malloc(sizeof(*t));
		if (t == NULL)
			return NULL;
		t->dev = dev;
	}
	t->op = op;
	op->ticket = t;
	return t;
}

static void
ticket_put(struct fabric_ticket *t)
{
	struct fabric_dev *dev = t->dev;

	if (dev->n_ticket_cache >= FABRIC_TICKET_CACHE_MAX || sd_list_empty(&dev->ctxs)) {
		free(t);
		return;
	}
	t->link.next = dev->ticket_cache;
	dev->ticket_cache = &t->link;
	dev->n_ticket_cache++;
}

/* UCX will not call back (immediate completion or error): drop the ticket. */
static void
ticket_drop(struct fabric_op *op)
{
	ticket_put(op->ticket);
	op->ticket = NULL;
}

/* In a callback: the op, or NULL when it was completed without UCX (orphaned). */
static struct fabric_op *
ticket_take(void *request, void *user)
{
	struct fabric_ticket *t = user;
	struct fabric_op *op = t->op;

	ucp_request_free(request);
	if (op != NULL)
		op->ticket = NULL;
	ticket_put(t);
	return op;
}

void
fabric_op_orphan(struct fabric_op *op)
{
	if (op->ticket != NULL) {
		op->ticket->op = NULL;
		op->ticket = NULL;
	}
}

static void
op_ucx_cb(void *request, ucs_status_t st, void *user)
{
	struct fabric_op *op = ticket_take(request, user);

	if (op == NULL)
		return;
	if (st != UCS_OK && op->status == DOCA_SUCCESS)
		op->status = fabric_ucs_to_doca(st);
	op->pending &= (uint16_t)~FABRIC_OPP_UCX;
	if (is_am_write_stage(op)) {
		/* the ack may have come first; whoever is last finishes the stage */
		if (op->pending == 0)
			write_stage_done(op, op->status);
		return;
	}
	fabric_op_done_bits(op, 0, DOCA_SUCCESS);
}

static void
put_flush_cb(void *request, ucs_status_t st, void *user)
{
	struct fabric_op *op = ticket_take(request, user);

	if (op == NULL)
		return;
	op->pending &= (uint16_t)~FABRIC_OPP_UCX;
	write_stage_done(op, fabric_ucs_to_doca(st));
}

static void
atomic_cb(void *request, ucs_status_t st, void *user)
{
	uint64_t reply = ((struct fabric_ticket *)user)->reply;
	struct fabric_op *op = ticket_take(request, user);
	struct fabric_ep *ep;

	if (op == NULL)
		return;
	ep = op->ep;
	*op->result = reply;
	ep->onesided--;
	fabric_op_done_bits(op, FABRIC_OPP_UCX, fabric_ucs_to_doca(st));
	ep_kick(ep);
}

static void
ctrl_cb(void *request, ucs_status_t st, void *user)
{
	ucp_request_free(request);
	free(user);
}

/* Send a header-only control message (ACK/NAK); its header lives until UCX is done. */
static void
send_ctrl(struct fabric_ep *ep, uint8_t type, uint32_t seq, uint32_t aux)
{
	ucp_request_param_t prm = {0};
	struct fabric_am_hdr *h;
	ucs_status_ptr_t req;
	ucp_ep_h uep = ep_uep(ep);

	if (uep == NULL)
		return;
	h = malloc(sizeof(*h));
	if (h == NULL)
		return;
	hdr_init(ep, h, type);
	h->seq = seq;
	h->aux = aux;
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = ctrl_cb;
	prm.user_data = h;
	prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
	req = ucp_am_send_nbx(uep, FABRIC_AM_ID, h, sizeof(*h), NULL, 0, &prm);
	if (!UCS_PTR_IS_PTR(req))
		free(h);
}

static void
ctrl_changed_cb(void *request, ucs_status_t st, void *user)
{
	(void)st;
	ucp_request_free(request);
	free(user);
}

void
sd_fabric_ep_notify_changed(struct fabric_ep *ep, struct fabric_rmr *rmr, uint64_t raddr)
{
	struct {
		struct fabric_am_hdr h;
		struct fabric_am_write w;
	} *m;
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	ucp_ep_h uep;

	if (ep == NULL || rmr == NULL)
		return;
	fabric_dev_lock(ep->ctx->dev);
	uep = ep->state == FABRIC_EP_CONNECTED ? ep_uep(ep) : NULL;
	m = uep != NULL ? calloc(1, sizeof(*m)) : NULL;
	if (m != NULL) {
		hdr_init(ep, &m->h, FABRIC_AM_CHANGED);
		m->w.raddr = raddr;
		m->w.mr_id = rmr->mr_id;
		memcpy(m->w.key, rmr->key, sizeof(m->w.key));
		prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
		prm.cb.send = ctrl_changed_cb;
		prm.user_data = m;
		prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
		req = ucp_am_send_nbx(uep, FABRIC_AM_ID, m, sizeof(*m), NULL, 0, &prm);
		if (!UCS_PTR_IS_PTR(req))
			free(m);
	}
	fabric_dev_unlock(ep->ctx->dev);
}

/* A peer's atomic changed one of our ranges: its owner may have waiters. */
static void
rx_changed(struct fabric_dev *dev, const struct fabric_am_write *w)
{
	struct fabric_mr *mr = fabric_mr_lookup(dev, w->mr_id);

	if (mr == NULL || memcmp(mr->key, w->key, sizeof(mr->key)) != 0 || mr->notify == NULL)
		return;
	if (w->raddr < (uint64_t)(uintptr_t)mr->addr || w->raddr - (uint64_t)(uintptr_t)mr->addr >= mr->len)
		return;
	mr->notify(mr->notify_arg);
}

void
fabric_ep_send_nak(struct fabric_ep *ep, uint32_t seq, uint32_t status)
{
	send_ctrl(ep, FABRIC_AM_NAK, seq, status);
}

void
fabric_acks_flush(struct fabric_dev *dev)
{
	struct sd_list *pos;

	while ((pos = sd_list_pop_head(&dev->ack_eps)) != NULL) {
		struct fabric_ep *ep = sd_container_of(pos, struct fabric_ep, ack_node);

		ep->ack_queued = false;
		if (ep->state != FABRIC_EP_ERROR && ep->ack_sent != ep->rx_base)
			send_ctrl(ep, FABRIC_AM_ACK, 0, 0);
	}
}

void
fabric_ep_rx_placed(struct fabric_ep *ep, uint32_t seq)
{
	uint32_t off = seq - ep->rx_base;

	if (off >= 64)
		return; /* outside the window: a peer bug; the ack will never cover it */
	ep->rx_done |= 1ull << off;
	while (ep->rx_done & 1) {
		ep->rx_done >>= 1;
		ep->rx_base++;
	}
	if (ep->rx_base != ep->ack_sent && !ep->ack_queued) {
		ep->ack_queued = true;
		sd_list_insert_tail(&ep->ctx->dev->ack_eps, &ep->ack_node);
	}
}

/* ---- issuing ---- */

static bool
op_blocked(const struct fabric_ep *ep, const struct fabric_op *op)
{
	if (needs_ack(op, ep->write_mode) && ep->n_inflight_acked >= FABRIC_WINDOW)
		return true;
	return is_message(op) && ep->onesided > 0;
}

static doca_error_t
issue_am(struct fabric_ep *ep, struct fabric_op *op, uint8_t type, const void *buf, size_t len, size_t hlen)
{
	struct fabric_am_hdr *h = (struct fabric_am_hdr *)op->wire;
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;

	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = op_ucx_cb;
	prm.user_data = ticket_new(op);
	if (prm.user_data == NULL)
		return DOCA_ERROR_NO_MEMORY;
	prm.flags = UCP_AM_SEND_FLAG_REPLY;
	h->type = type;
	op->seq = ep->tx_seq++;
	h->seq = op->seq;
	op->pending = FABRIC_OPP_ACK | FABRIC_OPP_UCX;
	ep->n_inflight_acked++;
	sd_list_insert_tail(&ep->inflight, &op->node);
	req = ucp_am_send_nbx(ep_uep(ep), FABRIC_AM_ID, h, hlen, buf, len, &prm);
	if (UCS_PTR_IS_ERR(req)) {
		ticket_drop(op);
		sd_list_del(&op->node);
		ep->n_inflight_acked--;
		ep->tx_seq--;
		return fabric_ucs_to_doca(UCS_PTR_STATUS(req));
	}
	if (req == NULL) {
		ticket_drop(op);
		op->pending &= (uint16_t)~FABRIC_OPP_UCX;
	}
	return DOCA_SUCCESS;
}

/*
 * Where [raddr, +len) of the peer's range shows in our address space when it
 * lies in the peer's shared window (fabric_window.c), mapped on first use;
 * NULL: not in a window, or the window cannot be had.
 */
static uint8_t *
window_view(struct fabric_ep *ep, struct fabric_rmr *rmr, uint64_t raddr, size_t len)
{
	const struct fabric_window_desc *w = rmr != NULL ? &rmr->win : NULL;

	if (w == NULL || w->len == 0 || raddr < w->addr || len > w->len || raddr - w->addr > w->len - len)
		return NULL;
	if (!rmr->win_tried) {
		rmr->win_tried = true;
		if (w->pid == ep->peer_pid && w->pid_ns == ep->ctx->dev->pid_ns)
			rmr->win_view = fabric_window_map(ep->pidfd, w->fd, w->ino, w->len);
	}
	if (rmr->win_view == NULL || w->pid != ep->peer_pid)
		return NULL;
	return rmr->win_view + (raddr - w->addr);
}

/*
 * Copy between local memory and the same-host peer's memory with the kernel
 * (one copy, the peer is not involved).  Returns false when the kernel
 * refused or the range is not fully mapped: the caller falls back to UCX,
 * which reports the error the peer's memory deserves.
 */
static bool
cma_copy(struct fabric_ep *ep, struct fabric_rmr *rmr, void *buf, size_t len, uint64_t raddr, bool write)
{
	size_t done = 0;
	uint8_t *view = window_view(ep, rmr, raddr, len);

	if (view != NULL) {
		if (write)
			sd_copy(view, buf, len);
		else
			sd_copy(buf, view, len);
		/* the bytes before whatever tells the peer about them (a send, an imm) */
		atomic_thread_fence(memory_order_release);
		return true;
	}

	while (done < len) {
		struct iovec l = {.iov_base = (uint8_t *)buf + done, .iov_len = len - done};
		struct iovec r = {.iov_base = (void *)(uintptr_t)(raddr + done), .iov_len = len - done};
		ssize_t n = write ? process_vm_writev((pid_t)ep->peer_pid, &l, 1, &r, 1, 0)
				  : process_vm_readv((pid_t)ep->peer_pid, &l, 1, &r, 1, 0);

		if (n <= 0) {
			if (n < 0 && (errno == EPERM || errno == ENOSYS || errno == ESRCH)) {
				DOCA_LOG_INFO("Connection %u: direct copy to peer refused (%s); using UCX", ep->id,
					      strerror(errno));
				ep->cma = false;
			}
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

static doca_error_t issue(struct fabric_ep *ep, struct fabric_op *op);

static doca_error_t
issue_write(struct fabric_ep *ep, struct fabric_op *op)
{
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	ucp_rkey_h rkey;

	if (ep->write_mode == FABRIC_WRITE_AM) {
		struct fabric_am_hdr *h = (struct fabric_am_hdr *)op->wire;
		struct fabric_am_write *w = (struct fabric_am_write *)(h + 1);
		doca_error_t err;

		hdr_init(ep, h, FABRIC_AM_WRITE);
		memset(w, 0, sizeof(*w));
		w->raddr = op->raddr;
		w->mr_id = op->rmr->mr_id;
		memcpy(w->key, op->rmr->key, sizeof(w->key));
		err = issue_am(ep, op, FABRIC_AM_WRITE, op->buf, op->buf_len, sizeof(*h) + sizeof(*w));
		if (err == DOCA_SUCCESS)
			ep->onesided++;
		return err;
	}
	if (ep->cma && ep->onesided == 0 && cma_copy(ep, op->rmr, op->buf, op->buf_len, op->raddr, true)) {
		/* visible at the target as the syscall returns: complete now */
		if (op->type == FABRIC_OP_WRITE) {
			fabric_complete(op, DOCA_SUCCESS);
			return DOCA_SUCCESS;
		}
		/* WRITE_IMM: its notification follows at once (no recursion through ep_kick) */
		op->stage = 1;
		if (op_blocked(ep, op)) {
			sd_list_insert_head(&ep->deferred, &op->node);
			return DOCA_SUCCESS;
		}
		return issue(ep, op);
	}
	rkey = fabric_rmr_rkey(op->rmr, ep);
	if (rkey == NULL)
		return DOCA_ERROR_NOT_PERMITTED;
	req = ucp_put_nbx(ep->uep, op->buf, op->buf_len, op->raddr, rkey, &prm);
	if (UCS_PTR_IS_ERR(req))
		return fabric_ucs_to_doca(UCS_PTR_STATUS(req));
	if (req != NULL)
		ucp_request_free(req); /* completes in the background; the flush below covers it */
	/* A write completes when its data is visible remotely: flush the ep. */
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	prm.cb.send = put_flush_cb;
	prm.user_data = ticket_new(op);
	if (prm.user_data == NULL)
		return DOCA_ERROR_NO_MEMORY;
	op->pending = FABRIC_OPP_UCX;
	sd_list_insert_tail(&ep->inflight, &op->node);
	ep->onesided++;
	req = ucp_ep_flush_nbx(ep->uep, &prm);
	if (UCS_PTR_IS_ERR(req)) {
		ticket_drop(op);
		sd_list_del(&op->node);
		ep->onesided--;
		return fabric_ucs_to_doca(UCS_PTR_STATUS(req));
	}
	if (req == NULL) {
		ticket_drop(op);
		op->pending = 0;
		write_stage_done(op, DOCA_SUCCESS);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
issue_rma(struct fabric_ep *ep, struct fabric_op *op)
{
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	ucp_rkey_h rkey;

	if (op->type == FABRIC_OP_READ && ep->cma && cma_copy(ep, op->rmr, op->buf, op->buf_len, op->raddr, false)) {
		op->len = (uint32_t)op->buf_len;
		fabric_complete(op, DOCA_SUCCESS);
		return DOCA_SUCCESS;
	}
	rkey = fabric_rmr_rkey(op->rmr, ep);
	if (rkey == NULL)
		return DOCA_ERROR_NOT_PERMITTED;
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	prm.user_data = ticket_new(op);
	if (prm.user_data == NULL)
		return DOCA_ERROR_NO_MEMORY;
	op->pending = FABRIC_OPP_UCX;
	sd_list_insert_tail(&ep->inflight, &op->node);
	if (op->type == FABRIC_OP_READ) {
		prm.cb.send = op_ucx_cb;
		op->len = (uint32_t)op->buf_len;
		req = ucp_get_nbx(ep->uep, op->buf, op->buf_len, op->raddr, rkey, &prm);
	} else {
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
		prm.cb.send = atomic_cb;
		prm.datatype = ucp_dt_make_contig(8);
		prm.reply_buffer = &op->ticket->reply;
		if (op->type == FABRIC_OP_CMP_SWP)
			op->ticket->reply = op->operand[1]; /* UCX: reply buffer holds the swap value in */
		ep->onesided++;
		req = ucp_atomic_op_nbx(ep->uep,
					op->type == FABRIC_OP_CMP_SWP ? UCP_ATOMIC_OP_CSWAP : UCP_ATOMIC_OP_ADD,
					&op->operand[0], 1, op->raddr, rkey, &prm);
	}
	if (UCS_PTR_IS_ERR(req)) {
		ticket_drop(op);
		sd_list_del(&op->node);
		if (op->type != FABRIC_OP_READ)
			ep->onesided--;
		return fabric_ucs_to_doca(UCS_PTR_STATUS(req));
	}
	if (req == NULL) {
		if (op->type != FABRIC_OP_READ) {
			*op->result = op->ticket->reply;
			ep->onesided--;
		}
		ticket_drop(op);
		fabric_op_done_bits(op, FABRIC_OPP_UCX, DOCA_SUCCESS);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
issue(struct fabric_ep *ep, struct fabric_op *op)
{
	struct fabric_am_hdr *h = (struct fabric_am_hdr *)op->wire;

	switch (op->type) {
	case FABRIC_OP_SEND:
	case FABRIC_OP_SEND_IMM:
		hdr_init(ep, h, 0);
		h->imm = op->imm;
		return issue_am(ep, op, op->type == FABRIC_OP_SEND ? FABRIC_AM_SEND : FABRIC_AM_SEND_IMM, op->buf,
				op->buf_len, sizeof(*h));
	case FABRIC_OP_WRITE_IMM:
		if (op->stage == 1) {
			hdr_init(ep, h, 0);
			h->imm = op->imm;
			h->aux = (uint32_t)op->buf_len;
			return issue_am(ep, op, FABRIC_AM_WRITE_IMM, NULL, 0, sizeof(*h));
		}
		/* stage 0 is a plain write */
		__attribute__((fallthrough));
	case FABRIC_OP_WRITE:
		return issue_write(ep, op);
	default:
		return issue_rma(ep, op);
	}
}

/* Issue deferred ops in order until one is blocked. */
static void
ep_kick(struct fabric_ep *ep)
{
	struct fabric_op *op;
	doca_error_t err;

	while (ep->state == FABRIC_EP_CONNECTED && !sd_list_empty(&ep->deferred)) {
		op = sd_container_of(ep->deferred.next, struct fabric_op, node);
		if (op_blocked(ep, op))
			return;
		sd_list_del(&op->node);
		err = issue(ep, op);
		if (err != DOCA_SUCCESS)
			fabric_complete(op, err);
	}
}

/*
 * The data part of a write finished (put flushed or AM write acked): a
 * WRITE_IMM goes on with its notification, ahead of everything deferred.
 */
static void
write_stage_done(struct fabric_op *op, doca_error_t status)
{
	struct fabric_ep *ep = op->ep;

	ep->onesided--;
	if (status != DOCA_SUCCESS || op->type == FABRIC_OP_WRITE || op->status != DOCA_SUCCESS) {
		fabric_op_done_bits(op, 0, status);
		ep_kick(ep);
		return;
	}
	sd_list_del(&op->node);
	op->stage = 1;
	op->pending = 0;
	sd_list_insert_head(&ep->deferred, &op->node);
	ep_kick(ep);
}

/* Everything below seq `ack` was placed by the peer. */
static void
ep_acked(struct fabric_ep *ep, uint32_t ack)
{
	struct sd_list *pos, *tmp;

	sd_list_for_each_safe(pos, tmp, &ep->inflight)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if (!(op->pending & FABRIC_OPP_ACK))
			continue;
		if (!seq_before(op->seq, ack))
			break;
		ep->n_inflight_acked--;
		if (op->type == FABRIC_OP_WRITE || (op->type == FABRIC_OP_WRITE_IMM && op->stage == 0)) {
			op->pending &= (uint16_t)~FABRIC_OPP_ACK;
			if (op->pending == 0)
				write_stage_done(op, DOCA_SUCCESS);
			/* else: the UCX send callback is still due; it finishes the op */
			continue;
		}
		fabric_op_done_bits(op, FABRIC_OPP_ACK, DOCA_SUCCESS);
	}
	ep_kick(ep);
}

static doca_error_t
ep_post(struct fabric_ep *ep, struct fabric_op *op)
{
	struct fabric_dev *dev = ep->ctx->dev;
	doca_error_t err = DOCA_SUCCESS;

	if (op->cb == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	op->ep = ep;
	op->ctx = ep->ctx;
	op->status = DOCA_SUCCESS;
	op->pending = 0;
	op->stage = 0;
	op->src_ep = NULL;
	fabric_dev_lock(dev);
	if (ep->state == FABRIC_EP_ERROR) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (ep->state != FABRIC_EP_CONNECTED || !sd_list_empty(&ep->deferred) || op_blocked(ep, op)) {
		sd_list_insert_tail(&ep->deferred, &op->node);
	} else {
		err = issue(ep, op);
	}
	fabric_dev_unlock(dev);
	return err;
}

/* Initiator-side check of a one-sided access against the imported range. */
static doca_error_t
check_remote(const struct fabric_rmr *rmr, uint64_t raddr, size_t len, uint32_t perm)
{
	if (rmr == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!(rmr->perms & perm))
		return DOCA_ERROR_NOT_PERMITTED;
	if (raddr < rmr->addr || len > rmr->len || raddr - rmr->addr > rmr->len - len)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_ep_send(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len)
{
	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	op->type = FABRIC_OP_SEND;
	op->buf = (void *)(uintptr_t)buf;
	op->buf_len = len;
	op->imm = 0;
	return ep_post(ep, op);
}

doca_error_t
sd_fabric_ep_send_imm(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len, uint32_t imm)
{
	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	op->type = FABRIC_OP_SEND_IMM;
	op->buf = (void *)(uintptr_t)buf;
	op->buf_len = len;
	op->imm = imm;
	return ep_post(ep, op);
}

static doca_error_t
post_write(struct fabric_ep *ep, struct fabric_op *op, enum fabric_op_type type, const void *buf, size_t len,
	   struct fabric_rmr *rmr, uint64_t raddr, uint32_t imm)
{
	doca_error_t err;

	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	err = check_remote(rmr, raddr, len, FABRIC_PERM_REMOTE_WRITE);
	if (err != DOCA_SUCCESS)
		return err;
	op->type = type;
	op->buf = (void *)(uintptr_t)buf;
	op->buf_len = len;
	op->rmr = rmr;
	op->raddr = raddr;
	op->imm = imm;
	return ep_post(ep, op);
}

doca_error_t
sd_fabric_ep_write(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len, struct fabric_rmr *rmr,
		   uint64_t raddr)
{
	return post_write(ep, op, FABRIC_OP_WRITE, buf, len, rmr, raddr, 0);
}

doca_error_t
sd_fabric_ep_write_imm(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len, struct fabric_rmr *rmr,
		       uint64_t raddr, uint32_t imm)
{
	return post_write(ep, op, FABRIC_OP_WRITE_IMM, buf, len, rmr, raddr, imm);
}

doca_error_t
sd_fabric_ep_read(struct fabric_ep *ep, struct fabric_op *op, void *buf, size_t len, struct fabric_rmr *rmr,
		  uint64_t raddr)
{
	doca_error_t err;

	if (ep == NULL || op == NULL || (buf == NULL && len != 0) || len > UINT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	err = check_remote(rmr, raddr, len, FABRIC_PERM_REMOTE_READ);
	if (err != DOCA_SUCCESS)
		return err;
	op->type = FABRIC_OP_READ;
	op->buf = buf;
	op->buf_len = len;
	op->rmr = rmr;
	op->raddr = raddr;
	return ep_post(ep, op);
}

static doca_error_t
post_atomic(struct fabric_ep *ep, struct fabric_op *op, enum fabric_op_type type, struct fabric_rmr *rmr,
	    uint64_t raddr, uint64_t a, uint64_t b, uint64_t *result)
{
	doca_error_t err;

	if (ep == NULL || op == NULL || result == NULL || (raddr & 7) != 0)
		return DOCA_ERROR_INVALID_VALUE;
	err = check_remote(rmr, raddr, 8, FABRIC_PERM_REMOTE_ATOMIC);
	if (err != DOCA_SUCCESS)
		return err;
	op->type = type;
	op->rmr = rmr;
	op->raddr = raddr;
	op->operand[0] = a;
	op->operand[1] = b;
	op->result = result;
	return ep_post(ep, op);
}

doca_error_t
sd_fabric_ep_fetch_add(struct fabric_ep *ep, struct fabric_op *op, struct fabric_rmr *rmr, uint64_t raddr, uint64_t add,
		       uint64_t *result)
{
	return post_atomic(ep, op, FABRIC_OP_FETCH_ADD, rmr, raddr, add, 0, result);
}

doca_error_t
sd_fabric_ep_cmp_swp(struct fabric_ep *ep, struct fabric_op *op, struct fabric_rmr *rmr, uint64_t raddr, uint64_t cmp,
		     uint64_t swap, uint64_t *result)
{
	return post_atomic(ep, op, FABRIC_OP_CMP_SWP, rmr, raddr, cmp, swap, result);
}

/* ---- failure ---- */

void
fabric_unexp_free(struct fabric_dev *dev, struct fabric_unexp *u)
{
	if (u->rndv_desc != NULL)
		ucp_am_data_release(dev->worker, u->rndv_desc);
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
		if (op->status == DOCA_SUCCESS)
			op->status = err;
		if (op->pending == 0) {
			sd_list_del(&op->node);
			fabric_complete(op, op->status);
		}
	}
	while ((pos = sd_list_pop_head(&ep->deferred)) != NULL)
		fabric_complete(sd_container_of(pos, struct fabric_op, node), err);
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

		if (!(op->pending & FABRIC_OPP_UCX))
			continue;
		/* the connection is dead: its ordering state no longer matters */
		fabric_op_orphan(op);
		sd_list_del(&op->node);
		fabric_complete(op, op->status != DOCA_SUCCESS ? op->status : err);
	}
}

/*
 * Poll the pidfds of same-host peers (at most every 200 ms; dev->lock held).
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
	now = fabric_now_ns();
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
			ucp_request_param_t prm = {0};
			ucs_status_ptr_t req;

			if (ep->pidfd < 0 || ep->uep == NULL || poll(&pfd, 1, 0) <= 0)
				continue;
			DOCA_LOG_INFO("Connection %u lost: peer process exited", ep->id);
			fabric_ep_fail(ep, DOCA_ERROR_CONNECTION_RESET);
			fabric_rmr_forget_ep(dev, ep);
			prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
			prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
			req = ucp_ep_close_nbx(ep->uep, &prm);
			ep->close_req = UCS_PTR_IS_PTR(req) ? req : NULL;
			ep->uep = NULL;
			ep->reply_uep = NULL;
			/* requests UCX did not give back (e.g. waiting for wireup) never will: finish their ops */
			fabric_ep_complete_orphans(ep, DOCA_ERROR_CONNECTION_RESET);
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

doca_error_t
sd_fabric_ep_create(struct fabric_ctx *ctx, void *user, struct fabric_ep **out)
{
	struct fabric_dev *dev;
	struct fabric_ep *ep;
	struct fabric_conn_blob *b;
	ucp_worker_attr_t wattr = {0};
	ucs_status_t st;
	doca_error_t err;

	if (ctx == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	dev = ctx->dev;
	ep = calloc(1, sizeof(*ep));
	if (ep == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ep->ctx = ctx;
	ep->user = user;
	ep->tx_seq = 1;
	ep->rx_base = 1;
	ep->ack_sent = 1;
	ep->pidfd = -1;
	sd_list_init(&ep->inflight);
	sd_list_init(&ep->deferred);
	sd_list_init(&ep->err_node);
	sd_list_init(&ep->ack_node);
	err = sd_random_bytes(&ep->cookie, sizeof(ep->cookie));
	if (err != DOCA_SUCCESS)
		goto cleanup_ep;

	fabric_dev_lock(dev);
	wattr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS;
	st = ucp_worker_query(dev->worker, &wattr);
	if (st != UCS_OK) {
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to query UCP worker address: %s", ucs_status_string(st));
		err = DOCA_ERROR_DRIVER;
		goto cleanup_ep;
	}
	ep->blob_len = sizeof(*b) + wattr.address_length;
	if (ep->blob_len > FABRIC_BLOB_MAX) {
		ucp_worker_release_address(dev->worker, wattr.address);
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to export connection: UCX worker address of %zu bytes exceeds %u",
			     wattr.address_length, FABRIC_BLOB_MAX);
		err = DOCA_ERROR_TOO_BIG;
		goto cleanup_ep;
	}
	ep->blob = calloc(1, ep->blob_len);
	if (ep->blob == NULL) {
		ucp_worker_release_address(dev->worker, wattr.address);
		fabric_dev_unlock(dev);
		err = DOCA_ERROR_NO_MEMORY;
		goto cleanup_ep;
	}
	memcpy(ep->blob + sizeof(*b), wattr.address, wattr.address_length);
	ucp_worker_release_address(dev->worker, wattr.address);
	err = fabric_id_alloc((void ***)&dev->eps, &dev->eps_cap, ep, &ep->id);
	if (err != DOCA_SUCCESS) {
		fabric_dev_unlock(dev);
		goto cleanup_blob;
	}
	sd_list_insert_tail(&ctx->eps, &ep->node);
	fabric_dev_unlock(dev);

	b = (struct fabric_conn_blob *)ep->blob;
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
	*out = ep;
	return DOCA_SUCCESS;

cleanup_blob:
	free(ep->blob);
cleanup_ep:
	free(ep);
	return err;
}

void *
sd_fabric_ep_get_user(const struct fabric_ep *ep)
{
	return ep ? ep->user : NULL;
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

static enum fabric_write_mode
pick_write_mode(const struct fabric_dev *dev, const struct fabric_conn_blob *peer)
{
	if (dev->write_mode_override >= 0)
		return (enum fabric_write_mode)dev->write_mode_override;
	/* puts through shm/cma run at tens of GB/s */
	if (same_host(dev, peer))
		return FABRIC_WRITE_PUT;
	/* Over tcp UCX puts are an order of magnitude slower than rendezvous AMs. */
	return FABRIC_WRITE_AM;
}

doca_error_t
sd_fabric_ep_connect(struct fabric_ep *ep, const void *blob, size_t len)
{
	const struct fabric_conn_blob *b = blob;
	ucp_ep_params_t params = {0};
	struct fabric_dev *dev;
	ucs_status_t st;

	if (ep == NULL || blob == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (len < FABRIC_CONN_BLOB_V1_LEN || len > FABRIC_BLOB_MAX || b->hdr.magic != FABRIC_CONN_MAGIC ||
	    b->hdr.hdr_len < FABRIC_CONN_BLOB_V1_LEN || b->hdr.hdr_len > len || b->hdr.total_len != len ||
	    b->addr_len == 0 ||
	    b->addr_len > len - b->hdr.hdr_len || b->conn_id == 0) {
		DOCA_LOG_ERR("Failed to connect: malformed connection descriptor (%zu bytes)", len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (b->hdr.version != FABRIC_PROTO_VERSION) {
		DOCA_LOG_ERR("Failed to connect: descriptor version %u, this build speaks %u", b->hdr.version,
			     FABRIC_PROTO_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	dev = ep->ctx->dev;
	if (!same_host(dev, b)) {
		uint32_t peer_seg = b->hdr.hdr_len >= sizeof(*b) ? b->tcp_seg : FABRIC_TCP_SEG_UCX_DEFAULT;

		if (peer_seg != 0 && dev->tcp_seg != 0 && peer_seg != dev->tcp_seg) {
			DOCA_LOG_ERR("Failed to connect: UCX tcp receive segment differs (peer %u B, here %u B); "
				     "UCX aborts a receiver sent a fragment larger than its segment: set "
				     "UCX_TCP_RX_SEG_SIZE to the same value on both sides",
				     peer_seg, dev->tcp_seg);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
	}
	fabric_dev_lock(dev);
	if (ep->uep != NULL || ep->state != FABRIC_EP_IDLE) {
		fabric_dev_unlock(dev);
		return DOCA_ERROR_BAD_STATE;
	}
	params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.address = (const ucp_address_t *)((const uint8_t *)blob + b->hdr.hdr_len);
	/*
	 * UCX 1.13 has no peer-failure support on shm (sysv/posix/cma): PEER mode
	 * would silently push a local peer onto tcp (40x slower puts).  Local
	 * peers get NONE and a pidfd watch; remote ones get UCX's PEER mode.
	 */
	if (same_host(dev, b)) {
		params.err_mode = UCP_ERR_HANDLING_MODE_NONE;
		if (b->pid != 0 && b->pid_ns == dev->pid_ns && dev->pid_ns != 0) {
			ep->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)b->pid, 0);
			ep->peer_pid = b->pid;
		}
		if (ep->pidfd < 0)
			DOCA_LOG_INFO("Connection %u: peer pid %u not watchable; its death is not detected", ep->id,
				      b->pid);
	} else {
		params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	}
	params.err_handler.cb = uep_err_cb;
	params.err_handler.arg = ep;
	st = ucp_ep_create(dev->worker, &params, &ep->uep);
	if (st != UCS_OK) {
		if (ep->pidfd >= 0)
			close(ep->pidfd);
		ep->pidfd = -1;
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to connect: UCP endpoint creation failed: %s", ucs_status_string(st));
		return fabric_ucs_to_doca(st);
	}
	if (ep->pidfd >= 0)
		dev->n_watched++;
	ep->peer_id = b->conn_id;
	ep->peer_cookie = b->cookie;
	ep->write_mode = pick_write_mode(dev, b);
	{
		const char *cma = getenv("SD_FABRIC_CMA");

		ep->cma = ep->pidfd >= 0 && ep->write_mode == FABRIC_WRITE_PUT && !(cma != NULL && cma[0] == '0');
	}
	ep->state = FABRIC_EP_CONNECTED;
	ep_kick(ep);
	fabric_dev_unlock(dev);
	return DOCA_SUCCESS;
}

void
sd_fabric_ep_get_stats(struct fabric_ep *ep, struct fabric_ep_stats *stats)
{
	struct sd_list *pos;

	memset(stats, 0, sizeof(*stats));
	fabric_dev_lock(ep->ctx->dev);
	stats->write_mode = ep->write_mode;
	sd_list_for_each(pos, &ep->inflight) stats->inflight++;
	sd_list_for_each(pos, &ep->deferred) stats->deferred++;
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
	idle = sd_list_empty(&ep->inflight) && sd_list_empty(&ep->deferred);
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
 * Progress until a UCP close request completes, for at most 2 s (dev->lock
 * held): a forced close normally ends at once, but the library must not
 * hang if UCX never finishes one.  The request is released either way
 * (UCX lets an unfinished request go on without telling us).
 */
static void
close_wait(struct fabric_ep *ep, ucs_status_ptr_t req)
{
	struct fabric_dev *dev = ep->ctx->dev;
	uint64_t deadline = fabric_now_ns() + 2000000000ull;

	while (ucp_request_check_status(req) == UCS_INPROGRESS) {
		if (fabric_now_ns() > deadline) {
			DOCA_LOG_WARN("Connection %u: UCX did not finish closing its endpoint in 2 s; going on",
				      ep->id);
			break;
		}
		ucp_worker_progress(dev->worker);
	}
	ucp_request_free(req);
}

void
sd_fabric_ep_destroy(struct fabric_ep *ep)
{
	struct fabric_dev *dev;
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	struct sd_list *pos;

	if (ep == NULL)
		return;
	dev = ep->ctx->dev;
	fabric_dev_lock(dev);
	/*
	 * Let UCX finish the requests it holds for this ep first (sends complete
	 * locally once on the wire): UCX 1.13 may still call back a request that
	 * was waiting for wireup after a forced close, which would find its op
	 * already completed and reused.  Bounded: a peer that never answers
	 * leaves them to the forced close below.
	 */
	if (ep->uep != NULL && ep->state == FABRIC_EP_CONNECTED) {
		uint64_t deadline = fabric_now_ns() + 1000000000ull;
		ucp_request_param_t fprm = {0};
		ucs_status_ptr_t freq;

		while (ep_ucx_pending(ep) && fabric_now_ns() < deadline)
			ucp_worker_progress(dev->worker);
		/* what the peer is owed (an ack not yet piggybacked) leaves before the close */
		if (ep->ack_sent != ep->rx_base)
			send_ctrl(ep, FABRIC_AM_ACK, 0, 0);
		freq = ucp_ep_flush_nbx(ep->uep, &fprm);
		if (UCS_PTR_IS_PTR(freq)) {
			while (ucp_request_check_status(freq) == UCS_INPROGRESS && fabric_now_ns() < deadline)
				ucp_worker_progress(dev->worker);
			ucp_request_free(freq);
		}
	}
	fabric_ep_fail(ep, DOCA_ERROR_CONNECTION_ABORTED);
	/* no error callback for a connection the owner is tearing down */
	if (ep->err_reported)
		sd_list_del(&ep->err_node);
	fabric_rmr_forget_ep(dev, ep);
	if (ep->close_req != NULL) {
		close_wait(ep, ep->close_req);
		ep->close_req = NULL;
	}
	if (ep->pidfd >= 0) {
		close(ep->pidfd);
		ep->pidfd = -1;
		dev->n_watched--;
	}
	if (ep->uep != NULL) {
		prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
		req = ucp_ep_close_nbx(ep->uep, &prm);
		if (UCS_PTR_IS_PTR(req))
			close_wait(ep, req);
		ep->uep = NULL;
	}
	/* rendezvous receives into this ep's messages must not outlive it */
	while (ep->pending_rx > 0)
		ucp_worker_progress(dev->worker);
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
	sd_list_for_each(pos, &ep->ctx->completions)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if (op->type == FABRIC_OP_RECV && op->src_ep == ep)
			op->src_ep = NULL;
	}
	sd_list_for_each(pos, &ep->ctx->delivering)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if (op->type == FABRIC_OP_RECV && op->src_ep == ep)
			op->src_ep = NULL;
	}
	fabric_id_free((void **)dev->eps, dev->eps_cap, ep->id);
	sd_list_del(&ep->node);
	fabric_dev_unlock(dev);
	free(ep->blob);
	free(ep);
}

/* ---- receiver side ---- */

static void
recv_fill(struct fabric_op *recv, struct fabric_ep *ep, const struct fabric_am_hdr *h, size_t len)
{
	recv->len = (uint32_t)len;
	recv->imm = h->imm;
	recv->src_ep = ep;
	recv->src_user = ep->user;
	recv->opcode = h->type == FABRIC_AM_SEND       ? FABRIC_RECV_SEND
		       : h->type == FABRIC_AM_SEND_IMM ? FABRIC_RECV_SEND_IMM
						       : FABRIC_RECV_WRITE_IMM;
}

struct rndv_ctx {
	struct fabric_ep *ep;
	struct fabric_op *recv; /* NULL for an AM write */
	uint32_t seq;
};

static void
rndv_done_cb(void *request, ucs_status_t st, size_t length, void *user)
{
	struct rndv_ctx *rc = user;
	struct fabric_ep *ep = rc->ep;

	ucp_request_free(request);
	ep->pending_rx--;
	if (rc->recv != NULL)
		fabric_complete(rc->recv, fabric_ucs_to_doca(st));
	if (st == UCS_OK)
		fabric_ep_rx_placed(ep, rc->seq);
	else
		fabric_ep_fail(ep, fabric_ucs_to_doca(st));
	free(rc);
}

/* Fetch a rendezvous payload into dst; recv (if any) completes when it lands. */
void
fabric_recv_rndv(struct fabric_ep *ep, const struct fabric_am_hdr *h, void *desc, void *dst, size_t len,
		 struct fabric_op *recv)
{
	struct fabric_dev *dev = ep->ctx->dev;
	ucp_request_param_t prm = {0};
	struct rndv_ctx *rc;
	ucs_status_ptr_t req;

	rc = malloc(sizeof(*rc));
	if (rc == NULL) {
		ucp_am_data_release(dev->worker, desc);
		if (recv != NULL)
			fabric_complete(recv, DOCA_ERROR_NO_MEMORY);
		fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_INTERNAL);
		fabric_ep_fail(ep, DOCA_ERROR_NO_MEMORY);
		return;
	}
	rc->ep = ep;
	rc->recv = recv;
	rc->seq = h->seq;
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	prm.cb.recv_am = rndv_done_cb;
	prm.user_data = rc;
	ep->pending_rx++;
	req = ucp_am_recv_data_nbx(dev->worker, desc, dst, len, &prm);
	if (UCS_PTR_IS_PTR(req))
		return;
	ep->pending_rx--;
	if (recv != NULL)
		fabric_complete(recv, req == NULL ? DOCA_SUCCESS : fabric_ucs_to_doca(UCS_PTR_STATUS(req)));
	if (req == NULL)
		fabric_ep_rx_placed(ep, h->seq);
	else
		fabric_ep_fail(ep, fabric_ucs_to_doca(UCS_PTR_STATUS(req)));
	free(rc);
}

/*
 * Place a message into a posted receive.  data is the payload (eager) or the
 * rendezvous descriptor (rndv).  A receive too short for the message fails
 * with INVALID_VALUE, the sender gets a NAK and the connection fails.
 */
static void
place(struct fabric_ep *ep, struct fabric_op *recv, const struct fabric_am_hdr *h, void *data, size_t len, bool rndv,
      bool in_handler)
{
	size_t placed = h->type == FABRIC_AM_WRITE_IMM ? h->aux : len;

	if (len > recv->buf_len) {
		DOCA_LOG_WARN("Message of %zu bytes on connection %u exceeds the posted receive of %zu bytes", len,
			      ep->id, recv->buf_len);
		/* a rendezvous payload the handler does not fetch is dropped by UCX */
		if (rndv && !in_handler)
			ucp_am_data_release(ep->ctx->dev->worker, data);
		recv_fill(recv, ep, h, 0);
		fabric_complete(recv, DOCA_ERROR_INVALID_VALUE);
		fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_TOO_LONG);
		fabric_ep_fail(ep, DOCA_ERROR_INVALID_VALUE);
		return;
	}
	recv_fill(recv, ep, h, placed);
	if (rndv) {
		fabric_recv_rndv(ep, h, data, recv->buf, len, recv);
		return;
	}
	if (len > 0)
		memcpy(recv->buf, data, len);
	fabric_complete(recv, DOCA_SUCCESS);
	fabric_ep_rx_placed(ep, h->seq);
}

/* Hand queued messages to receives posted since they arrived (dev->lock held). */
void
fabric_ctx_deliver_unexpected(struct fabric_ctx *ctx)
{
	struct sd_list *pos;

	while (!sd_list_empty(&ctx->posted) && (pos = sd_list_pop_head(&ctx->unexpected)) != NULL) {
		struct fabric_unexp *u = sd_container_of(pos, struct fabric_unexp, node);
		struct fabric_op *recv = sd_container_of(sd_list_pop_head(&ctx->posted), struct fabric_op, node);

		ctx->n_unexpected--;
		if (u->rndv_desc != NULL) {
			place(u->ep, recv, &u->hdr, u->rndv_desc, u->len, true, false);
			u->rndv_desc = NULL;
		} else {
			place(u->ep, recv, &u->hdr, u->data, u->len, false, false);
		}
		fabric_unexp_free(ctx->dev, u);
	}
}

static ucs_status_t
rx_message(struct fabric_ep *ep, const struct fabric_am_hdr *h, void *data, size_t len, bool rndv)
{
	struct fabric_ctx *ctx = ep->ctx;
	struct fabric_unexp *u;

	if (sd_list_empty(&ctx->unexpected) && !sd_list_empty(&ctx->posted)) {
		struct fabric_op *recv = sd_container_of(sd_list_pop_head(&ctx->posted), struct fabric_op, node);

		place(ep, recv, h, data, len, rndv, true);
		return UCS_OK;
	}
	if (ctx->n_unexpected >= ctx->max_unexpected || (u = calloc(1, sizeof(*u))) == NULL) {
		DOCA_LOG_WARN("Connection %u: %u messages already wait for receives; refusing seq %u", ep->id,
			      ctx->n_unexpected, h->seq);
		fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_QUEUE_FULL);
		fabric_ep_fail(ep, DOCA_ERROR_FULL);
		return UCS_OK;
	}
	u->ep = ep;
	u->hdr = *h;
	u->len = len;
	u->deadline_ns = fabric_now_ns() + ctx->rnr_timeout_ns;
	if (rndv) {
		u->rndv_desc = data;
	} else if (len > 0) {
		u->data = malloc(len);
		if (u->data == NULL) {
			free(u);
			fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_INTERNAL);
			fabric_ep_fail(ep, DOCA_ERROR_NO_MEMORY);
			return UCS_OK;
		}
		memcpy(u->data, data, len);
	}
	sd_list_insert_tail(&ctx->unexpected, &u->node);
	ctx->n_unexpected++;
	/* the service thread must wake for the deadline */
	if (ctx->dev->in_service == false) {
		uint64_t one = 1;

		if (write(ctx->dev->wake_fd, &one, sizeof(one)) < 0)
			DOCA_LOG_DBG("Failed to wake the service thread");
	}
	return rndv ? UCS_INPROGRESS : UCS_OK;
}

/* Target side of an AM write: the key, range and permission decide. */
static ucs_status_t
rx_write(struct fabric_ep *ep, const struct fabric_am_hdr *h, const struct fabric_am_write *w, void *data, size_t len,
	 bool rndv)
{
	struct fabric_dev *dev = ep->ctx->dev;
	struct fabric_mr *mr = fabric_mr_lookup(dev, w->mr_id);
	uint64_t base;

	if (mr == NULL || memcmp(mr->key, w->key, sizeof(mr->key)) != 0 || !(mr->perms & FABRIC_PERM_REMOTE_WRITE) ||
	    w->raddr < (uintptr_t)mr->addr || len > mr->len || w->raddr - (uintptr_t)mr->addr > mr->len - len) {
		DOCA_LOG_WARN("Connection %u: remote write of %zu bytes at 0x%llx refused (%s)", ep->id, len,
			      (unsigned long long)w->raddr,
			      mr == NULL				      ? "no such registration"
			      : memcmp(mr->key, w->key, sizeof(mr->key)) != 0 ? "wrong key"
			      : !(mr->perms & FABRIC_PERM_REMOTE_WRITE)	      ? "no remote write permission"
									      : "outside the range");
		fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_ACCESS);
		fabric_ep_fail(ep, DOCA_ERROR_NOT_PERMITTED);
		return UCS_OK; /* a rendezvous payload not fetched is dropped */
	}
	base = w->raddr;
	if (rndv) {
		fabric_recv_rndv(ep, h, data, (void *)(uintptr_t)base, len, NULL);
		return UCS_OK;
	}
	if (len > 0)
		memcpy((void *)(uintptr_t)base, data, len);
	fabric_ep_rx_placed(ep, h->seq);
	return UCS_OK;
}

static doca_error_t
nak_to_doca(uint32_t status)
{
	switch (status) {
	case FABRIC_NAK_RNR_TIMEOUT:
		return DOCA_ERROR_TIME_OUT;
	case FABRIC_NAK_TOO_LONG:
		return DOCA_ERROR_INVALID_VALUE;
	case FABRIC_NAK_ACCESS:
		return DOCA_ERROR_NOT_PERMITTED;
	case FABRIC_NAK_QUEUE_FULL:
		return DOCA_ERROR_FULL;
	default:
		return DOCA_ERROR_IO_FAILED;
	}
}

static void
rx_nak(struct fabric_ep *ep, const struct fabric_am_hdr *h)
{
	doca_error_t err = nak_to_doca(h->aux);
	struct sd_list *pos;

	sd_list_for_each(pos, &ep->inflight)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if ((op->pending & FABRIC_OPP_ACK) && op->seq == h->seq) {
			op->status = err;
			break;
		}
	}
	fabric_ep_fail(ep, err);
}

ucs_status_t
fabric_am_handler(void *arg, const void *header, size_t header_length, void *data, size_t length,
		  const ucp_am_recv_param_t *param)
{
	struct fabric_dev *dev = arg;
	/* UCX hands the header at any alignment: work on an aligned copy */
	struct {
		struct fabric_am_hdr h;
		struct fabric_am_write w;
	} copy;
	const struct fabric_am_hdr *h = &copy.h;
	bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
	struct fabric_ep *ep;

	if (header_length >= sizeof(copy.h))
		memcpy(&copy, header, SD_MIN(header_length, sizeof(copy)));
	if (header_length < sizeof(*h) || h->magic != FABRIC_AM_MAGIC || h->version != FABRIC_PROTO_VERSION) {
		DOCA_LOG_DBG("Dropping a message with a bad header (%zu bytes)", header_length);
		return UCS_OK;
	}
	ep = fabric_id_lookup((void **)dev->eps, dev->eps_cap, h->dst_id);
	if (ep == NULL || ep->cookie != h->cookie || ep->state == FABRIC_EP_ERROR) {
		DOCA_LOG_DBG("Dropping a message for unknown or failed connection %u", h->dst_id);
		return UCS_OK;
	}
	if (ep->uep == NULL && ep->reply_uep == NULL && (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
		ep->reply_uep = param->reply_ep;
	if (ep->uep == NULL) {
		/* a peer we never connected back to: learn how to address our answers */
		ep->peer_id = h->src_id;
		ep->peer_cookie = h->src_cookie;
	}
	if (ep->n_inflight_acked > 0)
		ep_acked(ep, h->ack);

	switch (h->type) {
	case FABRIC_AM_ACK:
		return UCS_OK;
	case FABRIC_AM_NAK:
		rx_nak(ep, h);
		return UCS_OK;
	case FABRIC_AM_SEND:
	case FABRIC_AM_SEND_IMM:
	case FABRIC_AM_WRITE_IMM:
		return rx_message(ep, h, data, length, rndv);
	case FABRIC_AM_WRITE:
		if (header_length < sizeof(*h) + sizeof(struct fabric_am_write))
			return UCS_OK;
		return rx_write(ep, h, &copy.w, data, length, rndv);
	case FABRIC_AM_CHANGED:
		if (header_length >= sizeof(*h) + sizeof(struct fabric_am_write))
			rx_changed(dev, &copy.w);
		return UCS_OK;
	default:
		DOCA_LOG_DBG("Dropping a message of unknown type %u", h->type);
		return UCS_OK;
	}
}
