/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What Comch servers and clients share: the endpoint object (name, limits,
 * callbacks), the queue of events, reading and dispatching one record of a
 * connection, and the control-path send task.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.ep);

doca_error_t
sd_comch_ep_init(struct sd_comch_ep *ep, bool is_server, struct doca_dev *dev, const char *name, const char *host_pci,
		 const struct sd_ctx_ops *ops, const char *api)
{
	size_t len = strnlen(name, SD_COMCH_MAX_NAME);

	if (len == 0 || len >= SD_COMCH_MAX_NAME) {
		DOCA_LOG_ERR("%s: the service name must have 1 to %u characters (got %zu%s); use a shorter name", api,
			     SD_COMCH_MAX_NAME - 1, len, len >= SD_COMCH_MAX_NAME ? " or more" : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ep->rx = malloc(SD_COMCH_MAX_RECORD + 1);
	if (ep->rx == NULL) {
		DOCA_LOG_ERR("%s: out of memory; free memory and retry", api);
		return DOCA_ERROR_NO_MEMORY;
	}
	ep->is_server = is_server;
	memcpy(ep->name, name, len + 1);
	ep->name_len = (uint32_t)len;
	snprintf(ep->host_pci, sizeof(ep->host_pci), "%s", host_pci);
	ep->max_msg = SD_COMCH_MAX_MSG;
	ep->recv_queue = SD_COMCH_DEFAULT_RECV_QUEUE;
	sd_list_init(&ep->events);
	ep->poll_fd = -1;
	sd_ctx_init(&ep->ctx, ops, dev);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	return DOCA_SUCCESS;
}

void
sd_comch_ep_fini(struct sd_comch_ep *ep)
{
	sd_comch_ep_drop_events(ep);
	free(ep->rx);
	sd_dev_put(sd_ctx_dev(&ep->ctx));
}

/* --- events --------------------------------------------------------------------- */

void
sd_comch_ep_queue_event(struct sd_comch_ep *ep, enum sd_comch_event_kind kind, struct doca_comch_connection *conn,
			uint32_t id)
{
	struct sd_comch_event *ev = malloc(sizeof(*ev));

	if (ev == NULL) {
		DOCA_LOG_ERR("Failed to queue a Comch event: out of memory; the event is lost");
		return;
	}
	ev->kind = kind;
	ev->conn = conn;
	ev->id = id;
	conn->pending_events++;
	sd_list_insert_tail(&ep->events, &ev->link);
}

void
sd_comch_ep_drop_events(struct sd_comch_ep *ep)
{
	struct sd_list *elem;

	while ((elem = sd_list_pop_head(&ep->events)) != NULL) {
		struct sd_comch_event *ev = sd_container_of(elem, struct sd_comch_event, link);

		ev->conn->pending_events--;
		free(ev);
	}
}

static void
run_event(struct sd_comch_ep *ep, struct sd_comch_event *ev)
{
	struct doca_comch_connection *conn = ev->conn;
	struct doca_comch_server *server = ep->is_server ? sd_container_of(ep, struct doca_comch_server, ep) : NULL;

	switch (ev->kind) {
	case SD_COMCH_EV_CONNECT:
		sd_diag_event(&ep->ctx, "connection established", conn->id);
		if (server->connect_cb != NULL)
			server->connect_cb((struct doca_comch_event_connection_status_changed *)ev, conn, 1);
		break;
	case SD_COMCH_EV_DISCONNECT:
		sd_diag_event(&ep->ctx, "connection disconnected", conn->id);
		conn->release = true;
		if (server->disconnect_cb != NULL)
			server->disconnect_cb((struct doca_comch_event_connection_status_changed *)ev, conn, 1);
		break;
	case SD_COMCH_EV_CONSUMER_NEW:
		if (ep->consumer_new_cb != NULL)
			ep->consumer_new_cb((struct doca_comch_event_consumer *)ev, conn, ev->id);
		break;
	case SD_COMCH_EV_CONSUMER_GONE:
		if (ep->consumer_gone_cb != NULL)
			ep->consumer_gone_cb((struct doca_comch_event_consumer *)ev, conn, ev->id);
		break;
	}
}

bool
sd_comch_ep_deliver_event(struct sd_comch_ep *ep)
{
	struct sd_list *elem = sd_list_pop_head(&ep->events);
	struct sd_comch_event *ev;
	struct doca_comch_connection *conn;

	if (elem == NULL)
		return false;
	ev = sd_container_of(elem, struct sd_comch_event, link);
	conn = ev->conn;
	/*
	 * The callback may stop the ctx (queued events are dropped, connections closed
	 * but kept until IDLE) or disconnect this connection: conn stays valid here.
	 */
	run_event(ep, ev);
	free(ev);
	conn->pending_events--;
	if (conn->release && conn->pending_events == 0 && ep->conn_release != NULL)
		ep->conn_release(ep, conn);
	return true;
}

/* --- connections ------------------------------------------------------------------ */

void
sd_comch_conn_close(struct doca_comch_connection *conn, bool say_bye)
{
	if (conn->fd < 0)
		return;
	if (say_bye && conn->state == SD_COMCH_CONN_OPEN)
		(void)sd_comch_send_record(conn->fd, SD_COMCH_BYE, 0, NULL, 0, NULL, 0);
	if (conn->ep != NULL && conn->ep->poll_fd >= 0)
		(void)epoll_ctl(conn->ep->poll_fd, EPOLL_CTL_DEL, conn->fd, NULL);
	close(conn->fd);
	conn->fd = -1;
	conn->state = SD_COMCH_CONN_CLOSED;
	sd_xproc_peer_fini(&conn->peer);
}

void
sd_comch_conn_fail(struct doca_comch_connection *conn)
{
	/* Both ends see the connection end; ours at its owner's next progress (EOF), not inside this call. */
	if (conn->fd >= 0)
		(void)shutdown(conn->fd, SHUT_RDWR);
}

bool
sd_comch_conn_identify(struct doca_comch_connection *conn)
{
	const char *reason = "";
	doca_error_t err;

	sd_xproc_peer_fini(&conn->peer);
	err = sd_xproc_peer_from_socket(conn->fd, &conn->peer, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Comch %s \"%s\": connection refused: %s", conn->ep->is_server ? "server" : "client",
			     conn->ep->name, reason);
		return false;
	}
	return true;
}

/* The peer left (BYE), died, or broke the protocol. */
static unsigned
conn_lost(struct doca_comch_connection *conn, bool orderly)
{
	struct sd_comch_ep *ep = conn->ep;

	conn->orderly = orderly;
	sd_comch_conn_close(conn, false);
	sd_comch_fp_conn_closed(conn);
	ep->conn_closed(ep, conn);
	return 1;
}

unsigned
sd_comch_conn_poll(struct doca_comch_connection *conn)
{
	struct sd_comch_ep *ep = conn->ep;
	struct sd_comch_msg m;
	doca_error_t err;
	unsigned n;
	int pfd;

	if (conn->fd < 0)
		return 0;
	err = sd_comch_recv_record(conn->fd, ep->rx, &m, &pfd);
	if (err == DOCA_ERROR_AGAIN)
		return 0;
	if (err != DOCA_SUCCESS)
		return conn_lost(conn, false);
	if (m.type == SD_COMCH_CONSUMER_NEW && conn->state == SD_COMCH_CONN_OPEN)
		return sd_comch_fp_consumer_new(conn, &m, pfd);
	sd_comch_close_fd(&pfd); /* only CONSUMER_NEW carries one */
	if (conn->state == SD_COMCH_CONN_HANDSHAKE)
		return ep->handshake(ep, conn, &m);
	/* Completions the peer published in shared rings before it sent this record come first. */
	n = sd_comch_fp_reap_conn(conn);

	switch (m.type) {
	case SD_COMCH_MSG:
		conn->counters[DOCA_COMCH_COUNTER_RECV_MESSAGES]++;
		conn->counters[DOCA_COMCH_COUNTER_RECV_BYTES] += m.payload_len;
		if (ep->recv_cb == NULL) {
			DOCA_LOG_DBG("Comch message of %u bytes dropped: no receive callback registered",
				     m.payload_len);
			return n;
		}
		/* The buffer is ours and valid until the next record is read. */
		ep->recv_cb((struct doca_comch_event_msg_recv *)conn, (uint8_t *)(uintptr_t)m.payload, m.payload_len,
			    conn);
		return n + 1;
	case SD_COMCH_BYE:
		return n + conn_lost(conn, true);
	case SD_COMCH_CONSUMER_GONE:
	case SD_COMCH_FP_DATA:
	case SD_COMCH_FP_DOORBELL:
		return n + sd_comch_fp_record(conn, &m);
	default:
		DOCA_LOG_ERR("Comch peer sent a handshake record (type %d) on an open connection; closing it",
			     (int)m.type);
		return conn_lost(conn, false);
	}
}

/* --- public-API helpers ------------------------------------------------------------ */

doca_error_t
sd_comch_ep_check_idle(struct sd_comch_ep *ep, const char *api)
{
	if (sd_ctx_state(&ep->ctx) != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("%s: allowed only while the context is IDLE (it is not); configure before "
			     "doca_ctx_start()",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_set_max_msg(struct sd_comch_ep *ep, uint32_t size, const char *api)
{
	if (size == 0 || size > SD_COMCH_MAX_MSG) {
		DOCA_LOG_ERR("%s: message size must be in [1, %u] (doca_comch_cap_get_max_msg_size), got %u; use a "
			     "size in that range",
			     api, SD_COMCH_MAX_MSG, size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_comch_ep_check_idle(ep, api) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ep->max_msg = size;
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_set_recv_queue(struct sd_comch_ep *ep, uint32_t size, const char *api)
{
	if (size == 0 || size > SD_COMCH_MAX_RECV_QUEUE) {
		DOCA_LOG_ERR("%s: receive queue size must be in [1, %u] (doca_comch_cap_get_max_recv_queue_size), "
			     "got %u; use a size in that range",
			     api, SD_COMCH_MAX_RECV_QUEUE, size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_comch_ep_check_idle(ep, api) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ep->recv_queue = size;
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_send_set_conf(struct sd_comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
		       doca_comch_task_send_completion_cb_t err, uint32_t num, const char *api)
{
	if (ok == NULL || err == NULL) {
		DOCA_LOG_ERR("%s: both the completion and the error callback are required; pass both", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_task_pool_configure(&ep->ctx, &ep->send_pool, "send", sizeof(struct doca_comch_task_send), num,
				      SD_COMCH_MAX_SEND_TASKS, SD_TASK_CB(ok), SD_TASK_CB(err), api);
}

doca_error_t
sd_comch_consumer_register(struct sd_comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
			   doca_comch_event_consumer_cb_t gone_cb, const char *api)
{
	if (new_cb == NULL || gone_cb == NULL) {
		DOCA_LOG_ERR("%s: both the new-consumer and the expired-consumer callbacks are required; pass both",
			     api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_comch_ep_check_idle(ep, api) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	ep->consumer_new_cb = new_cb;
	ep->consumer_gone_cb = gone_cb;
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_send_alloc(struct sd_comch_ep *ep, struct doca_comch_connection *peer, const void *msg, uint32_t len,
		    struct doca_comch_task_send **task_out, const char *api)
{
	struct doca_task *task;
	uint32_t limit;
	doca_error_t err;

	if (peer == NULL || task_out == NULL || (msg == NULL && len != 0)) {
		DOCA_LOG_ERR("%s: NULL argument (peer %p, msg %p, task %p); pass non-NULL pointers", api, (void *)peer,
			     msg, (void *)task_out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (peer->ep != ep) {
		DOCA_LOG_ERR("%s: the connection belongs to another Comch context; send on a connection of this one",
			     api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&ep->ctx) != DOCA_CTX_STATE_RUNNING || peer->state != SD_COMCH_CONN_OPEN) {
		DOCA_LOG_ERR("%s: the context must be RUNNING and the connection open (it is %s); wait for the "
			     "connection",
			     api, peer->state == SD_COMCH_CONN_CLOSED ? "closed" : "not ready");
		return DOCA_ERROR_BAD_STATE;
	}
	limit = ep->max_msg < peer->peer_max_msg ? ep->max_msg : peer->peer_max_msg;
	if (len > limit) {
		DOCA_LOG_ERR("%s: message of %u bytes is over the maximum message size %u (this side %u, peer %u); "
			     "split it or raise the size with *_set_max_msg_size() on both sides",
			     api, len, limit, ep->max_msg, peer->peer_max_msg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(ep->send_pool, (union doca_data){.u64 = 0}, api, &task);
	if (err != DOCA_SUCCESS)
		return err;
	*task_out = sd_container_of(task, struct doca_comch_task_send, task);
	(*task_out)->conn = peer;
	(*task_out)->msg = msg;
	(*task_out)->len = len;
	return DOCA_SUCCESS;
}

/*
 * The message goes to the peer now: it is delivered even if this process never
 * progresses again, and the completion is only the report of that.
 */
doca_error_t
sd_comch_task_send_submit(struct doca_task *task)
{
	struct doca_comch_task_send *t = sd_container_of(task, struct doca_comch_task_send, task);
	struct doca_comch_connection *conn = t->conn;
	doca_error_t err;

	if (conn->state != SD_COMCH_CONN_OPEN) {
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_CONNECTED);
		return DOCA_SUCCESS;
	}
	err = sd_comch_send_record(conn->fd, SD_COMCH_MSG, 0, t->msg, t->len, NULL, 0);
	if (err == DOCA_ERROR_AGAIN)
		return err; /* the peer's receive queue is full: the caller retries */
	if (err != DOCA_SUCCESS) {
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_CONNECTED);
		return DOCA_SUCCESS;
	}
	conn->counters[DOCA_COMCH_COUNTER_SENT_MESSAGES]++;
	conn->counters[DOCA_COMCH_COUNTER_SENT_BYTES] += t->len;
	sd_task_complete(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

/* --- connection API --------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_comch_connection_set_user_data(struct doca_comch_connection *connection, union doca_data user_data)
{
	if (connection == NULL) {
		DOCA_LOG_ERR("doca_comch_connection_set_user_data: connection is NULL; pass the connection a "
			     "connection callback or doca_comch_client_get_connection() gave");
		return DOCA_ERROR_INVALID_VALUE;
	}
	connection->user_data = user_data;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL union doca_data
doca_comch_connection_get_user_data(const struct doca_comch_connection *connection)
{
	if (connection == NULL) {
		DOCA_LOG_ERR("doca_comch_connection_get_user_data: connection is NULL; pass the connection a "
			     "connection callback or doca_comch_client_get_connection() gave");
		return (union doca_data){.u64 = 0};
	}
	return connection->user_data;
}

DOCA_EXPERIMENTAL struct doca_comch_server *
doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection)
{
	if (connection == NULL || !connection->ep->is_server)
		return NULL;
	return sd_container_of(connection->ep, struct doca_comch_server, ep);
}

DOCA_EXPERIMENTAL struct doca_comch_client *
doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection)
{
	if (connection == NULL || connection->ep->is_server)
		return NULL;
	return sd_container_of(connection->ep, struct doca_comch_client, ep);
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_connection_update_info(struct doca_comch_connection *connection)
{
	if (connection == NULL) {
		DOCA_LOG_ERR("doca_comch_connection_update_info: connection is NULL; pass the connection a connection "
			     "callback or doca_comch_client_get_connection() gave");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* sd:no-effect: the counters and peer limits are always current in software */
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_connection_get_counter(struct doca_comch_connection *connection, enum doca_comch_counter counter,
				  uint64_t *value)
{
	if (connection == NULL || value == NULL || counter < DOCA_COMCH_COUNTER_SENT_MESSAGES ||
	    counter > DOCA_COMCH_COUNTER_RECV_BYTES) {
		DOCA_LOG_ERR("doca_comch_connection_get_counter: NULL argument or unknown counter %d; pass non-NULL "
			     "pointers "
			     "and a DOCA_COMCH_COUNTER_* value",
			     (int)counter);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*value = connection->counters[counter];
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_task *
doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return task == NULL ? NULL : &task->task;
}
