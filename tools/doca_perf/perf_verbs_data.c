/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs, the data check: the source side fills its area with a
 * seeded pattern, the destination checksums what arrived and compares it with
 * the checksum the pattern gives, so a path that moved nothing cannot report a
 * number.
 */
#include <string.h>

#include "perf_verbs.h"

uint64_t
perf_verbs_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t
fold(uint64_t h, uint64_t w)
{
	return (h ^ w) * 0x100000001b3ull + (h >> 29);
}

/* Word w of the pattern seeded by seed; byte x of the area is byte x % 8 of word x / 8 (little endian). */
void
perf_verbs_pattern_fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t off = 0; off < len; off += 8) {
		uint64_t v = perf_verbs_mix64(seed ^ (off / 8));

		memcpy(p + off, &v, len - off < 8 ? len - off : 8);
	}
}

uint64_t
perf_verbs_checksum(const uint8_t *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;

	for (size_t off = 0; off < len; off += 8) {
		uint64_t w = 0;

		memcpy(&w, p + off, len - off < 8 ? len - off : 8);
		h = fold(h, w);
	}
	return h;
}

uint64_t
perf_verbs_pattern_checksum(uint64_t seed, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len;

	for (size_t off = 0; off < len; off += 8) {
		uint64_t w = perf_verbs_mix64(seed ^ (off / 8));

		if (len - off < 8)
			w &= (1ull << (8 * (len - off))) - 1;
		h = fold(h, w);
	}
	return h;
}
