/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comch_data_path_high_speed_server (DPU): on the client's
 * "start_data_path_test", receive the client's text with a consumer, send the -t
 * text back with a producer, then answer "stop_data_path_test" and stop.
 * Flags: -p (03:00.0), -r (b1:00.0), -t.
 */
#include <stdbool.h>
#include <string.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_data_path_common.h"
#include "comch_sample_common.h"

DOCA_LOG_REGISTER(COMCH_DATA_PATH_SERVER);

struct server_state {
	struct data_path dp; /* first: data_path_of_conn() */
	struct doca_comch_server *server;
	bool start_seen, stop_seen, finish;
	doca_error_t result;
};

struct data_path *
data_path_of_conn(struct doca_comch_connection *conn)
{
	union doca_data ud = {0};

	(void)doca_ctx_get_user_data(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn)), &ud);
	return ud.ptr;
}

static void
send_done(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	comch_send_done(task, "Server task");
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct server_state *st = cud.ptr;

	(void)tud;
	st->result = comch_send_failed(task);
}

static doca_error_t
send_msg(struct server_state *st, const char *msg)
{
	return comch_send(st->server, NULL, st->dp.conn, msg, (uint32_t)strlen(msg));
}

static void
message_received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
		 struct doca_comch_connection *conn)
{
	struct server_state *st = (struct server_state *)data_path_of_conn(conn);

	(void)event;
	DOCA_LOG_INFO("Message received: '%.*s'", (int)len, buf);
	st->dp.conn = conn;
	if (len == strlen(DATA_PATH_START) && memcmp(buf, DATA_PATH_START, len) == 0) {
		st->start_seen = true;
		if (send_msg(st, DATA_PATH_START) != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to answer the start message");
	} else if (len == strlen(DATA_PATH_STOP) && memcmp(buf, DATA_PATH_STOP, len) == 0) {
		st->stop_seen = true;
		(void)send_msg(st, DATA_PATH_STOP);
		/* The answer was handed over: it reaches the client even though we stop now. */
		(void)doca_ctx_stop(doca_comch_server_as_ctx(st->server));
	}
}

static void
connected(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn, uint8_t ok)
{
	(void)ev;
	(void)conn;
	if (!ok)
		DOCA_LOG_ERR("Failed connection received");
}

static void
disconnected(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn, uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
}

static void
state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct server_state *st = ud.ptr;

	(void)ctx;
	(void)prev;
	comch_log_state(true, next, "Waiting for clients to connect");
	if (next == DOCA_CTX_STATE_IDLE)
		st->finish = true;
}

static doca_error_t
configure_server(struct server_state *st, uint32_t max_msg)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(st->server);
	doca_error_t r;

	r = doca_pe_connect_ctx(st->dp.conn_pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(ctx, state_changed);
	if (r == DOCA_SUCCESS)
		r = doca_comch_server_task_send_set_conf(st->server, send_done, send_failed, 1024);
	if (r == DOCA_SUCCESS)
		r = doca_comch_server_event_msg_recv_register(st->server, message_received);
	if (r == DOCA_SUCCESS)
		r = doca_comch_server_event_connection_status_changed_register(st->server, connected, disconnected);
	if (r == DOCA_SUCCESS)
		r = doca_comch_server_event_consumer_register(st->server, data_path_new_consumer,
							      data_path_expired_consumer);
	if (r == DOCA_SUCCESS)
		r = doca_comch_server_set_max_msg_size(st->server, max_msg);
	if (r == DOCA_SUCCESS)
		r = doca_comch_server_set_recv_queue_size(st->server, 10);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = st});
	return r;
}

doca_error_t
data_path_server(const struct comch_config *cfg)
{
	struct server_state st = {.result = DOCA_SUCCESS};
	struct comch_objects obj;
	struct doca_ctx *ctx;
	doca_error_t r;

	r = comch_objects_open(cfg, true, &obj);
	if (r != DOCA_SUCCESS)
		return r;
	st.dp.dev = obj.dev;
	st.dp.conn_pe = obj.pe;
	r = doca_comch_server_create(st.dp.dev, obj.rep, DATA_PATH_SERVER_NAME, &st.server);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create server: %s", doca_error_get_descr(r));
		goto close;
	}
	ctx = doca_comch_server_as_ctx(st.server);
	r = configure_server(&st, obj.max_msg);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(ctx);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start server context: %s", doca_error_get_descr(r));
		goto destroy_server;
	}
	comch_progress_until(st.dp.conn_pe, &st.start_seen, &st.finish);
	if (!st.finish) {
		r = data_path_receive(&st.dp);
		if (r == DOCA_SUCCESS)
			r = data_path_send(&st.dp, cfg->text, cfg->text_len);
		if (r != DOCA_SUCCESS) {
			st.result = r;
			/* Tell the client to finish too. */
			(void)send_msg(&st, DATA_PATH_STOP);
			(void)doca_ctx_stop(ctx);
		}
	}
	comch_progress_until(st.dp.conn_pe, &st.finish, NULL);
	r = st.result;
destroy_server:
	(void)doca_comch_server_destroy(st.server);
close:
	comch_objects_close(&obj);
	return r;
}
