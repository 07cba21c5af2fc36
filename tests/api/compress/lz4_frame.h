/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' LZ4 block sequences (the LZ4 frame format): a frame reader (where
 * a frame's data blocks are and how they were written, so that the `lz4`
 * tool's output can be given to the stream task without its frame, as DOCA's
 * sample does) and a writer of block sequences with liblz4.
 */
#ifndef COMPRESS_LZ4_FRAME_H_
#define COMPRESS_LZ4_FRAME_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lz4.h>
#include <xxhash.h>

#include "sd_test.h"

struct lz4_frame {
	size_t blocks; /* offset of the first block's size word */
	size_t end;    /* offset of the end mark (0x00000000) */
	bool block_checksum, independent, content_checksum;
	uint32_t content_xxh; /* as stored (little-endian value) */
};

static inline uint32_t
lz4f_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* false: not a frame this reader knows (no dictionary, one frame). */
static inline bool
lz4_frame_parse(const uint8_t *f, size_t n, struct lz4_frame *fr)
{
	size_t pos = 7;
	uint8_t flg;

	if (n < 7 || lz4f_le32(f) != 0x184D2204u)
		return false;
	flg = f[4];
	if ((flg >> 6) != 1 || (flg & 1))
		return false;
	fr->independent = (flg >> 5) & 1;
	fr->block_checksum = (flg >> 4) & 1;
	fr->content_checksum = (flg >> 2) & 1;
	if (flg & 0x08)
		pos += 8;
	fr->blocks = pos;
	while (pos + 4 <= n) {
		uint32_t w = lz4f_le32(f + pos);

		if (w == 0) {
			fr->end = pos;
			if (fr->content_checksum) {
				if (pos + 8 > n)
					return false;
				fr->content_xxh = lz4f_le32(f + pos + 4);
			}
			return true;
		}
		pos += 4 + (w & 0x7fffffffu) + (fr->block_checksum ? 4 : 0);
	}
	return false;
}

/*
 * n bytes of in as blocks of block bytes (at most 64 KiB), linked or
 * independent, with or without block checksums, into out: its length.
 */
static inline size_t
lz4_blocks(const uint8_t *in, size_t n, size_t block, bool csum, bool indep, uint8_t *out)
{
	LZ4_stream_t *st = LZ4_createStream();
	size_t pos = 0;

	ASSERT_NOT_NULL(st);
	for (size_t off = 0; off < n; off += block) {
		int k = (int)(n - off < block ? n - off : block), len;

		if (indep)
			LZ4_resetStream_fast(st);
		len = LZ4_compress_fast_continue(st, (const char *)in + off, (char *)out + pos + 4, k,
						 LZ4_compressBound((int)block), 1);
		ASSERT(len > 0);
		memcpy(out + pos, &len, 4);
		if (csum) {
			uint32_t x = XXH32(out + pos + 4, (size_t)len, 0);

			memcpy(out + pos + 4 + len, &x, 4);
		}
		pos += 4 + (size_t)len + (csum ? 4 : 0);
	}
	LZ4_freeStream(st);
	return pos;
}

#endif /* COMPRESS_LZ4_FRAME_H_ */
