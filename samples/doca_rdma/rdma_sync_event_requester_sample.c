/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA sync event requester: connect to the responder, import its sync event,
 * set it to 0xD0CA over RDMA, poll it with remote get tasks until the responder
 * answers with a larger value, then set it to UINT64_MAX to tell the responder
 * it is done.  The responder spins in doca_sync_event_wait_gt() all along.
 */
#include <inttypes.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SYNC_EVENT_REQUESTER::SAMPLE);

#define SE_SIGNAL_VALUE 0xD0CAULL /* what the requester sets first; the responder answers above it */

struct se_requester {
	struct doca_rdma_task_remote_net_sync_event_notify_set *set_task;
	struct doca_rdma_task_remote_net_sync_event_get *get_task;
	uint64_t *set_value;	  /* source of the set task (local memory, offset 0) */
	bool set_in_flight;	  /* the set task is submitted and its completion not yet seen */
	bool final_set_wanted;	  /* the answer came before the first set's completion */
	bool final_set_submitted; /* the UINT64_MAX set is on its way */
};

static doca_error_t
submit_final_set(struct rdma_resources *res)
{
	struct se_requester *st = res->priv;
	doca_error_t result;

	DOCA_LOG_INFO("Notifying remote sync event for completion");
	*st->set_value = UINT64_MAX;
	st->final_set_submitted = true;
	st->set_in_flight = true;
	result = doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st->set_task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to resubmit the remote sync event notify set task: %s",
			     doca_error_get_descr(result));
		st->set_in_flight = false;
	}
	return result;
}

static void
set_completed(struct doca_rdma_task_remote_net_sync_event_notify_set *task, union doca_data task_user_data,
	      union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	struct se_requester *st = res->priv;
	doca_error_t result;

	(void)task_user_data;
	st->set_in_flight = false;
	if (st->final_set_submitted) {
		DOCA_LOG_INFO("Remote sync event has been notified for completion successfully");
		rdma_task_complete(res, doca_rdma_task_remote_net_sync_event_notify_set_as_task(task),
				   doca_rdma_task_remote_net_sync_event_notify_set_get_src_buf(task), NULL,
				   DOCA_SUCCESS);
		return;
	}
	DOCA_LOG_INFO("Remote sync event was set to 0x%" PRIx64, (uint64_t)SE_SIGNAL_VALUE);
	if (st->final_set_wanted) {
		result = submit_final_set(res);
		if (result != DOCA_SUCCESS)
			rdma_fail(res, result);
	}
}

static void
set_error(struct doca_rdma_task_remote_net_sync_event_notify_set *task, union doca_data task_user_data,
	  union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_remote_net_sync_event_notify_set_as_task(task),
			 "remote sync event notify set",
			 doca_rdma_task_remote_net_sync_event_notify_set_get_src_buf(task), NULL);
}

static void
get_completed(struct doca_rdma_task_remote_net_sync_event_get *task, union doca_data task_user_data,
	      union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	struct se_requester *st = res->priv;
	struct doca_buf *dst = doca_rdma_task_remote_net_sync_event_get_get_dst_buf(task);
	uint64_t value = 0;
	void *data = NULL;
	doca_error_t result;

	(void)task_user_data;
	result = doca_buf_get_data(dst, &data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the data of the get task's buffer: %s", doca_error_get_descr(result));
		rdma_task_complete(res, doca_rdma_task_remote_net_sync_event_get_as_task(task), dst, NULL, result);
		return;
	}
	memcpy(&value, data, sizeof(value));
	if (value <= SE_SIGNAL_VALUE) {
		/* Not answered yet: read it again with the same task. */
		doca_buf_reset_data_len(dst);
		result = doca_task_submit(doca_rdma_task_remote_net_sync_event_get_as_task(task));
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to resubmit the remote sync event get task: %s",
				     doca_error_get_descr(result));
			rdma_task_complete(res, doca_rdma_task_remote_net_sync_event_get_as_task(task), dst, NULL,
					   result);
		}
		return;
	}

	DOCA_LOG_INFO("Received sync event value 0x%" PRIx64, value);
	rdma_task_complete(res, doca_rdma_task_remote_net_sync_event_get_as_task(task), dst, NULL, DOCA_SUCCESS);
	/* The set task is reused; its first completion may still be queued behind this one. */
	if (st->set_in_flight)
		st->final_set_wanted = true;
	else {
		result = submit_final_set(res);
		if (result != DOCA_SUCCESS)
			rdma_fail(res, result);
	}
}

static void
get_error(struct doca_rdma_task_remote_net_sync_event_get *task, union doca_data task_user_data,
	  union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_remote_net_sync_event_get_as_task(task),
			 "remote sync event get", doca_rdma_task_remote_net_sync_event_get_get_dst_buf(task), NULL);
}

/* Connected, the responder's event imported: submit the first set and the first get. */
static doca_error_t
se_requester_run(struct rdma_resources *res)
{
	struct se_requester *st = res->priv;
	union doca_data task_user_data = {.ptr = res};
	struct doca_buf *src, *dst;
	doca_error_t result;

	st->set_value = (uint64_t *)(void *)res->mmap_memrange;
	*st->set_value = SE_SIGNAL_VALUE;
	result = rdma_local_buf(res, 0, sizeof(uint64_t), true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = rdma_local_buf(res, sizeof(uint64_t), sizeof(uint64_t), false, &dst);
	if (result != DOCA_SUCCESS)
		goto release_src;
	result = doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
		res->rdma, res->connections[0], res->remote_se, src, task_user_data, &st->set_task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate a remote sync event notify set task: %s",
			     doca_error_get_descr(result));
		goto release_dst;
	}
	result = doca_rdma_task_remote_net_sync_event_get_allocate_init(res->rdma, res->connections[0], res->remote_se,
									dst, task_user_data, &st->get_task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate a remote sync event get task: %s", doca_error_get_descr(result));
		doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st->set_task));
		goto release_dst;
	}

	/* One completion each ends the run: the get that sees the answer, the final set. */
	res->num_remaining_tasks = 2;
	DOCA_LOG_INFO("Signaling remote sync event with value 0x%" PRIx64, (uint64_t)SE_SIGNAL_VALUE);
	st->set_in_flight = true;
	result = rdma_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st->set_task),
			     "remote sync event notify set", src, dst);
	if (result != DOCA_SUCCESS) {
		st->set_in_flight = false;
		doca_task_free(doca_rdma_task_remote_net_sync_event_get_as_task(st->get_task));
		return result;
	}
	result = doca_task_submit(doca_rdma_task_remote_net_sync_event_get_as_task(st->get_task));
	if (result != DOCA_SUCCESS) {
		/* The set is in flight and owns src: let its callbacks end the run. */
		DOCA_LOG_ERR("Failed to submit the remote sync event get task: %s", doca_error_get_descr(result));
		doca_task_free(doca_rdma_task_remote_net_sync_event_get_as_task(st->get_task));
		rdma_release_buf(dst);
		return result;
	}
	DOCA_LOG_INFO("Waiting for the responder to answer");
	return DOCA_SUCCESS;

release_dst:
	rdma_release_buf(dst);
release_src:
	rdma_release_buf(src);
	return result;
}

/* The device must offer both remote sync event task types. */
static doca_error_t
se_requester_cap(const struct doca_devinfo *devinfo)
{
	doca_error_t result = doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(devinfo);

	if (result != DOCA_SUCCESS)
		return result;
	return doca_rdma_cap_task_remote_net_sync_event_get_is_supported(devinfo);
}

doca_error_t
rdma_sync_event_requester(struct rdma_config *cfg)
{
	struct se_requester state = {0};
	struct rdma_resources resources = {
		.peer = "responder",
		.role = RDMA_ROLE_REQUESTER,
		.resource = RDMA_RESOURCE_SYNC_EVENT,
		.run = se_requester_run,
		.priv = &state,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 se_requester_cap, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_remote_net_sync_event_notify_set_set_conf(resources.rdma, set_completed, set_error, 1);
	if (result == DOCA_SUCCESS)
		result = doca_rdma_task_remote_net_sync_event_get_set_conf(resources.rdma, get_completed, get_error, 1);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure remote sync event notify set and get tasks: %s",
			     doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* Connecting, importing the responder's event and the tasks start from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
