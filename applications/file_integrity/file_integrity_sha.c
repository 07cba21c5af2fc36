/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File Integrity's SHA side (file_integrity_core.h): the context on the first
 * device with partial SHA-256 hashes, the client's one hash task over the
 * mmapped file, the server's two preallocated tasks (hash, partial hash) over
 * one source buffer that every chunk is copied into, resubmitted per chunk and
 * never freed in their callbacks, and the digest line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "file_integrity_core.h"

DOCA_LOG_REGISTER(FILE_INTEGRITY::SHA);

#define SLEEP_IN_NANOS (10 * 1000)
#define LOG_NUM_SHA_TASKS 0 /* one task of each family */

/* --- callbacks: the task's status, and one task fewer in flight ------------------------------------ */

static void
task_done(union doca_data ctx_user_data, struct doca_task *task)
{
	struct fi_sha *s = ctx_user_data.ptr;

	s->result = doca_task_get_status(task);
	s->active--;
}

static void
hash_cb(struct doca_sha_task_hash *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	task_done(ctx_user_data, doca_sha_task_hash_as_task(task));
}

static void
partial_cb(struct doca_sha_task_partial_hash *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	task_done(ctx_user_data, doca_sha_task_partial_hash_as_task(task));
}

static doca_error_t
partial_sha256_supported(const struct doca_devinfo *devinfo)
{
	return doca_sha_cap_task_partial_hash_get_supported(devinfo, FI_SHA_ALGORITHM);
}

static void
free_cb(void *addr, size_t len, void *opaque)
{
	(void)len;
	(void)opaque;
	free(addr);
}

static void
unmap_cb(void *addr, size_t len, void *opaque)
{
	(void)opaque;
	munmap(addr, len);
}

/* mmap over [mem, mem + len), started; from the first call on, mem is the mmap's (cb frees it, even on failure). */
static doca_error_t
own_range(struct doca_mmap *mmap, void *mem, size_t len, doca_mmap_memrange_free_cb_t *cb)
{
	doca_error_t result = doca_mmap_set_memrange(mmap, mem, len);

	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_free_cb(mmap, cb, NULL);
	if (result != DOCA_SUCCESS) {
		cb(mem, len, NULL);
		return result;
	}
	return doca_mmap_start(mmap);
}

/* Submit task and progress until its callback ran; the task's status. */
static doca_error_t
run_task(struct fi_sha *s, struct doca_task *task)
{
	struct timespec ts = {.tv_nsec = SLEEP_IN_NANOS};
	doca_error_t result;

	s->active++;
	result = doca_task_submit(task);
	if (result != DOCA_SUCCESS) {
		s->active--;
		DOCA_LOG_ERR("Failed to submit SHA task: %s", doca_error_get_descr(result));
		return result;
	}
	while (s->active > 0)
		if (doca_pe_progress(s->state.pe) == 0)
			nanosleep(&ts, NULL);
	return s->result;
}

/* The destination: digest_len bytes, freed by the destination mmap's callback. */
static doca_error_t
make_dst(struct fi_sha *s)
{
	uint8_t *mem = calloc(1, s->digest_len);
	doca_error_t result;

	if (mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	result = own_range(s->state.dst_mmap, mem, s->digest_len, free_cb);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_buf_get_by_addr(s->state.buf_inv, s->state.dst_mmap, mem, s->digest_len,
							    &s->dst);
	return result;
}

/* The caps the two sides use: block size, largest source, digest length. */
static doca_error_t
read_caps(struct fi_sha *s)
{
	struct doca_devinfo *info = doca_dev_as_devinfo(s->state.dev);
	doca_error_t result;

	result = doca_sha_cap_get_partial_hash_block_size(info, FI_SHA_ALGORITHM, &s->block_size);
	if (result == DOCA_SUCCESS)
		result = doca_sha_cap_get_max_src_buf_size(info, &s->max_src);
	if (result == DOCA_SUCCESS)
		result = doca_sha_cap_get_min_dst_buf_size(info, FI_SHA_ALGORITHM, &s->digest_len);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to read the SHA capabilities: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
fi_sha_init(struct fi_sha *s, bool server)
{
	union doca_data ud = {.ptr = s};
	doca_error_t result;

	result = open_doca_device_with_capabilities(partial_sha256_supported, &s->state.dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init DOCA device with SHA capabilities: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_sha_create(s->state.dev, &s->sha);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init sha library: %s", doca_error_get_descr(result));
		return result;
	}
	s->state.ctx = doca_sha_as_ctx(s->sha);
	result = create_core_objects(&s->state, 2);
	if (result == DOCA_SUCCESS)
		result = doca_pe_connect_ctx(s->state.pe, s->state.ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(s->state.ctx, ud);
	if (result == DOCA_SUCCESS)
		result = doca_sha_task_hash_set_conf(s->sha, hash_cb, hash_cb, LOG_NUM_SHA_TASKS);
	if (result == DOCA_SUCCESS && server)
		result = doca_sha_task_partial_hash_set_conf(s->sha, partial_cb, partial_cb, LOG_NUM_SHA_TASKS);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the SHA context: %s", doca_error_get_descr(result));
		return result;
	}
	result = read_caps(s);
	if (result == DOCA_SUCCESS)
		result = make_dst(s);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to create the SHA destination buffer: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
fi_sha_hash_file(struct fi_sha *s, void *data, size_t len)
{
	struct doca_buf *src = NULL;
	union doca_data ud = {0};
	doca_error_t result;

	result = own_range(s->state.src_mmap, data, len, unmap_cb);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_buf_get_by_addr(s->state.buf_inv, s->state.src_mmap, data, len, &src);
	if (result == DOCA_SUCCESS)
		result = doca_buf_set_data(src, data, len);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_start(s->state.ctx);
	if (result == DOCA_SUCCESS)
		result = doca_sha_task_hash_alloc_init(s->sha, FI_SHA_ALGORITHM, src, s->dst, ud, &s->hash);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to prepare the SHA hash task: %s", doca_error_get_descr(result));
	} else {
		result = run_task(s, doca_sha_task_hash_as_task(s->hash));
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("SHA hash task failed: %s", doca_error_get_descr(result));
	}
	if (src != NULL)
		doca_buf_dec_refcount(src, NULL);
	return result;
}

doca_error_t
fi_sha_server_start(struct fi_sha *s, size_t src_cap, uint8_t **src_data)
{
	union doca_data ud = {0};
	struct doca_buf *src = NULL;
	uint8_t *mem = calloc(1, src_cap);
	doca_error_t result;

	if (mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	result = own_range(s->state.src_mmap, mem, src_cap, free_cb);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_buf_get_by_data(s->state.buf_inv, s->state.src_mmap, mem, src_cap, &src);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_start(s->state.ctx);
	if (result == DOCA_SUCCESS)
		result = doca_sha_task_hash_alloc_init(s->sha, FI_SHA_ALGORITHM, src, s->dst, ud, &s->hash);
	if (result == DOCA_SUCCESS)
		result = doca_sha_task_partial_hash_alloc_init(s->sha, FI_SHA_ALGORITHM, src, s->dst, ud, &s->partial);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to prepare the SHA tasks: %s", doca_error_get_descr(result));
		if (src != NULL)
			doca_buf_dec_refcount(src, NULL);
		return result;
	}
	*src_data = mem;
	return DOCA_SUCCESS;
}

doca_error_t
fi_sha_server_chunk(struct fi_sha *s, size_t len, uint32_t index, uint32_t total)
{
	struct doca_buf *src = (struct doca_buf *)(uintptr_t)doca_sha_task_hash_get_src(s->hash);
	void *head = NULL;
	doca_error_t result;

	result = doca_buf_get_head(src, &head);
	if (result == DOCA_SUCCESS)
		result = doca_buf_set_data(src, head, len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_buf_set_data() for request doca_buf failure: %s", doca_error_get_descr(result));
		return result;
	}
	/* One chunk: the whole file in one hash task (a partial session never starts with its final segment). */
	if (total == 1) {
		result = doca_sha_task_hash_set_src(s->hash, src);
		return result == DOCA_SUCCESS ? run_task(s, doca_sha_task_hash_as_task(s->hash)) : result;
	}
	result = doca_sha_task_partial_hash_set_src(s->partial, src);
	if (result == DOCA_SUCCESS && index == total - 1)
		result = doca_sha_task_partial_hash_set_is_final_buf(s->partial);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to prepare the SHA partial hash task: %s", doca_error_get_descr(result));
		return result;
	}
	return run_task(s, doca_sha_task_partial_hash_as_task(s->partial));
}

doca_error_t
fi_sha_print(struct fi_sha *s, const uint8_t **digest, size_t *len)
{
	char hex[2 * 64 + 1] = "";
	void *data = NULL;
	doca_error_t result;

	result = doca_buf_get_data_len(s->dst, len);
	if (result == DOCA_SUCCESS)
		result = doca_buf_get_data(s->dst, &data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the SHA destination buffer: %s", doca_error_get_descr(result));
		return result;
	}
	if (*len == 0 || *len > 64) {
		DOCA_LOG_ERR("Error in calculating SHA - output length is %zu", *len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*digest = data;
	for (size_t i = 0; i < *len; i++)
		snprintf(hex + 2 * i, 3, "%02x", (*digest)[i]);
	DOCA_LOG_INFO("SHA256 output is: %s", hex);
	return DOCA_SUCCESS;
}

void
fi_sha_cleanup(struct fi_sha *s)
{
	struct doca_buf *src = NULL;
	doca_error_t result;

	if (s->partial != NULL) {
		src = (struct doca_buf *)(uintptr_t)doca_sha_task_partial_hash_get_src(s->partial);
		doca_task_free(doca_sha_task_partial_hash_as_task(s->partial));
	}
	if (s->hash != NULL)
		doca_task_free(doca_sha_task_hash_as_task(s->hash));
	if (src != NULL)
		doca_buf_dec_refcount(src, NULL); /* the server's source (the client's went with its task) */
	if (s->dst != NULL)
		doca_buf_dec_refcount(s->dst, NULL);
	if (s->state.pe != NULL && s->state.ctx != NULL) {
		result = request_stop_ctx(s->state.pe, s->state.ctx);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to stop DOCA SHA: %s", doca_error_get_descr(result));
	}
	if (s->sha != NULL) {
		result = doca_sha_destroy(s->sha);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy DOCA SHA: %s", doca_error_get_descr(result));
	}
	result = destroy_core_objects(&s->state);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy core objects: %s", doca_error_get_descr(result));
}
