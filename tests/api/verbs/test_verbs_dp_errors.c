/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs datapath errors: remote access refused (key, range, permission), local
 * protection, short receives, receiver-not-ready, post-time refusals, and the
 * QP's fall into ERR with its flushes and async events.
 */
#include "dp_test.h"

struct pair {
	struct dp d;
	struct doca_verbs_qp *a, *b;
	uint8_t *abuf, *bbuf; /* 4 KiB each */
	struct ibv_mr *amr;
};

static void
pair_open(struct pair *p, const struct dp_qp_opts *o, uint16_t rnr_retry)
{
	dp_open(&p->d);
	p->a = dp_qp(&p->d, o);
	p->b = dp_qp(&p->d, o);
	dp_connect(&p->d, p->a, p->b, rnr_retry);
	p->abuf = calloc(1, 4096);
	p->bbuf = calloc(1, 4096);
	ASSERT(p->abuf != NULL && p->bbuf != NULL);
	p->amr = dp_mr(&p->d, p->abuf, 4096, DP_ALL);
}

static void
pair_close(struct pair *p)
{
	ASSERT_OK(doca_verbs_qp_destroy(p->a));
	ASSERT_OK(doca_verbs_qp_destroy(p->b));
	ASSERT_EQ(ibv_dereg_mr(p->amr), 0);
	free(p->abuf);
	free(p->bbuf);
	dp_close(&p->d);
}

/* The requester's QP a just failed: in ERR, and its next request flushes. */
static void
check_requester_flushes(struct pair *p)
{
	struct ibv_wc wc;

	ASSERT_EQ(dp_state(p->a), DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(dp_send(p->a, IBV_WR_RDMA_WRITE, 999, p->abuf, 8, p->amr->lkey, 0, 0), 0);
	dp_poll1(p->d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 999);
	ASSERT_EQ(wc.status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(wc.qp_num, doca_verbs_qp_get_qpn(p->a));
}

/*
 * One refused remote access of opcode opc on b's memory, registered with
 * access over [0, mrlen) on b's PD, or (other_pd) on another PD of b's side.
 */
static void
access_case_pd(enum ibv_wr_opcode opc, int access, uint32_t mrlen, uint32_t off, uint32_t len, uint32_t rkey_xor,
	       bool other_pd)
{
	struct pair p;
	struct ibv_wc wc;
	struct ibv_mr *bmr;
	uint8_t before[4096];
	struct ibv_sge s;
	struct ibv_send_wr wr = {.wr_id = 0x77, .sg_list = &s, .num_sge = 1, .opcode = opc};
	struct doca_verbs_async_event ev;
	struct doca_verbs_pd *pd2 = NULL;
	uint64_t end;
	bool got = false;

	pair_open(&p, NULL, 7);
	dp_fill(p.bbuf, 4096, 200);
	dp_fill(p.abuf, 4096, 1);
	memcpy(before, p.bbuf, sizeof(before));
	if (other_pd) {
		ASSERT_OK(doca_verbs_pd_create(p.d.ctx, &pd2));
		bmr = ibv_reg_mr(doca_verbs_bridge_verbs_pd_get_ibv_pd(pd2), p.bbuf, mrlen, access);
		ASSERT_NOT_NULL(bmr);
	} else {
		bmr = dp_mr(&p.d, p.bbuf, mrlen, access);
	}
	s = (struct ibv_sge){(uintptr_t)p.abuf + 2048, len, p.amr->lkey};
	wr.send_flags = IBV_SEND_SIGNALED;
	if (opc == IBV_WR_ATOMIC_CMP_AND_SWP || opc == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)p.bbuf + off;
		wr.wr.atomic.rkey = bmr->rkey ^ rkey_xor;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.swap = 2;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)p.bbuf + off;
		wr.wr.rdma.rkey = bmr->rkey ^ rkey_xor;
	}
	ASSERT_EQ(dp_post_send(p.a, &wr), 0);
	dp_poll1(p.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 0x77);
	ASSERT_EQ(wc.status, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(wc.qp_num, doca_verbs_qp_get_qpn(p.a));
	ASSERT_MEM_EQ(p.bbuf, before, sizeof(before));
	check_requester_flushes(&p);
	/* the target: QP_ACCESS_ERR on b, and b in ERR */
	end = dp_now_ms() + 2000;
	while (!got && dp_now_ms() < end) {
		got = dp_async_event(p.d.ctx, &ev, 10);
		if (got && (ev.event_type != DOCA_VERBS_EVENT_QP_ACCESS_ERR || ev.element.qp != p.b)) {
			/* only the target's access error is expected here */
			ASSERT_EQ(ev.event_type, DOCA_VERBS_EVENT_QP_ACCESS_ERR);
			ASSERT_PTR_EQ(ev.element.qp, p.b);
		}
		if (!got)
			dp_poll_none(p.d.cq, 0); /* keeps the soft NIC moving */
	}
	ASSERT(got);
	doca_verbs_ack_async_event(&ev);
	ASSERT_EQ(dp_state(p.b), DOCA_VERBS_QP_STATE_ERR);
	ASSERT_MEM_EQ(p.bbuf, before, sizeof(before));
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	if (pd2 != NULL)
		ASSERT_OK(doca_verbs_pd_destroy(pd2));
	pair_close(&p);
}

static void
access_case(enum ibv_wr_opcode opc, int access, uint32_t mrlen, uint32_t off, uint32_t len, uint32_t rkey_xor)
{
	access_case_pd(opc, access, mrlen, off, len, rkey_xor, false);
}

TEST(write_wrong_rkey)
{
	access_case(IBV_WR_RDMA_WRITE, DP_ALL, 4096, 0, 64, 0x100);
}

/* An MR serves only QPs of its PD: the rkey of another PD's MR is refused, as by hardware. */
TEST(write_to_an_mr_of_another_pd)
{
	access_case_pd(IBV_WR_RDMA_WRITE, DP_ALL, 4096, 0, 64, 0, true);
}

TEST(read_and_atomic_on_an_mr_of_another_pd)
{
	access_case_pd(IBV_WR_RDMA_READ, DP_ALL, 4096, 0, 64, 0, true);
	access_case_pd(IBV_WR_ATOMIC_FETCH_AND_ADD, DP_ALL, 4096, 0, 8, 0, true);
}

TEST(write_outside_range)
{
	access_case(IBV_WR_RDMA_WRITE, DP_ALL, 1024, 1000, 100, 0);
}

TEST(write_without_remote_write)
{
	access_case(IBV_WR_RDMA_WRITE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 4096, 0, 64, 0);
}

TEST(read_without_remote_read)
{
	access_case(IBV_WR_RDMA_READ, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 4096, 0, 64, 0);
}

TEST(read_wrong_rkey)
{
	access_case(IBV_WR_RDMA_READ, DP_ALL, 4096, 0, 64, 0x100);
}

TEST(atomic_without_remote_atomic)
{
	access_case(IBV_WR_ATOMIC_FETCH_AND_ADD, DP_RW, 4096, 8, 8, 0);
	access_case(IBV_WR_ATOMIC_CMP_AND_SWP, DP_RW, 4096, 8, 8, 0);
}

/* A request behind a failed one is flushed even if the soft NIC already executed it. */
TEST(success_behind_an_error_is_flushed)
{
	struct pair p;
	struct ibv_wc wc[2];
	struct ibv_mr *bmr;
	struct ibv_sge s;
	struct ibv_send_wr w[2];

	pair_open(&p, NULL, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	s = (struct ibv_sge){(uintptr_t)p.abuf, 64, p.amr->lkey};
	for (int i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].wr_id = 1 + i;
		w[i].sg_list = &s;
		w[i].num_sge = 1;
		w[i].opcode = IBV_WR_RDMA_WRITE;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].wr.rdma.remote_addr = (uintptr_t)p.bbuf;
		w[i].wr.rdma.rkey = bmr->rkey ^ (i == 0 ? 0x100u : 0u);
	}
	w[0].next = &w[1];
	ASSERT_EQ(dp_post_send(p.a, &w[0]), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 2, 5000), 2);
	ASSERT_EQ(wc[0].wr_id, 1);
	ASSERT_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	ASSERT_EQ(wc[1].wr_id, 2);
	ASSERT_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

TEST(bad_lkey)
{
	struct pair p;
	struct ibv_wc wc;
	struct ibv_mr *bmr;

	pair_open(&p, NULL, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	ASSERT_EQ(dp_send(p.a, IBV_WR_RDMA_WRITE, 5, p.abuf, 64, p.amr->lkey ^ 0x100, (uintptr_t)p.bbuf, bmr->rkey), 0);
	dp_poll1(p.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 5);
	ASSERT_EQ(wc.status, IBV_WC_LOC_PROT_ERR);
	check_requester_flushes(&p);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);

	/* a real key that does not cover the buffer */
	pair_open(&p, NULL, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	ASSERT_EQ(dp_send(p.a, IBV_WR_SEND, 6, p.abuf + 4000, 200, p.amr->lkey, 0, 0), 0);
	dp_poll1(p.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 6);
	ASSERT_EQ(wc.status, IBV_WC_LOC_PROT_ERR);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

TEST(receive_too_short)
{
	struct pair p;
	struct ibv_wc wc[2];
	struct ibv_mr *bmr;
	uint8_t zero[64] = {0};

	pair_open(&p, NULL, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	dp_fill(p.abuf, 100, 4);
	dp_recv(p.b, 2, p.bbuf, 16, bmr->lkey);
	ASSERT_EQ(dp_send(p.a, IBV_WR_SEND, 1, p.abuf, 100, p.amr->lkey, 0, 0), 0);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 1);
	ASSERT_EQ(wc[0].status, IBV_WC_REM_INV_REQ_ERR);
	ASSERT_EQ(wc[1].wr_id, 2);
	ASSERT_EQ(wc[1].status, IBV_WC_LOC_LEN_ERR);
	ASSERT_EQ(wc[1].qp_num, doca_verbs_qp_get_qpn(p.b));
	ASSERT_MEM_EQ(p.bbuf + 16, zero, 64); /* nothing past the receive */
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(dp_state(p.b), DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

TEST(rnr_retry_zero_fails)
{
	struct pair p;
	struct ibv_wc wc;
	uint64_t t0;

	pair_open(&p, NULL, 0);
	t0 = dp_now_ms();
	ASSERT_EQ(dp_send(p.a, IBV_WR_SEND, 1, p.abuf, 10, p.amr->lkey, 0, 0), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, &wc, 1, 5000), 1);
	ASSERT(dp_now_ms() - t0 < 5000);
	ASSERT_EQ(wc.wr_id, 1);
	ASSERT_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	pair_close(&p);
}

TEST(rnr_retry_forever_waits_for_the_receive)
{
	struct pair p;
	struct ibv_wc wc[2];
	struct ibv_mr *bmr;

	pair_open(&p, NULL, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	dp_fill(p.abuf, 10, 8);
	ASSERT_EQ(dp_send(p.a, IBV_WR_SEND, 1, p.abuf, 10, p.amr->lkey, 0, 0), 0);
	dp_poll_none(p.d.cq, 300);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_RTS);
	dp_recv(p.b, 2, p.bbuf, 64, bmr->lkey);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 1);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 2);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].byte_len, 10);
	ASSERT_MEM_EQ(p.bbuf, p.abuf, 10);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

TEST(post_in_wrong_state)
{
	struct dp d;
	struct doca_verbs_qp *a, *b;
	uint8_t buf[64];
	struct ibv_mr *mr;
	struct ibv_sge s;
	struct ibv_send_wr wr = {.wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND};
	struct ibv_recv_wr rwr = {.wr_id = 2, .sg_list = &s, .num_sge = 1};
	struct ibv_send_wr *bad = NULL;
	struct ibv_recv_wr *rbad = NULL;

	dp_open(&d);
	mr = dp_mr(&d, buf, sizeof(buf), DP_ALL);
	s = (struct ibv_sge){(uintptr_t)buf, 8, mr->lkey};
	a = dp_qp(&d, NULL);
	b = dp_qp(&d, NULL);
	ASSERT_EQ(doca_verbs_bridge_post_send(a, &wr, &bad), EINVAL); /* RST */
	ASSERT_PTR_EQ(bad, &wr);
	ASSERT_EQ(doca_verbs_bridge_post_recv(a, &rwr, &rbad), EINVAL); /* RST */
	ASSERT_PTR_EQ(rbad, &rwr);
	dp_to_init(a);
	dp_to_init(b);
	bad = NULL;
	ASSERT_EQ(doca_verbs_bridge_post_send(a, &wr, &bad), EINVAL); /* INIT */
	ASSERT_PTR_EQ(bad, &wr);
	dp_to_rts(d.ctx, a, &d.gid, doca_verbs_qp_get_qpn(b), 7);
	dp_to_rts(d.ctx, b, &d.gid, doca_verbs_qp_get_qpn(a), 7);
	dp_poll_none(d.cq, 50); /* nothing was queued by the refusals */
	ASSERT_OK(doca_verbs_qp_destroy(a));
	ASSERT_OK(doca_verbs_qp_destroy(b));
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	dp_close(&d);
}

TEST(send_queue_full)
{
	struct dp_qp_opts o = {.sq_wr = 4};
	struct pair p;
	struct ibv_mr *bmr;
	struct ibv_send_wr w[6], *bad = NULL;
	struct ibv_sge s;
	struct ibv_wc wc[6];

	pair_open(&p, &o, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	s = (struct ibv_sge){(uintptr_t)p.abuf, 16, p.amr->lkey};
	for (int i = 0; i < 6; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].wr_id = 10 + i;
		w[i].sg_list = &s;
		w[i].num_sge = 1;
		w[i].opcode = IBV_WR_RDMA_WRITE;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].wr.rdma.remote_addr = (uintptr_t)p.bbuf + 16 * i;
		w[i].wr.rdma.rkey = bmr->rkey;
		w[i].next = i < 5 ? &w[i + 1] : NULL;
	}
	ASSERT_EQ(doca_verbs_bridge_post_send(p.a, &w[0], &bad), ENOMEM);
	ASSERT_PTR_EQ(bad, &w[4]);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 6, 1000), 4);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(wc[i].wr_id, 10 + i);
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
	}
	/* room again: the rest goes */
	bad = NULL;
	ASSERT_EQ(doca_verbs_bridge_post_send(p.a, &w[4], &bad), 0);
	ASSERT_PTR_EQ(bad, NULL);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 2, 2000), 2);
	ASSERT_EQ(wc[0].wr_id, 14);
	ASSERT_EQ(wc[1].wr_id, 15);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

TEST(receive_queue_full_and_srq_qp_refuses_post_recv)
{
	struct dp_qp_opts o = {.rq_wr = 2};
	struct pair p;
	struct ibv_mr *bmr;
	struct ibv_sge s;
	struct ibv_recv_wr r[3], *bad = NULL;

	pair_open(&p, &o, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	s = (struct ibv_sge){(uintptr_t)p.bbuf, 16, bmr->lkey};
	for (int i = 0; i < 3; i++)
		r[i] = (struct ibv_recv_wr){.wr_id = i, .sg_list = &s, .num_sge = 1, .next = i < 2 ? &r[i + 1] : NULL};
	ASSERT_EQ(doca_verbs_bridge_post_recv(p.b, &r[0], &bad), ENOMEM);
	ASSERT_PTR_EQ(bad, &r[2]);

	/* a QP on an SRQ takes no receives of its own */
	struct doca_verbs_srq_init_attr *sa;
	struct doca_verbs_srq *srq;
	struct doca_verbs_qp *sq;

	ASSERT_OK(doca_verbs_srq_init_attr_create(&sa));
	ASSERT_OK(doca_verbs_srq_init_attr_set_pd(sa, p.d.pd));
	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(sa, 8));
	ASSERT_OK(doca_verbs_srq_init_attr_set_receive_max_sges(sa, 1));
	ASSERT_OK(doca_verbs_srq_create(p.d.ctx, sa, &srq));
	ASSERT_OK(doca_verbs_srq_init_attr_destroy(sa));
	o.srq = srq;
	sq = dp_qp(&p.d, &o);
	dp_to_init(sq);
	bad = NULL;
	r[0].next = NULL;
	ASSERT_EQ(doca_verbs_bridge_post_recv(sq, &r[0], &bad), EINVAL);
	ASSERT_PTR_EQ(bad, &r[0]);
	ASSERT_OK(doca_verbs_qp_destroy(sq));
	ASSERT_OK(doca_verbs_srq_destroy(srq));
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

TEST(modify_to_err_flushes_receives)
{
	struct pair p;
	struct ibv_mr *bmr;
	struct ibv_wc wc[4];

	pair_open(&p, NULL, 7);
	bmr = dp_mr(&p.d, p.bbuf, 4096, DP_ALL);
	for (int i = 0; i < 3; i++)
		dp_recv(p.b, 40 + i, p.bbuf + 64 * i, 64, bmr->lkey);
	dp_poll_none(p.d.cq, 50);
	dp_set_state(p.b, DOCA_VERBS_QP_STATE_ERR);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 4, 1000), 3);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(wc[i].wr_id, 40 + i);
		ASSERT_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
		ASSERT_EQ(wc[i].qp_num, doca_verbs_qp_get_qpn(p.b));
	}
	/* a receive posted in ERR flushes too */
	dp_recv(p.b, 50, p.bbuf, 64, bmr->lkey);
	dp_poll1(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 50);
	ASSERT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(ibv_dereg_mr(bmr), 0);
	pair_close(&p);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
