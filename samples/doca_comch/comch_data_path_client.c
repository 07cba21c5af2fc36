/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comch_data_path_high_speed_client (host): send "start_data_path_test",
 * send the -t text to the server's consumer with a producer, receive the
 * server's text with a consumer, then send "stop_data_path_test" and stop on
 * its answer.  Flags: -p (b1:00.0), -r (accepted), -t.
 */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

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
	DOCA_LOG_INFO("Client task sent successfully");
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct client_state *st = cud.ptr;

	(void)tud;
	st->result = doca_task_get_status(doca_comch_task_send_as_task(task));
	DOCA_LOG_ERR("Message failed to send with error = %s", doca_error_get_name(st->result));
	doca_task_free(doca_comch_task_send_as_task(task));
	(void)doca_ctx_stop(doca_comch_client_as_ctx(st->client));
}

static doca_error_t
send_msg(struct client_state *st, const char *msg)
{
	struct doca_comch_task_send *task;
	doca_error_t r;

	r = doca_comch_client_task_send_alloc_init(st->client, st->dp.conn, msg, (uint32_t)strlen(msg), &task);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_task_submit(doca_comch_task_send_as_task(task));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(task));
	return r;
}

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

	(void)ctx;
	(void)prev;
	switch (next) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("CC client context has been stopped");
		st->finish = true;
		break;
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_INFO("CC client context entered into starting state. Waiting for connection establishment");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("CC client context is running. Get a connection from server");
		if (doca_comch_client_get_connection(st->client, &st->dp.conn) != DOCA_SUCCESS ||
		    send_msg(st, DATA_PATH_START) != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to send the start message");
			st->result = DOCA_ERROR_IO_FAILED;
			(void)doca_ctx_stop(ctx);
		}
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("CC client context entered into stopping state. Waiting for connection termination");
		break;
	default:
		break;
	}
}

static doca_error_t
data_path_client(const struct comch_config *cfg)
{
	struct client_state st = {.result = DOCA_SUCCESS};
	struct doca_ctx *ctx;
	uint32_t max_msg;
	doca_error_t r;

	r = comch_open_client_dev(cfg->pci_addr, &st.dp.dev);
	if (r != DOCA_SUCCESS)
		return r;
	r = comch_check_text_len(st.dp.dev, cfg->text_len);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	(void)doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(st.dp.dev), &max_msg);
	r = doca_pe_create(&st.dp.conn_pe);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	r = doca_comch_client_create(st.dp.dev, DATA_PATH_SERVER_NAME, &st.client);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create client: %s", doca_error_get_descr(r));
		goto destroy_pe;
	}
	ctx = doca_comch_client_as_ctx(st.client);
	r = doca_pe_connect_ctx(st.dp.conn_pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(ctx, state_changed);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_task_send_set_conf(st.client, send_done, send_failed, 1024);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_event_msg_recv_register(st.client, message_received);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_event_consumer_register(st.client, data_path_new_consumer,
							      data_path_expired_consumer);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_set_max_msg_size(st.client, max_msg);
	if (r == DOCA_SUCCESS)
		r = doca_comch_client_set_recv_queue_size(st.client, 10);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = &st});
	if (r != DOCA_SUCCESS)
		goto destroy_client;
	r = doca_ctx_start(ctx);
	if (r != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start client context: %s", doca_error_get_descr(r));
		goto destroy_client;
	}
	while (!st.start_echoed && !st.finish)
		if (doca_pe_progress(st.dp.conn_pe) == 0)
			usleep(10);
	if (!st.finish) {
		r = data_path_send(&st.dp, cfg->text, cfg->text_len);
		if (r == DOCA_SUCCESS)
			r = data_path_receive(&st.dp);
		if (r != DOCA_SUCCESS)
			st.result = r;
		if (send_msg(&st, DATA_PATH_STOP) != DOCA_SUCCESS)
			(void)doca_ctx_stop(ctx);
	}
	while (!st.finish)
		if (doca_pe_progress(st.dp.conn_pe) == 0)
			usleep(10);
	r = st.result;
destroy_client:
	(void)doca_comch_client_destroy(st.client);
destroy_pe:
	(void)doca_pe_destroy(st.dp.conn_pe);
close_dev:
	doca_dev_close(st.dp.dev);
	return r;
}

int
main(int argc, char **argv)
{
	static const struct comch_sample sample = {
		.name = "doca_comch_data_path_high_speed_client",
		.on_dpu = false,
#ifdef DOCA_ARCH_DPU
		.built_for_dpu = true,
#endif
		.run = data_path_client,
	};

	return comch_sample_main(&sample, argc, argv);
}
