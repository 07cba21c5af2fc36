/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_sha_partial_create: DOCA's partial SHA sample.  -d/--data (default the
 * 80-character "1111111122222222...0000000", longer than one partial block) is
 * hashed with SHA-256 by one partial hash task, submitted once per block-sized
 * segment: each completion moves the one source buffer's data window to the
 * next segment and resubmits the task, marking the last segment final.  The
 * last completion frees the task and stops the context; the digest is printed
 * as "SHA256 output is: <hex>".
 */
#include <string.h>

#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sha_common.h"

DOCA_LOG_REGISTER(SHA_PARTIAL_CREATE);

#define LOG_NUM_PARTIAL_SHA_TASKS 0 /* 2^0: one task, resubmitted */

static const char default_data[] = "11111111222222223333333344444444555555556666666677777777888888889999999900000000";

/* Point the source at the next segment (a block, or what is left: the final one) and submit. */
static doca_error_t
submit_next_segment(struct sha_resources *r, struct doca_sha_task_partial_hash *task)
{
	size_t len = r->remaining_src_len > r->partial_block_size ? r->partial_block_size : r->remaining_src_len;
	doca_error_t result;

	result = doca_buf_set_data(r->src_doca_buf, (void *)(uintptr_t)r->src_next, len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set data for source buffer: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_sha_task_partial_hash_set_src(task, r->src_doca_buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set source buffer for SHA partial hash task: %s", doca_error_get_descr(result));
		return result;
	}
	if (len == r->remaining_src_len) {
		result = doca_sha_task_partial_hash_set_is_final_buf(task);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to set final buffer for SHA partial hash task: %s",
				     doca_error_get_descr(result));
			return result;
		}
	}
	r->src_next += len;
	r->remaining_src_len -= len;
	result = doca_task_submit(doca_sha_task_partial_hash_as_task(task));
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to submit SHA partial hash task: %s", doca_error_get_descr(result));
	return result;
}

static void
partial_completed_cb(struct doca_sha_task_partial_hash *task, union doca_data task_user_data,
		     union doca_data ctx_user_data)
{
	struct sha_resources *r = ctx_user_data.ptr;
	bool last = r->remaining_src_len == 0;

	(void)task_user_data;
	r->result = DOCA_SUCCESS;
	DOCA_LOG_INFO("SHA hash task has completed successfully");
	if (!last)
		r->result = submit_next_segment(r, task);
	if (last || r->result != DOCA_SUCCESS) {
		doca_task_free(doca_sha_task_partial_hash_as_task(task));
		(void)doca_ctx_stop(r->state.ctx);
	}
}

static void
partial_error_cb(struct doca_sha_task_partial_hash *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct sha_resources *r = ctx_user_data.ptr;

	(void)task_user_data;
	sha_sample_task_failed(r, doca_sha_task_partial_hash_as_task(task), "partial hash");
	(void)doca_ctx_stop(r->state.ctx);
}

static doca_error_t
sha_partial_hash_is_supported(const struct doca_devinfo *devinfo)
{
	return doca_sha_cap_task_partial_hash_get_supported(devinfo, SHA_SAMPLE_ALGORITHM);
}

/* The session: one task for every segment, the first submitted here, the others by the callback. */
static doca_error_t
hash_in_segments(struct sha_resources *r, const char *data, size_t len, struct doca_buf *dst)
{
	struct doca_sha_task_partial_hash *task;
	union doca_data task_user_data = {0};
	doca_error_t result;

	result = doca_buf_inventory_buf_get_by_data(r->state.buf_inv, r->state.src_mmap, (void *)(uintptr_t)data, len,
						    &r->src_doca_buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to acquire DOCA buffer representing source buffer: %s",
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_sha_task_partial_hash_alloc_init(r->sha_ctx, SHA_SAMPLE_ALGORITHM, r->src_doca_buf, dst,
						       task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate SHA partial hash task: %s", doca_error_get_descr(result));
		goto release_src;
	}
	r->src_next = data;
	r->remaining_src_len = len;
	result = submit_next_segment(r, task);
	if (result != DOCA_SUCCESS) {
		doca_task_free(doca_sha_task_partial_hash_as_task(task));
		goto release_src;
	}
	sha_sample_wait_stopped(r);
	result = r->result;
release_src:
	doca_buf_dec_refcount(r->src_doca_buf, NULL);
	return result;
}

static doca_error_t
sha_partial_create(const char *data)
{
	struct sha_resources r;
	struct doca_buf *dst = NULL;
	size_t len = strlen(data);
	uint32_t min_dst = 0;
	doca_error_t result, cleanup;

	memset(&r, 0, sizeof(r));
	result = sha_sample_open(&r, sha_partial_hash_is_supported, "partial hash");
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_sha_cap_get_min_dst_buf_size(doca_dev_as_devinfo(r.state.dev), SHA_SAMPLE_ALGORITHM, &min_dst);
	if (result == DOCA_SUCCESS)
		result = doca_sha_cap_get_partial_hash_block_size(doca_dev_as_devinfo(r.state.dev),
								  SHA_SAMPLE_ALGORITHM, &r.partial_block_size);
	if (result == DOCA_SUCCESS && len <= r.partial_block_size) {
		DOCA_LOG_ERR("User data length %zu should be bigger than one partial hash block size %u", len,
			     r.partial_block_size);
		result = DOCA_ERROR_INVALID_VALUE;
	}
	if (result == DOCA_SUCCESS)
		result = doca_sha_task_partial_hash_set_conf(r.sha_ctx, partial_completed_cb, partial_error_cb,
							     LOG_NUM_PARTIAL_SHA_TASKS);
	if (result == DOCA_SUCCESS)
		result = sha_sample_src_mmap(&r, data, len);
	if (result == DOCA_SUCCESS)
		result = sha_sample_dst(&r, min_dst, &dst);
	if (result == DOCA_SUCCESS)
		result = sha_sample_start(&r);
	if (result == DOCA_SUCCESS)
		result = hash_in_segments(&r, data, len, dst);
	if (result == DOCA_SUCCESS)
		result = sha_sample_print(dst);
	if (dst != NULL)
		doca_buf_dec_refcount(dst, NULL);
	cleanup = sha_sample_cleanup(&r);
	DOCA_ERROR_PROPAGATE(result, cleanup);
	return result;
}

int
main(int argc, char **argv)
{
	return sha_sample_main(argc, argv, "sha_partial_create", default_data, sha_partial_create);
}
