/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The encrypt and decrypt tasks: one layout and one set of checks for both
 * (struct sd_aes_gcm_task), the refusal table, the two accel kinds, and the
 * public calls of each family, generated from one definition so the two cannot
 * drift.  What hardware checks before it runs a task is checked at submit
 * (check_task); the cipher runs in aes_gcm_cipher.c.
 */
#include <stdlib.h>
#include <string.h>

#include "aes_gcm_internal.h"

SD_LOG_REGISTER(aes_gcm.task);

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}

/* Indexed by reason; Core's buffer faults keep Core's rows except where the fix is ours. */
static const struct sd_refusal aes_refusals[SD_AES_GCM_NUM_REFUSALS] = {
	SD_ACCEL_REFUSAL_ROWS,
	[SD_BUF_LIST_TOO_LONG] = ROW(DOCA_ERROR_INVALID_VALUE,
				     "{api}: {task} task's {what} list has {a} segments, more than the {b} allowed; "
				     "chain fewer buffers (doca_aes_gcm_cap_task_*_get_max_list_buf_num_elem)"),
	/* doca-accel.md §9 item 6: a destination too small is TOO_BIG. */
	[SD_BUF_NO_ROOM] = ROW(DOCA_ERROR_TOO_BIG,
			       "{api}: {task} task's destination has room for {b} bytes after data + data_len, {a} "
			       "are needed (encrypt: source + tag, decrypt: source - tag); use a larger buffer or "
			       "reset its data_len (doca_buf_reset_data_len)"),
	[SD_AES_GCM_NO_SRC] =
		ROW(DOCA_ERROR_INVALID_VALUE,
		    "{api}: {task} task has no source buffer; set one with doca_aes_gcm_task_*_set_src()"),
	[SD_AES_GCM_NO_DST] = ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task has no destination buffer; set one "
							    "with doca_aes_gcm_task_*_set_dst()"),
	[SD_AES_GCM_NO_KEY] =
		ROW(DOCA_ERROR_INVALID_VALUE,
		    "{api}: {task} task has no key; create one with doca_aes_gcm_key_create() and give it "
		    "to the task (alloc_init or doca_aes_gcm_task_*_set_key())"),
	[SD_AES_GCM_FOREIGN_KEY] = ROW(DOCA_ERROR_INVALID_VALUE,
				       "{api}: {task} task's key belongs to another AES-GCM context; a key serves "
				       "only the context that created it"),
	[SD_AES_GCM_SRC_EMPTY] = ROW(DOCA_ERROR_INVALID_VALUE,
				     "{api}: {task} task's source holds no data (data_len 0); set its data window with "
				     "doca_buf_set_data() or take it with doca_buf_inventory_buf_get_by_data()"),
	[SD_AES_GCM_SRC_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
				       "{api}: {task} task's source holds {a} bytes, more than max_buf_size {b}; "
				       "split the data (doca_aes_gcm_cap_task_*_get_max_buf_size)"),
	[SD_AES_GCM_IV_TOO_LONG] = ROW(DOCA_ERROR_INVALID_VALUE,
				       "{api}: {task} task's IV is {a} bytes, more than the {b} supported; use an IV "
				       "of at most 12 bytes (doca_aes_gcm_cap_task_*_get_max_iv_len)"),
	[SD_AES_GCM_NO_IV] = ROW(DOCA_ERROR_INVALID_VALUE,
				 "{api}: {task} task's IV is NULL but iv_length is {a}; give the IV bytes, or "
				 "iv_length 0 for an all-zero IV"),
	[SD_AES_GCM_BAD_TAG_SIZE] =
		ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task's tag size is {a} bytes; AES-GCM tasks use a 12-byte "
					      "(96-bit) or 16-byte (128-bit) tag"),
	[SD_AES_GCM_AAD_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
				       "{api}: {task} task's aad_size {a} is larger than its source ({b} bytes); the "
				       "AAD is the first aad_size bytes of the source"),
	[SD_AES_GCM_SRC_TOO_SHORT] = ROW(DOCA_ERROR_INVALID_VALUE,
					 "{api}: {task} task's source holds {b} bytes, fewer than aad_size + tag_size "
					 "({a}); a decrypt source is AAD | ciphertext | tag"),
	[SD_AES_GCM_NO_MEMORY] = ROW(DOCA_ERROR_NO_MEMORY,
				     "{api}: {task} task: out of memory for the {what} (a bounce buffer of {a} bytes "
				     "for a buffer list, or the thread's cipher state)"),
	[SD_AES_GCM_TAG_MISMATCH] =
		ROW(DOCA_ERROR_AUTHENTICATION,
		    "{api}: {task} task's tag does not match: the source was not encrypted with this key, IV, tag "
		    "size and AAD, or it was altered; nothing was written to the destination"),
	[SD_AES_GCM_CIPHER_FAILED] =
		ROW(DOCA_ERROR_UNEXPECTED, "{api}: {task} task: OpenSSL's AES-GCM failed (EVP error {a}); the "
					   "destination was left unchanged"),
};

/* Returned by submit (the submitter keeps the task): there is nothing to run it on. */
#define KEEP_MASK                                                                                                      \
	((1ull << SD_AES_GCM_NO_SRC) | (1ull << SD_AES_GCM_NO_DST) | (1ull << SD_AES_GCM_NO_KEY) |                     \
	 (1ull << SD_AES_GCM_FOREIGN_KEY))

/* The key, IV and tag parameters, which alloc_init and submit both check. */
static bool
check_params(const struct doca_aes_gcm *aes, const struct doca_aes_gcm_key *key, uint32_t iv_len, uint32_t tag_size,
	     struct sd_buf_verdict *v)
{
	if (key != NULL && key->owner != aes)
		return sd_buf_refuse(v, SD_AES_GCM_FOREIGN_KEY, NULL, 0, 0, 0);
	if (iv_len > SD_AES_GCM_IV_LEN)
		return sd_buf_refuse(v, SD_AES_GCM_IV_TOO_LONG, NULL, iv_len, SD_AES_GCM_IV_LEN, 0);
	if (tag_size != 12 && tag_size != 16)
		return sd_buf_refuse(v, SD_AES_GCM_BAD_TAG_SIZE, NULL, tag_size, 0, 0);
	return true;
}

/* The source's size against the limit and the layout of its direction. */
static bool
check_sizes(const struct sd_aes_gcm_task *t, uint64_t len, uint64_t max, struct sd_buf_verdict *v)
{
	if (len == 0)
		return sd_buf_refuse(v, SD_AES_GCM_SRC_EMPTY, "source", 0, 0, 0);
	if (len > max)
		return sd_buf_refuse(v, SD_AES_GCM_SRC_TOO_BIG, "source", len, max, 0);
	if (t->dir == SD_AES_GCM_ENCRYPT && t->aad_size > len)
		return sd_buf_refuse(v, SD_AES_GCM_AAD_TOO_BIG, "source", t->aad_size, len, 0);
	if (t->dir == SD_AES_GCM_DECRYPT && (uint64_t)t->aad_size + t->tag_size > len)
		return sd_buf_refuse(v, SD_AES_GCM_SRC_TOO_SHORT, "source", (uint64_t)t->aad_size + t->tag_size, len,
				     0);
	return true;
}

/* kind->check: everything hardware refuses before it runs the task (PE thread, logs nothing). */
static bool
check_task(struct sd_accel_task *base, struct sd_buf_verdict *v)
{
	struct sd_aes_gcm_task *t = (struct sd_aes_gcm_task *)base;
	const struct doca_aes_gcm *aes = sd_aes_gcm_of(t);
	uint32_t max_segs = aes->caps->aes_gcm_max_list_num_elem;
	uint64_t len, need;

	if (t->src == NULL)
		return sd_buf_refuse(v, SD_AES_GCM_NO_SRC, "source", 0, 0, 0);
	if (t->dst == NULL)
		return sd_buf_refuse(v, SD_AES_GCM_NO_DST, "destination", 0, 0, 0);
	if (t->key == NULL)
		return sd_buf_refuse(v, SD_AES_GCM_NO_KEY, NULL, 0, 0, 0);
	if (!check_params(aes, t->key, t->iv_len, t->tag_size, v))
		return false;
	if (!sd_accel_check_list(&aes->accel, t->src, false, max_segs, "source", v) ||
	    !sd_accel_check_list(&aes->accel, t->dst, true, max_segs, "destination", v))
		return false;
	len = sd_accel_list_data_len(t->src);
	if (!check_sizes(t, len, aes->caps->aes_gcm_max_buf_size, v))
		return false;
	need = t->dir == SD_AES_GCM_ENCRYPT ? len + t->tag_size : len - t->tag_size;
	if (!sd_buf_check_room(sd_accel_list_tail_room(t->dst), need, "destination", v))
		return false;
	t->src_len = len;
	return true;
}

static bool
run_task(struct sd_accel_task *base, struct sd_buf_verdict *v)
{
	return sd_aes_gcm_run((struct sd_aes_gcm_task *)base, v);
}

static uint64_t
task_cost(const struct sd_accel_task *base)
{
	return ((const struct sd_aes_gcm_task *)base)->src_len;
}

const struct sd_accel_kind sd_aes_gcm_kinds[SD_AES_GCM_NUM_DIRS] = {
	[SD_AES_GCM_ENCRYPT] = {.name = "AES-GCM encrypt",
				.refusals = aes_refusals,
				.keep_mask = KEEP_MASK,
				.check = check_task,
				.run = run_task,
				.cost = task_cost},
	[SD_AES_GCM_DECRYPT] = {.name = "AES-GCM decrypt",
				.refusals = aes_refusals,
				.keep_mask = KEEP_MASK,
				.check = check_task,
				.run = run_task,
				.cost = task_cost},
};

/* --- the calls both families share ------------------------------------------------------ */

static doca_error_t
set_conf(struct doca_aes_gcm *aes, enum sd_aes_gcm_dir dir, doca_task_completion_cb_t ok, doca_task_completion_cb_t err,
	 uint32_t num_tasks, const char *api)
{
	if (aes == NULL || ok == NULL || err == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (aes_gcm %p, completion cb %s, error cb %s); both callbacks are "
			     "required",
			     api, (void *)aes, ok != NULL ? "set" : "NULL", err != NULL ? "set" : "NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_task_pool_configure(&aes->accel.ctx, &aes->pools[dir], sd_aes_gcm_kinds[dir].name,
				      sizeof(struct sd_aes_gcm_task), num_tasks, aes->caps->aes_gcm_max_num_tasks, ok,
				      err, api);
}

static void
store_iv(struct sd_aes_gcm_task *t, const uint8_t *iv, uint32_t iv_len)
{
	memset(t->iv, 0, sizeof(t->iv));
	if (iv != NULL)
		memcpy(t->iv, iv, iv_len < SD_AES_GCM_IV_LEN ? iv_len : SD_AES_GCM_IV_LEN);
	t->iv_len = iv_len;
}

/* A list's segments: the head knows; a buffer given that is not a head counts alone. */
static uint32_t
num_segs(const struct doca_buf *list)
{
	return sd_buf_is_head(list) ? sd_buf_list_len(list) : 1;
}

/* What alloc_init can refuse: the parameters, and the buffers' shape if they are given. */
static bool
check_alloc(const struct doca_aes_gcm *aes, const struct doca_buf *src, const struct doca_buf *dst,
	    const struct doca_aes_gcm_key *key, const uint8_t *iv, uint32_t iv_len, uint32_t tag_size,
	    struct sd_buf_verdict *v)
{
	uint32_t max_segs = aes->caps->aes_gcm_max_list_num_elem;
	uint64_t len;

	if (!check_params(aes, key, iv_len, tag_size, v))
		return false;
	if (iv == NULL && iv_len > 0)
		return sd_buf_refuse(v, SD_AES_GCM_NO_IV, NULL, iv_len, 0, 0);
	if (src != NULL) {
		if (!sd_buf_check_list_len(num_segs(src), max_segs, "source", v))
			return false;
		len = sd_accel_list_data_len(src);
		if (len > aes->caps->aes_gcm_max_buf_size)
			return sd_buf_refuse(v, SD_AES_GCM_SRC_TOO_BIG, "source", len, aes->caps->aes_gcm_max_buf_size,
					     0);
	}
	return dst == NULL || sd_buf_check_list_len(num_segs(dst), max_segs, "destination", v);
}

struct alloc_args {
	const struct doca_buf *src;
	struct doca_buf *dst;
	struct doca_aes_gcm_key *key;
	const uint8_t *iv;
	uint32_t iv_len, tag_size, aad_size;
	union doca_data user_data;
};

static doca_error_t
alloc_init(struct doca_aes_gcm *aes, enum sd_aes_gcm_dir dir, const struct alloc_args *a, struct sd_aes_gcm_task **task,
	   const char *api)
{
	struct sd_buf_verdict v;
	struct sd_aes_gcm_task *t;
	struct doca_task *base;
	doca_error_t err;

	if (aes == NULL || task == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (aes_gcm %p, task %p)", api, (void *)aes, (void *)task);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&aes->accel.ctx) != DOCA_CTX_STATE_RUNNING) {
		DOCA_LOG_ERR("%s: the AES-GCM context is not running; allocate tasks after doca_ctx_start()", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!check_alloc(aes, a->src, a->dst, a->key, a->iv, a->iv_len, a->tag_size, &v)) {
		SD_REFUSAL_LOG(&aes->accel.ctx, aes_refusals, api, sd_aes_gcm_kinds[dir].name, &v, false);
		return sd_refusal_status(aes_refusals, &v);
	}
	err = sd_task_alloc(aes->pools[dir], a->user_data, api, &base);
	if (err != DOCA_SUCCESS)
		return err;
	t = (struct sd_aes_gcm_task *)base;
	sd_accel_task_init(&t->base, &aes->accel, &sd_aes_gcm_kinds[dir]);
	t->dir = dir;
	t->src = a->src;
	t->dst = a->dst;
	t->key = a->key;
	t->tag_size = a->tag_size;
	t->aad_size = a->aad_size;
	t->src_len = 0;
	store_iv(t, a->iv, a->iv_len);
	*task = t;
	return DOCA_SUCCESS;
}

/* A setter called with a NULL task: logged, nothing else. */
#define TASK_OR_RETURN(task, api)                                                                                      \
	do {                                                                                                           \
		if ((task) == NULL) {                                                                                  \
			DOCA_LOG_ERR("%s: task is NULL", (api));                                                       \
			return;                                                                                        \
		}                                                                                                      \
	} while (0)

static void
set_iv(struct sd_aes_gcm_task *t, const uint8_t *iv, uint32_t iv_len, const char *api)
{
	TASK_OR_RETURN(t, api);
	if (iv == NULL && iv_len > 0) {
		DOCA_LOG_ERR("%s: the IV is NULL but iv_length is %u; the task keeps its IV", api, iv_len);
		return;
	}
	store_iv(t, iv, iv_len);
}

static const uint8_t *
get_iv(const struct sd_aes_gcm_task *t, uint32_t *iv_len)
{
	if (t == NULL)
		return NULL;
	if (iv_len != NULL)
		*iv_len = t->iv_len;
	return t->iv;
}

/*
 * The public calls of family D (encrypt or decrypt): thin casts onto the
 * shared functions above.  The public task struct is struct sd_aes_gcm_task.
 */
#define T(task) ((struct sd_aes_gcm_task *)(task))
#define CT(task) ((const struct sd_aes_gcm_task *)(task))

#define AES_GCM_TASK_API(D, DIR)                                                                                       \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_task_##D##_set_conf(                                               \
		struct doca_aes_gcm *aes_gcm, doca_aes_gcm_task_##D##_completion_cb_t task_completion_cb,              \
		doca_aes_gcm_task_##D##_completion_cb_t task_error_cb, uint32_t num_tasks)                             \
	{                                                                                                              \
		return set_conf(aes_gcm, DIR, SD_TASK_CB(task_completion_cb), SD_TASK_CB(task_error_cb), num_tasks,    \
				__func__);                                                                             \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_aes_gcm_task_##D##_alloc_init(                                             \
		struct doca_aes_gcm *aes_gcm, struct doca_buf const *src_buff, struct doca_buf *dst_buff,              \
		struct doca_aes_gcm_key *key, const uint8_t *iv, uint32_t iv_length, uint32_t tag_size,                \
		uint32_t aad_size, union doca_data user_data, struct doca_aes_gcm_task_##D **task)                     \
	{                                                                                                              \
		const struct alloc_args a = {src_buff, dst_buff, key, iv, iv_length, tag_size, aad_size, user_data};   \
		return alloc_init(aes_gcm, DIR, &a, (struct sd_aes_gcm_task **)task, __func__);                        \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_task *doca_aes_gcm_task_##D##_as_task(struct doca_aes_gcm_task_##D *task)        \
	{                                                                                                              \
		return task == NULL ? NULL : &T(task)->base.task;                                                      \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_aes_gcm_task_##D##_set_src(struct doca_aes_gcm_task_##D *task,                     \
							       struct doca_buf const *src_buff)                        \
	{                                                                                                              \
		TASK_OR_RETURN(task, __func__);                                                                        \
		T(task)->src = src_buff;                                                                               \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_buf const *doca_aes_gcm_task_##D##_get_src(                                      \
		const struct doca_aes_gcm_task_##D *task)                                                              \
	{                                                                                                              \
		return task == NULL ? NULL : CT(task)->src;                                                            \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_aes_gcm_task_##D##_set_dst(struct doca_aes_gcm_task_##D *task,                     \
							       struct doca_buf *dst_buff)                              \
	{                                                                                                              \
		TASK_OR_RETURN(task, __func__);                                                                        \
		T(task)->dst = dst_buff;                                                                               \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_buf *doca_aes_gcm_task_##D##_get_dst(const struct doca_aes_gcm_task_##D *task)   \
	{                                                                                                              \
		return task == NULL ? NULL : CT(task)->dst;                                                            \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_aes_gcm_task_##D##_set_key(struct doca_aes_gcm_task_##D *task,                     \
							       struct doca_aes_gcm_key *key)                           \
	{                                                                                                              \
		TASK_OR_RETURN(task, __func__);                                                                        \
		T(task)->key = key;                                                                                    \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_aes_gcm_key *doca_aes_gcm_task_##D##_get_key(                                    \
		const struct doca_aes_gcm_task_##D *task)                                                              \
	{                                                                                                              \
		return task == NULL ? NULL : CT(task)->key;                                                            \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_aes_gcm_task_##D##_set_iv(struct doca_aes_gcm_task_##D *task, const uint8_t *iv,   \
							      uint32_t iv_length)                                      \
	{                                                                                                              \
		set_iv(T(task), iv, iv_length, __func__);                                                              \
	}                                                                                                              \
	DOCA_EXPERIMENTAL const uint8_t *doca_aes_gcm_task_##D##_get_iv(const struct doca_aes_gcm_task_##D *task,      \
									uint32_t *iv_length)                           \
	{                                                                                                              \
		return get_iv(CT(task), iv_length);                                                                    \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_aes_gcm_task_##D##_set_tag_size(struct doca_aes_gcm_task_##D *task,                \
								    uint32_t tag_size)                                 \
	{                                                                                                              \
		TASK_OR_RETURN(task, __func__);                                                                        \
		T(task)->tag_size = tag_size;                                                                          \
	}                                                                                                              \
	DOCA_EXPERIMENTAL uint32_t doca_aes_gcm_task_##D##_get_tag_size(const struct doca_aes_gcm_task_##D *task)      \
	{                                                                                                              \
		return task == NULL ? 0 : CT(task)->tag_size;                                                          \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_aes_gcm_task_##D##_set_aad_size(struct doca_aes_gcm_task_##D *task,                \
								    uint32_t aad_size)                                 \
	{                                                                                                              \
		TASK_OR_RETURN(task, __func__);                                                                        \
		T(task)->aad_size = aad_size;                                                                          \
	}                                                                                                              \
	DOCA_EXPERIMENTAL uint32_t doca_aes_gcm_task_##D##_get_aad_size(const struct doca_aes_gcm_task_##D *task)      \
	{                                                                                                              \
		return task == NULL ? 0 : CT(task)->aad_size;                                                          \
	}

AES_GCM_TASK_API(encrypt, SD_AES_GCM_ENCRYPT)
AES_GCM_TASK_API(decrypt, SD_AES_GCM_DECRYPT)
