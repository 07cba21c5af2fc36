/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels with the datapath: a program that arms its CQ and
 * sleeps on the channel's handle (poll()) is woken by a completion that
 * nothing else turns into a CQ entry, gets the event, and polls the entry.
 */
#include <poll.h>
#include <pthread.h>

#include "dp_test.h"

struct sender {
	struct doca_verbs_qp *qp;
	struct doca_verbs_cq *cq;
	uint8_t *buf;
	uint32_t lkey;
	unsigned delay_ms;
	int status; /* the send's completion status, -1 until it completed */
};

/* After a delay, send 32 bytes and poll its own CQ (the receiver's domain is progressed by nobody). */
static void *
sender_main(void *arg)
{
	struct sender *s = arg;
	struct ibv_wc wc;

	usleep(s->delay_ms * 1000u);
	ASSERT_EQ(dp_send(s->qp, IBV_WR_SEND, 7, s->buf, 32, s->lkey, 0, 0), 0);
	if (dp_poll_n(s->cq, &wc, 1, 5000) == 1)
		s->status = (int)wc.status;
	return NULL;
}

static int
wait_readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms);
}

TEST(sleeping_on_the_channel_wakes_for_a_receive)
{
	struct doca_verbs_comp_channel *ch;
	struct doca_verbs_cq *rcq, *got = NULL;
	struct doca_verbs_qp *a, *b;
	struct sender s = {.delay_ms = 200, .status = -1};
	struct ibv_mr *mr;
	struct ibv_wc wc;
	void *cq_ctx = NULL;
	pthread_t th;
	uint8_t *buf;
	uint64_t t0;
	struct dp d;
	int fd;

	dp_open(&d);
	ASSERT_OK(doca_verbs_comp_channel_create(d.ctx, &ch));
	fd = doca_verbs_comp_channel_get_handle(ch);
	ASSERT(fd >= 0);
	rcq = make_cq(d.ctx, ch, &s); /* verbs_test.h: 64 entries, the channel, a cq_context */
	buf = aligned_alloc(64, 4096);
	ASSERT_NOT_NULL(buf);
	dp_fill(buf, 64, 3);
	memset(buf + 2048, 0, 64);
	mr = dp_mr(&d, buf, 4096, DP_RW);
	a = dp_qp(&d, &(struct dp_qp_opts){.no_rq = true});
	b = dp_qp(&d, &(struct dp_qp_opts){.recv_cq = rcq, .no_sq = true});
	dp_connect(&d, a, b, 7);
	dp_recv(b, 41, buf + 2048, 64, mr->lkey);

	/* nothing yet: no event, the handle is not readable */
	ASSERT_EQ(doca_verbs_get_cq_event(ch, &got, &cq_ctx), DOCA_ERROR_AGAIN);
	ASSERT_OK(doca_verbs_req_notify_cq(rcq, 0));
	ASSERT_EQ(wait_readable(fd, 50), 0);

	s.qp = a;
	s.cq = d.cq;
	s.buf = buf;
	s.lkey = mr->lkey;
	t0 = dp_now_ms();
	ASSERT_EQ(pthread_create(&th, NULL, sender_main, &s), 0);
	/* sleep on the handle: only the channel can tell us */
	ASSERT_EQ(wait_readable(fd, 5000), 1);
	ASSERT(dp_now_ms() - t0 >= 150);
	ASSERT_OK(doca_verbs_get_cq_event(ch, &got, &cq_ctx));
	ASSERT(got == rcq);
	ASSERT(cq_ctx == &s);
	doca_verbs_ack_cq_events(rcq, 1);
	ASSERT_EQ(dp_poll_n(rcq, &wc, 1, 2000), 1);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, IBV_WC_RECV);
	ASSERT_EQ(wc.wr_id, 41);
	ASSERT_EQ(wc.byte_len, 32);
	ASSERT_MEM_EQ(buf + 2048, buf, 32);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(s.status, IBV_WC_SUCCESS);

	/* one event per arm: a second receive without arming raises none */
	dp_recv(b, 42, buf + 2048, 64, mr->lkey);
	s.delay_ms = 0;
	s.status = -1;
	ASSERT_EQ(pthread_create(&th, NULL, sender_main, &s), 0);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(s.status, IBV_WC_SUCCESS);
	ASSERT_EQ(dp_poll_n(rcq, &wc, 1, 2000), 1);
	ASSERT_EQ(wc.wr_id, 42);
	ASSERT_EQ(doca_verbs_get_cq_event(ch, &got, &cq_ctx), DOCA_ERROR_AGAIN);

	ASSERT_OK(doca_verbs_qp_destroy(a));
	ASSERT_OK(doca_verbs_qp_destroy(b));
	ASSERT_OK(doca_verbs_cq_destroy(rcq));
	ASSERT_OK(doca_verbs_comp_channel_destroy(ch));
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	free(buf);
	dp_close(&d);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
