/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two SHA task families as Core engine kinds (accel_internal.h): what is
 * checked before a task runs and the refusal table that names each rule, the
 * run (OpenSSL's EVP digest over the source's data windows, segment by segment,
 * with no copy), and the allocation that gives each pool slot its EVP context.
 * The statuses of the data faults are docs/sha.md's "Failures".
 */
#include <stdlib.h>

#include "sha_internal.h"

SD_LOG_REGISTER(sha.task);

/* Why a task cannot run: Core's buffer faults, the engines' shared ones, then SHA's own. */
enum refusal {
	OK = SD_BUF_OK,
	LIST_TOO_LONG = SD_BUF_LIST_TOO_LONG,
	DST_TOO_SMALL = SD_BUF_NO_ROOM,
	NO_SRC = SD_ACCEL_NUM_FAULTS,
	NO_DST,
	SESSION_DONE,
	SRC_TOO_BIG,
	NOT_BLOCK_MULTIPLE,
	OUT_OF_MEMORY,
	ENGINE_FAILED,
	NUM_REFUSALS,
};

/* Refusals doca_task_submit returns (the submitter keeps the task): nothing to run at all. */
#define KEEP_MASK ((1ull << NO_SRC) | (1ull << NO_DST) | (1ull << SESSION_DONE))

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}

/* Indexed by reason; a buffer fault without a row here is Core's. */
static const struct sd_refusal sha_refusals[NUM_REFUSALS] = {
	SD_ACCEL_REFUSAL_ROWS,
	[LIST_TOO_LONG] = ROW(DOCA_ERROR_INVALID_VALUE,
			      "{api}: {task} task's {what} list has {a} segments, more than max_list_buf_num_elem {b}; "
			      "chain fewer buffers (doca_sha_cap_get_max_list_buf_num_elem)"),
	[DST_TOO_SMALL] =
		ROW(DOCA_ERROR_TOO_BIG,
		    "{api}: {task} task's {a}-byte digest does not fit in its destination, which has room for "
		    "{b} bytes after data + data_len; give it doca_sha_cap_get_min_dst_buf_size() bytes of "
		    "room (or reset its data_len with doca_buf_reset_data_len)"),
	[NO_SRC] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no source buffer; set one with doca_sha_task_*_set_src()"),
	[NO_DST] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no destination buffer; set one with doca_sha_task_*_set_dst()"),
	[SESSION_DONE] = ROW(DOCA_ERROR_BAD_STATE,
			     "{api}: {task} task already hashed its final segment; call "
			     "doca_sha_task_partial_hash_reset() before the first segment of the next message"),
	[SRC_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
			    "{api}: {task} task's source holds {a} bytes, more than max_src_buf_size {b}; split it "
			    "over a partial hash session (doca_sha_cap_get_max_src_buf_size)"),
	[NOT_BLOCK_MULTIPLE] = ROW(DOCA_ERROR_INVALID_VALUE,
				   "{api}: {task} task's non-final segment holds {a} bytes, not a multiple of the "
				   "{b}-byte block (doca_sha_cap_get_partial_hash_block_size); only the final "
				   "segment (doca_sha_task_partial_hash_set_is_final_buf) may have any length"),
	[OUT_OF_MEMORY] = ROW(DOCA_ERROR_NO_MEMORY,
			      "{api}: {task} task: out of memory for the bounce buffer of its destination list; "
			      "use a one-segment destination"),
	[ENGINE_FAILED] =
		ROW(DOCA_ERROR_UNEXPECTED, "{api}: {task} task: OpenSSL failed to compute the digest; reset the task "
					   "(doca_sha_task_partial_hash_reset) and submit the message again"),
};

static inline struct sd_sha_task *
sha_task(struct sd_accel_task *t)
{
	return sd_container_of(t, struct sd_sha_task, base);
}

/* Everything hardware would refuse before hashing (accel_internal.h: PE thread, logs nothing). */
static bool
sha_check(struct sd_accel_task *at, struct sd_buf_verdict *v)
{
	const struct sd_sha_task *t = sha_task(at);
	const struct doca_sha *sha = sd_container_of(t->base.accel, struct doca_sha, accel);
	const struct sd_sha_alg *alg = sd_sha_alg(t->alg);
	uint64_t src_len;

	if (t->src == NULL)
		return sd_buf_refuse(v, NO_SRC, NULL, 0, 0, 0);
	if (t->dst == NULL)
		return sd_buf_refuse(v, NO_DST, NULL, 0, 0, 0);
	if (t->partial && t->done)
		return sd_buf_refuse(v, SESSION_DONE, NULL, 0, 0, 0);
	if (!sd_accel_check_list(t->base.accel, t->src, false, sha->caps->sha_max_list_num_elem, "source", v) ||
	    !sd_accel_check_list(t->base.accel, t->dst, true, sha->caps->sha_max_list_num_elem, "destination", v))
		return false;
	src_len = sd_accel_list_data_len(t->src);
	if (src_len > sha->caps->sha_max_src_buf_size)
		return sd_buf_refuse(v, SRC_TOO_BIG, "source", src_len, sha->caps->sha_max_src_buf_size, 0);
	if (t->partial && !t->is_final && src_len % alg->block_len != 0)
		return sd_buf_refuse(v, NOT_BLOCK_MULTIPLE, "source", src_len, alg->block_len, 0);
	/* The digest's room, checked at every submission of a session: the final one writes it. */
	if (sd_accel_list_tail_room(t->dst) < alg->digest_len)
		return sd_buf_refuse(v, DST_TOO_SMALL, "destination", alg->digest_len, sd_accel_list_tail_room(t->dst),
				     0);
	return true;
}

/* The digest into the destination, after its data (room checked at submit). */
static bool
write_digest(struct sd_sha_task *t, struct sd_buf_verdict *v)
{
	struct sd_accel_dst d;
	unsigned int n = 0;

	if (!sd_accel_dst_open(&d, t->dst))
		return sd_buf_refuse(v, OUT_OF_MEMORY, "destination", 0, 0, 0);
	if (EVP_DigestFinal_ex(t->md, d.p, &n) != 1) {
		sd_accel_dst_close(&d);
		return sd_buf_refuse(v, ENGINE_FAILED, NULL, 0, 0, 0);
	}
	sd_accel_dst_commit(&d, n);
	return true;
}

/*
 * Any thread: a hash task, or one segment of a partial session.  Only the final
 * segment of a session writes the destination; the others leave it as it was.
 */
static bool
sha_run(struct sd_accel_task *at, struct sd_buf_verdict *v)
{
	struct sd_sha_task *t = sha_task(at);

	if (!t->partial || !t->started) {
		if (EVP_DigestInit_ex2(t->md, sd_sha_evp_md(t->alg), NULL) != 1)
			goto failed;
		t->started = t->partial;
	}
	for (const struct doca_buf *seg = t->src; seg != NULL; seg = sd_buf_next(seg)) {
		if (sd_buf_data_len(seg) > 0 && EVP_DigestUpdate(t->md, sd_buf_data(seg), sd_buf_data_len(seg)) != 1)
			goto failed;
	}
	if (t->partial && !t->is_final)
		return true;
	if (!write_digest(t, v)) {
		t->done = t->partial; /* the session's state is gone: it needs a reset */
		return false;
	}
	if (t->partial) {
		t->done = true;
		t->has_result = true;
	}
	return true;

failed:
	t->done = t->partial;
	return sd_buf_refuse(v, ENGINE_FAILED, NULL, 0, 0, 0);
}

static uint64_t
sha_cost(const struct sd_accel_task *at)
{
	const struct sd_sha_task *t = sd_container_of(at, const struct sd_sha_task, base);

	return t->src != NULL ? sd_accel_list_data_len(t->src) : 0;
}

const struct sd_accel_kind sd_sha_hash_kind = {
	.name = "SHA hash",
	.refusals = sha_refusals,
	.keep_mask = KEEP_MASK,
	.check = sha_check,
	.run = sha_run,
	.cost = sha_cost,
};

const struct sd_accel_kind sd_sha_partial_kind = {
	.name = "SHA partial hash",
	.refusals = sha_refusals,
	.keep_mask = KEEP_MASK,
	.check = sha_check,
	.run = sha_run,
	.cost = sha_cost,
};

doca_error_t
sd_sha_task_alloc(struct doca_sha *sha, bool partial, enum doca_sha_algorithm alg, const struct doca_buf *src,
		  struct doca_buf *dst, union doca_data user_data, bool has_out, const char *api,
		  struct sd_sha_task **out)
{
	struct doca_task *base;
	struct sd_sha_task *t;
	doca_error_t err;

	if (sha == NULL || !has_out) {
		DOCA_LOG_ERR("%s: NULL argument (sha %p, task %s)", api, (void *)sha, has_out ? "set" : "NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_sha_alg(alg) == NULL) {
		DOCA_LOG_ERR("%s: algorithm %d is not a doca_sha_algorithm (SHA1 0, SHA256 1, SHA512 2)", api,
			     (int)alg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&sha->accel.ctx) != DOCA_CTX_STATE_RUNNING) {
		DOCA_LOG_ERR("%s: the SHA context is not running; allocate tasks after doca_ctx_start()", api);
		return DOCA_ERROR_BAD_STATE;
	}
	/* BAD_STATE when the family is not configured, NO_MEMORY when its pool is used up (logged by Core). */
	err = sd_task_alloc(partial ? sha->partial_pool : sha->hash_pool, user_data, api, &base);
	if (err != DOCA_SUCCESS)
		return err;
	t = (struct sd_sha_task *)base;
	/* A slot keeps its EVP context across free and alloc (sha_internal.h); a new slot gets one. */
	if (t->md == NULL) {
		t->md = EVP_MD_CTX_new();
		if (t->md == NULL) {
			DOCA_LOG_ERR("%s: out of memory for the task's digest state", api);
			doca_task_free(base);
			return DOCA_ERROR_NO_MEMORY;
		}
		sd_sha_mds_add(partial ? &sha->partial_mds : &sha->hash_mds, t->md);
	}
	sd_accel_task_init(&t->base, &sha->accel, partial ? &sd_sha_partial_kind : &sd_sha_hash_kind);
	t->src = src;
	t->dst = dst;
	t->alg = alg;
	t->partial = partial;
	t->started = t->is_final = t->done = t->has_result = false;
	*out = t;
	return DOCA_SUCCESS;
}
