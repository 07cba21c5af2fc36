/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The long-lived process: cycle after cycle, a fresh peer of one traffic kind, SOAK_ROUNDS
 * verified rounds, in a third of the cycles a SIGKILL of the peer before a random round, then
 * its own fds, threads, RSS and /dev/shm objects back at their baseline.  A connection may fail
 * only when its peer was killed or a link was cut or shaped during the cycle, and then it must
 * fail with an error: a failure without either is a lost connection and fails the run.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sd_test_peer.h"
#include "soak.h"

struct soak_shared *soak;
static const struct soak_cycle *cur; /* the long-lived process's cycle, for failure messages */

double
soak_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
soak_fill(uint8_t *p, size_t len, uint64_t r)
{
	for (size_t i = 0; i < len; i++)
		p[i] = soak_pattern(r, i);
}

bool
soak_verify(const uint8_t *p, size_t len, uint64_t r, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] != soak_pattern(r, i)) {
			size_t same = 0;

			while (i + same < len && p[i + same] == p[i])
				same++;
			__atomic_add_fetch(&soak->corrupted, 1, __ATOMIC_SEQ_CST);
			sd_test_fail(__FILE__, __LINE__,
				     "%s round %llu: byte %zu is 0x%02x (%zu such bytes from there), 0x%02x was sent; "
				     "cycle: place %d, %s, peer %s (kill before round %d)",
				     what, (unsigned long long)r, i, p[i], same, soak_pattern(r, i),
				     cur != NULL ? (int)cur->where : -1, cur != NULL && cur->cm ? "RDMA-CM" : "OOB",
				     cur != NULL && cur->killed_at != 0 ? "SIGKILLed" : "alive",
				     cur != NULL ? cur->kill_at : -2);
		}
	}
	return true;
}

void
soak_count(enum soak_kind k, uint64_t bytes)
{
	__atomic_add_fetch(&soak->kind[k].bytes, bytes, __ATOMIC_RELAXED);
	__atomic_add_fetch(&soak->kind[k].ops, 1, __ATOMIC_RELAXED);
	soak->heartbeat = soak_now();
}

void
soak_max(double *slot, double v)
{
	if (v > *slot)
		*slot = v;
}

bool
soak_xfer(int fd, void *p, size_t len, bool out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r =
			out ? write(fd, (uint8_t *)p + done, len - done) : read(fd, (uint8_t *)p + done, len - done);

		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

void
soak_watchdog(double start, const char *what)
{
	if (soak_now() - start > SOAK_OP_BOUND_S)
		sd_test_fail(__FILE__, __LINE__, "hang: %s outstanding for %.0f s", what, SOAK_OP_BOUND_S);
}

void
soak_op_took(double start)
{
	soak_max(&soak->worst_op_s, soak_now() - start);
}

/* The kind, place and connection mode of cycle n: every kind in turn, netns cycles for RDMA only. */
static const struct soak_kind_ops *
plan(uint64_t n, struct soak_cycle *c, uint32_t *seed)
{
	static const struct soak_kind_ops *const kinds[] = {&soak_rdma_ops, &soak_verbs_ops, &soak_comch_ops,
							    &soak_dma_ops};
	const struct soak_kind_ops *k = kinds[n % 4];
	uint64_t turn = n / 4;

	memset(c, 0, sizeof(*c));
	c->where = W_SHM;
	if (k == &soak_rdma_ops) {
		c->cm = (turn & 1) != 0;
		if (soak->netns && turn % 3 == 2)
			c->where = W_NETNS;
		else if (soak->tcp && turn % 3 == 1)
			c->where = W_TCP_LO;
	} else if (k == &soak_verbs_ops && soak->tcp && (turn & 1)) {
		c->where = W_TCP_LO;
	}
	if (getenv("SOAK_ONLY_RDMA_TCP") != NULL) {
		/* narrowing a failure: RDMA cycles over tcp on lo only (docs/robustness.md) */
		k = &soak_rdma_ops;
		c->where = W_TCP_LO;
		c->cm = (turn & 1) != 0;
	}
	c->kill_at = sd_test_rand(seed) % 3 == 0 ? (int)(sd_test_rand(seed) % SOAK_ROUNDS) : -1;
	/* tcp: never before the first round completed, UCX 1.13's wireup may abort (docs/robustness.md) */
	if (c->kill_at == 0 && c->where != W_SHM)
		c->kill_at = 1;
	return k;
}

/* A failed round: the peer's death or a link event must explain it; returns true (end the cycle). */
static bool
round_failed(struct soak_cycle *c, const struct soak_kind_ops *k, int i, doca_error_t err)
{
	if (c->killed_at != 0) {
		soak_max(&soak->worst_detect_s, soak_now() - c->killed_at);
	} else if (c->where == W_NETNS && soak->link_epoch != c->epoch) {
		soak->broken_by_link++;
	} else {
		soak->lost++;
		sd_test_fail(__FILE__, __LINE__, "cycle %llu (%s) round %d: a live connection failed: %s",
			     (unsigned long long)soak->cycles, k->name, i, doca_error_get_name(err));
	}
	soak->broken++;
	c->broken = true;
	return true;
}

/* The end of the peer: asked to go (exit 0; 3: it saw its connection fail), or SIGKILLed. */
static void
peer_end(struct soak_cycle *c, const struct soak_kind_ops *k)
{
	int st;

	if (c->killed_at == 0) {
		/* a peer whose connection a link event broke may have gone already */
		(void)!write(c->sock, "q", 1);
		st = sd_test_wait_exit(c->peer);
		/* 3: the peer saw its connection fail, which only a link event may explain */
		if (st == 3 && c->where == W_NETNS && soak->link_epoch != c->epoch) {
			if (!c->broken)
				soak->broken_by_link++;
			soak->broken += (uint64_t)!c->broken;
		} else if (st != 0) {
			if (st == 3)
				soak->lost++;
			sd_test_fail(__FILE__, __LINE__, "%s peer ended with %d%s", k->name, st,
				     st == 3 ? ": its live connection failed" : "");
		}
	} else {
		ASSERT_EQ(sd_test_wait_exit(c->peer), SD_TEST_EXIT_SIGNAL(SIGKILL));
	}
	close(c->sock);
}

/* Cycle n; last: the closing one, a DMA cycle whose host is not killed (its door sweeps the dead ones'). */
static void
run_cycle(uint64_t n, uint32_t *seed, bool last)
{
	struct soak_cycle c;
	const struct soak_kind_ops *k = last ? &soak_dma_ops : plan(n, &c, seed);

	if (last) {
		memset(&c, 0, sizeof(c));
		c.kill_at = -1;
	}

	soak_use_where(c.where, false);
	if (c.where == W_NETNS) {
		/* a connection is made with the link up (the driver cuts none while in_setup is set) */
		__atomic_store_n(&soak->in_setup, 1, __ATOMIC_SEQ_CST);
		for (double start = soak_now(); __atomic_load_n(&soak->link_cut, __ATOMIC_SEQ_CST);)
			soak_watchdog(start, "a link cut");
	}
	c.epoch = soak->link_epoch;
	c.first = n * SOAK_ROUNDS;
	if (sd_test_fork_peer(&c.peer, &c.sock)) {
		if (c.where == W_NETNS)
			soak_enter_ns(soak->ns_b);
		soak_use_where(c.where, true);
		_exit(k->peer(&c));
	}
	soak->peer_pid = c.peer;
	cur = &c;
	k->up(&c);
	__atomic_store_n(&soak->in_setup, 0, __ATOMIC_SEQ_CST);
	soak->conns++;
	/* over tcp, UCX 1.13 aborts a survivor whose wireup a SIGKILL interrupts (docs/robustness.md) */
	soak->life_killable = k == &soak_rdma_ops && c.where == W_SHM;
	for (int i = 0; c.killed_at == 0 || soak_now() - c.killed_at < SOAK_OP_BOUND_S; i++) {
		doca_error_t err;

		if (i == c.kill_at) {
			soak->life_killable = 0;
			ASSERT_EQ(kill(c.peer, SIGKILL), 0);
			c.killed_at = soak_now();
			soak->peer_kills++;
		}
		if (c.killed_at == 0 && i >= SOAK_ROUNDS)
			break;
		err = k->round(&c, c.first + (uint64_t)i);
		soak->heartbeat = soak_now();
		if (err != DOCA_SUCCESS && round_failed(&c, k, i, err))
			break;
	}
	soak->life_killable = 0;
	if (c.killed_at != 0 && soak_now() - c.killed_at >= SOAK_OP_BOUND_S)
		sd_test_fail(__FILE__, __LINE__, "%s: a SIGKILLed peer was not reported within %.0f s", k->name,
			     SOAK_OP_BOUND_S);
	/* the peer goes first (an orderly end: 'q', it stops its traffic and closes), then this side */
	peer_end(&c, k);
	k->down(&c);
	cur = NULL;
	soak->cycles++;
	soak->cycles_by_where[c.where]++;
	soak->cycles_cm += (uint64_t)c.cm;
}

void
soak_life_main(void)
{
	uint32_t seed = ((uint32_t)time(NULL) ^ (uint32_t)getpid() << 8) | 1;
	uint64_t n = soak->cycles;

	soak->heartbeat = soak_now();
	signal(SIGPIPE, SIG_IGN); /* a dead peer's socket: write() fails instead */
	/* warm-up: each kind in each place once (UCX and the soft NIC keep what they load) */
	for (uint64_t end = n + 12; n < end; n++)
		run_cycle(n, &seed, false);
	soak_res_baseline();
	while (soak_now() < soak->end) {
		run_cycle(n++, &seed, false);
		soak_res_check();
	}
	run_cycle(n, &seed, true);
	soak_res_check();
	_exit(0);
}
