/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the Verbs datapath tests (test_verbs_dp_*.c): a context with a
 * PD whose ibv_pd registers memory through rdma-core's ibv_reg_mr(), QPs
 * connected to each other at the device's own GID as DOCA's samples connect
 * them, and polling with a deadline (no loop in these tests may hang).
 */
#ifndef DP_TEST_H_
#define DP_TEST_H_

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <doca_verbs_bridge.h>

#include "verbs_test.h"

#define DP_RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define DP_ALL (DP_RW | IBV_ACCESS_REMOTE_ATOMIC)
#define DP_QA(x) DOCA_VERBS_QP_ATTR_##x

struct dp {
	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct ibv_pd *ipd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_gid gid;
};

/* QP shape; zero fields take the defaults of dp_qp(). */
struct dp_qp_opts {
	uint32_t sq_wr, rq_wr, sges, max_inline;
	int sig_all;
	struct doca_verbs_cq *send_cq, *recv_cq;
	struct doca_verbs_srq *srq;
	bool no_rq, no_sq;
};

static inline uint64_t
dp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline struct doca_verbs_cq *
dp_cq(struct doca_verbs_context *ctx, uint32_t size)
{
	struct doca_verbs_cq_attr *attr;
	struct doca_verbs_cq *cq;

	ASSERT_OK(doca_verbs_cq_attr_create(&attr));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(attr, size));
	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(attr, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	ASSERT_OK(doca_verbs_cq_create(ctx, attr, &cq));
	ASSERT_OK(doca_verbs_cq_attr_destroy(attr));
	return cq;
}

/* A PD, its ibv_pd, the GID and a CQ on ctx (which d then owns). */
static inline void
dp_open_ctx(struct dp *d, struct doca_verbs_context *ctx)
{
	union ibv_gid g;

	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	ASSERT_OK(doca_verbs_pd_create(d->ctx, &d->pd));
	d->ipd = doca_verbs_bridge_verbs_pd_get_ibv_pd(d->pd);
	ASSERT_NOT_NULL(d->ipd);
	ASSERT_EQ(ibv_query_gid(d->ipd->context, 1, 0, &g), 0);
	memcpy(d->gid.raw, g.raw, sizeof(d->gid.raw));
	d->cq = dp_cq(d->ctx, 1024);
}

static inline void
dp_open(struct dp *d)
{
	dp_open_ctx(d, open_verbs_ctx());
}

static inline void
dp_close(struct dp *d)
{
	ASSERT_OK(doca_verbs_cq_destroy(d->cq));
	ASSERT_OK(doca_verbs_pd_destroy(d->pd));
	ASSERT_OK(doca_verbs_context_destroy(d->ctx));
}

static inline struct ibv_mr *
dp_mr(struct dp *d, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(d->ipd, buf, len, access);

	ASSERT_NOT_NULL(mr);
	ASSERT_EQ(mr->lkey, mr->rkey);
	return mr;
}

static inline struct doca_verbs_qp *
dp_qp(struct dp *d, const struct dp_qp_opts *o)
{
	static const struct dp_qp_opts none;
	struct doca_verbs_qp_init_attr *ia;
	struct doca_verbs_qp *qp;

	if (o == NULL)
		o = &none;
	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(ia, d->pd));
	if (!o->no_sq)
		ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(ia, o->send_cq ? o->send_cq : d->cq));
	if (o->srq != NULL)
		ASSERT_OK(doca_verbs_qp_init_attr_set_srq(ia, o->srq));
	if (!o->no_rq)
		ASSERT_OK(doca_verbs_qp_init_attr_set_receive_cq(ia, o->recv_cq ? o->recv_cq : d->cq));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(ia, o->no_sq ? 0 : o->sq_wr ? o->sq_wr : 64));
	ASSERT_OK(doca_verbs_qp_init_attr_set_rq_wr(ia, o->no_rq || o->srq ? 0 : o->rq_wr ? o->rq_wr : 64));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_max_sges(ia, o->sges ? o->sges : 4));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_max_sges(ia, o->sges ? o->sges : 4));
	ASSERT_OK(doca_verbs_qp_init_attr_set_max_inline_data(ia, o->max_inline));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_sig_all(ia, o->sig_all));
	ASSERT_OK(doca_verbs_qp_init_attr_set_qp_type(ia, DOCA_VERBS_QP_TYPE_RC));
	ASSERT_OK(doca_verbs_qp_create(d->ctx, ia, &qp));
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	return qp;
}

static inline doca_error_t
dp_modify(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *a, enum doca_verbs_qp_state to, int mask)
{
	ASSERT_OK(doca_verbs_qp_attr_set_next_state(a, to));
	return doca_verbs_qp_modify(qp, a, DP_QA(NEXT_STATE) | mask);
}

static inline void
dp_to_init(struct doca_verbs_qp *qp)
{
	struct doca_verbs_qp_attr *a;

	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	ASSERT_OK(doca_verbs_qp_attr_set_allow_remote_write(a, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_allow_remote_read(a, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_port_num(a, 1));
	ASSERT_OK(
		dp_modify(qp, a, DOCA_VERBS_QP_STATE_INIT,
			  DP_QA(ALLOW_REMOTE_WRITE) | DP_QA(ALLOW_REMOTE_READ) | DP_QA(PKEY_INDEX) | DP_QA(PORT_NUM)));
	ASSERT_OK(doca_verbs_qp_attr_destroy(a));
}

/* INIT -> RTR -> RTS towards remote_qpn at gid (the samples' attributes, rnr_retry given). */
static inline void
dp_to_rts(struct doca_verbs_context *ctx, struct doca_verbs_qp *qp, const struct doca_verbs_gid *gid,
	  uint32_t remote_qpn, uint16_t rnr_retry)
{
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_qp_attr *a;

	ASSERT_OK(doca_verbs_ah_attr_create(ctx, &ah));
	ASSERT_OK(doca_verbs_ah_attr_set_addr_type(ah, DOCA_VERBS_ADDR_TYPE_IPv4));
	ASSERT_OK(doca_verbs_ah_attr_set_gid(ah, *gid));
	ASSERT_OK(doca_verbs_ah_attr_set_sgid_index(ah, 0));
	ASSERT_OK(doca_verbs_ah_attr_set_hop_limit(ah, 255));
	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	ASSERT_OK(doca_verbs_qp_attr_set_rq_psn(a, 0));
	ASSERT_OK(doca_verbs_qp_attr_set_dest_qp_num(a, remote_qpn));
	ASSERT_OK(doca_verbs_qp_attr_set_min_rnr_timer(a, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_path_mtu(a, DOCA_MTU_SIZE_1K_BYTES));
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(a, ah));
	ASSERT_OK(dp_modify(qp, a, DOCA_VERBS_QP_STATE_RTR,
			    DP_QA(RQ_PSN) | DP_QA(DEST_QP_NUM) | DP_QA(MIN_RNR_TIMER) | DP_QA(PATH_MTU) |
				    DP_QA(AH_ATTR)));
	ASSERT_OK(doca_verbs_qp_attr_set_sq_psn(a, 0));
	ASSERT_OK(doca_verbs_qp_attr_set_ack_timeout(a, 14));
	ASSERT_OK(doca_verbs_qp_attr_set_retry_cnt(a, 7));
	ASSERT_OK(doca_verbs_qp_attr_set_rnr_retry(a, rnr_retry));
	ASSERT_OK(dp_modify(qp, a, DOCA_VERBS_QP_STATE_RTS,
			    DP_QA(SQ_PSN) | DP_QA(ACK_TIMEOUT) | DP_QA(RETRY_CNT) | DP_QA(RNR_RETRY)));
	ASSERT_OK(doca_verbs_qp_attr_destroy(a));
	ASSERT_OK(doca_verbs_ah_attr_destroy(ah));
}

/* Connect a and b (both RST) to each other. */
static inline void
dp_connect(struct dp *d, struct doca_verbs_qp *a, struct doca_verbs_qp *b, uint16_t rnr_retry)
{
	dp_to_init(a);
	dp_to_init(b);
	dp_to_rts(d->ctx, a, &d->gid, doca_verbs_qp_get_qpn(b), rnr_retry);
	dp_to_rts(d->ctx, b, &d->gid, doca_verbs_qp_get_qpn(a), rnr_retry);
}

/* Two connected QPs a and b of one context, a 4 KiB buffer each: a's with every access, b's with baccess. */
struct dp_pair {
	struct dp d;
	struct doca_verbs_qp *a, *b;
	uint8_t *abuf, *bbuf;
	struct ibv_mr *amr, *bmr;
};

static inline void
dp_pair_open(struct dp_pair *p, const struct dp_qp_opts *o, int baccess)
{
	dp_open(&p->d);
	p->a = dp_qp(&p->d, o);
	p->b = dp_qp(&p->d, o);
	dp_connect(&p->d, p->a, p->b, 7);
	p->abuf = calloc(1, 4096);
	p->bbuf = calloc(1, 4096);
	ASSERT(p->abuf != NULL && p->bbuf != NULL);
	p->amr = dp_mr(&p->d, p->abuf, 4096, DP_ALL);
	p->bmr = dp_mr(&p->d, p->bbuf, 4096, baccess);
}

static inline void
dp_pair_close(struct dp_pair *p)
{
	ASSERT_OK(doca_verbs_qp_destroy(p->a));
	ASSERT_OK(doca_verbs_qp_destroy(p->b));
	ASSERT_EQ(ibv_dereg_mr(p->amr), 0);
	ASSERT_EQ(ibv_dereg_mr(p->bmr), 0);
	free(p->abuf);
	free(p->bbuf);
	dp_close(&p->d);
}

static inline void
dp_set_state(struct doca_verbs_qp *qp, enum doca_verbs_qp_state to)
{
	struct doca_verbs_qp_attr *a;

	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	ASSERT_OK(dp_modify(qp, a, to, 0));
	ASSERT_OK(doca_verbs_qp_attr_destroy(a));
}

static inline enum doca_verbs_qp_state
dp_state(struct doca_verbs_qp *qp)
{
	struct doca_verbs_qp_init_attr *ia;
	struct doca_verbs_qp_attr *a;
	enum doca_verbs_qp_state s;
	int mask = 0;

	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_OK(doca_verbs_qp_query(qp, a, ia, &mask));
	s = doca_verbs_qp_attr_get_current_state(a);
	ASSERT_OK(doca_verbs_qp_attr_destroy(a));
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	return s;
}

/* Up to n completions within ms milliseconds: how many arrived. */
static inline int
dp_poll_n(struct doca_verbs_cq *cq, struct ibv_wc *wc, int n, unsigned ms)
{
	uint64_t end = dp_now_ms() + ms;
	int got = 0;

	while (got < n) {
		int r = doca_verbs_bridge_poll_cq(cq, n - got, wc + got);

		ASSERT(r >= 0);
		got += r;
		if (got < n && dp_now_ms() > end)
			break;
	}
	return got;
}

/* Exactly one completion within 5 s. */
static inline void
dp_poll1(struct doca_verbs_cq *cq, struct ibv_wc *wc)
{
	ASSERT_EQ(dp_poll_n(cq, wc, 1, 5000), 1);
}

/* No completion during ms milliseconds. */
static inline void
dp_poll_none(struct doca_verbs_cq *cq, unsigned ms)
{
	struct ibv_wc wc;

	ASSERT_EQ(dp_poll_n(cq, &wc, 1, ms), 0);
}

/* Poll two completions (any order) and sort them by wr_id into out[0] (lower) and out[1]. */
static inline void
dp_poll2_sorted(struct doca_verbs_cq *cq, struct ibv_wc out[2])
{
	ASSERT_EQ(dp_poll_n(cq, out, 2, 5000), 2);
	if (out[0].wr_id > out[1].wr_id) {
		struct ibv_wc t = out[0];

		out[0] = out[1];
		out[1] = t;
	}
}

static inline int
dp_post_send(struct doca_verbs_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int r = doca_verbs_bridge_post_send(qp, wr, &bad);

	if (r == 0)
		ASSERT(bad == NULL);
	else
		ASSERT(bad != NULL);
	return r;
}

static inline int
dp_post_recv(struct doca_verbs_qp *qp, struct ibv_recv_wr *wr)
{
	struct ibv_recv_wr *bad = NULL;
	int r = doca_verbs_bridge_post_recv(qp, wr, &bad);

	if (r == 0)
		ASSERT(bad == NULL);
	else
		ASSERT(bad != NULL);
	return r;
}

/* One-SGE receive of len bytes at buf. */
static inline void
dp_recv(struct doca_verbs_qp *qp, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &s, .num_sge = 1};

	ASSERT_EQ(dp_post_recv(qp, &wr), 0);
}

/* A signaled one-SGE request; remote_addr / rkey for the RDMA opcodes. */
static inline int
dp_send(struct doca_verbs_qp *qp, enum ibv_wr_opcode opc, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey,
	uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_send_wr wr = {.wr_id = wr_id, .sg_list = &s, .num_sge = 1, .opcode = opc};

	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return dp_post_send(qp, &wr);
}

/* The next async event of ctx within ms: true with *ev filled. */
static inline bool
dp_async_event(struct doca_verbs_context *ctx, struct doca_verbs_async_event *ev, unsigned ms)
{
	uint64_t end = dp_now_ms() + ms;

	for (;;) {
		doca_error_t err = doca_verbs_get_async_event(ctx, ev);

		if (err == DOCA_SUCCESS)
			return true;
		ASSERT_ERR(err, DOCA_ERROR_AGAIN);
		if (dp_now_ms() > end)
			return false;
		usleep(1000);
	}
}

static inline void
dp_fill(void *buf, size_t len, uint8_t seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7u);
}

#endif /* DP_TEST_H_ */
