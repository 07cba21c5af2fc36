/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_receive_immediate: post one receive and require a send with
 * immediate data 0xABCD from doca_rdma_send_immediate.  Start it first.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_RECEIVE_IMMEDIATE);

static void
receive_completed(struct doca_rdma_task_receive *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct doca_buf *dst = doca_rdma_task_receive_get_dst_buf(task);
	enum doca_rdma_opcode opcode = doca_rdma_task_receive_get_result_opcode(task);
	uint32_t imm = doca_rdma_task_receive_get_result_immediate_data(task);
	doca_error_t status = DOCA_SUCCESS;
	const char *text;
	int len;

	(void)task_user_data;
	if (opcode != DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM) {
		DOCA_LOG_ERR("Received opcode %d; a send with immediate (RECV_SEND_WITH_IMM, %d) was expected",
			     (int)opcode, (int)DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM);
		status = DOCA_ERROR_UNEXPECTED;
	} else if (imm != RDMA_IMMEDIATE_DATA) {
		DOCA_LOG_ERR("Received immediate data %u; %u was expected", imm, RDMA_IMMEDIATE_DATA);
		status = DOCA_ERROR_UNEXPECTED;
	} else {
		len = rdma_buf_text(dst, &text);
		DOCA_LOG_INFO("Got from sender: \"%.*s\" with immediate: %u", len, text, imm);
	}
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_receive_as_task(task), dst, NULL, status);
}

static doca_error_t
receive_setup(struct rdma_resources *res)
{
	doca_error_t result = doca_rdma_task_receive_set_conf(res->rdma, receive_completed, rdma_receive_error, 1);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure RDMA receive tasks: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
receive_run(struct rdma_resources *res)
{
	doca_error_t result = rdma_post_receive(res, 0, RDMA_MSG_LEN);

	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("Receive task was submitted; waiting for the sender");
	return result;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_receive_immediate",
		.peer = "sender",
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_receive_is_supported,
		.role = RDMA_ROLE_PEER,
		.dc_passive = true,
		.setup = receive_setup,
		.run = receive_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
