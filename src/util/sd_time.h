/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one monotonic clock of softdoca's timers and deadlines.  Both helpers
 * read CLOCK_MONOTONIC, so their values compare; the coarse one has tick
 * resolution (1-4 ms) and is a plain memory read in the vDSO, ~5x cheaper
 * than the precise one: enough for back-offs and liveness periods.
 */
#ifndef SD_TIME_H_
#define SD_TIME_H_

#include <stdint.h>
#include <time.h>

static inline uint64_t
sd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t
sd_coarse_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* SD_TIME_H_ */
