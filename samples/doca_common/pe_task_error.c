/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_pe_task_error: one bad task among many.  Task 2 gets a source with no
 * data (doca_buf_reset_data_len); it fails through the error callback, the
 * context moves to STOPPING by itself, every other in-flight task is flushed,
 * and the context reaches IDLE with no doca_ctx_stop() call.
 */
#include <doca_buf.h>
#include <doca_log.h>

#include "pe_common.h"

DOCA_LOG_REGISTER(PE_TASK_ERROR);

#define NUM_TASKS 255
#define BAD_TASK 2

static doca_error_t
run(void)
{
	static const enum doca_ctx_states expected[] = {DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING,
							DOCA_CTX_STATE_IDLE};
	struct pe_sample s;
	size_t inflight = 1;
	doca_error_t result;

	result = pe_sample_setup(&s, NUM_TASKS, NULL, NULL);
	if (result == DOCA_SUCCESS)
		result = doca_buf_reset_data_len(s.tasks[BAD_TASK].src);
	if (result == DOCA_SUCCESS)
		result = pe_sample_submit_all(&s);
	if (result != DOCA_SUCCESS)
		return pe_sample_finish(&s, result, expected, 3);

	/* No stop call: the failed task stops the context. */
	pe_sample_progress_until_idle(&s);
	result = doca_ctx_get_num_inflight_tasks(s.core.ctx, &inflight);
	DOCA_LOG_INFO("Task %u ended with %s; %u task(s) completed, %u failed or flushed, %zu in flight", BAD_TASK,
		      doca_error_get_name(s.tasks[BAD_TASK].status), s.num_succeeded, s.num_failed, inflight);
	if (result == DOCA_SUCCESS && (!s.tasks[BAD_TASK].reported || s.tasks[BAD_TASK].status == DOCA_SUCCESS)) {
		DOCA_LOG_ERR("The task with an empty source did not fail");
		result = DOCA_ERROR_UNEXPECTED;
	} else if (result == DOCA_SUCCESS && (inflight != 0 || s.num_bad_copies != 0)) {
		DOCA_LOG_ERR("No task may stay in flight and no completed copy may be wrong");
		result = DOCA_ERROR_UNEXPECTED;
	}
	result = pe_sample_finish(&s, result, expected, 3);
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("The failed task stopped the context and the rest were flushed, as expected");
	return result;
}

int
main(void)
{
	return pe_sample_main(run);
}
