/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA AES-GCM: a context that encrypts and decrypts buffers with AES in
 * Galois/Counter Mode (NIST SP 800-38D), authenticating them with a tag.
 *
 * Object model
 *   struct doca_aes_gcm               a context on one device; it is a struct doca_ctx
 *                                     (doca_aes_gcm_as_ctx) and goes IDLE -> RUNNING
 *                                     directly on doca_ctx_start().
 *   struct doca_aes_gcm_key           a 128- or 256-bit key, owned by the context that
 *                                     created it; only that context's tasks may use it.
 *   struct doca_aes_gcm_task_encrypt  encrypt one source buffer (list) into a destination;
 *   struct doca_aes_gcm_task_decrypt  decrypt and verify one.  Both are struct doca_task
 *                                     (*_as_task); submit, free, status and user data go
 *                                     through doca_pe.h.
 *
 * Call order
 *   doca_aes_gcm_cap_task_encrypt_is_supported(devinfo)          pick a device
 *   doca_aes_gcm_create(dev, &aes_gcm)
 *   doca_aes_gcm_task_encrypt_set_conf(aes_gcm, ok_cb, err_cb, n)  while IDLE
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx)
 *   doca_aes_gcm_key_create(aes_gcm, raw_key, DOCA_AES_GCM_KEY_256, &key)
 *   doca_aes_gcm_task_encrypt_alloc_init(aes_gcm, src, dst, key, iv, 12, 12, aad, ud, &task)
 *   doca_task_submit(...); doca_pe_progress(pe) runs ok_cb or err_cb
 *   doca_task_free(...); doca_ctx_stop(ctx)
 *   doca_aes_gcm_key_destroy(key); doca_aes_gcm_destroy(aes_gcm)
 *
 * Data layout (the source is the concatenation of its list's data windows; the output
 * is appended after each destination segment's data + data_len, segment by segment)
 *   encrypt  source      = AAD (aad_size bytes) | plaintext
 *            destination = AAD (copied as it is) | ciphertext | tag (tag_size bytes)
 *   decrypt  source      = AAD | ciphertext | tag
 *            destination = AAD | plaintext, written only if the tag verifies
 *   The ciphertext is as long as the plaintext.  A 12-byte tag is the first 12 bytes of
 *   the 16-byte GCM tag.  An IV shorter than 12 bytes is padded with zero bytes to 12.
 *
 * Completion
 *   Every submitted task completes exactly once, inside doca_pe_progress(), in
 *   submission order, through the callback given to *_set_conf().  A task that fails
 *   (a buffer or parameter the engine refuses, a tag that does not verify) reports its
 *   status through the error callback (doca_task_get_status) and stops the context.
 *   docs/aes_gcm.md lists each failure and its status.
 */
#ifndef DOCA_AES_GCM_H_
#define DOCA_AES_GCM_H_

#include <inttypes.h>
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

/* Opaque AES-GCM context. */
struct doca_aes_gcm;
/* Opaque key of a context. */
struct doca_aes_gcm_key;
/* Opaque encrypt task. */
struct doca_aes_gcm_task_encrypt;
/* Opaque decrypt task. */
struct doca_aes_gcm_task_decrypt;

/* Key sizes. */
enum doca_aes_gcm_key_type {
	DOCA_AES_GCM_KEY_128 = 1, /* 16 bytes */
	DOCA_AES_GCM_KEY_256 = 2, /* 32 bytes */
};

/*
 * Create an AES-GCM context on dev; the device stays in use until destroy.
 * Returns SUCCESS; INVALID_VALUE for NULL arguments; NOT_SUPPORTED if the device has no
 * AES-GCM engine; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_create(struct doca_dev *dev, struct doca_aes_gcm **aes_gcm);

/*
 * Destroy a context and its task pools.
 * Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE if the context is not IDLE; IN_USE
 * while keys it created are alive (destroy them first).
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_destroy(struct doca_aes_gcm *aes_gcm);

/* The generic context of an AES-GCM context (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_aes_gcm_as_ctx(struct doca_aes_gcm *aes_gcm);

/*
 * Largest number of tasks one task type of the context may be configured with.
 * Returns SUCCESS; INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_get_max_num_tasks(struct doca_aes_gcm *aes_gcm,
								  uint32_t *max_num_tasks);

/*
 * Make a key of the context from raw_key (16 bytes for DOCA_AES_GCM_KEY_128, 32 for
 * DOCA_AES_GCM_KEY_256); the bytes are copied.  Any state of the context.
 * Returns SUCCESS; INVALID_VALUE for NULL arguments; NOT_SUPPORTED for another key
 * type; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_key_create(struct doca_aes_gcm *aes_gcm, const void *raw_key,
						       enum doca_aes_gcm_key_type raw_key_type,
						       struct doca_aes_gcm_key **key);

/*
 * Wipe and free a key.
 * Returns SUCCESS; INVALID_VALUE for NULL; IN_USE while a task submitted with it has
 * not completed.
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_key_destroy(struct doca_aes_gcm_key *key);

/*
 * The encrypt and decrypt task families have the same shape.  Capability queries:
 *   *_is_supported               SUCCESS, or NOT_SUPPORTED (no AES-GCM engine)
 *   *_get_max_iv_len             12
 *   *_is_tag_96/128_supported    SUCCESS, or NOT_SUPPORTED
 *   *_is_key_type_supported      SUCCESS for both key types, NOT_SUPPORTED for others
 *   *_get_max_buf_size           largest source (bytes, summed over a list)
 *   *_get_max_list_buf_num_elem  most segments of the source list and of the
 *                                destination list
 * Every query returns INVALID_VALUE for NULL arguments and NOT_SUPPORTED on a device
 * without AES-GCM, and writes its output only on SUCCESS.
 */

/* --- encrypt ------------------------------------------------------------------------ */

/* Completion (and error) callback of an encrypt task. */
typedef void (*doca_aes_gcm_task_encrypt_completion_cb_t)(struct doca_aes_gcm_task_encrypt *task,
							  union doca_data task_user_data,
							  union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_get_max_iv_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_iv_len);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_is_tag_96_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_is_tag_128_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_is_key_type_supported(const struct doca_devinfo *devinfo,
										   enum doca_aes_gcm_key_type key_type);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_get_max_buf_size(const struct doca_devinfo *devinfo,
									      uint64_t *max_buffer_size);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_encrypt_get_max_list_buf_num_elem(
	const struct doca_devinfo *devinfo, uint32_t *max_list_num_elem);

/*
 * Enable encrypt tasks and size their pool.  Only while the context is IDLE.
 * Returns SUCCESS; INVALID_VALUE for NULL arguments, num_tasks 0 or above
 * doca_aes_gcm_cap_get_max_num_tasks(); BAD_STATE if the context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_task_encrypt_set_conf(
	struct doca_aes_gcm *aes_gcm, doca_aes_gcm_task_encrypt_completion_cb_t task_completion_cb,
	doca_aes_gcm_task_encrypt_completion_cb_t task_error_cb, uint32_t num_tasks);

/*
 * Take an encrypt task from the pool and set its parameters (the IV is copied).  src,
 * dst and key may be NULL and set before submitting.  The AAD is the first aad_size
 * bytes of the source, so aad_size may not exceed it (checked when the task runs).
 * Returns SUCCESS; INVALID_VALUE for NULL aes_gcm/task, a key of another context,
 * iv_length above 12 (or an IV NULL with a length), a tag_size other than 12 or 16, a
 * source larger than max_buf_size or a list longer than max_list_buf_num_elem;
 * BAD_STATE if the context is not RUNNING or the task type is not configured;
 * NO_MEMORY when every task of the pool is allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_task_encrypt_alloc_init(
	struct doca_aes_gcm *aes_gcm, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
	struct doca_aes_gcm_key *key, const uint8_t *iv, uint32_t iv_length, uint32_t tag_size, uint32_t aad_size,
	union doca_data user_data, struct doca_aes_gcm_task_encrypt **task);

/* The generic task of an encrypt task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_aes_gcm_task_encrypt_as_task(struct doca_aes_gcm_task_encrypt *task);

/*
 * Accessors of a task that is not in flight.  A setter's value is checked when the
 * task is submitted; getters return NULL / 0 for a NULL task.
 */
DOCA_EXPERIMENTAL void doca_aes_gcm_task_encrypt_set_src(struct doca_aes_gcm_task_encrypt *task,
							 struct doca_buf const *src_buff);
DOCA_EXPERIMENTAL struct doca_buf const *
doca_aes_gcm_task_encrypt_get_src(const struct doca_aes_gcm_task_encrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_encrypt_set_dst(struct doca_aes_gcm_task_encrypt *task,
							 struct doca_buf *dst_buff);
DOCA_EXPERIMENTAL struct doca_buf *doca_aes_gcm_task_encrypt_get_dst(const struct doca_aes_gcm_task_encrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_encrypt_set_key(struct doca_aes_gcm_task_encrypt *task,
							 struct doca_aes_gcm_key *key);
DOCA_EXPERIMENTAL struct doca_aes_gcm_key *
doca_aes_gcm_task_encrypt_get_key(const struct doca_aes_gcm_task_encrypt *task);
/* The IV is copied (at most 12 bytes are kept); get_iv returns the task's copy. */
DOCA_EXPERIMENTAL void doca_aes_gcm_task_encrypt_set_iv(struct doca_aes_gcm_task_encrypt *task, const uint8_t *iv,
							uint32_t iv_length);
DOCA_EXPERIMENTAL const uint8_t *doca_aes_gcm_task_encrypt_get_iv(const struct doca_aes_gcm_task_encrypt *task,
								  uint32_t *iv_length);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_encrypt_set_tag_size(struct doca_aes_gcm_task_encrypt *task,
							      uint32_t tag_size);
DOCA_EXPERIMENTAL uint32_t doca_aes_gcm_task_encrypt_get_tag_size(const struct doca_aes_gcm_task_encrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_encrypt_set_aad_size(struct doca_aes_gcm_task_encrypt *task,
							      uint32_t aad_size);
DOCA_EXPERIMENTAL uint32_t doca_aes_gcm_task_encrypt_get_aad_size(const struct doca_aes_gcm_task_encrypt *task);

/* --- decrypt ------------------------------------------------------------------------ */

/* Completion (and error) callback of a decrypt task. */
typedef void (*doca_aes_gcm_task_decrypt_completion_cb_t)(struct doca_aes_gcm_task_decrypt *task,
							  union doca_data task_user_data,
							  union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_get_max_iv_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_iv_len);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_is_tag_96_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_is_tag_128_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_is_key_type_supported(const struct doca_devinfo *devinfo,
										   enum doca_aes_gcm_key_type key_type);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_get_max_buf_size(const struct doca_devinfo *devinfo,
									      uint64_t *max_buffer_size);
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_cap_task_decrypt_get_max_list_buf_num_elem(
	const struct doca_devinfo *devinfo, uint32_t *max_list_num_elem);

/* As doca_aes_gcm_task_encrypt_set_conf(), for decrypt tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_task_decrypt_set_conf(
	struct doca_aes_gcm *aes_gcm, doca_aes_gcm_task_decrypt_completion_cb_t task_completion_cb,
	doca_aes_gcm_task_decrypt_completion_cb_t task_error_cb, uint32_t num_tasks);

/*
 * As doca_aes_gcm_task_encrypt_alloc_init(), for decrypt tasks; aad_size plus tag_size
 * may not exceed the source, which holds AAD, ciphertext and tag (checked when the task
 * runs).
 */
DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_task_decrypt_alloc_init(
	struct doca_aes_gcm *aes_gcm, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
	struct doca_aes_gcm_key *key, const uint8_t *iv, uint32_t iv_length, uint32_t tag_size, uint32_t aad_size,
	union doca_data user_data, struct doca_aes_gcm_task_decrypt **task);

/* The generic task of a decrypt task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_aes_gcm_task_decrypt_as_task(struct doca_aes_gcm_task_decrypt *task);

/* Accessors, as the encrypt task's. */
DOCA_EXPERIMENTAL void doca_aes_gcm_task_decrypt_set_src(struct doca_aes_gcm_task_decrypt *task,
							 struct doca_buf const *src_buff);
DOCA_EXPERIMENTAL struct doca_buf const *
doca_aes_gcm_task_decrypt_get_src(const struct doca_aes_gcm_task_decrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_decrypt_set_dst(struct doca_aes_gcm_task_decrypt *task,
							 struct doca_buf *dst_buff);
DOCA_EXPERIMENTAL struct doca_buf *doca_aes_gcm_task_decrypt_get_dst(const struct doca_aes_gcm_task_decrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_decrypt_set_key(struct doca_aes_gcm_task_decrypt *task,
							 struct doca_aes_gcm_key *key);
DOCA_EXPERIMENTAL struct doca_aes_gcm_key *
doca_aes_gcm_task_decrypt_get_key(const struct doca_aes_gcm_task_decrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_decrypt_set_iv(struct doca_aes_gcm_task_decrypt *task, const uint8_t *iv,
							uint32_t iv_length);
DOCA_EXPERIMENTAL const uint8_t *doca_aes_gcm_task_decrypt_get_iv(const struct doca_aes_gcm_task_decrypt *task,
								  uint32_t *iv_length);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_decrypt_set_tag_size(struct doca_aes_gcm_task_decrypt *task,
							      uint32_t tag_size);
DOCA_EXPERIMENTAL uint32_t doca_aes_gcm_task_decrypt_get_tag_size(const struct doca_aes_gcm_task_decrypt *task);
DOCA_EXPERIMENTAL void doca_aes_gcm_task_decrypt_set_aad_size(struct doca_aes_gcm_task_decrypt *task,
							      uint32_t aad_size);
DOCA_EXPERIMENTAL uint32_t doca_aes_gcm_task_decrypt_get_aad_size(const struct doca_aes_gcm_task_decrypt *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_AES_GCM_H_ */
