/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_erasure_coding.h correctness, against independent implementations:
 * parity equals ISA-L's ec_encode_data() with the matrix computed here (Cauchy
 * from ISA-L's gf_gen_cauchy1_matrix, Vandermonde and raw from the test's own
 * shift-and-add GF(2^8)); any k of k + m blocks recover the data, for several
 * (k, m) and both types (a refused Vandermonde choice is checked singular);
 * update equals re-encoding; galois_mul equals create; the k = 2, m = 1
 * Vandermonde parity is the XOR of the halves and recovers with the coding
 * matrix (DOCA's storage application); chained lists are one byte stream;
 * callbacks come in submission order.  meson runs this file inline
 * (SOFTDOCA_ENGINE_WORKERS=0) and with two workers: both must pass.
 */
#include <isa-l/erasure_code.h>

#include "ec_test.h"

/* An encoded stripe: k data blocks then m redundancy blocks of len bytes, back to back. */
struct stripe {
	size_t k, m, len;
	uint8_t *blocks;
};

static const size_t shapes[][2] = {{2, 1}, {3, 2}, {4, 2}, {10, 4}};

static struct doca_ec_matrix *
make_matrix(struct ec_env *e, int type, size_t k, size_t m)
{
	struct doca_ec_matrix *mat = NULL;

	ASSERT_OK(doca_ec_matrix_create(e->ec, (enum doca_ec_matrix_type)type, k, m, &mat));
	ASSERT_NOT_NULL(mat);
	return mat;
}

/* Run fam over in_len source bytes into out_len bytes at out (one segment each). */
static void
run_into(struct ec_env *e, enum ec_family fam, const struct doca_ec_matrix *mat, const uint8_t *in, size_t in_len,
	 uint8_t *out, size_t out_len)
{
	struct doca_buf *src = ec_src(e, in, in_len, 1);
	uint8_t *at = NULL;
	struct doca_buf *dst = ec_dst(e, out_len, 1, &at);

	ASSERT_OK(ec_run(e, fam, mat, src, dst));
	ASSERT_EQ(ec_list_data_len(dst), out_len);
	ec_assert_guard(at, out_len);
	memcpy(out, at, out_len);
	ec_release(src);
	ec_release(dst);
}

/* ISA-L's encode of data with m x k coefficients coef (row j = redundancy block j). */
static void
isal_encode(const uint8_t *coef, size_t k, size_t m, const uint8_t *data, uint8_t *parity, size_t len)
{
	unsigned char tables[32 * 10 * 4], *in[10], *out[4];

	ASSERT(k <= 10 && m <= 4);
	ec_init_tables((int)k, (int)m, (unsigned char *)coef, tables);
	for (size_t i = 0; i < k; i++)
		in[i] = (unsigned char *)data + i * len;
	for (size_t j = 0; j < m; j++)
		out[j] = parity + j * len;
	ec_encode_data((int)len, (int)k, (int)m, tables, in, out);
}

/* The test's m x k coefficients of a DOCA matrix type: Cauchy through ISA-L's generator, Vandermonde by hand. */
static void
expected_coef(int type, size_t k, size_t m, uint8_t *coef)
{
	uint8_t full[(10 + 4) * 10];

	if (type == DOCA_EC_MATRIX_TYPE_CAUCHY) {
		/* ISA-L's Cauchy rows below the identity are 1 / (row ^ col) with row = k + j: DOCA's formula. */
		gf_gen_cauchy1_matrix(full, (int)(k + m), (int)k);
		memcpy(coef, full + k * k, k * m);
		for (size_t j = 0; j < m; j++)
			for (size_t i = 0; i < k; i++)
				ASSERT_EQ(coef[j * k + i], ref_coef(type, k, i, j));
		return;
	}
	for (size_t j = 0; j < m; j++)
		for (size_t i = 0; i < k; i++)
			coef[j * k + i] = ref_coef(type, k, i, j);
}

/* Encode k random blocks of len bytes with the context and check them against ISA-L and the reference. */
static struct stripe
encode_checked(struct ec_env *e, const struct doca_ec_matrix *mat, int type, size_t k, size_t m, size_t len,
	       uint32_t seed)
{
	struct stripe s = {k, m, len, malloc((k + m) * len)};
	uint8_t coef[10 * 4], *isal = malloc(m * len), *ref = malloc(m * len);

	ASSERT(s.blocks != NULL && isal != NULL && ref != NULL);
	ec_fill(s.blocks, k * len, seed);
	run_into(e, EC_CREATE, mat, s.blocks, k * len, s.blocks + k * len, m * len);
	expected_coef(type, k, m, coef);
	isal_encode(coef, k, m, s.blocks, isal, len);
	ASSERT_MEM_EQ(s.blocks + k * len, isal, m * len);
	if (len <= 4096) {
		ref_apply(coef, k, m, s.blocks, ref, len);
		ASSERT_MEM_EQ(s.blocks + k * len, ref, m * len);
	}
	free(isal);
	free(ref);
	return s;
}

static void
parity_case(int type)
{
	struct ec_env e;

	ec_env_open(&e, 4u << 20, 8);
	for (size_t n = 0; n < (sizeof(shapes) / sizeof(shapes[0])); n++) {
		for (size_t len = 64; len <= 16384; len *= 16) {
			struct doca_ec_matrix *mat = make_matrix(&e, type, shapes[n][0], shapes[n][1]);
			struct stripe s = encode_checked(&e, mat, type, shapes[n][0], shapes[n][1], len, (uint32_t)n);

			free(s.blocks);
			ASSERT_OK(doca_ec_matrix_destroy(mat));
			e.used = 0;
		}
	}
	ec_env_close(&e);
}

TEST(cauchy_parity_equals_isal)
{
	parity_case(DOCA_EC_MATRIX_TYPE_CAUCHY);
}

TEST(vandermonde_parity_equals_isal)
{
	parity_case(DOCA_EC_MATRIX_TYPE_VANDERMONDE);
}

/* Survivors of lost (bit per block) are singular: the k x k generator rows, inverted by ISA-L. */
static bool
survivors_singular(int type, size_t k, size_t m, uint32_t lost)
{
	uint8_t b[10 * 10], inv[10 * 10];
	size_t row = 0;

	for (size_t s = 0; s < k + m && row < k; s++) {
		if (lost & (1u << s))
			continue;
		for (size_t c = 0; c < k; c++)
			b[row * k + c] = s < k ? (uint8_t)(c == s) : ref_coef(type, k, c, s - k);
		row++;
	}
	return gf_invert_matrix(b, inv, (int)k) != 0;
}

/* Lose the blocks of mask, recover them from the first k survivors, compare. */
static void
recover_one(struct ec_env *e, const struct doca_ec_matrix *coding, int type, const struct stripe *s, uint32_t mask)
{
	uint32_t missing[14];
	size_t n = 0, lost_data = 0, have = 0;
	uint8_t *avail = malloc(s->k * s->len), *got = malloc(s->k * s->len);
	struct doca_ec_matrix *rec = NULL;
	doca_error_t err;

	ASSERT(avail != NULL && got != NULL);
	for (size_t b = 0; b < s->k + s->m; b++) {
		if (mask & (1u << b)) {
			missing[n++] = (uint32_t)b;
			lost_data += b < s->k;
		} else if (have < s->k) {
			memcpy(avail + have++ * s->len, s->blocks + b * s->len, s->len);
		}
	}
	err = doca_ec_matrix_create_recover(e->ec, coding, missing, n, &rec);
	if (lost_data == 0 || (type == DOCA_EC_MATRIX_TYPE_VANDERMONDE && survivors_singular(type, s->k, s->m, mask))) {
		ASSERT_ERR(err, DOCA_ERROR_INVALID_VALUE);
	} else {
		ASSERT_OK(err);
		run_into(e, EC_RECOVER, rec, avail, s->k * s->len, got, lost_data * s->len);
		for (size_t p = 0, r = 0; p < n; p++)
			if (missing[p] < s->k)
				ASSERT_MEM_EQ(got + r++ * s->len, s->blocks + missing[p] * s->len, s->len);
		ASSERT_OK(doca_ec_matrix_destroy(rec));
	}
	free(avail);
	free(got);
}

static void
recover_case(int type)
{
	struct ec_env e;

	ec_env_open(&e, 1u << 20, 4);
	for (size_t n = 0; n < (sizeof(shapes) / sizeof(shapes[0])); n++) {
		size_t k = shapes[n][0], m = shapes[n][1];
		struct doca_ec_matrix *mat = make_matrix(&e, type, k, m);
		struct stripe s = encode_checked(&e, mat, type, k, m, 128, (uint32_t)(n + 10));
		size_t base = e.used;

		/* Every set of 1..m lost blocks. */
		for (uint32_t mask = 1; mask < (1u << (k + m)); mask++) {
			if ((size_t)__builtin_popcount(mask) > m)
				continue;
			recover_one(&e, mat, type, &s, mask);
			e.used = base;
		}
		free(s.blocks);
		ASSERT_OK(doca_ec_matrix_destroy(mat));
		e.used = 0;
	}
	ec_env_close(&e);
}

TEST(cauchy_recovers_from_any_k)
{
	recover_case(DOCA_EC_MATRIX_TYPE_CAUCHY);
}

TEST(vandermonde_recovers_or_refuses_singular)
{
	recover_case(DOCA_EC_MATRIX_TYPE_VANDERMONDE);
}

/* What a BlueField returned (DOCA-on-hardware tests): k 3, m 2, Cauchy, 64-byte blocks, d0 and d2 lost. */
TEST(recover_d0_d2_from_d1_r0_r1)
{
	struct ec_env e;
	struct doca_ec_matrix *mat, *rec = NULL;
	uint32_t missing[] = {0, 2};
	uint8_t avail[3 * 64], got[2 * 64];
	struct stripe s;

	ec_env_open(&e, 1u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, 3, 2);
	s = encode_checked(&e, mat, DOCA_EC_MATRIX_TYPE_CAUCHY, 3, 2, 64, 3);
	memcpy(avail, s.blocks + 1 * 64, 64);	    /* d1 */
	memcpy(avail + 64, s.blocks + 3 * 64, 128); /* r0, r1 */
	ASSERT_OK(doca_ec_matrix_create_recover(e.ec, mat, missing, 2, &rec));
	run_into(&e, EC_RECOVER, rec, avail, sizeof(avail), got, sizeof(got));
	ASSERT_MEM_EQ(got, s.blocks, 64);
	ASSERT_MEM_EQ(got + 64, s.blocks + 2 * 64, 64);
	ASSERT_OK(doca_ec_matrix_destroy(rec));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	free(s.blocks);
	ec_env_close(&e);
}

/* A lost redundancy index is only skipped (doca-accel.md §9.4): d0 and r0 lost, [d1, r1] recover d0. */
TEST(recover_skips_lost_redundancy)
{
	struct ec_env e;
	struct doca_ec_matrix *mat, *rec = NULL;
	uint32_t missing[] = {0, 2};
	uint8_t avail[2 * 256], got[256];
	struct stripe s;

	ec_env_open(&e, 1u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2);
	s = encode_checked(&e, mat, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, 256, 4);
	memcpy(avail, s.blocks + 256, 256);	      /* d1 */
	memcpy(avail + 256, s.blocks + 3 * 256, 256); /* r1 */
	ASSERT_OK(doca_ec_matrix_create_recover(e.ec, mat, missing, 2, &rec));
	run_into(&e, EC_RECOVER, rec, avail, sizeof(avail), got, sizeof(got));
	ASSERT_MEM_EQ(got, s.blocks, 256);
	ASSERT_OK(doca_ec_matrix_destroy(rec));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	free(s.blocks);
	ec_env_close(&e);
}

/* DOCA's storage application: k 2, m 1 Vandermonde parity is d0 ^ d1, and the coding matrix recovers a half. */
TEST(storage_xor_parity_and_coding_matrix_recover)
{
	enum { HALF = 2048 };
	struct ec_env e;
	struct doca_ec_matrix *mat;
	uint8_t data[2 * HALF], parity[HALF], got[HALF], pair[2 * HALF];
	struct doca_buf *src, *dst;
	uint8_t *at;

	ec_env_open(&e, 1u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_VANDERMONDE, 2, 1);
	ec_fill(data, sizeof(data), 21);
	run_into(&e, EC_CREATE, mat, data, sizeof(data), parity, HALF);
	for (size_t x = 0; x < HALF; x++)
		ASSERT_EQ(parity[x], data[x] ^ data[HALF + x]);
	/* src = a 2-element list (parity, surviving half), the coding matrix as the recover matrix */
	memcpy(pair, parity, HALF);
	memcpy(pair + HALF, data + HALF, HALF);
	src = ec_src(&e, pair, sizeof(pair), 2);
	dst = ec_dst(&e, HALF, 1, &at);
	ASSERT_OK(ec_run(&e, EC_RECOVER, mat, src, dst));
	ASSERT_MEM_EQ(at, data, HALF);
	ASSERT_EQ(ec_list_data_len(dst), HALF);
	ec_release(src);
	ec_release(dst);
	memcpy(pair + HALF, data, HALF);
	run_into(&e, EC_RECOVER, mat, pair, sizeof(pair), got, HALF);
	ASSERT_MEM_EQ(got, data + HALF, HALF);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* create_from_raw: raw[i * m + j] is a[i][j]; Cauchy's coefficients given raw equal doca_ec_matrix_create's. */
TEST(from_raw_layout)
{
	enum { K = 4, M = 3, LEN = 192 };
	struct ec_env e;
	uint8_t raw[K * M], coef[M * K], data[K * LEN], got[M * LEN], want[M * LEN];
	struct doca_ec_matrix *mat = NULL, *cauchy;

	ec_env_open(&e, 1u << 20, 4);
	ec_fill(raw, sizeof(raw), 5);
	ec_fill(data, sizeof(data), 6);
	ASSERT_OK(doca_ec_matrix_create_from_raw(e.ec, raw, K, M, &mat));
	for (size_t i = 0; i < K; i++)
		for (size_t j = 0; j < M; j++)
			coef[j * K + i] = raw[i * M + j];
	run_into(&e, EC_CREATE, mat, data, sizeof(data), got, sizeof(got));
	ref_apply(coef, K, M, data, want, LEN);
	ASSERT_MEM_EQ(got, want, sizeof(got));
	ASSERT_OK(doca_ec_matrix_destroy(mat));

	for (size_t i = 0; i < K; i++)
		for (size_t j = 0; j < M; j++)
			raw[i * M + j] = ref_coef(DOCA_EC_MATRIX_TYPE_CAUCHY, K, i, j);
	ASSERT_OK(doca_ec_matrix_create_from_raw(e.ec, raw, K, M, &mat));
	cauchy = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, K, M);
	run_into(&e, EC_CREATE, mat, data, sizeof(data), got, sizeof(got));
	run_into(&e, EC_CREATE, cauchy, data, sizeof(data), want, sizeof(want));
	ASSERT_MEM_EQ(got, want, sizeof(got));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ASSERT_OK(doca_ec_matrix_destroy(cauchy));
	ec_env_close(&e);
}

/* update: [(old d3, new d3), (old d1, new d1), r0, r1] -> the parity of the new data. */
static void
update_case(int type)
{
	enum { K = 4, M = 2, LEN = 4096 };
	struct ec_env e;
	uint32_t idx[] = {3, 1};
	uint8_t *newdata = malloc(K * LEN), *src = malloc((2 * 2 + M) * LEN), got[M * LEN], want[M * LEN];
	struct doca_ec_matrix *mat, *upd = NULL;
	struct stripe s;

	ASSERT(newdata != NULL && src != NULL);
	ec_env_open(&e, 4u << 20, 4);
	mat = make_matrix(&e, type, K, M);
	s = encode_checked(&e, mat, type, K, M, LEN, 8);
	memcpy(newdata, s.blocks, K * LEN);
	ec_fill(newdata + 3 * LEN, LEN, 30);
	ec_fill(newdata + 1 * LEN, LEN, 31);
	for (size_t p = 0; p < 2; p++) {
		memcpy(src + (2 * p) * LEN, s.blocks + idx[p] * LEN, LEN);
		memcpy(src + (2 * p + 1) * LEN, newdata + idx[p] * LEN, LEN);
	}
	memcpy(src + 4 * LEN, s.blocks + K * LEN, M * LEN);
	ASSERT_OK(doca_ec_matrix_create_update(e.ec, mat, idx, 2, &upd));
	run_into(&e, EC_UPDATE, upd, src, (2 * 2 + M) * LEN, got, sizeof(got));
	run_into(&e, EC_CREATE, mat, newdata, K * LEN, want, sizeof(want));
	ASSERT_MEM_EQ(got, want, sizeof(got));
	ASSERT_OK(doca_ec_matrix_destroy(upd));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	free(s.blocks);
	free(newdata);
	free(src);
	ec_env_close(&e);
}

TEST(update_equals_reencoding_cauchy)
{
	update_case(DOCA_EC_MATRIX_TYPE_CAUCHY);
}

TEST(update_equals_reencoding_vandermonde)
{
	update_case(DOCA_EC_MATRIX_TYPE_VANDERMONDE);
}

TEST(galois_mul_equals_create)
{
	enum { K = 3, M = 2, LEN = 512 };
	struct ec_env e;
	uint8_t data[K * LEN], a[M * LEN], b[M * LEN];
	struct doca_ec_matrix *mat;

	ec_env_open(&e, 1u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, K, M);
	ec_fill(data, sizeof(data), 9);
	run_into(&e, EC_GALOIS_MUL, mat, data, sizeof(data), a, sizeof(a));
	run_into(&e, EC_CREATE, mat, data, sizeof(data), b, sizeof(b));
	ASSERT_MEM_EQ(a, b, sizeof(a));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* Chained source and destination (uneven segments) give the bytes of one segment each, in order. */
TEST(lists_are_one_byte_stream)
{
	enum { K = 3, M = 2, LEN = 1024 };
	struct ec_env e;
	uint8_t data[K * LEN], want[M * LEN], *at;
	struct doca_ec_matrix *mat;
	struct doca_buf *src, *dst, *seg;
	size_t n0 = 0, n1 = 0, first_len = 0;

	ec_env_open(&e, 1u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, K, M);
	ec_fill(data, sizeof(data), 12);
	run_into(&e, EC_CREATE, mat, data, sizeof(data), want, sizeof(want));
	src = ec_src(&e, data, sizeof(data), 3);
	dst = ec_dst(&e, M * LEN, 2, &at);
	ASSERT_OK(ec_run(&e, EC_CREATE, mat, src, dst));
	ASSERT_MEM_EQ(at, want, sizeof(want));
	ec_assert_guard(at, M * LEN);
	/* segments filled in order: the first one full, the second holds the rest */
	ASSERT_OK(doca_buf_get_len(dst, &first_len));
	ASSERT_OK(doca_buf_get_data_len(dst, &n0));
	ASSERT_OK(doca_buf_get_next_in_list(dst, &seg));
	ASSERT_OK(doca_buf_get_data_len(seg, &n1));
	ASSERT_EQ(n0, first_len);
	ASSERT_EQ(n0 + n1, M * LEN);
	ec_release(src);
	ec_release(dst);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* Output goes after data + data_len: a destination already holding 64 bytes keeps them. */
TEST(output_appends_after_existing_data)
{
	enum { K = 2, M = 2, LEN = 64 };
	struct ec_env e;
	uint8_t data[K * LEN], want[M * LEN], *p;
	struct doca_ec_matrix *mat;
	struct doca_buf *src, *dst = NULL;

	ec_env_open(&e, 1u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_VANDERMONDE, K, M);
	ec_fill(data, sizeof(data), 13);
	run_into(&e, EC_CREATE, mat, data, sizeof(data), want, sizeof(want));
	p = ec_arena(&e, 64 + M * LEN + EC_GUARD);
	memset(p, 0x11, 64);
	memset(p + 64 + M * LEN, EC_GUARD_BYTE, EC_GUARD);
	ASSERT_OK(doca_buf_inventory_buf_get_by_args(e.inv, e.mmap, p, 64 + M * LEN, p, 64, &dst));
	src = ec_src(&e, data, sizeof(data), 1);
	ASSERT_OK(ec_run(&e, EC_CREATE, mat, src, dst));
	ASSERT_EQ(ec_list_data_len(dst), 64 + M * LEN);
	for (int i = 0; i < 64; i++)
		ASSERT_EQ(p[i], 0x11);
	ASSERT_MEM_EQ(p + 64, want, sizeof(want));
	ec_assert_guard(p + 64, M * LEN);
	ec_release(src);
	ec_release(dst);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* 1 MiB blocks (the pool's size, when it has workers), k 4, m 2: ISA-L's bytes, then a recovery. */
TEST(large_blocks)
{
	enum { K = 4, M = 2 };
	const size_t len = 1u << 20;
	struct ec_env e;
	uint32_t missing[] = {1, 2};
	struct doca_ec_matrix *mat, *rec = NULL;
	uint8_t *avail = malloc(K * len), *got = malloc(2 * len);
	struct stripe s;

	ASSERT(avail != NULL && got != NULL);
	ec_env_open(&e, 24u << 20, 4);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, K, M);
	s = encode_checked(&e, mat, DOCA_EC_MATRIX_TYPE_CAUCHY, K, M, len, 14);
	memcpy(avail, s.blocks, len);			  /* d0 */
	memcpy(avail + len, s.blocks + 3 * len, 3 * len); /* d3, r0, r1 */
	ASSERT_OK(doca_ec_matrix_create_recover(e.ec, mat, missing, 2, &rec));
	run_into(&e, EC_RECOVER, rec, avail, K * len, got, 2 * len);
	ASSERT_MEM_EQ(got, s.blocks + len, 2 * len);
	ASSERT_OK(doca_ec_matrix_destroy(rec));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	free(s.blocks);
	free(avail);
	free(got);
	ec_env_close(&e);
}

/* Sixteen tasks in flight, large (workers) and small (inline) interleaved: callbacks in submission order. */
TEST(callbacks_in_submission_order)
{
	enum { K = 2, M = 2, N = 16 };
	struct ec_env e;
	struct doca_ec_matrix *mat;
	uint8_t *data = malloc(K * (256u << 10)), *at[N], want[M * 64];
	struct doca_buf *bufs[2 * N];
	size_t len[N];

	ASSERT_NOT_NULL(data);
	ec_env_open(&e, 12u << 20, N);
	mat = make_matrix(&e, DOCA_EC_MATRIX_TYPE_CAUCHY, K, M);
	ec_fill(data, K * (256u << 10), 15);
	for (unsigned i = 0; i < N; i++) {
		struct doca_task *t = NULL;

		len[i] = i % 2 == 0 ? 256u << 10 : 64;
		bufs[2 * i] = ec_src(&e, data, K * len[i], 1);
		bufs[2 * i + 1] = ec_dst(&e, M * len[i], 1, &at[i]);
		ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, bufs[2 * i], bufs[2 * i + 1], i, &t));
		ASSERT_OK(doca_task_submit(t));
	}
	ec_progress_until(&e, N);
	for (unsigned i = 0; i < N; i++) {
		ASSERT_EQ(ec_seen.order[i], i);
		ASSERT_ERR(ec_seen.status[i], DOCA_SUCCESS);
	}
	/* the small ones all hold the parity of the first 2 x 64 bytes */
	isal_encode((const uint8_t[]){ref_coef(1, K, 0, 0), ref_coef(1, K, 1, 0), ref_coef(1, K, 0, 1),
				      ref_coef(1, K, 1, 1)},
		    K, M, data, want, 64);
	for (unsigned i = 1; i < N; i += 2)
		ASSERT_MEM_EQ(at[i], want, sizeof(want));
	for (unsigned i = 0; i < 2 * N; i++)
		ec_release(bufs[i]);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	free(data);
	ec_env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
