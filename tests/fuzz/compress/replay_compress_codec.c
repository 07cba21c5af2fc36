/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the compress decoders' fuzz target, run by `make test` on
 * every compiler: valid streams (zlib's raw DEFLATE, liblz4's blocks, block
 * sequences with and without checksums) decode in full; cut, flipped and
 * random inputs go through the target from a fixed seed (a failing run
 * replays from it).
 */
#include <lz4.h>
#include <xxhash.h>

#include "compress_codec.h"
#include "lz4_frame.h"
#include "sd_test.h"
#include "zlib_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0xc0de5u
#define ROUNDS 6000
#define PLAIN 20000

static uint32_t rng = SEED;

/* Mode byte, room byte (2 KiB), then the payload. */
static size_t
frame_input(uint8_t *buf, uint8_t mode, uint8_t room, const uint8_t *p, size_t n)
{
	buf[0] = mode;
	buf[1] = room;
	memcpy(buf + 2, p, n);
	return n + 2;
}

static void
plain_text(uint8_t *p, size_t n)
{
	static const char words[] = "the quick engine reads a block of data and writes it back ";

	for (size_t i = 0; i < n; i++)
		p[i] = i % 997 < 600 ? (uint8_t)words[i % (sizeof(words) - 1)] : (uint8_t)sd_test_rand(&rng);
}

static uint8_t plain[PLAIN], packed[2 * PLAIN], out[2 * PLAIN], buf[2 * PLAIN + 16];

TEST(valid_streams_decode_in_full)
{
	struct sd_cz_fault f;
	size_t n, got = 0;

	plain_text(plain, PLAIN);
	n = zlib_deflate(plain, PLAIN, packed, sizeof(packed), 6, Z_DEFAULT_STRATEGY);
	ASSERT_EQ(sd_cz_inflate(packed, n, out, sizeof(out), &got, &f), SD_CZ_OK);
	ASSERT_EQ(got, PLAIN);
	ASSERT_MEM_EQ(out, plain, PLAIN);
	ASSERT_EQ(sd_cz_crc32(out, got), crc32(0, plain, PLAIN));
	ASSERT_EQ(sd_cz_adler32(out, got), adler32(1, plain, PLAIN));
	ASSERT_EQ(sd_cz_inflate(packed, n, out, PLAIN - 1, &got, &f), SD_CZ_NO_ROOM);
	for (int mode = 0; mode < 4; mode++) {
		struct sd_cz_lz4_layout l = {mode & 1, (mode >> 1) & 1};

		n = lz4_blocks(plain, PLAIN, 4096, l.has_block_checksum, l.blocks_independent, packed);
		ASSERT_EQ(sd_cz_lz4_stream(packed, n, l, out, sizeof(out), sizeof(out), &got, &f), SD_CZ_OK);
		ASSERT_EQ(got, PLAIN);
		ASSERT_MEM_EQ(out, plain, PLAIN);
		ASSERT_EQ(sd_cz_lz4_stream(packed, n, l, out, PLAIN / 2, sizeof(out), &got, &f), SD_CZ_NO_ROOM);
	}
	n = (size_t)LZ4_compress_default((const char *)plain, (char *)packed, PLAIN, (int)sizeof(packed));
	ASSERT_EQ(sd_cz_lz4_block(packed, n, out, sizeof(out), sizeof(out), &got, &f), SD_CZ_OK);
	ASSERT_EQ(got, PLAIN);
	ASSERT_EQ(sd_cz_lz4_block(packed, n, out, 100, sizeof(out), &got, &f), SD_CZ_NO_ROOM);
	ASSERT_EQ(sd_cz_xxh32_doca(out, 0), __builtin_bswap32(XXH32(out, 0, 0)));
}

/* One valid input of the mode's kind, then cut, flipped or replaced. */
static size_t
mutated(uint8_t mode)
{
	size_t n;

	if (mode % 4 == 0)
		n = zlib_deflate(plain, 1 + sd_test_rand(&rng) % PLAIN, packed, sizeof(packed), 6, Z_DEFAULT_STRATEGY);
	else if (mode % 4 == 1)
		n = (size_t)LZ4_compress_default((const char *)plain, (char *)packed,
						 1 + (int)(sd_test_rand(&rng) % PLAIN), (int)sizeof(packed));
	else
		n = lz4_blocks(plain, 1 + sd_test_rand(&rng) % PLAIN, 4096, (mode >> 2) & 1, (mode >> 3) & 1, packed);
	switch (sd_test_rand(&rng) % 4) {
	case 0:
		n = sd_test_rand(&rng) % (n + 1); /* cut */
		break;
	case 1:
	case 2:
		for (uint32_t k = sd_test_rand(&rng) % 4 + 1; k > 0 && n > 0; k--)
			packed[sd_test_rand(&rng) % n] ^= (uint8_t)(1u << (sd_test_rand(&rng) % 8));
		break;
	default:
		n = sd_test_rand(&rng) % 512;
		for (size_t i = 0; i < n; i++)
			packed[i] = (uint8_t)sd_test_rand(&rng);
	}
	return n;
}

TEST(cut_flipped_and_random_inputs)
{
	plain_text(plain, PLAIN);
	for (int r = 0; r < ROUNDS; r++) {
		uint8_t mode = (uint8_t)sd_test_rand(&rng), room = (uint8_t)sd_test_rand(&rng);
		size_t n = mutated(mode);

		ASSERT_EQ(LLVMFuzzerTestOneInput(buf, frame_input(buf, mode, room, packed, n)), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
