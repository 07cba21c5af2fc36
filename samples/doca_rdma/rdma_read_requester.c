/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_read_requester: read what doca_rdma_read_responder put in the memory
 * it exported (its -r string), while the responder waits on stdin.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_READ_REQUESTER);

static void
read_completed(struct doca_rdma_task_read *task, union doca_data task_user_data, union doca_data ctx_user_data)
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
read_error(struct doca_rdma_task_read *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_read_as_task(task), "read",
			 doca_rdma_task_read_get_src_buf(task), doca_rdma_task_read_get_dst_buf(task));
}

static doca_error_t
read_setup(struct rdma_resources *res)
{
	doca_error_t result = doca_rdma_task_read_set_conf(res->rdma, read_completed, read_error, 1);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure RDMA read tasks: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
read_run(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_read *task;
	struct doca_buf *src, *dst;
	doca_error_t result;

	result = rdma_remote_buf(res, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = rdma_local_buf(res, 0, RDMA_MSG_LEN, false, &dst);
	if (result != DOCA_SUCCESS)
		goto release_src;
	result = doca_rdma_task_read_allocate_init(res->rdma, res->connections[0], src, dst, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA read task: %s", doca_error_get_descr(result));
		goto release_dst;
	}
	res->num_remaining_tasks = 1;
	result = rdma_submit(doca_rdma_task_read_as_task(task), "RDMA read");
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
		.name = "doca_rdma_read_requester",
		.peer = "responder",
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_read_is_supported,
		.role = RDMA_ROLE_REQUESTER,
		.resource = RDMA_RESOURCE_MMAP,
		.setup = read_setup,
		.run = read_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
