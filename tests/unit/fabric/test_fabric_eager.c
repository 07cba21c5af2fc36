/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small write or read alone in its batch, to a same-host peer that is
 * progressing its soft NIC, travels as an active message the peer places
 * itself (fabric_direct_flush_before, SOFTDOCA_FABRIC_EAGER_RMA); a burst
 * shares one kernel copy, and to a peer that is not progressing, and above
 * the size, the initiator copies through the kernel after reading the peer's
 * record.  Either way every byte lands.
 */
#include <poll.h>

#include "fabric_test.h"
#include "fabric_internal.h"

#define PIECE 1024
#define PIECES 64
#define ROUNDS 200

/* The target: registers PIECES x PIECE, progresses (busy) or blocks on the socket, then checks the bytes. */
static void
target(struct side *s, bool busy)
{
	uint8_t *mem = calloc(1, PIECES * PIECE);
	struct pollfd sock = {.fd = s->sock, .events = POLLIN};
	struct fabric_mr *mr;

	side_open(s, 0);
	side_connect(s);
	mr = export_mr(s, mem, PIECES * PIECE, FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_READ);
	/* busy: progress until the initiator says it is done; else sleep in poll() until then */
	while (poll(&sock, 1, busy ? 0 : -1) == 0)
		sd_fabric_ctx_progress(s->ctx);
	target_verdict(s, mr, mem, PIECES * PIECE, 5);
}

/* Write every piece, then read them all back into back: depth at a time (1, or PIECES at once). */
static void
write_and_read(struct side *s, struct fabric_rmr *rmr, uint64_t raddr, const uint8_t *src, uint8_t *back, int depth)
{
	static struct fabric_op w[PIECES], r[PIECES];
	int wd = 0, rd = 0;

	for (int i = 0; i < PIECES; i++) {
		w[i] = (struct fabric_op){.cb = op_done, .user = &wd};
		ASSERT_OK(sd_fabric_ep_write(s->ep, &w[i], src + i * PIECE, PIECE, rmr, raddr + (uint64_t)i * PIECE));
		if ((i + 1) % depth == 0)
			ASSERT_OK(wait_flag(s, &wd, i + 1, NULL, 10.0));
	}
	for (int i = 0; i < PIECES; i++) {
		ASSERT_OK(w[i].status);
		r[i] = (struct fabric_op){.cb = op_done, .user = &rd};
		ASSERT_OK(sd_fabric_ep_read(s->ep, &r[i], back + i * PIECE, PIECE, rmr, raddr + (uint64_t)i * PIECE));
		if ((i + 1) % depth == 0)
			ASSERT_OK(wait_flag(s, &rd, i + 1, NULL, 10.0));
	}
	for (int i = 0; i < PIECES; i++) {
		ASSERT_OK(r[i].status);
		ASSERT_EQ(r[i].len, PIECE);
	}
}

static void
run(bool busy, const char *knob, int depth)
{
	uint8_t *src = malloc(PIECES * PIECE), *back = malloc(PIECES * PIECE);
	struct fabric_ep_stats st;
	struct fabric_rmr *rmr;
	struct side s = {0};
	uint64_t raddr;
	double end;
	bool expect = busy && knob == NULL; /* the target may get messages */
	uint64_t before;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &s.sock))
		target(&s, busy);
	if (knob != NULL)
		setenv("SOFTDOCA_FABRIC_EAGER_RMA", knob, 1);
	side_open(&s, 0);
	side_connect(&s);
	rmr = import_mr(&s, NULL, NULL);
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	end = now_s() + 10;
	do { /* the target's HELLO: from then on the initiator chooses */
		sd_fabric_ctx_progress(s.ctx);
		sd_fabric_ep_get_stats(s.ep, &st);
	} while (!st.direct && now_s() < end);
	ASSERT(st.direct);
	fill(src, PIECES * PIECE, 5);
	/* what the target's service thread served while connecting is older than any stamp counts */
	if (!busy)
		usleep(3 * FABRIC_PEER_BUSY_NS / 1000);
	/*
	 * A busy target's first stamp comes within its first FABRIC_STAMP_EVERY
	 * progress calls: ops one at a time until one went as a message prove it
	 * busy; then ops depth at a time (a burst) must all go through the kernel.
	 */
	for (int k = 0; k < ROUNDS && expect && st.eager == 0; k++) {
		memset(back, 0, PIECES * PIECE);
		write_and_read(&s, rmr, raddr, src, back, 1);
		ASSERT_MEM_EQ(back, src, PIECES * PIECE);
		sd_fabric_ep_get_stats(s.ep, &st);
	}
	if (expect)
		ASSERT(st.eager > 0); /* messages the target placed and answered */
	before = st.eager;
	for (int k = 0; k < (expect && depth == 1 ? 0 : ROUNDS / 10); k++) {
		memset(back, 0, PIECES * PIECE);
		write_and_read(&s, rmr, raddr, src, back, depth);
		ASSERT_MEM_EQ(back, src, PIECES * PIECE);
		sd_fabric_ep_get_stats(s.ep, &st);
	}
	if (!expect || depth > 1)
		ASSERT_EQ(st.eager, before); /* all copied through the kernel */
	initiator_verdict(&s, pid, rmr);     /* its first byte ends the target's poll loop */
	unsetenv("SOFTDOCA_FABRIC_EAGER_RMA");
	free(src);
	free(back);
}

/* A target progressing its soft NIC places small writes and answers small reads, one at a time, itself. */
TEST(busy_target_gets_messages)
{
	run(true, NULL, 1);
}

/* A burst to the same target: one kernel copy per batch, no messages. */
TEST(burst_to_a_busy_target_shares_a_kernel_copy)
{
	run(true, NULL, PIECES);
}

/* The same target with the knob at 0: the initiator copies through the kernel. */
TEST(knob_off_copies_through_the_kernel)
{
	run(true, "0", 1);
}

/* Above the knob's size the kernel copies, busy target or not. */
TEST(larger_than_the_knob_copies_through_the_kernel)
{
	run(true, "512", 1);
}

/* A target asleep in poll(): nothing stamps its table, so the initiator copies. */
TEST(sleeping_target_is_copied_by_the_kernel)
{
	run(false, NULL, 1);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
