/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_erasure_coding_recover's work (erasure_coding_recover_sample.h).
 *
 * Encode: the input file is cut into k blocks of ceil(size / k) bytes rounded
 * up to 64 (the last one padded with zeros), written as data_block_<i>; one
 * create task computes the m redundancy blocks, written as rdnc_block_<j>;
 * data_info holds "<size> <input path>".  Decode: the first k block files that
 * can be read (data blocks in index order, then redundancy blocks) form the
 * recover task's source; the data blocks that could not be read are
 * recovered, written back, and the file is put together again, cut to its
 * original size.  Only the public DOCA API is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "common.h"
#include "erasure_coding_recover_sample.h"

DOCA_LOG_REGISTER(EC_RECOVER);

#define NUM_EC_TASKS 8
#define DATA_INFO_FILE "data_info"
#define DATA_BLOCK_FILE "data_block_"
#define RDNC_BLOCK_FILE "rdnc_block_"
#define RECOVERED_SUFFIX "_recovered"
#define MAX_DATA_INFO (EC_MAX_PATH + 100)

/* Everything one encode or decode holds; ec_cleanup() releases what is set. */
struct ec_objects {
	struct program_core_objects core;
	struct doca_ec *ec;
	struct doca_ec_matrix *coding;
	struct doca_ec_matrix *recover;
	struct doca_buf *src, *dst;
	uint8_t *src_mem, *dst_mem;
	bool running;		  /* progress until the context is IDLE again */
	doca_error_t task_status; /* the task's own result */
	doca_error_t cb_result;	  /* what the completion callback did with it */
	/* what the completion callbacks need */
	const struct ec_recover_cfg *cfg;
	const char *dir; /* the block files' directory */
	uint64_t block;
	const uint32_t *missing; /* decode: the block indices that could not be read */
	size_t n_missing;
	const char *out_file; /* decode: the recovered file */
	uint64_t file_size;
};

/* The whole of path into a malloc'd buffer (*len bytes). */
static doca_error_t
read_whole_file(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *p;

	if (f == NULL)
		return DOCA_ERROR_NOT_FOUND;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return DOCA_ERROR_IO_FAILED;
	}
	p = malloc((size_t)st.st_size + 1); /* NUL-terminated, for the data_info text */
	if (p == NULL || fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(p);
		fclose(f);
		return p == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_IO_FAILED;
	}
	fclose(f);
	p[st.st_size] = 0;
	*data = p;
	*len = (size_t)st.st_size;
	return DOCA_SUCCESS;
}

/* "<dir>/<name><index>" into path (EC_MAX_PATH bytes). */
static doca_error_t
block_path(char *path, const char *dir, const char *name, size_t index)
{
	int n = snprintf(path, EC_MAX_PATH, "%s/%s%zu", dir, name, index);

	if (n < 0 || n >= EC_MAX_PATH) {
		DOCA_LOG_ERR("Path exceeded max path len");
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (f == NULL) {
		DOCA_LOG_ERR("Unable to open output file: %s", path);
		return DOCA_ERROR_IO_FAILED;
	}
	ok = fwrite(data, 1, len, f) == len;
	ok = fclose(f) == 0 && ok;
	if (!ok) {
		DOCA_LOG_ERR("Failed to write to file %s", path);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/* count block files named name in dir, of block bytes each, from data. */
static doca_error_t
write_blocks(const char *dir, const char *name, const uint32_t *indices, size_t count, const uint8_t *data,
	     uint64_t block)
{
	char path[EC_MAX_PATH];
	doca_error_t result;

	for (size_t i = 0; i < count; i++) {
		result = block_path(path, dir, name, indices != NULL ? indices[i] : i);
		if (result == DOCA_SUCCESS)
			result = write_file(path, data + i * block, block);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

static void
ec_cleanup(struct ec_objects *st)
{
	doca_error_t result;

	if (st->src != NULL)
		doca_buf_dec_refcount(st->src, NULL);
	if (st->dst != NULL)
		doca_buf_dec_refcount(st->dst, NULL);
	if (st->coding != NULL && (result = doca_ec_matrix_destroy(st->coding)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy ec encoding matrix: %s", doca_error_get_descr(result));
	if (st->recover != NULL && (result = doca_ec_matrix_destroy(st->recover)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy ec decoding matrix: %s", doca_error_get_descr(result));
	if (st->core.ctx != NULL && (result = request_stop_ctx(st->core.pe, st->core.ctx)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Unable to stop context: %s", doca_error_get_descr(result));
	if (st->ec != NULL && (result = doca_ec_destroy(st->ec)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy ec: %s", doca_error_get_descr(result));
	if ((result = destroy_core_objects(&st->core)) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy DOCA core objects: %s", doca_error_get_descr(result));
	free(st->src_mem);
	free(st->dst_mem);
}

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	struct ec_objects *st = user_data.ptr;

	(void)ctx;
	(void)prev;
	switch (next) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("Erasure Coding context has been stopped");
		st->running = false;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_ERR("Erasure Coding context entered into starting state. Unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("Erasure Coding context is running");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("Erasure Coding context entered into stopping state. Any inflight tasks will be flushed");
		break;
	default:
		break;
	}
}

/* Both task types' error callback: free the task, stop the context. */
static void
task_failed(struct doca_task *task, struct ec_objects *st)
{
	st->task_status = doca_task_get_status(task);
	DOCA_LOG_ERR("EC Task finished unsuccessfully: %s", doca_error_get_descr(st->task_status));
	doca_task_free(task);
	(void)doca_ctx_stop(st->core.ctx);
}

static void
create_failed(struct doca_ec_task_create *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	task_failed(doca_ec_task_create_as_task(task), ctx_ud.ptr);
}

static void
recover_failed(struct doca_ec_task_recover *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	task_failed(doca_ec_task_recover_as_task(task), ctx_ud.ptr);
}

/* The redundancy blocks are in the destination: one rdnc_block_<j> file each. */
static void
create_done(struct doca_ec_task_create *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct ec_objects *st = ctx_ud.ptr;
	void *data = NULL;

	(void)task_ud;
	st->task_status = DOCA_SUCCESS;
	st->cb_result = doca_buf_get_data(doca_ec_task_create_get_rdnc_blocks(task), &data);
	if (st->cb_result == DOCA_SUCCESS)
		st->cb_result = write_blocks(st->dir, RDNC_BLOCK_FILE, NULL, st->cfg->rdnc_blocks, data, st->block);
	if (st->cb_result == DOCA_SUCCESS)
		DOCA_LOG_INFO("File was encoded successfully and saved in: %s", st->dir);
	doca_task_free(doca_ec_task_create_as_task(task));
	(void)doca_ctx_stop(st->core.ctx);
}

/* The k data block files, in order, into the recovered file, cut to the original size. */
static doca_error_t
join_data_blocks(const struct ec_objects *st)
{
	uint64_t left = st->file_size;
	char path[EC_MAX_PATH];
	doca_error_t result = DOCA_SUCCESS;
	FILE *out = fopen(st->out_file, "wb");

	if (out == NULL) {
		DOCA_LOG_ERR("Unable to open output file: %s", st->out_file);
		return DOCA_ERROR_IO_FAILED;
	}
	for (size_t i = 0; i < st->cfg->data_blocks && left > 0 && result == DOCA_SUCCESS; i++) {
		uint8_t *data = NULL;
		size_t len = 0;

		result = block_path(path, st->dir, DATA_BLOCK_FILE, i);
		if (result == DOCA_SUCCESS && read_whole_file(path, &data, &len) != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Unable to open data file %s", path);
			result = DOCA_ERROR_IO_FAILED;
		}
		if (result == DOCA_SUCCESS) {
			len = len < left ? len : (size_t)left;
			if (fwrite(data, 1, len, out) != len) {
				DOCA_LOG_ERR("Failed to write to file %s", st->out_file);
				result = DOCA_ERROR_IO_FAILED;
			}
			left -= len;
		}
		free(data);
	}
	if (fclose(out) != 0 && result == DOCA_SUCCESS)
		result = DOCA_ERROR_IO_FAILED;
	return result;
}

/* The lost data blocks are in the destination: rewrite their files, then the whole file. */
static void
recover_done(struct doca_ec_task_recover *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct ec_objects *st = ctx_ud.ptr;
	uint32_t lost[EC_MAX_BLOCKS];
	size_t n_lost = 0;
	void *data = NULL;

	(void)task_ud;
	st->task_status = DOCA_SUCCESS;
	/* The recover matrix outputs the lost data blocks only (a lost redundancy block was just skipped). */
	for (size_t i = 0; i < st->n_missing; i++)
		if (st->missing[i] < st->cfg->data_blocks)
			lost[n_lost++] = st->missing[i];
	st->cb_result = doca_buf_get_data(doca_ec_task_recover_get_recovered_data(task), &data);
	if (st->cb_result == DOCA_SUCCESS)
		st->cb_result = write_blocks(st->dir, DATA_BLOCK_FILE, lost, n_lost, data, st->block);
	if (st->cb_result == DOCA_SUCCESS)
		st->cb_result = join_data_blocks(st);
	if (st->cb_result == DOCA_SUCCESS)
		DOCA_LOG_INFO("File was decoded successfully and saved in: %s", st->out_file);
	doca_task_free(doca_ec_task_recover_as_task(task));
	(void)doca_ctx_stop(st->core.ctx);
}

#define CHECK(result, what)                                                                                            \
	do {                                                                                                           \
		doca_error_t check_ = (result);                                                                        \
		if (check_ != DOCA_SUCCESS) {                                                                          \
			DOCA_LOG_ERR(what ": %s", doca_error_get_descr(check_));                                       \
			return check_;                                                                                 \
		}                                                                                                      \
	} while (0)

/* Device, Core objects, context, mmaps and buffer lists over st->src_mem / st->dst_mem. */
static doca_error_t
ec_core_init(struct ec_objects *st, tasks_check supported, size_t src_size, size_t dst_size, uint64_t *max_block)
{
	const struct ec_recover_cfg *cfg = st->cfg;
	uint32_t max_list = 0, nbufs = (uint32_t)(cfg->num_src_buf + cfg->num_dst_buf);
	union doca_data ud = {.ptr = st};

	CHECK(open_doca_device_with_pci(cfg->pci_addr, supported, &st->core.dev), "Unable to open the pci device");
	CHECK(create_core_objects(&st->core, nbufs), "Failed to init core");
	CHECK(doca_ec_create(st->core.dev, &st->ec), "Unable to create ec engine");
	CHECK(doca_ec_cap_get_max_block_size(doca_dev_as_devinfo(st->core.dev), max_block),
	      "Unable to query maximum block size supported");
	CHECK(doca_ec_cap_get_max_buf_list_len(doca_dev_as_devinfo(st->core.dev), &max_list),
	      "Unable to query max_buf_list_len supported");
	if (nbufs > max_list) {
		DOCA_LOG_ERR("Number of doca_buf [%u] exceed the limitation [%u]: %s", nbufs, max_list,
			     doca_error_get_descr(DOCA_ERROR_INVALID_VALUE));
		return DOCA_ERROR_INVALID_VALUE;
	}
	st->core.ctx = doca_ec_as_ctx(st->ec);
	CHECK(doca_pe_connect_ctx(st->core.pe, st->core.ctx), "Unable to connect context to progress engine");
	CHECK(doca_mmap_set_memrange(st->core.dst_mmap, st->dst_mem, dst_size), "Failed to set mmap mem range dst");
	CHECK(doca_mmap_start(st->core.dst_mmap), "Failed to start mmap dst");
	CHECK(doca_mmap_set_memrange(st->core.src_mmap, st->src_mem, src_size), "Failed to set mmap mem range src");
	CHECK(doca_mmap_start(st->core.src_mmap), "Failed to start mmap src");
	CHECK(allocate_doca_buf_list(st->core.buf_inv, st->core.src_mmap, st->src_mem, src_size, cfg->num_src_buf, true,
				     &st->src),
	      "Unable to acquire DOCA buffer representing source buffer");
	CHECK(allocate_doca_buf_list(st->core.buf_inv, st->core.dst_mmap, st->dst_mem, dst_size, cfg->num_dst_buf,
				     false, &st->dst),
	      "Unable to acquire DOCA buffer representing destination buffer");
	CHECK(doca_ctx_set_user_data(st->core.ctx, ud), "Unable to set user data to context");
	CHECK(doca_ctx_set_state_changed_cb(st->core.ctx, state_changed), "Unable to set state change callback");
	return DOCA_SUCCESS;
}

static doca_error_t
check_block_size(uint64_t block, uint64_t max_block)
{
	if (block <= max_block)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("Block size (%" PRIu64 ") exceeds the maximum size supported (%" PRIu64
		     "). Try to increase the number of blocks or use a smaller file as input",
		     block, max_block);
	return DOCA_ERROR_INVALID_VALUE;
}

/* Submit task and progress until the callbacks stopped the context. */
static doca_error_t
run_task(struct ec_objects *st, struct doca_task *task, const char *what)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 10 * 1000};

	CHECK(doca_task_submit(task), "Unable to submit task");
	st->running = true;
	while (st->running)
		if (doca_pe_progress(st->core.pe) == 0)
			nanosleep(&ts, NULL);
	if (st->task_status != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s task failed: %s", what, doca_error_get_descr(st->task_status));
		return st->task_status;
	}
	return st->cb_result;
}

/* The input file as k data blocks, the data_info file, then the create task. */
static doca_error_t
ec_encode_file(struct ec_objects *st, const char *input, uint64_t *max_block)
{
	const struct ec_recover_cfg *cfg = st->cfg;
	uint8_t *file = NULL;
	size_t size = 0;
	char path[EC_MAX_PATH], info[MAX_DATA_INFO];
	int n;

	CHECK(read_whole_file(input, &file, &size), "Can't read input file");
	if (size == 0) {
		free(file);
		DOCA_LOG_ERR("Input file %s is empty: nothing to encode", input);
		return DOCA_ERROR_INVALID_VALUE;
	}
	st->block = (size + cfg->data_blocks - 1) / cfg->data_blocks;
	st->block = (st->block + 63) / 64 * 64; /* DOCA Erasure Coding works on multiples of 64 bytes */
	st->src_mem = calloc(cfg->data_blocks, st->block);
	st->dst_mem = malloc(cfg->rdnc_blocks * st->block);
	if (st->src_mem == NULL || st->dst_mem == NULL) {
		free(file);
		DOCA_LOG_ERR("Unable to allocate the source and destination buffers");
		return DOCA_ERROR_NO_MEMORY;
	}
	memcpy(st->src_mem, file, size);
	free(file);
	CHECK(write_blocks(st->dir, DATA_BLOCK_FILE, NULL, cfg->data_blocks, st->src_mem, st->block),
	      "Failed to write the data blocks");
	n = snprintf(path, sizeof(path), "%s/%s", st->dir, DATA_INFO_FILE);
	if (n < 0 || n >= (int)sizeof(path)) {
		DOCA_LOG_ERR("Path exceeded max path len");
		return DOCA_ERROR_IO_FAILED;
	}
	n = snprintf(info, sizeof(info), "%zu %s", size, input);
	CHECK(write_file(path, info, (size_t)n), "Failed to write the data information");
	return ec_core_init(st, doca_ec_cap_task_create_is_supported, cfg->data_blocks * st->block,
			    cfg->rdnc_blocks * st->block, max_block);
}

static doca_error_t
encode_body(struct ec_objects *st, const char *input)
{
	const struct ec_recover_cfg *cfg = st->cfg;
	struct doca_ec_task_create *task = NULL;
	union doca_data ud = {.ptr = st};
	uint64_t max_block = 0;
	doca_error_t result;

	result = ec_encode_file(st, input, &max_block);
	if (result != DOCA_SUCCESS)
		return result;
	CHECK(doca_ec_task_create_set_conf(st->ec, create_done, create_failed, NUM_EC_TASKS),
	      "Unable to set configuration for create tasks");
	CHECK(doca_ctx_start(st->core.ctx), "Unable to start context");
	CHECK(doca_ec_matrix_create(st->ec, cfg->matrix, cfg->data_blocks, cfg->rdnc_blocks, &st->coding),
	      "Unable to create ec matrix");
	CHECK(check_block_size(st->block, max_block), "Block size check failed");
	CHECK(doca_ec_task_create_allocate_init(st->ec, st->coding, st->src, st->dst, ud, &task),
	      "Unable to allocate and initiate task");
	CHECK(run_task(st, doca_ec_task_create_as_task(task), "EC create"), "Sample failed");
	DOCA_LOG_INFO("Success, redundancy blocks were created");
	return DOCA_SUCCESS;
}

static doca_error_t
ec_encode(const struct ec_recover_cfg *cfg, const char *input, const char *dir)
{
	struct ec_objects st = {.cfg = cfg, .dir = dir};
	doca_error_t result = encode_body(&st, input);

	ec_cleanup(&st);
	return result;
}

/* data_info: the original size and, unless -o named one, the recovered file's path. */
static doca_error_t
read_data_info(struct ec_objects *st, const char *user_out, char *out_file)
{
	char path[EC_MAX_PATH], *end;
	uint8_t *info = NULL;
	size_t len = 0;
	long long size;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", st->dir, DATA_INFO_FILE);
	if (n < 0 || n >= (int)sizeof(path) || read_whole_file(path, &info, &len) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to open data file: %s", path);
		return DOCA_ERROR_IO_FAILED;
	}
	if (len == 0 || len >= MAX_DATA_INFO) {
		free(info);
		DOCA_LOG_ERR(len == 0 ? "File data info size is empty" : "File data info may be nonfinite");
		return DOCA_ERROR_INVALID_VALUE;
	}
	size = strtoll((char *)info, &end, 10);
	if (size <= 0 || *end != ' ') {
		free(info);
		DOCA_LOG_ERR(size <= 0 ? "File size from data info file none positive"
				       : "Data info file not containing path");
		return DOCA_ERROR_INVALID_VALUE;
	}
	st->file_size = (uint64_t)size;
	n = user_out != NULL ? snprintf(out_file, EC_MAX_PATH, "%s", user_out)
			     : snprintf(out_file, EC_MAX_PATH, "%s%s", end + 1, RECOVERED_SUFFIX);
	free(info);
	if (n < 0 || n >= EC_MAX_PATH) {
		DOCA_LOG_ERR("Path exceeded max path len");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* The first k readable block files into st->src_mem; the unreadable ones before them into missing. */
static doca_error_t
gather_blocks(struct ec_objects *st, uint32_t *missing)
{
	const struct ec_recover_cfg *cfg = st->cfg;
	size_t have = 0, total = (size_t)cfg->data_blocks + cfg->rdnc_blocks;
	char path[EC_MAX_PATH];

	st->n_missing = 0;
	for (size_t i = 0; i < total && (st->block == 0 || have < cfg->data_blocks); i++) {
		bool data = i < cfg->data_blocks;
		uint8_t *bytes = NULL;
		size_t len = 0;

		CHECK(block_path(path, st->dir, data ? DATA_BLOCK_FILE : RDNC_BLOCK_FILE,
				 data ? i : i - cfg->data_blocks),
		      "Failed to name a block file");
		if (read_whole_file(path, &bytes, &len) != DOCA_SUCCESS || len == 0) {
			free(bytes);
			missing[st->n_missing++] = (uint32_t)i;
			continue;
		}
		if (st->block == 0) {
			st->block = len;
			if (st->block % 64 != 0) {
				free(bytes);
				DOCA_LOG_ERR("Block size is not 64 byte aligned");
				return DOCA_ERROR_INVALID_VALUE;
			}
			st->src_mem = malloc(cfg->data_blocks * st->block);
			if (st->src_mem == NULL) {
				free(bytes);
				DOCA_LOG_ERR("Unable to allocate src_buffer string");
				return DOCA_ERROR_NO_MEMORY;
			}
		}
		if (len != st->block) {
			free(bytes);
			DOCA_LOG_ERR("Blocks are not same size");
			return DOCA_ERROR_INVALID_VALUE;
		}
		DOCA_LOG_INFO("Copy: %s", path);
		memcpy(st->src_mem + have++ * st->block, bytes, st->block);
		free(bytes);
	}
	if (st->block == 0 || have < cfg->data_blocks) {
		DOCA_LOG_ERR("Not enough data for recover");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (st->n_missing == 0) {
		DOCA_LOG_ERR("Nothing to decode, all original data block are in place");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
ec_decode_prepare(struct ec_objects *st, const char *user_out, char *out_file, uint32_t *missing, uint64_t *max_block)
{
	const struct ec_recover_cfg *cfg = st->cfg;

	CHECK(read_data_info(st, user_out, out_file), "Failed to read the data information");
	st->out_file = out_file;
	CHECK(gather_blocks(st, missing), "Failed to gather the blocks");
	st->missing = missing;
	st->dst_mem = malloc(st->n_missing * st->block);
	if (st->dst_mem == NULL) {
		DOCA_LOG_ERR("Unable to allocate dst_buffer string");
		return DOCA_ERROR_NO_MEMORY;
	}
	return ec_core_init(st, doca_ec_cap_task_recover_is_supported, cfg->data_blocks * st->block,
			    st->n_missing * st->block, max_block);
}

static doca_error_t
decode_body(struct ec_objects *st, const char *user_out, char *out_file, uint32_t *missing)
{
	const struct ec_recover_cfg *cfg = st->cfg;
	struct doca_ec_task_recover *task = NULL;
	union doca_data ud = {.ptr = st};
	uint64_t max_block = 0;
	doca_error_t result;

	result = ec_decode_prepare(st, user_out, out_file, missing, &max_block);
	if (result != DOCA_SUCCESS)
		return result;
	CHECK(check_block_size(st->block, max_block), "Block size check failed");
	CHECK(doca_ec_task_recover_set_conf(st->ec, recover_done, recover_failed, NUM_EC_TASKS),
	      "Unable to set configuration for recover tasks");
	CHECK(doca_ctx_start(st->core.ctx), "Unable to start context");
	CHECK(doca_ec_matrix_create(st->ec, cfg->matrix, cfg->data_blocks, cfg->rdnc_blocks, &st->coding),
	      "Unable to create ec matrix");
	CHECK(doca_ec_matrix_create_recover(st->ec, st->coding, missing, st->n_missing, &st->recover),
	      "Unable to create recovery matrix");
	CHECK(doca_ec_task_recover_allocate_init(st->ec, st->recover, st->src, st->dst, ud, &task),
	      "Unable to allocate and initiate task");
	CHECK(run_task(st, doca_ec_task_recover_as_task(task), "EC recover"), "Sample failed");
	DOCA_LOG_INFO("Success, data was recovered");
	return DOCA_SUCCESS;
}

static doca_error_t
ec_decode(const struct ec_recover_cfg *cfg, const char *dir, const char *user_out)
{
	struct ec_objects st = {.cfg = cfg, .dir = dir};
	uint32_t missing[EC_MAX_BLOCKS];
	char out_file[EC_MAX_PATH];
	doca_error_t result = decode_body(&st, user_out, out_file, missing);

	ec_cleanup(&st);
	return result;
}

/* -b: remove the data blocks of -d between encoding and decoding. */
static doca_error_t
ec_delete_blocks(const char *dir, const uint32_t *indices, size_t n)
{
	char path[EC_MAX_PATH];

	for (size_t i = 0; i < n; i++) {
		if (block_path(path, dir, DATA_BLOCK_FILE, indices[i]) != DOCA_SUCCESS)
			return DOCA_ERROR_IO_FAILED;
		if (remove(path) != 0) {
			DOCA_LOG_ERR("Failed to delete %s: %s", path, strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
		DOCA_LOG_INFO("Deleted successfully: %s", path);
	}
	return DOCA_SUCCESS;
}

doca_error_t
ec_recover(const struct ec_recover_cfg *cfg)
{
	bool input_is_file, decode_only;
	struct stat sb;
	doca_error_t result = DOCA_SUCCESS;

	if (cfg->data_blocks + (size_t)cfg->rdnc_blocks > EC_MAX_BLOCKS) {
		DOCA_LOG_ERR("%u data + %u redundancy blocks: at most %d blocks in all", cfg->data_blocks,
			     cfg->rdnc_blocks, EC_MAX_BLOCKS);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (stat(cfg->input_path, &sb) != 0) {
		DOCA_LOG_INFO("Can't read input file stat: %s", cfg->input_path);
		return DOCA_ERROR_IO_FAILED;
	}
	input_is_file = S_ISREG(sb.st_mode);
	/* A block directory without -b: decode it into the file -o names. */
	decode_only = !cfg->do_both && !input_is_file;
	if (cfg->do_both || input_is_file)
		result = ec_encode(cfg, cfg->input_path, cfg->output_path);
	if (result == DOCA_SUCCESS && cfg->do_both)
		result = ec_delete_blocks(cfg->output_path, cfg->delete_indices, cfg->n_delete);
	if (result == DOCA_SUCCESS && (cfg->do_both || decode_only))
		result = ec_decode(cfg, decode_only ? cfg->input_path : cfg->output_path,
				   decode_only ? cfg->output_path : NULL);
	return result;
}
