/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-connection Comch channel of comch_utils.h. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_log.h>

#include "common.h"
#include "comch_utils.h"

DOCA_LOG_REGISTER(COMCH_UTILS);

struct comch_channel {
	struct comch_channel_cfg cfg;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_ctx *ctx;
	struct doca_comch_connection *conn; /* the one connection, NULL until up */
	uint32_t max_msg;
	uint32_t in_flight;	 /* sends submitted, not completed */
	doca_error_t send_error; /* first failed send */
	bool disconnected;	 /* the connection ended */
	bool idle;
};

static struct comch_channel *
channel_of_ctx(struct doca_ctx *ctx)
{
	union doca_data ud = {0};

	(void)doca_ctx_get_user_data(ctx, &ud);
	return ud.ptr;
}

static struct comch_channel *
channel_of_conn(struct doca_comch_connection *conn)
{
	struct doca_comch_server *s = doca_comch_server_get_server_ctx(conn);
	struct doca_comch_client *c = doca_comch_client_get_client_ctx(conn);

	return channel_of_ctx(s != NULL ? doca_comch_server_as_ctx(s) : doca_comch_client_as_ctx(c));
}

static void
send_done(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct comch_channel *ch = ctx_ud.ptr;

	(void)task_ud;
	ch->in_flight--;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
send_failed(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct comch_channel *ch = ctx_ud.ptr;
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	(void)task_ud;
	DOCA_LOG_ERR("Message failed to send with error = %s", doca_error_get_name(status));
	ch->in_flight--;
	if (ch->send_error == DOCA_SUCCESS)
		ch->send_error = status;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void
msg_received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct comch_channel *ch = channel_of_conn(conn);

	(void)event;
	if (ch->cfg.recv_cb != NULL)
		ch->cfg.recv_cb(ch->cfg.cb_arg, buf, len);
}

static void
consumer_new(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
{
	struct comch_channel *ch = channel_of_conn(conn);

	(void)event;
	ch->cfg.consumer_new_cb(ch->cfg.cb_arg, id);
}

static void
consumer_expired(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
{
	struct comch_channel *ch = channel_of_conn(conn);

	(void)event;
	ch->cfg.consumer_expired_cb(ch->cfg.cb_arg, id);
}

static void
connected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
	  uint8_t change_successful)
{
	struct comch_channel *ch = channel_of_conn(conn);

	(void)event;
	if (!change_successful) {
		DOCA_LOG_ERR("Failed connection received");
		return;
	}
	if (ch->conn != NULL) {
		DOCA_LOG_WARN("A connection already exists on the server - rejecting new attempt");
		(void)doca_comch_server_disconnect(ch->server, conn);
		return;
	}
	ch->conn = conn;
}

static void
disconnected(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
	     uint8_t change_successful)
{
	struct comch_channel *ch = channel_of_conn(conn);

	(void)event;
	(void)change_successful;
	if (conn == ch->conn)
		ch->disconnected = true;
}

static void
state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct comch_channel *ch = ud.ptr;

	(void)prev;
	switch (next) {
	case DOCA_CTX_STATE_RUNNING:
		if (ch->client != NULL && doca_comch_client_get_connection(ch->client, &ch->conn) != DOCA_SUCCESS)
			ch->conn = NULL;
		break;
	case DOCA_CTX_STATE_STOPPING:
		if (ch->client != NULL)
			ch->disconnected = true;
		break;
	case DOCA_CTX_STATE_IDLE:
		ch->idle = true;
		ch->disconnected = true;
		break;
	default:
		break;
	}
	(void)ctx;
}

static doca_error_t
configure(struct comch_channel *ch)
{
	union doca_data ud = {.ptr = ch};
	uint32_t max_msg = ch->cfg.max_msg_size;
	doca_error_t r;

	if (max_msg == 0 && doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(ch->dev), &max_msg) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_SUPPORTED;
	ch->max_msg = max_msg;
	r = doca_pe_connect_ctx(ch->pe, ch->ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(ch->ctx, state_changed);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ch->ctx, ud);
	if (ch->server != NULL) {
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_task_send_set_conf(ch->server, send_done, send_failed,
								 ch->cfg.num_send_tasks);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_event_msg_recv_register(ch->server, msg_received);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_event_connection_status_changed_register(ch->server, connected,
										       disconnected);
		if (r == DOCA_SUCCESS)
			r = doca_comch_server_set_max_msg_size(ch->server, max_msg);
		if (r == DOCA_SUCCESS && ch->cfg.recv_queue_size != 0)
			r = doca_comch_server_set_recv_queue_size(ch->server, ch->cfg.recv_queue_size);
		if (r == DOCA_SUCCESS && ch->cfg.consumer_new_cb != NULL)
			r = doca_comch_server_event_consumer_register(ch->server, consumer_new, consumer_expired);
	} else {
		if (r == DOCA_SUCCESS)
			r = doca_comch_client_task_send_set_conf(ch->client, send_done, send_failed,
								 ch->cfg.num_send_tasks);
		if (r == DOCA_SUCCESS)
			r = doca_comch_client_event_msg_recv_register(ch->client, msg_received);
		if (r == DOCA_SUCCESS)
			r = doca_comch_client_set_max_msg_size(ch->client, max_msg);
		if (r == DOCA_SUCCESS && ch->cfg.recv_queue_size != 0)
			r = doca_comch_client_set_recv_queue_size(ch->client, ch->cfg.recv_queue_size);
		if (r == DOCA_SUCCESS && ch->cfg.consumer_new_cb != NULL)
			r = doca_comch_client_event_consumer_register(ch->client, consumer_new, consumer_expired);
	}
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure the Comch context: %s", doca_error_get_descr(r));
	return r;
}

doca_error_t
comch_channel_create(const struct comch_channel_cfg *cfg, struct comch_channel **out)
{
	struct comch_channel *ch = calloc(1, sizeof(*ch));
	doca_error_t r;

	if (ch == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ch->cfg = *cfg;
	if (cfg->server) {
		r = open_doca_device_with_pci(cfg->pci_addr, doca_comch_cap_server_is_supported, &ch->dev);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to open Comch device %s: %s", cfg->pci_addr, doca_error_get_descr(r));
			goto free_ch;
		}
		r = open_doca_device_rep_with_pci(ch->dev, DOCA_DEVINFO_REP_FILTER_NET, cfg->rep_pci_addr, &ch->rep);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to open representor %s: %s",
				     cfg->rep_pci_addr ? cfg->rep_pci_addr : "(none)", doca_error_get_descr(r));
			goto close_dev;
		}
	} else {
		r = open_doca_device_with_pci(cfg->pci_addr, doca_comch_cap_client_is_supported, &ch->dev);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to open Comch device %s: %s", cfg->pci_addr, doca_error_get_descr(r));
			goto free_ch;
		}
	}
	r = doca_pe_create(&ch->pe);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	if (cfg->server) {
		r = doca_comch_server_create(ch->dev, ch->rep, cfg->name, &ch->server);
		ch->ctx = doca_comch_server_as_ctx(ch->server);
	} else {
		r = doca_comch_client_create(ch->dev, cfg->name, &ch->client);
		ch->ctx = doca_comch_client_as_ctx(ch->client);
	}
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the Comch %s: %s", cfg->server ? "server" : "client",
			     doca_error_get_descr(r));
		goto destroy_pe;
	}
	r = configure(ch);
	if (r != DOCA_SUCCESS)
		goto destroy_ctx;
	r = doca_ctx_start(ch->ctx);
	if (r != (cfg->server ? DOCA_SUCCESS : DOCA_ERROR_IN_PROGRESS)) {
		DOCA_LOG_ERR("Failed to start the Comch context: %s", doca_error_get_descr(r));
		if (r == DOCA_SUCCESS)
			r = DOCA_ERROR_BAD_STATE;
		goto destroy_ctx;
	}
	*out = ch;
	return DOCA_SUCCESS;

destroy_ctx:
	if (ch->server != NULL)
		doca_comch_server_destroy(ch->server);
	else
		doca_comch_client_destroy(ch->client);
destroy_pe:
	doca_pe_destroy(ch->pe);
close_dev:
	if (ch->rep != NULL)
		doca_dev_rep_close(ch->rep);
	doca_dev_close(ch->dev);
free_ch:
	free(ch);
	return r;
}

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint8_t
comch_channel_progress(struct comch_channel *ch)
{
	return doca_pe_progress(ch->pe);
}

doca_error_t
comch_channel_wait_connected(struct comch_channel *ch, unsigned timeout_sec)
{
	double deadline = now_sec() + timeout_sec;

	while (ch->conn == NULL) {
		if (ch->idle || ch->disconnected)
			return DOCA_ERROR_NOT_CONNECTED;
		if (timeout_sec != 0 && now_sec() > deadline)
			return DOCA_ERROR_TIME_OUT;
		if (doca_pe_progress(ch->pe) == 0)
			usleep(10);
	}
	return DOCA_SUCCESS;
}

bool
comch_channel_connected(const struct comch_channel *ch)
{
	return ch->conn != NULL && !ch->disconnected;
}

doca_error_t
comch_channel_send(struct comch_channel *ch, const void *msg, uint32_t len)
{
	struct doca_comch_task_send *task;
	doca_error_t r;

	for (;;) {
		if (!comch_channel_connected(ch))
			return DOCA_ERROR_NOT_CONNECTED;
		r = ch->server != NULL ? doca_comch_server_task_send_alloc_init(ch->server, ch->conn, msg, len, &task)
				       : doca_comch_client_task_send_alloc_init(ch->client, ch->conn, msg, len, &task);
		if (r == DOCA_ERROR_NO_MEMORY) {
			(void)doca_pe_progress(ch->pe);
			continue;
		}
		if (r != DOCA_SUCCESS)
			return r;
		r = doca_task_submit(doca_comch_task_send_as_task(task));
		if (r == DOCA_SUCCESS) {
			ch->in_flight++;
			return DOCA_SUCCESS;
		}
		doca_task_free(doca_comch_task_send_as_task(task));
		if (r != DOCA_ERROR_AGAIN)
			return r;
		if (doca_pe_progress(ch->pe) == 0)
			usleep(10);
	}
}

doca_error_t
comch_channel_wait_disconnected(struct comch_channel *ch, unsigned timeout_sec)
{
	double deadline = now_sec() + timeout_sec;

	while (!ch->disconnected) {
		if (timeout_sec != 0 && now_sec() > deadline)
			return DOCA_ERROR_TIME_OUT;
		if (doca_pe_progress(ch->pe) == 0)
			usleep(10);
	}
	return DOCA_SUCCESS;
}

struct doca_dev *
comch_channel_dev(const struct comch_channel *ch)
{
	return ch->dev;
}

uint32_t
comch_channel_max_msg_size(const struct comch_channel *ch)
{
	return ch->max_msg;
}

struct doca_comch_connection *
comch_channel_connection(const struct comch_channel *ch)
{
	return ch->conn;
}

struct doca_pe *
comch_channel_pe(const struct comch_channel *ch)
{
	return ch->pe;
}

doca_error_t
comch_channel_destroy(struct comch_channel *ch)
{
	doca_error_t r = DOCA_SUCCESS;

	/* Report what was sent before leaving. */
	while (ch->in_flight != 0 && !ch->idle)
		(void)doca_pe_progress(ch->pe);
	if (doca_ctx_stop(ch->ctx) == DOCA_ERROR_IN_PROGRESS)
		while (!ch->idle)
			if (doca_pe_progress(ch->pe) == 0)
				usleep(10);
	if (ch->server != NULL)
		r = doca_comch_server_destroy(ch->server);
	else
		r = doca_comch_client_destroy(ch->client);
	doca_pe_destroy(ch->pe);
	if (ch->rep != NULL)
		doca_dev_rep_close(ch->rep);
	doca_dev_close(ch->dev);
	free(ch);
	return r;
}
