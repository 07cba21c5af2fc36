/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs datapath: every opcode between two QPs of one process, with the bytes,
 * statuses, opcodes, wr_ids, lengths, immediates and QP numbers checked.
 */
#include "dp_test.h"

TEST(send_and_send_with_imm)
{
	struct dp_pair p;
	struct ibv_wc wc[2];
	uint32_t aqpn, bqpn;

	dp_pair_open(&p, NULL, DP_ALL);
	aqpn = doca_verbs_qp_get_qpn(p.a);
	bqpn = doca_verbs_qp_get_qpn(p.b);
	ASSERT_NE(aqpn, bqpn);
	dp_fill(p.abuf, 100, 3);
	dp_recv(p.b, 1001, p.bbuf, 256, p.bmr->lkey);
	ASSERT_EQ(dp_send(p.a, IBV_WR_SEND, 1, p.abuf, 100, p.amr->lkey, 0, 0), 0);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 1);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[0].opcode, IBV_WC_SEND);
	ASSERT_EQ(wc[0].qp_num, aqpn);
	ASSERT_EQ(wc[1].wr_id, 1001);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].opcode, IBV_WC_RECV);
	ASSERT_EQ(wc[1].byte_len, 100);
	ASSERT_EQ(wc[1].qp_num, bqpn);
	ASSERT_EQ(wc[1].src_qp, aqpn);
	ASSERT_EQ(wc[1].wc_flags & IBV_WC_WITH_IMM, 0);
	ASSERT_MEM_EQ(p.bbuf, p.abuf, 100);
	ASSERT_EQ(p.bbuf[100], 0);

	/* with an immediate, b -> a this time */
	struct ibv_sge s = {(uintptr_t)p.bbuf + 1000, 33, p.bmr->lkey};
	struct ibv_send_wr wr = {.wr_id = 2, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM};

	dp_fill(p.bbuf + 1000, 33, 9);
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(0xcafe1234);
	dp_recv(p.a, 1002, p.abuf + 2048, 64, p.amr->lkey);
	ASSERT_EQ(dp_post_send(p.b, &wr), 0);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 2);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[0].opcode, IBV_WC_SEND);
	ASSERT_EQ(wc[0].qp_num, bqpn);
	ASSERT_EQ(wc[1].wr_id, 1002);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].opcode, IBV_WC_RECV);
	ASSERT_EQ(wc[1].byte_len, 33);
	ASSERT(wc[1].wc_flags & IBV_WC_WITH_IMM);
	ASSERT_EQ(wc[1].imm_data, htobe32(0xcafe1234));
	ASSERT_EQ(wc[1].qp_num, aqpn);
	ASSERT_EQ(wc[1].src_qp, bqpn);
	ASSERT_MEM_EQ(p.abuf + 2048, p.bbuf + 1000, 33);
	dp_poll_none(p.d.cq, 50);
	dp_pair_close(&p);
}

TEST(rdma_write_and_write_with_imm)
{
	struct dp_pair p;
	struct ibv_wc wc[2];
	uint8_t zero[64] = {0};

	dp_pair_open(&p, NULL, DP_ALL);
	dp_fill(p.abuf, 512, 5);
	ASSERT_EQ(dp_send(p.a, IBV_WR_RDMA_WRITE, 7, p.abuf, 300, p.amr->lkey, (uintptr_t)p.bbuf + 100, p.bmr->rkey),
		  0);
	dp_poll1(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 7);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[0].opcode, IBV_WC_RDMA_WRITE);
	ASSERT_EQ(wc[0].qp_num, doca_verbs_qp_get_qpn(p.a));
	ASSERT_MEM_EQ(p.bbuf + 100, p.abuf, 300);
	ASSERT_MEM_EQ(p.bbuf, zero, 64);
	ASSERT_EQ(p.bbuf[400], 0);
	dp_poll_none(p.d.cq, 50); /* no receive completion for a plain write */

	/* with an immediate: the data in place, and a receive consumed */
	struct ibv_sge s = {(uintptr_t)p.abuf + 512, 200, p.amr->lkey};
	struct ibv_send_wr wr = {.wr_id = 8, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM};

	dp_fill(p.abuf + 512, 200, 77);
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htobe32(42);
	wr.wr.rdma.remote_addr = (uintptr_t)p.bbuf + 3000;
	wr.wr.rdma.rkey = p.bmr->rkey;
	dp_recv(p.b, 2001, p.bbuf + 2000, 16, p.bmr->lkey);
	ASSERT_EQ(dp_post_send(p.a, &wr), 0);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 8);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[0].opcode, IBV_WC_RDMA_WRITE);
	ASSERT_EQ(wc[1].wr_id, 2001);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ASSERT(wc[1].wc_flags & IBV_WC_WITH_IMM);
	ASSERT_EQ(wc[1].imm_data, htobe32(42));
	ASSERT_EQ(wc[1].byte_len, 200);
	ASSERT_EQ(wc[1].qp_num, doca_verbs_qp_get_qpn(p.b));
	ASSERT_EQ(wc[1].src_qp, doca_verbs_qp_get_qpn(p.a));
	ASSERT_MEM_EQ(p.bbuf + 3000, p.abuf + 512, 200);
	ASSERT_MEM_EQ(p.bbuf + 2000, zero, 16); /* the receive buffer is not written */
	dp_pair_close(&p);
}

TEST(rdma_read_single_and_multi_sge)
{
	struct dp_pair p;
	struct ibv_wc wc;

	dp_pair_open(&p, NULL, DP_ALL);
	dp_fill(p.bbuf, 4096, 11);
	ASSERT_EQ(dp_send(p.a, IBV_WR_RDMA_READ, 9, p.abuf, 1000, p.amr->lkey, (uintptr_t)p.bbuf + 50, p.bmr->rkey), 0);
	dp_poll1(p.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 9);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, IBV_WC_RDMA_READ);
	ASSERT_EQ(wc.byte_len, 1000);
	ASSERT_MEM_EQ(p.abuf, p.bbuf + 50, 1000);
	ASSERT_EQ(p.abuf[1000], 0);

	/* three SGEs, scattered in order */
	struct ibv_sge s[3] = {
		{(uintptr_t)p.abuf + 2000, 10, p.amr->lkey},
		{(uintptr_t)p.abuf + 3000, 100, p.amr->lkey},
		{(uintptr_t)p.abuf + 3500, 7, p.amr->lkey},
	};
	struct ibv_send_wr wr = {.wr_id = 10, .sg_list = s, .num_sge = 3, .opcode = IBV_WR_RDMA_READ};

	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)p.bbuf + 200;
	wr.wr.rdma.rkey = p.bmr->rkey;
	ASSERT_EQ(dp_post_send(p.a, &wr), 0);
	dp_poll1(p.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 10);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, IBV_WC_RDMA_READ);
	ASSERT_EQ(wc.byte_len, 117);
	ASSERT_MEM_EQ(p.abuf + 2000, p.bbuf + 200, 10);
	ASSERT_MEM_EQ(p.abuf + 3000, p.bbuf + 210, 100);
	ASSERT_MEM_EQ(p.abuf + 3500, p.bbuf + 310, 7);
	ASSERT_EQ(p.abuf[2010], 0);
	ASSERT_EQ(p.abuf[3507], 0);
	dp_pair_close(&p);
}

static void
atomic(struct dp_pair *p, enum ibv_wr_opcode opc, uint64_t wr_id, uint64_t *local, uint64_t *remote, uint64_t cmp_add,
       uint64_t swap)
{
	struct ibv_sge s = {(uintptr_t)local, 8, p->amr->lkey};
	struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &s, .num_sge = 1, .opcode = opc};
	struct ibv_wc wc;

	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)remote;
	wr.wr.atomic.rkey = p->bmr->rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	ASSERT_EQ(dp_post_send(p->a, &wr), 0);
	dp_poll1(p->d.cq, &wc);
	ASSERT_EQ(wc.wr_id, wr_id);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, opc == IBV_WR_ATOMIC_CMP_AND_SWP ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD);
	ASSERT_EQ(wc.byte_len, 8);
}

TEST(atomics)
{
	struct dp_pair p;
	uint64_t *remote, *local;

	dp_pair_open(&p, NULL, DP_ALL);
	remote = (uint64_t *)(p.bbuf + 64);
	local = (uint64_t *)(p.abuf + 128);
	*remote = 100;
	*local = 0xdeadbeef;
	/* compare matches: swapped, old value returned */
	atomic(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 1, local, remote, 100, 555);
	ASSERT_EQ(*local, 100);
	ASSERT_EQ(*remote, 555);
	/* compare mismatches: unchanged, old value returned */
	*local = 0;
	atomic(&p, IBV_WR_ATOMIC_CMP_AND_SWP, 2, local, remote, 100, 777);
	ASSERT_EQ(*local, 555);
	ASSERT_EQ(*remote, 555);
	/* fetch and add, twice, wrapping */
	atomic(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 3, local, remote, 45, 0);
	ASSERT_EQ(*local, 555);
	ASSERT_EQ(*remote, 600);
	*remote = UINT64_MAX;
	atomic(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 4, local, remote, 2, 0);
	ASSERT_EQ(*local, UINT64_MAX);
	ASSERT_EQ(*remote, 1);
	ASSERT_EQ(*(uint64_t *)(p.bbuf + 56), 0);
	ASSERT_EQ(*(uint64_t *)(p.bbuf + 72), 0);
	dp_pair_close(&p);
}

TEST(inline_send)
{
	struct dp_qp_opts o = {.max_inline = 64};
	struct dp_pair p;
	struct ibv_wc wc[2];
	uint8_t expect[64];
	uint8_t *src = malloc(256); /* not registered: inline data needs no key */

	ASSERT_NOT_NULL(src);
	dp_pair_open(&p, &o, DP_ALL);
	dp_fill(src, 64, 21);
	memcpy(expect, src, 64);

	struct ibv_sge s = {(uintptr_t)src, 64, 0x12345};
	struct ibv_send_wr wr = {.wr_id = 5, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND};

	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	dp_recv(p.b, 50, p.bbuf, 128, p.bmr->lkey);
	ASSERT_EQ(dp_post_send(p.a, &wr), 0);
	memset(src, 0xee, 64); /* the bytes were taken at post */
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 5);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 50);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].byte_len, 64);
	ASSERT_MEM_EQ(p.bbuf, expect, 64);

	/* inline RDMA write, too */
	dp_fill(src, 40, 99);
	memcpy(expect, src, 40);
	s.length = 40;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr_id = 6;
	wr.wr.rdma.remote_addr = (uintptr_t)p.bbuf + 1024;
	wr.wr.rdma.rkey = p.bmr->rkey;
	ASSERT_EQ(dp_post_send(p.a, &wr), 0);
	memset(src, 0, 40);
	dp_poll1(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 6);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_MEM_EQ(p.bbuf + 1024, expect, 40);

	/* more than max_inline_data: refused at post, nothing queued */
	struct ibv_send_wr *bad = NULL;

	s.length = 65;
	wr.wr_id = 7;
	ASSERT_EQ(doca_verbs_bridge_post_send(p.a, &wr, &bad), EINVAL);
	ASSERT_PTR_EQ(bad, &wr);
	dp_poll_none(p.d.cq, 50);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_RTS);
	free(src);
	dp_pair_close(&p);
}

TEST(multi_sge_send_into_multi_sge_recv)
{
	struct dp_pair p;
	struct ibv_wc wc[2];
	uint8_t expect[300];

	dp_pair_open(&p, NULL, DP_ALL);
	dp_fill(p.abuf, 4096, 33);
	/* gather 100 + 50 + 150 */
	struct ibv_sge ss[3] = {
		{(uintptr_t)p.abuf + 0, 100, p.amr->lkey},
		{(uintptr_t)p.abuf + 1000, 50, p.amr->lkey},
		{(uintptr_t)p.abuf + 2000, 150, p.amr->lkey},
	};
	memcpy(expect, p.abuf, 100);
	memcpy(expect + 100, p.abuf + 1000, 50);
	memcpy(expect + 150, p.abuf + 2000, 150);
	/* scatter into 120 + 80 + 200 (only 100 of the last used) */
	struct ibv_sge rs[3] = {
		{(uintptr_t)p.bbuf + 3000, 120, p.bmr->lkey},
		{(uintptr_t)p.bbuf + 100, 80, p.bmr->lkey},
		{(uintptr_t)p.bbuf + 1000, 200, p.bmr->lkey},
	};
	struct ibv_recv_wr rwr = {.wr_id = 77, .sg_list = rs, .num_sge = 3};
	struct ibv_send_wr swr = {.wr_id = 66, .sg_list = ss, .num_sge = 3, .opcode = IBV_WR_SEND};

	swr.send_flags = IBV_SEND_SIGNALED;
	ASSERT_EQ(dp_post_recv(p.b, &rwr), 0);
	ASSERT_EQ(dp_post_send(p.a, &swr), 0);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 66);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 77);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].byte_len, 300);
	ASSERT_MEM_EQ(p.bbuf + 3000, expect, 120);
	ASSERT_MEM_EQ(p.bbuf + 100, expect + 120, 80);
	ASSERT_MEM_EQ(p.bbuf + 1000, expect + 200, 100);
	ASSERT_EQ(p.bbuf[1100], 0);
	ASSERT_EQ(p.bbuf[180], 0);
	dp_pair_close(&p);
}

TEST(zero_length_send)
{
	struct dp_pair p;
	struct ibv_wc wc[2];
	struct ibv_send_wr wr = {.wr_id = 3, .sg_list = NULL, .num_sge = 0, .opcode = IBV_WR_SEND};

	dp_pair_open(&p, NULL, DP_ALL);
	memset(p.bbuf, 0x5a, 16);
	wr.send_flags = IBV_SEND_SIGNALED;
	dp_recv(p.b, 30, p.bbuf, 16, p.bmr->lkey);
	ASSERT_EQ(dp_post_send(p.a, &wr), 0);
	dp_poll2_sorted(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 3);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[0].opcode, IBV_WC_SEND);
	ASSERT_EQ(wc[1].wr_id, 30);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].opcode, IBV_WC_RECV);
	ASSERT_EQ(wc[1].byte_len, 0);
	ASSERT_EQ(p.bbuf[0], 0x5a);
	dp_pair_close(&p);
}

TEST(signaled_vs_unsignaled)
{
	struct dp_pair p;
	struct ibv_wc wc[4];
	struct ibv_sge s;
	struct ibv_send_wr w[3];

	dp_pair_open(&p, NULL, DP_ALL);
	dp_fill(p.abuf, 64, 1);
	/* a chain of three writes, only the last signaled: one completion, after all three landed */
	for (int i = 0; i < 3; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].wr_id = 100 + i;
		w[i].sg_list = &s;
		w[i].num_sge = 1;
		w[i].opcode = IBV_WR_RDMA_WRITE;
		w[i].wr.rdma.remote_addr = (uintptr_t)p.bbuf + 64 * i;
		w[i].wr.rdma.rkey = p.bmr->rkey;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	s = (struct ibv_sge){(uintptr_t)p.abuf, 64, p.amr->lkey};
	w[2].send_flags = IBV_SEND_SIGNALED;
	ASSERT_EQ(dp_post_send(p.a, &w[0]), 0);
	dp_poll1(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 102);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	for (int i = 0; i < 3; i++)
		ASSERT_MEM_EQ(p.bbuf + 64 * i, p.abuf, 64);
	dp_poll_none(p.d.cq, 100);

	/* an unsignaled send: the receiver's completion only */
	w[0].next = NULL;
	w[0].opcode = IBV_WR_SEND;
	w[0].send_flags = 0;
	dp_recv(p.b, 9, p.bbuf + 1024, 64, p.bmr->lkey);
	ASSERT_EQ(dp_post_send(p.a, &w[0]), 0);
	dp_poll1(p.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 9);
	ASSERT_EQ(wc[0].opcode, IBV_WC_RECV);
	dp_poll_none(p.d.cq, 100);
	dp_pair_close(&p);

	/* sq_sig_all: every request completes, IBV_SEND_SIGNALED or not */
	struct dp_qp_opts o = {.sig_all = 1};

	dp_pair_open(&p, &o, DP_ALL);
	s = (struct ibv_sge){(uintptr_t)p.abuf, 64, p.amr->lkey};
	for (int i = 0; i < 3; i++) {
		w[i].wr.rdma.rkey = p.bmr->rkey;
		w[i].wr.rdma.remote_addr = (uintptr_t)p.bbuf + 64 * i;
		w[i].opcode = IBV_WR_RDMA_WRITE;
		w[i].send_flags = 0;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	ASSERT_EQ(dp_post_send(p.a, &w[0]), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 4, 2000), 3);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(wc[i].wr_id, 100 + i); /* in post order */
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
		ASSERT_EQ(wc[i].opcode, IBV_WC_RDMA_WRITE);
	}
	dp_pair_close(&p);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
