/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_sha_create: DOCA's SHA sample.  One hash task computes the SHA-256 of
 * -d/--data (default "1234567890abcdef", 1 to 1024 characters) on the first
 * device that can hash, and the digest is printed as "SHA256 output is: <hex>".
 * The completion callback frees the task and stops the context; the destination
 * is exactly doca_sha_cap_get_min_dst_buf_size() bytes, freed by its mmap.
 */
#include <inttypes.h>
#include <string.h>

#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sha_common.h"

DOCA_LOG_REGISTER(SHA_CREATE);

#define LOG_NUM_SHA_TASKS 0 /* 2^0: one task */

static void
hash_completed_cb(struct doca_sha_task_hash *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct sha_resources *r = ctx_user_data.ptr;

	(void)task_user_data;
	r->result = DOCA_SUCCESS;
	DOCA_LOG_INFO("SHA hash task has completed successfully");
	doca_task_free(doca_sha_task_hash_as_task(task));
	if (--r->num_remaining_tasks == 0)
		(void)doca_ctx_stop(r->state.ctx);
}

static void
hash_error_cb(struct doca_sha_task_hash *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct sha_resources *r = ctx_user_data.ptr;

	(void)task_user_data;
	sha_sample_task_failed(r, doca_sha_task_hash_as_task(task), "hash");
	if (--r->num_remaining_tasks == 0)
		(void)doca_ctx_stop(r->state.ctx);
}

static doca_error_t
sha_hash_is_supported(const struct doca_devinfo *devinfo)
{
	return doca_sha_cap_task_hash_get_supported(devinfo, SHA_SAMPLE_ALGORITHM);
}

/* Allocate and submit the task, then progress until the callback stopped the context. */
static doca_error_t
hash_once(struct sha_resources *r, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_sha_task_hash *task;
	union doca_data task_user_data = {0};
	doca_error_t result;

	result = doca_sha_task_hash_alloc_init(r->sha_ctx, SHA_SAMPLE_ALGORITHM, src, dst, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate SHA hash task: %s", doca_error_get_descr(result));
		return result;
	}
	r->num_remaining_tasks = 1;
	result = doca_task_submit(doca_sha_task_hash_as_task(task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit SHA hash task: %s", doca_error_get_descr(result));
		doca_task_free(doca_sha_task_hash_as_task(task));
		return result;
	}
	sha_sample_wait_stopped(r);
	return r->result;
}

static doca_error_t
sha_create(const char *data)
{
	struct sha_resources r;
	struct doca_buf *src = NULL, *dst = NULL;
	size_t len = strlen(data);
	uint64_t max_src = 0;
	uint32_t min_dst = 0;
	doca_error_t result, cleanup;

	memset(&r, 0, sizeof(r));
	result = sha_sample_open(&r, sha_hash_is_supported, "hash");
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_sha_cap_get_max_src_buf_size(doca_dev_as_devinfo(r.state.dev), &max_src);
	if (result == DOCA_SUCCESS && len > max_src) {
		DOCA_LOG_ERR("User data length %zu exceeds the maximum length %" PRIu64 " for DOCA SHA", len, max_src);
		result = DOCA_ERROR_INVALID_VALUE;
	}
	if (result == DOCA_SUCCESS)
		result = doca_sha_cap_get_min_dst_buf_size(doca_dev_as_devinfo(r.state.dev), SHA_SAMPLE_ALGORITHM,
							   &min_dst);
	if (result == DOCA_SUCCESS)
		result = doca_sha_task_hash_set_conf(r.sha_ctx, hash_completed_cb, hash_error_cb, LOG_NUM_SHA_TASKS);
	if (result == DOCA_SUCCESS)
		result = sha_sample_dst(&r, min_dst, &dst);
	if (result == DOCA_SUCCESS)
		result = sha_sample_src_mmap(&r, data, len);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_buf_get_by_data(r.state.buf_inv, r.state.src_mmap, (void *)(uintptr_t)data,
							    len, &src);
	if (result == DOCA_SUCCESS)
		result = sha_sample_start(&r);
	if (result == DOCA_SUCCESS)
		result = hash_once(&r, src, dst);
	if (result == DOCA_SUCCESS)
		result = sha_sample_print(dst);
	if (src != NULL)
		doca_buf_dec_refcount(src, NULL);
	if (dst != NULL)
		doca_buf_dec_refcount(dst, NULL);
	cleanup = sha_sample_cleanup(&r);
	DOCA_ERROR_PROPAGATE(result, cleanup);
	return result;
}

int
main(int argc, char **argv)
{
	return sha_sample_main(argc, argv, "sha_create", "1234567890abcdef", sha_create);
}
