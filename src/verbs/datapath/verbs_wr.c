/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_bridge.h's post calls: rdma-core work requests checked and
 * turned into work queue entries (verbs_wq.c) on the QP's soft NIC queue
 * pair.  A malformed request is refused at post time with an errno value and
 * *bad_wr; a request the hardware would accept and then fail (a local key
 * that does not cover its buffer, a QP in ERR) is accepted and completes
 * with the error status hardware reports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <doca_verbs_bridge.h>

#include "../ibv/verbs_ibv.h"
#include "../verbs_internal.h"

SD_LOG_REGISTER(verbs.wr);

/* A wait entry carries its CQ in wr.atomic: the pointer, the producer index, and this check. */
#define WAIT_MAGIC 0x5344574149544351ull /* "SDWAITCQ" */
/* Largest message: 2 GiB, as rdma-core's max_msg_sz on ConnectX. */
#define MAX_MSG (1ull << 31)

static const char *const state_names[] = {"RST", "INIT", "RTR", "RTS", "ERR"};

/* Gather or point at the SGEs of a request; 0 or an errno value. */
static int
gather(struct doca_verbs_qp *qp, struct sd_verbs_swqe *w, const struct ibv_send_wr *wr, bool lands_here, bool inl,
       uint64_t total)
{
	struct sd_verbs_scatter *sc = &w->sc;
	uint8_t *dst;
	int i;

	sc->sg = &sc->sg1;
	sc->num_sge = (uint32_t)wr->num_sge;
	/* inline data is taken at post: the caller may reuse its buffer at once */
	if (wr->num_sge == 1 && !inl) {
		sc->sg1 = wr->sg_list[0];
		w->buf = (const void *)(uintptr_t)wr->sg_list[0].addr;
		w->len = total;
		return 0;
	}
	if (wr->num_sge == 0) {
		w->buf = NULL;
		w->len = 0;
		return 0;
	}
	sc->bounce = malloc(total > 0 ? total : 1);
	if (sc->bounce == NULL)
		return ENOMEM;
	w->buf = sc->bounce;
	w->len = total;
	if (lands_here) {
		sc->sg = malloc(sizeof(*sc->sg) * (size_t)wr->num_sge);
		if (sc->sg == NULL) {
			sc->sg = &sc->sg1;
			return ENOMEM;
		}
		memcpy(sc->sg, wr->sg_list, sizeof(*sc->sg) * (size_t)wr->num_sge);
		return 0;
	}
	dst = sc->bounce;
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
		dst += wr->sg_list[i].length;
	}
	(void)qp;
	return 0;
}

static bool
keys_cover(struct doca_verbs_qp *qp, const struct ibv_sge *sg, int num_sge, bool write)
{
	for (int i = 0; i < num_sge; i++)
		if (!sd_verbs_mr_check_local(qp->init.pd, &qp->sq.memo, sg[i].lkey, sg[i].addr, sg[i].length, write))
			return false;
	return true;
}

/* What each work request opcode becomes on the soft NIC, and its completion's opcode. */
static const struct {
	bool valid, rc_only;
	enum fabric_op_type ftype;
	enum ibv_wc_opcode wc;
} send_ops[] = {
	[IBV_WR_SEND] = {true, false, FABRIC_OP_SEND, IBV_WC_SEND},
	[IBV_WR_SEND_WITH_IMM] = {true, false, FABRIC_OP_SEND_IMM, IBV_WC_SEND},
	[IBV_WR_RDMA_WRITE] = {true, false, FABRIC_OP_WRITE, IBV_WC_RDMA_WRITE},
	[IBV_WR_RDMA_WRITE_WITH_IMM] = {true, false, FABRIC_OP_WRITE_IMM, IBV_WC_RDMA_WRITE},
	[IBV_WR_RDMA_READ] = {true, true, FABRIC_OP_READ, IBV_WC_RDMA_READ},
	[IBV_WR_ATOMIC_CMP_AND_SWP] = {true, true, FABRIC_OP_CMP_SWP, IBV_WC_COMP_SWAP},
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = {true, true, FABRIC_OP_FETCH_ADD, IBV_WC_FETCH_ADD},
};

/* What the opcode becomes; false for one softdoca does not execute (or UC cannot). */
static bool
send_opcode(const struct doca_verbs_qp *qp, enum ibv_wr_opcode opc, struct sd_verbs_swqe *w)
{
	if ((unsigned)opc >= SD_ARRAY_SIZE(send_ops) || !send_ops[opc].valid ||
	    (send_ops[opc].rc_only && qp->init.qp_type != DOCA_VERBS_QP_TYPE_RC))
		return false;
	w->ftype = send_ops[opc].ftype;
	w->wc_opcode = send_ops[opc].wc;
	return true;
}

static int
build_wait(struct doca_verbs_qp *qp, struct sd_verbs_swqe *w, const struct ibv_send_wr *wr)
{
	struct doca_verbs_cq *cq = (struct doca_verbs_cq *)(uintptr_t)wr->wr.atomic.remote_addr;

	if (cq == NULL || wr->wr.atomic.swap != (WAIT_MAGIC ^ wr->wr.atomic.remote_addr) || cq->ctx != qp->ctx) {
		DOCA_LOG_ERR(
			"doca_verbs_bridge_post_send: QP %u: an IBV_WR_DRIVER1 request must be filled by "
			"doca_verbs_bridge_set_wait_cq_pi_wr() with a CQ of the QP's context; fill it with that call",
			qp->qpn);
		return EINVAL;
	}
	w->kind = SD_SWQE_WAIT;
	w->wc_opcode = IBV_WC_DRIVER1;
	w->wait_cq = cq;
	w->wait_pi = (uint32_t)wr->wr.atomic.compare_add;
	return 0;
}

/* Check one request and fill the next free entry; 0 or an errno value (nothing queued then). */
/* Room in the send queue and an SGE count the QP takes: 0, or the errno of the refusal. */
static int
send_admit(const struct doca_verbs_qp *qp, const struct ibv_send_wr *wr)
{
	const struct sd_verbs_sq *sq = &qp->sq;

	if (sq->size == 0 || sq->tail - sq->head >= sq->size) {
		DOCA_LOG_DBG("QP %u: send queue full (%u entries)", qp->qpn, sq->size);
		return ENOMEM;
	}
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > SD_MAX(qp->init.send_max_sges, 1u) ||
	    (wr->num_sge > 0 && wr->sg_list == NULL)) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_send: QP %u: %d SGEs but the QP takes at most %u "
			     "(doca_verbs_qp_init_attr_set_send_max_sges); use at most that many",
			     qp->qpn, wr->num_sge, qp->init.send_max_sges);
		return EINVAL;
	}
	return 0;
}

/* The remote side of an RDMA or atomic work request (a send has none): 0, or EINVAL. */
static int
send_remote(const struct doca_verbs_qp *qp, struct sd_verbs_swqe *w, const struct ibv_send_wr *wr, bool atomic)
{
	if (atomic) {
		if (wr->num_sge != 1 || wr->sg_list[0].length != sizeof(uint64_t) ||
		    (wr->wr.atomic.remote_addr & 7u) != 0) {
			DOCA_LOG_ERR("doca_verbs_bridge_post_send: QP %u: an atomic takes one 8-byte SGE and an 8-byte "
				     "aligned remote address; give it exactly that",
				     qp->qpn);
			return EINVAL;
		}
		w->raddr = wr->wr.atomic.remote_addr;
		w->operand[0] = wr->wr.atomic.compare_add;
		w->operand[1] = wr->wr.atomic.swap;
		sd_fabric_rmr_init_rkey(&w->rmr, qp->ctx->fdev, wr->wr.atomic.rkey);
	} else if (w->ftype != FABRIC_OP_SEND && w->ftype != FABRIC_OP_SEND_IMM) {
		w->raddr = wr->wr.rdma.remote_addr;
		sd_fabric_rmr_init_rkey(&w->rmr, qp->ctx->fdev, wr->wr.rdma.rkey);
	}
	return 0;
}

static int
build_send(struct doca_verbs_qp *qp, const struct ibv_send_wr *wr)
{
	struct sd_verbs_sq *sq = &qp->sq;
	struct sd_verbs_swqe *w;
	bool inl, lands_here, atomic;
	uint64_t total = 0;
	int i, ret;

	ret = send_admit(qp, wr);
	if (ret != 0)
		return ret;
	if (sd_unlikely(qp->fault_rules != 0) && sd_verbs_fault_post(qp, wr->opcode, wr->wr_id))
		return ENOMEM;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	/*
	 * The fields every kind of entry reads, set one by one (a memset of the whole entry, its
	 * fabric_op included, cost more than the rest of the post): the others are set where the
	 * opcode needs them, and the fabric sets its op's own at post.
	 */
	w = &sq->ring[sq->tail % sq->size];
	w->qp = qp;
	w->kind = SD_SWQE_FABRIC;
	w->status = IBV_WC_SUCCESS;
	w->done = false;
	w->due_ns = 0;
	w->sc.sg = &w->sc.sg1;
	w->sc.bounce = NULL;
	w->sc.num_sge = 0;
	w->wr_id = wr->wr_id;
	w->signaled = (wr->send_flags & IBV_SEND_SIGNALED) != 0 || qp->init.sq_sig_all != 0;
	w->byte_len = (uint32_t)total;
	if (wr->opcode == IBV_WR_DRIVER1) {
		ret = build_wait(qp, w, wr);
		if (ret == 0)
			sq->tail++;
		return ret;
	}
	if (!send_opcode(qp, wr->opcode, w)) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_send: QP %u: opcode %d is not supported on a%s QP (SEND, "
			     "SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM%s); use one of those",
			     qp->qpn, (int)wr->opcode, qp->init.qp_type == DOCA_VERBS_QP_TYPE_RC ? "n RC" : " UC",
			     qp->init.qp_type == DOCA_VERBS_QP_TYPE_RC ? ", RDMA_READ, ATOMIC_CMP_AND_SWP, "
									 "ATOMIC_FETCH_AND_ADD"
								       : "");
		return EINVAL;
	}
	atomic = w->ftype == FABRIC_OP_CMP_SWP || w->ftype == FABRIC_OP_FETCH_ADD;
	lands_here = atomic || w->ftype == FABRIC_OP_READ;
	inl = (wr->send_flags & IBV_SEND_INLINE) != 0 && !lands_here;
	if (total > MAX_MSG) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_send: QP %u: %llu bytes exceed the largest message (2 GiB); split "
			     "the message",
			     qp->qpn, (unsigned long long)total);
		return EINVAL;
	}
	if (inl && total > qp->init.max_inline_data) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_send: QP %u: %llu inline bytes exceed the QP's max_inline_data "
			     "%u (doca_verbs_qp_init_attr_set_max_inline_data); send fewer bytes inline or raise it",
			     qp->qpn, (unsigned long long)total, qp->init.max_inline_data);
		return EINVAL;
	}
	ret = send_remote(qp, w, wr, atomic);
	if (ret != 0)
		return ret;
	w->imm = wr->imm_data;
	if (qp->state == DOCA_VERBS_QP_STATE_ERR) {
		sd_verbs_swqe_local(w, IBV_WC_WR_FLUSH_ERR);
	} else if (!inl && !keys_cover(qp, wr->sg_list, wr->num_sge, lands_here)) {
		DOCA_LOG_WARN("QP %u: work request 0x%llx: a local key does not cover its buffer (or lacks local "
			      "write): IBV_WC_LOC_PROT_ERR; post buffers inside memory the QP's PD registered",
			      qp->qpn, (unsigned long long)wr->wr_id);
		sd_verbs_swqe_local(w, IBV_WC_LOC_PROT_ERR);
	} else {
		ret = gather(qp, w, wr, lands_here, inl, total);
		if (ret != 0) {
			sd_verbs_scatter_free(&w->sc);
			return ret;
		}
	}
	sq->tail++;
	return 0;
}

DOCA_EXPERIMENTAL int
doca_verbs_bridge_post_send(struct doca_verbs_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct doca_verbs_cq *kick[2] = {NULL, NULL};
	int ret = 0;

	if (qp == NULL || wr == NULL || bad_wr == NULL) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_send: NULL argument (verbs_qp %p, wr %p, bad_wr %p); pass "
			     "non-NULL pointers",
			     (void *)qp, (void *)wr, (void *)bad_wr);
		if (bad_wr != NULL)
			*bad_wr = wr;
		return EINVAL;
	}
	if (sd_unlikely(qp->fault_rules != 0))
		sd_verbs_fault_visit(qp);
	pthread_mutex_lock(&qp->lock);
	if (qp->state != DOCA_VERBS_QP_STATE_RTS && qp->state != DOCA_VERBS_QP_STATE_ERR) {
		pthread_mutex_unlock(&qp->lock);
		DOCA_LOG_ERR("doca_verbs_bridge_post_send: QP %u is in %s; sends are posted in RTS (modify the QP "
			     "RST -> INIT -> RTR -> RTS first)",
			     qp->qpn, state_names[qp->state]);
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		ret = build_send(qp, wr);
		if (ret != 0) {
			*bad_wr = wr;
			break;
		}
	}
	sd_verbs_sq_issue(qp);
	sd_verbs_wq_retire(qp, kick);
	pthread_mutex_unlock(&qp->lock);
	for (int i = 0; i < 2; i++)
		if (kick[i] != NULL)
			sd_verbs_cq_kick(kick[i]);
	return ret;
}

/* Fill a receive entry's buffer from the request (memo: the queue's, or NULL); 0 or an errno value. */
static int
build_recv(const struct doca_verbs_pd *pd, struct sd_verbs_mr_memo *memo, uint32_t max_sges, struct sd_verbs_rwqe *w,
	   const struct ibv_recv_wr *wr, uint32_t num, void **buf, size_t *len)
{
	uint64_t total = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > SD_MAX(max_sges, 1u) ||
	    (wr->num_sge > 0 && wr->sg_list == NULL)) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_recv: queue %u: %d SGEs but it takes at most %u "
			     "(receive_max_sges); use at most that many",
			     num, wr->num_sge, max_sges);
		return EINVAL;
	}
	for (i = 0; i < wr->num_sge; i++) {
		if (!sd_verbs_mr_check_local(pd, memo, wr->sg_list[i].lkey, wr->sg_list[i].addr, wr->sg_list[i].length,
					     true)) {
			DOCA_LOG_ERR(
				"doca_verbs_bridge_post_recv: queue %u: SGE %d (lkey 0x%x, %u bytes at 0x%llx) is "
				"not inside memory registered with IBV_ACCESS_LOCAL_WRITE on the QP's PD; register it "
				"so (ibv_reg_mr)",
				num, i, wr->sg_list[i].lkey, wr->sg_list[i].length,
				(unsigned long long)wr->sg_list[i].addr);
			return EINVAL;
		}
		total += wr->sg_list[i].length;
	}
	if (total > MAX_MSG) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_recv: queue %u: %llu bytes exceed the largest message (2 GiB); "
			     "post at most 2 GiB",
			     num, (unsigned long long)total);
		return EINVAL;
	}
	w->wr_id = wr->wr_id;
	w->done = false;
	w->inj = IBV_WC_SUCCESS;
	w->due_ns = 0;
	w->sc.sg = &w->sc.sg1;
	w->sc.bounce = NULL;
	w->sc.num_sge = (uint32_t)wr->num_sge;
	memset(&w->op, 0, sizeof(w->op));
	w->op.cb = sd_verbs_rwqe_cb;
	w->op.user = w;
	*len = total;
	if (wr->num_sge == 0) {
		*buf = NULL;
	} else if (wr->num_sge == 1) {
		w->sc.sg1 = wr->sg_list[0];
		*buf = (void *)(uintptr_t)wr->sg_list[0].addr;
	} else {
		w->sc.bounce = malloc(total > 0 ? total : 1);
		w->sc.sg = malloc(sizeof(*w->sc.sg) * (size_t)wr->num_sge);
		if (w->sc.bounce == NULL || w->sc.sg == NULL) {
			if (w->sc.sg == NULL)
				w->sc.sg = &w->sc.sg1;
			sd_verbs_scatter_free(&w->sc);
			return ENOMEM;
		}
		memcpy(w->sc.sg, wr->sg_list, sizeof(*w->sc.sg) * (size_t)wr->num_sge);
		*buf = w->sc.bounce;
	}
	return 0;
}

DOCA_EXPERIMENTAL int
doca_verbs_bridge_post_recv(struct doca_verbs_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct doca_verbs_cq *kick[2] = {NULL, NULL};
	struct sd_verbs_rq *rq;
	int ret = 0;

	if (qp == NULL || wr == NULL || bad_wr == NULL) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_recv: NULL argument (verbs_qp %p, wr %p, bad_wr %p); pass "
			     "non-NULL pointers",
			     (void *)qp, (void *)wr, (void *)bad_wr);
		if (bad_wr != NULL)
			*bad_wr = wr;
		return EINVAL;
	}
	if (qp->init.srq != NULL || qp->rq.size == 0) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_recv: QP %u has %s; %s", qp->qpn,
			     qp->init.srq != NULL ? "an SRQ" : "no receive queue (rq_wr 0)",
			     qp->init.srq != NULL ? "post receives with doca_verbs_bridge_post_srq_recv()"
						  : "create it with doca_verbs_qp_init_attr_set_rq_wr()");
		*bad_wr = wr;
		return EINVAL;
	}
	rq = &qp->rq;
	if (sd_unlikely(qp->fault_rules != 0))
		sd_verbs_fault_visit(qp);
	pthread_mutex_lock(&qp->lock);
	if (qp->state == DOCA_VERBS_QP_STATE_RST) {
		pthread_mutex_unlock(&qp->lock);
		DOCA_LOG_ERR("doca_verbs_bridge_post_recv: QP %u is in RST; receives are posted from INIT on", qp->qpn);
		*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct sd_verbs_rwqe *w;
		void *buf;
		size_t len;

		if (rq->tail - rq->head >= rq->size) {
			DOCA_LOG_DBG("QP %u: receive queue full (%u entries)", qp->qpn, rq->size);
			ret = ENOMEM;
		} else if (sd_unlikely(qp->fault_rules != 0) && sd_verbs_fault_post(qp, -1, wr->wr_id)) {
			ret = ENOMEM;
		} else {
			w = &rq->ring[rq->tail % rq->size];
			ret = build_recv(qp->init.pd, &rq->memo, qp->init.receive_max_sges, w, wr, qp->qpn, &buf, &len);
		}
		if (ret != 0) {
			*bad_wr = wr;
			break;
		}
		rq->tail++;
		if (qp->state == DOCA_VERBS_QP_STATE_ERR) {
			w->op.status = DOCA_ERROR_CONNECTION_ABORTED;
			w->done = true;
		} else if (sd_fabric_ctx_post_recv(qp->own.fctx, &w->op, buf, len) != DOCA_SUCCESS) {
			w->op.status = DOCA_ERROR_CONNECTION_ABORTED;
			w->done = true;
		}
	}
	sd_verbs_wq_retire(qp, kick);
	pthread_mutex_unlock(&qp->lock);
	for (int i = 0; i < 2; i++)
		if (kick[i] != NULL)
			sd_verbs_cq_kick(kick[i]);
	return ret;
}

DOCA_EXPERIMENTAL int
doca_verbs_bridge_post_srq_recv(struct doca_verbs_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	int ret = 0;

	if (srq == NULL || wr == NULL || bad_wr == NULL) {
		DOCA_LOG_ERR("doca_verbs_bridge_post_srq_recv: NULL argument (verbs_srq %p, wr %p, bad_wr %p); pass "
			     "non-NULL pointers",
			     (void *)srq, (void *)wr, (void *)bad_wr);
		if (bad_wr != NULL)
			*bad_wr = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct sd_verbs_rwqe *w = NULL;
		struct sd_list *l;
		void *buf;
		size_t len;

		pthread_mutex_lock(&srq->lock);
		l = sd_list_pop_head(&srq->free_rwqes);
		pthread_mutex_unlock(&srq->lock);
		if (l == NULL) {
			DOCA_LOG_DBG("SRQ %u full (%u entries)", srq->srqn, srq->attr.srq_wr);
			ret = ENOMEM;
		} else {
			w = sd_container_of(l, struct sd_verbs_rwqe, free_link);
			ret = build_recv(srq->attr.pd, NULL, srq->attr.receive_max_sges, w, wr, srq->srqn, &buf, &len);
		}
		if (ret == 0 && sd_fabric_ctx_post_recv(srq->dom.fctx, &w->op, buf, len) != DOCA_SUCCESS)
			ret = EINVAL;
		if (ret != 0) {
			if (w != NULL) {
				pthread_mutex_lock(&srq->lock);
				sd_list_insert_tail(&srq->free_rwqes, &w->free_link);
				pthread_mutex_unlock(&srq->lock);
			}
			*bad_wr = wr;
			break;
		}
	}
	return ret;
}

DOCA_EXPERIMENTAL int
doca_verbs_bridge_set_wait_cq_pi_wr(struct doca_verbs_cq *cq, uint32_t wait_pi, struct ibv_send_wr *wr)
{
	if (cq == NULL || wr == NULL) {
		DOCA_LOG_ERR("doca_verbs_bridge_set_wait_cq_pi_wr: NULL argument (verbs_cq %p, wr %p); pass non-NULL "
			     "pointers",
			     (void *)cq, (void *)wr);
		return EINVAL;
	}
	wr->opcode = IBV_WR_DRIVER1;
	wr->sg_list = NULL;
	wr->num_sge = 0;
	wr->wr.atomic.remote_addr = (uintptr_t)cq;
	wr->wr.atomic.compare_add = wait_pi;
	wr->wr.atomic.swap = WAIT_MAGIC ^ (uintptr_t)cq;
	wr->wr.atomic.rkey = cq->cqn;
	return 0;
}
