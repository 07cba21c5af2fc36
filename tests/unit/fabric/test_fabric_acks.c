/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receiver's lone acks between real processes (shm and tcp).  A stream's
 * lone ack waits for a batch (FABRIC_ACK_BATCH) while its messages keep
 * coming; a connection with fewer than a batch owed whose messages stopped
 * must still be acknowledged while another connection of the same context
 * streams, and the stream's own sends must all complete.
 */
#include <poll.h>

#include "fabric_test.h"

#define DEPTH 16      /* stream sends in flight */
#define RECVS 64      /* receives the receiver keeps posted */
#define WARM 2000     /* stream sends completed before the quiet connection sends */
#define QUIET_MSGS 2u /* fewer than a batch */

struct rx {
	struct fabric_ctx *ctx;
	struct fabric_ep *quiet;
	uint8_t bufs[RECVS][64];
	struct fabric_op ops[RECVS];
	unsigned stream, quiet_got, bad;
};

/* A receive completed: count it by connection, check a quiet one's bytes, post it again. */
static void
rx_done(struct fabric_op *op)
{
	struct rx *r = op->user;
	size_t i = (size_t)(op - r->ops);
	char want[8];

	if (op->status != DOCA_SUCCESS) {
		r->bad++;
		return;
	}
	if (op->src_ep == r->quiet) {
		snprintf(want, sizeof(want), "q%u", r->quiet_got);
		r->bad += op->len != strlen(want) + 1 || memcmp(r->bufs[i], want, op->len) != 0;
		r->quiet_got++;
	} else {
		r->stream++;
	}
	op->cb = rx_done;
	op->user = r;
	if (sd_fabric_ctx_post_recv(r->ctx, op, r->bufs[i], sizeof(r->bufs[i])) != DOCA_SUCCESS)
		r->bad++;
}

/* A second connection between the same two contexts (blobs over the socket). */
static struct fabric_ep *
second_ep(struct side *s)
{
	uint8_t peer[FABRIC_BLOB_MAX];
	struct fabric_ep *ep;
	const void *blob;
	size_t len, plen;

	CHECK_ERR(sd_fabric_ep_create(s->ctx, s, &ep), DOCA_SUCCESS);
	CHECK_ERR(sd_fabric_ep_export(ep, &blob, &len), DOCA_SUCCESS);
	send_blob(s->sock, blob, len);
	plen = recv_blob(s->sock, peer, sizeof(peer));
	CHECK_ERR(sd_fabric_ep_connect(ep, peer, plen, NULL), DOCA_SUCCESS);
	return ep;
}

static bool
readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

/* The receiver: keeps RECVS receives posted and progresses until the sender says it is done. */
static void
receiver(struct side *s)
{
	struct rx *r = calloc(1, sizeof(*r));
	unsigned spins = 0;

	side_open(s, 5000);
	side_connect(s);
	r->ctx = s->ctx;
	r->quiet = second_ep(s);
	for (size_t i = 0; i < RECVS; i++) {
		r->ops[i].cb = rx_done;
		r->ops[i].user = r;
		CHECK_ERR(sd_fabric_ctx_post_recv(s->ctx, &r->ops[i], r->bufs[i], sizeof(r->bufs[i])), DOCA_SUCCESS);
	}
	sync_send(s->sock); /* receives posted */
	while ((++spins & 1023) != 0 || !readable(s->sock))
		sd_fabric_ctx_progress(s->ctx);
	sync_wait(s->sock);
	CHECK(r->bad == 0);
	CHECK(r->quiet_got == QUIET_MSGS);
	CHECK(r->stream >= WARM);
	sync_send(s->sock);
	sync_wait(s->sock);
	sd_fabric_ep_destroy(r->quiet);
	side_close(s);
	free(r);
}

struct tx {
	struct fabric_ep *ep;
	struct fabric_op ops[DEPTH];
	unsigned done, inflight, bad;
	bool streaming;
};

static const char stream_msg[] = "stream";

/* A stream send completed: count it and send again while the stream runs. */
static void
tx_done(struct fabric_op *op)
{
	struct tx *t = op->user;

	t->inflight--;
	if (op->status != DOCA_SUCCESS) {
		t->bad++;
		return;
	}
	t->done++;
	if (!t->streaming)
		return;
	op->cb = tx_done;
	op->user = t;
	if (sd_fabric_ep_send(t->ep, op, stream_msg, sizeof(stream_msg)) == DOCA_SUCCESS)
		t->inflight++;
	else
		t->bad++;
}

static void
run_quiet_connection_acked_beside_a_stream(int tcp)
{
	struct fabric_op quiet[QUIET_MSGS];
	char msgs[QUIET_MSGS][8];
	struct fabric_ep *qep;
	struct side s = {0};
	struct tx t = {0};
	int quiet_done = 0;
	double t0, took;
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		receiver(&s);
		_exit(0);
	}
	side_open(&s, 0);
	side_connect(&s);
	qep = second_ep(&s);
	sync_wait(s.sock);
	t.ep = s.ep;
	t.streaming = true;
	for (size_t i = 0; i < DEPTH; i++) {
		t.ops[i].cb = tx_done;
		t.ops[i].user = &t;
		ASSERT_OK(sd_fabric_ep_send(s.ep, &t.ops[i], stream_msg, sizeof(stream_msg)));
		t.inflight++;
	}
	t0 = now_s();
	while (t.done < WARM && t.bad == 0 && now_s() - t0 < 20.0)
		sd_fabric_ctx_progress(s.ctx);
	ASSERT_EQ(t.bad, 0);
	ASSERT(t.done >= WARM);
	/* fewer messages than a batch on the other connection, the stream still running */
	for (unsigned i = 0; i < QUIET_MSGS; i++) {
		snprintf(msgs[i], sizeof(msgs[i]), "q%u", i);
		quiet[i] = (struct fabric_op){.cb = op_done, .user = &quiet_done};
		ASSERT_OK(sd_fabric_ep_send(qep, &quiet[i], msgs[i], strlen(msgs[i]) + 1));
	}
	t0 = now_s();
	while (quiet_done < (int)QUIET_MSGS && t.bad == 0 && now_s() - t0 < 5.0)
		sd_fabric_ctx_progress(s.ctx);
	took = now_s() - t0;
	ASSERT_EQ(quiet_done, (int)QUIET_MSGS);
	for (unsigned i = 0; i < QUIET_MSGS; i++)
		ASSERT_OK(quiet[i].status);
	/* the stream kept the receiver busy meanwhile, and its own sends still complete */
	ASSERT_EQ(t.bad, 0);
	t.streaming = false;
	t0 = now_s();
	while (t.inflight > 0 && now_s() - t0 < 5.0)
		sd_fabric_ctx_progress(s.ctx);
	ASSERT_EQ(t.inflight, 0);
	ASSERT_EQ(t.bad, 0);
	fprintf(stderr, "# quiet connection acked after %.1f us beside a stream of %u sends\n", took * 1e6, t.done);
	sync_send(s.sock); /* done */
	sync_wait(s.sock); /* the receiver checked */
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_ep_destroy(qep);
	side_close(&s);
}
BOTH(quiet_connection_acked_beside_a_stream)

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
