/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_pe_event: event-driven progress.  Instead of spinning, the thread sleeps
 * in epoll_wait() on the PE's notification handle: arm the notification, sleep,
 * clear it, progress while there is work, repeat until 16 copies are done.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_log.h>
#include <doca_pe.h>

#include "pe_common.h"

DOCA_LOG_REGISTER(PE_EVENT);

#define NUM_TASKS 16
#define WAIT_MS 10000 /* a notification that never comes is a failure, not a hang */

/*
 * Arm the notification and sleep until the PE has work.  Right after the
 * submissions nothing has been progressed yet, so the first sleep must end
 * with a wake-up, not by the timeout.
 */
static doca_error_t
sleep_until_work(struct pe_sample *s, int epoll_fd)
{
	struct epoll_event event;
	doca_error_t result;
	int n;

	result = doca_pe_request_notification(s->core.pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to arm the notification: %s", doca_error_get_descr(result));
		return result;
	}
	do {
		n = epoll_wait(epoll_fd, &event, 1, WAIT_MS);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		DOCA_LOG_ERR("epoll_wait failed: %s", strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	if (n == 0) {
		DOCA_LOG_ERR("No notification within %d ms with %u task(s) outstanding", WAIT_MS,
			     NUM_TASKS - pe_sample_num_reported(s));
		return DOCA_ERROR_TIME_OUT;
	}
	/* DOCA's sample passes 0 here: the handle is not checked. */
	result = doca_pe_clear_notification(s->core.pe, 0);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to clear the notification: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
wait_for_completions(struct pe_sample *s, int epoll_fd, unsigned int *num_sleeps)
{
	doca_error_t result;

	while (pe_sample_num_reported(s) < NUM_TASKS) {
		result = sleep_until_work(s, epoll_fd);
		if (result != DOCA_SUCCESS)
			return result;
		(*num_sleeps)++;
		while (doca_pe_progress(s->core.pe) != 0)
			;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
run(void)
{
	static const enum doca_ctx_states expected[] = {DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_IDLE};
	struct epoll_event event = {.events = EPOLLIN};
	doca_notification_handle_t handle;
	unsigned int num_sleeps = 0;
	struct pe_sample s;
	int epoll_fd = -1;
	doca_error_t result;

	result = pe_sample_setup(&s, NUM_TASKS, NULL, NULL);
	if (result == DOCA_SUCCESS)
		result = doca_pe_get_notification_handle(s.core.pe, &handle);
	if (result != DOCA_SUCCESS)
		goto finish;

	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, handle, &event) != 0) {
		DOCA_LOG_ERR("Failed to watch the PE's notification handle %d: %s", handle, strerror(errno));
		result = DOCA_ERROR_OPERATING_SYSTEM;
		goto finish;
	}
	result = pe_sample_submit_all(&s);
	if (result == DOCA_SUCCESS)
		result = wait_for_completions(&s, epoll_fd, &num_sleeps);
	if (result == DOCA_SUCCESS && s.num_succeeded != NUM_TASKS) {
		DOCA_LOG_ERR("%u of %u copies were correct", s.num_succeeded, NUM_TASKS);
		result = DOCA_ERROR_UNEXPECTED;
	}
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("All %u tasks completed and verified; the thread slept in epoll_wait %u time(s)",
			      NUM_TASKS, num_sleeps);
finish:
	if (epoll_fd >= 0)
		close(epoll_fd);
	return pe_sample_finish(&s, result, expected, 2);
}

int
main(void)
{
	return pe_sample_main(run);
}
