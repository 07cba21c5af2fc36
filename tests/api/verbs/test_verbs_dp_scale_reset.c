/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs datapath: many QPs in one context on one CQ, and a QP reset
 * (RTS -> RST -> INIT -> RTR -> RTS) reconnected to a new peer.
 */
#include "dp_test.h"

#define PAIRS 130
#define MSG 64

TEST(many_qps_one_cq)
{
	struct dp d;
	struct doca_verbs_qp *a[PAIRS], *b[PAIRS];
	struct dp_qp_opts o = {.sq_wr = 4, .rq_wr = 4, .sges = 1};
	uint8_t *src = malloc(PAIRS * MSG), *dst = calloc(PAIRS, MSG);
	struct ibv_mr *smr, *dmr;
	struct ibv_wc wc[2 * PAIRS + 1];
	bool sent[PAIRS] = {false}, recvd[PAIRS] = {false};
	int n;

	ASSERT(src != NULL && dst != NULL);
	dp_open(&d); /* one CQ of 1024 entries */
	for (int i = 0; i < PAIRS; i++) {
		a[i] = dp_qp(&d, &o);
		b[i] = dp_qp(&d, &o);
		dp_connect(&d, a[i], b[i], 7);
	}
	smr = dp_mr(&d, src, PAIRS * MSG, DP_ALL);
	dmr = dp_mr(&d, dst, PAIRS * MSG, DP_ALL);
	for (int i = 0; i < PAIRS; i++) {
		dp_fill(src + i * MSG, MSG, (uint8_t)i);
		dp_recv(b[i], 10000 + i, dst + i * MSG, MSG, dmr->lkey);
	}
	for (int i = 0; i < PAIRS; i++)
		ASSERT_EQ(dp_send(a[i], IBV_WR_SEND, i, src + i * MSG, MSG, smr->lkey, 0, 0), 0);
	n = dp_poll_n(d.cq, wc, 2 * PAIRS, 20000);
	ASSERT_EQ(n, 2 * PAIRS);
	for (int j = 0; j < n; j++) {
		ASSERT_EQ(wc[j].status, IBV_WC_SUCCESS);
		if (wc[j].opcode == IBV_WC_SEND) {
			int i = (int)wc[j].wr_id;

			ASSERT(i >= 0 && i < PAIRS && !sent[i]);
			sent[i] = true;
			ASSERT_EQ(wc[j].qp_num, doca_verbs_qp_get_qpn(a[i]));
		} else {
			int i = (int)wc[j].wr_id - 10000;

			ASSERT_EQ(wc[j].opcode, IBV_WC_RECV);
			ASSERT(i >= 0 && i < PAIRS && !recvd[i]);
			recvd[i] = true;
			ASSERT_EQ(wc[j].byte_len, MSG);
			ASSERT_EQ(wc[j].qp_num, doca_verbs_qp_get_qpn(b[i]));
			ASSERT_EQ(wc[j].src_qp, doca_verbs_qp_get_qpn(a[i]));
		}
	}
	ASSERT_MEM_EQ(dst, src, PAIRS * MSG);
	dp_poll_none(d.cq, 50);
	for (int i = 0; i < PAIRS; i++) {
		ASSERT_OK(doca_verbs_qp_destroy(a[i]));
		ASSERT_OK(doca_verbs_qp_destroy(b[i]));
	}
	ASSERT_EQ(ibv_dereg_mr(smr), 0);
	ASSERT_EQ(ibv_dereg_mr(dmr), 0);
	dp_close(&d);
	free(src);
	free(dst);
}

TEST(reset_and_reconnect_to_a_new_peer)
{
	struct dp d;
	struct doca_verbs_qp *a, *b, *c;
	uint8_t *buf = calloc(1, 4096);
	struct ibv_mr *mr;
	struct ibv_wc wc[2];

	ASSERT_NOT_NULL(buf);
	dp_open(&d);
	a = dp_qp(&d, NULL);
	b = dp_qp(&d, NULL);
	c = dp_qp(&d, NULL);
	dp_connect(&d, a, b, 7);
	mr = dp_mr(&d, buf, 4096, DP_ALL);
	dp_fill(buf, 64, 1);
	ASSERT_EQ(dp_send(a, IBV_WR_RDMA_WRITE, 1, buf, 64, mr->lkey, (uintptr_t)buf + 1024, mr->rkey), 0);
	dp_poll1(d.cq, wc);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_MEM_EQ(buf + 1024, buf, 64);

	/* a receive posted on a, then a reset: dropped without a completion */
	dp_recv(a, 77, buf + 3000, 64, mr->lkey);
	dp_set_state(a, DOCA_VERBS_QP_STATE_RST);
	ASSERT_EQ(dp_state(a), DOCA_VERBS_QP_STATE_RST);
	dp_poll_none(d.cq, 50);

	/* a comes back towards c */
	dp_to_init(a);
	dp_to_init(c);
	dp_to_rts(d.ctx, a, &d.gid, doca_verbs_qp_get_qpn(c), 7);
	dp_to_rts(d.ctx, c, &d.gid, doca_verbs_qp_get_qpn(a), 7);
	ASSERT_EQ(dp_state(a), DOCA_VERBS_QP_STATE_RTS);
	dp_fill(buf, 64, 99);
	dp_recv(c, 20, buf + 2048, 64, mr->lkey);
	ASSERT_EQ(dp_send(a, IBV_WR_SEND, 2, buf, 64, mr->lkey, 0, 0), 0);
	dp_poll2_sorted(d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 2);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 20);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].qp_num, doca_verbs_qp_get_qpn(c));
	ASSERT_EQ(wc[1].src_qp, doca_verbs_qp_get_qpn(a));
	ASSERT_MEM_EQ(buf + 2048, buf, 64);
	/* and c -> a the other way */
	dp_recv(a, 21, buf + 2500, 64, mr->lkey);
	ASSERT_EQ(dp_send(c, IBV_WR_SEND, 3, buf, 32, mr->lkey, 0, 0), 0);
	dp_poll2_sorted(d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 3);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 21);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].byte_len, 32);
	ASSERT_EQ(wc[1].qp_num, doca_verbs_qp_get_qpn(a));
	ASSERT_EQ(wc[1].src_qp, doca_verbs_qp_get_qpn(c));
	ASSERT_MEM_EQ(buf + 2500, buf, 32);

	/* also from ERR: ERR -> RST -> ... -> RTS back to b (b reset as well) */
	dp_set_state(a, DOCA_VERBS_QP_STATE_ERR);
	dp_set_state(a, DOCA_VERBS_QP_STATE_RST);
	dp_set_state(b, DOCA_VERBS_QP_STATE_RST);
	dp_connect(&d, a, b, 7);
	ASSERT_EQ(dp_send(a, IBV_WR_RDMA_WRITE, 4, buf, 64, mr->lkey, (uintptr_t)buf + 3500, mr->rkey), 0);
	dp_poll1(d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 4);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_MEM_EQ(buf + 3500, buf, 64);
	dp_poll_none(d.cq, 50);

	ASSERT_OK(doca_verbs_qp_destroy(a));
	ASSERT_OK(doca_verbs_qp_destroy(b));
	ASSERT_OK(doca_verbs_qp_destroy(c));
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	dp_close(&d);
	free(buf);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
