/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compress samples' shared part (compress_common.h): flags and main(), the
 * context and its callbacks, one task run to the context's stop, and the two
 * framings of -wf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "compress_common.h"
#include "sample_params.h"

DOCA_LOG_REGISTER(COMPRESS_COMMON);

#define SLEEP_IN_NANOS (10 * 1000) /* progress every 10 microseconds */
#define LZ4_MAGIC 0x184D2204u

/* --- flags and main ----------------------------------------------------------------------------- */

static doca_error_t
pci_cb(void *param, void *config)
{
	struct compress_cfg *cfg = config;

	return copy_string_param("DOCA device PCI address (-p)", param, cfg->pci_address, sizeof(cfg->pci_address));
}

static doca_error_t
file_cb(void *param, void *config)
{
	struct compress_cfg *cfg = config;

	return copy_string_param("File path (-f)", param, cfg->file_path, sizeof(cfg->file_path));
}

static doca_error_t
output_cb(void *param, void *config)
{
	struct compress_cfg *cfg = config;

	return copy_string_param("Output file path (-o)", param, cfg->output_path, sizeof(cfg->output_path));
}

#define BOOL_FLAG_CB(name, field)                                                                                      \
	static doca_error_t name(void *param, void *config)                                                            \
	{                                                                                                              \
		((struct compress_cfg *)config)->field = *(bool *)param;                                               \
		return DOCA_SUCCESS;                                                                                   \
	}
BOOL_FLAG_CB(checksum_cb, output_checksum)
BOOL_FLAG_CB(frame_cb, is_with_frame)
BOOL_FLAG_CB(block_checksum_cb, has_block_checksum)
BOOL_FLAG_CB(independent_cb, are_blocks_independent)

static const struct sample_param common_params[] = {
	{"p", "pci-addr", "<PCI-ADDRESS>", "DOCA device PCI address", DOCA_ARGP_TYPE_STRING, pci_cb, false},
	{"f", "file", "<path>", "Input file to compress/decompress", DOCA_ARGP_TYPE_STRING, file_cb, false},
	{"o", "output", "<path>", "Output file", DOCA_ARGP_TYPE_STRING, output_cb, false},
	{"c", "output-checksum", NULL, "Output checksum", DOCA_ARGP_TYPE_BOOLEAN, checksum_cb, false},
	{"wf", "with-frame", NULL, "Write/read a file with a frame (zlib for deflate, LZ4 frame for LZ4)",
	 DOCA_ARGP_TYPE_BOOLEAN, frame_cb, false},
};

static const struct sample_param lz4_params[] = {
	{"bc", "has-block-checksum", NULL, "Blocks have a checksum (only without -wf)", DOCA_ARGP_TYPE_BOOLEAN,
	 block_checksum_cb, false},
	{"bi", "are-blocks-independent", NULL, "Blocks are independent (only without -wf)", DOCA_ARGP_TYPE_BOOLEAN,
	 independent_cb, false},
};

/* What main() runs: one sample per process. */
static struct {
	enum compress_mode mode;
	doca_error_t (*run)(struct compress_cfg *cfg, uint8_t *file, size_t size);
} sample;

static doca_error_t
register_params(void)
{
	doca_error_t r = sample_register_params(common_params, sizeof(common_params) / sizeof(common_params[0]));

	if (r == DOCA_SUCCESS && sample.mode == COMPRESS_MODE_DECOMPRESS_LZ4_STREAM)
		r = sample_register_params(lz4_params, sizeof(lz4_params) / sizeof(lz4_params[0]));
	return r;
}

/* The whole file into a malloc'd buffer: NOT_FOUND if it cannot be read, INVALID_VALUE if empty. */
static doca_error_t
read_file(const char *path, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) {
		DOCA_LOG_ERR("Failed to read file %s: %s", path, strerror(errno));
		if (f != NULL)
			fclose(f);
		return DOCA_ERROR_NOT_FOUND;
	}
	if (len == 0) {
		DOCA_LOG_ERR("File %s is empty", path);
		fclose(f);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*data = malloc((size_t)len);
	rewind(f);
	if (*data == NULL || fread(*data, 1, (size_t)len, f) != (size_t)len) {
		DOCA_LOG_ERR("Failed to read file %s", path);
		free(*data);
		fclose(f);
		return DOCA_ERROR_NOT_FOUND;
	}
	fclose(f);
	*size = (size_t)len;
	return DOCA_SUCCESS;
}

static doca_error_t
run_sample(const void *config)
{
	struct compress_cfg *cfg = (struct compress_cfg *)config;
	uint8_t *file = NULL;
	size_t size = 0;
	doca_error_t r = read_file(cfg->file_path, &file, &size);

	if (r != DOCA_SUCCESS)
		return r;
	r = sample.run(cfg, file, size);
	free(file);
	return r;
}

int
compress_sample_main(enum compress_mode mode, const char *name, int argc, char **argv,
		     doca_error_t (*run)(struct compress_cfg *cfg, uint8_t *file, size_t size))
{
	struct compress_cfg cfg = {.mode = mode};

	strcpy(cfg.pci_address, "03:00.0");
	strcpy(cfg.file_path,
	       mode == COMPRESS_MODE_COMPRESS_DEFLATE ? "data_to_compress.txt" : "data_to_decompress.txt");
	strcpy(cfg.output_path, "out.txt");
	sample.mode = mode;
	sample.run = run;
	return sample_main_with_params(name, name, DOCA_LOG_LEVEL_WARNING, &cfg, register_params, run_sample, argc,
				       argv);
}

/* --- the context ----------------------------------------------------------------------------------- */

static const char *
task_word(enum compress_mode mode)
{
	return mode == COMPRESS_MODE_COMPRESS_DEFLATE ? "Compress" : "Decompress";
}

/* The end of the one task: record, free, stop the context when none is left. */
static void
task_done(struct doca_task *task, struct compress_resources *res, enum compress_mode mode, bool ok)
{
	if (ok) {
		DOCA_LOG_INFO("%s task was done successfully", task_word(mode));
		res->task_result = DOCA_SUCCESS;
	} else {
		res->task_result = doca_task_get_status(task);
		DOCA_LOG_ERR("%s task failed: %s", task_word(mode), doca_error_get_descr(res->task_result));
	}
	doca_task_free(task);
	if (--res->num_remaining_tasks == 0)
		(void)doca_ctx_stop(res->state.ctx);
}

static void
compress_ok(struct doca_compress_task_compress_deflate *t, union doca_data ud, union doca_data ctx_ud)
{
	struct compress_resources *res = ctx_ud.ptr;

	(void)ud;
	res->crc = doca_compress_task_compress_deflate_get_crc_cs(t);
	res->second = doca_compress_task_compress_deflate_get_adler_cs(t);
	task_done(doca_compress_task_compress_deflate_as_task(t), res, COMPRESS_MODE_COMPRESS_DEFLATE, true);
}

static void
compress_err(struct doca_compress_task_compress_deflate *t, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	task_done(doca_compress_task_compress_deflate_as_task(t), ctx_ud.ptr, COMPRESS_MODE_COMPRESS_DEFLATE, false);
}

static void
inflate_ok(struct doca_compress_task_decompress_deflate *t, union doca_data ud, union doca_data ctx_ud)
{
	struct compress_resources *res = ctx_ud.ptr;

	(void)ud;
	res->crc = doca_compress_task_decompress_deflate_get_crc_cs(t);
	res->second = doca_compress_task_decompress_deflate_get_adler_cs(t);
	task_done(doca_compress_task_decompress_deflate_as_task(t), res, COMPRESS_MODE_DECOMPRESS_DEFLATE, true);
}

static void
inflate_err(struct doca_compress_task_decompress_deflate *t, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	task_done(doca_compress_task_decompress_deflate_as_task(t), ctx_ud.ptr, COMPRESS_MODE_DECOMPRESS_DEFLATE,
		  false);
}

static void
lz4_ok(struct doca_compress_task_decompress_lz4_stream *t, union doca_data ud, union doca_data ctx_ud)
{
	struct compress_resources *res = ctx_ud.ptr;

	(void)ud;
	res->crc = doca_compress_task_decompress_lz4_stream_get_crc_cs(t);
	res->second = doca_compress_task_decompress_lz4_stream_get_xxh_cs(t);
	task_done(doca_compress_task_decompress_lz4_stream_as_task(t), res, COMPRESS_MODE_DECOMPRESS_LZ4_STREAM, true);
}

static void
lz4_err(struct doca_compress_task_decompress_lz4_stream *t, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	task_done(doca_compress_task_decompress_lz4_stream_as_task(t), ctx_ud.ptr, COMPRESS_MODE_DECOMPRESS_LZ4_STREAM,
		  false);
}

static void
state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct compress_resources *res = ud.ptr;

	(void)ctx;
	(void)prev;
	switch (next) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("Compress context has been stopped");
		res->run_pe_progress = false;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_ERR("Compress context entered into starting state. Unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Compress context is running");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Compress context entered into stopping state. Any inflight tasks will be flushed");
		break;
	}
}

static tasks_check
mode_cap(enum compress_mode mode)
{
	switch (mode) {
	case COMPRESS_MODE_COMPRESS_DEFLATE:
		return doca_compress_cap_task_compress_deflate_is_supported;
	case COMPRESS_MODE_DECOMPRESS_DEFLATE:
		return doca_compress_cap_task_decompress_deflate_is_supported;
	default:
		return doca_compress_cap_task_decompress_lz4_stream_is_supported;
	}
}

static doca_error_t
set_conf(struct doca_compress *c, enum compress_mode mode)
{
	switch (mode) {
	case COMPRESS_MODE_COMPRESS_DEFLATE:
		return doca_compress_task_compress_deflate_set_conf(c, compress_ok, compress_err, 1);
	case COMPRESS_MODE_DECOMPRESS_DEFLATE:
		return doca_compress_task_decompress_deflate_set_conf(c, inflate_ok, inflate_err, 1);
	default:
		return doca_compress_task_decompress_lz4_stream_set_conf(c, lz4_ok, lz4_err, 1);
	}
}

/*
 * Open the device at pci_addr that can run mode's task, the Core objects (an
 * inventory of max_bufs), the compress context with that task (1 of them), its
 * state callback, connected to the PE; not started.
 */
static doca_error_t
allocate_compress_resources(const char *pci_addr, enum compress_mode mode, uint32_t max_bufs,
			    struct compress_resources *res)
{
	union doca_data ud = {.ptr = res};
	doca_error_t r;

	memset(res, 0, sizeof(*res));
	r = open_doca_device_with_pci(pci_addr, mode_cap(mode), &res->state.dev);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device for DOCA Compress: %s", doca_error_get_descr(r));
		return r;
	}
	r = create_core_objects(&res->state, max_bufs);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	r = doca_compress_create(res->state.dev, &res->compress);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create compress engine: %s", doca_error_get_descr(r));
		goto destroy_core;
	}
	res->state.ctx = doca_compress_as_ctx(res->compress);
	r = doca_pe_connect_ctx(res->state.pe, res->state.ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(res->state.ctx, state_changed);
	if (r == DOCA_SUCCESS)
		r = set_conf(res->compress, mode);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(res->state.ctx, ud);
	if (r == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("Failed to set up the compress context: %s", doca_error_get_descr(r));
	(void)doca_compress_destroy(res->compress);
	res->compress = NULL;
destroy_core:
	(void)destroy_core_objects(&res->state);
	return r;
close_dev:
	(void)doca_dev_close(res->state.dev);
	res->state.dev = NULL;
	return r;
}

static doca_error_t
destroy_compress_resources(struct compress_resources *res)
{
	doca_error_t r = DOCA_SUCCESS, tmp;

	if (res->compress != NULL) {
		/* Stopped already by the last callback: stopping an IDLE context succeeds. */
		r = request_stop_ctx(res->state.pe, res->state.ctx);
		tmp = doca_compress_destroy(res->compress);
		if (r == DOCA_SUCCESS)
			r = tmp;
		res->compress = NULL;
	}
	tmp = destroy_core_objects(&res->state);
	return r != DOCA_SUCCESS ? r : tmp;
}

/* The largest buffer mode's task takes (the compress sample asks the decompress cap, as DOCA's does). */
static doca_error_t
max_buf_size(const struct compress_resources *res, enum compress_mode mode, uint64_t *max)
{
	const struct doca_devinfo *di = doca_dev_as_devinfo(res->state.dev);

	if (mode == COMPRESS_MODE_DECOMPRESS_LZ4_STREAM)
		return doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size(di, max);
	return doca_compress_cap_task_decompress_deflate_get_max_buf_size(di, max);
}

/* Map [addr, addr + len) in mmap (started here), a buf of it with data window [data, data + data_len). */
static doca_error_t
map_buf(struct compress_resources *res, struct doca_mmap *mmap, void *addr, size_t len, void *data, size_t data_len,
	struct doca_buf **buf)
{
	doca_error_t r = doca_mmap_set_memrange(mmap, addr, len);

	if (r == DOCA_SUCCESS)
		r = doca_mmap_start(mmap);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_buf_get_by_addr(res->state.buf_inv, mmap, addr, len, buf);
	if (r == DOCA_SUCCESS && (data != addr || data_len != 0))
		r = doca_buf_set_data(*buf, data, data_len);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to map a buffer for the task: %s", doca_error_get_descr(r));
	return r;
}

static doca_error_t
alloc_task(struct compress_resources *res, enum compress_mode mode, struct doca_buf *src, struct doca_buf *dst, bool bc,
	   bool bi, struct doca_task **task)
{
	union doca_data ud = {.u64 = 0};
	doca_error_t r;

	if (mode == COMPRESS_MODE_COMPRESS_DEFLATE) {
		struct doca_compress_task_compress_deflate *t;

		r = doca_compress_task_compress_deflate_alloc_init(res->compress, src, dst, ud, &t);
		*task = r == DOCA_SUCCESS ? doca_compress_task_compress_deflate_as_task(t) : NULL;
	} else if (mode == COMPRESS_MODE_DECOMPRESS_DEFLATE) {
		struct doca_compress_task_decompress_deflate *t;

		r = doca_compress_task_decompress_deflate_alloc_init(res->compress, src, dst, ud, &t);
		*task = r == DOCA_SUCCESS ? doca_compress_task_decompress_deflate_as_task(t) : NULL;
	} else {
		struct doca_compress_task_decompress_lz4_stream *t;

		r = doca_compress_task_decompress_lz4_stream_alloc_init(res->compress, bc, bi, src, dst, ud, &t);
		*task = r == DOCA_SUCCESS ? doca_compress_task_decompress_lz4_stream_as_task(t) : NULL;
	}
	return r;
}

/* Submit one task of mode and progress until the context stopped. */
static doca_error_t
submit_and_wait(struct compress_resources *res, enum compress_mode mode, struct doca_buf *src, struct doca_buf *dst,
		bool has_block_checksum, bool are_blocks_independent)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = SLEEP_IN_NANOS};
	struct doca_task *task;
	doca_error_t r;

	r = alloc_task(res, mode, src, dst, has_block_checksum, are_blocks_independent, &task);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate the %s task: %s", task_word(mode), doca_error_get_descr(r));
		return r;
	}
	res->num_remaining_tasks = 1;
	res->run_pe_progress = true;
	res->task_result = DOCA_ERROR_UNKNOWN;
	r = doca_task_submit(task);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit the %s task: %s", task_word(mode), doca_error_get_descr(r));
		doca_task_free(task);
		return r;
	}
	while (res->run_pe_progress)
		if (doca_pe_progress(res->state.pe) == 0)
			nanosleep(&ts, &ts);
	return res->task_result;
}

/* The task over the job's source into dst_buf, then finish. */
static doca_error_t
run_task(const struct compress_cfg *cfg, const struct compress_job *job, struct compress_resources *res, FILE *out,
	 uint8_t *dst_buf, uint64_t max)
{
	struct doca_buf *src = NULL, *dst = NULL;
	size_t len = 0;
	doca_error_t r = doca_ctx_start(res->state.ctx);

	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start context: %s", doca_error_get_descr(r));
		return r;
	}
	r = map_buf(res, res->state.src_mmap, job->map, job->map_len, job->data, job->data_len, &src);
	if (r == DOCA_SUCCESS)
		r = map_buf(res, res->state.dst_mmap, dst_buf, max + job->dst_offset, dst_buf + job->dst_offset, 0,
			    &dst);
	if (r == DOCA_SUCCESS)
		r = submit_and_wait(res, job->mode, src, dst, job->has_block_checksum, job->are_blocks_independent);
	if (r == DOCA_SUCCESS)
		r = doca_buf_get_data_len(dst, &len);
	if (r == DOCA_SUCCESS)
		r = job->finish(cfg, out, res, dst_buf, len, job->arg);
	if (dst != NULL)
		(void)doca_buf_dec_refcount(dst, NULL);
	if (src != NULL)
		(void)doca_buf_dec_refcount(src, NULL);
	return r;
}

doca_error_t
compress_run_job(const struct compress_cfg *cfg, const struct compress_job *job)
{
	struct compress_resources res;
	uint8_t *dst_buf = NULL;
	uint64_t max = 0;
	doca_error_t r, tmp;
	FILE *out = fopen(cfg->output_path, "w");

	if (out == NULL) {
		DOCA_LOG_ERR("Failed to open %s", cfg->output_path);
		return DOCA_ERROR_IO_FAILED;
	}
	r = allocate_compress_resources(cfg->pci_address, job->mode, 2, &res);
	if (r != DOCA_SUCCESS)
		goto close_file;
	r = max_buf_size(&res, job->mode, &max);
	if (r == DOCA_SUCCESS && job->map_len > max) {
		DOCA_LOG_ERR("Invalid file size. Should be smaller then %lu", (unsigned long)max);
		r = DOCA_ERROR_INVALID_VALUE;
	}
	if (r == DOCA_SUCCESS) {
		dst_buf = calloc(1, max + job->dst_offset + job->dst_extra);
		if (dst_buf == NULL) {
			DOCA_LOG_ERR("Failed to allocate the destination buffer");
			r = DOCA_ERROR_NO_MEMORY;
		}
	}
	if (r == DOCA_SUCCESS)
		r = run_task(cfg, job, &res, out, dst_buf, max);
	tmp = destroy_compress_resources(&res);
	if (r == DOCA_SUCCESS)
		r = tmp;
	free(dst_buf);
close_file:
	fclose(out);
	return r;
}

/* --- framings ------------------------------------------------------------------------------------------ */

void
compress_zlib_header(uint8_t hdr[ZLIB_HEADER_SIZE])
{
	/* CMF: deflate (8), 32 KiB window (CINFO 7); FLG: level 2 (default), no dictionary, FCHECK */
	unsigned cmf = 0x78, flg = 2u << 6;

	flg |= 31 - (cmf * 256 + flg) % 31;
	hdr[0] = (uint8_t)cmf;
	hdr[1] = (uint8_t)flg;
}

doca_error_t
compress_verify_zlib_header(const uint8_t hdr[ZLIB_HEADER_SIZE])
{
	unsigned cmf = hdr[0], flg = hdr[1];

	if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20) != 0) {
		DOCA_LOG_ERR("Failed to verify Zlib header: 0x%02x 0x%02x is not a deflate header without a "
			     "dictionary",
			     cmf, flg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

doca_error_t
parse_lz4_frame(const uint8_t *frame, size_t len, struct lz4_frame_info *info)
{
	size_t pos = 6, tail;
	uint8_t flg;

	if (len < 7 || le32(frame) != LZ4_MAGIC) {
		DOCA_LOG_ERR("Invalid LZ4 frame: the magic number is not 0x%08X", LZ4_MAGIC);
		return DOCA_ERROR_INVALID_VALUE;
	}
	flg = frame[4];
	if ((flg >> 6) != 1) {
		DOCA_LOG_ERR("Invalid LZ4 frame: version %u, only version 01 is supported", flg >> 6);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (flg & 0x01) {
		DOCA_LOG_ERR("LZ4 frames with a dictionary ID are not supported");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	memset(info, 0, sizeof(*info));
	info->are_blocks_independent = (flg >> 5) & 1;
	info->has_block_checksum = (flg >> 4) & 1;
	info->has_content_size = (flg >> 3) & 1;
	info->has_content_checksum = (flg >> 2) & 1;
	if (info->has_content_size) {
		if (len < pos + 8)
			goto short_frame;
		for (int i = 7; i >= 0; i--)
			info->content_size = info->content_size << 8 | frame[pos + (size_t)i];
		pos += 8;
	}
	pos++; /* the header checksum, not verified */
	tail = 4 + (info->has_content_checksum ? 4 : 0);
	if (len < pos + tail)
		goto short_frame;
	info->data_offset = pos;
	info->data_len = len - pos - tail;
	if (info->has_content_checksum)
		info->content_checksum = le32(frame + len - 4);
	return DOCA_SUCCESS;
short_frame:
	DOCA_LOG_ERR("Invalid LZ4 frame: %zu bytes are too few for its header and end mark", len);
	return DOCA_ERROR_INVALID_VALUE;
}

/* Write len bytes to path. */
static doca_error_t
compress_write_file(FILE *out, const char *path, const void *data, size_t len)
{
	if (fwrite(data, 1, len, out) != len || fflush(out) != 0) {
		DOCA_LOG_ERR("Failed to write %zu bytes to %s", len, path);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

doca_error_t
compress_save(const struct compress_cfg *cfg, FILE *out, const struct compress_resources *res, const uint8_t *data,
	      size_t len, const char *done)
{
	doca_error_t r = compress_write_file(out, cfg->output_path, data, len);

	if (r != DOCA_SUCCESS)
		return r;
	DOCA_LOG_INFO("File was %s successfully and saved in: %s", done, cfg->output_path);
	if (!cfg->output_checksum)
		return DOCA_SUCCESS;
	if (cfg->mode == COMPRESS_MODE_DECOMPRESS_LZ4_STREAM) {
		DOCA_LOG_INFO("The CRC Checksum is %u", res->crc);
		DOCA_LOG_INFO("The xxHash Checksum is %u", res->second);
	} else {
		DOCA_LOG_INFO("Checksum is %lu", (unsigned long)((uint64_t)res->second << 32 | res->crc));
	}
	return DOCA_SUCCESS;
}
