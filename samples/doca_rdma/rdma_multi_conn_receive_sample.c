/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA multi-connection receive: make -nc connections on one RDMA context (one
 * descriptor file pair and one Enter per connection, files "<path>-%04u", or
 * -nc RDMA-CM clients), post one receive per connection, each into its own
 * 256-byte slice, and print for each message the connection it came in on.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_MULTI_CONN_RECEIVE::SAMPLE);

static void
receive_completed_callback(struct doca_rdma_task_receive *task, union doca_data task_user_data,
			   union doca_data ctx_user_data)
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

/* Every connection made: post one receive per connection. */
static doca_error_t
multi_receive_submit(struct rdma_resources *res)
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

doca_error_t
rdma_multi_conn_receive(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "sender",
		.role = RDMA_ROLE_PEER,
		.numbered_files = true,
		.dc_passive = true,
		.run = multi_receive_submit,
	};
	doca_error_t result;

	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
					 doca_rdma_cap_task_receive_is_supported, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = doca_rdma_task_receive_set_conf(resources.rdma, receive_completed_callback, rdma_receive_error,
						 cfg->num_connections);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure %u RDMA receive tasks: %s", cfg->num_connections,
			     doca_error_get_descr(result));
		goto destroy;
	}
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* The connections are made and the receives posted from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
