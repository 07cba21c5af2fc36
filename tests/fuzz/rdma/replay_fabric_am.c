/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the active-message fuzz target, run by `make test` on
 * every compiler: known verdicts for every message type, then random and
 * mutated header parts from a fixed seed (a failure replays exactly).
 */
#include "fuzz_fabric_am.h"
#include "sd_test.h"

#define SEED 0xa11ceu
#define ROUNDS 20000

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

static doca_error_t
parse(const uint8_t *buf, size_t len)
{
	struct fabric_am_msg m;

	fuzz_am_one(buf, len);
	return sd_fabric_am_parse(buf, len, &m, NULL);
}

/* Every type: its exact length passes, one byte less or more does not. */
TEST(every_type)
{
	for (uint8_t type = 1; type <= FUZZ_AM_NUM_TYPES; type++) {
		uint8_t d[128];
		size_t len = fuzz_am_valid(type, d);
		struct fabric_am_msg m;

		ASSERT_OK(sd_fabric_am_parse(d, len, &m, NULL));
		ASSERT_EQ(m.h.type, type);
		ASSERT_EQ(m.h.ack, 4);
		ASSERT_EQ(m.stranger_nak, fuzz_am_is_request(type));
		ASSERT_MEM_EQ(&m, d, len);
		ASSERT_ERR(parse(d, len - 1), DOCA_ERROR_INVALID_VALUE);
		ASSERT_ERR(parse(d, len + 1), DOCA_ERROR_INVALID_VALUE);
	}
}

TEST(header_verdicts)
{
	uint8_t d[128];
	size_t len = fuzz_am_valid(FABRIC_AM_ATOMIC, d);
	const char *why = NULL;
	struct fabric_am_msg m, before;

	ASSERT_EQ(len, 96);
	ASSERT_ERR(sd_fabric_am_parse(NULL, 40, &m, &why), DOCA_ERROR_INVALID_VALUE);
	ASSERT(why != NULL);
	ASSERT_ERR(parse(d, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(d, 39), DOCA_ERROR_INVALID_VALUE);
	d[0] ^= 1; /* magic */
	ASSERT_ERR(parse(d, len), DOCA_ERROR_INVALID_VALUE);
	d[0] ^= 1;
	d[2] = FABRIC_PROTO_VERSION + 1;
	why = NULL;
	ASSERT_ERR(sd_fabric_am_parse(d, len, &m, &why), DOCA_ERROR_UNSUPPORTED_VERSION);
	ASSERT(why != NULL && strstr(why, "version") != NULL);
	d[2] = FABRIC_PROTO_VERSION;
	/* unknown types, whatever their length */
	for (unsigned type = FUZZ_AM_NUM_TYPES + 1; type < 256; type++) {
		d[3] = (uint8_t)type;
		ASSERT_ERR(parse(d, 40), DOCA_ERROR_INVALID_VALUE);
		ASSERT_ERR(parse(d, len), DOCA_ERROR_INVALID_VALUE);
	}
	d[3] = 0;
	ASSERT_ERR(parse(d, 40), DOCA_ERROR_INVALID_VALUE);
	/* a body that belongs to another type: an ACK with an rma is refused */
	d[3] = FABRIC_AM_ACK;
	ASSERT_ERR(parse(d, 72), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(parse(d, 40));
	/* a refusal leaves the output as it was */
	memset(&m, 0x5a, sizeof(m));
	before = m;
	ASSERT_ERR(sd_fabric_am_parse(d, 41, &m, &why), DOCA_ERROR_INVALID_VALUE);
	ASSERT_MEM_EQ(&m, &before, sizeof(m));
	/* an unaligned header part parses the same */
	{
		uint8_t u[130];

		len = fuzz_am_valid(FABRIC_AM_HELLO, d);
		memcpy(u + 1, d, len);
		ASSERT_OK(sd_fabric_am_parse(u + 1, len, &m, NULL));
		ASSERT_EQ(m.h.type, FABRIC_AM_HELLO);
		ASSERT_MEM_EQ(&m.u.hello, d + 40, sizeof(m.u.hello));
	}
}

/* Random bytes, then valid header parts with random bit flips, byte stores and truncations. */
TEST(random_and_mutated)
{
	uint8_t d[160];
	unsigned accepted = 0;

	for (int i = 0; i < ROUNDS; i++) {
		size_t len;

		if (i % 4 == 0) {
			len = next_rand() % sizeof(d);
			for (size_t j = 0; j < len; j++)
				d[j] = (uint8_t)next_rand();
		} else {
			len = fuzz_am_valid((uint8_t)(1 + next_rand() % FUZZ_AM_NUM_TYPES), d);
			for (uint32_t n = next_rand() % 3; n > 0; n--) {
				size_t at = next_rand() % len;

				if (next_rand() & 1)
					d[at] ^= (uint8_t)(1u << (next_rand() % 8));
				else
					d[at] = (uint8_t)next_rand();
			}
			if (next_rand() % 8 == 0)
				len = next_rand() % (len + 16);
		}
		if (parse(d, len) == DOCA_SUCCESS)
			accepted++;
	}
	/* mutations of ids, sequence numbers and bodies keep many inputs valid */
	ASSERT(accepted > ROUNDS / 8);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
