/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SOFTDOCA_FAULTS grammar (docs/diagnostics.md) case by case, then the
 * fuzz target's invariants over random and mutated specs from a fixed seed;
 * run by `make test` on every compiler.
 */
#include <string.h>

#include "fault_parse.h"
#include "sd_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0xfa17u
#define ROUNDS 20000

static struct sd_fault_plan plan;

static bool
parse(const char *spec, const char **reason)
{
	size_t at;

	ASSERT_EQ(LLVMFuzzerTestOneInput((const uint8_t *)spec, strlen(spec)), 0);
	return sd_fault_parse(spec, strlen(spec), &plan, reason, &at);
}

/* The example of issue 23, as written. */
TEST(issue_example)
{
	const char *why = NULL;

	ASSERT(parse("seed=7;dma.submit=again:0.2;rdma.write=error:0.01;dma.complete=error:1;"
		     "dma.complete=delay:2ms;dev.mlx5_1=down@3s",
		     &why));
	ASSERT_EQ(plan.seed, 7);
	ASSERT_EQ(plan.num_rules, 5);
	ASSERT_STR_EQ(plan.rules[0].lib, "dma");
	ASSERT_STR_EQ(plan.rules[0].op, "submit");
	ASSERT_EQ(plan.rules[0].kind, SD_FAULT_AGAIN);
	ASSERT(plan.rules[0].prob > 0.199 && plan.rules[0].prob < 0.201);
	ASSERT_EQ(plan.rules[1].kind, SD_FAULT_ERROR);
	ASSERT_EQ(plan.rules[1].status, DOCA_ERROR_IO_FAILED);
	ASSERT_EQ(plan.rules[1].count, 0);
	ASSERT_EQ(plan.rules[2].count, 1); /* an integer is an exact count */
	ASSERT_EQ(plan.rules[3].kind, SD_FAULT_DELAY);
	ASSERT_EQ(plan.rules[3].delay_ns, 2000000);
	ASSERT(plan.rules[3].prob == 1.0);
	ASSERT_EQ(plan.rules[4].kind, SD_FAULT_DOWN);
	ASSERT_STR_EQ(plan.rules[4].op, "mlx5_1");
	ASSERT_EQ(plan.rules[4].after_ns, 3000000000ull);
	ASSERT_EQ(plan.rules[4].text_len, strlen("dev.mlx5_1=down@3s"));
}

TEST(kinds_and_arguments)
{
	const char *why = NULL;

	ASSERT(parse(" sha.hash = driver : 3 @ 10 ; ; comch.peer=vanish@250ms;ec.create=nomem:1", &why));
	ASSERT_EQ(plan.num_rules, 3);
	ASSERT_EQ(plan.rules[0].status, DOCA_ERROR_DRIVER);
	ASSERT_EQ(plan.rules[0].count, 3);
	ASSERT_EQ(plan.rules[0].after_ops, 10);
	ASSERT_EQ(plan.rules[1].phase, SD_FAULT_AT_PROGRESS);
	ASSERT_EQ(plan.rules[1].after_ns, 250000000ull);
	ASSERT_EQ(plan.rules[2].phase, SD_FAULT_AT_CREATE);
	ASSERT(parse("rdma.read=remote_access:0.5;*.memcpy=delay:10us:0.25", &why));
	ASSERT_EQ(plan.rules[0].status, DOCA_ERROR_NOT_PERMITTED);
	ASSERT_EQ(plan.rules[1].delay_ns, 10000);
	ASSERT(plan.rules[1].prob == 0.25);
	ASSERT(parse("", &why));
	ASSERT_EQ(plan.num_rules, 0);
}

TEST(refusals)
{
	static const char *const bad[] = {
		"dma.submit=error",
		"dma.complete=again",
		"nolib.submit=again",
		"dma.submit=again:",
		"dma.submit=again:0",
		"dma.submit=again:1.5",
		"dma.complete=delay",
		"dma.complete=delay:5",
		"dma.complete=delay:2ms:0.1:3",
		"seed=x",
		"dma=again",
		"dma.submit=again@",
		"dma.submit=bogus",
		"dev.mlx5_0=again",
		"dma.create=again",
		"dma.peer=down",
		"dma.submit=again:0.1234567890",
		"dma.submit=again:99999999999999999999999",
		"dma. =again",
		"dma.complete=delay:61s",
	};
	const char *why;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (parse(bad[i], &why))
			sd_test_fail(__FILE__, __LINE__, "accepted: %s", bad[i]);
		ASSERT(why != NULL && why[0] != '\0');
	}
}

TEST(random_and_mutated)
{
	static const char alphabet[] = "seed=7;.:@dma.submit=again:0.2 complete delay 2ms dev.mlx5_0 down 3s 1\0";
	const char *base = "seed=7;dma.submit=again:0.2;dma.complete=delay:2ms:0.5@100;dev.mlx5_0=down@3s";
	uint32_t rng = SEED;
	uint8_t buf[160];

	for (int r = 0; r < ROUNDS; r++) {
		size_t n = strlen(base);

		if (r % 2 == 0) {
			memcpy(buf, base, n);
			for (uint32_t k = sd_test_rand(&rng) % 4 + 1; k > 0; k--)
				buf[sd_test_rand(&rng) % n] = (uint8_t)alphabet[sd_test_rand(&rng) % sizeof(alphabet)];
		} else {
			n = sd_test_rand(&rng) % sizeof(buf);
			for (size_t i = 0; i < n; i++)
				buf[i] = (uint8_t)alphabet[sd_test_rand(&rng) % sizeof(alphabet)];
		}
		ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
