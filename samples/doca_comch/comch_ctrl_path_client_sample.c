/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comch_ctrl_path_client (host): connect to the server, send the -t text,
 * print the server's answer, then stop.
 * Flags: -p (host function, b1:00.0), -r (accepted, unused), -t.
 */
#include <stdbool.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_sample_common.h"

DOCA_LOG_REGISTER(COMCH_CTRL_PATH_CLIENT);

#define SERVER_NAME "comch_ctrl_path_sample_server"
#define CLIENT_RECV_QUEUE 10
#define CLIENT_NUM_SEND_TASKS 1024

struct client_state {
	const struct comch_config *cfg;
	struct doca_comch_client *client;
	doca_error_t result;
	bool finish;
};

static void
send_done(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	(void)ctx_user_data;
	comch_send_done(task, "Task");
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct client_state *st = ctx_user_data.ptr;

	(void)task_user_data;
	st->result = comch_send_failed(task);
	(void)doca_ctx_stop(doca_comch_client_as_ctx(st->client));
}

static void
message_received(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer, uint32_t msg_len,
		 struct doca_comch_connection *conn)
{
	struct client_state *st = doca_comch_connection_get_user_data(conn).ptr;

	(void)event;
	DOCA_LOG_INFO("Message received: '%.*s'", (int)msg_len, recv_buffer);
	(void)doca_ctx_stop(doca_comch_client_as_ctx(st->client));
}

/* RUNNING: the connection to the server exists; send the text on it. */
static void
send_text(struct client_state *st)
{
	struct doca_comch_connection *conn;
	doca_error_t result;

	result = doca_comch_client_get_connection(st->client, &conn);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get connection from client with error = %s", doca_error_get_name(result));
		goto fail;
	}
	result = doca_comch_connection_set_user_data(conn, (union doca_data){.ptr = st});
	if (result != DOCA_SUCCESS)
		goto fail;
	result = comch_send(NULL, st->client, conn, st->cfg->text, st->cfg->text_len);
	if (result != DOCA_SUCCESS)
		goto fail;
	return;
fail:
	st->result = result;
	(void)doca_ctx_stop(doca_comch_client_as_ctx(st->client));
}

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev_state,
	      enum doca_ctx_states next_state)
{
	struct client_state *st = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	comch_log_state(false, next_state, "Sending message");
	if (next_state == DOCA_CTX_STATE_RUNNING)
		send_text(st);
	else if (next_state == DOCA_CTX_STATE_IDLE)
		st->finish = true;
}

static doca_error_t
configure_client(struct client_state *st, struct doca_pe *pe, uint32_t max_msg)
{
	struct doca_ctx *ctx = doca_comch_client_as_ctx(st->client);
	union doca_data ud = {.ptr = st};
	doca_error_t result;

	result = doca_pe_connect_ctx(pe, ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(ctx, state_changed);
	if (result == DOCA_SUCCESS)
		result =
			doca_comch_client_task_send_set_conf(st->client, send_done, send_failed, CLIENT_NUM_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_event_msg_recv_register(st->client, message_received);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_max_msg_size(st->client, max_msg);
	if (result == DOCA_SUCCESS)
		result = doca_comch_client_set_recv_queue_size(st->client, CLIENT_RECV_QUEUE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(ctx, ud);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure the client: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
ctrl_path_client(const struct comch_config *cfg)
{
	struct client_state st = {.cfg = cfg, .result = DOCA_SUCCESS};
	struct comch_objects obj;
	doca_error_t result;

	result = comch_objects_open(cfg, false, &obj);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_comch_client_create(obj.dev, SERVER_NAME, &st.client);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create client: %s", doca_error_get_descr(result));
		goto close;
	}
	result = configure_client(&st, obj.pe, obj.max_msg);
	if (result != DOCA_SUCCESS)
		goto destroy_client;
	/* The client connects while it is STARTING: the start is asynchronous. */
	result = doca_ctx_start(doca_comch_client_as_ctx(st.client));
	if (result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start client context: %s", doca_error_get_descr(result));
		goto destroy_client;
	}
	comch_progress_until(obj.pe, &st.finish, NULL);
	result = st.result;

destroy_client:
	if (doca_comch_client_destroy(st.client) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy client");
close:
	comch_objects_close(&obj);
	return result;
}
