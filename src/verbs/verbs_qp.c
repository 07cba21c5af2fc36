/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs: creation checks, the QP number, and the state machine of
 * doca_verbs_qp_modify, drawn here (RC; UC is the same without the RC
 * timers and read/atomic depths):
 *
 *        +-----+  RST->INIT   +------+  INIT->RTR   +-----+  RTR->RTS   +-----+
 *        | RST | -----------> | INIT | -----------> | RTR | ----------> | RTS |
 *        +-----+              +------+              +-----+             +-----+
 *           ^   any -> RST      |  ^ INIT->INIT                           | ^ RTS->RTS
 *           +-------------------+--+--------- any -> ERR -> +-----+ <-----+-+
 *                                                           | ERR |
 *                                                           +-----+
 *
 * Each transition has a set of attributes it accepts (mask bits outside it
 * are refused, as rdma-core's table does) and a set it requires.  DOCA's
 * samples pass fewer attributes than the RC rules list (no ATOMIC_MODE, no
 * MAX_DEST_RD_ATOMIC, no MAX_QP_RD_ATOMIC, no PKEY_INDEX value), so only what
 * software cannot guess is required: DEST_QP_NUM and AH_ATTR at INIT -> RTR.
 * Everything else keeps the QP's defaults (qp_defaults), chosen so that
 * sends, writes and reads work.
 */
#include <stdlib.h>
#include <string.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.qp);

#define M(x) DOCA_VERBS_QP_ATTR_##x
#define MASK_ALL ((1 << 19) - 1)
#define MASK_STATES (M(NEXT_STATE) | M(CURRENT_STATE))
#define MASK_ACCESS (M(ALLOW_REMOTE_WRITE) | M(ALLOW_REMOTE_READ) | M(ATOMIC_MODE))
#define MASK_RC_ONLY                                                                                                   \
	(M(MIN_RNR_TIMER) | M(ACK_TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC))
/* What a QP in each state has (doca_verbs_qp_query's mask). */
#define VALID_INIT (MASK_ACCESS | M(PKEY_INDEX) | M(PORT_NUM))
#define VALID_RTR                                                                                                      \
	(VALID_INIT | M(RQ_PSN) | M(DEST_QP_NUM) | M(PATH_MTU) | M(AH_ATTR) | M(MIN_RNR_TIMER) | M(MAX_DEST_RD_ATOMIC))
#define VALID_RTS (VALID_RTR | M(SQ_PSN) | M(ACK_TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC))

struct qp_transition {
	int allowed;  /* mask bits the transition accepts */
	int required; /* mask bits it cannot do without */
};

/* [from][to]; allowed == 0: not a transition. */
static const struct qp_transition qp_table[5][5] =
	{
		[DOCA_VERBS_QP_STATE_RST] =
			{
				[DOCA_VERBS_QP_STATE_RST] = {MASK_STATES, 0},
				[DOCA_VERBS_QP_STATE_INIT] = {MASK_STATES | VALID_INIT, 0},
				[DOCA_VERBS_QP_STATE_ERR] = {MASK_STATES, 0},
			},
		[DOCA_VERBS_QP_STATE_INIT] =
			{
				[DOCA_VERBS_QP_STATE_RST] = {MASK_STATES, 0},
				[DOCA_VERBS_QP_STATE_INIT] = {MASK_STATES | VALID_INIT, 0},
				[DOCA_VERBS_QP_STATE_RTR] = {MASK_STATES | (VALID_RTR & ~M(PORT_NUM)) | M(CC_GROUP),
							     M(DEST_QP_NUM) | M(AH_ATTR)},
				[DOCA_VERBS_QP_STATE_ERR] = {MASK_STATES, 0},
			},
		[DOCA_VERBS_QP_STATE_RTR] =
			{
				[DOCA_VERBS_QP_STATE_RST] = {MASK_STATES, 0},
				[DOCA_VERBS_QP_STATE_RTS] = {MASK_STATES | MASK_ACCESS | M(MIN_RNR_TIMER) | M(SQ_PSN) |
								     M(ACK_TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
								     M(MAX_QP_RD_ATOMIC) | M(CC_GROUP),
							     0},
				[DOCA_VERBS_QP_STATE_ERR] = {MASK_STATES, 0},
			},
		[DOCA_VERBS_QP_STATE_RTS] =
			{
				[DOCA_VERBS_QP_STATE_RST] = {MASK_STATES, 0},
				[DOCA_VERBS_QP_STATE_RTS] = {MASK_STATES | MASK_ACCESS | M(MIN_RNR_TIMER), 0},
				[DOCA_VERBS_QP_STATE_ERR] = {MASK_STATES, 0},
			},
		[DOCA_VERBS_QP_STATE_ERR] =
			{
				[DOCA_VERBS_QP_STATE_RST] = {MASK_STATES, 0},
				[DOCA_VERBS_QP_STATE_ERR] = {MASK_STATES, 0},
			},
};

static const char *const state_names[] = {"RST", "INIT", "RTR", "RTS", "ERR"};

static const char *const attr_names[19] = {
	"ALLOW_REMOTE_WRITE", "ALLOW_REMOTE_READ", "PKEY_INDEX",	 "MIN_RNR_TIMER", "PORT_NUM",
	"NEXT_STATE",	      "CURRENT_STATE",	   "PATH_MTU",		 "RQ_PSN",	  "SQ_PSN",
	"DEST_QP_NUM",	      "ACK_TIMEOUT",	   "RETRY_CNT",		 "RNR_RETRY",	  "AH_ATTR",
	"ATOMIC_MODE",	      "MAX_QP_RD_ATOMIC",  "MAX_DEST_RD_ATOMIC", "CC_GROUP",
};

static const char *
first_attr_name(int bits)
{
	return attr_names[__builtin_ctz((unsigned)bits)];
}

/* Attributes a QP has before any modify sets them, and again after -> RST. */
static void
qp_defaults(struct doca_verbs_qp *qp)
{
	memset(&qp->attr, 0, sizeof(qp->attr));
	memset(&qp->ah, 0, sizeof(qp->ah));
	qp->attr.path_mtu = DOCA_MTU_SIZE_1K_BYTES;
	qp->attr.port_num = SD_VERBS_PORT;
	qp->attr.atomic_mode = DOCA_VERBS_QP_ATOMIC_MODE_NONE; /* what an unset field means on hardware */
	qp->attr.max_rd_atomic = SD_VERBS_MAX_RD_ATOM;	       /* reads need outstanding read credits */
	qp->attr.max_dest_rd_atomic = SD_VERBS_MAX_RD_ATOM;
	qp->attr.ack_timeout = 14;
	qp->attr.retry_cnt = 7;
	qp->attr.rnr_retry = 7;
	qp->attr.min_rnr_timer = 12;
	qp->ah.addr_type = DOCA_VERBS_ADDR_TYPE_IPv4;
	qp->ah.hop_limit = 64;
	qp->attr.ah_attr = &qp->ah;
	qp->state = DOCA_VERBS_QP_STATE_RST;
	qp->valid_mask = 0;
}

static doca_error_t
qp_check_init_attr(const struct doca_verbs_context *ctx, const struct doca_verbs_qp_init_attr *ia)
{
	const char *missing = NULL;

	/* A QP may have one work queue only (a send-only QP has no receive CQ, and the reverse). */
	if (ia->pd == NULL)
		missing = "pd (doca_verbs_qp_init_attr_set_pd)";
	else if (ia->sq_wr == 0 && ia->rq_wr == 0 && ia->srq == NULL)
		missing = "a work queue (doca_verbs_qp_init_attr_set_sq_wr / _set_rq_wr / _set_srq)";
	else if (ia->sq_wr > 0 && ia->send_cq == NULL)
		missing = "send_cq (doca_verbs_qp_init_attr_set_send_cq)";
	else if ((ia->rq_wr > 0 && ia->srq == NULL) && ia->receive_cq == NULL)
		missing = "receive_cq (doca_verbs_qp_init_attr_set_receive_cq)";
	if (missing != NULL) {
		DOCA_LOG_ERR(
			"doca_verbs_qp_create: %s is not set; set it (a QP needs a PD, and a CQ for each work queue it "
			"has (send: sq_wr > 0, receive: rq_wr > 0; an SRQ's completions go to the receive CQ, else the "
			"send CQ))",
			missing);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ia->pd->ctx != ctx || (ia->send_cq != NULL && ia->send_cq->ctx != ctx) ||
	    (ia->receive_cq != NULL && ia->receive_cq->ctx != ctx) || (ia->srq != NULL && ia->srq->ctx != ctx)) {
		DOCA_LOG_ERR("doca_verbs_qp_create: the PD, CQs and SRQ must belong to the context the QP is created "
			     "on; create them on that context");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ia->sq_wr > sd_verbs_max_qp_wr(ctx) || ia->rq_wr > sd_verbs_max_qp_wr(ctx)) {
		DOCA_LOG_ERR("doca_verbs_qp_create: sq_wr %u / rq_wr %u exceed the device's max_qp_wr %u "
			     "(doca_verbs_device_attr_get_max_qp_wr); use at most that many",
			     ia->sq_wr, ia->rq_wr, sd_verbs_max_qp_wr(ctx));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ia->send_max_sges > sd_verbs_max_sge(ctx) || ia->receive_max_sges > sd_verbs_max_sge(ctx)) {
		DOCA_LOG_ERR("doca_verbs_qp_create: send_max_sges %u / receive_max_sges %u exceed the device's "
			     "max_sge %u (doca_verbs_device_attr_get_max_sge); use at most that many",
			     ia->send_max_sges, ia->receive_max_sges, sd_verbs_max_sge(ctx));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ia->max_inline_data > SD_VERBS_MAX_INLINE_DATA) {
		DOCA_LOG_ERR("doca_verbs_qp_create: max_inline_data %u exceeds softdoca's limit of %u bytes; use a "
			     "value <= %u",
			     ia->max_inline_data, SD_VERBS_MAX_INLINE_DATA, SD_VERBS_MAX_INLINE_DATA);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ia->external_datapath_en != 0 || ia->dpa != NULL || ia->send_dpa_comp != NULL ||
	    ia->receive_dpa_comp != NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_create: an external (DPA / GPU) datapath is not supported: it needs a "
			     "hardware work queue; leave external_datapath_en 0 and the DPA fields unset");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (ia->cqe_inline != DOCA_VERBS_QP_SCATTER_TO_CQE_NONE) {
		DOCA_LOG_ERR("doca_verbs_qp_create: CQE inline (scatter to CQE) is not supported: softdoca's CQEs "
			     "carry no data; set DOCA_VERBS_QP_SCATTER_TO_CQE_NONE");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* Take (delta 1) or drop (-1) the QP's references on its PD, CQs and SRQ; ctx->lock held. */
static void
qp_hold(const struct doca_verbs_qp_init_attr *ia, int delta)
{
	ia->pd->users += (uint32_t)delta;
	if (ia->send_cq != NULL)
		ia->send_cq->users += (uint32_t)delta;
	if (ia->receive_cq != NULL)
		ia->receive_cq->users += (uint32_t)delta;
	if (ia->srq != NULL)
		ia->srq->users += (uint32_t)delta;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_create(struct doca_verbs_context *ctx, struct doca_verbs_qp_init_attr *init_attr,
		     struct doca_verbs_qp **verbs_qp)
{
	struct doca_verbs_qp *qp;
	doca_error_t err;
	bool full;

	if (ctx == NULL || init_attr == NULL || verbs_qp == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_create: NULL argument (verbs_context %p, init_attr %p, verbs_qp %p); pass "
			     "non-NULL pointers",
			     (void *)ctx, (void *)init_attr, (void *)verbs_qp);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = qp_check_init_attr(ctx, init_attr);
	if (err != DOCA_SUCCESS)
		return err;
	qp = sd_fault_create("verbs", "doca_verbs_qp_create") ? NULL : calloc(1, sizeof(*qp));
	if (qp == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	qp->ctx = ctx;
	qp->init = *init_attr;
	qp_defaults(qp);
	pthread_mutex_lock(&ctx->lock);
	full = ctx->num_qps >= SD_VERBS_MAX_QP;
	if (!full) {
		ctx->num_qps++;
		qp_hold(&qp->init, 1);
	}
	pthread_mutex_unlock(&ctx->lock);
	if (full) {
		DOCA_LOG_ERR(
			"doca_verbs_qp_create: the context already has %u QPs (doca_verbs_device_attr_get_max_qp); "
			"destroy one first",
			SD_VERBS_MAX_QP);
		free(qp);
		return DOCA_ERROR_FULL;
	}
	err = sd_verbs_qp_conn_create(qp);
	if (err != DOCA_SUCCESS) {
		pthread_mutex_lock(&ctx->lock);
		qp_hold(&qp->init, -1);
		ctx->num_qps--;
		pthread_mutex_unlock(&ctx->lock);
		free(qp);
		return err;
	}
	*verbs_qp = qp;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_destroy(struct doca_verbs_qp *qp)
{
	struct doca_verbs_context *ctx;

	if (qp == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_destroy: verbs_qp is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx = qp->ctx;
	sd_verbs_qp_conn_destroy(qp);
	pthread_mutex_lock(&ctx->lock);
	qp_hold(&qp->init, -1);
	ctx->num_qps--;
	sd_verbs_async_forget(ctx, qp);
	pthread_mutex_unlock(&ctx->lock);
	free(qp);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_qp_get_qpn(const struct doca_verbs_qp *qp)
{
	return qp == NULL ? 0 : qp->qpn;
}

/* Values a transition's attributes must have beyond their setters' ranges. */
static doca_error_t
qp_check_values(const struct doca_verbs_qp *qp, const struct doca_verbs_qp_attr *a, int mask)
{
	if ((mask & M(CURRENT_STATE)) && a->current_state != qp->state) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: CURRENT_STATE says %s but the QP is in %s; drop "
			     "CURRENT_STATE from the mask or set the QP's state",
			     qp->qpn, state_names[a->current_state], state_names[qp->state]);
		return DOCA_ERROR_BAD_STATE;
	}
	if ((mask & M(PKEY_INDEX)) && a->pkey_index >= SD_VERBS_MAX_PKEYS) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: pkey_index %u is outside the P_Key table (%u entry); use 0",
			     qp->qpn, a->pkey_index, SD_VERBS_MAX_PKEYS);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((mask & M(PORT_NUM)) && a->port_num != SD_VERBS_PORT) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: port_num %u does not exist; use port 1 (softdoca devices "
			     "have one)",
			     qp->qpn, a->port_num);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((mask & M(AH_ATTR)) && (a->ah_attr == NULL || (a->ah_attr->ctx != NULL && a->ah_attr->ctx != qp->ctx))) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: AH_ATTR is in the mask but ah_attr is %s; set one made by "
			     "doca_verbs_ah_attr_create() on the QP's context",
			     qp->qpn, a->ah_attr == NULL ? "NULL" : "of another context");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (((mask & M(MAX_QP_RD_ATOMIC)) && a->max_rd_atomic > SD_VERBS_MAX_RD_ATOM) ||
	    ((mask & M(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > SD_VERBS_MAX_RD_ATOM)) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: max_rd_atomic %u / max_dest_rd_atomic %u exceed %u "
			     "(doca_verbs_device_attr_get_max_qp_rd_atom); use at most that many",
			     qp->qpn, a->max_rd_atomic, a->max_dest_rd_atomic, SD_VERBS_MAX_RD_ATOM);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((mask & M(ATOMIC_MODE)) && a->atomic_mode > DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_8BYTES) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: atomic mode %d is not supported: softdoca's atomics are "
			     "8-byte; use DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC or _UP_TO_8BYTES",
			     qp->qpn, (int)a->atomic_mode);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (mask & M(CC_GROUP)) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: congestion-control groups are not supported (hardware "
			     "only); drop DOCA_VERBS_QP_ATTR_CC_GROUP from the mask",
			     qp->qpn);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

/* The transition is legal and its values are checked: record what the mask sets. */
static void
qp_apply(struct doca_verbs_qp *qp, const struct doca_verbs_qp_attr *a, int mask)
{
	struct doca_verbs_qp_attr *cur = &qp->attr;

#define APPLY(bit, field)                                                                                              \
	do {                                                                                                           \
		if (mask & M(bit))                                                                                     \
			cur->field = a->field;                                                                         \
	} while (0)
	APPLY(ALLOW_REMOTE_WRITE, allow_remote_write);
	APPLY(ALLOW_REMOTE_READ, allow_remote_read);
	APPLY(PKEY_INDEX, pkey_index);
	APPLY(MIN_RNR_TIMER, min_rnr_timer);
	APPLY(PORT_NUM, port_num);
	APPLY(PATH_MTU, path_mtu);
	APPLY(RQ_PSN, rq_psn);
	APPLY(SQ_PSN, sq_psn);
	APPLY(DEST_QP_NUM, dest_qp_num);
	APPLY(ACK_TIMEOUT, ack_timeout);
	APPLY(RETRY_CNT, retry_cnt);
	APPLY(RNR_RETRY, rnr_retry);
	APPLY(ATOMIC_MODE, atomic_mode);
	APPLY(MAX_QP_RD_ATOMIC, max_rd_atomic);
	APPLY(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
#undef APPLY
	if (mask & M(AH_ATTR)) {
		qp->ah = *a->ah_attr; /* by value: the program may destroy its ah_attr */
		qp->ah.ctx = NULL;
	}
}

/* Is from -> to a QP transition, and attr_mask what it allows and requires (a UC QP has no RC-only ones)? */
static doca_error_t
qp_transition_check(const struct doca_verbs_qp *qp, enum doca_verbs_qp_state from, enum doca_verbs_qp_state to,
		    int attr_mask)
{
	const struct qp_transition *t;
	int extra;

	t = &qp_table[from][to];
	if (t->allowed == 0) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: %s -> %s is not a QP transition (legal: RST->INIT, "
			     "INIT->INIT, INIT->RTR, RTR->RTS, RTS->RTS, any->ERR, any->RST); take the QP through the "
			     "states in order",
			     qp->qpn, state_names[from], state_names[to]);
		return DOCA_ERROR_INVALID_VALUE;
	}
	extra = attr_mask & ~t->allowed;
	if (qp->init.qp_type == DOCA_VERBS_QP_TYPE_UC)
		extra |= attr_mask & MASK_RC_ONLY;
	if (extra != 0) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: attribute %s cannot be set in %s -> %s%s; drop it from "
			     "the mask",
			     qp->qpn, first_attr_name(extra), state_names[from], state_names[to],
			     qp->init.qp_type == DOCA_VERBS_QP_TYPE_UC ? " of a UC QP" : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((attr_mask & t->required) != t->required) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: %s -> %s needs attribute %s; set it and add "
			     "DOCA_VERBS_QP_ATTR_%s to the mask",
			     qp->qpn, state_names[from], state_names[to], first_attr_name(t->required & ~attr_mask),
			     first_attr_name(t->required & ~attr_mask));
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_modify(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *a, int attr_mask)
{
	enum doca_verbs_qp_state from, to;
	doca_error_t err;

	if (qp == NULL || a == NULL) {
		DOCA_LOG_ERR(
			"doca_verbs_qp_modify: NULL argument (verbs_qp %p, verbs_qp_attr %p); pass non-NULL pointers",
			(void *)qp, (void *)a);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (attr_mask & ~MASK_ALL) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: unknown attribute mask bits 0x%x; use "
			     "DOCA_VERBS_QP_ATTR_* only",
			     qp->qpn, attr_mask & ~MASK_ALL);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!(attr_mask & M(NEXT_STATE))) {
		DOCA_LOG_ERR("doca_verbs_qp_modify: QP %u: the mask lacks DOCA_VERBS_QP_ATTR_NEXT_STATE; add it, with "
			     "the state to move to",
			     qp->qpn);
		return DOCA_ERROR_INVALID_VALUE;
	}
	from = qp->state;
	to = a->next_state;
	err = qp_transition_check(qp, from, to, attr_mask);
	if (err != DOCA_SUCCESS)
		return err;
	err = qp_check_values(qp, a, attr_mask);
	if (err != DOCA_SUCCESS)
		return err;
	if (to == DOCA_VERBS_QP_STATE_RST) {
		err = sd_verbs_qp_conn_reset(qp);
		qp_defaults(qp); /* a reset QP forgets its peer and attributes */
		return err;
	}
	if (to == DOCA_VERBS_QP_STATE_ERR) {
		sd_verbs_qp_conn_err(qp);
		return DOCA_SUCCESS;
	}
	qp_apply(qp, a, attr_mask);
	/* INIT -> RTR: (ah.gid, dest_qp_num) reach the peer before the QP may receive from it */
	if (from == DOCA_VERBS_QP_STATE_INIT && to == DOCA_VERBS_QP_STATE_RTR)
		sd_verbs_qp_conn_rtr(qp);
	if (to == DOCA_VERBS_QP_STATE_RTS)
		sd_verbs_qp_conn_rts(qp);
	pthread_mutex_lock(&qp->lock);
	/* a completion error may have moved the QP to ERR meanwhile: it stays there */
	if (qp->state != DOCA_VERBS_QP_STATE_ERR)
		qp->state = to;
	pthread_mutex_unlock(&qp->lock);
	if (to == DOCA_VERBS_QP_STATE_INIT)
		qp->valid_mask |= VALID_INIT;
	else if (to == DOCA_VERBS_QP_STATE_RTR)
		qp->valid_mask |= VALID_RTR;
	else if (to == DOCA_VERBS_QP_STATE_RTS)
		qp->valid_mask |= VALID_RTS;
	if (qp->init.qp_type == DOCA_VERBS_QP_TYPE_UC)
		qp->valid_mask &= ~MASK_RC_ONLY;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_query(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *qp_attr,
		    struct doca_verbs_qp_init_attr *init_attr, int *attr_mask)
{
	if (qp == NULL || qp_attr == NULL || init_attr == NULL || attr_mask == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_query: NULL argument (verbs_qp %p, qp_attr %p, init_attr %p, attr_mask "
			     "%p); pass non-NULL pointers",
			     (void *)qp, (void *)qp_attr, (void *)init_attr, (void *)attr_mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*qp_attr = qp->attr;
	qp_attr->current_state = qp->state;
	qp_attr->next_state = qp->state;
	qp_attr->ah_attr = &qp->ah; /* the QP's copy: valid until doca_verbs_qp_destroy() */
	*init_attr = qp->init;
	*attr_mask = qp->valid_mask | MASK_STATES;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_qp_query_ece(struct doca_verbs_qp *qp)
{
	(void)qp;
	SD_VERBS_REFUSE_ONCE("doca_verbs_qp_query_ece: not supported: enhanced connection establishment is a "
			     "ConnectX feature; softdoca reports ECE 0");
	return 0;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_set_ece(struct doca_verbs_qp *qp, uint32_t ece)
{
	(void)qp;
	(void)ece;
	SD_VERBS_REFUSE_ONCE("doca_verbs_qp_set_ece: not supported: enhanced connection establishment is a "
			     "ConnectX feature (doca_verbs_device_attr_get_is_ece_supported says so); skip it");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL void
doca_verbs_qp_get_wq(const struct doca_verbs_qp *qp, void **sq_buf, uint32_t *sq_num_entries, void **rq_buf,
		     uint32_t *rq_num_entries, uint32_t *rwqe_size_bytes)
{
	(void)qp;
	if (sq_buf != NULL)
		*sq_buf = NULL;
	if (rq_buf != NULL)
		*rq_buf = NULL;
	if (sq_num_entries != NULL)
		*sq_num_entries = 0;
	if (rq_num_entries != NULL)
		*rq_num_entries = 0;
	if (rwqe_size_bytes != NULL)
		*rwqe_size_bytes = 0;
	SD_VERBS_REFUSE_ONCE("doca_verbs_qp_get_wq: not supported: softdoca QPs have no hardware work queue a "
			     "program could write; post with doca_verbs_bridge_post_send() / _post_recv()");
}

DOCA_EXPERIMENTAL void *
doca_verbs_qp_get_uar_addr(const struct doca_verbs_qp *qp)
{
	(void)qp;
	SD_VERBS_REFUSE_ONCE("doca_verbs_qp_get_uar_addr: not supported: softdoca QPs have no doorbell page; "
			     "returning NULL");
	return NULL;
}

DOCA_EXPERIMENTAL void *
doca_verbs_qp_get_dbr_addr(const struct doca_verbs_qp *qp)
{
	(void)qp;
	SD_VERBS_REFUSE_ONCE("doca_verbs_qp_get_dbr_addr: not supported: softdoca QPs have no doorbell record; "
			     "returning NULL");
	return NULL;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_get_dpa_handle(struct doca_verbs_qp *qp, struct doca_dpa *dpa, doca_dpa_dev_verbs_qp_t *handle)
{
	(void)qp;
	(void)dpa;
	(void)handle;
	SD_VERBS_REFUSE_ONCE("doca_verbs_qp_get_dpa_handle: not supported: softdoca has no DPA; drive the queue from "
			     "the host with doca_verbs_bridge_post_*()");
	return DOCA_ERROR_NOT_SUPPORTED;
}
