/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs datapath between two processes: the case forks before any softdoca
 * call, each side opens its own context, and they exchange QP number, GID,
 * buffer address and rkey over a socketpair.  Writes land while the target
 * only watches its memory, reads see the target's bytes, sends meet receives,
 * and a peer killed with work outstanding fails the survivor's requests.
 */
#include <signal.h>
#include "dp_test.h"
#include "sd_test_peer.h"

#define BUF 4096

struct info {
	uint32_t qpn, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

struct side {
	struct dp d;
	struct doca_verbs_qp *qp;
	uint8_t *buf;
	struct ibv_mr *mr;
	int fd;
	struct info peer;
};

/* Exactly len bytes over fd, or the case fails (the peer went away). */
static void
xwrite(int fd, const void *p, size_t len)
{
	ASSERT_EQ(write(fd, p, len), (ssize_t)len);
}

static void
xread(int fd, void *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, (uint8_t *)p + got, len - got);

		ASSERT(r > 0);
		got += (size_t)r;
	}
}

/* Open a context, a QP and a buffer, swap coordinates with the peer and reach RTS. */
static void
side_up(struct side *s, int fd, uint16_t rnr_retry)
{
	struct info me;
	struct doca_verbs_gid g;

	s->fd = fd;
	dp_open(&s->d);
	s->qp = dp_qp(&s->d, NULL);
	s->buf = aligned_alloc(64, BUF);
	ASSERT_NOT_NULL(s->buf);
	memset(s->buf, 0, BUF);
	s->mr = dp_mr(&s->d, s->buf, BUF, DP_ALL);
	me = (struct info){.qpn = doca_verbs_qp_get_qpn(s->qp), .rkey = s->mr->rkey, .addr = (uintptr_t)s->buf};
	memcpy(me.gid, s->d.gid.raw, 16);
	xwrite(fd, &me, sizeof(me));
	xread(fd, &s->peer, sizeof(s->peer));
	memcpy(g.raw, s->peer.gid, 16);
	dp_to_init(s->qp);
	dp_to_rts(s->d.ctx, s->qp, &g, s->peer.qpn, rnr_retry);
}

static void
side_down(struct side *s)
{
	ASSERT_OK(doca_verbs_qp_destroy(s->qp));
	ASSERT_EQ(ibv_dereg_mr(s->mr), 0);
	free(s->buf);
	dp_close(&s->d);
}

/* A one-byte step marker: both sides are at the same point. */
static void
sync_send(struct side *s, char c)
{
	xwrite(s->fd, &c, 1);
}

static void
sync_wait(struct side *s, char want)
{
	char c = 0;

	xread(s->fd, &c, 1);
	ASSERT_EQ(c, want);
}

typedef void (*child_fn)(struct side *s);

/* Fork (nothing of softdoca touched yet); the child runs fn and exits 0 unless an ASSERT fails. */
static pid_t
spawn(child_fn fn, int *parent_fd)
{
	pid_t pid;
	int fd;

	if (sd_test_fork_peer(&pid, &fd)) {
		struct side s;

		s.fd = fd;
		fn(&s);
		_exit(0);
	}
	*parent_fd = fd;
	return pid;
}

/* ---- write: the target watches its memory and calls nothing ---- */

static void
write_target(struct side *s)
{
	uint8_t want[256], got[256];
	uint64_t end;

	side_up(s, s->fd, 7);
	dp_fill(want, sizeof(want), 0x42);
	sync_send(s, 'R');
	/* no softdoca call from here until the bytes are in; the soft NIC's thread writes them */
	end = dp_now_ms() + 5000;
	do
		sd_test_read_foreign(got, s->buf + 1000, sizeof(got));
	while (memcmp(got, want, sizeof(want)) != 0 && dp_now_ms() < end); /* memcpy's order is not ours */
	ASSERT_MEM_EQ(got, want, sizeof(want));
	sync_wait(s, 'D');
	side_down(s);
}

TEST(two_procs_write_while_target_only_watches)
{
	struct side s;
	struct ibv_wc wc;
	int fd;
	pid_t pid = spawn(write_target, &fd);

	side_up(&s, fd, 7);
	sync_wait(&s, 'R');
	dp_fill(s.buf, 256, 0x42);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_WRITE, 1, s.buf, 256, s.mr->lkey, s.peer.addr + 1000, s.peer.rkey), 0);
	dp_poll1(s.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 1);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	sync_send(&s, 'D');
	sd_test_reap_within(pid, 10);
	side_down(&s);
}

/* ---- read ---- */

static void
read_target(struct side *s)
{
	uint8_t want[BUF];

	side_up(s, s->fd, 7);
	/* the soft NIC's service thread reads these for the peer, after the socket says go */
	dp_fill(want, BUF, 0x17);
	sd_test_write_foreign(s->buf, want, BUF);
	sync_send(s, 'R');
	sync_wait(s, 'D'); /* blocks in read(): no softdoca call while the peer reads */
	side_down(s);
}

TEST(two_procs_read)
{
	struct side s;
	struct ibv_wc wc;
	uint8_t want[BUF];
	int fd;
	pid_t pid = spawn(read_target, &fd);

	side_up(&s, fd, 7);
	sync_wait(&s, 'R');
	dp_fill(want, BUF, 0x17);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_READ, 2, s.buf, 3000, s.mr->lkey, s.peer.addr + 500, s.peer.rkey), 0);
	dp_poll1(s.d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 2);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, IBV_WC_RDMA_READ);
	ASSERT_EQ(wc.byte_len, 3000);
	ASSERT_MEM_EQ(s.buf, want + 500, 3000);
	sync_send(&s, 'D');
	sd_test_reap_within(pid, 10);
	side_down(&s);
}

/* ---- send / receive, both ways ---- */

static void
echo_peer(struct side *s)
{
	struct ibv_wc wc[2];

	side_up(s, s->fd, 7);
	dp_recv(s->qp, 10, s->buf, 512, s->mr->lkey);
	sync_send(s, 'R');
	dp_poll1(s->d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 10);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[0].opcode, IBV_WC_RECV);
	ASSERT_EQ(wc[0].byte_len, 300);
	ASSERT_EQ(wc[0].qp_num, doca_verbs_qp_get_qpn(s->qp));
	ASSERT_EQ(wc[0].src_qp, s->peer.qpn);
	/* echo the bytes back, reversed in halves */
	memcpy(s->buf + 1024, s->buf + 150, 150);
	memcpy(s->buf + 1174, s->buf, 150);
	ASSERT_EQ(dp_send(s->qp, IBV_WR_SEND, 11, s->buf + 1024, 300, s->mr->lkey, 0, 0), 0);
	dp_poll1(s->d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 11);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	sync_wait(s, 'D');
	side_down(s);
}

TEST(two_procs_send_recv)
{
	struct side s;
	struct ibv_wc wc[2];
	int fd;
	pid_t pid = spawn(echo_peer, &fd);

	side_up(&s, fd, 7);
	dp_recv(s.qp, 20, s.buf + 2048, 512, s.mr->lkey);
	sync_wait(&s, 'R');
	dp_fill(s.buf, 300, 0x61);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_SEND, 1, s.buf, 300, s.mr->lkey, 0, 0), 0);
	dp_poll2_sorted(s.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 1);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 20);
	ASSERT_EQ(wc[1].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].byte_len, 300);
	ASSERT_EQ(wc[1].src_qp, s.peer.qpn);
	ASSERT_MEM_EQ(s.buf + 2048, s.buf + 150, 150);
	ASSERT_MEM_EQ(s.buf + 2048 + 150, s.buf, 150);
	sync_send(&s, 'D');
	sd_test_reap_within(pid, 10);
	side_down(&s);
}

/* ---- peer death ---- */

static void
doomed_peer(struct side *s)
{
	side_up(s, s->fd, 7);
	dp_recv(s->qp, 30, s->buf, 512, s->mr->lkey); /* one receive: the second send waits (RNR) */
	dp_recv(s->qp, 31, s->buf + 512, 8, s->mr->lkey);
	sync_send(s, 'R');
	for (;;)
		pause(); /* SIGKILLed by the parent */
}

TEST(two_procs_peer_killed_with_work_outstanding)
{
	struct side s;
	struct ibv_wc wc[8];
	int fd, n;
	uint64_t t0;
	pid_t pid = spawn(doomed_peer, &fd);

	side_up(&s, fd, 7);
	sync_wait(&s, 'R');
	dp_recv(s.qp, 100, s.buf + 2048, 64, s.mr->lkey);
	dp_recv(s.qp, 101, s.buf + 2112, 64, s.mr->lkey);
	/* two sends meet the peer's two receives */
	ASSERT_EQ(dp_send(s.qp, IBV_WR_SEND, 1, s.buf, 64, s.mr->lkey, 0, 0), 0);
	dp_poll1(s.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 1);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_SEND, 2, s.buf, 8, s.mr->lkey, 0, 0), 0);
	dp_poll1(s.d.cq, wc);
	ASSERT_EQ(wc[0].wr_id, 2);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	/* the peer has no receive left: this one waits for ever (rnr_retry 7) */
	ASSERT_EQ(dp_send(s.qp, IBV_WR_SEND, 3, s.buf, 8, s.mr->lkey, 0, 0), 0);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_READ, 4, s.buf + 1024, 64, s.mr->lkey, s.peer.addr, s.peer.rkey), 0);
	dp_poll_none(s.d.cq, 200);
	ASSERT_EQ(dp_state(s.qp), DOCA_VERBS_QP_STATE_RTS);

	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(sd_test_wait_exit(pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	t0 = dp_now_ms();
	n = dp_poll_n(s.d.cq, wc, 4, 2000);
	ASSERT_EQ(n, 4);
	ASSERT(dp_now_ms() - t0 <= 2100);
	for (int i = 0; i < n; i++) {
		ASSERT_NE(wc[i].status, IBV_WC_SUCCESS);
		ASSERT_EQ(wc[i].qp_num, doca_verbs_qp_get_qpn(s.qp));
	}
	/* the sends in order, the receives flushed */
	{
		bool seen[4] = {false};

		for (int i = 0; i < n; i++) {
			switch (wc[i].wr_id) {
			case 3:
				seen[0] = true;
				break;
			case 4:
				ASSERT(seen[0]);
				seen[1] = true;
				break;
			case 100:
			case 101:
				ASSERT_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
				seen[wc[i].wr_id - 98] = true;
				break;
			default:
				ASSERT(!"unexpected wr_id");
			}
		}
		ASSERT(seen[0] && seen[1] && seen[2] && seen[3]);
	}
	ASSERT_EQ(dp_state(s.qp), DOCA_VERBS_QP_STATE_ERR);
	dp_poll_none(s.d.cq, 50);
	side_down(&s);
}

/* ---- a peer QP destroyed while its process lives ---- */

static void
vanishing_peer(struct side *s)
{
	side_up(s, s->fd, 7);
	sync_wait(s, 'W'); /* the parent's first write landed */
	ASSERT_OK(doca_verbs_qp_destroy(s->qp));
	sync_send(s, 'X');
	sync_wait(s, 'D');
	ASSERT_EQ(ibv_dereg_mr(s->mr), 0);
	free(s->buf);
	dp_close(&s->d);
}

TEST(two_procs_peer_qp_destroyed_process_alive)
{
	struct side s;
	struct ibv_wc wc[4];
	uint64_t t0;
	int fd, n;
	pid_t pid = spawn(vanishing_peer, &fd);

	side_up(&s, fd, 7);
	memset(s.buf, 0x5a, 64);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_WRITE, 1, s.buf, 64, s.mr->lkey, s.peer.addr, s.peer.rkey), 0);
	dp_poll1(s.d.cq, wc);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	sync_send(&s, 'W');
	sync_wait(&s, 'X');
	/*
	 * The peer's QP is gone but its process lives: the work fails instead of
	 * waiting for ever.  (A same-host write into memory the peer still has
	 * registered may land without its QP, docs/verbs.md: the send decides.)
	 */
	t0 = dp_now_ms();
	ASSERT_EQ(dp_send(s.qp, IBV_WR_SEND, 2, s.buf, 8, s.mr->lkey, 0, 0), 0);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_WRITE, 3, s.buf, 64, s.mr->lkey, s.peer.addr, s.peer.rkey), 0);
	n = dp_poll_n(s.d.cq, wc, 2, 3000);
	ASSERT_EQ(n, 2);
	ASSERT(dp_now_ms() - t0 <= 3000);
	ASSERT_EQ(wc[0].wr_id, 2);
	ASSERT_NE(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 3);
	ASSERT_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ASSERT_EQ(dp_state(s.qp), DOCA_VERBS_QP_STATE_ERR);
	sync_send(&s, 'D');
	sd_test_reap_within(pid, 10);
	side_down(&s);
}

/* ---- a peer that execs another program (same pid, another image) ---- */

#ifdef __SANITIZE_ADDRESS__
#define EXEC_FOUND_MS 6000u
#else
#define EXEC_FOUND_MS 1500u
#endif

static void
execing_peer(struct side *s)
{
	side_up(s, s->fd, 7);
	sync_wait(s, 'W');
	/* the same pid, a new image: nothing of the old address space or soft NIC is left */
	execl("/bin/sleep", "sleep", "3", (char *)NULL);
	_exit(127);
}

static void
peer_execs_another_program(void)
{
	struct side s;
	struct ibv_wc wc[2];
	uint64_t t0;
	int fd, n;
	pid_t pid = spawn(execing_peer, &fd);

	side_up(&s, fd, 7);
	memset(s.buf, 0x6b, 64);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_WRITE, 1, s.buf, 64, s.mr->lkey, s.peer.addr, s.peer.rkey), 0);
	dp_poll1(s.d.cq, wc);
	ASSERT_EQ(wc[0].status, IBV_WC_SUCCESS);
	sync_send(&s, 'W');
	usleep(300 * 1000); /* the exec is done: /bin/sleep runs under the peer's pid */
	/* neither copied into the new image (its record nonce differs) nor left waiting */
	t0 = dp_now_ms();
	ASSERT_EQ(dp_send(s.qp, IBV_WR_RDMA_WRITE, 2, s.buf, 64, s.mr->lkey, s.peer.addr, s.peer.rkey), 0);
	ASSERT_EQ(dp_send(s.qp, IBV_WR_SEND, 3, s.buf, 8, s.mr->lkey, 0, 0), 0);
	/*
	 * Found by the liveness check (200 ms), long before the new program ends
	 * (3 s).  Under a sanitizer the peer's record table may not be mapped in
	 * time (the check needs it): there the program's end must still end the wait.
	 */
	n = dp_poll_n(s.d.cq, wc, 2, EXEC_FOUND_MS);
	ASSERT_EQ(n, 2);
	ASSERT(dp_now_ms() - t0 <= EXEC_FOUND_MS);
	ASSERT_EQ(wc[0].wr_id, 2);
	ASSERT_NE(wc[0].status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc[1].wr_id, 3);
	ASSERT_NE(wc[1].status, IBV_WC_SUCCESS);
	/* the new program was not disturbed: it sleeps its 3 s and exits 0 */
	sd_test_reap(pid);
	side_down(&s);
}

TEST(two_procs_peer_execs_another_program)
{
	peer_execs_another_program();
}

/* Without the direct path no record table is mapped: the peer's executable tells the exec apart. */
TEST(two_procs_peer_execs_another_program_without_the_direct_path)
{
	ASSERT_EQ(setenv("SOFTDOCA_FABRIC_CMA", "0", 1), 0);
	peer_execs_another_program();
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
