/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs traffic of the soak: an RC QP per side, connected from the QP number, GID, address
 * and rkey swapped over the socketpair (as tests/api/verbs/test_verbs_dp_proc.c does).  Per
 * round a 16 KiB RDMA write of the round's pattern into the peer's buffer read back with an
 * RDMA read (K_VERBS_WRITE), and a 4 KiB send the peer echoes (K_VERBS_SEND); the long-lived
 * side verifies every byte.  One host only: a Verbs GID comes from the process's topology,
 * which cannot name the other namespace's veth (docs/robustness.md).
 */
#include <poll.h>

#include "../api/verbs/dp_test.h"
#include "sd_test_peer.h"
#include "soak.h"

#define VB_BUF (64u * 1024u)
#define VB_SLOT (16u * 1024u)
#define VB_MSG 4096u
#define VB_CHECK (VB_SLOT)	      /* read-back area */
#define VB_OUT (2u * VB_SLOT)	      /* outgoing message */
#define VB_IN (2u * VB_SLOT + VB_MSG) /* incoming message */

struct vb_info {
	uint32_t qpn, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

struct vb {
	struct dp d;
	struct doca_verbs_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
	struct vb_info peer;
};

static void
vb_open(struct vb *v, int fd)
{
	struct vb_info me;
	struct doca_verbs_gid g;

	dp_open(&v->d);
	v->qp = dp_qp(&v->d, NULL);
	v->buf = aligned_alloc(64, VB_BUF);
	ASSERT_NOT_NULL(v->buf);
	memset(v->buf, 0, VB_BUF);
	v->mr = dp_mr(&v->d, v->buf, VB_BUF, DP_RW);
	me = (struct vb_info){.qpn = doca_verbs_qp_get_qpn(v->qp), .rkey = v->mr->rkey, .addr = (uintptr_t)v->buf};
	memcpy(me.gid, v->d.gid.raw, 16);
	ASSERT(soak_xfer(fd, &me, sizeof(me), true) && soak_xfer(fd, &v->peer, sizeof(v->peer), false));
	memcpy(g.raw, v->peer.gid, 16);
	dp_to_init(v->qp);
	dp_to_rts(v->d.ctx, v->qp, &g, v->peer.qpn, 7);
}

static void
vb_close(struct vb *v)
{
	ASSERT_OK(doca_verbs_qp_destroy(v->qp));
	ASSERT_EQ(ibv_dereg_mr(v->mr), 0);
	free(v->buf);
	dp_close(&v->d);
}

/* n completions, each checked; the first failed one's error (the QP then flushes the rest). */
static doca_error_t
vb_poll(struct vb *v, int n)
{
	double start = soak_now();
	doca_error_t err = DOCA_SUCCESS;
	struct ibv_wc wc;

	for (int got = 0; got < n;) {
		int r = doca_verbs_bridge_poll_cq(v->d.cq, 1, &wc);

		ASSERT(r >= 0);
		if (r == 0) {
			soak_watchdog(start, "a Verbs work request");
			continue;
		}
		got++;
		if (wc.status != IBV_WC_SUCCESS && err == DOCA_SUCCESS)
			err = DOCA_ERROR_CONNECTION_RESET;
	}
	soak_op_took(start);
	return err;
}

static void
verbs_up(struct soak_cycle *c)
{
	struct vb *v = calloc(1, sizeof(*v));

	ASSERT_NOT_NULL(v);
	c->state = v;
	vb_open(v, c->sock);
}

static doca_error_t
verbs_round(struct soak_cycle *c, uint64_t r)
{
	struct vb *v = c->state;
	uint64_t slot = v->peer.addr + (r % 2) * VB_SLOT; /* below VB_OUT: the peer echoes from VB_IN */
	doca_error_t err;

	soak_fill(v->buf, VB_SLOT, r);
	memset(v->buf + VB_CHECK, 0, VB_SLOT);
	if (dp_send(v->qp, IBV_WR_RDMA_WRITE, 1, v->buf, VB_SLOT, v->mr->lkey, slot, v->peer.rkey) != 0 ||
	    dp_send(v->qp, IBV_WR_RDMA_READ, 2, v->buf + VB_CHECK, VB_SLOT, v->mr->lkey, slot, v->peer.rkey) != 0)
		return DOCA_ERROR_CONNECTION_RESET;
	err = vb_poll(v, 2);
	if (err != DOCA_SUCCESS)
		return err;
	soak_verify(v->buf + VB_CHECK, VB_SLOT, r, "Verbs write+read");
	soak_count(K_VERBS_WRITE, 2 * VB_SLOT);
	soak_fill(v->buf + VB_OUT, VB_MSG, r);
	memset(v->buf + VB_IN, 0, VB_MSG);
	dp_recv(v->qp, 3, v->buf + VB_IN, VB_MSG, v->mr->lkey);
	if (dp_send(v->qp, IBV_WR_SEND, 4, v->buf + VB_OUT, VB_MSG, v->mr->lkey, 0, 0) != 0)
		return DOCA_ERROR_CONNECTION_RESET;
	err = vb_poll(v, 2);
	if (err != DOCA_SUCCESS)
		return err;
	soak_verify(v->buf + VB_IN, VB_MSG, r, "Verbs send echo");
	soak_count(K_VERBS_SEND, 2 * VB_MSG);
	return DOCA_SUCCESS;
}

static void
verbs_down(struct soak_cycle *c)
{
	vb_close(c->state);
	free(c->state);
}

/* The peer: echo every message from where it landed, until 'q' (or a failed request). */
static int
verbs_peer(struct soak_cycle *c)
{
	struct vb v = {0};
	struct ibv_wc wc;
	int code = 0;

	vb_open(&v, c->sock);
	dp_recv(v.qp, 10, v.buf + VB_IN, VB_MSG, v.mr->lkey);
	for (;;) {
		struct pollfd p = {.fd = c->sock, .events = POLLIN};
		int r = doca_verbs_bridge_poll_cq(v.d.cq, 1, &wc);

		ASSERT(r >= 0);
		if (r == 1 && wc.status != IBV_WC_SUCCESS) {
			code = 3;
			break;
		}
		if (r == 1 && wc.wr_id == 10 &&
		    dp_send(v.qp, IBV_WR_SEND, 11, v.buf + VB_IN, wc.byte_len, v.mr->lkey, 0, 0) != 0) {
			code = 3;
			break;
		}
		if (r == 1 && wc.wr_id == 11)
			dp_recv(v.qp, 10, v.buf + VB_IN, VB_MSG, v.mr->lkey);
		if (r == 0 && poll(&p, 1, 0) == 1)
			break; /* 'q', or EOF */
	}
	vb_close(&v);
	return code;
}

const struct soak_kind_ops soak_verbs_ops = {
	.name = "Verbs",
	.peer = verbs_peer,
	.up = verbs_up,
	.round = verbs_round,
	.down = verbs_down,
};
