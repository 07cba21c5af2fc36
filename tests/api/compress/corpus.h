/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mixed text/binary corpus of the compress tests and of the library
 * measurement (compress_libs.c, docs/compress.md): deterministic from a seed,
 * alternating 4 KiB runs of English-like text (words from a small vocabulary,
 * punctuation, line breaks) and of binary records (a counter, small numbers,
 * flags and a few random bytes), so that it compresses about as well as real
 * mixed data does (roughly 3:1 at level 6).
 */
#ifndef COMPRESS_CORPUS_H_
#define COMPRESS_CORPUS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t
corpus_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static inline size_t
corpus_text(uint8_t *p, size_t n, uint32_t *s)
{
	static const char *const words[] = {
		"the",	  "engine", "data", "buffer", "stream", "of",	  "and",   "a",	   "to",    "in",      "device",
		"host",	  "memory", "task", "is",     "block",	"with",	  "for",   "each", "queue", "context", "reads",
		"writes", "from",   "that", "on",     "checks", "output", "input", "size", "when",  "every",
	};
	size_t i = 0;

	while (i < n) {
		uint32_t r = corpus_rand(s);
		const char *w = words[r % (sizeof(words) / sizeof(words[0]))];
		size_t len = strlen(w);

		for (size_t k = 0; k < len && i < n; k++)
			p[i++] = (uint8_t)w[k];
		if (i < n)
			p[i++] = (r >> 8) % 16 == 0 ? '\n' : (r >> 8) % 11 == 0 ? ',' : ' ';
	}
	return n;
}

static inline size_t
corpus_binary(uint8_t *p, size_t n, uint32_t *s, uint32_t *counter)
{
	size_t i = 0;

	while (i < n) {
		uint8_t rec[16];
		uint32_t r = corpus_rand(s), c = (*counter)++;

		memcpy(rec, &c, 4);
		rec[4] = (uint8_t)(r % 7);
		rec[5] = 0;
		rec[6] = (uint8_t)((r >> 3) & 0x3);
		rec[7] = 0x80;
		for (int k = 8; k < 16; k++)
			rec[k] = k < 11 ? (uint8_t)corpus_rand(s) : 0;
		for (int k = 0; k < 16 && i < n; k++)
			p[i++] = rec[k];
	}
	return n;
}

/* Fill n bytes of p with the corpus of seed (seed != 0). */
static inline void
corpus_fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t s = seed != 0 ? seed : 1, counter = 0;
	size_t i = 0;

	for (int run = 0; i < n; run++) {
		size_t k = n - i < 4096 ? n - i : 4096;

		i += run % 2 == 0 ? corpus_text(p + i, k, &s) : corpus_binary(p + i, k, &s, &counter);
	}
}

#endif /* COMPRESS_CORPUS_H_ */
