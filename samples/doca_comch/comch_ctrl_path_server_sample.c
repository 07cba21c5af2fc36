/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comch_ctrl_path_server (DPU): wait for a client, print its message, send
 * the -t text back on the same connection, then stop.
 * Flags: -p (DPU device, 03:00.0), -r (representor of the host function, b1:00.0), -t.
 */
#include <stdbool.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_sample_common.h"

DOCA_LOG_REGISTER(COMCH_CTRL_PATH_SERVER);

#define SERVER_NAME "comch_ctrl_path_sample_server"
#define SERVER_RECV_QUEUE 10
#define SERVER_NUM_SEND_TASKS 1024

struct server_state {
	const struct comch_config *cfg;
	struct doca_comch_server *server;
	doca_error_t result;
	bool finish;
};

static struct server_state *
state_of(struct doca_comch_connection *conn)
{
	struct doca_comch_server *server = doca_comch_server_get_server_ctx(conn);
	union doca_data ud;

	if (doca_ctx_get_user_data(doca_comch_server_as_ctx(server), &ud) != DOCA_SUCCESS)
		return NULL;
	return ud.ptr;
}

/* The answer went out: the sample is done. */
static void
send_done(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct server_state *st = ctx_user_data.ptr;

	(void)task_user_data;
	comch_send_done(task, "Task");
	(void)doca_ctx_stop(doca_comch_server_as_ctx(st->server));
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct server_state *st = ctx_user_data.ptr;

	(void)task_user_data;
	st->result = comch_send_failed(task);
	(void)doca_ctx_stop(doca_comch_server_as_ctx(st->server));
}

/* The client's message: print it and answer with the text on the same connection. */
static void
message_received(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer, uint32_t msg_len,
		 struct doca_comch_connection *conn)
{
	struct server_state *st = state_of(conn);
	doca_error_t result;

	(void)event;
	DOCA_LOG_INFO("Message received: '%.*s'", (int)msg_len, recv_buffer);
	result = comch_send(st->server, NULL, conn, st->cfg->text, st->cfg->text_len);
	if (result != DOCA_SUCCESS) {
		st->result = result;
		(void)doca_ctx_stop(doca_comch_server_as_ctx(st->server));
	}
}

static void
client_connected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		 uint8_t change_successful)
{
	(void)event;
	(void)conn;
	if (!change_successful) {
		DOCA_LOG_ERR("Failed connection received");
		return;
	}
	DOCA_LOG_INFO("New client connected to server");
}

static void
client_disconnected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		    uint8_t change_successful)
{
	(void)event;
	(void)conn;
	(void)change_successful;
	DOCA_LOG_INFO("A client was disconnected from server");
}

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev_state,
	      enum doca_ctx_states next_state)
{
	struct server_state *st = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	comch_log_state(true, next_state, "Waiting for clients to connect");
	if (next_state == DOCA_CTX_STATE_IDLE)
		st->finish = true;
}

static doca_error_t
configure_server(struct server_state *st, struct doca_pe *pe, uint32_t max_msg)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(st->server);
	union doca_data ud = {.ptr = st};
	doca_error_t result;

	result = doca_pe_connect_ctx(pe, ctx);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_state_changed_cb(ctx, state_changed);
	if (result == DOCA_SUCCESS)
		result =
			doca_comch_server_task_send_set_conf(st->server, send_done, send_failed, SERVER_NUM_SEND_TASKS);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_msg_recv_register(st->server, message_received);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_event_connection_status_changed_register(st->server, client_connected,
										    client_disconnected);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_max_msg_size(st->server, max_msg);
	if (result == DOCA_SUCCESS)
		result = doca_comch_server_set_recv_queue_size(st->server, SERVER_RECV_QUEUE);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(ctx, ud);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure the server: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
ctrl_path_server(const struct comch_config *cfg)
{
	struct server_state st = {.cfg = cfg, .result = DOCA_SUCCESS};
	struct comch_objects obj;
	doca_error_t result;

	result = comch_objects_open(cfg, true, &obj);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_comch_server_create(obj.dev, obj.rep, SERVER_NAME, &st.server);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create server: %s", doca_error_get_descr(result));
		goto close;
	}
	result = configure_server(&st, obj.pe, obj.max_msg);
	if (result != DOCA_SUCCESS)
		goto destroy_server;
	result = doca_ctx_start(doca_comch_server_as_ctx(st.server));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start server context: %s", doca_error_get_descr(result));
		goto destroy_server;
	}
	comch_progress_until(obj.pe, &st.finish, NULL);
	result = st.result;

destroy_server:
	if (doca_comch_server_destroy(st.server) != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy server");
close:
	comch_objects_close(&obj);
	return result;
}
