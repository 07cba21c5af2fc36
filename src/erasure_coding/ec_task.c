/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The four task families of DOCA Erasure Coding.  They differ only in names:
 * each applies its matrix to the blocks of its source and appends the product
 * blocks to its destination (recover is a matrix apply like the others, so a
 * coding matrix given to a recover task works, as DOCA's storage application
 * relies on).  The check is what hardware refuses before it runs a task
 * (buffers, list length, block geometry, room), the run is one
 * ec_encode_data() of ISA-L over the task's blocks.
 *
 * A task is not split across workers: several tasks in flight run on several
 * workers (Core's engine pool), each task on one.
 */
#include <limits.h>

#include <isa-l/erasure_code.h>

#include "ec_internal.h"

SD_LOG_REGISTER(erasure_coding.task);

/* No DOCA call reports a task limit for this context: ample for any pool. */
#define EC_MAX_TASKS (1u << 16)

/* ISA-L takes the block length as an int: the largest multiple of 64 that fits. */
#define EC_ISAL_MAX_BLOCK ((uint64_t)(INT_MAX & ~(int)(SD_EC_BLOCK_ALIGN - 1)))

/* Why a task cannot run: Core's buffer and engine faults, then the library's (refusal.h). */
enum refusal {
	OK = SD_BUF_OK,
	NO_ROOM = SD_BUF_NO_ROOM, /* a: bytes the output needs, b: room, c: output blocks */
	NO_MATRIX = SD_ACCEL_NUM_FAULTS,
	NO_SRC,
	NO_DST,
	FOREIGN_MATRIX,
	LIST_TOO_LONG, /* a: source segments, b: the limit, c: destination segments */
	SRC_EMPTY,
	NOT_WHOLE,     /* a: source bytes, b: blocks in */
	NOT_ALIGNED,   /* a: source bytes, b: blocks in */
	BLOCK_TOO_BIG, /* a: block size, b: the limit */
	BOUNCE_NO_MEMORY,
	NUM_REFUSALS,
};

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}

/* Indexed by reason; statuses per docs/erasure_coding.md "Failures". */
static const struct sd_refusal ec_refusals[NUM_REFUSALS] = {
	SD_ACCEL_REFUSAL_ROWS,
	/* dst too small: DOCA's code for "does not fit" (doca-accel.md §9 item 6) */
	[NO_ROOM] = ROW(DOCA_ERROR_TOO_BIG,
			"{api}: {task} task's destination has room for {b} bytes after data + data_len; its {c} "
			"output blocks need {a}: use a larger buffer or reset its data_len (doca_buf_reset_data_len)"),
	[NO_MATRIX] = ROW(DOCA_ERROR_INVALID_VALUE,
			  "{api}: {task} task has no matrix; give it one at doca_ec_task_{task}_allocate_init() or "
			  "with the task's matrix setter"),
	[NO_SRC] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no source buffer; give it one at doca_ec_task_{task}_allocate_init() "
		       "or with the task's source setter"),
	[NO_DST] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no destination buffer; give it one at "
		       "doca_ec_task_{task}_allocate_init() or with the task's destination setter"),
	[FOREIGN_MATRIX] = ROW(DOCA_ERROR_INVALID_VALUE,
			       "{api}: {task} task's matrix was made on another erasure coding context (or on one "
			       "since destroyed); make the matrix on the context of the task"),
	[LIST_TOO_LONG] = ROW(DOCA_ERROR_INVALID_VALUE,
			      "{api}: {task} task's {a} source + {c} destination segments exceed max_buf_list_len "
			      "{b}; chain fewer buffers (doca_ec_cap_get_max_buf_list_len)"),
	[SRC_EMPTY] = ROW(DOCA_ERROR_INVALID_VALUE,
			  "{api}: {task} task's source holds no data (data_len 0); set its data window with "
			  "doca_buf_set_data() or take it with doca_buf_inventory_buf_get_by_data()"),
	[NOT_WHOLE] = ROW(DOCA_ERROR_INVALID_VALUE,
			  "{api}: {task} task's source holds {a} bytes, not {b} blocks of one size (the matrix takes "
			  "{b} blocks in); give the source {b} blocks back to back"),
	[NOT_ALIGNED] = ROW(DOCA_ERROR_INVALID_VALUE,
			    "{api}: {task} task's {b} blocks in {a} source bytes are not a multiple of 64 bytes each; "
			    "block sizes must be multiples of 64 (at least 64): pad every block with zeros"),
	[BLOCK_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
			      "{api}: {task} task's block size {a} exceeds max_block_size {b}; use more, smaller "
			      "blocks (doca_ec_cap_get_max_block_size)"),
	[BOUNCE_NO_MEMORY] =
		ROW(DOCA_ERROR_NO_MEMORY, "{api}: {task} task: no memory to gather its chained {what} list; use fewer "
					  "segments or free memory"),
};

/* Reasons submit returns (the submitter keeps the task): nothing to report a fault against. */
#define EC_KEEP_MASK ((1ull << NO_MATRIX) | (1ull << NO_SRC) | (1ull << NO_DST) | (1ull << FOREIGN_MATRIX))

static inline uint32_t
count_segs(const struct doca_buf *list)
{
	uint32_t n = 0;

	for (; list != NULL; list = sd_buf_next(list))
		n++;
	return n;
}

/* The block geometry of t's source, set in t->block. */
static bool
check_geometry(struct sd_ec_task *t, const struct doca_ec *ec, struct sd_buf_verdict *v)
{
	uint64_t bytes = sd_accel_list_data_len(t->src), max = SD_MIN(ec->caps->ec_max_block_size, EC_ISAL_MAX_BLOCK);
	uint32_t in = t->matrix->in;

	switch (sd_ec_block_size(bytes, in, max, &t->block)) {
	case SD_EC_GEOMETRY_OK:
		return true;
	case SD_EC_GEOMETRY_EMPTY:
		return sd_buf_refuse(v, SRC_EMPTY, "source", 0, 0, 0);
	case SD_EC_GEOMETRY_NOT_WHOLE:
		return sd_buf_refuse(v, NOT_WHOLE, "source", bytes, in, 0);
	case SD_EC_GEOMETRY_NOT_ALIGNED:
		return sd_buf_refuse(v, NOT_ALIGNED, "source", bytes, in, 0);
	default:
		return sd_buf_refuse(v, BLOCK_TOO_BIG, "source", bytes / in, max, 0);
	}
}

static bool
ec_check(struct sd_accel_task *base, struct sd_buf_verdict *v)
{
	struct sd_ec_task *t = (struct sd_ec_task *)base;
	const struct doca_ec *ec = sd_ec_from_accel(base->accel);
	uint32_t nsrc, ndst, limit = ec->caps->ec_max_buf_list_len;
	uint64_t need, room;

	if (sd_unlikely(t->matrix == NULL))
		return sd_buf_refuse(v, NO_MATRIX, NULL, 0, 0, 0);
	if (sd_unlikely(t->src == NULL))
		return sd_buf_refuse(v, NO_SRC, "source", 0, 0, 0);
	if (sd_unlikely(t->dst == NULL))
		return sd_buf_refuse(v, NO_DST, "destination", 0, 0, 0);
	if (sd_unlikely(t->matrix->ec != ec))
		return sd_buf_refuse(v, FOREIGN_MATRIX, NULL, 0, 0, 0);
	nsrc = count_segs(t->src);
	ndst = count_segs(t->dst);
	if (sd_unlikely((uint64_t)nsrc + ndst > limit))
		return sd_buf_refuse(v, LIST_TOO_LONG, NULL, nsrc, limit, ndst);
	if (!sd_accel_check_list(&ec->accel, t->src, false, UINT32_MAX, "source", v) ||
	    !sd_accel_check_list(&ec->accel, t->dst, true, UINT32_MAX, "destination", v) || !check_geometry(t, ec, v))
		return false;
	need = t->block * t->matrix->out;
	room = sd_accel_list_tail_room(t->dst);
	if (sd_unlikely(need > room))
		return sd_buf_refuse(v, NO_ROOM, "destination", need, room, t->matrix->out);
	return true;
}

/* Any thread: out = matrix x in, block by block, with ISA-L. */
static bool
ec_run(struct sd_accel_task *base, struct sd_buf_verdict *v)
{
	struct sd_ec_task *t = (struct sd_ec_task *)base;
	const struct doca_ec_matrix *mat = t->matrix;
	unsigned char *in[SD_EC_MAX_IN], *out[SD_EC_MAX_RDNC];
	uint64_t need = t->block * mat->out;
	struct sd_accel_src s;
	struct sd_accel_dst d;

	if (!sd_accel_src_open(&s, t->src))
		return sd_buf_refuse(v, BOUNCE_NO_MEMORY, "source", 0, 0, 0);
	if (!sd_accel_dst_open(&d, t->dst)) {
		sd_accel_src_close(&s);
		return sd_buf_refuse(v, BOUNCE_NO_MEMORY, "destination", 0, 0, 0);
	}
	/* The buffers were checked at submit; a window changed since then fails rather than overruns. */
	if (sd_unlikely(s.len != t->block * mat->in || d.cap < need)) {
		sd_accel_dst_close(&d);
		sd_accel_src_close(&s);
		return d.cap < need ? sd_buf_refuse(v, NO_ROOM, "destination", need, d.cap, mat->out)
				    : sd_buf_refuse(v, NOT_WHOLE, "source", s.len, mat->in, 0);
	}
	for (uint32_t c = 0; c < mat->in; c++)
		in[c] = (unsigned char *)(uintptr_t)(s.p + c * t->block);
	for (uint32_t r = 0; r < mat->out; r++)
		out[r] = d.p + r * t->block;
	ec_encode_data((int)t->block, (int)mat->in, (int)mat->out, mat->tables, in, out);
	sd_accel_dst_commit(&d, need);
	sd_accel_src_close(&s);
	return true;
}

/* Bytes read: the source (valid after a successful check). */
static uint64_t
ec_cost(const struct sd_accel_task *base)
{
	const struct sd_ec_task *t = (const struct sd_ec_task *)base;

	return t->block * t->matrix->in;
}

#define EC_KIND(fam, label)                                                                                            \
	[fam] = {.name = label,                                                                                        \
		 .refusals = ec_refusals,                                                                              \
		 .keep_mask = EC_KEEP_MASK,                                                                            \
		 .check = ec_check,                                                                                    \
		 .run = ec_run,                                                                                        \
		 .cost = ec_cost}

const struct sd_accel_kind sd_ec_kinds[SD_EC_NUM_FAMILIES] = {
	EC_KIND(SD_EC_GALOIS_MUL, "galois_mul"),
	EC_KIND(SD_EC_CREATE, "create"),
	EC_KIND(SD_EC_UPDATE, "update"),
	EC_KIND(SD_EC_RECOVER, "recover"),
};

bool
sd_ec_matrix_in_flight(const struct doca_ec *ec, const struct doca_ec_matrix *matrix)
{
	const struct sd_list *pos;

	sd_list_for_each(pos, &ec->accel.order)
	{
		const struct sd_ec_task *t = (const struct sd_ec_task *)sd_task_from_link((struct sd_list *)pos);

		if (t->matrix == matrix)
			return true;
	}
	return false;
}

/* --- the families' API ---------------------------------------------------------------- */

static doca_error_t
family_set_conf(struct doca_ec *ec, enum sd_ec_family fam, doca_task_completion_cb_t ok_cb,
		doca_task_completion_cb_t err_cb, uint32_t num_tasks, const char *api)
{
	if (ec == NULL) {
		DOCA_LOG_ERR("%s: ec is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE unless IDLE, INVALID_VALUE for a NULL callback or num_tasks out of range (logged by Core). */
	return sd_task_pool_configure(&ec->accel.ctx, &ec->pools[fam], sd_ec_kinds[fam].name, sizeof(struct sd_ec_task),
				      num_tasks, EC_MAX_TASKS, ok_cb, err_cb, api);
}

static doca_error_t
family_alloc(struct doca_ec *ec, enum sd_ec_family fam, const struct doca_ec_matrix *matrix, const struct doca_buf *src,
	     struct doca_buf *dst, union doca_data user_data, void **task, const char *api)
{
	struct sd_ec_task *t;
	struct doca_task *base;
	doca_error_t err;

	if (ec == NULL || task == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (ec %p, task %p)", api, (void *)ec, (void *)task);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&ec->accel.ctx) != DOCA_CTX_STATE_RUNNING) {
		DOCA_LOG_ERR("%s: the erasure coding context is not RUNNING; allocate tasks after doca_ctx_start()",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	err = sd_task_alloc(ec->pools[fam], user_data, api, &base);
	if (err != DOCA_SUCCESS)
		return err;
	t = (struct sd_ec_task *)base;
	sd_accel_task_init(&t->base, &ec->accel, &sd_ec_kinds[fam]);
	t->matrix = matrix;
	t->src = src;
	t->dst = dst;
	t->block = 0;
	*task = t;
	return DOCA_SUCCESS;
}

/*
 * One family's calls: T its name, FAM its enum, MAT / SRC / DST_SET the names of
 * its matrix, source and destination setters, DST_GET its destination getter.
 */
#define EC_FAMILY_API(T, FAM, MAT, SRC, DST_SET, DST_GET)                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_ec_task_##T##_set_conf(                                                    \
		struct doca_ec *ec, doca_ec_task_##T##_completion_cb_t ok_cb,                                          \
		doca_ec_task_##T##_completion_cb_t err_cb, uint32_t num_tasks)                                         \
	{                                                                                                              \
		return family_set_conf(ec, FAM, SD_TASK_CB(ok_cb), SD_TASK_CB(err_cb), num_tasks, __func__);           \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_ec_task_##T##_allocate_init(                                               \
		struct doca_ec *ec, const struct doca_ec_matrix *matrix, const struct doca_buf *src,                   \
		struct doca_buf *dst, union doca_data user_data, struct doca_ec_task_##T **task)                       \
	{                                                                                                              \
		return family_alloc(ec, FAM, matrix, src, dst, user_data, (void **)task, __func__);                    \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_task *doca_ec_task_##T##_as_task(struct doca_ec_task_##T *task)                  \
	{                                                                                                              \
		return task == NULL ? NULL : &((struct sd_ec_task *)(void *)task)->base.task;                          \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_ec_task_##T##_set_##MAT(struct doca_ec_task_##T *task,                             \
							    const struct doca_ec_matrix *matrix)                       \
	{                                                                                                              \
		if (task != NULL)                                                                                      \
			((struct sd_ec_task *)(void *)task)->matrix = matrix;                                          \
	}                                                                                                              \
	DOCA_EXPERIMENTAL const struct doca_ec_matrix *doca_ec_task_##T##_get_##MAT(                                   \
		const struct doca_ec_task_##T *task)                                                                   \
	{                                                                                                              \
		return task == NULL ? NULL : ((const struct sd_ec_task *)(const void *)task)->matrix;                  \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_ec_task_##T##_set_##SRC(struct doca_ec_task_##T *task, const struct doca_buf *src) \
	{                                                                                                              \
		if (task != NULL)                                                                                      \
			((struct sd_ec_task *)(void *)task)->src = src;                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL const struct doca_buf *doca_ec_task_##T##_get_##SRC(const struct doca_ec_task_##T *task)     \
	{                                                                                                              \
		return task == NULL ? NULL : ((const struct sd_ec_task *)(const void *)task)->src;                     \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_ec_task_##T##_set_##DST_SET(struct doca_ec_task_##T *task, struct doca_buf *dst)   \
	{                                                                                                              \
		if (task != NULL)                                                                                      \
			((struct sd_ec_task *)(void *)task)->dst = dst;                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_buf *doca_ec_task_##T##_get_##DST_GET(const struct doca_ec_task_##T *task)       \
	{                                                                                                              \
		return task == NULL ? NULL : ((const struct sd_ec_task *)(const void *)task)->dst;                     \
	}

EC_FAMILY_API(galois_mul, SD_EC_GALOIS_MUL, coding_matrix, src_buf, dst_buf, dst_buf)
EC_FAMILY_API(create, SD_EC_CREATE, coding_matrix, original_data_blocks, rdnc_blocks, rdnc_blocks)
EC_FAMILY_API(update, SD_EC_UPDATE, update_matrix, original_updated_and_rdnc_blocks, updated_rdnc_blocks,
	      updated_rdnc_blocks)
EC_FAMILY_API(recover, SD_EC_RECOVER, recover_matrix, available_blocks, recovered_data_blocks, recovered_data)
