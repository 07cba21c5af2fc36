/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Compress: a context whose tasks compress and decompress buffers.
 *
 * Object model
 *   struct doca_compress                            a context on one device; it is a
 *                                                   struct doca_ctx (doca_compress_as_ctx)
 *                                                   and goes IDLE -> RUNNING directly on
 *                                                   doca_ctx_start().
 *   struct doca_compress_task_compress_deflate      source -> raw DEFLATE stream
 *   struct doca_compress_task_decompress_deflate    raw DEFLATE stream -> data
 *   struct doca_compress_task_decompress_lz4_stream the data blocks of an LZ4 frame -> data
 *   struct doca_compress_task_decompress_lz4_block  one LZ4 block -> data
 *   Each task is a struct doca_task (doca_compress_task_<family>_as_task); submit, free,
 *   status and user data go through doca_pe.h.
 *
 * Call order
 *   doca_compress_cap_task_<family>_is_supported(devinfo)         pick a device
 *   doca_compress_create(dev, &compress)
 *   doca_compress_task_<family>_set_conf(compress, ok_cb, err_cb, n)   while IDLE, per family used
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx)
 *   doca_compress_task_<family>_alloc_init(compress, ..., src, dst, user_data, &task)   RUNNING
 *   doca_task_submit(...); doca_pe_progress(pe) runs ok_cb or err_cb
 *   doca_task_free(...); doca_ctx_stop(ctx); doca_compress_destroy(compress)
 *
 * Formats
 *   DEFLATE is raw (RFC 1951): no zlib or gzip header or trailer.  A program that wants
 *   the zlib format adds the 2-byte header and the big-endian Adler-32 trailer itself.
 *   The LZ4 stream task takes what follows an LZ4 frame's header (the LZ4 frame format):
 *   blocks, each a 4-byte little-endian size (bit 31 set: the block is stored
 *   uncompressed), its data and, when has_block_checksum, a 4-byte checksum of the
 *   data; are_blocks_independent 0 lets a block refer to the 64 KiB of output before
 *   it.  No magic, frame descriptor or content checksum (a last zero size word, the
 *   frame's end mark, is accepted).  The LZ4 block task takes one block's data alone.
 *
 * Data placement
 *   The input is the concatenation of the source list's data windows.  Output is
 *   written at data + data_len of the destination segments, in order, and each
 *   segment's data_len grows by what it received; nothing is written beyond a segment's
 *   end.  Output that does not fit fails the task.
 *
 * Checksums
 *   Valid after a successful completion only.  CRC-32 and Adler-32 are those of zlib
 *   (crc32(0, ...), adler32(1, ...)) over the uncompressed data: the compress task's
 *   source, the decompress tasks' output.  The LZ4 tasks' xxHash is XXH32 (seed 0) of
 *   the output in the byte order an LZ4 frame's content checksum compares with after
 *   htobe32() on a little-endian host.  Every task computes them as it runs;
 *   SOFTDOCA_COMPRESS_CHECKSUMS=lazy defers a decompress task's to their first read, from
 *   the output still in the destination (docs/compress.md).
 *
 * Completion
 *   Every submitted task completes exactly once, inside doca_pe_progress(), in
 *   submission order, through the success or the error callback of its family.  A task
 *   that fails stops the context (the tasks behind it are flushed).  doca_task_submit()
 *   refuses only a task without a source or destination; doca_task_try_submit()
 *   checks the whole task first and returns the code instead of submitting.
 */
#ifndef DOCA_COMPRESS_H_
#define DOCA_COMPRESS_H_

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

/* Opaque compress context. */
struct doca_compress;
/* Opaque tasks, one type per family. */
struct doca_compress_task_compress_deflate;
struct doca_compress_task_decompress_deflate;
struct doca_compress_task_decompress_lz4_stream;
struct doca_compress_task_decompress_lz4_block;

/*
 * Completion callbacks: one type per family, used for both the completion and the
 * error callback.  task_user_data is the task's user data, ctx_user_data the
 * context's (doca_ctx_set_user_data).
 */
typedef void (*doca_compress_task_compress_deflate_completion_cb_t)(struct doca_compress_task_compress_deflate *task,
								    union doca_data task_user_data,
								    union doca_data ctx_user_data);
typedef void (*doca_compress_task_decompress_deflate_completion_cb_t)(
	struct doca_compress_task_decompress_deflate *task, union doca_data task_user_data,
	union doca_data ctx_user_data);
typedef void (*doca_compress_task_decompress_lz4_stream_completion_cb_t)(
	struct doca_compress_task_decompress_lz4_stream *task, union doca_data task_user_data,
	union doca_data ctx_user_data);
typedef void (*doca_compress_task_decompress_lz4_block_completion_cb_t)(
	struct doca_compress_task_decompress_lz4_block *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

/* ---- context ------------------------------------------------------------------------ */

/*
 * Create a compress context on dev.
 * Returns SUCCESS; INVALID_VALUE for NULL arguments; NOT_SUPPORTED if the device has no
 * compress engine (no task family is supported); NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_create(struct doca_dev *dev, struct doca_compress **compress);

/*
 * Destroy a compress context and its task pools.  The context must be IDLE.
 * Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE if the context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_destroy(struct doca_compress *compress);

/* The generic context of a compress context (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_compress_as_ctx(struct doca_compress *compress);

/*
 * The most tasks the context may hold: the num_tasks of every family's set_conf added
 * together must not exceed it.
 * Returns SUCCESS; INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_get_max_num_tasks(struct doca_compress *compress,
								   uint32_t *max_num_tasks);

/* ---- capabilities: per family --------------------------------------------------------
 * is_supported: SUCCESS if the device runs the family; NOT_SUPPORTED if not; INVALID_VALUE
 * for NULL.  get_max_buf_size: the largest source, and the most output, of one task in
 * bytes (summed over a list); NOT_SUPPORTED when the family is not supported.
 * get_max_buf_list_len: the most segments of a source or destination list.  Both:
 * INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_compress_deflate_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_compress_deflate_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_compress_deflate_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_decompress_deflate_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_deflate_get_max_buf_size(
	const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_deflate_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_decompress_lz4_stream_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size(
	const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_task_decompress_lz4_block_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_block_get_max_buf_size(
	const struct doca_devinfo *devinfo, uint64_t *max_buffer_size);
DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len(
	const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len);

/* ---- tasks: what every family has ------------------------------------------------------
 * set_conf: enable the family and size its pool, only while the context is IDLE.
 *   Returns SUCCESS; INVALID_VALUE for NULL compress or callbacks, num_tasks 0 or more than
 *   doca_compress_cap_get_max_num_tasks() leaves with the other families' pools;
 *   NOT_SUPPORTED if the device does not run the family; BAD_STATE if the context is not
 *   IDLE or tasks of the previous configuration are still allocated.
 * alloc_init: take a task from the family's pool, only while the context is RUNNING.
 *   src and dst may be NULL and set later (set_src/set_dst) before submitting.
 *   Returns SUCCESS; INVALID_VALUE for NULL compress or task; BAD_STATE if the family is
 *   not configured or the context is not RUNNING; NO_MEMORY when every task is allocated.
 * as_task: the generic task (NULL for NULL).  set_src/set_dst: replace a buffer (list head)
 *   of a task that is not in flight.  get_src/get_dst: the buffers (NULL for NULL).
 */

/* compress deflate */
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_compress_deflate_set_conf(
	struct doca_compress *compress, doca_compress_task_compress_deflate_completion_cb_t task_completion_cb,
	doca_compress_task_compress_deflate_completion_cb_t task_error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_compress_deflate_alloc_init(
	struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
	union doca_data user_data, struct doca_compress_task_compress_deflate **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_compress_deflate_as_task(struct doca_compress_task_compress_deflate *task);
DOCA_EXPERIMENTAL void doca_compress_task_compress_deflate_set_src(struct doca_compress_task_compress_deflate *task,
								   struct doca_buf const *src_buff);
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_compress_deflate_get_src(const struct doca_compress_task_compress_deflate *task);
DOCA_EXPERIMENTAL void doca_compress_task_compress_deflate_set_dst(struct doca_compress_task_compress_deflate *task,
								   struct doca_buf *dst_buff);
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_compress_deflate_get_dst(const struct doca_compress_task_compress_deflate *task);
/* CRC-32 / Adler-32 of the source (after a successful completion). */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_compress_deflate_get_crc_cs(const struct doca_compress_task_compress_deflate *task);
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_compress_deflate_get_adler_cs(const struct doca_compress_task_compress_deflate *task);

/* decompress deflate */
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_deflate_set_conf(
	struct doca_compress *compress, doca_compress_task_decompress_deflate_completion_cb_t task_completion_cb,
	doca_compress_task_decompress_deflate_completion_cb_t task_error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_deflate_alloc_init(
	struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
	union doca_data user_data, struct doca_compress_task_decompress_deflate **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_decompress_deflate_as_task(struct doca_compress_task_decompress_deflate *task);
DOCA_EXPERIMENTAL void doca_compress_task_decompress_deflate_set_src(struct doca_compress_task_decompress_deflate *task,
								     struct doca_buf const *src_buff);
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_decompress_deflate_get_src(const struct doca_compress_task_decompress_deflate *task);
DOCA_EXPERIMENTAL void doca_compress_task_decompress_deflate_set_dst(struct doca_compress_task_decompress_deflate *task,
								     struct doca_buf *dst_buff);
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_decompress_deflate_get_dst(const struct doca_compress_task_decompress_deflate *task);
/* CRC-32 / Adler-32 of the output (after a successful completion). */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_deflate_get_crc_cs(const struct doca_compress_task_decompress_deflate *task);
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_deflate_get_adler_cs(const struct doca_compress_task_decompress_deflate *task);

/* decompress LZ4 stream: the two flags say how the blocks are laid out (Formats above). */
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_lz4_stream_set_conf(
	struct doca_compress *compress, doca_compress_task_decompress_lz4_stream_completion_cb_t task_completion_cb,
	doca_compress_task_decompress_lz4_stream_completion_cb_t task_error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_lz4_stream_alloc_init(
	struct doca_compress *compress, uint8_t has_block_checksum, uint8_t are_blocks_independent,
	struct doca_buf const *src_buff, struct doca_buf *dst_buff, union doca_data user_data,
	struct doca_compress_task_decompress_lz4_stream **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_decompress_lz4_stream_as_task(struct doca_compress_task_decompress_lz4_stream *task);
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_stream_set_has_block_checksum(struct doca_compress_task_decompress_lz4_stream *task,
								uint8_t has_block_checksum);
DOCA_EXPERIMENTAL uint8_t doca_compress_task_decompress_lz4_stream_get_has_block_checksum(
	const struct doca_compress_task_decompress_lz4_stream *task);
DOCA_EXPERIMENTAL void doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(
	struct doca_compress_task_decompress_lz4_stream *task, uint8_t are_blocks_independent);
DOCA_EXPERIMENTAL uint8_t doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(
	const struct doca_compress_task_decompress_lz4_stream *task);
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_stream_set_src(struct doca_compress_task_decompress_lz4_stream *task,
						 struct doca_buf const *src_buff);
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_decompress_lz4_stream_get_src(const struct doca_compress_task_decompress_lz4_stream *task);
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_stream_set_dst(struct doca_compress_task_decompress_lz4_stream *task,
						 struct doca_buf *dst_buff);
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_decompress_lz4_stream_get_dst(const struct doca_compress_task_decompress_lz4_stream *task);
/* CRC-32 / xxHash-32 (byte order: Checksums above) of the output. */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_stream_get_crc_cs(const struct doca_compress_task_decompress_lz4_stream *task);
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_stream_get_xxh_cs(const struct doca_compress_task_decompress_lz4_stream *task);

/* decompress LZ4 block */
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_lz4_block_set_conf(
	struct doca_compress *compress, doca_compress_task_decompress_lz4_block_completion_cb_t task_completion_cb,
	doca_compress_task_decompress_lz4_block_completion_cb_t task_error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_compress_task_decompress_lz4_block_alloc_init(
	struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
	union doca_data user_data, struct doca_compress_task_decompress_lz4_block **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_compress_task_decompress_lz4_block_as_task(struct doca_compress_task_decompress_lz4_block *task);
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_block_set_src(struct doca_compress_task_decompress_lz4_block *task,
						struct doca_buf const *src_buff);
DOCA_EXPERIMENTAL struct doca_buf const *
doca_compress_task_decompress_lz4_block_get_src(const struct doca_compress_task_decompress_lz4_block *task);
DOCA_EXPERIMENTAL void
doca_compress_task_decompress_lz4_block_set_dst(struct doca_compress_task_decompress_lz4_block *task,
						struct doca_buf *dst_buff);
DOCA_EXPERIMENTAL struct doca_buf *
doca_compress_task_decompress_lz4_block_get_dst(const struct doca_compress_task_decompress_lz4_block *task);
/* CRC-32 / xxHash-32 (byte order: Checksums above) of the output. */
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_block_get_crc_cs(const struct doca_compress_task_decompress_lz4_block *task);
DOCA_EXPERIMENTAL uint32_t
doca_compress_task_decompress_lz4_block_get_xxh_cs(const struct doca_compress_task_decompress_lz4_block *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMPRESS_H_ */
