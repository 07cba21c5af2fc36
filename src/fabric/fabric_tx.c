/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs, send side: the state that turns UCP into RC semantics
 * (sequence numbers, cumulative acks, the ordering rule, the ack window), UCX
 * callback tickets, control messages and issuing ops (the post calls of every op
 * type are fabric_post.c).  The
 * endpoint's life (create, connect, failure, destroy) is fabric_ep.c, the
 * receive side (the AM handler and the target's checks) fabric_rx.c.
 *
 * Op life cycle (all under dev->w.lock):
 *   post -> deferred   while not connected, held by ordering or the window
 *        -> inflight   issued; op->pending says what is awaited (UCX, ACK, RESP)
 *        -> ctx->completions when pending reaches 0 or on error
 * Every one-sided op is checked by the target against its own record: writes
 * are AMs the target places (acked like messages), reads and atomics are
 * requests it answers; same-host writes and reads may instead be copied by
 * the kernel after the initiator read that record (fabric_direct.c).
 * Ordering: ep->onesided counts writes/atomics not yet remotely complete;
 * SEND/SEND_IMM/WRITE_IMM notifications are not issued while it is non-zero;
 * reads and atomics wait for earlier writes (ep->writes), so they see them;
 * once anything is deferred, later ops queue behind it (FIFO).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "../core/sd_core.h"

SD_LOG_REGISTER(fabric.tx);

static inline bool
seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Sends and writes are acked; reads and atomics are answered. */
static bool
needs_ack(const struct fabric_op *op)
{
	return op->type == FABRIC_OP_SEND || op->type == FABRIC_OP_SEND_IMM || op->type == FABRIC_OP_WRITE ||
	       op->type == FABRIC_OP_WRITE_IMM;
}

static bool
is_request(const struct fabric_op *op)
{
	return op->type == FABRIC_OP_READ || op->type == FABRIC_OP_FETCH_ADD || op->type == FABRIC_OP_CMP_SWP;
}

static bool
is_message(const struct fabric_op *op)
{
	return op->type == FABRIC_OP_SEND || op->type == FABRIC_OP_SEND_IMM ||
	       (op->type == FABRIC_OP_WRITE_IMM && op->stage == 1);
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

/* ---- UCX completion callbacks (dev->w.lock held: inside progress) ---- */

static void write_stage_done(struct fabric_op *op, doca_error_t status);

/* The data part of a WRITE/WRITE_IMM travelling as an AM (acked like a message). */
static bool
is_am_write_stage(const struct fabric_op *op)
{
	return op->type == FABRIC_OP_WRITE || (op->type == FABRIC_OP_WRITE_IMM && op->stage == 0);
}

/*
 * UCX callbacks get a ticket, not the op: when an op must complete before UCX
 * is done with its request (forced close of a dead or torn-down endpoint; UCX
 * 1.13 may call back a request that waited for wireup even after that), the
 * ticket is orphaned and the late callback only frees it.
 */
struct fabric_ticket {
	struct fabric_ticket_link link; /* in dev->ticket_cache while free */
	struct fabric_dev *dev;
	struct fabric_op *op;
};

/*
 * Tickets are recycled through dev->ticket_cache (they move only with
 * dev->w.lock held): a malloc/free pair per send cost a third of the post path
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

/*
 * UCX is done with the op's message (its callback ran, or the send completed
 * inline; with the self transport the peer's answer may even have arrived
 * inside the send call): clear the bit and finish the op if nothing else is
 * awaited.
 */
static void
ucx_done(struct fabric_op *op)
{
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
op_ucx_cb(void *request, ucs_status_t st, void *user)
{
	struct fabric_op *op = ticket_take(request, user);

	if (op == NULL)
		return;
	if (st != UCS_OK && op->status == DOCA_SUCCESS)
		op->status = fabric_ucs_to_doca(st);
	ucx_done(op);
}

static void
ctrl_cb(void *request, ucs_status_t st, void *user)
{
	(void)st;
	ucp_request_free(request);
	free(user);
}

void
fabric_ep_send_ctrl(struct fabric_ep *ep, uint8_t type, uint32_t seq, uint32_t aux, const void *ext, size_t ext_len,
		    const void *payload, size_t len, bool copy)
{
	ucp_request_param_t prm = {0};
	struct fabric_am_hdr *h;
	ucs_status_ptr_t req;
	ucp_ep_h uep = fabric_ep_uep(ep);
	uint8_t *m;

	if (uep == NULL)
		return;
	m = malloc(sizeof(*h) + ext_len + (copy ? len : 0));
	if (m == NULL)
		return;
	h = (struct fabric_am_hdr *)m;
	hdr_init(ep, h, type);
	h->seq = seq;
	h->aux = aux;
	if (ext_len > 0)
		memcpy(m + sizeof(*h), ext, ext_len);
	if (copy && len > 0) {
		memcpy(m + sizeof(*h) + ext_len, payload, len);
		payload = m + sizeof(*h) + ext_len;
	}
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = ctrl_cb;
	prm.user_data = m;
	prm.flags = UCP_AM_SEND_FLAG_REPLY | (len == 0 || copy ? UCP_AM_SEND_FLAG_EAGER : 0);
	req = ucp_am_send_nbx(uep, FABRIC_AM_ID, h, sizeof(*h) + ext_len, payload, len, &prm);
	if (!UCS_PTR_IS_PTR(req))
		free(m);
}

void
sd_fabric_ep_notify_changed(struct fabric_ep *ep, struct fabric_rmr *rmr, uint64_t raddr)
{
	struct fabric_am_rma w = {.raddr = raddr};

	if (ep == NULL || rmr == NULL)
		return;
	w.mr_id = rmr->mr_id;
	memcpy(w.key, rmr->key, sizeof(w.key));
	fabric_dev_lock(ep->ctx->dev);
	if (ep->state == FABRIC_EP_CONNECTED)
		fabric_ep_send_ctrl(ep, FABRIC_AM_CHANGED, 0, 0, &w, sizeof(w), NULL, 0, false);
	fabric_dev_unlock(ep->ctx->dev);
}

/* Tell the peer what we are, in our own words (fabric_direct.c reads it). */
void
fabric_ep_send_hello(struct fabric_ep *ep)
{
	struct fabric_dev *dev = ep->ctx->dev;
	struct fabric_am_hello hello = {
		.pid = (uint32_t)getpid(),
		.pid_ns = dev->pid_ns,
		.recs_fd = dev->recs_fd,
		.recs_ino = dev->recs_ino,
		.recs_addr = (uintptr_t)dev->recs,
		.recs_cap = dev->recs != NULL ? FABRIC_RECS_CAP : 0,
	};

	fabric_ep_send_ctrl(ep, FABRIC_AM_HELLO, 0, 0, &hello, sizeof(hello), NULL, 0, false);
}

doca_error_t
fabric_nak_to_doca(uint32_t status)
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
	case FABRIC_NAK_NO_CONNECTION:
		return DOCA_ERROR_CONNECTION_RESET;
	default:
		return DOCA_ERROR_IO_FAILED;
	}
}

uint32_t
fabric_doca_to_nak(doca_error_t err)
{
	switch (err) {
	case DOCA_ERROR_TIME_OUT:
		return FABRIC_NAK_RNR_TIMEOUT;
	case DOCA_ERROR_INVALID_VALUE:
		return FABRIC_NAK_TOO_LONG;
	case DOCA_ERROR_NOT_PERMITTED:
		return FABRIC_NAK_ACCESS;
	case DOCA_ERROR_FULL:
		return FABRIC_NAK_QUEUE_FULL;
	default:
		return FABRIC_NAK_NO_CONNECTION;
	}
}

void
fabric_ep_send_nak(struct fabric_ep *ep, uint32_t seq, uint32_t status)
{
	fabric_ep_send_ctrl(ep, FABRIC_AM_NAK, seq, status, NULL, 0, NULL, 0, false);
}

void
fabric_acks_flush(struct fabric_dev *dev, bool batch)
{
	struct sd_list *pos, keep;

	sd_list_init(&keep);
	while ((pos = sd_list_pop_head(&dev->ack_eps)) != NULL) {
		struct fabric_ep *ep = sd_container_of(pos, struct fabric_ep, ack_node);
		uint32_t owed = ep->state == FABRIC_EP_ERROR ? 0 : ep->rx_base - ep->ack_sent;

		/* still receiving and fewer than a batch owed: the next look decides */
		if (batch && owed != 0 && owed < FABRIC_ACK_BATCH && ep->ack_fresh) {
			ep->ack_fresh = false;
			sd_list_insert_tail(&keep, pos);
			continue;
		}
		ep->ack_queued = false;
		if (owed != 0)
			fabric_ep_send_ctrl(ep, FABRIC_AM_ACK, 0, 0, NULL, 0, NULL, 0, false);
	}
	while ((pos = sd_list_pop_head(&keep)) != NULL)
		sd_list_insert_tail(&dev->ack_eps, pos);
}

void
fabric_ep_rx_placed(struct fabric_ep *ep, uint32_t seq)
{
	uint32_t off = seq - ep->rx_base;

	if (off >= 64)
		return; /* outside the window: a peer bug; the ack will never cover it */
	ep->rx_done |= 1ull << off;
	ep->ack_fresh = true;
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

/* A write or read, which a direct connection copies itself. */
static bool
is_rma(const struct fabric_op *op)
{
	return op->type == FABRIC_OP_WRITE || op->type == FABRIC_OP_READ ||
	       (op->type == FABRIC_OP_WRITE_IMM && op->stage == 0);
}

static bool
op_blocked(const struct fabric_ep *ep, const struct fabric_op *op)
{
	if (needs_ack(op) && ep->n_inflight_acked >= FABRIC_WINDOW)
		return true;
	if (ep->direct_drain && is_rma(op))
		return true;
	if (is_request(op))
		return ep->n_requests >= FABRIC_WINDOW || ep->writes > 0;
	return is_message(op) && ep->onesided > 0;
}

static doca_error_t
issue_am(struct fabric_ep *ep, struct fabric_op *op, uint8_t type, const void *buf, size_t len, size_t hlen)
{
	struct fabric_am_hdr *h = (struct fabric_am_hdr *)op->wire;
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;

	/* batched direct copies were posted first: they land first (or go ahead of op as messages) */
	if (ep->n_batch > 0 && fabric_direct_flush_before(ep, op))
		return DOCA_SUCCESS;
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
	req = ucp_am_send_nbx(fabric_ep_uep(ep), FABRIC_AM_ID, h, hlen, buf, len, &prm);
	if (UCS_PTR_IS_ERR(req)) {
		ticket_drop(op);
		sd_list_del(&op->node);
		ep->n_inflight_acked--;
		ep->tx_seq--;
		return fabric_ucs_to_doca(UCS_PTR_STATUS(req));
	}
	if (req == NULL) {
		ticket_drop(op);
		ucx_done(op);
	}
	return DOCA_SUCCESS;
}

static doca_error_t issue(struct fabric_ep *ep, struct fabric_op *op);

/* Nothing of ours is still on its way to the peer's memory: a direct copy cannot overtake it. */
static bool
direct_ok(const struct fabric_ep *ep)
{
	return ep->onesided == 0 && ep->n_requests == 0;
}

/* A write as an active message: the target checks key, range and permission, then receives into its range. */
static doca_error_t
issue_write_am(struct fabric_ep *ep, struct fabric_op *op)
{
	struct fabric_am_hdr *h = (struct fabric_am_hdr *)op->wire;
	struct fabric_am_rma *w = (struct fabric_am_rma *)(h + 1);
	doca_error_t err;

	hdr_init(ep, h, FABRIC_AM_WRITE);
	memset(w, 0, sizeof(*w));
	w->raddr = op->raddr;
	w->mr_id = op->rmr->mr_id;
	memcpy(w->key, op->rmr->key, sizeof(w->key));
	err = issue_am(ep, op, FABRIC_AM_WRITE, op->buf, op->buf_len, sizeof(*h) + sizeof(*w));
	if (err == DOCA_SUCCESS) {
		ep->onesided++;
		ep->writes++;
	}
	return err;
}

/* A write on a direct connection: checked against the target's record, then batched (or copied at once). */
static doca_error_t
issue_write_direct(struct fabric_ep *ep, struct fabric_op *op)
{
	if (op->am_only || !direct_ok(ep) || !fabric_direct_wanted(ep, op, true))
		return issue_write_am(ep, op);
	if (op->type == FABRIC_OP_WRITE) {
		fabric_direct_batch(ep, op, true);
		return DOCA_SUCCESS;
	}
	/* WRITE_IMM: the data now, visible as the syscall returns, then its notification */
	if (ep->n_batch > 0 && fabric_direct_flush_before(ep, op))
		return DOCA_SUCCESS;
	if (!fabric_ep_direct(ep) || !fabric_direct_copy(ep, op->buf, op->buf_len, op->raddr, true))
		return issue_write_am(ep, op);
	op->stage = 1;
	if (op_blocked(ep, op)) {
		sd_list_insert_head(&ep->deferred, &op->node);
		return DOCA_SUCCESS;
	}
	return issue(ep, op); /* no recursion through ep_kick */
}

/* A READ or an atomic as a request the target checks and answers (fabric_rx.c). */
static doca_error_t
issue_request_am(struct fabric_ep *ep, struct fabric_op *op)
{
	struct fabric_am_hdr *h = (struct fabric_am_hdr *)op->wire;
	struct fabric_am_atomic *a = (struct fabric_am_atomic *)(h + 1);
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	size_t hlen;

	if (ep->n_batch > 0 && fabric_direct_flush_before(ep, op))
		return DOCA_SUCCESS;
	hdr_init(ep, h, op->type == FABRIC_OP_READ ? FABRIC_AM_READ : FABRIC_AM_ATOMIC);
	memset(a, 0, sizeof(*a));
	a->rma.raddr = op->raddr;
	a->rma.mr_id = op->rmr->mr_id;
	memcpy(a->rma.key, op->rmr->key, sizeof(a->rma.key));
	if (op->type == FABRIC_OP_READ) {
		h->aux = (uint32_t)op->buf_len;
		hlen = sizeof(*h) + sizeof(a->rma);
	} else {
		a->op = op->type == FABRIC_OP_FETCH_ADD ? FABRIC_ATOMIC_FETCH_ADD : FABRIC_ATOMIC_CMP_SWP;
		a->operand[0] = op->operand[0];
		a->operand[1] = op->operand[1];
		hlen = sizeof(*h) + sizeof(*a);
	}
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = op_ucx_cb;
	prm.user_data = ticket_new(op);
	if (prm.user_data == NULL)
		return DOCA_ERROR_NO_MEMORY;
	prm.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	op->seq = ep->tx_rid++;
	h->seq = op->seq;
	op->pending = FABRIC_OPP_UCX | FABRIC_OPP_RESP;
	ep->n_requests++;
	if (op->type != FABRIC_OP_READ)
		ep->onesided++;
	sd_list_insert_tail(&ep->inflight, &op->node);
	req = ucp_am_send_nbx(fabric_ep_uep(ep), FABRIC_AM_ID, h, hlen, NULL, 0, &prm);
	if (UCS_PTR_IS_ERR(req)) {
		ticket_drop(op);
		sd_list_del(&op->node);
		ep->n_requests--;
		if (op->type != FABRIC_OP_READ)
			ep->onesided--;
		return fabric_ucs_to_doca(UCS_PTR_STATUS(req));
	}
	if (req == NULL) {
		ticket_drop(op);
		ucx_done(op);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
issue_read_direct(struct fabric_ep *ep, struct fabric_op *op)
{
	if (op->am_only || !direct_ok(ep) || !fabric_direct_wanted(ep, op, false))
		return issue_request_am(ep, op);
	fabric_direct_batch(ep, op, false);
	return DOCA_SUCCESS;
}

const struct fabric_tx_ops fabric_tx_am = {
	.write = issue_write_am,
	.read = issue_request_am,
};

const struct fabric_tx_ops fabric_tx_direct = {
	.write = issue_write_direct,
	.read = issue_read_direct,
};

struct fabric_op *
fabric_ep_find_request(struct fabric_ep *ep, uint32_t rid)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &ep->inflight)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if ((op->pending & FABRIC_OPP_RESP) && op->seq == rid)
			return op;
	}
	return NULL;
}

/* The answer to a request arrived (its data placed, or the refusal): the op may complete. */
void
fabric_ep_request_answered(struct fabric_op *op, doca_error_t status)
{
	struct fabric_ep *ep = op->ep;

	ep->n_requests--;
	if (op->type != FABRIC_OP_READ)
		ep->onesided--;
	fabric_op_done_bits(op, FABRIC_OPP_RESP, status);
	fabric_ep_kick(ep);
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
		return ep->tx->write(ep, op);
	case FABRIC_OP_READ:
		return ep->tx->read(ep, op);
	default:
		return issue_request_am(ep, op); /* atomics: always executed by the target */
	}
}

/* Issue deferred ops in order until one is blocked. */
void
fabric_ep_kick(struct fabric_ep *ep)
{
	struct fabric_op *op;
	doca_error_t err;

	/* the messages of before the HELLO are all done: what waited for them is copied */
	if (ep->direct_drain && ep->onesided == 0 && ep->n_requests == 0)
		ep->direct_drain = false;
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
 * The data part of a write finished (the AM write acked): a WRITE_IMM goes on
 * with its notification, ahead of everything deferred.
 */
static void
write_stage_done(struct fabric_op *op, doca_error_t status)
{
	struct fabric_ep *ep = op->ep;

	ep->onesided--;
	ep->writes--;
	if (status != DOCA_SUCCESS || op->type == FABRIC_OP_WRITE || op->status != DOCA_SUCCESS) {
		fabric_op_done_bits(op, 0, status);
		fabric_ep_kick(ep);
		return;
	}
	sd_list_del(&op->node);
	op->stage = 1;
	op->pending = 0;
	sd_list_insert_head(&ep->deferred, &op->node);
	fabric_ep_kick(ep);
}

/* Everything below seq `ack` was placed by the peer. */
void
fabric_ep_acked(struct fabric_ep *ep, uint32_t ack)
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
	fabric_ep_kick(ep);
}

doca_error_t
fabric_ep_post(struct fabric_ep *ep, struct fabric_op *op)
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
	op->am_only = false;
	op->src_ep = NULL;
	fabric_dev_lock(dev);
	if (ep->state == FABRIC_EP_ERROR) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (ep->state != FABRIC_EP_CONNECTED || !sd_list_empty(&ep->deferred) || op_blocked(ep, op)) {
		sd_list_insert_tail(&ep->deferred, &op->node);
	} else {
		err = issue(ep, op);
		/* batched copies the kernel refused went back to the queue, op behind them */
		if (err == DOCA_SUCCESS && !sd_list_empty(&ep->deferred))
			fabric_ep_kick(ep);
	}
	fabric_dev_unlock(dev);
	return err;
}
