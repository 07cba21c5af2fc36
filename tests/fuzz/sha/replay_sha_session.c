/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the SHA session fuzz target, run by `make test` on every
 * compiler: hand-written programs (DOCA's sample flow, each refusal, resets and
 * frees mid-session, destinations too small, invalid algorithms), then random
 * and mutated programs from a fixed seed.  The target aborts on a broken
 * invariant, which fails the case.
 */
#include "sd_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0x5a5a1u
#define ROUNDS 1500

/* One program: the algorithm byte, then 5-byte steps (op, len hi, len lo, offset, algorithm). */
static void
play(const uint8_t *prog, size_t n)
{
	ASSERT_EQ(LLVMFuzzerTestOneInput(prog, n), 0);
}

#define STEP(op, hi, lo, off, alg) (op), (hi), (lo), (off), (alg)

TEST(sample_flow_each_algorithm)
{
	for (uint8_t alg = 0; alg < 3; alg++) {
		/* a 128-byte segment, the final mark, a 16-byte final segment, then a resubmission */
		const uint8_t prog[] = {alg, STEP(0, 4, 0, 0, 0), STEP(2, 0, 0, 0, 0), STEP(1, 0, 16, 2, 0),
					STEP(1, 0, 16, 2, 0)};

		play(prog, sizeof(prog));
	}
}

TEST(refusals)
{
	/* final mark on the first segment; a segment that is no block multiple; an invalid algorithm */
	const uint8_t prog[] = {1,
				STEP(2, 0, 0, 0, 0),
				STEP(1, 0, 65, 0, 0),
				STEP(4, 0, 0, 0, 3),
				STEP(0, 2, 0, 1, 0),
				STEP(4, 0, 0, 0, 2),
				STEP(2, 0, 0, 0, 0),
				STEP(1, 0, 3, 1, 0)};

	play(prog, sizeof(prog));
}

TEST(small_destinations_and_resets)
{
	/* room 19, 20, 31, 63 then sessions into them; resets and frees between */
	const uint8_t prog[] = {0,
				STEP(5, 0, 19, 0, 0),
				STEP(0, 2, 0, 0, 0),
				STEP(3, 0, 0, 0, 0),
				STEP(5, 0, 20, 0, 0),
				STEP(0, 2, 0, 0, 0),
				STEP(2, 0, 0, 0, 0),
				STEP(1, 0, 1, 0, 0),
				STEP(3, 0, 0, 0, 0),
				STEP(0, 2, 0, 0, 0),
				STEP(2, 0, 0, 0, 0),
				STEP(1, 0, 0, 0, 0),
				STEP(6, 0, 0, 0, 0),
				STEP(4, 0, 0, 0, 2),
				STEP(5, 0, 63, 0, 0),
				STEP(7, 4, 0, 0, 0),
				STEP(2, 0, 0, 0, 0),
				STEP(7, 0, 0, 0, 0)};

	play(prog, sizeof(prog));
}

TEST(one_shot_hashes)
{
	const uint8_t prog[] = {2,
				STEP(8, 0, 0, 0, 0),
				STEP(8, 1, 0, 0, 0),
				STEP(8, 2, 0x7f, 0x7f, 0),
				STEP(8, 3, 1, 9, 0),
				STEP(8, 4, 0xff, 0xff, 0)};

	play(prog, sizeof(prog));
}

TEST(random_programs)
{
	uint32_t rng = SEED;
	uint8_t prog[1 + 5 * 40];

	for (int i = 0; i < ROUNDS; i++) {
		size_t n = 1 + sd_test_rand(&rng) % (sizeof(prog) - 1);

		for (size_t j = 0; j < n; j++)
			prog[j] = (uint8_t)sd_test_rand(&rng);
		play(prog, n);
	}
}

/* Random programs biased to the session ops (segments, final marks, resets) rather than the rest. */
TEST(session_heavy_programs)
{
	static const uint8_t ops[] = {0, 0, 0, 1, 2, 2, 3, 7};
	uint32_t rng = SEED ^ 0xffu;
	uint8_t prog[1 + 5 * 40];

	for (int i = 0; i < ROUNDS; i++) {
		size_t steps = 1 + sd_test_rand(&rng) % 40;

		prog[0] = (uint8_t)sd_test_rand(&rng);
		for (size_t j = 0; j < steps; j++) {
			prog[1 + 5 * j] = ops[sd_test_rand(&rng) % sizeof(ops)];
			for (int k = 1; k < 5; k++)
				prog[1 + 5 * j + k] = (uint8_t)sd_test_rand(&rng);
		}
		play(prog, 1 + 5 * steps);
	}
}

TEST(empty_and_tiny_inputs)
{
	const uint8_t one[] = {7};

	play(NULL, 0);
	play(one, 1);
	play(one, 1);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
