/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the AES-GCM fuzz target (fuzz_aes_gcm.c), run by `make test`
 * on every compiler: one input per rule of the prediction (each refusal, a
 * tag that verifies and one that does not, lists), then structured random
 * inputs and byte mutations from a fixed seed.  The target aborts on any
 * outcome the rules did not predict.
 */
#include "sd_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0xae5u
#define ROUNDS 6000

enum { DECRYPT = 1, SRC_LIST = 2, DST_LIST = 4, SELF = 8, FLIP = 16 };

static uint32_t rng = SEED;

/* One input: the header fields (doc comment of fuzz_aes_gcm.c), then len data bytes. */
static void
feed(uint8_t flags, uint8_t key_type, uint8_t iv_len, uint8_t tag, uint16_t aad, size_t cap, size_t len)
{
	uint8_t in[8 + 2100];

	ASSERT(len <= sizeof(in) - 8);
	in[0] = flags;
	in[1] = key_type;
	in[2] = iv_len;
	in[3] = tag;
	in[4] = (uint8_t)aad;
	in[5] = (uint8_t)(aad >> 8);
	in[6] = (uint8_t)(cap / 16);
	in[7] = (uint8_t)(cap % 16);
	for (size_t i = 0; i < len; i++)
		in[8 + i] = (uint8_t)sd_test_rand(&rng);
	ASSERT_EQ(LLVMFuzzerTestOneInput(in, 8 + len), 0);
}

TEST(every_rule_once)
{
	feed(0, 1, 12, 12, 0, 200, 100);		   /* encrypt */
	feed(SRC_LIST | DST_LIST, 2, 7, 16, 30, 200, 100); /* lists, short IV, AAD */
	feed(0, 2, 0, 16, 100, 200, 100);		   /* GMAC: all AAD */
	feed(DECRYPT | SELF, 1, 12, 12, 5, 200, 100);	   /* our own encryption verifies */
	feed(DECRYPT | SELF | SRC_LIST | DST_LIST, 2, 3, 16, 0, 300, 250);
	feed(DECRYPT | SELF | FLIP, 2, 12, 16, 9, 200, 100); /* altered: AUTHENTICATION */
	feed(DECRYPT, 1, 12, 16, 0, 200, 100);		     /* random: AUTHENTICATION */
	feed(0, 0, 12, 12, 0, 200, 100);		     /* key type 0: NOT_SUPPORTED */
	feed(0, 3, 12, 12, 0, 200, 100);		     /* key type 3 */
	feed(0, 1, 13, 12, 0, 200, 100);		     /* IV too long */
	feed(DECRYPT, 1, 12, 8, 0, 200, 100);		     /* tag size */
	feed(0, 1, 12, 12, 101, 200, 100);		     /* AAD larger than the source */
	feed(DECRYPT, 1, 12, 16, 90, 200, 100);		     /* source shorter than AAD + tag */
	feed(0, 1, 12, 12, 0, 111, 100);		     /* destination one byte short */
	feed(0, 1, 12, 12, 0, 112, 100);		     /* exactly enough */
	feed(DECRYPT | SELF, 1, 12, 12, 0, 99, 100);	     /* decrypt room one byte short */
	feed(0, 1, 12, 12, 0, 200, 0);			     /* empty source */
	feed(DECRYPT, 2, 12, 16, 0, 200, 16);		     /* a tag and nothing else */
}

TEST(structured_random)
{
	static const uint8_t tags[] = {0, 4, 12, 12, 16, 16, 17};

	for (int i = 0; i < ROUNDS; i++) {
		uint32_t r = sd_test_rand(&rng);
		size_t len = sd_test_rand(&rng) % (i % 10 == 0 ? 2049 : 300);
		uint16_t aad = (uint16_t)(sd_test_rand(&rng) % (len + 20));
		size_t cap = sd_test_rand(&rng) % (len + 40);

		feed((uint8_t)r, (uint8_t)((r >> 8) % 4), (uint8_t)((r >> 10) % 15), tags[(r >> 14) % sizeof(tags)],
		     aad, cap, len);
	}
}

TEST(raw_bytes)
{
	uint8_t in[600];

	for (int i = 0; i < ROUNDS; i++) {
		size_t n = sd_test_rand(&rng) % sizeof(in);

		for (size_t j = 0; j < n; j++)
			in[j] = (uint8_t)sd_test_rand(&rng);
		ASSERT_EQ(LLVMFuzzerTestOneInput(in, n), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
