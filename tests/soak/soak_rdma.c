/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA traffic of the soak: per round a 64 KiB write of the round's pattern into the peer's
 * memory and a read of it back (K_RDMA_WRITE_READ), then a 4 KiB send the peer echoes back
 * (K_RDMA_SEND); the long-lived side verifies every byte.  The connection is made from OOB
 * descriptors over the socketpair or, every other cycle, over RDMA-CM (the peer listens).
 * The peer keeps traffic of its own going (an echo per message, a verified 64-byte read of
 * the long-lived side's memory when idle): when the driver SIGKILLs the long-lived process,
 * the peer is the survivor and must see a task fail, which it reports (exit 0 with the time).
 */
#include <poll.h>
#include <string.h>

#include "../api/rdma/rdma_test.h"
#include "soak.h"

#define SLOT_LEN (64u * 1024u)
#define SLOTS 8u
#define MSG_LEN 4096u
#define STAMP_LEN 64u
#define OFF_CHECK (SLOT_LEN)		   /* read-back area of the long-lived side */
#define OFF_MSG (2u * SLOT_LEN)		   /* outgoing message */
#define OFF_ECHO (2u * SLOT_LEN + MSG_LEN) /* incoming echo */
#define OFF_STAMP (MEM_LEN - STAMP_LEN)	   /* what the peer's keepalive reads */
/* the peer's own areas, above the slots the long-lived side writes and reads back */
#define PEER_MSG (SLOTS * SLOT_LEN)
#define PEER_KEEP (SLOTS * SLOT_LEN + MSG_LEN)
#define RW_PERMS (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE)

struct rd {
	struct node n;
	struct doca_mmap *remote;
	uint8_t *raddr;
	struct doca_buf *src, *rdst, *rsrc, *dst, *msg, *echo;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_send *st;
	struct result wr, rr, sr, er;
	int established, failed;
};

static void
cm_request(struct doca_rdma_connection *conn, union doca_data ctx_ud)
{
	(void)ctx_ud;
	ASSERT_OK(doca_rdma_connection_accept(conn, NULL, 0));
}

static void
cm_established(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct rd *d = ctx_ud.ptr; /* node_open's user data is the node, the first member of struct rd */

	(void)conn_ud;
	d->n.conn = conn;
	d->established++;
}

static void
cm_gone(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct rd *d = ctx_ud.ptr;

	(void)conn;
	(void)conn_ud;
	d->failed++;
}

/* Open, start and connect: OOB descriptors, or RDMA-CM towards the peer's listener. */
static void
rd_open(struct rd *d, struct soak_cycle *c, bool listener)
{
	size_t rlen;

	d->n.sock = c->sock;
	node_open(&d->n, RW_PERMS, RW_PERMS, 1);
	soak_fill(d->n.mem + OFF_STAMP, STAMP_LEN, 0); /* what the peer's keepalive reads, set before it can */
	node_conf_all(&d->n);
	if (c->cm)
		ASSERT_OK(doca_rdma_set_connection_state_callbacks(d->n.rdma, listener ? cm_request : NULL,
								   cm_established, cm_gone, cm_gone));
	node_start(&d->n);
	if (!c->cm) {
		node_connect(&d->n);
	} else if (listener) {
		uint16_t port = free_port();

		ASSERT_OK(doca_rdma_start_listen_to_port(d->n.rdma, port));
		ASSERT_EQ(write(c->sock, &port, sizeof(port)), (ssize_t)sizeof(port));
		ASSERT(node_wait(&d->n, &d->established, 1, SOAK_OP_BOUND_S));
	} else {
		struct doca_rdma_addr *addr;
		uint16_t port;

		ASSERT_EQ(read(c->sock, &port, sizeof(port)), (ssize_t)sizeof(port));
		ASSERT_OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4,
						c->where == W_NETNS ? soak->addr_b : "127.0.0.1", port, &addr));
		ASSERT_OK(doca_rdma_connect_to_addr(d->n.rdma, addr, (union doca_data){.u64 = 1}));
		ASSERT_OK(doca_rdma_addr_destroy(addr));
		if (!node_wait(&d->n, &d->established, 1, SOAK_OP_BOUND_S))
			sd_test_fail(__FILE__, __LINE__, "hang: an RDMA-CM connection not made in %.0f s",
				     SOAK_OP_BOUND_S);
	}
	/* each side reads or writes the other's memory */
	node_send_mmap(&d->n);
	d->remote = node_recv_mmap(&d->n);
	ASSERT_OK(doca_mmap_get_memrange(d->remote, (void **)&d->raddr, &rlen));
	ASSERT(rlen == MEM_LEN);
}

/* Submit and progress until done; the watchdog bounds the wait. */
static doca_error_t
rd_run(struct rd *d, struct doca_task *t, struct result *r)
{
	double start = soak_now();

	r->done = 0;
	if (doca_task_submit(t) != DOCA_SUCCESS)
		return DOCA_ERROR_CONNECTION_ABORTED; /* refused: the context already left RUNNING */
	while (r->done == 0) {
		if (doca_pe_progress(d->n.pe) == 0)
			usleep(20);
		soak_watchdog(start, "an RDMA task");
	}
	soak_op_took(start);
	return r->status;
}

/* Stop (failing what is in flight), then free the tasks, buffers and objects; rt: a posted receive. */
static void
rd_close(struct rd *d, struct doca_rdma_task_receive *rt)
{
	struct doca_buf *bufs[] = {d->src, d->rdst, d->rsrc, d->dst, d->msg, d->echo};
	doca_error_t err = doca_ctx_stop(d->n.ctx);
	double start = soak_now();

	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS || err == DOCA_ERROR_BAD_STATE);
	while (d->n.state != DOCA_CTX_STATE_IDLE) {
		if (doca_pe_progress(d->n.pe) == 0)
			usleep(20);
		soak_watchdog(start, "an RDMA context stop");
	}
	if (rt != NULL)
		doca_task_free(doca_rdma_task_receive_as_task(rt));
	if (d->wt != NULL)
		doca_task_free(doca_rdma_task_write_as_task(d->wt));
	if (d->rt != NULL)
		doca_task_free(doca_rdma_task_read_as_task(d->rt));
	if (d->st != NULL)
		doca_task_free(doca_rdma_task_send_as_task(d->st));
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (bufs[i] != NULL)
			ASSERT_OK(doca_buf_dec_refcount(bufs[i], NULL));
	(void)doca_mmap_stop(d->remote);
	ASSERT_OK(doca_mmap_destroy(d->remote));
	ASSERT_OK(doca_rdma_destroy(d->n.rdma));
	ASSERT_OK(doca_pe_destroy(d->n.pe));
	ASSERT_OK(doca_buf_inventory_stop(d->n.inv));
	ASSERT_OK(doca_buf_inventory_destroy(d->n.inv));
	ASSERT_OK(doca_mmap_stop(d->n.mmap));
	ASSERT_OK(doca_mmap_destroy(d->n.mmap));
	ASSERT_OK(doca_dev_close(d->n.dev));
	free(d->n.mem);
}

/* ---- the long-lived side ---- */

static void
rdma_up(struct soak_cycle *c)
{
	struct rd *d = calloc(1, sizeof(*d));
	union doca_data none = {.u64 = 0};

	ASSERT_NOT_NULL(d);
	c->state = d;
	rd_open(d, c, false);
	d->src = buf_at(&d->n, d->n.mmap, d->n.mem, SLOT_LEN, SLOT_LEN);
	d->dst = buf_at(&d->n, d->n.mmap, d->n.mem + OFF_CHECK, SLOT_LEN, 0);
	d->rdst = buf_at(&d->n, d->remote, d->raddr, SLOTS * SLOT_LEN, 0);
	d->rsrc = buf_at(&d->n, d->remote, d->raddr, SLOTS * SLOT_LEN, SLOTS * SLOT_LEN);
	d->msg = buf_at(&d->n, d->n.mmap, d->n.mem + OFF_MSG, MSG_LEN, MSG_LEN);
	d->echo = buf_at(&d->n, d->n.mmap, d->n.mem + OFF_ECHO, MSG_LEN, 0);
	ASSERT_OK(doca_rdma_task_write_allocate_init(d->n.rdma, d->n.conn, d->src, d->rdst, none, &d->wt));
	ASSERT_OK(doca_rdma_task_read_allocate_init(d->n.rdma, d->n.conn, d->rsrc, d->dst, none, &d->rt));
	ASSERT_OK(doca_rdma_task_send_allocate_init(d->n.rdma, d->n.conn, d->msg, none, &d->st));
	doca_task_set_user_data(doca_rdma_task_write_as_task(d->wt), (union doca_data){.ptr = &d->wr});
	doca_task_set_user_data(doca_rdma_task_read_as_task(d->rt), (union doca_data){.ptr = &d->rr});
	doca_task_set_user_data(doca_rdma_task_send_as_task(d->st), (union doca_data){.ptr = &d->sr});
}

/* The peer echoes the message: receive it back and check it. */
static doca_error_t
rdma_send_round(struct rd *d, uint64_t r)
{
	struct doca_rdma_task_receive *rt;
	doca_error_t err;
	double start;

	soak_fill(d->n.mem + OFF_MSG, MSG_LEN, r);
	memset(d->n.mem + OFF_ECHO, 0, MSG_LEN);
	ASSERT_OK(doca_buf_reset_data_len(d->echo));
	ASSERT_OK(doca_rdma_task_receive_allocate_init(d->n.rdma, d->echo, (union doca_data){.ptr = &d->er}, &rt));
	d->er.done = 0;
	if (doca_task_submit(doca_rdma_task_receive_as_task(rt)) != DOCA_SUCCESS) {
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		return DOCA_ERROR_CONNECTION_ABORTED;
	}
	err = rd_run(d, doca_rdma_task_send_as_task(d->st), &d->sr);
	for (start = soak_now(); d->er.done == 0;) {
		if (doca_pe_progress(d->n.pe) == 0)
			usleep(20);
		soak_watchdog(start, "an RDMA receive");
	}
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	if (err == DOCA_SUCCESS)
		err = d->er.status;
	if (err != DOCA_SUCCESS)
		return err;
	soak_verify(d->n.mem + OFF_ECHO, MSG_LEN, r, "RDMA send echo");
	soak_count(K_RDMA_SEND, 2 * MSG_LEN);
	return DOCA_SUCCESS;
}

static doca_error_t
rdma_round(struct soak_cycle *c, uint64_t r)
{
	struct rd *d = c->state;
	uint8_t *slot = d->raddr + (size_t)(r % SLOTS) * SLOT_LEN;
	doca_error_t err;

	soak_fill(d->n.mem, SLOT_LEN, r);
	memset(d->n.mem + OFF_CHECK, 0, SLOT_LEN);
	ASSERT_OK(doca_buf_set_data(d->rdst, slot, 0));
	ASSERT_OK(doca_buf_set_data(d->rsrc, slot, SLOT_LEN));
	ASSERT_OK(doca_buf_set_data(d->dst, d->n.mem + OFF_CHECK, 0));
	err = rd_run(d, doca_rdma_task_write_as_task(d->wt), &d->wr);
	if (err == DOCA_SUCCESS)
		err = rd_run(d, doca_rdma_task_read_as_task(d->rt), &d->rr);
	if (err != DOCA_SUCCESS)
		return err;
	soak_verify(d->n.mem + OFF_CHECK, SLOT_LEN, r, "RDMA write+read");
	soak_count(K_RDMA_WRITE_READ, 2 * SLOT_LEN);
	return rdma_send_round(d, r);
}

static void
rdma_down(struct soak_cycle *c)
{
	rd_close(c->state, NULL);
	free(c->state);
}

/* ---- the peer ---- */

/* One echo of a received message; false when a task failed. */
static bool
peer_echo(struct rd *d, struct doca_rdma_task_receive **rt)
{
	size_t len;

	if (d->er.status != DOCA_SUCCESS)
		return false;
	ASSERT_OK(doca_buf_get_data_len(d->echo, &len));
	ASSERT_OK(doca_buf_set_data(d->msg, d->n.mem + PEER_MSG, len));
	if (rd_run(d, doca_rdma_task_send_as_task(d->st), &d->sr) != DOCA_SUCCESS)
		return false;
	ASSERT_OK(doca_buf_reset_data_len(d->echo));
	d->er.done = 0;
	return doca_task_submit(doca_rdma_task_receive_as_task(*rt)) == DOCA_SUCCESS;
}

/* A 64-byte read of the long-lived side's stamp, checked: false when it failed. */
static bool
peer_keepalive(struct rd *d)
{
	ASSERT_OK(doca_buf_set_data(d->dst, d->n.mem + PEER_KEEP, 0));
	if (rd_run(d, doca_rdma_task_read_as_task(d->rt), &d->rr) != DOCA_SUCCESS)
		return false;
	return soak_verify(d->n.mem + PEER_KEEP, STAMP_LEN, 0, "RDMA keepalive read");
}

/* The survivor's report: a failed task after the long-lived side was SIGKILLed is the expected end. */
static int
peer_failed(void)
{
	double killed = soak->life_killed_at;

	if (killed == 0)
		return 3; /* the long-lived side still counts this (a link event or its own SIGKILL of us) */
	soak_max(&soak->worst_life_detect_s, soak_now() - killed);
	__atomic_add_fetch(&soak->survivors_reported, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static int
rdma_peer(struct soak_cycle *c)
{
	struct rd d = {0};
	struct doca_rdma_task_receive *rt;
	bool sock_open = true, ok = true;
	double idle = soak_now();
	int code = 0;

	rd_open(&d, c, true);
	d.msg = buf_at(&d.n, d.n.mmap, d.n.mem + PEER_MSG, MSG_LEN, 0); /* the echo goes out from where it came in */
	d.echo = buf_at(&d.n, d.n.mmap, d.n.mem + PEER_MSG, MSG_LEN, 0);
	d.rsrc = buf_at(&d.n, d.remote, d.raddr + OFF_STAMP, STAMP_LEN, STAMP_LEN);
	d.dst = buf_at(&d.n, d.n.mmap, d.n.mem + PEER_KEEP, STAMP_LEN, 0);
	ASSERT_OK(doca_rdma_task_send_allocate_init(d.n.rdma, d.n.conn, d.msg, (union doca_data){.ptr = &d.sr}, &d.st));
	ASSERT_OK(doca_rdma_task_read_allocate_init(d.n.rdma, d.n.conn, d.rsrc, d.dst, (union doca_data){.ptr = &d.rr},
						    &d.rt));
	ASSERT_OK(doca_rdma_task_receive_allocate_init(d.n.rdma, d.echo, (union doca_data){.ptr = &d.er}, &rt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	while (ok) {
		struct pollfd p = {.fd = c->sock, .events = POLLIN};
		char q;

		if (doca_pe_progress(d.n.pe) == 0)
			usleep(50);
		if (d.er.done != 0) {
			ok = peer_echo(&d, &rt);
			idle = soak_now();
		} else if (soak_now() - idle > 0.02) {
			ok = peer_keepalive(&d);
			idle = soak_now();
		}
		/* 'q': go; EOF: the long-lived side died, which only a failed task may tell us */
		if (sock_open && poll(&p, 1, 0) == 1) {
			if (read(c->sock, &q, 1) == 1)
				break;
			sock_open = false;
		}
	}
	if (!ok)
		code = peer_failed();
	rd_close(&d, rt);
	return code;
}

const struct soak_kind_ops soak_rdma_ops = {
	.name = "RDMA",
	.peer = rdma_peer,
	.up = rdma_up,
	.round = rdma_round,
	.down = rdma_down,
};
