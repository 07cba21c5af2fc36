/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Erasure Coding: a context that computes redundancy blocks from data
 * blocks (Reed-Solomon style codes over GF(2^8)) and gets lost data blocks back
 * from any k surviving ones.
 *
 * Object model
 *   struct doca_ec                  an erasure coding context on one device; it is a
 *                                   struct doca_ctx (doca_ec_as_ctx) and goes
 *                                   IDLE -> RUNNING directly on doca_ctx_start().
 *   struct doca_ec_matrix           a coding matrix of k data blocks and m redundancy
 *                                   blocks (doca_ec_matrix_create, _create_from_raw), or
 *                                   one derived from it to recover lost blocks
 *                                   (_create_recover) or to refresh the redundancy after
 *                                   some data blocks changed (_create_update).  Matrices
 *                                   may be made before or after doca_ctx_start() and are
 *                                   read-only once made.
 *   struct doca_ec_task_create      encode: k data blocks in, m redundancy blocks out.
 *   struct doca_ec_task_recover     decode: k surviving blocks in, the lost data blocks out.
 *   struct doca_ec_task_update      (old, new) pairs of the changed data blocks and the m
 *                                   old redundancy blocks in, m new redundancy blocks out.
 *   struct doca_ec_task_galois_mul  the product of a matrix and blocks, as create.
 *   Each task is a struct doca_task (doca_ec_task_<T>_as_task).
 *
 * Call order
 *   doca_ec_cap_task_create_is_supported(devinfo)             pick a device
 *   doca_ec_create(dev, &ec)
 *   doca_ec_task_create_set_conf(ec, ok_cb, err_cb, n)        while IDLE, per task type
 *   doca_pe_connect_ctx(pe, doca_ec_as_ctx(ec)); doca_ctx_start(doca_ec_as_ctx(ec))
 *   doca_ec_matrix_create(ec, DOCA_EC_MATRIX_TYPE_CAUCHY, k, m, &matrix)
 *   doca_ec_task_create_allocate_init(ec, matrix, data, rdnc, user_data, &task)   while RUNNING
 *   doca_task_submit(doca_ec_task_create_as_task(task)); doca_pe_progress(pe) ...
 *   doca_task_free(...); doca_ctx_stop(...); doca_ec_matrix_destroy(matrix); doca_ec_destroy(ec)
 *
 * Block layout
 *   A task's source is its blocks back to back: the data windows of the source buffer
 *   and of every buffer chained to it, read as one byte stream.  The block size is that
 *   length divided by the number of blocks the matrix takes in; it must be a multiple of
 *   64 bytes (at least 64) and at most doca_ec_cap_get_max_block_size().  The output
 *   blocks are written back to back after data + data_len of the destination, filling
 *   its segments in order; its data_len grows by exactly the output size.
 *     create, galois_mul: in  d_0 .. d_(k-1);          out r_0 .. r_(m-1)
 *     recover:            in  the first k surviving blocks, data blocks in index order,
 *                             then redundancy blocks in index order;
 *                         out the missing data blocks, in the order of missing_indices
 *     update:             in  (old d_i, new d_i) for each i of update_indices, in that
 *                             order, then r_0 .. r_(m-1) as they were;
 *                         out the new r_0 .. r_(m-1)
 *
 * Completion
 *   Every submitted task completes once, inside doca_pe_progress(), in submission order,
 *   through the success or the error callback of its type.  A task whose buffers or
 *   geometry are wrong fails through the error callback; doca_task_get_status() says why
 *   (docs/erasure_coding.md lists the status of each fault).  A failed task stops the
 *   context, as on hardware.
 */
#ifndef DOCA_ERASURE_CODING_H_
#define DOCA_ERASURE_CODING_H_

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;

/* Opaque erasure coding context. */
struct doca_ec;
/* Opaque matrix (coding, recover or update). */
struct doca_ec_matrix;
/* Opaque tasks. */
struct doca_ec_task_galois_mul;
struct doca_ec_task_create;
struct doca_ec_task_update;
struct doca_ec_task_recover;

/*
 * How doca_ec_matrix_create() fills the coefficient a[i][j] of data block i in
 * redundancy block j (GF(2^8), polynomial 0x11D, + is XOR).
 */
enum doca_ec_matrix_type {
	/* a[i][j] = 1 / (i + (j + k)): every square sub-matrix is invertible, so any k blocks recover. */
	DOCA_EC_MATRIX_TYPE_CAUCHY = 1,
	/* a[i][j] = (i + 1)^j: r_0 is the XOR of the data blocks; not every choice of k blocks recovers. */
	DOCA_EC_MATRIX_TYPE_VANDERMONDE = 2,
};

/* Completion (and error) callbacks: task_user_data is the task's, ctx_user_data the context's. */
typedef void (*doca_ec_task_galois_mul_completion_cb_t)(struct doca_ec_task_galois_mul *task,
							union doca_data task_user_data, union doca_data ctx_user_data);
typedef void (*doca_ec_task_create_completion_cb_t)(struct doca_ec_task_create *task, union doca_data task_user_data,
						    union doca_data ctx_user_data);
typedef void (*doca_ec_task_update_completion_cb_t)(struct doca_ec_task_update *task, union doca_data task_user_data,
						    union doca_data ctx_user_data);
typedef void (*doca_ec_task_recover_completion_cb_t)(struct doca_ec_task_recover *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

/* --- context ------------------------------------------------------------------- */

/*
 * A context on dev.  INVALID_VALUE: a NULL argument; NOT_SUPPORTED: the device has
 * no erasure coding engine (the log names its model); NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_create(struct doca_dev *dev, struct doca_ec **ec);

/*
 * Destroy ec.  INVALID_VALUE: NULL; BAD_STATE: the context is not IDLE.  Matrices
 * made on it stay valid and are destroyed by the application.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_destroy(struct doca_ec *ec);

/* ec as a struct doca_ctx, or NULL when ec is NULL. */
DOCA_EXPERIMENTAL struct doca_ctx *doca_ec_as_ctx(struct doca_ec *ec);

/* Largest block size a task accepts.  INVALID_VALUE: a NULL argument; NOT_SUPPORTED: no engine. */
DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_get_max_block_size(const struct doca_devinfo *devinfo,
							      uint64_t *max_block_size);

/*
 * Most segments a task's source and destination lists may have together.
 * INVALID_VALUE: a NULL argument; NOT_SUPPORTED: no engine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								uint32_t *max_buf_list_len);

/* --- matrices ------------------------------------------------------------------ */

/*
 * A coding matrix of type for data_block_count (k, 1..128) data blocks and
 * rdnc_block_count (m, 1..32) redundancy blocks.  INVALID_VALUE: a NULL argument,
 * an unknown type or a count out of range; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_matrix_create(struct doca_ec *ec, enum doca_ec_matrix_type type,
						     size_t data_block_count, size_t rdnc_block_count,
						     struct doca_ec_matrix **matrix);

/*
 * A coding matrix from k * m coefficients: data[i * rdnc_block_count + j] is the
 * coefficient of data block i in redundancy block j.  INVALID_VALUE: a NULL
 * argument or a count out of range; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_matrix_create_from_raw(struct doca_ec *ec, uint8_t *data,
							      size_t data_block_count, size_t rdnc_block_count,
							      struct doca_ec_matrix **matrix);

/*
 * The matrix of an update task after the data blocks update_indices[0..n_updates)
 * of coding_matrix changed (distinct indices below k).  INVALID_VALUE: a NULL
 * argument, coding_matrix is not a coding matrix, an index out of range or twice;
 * NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_matrix_create_update(struct doca_ec *ec,
							    const struct doca_ec_matrix *coding_matrix,
							    uint32_t update_indices[], size_t n_updates,
							    struct doca_ec_matrix **matrix);

/*
 * The matrix of a recover task when the blocks missing_indices[0..n_missing) of
 * coding_matrix are lost (data blocks 0..k-1, redundancy blocks k..k+m-1, each
 * once).  Lost redundancy blocks are only skipped when choosing the k surviving
 * blocks; the task outputs the lost data blocks.  INVALID_VALUE: a NULL argument,
 * coding_matrix is not a coding matrix, an index out of range or twice, more than
 * m blocks lost, no data block lost, or the surviving blocks do not determine the
 * data (a singular choice, possible with Vandermonde); NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_matrix_create_recover(struct doca_ec *ec,
							     const struct doca_ec_matrix *coding_matrix,
							     uint32_t missing_indices[], size_t n_missing,
							     struct doca_ec_matrix **matrix);

/*
 * Destroy matrix.  INVALID_VALUE: NULL; IN_USE: a task submitted with it has not
 * completed yet.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_matrix_destroy(struct doca_ec_matrix *matrix);

/* --- galois_mul task ----------------------------------------------------------- */

/* DOCA_SUCCESS when the device can run the task, NOT_SUPPORTED if not, INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_task_galois_mul_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the task type with num_tasks tasks, before doca_ctx_start().
 * INVALID_VALUE: a NULL argument or num_tasks 0; BAD_STATE: the context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_task_galois_mul_set_conf(
	struct doca_ec *ec, doca_ec_task_galois_mul_completion_cb_t successful_task_completion_cb,
	doca_ec_task_galois_mul_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool, while the context is RUNNING.  INVALID_VALUE: a NULL
 * ec or task; BAD_STATE: not configured or not RUNNING; NO_MEMORY: every task of
 * the pool is allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_task_galois_mul_allocate_init(
	struct doca_ec *ec, const struct doca_ec_matrix *coding_matrix, const struct doca_buf *src_buf,
	struct doca_buf *dst_buf, union doca_data user_data, struct doca_ec_task_galois_mul **task);

DOCA_EXPERIMENTAL struct doca_task *doca_ec_task_galois_mul_as_task(struct doca_ec_task_galois_mul *task);
DOCA_EXPERIMENTAL void doca_ec_task_galois_mul_set_coding_matrix(struct doca_ec_task_galois_mul *task,
								 const struct doca_ec_matrix *coding_matrix);
DOCA_EXPERIMENTAL const struct doca_ec_matrix *
doca_ec_task_galois_mul_get_coding_matrix(const struct doca_ec_task_galois_mul *task);
DOCA_EXPERIMENTAL void doca_ec_task_galois_mul_set_src_buf(struct doca_ec_task_galois_mul *task,
							   const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_ec_task_galois_mul_get_src_buf(const struct doca_ec_task_galois_mul *task);
DOCA_EXPERIMENTAL void doca_ec_task_galois_mul_set_dst_buf(struct doca_ec_task_galois_mul *task,
							   struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_ec_task_galois_mul_get_dst_buf(const struct doca_ec_task_galois_mul *task);

/* --- create task (same rules as galois_mul) -------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_task_create_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_ec_task_create_set_conf(struct doca_ec *ec, doca_ec_task_create_completion_cb_t successful_task_completion_cb,
			     doca_ec_task_create_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_ec_task_create_allocate_init(
	struct doca_ec *ec, const struct doca_ec_matrix *coding_matrix, const struct doca_buf *original_data_blocks,
	struct doca_buf *rdnc_blocks, union doca_data user_data, struct doca_ec_task_create **task);
DOCA_EXPERIMENTAL struct doca_task *doca_ec_task_create_as_task(struct doca_ec_task_create *task);
DOCA_EXPERIMENTAL void doca_ec_task_create_set_coding_matrix(struct doca_ec_task_create *task,
							     const struct doca_ec_matrix *coding_matrix);
DOCA_EXPERIMENTAL const struct doca_ec_matrix *
doca_ec_task_create_get_coding_matrix(const struct doca_ec_task_create *task);
DOCA_EXPERIMENTAL void doca_ec_task_create_set_original_data_blocks(struct doca_ec_task_create *task,
								    const struct doca_buf *original_data_blocks);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_ec_task_create_get_original_data_blocks(const struct doca_ec_task_create *task);
DOCA_EXPERIMENTAL void doca_ec_task_create_set_rdnc_blocks(struct doca_ec_task_create *task,
							   struct doca_buf *rdnc_blocks);
DOCA_EXPERIMENTAL struct doca_buf *doca_ec_task_create_get_rdnc_blocks(const struct doca_ec_task_create *task);

/* --- update task (same rules as galois_mul) -------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_task_update_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_ec_task_update_set_conf(struct doca_ec *ec, doca_ec_task_update_completion_cb_t successful_task_completion_cb,
			     doca_ec_task_update_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_ec_task_update_allocate_init(
	struct doca_ec *ec, const struct doca_ec_matrix *update_matrix,
	const struct doca_buf *original_updated_and_rdnc_blocks, struct doca_buf *updated_rdnc_blocks,
	union doca_data user_data, struct doca_ec_task_update **task);
DOCA_EXPERIMENTAL struct doca_task *doca_ec_task_update_as_task(struct doca_ec_task_update *task);
DOCA_EXPERIMENTAL void doca_ec_task_update_set_update_matrix(struct doca_ec_task_update *task,
							     const struct doca_ec_matrix *update_matrix);
DOCA_EXPERIMENTAL const struct doca_ec_matrix *
doca_ec_task_update_get_update_matrix(const struct doca_ec_task_update *task);
DOCA_EXPERIMENTAL void
doca_ec_task_update_set_original_updated_and_rdnc_blocks(struct doca_ec_task_update *task,
							 const struct doca_buf *original_updated_and_rdnc_blocks);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_ec_task_update_get_original_updated_and_rdnc_blocks(const struct doca_ec_task_update *task);
DOCA_EXPERIMENTAL void doca_ec_task_update_set_updated_rdnc_blocks(struct doca_ec_task_update *task,
								   struct doca_buf *updated_rdnc_blocks);
DOCA_EXPERIMENTAL struct doca_buf *doca_ec_task_update_get_updated_rdnc_blocks(const struct doca_ec_task_update *task);

/* --- recover task (same rules as galois_mul) ------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_task_recover_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_ec_task_recover_set_conf(struct doca_ec *ec, doca_ec_task_recover_completion_cb_t successful_task_completion_cb,
			      doca_ec_task_recover_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
/*
 * recover_matrix is normally from doca_ec_matrix_create_recover(); a coding matrix
 * is accepted too and applied as it is (k blocks in, m out).
 */
DOCA_EXPERIMENTAL doca_error_t doca_ec_task_recover_allocate_init(
	struct doca_ec *ec, const struct doca_ec_matrix *recover_matrix, const struct doca_buf *available_blocks,
	struct doca_buf *recovered_data_blocks, union doca_data user_data, struct doca_ec_task_recover **task);
DOCA_EXPERIMENTAL struct doca_task *doca_ec_task_recover_as_task(struct doca_ec_task_recover *task);
DOCA_EXPERIMENTAL void doca_ec_task_recover_set_recover_matrix(struct doca_ec_task_recover *task,
							       const struct doca_ec_matrix *recover_matrix);
DOCA_EXPERIMENTAL const struct doca_ec_matrix *
doca_ec_task_recover_get_recover_matrix(const struct doca_ec_task_recover *task);
DOCA_EXPERIMENTAL void doca_ec_task_recover_set_available_blocks(struct doca_ec_task_recover *task,
								 const struct doca_buf *available_blocks);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_ec_task_recover_get_available_blocks(const struct doca_ec_task_recover *task);
DOCA_EXPERIMENTAL void doca_ec_task_recover_set_recovered_data_blocks(struct doca_ec_task_recover *task,
								      struct doca_buf *recovered_data_blocks);
/* The recovered data blocks buffer (DOCA names this getter differently from its setter). */
DOCA_EXPERIMENTAL struct doca_buf *doca_ec_task_recover_get_recovered_data(const struct doca_ec_task_recover *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ERASURE_CODING_H_ */
