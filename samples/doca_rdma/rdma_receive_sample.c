/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA receive: connect to the sender (descriptor files or RDMA-CM), post one
 * receive into the first 256 bytes of local memory and print what arrives; a
 * message of another kind than a plain send fails the sample.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_RECEIVE::SAMPLE);

static void
receive_completed_callback(struct doca_rdma_task_receive *task, union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct doca_buf *dst = doca_rdma_task_receive_get_dst_buf(task);
	enum doca_rdma_opcode opcode = doca_rdma_task_receive_get_result_opcode(task);
	doca_error_t status = DOCA_SUCCESS;
	const char *text;
	int len;

	(void)task_user_data;
	if (opcode != DOCA_RDMA_OPCODE_RECV_SEND) {
		DOCA_LOG_ERR("Received opcode %d; a plain send (RECV_SEND, %d) was expected", (int)opcode,
			     (int)DOCA_RDMA_OPCODE_RECV_SEND);
		status = DOCA_ERROR_UNEXPECTED;
	} else {
		len = rdma_buf_text(dst, &text);
		DOCA_LOG_INFO("Got from sender: \"%.*s\"", len, text);
	}
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_receive_as_task(task), dst, NULL, status);
}

doca_error_t
rdma_receive(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "sender",
		.role = RDMA_ROLE_PEER,
		.dc_passive = true,
		.run = rdma_receive_one,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_receive_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_receive_set_conf(resources.rdma, receive_completed_callback, rdma_receive_error, 1);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure RDMA receive tasks: %s", doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* The connection is made and the receive posted from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
