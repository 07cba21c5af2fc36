/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA write with immediate responder: export local memory for RDMA writes,
 * connect to the requester and post a receive without a destination buffer;
 * the requester's write with immediate 0xABCD completes it, then the memory
 * is printed.  Another opcode or immediate fails the sample.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_WRITE_IMMEDIATE_RESPONDER::SAMPLE);

static void
receive_completed_callback(struct doca_rdma_task_receive *task, union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	enum doca_rdma_opcode opcode = doca_rdma_task_receive_get_result_opcode(task);
	uint32_t imm = doca_rdma_task_receive_get_result_immediate_data(task);
	doca_error_t status = DOCA_SUCCESS;

	(void)task_user_data;
	if (opcode != DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM) {
		DOCA_LOG_ERR("Received opcode %d; a write with immediate (RECV_WRITE_WITH_IMM, %d) was expected",
			     (int)opcode, (int)DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM);
		status = DOCA_ERROR_UNEXPECTED;
	} else if (imm != RDMA_IMMEDIATE_DATA) {
		DOCA_LOG_ERR("Received immediate data %u; %u was expected", imm, RDMA_IMMEDIATE_DATA);
		status = DOCA_ERROR_UNEXPECTED;
	} else
		DOCA_LOG_INFO("Requester has written: \"%.*s\" with immediate data: %u",
			      (int)strnlen(res->mmap_memrange, RDMA_MSG_LEN), res->mmap_memrange, imm);
	rdma_task_complete(res, doca_rdma_task_receive_as_task(task), doca_rdma_task_receive_get_dst_buf(task), NULL,
			   status);
}

/* Connected, the mmap exported: post the receive the write with immediate completes. */
static doca_error_t
write_imm_responder_submit(struct rdma_resources *res)
{
	/* No destination: a write with immediate carries its data into the exported memory. */
	doca_error_t result = rdma_post_receive(res, 0, 0);

	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("Waiting for the requester to write with immediate");
	return result;
}

doca_error_t
rdma_write_immediate_responder(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "requester",
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_MMAP,
		.dc_passive = true,
		.run = write_imm_responder_submit,
	};
	doca_error_t result;

	/* The requester writes: the mmap and the context allow remote writes. */
	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
					 DOCA_ACCESS_FLAG_RDMA_WRITE, doca_rdma_cap_task_receive_is_supported,
					 &resources);
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

	/* Exporting the mmap, connecting and posting the receive happen from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
