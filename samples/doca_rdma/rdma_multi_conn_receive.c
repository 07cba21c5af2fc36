/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_multi_conn_receive: make -nc connections on one RDMA context, post
 * one receive per connection (each into its own 256-byte slice) and print, for
 * each message, which connection it came in on.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_MULTI_CONN_RECEIVE);

static void
receive_completed(struct doca_rdma_task_receive *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	struct doca_buf *dst = doca_rdma_task_receive_get_dst_buf(task);
	const struct doca_rdma_connection *conn = doca_rdma_task_receive_get_result_rdma_connection(task);
	doca_error_t status = DOCA_ERROR_NOT_FOUND;
	const char *text;
	uint32_t i;
	int len;

	(void)task_user_data;
	/* The connection reported must be one of the objects doca_rdma_export() gave this side. */
	for (i = 0; i < res->num_connections; i++)
		if (res->connections[i] == conn)
			status = DOCA_SUCCESS;
	if (status != DOCA_SUCCESS)
		DOCA_LOG_ERR("The receive reports connection %p, which is none of this side's %u connections",
			     (const void *)conn, res->num_connections);
	else {
		len = rdma_buf_text(dst, &text);
		DOCA_LOG_INFO("Got from sender: \"%.*s\", sender's rdma_connection address [%p]", len, text,
			      (const void *)conn);
	}
	rdma_task_complete(res, doca_rdma_task_receive_as_task(task), dst, NULL, status);
}

static doca_error_t
multi_receive_setup(struct rdma_resources *res)
{
	doca_error_t result;

	result = doca_rdma_task_receive_set_conf(res->rdma, receive_completed, rdma_receive_error,
						 res->cfg->num_connections);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure %u RDMA receive tasks: %s", res->cfg->num_connections,
			     doca_error_get_descr(result));
	return result;
}

static doca_error_t
multi_receive_run(struct rdma_resources *res)
{
	doca_error_t result;
	uint32_t i;

	for (i = 0; i < res->cfg->num_connections; i++) {
		result = rdma_post_receive(res, (size_t)i * RDMA_MSG_LEN, RDMA_MSG_LEN);
		if (result != DOCA_SUCCESS)
			return result;
	}
	DOCA_LOG_INFO("%u receive tasks were submitted; waiting for the sender", res->cfg->num_connections);
	return DOCA_SUCCESS;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_multi_conn_receive",
		.peer = "sender",
		.params = RDMA_PARAM_NUM_CONNECTIONS,
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
		.cap = doca_rdma_cap_task_receive_is_supported,
		.role = RDMA_ROLE_PEER,
		.dc_passive = true,
		.setup = multi_receive_setup,
		.run = multi_receive_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
