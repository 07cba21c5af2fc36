/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_immediate_responder: export local memory for RDMA writes,
 * connect, and post a receive without a destination buffer; the requester's
 * write with immediate completes it, then the memory is printed.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_WRITE_IMMEDIATE_RESPONDER);

static void
receive_completed(struct doca_rdma_task_receive *task, union doca_data task_user_data, union doca_data ctx_user_data)
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

static doca_error_t
write_imm_responder_setup(struct rdma_resources *res)
{
	doca_error_t result = doca_rdma_task_receive_set_conf(res->rdma, receive_completed, rdma_receive_error, 1);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure RDMA receive tasks: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
write_imm_responder_run(struct rdma_resources *res)
{
	/* No destination: a write with immediate carries its data into the exported memory. */
	doca_error_t result = rdma_post_receive(res, 0, 0);

	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("Waiting for the requester to write with immediate");
	return result;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_write_immediate_responder",
		.peer = "requester",
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_RDMA_WRITE,
		.cap = doca_rdma_cap_task_receive_is_supported,
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_MMAP,
		.dc_passive = true,
		.setup = write_imm_responder_setup,
		.run = write_imm_responder_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
