/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA read requester: connect to the responder, import the mmap it exported,
 * then read its first 256 bytes (the responder's -r string) into local memory
 * with one read task, while the responder waits on stdin.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_READ_REQUESTER::SAMPLE);

static void
read_completed_callback(struct doca_rdma_task_read *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct doca_buf *dst = doca_rdma_task_read_get_dst_buf(task);
	const char *text;
	int len;

	(void)task_user_data;
	len = rdma_buf_text(dst, &text);
	DOCA_LOG_INFO("Read from responder: \"%.*s\"", len, text);
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_read_as_task(task), doca_rdma_task_read_get_src_buf(task),
			   dst, DOCA_SUCCESS);
}

static void
read_error_callback(struct doca_rdma_task_read *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_read_as_task(task), "read",
			 doca_rdma_task_read_get_src_buf(task), doca_rdma_task_read_get_dst_buf(task));
}

/* Connected, the responder's mmap imported: read from it into local memory. */
static doca_error_t
read_submit(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_read *task;
	struct doca_buf *src, *dst;
	doca_error_t result;

	result = rdma_one_sided_bufs(res, false, &src, &dst);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_rdma_task_read_allocate_init(res->rdma, res->connections[0], src, dst, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA read task: %s", doca_error_get_descr(result));
		rdma_release_buf(dst);
		rdma_release_buf(src);
		return result;
	}
	res->num_remaining_tasks = 1;
	return rdma_submit(doca_rdma_task_read_as_task(task), "RDMA read", src, dst);
}

doca_error_t
rdma_read_requester(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "responder",
		.role = RDMA_ROLE_REQUESTER,
		.resource = RDMA_RESOURCE_MMAP,
		.run = read_submit,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_read_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_read_set_conf(resources.rdma, read_completed_callback, read_error_callback, 1);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure RDMA read tasks: %s", doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* Connecting, importing the responder's mmap and reading happen from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
