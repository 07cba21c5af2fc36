/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work queues of a QP on the soft NIC (verbs_wq.h): entries handed to the
 * fabric, their completions retired in post order into the CQs, the WAIT
 * entry that holds the rest of its queue, and the QP's fall into ERR.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../verbs_internal.h"

SD_LOG_REGISTER(verbs.wq);

enum ibv_wc_status
sd_verbs_wc_status(doca_error_t err, bool recv)
{
	switch (err) {
	case DOCA_SUCCESS:
		return IBV_WC_SUCCESS;
	case DOCA_ERROR_NOT_PERMITTED:
		return recv ? IBV_WC_LOC_PROT_ERR : IBV_WC_REM_ACCESS_ERR;
	case DOCA_ERROR_TIME_OUT:
	case DOCA_ERROR_FULL:
		return recv ? IBV_WC_WR_FLUSH_ERR : IBV_WC_RNR_RETRY_EXC_ERR;
	case DOCA_ERROR_INVALID_VALUE:
		return recv ? IBV_WC_LOC_LEN_ERR : IBV_WC_REM_INV_REQ_ERR;
	default:
		/* the peer is gone or the link failed: the retries ran out */
		return recv ? IBV_WC_WR_FLUSH_ERR : IBV_WC_RETRY_EXC_ERR;
	}
}

/* The status words the log uses (libdoca_verbs does not link libibverbs). */
static const char *
wc_status_name(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_LOC_PROT_ERR:
		return "local protection error (a local key does not cover the buffer)";
	case IBV_WC_LOC_LEN_ERR:
		return "local length error (the message is longer than the receive)";
	case IBV_WC_REM_ACCESS_ERR:
		return "remote access error (the peer refused the key, range or permission)";
	case IBV_WC_REM_INV_REQ_ERR:
		return "remote invalid request (the peer's receive is too short)";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "receiver not ready: RNR retries exhausted";
	case IBV_WC_RETRY_EXC_ERR:
		return "transport retries exhausted (the peer is unreachable or gone)";
	default:
		return "work request failed";
	}
}

void
sd_verbs_scatter_free(struct sd_verbs_scatter *sc)
{
	free(sc->bounce);
	sc->bounce = NULL;
	if (sc->sg != &sc->sg1)
		free(sc->sg);
	sc->sg = &sc->sg1;
}

/* Copy len landed bytes from the bounce buffer into the entry's SGEs. */
static void
scatter(struct sd_verbs_scatter *sc, size_t len)
{
	const uint8_t *src = sc->bounce;
	uint32_t i;

	if (src == NULL)
		return;
	for (i = 0; i < sc->num_sge && len > 0; i++) {
		size_t n = SD_MIN((size_t)sc->sg[i].length, len);

		memcpy((void *)(uintptr_t)sc->sg[i].addr, src, n);
		src += n;
		len -= n;
	}
}

/* ---- the QP's domain and queues ---- */

static void
qp_ep_error(struct fabric_ep *ep, doca_error_t status, void *user)
{
	struct doca_verbs_qp *qp = sd_fabric_ep_get_user(ep);
	struct doca_verbs_cq *kick[2] = {NULL, NULL};
	bool fresh;

	(void)user;
	if (qp == NULL)
		return;
	pthread_mutex_lock(&qp->lock);
	fresh = qp->state != DOCA_VERBS_QP_STATE_ERR && qp->ep == ep;
	if (fresh) {
		sd_verbs_qp_fail(qp, status == DOCA_ERROR_NOT_PERMITTED ? "a peer's access was refused"
									: doca_error_get_descr(status));
		sd_verbs_wq_retire(qp, kick);
	}
	pthread_mutex_unlock(&qp->lock);
	if (!fresh)
		return;
	sd_verbs_async_event_post(
		qp->ctx,
		status == DOCA_ERROR_NOT_PERMITTED ? DOCA_VERBS_EVENT_QP_ACCESS_ERR : DOCA_VERBS_EVENT_QP_FATAL, qp);
	for (int i = 0; i < 2; i++)
		if (kick[i] != NULL)
			sd_verbs_cq_kick(kick[i]);
}

doca_error_t
sd_verbs_domain_init(struct sd_verbs_domain *dom, struct fabric_dev *fdev, uint32_t max_unexpected)
{
	struct fabric_ctx_attr attr = {
		.max_unexpected = max_unexpected,
		.ep_error_cb = qp_ep_error,
	};
	doca_error_t err = sd_fabric_ctx_create(fdev, &attr, &dom->fctx);

	if (err != DOCA_SUCCESS)
		return err;
	dom->progressing = false;
	return DOCA_SUCCESS;
}

/* Run the domain's completions now (yielding while another thread progresses it: a short call). */
void
sd_verbs_domain_drain(struct sd_verbs_domain *dom)
{
	while (__atomic_exchange_n(&dom->progressing, true, __ATOMIC_ACQUIRE))
		sched_yield();
	sd_fabric_ctx_progress(dom->fctx);
	__atomic_store_n(&dom->progressing, false, __ATOMIC_RELEASE);
}

void
sd_verbs_domain_fini(struct sd_verbs_domain *dom)
{
	if (dom->fctx == NULL)
		return;
	sd_verbs_domain_drain(dom);
	sd_fabric_ctx_destroy(dom->fctx);
	dom->fctx = NULL;
}

doca_error_t
sd_verbs_wq_init(struct doca_verbs_qp *qp)
{
	const struct doca_verbs_qp_init_attr *ia = &qp->init;
	doca_error_t err;
	uint32_t i;

	pthread_mutex_init(&qp->lock, NULL);
	qp->fault_rules = sd_fault_watch("verbs", qp->ctx->devinfo);
	sd_list_init(&qp->sq.wait_link);
	qp->recv_cq = ia->receive_cq != NULL ? ia->receive_cq : ia->send_cq;
	qp->sq.size = ia->sq_wr;
	qp->rq.size = ia->srq == NULL ? ia->rq_wr : 0;
	if (qp->sq.size > 0 && (qp->sq.ring = calloc(qp->sq.size, sizeof(*qp->sq.ring))) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (qp->rq.size > 0 && (qp->rq.ring = calloc(qp->rq.size, sizeof(*qp->rq.ring))) == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (i = 0; i < qp->sq.size; i++)
		qp->sq.ring[i].qp = qp;
	for (i = 0; i < qp->rq.size; i++)
		qp->rq.ring[i].qp = qp;
	if (ia->srq != NULL) {
		qp->dom = &ia->srq->dom;
	} else {
		/* one peer can have at most its send queue's depth waiting here for receives */
		err = sd_verbs_domain_init(&qp->own, qp->ctx->fdev, sd_verbs_max_qp_wr(qp->ctx));
		if (err != DOCA_SUCCESS)
			return err;
		qp->dom = &qp->own;
	}
	return sd_verbs_qp_ep_create(qp);
}

doca_error_t
sd_verbs_qp_ep_create(struct doca_verbs_qp *qp)
{
	doca_error_t err = sd_fabric_ep_create(qp->dom->fctx, qp, &qp->ep);

	/* the peer reaches only memory registered on this QP's PD (the rkey's protection domain) */
	if (err == DOCA_SUCCESS)
		sd_fabric_ep_set_domain(qp->ep, qp->init.pd->ibv_pd->handle);
	return err;
}

void
sd_verbs_wq_fini(struct doca_verbs_qp *qp)
{
	if (qp->ep != NULL) {
		pthread_mutex_lock(&qp->lock);
		qp->state = DOCA_VERBS_QP_STATE_RST; /* late completions are dropped */
		pthread_mutex_unlock(&qp->lock);
		sd_fabric_ep_destroy(qp->ep);
		/* the ep's ops complete (aborted) with the next progress: run it before the entries go */
		if (qp->dom != NULL)
			sd_verbs_domain_drain(qp->dom);
		qp->ep = NULL;
	}
	if (qp->dom == &qp->own)
		sd_verbs_domain_fini(&qp->own);
	for (uint32_t i = 0; i < qp->sq.size; i++)
		sd_verbs_scatter_free(&qp->sq.ring[i].sc);
	for (uint32_t i = 0; i < qp->rq.size; i++)
		sd_verbs_scatter_free(&qp->rq.ring[i].sc);
	free(qp->sq.ring);
	free(qp->rq.ring);
	qp->sq.ring = NULL;
	qp->rq.ring = NULL;
	pthread_mutex_destroy(&qp->lock);
}

/* ---- the QP in error ---- */

void
sd_verbs_qp_fail(struct doca_verbs_qp *qp, const char *why)
{
	struct sd_verbs_sq *sq = &qp->sq;

	if (qp->state == DOCA_VERBS_QP_STATE_ERR || qp->state == DOCA_VERBS_QP_STATE_RST)
		return;
	DOCA_LOG_INFO("QP %u (peer QP %u): entering the error state: %s; outstanding work requests are flushed",
		      qp->qpn, qp->attr.dest_qp_num, why);
	qp->state = DOCA_VERBS_QP_STATE_ERR;
	qp->err_why = why;
	if (qp->ep != NULL)
		sd_fabric_ep_abort(qp->ep, DOCA_ERROR_CONNECTION_ABORTED);
	if (qp->dom == &qp->own)
		sd_fabric_ctx_flush_recvs(qp->own.fctx, DOCA_ERROR_CONNECTION_ABORTED);
	/* entries a WAIT held never reach the fabric */
	if (sq->waiting) {
		sd_verbs_cq_unwait(sq->ring[sq->issue % sq->size].wait_cq, qp);
		sq->waiting = false;
	}
	for (; sq->issue != sq->tail; sq->issue++)
		sd_verbs_swqe_local(&sq->ring[sq->issue % sq->size], IBV_WC_WR_FLUSH_ERR);
}

/* ---- send side ---- */

void
sd_verbs_swqe_local(struct sd_verbs_swqe *w, enum ibv_wc_status status)
{
	w->kind = SD_SWQE_LOCAL;
	w->status = status;
	w->done = true;
}

static doca_error_t
swqe_post(struct doca_verbs_qp *qp, struct sd_verbs_swqe *w)
{
	struct fabric_op *op = &w->op;
	void *dst;

	op->cb = sd_verbs_swqe_cb;
	op->user = w;
	switch (w->ftype) {
	case FABRIC_OP_SEND:
		return sd_fabric_ep_send(qp->ep, op, w->buf, w->len);
	case FABRIC_OP_SEND_IMM:
		return sd_fabric_ep_send_imm(qp->ep, op, w->buf, w->len, w->imm);
	case FABRIC_OP_WRITE:
		return sd_fabric_ep_write(qp->ep, op, w->buf, w->len, &w->rmr, w->raddr);
	case FABRIC_OP_WRITE_IMM:
		return sd_fabric_ep_write_imm(qp->ep, op, w->buf, w->len, &w->rmr, w->raddr, w->imm);
	case FABRIC_OP_READ:
		dst = w->sc.bounce != NULL ? w->sc.bounce : (void *)(uintptr_t)w->sc.sg1.addr;
		return sd_fabric_ep_read(qp->ep, op, dst, w->len, &w->rmr, w->raddr);
	case FABRIC_OP_FETCH_ADD:
		return sd_fabric_ep_fetch_add(qp->ep, op, &w->rmr, w->raddr, w->operand[0], &w->atomic_old);
	case FABRIC_OP_CMP_SWP:
		return sd_fabric_ep_cmp_swp(qp->ep, op, &w->rmr, w->raddr, w->operand[0], w->operand[1],
					    &w->atomic_old);
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}

void
sd_verbs_sq_issue(struct doca_verbs_qp *qp)
{
	struct sd_verbs_sq *sq = &qp->sq;

	while (sq->issue != sq->tail) {
		struct sd_verbs_swqe *w = &sq->ring[sq->issue % sq->size];
		doca_error_t err;

		if (w->kind == SD_SWQE_WAIT && !w->done) {
			if (!sd_verbs_cq_reached(w->wait_cq, w->wait_pi, qp)) {
				sq->waiting = true;
				return;
			}
			w->status = IBV_WC_SUCCESS;
			w->done = true;
		}
		sq->issue++;
		if (w->kind != SD_SWQE_FABRIC)
			continue;
		if (!qp->reachable) {
			/* RTR found no peer: what the retries would end in, without the wait */
			sd_verbs_swqe_local(w, IBV_WC_RETRY_EXC_ERR);
			continue;
		}
		err = swqe_post(qp, w);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_DBG("QP %u: work request 0x%llx refused by the soft NIC: %s", qp->qpn,
				     (unsigned long long)w->wr_id, doca_error_get_descr(err));
			sd_verbs_swqe_local(w, sd_verbs_wc_status(err == DOCA_ERROR_INVALID_VALUE
									  ? DOCA_ERROR_CONNECTION_ABORTED
									  : err,
								  false));
		}
	}
}

static void
swqe_wc(const struct doca_verbs_qp *qp, const struct sd_verbs_swqe *w, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->status = w->status;
	wc->opcode = w->wc_opcode;
	wc->byte_len = w->status == IBV_WC_SUCCESS ? w->byte_len : 0;
	wc->qp_num = qp->qpn;
	wc->src_qp = qp->attr.dest_qp_num;
}

static void
rwqe_wc(const struct doca_verbs_qp *qp, const struct sd_verbs_rwqe *w, struct ibv_wc *wc)
{
	const struct fabric_op *op = &w->op;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->status = op->status == DOCA_SUCCESS		    ? w->inj
		     : qp->state == DOCA_VERBS_QP_STATE_ERR ? IBV_WC_WR_FLUSH_ERR
							    : sd_verbs_wc_status(op->status, true);
	wc->opcode = op->opcode == FABRIC_RECV_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	if (wc->status == IBV_WC_SUCCESS) {
		wc->byte_len = op->len;
		if (op->opcode != FABRIC_RECV_SEND) {
			wc->wc_flags = IBV_WC_WITH_IMM;
			wc->imm_data = op->imm; /* as the sender gave it (network order) */
		}
	}
	wc->qp_num = qp->qpn;
	wc->src_qp = qp->attr.dest_qp_num;
}

/* One completion into cq; remembers cq for the kick once the QP lock is gone. */
static void
push(struct doca_verbs_cq *cq, const struct ibv_wc *wc, struct doca_verbs_cq *kick[2])
{
	sd_verbs_cq_push(cq, wc);
	if (kick[0] == NULL || kick[0] == cq)
		kick[0] = cq;
	else
		kick[1] = cq;
}

void
sd_verbs_wq_retire(struct doca_verbs_qp *qp, struct doca_verbs_cq *kick[2])
{
	struct sd_verbs_sq *sq = &qp->sq;
	struct sd_verbs_rq *rq = &qp->rq;
	struct ibv_wc wc;

	if (qp->state == DOCA_VERBS_QP_STATE_RST)
		return; /* being reset or destroyed: entries go without completions */
	while (sq->head != sq->issue && sq->ring[sq->head % sq->size].done) {
		struct sd_verbs_swqe *w = &sq->ring[sq->head % sq->size];

		if (sd_unlikely(w->due_ns != 0) && sd_verbs_fault_held(&w->due_ns))
			break; /* a delayed completion: it and those behind it wait (sd_verbs_fault_visit) */
		/*
		 * Behind a failed entry (or once in ERR) an entry is flushed, as on hardware, whatever
		 * the soft NIC made of it: it may have executed, or failed as the peer went to ERR.
		 */
		if (qp->state == DOCA_VERBS_QP_STATE_ERR)
			w->status = IBV_WC_WR_FLUSH_ERR;
		if (w->status != IBV_WC_SUCCESS)
			sd_verbs_qp_fail(qp, wc_status_name(w->status));
		if (w->signaled || w->status != IBV_WC_SUCCESS) {
			swqe_wc(qp, w, &wc);
			push(qp->init.send_cq, &wc, kick);
		}
		sd_verbs_scatter_free(&w->sc);
		sq->head++;
	}
	while (rq->head != rq->tail && rq->ring[rq->head % rq->size].done) {
		struct sd_verbs_rwqe *w = &rq->ring[rq->head % rq->size];

		if (sd_unlikely(w->due_ns != 0) && sd_verbs_fault_held(&w->due_ns))
			break;
		rwqe_wc(qp, w, &wc);
		if (wc.status != IBV_WC_SUCCESS && wc.status != IBV_WC_WR_FLUSH_ERR)
			sd_verbs_qp_fail(qp, wc_status_name(wc.status));
		push(qp->recv_cq, &wc, kick);
		sd_verbs_scatter_free(&w->sc);
		rq->head++;
	}
}

static void
kick_all(struct doca_verbs_cq *kick[2])
{
	if (kick[0] != NULL)
		sd_verbs_cq_kick(kick[0]);
	if (kick[1] != NULL && kick[1] != kick[0])
		sd_verbs_cq_kick(kick[1]);
}

void
sd_verbs_swqe_cb(struct fabric_op *op)
{
	struct sd_verbs_swqe *w = op->user;
	struct doca_verbs_qp *qp = w->qp;
	struct doca_verbs_cq *kick[2] = {NULL, NULL};

	pthread_mutex_lock(&qp->lock);
	if (op->status == DOCA_SUCCESS) {
		w->status = IBV_WC_SUCCESS;
		if (w->ftype == FABRIC_OP_FETCH_ADD || w->ftype == FABRIC_OP_CMP_SWP)
			memcpy((void *)(uintptr_t)w->sc.sg1.addr, &w->atomic_old, sizeof(w->atomic_old));
		else if (w->ftype == FABRIC_OP_READ)
			scatter(&w->sc, w->len);
	} else {
		w->status = qp->state == DOCA_VERBS_QP_STATE_ERR ? IBV_WC_WR_FLUSH_ERR
								 : sd_verbs_wc_status(op->status, false);
	}
	if (sd_unlikely(qp->fault_rules != 0) && qp->state != DOCA_VERBS_QP_STATE_ERR)
		sd_verbs_fault_swqe(qp, w);
	w->done = true;
	sd_verbs_wq_retire(qp, kick);
	pthread_mutex_unlock(&qp->lock);
	kick_all(kick);
}

/* ---- receive side ---- */

static void
srq_rwqe_done(struct sd_verbs_rwqe *w)
{
	struct fabric_op *op = &w->op;
	struct doca_verbs_srq *srq = w->srq;
	struct doca_verbs_qp *qp = op->src_ep != NULL ? op->src_user : NULL;
	struct doca_verbs_cq *kick[2] = {NULL, NULL};
	struct ibv_wc wc;

	if (qp != NULL) {
		pthread_mutex_lock(&qp->lock);
		if (qp->state != DOCA_VERBS_QP_STATE_RST) {
			rwqe_wc(qp, w, &wc);
			push(qp->recv_cq, &wc, kick);
		}
		pthread_mutex_unlock(&qp->lock);
	}
	pthread_mutex_lock(&srq->lock);
	sd_verbs_scatter_free(&w->sc);
	sd_list_insert_tail(&srq->free_rwqes, &w->free_link);
	pthread_mutex_unlock(&srq->lock);
	kick_all(kick);
}

void
sd_verbs_rwqe_cb(struct fabric_op *op)
{
	struct sd_verbs_rwqe *w = op->user;
	struct doca_verbs_qp *qp = w->qp;
	struct doca_verbs_cq *kick[2] = {NULL, NULL};

	if (op->status == DOCA_SUCCESS)
		scatter(&w->sc, op->len);
	if (qp == NULL) {
		srq_rwqe_done(w);
		return;
	}
	pthread_mutex_lock(&qp->lock);
	if (sd_unlikely(qp->fault_rules != 0) && qp->state != DOCA_VERBS_QP_STATE_ERR)
		sd_verbs_fault_rwqe(qp, w);
	w->done = true;
	sd_verbs_wq_retire(qp, kick);
	pthread_mutex_unlock(&qp->lock);
	kick_all(kick);
}
