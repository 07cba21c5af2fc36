/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests' LZ4 frame reader (the LZ4 frame format): where a frame's data
 * blocks are and how they were written, so that the `lz4` tool's output can be
 * given to the stream task without its frame, as DOCA's sample does.
 */
#ifndef COMPRESS_LZ4_FRAME_H_
#define COMPRESS_LZ4_FRAME_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* COMPRESS_LZ4_FRAME_H_ */
