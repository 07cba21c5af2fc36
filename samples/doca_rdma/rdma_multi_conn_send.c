/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_multi_conn_send: make -nc connections on one RDMA context (one
 * descriptor file pair and one Enter per connection, files "<path>-%04u"), then
 * send the -s string once on each, from its own 256-byte slice of memory.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_MULTI_CONN_SEND);

static void
send_completed(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	DOCA_LOG_INFO("RDMA send task on connection %u was done successfully", (unsigned int)task_user_data.u64);
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
multi_send_setup(struct rdma_resources *res)
{
	doca_error_t result;

	result = doca_rdma_task_send_set_conf(res->rdma, send_completed, send_error, res->cfg->num_connections);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure %u RDMA send tasks: %s", res->cfg->num_connections,
			     doca_error_get_descr(result));
	return result;
}

/* Send the string on connection i from slice i. */
static doca_error_t
send_on_connection(struct rdma_resources *res, uint32_t i)
{
	union doca_data task_user_data = {.u64 = i};
	struct doca_rdma_task_send *task;
	struct doca_buf *src;
	doca_error_t result;

	rdma_put_text(res, (size_t)i * RDMA_MSG_LEN, res->cfg->send_string);
	result = rdma_local_buf(res, (size_t)i * RDMA_MSG_LEN, RDMA_MSG_LEN, true, &src);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_rdma_task_send_allocate_init(res->rdma, res->connections[i], src, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA send task: %s", doca_error_get_descr(result));
		rdma_release_buf(src);
		return result;
	}
	DOCA_LOG_INFO("Submitting RDMA send task that sends \"%s\" to receiver on connection %u", res->cfg->send_string,
		      i);
	res->num_remaining_tasks++;
	result = rdma_submit(doca_rdma_task_send_as_task(task), "RDMA send");
	if (result != DOCA_SUCCESS) {
		res->num_remaining_tasks--;
		rdma_release_buf(src);
	}
	return result;
}

static doca_error_t
multi_send_run(struct rdma_resources *res)
{
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < res->num_connections; i++) {
		result = send_on_connection(res, i);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_multi_conn_send",
		.peer = "receiver",
		.params = RDMA_PARAM_SEND_STRING | RDMA_PARAM_NUM_CONNECTIONS,
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_send_is_supported,
		.role = RDMA_ROLE_PEER,
		.setup = multi_send_setup,
		.run = multi_send_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
