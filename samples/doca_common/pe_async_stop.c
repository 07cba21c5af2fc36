/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_pe_async_stop: stop a context from a completion callback while tasks are
 * still in flight.  The 8th success callback calls doca_ctx_stop(), which must
 * answer IN_PROGRESS; the 8 remaining tasks then come back through the error
 * callback (flushed) and the context goes RUNNING -> STOPPING -> IDLE.
 */
#include <doca_log.h>
#include <doca_pe.h>

#include "pe_common.h"

DOCA_LOG_REGISTER(PE_ASYNC_STOP);

#define NUM_TASKS 16
#define STOP_AFTER 8

static doca_error_t stop_result = DOCA_ERROR_UNKNOWN;

static void
stop_on_eighth_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct pe_sample *s = ctx_user_data.ptr;

	pe_sample_success_cb(task, task_user_data, ctx_user_data);
	if (pe_sample_num_reported(s) == STOP_AFTER) {
		stop_result = doca_ctx_stop(s->core.ctx);
		DOCA_LOG_INFO("doca_ctx_stop() from completion %u returned %s", STOP_AFTER,
			      doca_error_get_name(stop_result));
	}
}

static doca_error_t
run(void)
{
	static const enum doca_ctx_states expected[] = {DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING,
							DOCA_CTX_STATE_IDLE};
	struct pe_sample s;
	doca_error_t result;

	result = pe_sample_setup(&s, NUM_TASKS, stop_on_eighth_cb, NULL);
	if (result == DOCA_SUCCESS)
		result = pe_sample_submit_all(&s);
	if (result != DOCA_SUCCESS)
		return pe_sample_finish(&s, result, expected, 3);

	pe_sample_progress_until_idle(&s);
	DOCA_LOG_INFO("%u task(s) completed, %u flushed", s.num_succeeded, s.num_failed);
	if (stop_result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("doca_ctx_stop() with tasks in flight returned %s, expected DOCA_ERROR_IN_PROGRESS",
			     doca_error_get_name(stop_result));
		result = DOCA_ERROR_UNEXPECTED;
	} else if (s.num_succeeded != STOP_AFTER || s.num_failed != NUM_TASKS - STOP_AFTER || s.num_bad_copies) {
		DOCA_LOG_ERR("Expected %u completions then %u flushed tasks", STOP_AFTER, NUM_TASKS - STOP_AFTER);
		result = DOCA_ERROR_UNEXPECTED;
	}
	result = pe_sample_finish(&s, result, expected, 3);
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("Asynchronous stop flushed the in-flight tasks as expected");
	return result;
}

int
main(void)
{
	return pe_sample_main(run);
}
