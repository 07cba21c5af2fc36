/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_pe_polling: the baseline PE pattern.  Submit 16 DMA memcpy tasks, poll
 * doca_pe_progress() until every completion callback has run, check each copy.
 */
#include <doca_log.h>

#include "pe_common.h"

DOCA_LOG_REGISTER(PE_POLLING);

#define NUM_TASKS 16

static doca_error_t
run(void)
{
	static const enum doca_ctx_states expected[] = {DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_IDLE};
	struct pe_sample s;
	doca_error_t result;

	result = pe_sample_setup(&s, NUM_TASKS, NULL, NULL);
	if (result == DOCA_SUCCESS)
		result = pe_sample_submit_all(&s);
	if (result == DOCA_SUCCESS) {
		pe_sample_progress_until_reported(&s, NUM_TASKS);
		if (s.num_succeeded == NUM_TASKS) {
			DOCA_LOG_INFO("All %u tasks completed successfully and every copy was verified", NUM_TASKS);
		} else {
			DOCA_LOG_ERR("%u of %u tasks completed with a correct copy (%u wrong, %u failed)",
				     s.num_succeeded, NUM_TASKS, s.num_bad_copies, s.num_failed);
			result = DOCA_ERROR_UNEXPECTED;
		}
	}
	return pe_sample_finish(&s, result, expected, 2);
}

int
main(void)
{
	return pe_sample_main(run);
}
