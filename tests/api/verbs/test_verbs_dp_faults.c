/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDOCA_FAULTS on Verbs work requests (docs/diagnostics.md "Verbs work
 * requests"), exactly: a full queue refuses from the hit request on (ENOMEM,
 * *bad_wr, the ones before it queued), an injected error completes that
 * request with its status and flushes the QP's later ones, a delay keeps post
 * order, a device going down fails the QP with a fatal event.  Each case sets
 * the variable before its first Verbs call (the runner forks one process per
 * case, and the knob is read once per process).
 */
#include <stdlib.h>

#include "dp_test.h"

static void
pair_open(struct dp_pair *p, const char *faults)
{
	ASSERT_EQ(setenv("SOFTDOCA_FAULTS", faults, 1), 0);
	dp_pair_open(p, NULL, DP_ALL);
	dp_fill(p->abuf, 4096, 3);
}

/* n signaled 64-byte writes from a to b, chained, wr_id 0 .. n-1, slot i at offset 64 i. */
static int
post_writes(struct dp_pair *p, struct ibv_send_wr *wrs, struct ibv_sge *sges, int n, struct ibv_send_wr **bad)
{
	for (int i = 0; i < n; i++) {
		sges[i] = (struct ibv_sge){.addr = (uintptr_t)(p->abuf + 64 * i), .length = 64, .lkey = p->amr->lkey};
		wrs[i] = (struct ibv_send_wr){.wr_id = (uint64_t)i,
					      .next = i + 1 < n ? &wrs[i + 1] : NULL,
					      .sg_list = &sges[i],
					      .num_sge = 1,
					      .opcode = IBV_WR_RDMA_WRITE,
					      .send_flags = IBV_SEND_SIGNALED};
		wrs[i].wr.rdma.remote_addr = (uintptr_t)(p->bbuf + 64 * i);
		wrs[i].wr.rdma.rkey = p->bmr->rkey;
	}
	*bad = NULL;
	return doca_verbs_bridge_post_send(p->a, wrs, bad);
}

TEST(full_queue_refuses_from_the_hit_request_on)
{
	struct dp_pair p;
	struct ibv_send_wr wrs[4], *bad;
	struct ibv_sge sges[4];
	struct ibv_wc wc[4];

	/* the third post is refused, once */
	pair_open(&p, "verbs.submit=again:1@2");
	ASSERT_EQ(post_writes(&p, wrs, sges, 4, &bad), ENOMEM);
	ASSERT_PTR_EQ(bad, &wrs[2]);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 2, 5000), 2);
	ASSERT_EQ(wc[0].wr_id, 0);
	ASSERT_EQ(wc[1].wr_id, 1);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	dp_poll_none(p.d.cq, 50);
	/* nothing of the refused ones was queued: posted again, they complete */
	ASSERT_EQ(doca_verbs_bridge_post_send(p.a, &wrs[2], &bad), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 2, 5000), 2);
	ASSERT_EQ(wc[0].wr_id, 2);
	ASSERT_EQ(wc[1].wr_id, 3);
	ASSERT_MEM_EQ(p.bbuf, p.abuf, 256);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_RTS);
	dp_pair_close(&p);
}

static void
error_case(const char *faults, enum ibv_wc_status want)
{
	struct dp_pair p;
	struct ibv_send_wr wrs[4], *bad;
	struct ibv_sge sges[4];
	struct ibv_wc wc[4];

	pair_open(&p, faults);
	ASSERT_EQ(post_writes(&p, wrs, sges, 4, &bad), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 4, 5000), 4);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 1);
	ASSERT_EQ(wc[1].status, want);
	ASSERT_EQ(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(wc[3].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	dp_pair_close(&p);
}

TEST(completion_error_moves_the_qp_to_err_and_flushes)
{
	error_case("verbs.write=error:1@1", IBV_WC_GENERAL_ERR);
}

TEST(driver_error_is_fatal)
{
	error_case("verbs.complete=driver:1@1", IBV_WC_FATAL_ERR);
}

TEST(remote_access_error)
{
	error_case("verbs.post_send=remote_access:1@1", IBV_WC_REM_ACCESS_ERR);
}

TEST(receive_error_on_the_responder)
{
	struct dp_pair p;
	struct ibv_wc wc;

	pair_open(&p, "verbs.recv=error:1");
	dp_recv(p.b, 0x51, p.bbuf, 64, p.bmr->lkey);
	ASSERT_EQ(dp_send(p.a, IBV_WR_SEND, 0x50, p.abuf, 64, p.amr->lkey, 0, 0), 0);
	/* the send's completion and the receive's, in either order */
	for (int i = 0; i < 2; i++) {
		dp_poll1(p.d.cq, &wc);
		if (wc.wr_id == 0x51) {
			ASSERT_EQ(wc.status, IBV_WC_GENERAL_ERR);
			ASSERT_EQ(wc.byte_len, 0);
		}
	}
	ASSERT_EQ(dp_state(p.b), DOCA_VERBS_QP_STATE_ERR);
	dp_pair_close(&p);
}

TEST(delay_keeps_post_order)
{
	struct dp_pair p;
	struct ibv_send_wr wrs[4], *bad;
	struct ibv_sge sges[4];
	struct ibv_wc wc[4];
	uint64_t t0;

	/* only the first completion waits: the three behind it wait for it */
	pair_open(&p, "verbs.write=delay:100ms:1");
	t0 = dp_now_ms();
	ASSERT_EQ(post_writes(&p, wrs, sges, 4, &bad), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 4, 5000), 4);
	ASSERT(dp_now_ms() - t0 >= 100);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(wc[i].wr_id, (uint64_t)i);
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
	}
	dp_pair_close(&p);
}

TEST(device_down_fails_the_qp_with_a_fatal_event)
{
	struct dp_pair p;
	struct ibv_send_wr wrs[4], *bad;
	struct ibv_sge sges[4];
	struct ibv_wc wc[4];
	struct doca_verbs_async_event ev;
	bool fatal = false;

	/* down after 4 posts of the device's QPs: the next visit fails both */
	pair_open(&p, "dev.*=down@4");
	ASSERT_EQ(post_writes(&p, wrs, sges, 4, &bad), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 4, 5000), 4);
	ASSERT_EQ(post_writes(&p, wrs, sges, 1, &bad), 0);
	dp_poll_n(p.d.cq, wc, 1, 5000);
	ASSERT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	while (!fatal && dp_async_event(p.d.ctx, &ev, 1000))
		fatal = ev.event_type == DOCA_VERBS_EVENT_QP_FATAL;
	ASSERT(fatal);
	dp_pair_close(&p);
}

/* The soft NIC's path for a peer process that died: ERR, flushes, QP_FATAL (as test_verbs_dp_proc's killed peer). */
TEST(vanished_peer_fails_the_qp_as_a_dead_one)
{
	struct dp_pair p;
	struct ibv_send_wr wrs[1], *bad;
	struct ibv_sge sges[1];
	struct ibv_wc wc[1];
	struct doca_verbs_async_event ev;
	bool fatal = false;

	pair_open(&p, "verbs.peer=vanish@1");
	ASSERT_EQ(post_writes(&p, wrs, sges, 1, &bad), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 1, 5000), 1);
	ASSERT_EQ(post_writes(&p, wrs, sges, 1, &bad), 0);
	ASSERT_EQ(dp_poll_n(p.d.cq, wc, 1, 5000), 1);
	ASSERT_EQ(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(dp_state(p.a), DOCA_VERBS_QP_STATE_ERR);
	while (!fatal && dp_async_event(p.d.ctx, &ev, 1000))
		fatal = ev.event_type == DOCA_VERBS_EVENT_QP_FATAL;
	ASSERT(fatal);
	dp_pair_close(&p);
}

TEST(create_nomem)
{
	struct doca_verbs_pd *pd = NULL;
	struct dp d;

	ASSERT_EQ(setenv("SOFTDOCA_FAULTS", "verbs.create=nomem:1@3", 1), 0);
	dp_open(&d); /* creates 1 to 3: the context, its PD, its CQ */
	ASSERT_ERR(doca_verbs_pd_create(d.ctx, &pd), DOCA_ERROR_NO_MEMORY);
	ASSERT_OK(doca_verbs_pd_create(d.ctx, &pd));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	dp_close(&d);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
