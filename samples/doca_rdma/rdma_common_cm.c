/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM mode of the RDMA samples (-cm): the server listens on -lp, the client
 * (-sa given) connects to it; once every expected connection is established a
 * responder sends its resource descriptor over the connection (after Enter) and
 * the requester receives it, instead of the descriptor files of the OOB mode.
 * Then the sample's res->run submits its work, as from the OOB exchange.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_COMMON_CM);

/* The connection's index in res->connections, or -1. */
static int
connection_index(const struct rdma_resources *res, const struct doca_rdma_connection *conn)
{
	uint32_t i;

	for (i = 0; i < RDMA_MAX_CONNECTIONS; i++)
		if (res->connections[i] != NULL && res->connections[i] == conn)
			return (int)i;
	return -1;
}

/* Requester: post one receive for the responder's descriptor. */
static doca_error_t
rdma_requester_recv_data_from_rdma_responder(struct rdma_resources *res)
{
	struct doca_rdma_task_receive *task;
	union doca_data task_user_data = {.ptr = res};
	struct doca_buf *buf;
	doca_error_t result;

	result = doca_buf_inventory_buf_get_by_addr(res->buf_inventory, res->negotiation_mmap, res->negotiation_buf,
						    RDMA_DESC_MAX_LEN, &buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get a buf for the responder's descriptor: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_rdma_task_receive_allocate_init(res->rdma, buf, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate the negotiation receive task: %s", doca_error_get_descr(result));
		rdma_release_buf(buf);
		return result;
	}
	result = rdma_submit(doca_rdma_task_receive_as_task(task), "negotiation receive", buf, NULL);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Waiting for the %s to send its descriptor", res->peer);
	return DOCA_SUCCESS;
}

/* Responder: export the resource, wait for Enter, send the descriptor on connection 0. */
static doca_error_t
rdma_responder_send_data_to_rdma_requester(struct rdma_resources *res)
{
	struct doca_rdma_task_send *task;
	union doca_data task_user_data = {.ptr = res};
	const void *desc;
	size_t desc_len;
	struct doca_buf *buf;
	doca_error_t result;

	result = rdma_export_resource(res, &desc, &desc_len);
	if (result != DOCA_SUCCESS)
		return result;
	if (desc_len > RDMA_DESC_MAX_LEN) {
		DOCA_LOG_ERR("The descriptor has %zu bytes; the requester receives at most %d", desc_len,
			     RDMA_DESC_MAX_LEN);
		return DOCA_ERROR_TOO_BIG;
	}
	memcpy(res->negotiation_buf, desc, desc_len);
	result = doca_buf_inventory_buf_get_by_data(res->buf_inventory, res->negotiation_mmap, res->negotiation_buf,
						    desc_len, &buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get a buf over the descriptor: %s", doca_error_get_descr(result));
		return result;
	}

	/* The requester posts its receive when its side is established: give it the time a person takes. */
	DOCA_LOG_INFO("Wait till the %s is connected and press enter to send it the descriptor", res->peer);
	wait_for_enter();

	result = doca_rdma_task_send_allocate_init(res->rdma, res->connections[0], buf, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate the negotiation send task: %s", doca_error_get_descr(result));
		rdma_release_buf(buf);
		return result;
	}
	return rdma_submit(doca_rdma_task_send_as_task(task), "negotiation send", buf, NULL);
}

static void
negotiation_receive_completed(struct doca_rdma_task_receive *task, union doca_data task_user_data,
			      union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	struct doca_buf *buf = doca_rdma_task_receive_get_dst_buf(task);
	size_t desc_len = 0;
	doca_error_t result;

	(void)task_user_data;
	result = doca_buf_get_data_len(buf, &desc_len);
	doca_task_free(doca_rdma_task_receive_as_task(task));
	rdma_release_buf(buf);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the length of the received descriptor: %s", doca_error_get_descr(result));
		rdma_fail(res, result);
		return;
	}
	DOCA_LOG_INFO("Received the %s's descriptor (%zu bytes)", res->peer, desc_len);
	result = rdma_import_resource(res, res->negotiation_buf, desc_len);
	if (result == DOCA_SUCCESS)
		result = res->run(res);
	if (result != DOCA_SUCCESS)
		rdma_fail(res, result);
}

static void
negotiation_receive_error(struct doca_rdma_task_receive *task, union doca_data task_user_data,
			  union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	struct doca_task *t = doca_rdma_task_receive_as_task(task);
	doca_error_t status = doca_task_get_status(t);

	(void)task_user_data;
	DOCA_LOG_ERR("Failed to receive the %s's descriptor: %s", res->peer, doca_error_get_descr(status));
	rdma_release_buf(doca_rdma_task_receive_get_dst_buf(task));
	doca_task_free(t);
	rdma_fail(res, status);
}

static void
negotiation_send_completed(struct doca_rdma_task_send *task, union doca_data task_user_data,
			   union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	doca_error_t result;

	(void)task_user_data;
	DOCA_LOG_INFO("Sent the descriptor to the %s", res->peer);
	/*
	 * DOCA's sample frees the task and then asks it for its source buf: task
	 * memory must stay readable after doca_task_free().  Kept on purpose.
	 */
	doca_task_free(doca_rdma_task_send_as_task(task));
	rdma_release_buf(doca_rdma_task_send_get_src_buf(task));
	result = res->run(res);
	if (result != DOCA_SUCCESS)
		rdma_fail(res, result);
}

static void
negotiation_send_error(struct doca_rdma_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	struct doca_task *t = doca_rdma_task_send_as_task(task);
	doca_error_t status = doca_task_get_status(t);

	(void)task_user_data;
	DOCA_LOG_ERR("Failed to send the descriptor to the %s: %s", res->peer, doca_error_get_descr(status));
	rdma_release_buf(doca_rdma_task_send_get_src_buf(task));
	doca_task_free(t);
	rdma_fail(res, status);
}

static void
rdma_cm_connect_request_cb(struct doca_rdma_connection *conn, union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	union doca_data conn_user_data = {.ptr = res};
	doca_error_t result;

	result = doca_rdma_connection_accept(conn, NULL, 0);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to accept a connection request: %s", doca_error_get_descr(result));
		rdma_fail(res, result);
		return;
	}
	result = doca_rdma_connection_set_user_data(conn, conn_user_data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the connection user data: %s", doca_error_get_descr(result));
		rdma_fail(res, result);
	}
}

static void
rdma_cm_connect_established_cb(struct doca_rdma_connection *conn, union doca_data connection_user_data,
			       union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	union doca_data index;
	doca_error_t result;

	(void)connection_user_data;
	if (res->num_connections >= res->cfg->num_connections) {
		DOCA_LOG_ERR("Connection established beyond the %u expected", res->cfg->num_connections);
		rdma_fail(res, DOCA_ERROR_FULL);
		return;
	}
	index.u64 = res->num_connections;
	res->connections[res->num_connections++] = conn;
	result = doca_rdma_connection_set_user_data(conn, index);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the connection user data: %s", doca_error_get_descr(result));
		rdma_fail(res, result);
		return;
	}
	DOCA_LOG_INFO("RDMA-CM connection %u of %u established", res->num_connections, res->cfg->num_connections);
	if (res->num_connections < res->cfg->num_connections)
		return;

	switch (res->role) {
	case RDMA_ROLE_REQUESTER:
		result = rdma_requester_recv_data_from_rdma_responder(res);
		break;
	case RDMA_ROLE_RESPONDER:
		result = rdma_responder_send_data_to_rdma_requester(res);
		break;
	default:
		result = res->run(res);
		break;
	}
	if (result != DOCA_SUCCESS)
		rdma_fail(res, result);
}

static void
rdma_cm_connect_failure_cb(struct doca_rdma_connection *conn, union doca_data connection_user_data,
			   union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	int i = connection_index(res, conn);

	(void)connection_user_data;
	DOCA_LOG_ERR("RDMA-CM connection failed%s", res->cfg->cm_addr[0] != '\0' ? " (is the server listening?)" : "");
	if (i >= 0)
		res->connections[i] = NULL;
	rdma_fail(res, DOCA_ERROR_CONNECTION_ABORTED);
}

static void
rdma_cm_disconnect_cb(struct doca_rdma_connection *conn, union doca_data connection_user_data,
		      union doca_data ctx_user_data)
{
	struct rdma_resources *res = ctx_user_data.ptr;
	int i = connection_index(res, conn);
	doca_error_t result;

	(void)connection_user_data;
	DOCA_LOG_INFO("The %s disconnected", res->peer);
	result = doca_rdma_connection_disconnect(conn);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_WARN("Failed to disconnect a connection the peer closed: %s", doca_error_get_descr(result));
	if (i >= 0)
		res->connections[i] = NULL;
}

doca_error_t
config_rdma_cm_callback_and_negotiation_task(struct rdma_resources *res, bool need_send_task, bool need_recv_task)
{
	doca_error_t result;

	if (need_recv_task) {
		result = doca_rdma_task_receive_set_conf(res->rdma, negotiation_receive_completed,
							 negotiation_receive_error, 1);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to configure the negotiation receive task: %s",
				     doca_error_get_descr(result));
			return result;
		}
	}
	if (need_send_task) {
		result = doca_rdma_task_send_set_conf(res->rdma, negotiation_send_completed, negotiation_send_error, 1);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to configure the negotiation send task: %s", doca_error_get_descr(result));
			return result;
		}
	}
	if (need_send_task || need_recv_task) {
		res->negotiation_buf = calloc(1, RDMA_DESC_MAX_LEN);
		if (res->negotiation_buf == NULL) {
			DOCA_LOG_ERR("Failed to allocate the negotiation buffer");
			return DOCA_ERROR_NO_MEMORY;
		}
		result = doca_mmap_create(&res->negotiation_mmap);
		if (result == DOCA_SUCCESS)
			result = doca_mmap_set_permissions(res->negotiation_mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
		if (result == DOCA_SUCCESS)
			result = doca_mmap_set_memrange(res->negotiation_mmap, res->negotiation_buf, RDMA_DESC_MAX_LEN);
		if (result == DOCA_SUCCESS)
			result = doca_mmap_add_dev(res->negotiation_mmap, res->doca_device);
		if (result == DOCA_SUCCESS)
			result = doca_mmap_start(res->negotiation_mmap);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to set up the negotiation mmap: %s", doca_error_get_descr(result));
			return result;
		}
	}
	result = doca_rdma_set_connection_state_callbacks(res->rdma, rdma_cm_connect_request_cb,
							  rdma_cm_connect_established_cb, rdma_cm_connect_failure_cb,
							  rdma_cm_disconnect_cb);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to set the RDMA-CM connection callbacks: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
rdma_cm_connect(struct rdma_resources *res)
{
	struct rdma_config *cfg = res->cfg;
	union doca_data conn_user_data = {.ptr = res};
	doca_error_t result;

	if (cfg->cm_addr[0] == '\0') {
		result = doca_rdma_start_listen_to_port(res->rdma, cfg->cm_port);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to start listening on RDMA-CM port %u: %s (%s)", cfg->cm_port,
				     doca_error_get_descr(result), doca_error_get_name(result));
			return result;
		}
		DOCA_LOG_INFO("Server is listening on RDMA-CM port %u for %u connection(s)", cfg->cm_port,
			      cfg->num_connections);
		return DOCA_SUCCESS;
	}

	if (cfg->num_connections > 1) {
		DOCA_LOG_ERR("An RDMA-CM client makes one connection (got -nc %u); run one client per connection",
			     cfg->num_connections);
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = doca_rdma_addr_create(cfg->cm_addr_type, cfg->cm_addr, cfg->cm_port, &res->cm_addr);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the RDMA-CM address %s port %u: %s (%s)", cfg->cm_addr, cfg->cm_port,
			     doca_error_get_descr(result), doca_error_get_name(result));
		return result;
	}
	result = doca_rdma_connect_to_addr(res->rdma, res->cm_addr, conn_user_data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect to %s port %u: %s (%s)", cfg->cm_addr, cfg->cm_port,
			     doca_error_get_descr(result), doca_error_get_name(result));
		return result;
	}
	DOCA_LOG_INFO("Client is connecting to %s port %u", cfg->cm_addr, cfg->cm_port);
	return DOCA_SUCCESS;
}

doca_error_t
rdma_cm_disconnect(struct rdma_resources *res)
{
	doca_error_t result = DOCA_SUCCESS, tmp;
	uint32_t i;

	for (i = 0; i < RDMA_MAX_CONNECTIONS; i++) {
		if (res->connections[i] == NULL)
			continue;
		tmp = doca_rdma_connection_disconnect(res->connections[i]);
		/* The peer may have closed it first while this side sat in a callback: not a failure. */
		if (tmp == DOCA_ERROR_NOT_CONNECTED || tmp == DOCA_ERROR_BAD_STATE)
			DOCA_LOG_WARN("RDMA-CM connection %u was already closed: %s", i, doca_error_get_descr(tmp));
		else if (tmp != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to disconnect RDMA-CM connection %u: %s", i, doca_error_get_descr(tmp));
			DOCA_ERROR_PROPAGATE(result, tmp);
		}
		res->connections[i] = NULL;
	}
	return result;
}
