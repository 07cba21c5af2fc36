/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the bench peers (peer_copy, peer_put, peer_ucp) share: the clocks they time with, the
 * byte pattern they move, and doca_perf's JSON shape for their one result, so that
 * bench/compare.py reads every peer as it reads doca_perf.
 */
#ifndef SOFTDOCA_BENCH_PEER_COMMON_H
#define SOFTDOCA_BENCH_PEER_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static inline double
peer_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* User + system seconds of this process. */
static inline double
peer_cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The source pattern doca_perf uses too. */
static inline void
peer_fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + 3);
}

static inline int
peer_pattern_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 7 + 3))
			return 0;
	return 1;
}

/* One result in doca_perf's --json shape: ops copies of size bytes in secs, cpu seconds used. */
static inline void
peer_print(const char *tool, const char *test, const char *config, size_t size, uint64_t ops, double secs, double cpu)
{
	printf("{\"tool\":\"%s\",\"test\":\"%s\",\"config\":{%s},\"results\":[{\"size\":%zu,"
	       "\"tasks\":%llu,\"seconds\":%.6f,\"bytes_per_sec\":%.1f,\"tasks_per_sec\":%.1f,\"cpu_percent\":%.1f,"
	       "\"lat_ns\":{\"avg\":%.1f}}]}\n",
	       tool, test, config, size, (unsigned long long)ops, secs, (double)ops * (double)size / secs,
	       (double)ops / secs, 100.0 * cpu / secs, secs * 1e9 / (double)ops);
}

#endif
