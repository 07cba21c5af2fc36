/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small open-addressing hash map, uint64 key (never 0) -> pointer, linear
 * probing, grown at half full.  Not thread-safe: its owner locks.
 */
#ifndef SD_PTAB_H_
#define SD_PTAB_H_

#include <stdint.h>

#include "sd_util.h"

struct sd_ptab {
	uint64_t *keys;
	void **vals;
	uint32_t cap, n; /* cap: a power of two */
};

/* The value of key, or NULL. */
SD_EXPORT void *sd_ptab_get(const struct sd_ptab *t, uint64_t key);
/* Set key's value; ENOMEM (the map unchanged) when it cannot grow, else 0. */
SD_EXPORT int sd_ptab_put(struct sd_ptab *t, uint64_t key, void *val);
/* Remove key if present. */
SD_EXPORT void sd_ptab_del(struct sd_ptab *t, uint64_t key);

#endif /* SD_PTAB_H_ */
