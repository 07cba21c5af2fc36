/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SHA tasks' public calls: allocation, the setters (which, in DOCA's SHA
 * style, return a status) and getters of both families, and the partial hash
 * session's controls (final mark, reset, result).  The session rules are
 * include/doca_sha.h's; the checks at submit are sha_task.c's.
 */
#include "sha_internal.h"

SD_LOG_REGISTER(sha.task_api);

static inline struct sd_sha_task *
hash_t(struct doca_sha_task_hash *task)
{
	return &task->t;
}

static inline struct sd_sha_task *
partial_t(struct doca_sha_task_partial_hash *task)
{
	return &task->t;
}

static doca_error_t
null_task(const char *api)
{
	DOCA_LOG_ERR("%s: task is NULL", api);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t
check_alg(enum doca_sha_algorithm alg, const char *api)
{
	if (sd_sha_alg(alg) != NULL)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("%s: algorithm %d is not a doca_sha_algorithm (SHA1 0, SHA256 1, SHA512 2)", api, (int)alg);
	return DOCA_ERROR_INVALID_VALUE;
}

/* A partial session's destination and algorithm are fixed from its first segment until reset. */
static doca_error_t
check_not_started(const struct sd_sha_task *t, const char *api)
{
	if (!t->started)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("%s: the partial hash session is in progress (a segment was hashed); call "
		     "doca_sha_task_partial_hash_reset() first, which forgets the segments hashed so far",
		     api);
	return DOCA_ERROR_BAD_STATE;
}

/* --- hash task ------------------------------------------------------------------------------------ */

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_hash_alloc_init(struct doca_sha *sha, enum doca_sha_algorithm algorithm, struct doca_buf const *src_buf,
			      struct doca_buf *dst_buf, union doca_data user_data, struct doca_sha_task_hash **task)
{
	struct sd_sha_task *t;
	doca_error_t err = sd_sha_task_alloc(sha, false, algorithm, src_buf, dst_buf, user_data, task != NULL,
					     "doca_sha_task_hash_alloc_init", &t);

	if (err == DOCA_SUCCESS)
		*task = sd_container_of(t, struct doca_sha_task_hash, t);
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_hash_set_src(struct doca_sha_task_hash *task, struct doca_buf const *src_buf)
{
	if (task == NULL)
		return null_task("doca_sha_task_hash_set_src");
	hash_t(task)->src = src_buf;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_hash_get_src(struct doca_sha_task_hash const *task)
{
	return task == NULL ? NULL : task->t.src;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_hash_set_dst(struct doca_sha_task_hash *task, struct doca_buf *dst_buf)
{
	if (task == NULL)
		return null_task("doca_sha_task_hash_set_dst");
	hash_t(task)->dst = dst_buf;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_hash_get_dst(struct doca_sha_task_hash const *task)
{
	return task == NULL ? NULL : task->t.dst;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_hash_set_algorithm(struct doca_sha_task_hash *task, enum doca_sha_algorithm algorithm)
{
	static const char api[] = "doca_sha_task_hash_set_algorithm";
	doca_error_t err;

	if (task == NULL)
		return null_task(api);
	err = check_alg(algorithm, api);
	if (err == DOCA_SUCCESS)
		hash_t(task)->alg = algorithm;
	return err;
}

DOCA_EXPERIMENTAL enum doca_sha_algorithm
doca_sha_task_hash_get_algorithm(struct doca_sha_task_hash const *task)
{
	return task == NULL ? DOCA_SHA_ALGORITHM_SHA1 : task->t.alg;
}

DOCA_EXPERIMENTAL struct doca_task *
doca_sha_task_hash_as_task(struct doca_sha_task_hash *task)
{
	return task == NULL ? NULL : &task->t.base.task;
}

/* --- partial hash task ------------------------------------------------------------------------------ */

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_alloc_init(struct doca_sha *sha, enum doca_sha_algorithm algorithm,
				      struct doca_buf const *src_buf, struct doca_buf *dst_buf,
				      union doca_data user_data, struct doca_sha_task_partial_hash **task)
{
	struct sd_sha_task *t;
	doca_error_t err = sd_sha_task_alloc(sha, true, algorithm, src_buf, dst_buf, user_data, task != NULL,
					     "doca_sha_task_partial_hash_alloc_init", &t);

	if (err == DOCA_SUCCESS)
		*task = sd_container_of(t, struct doca_sha_task_partial_hash, t);
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_reset(struct doca_sha_task_partial_hash *task)
{
	struct sd_sha_task *t;

	if (task == NULL)
		return null_task("doca_sha_task_partial_hash_reset");
	/* The EVP context is re-initialised by the next segment, which starts the new message. */
	t = partial_t(task);
	t->started = t->is_final = t->done = t->has_result = false;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_src(struct doca_sha_task_partial_hash *task, struct doca_buf const *src_buf)
{
	if (task == NULL)
		return null_task("doca_sha_task_partial_hash_set_src");
	partial_t(task)->src = src_buf;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_partial_hash_get_src(struct doca_sha_task_partial_hash const *task)
{
	return task == NULL ? NULL : task->t.src;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_dst(struct doca_sha_task_partial_hash *task, struct doca_buf *dst_buf)
{
	static const char api[] = "doca_sha_task_partial_hash_set_dst";
	doca_error_t err;

	if (task == NULL)
		return null_task(api);
	err = check_not_started(partial_t(task), api);
	if (err == DOCA_SUCCESS)
		partial_t(task)->dst = dst_buf;
	return err;
}

DOCA_EXPERIMENTAL struct doca_buf const *
doca_sha_task_partial_hash_get_dst(struct doca_sha_task_partial_hash const *task)
{
	return task == NULL ? NULL : task->t.dst;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_algorithm(struct doca_sha_task_partial_hash *task, enum doca_sha_algorithm algorithm)
{
	static const char api[] = "doca_sha_task_partial_hash_set_algorithm";
	doca_error_t err;

	if (task == NULL)
		return null_task(api);
	err = check_alg(algorithm, api);
	if (err == DOCA_SUCCESS)
		err = check_not_started(partial_t(task), api);
	if (err == DOCA_SUCCESS)
		partial_t(task)->alg = algorithm;
	return err;
}

DOCA_EXPERIMENTAL enum doca_sha_algorithm
doca_sha_task_partial_hash_get_algorithm(struct doca_sha_task_partial_hash const *task)
{
	return task == NULL ? DOCA_SHA_ALGORITHM_SHA1 : task->t.alg;
}

DOCA_EXPERIMENTAL doca_error_t
doca_sha_task_partial_hash_set_is_final_buf(struct doca_sha_task_partial_hash *task)
{
	static const char api[] = "doca_sha_task_partial_hash_set_is_final_buf";
	struct sd_sha_task *t;

	if (task == NULL)
		return null_task(api);
	t = partial_t(task);
	if (!t->started) {
		/* DOCA leaves a final first segment undefined: refused here, with the call that does it. */
		DOCA_LOG_ERR("%s: no segment of this partial hash session has been hashed yet, and the final mark "
			     "may not go on the first segment; hash a one-segment message with a hash task "
			     "(doca_sha_task_hash_alloc_init)",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (t->done) {
		DOCA_LOG_ERR("%s: this partial hash session already ended with its final segment; call "
			     "doca_sha_task_partial_hash_reset() before the next message",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	t->is_final = true;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint8_t
doca_sha_task_partial_hash_get_is_final(struct doca_sha_task_partial_hash const *task)
{
	return task != NULL && task->t.is_final ? 1 : 0;
}

DOCA_EXPERIMENTAL uint8_t
doca_sha_task_partial_hash_get_has_result(struct doca_sha_task_partial_hash const *task)
{
	return task != NULL && task->t.has_result ? 1 : 0;
}

DOCA_EXPERIMENTAL struct doca_task *
doca_sha_task_partial_hash_as_task(struct doca_sha_task_partial_hash *task)
{
	return task == NULL ? NULL : &task->t.base.task;
}
