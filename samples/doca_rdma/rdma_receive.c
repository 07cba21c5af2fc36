/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_receive: post one receive and print what doca_rdma_send sent.
 * Start it first; press Enter here, then in the sender.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_RECEIVE);

static void
receive_completed(struct doca_rdma_task_receive *task, union doca_data task_user_data, union doca_data ctx_user_data)
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
		.name = "doca_rdma_receive",
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
