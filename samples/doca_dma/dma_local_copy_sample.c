/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPU local copy: copy a text from one local buffer to another with a DMA
 * memcpy task, optionally split into chained source/destination buffer lists
 * (-ns/-nd) and repeated over several tasks (-nt), then check the bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma_common.h"
#include "dma_local_copy_sample.h"

DOCA_LOG_REGISTER(DPU_LOCAL_DMA_COPY);

/* Per task: its buffer lists and where its callback stores the result. */
struct local_copy_task {
	struct doca_buf *src_head;
	struct doca_buf *dst_head;
	doca_error_t result;
};

static bool
ranges_overlap(const char *a, size_t a_len, const char *b, size_t b_len)
{
	return a < b + b_len && b < a + a_len;
}

/* Build both buffer lists of task i, allocate it and submit it. */
static doca_error_t
submit_copy_task(struct dma_resources *res, const struct dma_config *cfg, struct local_copy_task *t, char *src,
		 char *dst, size_t len)
{
	struct program_core_objects *state = &res->state;
	struct doca_dma_task_memcpy *task;
	union doca_data user_data;
	doca_error_t result;

	result =
		allocate_doca_buf_list(state->buf_inv, state->src_mmap, src, len, cfg->num_src_buf, true, &t->src_head);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to build the source buffer list: %s", doca_error_get_descr(result));
		return result;
	}
	result = allocate_doca_buf_list(state->buf_inv, state->dst_mmap, dst, len, cfg->num_dst_buf, false,
					&t->dst_head);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to build the destination buffer list: %s", doca_error_get_descr(result));
		return result;
	}

	user_data.ptr = &t->result;
	result = doca_dma_task_memcpy_alloc_init(res->dma_ctx, t->src_head, t->dst_head, user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate a DMA memcpy task: %s", doca_error_get_descr(result));
		return result;
	}
	/*
	 * The engine's queue may be shorter than max_num_tasks: AGAIN means "progress
	 * the PE to drain completions, then submit again", not a failure.  Counted
	 * first, so that draining never sees the count reach 0 (which stops the
	 * context) while this task is still to be submitted.
	 */
	res->num_remaining_tasks++;
	while ((result = doca_task_submit(doca_dma_task_memcpy_as_task(task))) == DOCA_ERROR_AGAIN)
		(void)doca_pe_progress(state->pe);
	if (result != DOCA_SUCCESS) {
		res->num_remaining_tasks--;
		DOCA_LOG_ERR("Failed to submit the DMA memcpy task: %s", doca_error_get_descr(result));
		doca_task_free(doca_dma_task_memcpy_as_task(task));
		return result;
	}
	return DOCA_SUCCESS;
}

/*
 * DOCA's sample trusts the task status; this one also compares every
 * destination with the source before it says "verified".
 */
static doca_error_t
verify_copies(const struct local_copy_task *tasks, int num_tasks, const char *src, const char *dst, size_t len)
{
	int i;

	for (i = 0; i < num_tasks; i++) {
		if (tasks[i].result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("DMA task %d failed: %s", i, doca_error_get_descr(tasks[i].result));
			return tasks[i].result;
		}
		if (memcmp(dst + (size_t)i * len, src, len) != 0) {
			DOCA_LOG_ERR("DMA task %d reported success but the destination differs from the source", i);
			return DOCA_ERROR_UNEXPECTED;
		}
	}
	DOCA_LOG_INFO("Compared the destination with the source byte by byte: %zu byte(s) in %d copy(ies) match", len,
		      num_tasks);
	return DOCA_SUCCESS;
}

doca_error_t
dma_local_copy(const struct dma_config *cfg, char *src_buffer, char *dst_buffer, size_t length)
{
	uint32_t bufs_per_task = (uint32_t)cfg->num_src_buf + (uint32_t)cfg->num_dst_buf;
	size_t dst_length = length * (size_t)cfg->num_tasks;
	struct local_copy_task *tasks;
	struct dma_resources resources;
	struct program_core_objects *state = &resources.state;
	doca_error_t result, tmp;
	int i;

	if (src_buffer == NULL || dst_buffer == NULL || length == 0) {
		DOCA_LOG_ERR("Source and destination buffers must be non-NULL and non-empty");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ranges_overlap(src_buffer, length, dst_buffer, dst_length)) {
		DOCA_LOG_ERR("Source and destination buffers overlap");
		return DOCA_ERROR_INVALID_VALUE;
	}
	tasks = calloc((size_t)cfg->num_tasks, sizeof(*tasks));
	if (tasks == NULL) {
		DOCA_LOG_ERR("Failed to allocate the task table");
		return DOCA_ERROR_NO_MEMORY;
	}

	result = allocate_dma_resources(cfg->pci_address, bufs_per_task, bufs_per_task * (uint32_t)cfg->num_tasks,
					(uint32_t)cfg->num_tasks, &resources);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate DMA resources: %s", doca_error_get_descr(result));
		goto free_tasks;
	}

	result = dma_resources_start(&resources);
	if (result != DOCA_SUCCESS)
		goto finish_resources;

	/* As in DOCA's sample, the mmaps are configured while the context already runs. */
	result = doca_mmap_set_memrange(state->dst_mmap, dst_buffer, dst_length);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(state->dst_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the destination mmap: %s", doca_error_get_descr(result));
		goto finish_resources;
	}
	result = doca_mmap_set_memrange(state->src_mmap, src_buffer, length);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(state->src_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the source mmap: %s", doca_error_get_descr(result));
		goto finish_resources;
	}

	memset(dst_buffer, 0, dst_length);

	for (i = 0; i < cfg->num_tasks; i++) {
		result = submit_copy_task(&resources, cfg, &tasks[i], src_buffer, dst_buffer + (size_t)i * length,
					  length);
		if (result != DOCA_SUCCESS)
			break;
	}

	if (resources.num_remaining_tasks > 0) {
		/* The last completion stops the context; IDLE ends the loop. */
		dma_progress_until_idle(&resources);
		if (result == DOCA_SUCCESS)
			result = verify_copies(tasks, cfg->num_tasks, src_buffer, dst_buffer, length);
		if (result == DOCA_SUCCESS)
			DOCA_LOG_INFO("Success, memory copied and verified as correct");
	}

	for (i = 0; i < cfg->num_tasks; i++) {
		if (tasks[i].dst_head != NULL)
			doca_buf_dec_refcount(tasks[i].dst_head, NULL);
		if (tasks[i].src_head != NULL)
			doca_buf_dec_refcount(tasks[i].src_head, NULL);
	}
finish_resources:
	/* Already IDLE after a completed run: the stop then simply succeeds. */
	tmp = dma_resources_finish(&resources);
	DOCA_ERROR_PROPAGATE(result, tmp);
free_tasks:
	free(tasks);
	return result;
}
