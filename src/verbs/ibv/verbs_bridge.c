/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_bridge.h without the datapath: Verbs contexts and PDs over the
 * soft rdma-core objects (verbs_ibv.c), struct ibv_qp_attr <-> QP attributes,
 * and the provider behind doca_rdma_bridge.h, which libdoca_common's thin
 * functions (src/core/rdma_bridge.c) reach once this library is loaded.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_rdma_bridge.h>
#include <doca_verbs_bridge.h>

#include "../../core/sd_core.h"
#include "verbs_ibv.h"

SD_LOG_REGISTER(verbs.bridge);

#define NOT_SOFT_HINT                                                                                                  \
	"softdoca drives only its own devices; get them from doca_verbs_bridge_get_ibv_ctx() or "                      \
	"doca_rdma_bridge_get_dev_pd()"

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_bridge_verbs_context_create(struct ibv_device *ibv_dev, uint32_t flags,
				       struct doca_verbs_context **verbs_context)
{
	struct doca_devinfo *devinfo;

	if (ibv_dev == NULL || verbs_context == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (ibv_dev %p, verbs_context %p); pass non-NULL pointers", __func__,
			     (void *)ibv_dev, (void *)verbs_context);
		return DOCA_ERROR_INVALID_VALUE;
	}
	devinfo = sd_verbs_ibv_device_devinfo(ibv_dev);
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: not a softdoca ibv_device (an rdma-core device); " NOT_SOFT_HINT, __func__);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return doca_verbs_context_create(devinfo, flags, verbs_context);
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_bridge_verbs_context_import(struct ibv_context *ibv_ctx, uint32_t flags,
				       struct doca_verbs_context **verbs_context)
{
	struct doca_devinfo *devinfo;

	if (ibv_ctx == NULL || verbs_context == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (ibv_ctx %p, verbs_context %p); pass non-NULL pointers", __func__,
			     (void *)ibv_ctx, (void *)verbs_context);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (flags != DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE) {
		DOCA_LOG_ERR("%s: unknown flags 0x%x; pass DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE", __func__, flags);
		return DOCA_ERROR_INVALID_VALUE;
	}
	devinfo = sd_verbs_ibv_context_devinfo(ibv_ctx);
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: not a softdoca ibv_context (an rdma-core context); " NOT_SOFT_HINT, __func__);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	/*
	 * The device's shared bridge context: PDs imported from ibv_pds no Verbs
	 * context owns live on it, so QPs made on this context may use them.
	 */
	return sd_verbs_ibv_bridge_ctx_get(devinfo, verbs_context);
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_bridge_verbs_query_device(struct ibv_context *ibv_ctx, struct doca_verbs_device_attr **verbs_device_attr)
{
	struct doca_verbs_context probe = {0};

	if (ibv_ctx == NULL || verbs_device_attr == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (ibv_ctx %p, verbs_device_attr %p); pass non-NULL pointers", __func__,
			     (void *)ibv_ctx, (void *)verbs_device_attr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	probe.devinfo = sd_verbs_ibv_context_devinfo(ibv_ctx);
	if (probe.devinfo == NULL) {
		DOCA_LOG_ERR("%s: not a softdoca ibv_context (an rdma-core context); " NOT_SOFT_HINT, __func__);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	/* doca_verbs_query_device reads only the context's devinfo: no context needs to be opened */
	return doca_verbs_query_device(&probe, verbs_device_attr);
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_bridge_verbs_pd_import(struct ibv_pd *ibv_pd, struct doca_verbs_pd **verbs_pd)
{
	struct doca_verbs_pd *pd;
	doca_error_t err;

	if (ibv_pd == NULL || verbs_pd == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (pd %p, verbs_pd %p); pass non-NULL pointers", __func__, (void *)ibv_pd,
			     (void *)verbs_pd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		DOCA_LOG_ERR("%s: out of memory; free memory and retry", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_verbs_ibv_pd_import(ibv_pd, &pd->ctx, &pd->bridged);
	if (err != DOCA_SUCCESS) {
		if (err == DOCA_ERROR_NOT_SUPPORTED)
			DOCA_LOG_ERR("%s: not a softdoca ibv_pd (one of rdma-core's); import the ibv_pd of "
				     "doca_rdma_bridge_get_dev_pd() or doca_verbs_bridge_verbs_pd_get_ibv_pd()",
				     __func__);
		free(pd);
		return err;
	}
	pd->ibv_pd = ibv_pd;
	pd->imported = true;
	if (!pd->bridged)
		sd_verbs_ctx_count(pd->ctx, &pd->ctx->num_pds, 1);
	*verbs_pd = pd;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct ibv_pd *
doca_verbs_bridge_verbs_pd_get_ibv_pd(const struct doca_verbs_pd *verbs_pd)
{
	if (verbs_pd == NULL) {
		DOCA_LOG_ERR("%s: verbs_pd is NULL; pass the object its create call returned", __func__);
		return NULL;
	}
	return verbs_pd->ibv_pd;
}

DOCA_EXPERIMENTAL struct ibv_context *
doca_verbs_bridge_get_ibv_ctx(struct doca_verbs_context *verbs_context)
{
	if (verbs_context == NULL) {
		DOCA_LOG_ERR("%s: verbs_context is NULL; pass the object its create call returned", __func__);
		return NULL;
	}
	return sd_verbs_ibv_context_of(verbs_context->devinfo);
}

/* ---- struct ibv_qp_attr <-> struct doca_verbs_qp_attr ---- */

/* IBV_QP_* -> DOCA_VERBS_QP_ATTR_*; bits with no DOCA attribute map to nothing. */
static const struct {
	int ibv, doca;
} mask_map[] = {
	{IBV_QP_STATE, DOCA_VERBS_QP_ATTR_NEXT_STATE},
	{IBV_QP_CUR_STATE, DOCA_VERBS_QP_ATTR_CURRENT_STATE},
	{IBV_QP_ACCESS_FLAGS,
	 DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ | DOCA_VERBS_QP_ATTR_ATOMIC_MODE},
	{IBV_QP_PKEY_INDEX, DOCA_VERBS_QP_ATTR_PKEY_INDEX},
	{IBV_QP_PORT, DOCA_VERBS_QP_ATTR_PORT_NUM},
	{IBV_QP_AV, DOCA_VERBS_QP_ATTR_AH_ATTR},
	{IBV_QP_PATH_MTU, DOCA_VERBS_QP_ATTR_PATH_MTU},
	{IBV_QP_TIMEOUT, DOCA_VERBS_QP_ATTR_ACK_TIMEOUT},
	{IBV_QP_RETRY_CNT, DOCA_VERBS_QP_ATTR_RETRY_CNT},
	{IBV_QP_RNR_RETRY, DOCA_VERBS_QP_ATTR_RNR_RETRY},
	{IBV_QP_RQ_PSN, DOCA_VERBS_QP_ATTR_RQ_PSN},
	{IBV_QP_MAX_QP_RD_ATOMIC, DOCA_VERBS_QP_ATTR_MAX_QP_RD_ATOMIC},
	{IBV_QP_MIN_RNR_TIMER, DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER},
	{IBV_QP_SQ_PSN, DOCA_VERBS_QP_ATTR_SQ_PSN},
	{IBV_QP_MAX_DEST_RD_ATOMIC, DOCA_VERBS_QP_ATTR_MAX_DEST_RD_ATOMIC},
	{IBV_QP_DEST_QPN, DOCA_VERBS_QP_ATTR_DEST_QP_NUM},
};

DOCA_EXPERIMENTAL int
doca_verbs_bridge_get_qp_attr_mask(int ibv_qp_attr_mask)
{
	int mask = 0;

	for (size_t i = 0; i < SD_ARRAY_SIZE(mask_map); i++)
		if (ibv_qp_attr_mask & mask_map[i].ibv)
			mask |= mask_map[i].doca;
	return mask;
}

/* enum ibv_qp_state -> enum doca_verbs_qp_state (SQD / SQE have none: -1). */
static int
state_from_ibv(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return DOCA_VERBS_QP_STATE_RST;
	case IBV_QPS_INIT:
		return DOCA_VERBS_QP_STATE_INIT;
	case IBV_QPS_RTR:
		return DOCA_VERBS_QP_STATE_RTR;
	case IBV_QPS_RTS:
		return DOCA_VERBS_QP_STATE_RTS;
	case IBV_QPS_ERR:
		return DOCA_VERBS_QP_STATE_ERR;
	default:
		return -1;
	}
}

static enum ibv_qp_state
state_to_ibv(enum doca_verbs_qp_state s)
{
	static const enum ibv_qp_state map[] = {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_ERR};

	return (unsigned int)s < SD_ARRAY_SIZE(map) ? map[s] : IBV_QPS_UNKNOWN;
}

#define BRIDGE_TRY(call)                                                                                               \
	do {                                                                                                           \
		doca_error_t e_ = (call);                                                                              \
		if (e_ != DOCA_SUCCESS)                                                                                \
			return e_;                                                                                     \
	} while (0)

/* The timers, retry counts, PSNs, dest QPN and RDMA-atomic depths of mask, checked by their setters. */
static doca_error_t
qp_attr_transport_from_ibv(struct doca_verbs_qp_attr *t, const struct ibv_qp_attr *ibv_qp_attr, int mask)
{
	if (mask & IBV_QP_TIMEOUT)
		BRIDGE_TRY(doca_verbs_qp_attr_set_ack_timeout(t, ibv_qp_attr->timeout));
	if (mask & IBV_QP_RETRY_CNT)
		BRIDGE_TRY(doca_verbs_qp_attr_set_retry_cnt(t, ibv_qp_attr->retry_cnt));
	if (mask & IBV_QP_RNR_RETRY)
		BRIDGE_TRY(doca_verbs_qp_attr_set_rnr_retry(t, ibv_qp_attr->rnr_retry));
	if (mask & IBV_QP_MIN_RNR_TIMER)
		BRIDGE_TRY(doca_verbs_qp_attr_set_min_rnr_timer(t, ibv_qp_attr->min_rnr_timer));
	if (mask & IBV_QP_RQ_PSN)
		BRIDGE_TRY(doca_verbs_qp_attr_set_rq_psn(t, ibv_qp_attr->rq_psn));
	if (mask & IBV_QP_SQ_PSN)
		BRIDGE_TRY(doca_verbs_qp_attr_set_sq_psn(t, ibv_qp_attr->sq_psn));
	if (mask & IBV_QP_DEST_QPN)
		BRIDGE_TRY(doca_verbs_qp_attr_set_dest_qp_num(t, ibv_qp_attr->dest_qp_num));
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		t->max_rd_atomic = ibv_qp_attr->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		t->max_dest_rd_atomic = ibv_qp_attr->max_dest_rd_atomic;
	return DOCA_SUCCESS;
}

/* The address vector of an IBV_QP_AV into the QP attribute's AH attribute object. */
static void
ah_attr_from_ibv(struct doca_verbs_ah_attr *ah, const struct ibv_ah_attr *src)
{
	memcpy(ah->gid.raw, src->grh.dgid.raw, sizeof(ah->gid.raw));
	ah->sgid_index = src->grh.sgid_index;
	ah->hop_limit = src->grh.hop_limit;
	ah->traffic_class = src->grh.traffic_class;
	ah->dlid = src->dlid;
	ah->sl = src->sl;
	ah->static_rate = src->static_rate;
	/* rdma-core does not say IPv4 or IPv6: a GRH keeps the AH's IP type, else IB_GRH */
	if (!src->is_global)
		ah->addr_type = DOCA_VERBS_ADDR_TYPE_IB_NO_GRH;
	else if (ah->addr_type == DOCA_VERBS_ADDR_TYPE_IB_NO_GRH)
		ah->addr_type = DOCA_VERBS_ADDR_TYPE_IB_GRH;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_bridge_qp_attr_set(struct doca_verbs_qp_attr *verbs_qp_attr, const struct ibv_qp_attr *ibv_qp_attr,
			      int attr_mask)
{
	struct doca_verbs_qp_attr t;
	int mask = attr_mask;

	if (verbs_qp_attr == NULL || ibv_qp_attr == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (verbs_qp_attr %p, ibv_qp_attr %p); pass non-NULL pointers", __func__,
			     (void *)verbs_qp_attr, (const void *)ibv_qp_attr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((mask & IBV_QP_AV) && verbs_qp_attr->ah_attr == NULL) {
		DOCA_LOG_ERR("%s: IBV_QP_AV needs an AH attribute object to fill; create one with "
			     "doca_verbs_ah_attr_create() and doca_verbs_qp_attr_set_ah_attr() first",
			     __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Validate everything on a copy (the setters check ranges), then apply: all or nothing. */
	t = *verbs_qp_attr;
	if (mask & IBV_QP_STATE) {
		if (state_from_ibv(ibv_qp_attr->qp_state) < 0) {
			DOCA_LOG_ERR("%s: qp_state %d has no DOCA Verbs state (SQD / SQE are not supported); use "
				     "RESET, INIT, RTR, RTS or ERR",
				     __func__, ibv_qp_attr->qp_state);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		t.next_state = (enum doca_verbs_qp_state)state_from_ibv(ibv_qp_attr->qp_state);
	}
	if (mask & IBV_QP_CUR_STATE) {
		if (state_from_ibv(ibv_qp_attr->cur_qp_state) < 0) {
			DOCA_LOG_ERR("%s: cur_qp_state %d has no DOCA Verbs state; use RESET, INIT, RTR, RTS or ERR",
				     __func__, ibv_qp_attr->cur_qp_state);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		t.current_state = (enum doca_verbs_qp_state)state_from_ibv(ibv_qp_attr->cur_qp_state);
	}
	if (mask & IBV_QP_ACCESS_FLAGS) {
		t.allow_remote_write = (ibv_qp_attr->qp_access_flags & IBV_ACCESS_REMOTE_WRITE) != 0;
		t.allow_remote_read = (ibv_qp_attr->qp_access_flags & IBV_ACCESS_REMOTE_READ) != 0;
		t.atomic_mode = (ibv_qp_attr->qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC)
					? DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC
					: DOCA_VERBS_QP_ATOMIC_MODE_NONE;
	}
	if (mask & IBV_QP_PKEY_INDEX)
		t.pkey_index = ibv_qp_attr->pkey_index;
	if (mask & IBV_QP_PORT)
		t.port_num = ibv_qp_attr->port_num;
	if (mask & IBV_QP_PATH_MTU) {
		if (ibv_qp_attr->path_mtu < IBV_MTU_256 || ibv_qp_attr->path_mtu > IBV_MTU_4096) {
			DOCA_LOG_ERR("%s: path_mtu %d is not an enum ibv_mtu value; use IBV_MTU_256 .. IBV_MTU_4096",
				     __func__, ibv_qp_attr->path_mtu);
			return DOCA_ERROR_INVALID_VALUE;
		}
		t.path_mtu = (enum doca_mtu_size)(ibv_qp_attr->path_mtu - IBV_MTU_256 + DOCA_MTU_SIZE_256_BYTES);
	}
	BRIDGE_TRY(qp_attr_transport_from_ibv(&t, ibv_qp_attr, mask));
	*verbs_qp_attr = t;
	if (mask & IBV_QP_AV)
		ah_attr_from_ibv(verbs_qp_attr->ah_attr, &ibv_qp_attr->ah_attr);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_bridge_qp_attr_get(const struct doca_verbs_qp_attr *verbs_qp_attr, struct ibv_qp_attr *ibv_qp_attr)
{
	const struct doca_verbs_qp_attr *a = verbs_qp_attr;
	struct ibv_qp_attr o = {0};

	if (a == NULL || ibv_qp_attr == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (verbs_qp_attr %p, ibv_qp_attr %p); pass non-NULL pointers", __func__,
			     (const void *)a, (void *)ibv_qp_attr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	o.qp_state = state_to_ibv(a->next_state);
	o.cur_qp_state = state_to_ibv(a->current_state);
	o.path_mtu = (enum ibv_mtu)(a->path_mtu <= DOCA_MTU_SIZE_4K_BYTES ? a->path_mtu + IBV_MTU_256 : IBV_MTU_4096);
	o.qp_access_flags = (a->allow_remote_write ? IBV_ACCESS_REMOTE_WRITE : 0) |
			    (a->allow_remote_read ? IBV_ACCESS_REMOTE_READ : 0) |
			    (a->atomic_mode != DOCA_VERBS_QP_ATOMIC_MODE_NONE ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	o.rq_psn = a->rq_psn;
	o.sq_psn = a->sq_psn;
	o.dest_qp_num = a->dest_qp_num;
	o.pkey_index = a->pkey_index;
	o.port_num = (uint8_t)a->port_num;
	o.timeout = (uint8_t)a->ack_timeout;
	o.retry_cnt = (uint8_t)a->retry_cnt;
	o.rnr_retry = (uint8_t)a->rnr_retry;
	o.min_rnr_timer = (uint8_t)a->min_rnr_timer;
	o.max_rd_atomic = a->max_rd_atomic;
	o.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (a->ah_attr != NULL) {
		const struct doca_verbs_ah_attr *ah = a->ah_attr;

		o.ah_attr.is_global = ah->addr_type != DOCA_VERBS_ADDR_TYPE_IB_NO_GRH;
		memcpy(o.ah_attr.grh.dgid.raw, ah->gid.raw, sizeof(ah->gid.raw));
		o.ah_attr.grh.sgid_index = ah->sgid_index;
		o.ah_attr.grh.hop_limit = ah->hop_limit;
		o.ah_attr.grh.traffic_class = ah->traffic_class;
		o.ah_attr.dlid = (uint16_t)ah->dlid;
		o.ah_attr.sl = ah->sl;
		o.ah_attr.static_rate = ah->static_rate;
		o.ah_attr.port_num = (uint8_t)a->port_num;
	}
	*ibv_qp_attr = o;
	return DOCA_SUCCESS;
}

/* ---- doca_rdma_bridge.h, installed into libdoca_common ---- */

/* The rdma-core access of an mmap's registration: local write always (our memory), remote as the mmap grants. */
static unsigned int
mmap_access(const struct doca_mmap *mmap)
{
	unsigned int access = IBV_ACCESS_LOCAL_WRITE;

	if (sd_mmap_permissions(mmap) & DOCA_ACCESS_FLAG_RDMA_READ)
		access |= IBV_ACCESS_REMOTE_READ;
	if (sd_mmap_permissions(mmap) & DOCA_ACCESS_FLAG_RDMA_WRITE)
		access |= IBV_ACCESS_REMOTE_WRITE;
	if (sd_mmap_permissions(mmap) & DOCA_ACCESS_FLAG_RDMA_ATOMIC)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	return access;
}

static doca_error_t
check_local_mmap(const char *func, const struct doca_mmap *mmap)
{
	if (sd_mmap_kind(mmap) != SD_MMAP_LOCAL || !sd_mmap_memrange_set(mmap) || sd_mmap_len(mmap) == 0) {
		DOCA_LOG_ERR(
			"%s: the mmap %s; pass a started mmap of this process's memory (doca_mmap_set_memrange)", func,
			sd_mmap_kind(mmap) != SD_MMAP_LOCAL ? "is another process's memory" : "has no memory range");
		return sd_mmap_kind(mmap) != SD_MMAP_LOCAL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
bridge_get_dev_pd(const struct doca_dev *dev, struct ibv_pd **pd)
{
	return sd_verbs_ibv_dev_pd(sd_dev_devinfo(dev), pd);
}

static doca_error_t
bridge_open_dev_from_pd(struct ibv_pd *pd, struct doca_dev **dev)
{
	struct doca_devinfo *devinfo = sd_verbs_ibv_pd_devinfo(pd);

	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_open_dev_from_pd: not a softdoca ibv_pd (one of "
			     "rdma-core's); " NOT_SOFT_HINT);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return doca_dev_open(devinfo, dev);
}

static doca_error_t
bridge_get_buf_mkey(const struct doca_buf *buf, struct doca_dev *dev, uint32_t *mkey)
{
	struct doca_mmap *mmap = sd_buf_mmap(buf);
	struct ibv_pd *pd;
	doca_error_t err;

	err = check_local_mmap("doca_rdma_bridge_get_buf_mkey", mmap);
	if (err == DOCA_SUCCESS)
		err = sd_verbs_ibv_dev_pd(sd_dev_devinfo(dev), &pd);
	if (err != DOCA_SUCCESS)
		return err;
	return sd_verbs_ibv_key_for_range(pd, mmap, sd_buf_head(buf), sd_buf_len(buf), sd_mmap_addr(mmap),
					  sd_mmap_len(mmap), mmap_access(mmap), mkey);
}

static doca_error_t
bridge_get_mmap_mkey_from_pd(const struct doca_mmap *mmap, struct ibv_pd *pd, uint32_t *mkey)
{
	doca_error_t err;

	if (!sd_verbs_ibv_is_pd(pd)) {
		DOCA_LOG_ERR("doca_rdma_bridge_get_mmap_mkey_from_pd: not a softdoca ibv_pd (one of "
			     "rdma-core's); " NOT_SOFT_HINT);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = check_local_mmap("doca_rdma_bridge_get_mmap_mkey_from_pd", mmap);
	if (err != DOCA_SUCCESS)
		return err;
	return sd_verbs_ibv_key_for_range(pd, mmap, sd_mmap_addr(mmap), sd_mmap_len(mmap), sd_mmap_addr(mmap),
					  sd_mmap_len(mmap), mmap_access(mmap), mkey);
}

static const struct sd_rdma_bridge_ops verbs_rdma_bridge_ops = {
	.get_dev_pd = bridge_get_dev_pd,
	.open_dev_from_pd = bridge_open_dev_from_pd,
	.get_buf_mkey = bridge_get_buf_mkey,
	.get_mmap_mkey_from_pd = bridge_get_mmap_mkey_from_pd,
};

__attribute__((constructor)) static void
bridge_install(void)
{
	sd_rdma_bridge_set_ops(&verbs_rdma_bridge_ops);
}

__attribute__((destructor)) static void
bridge_uninstall(void)
{
	sd_rdma_bridge_set_ops(NULL);
}
