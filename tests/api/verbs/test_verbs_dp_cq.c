/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A CQ that fills up: without cq_overrun the completions that do not fit are
 * lost and the context raises DOCA_VERBS_EVENT_CQ_ERR naming the CQ, once;
 * with cq_overrun the oldest entries are overwritten and nothing is raised.
 * The producer/consumer indices (get_current_cq_ci) count what was polled.
 */
#include "dp_test.h"

#define SMALL 4
#define SENDS 8

static struct doca_verbs_cq *
small_cq(struct doca_verbs_context *ctx, uint8_t overrun)
{
	struct doca_verbs_cq_attr *attr;
	struct doca_verbs_cq *cq;

	ASSERT_OK(doca_verbs_cq_attr_create(&attr));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(attr, SMALL));
	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(attr, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_overrun(attr, overrun));
	ASSERT_OK(doca_verbs_cq_create(ctx, attr, &cq));
	ASSERT_OK(doca_verbs_cq_attr_destroy(attr));
	return cq;
}

/*
 * a sends SENDS signaled messages to b; a's send completions go to a CQ of
 * SMALL entries nobody polls until all receives completed on d.cq (polling
 * d.cq progresses a's domain too: a's receive CQ is d.cq).
 */
static void
overflow_case(uint8_t overrun)
{
	struct ibv_wc wc[SENDS];
	struct doca_verbs_async_event ev;
	struct doca_verbs_qp *a, *b;
	struct doca_verbs_cq *scq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct dp d;
	int n;

	dp_open(&d);
	scq = small_cq(d.ctx, overrun);
	buf = aligned_alloc(64, 4096);
	ASSERT_NOT_NULL(buf);
	dp_fill(buf, 4096, 9);
	mr = dp_mr(&d, buf, 4096, DP_RW);
	a = dp_qp(&d, &(struct dp_qp_opts){.send_cq = scq});
	b = dp_qp(&d, NULL);
	dp_connect(&d, a, b, 7);
	for (int i = 0; i < SENDS; i++)
		dp_recv(b, 100 + i, buf + 2048 + 64 * i, 64, mr->lkey);
	for (int i = 0; i < SENDS; i++)
		ASSERT_EQ(dp_send(a, IBV_WR_SEND, i, buf + 16 * i, 16, mr->lkey, 0, 0), 0);
	ASSERT_EQ(dp_poll_n(d.cq, wc, SENDS, 5000), SENDS);
	for (int i = 0; i < SENDS; i++) {
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
		ASSERT_EQ(wc[i].opcode, IBV_WC_RECV);
	}
	/* every send was delivered (a completion means delivered); the small CQ holds SMALL of them */
	ASSERT_EQ(doca_verbs_bridge_get_current_cq_ci(scq), 0);
	n = dp_poll_n(scq, wc, SENDS, 200);
	ASSERT_EQ(n, SMALL);
	/* the consumer index counts what was polled, and with overrun what was overwritten unseen */
	ASSERT_EQ(doca_verbs_bridge_get_current_cq_ci(scq), overrun ? SENDS : SMALL);
	for (int i = 0; i < n; i++) {
		ASSERT_EQ(wc[i].status, IBV_WC_SUCCESS);
		ASSERT_EQ(wc[i].opcode, IBV_WC_SEND);
		/* lost at the tail without overrun; the oldest overwritten with it */
		ASSERT_EQ(wc[i].wr_id, (uint64_t)(overrun ? SENDS - SMALL + i : i));
	}
	if (overrun) {
		ASSERT(!dp_async_event(d.ctx, &ev, 100));
	} else {
		ASSERT(dp_async_event(d.ctx, &ev, 2000));
		ASSERT_EQ(ev.event_type, DOCA_VERBS_EVENT_CQ_ERR);
		ASSERT_PTR_EQ(ev.element.cq, scq);
		doca_verbs_ack_async_event(&ev);
		ASSERT(!dp_async_event(d.ctx, &ev, 100)); /* raised once */
	}
	ASSERT_OK(doca_verbs_qp_destroy(a));
	ASSERT_OK(doca_verbs_qp_destroy(b));
	ASSERT_OK(doca_verbs_cq_destroy(scq));
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	free(buf);
	dp_close(&d);
}

TEST(full_cq_raises_cq_err_and_loses_the_rest)
{
	overflow_case(0);
}

TEST(full_cq_with_overrun_keeps_the_newest)
{
	overflow_case(1);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
