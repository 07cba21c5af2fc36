/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the erasure coding parameters (src/erasure_coding/ec_matrix_math.c):
 * block counts and matrix types, raw coefficients with missing-index arrays (the
 * recover matrix), update-index arrays (the update matrix), and block geometry.
 * The first input byte picks the parser.  A refusal gives a reason and leaves its
 * outputs untouched; an acceptance is checked: a recover matrix times the
 * surviving rows of the code is the identity on the lost data blocks, an update
 * matrix holds the coding coefficients twice and the identity, a block size
 * splits the source exactly into 64-byte multiples within the limit.
 */
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "ec_matrix_math.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CANARY 0x5a

/* Input bytes, read past the end as zeros. */
struct input {
	const uint8_t *p;
	size_t n, at;
};

static uint32_t
take(struct input *in, unsigned bytes)
{
	uint32_t v = 0;

	for (unsigned b = 0; b < bytes; b++, in->at++)
		v |= (uint32_t)(in->at < in->n ? in->p[in->at] : 0) << (8 * b);
	return v;
}

static void
refused(bool ok, const char *why)
{
	if (!ok && why[0] == '\0')
		abort();
}

static void
counts_and_types(struct input *in)
{
	size_t k = take(in, 1), m = take(in, 1);
	int type = (int)take(in, 1) % 4;
	uint8_t coef[SD_EC_MAX_COEF];
	char why[256] = "";
	bool ok = sd_ec_counts_ok(k, m, why, sizeof(why));

	refused(ok, why);
	if (ok != (k >= 1 && k <= SD_EC_MAX_DATA && m >= 1 && m <= SD_EC_MAX_RDNC))
		abort();
	if (!ok)
		return;
	why[0] = '\0';
	ok = sd_ec_coding_fill(type, k, m, coef, why, sizeof(why));
	refused(ok, why);
	if (ok != (type == SD_EC_CAUCHY || type == SD_EC_VANDERMONDE))
		abort();
	/* Cauchy has no zero coefficient; Vandermonde's first redundancy row is all ones. */
	for (size_t i = 0; ok && i < k; i++)
		if ((type == SD_EC_CAUCHY && coef[i] == 0) || (type == SD_EC_VANDERMONDE && coef[i] != 1))
			abort();
}

/* A coding matrix from the input (counts within the limits, or the case ends). */
static bool
coding_from_input(struct input *in, size_t *k, size_t *m, uint8_t *coef)
{
	uint8_t raw[SD_EC_MAX_DATA * SD_EC_MAX_RDNC];
	char why[256] = "";

	*k = take(in, 1) % (SD_EC_MAX_DATA + 2);
	*m = take(in, 1) % (SD_EC_MAX_RDNC + 2);
	if (!sd_ec_counts_ok(*k, *m, why, sizeof(why)))
		return false;
	for (size_t i = 0; i < *k * *m; i++)
		raw[i] = (uint8_t)take(in, 1);
	sd_ec_coding_from_raw(raw, *k, *m, coef);
	for (size_t i = 0; i < *k; i++)
		for (size_t j = 0; j < *m; j++)
			if (coef[j * *k + i] != raw[i * *m + j])
				abort();
	return true;
}

/* Row r of the code's generator: the identity for data blocks, then the coding rows. */
static uint8_t
gen(const uint8_t *coef, size_t k, size_t row, size_t c)
{
	return row < k ? (uint8_t)(row == c) : coef[(row - k) * k + c];
}

static void
check_recover(const uint8_t *coef, size_t k, size_t m, const uint32_t *missing, size_t n, const uint8_t *rec,
	      uint32_t out)
{
	size_t surv[SD_EC_MAX_DATA], have = 0, r = 0;
	bool lost[SD_EC_MAX_DATA + SD_EC_MAX_RDNC] = {false};

	for (size_t p = 0; p < n; p++)
		lost[missing[p]] = true;
	for (size_t s = 0; s < k + m && have < k; s++)
		if (!lost[s])
			surv[have++] = s;
	for (size_t p = 0; p < n; p++) {
		if (missing[p] >= k)
			continue;
		/* rec row r applied to the survivors' generator rows gives unit vector e_missing[p] */
		for (size_t c = 0; c < k; c++) {
			uint8_t acc = 0;

			for (size_t x = 0; x < k; x++)
				acc ^= gf_mul(rec[r * k + x], gen(coef, k, surv[x], c));
			if (acc != (c == missing[p]))
				abort();
		}
		r++;
	}
	if (r != out || have != k)
		abort();
}

static void
recover(struct input *in)
{
	uint8_t coef[SD_EC_MAX_COEF], rec[SD_EC_MAX_RDNC * SD_EC_MAX_DATA];
	uint32_t missing[64], out = 0xdead;
	size_t k, m, n;
	char why[256] = "";
	bool ok;

	if (!coding_from_input(in, &k, &m, coef))
		return;
	n = take(in, 1) % 64;
	for (size_t p = 0; p < n; p++)
		missing[p] = take(in, 1) % 4 == 0 ? take(in, 2) : take(in, 1) % (k + m);
	memset(rec, CANARY, sizeof(rec));
	ok = sd_ec_recover_derive(coef, k, m, missing, n, rec, &out, why, sizeof(why));
	refused(ok, why);
	if (!ok) {
		if (out != 0xdead || rec[0] != CANARY)
			abort();
		return;
	}
	if (n == 0 || n > m || out == 0 || out > n)
		abort();
	check_recover(coef, k, m, missing, n, rec, out);
}

static void
update(struct input *in)
{
	uint8_t coef[SD_EC_MAX_COEF], upd[SD_EC_MAX_COEF];
	uint32_t idx[SD_EC_MAX_DATA + 8];
	size_t k, m, n, cols;
	char why[256] = "";
	bool ok;

	if (!coding_from_input(in, &k, &m, coef))
		return;
	n = take(in, 1) % (SD_EC_MAX_DATA + 8);
	for (size_t p = 0; p < n; p++)
		idx[p] = take(in, 1) % 8 == 0 ? take(in, 2) : take(in, 1) % k;
	memset(upd, CANARY, sizeof(upd));
	ok = sd_ec_update_derive(coef, k, m, idx, n, upd, why, sizeof(why));
	refused(ok, why);
	if (!ok) {
		if (upd[0] != CANARY)
			abort();
		return;
	}
	cols = 2 * n + m;
	for (size_t j = 0; j < m; j++) {
		for (size_t p = 0; p < n; p++)
			if (upd[j * cols + 2 * p] != coef[j * k + idx[p]] ||
			    upd[j * cols + 2 * p + 1] != coef[j * k + idx[p]])
				abort();
		for (size_t q = 0; q < m; q++)
			if (upd[j * cols + 2 * n + q] != (q == j))
				abort();
	}
}

static void
geometry(struct input *in)
{
	uint64_t len = (uint64_t)take(in, 4) | (uint64_t)take(in, 4) << 32;
	uint32_t blocks = take(in, 4);
	uint64_t max = (uint64_t)take(in, 4) | (uint64_t)take(in, 4) << 32, block = 0xabcdef;
	enum sd_ec_geometry g = sd_ec_block_size(len, blocks, max, &block);

	if (g != SD_EC_GEOMETRY_OK) {
		if (block != 0xabcdef)
			abort();
		return;
	}
	if (blocks == 0 || block * blocks != len || block % SD_EC_BLOCK_ALIGN != 0 || block == 0 || block > max)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size, 1};

	if (size == 0)
		return 0;
	switch (data[0] % 4) {
	case 0:
		counts_and_types(&in);
		break;
	case 1:
		recover(&in);
		break;
	case 2:
		update(&in);
		break;
	default:
		geometry(&in);
		break;
	}
	return 0;
}
