/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDOCA_FAULTS on Verbs work requests (docs/diagnostics.md "Verbs"): the
 * rules Core's fault.c keeps, applied where a work request is posted (a full
 * queue: ENOMEM, nothing queued), where the soft NIC completes it (an error
 * status, after which the QP goes to ERR and flushes as on hardware; a
 * delay, kept in post order by the retire loop) and when a QP is visited (its
 * device went down: ERR, flushed, a fatal QP event; its peer vanished: the
 * soft NIC's path for a peer process that died, which ends the same way).
 * A QP takes its rules once (qp->fault_rules, at create); with none, the post,
 * completion and poll paths test that word and nothing else.
 */
#include <stdio.h>

#include "../../util/sd_time.h"
#include "../verbs_internal.h"

SD_LOG_REGISTER(verbs.fault);

/* The names a send opcode answers to in a rule (verbs.<name>=...), most specific first. */
static const struct {
	int opcode;
	enum fabric_op_type ftype;
	const char *names[3];
} send_names[] = {
	{IBV_WR_SEND, FABRIC_OP_SEND, {"send", "post_send"}},
	{IBV_WR_SEND_WITH_IMM, FABRIC_OP_SEND_IMM, {"send_imm", "send", "post_send"}},
	{IBV_WR_RDMA_WRITE, FABRIC_OP_WRITE, {"write", "post_send"}},
	{IBV_WR_RDMA_WRITE_WITH_IMM, FABRIC_OP_WRITE_IMM, {"write_imm", "write", "post_send"}},
	{IBV_WR_RDMA_READ, FABRIC_OP_READ, {"read", "post_send"}},
	{IBV_WR_ATOMIC_CMP_AND_SWP, FABRIC_OP_CMP_SWP, {"cmp_swp", "atomic", "post_send"}},
	{IBV_WR_ATOMIC_FETCH_AND_ADD, FABRIC_OP_FETCH_ADD, {"fetch_add", "atomic", "post_send"}},
	{IBV_WR_DRIVER1, FABRIC_OP_SEND, {"wait", "post_send"}},
};
static const char *const recv_names[3] = {"recv", "post_recv"};

static const char *
send_status_str(doca_error_t err)
{
	switch (err) {
	case DOCA_ERROR_NOT_PERMITTED:
		return "IBV_WC_REM_ACCESS_ERR (remote access error)";
	case DOCA_ERROR_DRIVER:
		return "IBV_WC_FATAL_ERR (fatal error)";
	default:
		return "IBV_WC_GENERAL_ERR (general error)";
	}
}

static const char *
recv_status_str(doca_error_t err)
{
	return err == DOCA_ERROR_NOT_PERMITTED ? "IBV_WC_LOC_PROT_ERR (local protection error)" : send_status_str(err);
}

/* The completion status an injected error gives (the wording of *_status_str). */
static enum ibv_wc_status
wc_status_of(doca_error_t err, bool recv)
{
	switch (err) {
	case DOCA_ERROR_NOT_PERMITTED:
		return recv ? IBV_WC_LOC_PROT_ERR : IBV_WC_REM_ACCESS_ERR;
	case DOCA_ERROR_DRIVER:
		return IBV_WC_FATAL_ERR;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

static void
set_names(struct sd_fault_op *op, const char *const names[3])
{
	for (unsigned int i = 0; i < 3; i++)
		op->names[i] = names[i];
}

bool
sd_verbs_fault_post(struct doca_verbs_qp *qp, int opcode, uint64_t wr_id)
{
	char who[32], what[64];
	struct sd_fault_op op = {
		.phase = SD_FAULT_AT_SUBMIT,
		.who = who,
		.what = what,
		.again = "post returns ENOMEM, as for a full queue (nothing queued from it on; *bad_wr names it)",
	};
	struct sd_fault_hit hit;

	set_names(&op, recv_names);
	for (size_t i = 0; opcode >= 0 && i < SD_ARRAY_SIZE(send_names); i++)
		if (send_names[i].opcode == opcode)
			set_names(&op, send_names[i].names);
	snprintf(who, sizeof(who), "verbs QP %u", qp->qpn);
	snprintf(what, sizeof(what), "%s work request 0x%llx", op.names[0], (unsigned long long)wr_id);
	return sd_fault_op(qp->fault_rules, &op, &hit) && hit.status == DOCA_ERROR_AGAIN;
}

/* A completion of the soft NIC: an error status to report instead, or a delay (*due_ns). */
static enum ibv_wc_status
complete(struct doca_verbs_qp *qp, const char *const names[3], uint64_t wr_id, bool failed, bool recv, uint64_t *due_ns)
{
	char who[32], what[64];
	struct sd_fault_op op = {
		.phase = SD_FAULT_AT_COMPLETE,
		.failed = failed,
		.who = who,
		.what = what,
		.status_str = recv ? recv_status_str : send_status_str,
	};
	struct sd_fault_hit hit;

	set_names(&op, names);
	snprintf(who, sizeof(who), "verbs QP %u", qp->qpn);
	snprintf(what, sizeof(what), "%s work request 0x%llx", names[0], (unsigned long long)wr_id);
	if (!sd_fault_op(qp->fault_rules, &op, &hit))
		return IBV_WC_SUCCESS;
	if (hit.delay_ns != 0)
		*due_ns = sd_now_ns() + hit.delay_ns;
	return hit.status != DOCA_SUCCESS ? wc_status_of(hit.status, recv) : IBV_WC_SUCCESS;
}

void
sd_verbs_fault_swqe(struct doca_verbs_qp *qp, struct sd_verbs_swqe *w)
{
	const char *const *names = send_names[0].names;
	enum ibv_wc_status st;

	for (size_t i = 0; i < SD_ARRAY_SIZE(send_names); i++)
		if (send_names[i].ftype == w->ftype) {
			names = send_names[i].names;
			break;
		}
	st = complete(qp, names, w->wr_id, w->status != IBV_WC_SUCCESS, false, &w->due_ns);
	if (st != IBV_WC_SUCCESS)
		w->status = st;
}

void
sd_verbs_fault_rwqe(struct doca_verbs_qp *qp, struct sd_verbs_rwqe *w)
{
	w->inj = complete(qp, recv_names, w->wr_id, w->op.status != DOCA_SUCCESS, true, &w->due_ns);
}

bool
sd_verbs_fault_held(uint64_t *due_ns)
{
	if (sd_now_ns() < *due_ns)
		return true;
	*due_ns = 0;
	return false;
}

void
sd_verbs_fault_visit(struct doca_verbs_qp *qp)
{
	struct doca_verbs_cq *kick[2] = {NULL, NULL};
	doca_error_t lost = DOCA_SUCCESS;
	struct fabric_ep *ep;
	char who[32];

	pthread_mutex_lock(&qp->lock);
	/* a QP that has (or is getting) a peer: RTR or RTS */
	if (qp->state == DOCA_VERBS_QP_STATE_RTR || qp->state == DOCA_VERBS_QP_STATE_RTS) {
		snprintf(who, sizeof(who), "verbs QP %u", qp->qpn);
		lost = sd_fault_lost(qp->fault_rules, qp->ctx->devinfo, "verbs", who);
	}
	if (lost == DOCA_ERROR_DRIVER)
		sd_verbs_qp_fail(qp, "[softdoca-fault] its device went down");
	if (qp->state != DOCA_VERBS_QP_STATE_RST)
		sd_verbs_wq_retire(qp, kick); /* and the delayed completions now due */
	ep = qp->ep;
	pthread_mutex_unlock(&qp->lock);
	if (lost == DOCA_ERROR_DRIVER)
		sd_verbs_async_event_post(qp->ctx, DOCA_VERBS_EVENT_QP_FATAL, qp);
	if (lost == DOCA_ERROR_CONNECTION_RESET && ep != NULL) {
		/* the soft NIC's own path for a dead peer: the QP fails from its ep's error (qp_ep_error) */
		sd_fabric_ep_vanish(ep);
		sd_verbs_domain_drain(qp->dom);
	}
	if (kick[0] != NULL)
		sd_verbs_cq_kick(kick[0]);
	if (kick[1] != NULL && kick[1] != kick[0])
		sd_verbs_cq_kick(kick[1]);
}
