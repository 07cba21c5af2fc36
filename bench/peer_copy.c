/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software peers doca_perf dma is compared with, shaped like doca_perf's run
 * and printing the same JSON, so bench/compare.py treats both alike.  The working
 * set is doca_perf's (tools/doca_perf/perf_dma.c run_size, perf_util.c perf_slots):
 * `depth` source/destination pairs, fewer when they would exceed 256 MiB a side,
 * cycled; locally ONE 4 KiB-aligned allocation of 2 x side holding the sources and
 * then the destinations (dst = src + side), all of it filled with the pattern before
 * timing.  The layout matters: at 1 MiB (where glibc switches from rep movsb to
 * its vector loop on the development VM) copies in that layout ran ~4 % slower
 * than between the two separate allocations this peer used before (destination
 * below the source), which made the peer look faster than the same memcpy in
 * doca_perf.
 *
 *   peer_copy memcpy SIZE DEPTH SECONDS [BUFFERS]   plain memcpy loop in this process
 *   peer_copy pvr    SIZE DEPTH SECONDS [BUFFERS]   process_vm_readv loop from a forked holder
 *
 * BUFFERS caps the distinct source/destination pairs as doca_perf's --buffers does.
 *
 * Latency is per copy call (one task's worth of bytes).  Not a test.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer_common.h"

#define SIDE_BUDGET (256u << 20)

/* Page-aligned, as doca_perf's perf_page_alloc (aligned_alloc wants a multiple of the alignment). */
static void *
page_alloc(size_t n)
{
	return aligned_alloc(4096, (n + 4095) & ~(size_t)4095);
}

/* Keeps the compiler from dropping the copies. */
static volatile uint8_t sink;

/* `depth` copies of `size` bytes, task k using slot k % slots. */
static int
copy_pass(int pvr, pid_t holder, uint8_t *src, uint8_t *dst, size_t size, size_t slots, unsigned depth)
{
	for (size_t k = 0; k < depth; k++) {
		size_t off = (k % slots) * size;

		if (pvr) {
			struct iovec l = {dst + off, size}, r = {src + off, size};

			if (process_vm_readv(holder, &l, 1, &r, 1, 0) != (ssize_t)size) {
				perror("peer_copy: process_vm_readv");
				return -1;
			}
		} else {
			memcpy(dst + off, src + off, size);
			__asm__ __volatile__("" ::: "memory");
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	size_t size, slots, side, buffers;
	unsigned depth;
	double seconds, t0, t, cpu0;
	char config[64];
	uint64_t ops = 0;
	uint8_t *src, *dst;
	pid_t holder = 0;
	int pvr;

	if ((argc != 5 && argc != 6) || (strcmp(argv[1], "memcpy") != 0 && strcmp(argv[1], "pvr") != 0)) {
		fprintf(stderr, "usage: peer_copy memcpy|pvr SIZE DEPTH SECONDS [BUFFERS]\n");
		return 2;
	}
	pvr = strcmp(argv[1], "pvr") == 0;
	size = strtoull(argv[2], NULL, 0);
	depth = (unsigned)strtoul(argv[3], NULL, 0);
	seconds = atof(argv[4]);
	buffers = argc == 6 ? strtoull(argv[5], NULL, 0) : 0; /* 0: as many as fit */
	if (size == 0 || depth == 0 || !(seconds > 0)) {
		fprintf(stderr, "peer_copy: SIZE, DEPTH and SECONDS must be positive\n");
		return 2;
	}
	slots = SIDE_BUDGET / size;
	if (slots < 1)
		slots = 1;
	if (slots > depth)
		slots = depth;
	if (buffers != 0 && slots > buffers)
		slots = buffers;
	side = slots * size;
	if (pvr) {
		/*
		 * The holder allocates and fills the source itself and sleeps until we are
		 * done, as doca_perf's exporting "host" process does: the pages we read are
		 * the holder's own (not copy-on-write pages shared with us by the fork).
		 */
		int down[2], up[2];
		char c;

		if (pipe(down) != 0 || pipe(up) != 0)
			return 1;
		holder = fork();
		if (holder == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(down[1]);
			close(up[0]);
			src = page_alloc(side);
			if (src == NULL)
				_exit(1);
			peer_fill(src, side);
			if (write(up[1], &src, sizeof(src)) != sizeof(src))
				_exit(1);
			while (read(down[0], &c, 1) > 0)
				;
			_exit(0);
		}
		close(down[0]);
		close(up[1]);
		if (read(up[0], &src, sizeof(src)) != sizeof(src)) {
			fprintf(stderr, "peer_copy: the holder process failed\n");
			return 1;
		}
		close(up[0]);
		/*
		 * The destination is allocated after the fork (a forked-shared page would
		 * take a copy-on-write fault at its first write) and touched before timing,
		 * as doca_perf fills its local buffer (zeros here, so that the check at the
		 * end sees copied bytes).
		 */
		dst = page_alloc(side);
		if (dst == NULL)
			return 1;
		memset(dst, 0, side);
	} else {
		src = page_alloc(2 * side);
		if (src == NULL)
			return 1;
		peer_fill(src, 2 * side);
		dst = src + side;
	}
	/* One untimed pass first, as doca_perf runs warm-up tasks before measuring. */
	if (copy_pass(pvr, holder, src, dst, size, slots, depth) != 0)
		return 1;
	cpu0 = peer_cpu_now();
	t0 = peer_now();
	do {
		if (copy_pass(pvr, holder, src, dst, size, slots, depth) != 0)
			return 1;
		ops += depth;
		t = peer_now();
	} while (t - t0 < seconds);
	sink = dst[side - 1];
	for (size_t i = 0; i < size; i++)
		if (dst[i] != (uint8_t)(i * 7 + 3)) {
			fprintf(stderr, "peer_copy: copy check failed\n");
			return 1;
		}
	if (pvr) {
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
	}
	snprintf(config, sizeof(config), "\"depth\":%u,\"buffers\":%zu", depth, slots);
	peer_print("peer_copy", argv[1], config, size, ops, t - t0, peer_cpu_now() - cpu0);
	return 0;
}
