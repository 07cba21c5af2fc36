/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device attributes of a Verbs context: software limits (verbs_internal.h)
 * and the device's RDMA capabilities (queue depths and SGEs come from the
 * topology, as doca_rdma's caps do).  What needs hardware reports 0 or
 * DOCA_ERROR_NOT_SUPPORTED.  docs/verbs.md lists every value.
 */
#include <stdlib.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.device_attr);

struct doca_verbs_device_attr {
	uint32_t max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr, max_pd, max_ah;
	uint32_t max_srq, max_srq_wr, max_srq_sge, clock_hz;
	uint16_t max_pkeys;
	uint8_t max_qp_rd_atom, max_qp_init_rd_atom;
};

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_query_device(struct doca_verbs_context *ctx, struct doca_verbs_device_attr **verbs_device_attr)
{
	const struct sd_dev_caps *caps;
	struct doca_verbs_device_attr *a;

	if (ctx == NULL || verbs_device_attr == NULL) {
		DOCA_LOG_ERR("doca_verbs_query_device: NULL argument (verbs_context %p, verbs_device_attr %p); pass "
			     "non-NULL pointers",
			     (void *)ctx, (void *)verbs_device_attr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		DOCA_LOG_ERR("doca_verbs_query_device: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	caps = sd_devinfo_caps(ctx->devinfo);
	a->max_qp = SD_VERBS_MAX_QP;
	a->max_qp_wr = sd_verbs_max_qp_wr(ctx);
	a->max_sge = sd_verbs_max_sge(ctx);
	a->max_cq = SD_VERBS_MAX_CQ;
	a->max_cqe = SD_VERBS_MAX_CQE;
	a->max_mr = SD_VERBS_MAX_MR;
	a->max_pd = SD_VERBS_MAX_PD;
	a->max_ah = SD_VERBS_MAX_AH;
	a->max_srq = SD_VERBS_MAX_SRQ;
	a->max_srq_wr = caps->rdma_max_recv_queue_size;
	a->max_srq_sge = caps->rdma_max_recv_buf_list_len;
	a->clock_hz = SD_VERBS_CLOCK_HZ;
	a->max_pkeys = SD_VERBS_MAX_PKEYS;
	a->max_qp_rd_atom = SD_VERBS_MAX_RD_ATOM;
	a->max_qp_init_rd_atom = SD_VERBS_MAX_RD_ATOM;
	*verbs_device_attr = a;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_device_attr_free(struct doca_verbs_device_attr *a)
{
	if (a == NULL) {
		DOCA_LOG_ERR("doca_verbs_device_attr_free: verbs_device_attr is NULL; pass the one "
			     "doca_verbs_query_device() returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	free(a);
	return DOCA_SUCCESS;
}

/* Getters: 0 for a NULL attr (the header's rule for value getters). */
#define DEV_ATTR_GETTER(type, name, field)                                                                             \
	DOCA_EXPERIMENTAL type doca_verbs_device_attr_get_##name(const struct doca_verbs_device_attr *a)               \
	{                                                                                                              \
		return a == NULL ? (type)0 : (type)(field);                                                            \
	}

DEV_ATTR_GETTER(uint32_t, max_qp, a->max_qp)
DEV_ATTR_GETTER(uint32_t, max_qp_wr, a->max_qp_wr)
DEV_ATTR_GETTER(uint32_t, max_sge, a->max_sge)
DEV_ATTR_GETTER(uint32_t, max_cq, a->max_cq)
DEV_ATTR_GETTER(uint32_t, max_cqe, a->max_cqe)
DEV_ATTR_GETTER(uint32_t, max_mr, a->max_mr)
DEV_ATTR_GETTER(uint32_t, max_pd, a->max_pd)
DEV_ATTR_GETTER(uint32_t, max_ah, a->max_ah)
DEV_ATTR_GETTER(uint32_t, max_srq, a->max_srq)
DEV_ATTR_GETTER(uint32_t, max_srq_wr, a->max_srq_wr)
DEV_ATTR_GETTER(uint32_t, max_srq_sge, a->max_srq_sge)
DEV_ATTR_GETTER(uint32_t, max_cc_group, 0)	/* no congestion-control groups */
DEV_ATTR_GETTER(uint32_t, max_eth_sq_wr_num, 0) /* no Ethernet queues */
DEV_ATTR_GETTER(uint32_t, max_eth_rq_wr_num, 0)
DEV_ATTR_GETTER(uint32_t, ts_free_running_clock_frequency, a->clock_hz)
DEV_ATTR_GETTER(uint16_t, max_pkeys, a->max_pkeys)
DEV_ATTR_GETTER(uint8_t, max_qp_rd_atom, a->max_qp_rd_atom)
DEV_ATTR_GETTER(uint8_t, max_qp_init_rd_atom, a->max_qp_init_rd_atom)
DEV_ATTR_GETTER(size_t, max_cc_group_hint_max_size, 0)
/* 8-byte fetch-add and compare-swap, atomic with respect to this device (the fabric's atomics). */
DEV_ATTR_GETTER(enum doca_verbs_atomic_cap, atomic_cap, DOCA_VERBS_ATOMIC_CAP_HCA)

static doca_error_t
null_attr(const char *func)
{
	DOCA_LOG_ERR("%s: verbs_device_attr is NULL; get one from doca_verbs_query_device()", func);
	return DOCA_ERROR_INVALID_VALUE;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_device_attr_get_is_qp_type_supported(const struct doca_verbs_device_attr *a, uint32_t qp_type)
{
	if (a == NULL)
		return null_attr(__func__);
	return qp_type == DOCA_VERBS_QP_TYPE_RC || qp_type == DOCA_VERBS_QP_TYPE_UC ? DOCA_SUCCESS
										    : DOCA_ERROR_NOT_SUPPORTED;
}

/*
 * Capabilities softdoca does not have: the answer is NOT_SUPPORTED (an answer,
 * not a refusal, so it is not logged).
 */
#define DEV_ATTR_NO_CAP(name)                                                                                          \
	DOCA_EXPERIMENTAL doca_error_t doca_verbs_device_attr_get_is_##name##_supported(                               \
		const struct doca_verbs_device_attr *a)                                                                \
	{                                                                                                              \
		if (a == NULL)                                                                                         \
			return null_attr(__func__);                                                                    \
		return DOCA_ERROR_NOT_SUPPORTED;                                                                       \
	}

DEV_ATTR_NO_CAP(dpa_external_datapath) /* no DPA */
DEV_ATTR_NO_CAP(gpu_external_datapath) /* no GPU */
DEV_ATTR_NO_CAP(ece)		       /* no enhanced connection establishment */
DEV_ATTR_NO_CAP(cc_group)	       /* no congestion-control groups */
DEV_ATTR_NO_CAP(cqe_inline)	       /* CQEs carry no scattered data */
DEV_ATTR_NO_CAP(allow_multi_pkt_send_wqe)
DEV_ATTR_NO_CAP(plane_index)
DEV_ATTR_NO_CAP(eth_rq_srq)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_device_attr_get_is_eth_sq_ts_source_type_supported(const struct doca_verbs_device_attr *a,
							      uint8_t ts_source_type)
{
	(void)ts_source_type;
	if (a == NULL)
		return null_attr(__func__);
	return DOCA_ERROR_NOT_SUPPORTED; /* no Ethernet queues */
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_device_attr_get_is_eth_rq_ts_source_type_supported(const struct doca_verbs_device_attr *a,
							      uint8_t ts_source_type)
{
	(void)ts_source_type;
	if (a == NULL)
		return null_attr(__func__);
	return DOCA_ERROR_NOT_SUPPORTED; /* no Ethernet queues */
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_device_attr_get_is_send_dbr_mode_supported(const struct doca_verbs_device_attr *a,
						      enum doca_verbs_qp_send_dbr_mode send_dbr_mode)
{
	if (a == NULL)
		return null_attr(__func__);
	/* Software has no doorbell record to skip: only the default mode. */
	return send_dbr_mode == DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}
