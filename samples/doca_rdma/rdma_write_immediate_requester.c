/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_immediate_requester: write the -w string into the memory of
 * doca_rdma_write_immediate_responder with immediate data 0xABCD, which
 * completes the receive the responder posted.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_WRITE_IMMEDIATE_REQUESTER);

static void
write_imm_completed(struct doca_rdma_task_write_imm *task, union doca_data task_user_data,
		    union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;

	(void)task_user_data;
	DOCA_LOG_INFO("Written to responder \"%s\" with immediate value %u", res->cfg->write_string,
		      RDMA_IMMEDIATE_DATA);
	rdma_task_complete(res, doca_rdma_task_write_imm_as_task(task), doca_rdma_task_write_imm_get_src_buf(task),
			   doca_rdma_task_write_imm_get_dst_buf(task), DOCA_SUCCESS);
}

static void
write_imm_error(struct doca_rdma_task_write_imm *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_write_imm_as_task(task), "write with immediate",
			 doca_rdma_task_write_imm_get_src_buf(task), doca_rdma_task_write_imm_get_dst_buf(task));
}

static doca_error_t
write_imm_setup(struct rdma_resources *res)
{
	doca_error_t result = doca_rdma_task_write_imm_set_conf(res->rdma, write_imm_completed, write_imm_error, 1);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure RDMA write with immediate tasks: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
write_imm_run(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_write_imm *task;
	struct doca_buf *src, *dst;
	doca_error_t result;

	rdma_put_text(res, 0, res->cfg->write_string);
	result = rdma_local_buf(res, 0, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = rdma_remote_buf(res, RDMA_MSG_LEN, false, &dst);
	if (result != DOCA_SUCCESS)
		goto release_src;
	result = doca_rdma_task_write_imm_allocate_init(res->rdma, res->connections[0], src, dst, RDMA_IMMEDIATE_DATA,
							task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA write with immediate task: %s", doca_error_get_descr(result));
		goto release_dst;
	}
	res->num_remaining_tasks = 1;
	result = rdma_submit(doca_rdma_task_write_imm_as_task(task), "RDMA write with immediate");
	if (result == DOCA_SUCCESS)
		return DOCA_SUCCESS;
release_dst:
	rdma_release_buf(dst);
release_src:
	rdma_release_buf(src);
	return result;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_write_immediate_requester",
		.peer = "responder",
		.params = RDMA_PARAM_WRITE_STRING,
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_write_is_supported,
		.role = RDMA_ROLE_REQUESTER,
		.resource = RDMA_RESOURCE_MMAP,
		.setup = write_imm_setup,
		.run = write_imm_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
