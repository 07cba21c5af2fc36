/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC connection recipe, CQ creation and the completion poll loop shared by
 * doca_verbs_server_client and doca_verbs_wait_cq_wr.
 */
#include <doca_log.h>
#include <doca_types.h>
#include <doca_verbs_bridge.h>

#include "verbs_common.h"

DOCA_LOG_REGISTER(VERBS_COMMON);

/* Empty polls between two calls of the caller's liveness check. */
#define VERBS_POLLS_PER_CHECK 4096

doca_error_t
verbs_check(doca_error_t result, const char *what)
{
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to %s: %s", what, doca_error_get_descr(result));
	return result;
}

doca_error_t
verbs_cq_create(struct doca_verbs_context *ctx, uint32_t cq_size, struct doca_uar *uar, struct doca_verbs_cq **cq)
{
	struct doca_verbs_cq_attr *attr;
	doca_error_t result;

	result = verbs_check(doca_verbs_cq_attr_create(&attr), "create CQ attributes");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_cq_attr_set_cq_size(attr, cq_size), "set the CQ size");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_cq_attr_set_external_datapath_en(attr, 0),
				     "disable the CQ's external datapath");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_cq_attr_set_entry_size(attr, DOCA_VERBS_CQ_ENTRY_SIZE_64),
				     "set the CQ entry size");
	if (result == DOCA_SUCCESS && uar != NULL)
		result = verbs_check(doca_verbs_cq_attr_set_external_uar(attr, uar), "set the CQ's external UAR");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_cq_create(ctx, attr, cq), "create a CQ");
	(void)verbs_check(doca_verbs_cq_attr_destroy(attr), "destroy CQ attributes");
	return result;
}

/* RST -> INIT: remote writes and reads allowed, port 1 (pkey index left at its default 0). */
static doca_error_t
qp_to_init(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *attr)
{
	const int mask = DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE |
			 DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ | DOCA_VERBS_QP_ATTR_PKEY_INDEX |
			 DOCA_VERBS_QP_ATTR_PORT_NUM;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_INIT),
			     "set the QP's next state to INIT");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_allow_remote_write(attr, 1), "allow remote writes");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_allow_remote_read(attr, 1), "allow remote reads");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_port_num(attr, VERBS_PORT_NUM), "set the port number");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_modify(qp, attr, mask), "move the QP to INIT");
	return result;
}

/* INIT -> RTR: towards remote_qpn behind ah, PSN 0, MTU 1K, min RNR timer 1. */
static doca_error_t
qp_to_rtr(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *attr, struct doca_verbs_ah_attr *ah, uint32_t remote_qpn)
{
	const int mask = DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_RQ_PSN | DOCA_VERBS_QP_ATTR_DEST_QP_NUM |
			 DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER | DOCA_VERBS_QP_ATTR_PATH_MTU | DOCA_VERBS_QP_ATTR_AH_ATTR;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_RTR),
			     "set the QP's next state to RTR");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_rq_psn(attr, 0), "set the receive PSN");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_dest_qp_num(attr, remote_qpn),
				     "set the destination QP number");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_min_rnr_timer(attr, VERBS_MIN_RNR_TIMER),
				     "set the minimum RNR timer");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_path_mtu(attr, DOCA_MTU_SIZE_1K_BYTES), "set the path MTU");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_ah_attr(attr, ah), "set the address handle attributes");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_modify(qp, attr, mask), "move the QP to RTR");
	return result;
}

/* RTR -> RTS: PSN 0, ack timeout 14, retry 7, RNR retry 7. */
static doca_error_t
qp_to_rts(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *attr)
{
	const int mask = DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_SQ_PSN | DOCA_VERBS_QP_ATTR_ACK_TIMEOUT |
			 DOCA_VERBS_QP_ATTR_RETRY_CNT | DOCA_VERBS_QP_ATTR_RNR_RETRY;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_RTS),
			     "set the QP's next state to RTS");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_sq_psn(attr, 0), "set the send PSN");
	if (result == DOCA_SUCCESS)
		result =
			verbs_check(doca_verbs_qp_attr_set_ack_timeout(attr, VERBS_ACK_TIMEOUT), "set the ack timeout");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_attr_set_retry_cnt(attr, VERBS_RETRY_CNT), "set the retry count");
	if (result == DOCA_SUCCESS)
		result =
			verbs_check(doca_verbs_qp_attr_set_rnr_retry(attr, VERBS_RNR_RETRY), "set the RNR retry count");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_modify(qp, attr, mask), "move the QP to RTS");
	return result;
}

doca_error_t
verbs_qp_connect(struct doca_verbs_qp *qp, struct doca_verbs_ah_attr *ah, uint32_t remote_qpn)
{
	struct doca_verbs_qp_attr *attr;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_attr_create(&attr), "create QP attributes");
	if (result != DOCA_SUCCESS)
		return result;
	result = qp_to_init(qp, attr);
	if (result == DOCA_SUCCESS)
		result = qp_to_rtr(qp, attr, ah, remote_qpn);
	if (result == DOCA_SUCCESS)
		result = qp_to_rts(qp, attr);
	(void)verbs_check(doca_verbs_qp_attr_destroy(attr), "destroy QP attributes");
	return result;
}

doca_error_t
verbs_poll_one(struct doca_verbs_cq *cq, struct ibv_wc *wc, verbs_wait_check check, void *arg)
{
	unsigned int empty = 0;
	doca_error_t result;
	int n;

	for (;;) {
		n = doca_verbs_bridge_poll_cq(cq, 1, wc);
		if (n > 0)
			return DOCA_SUCCESS;
		if (n < 0) {
			DOCA_LOG_ERR("Failed to poll the CQ: doca_verbs_bridge_poll_cq returned %d", n);
			return DOCA_ERROR_IO_FAILED;
		}
		if (check != NULL && ++empty == VERBS_POLLS_PER_CHECK) {
			empty = 0;
			result = check(arg);
			if (result != DOCA_SUCCESS)
				return result;
		}
	}
}

const char *
verbs_wc_opcode_name(enum ibv_wc_opcode opcode)
{
	switch (opcode) {
	case IBV_WC_SEND:
		return "SEND";
	case IBV_WC_RDMA_WRITE:
		return "RDMA_WRITE";
	case IBV_WC_RDMA_READ:
		return "RDMA_READ";
	case IBV_WC_RECV:
		return "RECV";
	case IBV_WC_DRIVER1:
		return "DRIVER1 (wait on CQ)";
	default:
		return "unexpected";
	}
}

doca_error_t
verbs_check_wc(const struct ibv_wc *wc, enum ibv_wc_opcode expected, const char *what)
{
	if (wc->status != IBV_WC_SUCCESS) {
		DOCA_LOG_ERR("%s completed with an error: %s (status %d, vendor error 0x%x)", what,
			     ibv_wc_status_str(wc->status), (int)wc->status, wc->vendor_err);
		return DOCA_ERROR_IO_FAILED;
	}
	if (wc->opcode != expected) {
		DOCA_LOG_ERR("%s completed with opcode %s (%d), expected %s (%d)", what,
			     verbs_wc_opcode_name(wc->opcode), (int)wc->opcode, verbs_wc_opcode_name(expected),
			     (int)expected);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}
