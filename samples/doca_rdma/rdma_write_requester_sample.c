/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA write requester: connect to the responder, import the mmap it exported
 * (descriptor file -m or, with RDMA-CM, a send from it), then write the -w
 * string into the responder's memory with one write task.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_WRITE_REQUESTER::SAMPLE);

static void
write_completed_callback(struct doca_rdma_task_write *task, union doca_data task_user_data,
			 union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;

	(void)task_user_data;
	DOCA_LOG_INFO("Written to responder \"%s\"", res->cfg->write_string);
	rdma_task_complete(res, doca_rdma_task_write_as_task(task), doca_rdma_task_write_get_src_buf(task),
			   doca_rdma_task_write_get_dst_buf(task), DOCA_SUCCESS);
}

static void
write_error_callback(struct doca_rdma_task_write *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_write_as_task(task), "write",
			 doca_rdma_task_write_get_src_buf(task), doca_rdma_task_write_get_dst_buf(task));
}

/* Connected, the responder's mmap imported: write the string from local memory into it. */
static doca_error_t
write_submit(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_write *task;
	struct doca_buf *src, *dst;
	doca_error_t result;

	rdma_put_text(res, 0, res->cfg->write_string);
	result = rdma_one_sided_bufs(res, true, &src, &dst);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_rdma_task_write_allocate_init(res->rdma, res->connections[0], src, dst, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA write task: %s", doca_error_get_descr(result));
		rdma_release_buf(dst);
		rdma_release_buf(src);
		return result;
	}
	res->num_remaining_tasks = 1;
	return rdma_submit(doca_rdma_task_write_as_task(task), "RDMA write", src, dst);
}

doca_error_t
rdma_write_requester(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "responder",
		.role = RDMA_ROLE_REQUESTER,
		.resource = RDMA_RESOURCE_MMAP,
		.run = write_submit,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_write_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_write_set_conf(resources.rdma, write_completed_callback, write_error_callback, 1);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure RDMA write tasks: %s", doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* Connecting, importing the responder's mmap and writing happen from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
