/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The matrices of DOCA Erasure Coding as coefficients (no Core object, no
 * logging: the fuzz target links this file alone).  Every matrix is kept in
 * one form, the one ISA-L's ec_init_tables() takes: out rows of in
 * coefficients, coef[r * in + c] being the factor of input block c in output
 * block r.  A coding matrix has in = k (data blocks) and out = m (redundancy
 * blocks), so coef[j * k + i] is DOCA's a[i][j]; a recover matrix has in = k
 * (surviving blocks) and out = the lost data blocks; an update matrix in =
 * 2 n + m and out = m.  Arithmetic is GF(2^8) with ISA-L's polynomial 0x11D.
 *
 * A function that refuses its parameters writes the rule broken and the
 * values into why (the library adds the API name and logs it once).
 */
#ifndef SD_EC_MATRIX_MATH_H_
#define SD_EC_MATRIX_MATH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The engine's limits (the sample's: up to 128 data and 32 redundancy blocks). */
#define SD_EC_MAX_DATA 128u
#define SD_EC_MAX_RDNC 32u
/* Most inputs of any matrix: an update of every data block (pairs), then the redundancy. */
#define SD_EC_MAX_IN (2u * SD_EC_MAX_DATA + SD_EC_MAX_RDNC)
/* Most coefficients of any matrix. */
#define SD_EC_MAX_COEF (SD_EC_MAX_IN * SD_EC_MAX_RDNC)
/* Block sizes are multiples of this (and at least this). */
#define SD_EC_BLOCK_ALIGN 64u

/* doca_ec_matrix_create's types (enum doca_ec_matrix_type's values). */
enum sd_ec_matrix_type {
	SD_EC_CAUCHY = 1,
	SD_EC_VANDERMONDE = 2,
};

/* k data and m redundancy blocks within the engine's limits. */
bool sd_ec_counts_ok(size_t k, size_t m, char *why, size_t cap);

/* The m x k coding matrix of type (the counts already checked). */
bool sd_ec_coding_fill(int type, size_t k, size_t m, uint8_t *coef, char *why, size_t cap);

/* The coding matrix of k * m raw coefficients, raw[i * m + j] = a[i][j] (docs/erasure_coding.md). */
void sd_ec_coding_from_raw(const uint8_t *raw, size_t k, size_t m, uint8_t *coef);

/*
 * The recover matrix of coding matrix coef (k, m) when the blocks missing[0..n)
 * are lost: *out rows (one per lost data block, in the order of missing) of k
 * coefficients over the first k surviving blocks (data blocks in index order,
 * then redundancy blocks).  Refused: n 0 or above m, an index out of range or
 * twice, no data block lost, a singular choice of surviving blocks.
 */
bool sd_ec_recover_derive(const uint8_t *coef, size_t k, size_t m, const uint32_t *missing, size_t n, uint8_t *rec,
			  uint32_t *out, char *why, size_t cap);

/*
 * The update matrix of coding matrix coef (k, m) for the data blocks
 * updated[0..n): m rows of 2 n + m coefficients over (old d, new d) pairs in
 * the order of updated, then the m old redundancy blocks.  Refused: n 0 or
 * above k, an index out of range or twice.
 */
bool sd_ec_update_derive(const uint8_t *coef, size_t k, size_t m, const uint32_t *updated, size_t n, uint8_t *upd,
			 char *why, size_t cap);

/* Why a task's source bytes do not split into in blocks of a valid size. */
enum sd_ec_geometry {
	SD_EC_GEOMETRY_OK,
	SD_EC_GEOMETRY_EMPTY,	    /* no source bytes */
	SD_EC_GEOMETRY_NOT_WHOLE,   /* not in blocks of equal size */
	SD_EC_GEOMETRY_NOT_ALIGNED, /* the block size is not a multiple of 64 */
	SD_EC_GEOMETRY_TOO_BIG,	    /* the block size exceeds the device's maximum */
};

/* Split src_len bytes into in blocks of at most max_block bytes: *block on OK. */
enum sd_ec_geometry sd_ec_block_size(uint64_t src_len, uint32_t in, uint64_t max_block, uint64_t *block);

#endif /* SD_EC_MATRIX_MATH_H_ */
