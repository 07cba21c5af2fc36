/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA multi-connection send: make -nc connections on one RDMA context (one
 * descriptor file pair and one Enter per connection, files "<path>-%04u"),
 * then send the -s string once on each, from its own 256-byte slice.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_MULTI_CONN_SEND::SAMPLE);

static void
send_completed_callback(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	DOCA_LOG_INFO("RDMA send task on connection %u was done successfully", (unsigned int)task_user_data.u64);
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

/* Send the string on connection i from slice i; the task's user data is i. */
static doca_error_t
send_on_connection(struct rdma_resources *res, uint32_t i)
{
	union doca_data task_user_data = {.u64 = i};
	struct doca_rdma_task_send *task;
	struct doca_buf *src;
	doca_error_t result;

	rdma_put_text(res, (size_t)i * RDMA_MSG_LEN, res->cfg->send_string);
	result = rdma_local_buf(res, (size_t)i * RDMA_MSG_LEN, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_rdma_task_send_allocate_init(res->rdma, res->connections[i], src, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA send task: %s", doca_error_get_descr(result));
		rdma_release_buf(src);
		return result;
	}
	DOCA_LOG_INFO("Submitting RDMA send task that sends \"%s\" to receiver on connection %u", res->cfg->send_string,
		      i);
	res->num_remaining_tasks++;
	return rdma_submit(doca_rdma_task_send_as_task(task), "RDMA send", src, NULL);
}

/* Every connection made: one send on each. */
static doca_error_t
multi_send_submit(struct rdma_resources *res)
{
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < res->num_connections; i++) {
		result = send_on_connection(res, i);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

doca_error_t
rdma_multi_conn_send(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "receiver",
		.role = RDMA_ROLE_PEER,
		.numbered_files = true,
		.run = multi_send_submit,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_send_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_send_set_conf(resources.rdma, send_completed_callback, send_error_callback,
					      cfg->num_connections);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure %u RDMA send tasks: %s", cfg->num_connections,
			     doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* The connections are made and the sends submitted from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
