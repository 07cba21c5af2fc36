/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's limits for same-host one-sided copies, the peers of doca_perf rdma/verbs
 * write and read between two processes (issue 22, bench/compare.py):
 *
 *   peer_put pvw   SIZE SECONDS [BATCH [thp]]  process_vm_writev into a forked peer's private
 *                                              (aligned_alloc'd) buffer, BATCH iovecs per call
 *   peer_put pvr   SIZE SECONDS [BATCH [thp]]  process_vm_readv from it, the same way
 *   peer_put memfd SIZE SECONDS [BATCH]        memcpy into a MAP_SHARED memfd mapping the
 *                                              forked peer maps too (memory that is shareable)
 *
 * "thp": the peer advises MADV_HUGEPAGE on its buffer before touching it (pinning 2 MiB pages
 * instead of 4 KiB ones).  Every copy of a batch targets the same SIZE bytes, as doca_perf's
 * --buffers 1 and ucx_perftest.  Prints doca_perf's JSON shape (one result).  Not a test.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer_common.h"

#define MAX_BATCH 64

enum mode { PVW, PVR, MEMFD };

struct peer {
	pid_t pid;
	int down;	 /* closed by us: the peer exits */
	uint8_t *remote; /* the peer's buffer, in its address space (in ours too for memfd) */
};

/*
 * Fork the peer: it owns a SIZE buffer (private, or the memfd's shared mapping), filled with the
 * pattern, sends its address and sleeps until we close the pipe.
 */
static int
start_peer(struct peer *p, enum mode m, size_t size, int thp)
{
	size_t align = thp ? (size_t)2 << 20 : 4096, rounded = (size + align - 1) & ~(align - 1);
	int down[2], up[2], fd = -1;

	if (m == MEMFD) {
		fd = memfd_create("peer_put", 0);
		if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
			return -1;
	}
	if (pipe(down) != 0 || pipe(up) != 0)
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		uint8_t *buf;
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(down[1]);
		close(up[0]);
		if (m == MEMFD)
			buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		else /* page-aligned as doca_perf's buffers; 2 MiB-aligned when huge pages are asked for */
			buf = aligned_alloc(align, rounded);
		if (buf == NULL || buf == MAP_FAILED)
			_exit(1);
		if (thp)
			madvise(buf, rounded, MADV_HUGEPAGE); /* whole 2 MiB pages, or none is huge */
		peer_fill(buf, size);
		if (write(up[1], &buf, sizeof(buf)) != sizeof(buf))
			_exit(1);
		while (read(down[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	p->down = down[1];
	if (read(up[0], &p->remote, sizeof(p->remote)) != sizeof(p->remote))
		return -1;
	close(up[0]);
	if (m == MEMFD) {
		p->remote = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p->remote == MAP_FAILED)
			return -1;
		close(fd);
	}
	return 0;
}

/* One batch: `batch` copies of size bytes between local and the peer's buffer. */
static int
one_batch(const struct peer *p, enum mode m, uint8_t *local, size_t size, unsigned batch)
{
	struct iovec l[MAX_BATCH], r[MAX_BATCH];
	ssize_t want = (ssize_t)(size * batch), got;

	if (m == MEMFD) {
		for (unsigned i = 0; i < batch; i++) {
			memcpy(p->remote, local, size);
			__asm__ __volatile__("" ::: "memory");
		}
		return 0;
	}
	for (unsigned i = 0; i < batch; i++) {
		l[i] = (struct iovec){local, size};
		r[i] = (struct iovec){p->remote, size};
	}
	got = m == PVW ? process_vm_writev(p->pid, l, batch, r, batch, 0)
		       : process_vm_readv(p->pid, l, batch, r, batch, 0);
	if (got != want) {
		perror(m == PVW ? "peer_put: process_vm_writev" : "peer_put: process_vm_readv");
		return -1;
	}
	return 0;
}

/* The bytes moved are the pattern: read back the peer's buffer (write modes) or ours (read). */
static int
check(const struct peer *p, enum mode m, uint8_t *local, size_t size)
{
	if (m == PVW) {
		struct iovec l = {local, size}, r = {p->remote, size};

		memset(local, 0, size);
		if (process_vm_readv(p->pid, &l, 1, &r, 1, 0) != (ssize_t)size)
			return -1;
	}
	const uint8_t *b = m == MEMFD ? p->remote : local;

	for (size_t i = 0; i < size; i++)
		if (b[i] != (uint8_t)(i * 7 + 3))
			return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *const names[] = {"pvw", "pvr", "memfd"};
	struct peer p;
	enum mode m = PVW;
	size_t size;
	unsigned batch;
	double seconds, t0, t, cpu0;
	char config[64];
	uint64_t ops = 0;
	uint8_t *local;
	int found = 0;

	for (int i = 0; i < 3 && argc > 1; i++)
		if (strcmp(argv[1], names[i]) == 0) {
			m = (enum mode)i;
			found = 1;
		}
	if (argc < 4 || argc > 6 || !found) {
		fprintf(stderr, "usage: peer_put pvw|pvr|memfd SIZE SECONDS [BATCH [thp]]\n");
		return 2;
	}
	size = strtoull(argv[2], NULL, 0);
	seconds = atof(argv[3]);
	batch = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 0) : 16;
	if (size == 0 || !(seconds > 0) || batch == 0 || batch > MAX_BATCH) {
		fprintf(stderr, "peer_put: SIZE and SECONDS must be positive, BATCH 1..%d\n", MAX_BATCH);
		return 2;
	}
	local = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	if (local == NULL || start_peer(&p, m, size, argc > 5 && strcmp(argv[5], "thp") == 0) != 0) {
		perror("peer_put: setting up the peer");
		return 1;
	}
	if (m == PVR)
		memset(local, 0, size);
	else
		peer_fill(local, size);
	if (one_batch(&p, m, local, size, batch) != 0) /* untimed warm-up, as doca_perf's */
		return 1;
	cpu0 = peer_cpu_now();
	t0 = peer_now();
	do {
		if (one_batch(&p, m, local, size, batch) != 0)
			return 1;
		ops += batch;
		t = peer_now();
	} while (t - t0 < seconds);
	if (check(&p, m, local, size) != 0) {
		fprintf(stderr, "peer_put: copy check failed\n");
		return 1;
	}
	close(p.down);
	waitpid(p.pid, NULL, 0);
	snprintf(config, sizeof(config), "\"batch\":%u", batch);
	peer_print("peer_put", argv[1], config, size, ops, t - t0, peer_cpu_now() - cpu0);
	return 0;
}
