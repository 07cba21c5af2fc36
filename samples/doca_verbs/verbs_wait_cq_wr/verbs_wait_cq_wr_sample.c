/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_wait_cq_wr, the work.  Everything lives on one device, reached
 * through rdma-core objects imported into DOCA Verbs (the device's ibv_pd and
 * its ibv_context), with one UAR shared by every CQ and QP:
 *
 *   connection 1: CQ1; QP1 (send only) -> QP2 (receive only)
 *   connection 2: CQ2; QP1 (send only) -> QP2 (receive only)
 *
 *   buffer 1 (0x11...) --conn1--> buffer 2 --conn2--> buffer 3
 *
 * Connection 2's send of buffer 2 is posted first, behind a "wait until CQ1 has
 * one more completion" work request, and connection 1's send last: buffer 3
 * holds buffer 1's bytes only if the wait held the second send back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include <doca_dev.h>
#include <doca_log.h>
#include <doca_rdma_bridge.h>
#include <doca_uar.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>

#include "common.h"
#include "verbs_common.h"
#include "verbs_wait_cq_wr.h"

DOCA_LOG_REGISTER(VERBS_WAIT_CQ_WR);

#define WAIT_CQ_QUEUE_SIZE 64  /* CQ entries, SQ and RQ work requests */
#define WAIT_CQ_BUF_SIZE 64    /* bytes per buffer */
#define WAIT_CQ_NUM_BUFS 3     /* source, relay, destination */
#define WAIT_CQ_FILL 0x11      /* the source's bytes */
#define WAIT_CQ_TIMEOUT_SEC 10 /* per CQ; the sample itself never gives up */

/* One loopback connection: a send-only QP and a receive-only QP sharing a CQ. */
struct wait_cq_conn {
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp_send; /* "QP1" */
	struct doca_verbs_qp *qp_recv; /* "QP2" */
};

struct wait_cq_resources {
	const struct wait_cq_config *cfg;
	struct doca_dev *dev;
	struct ibv_pd *ibv_pd;
	struct doca_verbs_pd *pd;
	struct doca_verbs_context *ctx;
	union ibv_gid gid;
	struct doca_uar *uar;
	struct doca_verbs_ah_attr *ah;
	struct wait_cq_conn conn[2];
	uint8_t *buf;
	struct ibv_mr *mr;
};

static uint8_t *
buffer(const struct wait_cq_resources *res, int i)
{
	return res->buf + (size_t)i * WAIT_CQ_BUF_SIZE;
}

/* Step 1: the device, its ibv_pd and ibv_context imported into DOCA Verbs, our GID. */
static doca_error_t
open_device(struct wait_cq_resources *res)
{
	const char *name = res->cfg->device_name;
	doca_error_t result;
	int ret;

	result = open_doca_device_with_ibdev_name((const uint8_t *)name, strlen(name), NULL, &res->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open device %s (-d): %s; doca_caps --list-devs shows the names", name,
			     doca_error_get_descr(result));
		return result;
	}
	result = verbs_check(doca_rdma_bridge_get_dev_pd(res->dev, &res->ibv_pd), "get the device's ibv_pd");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_bridge_verbs_pd_import(res->ibv_pd, &res->pd), "import the ibv_pd");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_bridge_verbs_context_import(res->ibv_pd->context,
								    DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &res->ctx),
			     "import the ibv_context");
	if (result != DOCA_SUCCESS)
		return result;
	ret = ibv_query_gid(res->ibv_pd->context, VERBS_PORT_NUM, (int)res->cfg->gid_index, &res->gid);
	if (ret != 0) {
		DOCA_LOG_ERR("Failed to query GID index %u of port %d: %s", res->cfg->gid_index, VERBS_PORT_NUM,
			     strerror(ret));
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Steps 2 and 3: the shared UAR and the AH attributes pointing back at this device. */
static doca_error_t
create_uar_and_ah(struct wait_cq_resources *res)
{
	struct doca_verbs_gid gid;
	doca_error_t result;

	result = verbs_check(doca_uar_create(res->dev, DOCA_UAR_ALLOCATION_TYPE_NONCACHE, &res->uar), "create a UAR");
	if (result != DOCA_SUCCESS)
		return result;
	memcpy(gid.raw, res->gid.raw, sizeof(gid.raw));
	result = verbs_check(doca_verbs_ah_attr_create(res->ctx, &res->ah), "create AH attributes");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_gid(res->ah, gid), "set the AH GID");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_addr_type(res->ah, res->cfg->ipv6
										       ? DOCA_VERBS_ADDR_TYPE_IPv6
										       : DOCA_VERBS_ADDR_TYPE_IPv4),
				     "set the AH address type");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_dlid(res->ah, 0), "set the AH destination LID");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_sgid_index(res->ah, (uint8_t)res->cfg->gid_index),
				     "set the AH source GID index");
	if (result == DOCA_SUCCESS)
		result =
			verbs_check(doca_verbs_ah_attr_set_hop_limit(res->ah, VERBS_HOP_LIMIT), "set the AH hop limit");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_traffic_class(res->ah, 0), "set the AH traffic class");
	return result;
}

/* One RC QP with only a send queue (is_send) or only a receive queue on cq. */
static doca_error_t
create_one_way_qp(struct wait_cq_resources *res, struct doca_verbs_cq *cq, bool is_send, struct doca_verbs_qp **qp)
{
	struct doca_verbs_qp_init_attr *attr;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_init_attr_create(&attr), "create QP init attributes");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_qp_init_attr_set_external_uar(attr, res->uar), "set the QP's UAR");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_pd(attr, res->pd), "set the QP's PD");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_external_datapath_en(attr, 0),
				     "disable the QP's external datapath");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_max_inline_data(attr, 0), "set the inline size");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_qp_type(attr, DOCA_VERBS_QP_TYPE_RC),
				     "set the QP type");
	if (result == DOCA_SUCCESS && is_send) {
		result = verbs_check(doca_verbs_qp_init_attr_set_send_cq(attr, cq), "set the send CQ");
		if (result == DOCA_SUCCESS)
			result = verbs_check(doca_verbs_qp_init_attr_set_sq_wr(attr, WAIT_CQ_QUEUE_SIZE),
					     "set the send queue size");
		if (result == DOCA_SUCCESS)
			result = verbs_check(doca_verbs_qp_init_attr_set_send_max_sges(attr, 1),
					     "set the send SGE limit");
		if (result == DOCA_SUCCESS)
			result = verbs_check(doca_verbs_qp_init_attr_set_sq_sig_all(attr, 1),
					     "signal every send work request");
	} else if (result == DOCA_SUCCESS) {
		result = verbs_check(doca_verbs_qp_init_attr_set_receive_cq(attr, cq), "set the receive CQ");
		if (result == DOCA_SUCCESS)
			result = verbs_check(doca_verbs_qp_init_attr_set_rq_wr(attr, WAIT_CQ_QUEUE_SIZE),
					     "set the receive queue size");
		if (result == DOCA_SUCCESS)
			result = verbs_check(doca_verbs_qp_init_attr_set_receive_max_sges(attr, 1),
					     "set the receive SGE limit");
	}
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_create(res->ctx, attr, qp),
				     is_send ? "create a send-only QP" : "create a receive-only QP");
	(void)verbs_check(doca_verbs_qp_init_attr_destroy(attr), "destroy QP init attributes");
	return result;
}

/* Step 4: a CQ and two one-way QPs connected to each other. */
static doca_error_t
create_connection(struct wait_cq_resources *res, struct wait_cq_conn *conn)
{
	doca_error_t result;

	result = verbs_cq_create(res->ctx, WAIT_CQ_QUEUE_SIZE, res->uar, &conn->cq);
	if (result == DOCA_SUCCESS)
		result = create_one_way_qp(res, conn->cq, true, &conn->qp_send);
	if (result == DOCA_SUCCESS)
		result = create_one_way_qp(res, conn->cq, false, &conn->qp_recv);
	if (result == DOCA_SUCCESS)
		result = verbs_qp_connect(conn->qp_send, res->ah, doca_verbs_qp_get_qpn(conn->qp_recv));
	if (result == DOCA_SUCCESS)
		result = verbs_qp_connect(conn->qp_recv, res->ah, doca_verbs_qp_get_qpn(conn->qp_send));
	return result;
}

/* Step 5: three buffers in one registration; the first holds the data. */
static doca_error_t
register_buffers(struct wait_cq_resources *res)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	const size_t len = (size_t)WAIT_CQ_NUM_BUFS * WAIT_CQ_BUF_SIZE;

	res->buf = calloc(1, len);
	if (res->buf == NULL) {
		DOCA_LOG_ERR("Failed to allocate %zu bytes for the buffers", len);
		return DOCA_ERROR_NO_MEMORY;
	}
	res->mr = ibv_reg_mr(res->ibv_pd, res->buf, len, access);
	if (res->mr == NULL) {
		DOCA_LOG_ERR("Failed to register %zu bytes with ibv_reg_mr: %s", len, strerror(errno));
		return DOCA_ERROR_DRIVER;
	}
	memset(buffer(res, 0), WAIT_CQ_FILL, WAIT_CQ_BUF_SIZE);
	return DOCA_SUCCESS;
}

static doca_error_t
post_recv(struct wait_cq_resources *res, struct doca_verbs_qp *qp, int buf, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)buffer(res, buf), .length = WAIT_CQ_BUF_SIZE, .lkey = res->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = (uint64_t)buf, .sg_list = &sge, .num_sge = 1};
	struct ibv_recv_wr *bad_wr = NULL;
	int ret = doca_verbs_bridge_post_recv(qp, &wr, &bad_wr);

	if (ret != 0 || bad_wr != NULL) {
		DOCA_LOG_ERR("Failed to post %s: %s", what, ret != 0 ? strerror(ret) : "a work request was refused");
		return DOCA_ERROR_DRIVER;
	}
	return DOCA_SUCCESS;
}

/* Post wr (prepared by the caller, or a send of buffer buf when wr is NULL). */
static doca_error_t
post_send(struct wait_cq_resources *res, struct doca_verbs_qp *qp, struct ibv_send_wr *wr, int buf, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)buffer(res, buf), .length = WAIT_CQ_BUF_SIZE, .lkey = res->mr->lkey};
	struct ibv_send_wr send_wr = {.wr_id = (uint64_t)buf, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND};
	struct ibv_send_wr *bad_wr = NULL;
	int ret;

	ret = doca_verbs_bridge_post_send(qp, wr != NULL ? wr : &send_wr, &bad_wr);
	if (ret != 0 || bad_wr != NULL) {
		DOCA_LOG_ERR("Failed to post %s: %s", what, ret != 0 ? strerror(ret) : "a work request was refused");
		return DOCA_ERROR_DRIVER;
	}
	return DOCA_SUCCESS;
}

/* Step 6: two receives, the wait and the relay send on connection 2, the source send on connection 1. */
static doca_error_t
post_all(struct wait_cq_resources *res)
{
	struct ibv_send_wr wait_wr;
	doca_error_t result;
	uint32_t wait_pi;
	int ret;

	result = post_recv(res, res->conn[0].qp_recv, 1, "the receive of connection 1 into buffer 2");
	if (result == DOCA_SUCCESS)
		result = post_recv(res, res->conn[1].qp_recv, 2, "the receive of connection 2 into buffer 3");
	if (result != DOCA_SUCCESS)
		return result;
	wait_pi = doca_verbs_bridge_get_current_cq_ci(res->conn[0].cq) + 1;
	memset(&wait_wr, 0, sizeof(wait_wr));
	ret = doca_verbs_bridge_set_wait_cq_pi_wr(res->conn[0].cq, wait_pi, &wait_wr);
	if (ret != 0) {
		DOCA_LOG_ERR("Failed to prepare the wait-on-CQ work request: %s", strerror(ret));
		return DOCA_ERROR_DRIVER;
	}
	result = post_send(res, res->conn[1].qp_send, &wait_wr, 0, "the wait on connection 1's CQ");
	if (result == DOCA_SUCCESS)
		result = post_send(res, res->conn[1].qp_send, NULL, 1, "the send of buffer 2 on connection 2");
	if (result == DOCA_SUCCESS)
		result = post_send(res, res->conn[0].qp_send, NULL, 0, "the send of buffer 1 on connection 1");
	return result;
}

/* The poll loop's liveness check: give up WAIT_CQ_TIMEOUT_SEC after the deadline was set. */
static doca_error_t
before_deadline(void *arg)
{
	const struct timespec *deadline = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec < deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec < deadline->tv_nsec))
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("No completion within %d seconds", WAIT_CQ_TIMEOUT_SEC);
	return DOCA_ERROR_TIME_OUT;
}

/*
 * Step 7: poll n (at most 3) completions from cq; each must succeed and the
 * opcodes must be exactly expected[] in any order, except that a SEND may not
 * come before an expected DRIVER1 (the wait sits ahead of it on the same send
 * queue).
 */
static doca_error_t
poll_expected(struct doca_verbs_cq *cq, const enum ibv_wc_opcode *expected, int n, const char *cq_name)
{
	bool seen[3] = {false, false, false};
	int wait_index = -1;
	struct timespec deadline;
	struct ibv_wc wc;
	doca_error_t result;
	char what[64];
	int k, i;

	for (i = 0; i < n; i++)
		if (expected[i] == IBV_WC_DRIVER1)
			wait_index = i;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += WAIT_CQ_TIMEOUT_SEC;
	for (k = 0; k < n; k++) {
		result = verbs_poll_one(cq, &wc, before_deadline, &deadline);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Waiting for completion %d of %d on %s failed", k + 1, n, cq_name);
			return result;
		}
		snprintf(what, sizeof(what), "Completion %d of %d on %s", k + 1, n, cq_name);
		/* The status first (against its own opcode), then whether the opcode is one still due. */
		result = verbs_check_wc(&wc, wc.opcode, what);
		if (result != DOCA_SUCCESS)
			return result;
		for (i = 0; i < n; i++)
			if (!seen[i] && wc.opcode == expected[i])
				break;
		if (i == n) {
			DOCA_LOG_ERR("%s has opcode %s (%d), which is not expected (again) there", what,
				     verbs_wc_opcode_name(wc.opcode), (int)wc.opcode);
			return DOCA_ERROR_UNEXPECTED;
		}
		if (wc.opcode == IBV_WC_SEND && wait_index >= 0 && !seen[wait_index]) {
			DOCA_LOG_ERR("%s: the send completed before the wait posted ahead of it", what);
			return DOCA_ERROR_UNEXPECTED;
		}
		seen[i] = true;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
run_transfers(struct wait_cq_resources *res)
{
	static const enum ibv_wc_opcode cq1_expected[] = {IBV_WC_RECV, IBV_WC_SEND};
	static const enum ibv_wc_opcode cq2_expected[] = {IBV_WC_DRIVER1, IBV_WC_SEND, IBV_WC_RECV};
	doca_error_t result;

	result = post_all(res);
	if (result == DOCA_SUCCESS)
		result = poll_expected(res->conn[0].cq, cq1_expected, 2, "connection 1's CQ");
	if (result == DOCA_SUCCESS)
		result = poll_expected(res->conn[1].cq, cq2_expected, 3, "connection 2's CQ");
	if (result != DOCA_SUCCESS)
		return result;
	/* Step 8. */
	if (memcmp(buffer(res, 2), buffer(res, 0), WAIT_CQ_BUF_SIZE) != 0) {
		DOCA_LOG_ERR("Data in buffer3 differs from the data in buffer1: the second send did not wait");
		return DOCA_ERROR_UNEXPECTED;
	}
	DOCA_LOG_INFO("Data in buffer3 is identical to the data in buffer1");
	return DOCA_SUCCESS;
}

/* Step 9: DOCA's teardown order; returns the first error. */
static doca_error_t
destroy_resources(struct wait_cq_resources *res)
{
	doca_error_t result = DOCA_SUCCESS, tmp;
	int i;

	if (res->mr != NULL && ibv_dereg_mr(res->mr) != 0) {
		DOCA_LOG_ERR("Failed to deregister the buffers");
		result = DOCA_ERROR_DRIVER;
	}
	free(res->buf);
	for (i = 0; i < 2; i++) {
		if (res->conn[i].qp_send != NULL) {
			tmp = verbs_check(doca_verbs_qp_destroy(res->conn[i].qp_send), "destroy a send-only QP");
			DOCA_ERROR_PROPAGATE(result, tmp);
		}
		if (res->conn[i].qp_recv != NULL) {
			tmp = verbs_check(doca_verbs_qp_destroy(res->conn[i].qp_recv), "destroy a receive-only QP");
			DOCA_ERROR_PROPAGATE(result, tmp);
		}
	}
	for (i = 0; i < 2; i++) {
		if (res->conn[i].cq != NULL) {
			tmp = verbs_check(doca_verbs_cq_destroy(res->conn[i].cq), "destroy a CQ");
			DOCA_ERROR_PROPAGATE(result, tmp);
		}
	}
	if (res->ah != NULL) {
		tmp = verbs_check(doca_verbs_ah_attr_destroy(res->ah), "destroy the AH attributes");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->uar != NULL) {
		tmp = verbs_check(doca_uar_destroy(res->uar), "destroy the UAR");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->pd != NULL) {
		tmp = verbs_check(doca_verbs_pd_destroy(res->pd), "destroy the imported PD");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->ctx != NULL) {
		tmp = verbs_check(doca_verbs_context_destroy(res->ctx), "destroy the imported Verbs context");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (res->dev != NULL) {
		tmp = verbs_check(doca_dev_close(res->dev), "close the device");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	return result;
}

doca_error_t
verbs_wait_cq_wr(const struct wait_cq_config *cfg)
{
	struct wait_cq_resources res = {.cfg = cfg};
	doca_error_t result, tmp;

	result = open_device(&res);
	if (result == DOCA_SUCCESS)
		result = create_uar_and_ah(&res);
	if (result == DOCA_SUCCESS)
		result = create_connection(&res, &res.conn[0]);
	if (result == DOCA_SUCCESS)
		result = create_connection(&res, &res.conn[1]);
	if (result == DOCA_SUCCESS)
		result = register_buffers(&res);
	if (result == DOCA_SUCCESS)
		result = run_transfers(&res);
	tmp = destroy_resources(&res);
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}
