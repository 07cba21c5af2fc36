/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the kernel operations under softdoca's same-host data path cost on this machine (issue 22,
 * docs/results/notes.md): a null system call (getppid), an eventfd write + read, a 64-byte
 * process_vm_readv from a forked peer.  ROUNDS rounds of each, interleaved, SECONDS each; prints
 * the median ns per operation as one JSON object.  The 1 MiB process_vm_writev with and without
 * MADV_HUGEPAGE on the target is `peer_put pvw 1048576 S 1 [thp]`.  Not a test.
 *
 *   syscall_cost [SECONDS [ROUNDS]]
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer_common.h"

#define MAX_ROUNDS 32

enum probe { NULL_SYSCALL, EVENTFD, PVR64, N_PROBES };

static const char *const probe_names[N_PROBES] = {"null_syscall_ns", "eventfd_write_read_ns", "pvr_64b_ns"};

struct target {
	pid_t pid;
	int efd;
	void *remote;
	uint8_t local[64];
};

static int
one_op(struct target *t, enum probe p)
{
	uint64_t v = 1;
	struct iovec l = {t->local, 64}, r = {t->remote, 64};

	switch (p) {
	case NULL_SYSCALL:
		return syscall(SYS_getppid) > 0 ? 0 : -1;
	case EVENTFD:
		return write(t->efd, &v, 8) == 8 && read(t->efd, &v, 8) == 8 ? 0 : -1;
	default:
		return process_vm_readv(t->pid, &l, 1, &r, 1, 0) == 64 ? 0 : -1;
	}
}

/* ns per operation over `seconds` (checked against the clock every 256 operations). */
static double
measure(struct target *t, enum probe p, double seconds)
{
	double t0 = peer_now(), t1;
	uint64_t n = 0;

	do {
		for (int i = 0; i < 256; i++)
			if (one_op(t, p) != 0) {
				perror("syscall_cost");
				exit(1);
			}
		n += 256;
		t1 = peer_now();
	} while (t1 - t0 < seconds);
	return (t1 - t0) * 1e9 / (double)n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	static uint8_t peer_buf[64];
	double seconds = argc > 1 ? atof(argv[1]) : 0.2, ns[N_PROBES][MAX_ROUNDS];
	int rounds = argc > 2 ? atoi(argv[2]) : 5, up[2];
	struct target t = {.remote = peer_buf};

	if (!(seconds > 0) || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: syscall_cost [SECONDS [ROUNDS 1..%d]]\n", MAX_ROUNDS);
		return 2;
	}
	t.efd = eventfd(0, EFD_NONBLOCK);
	if (t.efd < 0 || pipe(up) != 0 || (t.pid = fork()) < 0)
		return 1;
	if (t.pid == 0) { /* the peer: its peer_buf (same address as ours after the fork), until killed */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		peer_fill(peer_buf, sizeof(peer_buf));
		if (write(up[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(up[0], t.local, 1) != 1)
		return 1;
	for (int r = 0; r < rounds; r++)
		for (int p = 0; p < N_PROBES; p++)
			ns[p][r] = measure(&t, (enum probe)p, seconds);
	kill(t.pid, SIGKILL);
	waitpid(t.pid, NULL, 0);
	if (!peer_pattern_ok(t.local, sizeof(t.local))) {
		fprintf(stderr, "syscall_cost: the 64-byte read returned the wrong bytes\n");
		return 1;
	}
	printf("{\"tool\":\"syscall_cost\",\"rounds\":%d,\"seconds\":%.3f", rounds, seconds);
	for (int p = 0; p < N_PROBES; p++) {
		qsort(ns[p], (size_t)rounds, sizeof(double), cmp_double);
		printf(",\"%s\":%.1f", probe_names[p], ns[p][rounds / 2]);
	}
	printf("}\n");
	return 0;
}
