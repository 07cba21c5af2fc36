/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The error walk of doca_verbs.h (tests/harness/sd_errwalk.h): every function
 * that returns a doca_error_t has a row per error it can return, and each row
 * checks the status and the one explained line ("<function>: <rule>; <fix>").
 * Capability queries answer NOT_SUPPORTED without a log line (ERR_ANSWER): the
 * program asked, nothing was refused.  The last case fails when doca_verbs.h
 * declares a function that has no row.
 */
#include <doca_dev.h>
#include <doca_verbs.h>

#include "sd_errwalk.h"
#include "verbs_test.h"

static void
errwalk_setup(void)
{
}

static struct doca_verbs_context *
ctx(void)
{
	static struct doca_verbs_context *c;

	if (c == NULL)
		c = open_verbs_ctx();
	return c;
}

static struct doca_verbs_pd *
pd(void)
{
	static struct doca_verbs_pd *p;

	if (p == NULL)
		ASSERT_OK(doca_verbs_pd_create(ctx(), &p));
	return p;
}

static struct doca_verbs_cq *
cq(void)
{
	static struct doca_verbs_cq *c;

	if (c == NULL)
		c = make_cq(ctx(), NULL, NULL);
	return c;
}

static struct doca_verbs_qp *
qp(void)
{
	return make_qp(ctx(), pd(), cq(), DOCA_VERBS_QP_TYPE_RC);
}

static struct doca_verbs_device_attr *
dev_attr(void)
{
	struct doca_verbs_device_attr *a;

	ASSERT_OK(doca_verbs_query_device(ctx(), &a));
	return a;
}

static struct doca_verbs_qp_init_attr *
qp_init_attr(void)
{
	struct doca_verbs_qp_init_attr *a;

	ASSERT_OK(doca_verbs_qp_init_attr_create(&a));
	return a;
}

static struct doca_verbs_qp_attr *
qp_attr(void)
{
	struct doca_verbs_qp_attr *a;

	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	return a;
}

static struct doca_verbs_cq_attr *
cq_attr(void)
{
	struct doca_verbs_cq_attr *a;

	ASSERT_OK(doca_verbs_cq_attr_create(&a));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(a, 16));
	return a;
}

static struct doca_verbs_srq_init_attr *
srq_attr(void)
{
	struct doca_verbs_srq_init_attr *a;

	ASSERT_OK(doca_verbs_srq_init_attr_create(&a));
	ASSERT_OK(doca_verbs_srq_init_attr_set_pd(a, pd()));
	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(a, 16));
	ASSERT_OK(doca_verbs_srq_init_attr_set_receive_max_sges(a, 1));
	ASSERT_OK(doca_verbs_srq_init_attr_set_type(a, DOCA_VERBS_SRQ_TYPE_LINKED_LIST));
	return a;
}

/* A QP modify with the given mask from RST (the state a new QP is in). */
static doca_error_t
modify(struct doca_verbs_qp_attr *a, int mask)
{
	return doca_verbs_qp_modify(qp(), a, mask);
}

/* The attribute objects' out-of-memory paths need malloc to fail: they have no SOFTDOCA_FAULTS create hook. */
#define NO_MEM(fn) ERR_NOT_PROVOKED(fn, NO_MEMORY, "needs an allocation to fail (no verbs.create fault hook)")

/*
 * The objects' creates fail through the library's own out-of-memory path with
 * SOFTDOCA_FAULTS=verbs.create=nomem@skip (read at the first DOCA call of the case): skip is how many
 * Verbs creates of the case pass first (its context, PD and CQ).
 */
#define NOMEM_ROW(fn, skip, ...)                                                                                       \
	ERR_ROW(fn, NO_MEMORY, {                                                                                       \
		ASSERT_EQ(setenv("SOFTDOCA_FAULTS", "verbs.create=nomem@" #skip, 1), 0);                               \
		__VA_ARGS__                                                                                            \
	})

/* Context and PD */
ERR_NULL(doca_verbs_context_create, 0, NULL)
ERR_ROW_N(doca_verbs_context_create, INVALID_VALUE, _flags, {
	struct doca_verbs_context *c;
	struct doca_devinfo **list;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n > 0);
	return doca_verbs_context_create(list[0], 0x80, &c);
})
/* A device without RDMA (a topology of one such device). */
ERR_ROW(doca_verbs_context_create, NOT_SUPPORTED, {
	struct doca_verbs_context *c;
	struct doca_devinfo **list;
	uint32_t n;

	use_topology_text("{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"netdev\": \"lo\", \"caps\": "
			  "{\"rdma\": false}, \"functions\": [{\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", "
			  "\"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\"}]}]}\n");
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n >= 1);
	return doca_verbs_context_create(list[0], 0, &c);
})
NOMEM_ROW(doca_verbs_context_create, 0, {
	struct doca_verbs_context *c;
	struct doca_devinfo **list;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n > 0);
	return doca_verbs_context_create(list[0], 0, &c);
})
ERR_NOT_PROVOKED(doca_verbs_context_create, OPERATING_SYSTEM, "needs eventfd() or the soft NIC to fail")
ERR_NULL(doca_verbs_context_destroy)
ERR_ROW(doca_verbs_context_destroy, IN_USE, {
	(void)pd();
	return doca_verbs_context_destroy(ctx());
})
ERR_ROW(doca_verbs_context_import_from_handle, NOT_SUPPORTED, {
	struct doca_verbs_context *c;

	return doca_verbs_context_import_from_handle(3, 0, &c);
})
ERR_NULL(doca_verbs_pd_create, NULL)
NOMEM_ROW(doca_verbs_pd_create, 1, {
	struct doca_verbs_pd *p;

	return doca_verbs_pd_create(ctx(), &p);
})
ERR_NULL(doca_verbs_pd_destroy)
ERR_ROW(doca_verbs_pd_destroy, IN_USE, {
	(void)qp();
	return doca_verbs_pd_destroy(pd());
})
ERR_NULL(doca_verbs_pd_as_doca_dev, NULL)
ERR_ROW(doca_verbs_pd_import_from_handle, NOT_SUPPORTED, {
	struct doca_verbs_pd *p;

	return doca_verbs_pd_import_from_handle(ctx(), 3, &p);
})

/* Device attributes: a NULL attribute object is refused; a capability softdoca lacks is an answer. */
ERR_NULL(doca_verbs_query_device, NULL)
NO_MEM(doca_verbs_query_device)
ERR_NULL(doca_verbs_device_attr_free)
ERR_NULL(doca_verbs_device_attr_get_is_qp_type_supported, DOCA_VERBS_QP_TYPE_RC)
ERR_ANSWER(doca_verbs_device_attr_get_is_qp_type_supported, NOT_SUPPORTED,
	   { return doca_verbs_device_attr_get_is_qp_type_supported(dev_attr(), 0x77); })
#define NO_CAP(fn, ...)                                                                                                \
	ERR_NULL(fn, ##__VA_ARGS__)                                                                                    \
	ERR_ANSWER(fn, NOT_SUPPORTED, { return fn(dev_attr(), ##__VA_ARGS__); })
NO_CAP(doca_verbs_device_attr_get_is_dpa_external_datapath_supported)
NO_CAP(doca_verbs_device_attr_get_is_gpu_external_datapath_supported)
NO_CAP(doca_verbs_device_attr_get_is_ece_supported)
NO_CAP(doca_verbs_device_attr_get_is_cc_group_supported)
NO_CAP(doca_verbs_device_attr_get_is_cqe_inline_supported)
NO_CAP(doca_verbs_device_attr_get_is_allow_multi_pkt_send_wqe_supported)
NO_CAP(doca_verbs_device_attr_get_is_plane_index_supported)
NO_CAP(doca_verbs_device_attr_get_is_eth_sq_ts_source_type_supported, 0)
NO_CAP(doca_verbs_device_attr_get_is_eth_rq_srq_supported)
NO_CAP(doca_verbs_device_attr_get_is_eth_rq_ts_source_type_supported, 0)
NO_CAP(doca_verbs_device_attr_get_is_send_dbr_mode_supported, DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID + 1)

/* QP init attributes */
ERR_NULL(doca_verbs_qp_init_attr_create)
NO_MEM(doca_verbs_qp_init_attr_create)
ERR_NULL(doca_verbs_qp_init_attr_destroy)
ERR_NULL(doca_verbs_qp_init_attr_set_pd, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_send_cq, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_receive_cq, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_sq_sig_all, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_sq_wr, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_rq_wr, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_send_max_sges, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_receive_max_sges, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_max_inline_data, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_user_index, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_qp_type, DOCA_VERBS_QP_TYPE_RC)
ERR_ROW_N(doca_verbs_qp_init_attr_set_qp_type, INVALID_VALUE, _type,
	  { return doca_verbs_qp_init_attr_set_qp_type(qp_init_attr(), 0x77); })
ERR_NULL(doca_verbs_qp_init_attr_set_external_umem, NULL, 0)
ERR_NULL(doca_verbs_qp_init_attr_get_external_umem, NULL, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_external_dbr_umem, NULL, 0)
ERR_NULL(doca_verbs_qp_init_attr_get_external_dbr_umem, NULL, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_external_uar, NULL)
ERR_NULL(doca_verbs_qp_init_attr_get_external_uar, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_core_direct_master, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_qp_context, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_srq, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_dpa, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_send_dpa_completion, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_receive_dpa_completion, NULL)
ERR_NULL(doca_verbs_qp_init_attr_set_external_datapath_en, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_dbr_umem, 0, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_wq_umem, 0, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_uar_id, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_pdn, 0)
ERR_NULL(doca_verbs_qp_init_attr_set_cqe_inline, DOCA_VERBS_QP_SCATTER_TO_CQE_NONE)
ERR_ROW_N(doca_verbs_qp_init_attr_set_cqe_inline, INVALID_VALUE, _mode,
	  { return doca_verbs_qp_init_attr_set_cqe_inline(qp_init_attr(), (enum doca_verbs_qp_scatter_to_cqe)0x77); })
ERR_NULL(doca_verbs_qp_init_attr_set_send_dbr_mode, DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID)
ERR_ROW_N(doca_verbs_qp_init_attr_set_send_dbr_mode, INVALID_VALUE, _mode,
	  { return doca_verbs_qp_init_attr_set_send_dbr_mode(qp_init_attr(), (enum doca_verbs_qp_send_dbr_mode)0x77); })

/* QP attributes: NULL, and each bounded setter one past its bound */
ERR_NULL(doca_verbs_qp_attr_create)
NO_MEM(doca_verbs_qp_attr_create)
ERR_NULL(doca_verbs_qp_attr_destroy)
#define BOUNDED(fn, type, over)                                                                                        \
	ERR_NULL(fn, (type)0)                                                                                          \
	ERR_ROW_N(fn, INVALID_VALUE, _range, { return fn(qp_attr(), (type)(over)); })
BOUNDED(doca_verbs_qp_attr_set_next_state, enum doca_verbs_qp_state, DOCA_VERBS_QP_STATE_ERR + 1)
BOUNDED(doca_verbs_qp_attr_set_current_state, enum doca_verbs_qp_state, DOCA_VERBS_QP_STATE_ERR + 1)
BOUNDED(doca_verbs_qp_attr_set_path_mtu, enum doca_mtu_size, DOCA_MTU_SIZE_4K_BYTES + 1)
BOUNDED(doca_verbs_qp_attr_set_rq_psn, uint32_t, 1u << 24)
BOUNDED(doca_verbs_qp_attr_set_sq_psn, uint32_t, 1u << 24)
BOUNDED(doca_verbs_qp_attr_set_dest_qp_num, uint32_t, 1u << 24)
BOUNDED(doca_verbs_qp_attr_set_atomic_mode, enum doca_verbs_qp_atomic_mode,
	DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_256BYTES + 1)
BOUNDED(doca_verbs_qp_attr_set_ack_timeout, uint16_t, 32)
BOUNDED(doca_verbs_qp_attr_set_retry_cnt, uint16_t, 8)
BOUNDED(doca_verbs_qp_attr_set_rnr_retry, uint16_t, 8)
BOUNDED(doca_verbs_qp_attr_set_min_rnr_timer, uint16_t, 32)
ERR_NULL(doca_verbs_qp_attr_set_allow_remote_write, 0)
ERR_NULL(doca_verbs_qp_attr_set_allow_remote_read, 0)
ERR_NULL(doca_verbs_qp_attr_set_max_rd_atomic, 0)
ERR_NULL(doca_verbs_qp_attr_set_max_dest_rd_atomic, 0)
ERR_NULL(doca_verbs_qp_attr_set_ah_attr, NULL)
ERR_NULL(doca_verbs_qp_attr_set_pkey_index, 0)
ERR_NULL(doca_verbs_qp_attr_set_port_num, 0)
ERR_NULL(doca_verbs_qp_attr_set_cc_group, NULL)

/* CQ attributes */
ERR_NULL(doca_verbs_cq_attr_create)
NO_MEM(doca_verbs_cq_attr_create)
ERR_NULL(doca_verbs_cq_attr_destroy)
ERR_NULL(doca_verbs_cq_attr_set_entry_size, DOCA_VERBS_CQ_ENTRY_SIZE_64)
ERR_ROW_N(doca_verbs_cq_attr_set_entry_size, INVALID_VALUE, _size,
	  { return doca_verbs_cq_attr_set_entry_size(cq_attr(), (enum doca_verbs_cq_entry_size)0x77); })
ERR_NULL(doca_verbs_cq_attr_set_cq_size, 16)
ERR_NULL(doca_verbs_cq_attr_set_cq_overrun, 0)
ERR_NULL(doca_verbs_cq_attr_set_comp_channel, NULL)
ERR_NULL(doca_verbs_cq_attr_set_cq_context, NULL)
ERR_NULL(doca_verbs_cq_attr_set_external_umem, NULL, 0)
ERR_NULL(doca_verbs_cq_attr_get_external_umem, NULL, NULL)
ERR_NULL(doca_verbs_cq_attr_set_external_uar, NULL)
ERR_NULL(doca_verbs_cq_attr_set_dpa_thread_id, 0)
ERR_NULL(doca_verbs_cq_attr_set_external_datapath_en, 0)

/* AH attributes */
ERR_NULL(doca_verbs_ah_attr_create, NULL)
NO_MEM(doca_verbs_ah_attr_create)
ERR_NULL(doca_verbs_ah_attr_destroy)
ERR_ROW_N(doca_verbs_ah_attr_set_gid, INVALID_VALUE, _null, {
	struct doca_verbs_gid gid = {{0}};

	return doca_verbs_ah_attr_set_gid(NULL, gid);
})
ERR_NULL(doca_verbs_ah_attr_set_addr_type, DOCA_VERBS_ADDR_TYPE_IPv4)
ERR_ROW_N(doca_verbs_ah_attr_set_addr_type, INVALID_VALUE, _type, {
	struct doca_verbs_ah_attr *a;

	ASSERT_OK(doca_verbs_ah_attr_create(ctx(), &a));
	return doca_verbs_ah_attr_set_addr_type(a, (enum doca_verbs_addr_type)0x77);
})
ERR_NULL(doca_verbs_ah_attr_set_dlid, 0)
ERR_NULL(doca_verbs_ah_attr_set_sl, 0)
ERR_NULL(doca_verbs_ah_attr_set_sgid_index, 0)
ERR_NULL(doca_verbs_ah_attr_set_static_rate, 0)
ERR_NULL(doca_verbs_ah_attr_set_hop_limit, 0)
ERR_NULL(doca_verbs_ah_attr_set_traffic_class, 0)

/* Completion channels and CQs */
ERR_NULL(doca_verbs_comp_channel_create, NULL)
NOMEM_ROW(doca_verbs_comp_channel_create, 1, {
	struct doca_verbs_comp_channel *ch;

	return doca_verbs_comp_channel_create(ctx(), &ch);
})
ERR_NOT_PROVOKED(doca_verbs_comp_channel_create, OPERATING_SYSTEM, "needs eventfd() or epoll_create1() to fail")
ERR_NULL(doca_verbs_comp_channel_destroy)
ERR_ROW(doca_verbs_comp_channel_destroy, IN_USE, {
	struct doca_verbs_comp_channel *ch;

	ASSERT_OK(doca_verbs_comp_channel_create(ctx(), &ch));
	(void)make_cq(ctx(), ch, NULL);
	return doca_verbs_comp_channel_destroy(ch);
})
ERR_NULL(doca_verbs_get_cq_event, NULL, NULL)
ERR_ANSWER(doca_verbs_get_cq_event, AGAIN, {
	struct doca_verbs_comp_channel *ch;
	struct doca_verbs_cq *c;
	void *cq_context;

	ASSERT_OK(doca_verbs_comp_channel_create(ctx(), &ch));
	return doca_verbs_get_cq_event(ch, &c, &cq_context);
})
ERR_NULL(doca_verbs_req_notify_cq, 0)
ERR_ROW(doca_verbs_req_notify_cq, BAD_STATE, { return doca_verbs_req_notify_cq(cq(), 0); })
ERR_NULL(doca_verbs_cq_create, NULL, NULL)
ERR_ROW_N(doca_verbs_cq_create, INVALID_VALUE, _size, {
	struct doca_verbs_cq_attr *a = cq_attr();
	struct doca_verbs_cq *c;

	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(a, 0));
	return doca_verbs_cq_create(ctx(), a, &c);
})
ERR_ROW(doca_verbs_cq_create, NOT_SUPPORTED, {
	struct doca_verbs_cq_attr *a = cq_attr();
	struct doca_verbs_cq *c;

	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(a, DOCA_VERBS_CQ_ENTRY_SIZE_128));
	return doca_verbs_cq_create(ctx(), a, &c);
})
NOMEM_ROW(doca_verbs_cq_create, 1, {
	struct doca_verbs_cq *c;

	return doca_verbs_cq_create(ctx(), cq_attr(), &c);
})
ERR_NULL(doca_verbs_cq_destroy)
ERR_ROW(doca_verbs_cq_destroy, IN_USE, {
	(void)qp();
	return doca_verbs_cq_destroy(cq());
})

/* QPs */
ERR_NULL(doca_verbs_qp_create, NULL, NULL)
ERR_ROW_N(doca_verbs_qp_create, INVALID_VALUE, _no_pd, {
	struct doca_verbs_qp *q;

	return doca_verbs_qp_create(ctx(), qp_init_attr(), &q);
})
ERR_ROW_N(doca_verbs_qp_create, INVALID_VALUE, _sq_wr, {
	struct doca_verbs_qp_init_attr *a = qp_init_attr();
	struct doca_verbs_qp *q;

	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(a, pd()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(a, cq()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(a, 1u << 30));
	return doca_verbs_qp_create(ctx(), a, &q);
})
ERR_ROW(doca_verbs_qp_create, NOT_SUPPORTED, {
	struct doca_verbs_qp_init_attr *a = qp_init_attr();
	struct doca_verbs_qp *q;

	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(a, pd()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(a, cq()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(a, 4));
	ASSERT_OK(doca_verbs_qp_init_attr_set_external_datapath_en(a, 1));
	return doca_verbs_qp_create(ctx(), a, &q);
})
ERR_NOT_PROVOKED(doca_verbs_qp_create, FULL, "needs 65536 QPs on one context (docs/verbs.md limits)")
NOMEM_ROW(doca_verbs_qp_create, 3, {
	struct doca_verbs_qp_init_attr *a = qp_init_attr();
	struct doca_verbs_qp *q;

	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(a, pd()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(a, cq()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_cq(a, cq()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(a, 16));
	ASSERT_OK(doca_verbs_qp_init_attr_set_rq_wr(a, 16));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_max_sges(a, 1));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_max_sges(a, 1));
	ASSERT_OK(doca_verbs_qp_init_attr_set_qp_type(a, DOCA_VERBS_QP_TYPE_RC));
	return doca_verbs_qp_create(ctx(), a, &q);
})
ERR_NULL(doca_verbs_qp_modify, NULL, 0)
ERR_ROW_N(doca_verbs_qp_modify, INVALID_VALUE, _no_next_state, { return modify(qp_attr(), 0); })
ERR_ROW_N(doca_verbs_qp_modify, INVALID_VALUE, _transition, {
	struct doca_verbs_qp_attr *a = qp_attr();

	ASSERT_OK(doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_RTS));
	return modify(a, DOCA_VERBS_QP_ATTR_NEXT_STATE);
})
ERR_ROW(doca_verbs_qp_modify, BAD_STATE, {
	struct doca_verbs_qp_attr *a = qp_attr();

	ASSERT_OK(doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_INIT));
	ASSERT_OK(doca_verbs_qp_attr_set_current_state(a, DOCA_VERBS_QP_STATE_RTS));
	return modify(a, DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_CURRENT_STATE);
})
ERR_ROW(doca_verbs_qp_modify, NOT_SUPPORTED, {
	struct doca_verbs_qp_attr *a = qp_attr();

	ASSERT_OK(doca_verbs_qp_attr_set_next_state(a, DOCA_VERBS_QP_STATE_INIT));
	ASSERT_OK(doca_verbs_qp_attr_set_atomic_mode(a, DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_256BYTES));
	return modify(a, DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_ATOMIC_MODE);
})
ERR_NULL(doca_verbs_qp_query, NULL, NULL, NULL)
ERR_ROW(doca_verbs_qp_set_ece, NOT_SUPPORTED, { return doca_verbs_qp_set_ece(qp(), 1); })
ERR_NULL(doca_verbs_qp_destroy)
ERR_ROW(doca_verbs_qp_get_dpa_handle, NOT_SUPPORTED, {
	doca_dpa_dev_verbs_qp_t h;

	return doca_verbs_qp_get_dpa_handle(qp(), NULL, &h);
})

/* SRQs */
ERR_NULL(doca_verbs_srq_init_attr_create)
NO_MEM(doca_verbs_srq_init_attr_create)
ERR_NULL(doca_verbs_srq_init_attr_destroy)
ERR_NULL(doca_verbs_srq_init_attr_set_srq_wr, 0)
ERR_NULL(doca_verbs_srq_init_attr_set_receive_max_sges, 0)
ERR_NULL(doca_verbs_srq_init_attr_set_type, DOCA_VERBS_SRQ_TYPE_LINKED_LIST)
ERR_ROW_N(doca_verbs_srq_init_attr_set_type, INVALID_VALUE, _type,
	  { return doca_verbs_srq_init_attr_set_type(srq_attr(), (enum doca_verbs_srq_type)0x77); })
ERR_NULL(doca_verbs_srq_init_attr_set_pd, NULL)
ERR_NULL(doca_verbs_srq_init_attr_set_external_datapath_en, 0)
ERR_NULL(doca_verbs_srq_init_attr_set_external_umem, NULL, 0)
ERR_NULL(doca_verbs_srq_init_attr_get_external_umem, NULL, NULL)
ERR_NULL(doca_verbs_srq_init_attr_set_external_dbr_umem, NULL, 0)
ERR_NULL(doca_verbs_srq_init_attr_get_external_dbr_umem, NULL, NULL)
ERR_NULL(doca_verbs_srq_init_attr_set_dpa, NULL)
ERR_NULL(doca_verbs_srq_create, NULL, NULL)
ERR_ROW_N(doca_verbs_srq_create, INVALID_VALUE, _srq_wr, {
	struct doca_verbs_srq_init_attr *a = srq_attr();
	struct doca_verbs_srq *s;

	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(a, 0));
	return doca_verbs_srq_create(ctx(), a, &s);
})
ERR_ROW(doca_verbs_srq_create, NOT_SUPPORTED, {
	struct doca_verbs_srq_init_attr *a = srq_attr();
	struct doca_verbs_srq *s;

	ASSERT_OK(doca_verbs_srq_init_attr_set_type(a, DOCA_VERBS_SRQ_TYPE_CONTIGUOUS));
	return doca_verbs_srq_create(ctx(), a, &s);
})
NOMEM_ROW(doca_verbs_srq_create, 2, {
	struct doca_verbs_srq *s;

	return doca_verbs_srq_create(ctx(), srq_attr(), &s);
})
ERR_NULL(doca_verbs_srq_destroy)
ERR_ROW(doca_verbs_srq_destroy, IN_USE, {
	struct doca_verbs_qp_init_attr *a = qp_init_attr();
	struct doca_verbs_srq *s;
	struct doca_verbs_qp *q;

	ASSERT_OK(doca_verbs_srq_create(ctx(), srq_attr(), &s));
	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(a, pd()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(a, cq()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_cq(a, cq()));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(a, 4));
	ASSERT_OK(doca_verbs_qp_init_attr_set_srq(a, s));
	ASSERT_OK(doca_verbs_qp_create(ctx(), a, &q));
	return doca_verbs_srq_destroy(s);
})
ERR_NULL(doca_verbs_srq_query, NULL)
ERR_ROW(doca_verbs_srq_get_dpa_handle, NOT_SUPPORTED, {
	struct doca_verbs_srq *s;
	doca_dpa_dev_verbs_srq_t h;

	ASSERT_OK(doca_verbs_srq_create(ctx(), srq_attr(), &s));
	return doca_verbs_srq_get_dpa_handle(s, NULL, &h);
})

/* Async events */
ERR_NULL(doca_verbs_get_async_event, NULL)
ERR_ANSWER(doca_verbs_get_async_event, AGAIN, {
	struct doca_verbs_async_event ev;

	return doca_verbs_get_async_event(ctx(), &ev);
})

/* Congestion-control groups: hardware only, refused whatever the arguments. */
ERR_ROW(doca_verbs_cc_group_attr_create, NOT_SUPPORTED, {
	struct doca_verbs_cc_group_attr *a;

	return doca_verbs_cc_group_attr_create(&a);
})
ERR_ROW(doca_verbs_cc_group_attr_destroy, NOT_SUPPORTED, { return doca_verbs_cc_group_attr_destroy(NULL); })
ERR_ROW(doca_verbs_cc_group_attr_set_hint, NOT_SUPPORTED, { return doca_verbs_cc_group_attr_set_hint(NULL, "", 1); })
ERR_ROW(doca_verbs_cc_group_attr_get_hint, NOT_SUPPORTED, {
	const void *hint;
	size_t size;

	return doca_verbs_cc_group_attr_get_hint(NULL, &hint, &size);
})
ERR_ROW(doca_verbs_cc_group_create, NOT_SUPPORTED, {
	struct doca_verbs_cc_group *g;

	return doca_verbs_cc_group_create(ctx(), NULL, &g);
})
ERR_ROW(doca_verbs_cc_group_destroy, NOT_SUPPORTED, { return doca_verbs_cc_group_destroy(NULL); })
ERR_ROW(doca_verbs_cc_group_modify, NOT_SUPPORTED, { return doca_verbs_cc_group_modify(NULL, NULL); })
ERR_ROW(doca_verbs_cc_group_query, NOT_SUPPORTED, { return doca_verbs_cc_group_query(NULL, NULL); })
ERR_ROW(doca_verbs_query_cc_group_caps, NOT_SUPPORTED, {
	struct doca_verbs_cc_group_caps *caps;

	return doca_verbs_query_cc_group_caps(ctx(), &caps);
})
ERR_ROW(doca_verbs_cc_group_caps_free, NOT_SUPPORTED, { return doca_verbs_cc_group_caps_free(NULL); })
ERR_ROW(doca_verbs_cc_group_caps_get_data, NOT_SUPPORTED, {
	const void *data;
	size_t size;

	return doca_verbs_cc_group_caps_get_data(NULL, &data, &size);
})

TEST(every_function_of_doca_verbs_h_has_a_row)
{
	printf("# doca_verbs.h: %u functions return a doca_error_t, all walked\n",
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_verbs.h"));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
