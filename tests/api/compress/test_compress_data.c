/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the compress tasks produce, against independent implementations: the
 * compress output inflates with zlib to the input; zlib's raw DEFLATE, liblz4's
 * blocks and the `lz4` tool's frames (without their frame) decompress to the
 * input; the checksums are zlib's crc32/adler32 and XXH32 as DOCA reports it;
 * buffer lists; the same bytes with the engine inline and with 2 workers; and
 * every bad input failing its task through the error callback with its status,
 * nothing appended and nothing written past the destination.
 */
#include <stdio.h>

#include <lz4.h>
#include <xxhash.h>

#include "compress_test.h"
#include "corpus.h"
#include "lz4_frame.h"
#include "zlib_ref.h"

#define MIB (1u << 20)

static uint8_t *
corpus(size_t n, uint32_t seed)
{
	uint8_t *p = malloc(n > 0 ? n : 1);

	ASSERT_NOT_NULL(p);
	corpus_fill(p, n, seed);
	return p;
}

static void
expect_zlib_sums(const struct result *r, const uint8_t *plain, size_t n)
{
	ASSERT_EQ(r->crc, crc32(0, plain, (uInt)n));
	ASSERT_EQ(r->second, adler32(1, plain, (uInt)n));
}

static void
expect_xxh(const struct result *r, const uint8_t *plain, size_t n)
{
	ASSERT_EQ(r->crc, crc32(0, plain, (uInt)n));
	ASSERT_EQ(r->second, __builtin_bswap32(XXH32(plain, n, 0)));
}

/* ---- deflate ------------------------------------------------------------------------------ */

TEST(compress_output_inflates_with_zlib)
{
	static const size_t sizes[] = {1, 2, 155, 4096, 65537, 300000, MIB + 7};
	uint8_t *back = malloc(2 * MIB);
	struct cenv e;

	cenv_open(&e, 2 * MIB, 2 * MIB);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *in = corpus(sizes[i], (uint32_t)i + 1);
		struct result r = cenv_run(&e, F_COMPRESS, in, sizes[i], 2 * MIB, false, false);

		ASSERT_OK(r.status);
		ASSERT(r.out_len > 0);
		ASSERT_EQ(zlib_inflate(e.dst, r.out_len, back, 2 * MIB), sizes[i]);
		ASSERT_MEM_EQ(back, in, sizes[i]);
		expect_zlib_sums(&r, in, sizes[i]);
		free(in);
	}
	free(back);
	cenv_close(&e);
}

TEST(checksums_are_zlibs_on_real_hardware_values)
{
	/* The values a BlueField reports for this text (shoc's compress test), which are zlib's. */
	static const char lorem[] = "Lorem ipsum dolor sit amet, consetetur sadipscing elitr, sed diam nonumy eirmod "
				    "tempor invidunt ut labore et dolore magna aliquyam erat, sed diam voluptua.";
	struct cenv e;
	struct result r;
	uint8_t raw[512];
	size_t n;

	cenv_open(&e, 4096, 4096);
	r = cenv_run(&e, F_COMPRESS, lorem, 155, 4096, false, false);
	ASSERT_OK(r.status);
	ASSERT_EQ(r.crc, 4025347724u);
	ASSERT_EQ(r.second, 2629515667u);
	n = zlib_deflate((const uint8_t *)lorem, 155, raw, sizeof(raw), 9, Z_DEFAULT_STRATEGY);
	r = cenv_run(&e, F_INFLATE, raw, n, 4096, false, false);
	ASSERT_OK(r.status);
	ASSERT_EQ(r.out_len, 155);
	ASSERT_EQ(r.crc, 4025347724u);
	ASSERT_EQ(r.second, 2629515667u);
	cenv_close(&e);
}

TEST(zlib_streams_decompress)
{
	/* levels 0 (stored blocks), 1, 6, 9; Huffman-only, fixed codes and RLE strategies */
	static const int cases[][2] = {{0, Z_DEFAULT_STRATEGY},
				       {1, Z_DEFAULT_STRATEGY},
				       {6, Z_DEFAULT_STRATEGY},
				       {9, Z_DEFAULT_STRATEGY},
				       {6, Z_HUFFMAN_ONLY},
				       {6, Z_FIXED},
				       {6, Z_RLE}};
	size_t n = 700000;
	uint8_t *in = corpus(n, 42), *raw = malloc(2 * MIB);
	struct cenv e;

	cenv_open(&e, 2 * MIB, MIB);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = zlib_deflate(in, n, raw, 2 * MIB, cases[i][0], cases[i][1]);
		struct result r = cenv_run(&e, F_INFLATE, raw, len, MIB, false, false);

		ASSERT_OK(r.status);
		ASSERT_EQ(r.out_len, n);
		ASSERT_MEM_EQ(e.dst, in, n);
		expect_zlib_sums(&r, in, n);
	}
	free(raw);
	free(in);
	cenv_close(&e);
}

TEST(round_trip_of_incompressible_and_uniform_data)
{
	size_t n = 200000;
	uint8_t *rnd = malloc(n), *zero = calloc(1, n), *packed = malloc(2 * MIB);
	uint32_t s = 99;
	struct cenv e;

	for (size_t i = 0; i < n; i++)
		rnd[i] = (uint8_t)corpus_rand(&s);
	cenv_open(&e, 2 * MIB, 2 * MIB);
	for (int k = 0; k < 2; k++) {
		const uint8_t *in = k == 0 ? rnd : zero;
		struct result r = cenv_run(&e, F_COMPRESS, in, n, 2 * MIB, false, false);

		ASSERT_OK(r.status);
		memcpy(packed, e.dst, r.out_len);
		r = cenv_run(&e, F_INFLATE, packed, r.out_len, 2 * MIB, false, false);
		ASSERT_OK(r.status);
		ASSERT_EQ(r.out_len, n);
		ASSERT_MEM_EQ(e.dst, in, n);
	}
	free(rnd);
	free(zero);
	free(packed);
	cenv_close(&e);
}

/* ---- LZ4 ---------------------------------------------------------------------------------- */

TEST(lz4_blocks_from_liblz4_decompress)
{
	static const size_t sizes[] = {1, 15, 1000, 65536, 400000};
	uint8_t *blk = malloc(LZ4_compressBound(400000));
	struct cenv e;

	cenv_open(&e, MIB, MIB);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *in = corpus(sizes[i], 7 + (uint32_t)i);
		int len = LZ4_compress_default((const char *)in, (char *)blk, (int)sizes[i], LZ4_compressBound(400000));
		struct result r;

		ASSERT(len > 0);
		r = cenv_run(&e, F_LZ4_BLOCK, blk, (size_t)len, MIB, false, false);
		ASSERT_OK(r.status);
		ASSERT_EQ(r.out_len, sizes[i]);
		ASSERT_MEM_EQ(e.dst, in, sizes[i]);
		expect_xxh(&r, in, sizes[i]);
		free(in);
	}
	free(blk);
	cenv_close(&e);
}

/* Run the lz4 tool on n bytes of in with opts; the frame's bytes (malloc'd) and length. */
static uint8_t *
lz4_tool(const uint8_t *in, size_t n, const char *opts, size_t *len)
{
	char src[600], dst[600], cmd[1600];
	uint8_t *out;
	FILE *f;
	long size;

	snprintf(src, sizeof(src), "%s/plain", sd_test_tmpdir());
	snprintf(dst, sizeof(dst), "%s/plain.lz4", sd_test_tmpdir());
	f = fopen(src, "wb");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fwrite(in, 1, n, f), n);
	ASSERT_EQ(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "lz4 -q -f %s '%s' '%s'", opts, src, dst);
	if (system(cmd) != 0)
		SKIP("the lz4 tool is not installed or failed");
	f = fopen(dst, "rb");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	rewind(f);
	out = malloc((size_t)size);
	ASSERT_EQ(fread(out, 1, (size_t)size, f), (size_t)size);
	ASSERT_EQ(fclose(f), 0);
	*len = (size_t)size;
	return out;
}

TEST(lz4_tool_frames_decompress_without_their_frame)
{
	/* 64 KiB blocks: independent, linked (-BD), with block checksums (-BX), both; 4 MiB blocks */
	static const char *const opts[] = {"-B4", "-B4 -BD", "-B4 -BX", "-B4 -BD -BX", "-B7", "-B4 -BD --no-frame-crc"};
	size_t n = 600000;
	uint8_t *in = corpus(n, 5);
	struct cenv e;

	/* a stretch of random bytes: the tool stores those blocks uncompressed (bit 31) */
	for (uint32_t i = 200000, s = 3; i < 340000; i++)
		in[i] = (uint8_t)corpus_rand(&s);
	cenv_open(&e, 2 * MIB, MIB);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t len;
		uint8_t *frame = lz4_tool(in, n, opts[i], &len);
		struct lz4_frame fr = {0};

		ASSERT(lz4_frame_parse(frame, len, &fr));
		/* the blocks alone, then with the end mark: both decode to the input */
		for (int with_end = 0; with_end < 2; with_end++) {
			size_t blen = fr.end - fr.blocks + (with_end ? 4 : 0);
			struct result r = cenv_run(&e, F_LZ4_STREAM, frame + fr.blocks, blen, MIB, fr.block_checksum,
						   fr.independent);

			ASSERT_OK(r.status);
			ASSERT_EQ(r.out_len, n);
			ASSERT_MEM_EQ(e.dst, in, n);
			expect_xxh(&r, in, n);
			/* DOCA's sample compares htobe32(content checksum) with get_xxh_cs */
			if (fr.content_checksum)
				ASSERT_EQ(r.second, __builtin_bswap32(fr.content_xxh));
		}
		free(frame);
	}
	free(in);
	cenv_close(&e);
}

/* ---- buffer lists ------------------------------------------------------------------------------ */

/* n bytes at p as a list of k segments (the first takes the remainder) of e's mmap. */
static struct doca_buf *
seg_list(struct cenv *e, uint8_t *p, size_t n, int k, bool with_data)
{
	struct doca_buf *head = NULL;
	size_t each = n / (size_t)k, first = each + n % (size_t)k, off = 0;

	for (int i = 0; i < k; i++) {
		size_t len = i == 0 ? first : each;
		struct doca_buf *b = cenv_buf(e, p + off, len, with_data ? len : 0);

		if (head == NULL)
			head = b;
		else
			ASSERT_OK(doca_buf_chain_list(head, b));
		off += len;
	}
	return head;
}

static size_t
list_data_len(struct doca_buf *head)
{
	size_t total = 0, len;

	for (struct doca_buf *b = head; b != NULL;) {
		struct doca_buf *next = NULL;

		ASSERT_OK(doca_buf_get_data_len(b, &len));
		total += len;
		if (doca_buf_get_next_in_list(b, &next) != DOCA_SUCCESS)
			break;
		b = next;
	}
	return total;
}

TEST(buffer_lists_on_both_sides)
{
	size_t n = 300000, room = 160000;
	uint8_t *in = corpus(n, 11), *back = malloc(n);
	struct doca_buf *src, *dst;
	struct cenv e;
	struct result r;
	size_t packed;

	cenv_open(&e, n, room + n);
	memcpy(e.src, in, n);
	src = seg_list(&e, e.src, n, 3, true);
	dst = seg_list(&e, e.dst, room, 5, false);
	r = cenv_run_bufs(&e, F_COMPRESS, src, dst, false, false);
	ASSERT_OK(r.status);
	packed = list_data_len(dst);
	ASSERT(packed > 0 && packed < room);
	ASSERT_EQ(zlib_inflate(e.dst, packed, back, n), n); /* the segments are adjacent: one stream */
	ASSERT_MEM_EQ(back, in, n);
	expect_zlib_sums(&r, in, n);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	/* and back: the packed stream as 4 segments into a 7-segment list */
	memcpy(e.src, e.dst, packed);
	src = seg_list(&e, e.src, packed, 4, true);
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	dst = seg_list(&e, e.dst, room + n - 1000, 7, false);
	r = cenv_run_bufs(&e, F_INFLATE, src, dst, false, false);
	ASSERT_OK(r.status);
	ASSERT_EQ(list_data_len(dst), n);
	ASSERT_MEM_EQ(e.dst, in, n);
	cenv_guard_intact(&e);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	free(in);
	free(back);
	cenv_close(&e);
}

/* ---- the same bytes for any worker count ----------------------------------------------------------- */

/* Compress 4 tasks in flight at once with this engine set-up; their outputs concatenated into out. */
static size_t
four_tasks(const char *workers, const uint8_t *in, size_t each, uint8_t *out)
{
	struct doca_buf *src[4], *dst[4];
	struct doca_task *t[4];
	struct cenv e;
	size_t total = 0, room = each + each / 8 + 1024;
	doca_error_t err;

	ASSERT_EQ(setenv("SOFTDOCA_ENGINE_WORKERS", workers, 1), 0);
	ASSERT_EQ(setenv("SOFTDOCA_ENGINE_INLINE_MAX", "0", 1), 0);
	cenv_open(&e, 4 * each, 4 * room);
	memcpy(e.src, in, 4 * each);
	for (int i = 0; i < 4; i++) {
		src[i] = cenv_buf(&e, e.src + i * each, each, each);
		dst[i] = cenv_buf(&e, e.dst + i * room, room, 0);
		t[i] = cenv_alloc(&e, F_COMPRESS, src[i], dst[i], false, false, (uint64_t)i, &err);
		ASSERT_OK(err);
	}
	for (int i = 0; i < 4; i++)
		ASSERT_OK(doca_task_submit(t[i]));
	cenv_progress_until(&e, 4);
	for (int i = 0; i < 4; i++) {
		size_t len;

		ASSERT_EQ(seen.ud[i], i); /* submission order */
		ASSERT_OK(seen.status[i]);
		ASSERT_OK(doca_buf_get_data_len(dst[i], &len));
		memcpy(out + total, e.dst + i * room, len);
		total += len;
		doca_task_free(t[i]);
		ASSERT_OK(doca_buf_dec_refcount(src[i], NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
	}
	cenv_close(&e);
	return total;
}

TEST(inline_and_two_workers_give_the_same_bytes)
{
	size_t each = 256 * 1024;
	uint8_t *in = corpus(4 * each, 23), *a = malloc(8 * each), *b = malloc(8 * each);
	size_t na, nb;

	na = four_tasks("0", in, each, a);
	/* A second context in the same process, now on the pool. */
	nb = four_tasks("2", in, each, b);
	ASSERT_EQ(na, nb);
	ASSERT_MEM_EQ(a, b, na);
	free(in);
	free(a);
	free(b);
}

TEST(lazy_and_eager_checksums_agree)
{
	/* SOFTDOCA_COMPRESS_CHECKSUMS (read at doca_compress_create): lazy or eager (default). */
	static const char *const modes[] = {"lazy", "eager"};
	size_t n = 150000;
	uint8_t *in = corpus(n, 31), *raw = malloc(2 * n);
	size_t len = zlib_deflate(in, n, raw, 2 * n, 6, Z_DEFAULT_STRATEGY), blk;

	for (int m = 0; m < 2; m++) {
		struct cenv e;
		struct result r;

		ASSERT_EQ(setenv("SOFTDOCA_COMPRESS_CHECKSUMS", modes[m], 1), 0);
		cenv_open(&e, 2 * n, 2 * n);
		r = cenv_run(&e, F_INFLATE, raw, len, 2 * n, false, false);
		ASSERT_OK(r.status);
		expect_zlib_sums(&r, in, n);
		blk = (size_t)LZ4_compress_default((const char *)in, (char *)e.src, (int)n, (int)(2 * n));
		memcpy(raw + len, e.src, blk);
		r = cenv_run(&e, F_LZ4_BLOCK, raw + len, blk, 2 * n, false, false);
		ASSERT_OK(r.status);
		expect_xxh(&r, in, n);
		cenv_close(&e);
	}
	free(in);
	free(raw);
}

/* ---- bad input: the task fails, nothing is appended, nothing written past the destination ------------------- */

static void
expect_failure(struct cenv *e, enum family f, const void *in, size_t n, size_t room, bool csum, bool indep,
	       doca_error_t status)
{
	struct result r = cenv_run(e, f, in, n, room, csum, indep);

	ASSERT_ERR(r.status, status);
	ASSERT_EQ(r.out_len, 0);
	ASSERT_EQ(cenv_state(e), DOCA_CTX_STATE_RUNNING); /* cenv_run restarted it */
}

TEST(corrupt_and_truncated_deflate_fail)
{
	size_t n = 100000;
	uint8_t *in = corpus(n, 3), *raw = malloc(2 * n);
	size_t len = zlib_deflate(in, n, raw, 2 * n, 6, Z_DEFAULT_STRATEGY);
	static const uint8_t bad_stored[] = {0x01, 0x05, 0x00, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'}; /* NLEN wrong */
	static const uint8_t reserved_type[] = {0x07, 0x00};					     /* BTYPE 11 */
	static const uint8_t zlib_wrapped[] = {0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
	struct cenv e;

	cenv_open(&e, 2 * n, 2 * n);
	expect_failure(&e, F_INFLATE, raw, len / 2, 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	expect_failure(&e, F_INFLATE, raw, 1, 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	expect_failure(&e, F_INFLATE, bad_stored, sizeof(bad_stored), 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	expect_failure(&e, F_INFLATE, reserved_type, sizeof(reserved_type), 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	expect_failure(&e, F_INFLATE, zlib_wrapped, sizeof(zlib_wrapped), 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	/* the whole stream still decodes afterwards */
	ASSERT_OK(cenv_run(&e, F_INFLATE, raw, len, 2 * n, false, false).status);
	free(in);
	free(raw);
	cenv_close(&e);
}

TEST(corrupt_and_truncated_lz4_fail)
{
	size_t n = 200000;
	uint8_t *in = corpus(n, 8), *s = malloc(2 * n), *bad = malloc(2 * n);
	size_t len = lz4_blocks(in, n, 65536, true, true, s);
	uint32_t word;
	struct cenv e;

	cenv_open(&e, 2 * n, 2 * n);
	ASSERT_OK(cenv_run(&e, F_LZ4_STREAM, s, len, 2 * n, true, true).status);
	/* cut inside the last block, inside a size word */
	expect_failure(&e, F_LZ4_STREAM, s, len - 10, 2 * n, true, true, DOCA_ERROR_IO_FAILED);
	expect_failure(&e, F_LZ4_STREAM, s, 2, 2 * n, true, true, DOCA_ERROR_IO_FAILED);
	/* a flipped byte inside the first block fails its checksum */
	memcpy(bad, s, len);
	bad[100] ^= 0x40;
	expect_failure(&e, F_LZ4_STREAM, bad, len, 2 * n, true, true, DOCA_ERROR_IO_FAILED);
	/* the checksums read as data when the flag is not set */
	expect_failure(&e, F_LZ4_STREAM, s, len, 2 * n, false, true, DOCA_ERROR_IO_FAILED);
	/* bytes after the end mark */
	memcpy(bad, s, len);
	memset(bad + len, 0, 8);
	bad[len + 4] = 1;
	expect_failure(&e, F_LZ4_STREAM, bad, len + 8, 2 * n, true, true, DOCA_ERROR_IO_FAILED);
	/* a size word beyond the source */
	word = 0x7fff0000u;
	memcpy(bad, &word, 4);
	expect_failure(&e, F_LZ4_STREAM, bad, 64, 2 * n, false, true, DOCA_ERROR_IO_FAILED);
	/* one block: a match offset before the output's start */
	static const uint8_t far_match[] = {0x1f, 'a', 0xff, 0x7f, 0x00, 0x50, 'b', 'c', 'd', 'e', 'f'};
	expect_failure(&e, F_LZ4_BLOCK, far_match, sizeof(far_match), 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	expect_failure(&e, F_LZ4_BLOCK, s + 4, 3, 2 * n, false, false, DOCA_ERROR_IO_FAILED);
	free(in);
	free(s);
	free(bad);
	cenv_close(&e);
}

TEST(destination_too_small_fails_every_family)
{
	size_t n = 100000, len, out = 0;
	uint8_t *in = corpus(n, 9), *packed = malloc(2 * n);
	struct cenv e;
	struct result r;

	cenv_open(&e, 2 * n, 2 * n);
	r = cenv_run(&e, F_COMPRESS, in, n, 2 * n, false, false);
	ASSERT_OK(r.status);
	len = r.out_len;
	memcpy(packed, e.dst, len);
	expect_failure(&e, F_COMPRESS, in, n, len / 2, false, false, DOCA_ERROR_TOO_BIG);
	expect_failure(&e, F_INFLATE, packed, len, n - 1, false, false, DOCA_ERROR_TOO_BIG);
	ASSERT_EQ(cenv_run(&e, F_INFLATE, packed, len, n, false, false).out_len, n); /* exactly enough */
	len = lz4_blocks(in, n, 65536, false, true, packed);
	expect_failure(&e, F_LZ4_STREAM, packed, len, n - 1, false, true, DOCA_ERROR_TOO_BIG);
	expect_failure(&e, F_LZ4_STREAM, packed, len, 1000, false, true, DOCA_ERROR_TOO_BIG);
	out = (size_t)LZ4_compress_default((const char *)in, (char *)packed, (int)n, (int)(2 * n));
	expect_failure(&e, F_LZ4_BLOCK, packed, out, n - 1, false, false, DOCA_ERROR_TOO_BIG);
	expect_failure(&e, F_LZ4_BLOCK, packed, out, 17, false, false, DOCA_ERROR_TOO_BIG);
	free(in);
	free(packed);
	cenv_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
