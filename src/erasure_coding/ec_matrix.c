/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_ec_matrix_*: coding matrices (DOCA's Cauchy and Vandermonde formulas,
 * or raw coefficients) and the recover and update matrices derived from them
 * (ec_matrix_math.c), each kept with ISA-L's expanded tables so that a task
 * only runs ec_encode_data().  A matrix belongs to the context it was made
 * on; it outlives that context (unattached) until the application destroys it.
 */
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>

#include "ec_internal.h"

SD_LOG_REGISTER(erasure_coding.matrix);

/* A matrix of out x in coefficients on ec, its tables still to fill (sd_ec_matrix_seal). */
static struct doca_ec_matrix *
matrix_alloc(const char *api, struct doca_ec *ec, enum sd_ec_matrix_kind kind, uint32_t k, uint32_t m, uint32_t in,
	     uint32_t out)
{
	size_t n = (size_t)in * out;
	struct doca_ec_matrix *mat = calloc(1, sizeof(*mat) + n + 32 * n);

	if (mat == NULL) {
		DOCA_LOG_ERR("%s: out of memory for a %u x %u matrix", api, in, out);
		return NULL;
	}
	mat->kind = kind;
	mat->k = k;
	mat->m = m;
	mat->in = in;
	mat->out = out;
	mat->coef = mat->storage;
	mat->tables = mat->storage + n;
	mat->ec = ec;
	sd_list_init(&mat->link);
	return mat;
}

/* The coefficients are final: expand them and hand the matrix out. */
static doca_error_t
matrix_seal(struct doca_ec_matrix *mat, struct doca_ec_matrix **matrix)
{
	ec_init_tables((int)mat->in, (int)mat->out, mat->coef, mat->tables);
	sd_list_insert_tail(&mat->ec->matrices, &mat->link);
	*matrix = mat;
	return DOCA_SUCCESS;
}

static bool
args_ok(const char *api, const struct doca_ec *ec, const void *in, const char *in_name,
	struct doca_ec_matrix *const *matrix)
{
	if (ec != NULL && in != NULL && matrix != NULL)
		return true;
	DOCA_LOG_ERR("%s: NULL argument (ec %p, %s %p, matrix %p)", api, (const void *)ec, in_name, in,
		     (const void *)matrix);
	return false;
}

/* A derived matrix starts from a coding matrix (a recover or update matrix is not one). */
static bool
coding_ok(const char *api, const struct doca_ec_matrix *coding)
{
	if (coding->kind == SD_EC_MATRIX_CODING)
		return true;
	DOCA_LOG_ERR("%s: coding_matrix is %s matrix; derive matrices from one made with doca_ec_matrix_create() "
		     "or doca_ec_matrix_create_from_raw()",
		     api, coding->kind == SD_EC_MATRIX_RECOVER ? "a recover" : "an update");
	return false;
}

/*
 * A k x m coding matrix for api, its coefficients still to fill: NULL (logged) and *err
 * for a NULL argument (in: the coefficients' source), counts out of range or no memory.
 */
static struct doca_ec_matrix *
coding_alloc(const char *api, struct doca_ec *ec, const void *in, const char *in_name, size_t k, size_t m,
	     struct doca_ec_matrix **matrix, doca_error_t *err)
{
	struct doca_ec_matrix *mat;
	char why[160];

	*err = DOCA_ERROR_INVALID_VALUE;
	if (!args_ok(api, ec, in, in_name, matrix))
		return NULL;
	if (!sd_ec_counts_ok(k, m, why, sizeof(why))) {
		DOCA_LOG_ERR("%s: %s; the engine codes 1 to %u data blocks into 1 to %u redundancy blocks", api, why,
			     SD_EC_MAX_DATA, SD_EC_MAX_RDNC);
		return NULL;
	}
	mat = matrix_alloc(api, ec, SD_EC_MATRIX_CODING, (uint32_t)k, (uint32_t)m, (uint32_t)k, (uint32_t)m);
	*err = mat == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
	return mat;
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_matrix_create(struct doca_ec *ec, enum doca_ec_matrix_type type, size_t data_block_count,
		      size_t rdnc_block_count, struct doca_ec_matrix **matrix)
{
	static const char api[] = "doca_ec_matrix_create";
	doca_error_t err;
	struct doca_ec_matrix *mat = coding_alloc(api, ec, ec, "ec", data_block_count, rdnc_block_count, matrix, &err);
	char why[160];

	if (mat == NULL)
		return err;
	if (!sd_ec_coding_fill((int)type, data_block_count, rdnc_block_count, mat->coef, why, sizeof(why))) {
		DOCA_LOG_ERR("%s: %s", api, why);
		free(mat);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return matrix_seal(mat, matrix);
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_matrix_create_from_raw(struct doca_ec *ec, uint8_t *data, size_t data_block_count, size_t rdnc_block_count,
			       struct doca_ec_matrix **matrix)
{
	doca_error_t err;
	struct doca_ec_matrix *mat = coding_alloc("doca_ec_matrix_create_from_raw", ec, data, "data", data_block_count,
						  rdnc_block_count, matrix, &err);

	if (mat == NULL)
		return err;
	sd_ec_coding_from_raw(data, data_block_count, rdnc_block_count, mat->coef);
	return matrix_seal(mat, matrix);
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_matrix_create_update(struct doca_ec *ec, const struct doca_ec_matrix *coding_matrix, uint32_t update_indices[],
			     size_t n_updates, struct doca_ec_matrix **matrix)
{
	static const char api[] = "doca_ec_matrix_create_update";
	const struct doca_ec_matrix *c = coding_matrix;
	struct doca_ec_matrix *mat;
	char why[200];

	if (!args_ok(api, ec, c, "coding_matrix", matrix) || !coding_ok(api, c))
		return DOCA_ERROR_INVALID_VALUE;
	if (update_indices == NULL || n_updates == 0 || n_updates > c->k) {
		DOCA_LOG_ERR("%s: %zu update indices (%p); give 1 to data_block_count (%u) indices of changed data "
			     "blocks",
			     api, n_updates, (void *)update_indices, c->k);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mat = matrix_alloc(api, ec, SD_EC_MATRIX_UPDATE, c->k, c->m, (uint32_t)(2 * n_updates + c->m), c->m);
	if (mat == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (!sd_ec_update_derive(c->coef, c->k, c->m, update_indices, n_updates, mat->coef, why, sizeof(why))) {
		DOCA_LOG_ERR("%s: %s; give each changed data block's index once", api, why);
		free(mat);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return matrix_seal(mat, matrix);
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_matrix_create_recover(struct doca_ec *ec, const struct doca_ec_matrix *coding_matrix,
			      uint32_t missing_indices[], size_t n_missing, struct doca_ec_matrix **matrix)
{
	static const char api[] = "doca_ec_matrix_create_recover";
	uint8_t rec[SD_EC_MAX_RDNC * SD_EC_MAX_DATA];
	const struct doca_ec_matrix *c = coding_matrix;
	struct doca_ec_matrix *mat;
	uint32_t out = 0;
	char why[256];

	if (!args_ok(api, ec, c, "coding_matrix", matrix) || !coding_ok(api, c))
		return DOCA_ERROR_INVALID_VALUE;
	if (missing_indices == NULL && n_missing > 0) {
		DOCA_LOG_ERR("%s: missing_indices is NULL with n_missing %zu", api, n_missing);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_ec_recover_derive(c->coef, c->k, c->m, missing_indices, n_missing, rec, &out, why, sizeof(why))) {
		DOCA_LOG_ERR("%s: %s", api, why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mat = matrix_alloc(api, ec, SD_EC_MATRIX_RECOVER, c->k, c->m, c->k, out);
	if (mat == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(mat->coef, rec, (size_t)out * c->k);
	return matrix_seal(mat, matrix);
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_matrix_destroy(struct doca_ec_matrix *matrix)
{
	if (matrix == NULL) {
		DOCA_LOG_ERR("doca_ec_matrix_destroy: matrix is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (matrix->ec != NULL && sd_ec_matrix_in_flight(matrix->ec, matrix)) {
		DOCA_LOG_ERR("doca_ec_matrix_destroy: a submitted task still uses the matrix; destroy it after that "
			     "task's callback (or after doca_ctx_stop())");
		return DOCA_ERROR_IN_USE;
	}
	sd_list_del(&matrix->link);
	free(matrix);
	return DOCA_SUCCESS;
}

void
sd_ec_matrices_detach(struct doca_ec *ec)
{
	struct sd_list *pos, *tmp;

	sd_list_for_each_safe(pos, tmp, &ec->matrices)
	{
		struct doca_ec_matrix *mat = sd_container_of(pos, struct doca_ec_matrix, link);

		sd_list_del(&mat->link);
		mat->ec = NULL;
	}
}
