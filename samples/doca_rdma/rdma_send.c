/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_send: send the -s string to doca_rdma_receive over one RC connection.
 * Start the receiver first; press Enter in the receiver, then here.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SEND);

static void
send_completed(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	DOCA_LOG_INFO("RDMA send task was done successfully");
	rdma_task_complete(ctx_user_data.ptr, doca_rdma_task_send_as_task(task), doca_rdma_task_send_get_src_buf(task),
			   NULL, DOCA_SUCCESS);
}

static void
send_error(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_send_as_task(task), "send",
			 doca_rdma_task_send_get_src_buf(task), NULL);
}

static doca_error_t
send_setup(struct rdma_resources *res)
{
	doca_error_t result = doca_rdma_task_send_set_conf(res->rdma, send_completed, send_error, 1);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure RDMA send tasks: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
send_run(struct rdma_resources *res)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_send *task;
	struct doca_buf *src;
	doca_error_t result;

	rdma_put_text(res, 0, res->cfg->send_string);
	result = rdma_local_buf(res, 0, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_rdma_task_send_allocate_init(res->rdma, res->connections[0], src, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA send task: %s", doca_error_get_descr(result));
		rdma_release_buf(src);
		return result;
	}
	DOCA_LOG_INFO("Submitting RDMA send task that sends \"%s\" to receiver", res->cfg->send_string);
	res->num_remaining_tasks = 1;
	result = rdma_submit(doca_rdma_task_send_as_task(task), "RDMA send");
	if (result != DOCA_SUCCESS)
		rdma_release_buf(src);
	return result;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_send",
		.peer = "receiver",
		.params = RDMA_PARAM_SEND_STRING,
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_send_is_supported,
		.role = RDMA_ROLE_PEER,
		.setup = send_setup,
		.run = send_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
