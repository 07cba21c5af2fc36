/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Verbs QP contract: creation rules, QP numbers, and every transition of
 * doca_verbs_qp_modify with the exact masks DOCA's samples pass, the
 * illegal ones, missing and misplaced attributes, defaults and query.
 */
#include "verbs_test.h"

#define A(x) DOCA_VERBS_QP_ATTR_##x
/* The masks DOCA's Verbs samples pass (doca-api.md section 15.6). */
#define SAMPLE_TO_INIT (A(NEXT_STATE) | A(ALLOW_REMOTE_WRITE) | A(ALLOW_REMOTE_READ) | A(PKEY_INDEX) | A(PORT_NUM))
#define SAMPLE_TO_RTR (A(NEXT_STATE) | A(RQ_PSN) | A(DEST_QP_NUM) | A(MIN_RNR_TIMER) | A(PATH_MTU) | A(AH_ATTR))
#define SAMPLE_TO_RTS (A(NEXT_STATE) | A(SQ_PSN) | A(ACK_TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY))

struct rig {
	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_qp_attr *attr;
};

static void
rig_open(struct rig *r, uint32_t type)
{
	struct doca_verbs_gid gid = {{0}};

	r->ctx = open_verbs_ctx();
	ASSERT_OK(doca_verbs_pd_create(r->ctx, &r->pd));
	r->cq = make_cq(r->ctx, NULL, NULL);
	r->qp = make_qp(r->ctx, r->pd, r->cq, type);
	ASSERT_OK(doca_verbs_ah_attr_create(r->ctx, &r->ah));
	gid.raw[10] = 0xff;
	gid.raw[11] = 0xff;
	gid.raw[12] = 127;
	gid.raw[15] = 1;
	ASSERT_OK(doca_verbs_ah_attr_set_gid(r->ah, gid));
	ASSERT_OK(doca_verbs_ah_attr_set_addr_type(r->ah, DOCA_VERBS_ADDR_TYPE_IPv4));
	ASSERT_OK(doca_verbs_ah_attr_set_sgid_index(r->ah, 0));
	ASSERT_OK(doca_verbs_ah_attr_set_hop_limit(r->ah, 255));
	/* One attr object reused across the modifies, only the mask changing (as the samples do). */
	ASSERT_OK(doca_verbs_qp_attr_create(&r->attr));
	ASSERT_OK(doca_verbs_qp_attr_set_allow_remote_write(r->attr, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_allow_remote_read(r->attr, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_port_num(r->attr, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_rq_psn(r->attr, 0));
	ASSERT_OK(doca_verbs_qp_attr_set_sq_psn(r->attr, 0));
	ASSERT_OK(doca_verbs_qp_attr_set_dest_qp_num(r->attr, 0x123));
	ASSERT_OK(doca_verbs_qp_attr_set_min_rnr_timer(r->attr, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_path_mtu(r->attr, DOCA_MTU_SIZE_1K_BYTES));
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(r->attr, r->ah));
	ASSERT_OK(doca_verbs_qp_attr_set_ack_timeout(r->attr, 14));
	ASSERT_OK(doca_verbs_qp_attr_set_retry_cnt(r->attr, 7));
	ASSERT_OK(doca_verbs_qp_attr_set_rnr_retry(r->attr, 7));
}

/* The samples' teardown order: qp, ah_attr, cq, (doca_dev_close), pd, context. */
static void
rig_close(struct rig *r)
{
	ASSERT_OK(doca_verbs_qp_attr_destroy(r->attr));
	ASSERT_OK(doca_verbs_qp_destroy(r->qp));
	ASSERT_OK(doca_verbs_ah_attr_destroy(r->ah));
	ASSERT_OK(doca_verbs_cq_destroy(r->cq));
	ASSERT_OK(doca_verbs_pd_destroy(r->pd));
	ASSERT_OK(doca_verbs_context_destroy(r->ctx));
}

static doca_error_t
go(struct rig *r, enum doca_verbs_qp_state to, int mask)
{
	ASSERT_OK(doca_verbs_qp_attr_set_next_state(r->attr, to));
	return doca_verbs_qp_modify(r->qp, r->attr, mask);
}

static enum doca_verbs_qp_state
state_of(struct doca_verbs_qp *qp, int *mask_out)
{
	struct doca_verbs_qp_attr *a;
	struct doca_verbs_qp_init_attr *ia;
	enum doca_verbs_qp_state s;
	int mask = 0;

	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_OK(doca_verbs_qp_query(qp, a, ia, &mask));
	s = doca_verbs_qp_attr_get_current_state(a);
	ASSERT_EQ(doca_verbs_qp_attr_get_next_state(a), s);
	ASSERT(mask & A(CURRENT_STATE));
	if (mask_out != NULL)
		*mask_out = mask;
	ASSERT_OK(doca_verbs_qp_attr_destroy(a));
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	return s;
}

static void
to_rts(struct rig *r)
{
	ASSERT_OK(go(r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	ASSERT_OK(go(r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR));
	ASSERT_OK(go(r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS));
}

TEST(sample_masks_reach_rts)
{
	struct rig r;
	int mask;

	rig_open(&r, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_EQ(state_of(r.qp, &mask), DOCA_VERBS_QP_STATE_RST);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_INIT);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR));
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_RTR);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS));
	ASSERT_EQ(state_of(r.qp, &mask), DOCA_VERBS_QP_STATE_RTS);
	ASSERT_EQ(mask & (A(SQ_PSN) | A(AH_ATTR) | A(DEST_QP_NUM) | A(MAX_QP_RD_ATOMIC)),
		  A(SQ_PSN) | A(AH_ATTR) | A(DEST_QP_NUM) | A(MAX_QP_RD_ATOMIC));
	rig_close(&r);
}

TEST(uc_qp_reaches_rts_without_rc_timers)
{
	struct rig r;

	rig_open(&r, DOCA_VERBS_QP_TYPE_UC);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	/* UC has no RNR timer, ACK timeout or retries */
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR & ~A(MIN_RNR_TIMER)));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTS, A(NEXT_STATE) | A(SQ_PSN)));
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_RTS);
	rig_close(&r);
}

TEST(defaults_fill_what_samples_leave_out)
{
	struct doca_verbs_qp_init_attr *ia;
	struct doca_verbs_qp_attr *q;
	struct doca_verbs_gid gid;
	struct rig r;
	int mask;

	rig_open(&r, DOCA_VERBS_QP_TYPE_RC);
	to_rts(&r);
	ASSERT_OK(doca_verbs_qp_attr_create(&q));
	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_OK(doca_verbs_qp_query(r.qp, q, ia, &mask));
	ASSERT_EQ(doca_verbs_qp_attr_get_pkey_index(q), 0);
	ASSERT_EQ(doca_verbs_qp_attr_get_port_num(q), 1);
	ASSERT_EQ(doca_verbs_qp_attr_get_atomic_mode(q), DOCA_VERBS_QP_ATOMIC_MODE_NONE);
	ASSERT(doca_verbs_qp_attr_get_max_rd_atomic(q) > 0);
	ASSERT(doca_verbs_qp_attr_get_max_dest_rd_atomic(q) > 0);
	ASSERT_EQ(doca_verbs_qp_attr_get_dest_qp_num(q), 0x123);
	ASSERT_EQ(doca_verbs_qp_attr_get_path_mtu(q), DOCA_MTU_SIZE_1K_BYTES);
	ASSERT_EQ(doca_verbs_qp_attr_get_allow_remote_read(q), 1);
	ASSERT_EQ(doca_verbs_qp_attr_get_ack_timeout(q), 14);
	/* the AH was copied: the QP's record survives the program's ah_attr */
	ASSERT_NOT_NULL(doca_verbs_qp_attr_get_ah_attr(q));
	ASSERT(doca_verbs_qp_attr_get_ah_attr(q) != r.ah);
	gid = doca_verbs_ah_attr_get_gid(doca_verbs_qp_attr_get_ah_attr(q));
	ASSERT_EQ(gid.raw[12], 127);
	ASSERT_EQ(doca_verbs_ah_attr_get_hop_limit(doca_verbs_qp_attr_get_ah_attr(q)), 255);
	/* the QP's copy is not the program's to destroy */
	ASSERT_ERR(doca_verbs_ah_attr_destroy(doca_verbs_qp_attr_get_ah_attr(q)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_verbs_qp_init_attr_get_pd(ia), r.pd);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_sq_wr(ia), 16);
	ASSERT_EQ(doca_verbs_qp_init_attr_get_send_cqn(ia), doca_verbs_cq_get_cqn(r.cq));
	ASSERT_ERR(doca_verbs_qp_query(r.qp, q, ia, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_qp_query(NULL, q, ia, &mask), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_attr_destroy(q));
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	rig_close(&r);
}

TEST(every_legal_transition)
{
	static const enum doca_verbs_qp_state all[] = {DOCA_VERBS_QP_STATE_RST, DOCA_VERBS_QP_STATE_INIT,
						       DOCA_VERBS_QP_STATE_RTR, DOCA_VERBS_QP_STATE_RTS,
						       DOCA_VERBS_QP_STATE_ERR};
	struct rig r;

	rig_open(&r, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RST, A(NEXT_STATE)));
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, A(NEXT_STATE) | A(ALLOW_REMOTE_WRITE)));
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_INIT);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR));
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS));
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTS, A(NEXT_STATE) | A(MIN_RNR_TIMER)));
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_RTS);
	/* any -> ERR and any -> RST, from every state */
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		for (int target = 0; target < 2; target++) {
			enum doca_verbs_qp_state to = target ? DOCA_VERBS_QP_STATE_RST : DOCA_VERBS_QP_STATE_ERR;

			ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RST, A(NEXT_STATE)));
			if (all[i] >= DOCA_VERBS_QP_STATE_INIT)
				ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
			if (all[i] >= DOCA_VERBS_QP_STATE_RTR && all[i] != DOCA_VERBS_QP_STATE_ERR)
				ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR));
			if (all[i] == DOCA_VERBS_QP_STATE_RTS)
				ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS));
			if (all[i] == DOCA_VERBS_QP_STATE_ERR)
				ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_ERR, A(NEXT_STATE)));
			ASSERT_EQ(state_of(r.qp, NULL), all[i]);
			ASSERT_OK(go(&r, to, A(NEXT_STATE)));
			ASSERT_EQ(state_of(r.qp, NULL), to);
		}
	}
	/* after RST the QP forgot its peer: RTR needs the address again */
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	rig_close(&r);
}

TEST(illegal_transitions_refused)
{
	struct rig r;

	rig_open(&r, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTS, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_RST);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTS, SAMPLE_TO_RTS));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_ERR, A(NEXT_STATE)));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTS, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_ERR);
	rig_close(&r);
}

TEST(mask_rules)
{
	struct rig r;

	rig_open(&r, DOCA_VERBS_QP_TYPE_RC);
	/* NEXT_STATE is mandatory */
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT & ~A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	/* unknown bits */
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT | (1 << 25)), DOCA_ERROR_INVALID_VALUE);
	/* attributes that do not belong to the transition */
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT | A(SQ_PSN)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_ERR, A(NEXT_STATE) | A(PORT_NUM)), DOCA_ERROR_INVALID_VALUE);
	/* CURRENT_STATE must match */
	ASSERT_OK(doca_verbs_qp_attr_set_current_state(r.attr, DOCA_VERBS_QP_STATE_INIT));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT | A(CURRENT_STATE)), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_verbs_qp_attr_set_current_state(r.attr, DOCA_VERBS_QP_STATE_RST));
	/* values: port 1 only, one P_Key */
	ASSERT_OK(doca_verbs_qp_attr_set_port_num(r.attr, 2));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_attr_set_port_num(r.attr, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_pkey_index(r.attr, 1));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_attr_set_pkey_index(r.attr, 0));
	/* atomics wider than 8 bytes */
	ASSERT_OK(doca_verbs_qp_attr_set_atomic_mode(r.attr, DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_64BYTES));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT | A(ATOMIC_MODE)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_qp_attr_set_atomic_mode(r.attr, DOCA_VERBS_QP_ATOMIC_MODE_IB_SPEC));
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT | A(CURRENT_STATE) | A(ATOMIC_MODE)));
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_INIT);
	/* missing mandatory attributes at INIT -> RTR */
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR & ~A(DEST_QP_NUM)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR & ~A(AH_ATTR)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(r.attr, NULL));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(r.attr, r.ah));
	ASSERT_OK(doca_verbs_qp_attr_set_max_dest_rd_atomic(r.attr, 200));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR | A(MAX_DEST_RD_ATOMIC)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR | A(CC_GROUP)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(state_of(r.qp, NULL), DOCA_VERBS_QP_STATE_INIT);
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR));
	ASSERT_ERR(doca_verbs_qp_modify(NULL, r.attr, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_qp_modify(r.qp, NULL, A(NEXT_STATE)), DOCA_ERROR_INVALID_VALUE);
	rig_close(&r);
}

TEST(ah_of_another_context_refused)
{
	struct doca_verbs_context *other = open_verbs_ctx();
	struct doca_verbs_ah_attr *ah;
	struct rig r;

	rig_open(&r, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_OK(doca_verbs_ah_attr_create(other, &ah));
	ASSERT_OK(go(&r, DOCA_VERBS_QP_STATE_INIT, SAMPLE_TO_INIT));
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(r.attr, ah));
	ASSERT_ERR(go(&r, DOCA_VERBS_QP_STATE_RTR, SAMPLE_TO_RTR), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_ah_attr_destroy(ah));
	ASSERT_OK(doca_verbs_context_destroy(other));
	rig_close(&r);
}

TEST(create_rules)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_qp *qp = (struct doca_verbs_qp *)(uintptr_t)0x1;
	struct doca_verbs_device_attr *dattr;
	struct doca_verbs_qp_init_attr *ia;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	cq = make_cq(ctx, NULL, NULL);
	ASSERT_OK(doca_verbs_query_device(ctx, &dattr));
	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_EQ(doca_verbs_qp_init_attr_get_qp_type(ia), DOCA_VERBS_QP_TYPE_RC);
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_INVALID_VALUE); /* no pd */
	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(ia, pd));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_INVALID_VALUE); /* no send cq */
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(ia, cq));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_INVALID_VALUE); /* no receive cq / srq */
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_cq(ia, cq));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(ia, doca_verbs_device_attr_get_max_qp_wr(dattr) + 1));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(ia, doca_verbs_device_attr_get_max_qp_wr(dattr)));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_max_sges(ia, doca_verbs_device_attr_get_max_sge(dattr) + 1));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_max_sges(ia, 1));
	ASSERT_OK(doca_verbs_qp_init_attr_set_max_inline_data(ia, 1u << 20));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_init_attr_set_max_inline_data(ia, 64));
	ASSERT_OK(doca_verbs_qp_init_attr_set_external_datapath_en(ia, 1));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_qp_init_attr_set_external_datapath_en(ia, 0));
	ASSERT_OK(doca_verbs_qp_init_attr_set_cqe_inline(ia, DOCA_VERBS_QP_SCATTER_TO_CQE_32B));
	ASSERT_ERR(doca_verbs_qp_create(ctx, ia, &qp), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_qp_init_attr_set_cqe_inline(ia, DOCA_VERBS_QP_SCATTER_TO_CQE_NONE));
	ASSERT_ERR(doca_verbs_qp_create(NULL, ia, &qp), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_qp_create(ctx, NULL, &qp), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(qp, (void *)0x1); /* untouched on failure */
	/* a UC QP is accepted */
	ASSERT_OK(doca_verbs_qp_init_attr_set_qp_type(ia, DOCA_VERBS_QP_TYPE_UC));
	ASSERT_OK(doca_verbs_qp_create(ctx, ia, &qp));
	ASSERT_NE(doca_verbs_qp_get_qpn(qp), 0);
	/* the QP holds its PD and CQ */
	ASSERT_ERR(doca_verbs_pd_destroy(pd), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_verbs_cq_destroy(cq), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_verbs_context_destroy(ctx), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT_ERR(doca_verbs_qp_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_qp_get_qpn(NULL), 0);
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	ASSERT_OK(doca_verbs_device_attr_free(dattr));
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

TEST(qpn_and_cqn_unique)
{
	enum { N = 300 };
	struct doca_verbs_context *ctx = open_verbs_ctx();
	static struct doca_verbs_qp *qps[N];
	static struct doca_verbs_cq *cqs[N];
	static uint32_t nums[2 * N];
	struct doca_verbs_pd *pd;

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	for (int i = 0; i < N; i++) {
		cqs[i] = make_cq(ctx, NULL, NULL);
		qps[i] = make_qp(ctx, pd, cqs[i], i % 2 ? DOCA_VERBS_QP_TYPE_UC : DOCA_VERBS_QP_TYPE_RC);
		nums[i] = doca_verbs_qp_get_qpn(qps[i]);
		nums[N + i] = doca_verbs_cq_get_cqn(cqs[i]);
		ASSERT_NE(nums[i], 0);
		ASSERT_EQ(nums[i] & ~0xffffffu, 0);
		ASSERT_NE(nums[N + i], 0);
	}
	qsort(nums, N, sizeof(nums[0]), cmp_u32);
	qsort(nums + N, N, sizeof(nums[0]), cmp_u32);
	for (int i = 1; i < N; i++) {
		ASSERT_NE(nums[i], nums[i - 1]);
		ASSERT_NE(nums[N + i], nums[N + i - 1]);
	}
	for (int i = 0; i < N; i++) {
		ASSERT_OK(doca_verbs_qp_destroy(qps[i]));
		ASSERT_OK(doca_verbs_cq_destroy(cqs[i]));
	}
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
