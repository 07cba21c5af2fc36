/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One rail of verbs_multi_rail_server_client: a Verbs context on one device, its PD, CQ and AH
 * attributes, the data buffer registered on its PD with rdma-core's ibv_reg_mr, its RC QPs
 * (created, connected and destroyed here) and its UC probe QP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_log.h>
#include <doca_rdma_bridge.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>

#include "mr_app.h"
#include "verbs_common.h"

DOCA_LOG_REGISTER(MR_APP_RAIL);

#define MR_CQ_MAX 65536

doca_error_t
mr_rail_open(struct mr_app *app, struct mr_rail *rail)
{
	char name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	struct doca_devinfo **list;
	struct ibv_pd *ibv_pd;
	union ibv_gid gid;
	doca_error_t result;
	uint64_t cq_size;
	uint32_t n, i;
	int ret;

	result = verbs_check(doca_devinfo_create_list(&list, &n), "list the devices");
	if (result != DOCA_SUCCESS)
		return result;
	result = DOCA_ERROR_NOT_FOUND;
	for (i = 0; i < n; i++) {
		if (doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)) != DOCA_SUCCESS ||
		    strcmp(name, rail->ibdev) != 0)
			continue;
		result = verbs_check(
			doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &rail->ctx),
			"create a Verbs context");
		break;
	}
	doca_devinfo_destroy_list(list);
	if (i == n) {
		DOCA_LOG_ERR("Rail %u: no device named %s (--dev-json); doca_caps --list-devs shows the names",
			     rail->index, rail->ibdev);
		return DOCA_ERROR_NOT_FOUND;
	}
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_pd_create(rail->ctx, &rail->pd), "create a PD");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_pd_as_doca_dev(rail->pd, &rail->dev), "get the PD's DOCA device");
	if (result != DOCA_SUCCESS)
		return result;
	/* Room for every queue of the rail's QPs, twice: replacement QPs share the CQ. */
	cq_size = 2ULL * rail->num_qps * (app->cfg->qp.sq_depth + app->cfg->qp.rq_depth) + 64;
	result = verbs_cq_create(rail->ctx, cq_size > MR_CQ_MAX ? MR_CQ_MAX : (uint32_t)cq_size, NULL, &rail->cq);
	if (result == DOCA_SUCCESS)
		result = verbs_cq_create(rail->ctx, 64, NULL, &rail->probe_cq);
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_rdma_bridge_get_dev_pd(rail->dev, &ibv_pd), "get the device's ibv_pd");
	if (result != DOCA_SUCCESS)
		return result;
	ret = ibv_query_gid(ibv_pd->context, VERBS_PORT_NUM, 0, &gid);
	if (ret != 0) {
		DOCA_LOG_ERR("Rail %u: failed to query the GID of %s: %s", rail->index, rail->ibdev, strerror(ret));
		return DOCA_ERROR_DRIVER;
	}
	memcpy(rail->gid, gid.raw, sizeof(rail->gid));
	result = verbs_check(doca_verbs_ah_attr_create(rail->ctx, &rail->ah), "create AH attributes");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_addr_type(rail->ah, DOCA_VERBS_ADDR_TYPE_IPv4),
				     "set the AH address type");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_sgid_index(rail->ah, 0), "set the AH source GID index");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_ah_attr_set_hop_limit(rail->ah, VERBS_HOP_LIMIT),
				     "set the AH hop limit");
	return result;
}

static struct ibv_mr *
reg(struct mr_rail *rail, void *addr, size_t len, const char *what)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_pd *pd = doca_verbs_bridge_verbs_pd_get_ibv_pd(rail->pd);
	struct ibv_mr *mr;

	if (pd == NULL) {
		DOCA_LOG_ERR("Rail %u: the Verbs PD has no ibv_pd", rail->index);
		return NULL;
	}
	mr = ibv_reg_mr(pd, addr, len, access);
	if (mr == NULL)
		DOCA_LOG_ERR("Rail %u: failed to register the %s (%zu bytes): %s", rail->index, what, len,
			     strerror(errno));
	return mr;
}

doca_error_t
mr_rail_register(struct mr_app *app, struct mr_rail *rail)
{
	rail->mr = reg(rail, app->buf, app->buf_bytes, "data buffer");
	if (rail->mr == NULL)
		return DOCA_ERROR_DRIVER;
	if (app->recv_buf != NULL) {
		rail->recv_mr = reg(rail, app->recv_buf,
				    (size_t)app->cfg->num_qps * app->recv_slots_per_qp * app->cfg->rail.chunk_size,
				    "receive buffers");
		if (rail->recv_mr == NULL)
			return DOCA_ERROR_DRIVER;
	}
	rail->probe_buf = calloc(1, 64);
	if (rail->probe_buf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	rail->probe_mr = reg(rail, rail->probe_buf, 64, "probe buffer");
	return rail->probe_mr == NULL ? DOCA_ERROR_DRIVER : DOCA_SUCCESS;
}

static doca_error_t
qp_create(struct mr_app *app, struct mr_rail *rail, bool uc, struct doca_verbs_cq *cq, struct doca_verbs_qp **qp)
{
	const struct mr_qp_cfg *q = &app->cfg->qp;
	struct doca_verbs_qp_init_attr *attr;
	doca_error_t result;

	result = verbs_check(doca_verbs_qp_init_attr_create(&attr), "create QP init attributes");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_qp_init_attr_set_pd(attr, rail->pd), "set the QP's PD");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_sq_wr(attr, uc ? 16 : q->sq_depth),
				     "set the send queue size");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_rq_wr(attr, uc ? 16 : q->rq_depth),
				     "set the receive queue size");
	if (result == DOCA_SUCCESS)
		result = verbs_check(
			doca_verbs_qp_init_attr_set_qp_type(attr, uc ? DOCA_VERBS_QP_TYPE_UC : DOCA_VERBS_QP_TYPE_RC),
			"set the QP type");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_send_cq(attr, cq), "set the send CQ");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_receive_cq(attr, cq), "set the receive CQ");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_init_attr_set_send_max_sges(attr, 1), "set the send SGE limit");
	if (result == DOCA_SUCCESS)
		result =
			verbs_check(doca_verbs_qp_init_attr_set_receive_max_sges(attr, 1), "set the receive SGE limit");
	if (result == DOCA_SUCCESS)
		result = verbs_check(doca_verbs_qp_create(rail->ctx, attr, qp), "create a QP");
	(void)doca_verbs_qp_init_attr_destroy(attr);
	return result;
}

doca_error_t
mr_rail_create_qps(struct mr_app *app, struct mr_rail *rail, uint32_t n, struct mr_qp **out)
{
	struct mr_qp *qps = calloc(n, sizeof(*qps));
	doca_error_t result = DOCA_SUCCESS;
	uint32_t i;

	if (qps == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (i = 0; i < n && result == DOCA_SUCCESS; i++) {
		result = qp_create(app, rail, false, rail->cq, &qps[i].qp);
		if (result == DOCA_SUCCESS)
			qps[i].qpn = doca_verbs_qp_get_qpn(qps[i].qp);
	}
	if (result != DOCA_SUCCESS) {
		mr_rail_destroy_qps(qps, n);
		return result;
	}
	*out = qps;
	return DOCA_SUCCESS;
}

static enum doca_mtu_size
mtu_code(uint32_t bytes)
{
	switch (bytes) {
	case 256:
		return DOCA_MTU_SIZE_256_BYTES;
	case 512:
		return DOCA_MTU_SIZE_512_BYTES;
	case 2048:
		return DOCA_MTU_SIZE_2K_BYTES;
	case 4096:
		return DOCA_MTU_SIZE_4K_BYTES;
	default:
		return DOCA_MTU_SIZE_1K_BYTES;
	}
}

doca_error_t
mr_qp_connect(struct mr_app *app, struct mr_rail *rail, struct doca_verbs_qp *qp, uint32_t remote_qpn, bool uc)
{
	const struct mr_qp_cfg *q = &app->cfg->qp;
	struct doca_verbs_qp_attr *attr;
	struct doca_verbs_gid gid;
	doca_error_t result;
	int mask;

	memcpy(gid.raw, rail->remote_gid, sizeof(gid.raw));
	result = verbs_check(doca_verbs_ah_attr_set_gid(rail->ah, gid), "set the peer's GID");
	if (result != DOCA_SUCCESS)
		return result;
	result = verbs_check(doca_verbs_qp_attr_create(&attr), "create QP attributes");
	if (result != DOCA_SUCCESS)
		return result;
	/* RST -> INIT */
	(void)doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_INIT);
	(void)doca_verbs_qp_attr_set_allow_remote_write(attr, 1);
	(void)doca_verbs_qp_attr_set_allow_remote_read(attr, 1);
	(void)doca_verbs_qp_attr_set_port_num(attr, VERBS_PORT_NUM);
	mask = DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE | DOCA_VERBS_QP_ATTR_PORT_NUM |
	       DOCA_VERBS_QP_ATTR_PKEY_INDEX | (uc ? 0 : DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ);
	result = verbs_check(doca_verbs_qp_modify(qp, attr, mask), "move a QP to INIT");
	if (result != DOCA_SUCCESS)
		goto out;
	/* INIT -> RTR */
	(void)doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_RTR);
	(void)doca_verbs_qp_attr_set_rq_psn(attr, 0);
	(void)doca_verbs_qp_attr_set_dest_qp_num(attr, remote_qpn);
	(void)doca_verbs_qp_attr_set_path_mtu(attr, mtu_code(q->path_mtu));
	(void)doca_verbs_qp_attr_set_ah_attr(attr, rail->ah);
	(void)doca_verbs_qp_attr_set_min_rnr_timer(attr, (uint8_t)q->min_rnr_timer);
	mask = DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_RQ_PSN | DOCA_VERBS_QP_ATTR_DEST_QP_NUM |
	       DOCA_VERBS_QP_ATTR_PATH_MTU | DOCA_VERBS_QP_ATTR_AH_ATTR | (uc ? 0 : DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER);
	result = verbs_check(doca_verbs_qp_modify(qp, attr, mask), "move a QP to RTR");
	if (result != DOCA_SUCCESS)
		goto out;
	/* RTR -> RTS */
	(void)doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_RTS);
	(void)doca_verbs_qp_attr_set_sq_psn(attr, 0);
	(void)doca_verbs_qp_attr_set_ack_timeout(attr, (uint8_t)q->ack_timeout);
	(void)doca_verbs_qp_attr_set_retry_cnt(attr, (uint8_t)q->retry_cnt);
	(void)doca_verbs_qp_attr_set_rnr_retry(attr, (uint8_t)q->rnr_retry);
	mask = DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_SQ_PSN |
	       (uc ? 0 : DOCA_VERBS_QP_ATTR_ACK_TIMEOUT | DOCA_VERBS_QP_ATTR_RETRY_CNT | DOCA_VERBS_QP_ATTR_RNR_RETRY);
	result = verbs_check(doca_verbs_qp_modify(qp, attr, mask), "move a QP to RTS");
out:
	(void)doca_verbs_qp_attr_destroy(attr);
	return result;
}

doca_error_t
mr_qp_to_err(struct doca_verbs_qp *qp)
{
	struct doca_verbs_qp_attr *attr;
	doca_error_t result;

	result = doca_verbs_qp_attr_create(&attr);
	if (result != DOCA_SUCCESS)
		return result;
	(void)doca_verbs_qp_attr_set_next_state(attr, DOCA_VERBS_QP_STATE_ERR);
	result = doca_verbs_qp_modify(qp, attr, DOCA_VERBS_QP_ATTR_NEXT_STATE);
	(void)doca_verbs_qp_attr_destroy(attr);
	return result;
}

void
mr_rail_destroy_qps(struct mr_qp *qps, uint32_t n)
{
	uint32_t i;

	if (qps == NULL)
		return;
	for (i = 0; i < n; i++)
		if (qps[i].qp != NULL)
			(void)verbs_check(doca_verbs_qp_destroy(qps[i].qp), "destroy a QP");
	free(qps);
}

doca_error_t
mr_probe_create(struct mr_app *app, struct mr_rail *rail)
{
	doca_error_t result = qp_create(app, rail, true, rail->probe_cq, &rail->probe_qp);

	if (result == DOCA_SUCCESS)
		rail->probe_qpn = doca_verbs_qp_get_qpn(rail->probe_qp);
	return result;
}

void
mr_probe_destroy(struct mr_rail *rail)
{
	struct ibv_wc wc[16];

	if (rail->probe_qp != NULL)
		(void)verbs_check(doca_verbs_qp_destroy(rail->probe_qp), "destroy a probe QP");
	rail->probe_qp = NULL;
	while (rail->probe_cq != NULL && doca_verbs_bridge_poll_cq(rail->probe_cq, 16, wc) > 0)
		;
}

doca_error_t
mr_post_recv(struct doca_verbs_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)addr, .length = len, .lkey = lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &sge, .num_sge = 1}, *bad = NULL;
	int ret = doca_verbs_bridge_post_recv(qp, &wr, &bad);

	if (ret != 0) {
		DOCA_LOG_ERR("Failed to post a receive: %s", strerror(ret));
		return DOCA_ERROR_DRIVER;
	}
	return DOCA_SUCCESS;
}

doca_error_t
mr_rail_close(struct mr_rail *rail)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	mr_rail_destroy_qps(rail->qps, rail->num_qps);
	rail->qps = NULL;
	mr_rail_destroy_qps(rail->new_qps, rail->num_qps);
	rail->new_qps = NULL;
	mr_probe_destroy(rail);
	if (rail->mr != NULL)
		(void)ibv_dereg_mr(rail->mr);
	if (rail->recv_mr != NULL)
		(void)ibv_dereg_mr(rail->recv_mr);
	if (rail->probe_mr != NULL)
		(void)ibv_dereg_mr(rail->probe_mr);
	free(rail->probe_buf);
	if (rail->ah != NULL)
		(void)doca_verbs_ah_attr_destroy(rail->ah);
	if (rail->probe_cq != NULL) {
		tmp = verbs_check(doca_verbs_cq_destroy(rail->probe_cq), "destroy a probe CQ");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (rail->cq != NULL) {
		tmp = verbs_check(doca_verbs_cq_destroy(rail->cq), "destroy a CQ");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (rail->dev != NULL)
		(void)doca_dev_close(rail->dev);
	if (rail->pd != NULL) {
		tmp = verbs_check(doca_verbs_pd_destroy(rail->pd), "destroy a PD");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	if (rail->ctx != NULL) {
		tmp = verbs_check(doca_verbs_context_destroy(rail->ctx), "destroy a Verbs context");
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
	return result;
}
