/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA SHA: a context that computes SHA-1, SHA-256 and SHA-512 digests of
 * buffers (docs/sha.md).
 *
 * Object model
 *   struct doca_sha                    a SHA context on one device; it is a struct
 *                                      doca_ctx (doca_sha_as_ctx): configure while IDLE,
 *                                      doca_ctx_start() (straight to RUNNING), submit tasks,
 *                                      doca_ctx_stop(), doca_sha_destroy().
 *   struct doca_sha_task_hash          the digest of one source buffer (list).
 *   struct doca_sha_task_partial_hash  the digest of a message given in several
 *                                      segments: one task, submitted once per segment.
 *   Both tasks are struct doca_task (*_as_task); submit, free, status and user data
 *   go through doca_pe.h.
 *
 * Call order
 *   doca_sha_cap_task_hash_get_supported(devinfo, algorithm)    pick a device
 *   doca_sha_create(dev, &sha)
 *   doca_sha_task_hash_set_conf(sha, ok_cb, err_cb, log_num)    2^log_num tasks, before start
 *   doca_pe_connect_ctx(pe, doca_sha_as_ctx(sha)); doca_ctx_start(doca_sha_as_ctx(sha))
 *   doca_sha_task_hash_alloc_init(sha, algorithm, src, dst, user_data, &task)   while RUNNING
 *   doca_task_submit(doca_sha_task_hash_as_task(task)); doca_pe_progress(pe) ...
 *   doca_ctx_stop(...); doca_sha_destroy(sha)
 *
 * Output
 *   The digest is the raw binary hash (20, 32 or 64 bytes), written at the
 *   destination's data + data_len; data_len grows by the digest length, so a
 *   destination taken with doca_buf_inventory_buf_get_by_addr() (data_len 0) holds
 *   exactly the digest afterwards, however large it is.  The destination needs that
 *   much room after data + data_len (doca_sha_cap_get_min_dst_buf_size()).
 *
 * Partial hash sessions
 *   Allocate one partial hash task, then submit it once per segment: after each
 *   completion move the source's data window (doca_buf_set_data) or give it another
 *   source (doca_sha_task_partial_hash_set_src), and resubmit, from the completion
 *   callback or from outside.  Every segment but the last holds a multiple of
 *   doca_sha_cap_get_partial_hash_block_size() bytes; before submitting the last
 *   one call doca_sha_task_partial_hash_set_is_final_buf().  Only the final
 *   submission writes the destination; the ones before it leave its data_len as it
 *   was.  A one-segment message uses the hash task.  After the final completion,
 *   free the task or doca_sha_task_partial_hash_reset() it for a new message.
 *
 * Completion
 *   Every submitted task completes exactly once, inside doca_pe_progress(), through
 *   the completion or the error callback given to *_set_conf(); doca_task_get_status()
 *   tells why a task failed.  A failed task stops the context, as on hardware.
 */
#ifndef DOCA_SHA_H_
#define DOCA_SHA_H_

#include <stdint.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_dev.h>
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

/* Opaque SHA context. */
struct doca_sha;

/* The digest a task computes. */
enum doca_sha_algorithm {
	DOCA_SHA_ALGORITHM_SHA1,   /* 20-byte digest, 64-byte blocks */
	DOCA_SHA_ALGORITHM_SHA256, /* 32-byte digest, 64-byte blocks */
	DOCA_SHA_ALGORITHM_SHA512, /* 64-byte digest, 128-byte blocks */
};

/*
 * Create a SHA context on dev.
 * Returns SUCCESS; INVALID_VALUE for NULL arguments; NOT_SUPPORTED if the device has
 * no SHA engine; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_create(struct doca_dev *dev, struct doca_sha **sha);

/*
 * Destroy a SHA context and its task pools (tasks still allocated go with them).
 * Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE if the context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_destroy(struct doca_sha *sha);

/* The generic context of a SHA context (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_sha_as_ctx(struct doca_sha *sha);

/* --- capabilities ------------------------------------------------------------------ */

/*
 * Can the device run hash tasks of this algorithm?
 * Returns SUCCESS if yes; NOT_SUPPORTED if not; INVALID_VALUE for NULL or an unknown
 * algorithm.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_task_hash_get_supported(struct doca_devinfo const *devinfo,
								    enum doca_sha_algorithm algorithm);

/*
 * Can the device run partial hash tasks of this algorithm?
 * Returns SUCCESS if yes; NOT_SUPPORTED if not; INVALID_VALUE for NULL or an unknown
 * algorithm.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_task_partial_hash_get_supported(struct doca_devinfo const *devinfo,
									    enum doca_sha_algorithm algorithm);

/*
 * Largest number of segments a task's source list may have (1: no chaining).
 * Returns SUCCESS; INVALID_VALUE for NULL; NOT_SUPPORTED if the device has no SHA.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_max_list_buf_num_elem(struct doca_devinfo const *devinfo,
								      uint32_t *max_list_num_elem);

/*
 * Largest source (bytes, summed over a list) one task, or one partial submission,
 * may hash.
 * Returns SUCCESS; INVALID_VALUE for NULL; NOT_SUPPORTED if the device has no SHA.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_max_src_buf_size(struct doca_devinfo const *devinfo,
								 uint64_t *max_buf_size);

/*
 * Room a destination needs for the digest of this algorithm: its length.
 * Returns SUCCESS; INVALID_VALUE for NULL or an unknown algorithm; NOT_SUPPORTED if
 * the device has no SHA.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_min_dst_buf_size(struct doca_devinfo const *devinfo,
								 enum doca_sha_algorithm task_type,
								 uint32_t *min_buf_size);

/*
 * The size every non-final segment of a partial hash must be a multiple of: the
 * algorithm's block size.
 * Returns SUCCESS; INVALID_VALUE for NULL or an unknown algorithm; NOT_SUPPORTED if
 * the device has no SHA.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_cap_get_partial_hash_block_size(struct doca_devinfo const *devinfo,
									enum doca_sha_algorithm algorithm,
									uint32_t *partial_block_size);

/* --- hash task ----------------------------------------------------------------------- */

/* Opaque hash task. */
struct doca_sha_task_hash;

/*
 * Completion (or error) callback of a hash task: task_user_data is the task's user
 * data, ctx_user_data the context's (doca_ctx_set_user_data).  It may free the task.
 */
typedef void (*doca_sha_task_hash_completion_cb_t)(struct doca_sha_task_hash *task, union doca_data task_user_data,
						   union doca_data ctx_user_data);

/*
 * Enable hash tasks with a pool of 2^log_num_tasks tasks.  Only while IDLE.
 * Returns SUCCESS; INVALID_VALUE for NULL sha or callbacks, or a pool over the
 * limit; BAD_STATE if the context is not IDLE or tasks of the previous configuration
 * are still allocated; NOT_SUPPORTED if the device cannot hash.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_conf(struct doca_sha *sha,
							   doca_sha_task_hash_completion_cb_t task_completion_cb,
							   doca_sha_task_hash_completion_cb_t task_error_cb,
							   uint8_t log_num_tasks);

/*
 * Take a hash task from the pool and set it up.  Only while RUNNING.
 * Returns SUCCESS; INVALID_VALUE for NULL sha or task, or an unknown algorithm;
 * NO_MEMORY when every task of the pool is allocated; BAD_STATE if the context is
 * not RUNNING or hash tasks are not configured.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_alloc_init(struct doca_sha *sha, enum doca_sha_algorithm algorithm,
							     struct doca_buf const *src_buf, struct doca_buf *dst_buf,
							     union doca_data user_data,
							     struct doca_sha_task_hash **task);

/* Replace the source of a task that is not in flight.  Returns SUCCESS; INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_src(struct doca_sha_task_hash *task,
							  struct doca_buf const *src_buf);

/* The source of a task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_buf const *doca_sha_task_hash_get_src(struct doca_sha_task_hash const *task);

/* Replace the destination of a task that is not in flight.  Returns SUCCESS; INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_dst(struct doca_sha_task_hash *task, struct doca_buf *dst_buf);

/* The destination of a task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_buf const *doca_sha_task_hash_get_dst(struct doca_sha_task_hash const *task);

/* Change the algorithm.  Returns SUCCESS; INVALID_VALUE for NULL or an unknown algorithm. */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_hash_set_algorithm(struct doca_sha_task_hash *task,
								enum doca_sha_algorithm algorithm);

/* The algorithm of a task (SHA1 for NULL). */
DOCA_EXPERIMENTAL enum doca_sha_algorithm doca_sha_task_hash_get_algorithm(struct doca_sha_task_hash const *task);

/* The generic task of a hash task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_sha_task_hash_as_task(struct doca_sha_task_hash *task);

/* --- partial hash task ------------------------------------------------------------------ */

/* Opaque partial hash task: one message, submitted segment by segment (see the top of this file). */
struct doca_sha_task_partial_hash;

/*
 * Completion (or error) callback of a partial hash task, once per submitted segment.
 * It may resubmit the task with the next segment, or free it.
 */
typedef void (*doca_sha_task_partial_hash_completion_cb_t)(struct doca_sha_task_partial_hash *task,
							   union doca_data task_user_data,
							   union doca_data ctx_user_data);

/*
 * Enable partial hash tasks with a pool of 2^log_num_tasks tasks.  Only while IDLE.
 * Returns as doca_sha_task_hash_set_conf().
 */
DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_conf(struct doca_sha *sha, doca_sha_task_partial_hash_completion_cb_t task_completion_cb,
				    doca_sha_task_partial_hash_completion_cb_t task_error_cb, uint8_t log_num_tasks);

/*
 * Take a partial hash task from the pool, with a new (empty) session.  Only while
 * RUNNING.  Returns as doca_sha_task_hash_alloc_init().
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_alloc_init(
	struct doca_sha *sha, enum doca_sha_algorithm algorithm, struct doca_buf const *src_buf,
	struct doca_buf *dst_buf, union doca_data user_data, struct doca_sha_task_partial_hash **task);

/*
 * Forget the session (the segments hashed so far, the final mark, the result): the
 * next submission starts a new message.  Not while the task is in flight.
 * Returns SUCCESS; INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_reset(struct doca_sha_task_partial_hash *task);

/* Set the next segment's source.  Returns SUCCESS; INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_src(struct doca_sha_task_partial_hash *task,
								  struct doca_buf const *src_buf);

/* The source of a task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_partial_hash_get_src(struct doca_sha_task_partial_hash const *task);

/*
 * Replace the destination, only before the session's first submission (after
 * alloc_init or reset).  Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE once a
 * segment has been hashed.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_dst(struct doca_sha_task_partial_hash *task,
								  struct doca_buf *dst_buf);

/* The destination of a task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_partial_hash_get_dst(struct doca_sha_task_partial_hash const *task);

/*
 * Change the algorithm, only before the session's first submission.  Returns
 * SUCCESS; INVALID_VALUE for NULL or an unknown algorithm; BAD_STATE once a segment
 * has been hashed.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_algorithm(struct doca_sha_task_partial_hash *task,
									enum doca_sha_algorithm algorithm);

/* The algorithm of a task (SHA1 for NULL). */
DOCA_EXPERIMENTAL enum doca_sha_algorithm
doca_sha_task_partial_hash_get_algorithm(struct doca_sha_task_partial_hash const *task);

/*
 * Mark the next submission as the message's last segment.  Returns SUCCESS;
 * INVALID_VALUE for NULL; BAD_STATE before the session's first segment was hashed (a
 * one-segment message uses the hash task) or after its final one (reset it first).
 */
DOCA_EXPERIMENTAL doca_error_t doca_sha_task_partial_hash_set_is_final_buf(struct doca_sha_task_partial_hash *task);

/* 1 if the task is marked final (its last submission is, or was, the last segment), else 0. */
DOCA_EXPERIMENTAL uint8_t doca_sha_task_partial_hash_get_is_final(struct doca_sha_task_partial_hash const *task);

/* 1 once the final segment completed and the destination holds the digest, else 0. */
DOCA_EXPERIMENTAL uint8_t doca_sha_task_partial_hash_get_has_result(struct doca_sha_task_partial_hash const *task);

/* The generic task of a partial hash task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_sha_task_partial_hash_as_task(struct doca_sha_task_partial_hash *task);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_SHA_H_ */
