/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory an RDMA or Verbs side registers (--memory): private pages, or a
 * shared object - a sealed memfd, POSIX shared memory, hugetlbfs - whose
 * registrations same-host peers can map (docs/rdma-ucx.md "The mapped path").
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf.h"

#define HUGE_PAGE (2u << 20)
#define MAX_SHARED 8

/* The shared objects handed out: the memfd stays open (the mapping's owner keeps its descriptor). */
static struct {
	void *p;
	size_t len;
	int fd;
	char shm_name[48];
} shared[MAX_SHARED];

static void *
map_shared(int fd, size_t len)
{
	void *p;

	if (ftruncate(fd, (off_t)len) != 0)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void *
shared_alloc(enum perf_memory kind, size_t n, int slot)
{
	size_t len = (n + 4095) & ~(size_t)4095;
	int fd = -1;
	void *p;

	switch (kind) {
	case PERF_MEM_MEMFD:
		fd = memfd_create("doca_perf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		break;
	case PERF_MEM_HUGETLB:
		len = (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
		fd = memfd_create("doca_perf", MFD_CLOEXEC | MFD_HUGETLB);
		break;
	case PERF_MEM_SHM:
		snprintf(shared[slot].shm_name, sizeof(shared[slot].shm_name), "/doca_perf-%d-%d", (int)getpid(), slot);
		fd = shm_open(shared[slot].shm_name, O_RDWR | O_CREAT | O_EXCL, 0600);
		break;
	case PERF_MEM_PRIVATE:
		break;
	}
	if (fd < 0)
		return NULL;
	p = map_shared(fd, len);
	if (p != NULL && kind == PERF_MEM_MEMFD)
		(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
	if (kind == PERF_MEM_SHM) {
		close(fd);
		fd = -1;
	}
	if (p == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	shared[slot].p = p;
	shared[slot].len = len;
	shared[slot].fd = fd;
	return p;
}

void *
perf_mem_alloc(const struct perf_opts *o, size_t n)
{
	void *p = NULL;

	if (o->memory == PERF_MEM_PRIVATE)
		return perf_page_alloc(n);
	for (int i = 0; i < MAX_SHARED; i++) {
		if (shared[i].p == NULL) {
			p = shared_alloc(o->memory, n, i);
			break;
		}
	}
	if (p == NULL)
		fprintf(stderr, "doca_perf: --memory %s: cannot make %zu bytes of it%s\n", perf_memory_name(o->memory),
			n, o->memory == PERF_MEM_HUGETLB ? " (reserve huge pages: /proc/sys/vm/nr_hugepages)" : "");
	return p;
}

void
perf_mem_free(const struct perf_opts *o, void *p)
{
	if (o->memory == PERF_MEM_PRIVATE) {
		free(p);
		return;
	}
	for (int i = 0; i < MAX_SHARED; i++) {
		if (p == NULL || shared[i].p != p)
			continue;
		munmap(p, shared[i].len);
		if (shared[i].fd >= 0)
			close(shared[i].fd);
		if (shared[i].shm_name[0] != '\0')
			shm_unlink(shared[i].shm_name);
		memset(&shared[i], 0, sizeof(shared[i]));
	}
}

static const char *const names[] = {"private", "memfd", "shm", "hugetlb"};

const char *
perf_memory_name(enum perf_memory m)
{
	return names[m];
}

bool
perf_memory_parse(const char *s, enum perf_memory *m)
{
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			*m = (enum perf_memory)i;
			return true;
		}
	}
	return false;
}
