/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract tests of the soft NIC (src/fabric/fabric.h) between real processes:
 * each case forks its peers, exchanges descriptors over a socketpair and runs
 * once over UCX shared memory (default transports) and once over tcp on
 * loopback (UCX_TLS=tcp), where writes travel as active messages.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>

#include "fabric_test.h"

/* ---- send / receive ---- */

static void
run_send_recv(int tcp)
{
	static const size_t sizes[] = {0, 8, 4000, 1 << 20};
	struct side s = {0};
	pid_t pid;
	size_t i;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		uint8_t *buf = malloc(1 << 20), *want = malloc(1 << 20);

		side_open(&s, 0);
		side_connect(&s);
		for (i = 0; i < SD_ARRAY_SIZE(sizes); i++) {
			struct fabric_op op = {.cb = op_done};
			int done = 0;

			op.user = &done;
			memset(buf, 0, 1 << 20);
			CHECK_ERR(sd_fabric_ctx_post_recv(s.ctx, &op, buf, 1 << 20), DOCA_SUCCESS);
			sync_send(s.sock); /* receive posted */
			CHECK_ERR(wait_op(&s, &op, &done), DOCA_SUCCESS);
			CHECK(op.len == sizes[i]);
			CHECK(op.opcode == (i == 1 ? FABRIC_RECV_SEND_IMM : FABRIC_RECV_SEND));
			CHECK(op.src_ep == s.ep);
			if (i == 1)
				CHECK(op.imm == 0xABCD);
			fill(want, sizes[i], (uint8_t)i);
			CHECK(memcmp(buf, want, sizes[i]) == 0);
			CHECK(sizes[i] == (1 << 20) || buf[sizes[i]] == 0); /* nothing beyond */
		}
		sync_wait(s.sock);
		side_close(&s);
		_exit(0);
	}
	uint8_t *src = malloc(1 << 20);

	side_open(&s, 0);
	side_connect(&s);
	for (i = 0; i < SD_ARRAY_SIZE(sizes); i++) {
		struct fabric_op op = {.cb = op_done};
		int done = 0;

		op.user = &done;
		fill(src, sizes[i], (uint8_t)i);
		sync_wait(s.sock);
		if (i == 1)
			ASSERT_OK(sd_fabric_ep_send_imm(s.ep, &op, src, sizes[i], 0xABCD));
		else
			ASSERT_OK(sd_fabric_ep_send(s.ep, &op, sizes[i] ? src : NULL, sizes[i]));
		ASSERT_OK(wait_op(&s, &op, &done));
	}
	sync_send(s.sock);
	sd_test_reap(pid);
	side_close(&s);
	free(src);
}
BOTH(send_recv)

/* A message sent before the receive is posted waits for it (within the rnr timeout). */
static void
run_send_before_recv(int tcp)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		struct fabric_op op = {.cb = op_done};
		char buf[64] = {0};
		int done = 0;

		side_open(&s, 5000);
		side_connect(&s);
		sync_wait(s.sock); /* peer has sent */
		usleep(200 * 1000);
		op.user = &done;
		CHECK_ERR(sd_fabric_ctx_post_recv(s.ctx, &op, buf, sizeof(buf)), DOCA_SUCCESS);
		CHECK_ERR(wait_op(&s, &op, &done), DOCA_SUCCESS);
		CHECK(op.len == 6 && memcmp(buf, "early", 6) == 0);
		sync_wait(s.sock);
		side_close(&s);
		_exit(0);
	}
	struct fabric_op op = {.cb = op_done};
	int done = 0;

	side_open(&s, 0);
	side_connect(&s);
	op.user = &done;
	ASSERT_OK(sd_fabric_ep_send(s.ep, &op, "early", 6));
	sync_send(s.sock);
	ASSERT_OK(wait_op(&s, &op, &done));
	sync_send(s.sock);
	sd_test_reap(pid);
	side_close(&s);
}
BOTH(send_before_recv)

/* No receive ever posted: after the rnr timeout both sides see TIME_OUT. */
static void
run_send_without_recv(int tcp)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		int never = 0;
		double t0;

		side_open(&s, 300);
		side_connect(&s);
		sync_wait(s.sock);
		t0 = now_s();
		wait_flag(&s, &s.ep_errs, 1, NULL, 5.0);
		CHECK(s.ep_errs == 1);
		CHECK(s.ep_err == DOCA_ERROR_TIME_OUT);
		CHECK(now_s() - t0 < 3.0);
		(void)never;
		sync_wait(s.sock);
		side_close(&s);
		_exit(0);
	}
	struct fabric_op op = {.cb = op_done}, op2 = {.cb = op_done};
	int done = 0, done2 = 0;

	side_open(&s, 0);
	side_connect(&s);
	op.user = &done;
	op2.user = &done2;
	ASSERT_OK(sd_fabric_ep_send(s.ep, &op, "lost", 5));
	sync_send(s.sock);
	ASSERT_ERR(wait_op(&s, &op, &done), DOCA_ERROR_TIME_OUT);
	wait_flag(&s, &s.ep_errs, 1, NULL, 2.0);
	ASSERT_EQ(s.ep_errs, 1);
	/* the connection is dead: nothing more goes out */
	ASSERT_ERR(sd_fabric_ep_send(s.ep, &op2, "x", 1), DOCA_ERROR_NOT_CONNECTED);
	sync_send(s.sock);
	sd_test_reap(pid);
	side_close(&s);
}
BOTH(send_without_recv)

/* ---- one-sided ---- */

#define WLEN (1u << 20)

/* RC ordering: the receive of a send_imm posted after a write sees the write's data. */
static void
run_write_then_send(int tcp)
{
	struct side s = {0};
	pid_t pid;
	int round;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		uint8_t *mem = calloc(1, WLEN), *want = malloc(WLEN);
		struct fabric_mr *mr;

		side_open(&s, 0);
		side_connect(&s);
		mr = export_mr(&s, mem, WLEN, FABRIC_PERM_REMOTE_WRITE);
		for (round = 0; round < 8; round++) {
			struct fabric_op op = {.cb = op_done};
			int done = 0;

			op.user = &done;
			CHECK_ERR(sd_fabric_ctx_post_recv(s.ctx, &op, NULL, 0), DOCA_SUCCESS);
			sync_send(s.sock);
			CHECK_ERR(wait_op(&s, &op, &done), DOCA_SUCCESS);
			fill(want, WLEN, (uint8_t)round);
			/* compare first, then the metadata: the data must be there already */
			CHECK(memcmp(mem, want, WLEN) == 0);
			CHECK(op.imm == (uint32_t)round);
			CHECK(op.opcode == (round & 1 ? FABRIC_RECV_WRITE_IMM : FABRIC_RECV_SEND_IMM));
			CHECK(op.len == (round & 1 ? WLEN : 0));
		}
		sync_wait(s.sock);
		sd_fabric_mr_deregister(mr);
		side_close(&s);
		_exit(0);
	}
	uint8_t *src = malloc(WLEN);
	struct fabric_rmr *rmr;
	struct fabric_ep_stats st;
	uint64_t raddr;

	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	sd_fabric_ep_get_stats(s.ep, &st);
	if (tcp)
		ASSERT(!st.direct); /* no kernel copies across the tcp "hosts" */
	for (round = 0; round < 8; round++) {
		struct fabric_op w = {.cb = op_done}, m = {.cb = op_done};
		int wd = 0, md = 0;

		w.user = &wd;
		m.user = &md;
		fill(src, WLEN, (uint8_t)round);
		sync_wait(s.sock);
		if (round & 1) {
			/* write_imm: data and notification in one op */
			ASSERT_OK(sd_fabric_ep_write_imm(s.ep, &w, src, WLEN, rmr, raddr, (uint32_t)round));
			ASSERT_OK(wait_op(&s, &w, &wd));
		} else {
			/* write, then send_imm posted before the write completes */
			ASSERT_OK(sd_fabric_ep_write(s.ep, &w, src, WLEN, rmr, raddr));
			ASSERT_OK(sd_fabric_ep_send_imm(s.ep, &m, NULL, 0, (uint32_t)round));
			ASSERT_OK(wait_op(&s, &w, &wd));
			ASSERT_OK(wait_op(&s, &m, &md));
		}
	}
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
	free(src);
}
BOTH(write_then_send)

/*
 * The target sits in read() on a pipe (no progress call at all) while the
 * initiator writes, reads and does atomics: the service thread serves them.
 */
static void
run_target_blocked(int tcp)
{
	struct side s = {0};
	int gate[2];
	pid_t pid;

	use_transport(tcp);
	ASSERT_EQ(pipe(gate), 0);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		static uint64_t mem[1024] __attribute__((aligned(64)));
		uint64_t got[512];
		struct fabric_mr *mr;
		char c;

		close(gate[1]);
		for (int i = 0; i < 1024; i++)
			mem[i] = 0x1000 + (uint64_t)i;
		side_open(&s, 0);
		side_connect(&s);
		mr = export_mr(&s, mem, sizeof(mem), FABRIC_PERM_ALL);
		CHECK(read(gate[0], &c, 1) == 1); /* blocked: no fabric call until released */
		sd_test_read_foreign(got, mem, sizeof(got));
		CHECK(got[0] == 41 + 5); /* fetch_add 5 on 41 */
		CHECK(got[1] == 0xfeed); /* cmp_swp */
		for (int i = 2; i < 512; i++)
			CHECK(got[i] == 0xab00000000000000ull + (uint64_t)i);
		sd_fabric_mr_deregister(mr);
		sync_wait(s.sock);
		side_close(&s);
		_exit(0);
	}
	uint64_t data[1024], back[1024], res = 0, raddr;
	struct fabric_rmr *rmr;
	struct fabric_op op = {.cb = op_done};
	int done = 0;

	close(gate[0]);
	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	op.user = &done;
	/* read first: it sees the target's initial values */
	ASSERT_OK(sd_fabric_ep_read(s.ep, &op, back, sizeof(back), rmr, raddr));
	ASSERT_OK(wait_flag(&s, &done, 1, &op, 10.0));
	ASSERT_EQ(op.len, sizeof(back));
	ASSERT_EQ(back[7], 0x1007);
	data[0] = 41;
	data[1] = 0xbeef;
	for (int i = 2; i < 1024; i++)
		data[i] = 0xab00000000000000ull + (uint64_t)i;
	ASSERT_OK(sd_fabric_ep_write(s.ep, &op, data, 512 * 8, rmr, raddr));
	ASSERT_OK(wait_flag(&s, &done, 2, &op, 10.0));
	ASSERT_OK(sd_fabric_ep_fetch_add(s.ep, &op, rmr, raddr, 5, &res));
	ASSERT_OK(wait_flag(&s, &done, 3, &op, 10.0));
	ASSERT_EQ(res, 41);
	ASSERT_OK(sd_fabric_ep_cmp_swp(s.ep, &op, rmr, raddr + 8, 0x1234, 0xfeed, &res));
	ASSERT_OK(wait_flag(&s, &done, 4, &op, 10.0));
	ASSERT_EQ(res, 0xbeef); /* compare failed: unchanged, old value returned */
	ASSERT_OK(sd_fabric_ep_cmp_swp(s.ep, &op, rmr, raddr + 8, 0xbeef, 0xfeed, &res));
	ASSERT_OK(wait_flag(&s, &done, 5, &op, 10.0));
	ASSERT_EQ(res, 0xbeef);
	ASSERT_EQ(write(gate[1], "g", 1), 1);
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
}
BOTH(target_blocked)

/* Two initiator processes fetch_add on one target counter at once: the sum is exact. */
#define ADDS 2000

static void
initiator_adds(int sock)
{
	struct side s = {.sock = sock};
	struct fabric_rmr *rmr;
	uint64_t raddr, res[16], seen_max = 0;
	struct fabric_op ops[16];
	int done = 0, posted = 0;

	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	sync_wait(s.sock); /* go */
	while (done < ADDS) {
		while (posted < ADDS && posted - done < 16) {
			struct fabric_op *op = &ops[posted % 16];

			memset(op, 0, sizeof(*op));
			op->cb = op_done;
			op->user = &done;
			CHECK_ERR(sd_fabric_ep_fetch_add(s.ep, op, rmr, raddr, 1, &res[posted % 16]), DOCA_SUCCESS);
			posted++;
		}
		sd_fabric_ctx_progress(s.ctx);
	}
	for (int i = 0; i < 16; i++) {
		CHECK(ops[i].status == DOCA_SUCCESS);
		seen_max = res[i] > seen_max ? res[i] : seen_max;
	}
	CHECK(seen_max < 2 * ADDS);
	sync_send(s.sock); /* finished */
	sync_wait(s.sock);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
	_exit(0);
}

static void
run_atomics_concurrent(int tcp)
{
	static uint64_t counter __attribute__((aligned(8)));
	struct side t[2] = {{0}};
	struct fabric_dev *dev;
	struct fabric_ctx *ctx;
	struct fabric_mr *mr;
	pid_t pid[2];
	int i;

	use_transport(tcp);
	for (i = 0; i < 2; i++)
		if (sd_test_fork_peer(&pid[i], &t[i].sock))
			initiator_adds(t[i].sock);
	/* the target: one ctx, one ep per initiator */
	ASSERT_OK(sd_fabric_dev_open(getenv("UCX_NET_DEVICES"), &dev));
	ASSERT_OK(sd_fabric_ctx_create(dev, NULL, &ctx));
	for (i = 0; i < 2; i++) {
		t[i].dev = dev;
		t[i].ctx = ctx;
		ASSERT_OK(sd_fabric_ep_create(ctx, &t[i], &t[i].ep));
		side_connect(&t[i]);
	}
	ASSERT_OK(sd_fabric_mr_register(dev, &counter, 8, FABRIC_PERM_REMOTE_ATOMIC, &mr));
	for (i = 0; i < 2; i++) {
		const void *blob;
		size_t len;

		ASSERT_OK(sd_fabric_mr_export(mr, &blob, &len));
		send_blob(t[i].sock, blob, len);
	}
	for (i = 0; i < 2; i++)
		sync_send(t[i].sock);
	/* the target does not progress: its service thread serves both */
	for (i = 0; i < 2; i++)
		sync_wait(t[i].sock);
	ASSERT_EQ(__atomic_load_n(&counter, __ATOMIC_SEQ_CST), 2 * ADDS);
	for (i = 0; i < 2; i++) {
		sync_send(t[i].sock);
		sd_test_reap(pid[i]);
		sd_fabric_ep_destroy(t[i].ep);
	}
	sd_fabric_mr_deregister(mr);
	ASSERT_OK(sd_fabric_ctx_destroy(ctx));
	sd_fabric_dev_close(dev);
}
BOTH(atomics_concurrent)

/*
 * A burst of small writes - more than three batches of direct copies - then a
 * send: the target, on the send's arrival, finds every write in place and
 * says so over the socket before the initiator has progressed again (so the
 * send itself had to push the batch out first); a burst of reads afterwards
 * returns the same bytes.  A few writes waiting for the next progress call
 * are work the ctx reports, its event fd readable (an application asleep on
 * it is woken to do them).
 */
#define BURST 200
#define FEW 10
#define PIECE 64

static void
run_write_burst_then_send(int tcp)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		uint8_t *mem = calloc(1, BURST * PIECE), *want = malloc(BURST * PIECE);
		struct fabric_op op = {.cb = op_done};
		struct fabric_mr *mr;
		int done = 0;
		char verdict;

		side_open(&s, 0);
		side_connect(&s);
		mr = export_mr(&s, mem, BURST * PIECE, FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_READ);
		op.user = &done;
		CHECK_ERR(sd_fabric_ctx_post_recv(s.ctx, &op, NULL, 0), DOCA_SUCCESS);
		sync_send(s.sock);
		CHECK_ERR(wait_op(&s, &op, &done), DOCA_SUCCESS);
		fill(want, BURST * PIECE, 9);
		verdict = memcmp(mem, want, BURST * PIECE) == 0 ? 'y' : 'n';
		CHECK(write(s.sock, &verdict, 1) == 1);
		sync_wait(s.sock);
		sd_fabric_mr_deregister(mr);
		side_close(&s);
		_exit(0);
	}
	static struct fabric_op w[BURST], r[BURST];
	uint8_t *src = malloc(BURST * PIECE), *back = calloc(1, BURST * PIECE);
	struct fabric_op send = {.cb = op_done};
	struct fabric_ep_stats st;
	struct fabric_rmr *rmr;
	struct pollfd sock = {.events = POLLIN};
	uint64_t raddr;
	int wd = 0, rd = 0, sd = 0;
	double end = now_s() + 5;
	char verdict = 0;

	/* the kernel's batch, not messages to the busy target (test_fabric_eager.c) */
	setenv("SOFTDOCA_FABRIC_EAGER_RMA", "0", 1);
	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	sync_wait(s.sock); /* the target posted its receive */
	do {		   /* same host: wait for the target's HELLO so the burst goes direct */
		sd_fabric_ctx_progress(s.ctx);
		sd_fabric_ep_get_stats(s.ep, &st);
	} while (!tcp && !st.direct && now_s() < end);
	ASSERT_EQ(st.direct, !tcp);
	fill(src, BURST * PIECE, 9);
	for (int i = 0; i < BURST; i++) {
		w[i].cb = op_done;
		w[i].user = &wd;
		ASSERT_OK(sd_fabric_ep_write(s.ep, &w[i], src + i * PIECE, PIECE, rmr, raddr + (uint64_t)i * PIECE));
		if (i == FEW - 1 && !tcp) {
			struct pollfd pfd = {.fd = sd_fabric_ctx_get_event_fd(s.ctx), .events = POLLIN};

			/* less than a batch waits for a progress call: the owner is told there is work */
			ASSERT(sd_fabric_ctx_has_work(s.ctx));
			ASSERT_EQ(poll(&pfd, 1, 0), 1);
		}
	}
	send.user = &sd;
	ASSERT_OK(sd_fabric_ep_send(s.ep, &send, NULL, 0));
	/* no progress here: the target judges what the send found */
	sock.fd = s.sock;
	ASSERT_EQ(poll(&sock, 1, 10000), 1);
	ASSERT_EQ(read(s.sock, &verdict, 1), 1);
	ASSERT_EQ(verdict, 'y');
	ASSERT_OK(wait_flag(&s, &sd, 1, &send, 10.0));
	ASSERT_OK(wait_flag(&s, &wd, BURST, NULL, 10.0));
	for (int i = 0; i < BURST; i++)
		ASSERT_OK(w[i].status);
	for (int i = 0; i < BURST; i++) {
		r[i].cb = op_done;
		r[i].user = &rd;
		ASSERT_OK(sd_fabric_ep_read(s.ep, &r[i], back + i * PIECE, PIECE, rmr, raddr + (uint64_t)i * PIECE));
	}
	ASSERT_OK(wait_flag(&s, &rd, BURST, NULL, 10.0));
	for (int i = 0; i < BURST; i++) {
		ASSERT_OK(r[i].status);
		ASSERT_EQ(r[i].len, PIECE);
	}
	ASSERT_MEM_EQ(back, src, BURST * PIECE);
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	free(src);
	free(back);
	side_close(&s);
	unsetenv("SOFTDOCA_FABRIC_EAGER_RMA");
}
BOTH(write_burst_then_send)

/*
 * Writes posted before the target connected back (so before its HELLO) travel
 * as active messages; a connection kept busy from then on - each completion
 * posts the next write, so one is always in flight - still turns to direct
 * copies once the HELLO came: at some point every outstanding write sits in
 * the direct batch and none waits for an ack.  Every byte lands.  (Without
 * ep->direct_drain this held only when an ack happened to cover every write
 * in flight: doca_perf's 64 connections never turned; here acks often do.)
 */
#define BUSY_DEPTH 4
#define BUSY_LEN 4096

struct busy {
	struct side *s;
	struct fabric_rmr *rmr;
	uint64_t raddr;
	const uint8_t *src;
	int posted, done;
	bool stop;
};

static struct busy busy_run;

static void
busy_done(struct fabric_op *op)
{
	struct busy *b = &busy_run;

	CHECK_ERR(op->status, DOCA_SUCCESS);
	b->done++;
	if (b->stop)
		return;
	CHECK_ERR(sd_fabric_ep_write(b->s->ep, op, b->src, BUSY_LEN, b->rmr, b->raddr), DOCA_SUCCESS);
	b->posted++;
}

TEST(busy_writes_turn_direct)
{
	static struct fabric_op w[BUSY_DEPTH];
	struct busy *b = &busy_run;
	struct side s = {0};
	struct fabric_ep_stats st;
	uint8_t peer[FABRIC_BLOB_MAX], *src = malloc(BUSY_LEN);
	const void *blob;
	size_t len, plen;
	bool direct_seen = false;
	double end;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &s.sock)) {
		uint8_t *mem = calloc(1, BUSY_LEN), *want = malloc(BUSY_LEN), *got = malloc(BUSY_LEN);
		struct fabric_mr *mr;
		char verdict;

		side_open(&s, 0);
		CHECK_ERR(sd_fabric_ep_export(s.ep, &blob, &len), DOCA_SUCCESS);
		send_blob(s.sock, blob, len);
		mr = export_mr(&s, mem, BUSY_LEN, FABRIC_PERM_REMOTE_WRITE);
		plen = recv_blob(s.sock, peer, sizeof(peer));
		sync_wait(s.sock); /* the first writes are on their way: connect back now (our HELLO) */
		CHECK_ERR(sd_fabric_ep_connect(s.ep, peer, plen, NULL), DOCA_SUCCESS);
		sync_wait(s.sock); /* every write completed */
		fill(want, BUSY_LEN, 3);
		sd_test_read_foreign(got, mem, BUSY_LEN); /* written by the soft NIC's threads (messages) */
		verdict = memcmp(got, want, BUSY_LEN) == 0 ? 'y' : 'n';
		CHECK(write(s.sock, &verdict, 1) == 1);
		sd_fabric_mr_deregister(mr);
		side_close(&s);
		_exit(0);
	}
	/* the kernel's batch, not messages to a target its service thread serves (test_fabric_eager.c) */
	setenv("SOFTDOCA_FABRIC_EAGER_RMA", "0", 1);
	side_open(&s, 0);
	plen = recv_blob(s.sock, peer, sizeof(peer));
	ASSERT_OK(sd_fabric_ep_export(s.ep, &blob, &len));
	send_blob(s.sock, blob, len);
	*b = (struct busy){.s = &s, .src = src};
	b->rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(b->rmr, &b->raddr, NULL, NULL);
	ASSERT_OK(sd_fabric_ep_connect(s.ep, peer, plen, NULL));
	fill(src, BUSY_LEN, 3);
	for (int i = 0; i < BUSY_DEPTH; i++) {
		w[i].cb = busy_done;
		ASSERT_OK(sd_fabric_ep_write(s.ep, &w[i], src, BUSY_LEN, b->rmr, b->raddr));
		b->posted++;
	}
	sd_fabric_ep_get_stats(s.ep, &st);
	ASSERT(!st.direct); /* no HELLO yet: these are messages */
	sync_send(s.sock);
	for (end = now_s() + 10; !direct_seen && now_s() < end;) {
		sd_fabric_ctx_progress(s.ctx);
		sd_fabric_ep_get_stats(s.ep, &st);
		direct_seen = st.direct && st.batched > 0 && st.inflight == st.batched && st.deferred == 0;
	}
	ASSERT(direct_seen);
	b->stop = true;
	ASSERT_OK(wait_flag(&s, &b->done, b->posted, NULL, 10.0));
	sync_send(s.sock);
	{
		char verdict = 0;

		ASSERT_EQ(read(s.sock, &verdict, 1), 1);
		ASSERT_EQ(verdict, 'y');
	}
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(b->rmr);
	free(src);
	side_close(&s);
	unsetenv("SOFTDOCA_FABRIC_EAGER_RMA");
}

/*
 * Refused accesses leave the target untouched: outside the range and without
 * the permission (initiator check), and - where the target mediates (AM
 * writes) - with a wrong key or a forged permission.
 */
static void
run_access_refused(int tcp)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		static uint8_t mem[4096], ro[4096];
		struct fabric_mr *mr, *mr_ro;
		int i;

		memset(mem, 0x5a, sizeof(mem));
		memset(ro, 0x77, sizeof(ro));
		side_open(&s, 0);
		side_connect(&s);
		mr = export_mr(&s, mem, sizeof(mem), FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_READ);
		mr_ro = export_mr(&s, ro, sizeof(ro), FABRIC_PERM_REMOTE_READ);
		/* the target keeps progressing so its ep error is reported */
		wait_flag(&s, &s.ep_errs, 1, NULL, 10.0);
		CHECK(s.ep_errs == 1);
		CHECK(s.ep_err == DOCA_ERROR_NOT_PERMITTED);
		sync_wait(s.sock);
		for (i = 0; i < 4096; i++)
			CHECK(mem[i] == 0x5a && ro[i] == 0x77);
		sd_fabric_mr_deregister(mr);
		sd_fabric_mr_deregister(mr_ro);
		side_close(&s);
		_exit(0);
	}
	uint8_t src[4096], blob[FABRIC_BLOB_MAX], blob_ro[FABRIC_BLOB_MAX];
	size_t blen, blen_ro;
	struct fabric_rmr *rmr, *rmr_ro, *forged;
	struct fabric_op op = {.cb = op_done};
	uint64_t raddr, raddr_ro, res;
	int done = 0;

	memset(src, 0xee, sizeof(src));
	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, blob, &blen);
	rmr_ro = import_mr(&s, blob_ro, &blen_ro);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	sd_fabric_rmr_get_range(rmr_ro, &raddr_ro, NULL, NULL);
	op.user = &done;
	/* initiator-side refusals: nothing is sent */
	ASSERT_ERR(sd_fabric_ep_write(s.ep, &op, src, 16, rmr, raddr + 4090), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_ep_write(s.ep, &op, src, 16, rmr, raddr - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_ep_read(s.ep, &op, src, 4097, rmr, raddr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_ep_write(s.ep, &op, src, 16, rmr_ro, raddr_ro), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(sd_fabric_ep_fetch_add(s.ep, &op, rmr, raddr, 1, &res), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(sd_fabric_ep_fetch_add(s.ep, &op, rmr, raddr + 4, 1, &res), DOCA_ERROR_INVALID_VALUE);
	/* corrupt blobs are refused by the parser */
	ASSERT_ERR(sd_fabric_rmr_import(s.dev, blob, blen - 1, &forged), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_rmr_import(s.dev, blob, 10, &forged), DOCA_ERROR_INVALID_VALUE);
	/* forged permission: the target refuses (NOT_PERMITTED) and the connection fails */
	blob_ro[32] |= FABRIC_PERM_REMOTE_WRITE; /* fabric_mr_blob.perms */
	ASSERT_OK(sd_fabric_rmr_import(s.dev, blob_ro, blen_ro, &forged));
	ASSERT_OK(sd_fabric_ep_write(s.ep, &op, src, 64, forged, raddr_ro));
	{
		/* a send posted behind it is flushed, not blamed for the access */
		struct fabric_op behind = {.cb = op_done};
		doca_error_t err;
		int bd = 0;

		behind.user = &bd;
		/* (on a slow machine the refusal may already have failed the connection: then the send is refused) */
		err = sd_fabric_ep_send(s.ep, &behind, "x", 1);
		if (err != DOCA_SUCCESS)
			ASSERT_ERR(err, DOCA_ERROR_NOT_CONNECTED);
		ASSERT_ERR(wait_op(&s, &op, &done), DOCA_ERROR_NOT_PERMITTED);
		if (err == DOCA_SUCCESS)
			ASSERT_ERR(wait_op(&s, &behind, &bd), DOCA_ERROR_CONNECTION_ABORTED);
	}
	wait_flag(&s, &s.ep_errs, 1, NULL, 2.0);
	ASSERT_EQ(s.ep_errs, 1);
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(forged);
	sd_fabric_rmr_destroy(rmr);
	sd_fabric_rmr_destroy(rmr_ro);
	side_close(&s);
}
BOTH(access_refused)

/* A wrong key (with everything else right) is refused by the target too. */
static void
run_wrong_key(int tcp)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		static uint8_t mem[4096];
		struct fabric_mr *mr;

		memset(mem, 0x5a, sizeof(mem));
		side_open(&s, 0);
		side_connect(&s);
		mr = export_mr(&s, mem, sizeof(mem), FABRIC_PERM_REMOTE_WRITE);
		wait_flag(&s, &s.ep_errs, 1, NULL, 10.0);
		CHECK(s.ep_err == DOCA_ERROR_NOT_PERMITTED);
		sync_wait(s.sock);
		for (int i = 0; i < 4096; i++)
			CHECK(mem[i] == 0x5a);
		sd_fabric_mr_deregister(mr);
		side_close(&s);
		_exit(0);
	}
	uint8_t src[64], blob[FABRIC_BLOB_MAX];
	size_t blen;
	struct fabric_rmr *rmr;
	struct fabric_op op = {.cb = op_done};
	uint64_t raddr;
	int done = 0;

	memset(src, 0xee, sizeof(src));
	side_open(&s, 0);
	side_connect(&s);
	blen = recv_blob(s.sock, blob, sizeof(blob));
	blob[40] ^= 0x01; /* fabric_mr_blob.key[0] */
	ASSERT_OK(sd_fabric_rmr_import(s.dev, blob, blen, &rmr));
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	op.user = &done;
	ASSERT_OK(sd_fabric_ep_write(s.ep, &op, src, sizeof(src), rmr, raddr));
	ASSERT_ERR(wait_op(&s, &op, &done), DOCA_ERROR_NOT_PERMITTED);
	sync_send(s.sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(&s);
}
BOTH(wrong_key)

/* The peer dies with an op in flight: error completion and ep error, no hang. */
static void
run_peer_killed(int tcp)
{
	struct side s = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &s.sock)) {
		side_open(&s, 60000);
		side_connect(&s);
		sync_send(s.sock);
		pause(); /* killed here */
		_exit(0);
	}
	struct fabric_op op = {.cb = op_done};
	int done = 0;
	double t0;

	side_open(&s, 0);
	side_connect(&s);
	sync_wait(s.sock);
	op.user = &done;
	/* no receive on the peer: the send waits for an ack that never comes */
	ASSERT_OK(sd_fabric_ep_send(s.ep, &op, "ping", 5));
	wait_flag(&s, &done, 1, NULL, 0.3);
	ASSERT_EQ(done, 0);
	kill(pid, SIGKILL);
	ASSERT_EQ(sd_test_wait_exit(pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	t0 = now_s();
	ASSERT_EQ(wait_flag(&s, &done, 1, NULL, 15.0), DOCA_SUCCESS);
	ASSERT_NE(op.status, DOCA_SUCCESS);
	wait_flag(&s, &s.ep_errs, 1, NULL, 5.0);
	ASSERT_EQ(s.ep_errs, 1);
	fprintf(stderr, "# peer death noticed after %.2f s (%s)\n", now_s() - t0, doca_error_get_name(op.status));
	side_close(&s);
}
BOTH(peer_killed)

/*
 * tcp peers must use the same UCX receive segment (UCX aborts a receiver sent
 * a larger fragment): a blob naming another one is refused with
 * NOT_SUPPORTED before UCX sees it.
 */
TEST(tcp_segment_mismatch_refused)
{
	struct side s = {0}, t = {0};
	struct fabric_conn_blob *b;
	uint8_t copy[FABRIC_BLOB_MAX];
	const void *blob;
	size_t len;

	use_transport(1);
	side_open(&s, 0);
	side_open(&t, 0);
	ASSERT_OK(sd_fabric_ep_export(s.ep, &blob, &len));
	memcpy(copy, blob, len);
	b = (struct fabric_conn_blob *)copy;
	ASSERT_EQ(b->hdr.hdr_len, sizeof(*b));
	ASSERT_EQ(b->tcp_seg, 512u << 10);
	b->tcp_seg = 64u << 10;
	ASSERT_ERR(sd_fabric_ep_connect(t.ep, copy, len, NULL), DOCA_ERROR_NOT_SUPPORTED);
	/* the same segment connects */
	ASSERT_OK(sd_fabric_ep_connect(t.ep, blob, len, NULL));
	side_close(&t);
	side_close(&s);
}

/* Descriptors: malformed connection blobs are refused before UCX sees them. */
TEST(conn_blob_parsing)
{
	struct side s = {0};
	const void *blob;
	uint8_t copy[FABRIC_BLOB_MAX];
	size_t len;

	side_open(&s, 0);
	ASSERT_OK(sd_fabric_ep_export(s.ep, &blob, &len));
	ASSERT(len > 48 && len <= FABRIC_BLOB_MAX);
	memcpy(copy, blob, len);
	ASSERT_ERR(sd_fabric_ep_connect(s.ep, copy, 47, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_ep_connect(s.ep, copy, len - 1, NULL), DOCA_ERROR_INVALID_VALUE);
	copy[0] ^= 1;
	ASSERT_ERR(sd_fabric_ep_connect(s.ep, copy, len, NULL), DOCA_ERROR_INVALID_VALUE);
	copy[0] ^= 1;
	copy[4] = 1; /* version 1 (rkeys and windows) is not spoken any more */
	ASSERT_ERR(sd_fabric_ep_connect(s.ep, copy, len, NULL), DOCA_ERROR_UNSUPPORTED_VERSION);
	copy[4] = FABRIC_PROTO_VERSION;
	memset(copy + 40, 0xff, 4); /* addr_len larger than the blob */
	ASSERT_ERR(sd_fabric_ep_connect(s.ep, copy, len, NULL), DOCA_ERROR_INVALID_VALUE);
	side_close(&s);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
