/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail probing between two real UC QPs of this process, each side with
 * its own Multi-Rail object as two peers have: A's probe QP on mlx5_0, B's on
 * mlx5_1 (one device if the topology has only one).  A's rail is UP while
 * both sides' probes land, DOWN within probe_timeout_s once B's QP is moved to
 * ERR or destroyed, and UP again (through PROBING) once B is restored.
 *
 * (A fresh QP is not moved to RST before its first connect: RST on a QP that
 * is already in RST breaks its soft NIC connection — a datapath issue.)
 */
#include <infiniband/verbs.h>
#include <string.h>
#include <time.h>

#include <doca_verbs_bridge.h>
#include <doca_verbs_multi_rail.h>

#include "verbs_test.h"

#define A(x) DOCA_VERBS_QP_ATTR_##x
#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)
#define TIMEOUT_S 1

struct side {
	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;
	struct doca_verbs_gid gid;
	struct ibv_mr *mr;
	uint64_t buf[2]; /* heartbeat, landing slot (DOCA_VERBS_MULTI_RAIL_PROBE_BUF_BYTES) */
	struct doca_verbs_multi_rail *mr_obj;
};

static struct doca_verbs_context *
open_named(const char *ibdev)
{
	struct doca_verbs_context *ctx = NULL;
	struct doca_devinfo **list;
	char name[64];
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && ctx == NULL; i++)
		if (doca_devinfo_get_ibdev_name(list[i], name, sizeof(name)) == DOCA_SUCCESS &&
		    strcmp(name, ibdev) == 0 &&
		    doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &ctx) != DOCA_SUCCESS)
			ctx = NULL;
	ASSERT_OK(doca_devinfo_destroy_list(list));
	return ctx;
}

static void
side_open(struct side *s, const char *ibdev)
{
	union ibv_gid gid;

	s->ctx = open_named(ibdev);
	if (s->ctx == NULL)
		s->ctx = open_verbs_ctx();
	ASSERT_OK(doca_verbs_pd_create(s->ctx, &s->pd));
	s->cq = make_cq(s->ctx, NULL, NULL);
	s->qp = make_qp(s->ctx, s->pd, s->cq, DOCA_VERBS_QP_TYPE_UC);
	ASSERT_EQ(ibv_query_gid(doca_verbs_bridge_get_ibv_ctx(s->ctx), 1, 0, &gid), 0);
	memcpy(s->gid.raw, gid.raw, sizeof(gid.raw));
	s->mr = ibv_reg_mr(doca_verbs_bridge_verbs_pd_get_ibv_pd(s->pd), s->buf, sizeof(s->buf), RW);
	ASSERT_NOT_NULL(s->mr);
}

static void
side_close(struct side *s)
{
	if (s->qp != NULL)
		ASSERT_OK(doca_verbs_qp_destroy(s->qp));
	ASSERT_EQ(ibv_dereg_mr(s->mr), 0);
	ASSERT_OK(doca_verbs_cq_destroy(s->cq));
	ASSERT_OK(doca_verbs_pd_destroy(s->pd));
	ASSERT_OK(doca_verbs_context_destroy(s->ctx));
}

static void
qp_move(struct doca_verbs_qp *qp, struct doca_verbs_qp_attr *attr, enum doca_verbs_qp_state state, int mask)
{
	ASSERT_OK(doca_verbs_qp_attr_set_next_state(attr, state));
	ASSERT_OK(doca_verbs_qp_modify(qp, attr, A(NEXT_STATE) | mask));
}

/* RST (from anything) -> INIT -> RTR -> RTS towards the peer's QP, UC attributes only. */
static void
connect_uc(struct side *s, const struct side *peer, bool reset)
{
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_qp_attr *attr;

	ASSERT_OK(doca_verbs_qp_attr_create(&attr));
	ASSERT_OK(doca_verbs_ah_attr_create(s->ctx, &ah));
	ASSERT_OK(doca_verbs_ah_attr_set_gid(ah, peer->gid));
	ASSERT_OK(doca_verbs_ah_attr_set_addr_type(ah, DOCA_VERBS_ADDR_TYPE_IPv4));
	if (reset)
		qp_move(s->qp, attr, DOCA_VERBS_QP_STATE_RST, 0);
	ASSERT_OK(doca_verbs_qp_attr_set_allow_remote_write(attr, 1));
	ASSERT_OK(doca_verbs_qp_attr_set_port_num(attr, 1));
	qp_move(s->qp, attr, DOCA_VERBS_QP_STATE_INIT, A(ALLOW_REMOTE_WRITE) | A(PORT_NUM));
	ASSERT_OK(doca_verbs_qp_attr_set_dest_qp_num(attr, doca_verbs_qp_get_qpn(peer->qp)));
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(attr, ah));
	ASSERT_OK(doca_verbs_qp_attr_set_path_mtu(attr, DOCA_MTU_SIZE_1K_BYTES));
	qp_move(s->qp, attr, DOCA_VERBS_QP_STATE_RTR, A(DEST_QP_NUM) | A(AH_ATTR) | A(PATH_MTU) | A(RQ_PSN));
	qp_move(s->qp, attr, DOCA_VERBS_QP_STATE_RTS, A(SQ_PSN));
	ASSERT_OK(doca_verbs_ah_attr_destroy(ah));
	ASSERT_OK(doca_verbs_qp_attr_destroy(attr));
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static enum doca_verbs_multi_rail_rail_status
status_of(struct side *s)
{
	enum doca_verbs_multi_rail_rail_status st;

	ASSERT_OK(doca_verbs_multi_rail_probe_get_status(s->mr_obj, 0, &st));
	return st;
}

static void
probe_both(struct side *a, struct side *b)
{
	ASSERT_OK(doca_verbs_multi_rail_probe_start(a->mr_obj));
	if (b->qp != NULL)
		ASSERT_OK(doca_verbs_multi_rail_probe_start(b->mr_obj));
}

/* Poll both sides until A reads want; returns the seconds it took (fails after 3 x the timeout). */
static double
wait_status(struct side *a, struct side *b, enum doca_verbs_multi_rail_rail_status want)
{
	double t0 = now_s();
	enum doca_verbs_multi_rail_rail_status st;

	while ((st = status_of(a)) != want) {
		if (b->qp != NULL)
			(void)status_of(b);
		if (now_s() - t0 > 3 * TIMEOUT_S)
			sd_test_fail(__FILE__, __LINE__, "rail status %d, expected %d", (int)st, (int)want);
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	return now_s() - t0;
}

/* A healthy round: A's heartbeat lands in B's slot and A stays UP past the timeout. */
static void
round_stays_up(struct side *a, struct side *b)
{
	double t0 = now_s();

	probe_both(a, b);
	while (now_s() - t0 < 1.3 * TIMEOUT_S) {
		ASSERT_EQ(status_of(a), DOCA_VERBS_MULTI_RAIL_RAIL_UP);
		ASSERT_EQ(status_of(b), DOCA_VERBS_MULTI_RAIL_RAIL_UP);
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	}
	ASSERT_EQ(__atomic_load_n(&b->buf[1], __ATOMIC_ACQUIRE), a->buf[0]);
	ASSERT_EQ(__atomic_load_n(&a->buf[1], __ATOMIC_ACQUIRE), b->buf[0]);
	ASSERT(a->buf[0] != 0);
}

static void
set_path(struct side *s, const struct side *peer)
{
	ASSERT_OK(doca_verbs_multi_rail_set_probe_qp(s->mr_obj, 0, s->qp, s->cq, s->buf, s->mr->lkey,
						     (uintptr_t)peer->buf, peer->mr->rkey));
}

static void
pair_open(struct side *a, struct side *b)
{
	struct doca_verbs_multi_rail_cfg *cfg;
	struct side *s[2] = {a, b};

	side_open(a, "mlx5_0");
	side_open(b, "mlx5_1");
	connect_uc(a, b, false);
	connect_uc(b, a, false);
	ASSERT_OK(doca_verbs_multi_rail_cfg_create(&cfg));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_probe_count(cfg, 4));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_probe_timeout_s(cfg, TIMEOUT_S));
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(doca_verbs_multi_rail_create(1, &s[i]->mr_obj));
		ASSERT_OK(doca_verbs_multi_rail_apply_cfg(s[i]->mr_obj, cfg));
	}
	ASSERT_OK(doca_verbs_multi_rail_cfg_destroy(cfg));
	ASSERT_ERR(doca_verbs_multi_rail_set_probe_qp(a->mr_obj, 0, a->qp, NULL, a->buf, a->mr->lkey, 0, 0),
		   DOCA_ERROR_INVALID_VALUE);
	set_path(a, b);
	set_path(b, a);
}

static void
pair_close(struct side *a, struct side *b)
{
	ASSERT_OK(doca_verbs_multi_rail_destroy(a->mr_obj));
	ASSERT_OK(doca_verbs_multi_rail_destroy(b->mr_obj));
	side_close(a);
	side_close(b);
}

/* B's QP to ERR: A DOWN within the timeout (and unused); B restored: a new round (PROBING, or UP at once), then UP. */
TEST(probe_peer_err_and_back)
{
	struct side a = {0}, b = {0};
	struct doca_verbs_multi_rail_chunk c;
	struct doca_verbs_qp_attr *attr;
	uint32_t n;
	enum doca_verbs_multi_rail_rail_status st;
	double took;

	pair_open(&a, &b);
	round_stays_up(&a, &b);

	ASSERT_OK(doca_verbs_qp_attr_create(&attr));
	qp_move(b.qp, attr, DOCA_VERBS_QP_STATE_ERR, 0);
	ASSERT_OK(doca_verbs_qp_attr_destroy(attr));
	probe_both(&a, &b);
	ASSERT_ERR(doca_verbs_multi_rail_set_probe_qp(a.mr_obj, 0, NULL, NULL, NULL, 0, 0, 0), DOCA_ERROR_BAD_STATE);
	took = wait_status(&a, &b, DOCA_VERBS_MULTI_RAIL_RAIL_DOWN);
	ASSERT(took <= TIMEOUT_S + 0.2);
	ASSERT_ERR(doca_verbs_multi_rail_get_post_split(a.mr_obj, 100, &c, 1, &n), DOCA_ERROR_NOT_CONNECTED);
	wait_status(&b, &a, DOCA_VERBS_MULTI_RAIL_RAIL_DOWN); /* B's own probes flushed */

	/* Both to RST first: each end's fresh soft NIC endpoint must be what the other resolves. */
	ASSERT_OK(doca_verbs_qp_attr_create(&attr));
	qp_move(a.qp, attr, DOCA_VERBS_QP_STATE_RST, 0);
	qp_move(b.qp, attr, DOCA_VERBS_QP_STATE_RST, 0);
	ASSERT_OK(doca_verbs_qp_attr_destroy(attr));
	connect_uc(&b, &a, false);
	connect_uc(&a, &b, false);
	probe_both(&a, &b);
	/*
	 * No longer DOWN: the round is in flight, or already settled UP when the
	 * first status poll drove both ends' probes through (one soft NIC here).
	 */
	st = status_of(&a);
	ASSERT(st == DOCA_VERBS_MULTI_RAIL_RAIL_PROBING || st == DOCA_VERBS_MULTI_RAIL_RAIL_UP);
	wait_status(&a, &b, DOCA_VERBS_MULTI_RAIL_RAIL_UP);
	wait_status(&b, &a, DOCA_VERBS_MULTI_RAIL_RAIL_UP);
	ASSERT_OK(doca_verbs_multi_rail_get_post_split(a.mr_obj, 100, &c, 1, &n));
	round_stays_up(&a, &b);
	pair_close(&a, &b);
}

/* B's QP destroyed: A DOWN within the timeout; a new QP on B: A UP again. */
TEST(probe_peer_destroyed_and_replaced)
{
	struct side a = {0}, b = {0};
	double took;

	pair_open(&a, &b);
	round_stays_up(&a, &b);

	ASSERT_OK(doca_verbs_multi_rail_set_probe_qp(b.mr_obj, 0, NULL, NULL, NULL, 0, 0, 0));
	ASSERT_OK(doca_verbs_qp_destroy(b.qp));
	b.qp = NULL;
	probe_both(&a, &b);
	took = wait_status(&a, &b, DOCA_VERBS_MULTI_RAIL_RAIL_DOWN);
	ASSERT(took <= TIMEOUT_S + 0.2);

	b.qp = make_qp(b.ctx, b.pd, b.cq, DOCA_VERBS_QP_TYPE_UC);
	connect_uc(&a, &b, true); /* A first: it must be unbound from the old QP before B resolves it */
	connect_uc(&b, &a, false);
	set_path(&b, &a);
	probe_both(&a, &b);
	wait_status(&a, &b, DOCA_VERBS_MULTI_RAIL_RAIL_UP);
	round_stays_up(&a, &b);
	pair_close(&a, &b);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
