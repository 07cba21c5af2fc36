/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the door's fuzz target, run by `make test` on every
 * compiler: a well-formed knock and answer round-trip, targeted forgeries
 * with their verdicts, then random and mutated inputs from a fixed seed.
 */
#include "sd_test.h"
#include "xproc_door_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0xd00au
#define ROUNDS 20000

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

static struct sd_xproc_ref
sample_ref(void)
{
	struct sd_xproc_ref ref = {.rec_addr = 0x7f0012345640ull};

	for (int i = 0; i < SD_XPROC_KEY_LEN; i++)
		ref.key[i] = (uint8_t)(0xa0 + i);
	return ref;
}

static doca_error_t
knock_verdict(const uint8_t *p, size_t n)
{
	uint8_t in[SD_XPROC_DOOR_KNOCK_LEN + 2] = {0};
	struct sd_xproc_ref ref;

	memcpy(in + 1, p, n);
	ASSERT_EQ(LLVMFuzzerTestOneInput(in, n + 1), 0);
	return sd_xproc_door_knock_parse(p, n, &ref, NULL);
}

TEST(knock_round_trip)
{
	struct sd_xproc_ref ref = sample_ref(), got;
	uint8_t k[SD_XPROC_DOOR_KNOCK_LEN];
	const char *why = "";

	sd_xproc_door_knock_encode(&ref, k);
	ASSERT_OK(sd_xproc_door_knock_parse(k, sizeof(k), &got, &why));
	ASSERT_EQ(got.rec_addr, ref.rec_addr);
	ASSERT_MEM_EQ(got.key, ref.key, sizeof(ref.key));
}

TEST(knock_forgeries)
{
	struct sd_xproc_ref ref = sample_ref();
	uint8_t k[SD_XPROC_DOOR_KNOCK_LEN], f[SD_XPROC_DOOR_KNOCK_LEN];

	sd_xproc_door_knock_encode(&ref, k);
	ASSERT_ERR(knock_verdict(k, sizeof(k) - 1), DOCA_ERROR_INVALID_VALUE);
	memcpy(f, k, sizeof(f));
	f[0] ^= 1; /* magic */
	ASSERT_ERR(knock_verdict(f, sizeof(f)), DOCA_ERROR_INVALID_VALUE);
	memcpy(f, k, sizeof(f));
	f[4] = 2; /* version */
	ASSERT_ERR(knock_verdict(f, sizeof(f)), DOCA_ERROR_UNSUPPORTED_VERSION);
	memcpy(f, k, sizeof(f));
	f[7] = 1; /* reserved */
	ASSERT_ERR(knock_verdict(f, sizeof(f)), DOCA_ERROR_INVALID_VALUE);
	memcpy(f, k, sizeof(f));
	f[39] = 1; /* reserved tail */
	ASSERT_ERR(knock_verdict(f, sizeof(f)), DOCA_ERROR_INVALID_VALUE);
	memcpy(f, k, sizeof(f));
	f[8] |= 3; /* misaligned record */
	ASSERT_ERR(knock_verdict(f, sizeof(f)), DOCA_ERROR_INVALID_VALUE);
	memcpy(f, k, sizeof(f));
	memset(f + 8, 0, 8); /* null record */
	ASSERT_ERR(knock_verdict(f, sizeof(f)), DOCA_ERROR_INVALID_VALUE);
}

TEST(answer_round_trip_and_forgeries)
{
	uint8_t a[SD_XPROC_DOOR_ANSWER_LEN];
	doca_error_t st = DOCA_ERROR_UNKNOWN;
	const char *why = "";

	sd_xproc_door_answer_encode(DOCA_ERROR_NOT_PERMITTED, a);
	ASSERT_OK(sd_xproc_door_answer_parse(a, sizeof(a), &st, &why));
	ASSERT_EQ(st, DOCA_ERROR_NOT_PERMITTED);
	sd_xproc_door_answer_encode(DOCA_SUCCESS, a);
	ASSERT_OK(sd_xproc_door_answer_parse(a, sizeof(a), &st, &why));
	ASSERT_EQ(st, DOCA_SUCCESS);
	ASSERT_ERR(sd_xproc_door_answer_parse(a, sizeof(a) - 1, &st, &why), DOCA_ERROR_INVALID_VALUE);
	sd_xproc_door_answer_encode(DOCA_ERROR_DRIVER, a); /* a status no door sends */
	ASSERT_ERR(sd_xproc_door_answer_parse(a, sizeof(a), &st, &why), DOCA_ERROR_INVALID_VALUE);
	a[0] ^= 1;
	ASSERT_ERR(sd_xproc_door_answer_parse(a, sizeof(a), &st, &why), DOCA_ERROR_INVALID_VALUE);
}

TEST(random_and_mutated_inputs)
{
	struct sd_xproc_ref ref = sample_ref();
	uint8_t buf[1 + SD_XPROC_DOOR_KNOCK_LEN + 8];

	for (int r = 0; r < ROUNDS; r++) {
		size_t n = next_rand() % sizeof(buf);

		if (r % 2 == 0) {
			/* a valid knock or answer with one to three bytes flipped */
			buf[0] = (uint8_t)(next_rand() & 1);
			if (buf[0] == 0)
				sd_xproc_door_knock_encode(&ref, buf + 1);
			else
				sd_xproc_door_answer_encode(DOCA_SUCCESS, buf + 1);
			n = 1 + (buf[0] == 0 ? SD_XPROC_DOOR_KNOCK_LEN : SD_XPROC_DOOR_ANSWER_LEN);
			for (uint32_t k = next_rand() % 3 + 1; k > 0; k--)
				buf[1 + next_rand() % (n - 1)] ^= (uint8_t)(1u << (next_rand() % 8));
		} else {
			for (size_t i = 0; i < n; i++)
				buf[i] = (uint8_t)next_rand();
		}
		ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
