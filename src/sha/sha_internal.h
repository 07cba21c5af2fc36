/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_sha's objects: the context (sha.c) on Core's engine context
 * (accel_internal.h) and its two task families, hash and partial hash
 * (sha_task.c, sha_task_api.c), which share one task layout.  The digests are
 * OpenSSL 3's (EVP); nothing here hashes by itself.
 *
 * A task keeps one EVP_MD_CTX for its whole life in its pool slot: a hash task
 * re-initialises it at every run, a partial hash task carries its session in it
 * from one submission to the next.  Core keeps a pool slot's memory from free to
 * the next allocation (ctx_internal.h), so the pointer survives doca_task_free();
 * the context owns every EVP_MD_CTX it made (struct sd_sha_mds) and frees them when
 * the pool is replaced or the context destroyed.
 *
 * Threads: a partial session may run its segments on different engine workers.
 * Only one submission of a task is in flight at a time (the caller resubmits it
 * after its completion), and Core publishes a finished task with a release store
 * that the PE's thread reads with acquire before the callback, so each run sees
 * the state the previous one left, and the PE's thread sees the flags a run set.
 */
#ifndef SD_SHA_INTERNAL_H_
#define SD_SHA_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <openssl/evp.h>

#include <doca_sha.h>

#include "../core/sd_core.h"

/* Most tasks one family's pool may hold: 2^SD_SHA_MAX_LOG_TASKS. */
#define SD_SHA_MAX_LOG_TASKS 14u

/* What an algorithm is, for the caps and the checks. */
struct sd_sha_alg {
	const char *name;    /* "SHA256": log lines */
	uint32_t digest_len; /* bytes */
	uint32_t block_len;  /* bytes: a non-final partial segment is a multiple of it */
};

/* NULL for a value that is no enum doca_sha_algorithm. */
const struct sd_sha_alg *sd_sha_alg(enum doca_sha_algorithm alg);

/* OpenSSL's implementation of a valid algorithm, fetched once per process (NULL: OpenSSL has none). */
const EVP_MD *sd_sha_evp_md(enum doca_sha_algorithm alg);

/* The EVP contexts a family's tasks were given (at most one per pool slot). */
struct sd_sha_mds {
	EVP_MD_CTX **v;
	uint32_t n, cap;
};

struct doca_sha {
	struct sd_accel accel; /* first: doca_sha_as_ctx() */
	const struct sd_dev_caps *caps;
	struct sd_task_pool *hash_pool;
	struct sd_task_pool *partial_pool;
	struct sd_sha_mds hash_mds;
	struct sd_sha_mds partial_mds;
};

/* Both families' tasks: doca_sha_task_hash and doca_sha_task_partial_hash are this struct. */
struct sd_sha_task {
	struct sd_accel_task base; /* first: *_as_task() */
	const struct doca_buf *src;
	struct doca_buf *dst;
	enum doca_sha_algorithm alg;
	EVP_MD_CTX *md; /* owned by the context's sd_sha_mds */
	bool partial;
	/* Partial sessions only: */
	bool started;	 /* a segment was hashed: md holds the session (set by run) */
	bool is_final;	 /* the next (or last) submission ends the message */
	bool done;	 /* the final segment was hashed: reset before the next message */
	bool has_result; /* the destination holds the digest */
};

struct doca_sha_task_hash {
	struct sd_sha_task t;
};

struct doca_sha_task_partial_hash {
	struct sd_sha_task t;
};

/* The two families (sha_task.c). */
extern const struct sd_accel_kind sd_sha_hash_kind;
extern const struct sd_accel_kind sd_sha_partial_kind;

/*
 * Take a task of this family from its pool while the context runs and set it up
 * (sha_task.c; has_out: the caller's task pointer is not NULL; api names the DOCA
 * call in refusals).
 */
doca_error_t sd_sha_task_alloc(struct doca_sha *sha, bool partial, enum doca_sha_algorithm alg,
			       const struct doca_buf *src, struct doca_buf *dst, union doca_data user_data,
			       bool has_out, const char *api, struct sd_sha_task **out);

/* Give a task's EVP context to mds (room was made for one per pool slot at *_set_conf). */
static inline void
sd_sha_mds_add(struct sd_sha_mds *mds, EVP_MD_CTX *md)
{
	if (mds->n < mds->cap)
		mds->v[mds->n++] = md;
}

#endif /* SD_SHA_INTERNAL_H_ */
