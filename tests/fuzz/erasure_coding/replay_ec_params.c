/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the erasure coding fuzz target, run by `make test` on every
 * compiler: inputs the parsers must accept, then random and mutated inputs from
 * a fixed seed through the target; then the same kind of parameters through
 * the public API of a running context (raw matrices, missing and update index
 * arrays, task geometry), which must answer only with its documented codes,
 * never write past a destination, and never hang.
 */
#include <isa-l/erasure_code.h>

#include "../../api/erasure_coding/ec_test.h"
#include "ec_matrix_math.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0xec0du
#define ROUNDS 20000
#define API_ROUNDS 1500

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

/* op 1 (recover) or 2 (update) over k x m raw coefficients and two-byte indices. */
static size_t
coding_input(uint8_t *buf, uint8_t op, size_t k, size_t m, const uint8_t *raw, const uint32_t *idx, size_t n)
{
	size_t at = 0;

	buf[at++] = op;
	buf[at++] = (uint8_t)k;
	buf[at++] = (uint8_t)m;
	memcpy(buf + at, raw, k * m);
	at += k * m;
	buf[at++] = (uint8_t)n;
	for (size_t p = 0; p < n; p++) {
		buf[at++] = 1; /* not 0 mod 4 (or 8): a one-byte index modulo k + m (or k) */
		buf[at++] = (uint8_t)idx[p];
	}
	return at;
}

TEST(inputs_the_parsers_accept)
{
	uint8_t raw[3 * 2], buf[256], rec[SD_EC_MAX_COEF];
	uint32_t missing[] = {0, 2}, updated[] = {2, 0}, out = 0;
	uint8_t coef[3 * 2];
	char why[256];
	size_t n;

	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 2; j++)
			raw[i * 2 + j] = gf_inv((unsigned char)(i ^ (j + 3))); /* Cauchy, k 3, m 2 */
	sd_ec_coding_from_raw(raw, 3, 2, coef);
	ASSERT(sd_ec_recover_derive(coef, 3, 2, missing, 2, rec, &out, why, sizeof(why)));
	ASSERT_EQ(out, 2);
	n = coding_input(buf, 1, 3, 2, raw, missing, 2);
	ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	ASSERT(sd_ec_update_derive(coef, 3, 2, updated, 2, rec, why, sizeof(why)));
	n = coding_input(buf, 2, 3, 2, raw, updated, 2);
	ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	/* geometry: 2 blocks of 4096 in 8192 bytes, limit 1 MiB */
	memset(buf, 0, sizeof(buf));
	buf[0] = 3;
	buf[2] = 0x20;	/* len 8192 */
	buf[9] = 2;	/* 2 blocks */
	buf[15] = 0x10; /* max 1 MiB */
	ASSERT_EQ(LLVMFuzzerTestOneInput(buf, 21), 0);
	ASSERT_EQ(sd_ec_block_size(8192, 2, 1u << 20, &(uint64_t){0}), SD_EC_GEOMETRY_OK);
	ASSERT_EQ(sd_ec_block_size(8192, 2, 2048, &(uint64_t){0}), SD_EC_GEOMETRY_TOO_BIG);
	ASSERT_EQ(sd_ec_block_size(8160, 2, 1u << 20, &(uint64_t){0}), SD_EC_GEOMETRY_NOT_ALIGNED);
	ASSERT_EQ(sd_ec_block_size(8193, 2, 1u << 20, &(uint64_t){0}), SD_EC_GEOMETRY_NOT_WHOLE);
	ASSERT_EQ(sd_ec_block_size(0, 2, 1u << 20, &(uint64_t){0}), SD_EC_GEOMETRY_EMPTY);
	ASSERT_EQ(sd_ec_block_size(64, 0, 1u << 20, &(uint64_t){0}), SD_EC_GEOMETRY_NOT_WHOLE);
}

TEST(random_and_mutated_inputs)
{
	static uint8_t buf[8192];
	uint8_t raw[16 * 8];
	uint32_t idx[16];

	for (int r = 0; r < ROUNDS; r++) {
		size_t n;

		if (r % 2 == 0) {
			/* a well-formed recover or update input, then one to three bits flipped */
			size_t k = next_rand() % 16 + 1, m = next_rand() % 8 + 1, cnt = next_rand() % (m + 1) + 1;

			for (size_t i = 0; i < k * m; i++)
				raw[i] = (uint8_t)next_rand();
			for (size_t p = 0; p < cnt; p++)
				idx[p] = next_rand() % (k + m);
			n = coding_input(buf, (uint8_t)(1 + r % 4 / 2), k, m, raw, idx, cnt);
			for (uint32_t f = next_rand() % 4; f > 0; f--)
				buf[next_rand() % n] ^= (uint8_t)(1u << (next_rand() % 8));
		} else {
			n = next_rand() % (r % 10 == 1 ? sizeof(buf) : 64);
			for (size_t i = 0; i < n; i++)
				buf[i] = (uint8_t)next_rand();
		}
		ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	}
}

/* One matrix of random parameters through the API: SUCCESS exactly when they are valid. */
static struct doca_ec_matrix *
random_matrix(struct ec_env *e)
{
	uint8_t raw[130 * 34];
	size_t k = next_rand() % 131, m = next_rand() % 35;
	struct doca_ec_matrix *mat = NULL;
	doca_error_t err;

	if (next_rand() % 4 != 0) {
		k = k % 12 + 1;
		m = m % 5 + 1;
	}
	for (size_t i = 0; i < k * m; i++)
		raw[i] = (uint8_t)next_rand();
	err = doca_ec_matrix_create_from_raw(e->ec, raw, k, m, &mat);
	ASSERT_ERR(err, k >= 1 && k <= 128 && m >= 1 && m <= 32 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE);
	return mat;
}

static void
random_derived(struct ec_env *e, struct doca_ec_matrix *coding)
{
	uint32_t idx[40];
	size_t n = next_rand() % 40;
	struct doca_ec_matrix *d = NULL;
	doca_error_t err;

	for (size_t p = 0; p < n; p++)
		idx[p] = next_rand() % 3 == 0 ? next_rand() : next_rand() % 16;
	err = next_rand() % 2 ? doca_ec_matrix_create_recover(e->ec, coding, idx, n, &d)
			      : doca_ec_matrix_create_update(e->ec, coding, idx, n, &d);
	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_INVALID_VALUE);
	ASSERT((err == DOCA_SUCCESS) == (d != NULL));
	if (d != NULL)
		ASSERT_OK(doca_ec_matrix_destroy(d));
}

/* A task over random geometry: success, or one of the documented failures, and nothing past dst. */
static void
random_task(struct ec_env *e, struct doca_ec_matrix *mat)
{
	static uint8_t data[64 * 1024];
	size_t len = next_rand() % 4 == 0 ? next_rand() % sizeof(data) : (next_rand() % 32 + 1) * 64;
	size_t room = next_rand() % 8192 + 1;
	struct doca_buf *src, *dst;
	uint8_t *at = NULL;
	doca_error_t err;

	ec_fill(data, len, next_rand());
	src = ec_src(e, data, len, next_rand() % 3 + 1 > len ? 1 : next_rand() % 3 + 1);
	dst = ec_dst(e, room, room >= 2 && next_rand() % 2 ? 2 : 1, &at);
	err = ec_run(e, (enum ec_family)(next_rand() % 4), mat, src, dst);
	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_INVALID_VALUE || err == DOCA_ERROR_TOO_BIG);
	ec_assert_guard(at, room);
	ASSERT(ec_list_data_len(dst) <= room);
	if (err != DOCA_SUCCESS) {
		ASSERT_EQ(ec_list_data_len(dst), 0);
		ec_env_restart(e);
	}
	ec_release(src);
	ec_release(dst);
}

TEST(api_with_random_parameters)
{
	struct ec_env e;

	ec_env_open(&e, 4u << 20, 4);
	for (int r = 0; r < API_ROUNDS; r++) {
		struct doca_ec_matrix *mat = random_matrix(&e);
		size_t base = e.used;

		if (mat == NULL)
			continue;
		random_derived(&e, mat);
		random_task(&e, mat);
		e.used = base;
		ASSERT_OK(doca_ec_matrix_destroy(mat));
	}
	ec_env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
