/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every setter / getter pair of the Verbs attribute objects: round trips,
 * NULL objects refused (INVALID_VALUE) or read as 0, out-of-range values
 * refused and leaving the previous value.
 */
#include "verbs_test.h"

/* Round trip of a plain field: set, get back, NULL object refused, NULL read as 0. */
#define RT(obj, a, name, v)                                                                                            \
	do {                                                                                                           \
		ASSERT_OK(doca_verbs_##obj##_set_##name(a, v));                                                        \
		ASSERT(doca_verbs_##obj##_get_##name(a) == (v));                                                       \
		ASSERT_ERR(doca_verbs_##obj##_set_##name(NULL, v), DOCA_ERROR_INVALID_VALUE);                          \
		ASSERT(doca_verbs_##obj##_get_##name(NULL) == 0);                                                      \
	} while (0)

#define P(x) ((void *)(uintptr_t)(x))

TEST(cq_attr)
{
	struct doca_verbs_cq_attr *a;
	struct doca_umem *umem;
	uint64_t off;

	ASSERT_ERR(doca_verbs_cq_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_cq_attr_create(&a));
	ASSERT_EQ(doca_verbs_cq_attr_get_entry_size(a), DOCA_VERBS_CQ_ENTRY_SIZE_64);
	RT(cq_attr, a, entry_size, DOCA_VERBS_CQ_ENTRY_SIZE_128);
	ASSERT_ERR(doca_verbs_cq_attr_set_entry_size(a, (enum doca_verbs_cq_entry_size)2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_cq_attr_get_entry_size(a), DOCA_VERBS_CQ_ENTRY_SIZE_128);
	RT(cq_attr, a, cq_size, 1024u);
	RT(cq_attr, a, cq_overrun, 1);
	RT(cq_attr, a, comp_channel, (struct doca_verbs_comp_channel *)P(0x10));
	RT(cq_attr, a, cq_context, P(0x20));
	RT(cq_attr, a, external_uar, (struct doca_uar *)P(0x30));
	RT(cq_attr, a, dpa_thread_id, 5u);
	RT(cq_attr, a, external_datapath_en, 1);
	ASSERT_OK(doca_verbs_cq_attr_set_external_umem(a, (struct doca_umem *)P(0x40), 128));
	ASSERT_OK(doca_verbs_cq_attr_get_external_umem(a, &umem, &off));
	ASSERT_PTR_EQ(umem, P(0x40));
	ASSERT_EQ(off, 128);
	ASSERT_ERR(doca_verbs_cq_attr_set_external_umem(NULL, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_cq_attr_get_external_umem(a, NULL, &off), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_cq_attr_destroy(a));
	ASSERT_ERR(doca_verbs_cq_attr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(ah_attr)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_gid gid, back, zero = {{0}};
	struct doca_verbs_ah_attr *a;

	ASSERT_ERR(doca_verbs_ah_attr_create(NULL, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_ah_attr_create(ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_ah_attr_create(ctx, &a));
	for (int i = 0; i < DOCA_GID_BYTE_LENGTH; i++)
		gid.raw[i] = (uint8_t)(i * 7 + 1);
	ASSERT_OK(doca_verbs_ah_attr_set_gid(a, gid));
	gid.raw[0] = 0xee; /* by value: the attr keeps its own copy */
	back = doca_verbs_ah_attr_get_gid(a);
	ASSERT_EQ(back.raw[0], 1);
	ASSERT_EQ(back.raw[15], 15 * 7 + 1);
	ASSERT_ERR(doca_verbs_ah_attr_set_gid(NULL, gid), DOCA_ERROR_INVALID_VALUE);
	back = doca_verbs_ah_attr_get_gid(NULL);
	ASSERT_MEM_EQ(back.raw, zero.raw, sizeof(zero.raw));
	RT(ah_attr, a, addr_type, DOCA_VERBS_ADDR_TYPE_IB_NO_GRH);
	ASSERT_ERR(doca_verbs_ah_attr_set_addr_type(a, (enum doca_verbs_addr_type)4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_ah_attr_get_addr_type(a), DOCA_VERBS_ADDR_TYPE_IB_NO_GRH);
	RT(ah_attr, a, dlid, 0x1234u);
	RT(ah_attr, a, sl, 3);
	RT(ah_attr, a, sgid_index, 2);
	RT(ah_attr, a, static_rate, 9);
	RT(ah_attr, a, hop_limit, 200);
	RT(ah_attr, a, traffic_class, 0x28);
	ASSERT_ERR(doca_verbs_context_destroy(ctx), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_verbs_ah_attr_destroy(a));
	ASSERT_ERR(doca_verbs_ah_attr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(qp_init_attr)
{
	struct doca_verbs_qp_init_attr *a;
	struct doca_umem *umem;
	struct doca_uar *uar;
	uint64_t off;

	ASSERT_ERR(doca_verbs_qp_init_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_init_attr_create(&a));
	RT(qp_init_attr, a, pd, (struct doca_verbs_pd *)P(0x10));
	RT(qp_init_attr, a, srq, (struct doca_verbs_srq *)P(0x18));
	RT(qp_init_attr, a, sq_sig_all, 1);
	RT(qp_init_attr, a, sq_wr, 100u);
	RT(qp_init_attr, a, rq_wr, 200u);
	RT(qp_init_attr, a, send_max_sges, 3u);
	RT(qp_init_attr, a, receive_max_sges, 4u);
	RT(qp_init_attr, a, max_inline_data, 64u);
	RT(qp_init_attr, a, user_index, 77u);
	RT(qp_init_attr, a, qp_type, DOCA_VERBS_QP_TYPE_UC);
	ASSERT_ERR(doca_verbs_qp_init_attr_set_qp_type(a, 2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_qp_type(a), DOCA_VERBS_QP_TYPE_UC);
	RT(qp_init_attr, a, core_direct_master, 1);
	RT(qp_init_attr, a, qp_context, P(0x28));
	RT(qp_init_attr, a, dpa, (struct doca_dpa *)P(0x30));
	RT(qp_init_attr, a, send_dpa_completion, (struct doca_dpa_completion *)P(0x38));
	RT(qp_init_attr, a, receive_dpa_completion, (struct doca_dpa_completion *)P(0x40));
	RT(qp_init_attr, a, external_datapath_en, 1);
	RT(qp_init_attr, a, uar_id, 9u);
	RT(qp_init_attr, a, pdn, 11u);
	RT(qp_init_attr, a, cqe_inline, DOCA_VERBS_QP_SCATTER_TO_CQE_32B);
	ASSERT_ERR(doca_verbs_qp_init_attr_set_cqe_inline(a, (enum doca_verbs_qp_scatter_to_cqe)2),
		   DOCA_ERROR_INVALID_VALUE);
	RT(qp_init_attr, a, send_dbr_mode, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_INT);
	ASSERT_ERR(doca_verbs_qp_init_attr_set_send_dbr_mode(a, (enum doca_verbs_qp_send_dbr_mode)3),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_send_dbr_mode(a), DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_INT);
	ASSERT_OK(doca_verbs_qp_init_attr_set_dbr_umem(a, 5, 64));
	ASSERT_EQ(doca_verbs_qp_init_attr_get_dbr_umem_id(a), 5);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_dbr_umem_offset(a), 64);
	ASSERT_OK(doca_verbs_qp_init_attr_set_wq_umem(a, 6, 4096));
	ASSERT_EQ(doca_verbs_qp_init_attr_get_wq_umem_id(a), 6);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_wq_umem_offset(a), 4096);
	ASSERT_ERR(doca_verbs_qp_init_attr_set_wq_umem(NULL, 6, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_init_attr_set_external_umem(a, (struct doca_umem *)P(0x50), 8));
	ASSERT_OK(doca_verbs_qp_init_attr_get_external_umem(a, &umem, &off));
	ASSERT(umem == P(0x50) && off == 8);
	ASSERT_OK(doca_verbs_qp_init_attr_set_external_dbr_umem(a, (struct doca_umem *)P(0x58), 16));
	ASSERT_OK(doca_verbs_qp_init_attr_get_external_dbr_umem(a, &umem, &off));
	ASSERT(umem == P(0x58) && off == 16);
	ASSERT_OK(doca_verbs_qp_init_attr_set_external_uar(a, (struct doca_uar *)P(0x60)));
	ASSERT_OK(doca_verbs_qp_init_attr_get_external_uar(a, &uar));
	ASSERT_PTR_EQ(uar, P(0x60));
	ASSERT_ERR(doca_verbs_qp_init_attr_get_external_uar(a, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_qp_init_attr_get_external_umem(NULL, &umem, &off), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_send_cqn(a), 0);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_receive_cqn(NULL), 0);
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(a));
	ASSERT_ERR(doca_verbs_qp_init_attr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(qp_init_attr_cq_numbers)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_qp_init_attr *a;
	struct doca_verbs_cq *s = make_cq(ctx, NULL, NULL), *r = make_cq(ctx, NULL, NULL);

	ASSERT_OK(doca_verbs_qp_init_attr_create(&a));
	RT(qp_init_attr, a, send_cq, s);
	RT(qp_init_attr, a, receive_cq, r);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_send_cqn(a), doca_verbs_cq_get_cqn(s));
	ASSERT_EQ(doca_verbs_qp_init_attr_get_receive_cqn(a), doca_verbs_cq_get_cqn(r));
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(a));
	ASSERT_OK(doca_verbs_cq_destroy(s));
	ASSERT_OK(doca_verbs_cq_destroy(r));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

/* A bounded qp_attr field: the largest value passes, one more is refused and leaves it. */
#define BOUND(name, max)                                                                                               \
	do {                                                                                                           \
		RT(qp_attr, a, name, max);                                                                             \
		ASSERT_ERR(doca_verbs_qp_attr_set_##name(a, (max) + 1), DOCA_ERROR_INVALID_VALUE);                     \
		ASSERT(doca_verbs_qp_attr_get_##name(a) == (max));                                                     \
	} while (0)

TEST(qp_attr)
{
	struct doca_verbs_qp_attr *a;

	ASSERT_ERR(doca_verbs_qp_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	BOUND(next_state, DOCA_VERBS_QP_STATE_ERR);
	BOUND(current_state, DOCA_VERBS_QP_STATE_ERR);
	BOUND(path_mtu, DOCA_MTU_SIZE_4K_BYTES); /* RAW_ETHERNET is no QP path MTU */
	BOUND(rq_psn, 0xffffffu);
	BOUND(sq_psn, 0xffffffu);
	BOUND(dest_qp_num, 0xffffffu);
	BOUND(atomic_mode, DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_256BYTES);
	BOUND(ack_timeout, 31);
	BOUND(min_rnr_timer, 31);
	BOUND(retry_cnt, 7);
	BOUND(rnr_retry, 7);
	RT(qp_attr, a, allow_remote_write, 1);
	RT(qp_attr, a, allow_remote_read, 1);
	RT(qp_attr, a, max_rd_atomic, 4);
	RT(qp_attr, a, max_dest_rd_atomic, 8);
	RT(qp_attr, a, ah_attr, (struct doca_verbs_ah_attr *)P(0x10));
	RT(qp_attr, a, pkey_index, 0);
	RT(qp_attr, a, port_num, 1);
	RT(qp_attr, a, cc_group, (struct doca_verbs_cc_group *)P(0x20));
	ASSERT_OK(doca_verbs_qp_attr_destroy(a));
	ASSERT_ERR(doca_verbs_qp_attr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(srq_init_attr)
{
	struct doca_verbs_srq_init_attr *a;
	struct doca_umem *umem;
	uint64_t off;

	ASSERT_ERR(doca_verbs_srq_init_attr_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_srq_init_attr_create(&a));
	RT(srq_init_attr, a, srq_wr, 128u);
	RT(srq_init_attr, a, receive_max_sges, 2u);
	RT(srq_init_attr, a, type, DOCA_VERBS_SRQ_TYPE_CONTIGUOUS);
	ASSERT_ERR(doca_verbs_srq_init_attr_set_type(a, (enum doca_verbs_srq_type)2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_srq_init_attr_get_type(a), DOCA_VERBS_SRQ_TYPE_CONTIGUOUS);
	RT(srq_init_attr, a, pd, (struct doca_verbs_pd *)P(0x10));
	RT(srq_init_attr, a, external_datapath_en, 1);
	RT(srq_init_attr, a, dpa, (struct doca_dpa *)P(0x18));
	ASSERT_OK(doca_verbs_srq_init_attr_set_external_umem(a, (struct doca_umem *)P(0x20), 32));
	ASSERT_OK(doca_verbs_srq_init_attr_get_external_umem(a, &umem, &off));
	ASSERT(umem == P(0x20) && off == 32);
	ASSERT_OK(doca_verbs_srq_init_attr_set_external_dbr_umem(a, (struct doca_umem *)P(0x28), 48));
	ASSERT_OK(doca_verbs_srq_init_attr_get_external_dbr_umem(a, &umem, &off));
	ASSERT(umem == P(0x28) && off == 48);
	ASSERT_ERR(doca_verbs_srq_init_attr_get_external_dbr_umem(a, &umem, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_srq_init_attr_destroy(a));
	ASSERT_ERR(doca_verbs_srq_init_attr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
