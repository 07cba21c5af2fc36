/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The public task calls of the four families (doca_compress.h): one set per
 * family, generated from one definition so the families cannot drift apart;
 * the work behind them is compress.c (set_conf, alloc_init) and
 * compress_task.c (check, run).
 */
#include "compress_internal.h"

SD_LOG_REGISTER(compress.task);

/* The public task types: the family's task, nothing more. */
struct doca_compress_task_compress_deflate {
	struct sd_compress_task t;
};
struct doca_compress_task_decompress_deflate {
	struct sd_compress_task t;
};
struct doca_compress_task_decompress_lz4_stream {
	struct sd_compress_task t;
};
struct doca_compress_task_decompress_lz4_block {
	struct sd_compress_task t;
};

/* A setter given NULL: nothing to set, said once per call. */
static void
null_task(const char *api)
{
	DOCA_LOG_ERR("%s: task is NULL", api);
}

/* set_conf, as_task, the buffers and the CRC of family fam. */
#define SD_COMPRESS_TASK_CALLS(fam, family)                                                                            \
	DOCA_EXPERIMENTAL doca_error_t doca_compress_task_##fam##_set_conf(                                            \
		struct doca_compress *compress, doca_compress_task_##fam##_completion_cb_t task_completion_cb,         \
		doca_compress_task_##fam##_completion_cb_t task_error_cb, uint32_t num_tasks)                          \
	{                                                                                                              \
		return sd_compress_set_conf(compress, family, SD_TASK_CB(task_completion_cb),                          \
					    SD_TASK_CB(task_error_cb), num_tasks,                                      \
					    "doca_compress_task_" #fam "_set_conf");                                   \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_task *doca_compress_task_##fam##_as_task(struct doca_compress_task_##fam *task)  \
	{                                                                                                              \
		return task == NULL ? NULL : &task->t.base.task;                                                       \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_compress_task_##fam##_set_src(struct doca_compress_task_##fam *task,               \
								  struct doca_buf const *src_buff)                     \
	{                                                                                                              \
		if (task == NULL)                                                                                      \
			null_task("doca_compress_task_" #fam "_set_src");                                              \
		else                                                                                                   \
			task->t.src = src_buff;                                                                        \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_buf const *doca_compress_task_##fam##_get_src(                                   \
		const struct doca_compress_task_##fam *task)                                                           \
	{                                                                                                              \
		return task == NULL ? NULL : task->t.src;                                                              \
	}                                                                                                              \
	DOCA_EXPERIMENTAL void doca_compress_task_##fam##_set_dst(struct doca_compress_task_##fam *task,               \
								  struct doca_buf *dst_buff)                           \
	{                                                                                                              \
		if (task == NULL)                                                                                      \
			null_task("doca_compress_task_" #fam "_set_dst");                                              \
		else                                                                                                   \
			task->t.dst = dst_buff;                                                                        \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_buf *doca_compress_task_##fam##_get_dst(                                         \
		const struct doca_compress_task_##fam *task)                                                           \
	{                                                                                                              \
		return task == NULL ? NULL : task->t.dst;                                                              \
	}                                                                                                              \
	DOCA_EXPERIMENTAL uint32_t doca_compress_task_##fam##_get_crc_cs(const struct doca_compress_task_##fam *task)  \
	{                                                                                                              \
		return task == NULL ? 0 : sd_compress_task_crc((struct sd_compress_task *)&task->t);                   \
	}

/* alloc_init of a family whose tasks have only buffers. */
#define SD_COMPRESS_TASK_ALLOC(fam, family)                                                                            \
	DOCA_EXPERIMENTAL doca_error_t doca_compress_task_##fam##_alloc_init(                                          \
		struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,            \
		union doca_data user_data, struct doca_compress_task_##fam **task)                                     \
	{                                                                                                              \
		return sd_compress_alloc(compress, family, src_buff, dst_buff, user_data,                              \
					 "doca_compress_task_" #fam "_alloc_init", (struct sd_compress_task **)task);  \
	}

/* The second checksum: Adler-32 (deflate) or xxHash (LZ4). */
#define SD_COMPRESS_TASK_CHECKSUM(fam, name)                                                                           \
	DOCA_EXPERIMENTAL uint32_t doca_compress_task_##fam##_get_##name##_cs(                                         \
		const struct doca_compress_task_##fam *task)                                                           \
	{                                                                                                              \
		return task == NULL ? 0 : sd_compress_task_second((struct sd_compress_task *)&task->t);                \
	}

SD_COMPRESS_TASK_CALLS(compress_deflate, SD_COMPRESS_DEFLATE)
SD_COMPRESS_TASK_ALLOC(compress_deflate, SD_COMPRESS_DEFLATE)
SD_COMPRESS_TASK_CHECKSUM(compress_deflate, adler)

SD_COMPRESS_TASK_CALLS(decompress_deflate, SD_DECOMPRESS_DEFLATE)
SD_COMPRESS_TASK_ALLOC(decompress_deflate, SD_DECOMPRESS_DEFLATE)
SD_COMPRESS_TASK_CHECKSUM(decompress_deflate, adler)

SD_COMPRESS_TASK_CALLS(decompress_lz4_block, SD_DECOMPRESS_LZ4_BLOCK)
SD_COMPRESS_TASK_ALLOC(decompress_lz4_block, SD_DECOMPRESS_LZ4_BLOCK)
SD_COMPRESS_TASK_CHECKSUM(decompress_lz4_block, xxh)

SD_COMPRESS_TASK_CALLS(decompress_lz4_stream, SD_DECOMPRESS_LZ4_STREAM)
SD_COMPRESS_TASK_CHECKSUM(decompress_lz4_stream, xxh)

/* --- the LZ4 stream task's layout flags ------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_compress_task_decompress_lz4_stream_alloc_init(struct doca_compress *compress, uint8_t has_block_checksum,
						    uint8_t are_blocks_independent, struct doca_buf const *src_buff,
						    struct doca_buf *dst_buff, union doca_data user_data,
						    struct doca_compress_task_decompress_lz4_stream **task)
{
	struct sd_compress_task *t;
	doca_error_t err;

	err = sd_compress_alloc(compress, SD_DECOMPRESS_LZ4_STREAM, src_buff, dst_buff, user_data,
				"doca_compress_task_decompress_lz4_stream_alloc_init", task == NULL ? NULL : &t);
	if (err != DOCA_SUCCESS)
		return err;
	t->layout.has_block_checksum = has_block_checksum != 0;
	t->layout.blocks_independent = are_blocks_independent != 0;
	*task = (struct doca_compress_task_decompress_lz4_stream *)t;
	return DOCA_SUCCESS;
}

/* A layout flag's setter and getter: the DOCA name and the layout field. */
#define SD_COMPRESS_LZ4_FLAG(name, field)                                                                              \
	DOCA_EXPERIMENTAL void doca_compress_task_decompress_lz4_stream_set_##name(                                    \
		struct doca_compress_task_decompress_lz4_stream *task, uint8_t name)                                   \
	{                                                                                                              \
		if (task == NULL)                                                                                      \
			null_task("doca_compress_task_decompress_lz4_stream_set_" #name);                              \
		else                                                                                                   \
			task->t.layout.field = name != 0;                                                              \
	}                                                                                                              \
	DOCA_EXPERIMENTAL uint8_t doca_compress_task_decompress_lz4_stream_get_##name(                                 \
		const struct doca_compress_task_decompress_lz4_stream *task)                                           \
	{                                                                                                              \
		return task != NULL && task->t.layout.field;                                                           \
	}

SD_COMPRESS_LZ4_FLAG(has_block_checksum, has_block_checksum)
SD_COMPRESS_LZ4_FLAG(are_blocks_independent, blocks_independent)
