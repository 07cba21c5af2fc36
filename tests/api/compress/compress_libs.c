/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compress_libs: the measurement behind libdoca_compress's choice of library
 * (docs/compress.md "Which library"): zlib and libdeflate, raw DEFLATE at the
 * same level, compress and decompress of 1 MiB of the mixed corpus
 * (corpus.h), and the two checksums of each; the best of N runs, one thread.
 *   ./compress_libs [level] [runs]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libdeflate.h>
#include <zlib.h>

#include "corpus.h"

#define LEN (1u << 20)

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct job {
	const char *name;
	size_t (*fn)(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap);
};

static size_t
zlib_compress(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream s;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	(void)deflate(&s, Z_FINISH);
	deflateEnd(&s);
	return s.total_out;
}

static size_t
zlib_decompress(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	z_stream s;

	(void)level;
	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, -MAX_WBITS) != Z_OK)
		return 0;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	(void)inflate(&s, Z_FINISH);
	inflateEnd(&s);
	return s.total_out;
}

static size_t
ld_compress(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	static struct libdeflate_compressor *c;

	if (c == NULL)
		c = libdeflate_alloc_compressor(level);
	return c == NULL ? 0 : libdeflate_deflate_compress(c, in, n, out, cap);
}

static size_t
ld_decompress(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	static struct libdeflate_decompressor *d;
	size_t got = 0;

	(void)level;
	if (d == NULL)
		d = libdeflate_alloc_decompressor();
	if (d == NULL || libdeflate_deflate_decompress(d, in, n, out, cap, &got) != LIBDEFLATE_SUCCESS)
		return 0;
	return got;
}

static size_t
zlib_sums(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	uint32_t v[2] = {(uint32_t)crc32(0, in, (uInt)n), (uint32_t)adler32(1, in, (uInt)n)};

	(void)level;
	memcpy(out, v, cap < sizeof(v) ? cap : sizeof(v));
	return n;
}

static size_t
ld_sums(int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	uint32_t v[2] = {libdeflate_crc32(0, in, n), libdeflate_adler32(1, in, n)};

	(void)level;
	memcpy(out, v, cap < sizeof(v) ? cap : sizeof(v));
	return n;
}

/* MB/s of the best of runs calls; *out_len what the call produced. */
static double
measure(const struct job *j, int level, int runs, const uint8_t *in, size_t n, uint8_t *out, size_t *out_len)
{
	double best = 1e30;

	for (int r = 0; r < runs; r++) {
		double t0 = now(), e;

		*out_len = j->fn(level, in, n, out, 2 * LEN);
		e = now() - t0;
		if (e < best)
			best = e;
	}
	return (double)LEN / best / 1e6;
}

int
main(int argc, char **argv)
{
	int level = argc > 1 ? atoi(argv[1]) : 6, runs = argc > 2 ? atoi(argv[2]) : 20;
	uint8_t *in = malloc(LEN), *zraw = malloc(2 * LEN), *lraw = malloc(2 * LEN), *back = malloc(2 * LEN);
	size_t zlen = 0, llen = 0, got = 0;
	static const struct job zc = {"zlib compress", zlib_compress}, lc = {"libdeflate compress", ld_compress};
	static const struct job zd = {"zlib decompress", zlib_decompress},
				ld = {"libdeflate decompress", ld_decompress};
	static const struct job zs = {"zlib crc32+adler32", zlib_sums}, ls = {"libdeflate crc32+adler32", ld_sums};
	double v;

	if (in == NULL || zraw == NULL || lraw == NULL || back == NULL)
		return 1;
	corpus_fill(in, LEN, 7);
	printf("1 MiB mixed corpus (tests/api/compress/corpus.h, seed 7), level %d, best of %d, one thread\n", level,
	       runs);
	v = measure(&zc, level, runs, in, LEN, zraw, &zlen);
	printf("%-26s %8.1f MB/s  -> %zu bytes\n", zc.name, v, zlen);
	v = measure(&lc, level, runs, in, LEN, lraw, &llen);
	printf("%-26s %8.1f MB/s  -> %zu bytes\n", lc.name, v, llen);
	/* each decompresses the other's stream too: the output is interchangeable */
	printf("%-26s %8.1f MB/s  (of zlib's stream)\n", zd.name, measure(&zd, level, runs, zraw, zlen, back, &got));
	if (got != LEN || memcmp(back, in, LEN) != 0)
		return 1;
	printf("%-26s %8.1f MB/s  (of zlib's stream)\n", ld.name, measure(&ld, level, runs, zraw, zlen, back, &got));
	if (got != LEN || memcmp(back, in, LEN) != 0)
		return 1;
	printf("%-26s %8.1f MB/s\n", zs.name, measure(&zs, level, runs, in, LEN, back, &got));
	printf("%-26s %8.1f MB/s\n", ls.name, measure(&ls, level, runs, in, LEN, back, &got));
	free(in);
	free(zraw);
	free(lraw);
	free(back);
	return 0;
}
