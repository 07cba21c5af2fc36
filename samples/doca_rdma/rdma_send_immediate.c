/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_send_immediate: send the -s string with immediate data 0xABCD to
 * doca_rdma_receive_immediate.  Start the receiver first; Enter there, then here.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SEND_IMMEDIATE);

static void
send_imm_completed(struct doca_rdma_task_send_imm *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	DOCA_LOG_INFO("RDMA send with immediate task was done successfully");
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_send_imm_as_task(task),
			   doca_rdma_task_send_imm_get_src_buf(task), NULL, DOCA_SUCCESS);
}

static void
send_imm_error(struct doca_rdma_task_send_imm *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_send_imm_as_task(task), "send with immediate",
			 doca_rdma_task_send_imm_get_src_buf(task), NULL);
}

static doca_error_t
send_imm_setup(struct rdma_resources *res)
{
	doca_error_t result = doca_rdma_task_send_imm_set_conf(res->rdma, send_imm_completed, send_imm_error, 1);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure RDMA send with immediate tasks: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
send_imm_run(struct rdma_resources *res)
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
	result = rdma_submit(doca_rdma_task_send_imm_as_task(task), "RDMA send with immediate");
	if (result != DOCA_SUCCESS)
		rdma_release_buf(src);
	return result;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_send_immediate",
		.peer = "receiver",
		.params = RDMA_PARAM_SEND_STRING,
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_send_imm_is_supported,
		.role = RDMA_ROLE_PEER,
		.setup = send_imm_setup,
		.run = send_imm_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
