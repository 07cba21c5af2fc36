/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The long-lived process's resources: open fds, threads, RSS and the objects in /dev/shm
 * (a private mount when the test runs as root, so they are this run's; not counted otherwise) must be back at
 * the baseline after every cycle; an ending thread or a dead peer's objects get 10 s.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sd_test.h"
#include "soak.h"

#define RSS_SLACK (64ull << 20) /* allocator noise: 7 to 31 MiB seen under meson (MALLOC_PERTURB_) */
#define SETTLE_S 10.0

/* This run's objects in /dev/shm; 0 when it is shared with the rest of the machine (not counted). */
static long
shm_entries(void)
{
	return soak->own_shm ? soak_count_entries("/dev/shm") : 0;
}

long
soak_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static uint64_t
rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fscanf(f, "%lu %lu", &size, &resident), 2);
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

void
soak_res_baseline(void)
{
	soak->base_fds = soak_count_entries("/proc/self/fd");
	soak->base_threads = soak_count_entries("/proc/self/task");
	soak->base_shm = shm_entries();
	soak->base_rss = rss_bytes();
	if (soak->base_fds > soak->max_fds)
		soak->max_fds = soak->base_fds;
	if (soak->base_threads > soak->max_threads)
		soak->max_threads = soak->base_threads;
	if (soak->base_shm > soak->max_shm)
		soak->max_shm = soak->base_shm;
	if (soak->base_rss > soak->max_rss)
		soak->max_rss = soak->base_rss;
}

void
soak_res_check(void)
{
	double end = soak_now() + SETTLE_S;
	long fds, threads, shm;
	uint64_t rss;

	for (;;) {
		fds = soak_count_entries("/proc/self/fd");
		threads = soak_count_entries("/proc/self/task");
		shm = shm_entries();
		if ((fds == soak->base_fds && threads == soak->base_threads && shm <= soak->base_shm) ||
		    soak_now() > end)
			break;
		usleep(10000);
	}
	rss = rss_bytes();
	if (fds > soak->max_fds)
		soak->max_fds = fds;
	if (threads > soak->max_threads)
		soak->max_threads = threads;
	if (shm > soak->max_shm)
		soak->max_shm = shm;
	if (rss > soak->max_rss)
		soak->max_rss = rss;
	if (fds != soak->base_fds || threads != soak->base_threads || shm > soak->base_shm ||
	    rss > soak->base_rss + RSS_SLACK)
		sd_test_fail(__FILE__, __LINE__,
			     "after cycle %llu: %ld fds (baseline %ld), %ld threads (baseline %ld), %ld in /dev/shm "
			     "(baseline %ld), RSS %llu MiB (baseline %llu MiB)",
			     (unsigned long long)soak->cycles, fds, soak->base_fds, threads, soak->base_threads, shm,
			     soak->base_shm, (unsigned long long)(rss >> 20),
			     (unsigned long long)(soak->base_rss >> 20));
}
