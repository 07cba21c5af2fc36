/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Comch server (DPU side): creation on a DPU-side device and the representor
 * of a host function, the listening socket, accepting clients (HELLO -> WELCOME ->
 * connect event), per-connection records, disconnect, and the ctx ops.
 *
 * Connections live on server->conns from accept until they are released: a
 * connection the peer closed stays until its disconnect event was delivered; at
 * stop every connection is closed (BYE) and they are freed when the ctx is IDLE,
 * so a callback that stops the server never sees its connection freed under it.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.server);

static inline struct doca_comch_server *
server_from_ep(struct sd_comch_ep *ep)
{
	return sd_container_of(ep, struct doca_comch_server, ep);
}

static void
conn_free(struct doca_comch_server *s, struct doca_comch_connection *conn)
{
	sd_comch_conn_close(conn, false);
	sd_comch_fp_conn_free(conn);
	sd_list_del(&conn->link);
	s->num_conns--;
	free(conn);
}

static void
server_conn_release(struct sd_comch_ep *ep, struct doca_comch_connection *conn)
{
	/* Producers / consumers still point at it: freed by the last one's destroy. */
	if (conn->fp_users != 0) {
		conn->release = true;
		return;
	}
	conn_free(server_from_ep(ep), conn);
}

static void
server_conn_closed(struct sd_comch_ep *ep, struct doca_comch_connection *conn)
{
	/* Its fd left the epoll set before it was closed (sd_comch_conn_close).  Accepted ones get an event. */
	if (conn->id != 0 && sd_ctx_state(&ep->ctx) == DOCA_CTX_STATE_RUNNING)
		sd_comch_ep_queue_event(ep, SD_COMCH_EV_DISCONNECT, conn, 0);
	else if (conn->pending_events == 0)
		server_conn_release(ep, conn);
	else
		conn->release = true;
}

/* Refuse a HELLO: say why (the client logs it), then forget the connection. */
static unsigned
refuse_hello(struct doca_comch_server *s, struct doca_comch_connection *conn, doca_error_t why)
{
	uint8_t w[sizeof(struct sd_comch_welcome)] = {0};
	uint32_t st = htole32((uint32_t)why);

	memcpy(w, &st, sizeof(st));
	(void)sd_comch_send_record(conn->fd, SD_COMCH_WELCOME, 0, w, sizeof(w), NULL, 0);
	conn_free(s, conn);
	return 0;
}

static unsigned
server_handshake(struct sd_comch_ep *ep, struct doca_comch_connection *conn, const struct sd_comch_msg *m)
{
	struct doca_comch_server *s = server_from_ep(ep);
	uint32_t w[4];

	if (m->type != SD_COMCH_HELLO) {
		DOCA_LOG_ERR("Comch client's first record is not HELLO (type %d); closing it", (int)m->type);
		conn_free(s, conn);
		return 0;
	}
	if (m->u.hello.name_len != ep->name_len || memcmp(m->name, ep->name, ep->name_len) != 0 ||
	    strcmp(m->u.hello.pci_addr, ep->host_pci) != 0) {
		/* A hash collision of the socket name: tell the client it has the wrong server. */
		DOCA_LOG_DBG("Comch client asked for another service on this socket; refused");
		return refuse_hello(s, conn, DOCA_ERROR_NOT_FOUND);
	}
	if (!sd_comch_conn_identify(conn))
		return refuse_hello(s, conn, DOCA_ERROR_NOT_PERMITTED);
	if (s->num_conns > SD_COMCH_MAX_CLIENTS) {
		DOCA_LOG_ERR("Comch server \"%s\": client refused, %u clients already connected "
			     "(doca_comch_cap_get_max_clients)",
			     ep->name, SD_COMCH_MAX_CLIENTS);
		return refuse_hello(s, conn, DOCA_ERROR_FULL);
	}
	conn->peer_max_msg = m->u.hello.max_msg;
	conn->peer_recv_queue = m->u.hello.recv_queue;
	conn->id = ++s->next_conn_id;
	w[0] = 0;
	w[1] = htole32(ep->max_msg);
	w[2] = htole32((uint32_t)getpid());
	w[3] = htole32(conn->id);
	sd_comch_size_sndbuf(conn->fd, conn->peer_recv_queue, conn->peer_max_msg);
	if (sd_comch_send_record(conn->fd, SD_COMCH_WELCOME, 0, w, sizeof(w), NULL, 0) != DOCA_SUCCESS) {
		conn_free(s, conn);
		return 0;
	}
	conn->state = SD_COMCH_CONN_OPEN;
	/* Delivered before anything else this connection sends. */
	sd_comch_ep_queue_event(ep, SD_COMCH_EV_CONNECT, conn, 0);
	return 0;
}

static void
accept_clients(struct doca_comch_server *s)
{
	for (int i = 0; i < 16; i++) {
		struct doca_comch_connection *conn;
		struct epoll_event ev = {.events = EPOLLIN};
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				DOCA_LOG_ERR("Comch server \"%s\": accept failed: %s", s->ep.name, strerror(errno));
			return;
		}
		conn = calloc(1, sizeof(*conn));
		ev.data.ptr = conn;
		if (conn == NULL || epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			DOCA_LOG_ERR("Comch server \"%s\": cannot take a new client (%s)", s->ep.name,
				     conn == NULL ? "out of memory" : strerror(errno));
			free(conn);
			close(fd);
			return;
		}
		conn->ep = &s->ep;
		conn->fd = fd;
		conn->peer = SD_XPROC_PEER_NONE;
		conn->state = SD_COMCH_CONN_HANDSHAKE;
		sd_list_insert_tail(&s->conns, &conn->link);
		s->num_conns++;
	}
}

static unsigned
server_progress(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = server_from_ep(sd_comch_ep_from_ctx(ctx));
	struct epoll_event ev;
	int n;

	if (sd_ctx_state(ctx) != DOCA_CTX_STATE_RUNNING)
		return 0;
	/* Completions first: a send is reported before the peer's answer to it. */
	if (sd_ctx_has_completed(ctx))
		return 0;
	if (sd_comch_ep_deliver_event(&s->ep))
		return 1;
	/* Level-triggered, one at a time: the kernel rotates ready fds, so clients share fairly. */
	n = epoll_wait(s->epoll_fd, &ev, 1, 0);
	if (n <= 0)
		return 0;
	if (ev.data.ptr == NULL) {
		accept_clients(s);
		return 0;
	}
	/*
	 * Poll first, then deliver, as two statements: the operands of + are evaluated in
	 * either order, and delivering an event may release the connection polled here.
	 */
	n = (int)sd_comch_conn_poll(ev.data.ptr);
	return (unsigned)n + (sd_comch_ep_deliver_event(&s->ep) ? 1 : 0);
}

/* Close the listener and every connection (BYE); idempotent.  Connections stay allocated. */
static void
server_shutdown(struct doca_comch_server *s)
{
	struct sd_list *elem;

	sd_comch_ep_drop_events(&s->ep);
	sd_list_for_each(elem, &s->conns)
	{
		struct doca_comch_connection *conn = sd_container_of(elem, struct doca_comch_connection, link);

		sd_comch_conn_close(conn, true);
		sd_comch_fp_conn_closed(conn);
	}
	if (s->listen_fd >= 0) {
		(void)unlink(s->path);
		close(s->listen_fd);
		s->listen_fd = -1;
	}
	if (s->epoll_fd >= 0) {
		s->ep.poll_fd = -1;
		sd_pe_del_wake_fd(sd_ctx_pe(&s->ep.ctx), s->epoll_fd);
		close(s->epoll_fd);
		s->epoll_fd = -1;
	}
	if (s->lock_fd >= 0) {
		sd_comch_unlock(s->path, s->lock_fd); /* releases the flock: another server may take the name */
		s->lock_fd = -1;
	}
}

static void
server_flush(struct doca_ctx *ctx)
{
	server_shutdown(server_from_ep(sd_comch_ep_from_ctx(ctx)));
}

static void
server_stopped(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = server_from_ep(sd_comch_ep_from_ctx(ctx));
	struct sd_list *elem;

	server_shutdown(s);
	while ((elem = sd_list_pop_head(&s->conns)) != NULL) {
		struct doca_comch_connection *conn = sd_container_of(elem, struct doca_comch_connection, link);

		sd_list_init(&conn->link);
		s->num_conns--;
		if (conn->fp_users != 0) {
			/* A producer / consumer outlives the server's run: its destroy frees this. */
			conn->release = true;
			conn->ep = NULL;
			continue;
		}
		sd_comch_fp_conn_free(conn);
		free(conn);
	}
}

static doca_error_t
server_start(struct doca_ctx *ctx, bool *running)
{
	struct doca_comch_server *s = server_from_ep(sd_comch_ep_from_ctx(ctx));
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	doca_error_t err;

	err = sd_comch_sock_path(s->ep.host_pci, s->ep.name, s->path, sizeof(s->path));
	if (err != DOCA_SUCCESS)
		return err;
	s->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epoll_fd < 0) {
		DOCA_LOG_ERR("doca_ctx_start: Comch server cannot create an epoll set: %s; raise the process's "
			     "open-file limit",
			     strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	err = sd_comch_listen(s->path, &s->listen_fd, &s->lock_fd);
	if (err != DOCA_SUCCESS)
		goto close_epoll;
	if (epoll_ctl(s->epoll_fd, EPOLL_CTL_ADD, s->listen_fd, &ev) != 0) {
		DOCA_LOG_ERR("doca_ctx_start: Comch server cannot watch its socket: %s; raise the process's "
			     "open-file limit",
			     strerror(errno));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto shutdown;
	}
	s->ep.poll_fd = s->epoll_fd;
	/* An application sleeping on the PE's notification handle wakes for clients. */
	(void)sd_pe_add_wake_fd(sd_ctx_pe(ctx), s->epoll_fd);
	s->next_conn_id = 0;
	*running = true; /* listening: RUNNING at once, as DOCA's servers */
	return DOCA_SUCCESS;

shutdown:
	server_shutdown(s);
	return err;
close_epoll:
	close(s->epoll_fd);
	s->epoll_fd = -1;
	return err;
}

static bool
server_arm(struct doca_ctx *ctx)
{
	return !sd_list_empty(&server_from_ep(sd_comch_ep_from_ctx(ctx))->ep.events);
}

/* SOFTDOCA_FAULTS comch.peer=vanish: every client's connection ends as when its process dies (EOF). */
static void
server_vanish(struct doca_ctx *ctx)
{
	struct doca_comch_server *s = server_from_ep(sd_comch_ep_from_ctx(ctx));
	struct sd_list *elem;

	sd_list_for_each(elem, &s->conns) sd_comch_conn_fail(sd_container_of(elem, struct doca_comch_connection, link));
}

static const struct sd_ctx_ops server_ctx_ops = {
	.name = "comch_server",
	.start = server_start,
	.flush = server_flush,
	.stopped = server_stopped,
	.progress = server_progress,
	.submit = sd_comch_task_send_submit,
	.arm = server_arm,
	.success_survives_stop = true,
	.vanish = server_vanish,
};

/* --- public API ------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
			 struct doca_comch_server **comch_server)
{
	struct doca_comch_server *s;
	doca_error_t err;

	if (dev == NULL || repr == NULL || name == NULL || comch_server == NULL) {
		DOCA_LOG_ERR("doca_comch_server_create: NULL argument (dev %p, repr %p, name %p, server %p); pass "
			     "non-NULL pointers",
			     (void *)dev, (void *)repr, (const void *)name, (void *)comch_server);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_devinfo_side(sd_dev_devinfo(dev)) != SD_DEV_SIDE_DPU) {
		DOCA_LOG_ERR("doca_comch_server_create: device %s is a host-side function, and Comch servers run on "
			     "the DPU; open a DPU-side device (e.g. 03:00.0) and the representor of the host function, "
			     "or on the host create a client with doca_comch_client_create()",
			     sd_devinfo_pci_addr(sd_dev_devinfo(dev)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (sd_devinfo_rep_owner(sd_dev_rep_devinfo(repr)) != sd_dev_devinfo(dev)) {
		DOCA_LOG_ERR("doca_comch_server_create: representor %s belongs to device %s, not to %s; open it "
			     "with doca_devinfo_rep_create_list() on this device",
			     sd_devinfo_rep_pci_addr(sd_dev_rep_devinfo(repr)),
			     sd_devinfo_pci_addr(sd_devinfo_rep_owner(sd_dev_rep_devinfo(repr))),
			     sd_devinfo_pci_addr(sd_dev_devinfo(dev)));
		return DOCA_ERROR_INVALID_VALUE;
	}
	s = sd_fault_create("comch", "doca_comch_server_create") ? NULL : calloc(1, sizeof(*s));
	if (s == NULL) {
		DOCA_LOG_ERR("doca_comch_server_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	s->rep = repr;
	s->listen_fd = s->lock_fd = s->epoll_fd = -1;
	sd_list_init(&s->conns);
	s->ep.handshake = server_handshake;
	s->ep.conn_closed = server_conn_closed;
	s->ep.conn_release = server_conn_release;
	err = sd_comch_ep_init(&s->ep, true, dev, name, sd_devinfo_rep_pci_addr(sd_dev_rep_devinfo(repr)),
			       &server_ctx_ops, "doca_comch_server_create");
	if (err != DOCA_SUCCESS) {
		free(s);
		return err;
	}
	*comch_server = s;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
	doca_error_t err;

	if (comch_server == NULL) {
		DOCA_LOG_ERR(
			"doca_comch_server_destroy: comch_server is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_ctx_fini(&comch_server->ep.ctx, "doca_comch_server_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_comch_ep_fini(&comch_server->ep);
	free(comch_server);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_comch_server_as_ctx(struct doca_comch_server *comch_server)
{
	return comch_server == NULL ? NULL : &comch_server->ep.ctx;
}

#define SERVER_NULL_CHECK(s, p, api)                                                                                   \
	do {                                                                                                           \
		if ((s) == NULL || (p) == NULL) {                                                                      \
			DOCA_LOG_ERR("%s: NULL argument; pass non-NULL pointers", api);                                \
			return DOCA_ERROR_INVALID_VALUE;                                                               \
		}                                                                                                      \
	} while (0)

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size)
{
	SERVER_NULL_CHECK(comch_server, comch_server, "doca_comch_server_set_max_msg_size");
	return sd_comch_set_max_msg(&comch_server->ep, size, "doca_comch_server_set_max_msg_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	SERVER_NULL_CHECK(comch_server, size, "doca_comch_server_get_max_msg_size");
	*size = comch_server->ep.max_msg;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size)
{
	SERVER_NULL_CHECK(comch_server, comch_server, "doca_comch_server_set_recv_queue_size");
	return sd_comch_set_recv_queue(&comch_server->ep, size, "doca_comch_server_set_recv_queue_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	SERVER_NULL_CHECK(comch_server, size, "doca_comch_server_get_recv_queue_size");
	*size = comch_server->ep.recv_queue;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_get_device(const struct doca_comch_server *comch_server, struct doca_dev **dev)
{
	SERVER_NULL_CHECK(comch_server, dev, "doca_comch_server_get_device");
	*dev = sd_ctx_dev(&comch_server->ep.ctx);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server, struct doca_dev_rep **repr)
{
	SERVER_NULL_CHECK(comch_server, repr, "doca_comch_server_get_device_repr");
	*repr = comch_server->rep;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
				     doca_comch_task_send_completion_cb_t task_completion_cb,
				     doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
	SERVER_NULL_CHECK(comch_server, comch_server, "doca_comch_server_task_send_set_conf");
	return sd_comch_send_set_conf(&comch_server->ep, task_completion_cb, task_error_cb, num_send_tasks,
				      "doca_comch_server_task_send_set_conf");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server, struct doca_comch_connection *peer,
				       const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	SERVER_NULL_CHECK(comch_server, comch_server, "doca_comch_server_task_send_alloc_init");
	return sd_comch_send_alloc(&comch_server->ep, peer, msg, len, task, "doca_comch_server_task_send_alloc_init");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
					  doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	SERVER_NULL_CHECK(comch_server, recv_event_cb, "doca_comch_server_event_msg_recv_register");
	if (sd_comch_ep_check_idle(&comch_server->ep, "doca_comch_server_event_msg_recv_register") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_server->ep.recv_cb = recv_event_cb;
	return DOCA_SUCCESS;
}

static doca_error_t
connection_register(struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_cb,
		    doca_comch_event_connection_status_changed_cb_t disconnect_cb, const char *api)
{
	if (comch_server == NULL || connect_cb == NULL || disconnect_cb == NULL) {
		DOCA_LOG_ERR("%s: the server and both callbacks are required; pass all three", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_comch_ep_check_idle(&comch_server->ep, api) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_server->connect_cb = connect_cb;
	comch_server->disconnect_cb = disconnect_cb;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	return connection_register(comch_server, connect_event_cb, disconnect_event_cb,
				   "doca_comch_server_event_connection_status_changed_register");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_event_connection_register(struct doca_comch_server *comch_server,
					    doca_comch_event_connection_status_changed_cb_t connect_event_cb,
					    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	return connection_register(comch_server, connect_event_cb, disconnect_event_cb,
				   "doca_comch_server_event_connection_register");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
					  doca_comch_event_consumer_cb_t new_consumer_event_cb,
					  doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	SERVER_NULL_CHECK(comch_server, comch_server, "doca_comch_server_event_consumer_register");
	return sd_comch_consumer_register(&comch_server->ep, new_consumer_event_cb, expired_consumer_event_cb,
					  "doca_comch_server_event_consumer_register");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_server_disconnect(struct doca_comch_server *comch_server, struct doca_comch_connection *connection)
{
	static const char api[] = "doca_comch_server_disconnect";

	if (comch_server == NULL || connection == NULL || connection->ep != &comch_server->ep) {
		DOCA_LOG_ERR("%s: NULL argument or a connection of another server; pass a connection of this server",
			     api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (connection->state != SD_COMCH_CONN_OPEN) {
		DOCA_LOG_ERR("%s: the connection has already ended; disconnect a connection once, while it is open",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (connection->fp_users != 0) {
		DOCA_LOG_ERR("%s: %u producers/consumers still use the connection; destroy them first", api,
			     connection->fp_users);
		return DOCA_ERROR_IN_USE;
	}
	/* The client is told (BYE) and stops; no disconnect event here: we ended it. */
	sd_comch_conn_close(connection, true);
	sd_comch_fp_conn_closed(connection);
	connection->orderly = true;
	if (connection->pending_events == 0)
		conn_free(comch_server, connection);
	else
		connection->release = true;
	return DOCA_SUCCESS;
}
