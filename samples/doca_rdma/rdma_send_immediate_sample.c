/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA send with immediate: connect to the receiver, then send the -s string
 * with the 32-bit immediate value 0xABCD in one send-with-immediate task.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SEND_IMMEDIATE::SAMPLE);

static void
send_imm_completed_callback(struct doca_rdma_task_send_imm *task, union doca_data task_user_data,
			    union doca_data ctx_user_data)
{
	(void)task_user_data;
	DOCA_LOG_INFO("RDMA send with immediate task was done successfully");
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_send_imm_as_task(task),
			   doca_rdma_task_send_imm_get_src_buf(task), NULL, DOCA_SUCCESS);
}

static void
send_imm_error_callback(struct doca_rdma_task_send_imm *task, union doca_data task_user_data,
			union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_send_imm_as_task(task), "send with immediate",
			 doca_rdma_task_send_imm_get_src_buf(task), NULL);
}

/* Connected: put the string in local memory and send it with the immediate. */
static doca_error_t
send_imm_submit(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_send_imm *task;
	struct doca_buf *src;
	doca_error_t result;

	rdma_put_text(res, 0, res->cfg->send_string);
	result = rdma_local_buf(res, 0, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	/* The immediate is opaque 32 bits: passed as is, compared as is by the receiver. */
	result = doca_rdma_task_send_imm_allocate_init(res->rdma, res->connections[0], src, RDMA_IMMEDIATE_DATA,
						       task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA send with immediate task: %s", doca_error_get_descr(result));
		rdma_release_buf(src);
		return result;
	}
	DOCA_LOG_INFO("Submitting RDMA send task that sends \"%s\" with immediate value %u to receiver",
		      res->cfg->send_string, RDMA_IMMEDIATE_DATA);
	res->num_remaining_tasks = 1;
	return rdma_submit(doca_rdma_task_send_imm_as_task(task), "RDMA send with immediate", src, NULL);
}

doca_error_t
rdma_send_immediate(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "receiver",
		.role = RDMA_ROLE_PEER,
		.run = send_imm_submit,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_send_imm_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_send_imm_set_conf(resources.rdma, send_imm_completed_callback, send_imm_error_callback,
						  1);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure RDMA send with immediate tasks: %s", doca_error_get_descr(result));
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
