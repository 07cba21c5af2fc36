/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs datapath: the wait-CQ work request (doca_verbs_bridge_set_wait_cq_pi_wr)
 * holding the rest of its send queue until another CQ produced a completion,
 * DOCA's wait_cq_wr pattern with send-only and receive-only QPs, and shared
 * receive queues serving several QPs.
 */
#include "dp_test.h"

/* Index of the first completion with opcode op in wc[0, n), or -1. */
static int
find_opcode(const struct ibv_wc *wc, int n, enum ibv_wc_opcode op)
{
	for (int i = 0; i < n; i++)
		if (wc[i].opcode == op)
			return i;
	return -1;
}

TEST(wait_cq_holds_the_send_until_the_cq_produces)
{
	struct dp d;
	struct doca_verbs_cq *x;
	struct doca_verbs_qp *a, *b, *c, *e;
	struct dp_qp_opts ox;
	uint8_t *buf = calloc(1, 8192);
	uint8_t zero[256] = {0};
	struct ibv_mr *mr;
	struct ibv_send_wr wait = {0};
	struct ibv_wc wc[4];
	int iw, is, ir;

	ASSERT_NOT_NULL(buf);
	dp_open(&d);
	x = dp_cq(d.ctx, 64);
	a = dp_qp(&d, NULL);
	b = dp_qp(&d, NULL);
	dp_connect(&d, a, b, 7);
	ox = (struct dp_qp_opts){.send_cq = x, .recv_cq = x};
	c = dp_qp(&d, &ox);
	e = dp_qp(&d, &ox);
	dp_connect(&d, c, e, 7);
	mr = dp_mr(&d, buf, 8192, DP_ALL);
	dp_fill(buf, 256, 17);

	/* WAIT for X's next completion, then a SEND a -> b */
	dp_recv(b, 500, buf + 4096, 256, mr->lkey);
	ASSERT_EQ(doca_verbs_bridge_set_wait_cq_pi_wr(x, doca_verbs_bridge_get_current_cq_ci(x) + 1, &wait), 0);
	wait.wr_id = 1;
	wait.send_flags = IBV_SEND_SIGNALED;
	ASSERT_EQ(dp_post_send(a, &wait), 0);
	ASSERT_EQ(dp_send(a, IBV_WR_SEND, 2, buf, 256, mr->lkey, 0, 0), 0);
	/* X produces nothing: neither completes, nothing lands */
	dp_poll_none(d.cq, 300);
	dp_poll_none(x, 10);
	ASSERT_MEM_EQ(buf + 4096, zero, 256);
	ASSERT_EQ(dp_state(a), DOCA_VERBS_QP_STATE_RTS);

	/* a write c -> e completes on X and releases a */
	ASSERT_EQ(dp_send(c, IBV_WR_RDMA_WRITE, 3, buf, 8, mr->lkey, (uintptr_t)buf + 6000, mr->rkey), 0);
	dp_poll1(x, wc);
	ASSERT_EQ(wc[0].wr_id, 3);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(dp_poll_n(d.cq, wc, 3, 5000), 3);
	iw = find_opcode(wc, 3, IBV_WC_DRIVER1);
	is = find_opcode(wc, 3, IBV_WC_SEND);
	ir = find_opcode(wc, 3, IBV_WC_RECV);
	ASSERT(iw >= 0 && is >= 0 && ir >= 0);
	ASSERT(iw < is);
	ASSERT_EQ(wc[iw].wr_id, 1);
	ASSERT_EQ(wc[iw].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[iw].qp_num, doca_verbs_qp_get_qpn(a));
	ASSERT_EQ(wc[is].wr_id, 2);
	ASSERT_EQ(wc[is].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[ir].wr_id, 500);
	ASSERT_EQ(wc[ir].byte_len, 256);
	ASSERT_MEM_EQ(buf + 4096, buf, 256);

	/* a WAIT whose index was already reached holds nothing */
	ASSERT_EQ(doca_verbs_bridge_set_wait_cq_pi_wr(x, doca_verbs_bridge_get_current_cq_ci(x), &wait), 0);
	wait.wr_id = 4;
	wait.send_flags = IBV_SEND_SIGNALED;
	ASSERT_EQ(dp_post_send(a, &wait), 0);
	ASSERT_EQ(dp_send(a, IBV_WR_RDMA_WRITE, 5, buf, 8, mr->lkey, (uintptr_t)buf + 7000, mr->rkey), 0);
	ASSERT_EQ(dp_poll_n(d.cq, wc, 2, 5000), 2);
	ASSERT_EQ(wc[0].wr_id, 4);
	ASSERT_EQ(wc[0].opcode, IBV_WC_DRIVER1);
	ASSERT_EQ(wc[1].wr_id, 5);
	ASSERT_EQ(wc[1].opcode, IBV_WC_RDMA_WRITE);

	/* a QP held by a WAIT and moved to ERR flushes what the WAIT held */
	ASSERT_EQ(doca_verbs_bridge_set_wait_cq_pi_wr(x, doca_verbs_bridge_get_current_cq_ci(x) + 5, &wait), 0);
	wait.wr_id = 6;
	ASSERT_EQ(dp_post_send(a, &wait), 0);
	ASSERT_EQ(dp_send(a, IBV_WR_RDMA_WRITE, 7, buf, 8, mr->lkey, (uintptr_t)buf + 7000, mr->rkey), 0);
	dp_poll_none(d.cq, 50);
	dp_set_state(a, DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(dp_poll_n(d.cq, wc, 2, 2000), 2);
	ASSERT_EQ(wc[0].wr_id, 6);
	ASSERT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(wc[1].wr_id, 7);
	ASSERT_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);

	/* a WAIT request not made by set_wait_cq_pi_wr is refused */
	struct ibv_send_wr fake = {.wr_id = 8, .opcode = IBV_WR_DRIVER1}, *bad = NULL;

	dp_set_state(c, DOCA_VERBS_QP_STATE_ERR); /* c stays usable for posts (ERR) */
	ASSERT_EQ(doca_verbs_bridge_post_send(c, &fake, &bad), EINVAL);
	ASSERT_PTR_EQ(bad, &fake);

	ASSERT_OK(doca_verbs_qp_destroy(a));
	ASSERT_OK(doca_verbs_qp_destroy(b));
	ASSERT_OK(doca_verbs_qp_destroy(c));
	ASSERT_OK(doca_verbs_qp_destroy(e));
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	ASSERT_OK(doca_verbs_cq_destroy(x));
	dp_close(&d);
	free(buf);
}

/* DOCA's verbs_wait_cq_wr: two connections of a send-only and a receive-only QP, each on its own CQ. */
TEST(wait_cq_wr_sample_pattern)
{
	struct dp d;
	struct doca_verbs_cq *cq[2];
	struct doca_verbs_qp *snd[2], *rcv[2];
	uint8_t *buf = calloc(3, 1024);
	struct ibv_mr *mr;
	struct ibv_send_wr wait = {0};
	struct ibv_wc wc[4];
	int iw, is, ir;

	ASSERT_NOT_NULL(buf);
	dp_open(&d);
	for (int i = 0; i < 2; i++) {
		struct dp_qp_opts so = {.send_cq = NULL, .no_rq = true, .sig_all = 1, .sges = 1};
		struct dp_qp_opts ro = {.no_sq = true, .sges = 1};

		cq[i] = dp_cq(d.ctx, 64);
		so.send_cq = cq[i];
		ro.send_cq = cq[i];
		ro.recv_cq = cq[i];
		snd[i] = dp_qp(&d, &so);
		rcv[i] = dp_qp(&d, &ro);
		dp_connect(&d, snd[i], rcv[i], 7);
	}
	mr = dp_mr(&d, buf, 3 * 1024, DP_ALL);
	dp_fill(buf, 1024, 1);
	dp_fill(buf + 1024, 1024, 2);
	dp_recv(rcv[0], 10, buf + 1024, 1024, mr->lkey); /* buffer 1 -> buffer 2 */
	dp_recv(rcv[1], 20, buf + 2048, 1024, mr->lkey); /* buffer 2 -> buffer 3, after the wait */
	ASSERT_EQ(doca_verbs_bridge_set_wait_cq_pi_wr(cq[0], doca_verbs_bridge_get_current_cq_ci(cq[0]) + 1, &wait), 0);
	wait.wr_id = 30;
	ASSERT_EQ(dp_post_send(snd[1], &wait), 0);
	ASSERT_EQ(dp_send(snd[1], IBV_WR_SEND, 31, buf + 1024, 1024, mr->lkey, 0, 0), 0);
	dp_poll_none(cq[1], 100); /* held */
	ASSERT_EQ(dp_send(snd[0], IBV_WR_SEND, 32, buf, 1024, mr->lkey, 0, 0), 0);

	ASSERT_EQ(dp_poll_n(cq[0], wc, 2, 5000), 2);
	ASSERT(find_opcode(wc, 2, IBV_WC_RECV) >= 0 && find_opcode(wc, 2, IBV_WC_SEND) >= 0);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
	ASSERT_EQ(dp_poll_n(cq[1], wc, 3, 5000), 3);
	iw = find_opcode(wc, 3, IBV_WC_DRIVER1);
	is = find_opcode(wc, 3, IBV_WC_SEND);
	ir = find_opcode(wc, 3, IBV_WC_RECV);
	ASSERT(iw >= 0 && is >= 0 && ir >= 0 && iw < is);
	ASSERT_EQ(wc[iw].wr_id, 30);
	ASSERT_EQ(wc[is].wr_id, 31);
	ASSERT_EQ(wc[ir].wr_id, 20);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
	ASSERT_MEM_EQ(buf + 2048, buf, 1024); /* buffer 3 == buffer 1: the second send waited */
	dp_poll_none(cq[0], 20);
	dp_poll_none(cq[1], 20);
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(doca_verbs_qp_destroy(snd[i]));
		ASSERT_OK(doca_verbs_qp_destroy(rcv[i]));
		ASSERT_OK(doca_verbs_cq_destroy(cq[i]));
	}
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	dp_close(&d);
	free(buf);
}

static struct doca_verbs_srq *
make_srq(struct dp *d, uint32_t wr)
{
	struct doca_verbs_srq_init_attr *sa;
	struct doca_verbs_srq *srq;

	ASSERT_OK(doca_verbs_srq_init_attr_create(&sa));
	ASSERT_OK(doca_verbs_srq_init_attr_set_pd(sa, d->pd));
	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(sa, wr));
	ASSERT_OK(doca_verbs_srq_init_attr_set_receive_max_sges(sa, 2));
	ASSERT_OK(doca_verbs_srq_create(d->ctx, sa, &srq));
	ASSERT_OK(doca_verbs_srq_init_attr_destroy(sa));
	return srq;
}

static void
srq_recv(struct doca_verbs_srq *srq, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey)
{
	struct ibv_sge s = {(uintptr_t)buf, len, lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &s, .num_sge = 1}, *bad = NULL;

	ASSERT_EQ(doca_verbs_bridge_post_srq_recv(srq, &wr, &bad), 0);
	ASSERT_PTR_EQ(bad, NULL);
}

TEST(srq_two_qps_two_peers)
{
	struct dp d;
	struct doca_verbs_srq *srq;
	struct doca_verbs_qp *r[2], *s[2];
	struct dp_qp_opts ro;
	uint8_t *buf = calloc(1, 8192);
	struct ibv_mr *mr;
	struct ibv_wc wc[8];
	int nrecv = 0;
	bool seen[4] = {false};

	ASSERT_NOT_NULL(buf);
	dp_open(&d);
	srq = make_srq(&d, 4);
	ro = (struct dp_qp_opts){.srq = srq};
	for (int i = 0; i < 2; i++) {
		r[i] = dp_qp(&d, &ro);
		s[i] = dp_qp(&d, NULL);
		dp_connect(&d, s[i], r[i], 7);
	}
	mr = dp_mr(&d, buf, 8192, DP_ALL);
	for (int i = 0; i < 4; i++)
		srq_recv(srq, 100 + i, buf + 4096 + 512 * i, 512, mr->lkey);
	/* full: a fifth is refused */
	{
		struct ibv_sge sg = {(uintptr_t)buf, 8, mr->lkey};
		struct ibv_recv_wr w2 = {.wr_id = 105, .sg_list = &sg, .num_sge = 1};
		struct ibv_recv_wr w1 = {.wr_id = 104, .sg_list = &sg, .num_sge = 1, .next = &w2}, *bad = NULL;

		ASSERT_EQ(doca_verbs_bridge_post_srq_recv(srq, &w1, &bad), ENOMEM);
		ASSERT_PTR_EQ(bad, &w1);
	}
	/* each sender sends twice, with distinct bytes and lengths */
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 2; i++) {
			uint8_t *src = buf + 1024 * i + 256 * k;

			dp_fill(src, 100 + 10 * i + k, (uint8_t)(16 * i + k + 1));
			ASSERT_EQ(dp_send(s[i], IBV_WR_SEND, 10 * i + k, src, 100 + 10 * i + k, mr->lkey, 0, 0), 0);
		}
	ASSERT_EQ(dp_poll_n(d.cq, wc, 8, 5000), 8);
	for (int j = 0; j < 8; j++) {
		ASSERT_EQ(wc[j].status, IBV_WC_SUCCESS);
		if (wc[j].opcode != IBV_WC_RECV)
			continue;
		nrecv++;
		ASSERT(wc[j].wr_id >= 100 && wc[j].wr_id < 104);
		ASSERT(!seen[wc[j].wr_id - 100]);
		seen[wc[j].wr_id - 100] = true;
		/* which peer: by the QP numbers, checked against the bytes */
		int i = wc[j].qp_num == doca_verbs_qp_get_qpn(r[0]) ? 0 : 1;
		uint8_t *dst = buf + 4096 + 512 * (wc[j].wr_id - 100);
		int k = (int)wc[j].byte_len - 100 - 10 * i;

		ASSERT_EQ(wc[j].qp_num, doca_verbs_qp_get_qpn(r[i]));
		ASSERT_EQ(wc[j].src_qp, doca_verbs_qp_get_qpn(s[i]));
		ASSERT(k == 0 || k == 1);
		ASSERT_MEM_EQ(dst, buf + 1024 * i + 256 * k, wc[j].byte_len);
	}
	ASSERT_EQ(nrecv, 4);
	/* the pool is free again */
	for (int i = 0; i < 4; i++)
		srq_recv(srq, 200 + i, buf + 4096 + 512 * i, 512, mr->lkey);

	ASSERT_ERR(doca_verbs_srq_destroy(srq), DOCA_ERROR_IN_USE);
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(doca_verbs_qp_destroy(r[i]));
		ASSERT_OK(doca_verbs_qp_destroy(s[i]));
	}
	ASSERT_OK(doca_verbs_srq_destroy(srq));
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	dp_close(&d);
	free(buf);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
