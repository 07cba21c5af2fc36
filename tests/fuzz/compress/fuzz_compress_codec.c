/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the compress engine's decoders (src/compress/compress_codec.c):
 * the raw DEFLATE inflater, the LZ4 block decoder and the LZ4 block-sequence
 * (stream) walker.  The first input byte picks the decoder and the stream's two
 * flags, the second the destination's room; the rest is the foreign data.  The
 * destination is allocated to exactly its room (ASan sees any write past it);
 * a success writes at most the room, a failure has a documented status.
 */
#include <stdlib.h>
#include <string.h>

#include "compress_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The most output a fuzz input may ask for (the device's max_buf_size stand-in). */
#define FUZZ_LIMIT (1u << 20)

static size_t
room_of(uint8_t b)
{
	/* 0 .. 4 KiB finely, then powers of two up to 1 MiB */
	return b < 128 ? (size_t)b * 32 : (size_t)1 << (12 + (b - 128) % 9);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sd_cz_fault f = {SD_CZ_OK, 0, 0, 0};
	enum sd_cz_status st;
	size_t cap, out = (size_t)-1;
	uint8_t *dst;

	if (size < 2)
		return 0;
	cap = room_of(data[1]);
	dst = malloc(cap > 0 ? cap : 1);
	if (dst == NULL)
		return 0;
	switch (data[0] % 4) {
	case 0:
		st = sd_cz_inflate(data + 2, size - 2, dst, cap, &out, &f);
		break;
	case 1:
		st = sd_cz_lz4_block(data + 2, size - 2, dst, cap, FUZZ_LIMIT, &out, &f);
		break;
	default: {
		struct sd_cz_lz4_layout layout = {(data[0] >> 2) & 1, (data[0] >> 3) & 1};

		st = sd_cz_lz4_stream(data + 2, size - 2, layout, dst, cap, FUZZ_LIMIT, &out, &f);
		break;
	}
	}
	if (st == SD_CZ_OK) {
		if (out > cap)
			abort();
		/* the checksums read exactly the output */
		(void)sd_cz_crc32(dst, out);
		(void)sd_cz_xxh32_doca(dst, out);
	} else if (st > SD_CZ_NO_MEMORY || f.status != st || out != (size_t)-1) {
		abort();
	}
	free(dst);
	return 0;
}
