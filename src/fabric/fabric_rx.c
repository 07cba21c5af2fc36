/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs, receiver side: UCX's active-message handler and what it does
 * with each message type (dev->w.lock held: it runs inside
 * ucp_worker_progress).  Messages go into posted receives or wait in the
 * ctx's bounded unexpected queue; writes, reads and atomics from a peer are
 * checked here, by the process whose memory it is, against its own record of
 * the registration (region id, 128-bit key, range, permission) before a byte
 * is touched.  A refusal answers the peer with FABRIC_NAK_ACCESS and fails
 * the connection on both sides; the memory stays as it was.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "../util/sd_time.h"
#include "../core/sd_core.h"

SD_LOG_REGISTER(fabric.rx);

/* ---- messages into posted receives ---- */

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

/*
 * A rendezvous payload being fetched into our memory: a message into a
 * receive (recv set, seq acked when it lands), an AM write into a registered
 * range (seq acked), or the answer to our READ (read set, no seq).
 */
struct rndv_ctx {
	struct fabric_ep *ep;
	struct fabric_op *recv;
	struct fabric_op *read;
	uint32_t seq;
};

static void
rndv_finish(struct rndv_ctx *rc, doca_error_t status)
{
	struct fabric_ep *ep = rc->ep;

	ep->pending_rx--;
	if (rc->read != NULL) {
		fabric_op_done_bits(rc->read, FABRIC_OPP_FETCH, status);
		if (status != DOCA_SUCCESS)
			fabric_ep_fail(ep, status);
		return;
	}
	if (rc->recv != NULL)
		fabric_complete(rc->recv, status);
	if (status == DOCA_SUCCESS)
		fabric_ep_rx_placed(ep, rc->seq);
	else
		fabric_ep_fail(ep, status);
}

static void
rndv_done_cb(void *request, ucs_status_t st, size_t length, void *user)
{
	struct rndv_ctx *rc = user;

	(void)length;
	ucp_request_free(request);
	rndv_finish(rc, fabric_ucs_to_doca(st));
	free(rc);
}

/* Fetch a rendezvous payload into dst; see struct rndv_ctx for what completes when it lands. */
static void
recv_rndv(struct fabric_ep *ep, uint32_t seq, void *desc, void *dst, size_t len, struct fabric_op *recv,
	  struct fabric_op *read)
{
	struct fabric_dev *dev = ep->ctx->dev;
	ucp_request_param_t prm = {0};
	struct rndv_ctx *rc;
	ucs_status_ptr_t req;

	rc = malloc(sizeof(*rc));
	if (rc == NULL) {
		struct rndv_ctx tmp = {.ep = ep, .recv = recv, .read = read, .seq = seq};

		ucp_am_data_release(dev->w.worker, desc);
		ep->pending_rx++;
		if (read == NULL)
			fabric_ep_send_nak(ep, seq, FABRIC_NAK_INTERNAL);
		rndv_finish(&tmp, DOCA_ERROR_NO_MEMORY);
		return;
	}
	rc->ep = ep;
	rc->recv = recv;
	rc->read = read;
	rc->seq = seq;
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	prm.cb.recv_am = rndv_done_cb;
	prm.user_data = rc;
	ep->pending_rx++;
	req = ucp_am_recv_data_nbx(dev->w.worker, desc, dst, len, &prm);
	if (UCS_PTR_IS_PTR(req))
		return;
	rndv_finish(rc, req == NULL ? DOCA_SUCCESS : fabric_ucs_to_doca(UCS_PTR_STATUS(req)));
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
			ucp_am_data_release(ep->ctx->dev->w.worker, data);
		recv_fill(recv, ep, h, 0);
		fabric_complete(recv, DOCA_ERROR_INVALID_VALUE);
		fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_TOO_LONG);
		fabric_ep_fail(ep, DOCA_ERROR_INVALID_VALUE);
		return;
	}
	recv_fill(recv, ep, h, placed);
	if (rndv) {
		recv_rndv(ep, h->seq, data, recv->buf, len, recv, NULL);
		return;
	}
	if (len > 0)
		memcpy(recv->buf, data, len);
	fabric_complete(recv, DOCA_SUCCESS);
	fabric_ep_rx_placed(ep, h->seq);
}

/* Hand queued messages to receives posted since they arrived (dev->w.lock held). */
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
rx_message(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	const struct fabric_am_hdr *h = &m->h;
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
	u->deadline_ns = ctx->rnr_timeout_ns == UINT64_MAX ? UINT64_MAX : sd_now_ns() + ctx->rnr_timeout_ns;
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
	if (!ctx->dev->w.in_service)
		fabric_worker_wake(&ctx->dev->w);
	return rndv ? UCS_INPROGRESS : UCS_OK;
}

/* ---- the target's checks ---- */

/* Refuse an access from the peer: it completes with NOT_PERMITTED there, the connection fails here too. */
static void
refuse_access(struct fabric_ep *ep, const char *what, uint64_t raddr, uint64_t len, const char *why)
{
	DOCA_LOG_WARN("Connection %u: remote %s of %llu bytes at 0x%llx refused: %s", ep->id, what,
		      (unsigned long long)len, (unsigned long long)raddr, why);
	fabric_ep_fail(ep, DOCA_ERROR_NOT_PERMITTED);
}

/* An AM write: the key, range and permission decide, then the payload goes into the range. */
static ucs_status_t
rx_write(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	const struct fabric_am_hdr *h = &m->h;
	const struct fabric_am_rma *w = &m->u.rma;
	struct fabric_mr *mr;
	const char *why = fabric_mr_check(ep->ctx->dev, ep, w, len, FABRIC_PERM_REMOTE_WRITE, &mr);

	if (why != NULL) {
		fabric_ep_send_nak(ep, h->seq, FABRIC_NAK_ACCESS);
		refuse_access(ep, "write", w->raddr, len, why);
		return UCS_OK; /* a rendezvous payload not fetched is dropped */
	}
	if (rndv) {
		recv_rndv(ep, h->seq, data, (void *)(uintptr_t)w->raddr, len, NULL, NULL);
		return UCS_OK;
	}
	if (len > 0)
		memcpy((void *)(uintptr_t)w->raddr, data, len);
	fabric_ep_rx_placed(ep, h->seq);
	return UCS_OK;
}

/*
 * The handlers below carry no payload (requests, their payload-less answers,
 * control): a peer that sends one with a payload anyway has it dropped.
 */

/* A READ request: answered with the bytes (straight from the range) or with the refusal. */
static ucs_status_t
rx_read(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	const struct fabric_am_hdr *h = &m->h;
	const struct fabric_am_rma *r = &m->u.rma;
	struct fabric_mr *mr;
	const char *why = fabric_mr_check(ep->ctx->dev, ep, r, h->aux, FABRIC_PERM_REMOTE_READ, &mr);

	(void)data, (void)len, (void)rndv;
	if (why != NULL) {
		fabric_ep_send_ctrl(ep, FABRIC_AM_READ_RESP, h->seq, FABRIC_NAK_ACCESS, NULL, 0, NULL, 0, false);
		refuse_access(ep, "read", r->raddr, h->aux, why);
		return UCS_OK;
	}
	fabric_ep_send_ctrl(ep, FABRIC_AM_READ_RESP, h->seq, 0, NULL, 0, (const void *)(uintptr_t)r->raddr, h->aux,
			    false);
	return UCS_OK;
}

/* An atomic request: done here on the 8-byte word, answered with the old value. */
static ucs_status_t
rx_atomic(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	const struct fabric_am_hdr *h = &m->h;
	const struct fabric_am_atomic *a = &m->u.atomic;
	struct fabric_mr *mr;
	const char *why = fabric_mr_check(ep->ctx->dev, ep, &a->rma, 8, FABRIC_PERM_REMOTE_ATOMIC, &mr);
	uint64_t *word = (uint64_t *)(uintptr_t)a->rma.raddr;
	uint64_t old;

	(void)data, (void)len, (void)rndv;
	if (why == NULL && (a->rma.raddr & 7) != 0)
		why = "address not 8-byte aligned";
	if (why == NULL && a->op != FABRIC_ATOMIC_FETCH_ADD && a->op != FABRIC_ATOMIC_CMP_SWP)
		why = "unknown atomic operation";
	if (why != NULL) {
		fabric_ep_send_ctrl(ep, FABRIC_AM_ATOMIC_RESP, h->seq, FABRIC_NAK_ACCESS, NULL, 0, NULL, 0, false);
		refuse_access(ep, "atomic", a->rma.raddr, 8, why);
		return UCS_OK;
	}
	if (a->op == FABRIC_ATOMIC_FETCH_ADD) {
		old = __atomic_fetch_add(word, a->operand[0], __ATOMIC_SEQ_CST);
	} else {
		old = a->operand[0];
		/* on a mismatch old receives the value found: the answer either way */
		(void)__atomic_compare_exchange_n(word, &old, a->operand[1], false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
	fabric_ep_send_ctrl(ep, FABRIC_AM_ATOMIC_RESP, h->seq, 0, NULL, 0, &old, sizeof(old), true);
	return UCS_OK;
}

/* A peer's atomic or write changed one of our ranges: its owner may have waiters. */
static ucs_status_t
rx_changed(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	struct fabric_mr *mr;

	(void)data, (void)len, (void)rndv;
	if (fabric_mr_check(ep->ctx->dev, NULL, &m->u.rma, 1, 0, &mr) == NULL && mr->notify != NULL)
		mr->notify(mr->notify_arg);
	return UCS_OK;
}

/* ---- answers to our requests ---- */

static ucs_status_t
rx_answer(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	const struct fabric_am_hdr *h = &m->h;
	struct fabric_op *op = fabric_ep_find_request(ep, h->seq);
	bool read = h->type == FABRIC_AM_READ_RESP;
	doca_error_t err;

	/* an atomic's answer is 8 bytes, never a rendezvous (a peer that says otherwise is ignored) */
	if (op == NULL || (op->type == FABRIC_OP_READ) != read || (!read && rndv)) {
		DOCA_LOG_DBG("Connection %u: dropping an answer to no request (%u)", ep->id, h->seq);
		return UCS_OK;
	}
	if (h->aux != 0) {
		err = fabric_nak_to_doca(h->aux);
		fabric_ep_request_answered(op, err);
		fabric_ep_fail(ep, err);
		return UCS_OK;
	}
	if (len != (read ? op->buf_len : sizeof(uint64_t))) {
		DOCA_LOG_WARN("Connection %u: answer of %zu bytes to a request of %zu", ep->id, len,
			      read ? op->buf_len : sizeof(uint64_t));
		fabric_ep_request_answered(op, DOCA_ERROR_IO_FAILED);
		fabric_ep_fail(ep, DOCA_ERROR_IO_FAILED);
		return UCS_OK;
	}
	if (!read) {
		memcpy(op->result, data, sizeof(uint64_t));
		fabric_ep_request_answered(op, DOCA_SUCCESS);
		return UCS_OK;
	}
	op->len = (uint32_t)len;
	if (!rndv) {
		if (len > 0)
			memcpy(op->buf, data, len);
		fabric_ep_request_answered(op, DOCA_SUCCESS);
		return UCS_OK;
	}
	/* the op completes when the payload has landed in its buffer */
	op->pending |= FABRIC_OPP_FETCH;
	fabric_ep_request_answered(op, DOCA_SUCCESS);
	recv_rndv(ep, 0, data, op->buf, len, NULL, op);
	return UCS_OK;
}

static ucs_status_t
rx_nak(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	const struct fabric_am_hdr *h = &m->h;
	doca_error_t err = fabric_nak_to_doca(h->aux);
	struct sd_list *pos;

	(void)data, (void)len, (void)rndv;
	sd_list_for_each(pos, &ep->inflight)
	{
		struct fabric_op *op = sd_container_of(pos, struct fabric_op, node);

		if ((op->pending & FABRIC_OPP_ACK) && op->seq == h->seq) {
			op->status = err;
			break;
		}
	}
	fabric_ep_fail(ep, err);
	return UCS_OK;
}

/* An ACK: its ack field, applied before dispatch, is all it says. */
static ucs_status_t
rx_ack(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	(void)ep, (void)m, (void)data, (void)len, (void)rndv;
	return UCS_OK;
}

static ucs_status_t
rx_hello(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len, bool rndv)
{
	(void)data, (void)len, (void)rndv;
	fabric_direct_hello(ep, &m->h, &m->u.hello);
	return UCS_OK;
}

/* Dispatch: the handler column of FABRIC_AM_TYPES (fabric_proto.h). */
typedef ucs_status_t (*am_rx_fn)(struct fabric_ep *ep, const struct fabric_am_msg *m, void *data, size_t len,
				 bool rndv);
#define AM_RX(name, value, body, nak, handler) [value] = rx_##handler,
static const am_rx_fn am_rx[FABRIC_AM_TYPE_LIMIT] = {FABRIC_AM_TYPES(AM_RX)};
#undef AM_RX

/* ---- the handler ---- */

static void
stranger_nak_cb(void *request, ucs_status_t st, void *user)
{
	(void)st;
	ucp_request_free(request);
	free(user);
}

/*
 * Work addressed to a connection that is gone (destroyed, reset to a new
 * one, failed): tell the sender, whose connection then fails, instead of
 * letting its op wait for an answer that never comes.  Only requests are
 * answered (never acks, NAKs or answers), so two dead ends cannot ping-pong.
 * A connection that failed on a fault of one op (access, length, RNR) sends
 * nothing more: that op's NAK told the sender, and this one, which travels on
 * UCX's reply endpoint, could overtake it and blame the wrong op.
 */
static void
nak_stranger(const struct fabric_am_msg *m, const ucp_am_recv_param_t *param)
{
	const struct fabric_am_hdr *h = &m->h;
	ucp_request_param_t prm = {0};
	struct fabric_am_hdr *nak;
	ucs_status_ptr_t req;

	/* the type's row says whether it is a request (fabric_proto.h) */
	if (!m->stranger_nak)
		return;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) || param->reply_ep == NULL || h->src_id == 0)
		return;
	nak = calloc(1, sizeof(*nak));
	if (nak == NULL)
		return;
	nak->magic = FABRIC_AM_MAGIC;
	nak->version = FABRIC_PROTO_VERSION;
	nak->type = FABRIC_AM_NAK;
	nak->dst_id = h->src_id;
	nak->cookie = h->src_cookie;
	nak->seq = h->seq;
	nak->aux = FABRIC_NAK_NO_CONNECTION;
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = stranger_nak_cb;
	prm.user_data = nak;
	prm.flags = UCP_AM_SEND_FLAG_EAGER;
	req = ucp_am_send_nbx(param->reply_ep, FABRIC_AM_ID, nak, sizeof(*nak), NULL, 0, &prm);
	if (!UCS_PTR_IS_PTR(req))
		free(nak);
}

ucs_status_t
fabric_am_handler(void *arg, const void *header, size_t header_length, void *data, size_t length,
		  const ucp_am_recv_param_t *param)
{
	struct fabric_dev *dev = arg;
	bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
	const char *why = NULL;
	struct fabric_am_msg m;
	struct fabric_ep *ep;

	if (sd_fabric_am_parse(header, header_length, &m, &why) != DOCA_SUCCESS) {
		DOCA_LOG_DBG("Dropping a message with a bad header (%zu bytes): %s", header_length, why);
		return UCS_OK;
	}
	ep = fabric_id_lookup((void **)dev->eps, dev->eps_cap, m.h.dst_id);
	if (ep == NULL || ep->cookie != m.h.cookie || ep->state == FABRIC_EP_ERROR) {
		DOCA_LOG_DBG("Dropping a message for unknown or failed connection %u", m.h.dst_id);
		/* a connection that failed on a fault of one op told the peer so already (in order) */
		if (ep == NULL || ep->cookie != m.h.cookie || fabric_doca_to_nak(ep->err) == FABRIC_NAK_NO_CONNECTION)
			nak_stranger(&m, param);
		return UCS_OK;
	}
	if (ep->uep == NULL && ep->reply_uep == NULL && (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
		ep->reply_uep = param->reply_ep;
	if (ep->uep == NULL) {
		/* a peer we never connected back to: learn how to address our answers */
		ep->peer_id = m.h.src_id;
		ep->peer_cookie = m.h.src_cookie;
	}
	/* the header is valid and addressed to a live connection: its ack may now count */
	if (ep->n_inflight_acked > 0)
		fabric_ep_acked(ep, m.h.ack);
	return am_rx[m.h.type](ep, &m, data, length, rndv);
}
