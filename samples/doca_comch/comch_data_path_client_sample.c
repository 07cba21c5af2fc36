/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comch_data_path_high_speed_client (host): send "start_data_path_test",
 * send the -t text to the server's consumer with a producer, receive the
 * server's text with a consumer, then send "stop_data_path_test" and stop on
 * its answer.  Flags: -p (b1:00.0), -r (accepted), -t.
 */
#include <stdbool.h>
#include <string.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "comch_data_path_common.h"
#include "comch_sample_common.h"

DOCA_LOG_REGISTER(COMCH_DATA_PATH_CLIENT);

struct client_state {
	struct data_path dp; /* first: data_path_of_conn() */
	struct doca_comch_client *client;
	bool start_echoed, finish;
	doca_error_t result;
};

struct data_path *
data_path_of_conn(struct doca_comch_connection *conn)
{
	union doca_data ud = {0};

	(void)doca_ctx_get_user_data(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)), &ud);
	return ud.ptr;
}

static void
send_done(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	comch_send_done(task, "Client task");
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct client_state *st = cud.ptr;

	(void)tud;
	st->result = comch_send_failed(task);
	(void)doca_ctx_stop(doca_comch_client_as_ctx(st->client));
}

static doca_error_t
send_msg(struct client_state *st, const char *msg)
{
	return comch_send(NULL, st->client, st->dp.conn, msg, (uint32_t)strlen(msg));
}

/* The server echoes the start (the fast path may begin) and the stop (the sample ends). */
static void
message_received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
		 struct doca_comch_connection *conn)
{
	struct client_state *st = (struct client_state *)data_path_of_conn(conn);

	(void)event;
	DOCA_LOG_INFO("Message received: '%.*s'", (int)len, buf);
	if (len == strlen(DATA_PATH_START) && memcmp(buf, DATA_PATH_START, len) == 0)
		st->start_echoed = true;
	else if (len == strlen(DATA_PATH_STOP) && memcmp(buf, DATA_PATH_STOP, len) == 0)
		(void)doca_ctx_stop(doca_comch_client_as_ctx(st->client));
}

static void
state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct client_state *st = ud.ptr;

	(void)prev;
	comch_log_state(false, next, "Get a connection from server");
	if (next == DOCA_CTX_STATE_IDLE) {
		st->finish = true;
	} else if (next == DOCA_CTX_STATE_RUNNING) {
		if (doca_comch_client_get_connection(st->client, &st->dp.conn) != DOCA_SUCCESS ||
		    send_msg(st, DATA_PATH_START) != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to send the start message");
			st->result = DOCA_ERROR_IO_FAILED;
			(void)doca_ctx_stop(ctx);
		}
	}
}

static doca_error_t
configure_client(struct client_state *st, uint32_t max_msg)
{
	struct doca_ctx *ctx = doca_comch_client_as_ctx(st->client);
	doca_error_t r;

	r = doca_pe_connect_ctx(st->dp.conn_pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(ctx, state_changed);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_task_send_set_conf(st->client, send_done, send_failed, 1024);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_event_msg_recv_register(st->client, message_received);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_event_consumer_register(st->client, data_path_new_consumer,
							      data_path_expired_consumer);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_set_max_msg_size(st->client, max_msg);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_set_recv_queue_size(st->client, 10);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = st});
	return r;
}

doca_error_t
data_path_client(const struct comch_config *cfg)
{
	struct client_state st = {.result = DOCA_SUCCESS};
	struct comch_objects obj;
	struct doca_ctx *ctx;
	doca_error_t r;

	r = comch_objects_open(cfg, false, &obj);
	if (r != DOCA_SUCCESS)
		return r;
	st.dp.dev = obj.dev;
	st.dp.conn_pe = obj.pe;
	r = doca_comch_client_create(st.dp.dev, DATA_PATH_SERVER_NAME, &st.client);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create client: %s", doca_error_get_descr(r));
		goto close;
	}
	ctx = doca_comch_client_as_ctx(st.client);
	r = configure_client(&st, obj.max_msg);
	if (r != DOCA_SUCCESS)
		goto destroy_client;
	r = doca_ctx_start(ctx);
	if (r != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start client context: %s", doca_error_get_descr(r));
		goto destroy_client;
	}
	comch_progress_until(st.dp.conn_pe, &st.start_echoed, &st.finish);
	if (!st.finish) {
		r = data_path_send(&st.dp, cfg->text, cfg->text_len);
		if (r == DOCA_SUCCESS)
			r = data_path_receive(&st.dp);
		if (r != DOCA_SUCCESS)
			st.result = r;
		if (send_msg(&st, DATA_PATH_STOP) != DOCA_SUCCESS)
			(void)doca_ctx_stop(ctx);
	}
	comch_progress_until(st.dp.conn_pe, &st.finish, NULL);
	r = st.result;
destroy_client:
	(void)doca_comch_client_destroy(st.client);
close:
	comch_objects_close(&obj);
	return r;
}
