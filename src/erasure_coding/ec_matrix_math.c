/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA's coding matrices and the recover and update matrices derived from
 * them (ec_matrix_math.h).  Every field operation is ISA-L's: gf_mul, gf_inv
 * and gf_invert_matrix over GF(2^8) with the polynomial 0x11D.
 */
#include <stdio.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "ec_matrix_math.h"

bool
sd_ec_counts_ok(size_t k, size_t m, char *why, size_t cap)
{
	if (k == 0 || k > SD_EC_MAX_DATA) {
		snprintf(why, cap, "data_block_count %zu is out of range [1, %u]", k, SD_EC_MAX_DATA);
		return false;
	}
	if (m == 0 || m > SD_EC_MAX_RDNC) {
		snprintf(why, cap, "rdnc_block_count %zu is out of range [1, %u]", m, SD_EC_MAX_RDNC);
		return false;
	}
	return true;
}

bool
sd_ec_coding_fill(int type, size_t k, size_t m, uint8_t *coef, char *why, size_t cap)
{
	switch (type) {
	case SD_EC_CAUCHY:
		/* a[i][j] = 1 / (x_i + y_j), x_i = i, y_j = j + k: distinct and never equal, so never 1 / 0. */
		for (size_t j = 0; j < m; j++)
			for (size_t i = 0; i < k; i++)
				coef[j * k + i] = gf_inv((unsigned char)(i ^ (j + k)));
		return true;
	case SD_EC_VANDERMONDE:
		/* a[i][j] = (i + 1)^j: row j holds the j-th powers, row 0 is all ones (XOR parity). */
		for (size_t i = 0; i < k; i++) {
			unsigned char p = 1;

			for (size_t j = 0; j < m; j++) {
				coef[j * k + i] = p;
				p = gf_mul(p, (unsigned char)(i + 1));
			}
		}
		return true;
	default:
		snprintf(why, cap,
			 "matrix type %d is unknown; use DOCA_EC_MATRIX_TYPE_CAUCHY (1) or "
			 "DOCA_EC_MATRIX_TYPE_VANDERMONDE (2)",
			 type);
		return false;
	}
}

void
sd_ec_coding_from_raw(const uint8_t *raw, size_t k, size_t m, uint8_t *coef)
{
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < m; j++)
			coef[j * k + i] = raw[i * m + j];
}

/* Each of idx[0..n) below limit and given once; seen has limit entries. */
static bool
indices_ok(const uint32_t *idx, size_t n, size_t limit, bool *seen, const char *what, char *why, size_t cap)
{
	memset(seen, 0, limit * sizeof(*seen));
	for (size_t p = 0; p < n; p++) {
		if (idx[p] >= limit) {
			snprintf(why, cap, "%s[%zu] = %u is out of range [0, %zu)", what, p, idx[p], limit);
			return false;
		}
		if (seen[idx[p]]) {
			snprintf(why, cap, "%s[%zu] = %u is given twice", what, p, idx[p]);
			return false;
		}
		seen[idx[p]] = true;
	}
	return true;
}

/* The k x k matrix that maps the data blocks onto the first k blocks not lost. */
static void
survivor_rows(const uint8_t *coef, size_t k, size_t m, const bool *lost, uint8_t *b)
{
	size_t row = 0;

	for (size_t s = 0; s < k + m && row < k; s++) {
		if (lost[s])
			continue;
		if (s < k) {
			memset(b + row * k, 0, k);
			b[row * k + s] = 1;
		} else {
			memcpy(b + row * k, coef + (s - k) * k, k);
		}
		row++;
	}
}

bool
sd_ec_recover_derive(const uint8_t *coef, size_t k, size_t m, const uint32_t *missing, size_t n, uint8_t *rec,
		     uint32_t *out, char *why, size_t cap)
{
	uint8_t b[SD_EC_MAX_DATA * SD_EC_MAX_DATA], inv[SD_EC_MAX_DATA * SD_EC_MAX_DATA];
	bool lost[SD_EC_MAX_DATA + SD_EC_MAX_RDNC];
	uint32_t rows = 0;

	if (n == 0 || n > m) {
		snprintf(why, cap, "%zu blocks missing; between 1 and rdnc_block_count (%zu) can be recovered", n, m);
		return false;
	}
	if (!indices_ok(missing, n, k + m, lost, "missing_indices", why, cap))
		return false;
	for (size_t p = 0; p < n; p++)
		rows += missing[p] < k;
	if (rows == 0) {
		snprintf(why, cap, "no data block (index below %zu) is missing: nothing to recover", k);
		return false;
	}
	survivor_rows(coef, k, m, lost, b);
	if (gf_invert_matrix(b, inv, (int)k) != 0) {
		snprintf(why, cap,
			 "the %zu surviving blocks chosen do not determine the data (a singular choice, which a "
			 "Vandermonde matrix allows); use DOCA_EC_MATRIX_TYPE_CAUCHY, where any %zu blocks recover",
			 k, k);
		return false;
	}
	/* survivors = B x data, so lost data block d is row d of B^-1 applied to the survivors. */
	rows = 0;
	for (size_t p = 0; p < n; p++)
		if (missing[p] < k)
			memcpy(rec + (size_t)rows++ * k, inv + (size_t)missing[p] * k, k);
	*out = rows;
	return true;
}

bool
sd_ec_update_derive(const uint8_t *coef, size_t k, size_t m, const uint32_t *updated, size_t n, uint8_t *upd, char *why,
		    size_t cap)
{
	bool seen[SD_EC_MAX_DATA];
	size_t in = 2 * n + m;

	if (n == 0 || n > k) {
		snprintf(why, cap, "n_updates %zu is out of range [1, data_block_count %zu]", n, k);
		return false;
	}
	if (!indices_ok(updated, n, k, seen, "update_indices", why, cap))
		return false;
	/* new r_j = old r_j + sum a[i][j] (old d_i + new d_i): old and new d_i share a[i][j]. */
	memset(upd, 0, m * in);
	for (size_t j = 0; j < m; j++) {
		for (size_t p = 0; p < n; p++) {
			upd[j * in + 2 * p] = coef[j * k + updated[p]];
			upd[j * in + 2 * p + 1] = coef[j * k + updated[p]];
		}
		upd[j * in + 2 * n + j] = 1;
	}
	return true;
}

enum sd_ec_geometry
sd_ec_block_size(uint64_t src_len, uint32_t in, uint64_t max_block, uint64_t *block)
{
	if (src_len == 0)
		return SD_EC_GEOMETRY_EMPTY;
	if (in == 0 || src_len % in != 0)
		return SD_EC_GEOMETRY_NOT_WHOLE;
	if ((src_len / in) % SD_EC_BLOCK_ALIGN != 0)
		return SD_EC_GEOMETRY_NOT_ALIGNED;
	if (src_len / in > max_block)
		return SD_EC_GEOMETRY_TOO_BIG;
	*block = src_len / in;
	return SD_EC_GEOMETRY_OK;
}
