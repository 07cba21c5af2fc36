/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PE sample plumbing (see pe_common.h).  Task i copies PE_SAMPLE_BUF_SIZE bytes
 * of value i + 1 from source area i to destination area i; the success callback
 * reads both bufs back through the task to check the copy.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "pe_common.h"

DOCA_LOG_REGISTER(PE_COMMON);

static const char *
state_name(enum doca_ctx_states state)
{
	static const char *const names[] = {"IDLE", "STARTING", "RUNNING", "STOPPING"};

	return (unsigned int)state < 4 ? names[state] : "?";
}

uint32_t
pe_sample_task_index(struct doca_dma_task_memcpy *task)
{
	return (uint32_t)doca_task_get_user_data(doca_dma_task_memcpy_as_task(task)).u64;
}

doca_error_t
pe_sample_init(struct pe_sample *s, uint32_t num_tasks)
{
	size_t size = (size_t)num_tasks * 2 * PE_SAMPLE_BUF_SIZE;
	struct program_core_objects *core = &s->core;
	doca_error_t result;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->num_tasks = num_tasks;
	s->memory = calloc(1, size);
	s->tasks = calloc(num_tasks, sizeof(*s->tasks));
	if (s->memory == NULL || s->tasks == NULL) {
		DOCA_LOG_ERR("Failed to allocate memory for %u tasks", num_tasks);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (i = 0; i < num_tasks; i++)
		memset(s->memory + (size_t)i * PE_SAMPLE_BUF_SIZE, (int)(i + 1), PE_SAMPLE_BUF_SIZE);

	result = open_doca_device_with_capabilities(doca_dma_cap_task_memcpy_is_supported, &core->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open a DMA-capable device: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_mmap_create(&core->src_mmap);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_permissions(core->src_mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(core->src_mmap, s->memory, size);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(core->src_mmap, core->dev);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(core->src_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the mmap: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_buf_inventory_create((size_t)num_tasks * 2, &core->buf_inv);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_start(core->buf_inv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the buffer inventory: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_pe_create(&core->pe);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to create the progress engine: %s", doca_error_get_descr(result));
	return result;
}

static void
pe_sample_state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
		   enum doca_ctx_states next)
{
	struct pe_sample *s = user_data.ptr;

	(void)ctx;
	DOCA_LOG_INFO("DMA context state: %s -> %s", state_name(prev), state_name(next));
	if (s->num_transitions < PE_SAMPLE_MAX_TRANSITIONS)
		s->transitions[s->num_transitions] = next;
	s->num_transitions++;
}

doca_error_t
pe_sample_start_dma(struct pe_sample *s, doca_dma_task_memcpy_completion_cb_t success_cb,
		    doca_dma_task_memcpy_completion_cb_t error_cb)
{
	union doca_data ctx_user_data = {.ptr = s};
	doca_error_t result;

	result = doca_dma_create(s->core.dev, &s->dma);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the DMA context: %s", doca_error_get_descr(result));
		return result;
	}
	s->core.ctx = doca_dma_as_ctx(s->dma);
	result = doca_ctx_set_user_data(s->core.ctx, ctx_user_data);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(s->core.ctx, pe_sample_state_cb);
	if (result == DOCA_SUCCESS)
		result = doca_dma_task_memcpy_set_conf(s->dma, success_cb != NULL ? success_cb : pe_sample_success_cb,
						       error_cb != NULL ? error_cb : pe_sample_error_cb, s->num_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure the DMA context: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_pe_connect_ctx(s->core.pe, s->core.ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect the DMA context to the PE: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_ctx_start(s->core.ctx);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start the DMA context: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
pe_sample_alloc_tasks(struct pe_sample *s)
{
	uint8_t *dst_base = s->memory + (size_t)s->num_tasks * PE_SAMPLE_BUF_SIZE;
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < s->num_tasks; i++) {
		struct pe_sample_task *t = &s->tasks[i];
		union doca_data task_user_data = {.u64 = i};

		result = doca_buf_inventory_buf_get_by_data(s->core.buf_inv, s->core.src_mmap,
							    s->memory + (size_t)i * PE_SAMPLE_BUF_SIZE,
							    PE_SAMPLE_BUF_SIZE, &t->src);
		if (result == DOCA_SUCCESS)
			result = doca_buf_inventory_buf_get_by_addr(s->core.buf_inv, s->core.src_mmap,
								    dst_base + (size_t)i * PE_SAMPLE_BUF_SIZE,
								    PE_SAMPLE_BUF_SIZE, &t->dst);
		if (result == DOCA_SUCCESS)
			result = doca_dma_task_memcpy_alloc_init(s->dma, t->src, t->dst, task_user_data, &t->task);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to prepare task %u: %s", i, doca_error_get_descr(result));
			return result;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t
pe_sample_submit_all(struct pe_sample *s)
{
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < s->num_tasks; i++) {
		result = doca_task_submit(doca_dma_task_memcpy_as_task(s->tasks[i].task));
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to submit task %u: %s", i, doca_error_get_descr(result));
			/* The caller still owns the refused task and those after it. */
			for (; i < s->num_tasks; i++) {
				doca_task_free(doca_dma_task_memcpy_as_task(s->tasks[i].task));
				s->tasks[i].task = NULL;
			}
			return result;
		}
	}
	return DOCA_SUCCESS;
}

/* Is the destination of a completed task an exact copy of its source? */
static bool
copy_is_correct(struct doca_dma_task_memcpy *task)
{
	const struct doca_buf *src = doca_dma_task_memcpy_get_src(task);
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(task);
	size_t src_len, dst_len;
	void *src_data, *dst_data;

	if (doca_buf_get_data(src, &src_data) != DOCA_SUCCESS || doca_buf_get_data_len(src, &src_len) != DOCA_SUCCESS ||
	    doca_buf_get_data(dst, &dst_data) != DOCA_SUCCESS || doca_buf_get_data_len(dst, &dst_len) != DOCA_SUCCESS)
		return false;
	return src_len == dst_len && memcmp(src_data, dst_data, src_len) == 0;
}

void
pe_sample_record(struct pe_sample *s, struct doca_dma_task_memcpy *task, bool success)
{
	uint32_t i = pe_sample_task_index(task);
	struct pe_sample_task *t = &s->tasks[i];

	t->status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	t->reported = true;
	if (!success) {
		s->num_failed++;
		DOCA_LOG_DBG("Task %u ended with %s", i, doca_error_get_name(t->status));
	} else if (copy_is_correct(task)) {
		s->num_succeeded++;
	} else {
		s->num_bad_copies++;
		DOCA_LOG_ERR("Task %u reported success but its destination differs from its source", i);
	}
}

void
pe_sample_success_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct pe_sample *s = ctx_user_data.ptr;

	(void)task_user_data;
	pe_sample_record(s, task, true);
	s->tasks[pe_sample_task_index(task)].task = NULL;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

void
pe_sample_error_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct pe_sample *s = ctx_user_data.ptr;

	(void)task_user_data;
	pe_sample_record(s, task, false);
	s->tasks[pe_sample_task_index(task)].task = NULL;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

uint32_t
pe_sample_num_reported(const struct pe_sample *s)
{
	return s->num_succeeded + s->num_bad_copies + s->num_failed;
}

void
pe_sample_progress_until_reported(struct pe_sample *s, uint32_t n)
{
	while (pe_sample_num_reported(s) < n) {
		if (doca_pe_progress(s->core.pe) == 0)
			usleep(10);
	}
}

void
pe_sample_progress_until_idle(struct pe_sample *s)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_RUNNING;

	while (doca_ctx_get_state(s->core.ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE) {
		if (doca_pe_progress(s->core.pe) == 0)
			usleep(10);
	}
}

bool
pe_sample_all_reported(const struct pe_sample *s)
{
	uint32_t i;

	for (i = 0; i < s->num_tasks; i++) {
		if (!s->tasks[i].reported) {
			DOCA_LOG_ERR("Task %u was never reported to a callback", i);
			return false;
		}
	}
	return true;
}

bool
pe_sample_saw_transitions(const struct pe_sample *s, const enum doca_ctx_states *expected, uint32_t n)
{
	uint32_t i;

	if (s->num_transitions != n)
		return false;
	for (i = 0; i < n; i++)
		if (s->transitions[i] != expected[i])
			return false;
	return true;
}

doca_error_t
pe_sample_cleanup(struct pe_sample *s)
{
	doca_error_t result = DOCA_SUCCESS, tmp;
	uint32_t i;

	/*
	 * Every step runs whatever failed before it (DOCA_ERROR_PROPAGATE evaluates
	 * its second argument only while result is SUCCESS, so call first).
	 */
	for (i = 0; s->tasks != NULL && i < s->num_tasks; i++) {
		if (s->tasks[i].task != NULL)
			doca_task_free(doca_dma_task_memcpy_as_task(s->tasks[i].task));
		if (s->tasks[i].dst != NULL) {
			tmp = doca_buf_dec_refcount(s->tasks[i].dst, NULL);
			DOCA_ERROR_PROPAGATE(result, tmp);
		}
		if (s->tasks[i].src != NULL) {
			tmp = doca_buf_dec_refcount(s->tasks[i].src, NULL);
			DOCA_ERROR_PROPAGATE(result, tmp);
		}
	}
	if (s->dma != NULL) {
		tmp = request_stop_ctx(s->core.pe, s->core.ctx);
		DOCA_ERROR_PROPAGATE(result, tmp);
		tmp = doca_dma_destroy(s->dma);
		DOCA_ERROR_PROPAGATE(result, tmp);
		s->dma = NULL;
		s->core.ctx = NULL;
	}
	tmp = destroy_core_objects(&s->core);
	DOCA_ERROR_PROPAGATE(result, tmp);
	free(s->tasks);
	free(s->memory);
	s->tasks = NULL;
	s->memory = NULL;
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cleanup failed: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
pe_sample_setup(struct pe_sample *s, uint32_t num_tasks, doca_dma_task_memcpy_completion_cb_t success_cb,
		doca_dma_task_memcpy_completion_cb_t error_cb)
{
	doca_error_t result;

	result = pe_sample_init(s, num_tasks);
	if (result == DOCA_SUCCESS)
		result = pe_sample_start_dma(s, success_cb, error_cb);
	if (result == DOCA_SUCCESS)
		result = pe_sample_alloc_tasks(s);
	return result;
}

doca_error_t
pe_sample_finish(struct pe_sample *s, doca_error_t result, const enum doca_ctx_states *expected, uint32_t n)
{
	doca_error_t tmp;
	uint32_t i;

	if (result == DOCA_SUCCESS && !pe_sample_all_reported(s))
		result = DOCA_ERROR_UNEXPECTED;
	/* Whatever remains is stopped now, so IDLE is part of every expected list. */
	if (result == DOCA_SUCCESS)
		result = request_stop_ctx(s->core.pe, s->core.ctx);
	if (result == DOCA_SUCCESS && !pe_sample_saw_transitions(s, expected, n)) {
		DOCA_LOG_ERR("The state callback did not report the expected states:");
		for (i = 0; i < n; i++)
			DOCA_LOG_ERR("  expected %s", state_name(expected[i]));
		for (i = 0; i < s->num_transitions && i < PE_SAMPLE_MAX_TRANSITIONS; i++)
			DOCA_LOG_ERR("  seen %s", state_name(s->transitions[i]));
		result = DOCA_ERROR_UNEXPECTED;
	}
	/* Clean up after a failure too: call first, then keep the first error. */
	tmp = pe_sample_cleanup(s);
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

int
pe_sample_main(doca_error_t (*run)(void))
{
	doca_error_t result;

	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	DOCA_LOG_INFO("Starting the sample");
	result = run();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Sample failed: %s", doca_error_get_descr(result));
		DOCA_LOG_INFO("Sample finished with errors");
		return EXIT_FAILURE;
	}
	DOCA_LOG_INFO("Sample finished successfully");
	return EXIT_SUCCESS;
}
