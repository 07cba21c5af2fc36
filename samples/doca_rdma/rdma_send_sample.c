/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA send: connect to the receiver (descriptor files or RDMA-CM), then send
 * the -s string from the first 256 bytes of local memory with one send task.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SEND::SAMPLE);

static void
send_completed_callback(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	DOCA_LOG_INFO("RDMA send task was done successfully");
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_send_as_task(task), doca_rdma_task_send_get_src_buf(task),
			   NULL, DOCA_SUCCESS);
}

static void
send_error_callback(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_send_as_task(task), "send",
			 doca_rdma_task_send_get_src_buf(task), NULL);
}

/* Connected: put the string in local memory and send it. */
static doca_error_t
send_submit(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_send *task;
	struct doca_buf *src;
	doca_error_t result;

	rdma_put_text(res, 0, res->cfg->send_string);
	result = rdma_local_buf(res, 0, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_rdma_task_send_allocate_init(res->rdma, res->connections[0], src, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA send task: %s", doca_error_get_descr(result));
		rdma_release_buf(src);
		return result;
	}
	DOCA_LOG_INFO("Submitting RDMA send task that sends \"%s\" to receiver", res->cfg->send_string);
	res->num_remaining_tasks = 1;
	return rdma_submit(doca_rdma_task_send_as_task(task), "RDMA send", src, NULL);
}

doca_error_t
rdma_send(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "receiver",
		.role = RDMA_ROLE_PEER,
		.run = send_submit,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_send_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_send_set_conf(resources.rdma, send_completed_callback, send_error_callback, 1);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure RDMA send tasks: %s", doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* The connection is made and the send submitted from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
