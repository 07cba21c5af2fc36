/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_aes_gcm's objects (docs/aes_gcm.md): the context (an accel context,
 * accel_internal.h), its keys and its two task families, which share one task
 * layout and differ only in the direction the cipher runs.
 *
 * Threads: every field is written on the PE's thread (the API calls); a task's
 * run (aes_gcm_cipher.c) reads its task and its key on a worker or the PE's
 * thread.  A key's bytes never change after key_create, and a key cannot be
 * destroyed while a task submitted with it is undelivered.
 */
#ifndef SD_AES_GCM_INTERNAL_H_
#define SD_AES_GCM_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_aes_gcm.h>

#include "../core/sd_core.h"

#define SD_AES_GCM_IV_LEN 12u  /* the IV every task uses: a shorter one is zero-padded to it */
#define SD_AES_GCM_TAG_MAX 16u /* GCM's full tag; a 12-byte tag is its first 12 bytes */
#define SD_AES_GCM_KEY_MAX 32u

/* The two task families; their pools and kinds are indexed by it. */
enum sd_aes_gcm_dir {
	SD_AES_GCM_ENCRYPT,
	SD_AES_GCM_DECRYPT,
	SD_AES_GCM_NUM_DIRS,
};

struct doca_aes_gcm {
	struct sd_accel accel; /* first: doca_aes_gcm_as_ctx() is &accel.ctx */
	const struct sd_dev_caps *caps;
	struct sd_task_pool *pools[SD_AES_GCM_NUM_DIRS];
	struct sd_list keys; /* doca_aes_gcm_key.link: destroy is IN_USE while not empty */
};

struct doca_aes_gcm_key {
	struct doca_aes_gcm *owner;
	struct sd_list link;
	uint64_t id;	    /* unique in the process, never reused: what a cipher slot remembers */
	const void *cipher; /* the EVP_CIPHER for its size (aes_gcm_cipher.c) */
	uint32_t len;	    /* 16 or 32 */
	uint8_t raw[SD_AES_GCM_KEY_MAX];
};

/* Both task families' layout: the public task structs are this struct. */
struct sd_aes_gcm_task {
	struct sd_accel_task base; /* first: *_as_task() is &base.task */
	enum sd_aes_gcm_dir dir;
	const struct doca_buf *src;
	struct doca_buf *dst;
	struct doca_aes_gcm_key *key;
	uint32_t iv_len; /* as set; more than 12 is refused at submit */
	uint32_t tag_size;
	uint32_t aad_size;
	uint64_t src_len;	       /* set by check: the bytes of the source's data windows */
	uint8_t iv[SD_AES_GCM_IV_LEN]; /* zero-padded */
};

struct doca_aes_gcm_task_encrypt {
	struct sd_aes_gcm_task t;
};

struct doca_aes_gcm_task_decrypt {
	struct sd_aes_gcm_task t;
};

/* Why a task cannot run or failed: Core's buffer faults, then the library's (aes_gcm_task.c). */
enum sd_aes_gcm_refusal {
	SD_AES_GCM_NO_SRC = SD_ACCEL_NUM_FAULTS,
	SD_AES_GCM_NO_DST,
	SD_AES_GCM_NO_KEY,
	SD_AES_GCM_FOREIGN_KEY,
	SD_AES_GCM_SRC_EMPTY,
	SD_AES_GCM_SRC_TOO_BIG,
	SD_AES_GCM_IV_TOO_LONG,
	SD_AES_GCM_NO_IV,
	SD_AES_GCM_BAD_TAG_SIZE,
	SD_AES_GCM_AAD_TOO_BIG,
	SD_AES_GCM_SRC_TOO_SHORT,
	SD_AES_GCM_NO_MEMORY,
	SD_AES_GCM_TAG_MISMATCH,
	SD_AES_GCM_CIPHER_FAILED,
	SD_AES_GCM_NUM_REFUSALS,
};

static inline struct doca_aes_gcm *
sd_aes_gcm_of(const struct sd_aes_gcm_task *t)
{
	return sd_container_of(t->base.accel, struct doca_aes_gcm, accel);
}

/* The kinds of the two families (aes_gcm_task.c). */
extern const struct sd_accel_kind sd_aes_gcm_kinds[SD_AES_GCM_NUM_DIRS];

/* aes_gcm_cipher.c: the EVP cipher of a key size (16 or 32 bytes); NULL if OpenSSL has none. */
const void *sd_aes_gcm_cipher(uint32_t key_len);
/* Run a checked task with OpenSSL: true on success, else false and v says why. */
bool sd_aes_gcm_run(struct sd_aes_gcm_task *t, struct sd_buf_verdict *v);
/* Wipe every thread's cipher state that still holds the key with this id. */
void sd_aes_gcm_forget_key(uint64_t id);

#endif /* SD_AES_GCM_INTERNAL_H_ */
