/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File Compression's two ways of compressing: one DOCA Compress task on a
 * device (a context, a PE, two mmaps and two bufs for the task's life), and
 * zlib's raw DEFLATE for a client whose device has no compress engine.
 */
#include <string.h>
#include <time.h>

#include <zlib.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "file_compression_core.h"

DOCA_LOG_REGISTER(FILE_COMPRESSION::ENGINE);

/* The objects of one task; destroyed in reverse order by engine_close. */
struct engine {
	struct doca_pe *pe;
	struct doca_compress *compress;
	struct doca_ctx *ctx;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *src, *dst;
	bool done;
	doca_error_t status;
	uint64_t checksum;
};

static void
task_end(struct doca_task *task, struct engine *e, uint32_t crc, uint32_t adler)
{
	e->status = doca_task_get_status(task);
	e->checksum = (uint64_t)adler << 32 | crc;
	e->done = true;
	doca_task_free(task);
}

static void
deflate_cb(struct doca_compress_task_compress_deflate *t, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	task_end(doca_compress_task_compress_deflate_as_task(t), ctx_ud.ptr,
		 doca_compress_task_compress_deflate_get_crc_cs(t),
		 doca_compress_task_compress_deflate_get_adler_cs(t));
}

static void
inflate_cb(struct doca_compress_task_decompress_deflate *t, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	task_end(doca_compress_task_decompress_deflate_as_task(t), ctx_ud.ptr,
		 doca_compress_task_decompress_deflate_get_crc_cs(t),
		 doca_compress_task_decompress_deflate_get_adler_cs(t));
}

static doca_error_t
mapped(struct doca_dev *dev, void *addr, size_t len, struct doca_mmap **m)
{
	doca_error_t r = doca_mmap_create(m);

	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_memrange(*m, addr, len);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_permissions(*m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_add_dev(*m, dev);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_start(*m);
	return r;
}

static doca_error_t
engine_open(struct engine *e, struct doca_dev *dev, bool compress, uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
	union doca_data ud = {.ptr = e};
	doca_error_t r = doca_pe_create(&e->pe);

	if (r == DOCA_SUCCESS)
		r = doca_compress_create(dev, &e->compress);
	if (r != DOCA_SUCCESS)
		return r;
	e->ctx = doca_compress_as_ctx(e->compress);
	r = compress ? doca_compress_task_compress_deflate_set_conf(e->compress, deflate_cb, deflate_cb, 1)
		     : doca_compress_task_decompress_deflate_set_conf(e->compress, inflate_cb, inflate_cb, 1);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(e->ctx, ud);
	if (r == DOCA_SUCCESS)
		r = doca_pe_connect_ctx(e->pe, e->ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(e->ctx);
	if (r == DOCA_SUCCESS)
		r = mapped(dev, src, n, &e->src_mmap);
	if (r == DOCA_SUCCESS)
		r = mapped(dev, dst, cap, &e->dst_mmap);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_create(2, &e->inv);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_start(e->inv);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_buf_get_by_data(e->inv, e->src_mmap, src, n, &e->src);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_buf_get_by_addr(e->inv, e->dst_mmap, dst, cap, &e->dst);
	return r;
}

static void
engine_close(struct engine *e)
{
	if (e->dst != NULL)
		(void)doca_buf_dec_refcount(e->dst, NULL);
	if (e->src != NULL)
		(void)doca_buf_dec_refcount(e->src, NULL);
	if (e->inv != NULL)
		(void)doca_buf_inventory_destroy(e->inv);
	if (e->ctx != NULL) {
		/* After a failure the context stops by itself: progress it to IDLE. */
		(void)doca_ctx_stop(e->ctx);
		for (enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
		     doca_ctx_get_state(e->ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE;)
			(void)doca_pe_progress(e->pe);
	}
	if (e->dst_mmap != NULL)
		(void)doca_mmap_destroy(e->dst_mmap);
	if (e->src_mmap != NULL)
		(void)doca_mmap_destroy(e->src_mmap);
	if (e->compress != NULL)
		(void)doca_compress_destroy(e->compress);
	if (e->pe != NULL)
		(void)doca_pe_destroy(e->pe);
}

static doca_error_t
submit(struct engine *e, bool compress)
{
	union doca_data ud = {.u64 = 0};
	struct timespec ts = {0, 10 * 1000};
	struct doca_task *task = NULL;
	doca_error_t r;

	if (compress) {
		struct doca_compress_task_compress_deflate *t;

		r = doca_compress_task_compress_deflate_alloc_init(e->compress, e->src, e->dst, ud, &t);
		if (r == DOCA_SUCCESS)
			task = doca_compress_task_compress_deflate_as_task(t);
	} else {
		struct doca_compress_task_decompress_deflate *t;

		r = doca_compress_task_decompress_deflate_alloc_init(e->compress, e->src, e->dst, ud, &t);
		if (r == DOCA_SUCCESS)
			task = doca_compress_task_decompress_deflate_as_task(t);
	}
	if (r == DOCA_SUCCESS)
		r = doca_task_submit(task);
	if (r != DOCA_SUCCESS) {
		if (task != NULL)
			doca_task_free(task);
		return r;
	}
	while (!e->done)
		if (doca_pe_progress(e->pe) == 0)
			nanosleep(&ts, NULL);
	return e->status;
}

doca_error_t
fc_engine_run(struct doca_dev *dev, bool compress, uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out,
	      uint64_t *checksum)
{
	struct engine e;
	doca_error_t r;

	memset(&e, 0, sizeof(e));
	r = engine_open(&e, dev, compress, src, n, dst, cap);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to set up the %s task: %s", compress ? "compress" : "decompress",
			     doca_error_get_descr(r));
	if (r == DOCA_SUCCESS) {
		r = submit(&e, compress);
		if (r != DOCA_SUCCESS)
			DOCA_LOG_ERR("%s task failed: %s", compress ? "Compress" : "Decompress",
				     doca_error_get_descr(r));
	}
	if (r == DOCA_SUCCESS)
		r = doca_buf_get_data_len(e.dst, out);
	*checksum = e.checksum;
	engine_close(&e);
	return r;
}

doca_error_t
fc_zlib_compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out, uint64_t *checksum)
{
	z_stream s;
	int r;

	memset(&s, 0, sizeof(s));
	/* Raw DEFLATE (no zlib header): the same format the engine writes and reads. */
	if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		DOCA_LOG_ERR("Failed to initialize zlib");
		return DOCA_ERROR_INITIALIZATION;
	}
	s.next_in = (Bytef *)src;
	s.avail_in = (uInt)n;
	s.next_out = dst;
	s.avail_out = (uInt)cap;
	r = deflate(&s, Z_FINISH);
	*out = s.total_out;
	deflateEnd(&s);
	if (r != Z_STREAM_END) {
		DOCA_LOG_ERR("Failed to compress with zlib: the output does not fit %zu bytes", cap);
		return DOCA_ERROR_TOO_BIG;
	}
	*checksum = (uint64_t)adler32(1, src, (uInt)n) << 32 | crc32(0, src, (uInt)n);
	return DOCA_SUCCESS;
}
