/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The soak test's shared parts (docs/robustness.md).  Three roles:
 *   the driver (the test case: soak_main.c, soak_chaos.c) forks and restarts the long-lived
 *     process, SIGKILLs it now and then, cuts links and shapes them with tc;
 *   the long-lived process (soak_life.c) runs cycles of one traffic kind each against a fresh
 *     peer it forks, SIGKILLs a third of them mid-traffic, and checks its own resources
 *     after every cycle (soak_res.c);
 *   the peers (soak_rdma.c, soak_verbs.c, soak_comch.c, soak_dma.c).
 * Every figure lives in one MAP_SHARED page the driver maps before forking, so a process
 * that is SIGKILLed loses nothing it counted.
 */
#ifndef SOAK_H_
#define SOAK_H_

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_error.h>

#define SOAK_OP_BOUND_S 60.0 /* watchdog: an operation outstanding longer fails the run */
#define SOAK_ROUNDS 16	     /* rounds per cycle */

/* What moves, each byte verified by the side that receives it. */
enum soak_kind {
	K_RDMA_WRITE_READ,
	K_RDMA_SEND,
	K_VERBS_WRITE,
	K_VERBS_SEND,
	K_COMCH_MSG,
	K_COMCH_FAST,
	K_DMA,
	K_NUM,
};

struct soak_kind_fig {
	uint64_t bytes, ops;
};

/* Where a cycle runs: one host (shm or tcp over lo) or across the two namespaces (tcp over a veth). */
enum soak_where { W_SHM, W_TCP_LO, W_NETNS };

struct soak_shared {
	struct soak_kind_fig kind[K_NUM];
	uint64_t cycles, cycles_by_where[3], cycles_cm;
	uint64_t conns, broken, broken_by_link, peer_kills;
	uint64_t life_starts, life_kills, survivors_reported;
	uint64_t link_cuts, tc_changes, corrupted, lost;
	double worst_detect_s, worst_life_detect_s, worst_op_s;
	long base_fds, max_fds, base_threads, max_threads, base_shm, max_shm;
	uint64_t base_rss, max_rss;
	/* the long-lived process tells the driver where it is */
	pid_t life_pid, peer_pid;
	int life_killable;	/* 1: an RDMA cycle whose peer keeps traffic of its own going */
	int in_setup, link_cut; /* a netns cycle connecting; a cut on (never both: soak_chaos.c) */
	double heartbeat;	/* last progress of the long-lived process */
	double life_killed_at;	/* set by the driver just before it SIGKILLs the long-lived process */
	uint64_t link_epoch;	/* bumped by the driver at each cut, restore and tc change */
	/* the two namespaces (SD_NETNS_*), empty without them */
	bool netns, netem;
	char ns_a[64], ns_b[64], veth_a[32], veth_b[32], addr_b[64];
	char skip_netns[160];
	double end;
	bool tcp;     /* tcp cycles allowed (SOAK_TRANSPORTS unset) */
	bool own_shm; /* /dev/shm is this run's own (root: a private mount), so its entries count */
};

extern struct soak_shared *soak;

/* A cycle of one kind; a peer's function gets its end of the socketpair and returns its exit code. */
struct soak_cycle {
	enum soak_where where;
	bool cm;     /* RDMA: connect over RDMA-CM rather than OOB descriptors */
	int kill_at; /* round before which the peer is SIGKILLed, -1: not */
	pid_t peer;
	int sock;
	uint64_t epoch; /* soak->link_epoch when the cycle began */
	uint64_t first; /* the number of the cycle's first round */
	double killed_at;
	bool broken; /* a round failed (counted) */
	void *state; /* the kind's own */
};

struct soak_kind_ops {
	const char *name;
	int (*peer)(struct soak_cycle *c);			 /* in the forked peer */
	void (*up)(struct soak_cycle *c);			 /* connect, set up */
	doca_error_t (*round)(struct soak_cycle *c, uint64_t r); /* one verified round */
	void (*down)(struct soak_cycle *c);			 /* release (peer dead or asked to go) */
};

extern const struct soak_kind_ops soak_rdma_ops, soak_verbs_ops, soak_comch_ops, soak_dma_ops;

double soak_now(void);
/* The byte at offset i of round r of a kind: every round's pattern differs from its neighbours'. */
static inline uint8_t
soak_pattern(uint64_t r, size_t i)
{
	return (uint8_t)((r * 2654435761u) ^ (i * 31u) ^ (i >> 8));
}
void soak_fill(uint8_t *p, size_t len, uint64_t r);
/* Count each byte that differs (and fail the run at the first); true when all match. */
bool soak_verify(const uint8_t *p, size_t len, uint64_t r, const char *what);
void soak_count(enum soak_kind k, uint64_t bytes);
/* The watchdog: fail the run when an operation started at start is outstanding past the bound. */
void soak_watchdog(double start, const char *what);
void soak_op_took(double start);
void soak_max(double *slot, double v);
/* Exactly len bytes over the socketpair (out: write): false when the other side is gone. */
bool soak_xfer(int fd, void *p, size_t len, bool out);

/* soak_life.c: the long-lived process's main loop (never returns). */
void soak_life_main(void) __attribute__((noreturn));

/* soak_res.c */
long soak_count_entries(const char *dir);
void soak_res_baseline(void);
void soak_res_check(void);

/* soak_chaos.c */
void soak_chaos_init(void);
void soak_chaos_tick(void);
void soak_chaos_restore(void);
void soak_enter_ns(const char *ns);
void soak_use_where(enum soak_where w, bool peer_side);

#endif /* SOAK_H_ */
