/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Comch client (host side): creation on a host PCI function, the handshake
 * with the server of the same (function, name), and the ctx ops.
 *
 * Start: IDLE -> STARTING (doca_ctx_start returns IN_PROGRESS).  Each progress
 * call while STARTING does one step: connect if not connected, read the WELCOME.
 * With no server yet, the client watches the runtime directory with inotify (set
 * up before the first attempt, so a server appearing in between is not missed);
 * progress then costs one read() of the inotify fd, and that fd is registered
 * with the PE so an application sleeping on the notification handle wakes when
 * the server appears.  Without inotify it retries every SD_COMCH_RETRY_NS.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "comch_internal.h"
#include "../util/sd_rundir.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(comch.client);

#define SD_COMCH_RETRY_NS (20u * 1000u * 1000u)

static inline struct doca_comch_client *
client_from_ep(struct sd_comch_ep *ep)
{
	return sd_container_of(ep, struct doca_comch_client, ep);
}

static void
client_set_wake_fd(struct doca_comch_client *c, int fd)
{
	if (c->wake_fd == fd)
		return;
	if (c->wake_fd >= 0)
		sd_pe_del_wake_fd(sd_ctx_pe(&c->ep.ctx), c->wake_fd);
	c->wake_fd = fd;
	if (fd >= 0)
		(void)sd_pe_add_wake_fd(sd_ctx_pe(&c->ep.ctx), fd);
}

static void
client_shutdown(struct doca_comch_client *c)
{
	client_set_wake_fd(c, -1);
	sd_comch_conn_close(&c->conn, true);
	sd_comch_fp_conn_closed(&c->conn);
	if (c->inotify_fd >= 0) {
		close(c->inotify_fd);
		c->inotify_fd = -1;
	}
	sd_comch_ep_drop_events(&c->ep);
}

static void
client_conn_closed(struct sd_comch_ep *ep, struct doca_comch_connection *conn)
{
	struct doca_comch_client *c = client_from_ep(ep);

	DOCA_LOG_DBG("Comch client \"%s\": the server %s; stopping", ep->name,
		     conn->orderly ? "ended the connection" : "went away");
	client_set_wake_fd(c, -1);
	/* STOPPING, tasks not yet reported fail, IDLE from progress. */
	sd_ctx_fail(&ep->ctx);
}

static unsigned
client_handshake(struct sd_comch_ep *ep, struct doca_comch_connection *conn, const struct sd_comch_msg *m)
{
	struct doca_comch_client *c = client_from_ep(ep);

	if (m->type != SD_COMCH_WELCOME) {
		DOCA_LOG_ERR("Comch client \"%s\": the server's first record is not WELCOME (type %d)", ep->name,
			     (int)m->type);
		sd_comch_conn_close(conn, false);
		sd_ctx_fail(&ep->ctx);
		return 1;
	}
	if (m->u.welcome.status != 0) {
		doca_error_t why = (doca_error_t)m->u.welcome.status;

		sd_comch_conn_close(conn, false);
		if (why == DOCA_ERROR_NOT_FOUND) {
			/* Another service hashed to our socket name: keep waiting for ours. */
			DOCA_LOG_DBG("Comch client \"%s\": the socket belongs to another service", ep->name);
			conn->state = SD_COMCH_CONN_HANDSHAKE;
			c->next_retry_ns = sd_now_ns() + SD_COMCH_RETRY_NS;
			return 0;
		}
		DOCA_LOG_ERR("Comch client \"%s\": the server refused the connection: %s", ep->name,
			     doca_error_get_descr(why));
		sd_ctx_fail(&ep->ctx);
		return 1;
	}
	if (!sd_comch_conn_identify(conn)) {
		sd_comch_conn_close(conn, false);
		sd_ctx_fail(&ep->ctx);
		return 1;
	}
	conn->peer_max_msg = m->u.welcome.max_msg;
	conn->id = m->u.welcome.conn_id;
	conn->peer_recv_queue = SD_COMCH_DEFAULT_RECV_QUEUE;
	conn->state = SD_COMCH_CONN_OPEN;
	sd_comch_size_sndbuf(conn->fd, SD_COMCH_MAX_RECV_QUEUE / 16, conn->peer_max_msg);
	if (c->inotify_fd >= 0) {
		close(c->inotify_fd);
		c->inotify_fd = -1;
	}
	client_set_wake_fd(c, conn->fd);
	sd_ctx_set_running(&ep->ctx);
	return 1;
}

/*
 * Should a STARTING client without a socket try to connect now?  Yes when the
 * runtime directory changed (inotify, drained here) or the retry time passed
 * (next_retry_ns is set without inotify, or after a full backlog).
 */
static bool
should_retry(struct doca_comch_client *c)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;

	if (c->inotify_fd >= 0)
		while (read(c->inotify_fd, buf, sizeof(buf)) > 0)
			changed = true;
	if (!changed && c->next_retry_ns != 0 && sd_now_ns() >= c->next_retry_ns)
		changed = true;
	return changed;
}

static unsigned
try_connect(struct doca_comch_client *c)
{
	struct doca_comch_connection *conn = &c->conn;
	struct sd_comch_hello h;
	doca_error_t err;

	c->next_retry_ns = 0;
	err = sd_comch_connect(c->path, &conn->fd);
	if (err == DOCA_ERROR_NOT_FOUND || err == DOCA_ERROR_AGAIN) {
		/* No server (yet): inotify tells when one appears; else, or if busy, retry later. */
		if (err == DOCA_ERROR_AGAIN || c->inotify_fd < 0)
			c->next_retry_ns = sd_now_ns() + SD_COMCH_RETRY_NS;
		return 0;
	}
	if (err != DOCA_SUCCESS) {
		sd_ctx_fail(&c->ep.ctx);
		return 1;
	}
	memset(&h, 0, sizeof(h));
	h.pid = htole32((uint32_t)getpid());
	h.max_msg = htole32(c->ep.max_msg);
	h.recv_queue = htole32(c->ep.recv_queue);
	h.name_len = htole32(c->ep.name_len);
	snprintf(h.pci_addr, sizeof(h.pci_addr), "%s", c->ep.host_pci);
	conn->state = SD_COMCH_CONN_HANDSHAKE;
	if (sd_comch_send_record(conn->fd, SD_COMCH_HELLO, 0, &h, sizeof(h), c->ep.name, c->ep.name_len) !=
	    DOCA_SUCCESS) {
		/* The server went away between connect and HELLO: wait for the next one. */
		sd_comch_conn_close(conn, false);
		conn->state = SD_COMCH_CONN_HANDSHAKE;
		return 0;
	}
	client_set_wake_fd(c, conn->fd);
	return 0;
}

static unsigned
client_progress(struct doca_ctx *ctx)
{
	struct doca_comch_client *c = client_from_ep(sd_comch_ep_from_ctx(ctx));

	if (sd_ctx_state(ctx) == DOCA_CTX_STATE_STARTING) {
		if (c->conn.fd < 0)
			return should_retry(c) ? try_connect(c) : 0;
		return sd_comch_conn_poll(&c->conn);
	}
	if (sd_ctx_state(ctx) != DOCA_CTX_STATE_RUNNING)
		return 0;
	/* Completions first: a send is reported before the server's answer to it. */
	if (sd_ctx_has_completed(ctx))
		return 0;
	if (sd_comch_ep_deliver_event(&c->ep))
		return 1;
	return sd_comch_conn_poll(&c->conn);
}

static doca_error_t
client_start(struct doca_ctx *ctx, bool *running)
{
	struct doca_comch_client *c = client_from_ep(sd_comch_ep_from_ctx(ctx));
	char dir[108];
	doca_error_t err;

	err = sd_comch_sock_path(c->ep.host_pci, c->ep.name, c->path, sizeof(c->path));
	if (err != DOCA_SUCCESS)
		return err;
	memset(&c->conn, 0, sizeof(c->conn));
	c->conn.ep = &c->ep;
	c->conn.fd = -1;
	c->conn.peer = SD_XPROC_PEER_NONE;
	c->conn.state = SD_COMCH_CONN_HANDSHAKE;
	sd_list_init(&c->conn.link);
	/* Watch first, then try: a server published in between still wakes us. */
	c->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (c->inotify_fd >= 0 && (sd_rundir("Comch", dir, sizeof(dir)) != DOCA_SUCCESS ||
				   inotify_add_watch(c->inotify_fd, dir, IN_CREATE | IN_MOVED_TO) < 0)) {
		DOCA_LOG_DBG("Comch client: no inotify watch (%s); retrying every %u ms", strerror(errno),
			     SD_COMCH_RETRY_NS / 1000000u);
		close(c->inotify_fd);
		c->inotify_fd = -1;
	}
	if (c->inotify_fd >= 0)
		client_set_wake_fd(c, c->inotify_fd);
	c->next_retry_ns = 0;
	(void)try_connect(c);
	*running = false;
	/* STARTING until the server's WELCOME, read by a later doca_pe_progress(). */
	return DOCA_ERROR_IN_PROGRESS;
}

static void
client_flush(struct doca_ctx *ctx)
{
	client_shutdown(client_from_ep(sd_comch_ep_from_ctx(ctx)));
}

static bool
client_arm(struct doca_ctx *ctx)
{
	return !sd_list_empty(&client_from_ep(sd_comch_ep_from_ctx(ctx))->ep.events);
}

/* SOFTDOCA_FAULTS comch.peer=vanish: the connection ends as when the server's process dies (EOF). */
static void
client_vanish(struct doca_ctx *ctx)
{
	sd_comch_conn_fail(&client_from_ep(sd_comch_ep_from_ctx(ctx))->conn);
}

static const struct sd_ctx_ops client_ctx_ops = {
	.name = "comch_client",
	.start = client_start,
	.flush = client_flush,
	.stopped = client_flush,
	.progress = client_progress,
	.submit = sd_comch_task_send_submit,
	.arm = client_arm,
	.success_survives_stop = true,
	.vanish = client_vanish,
};

/* --- public API ------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_create(struct doca_dev *dev, const char *name, struct doca_comch_client **comch_client)
{
	struct doca_comch_client *c;
	doca_error_t err;

	if (dev == NULL || name == NULL || comch_client == NULL) {
		DOCA_LOG_ERR(
			"doca_comch_client_create: NULL argument (dev %p, name %p, client %p); pass non-NULL pointers",
			(void *)dev, (const void *)name, (void *)comch_client);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_devinfo_side(sd_dev_devinfo(dev)) != SD_DEV_SIDE_HOST) {
		DOCA_LOG_ERR("doca_comch_client_create: device %s is a DPU-side function, and Comch clients run on "
			     "the host; open the host PCI function (e.g. b1:00.0), or on the DPU create a server with "
			     "doca_comch_server_create()",
			     sd_devinfo_pci_addr(sd_dev_devinfo(dev)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	c = sd_fault_create("comch", "doca_comch_client_create") ? NULL : calloc(1, sizeof(*c));
	if (c == NULL) {
		DOCA_LOG_ERR("doca_comch_client_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	c->inotify_fd = -1;
	c->wake_fd = -1;
	c->conn.fd = -1;
	c->conn.ep = &c->ep;
	c->conn.peer = SD_XPROC_PEER_NONE;
	c->conn.state = SD_COMCH_CONN_CLOSED;
	c->ep.handshake = client_handshake;
	c->ep.conn_closed = client_conn_closed;
	err = sd_comch_ep_init(&c->ep, false, dev, name, sd_devinfo_pci_addr(sd_dev_devinfo(dev)), &client_ctx_ops,
			       "doca_comch_client_create");
	if (err != DOCA_SUCCESS) {
		free(c);
		return err;
	}
	*comch_client = c;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
	doca_error_t err;

	if (comch_client == NULL) {
		DOCA_LOG_ERR(
			"doca_comch_client_destroy: comch_client is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_ctx_fini(&comch_client->ep.ctx, "doca_comch_client_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_comch_fp_conn_free(&comch_client->conn);
	sd_comch_ep_fini(&comch_client->ep);
	free(comch_client);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_comch_client_as_ctx(struct doca_comch_client *comch_client)
{
	return comch_client == NULL ? NULL : &comch_client->ep.ctx;
}

#define CLIENT_NULL_CHECK(c, p, api)                                                                                   \
	do {                                                                                                           \
		if ((c) == NULL || (p) == NULL) {                                                                      \
			DOCA_LOG_ERR("%s: NULL argument; pass non-NULL pointers", api);                                \
			return DOCA_ERROR_INVALID_VALUE;                                                               \
		}                                                                                                      \
	} while (0)

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size)
{
	CLIENT_NULL_CHECK(comch_client, comch_client, "doca_comch_client_set_max_msg_size");
	return sd_comch_set_max_msg(&comch_client->ep, size, "doca_comch_client_set_max_msg_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	CLIENT_NULL_CHECK(comch_client, size, "doca_comch_client_get_max_msg_size");
	*size = comch_client->ep.max_msg;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size)
{
	CLIENT_NULL_CHECK(comch_client, comch_client, "doca_comch_client_set_recv_queue_size");
	return sd_comch_set_recv_queue(&comch_client->ep, size, "doca_comch_client_set_recv_queue_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	CLIENT_NULL_CHECK(comch_client, size, "doca_comch_client_get_recv_queue_size");
	*size = comch_client->ep.recv_queue;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_get_device(const struct doca_comch_client *comch_client, struct doca_dev **dev)
{
	CLIENT_NULL_CHECK(comch_client, dev, "doca_comch_client_get_device");
	*dev = sd_ctx_dev(&comch_client->ep.ctx);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
				 struct doca_comch_connection **connection)
{
	CLIENT_NULL_CHECK(comch_client, connection, "doca_comch_client_get_connection");
	if (comch_client->conn.state != SD_COMCH_CONN_OPEN) {
		DOCA_LOG_ERR("doca_comch_client_get_connection: the client is not connected; call it once the "
			     "context is RUNNING");
		return DOCA_ERROR_BAD_STATE;
	}
	*connection = (struct doca_comch_connection *)&comch_client->conn;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
				     doca_comch_task_send_completion_cb_t task_completion_cb,
				     doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks)
{
	CLIENT_NULL_CHECK(comch_client, comch_client, "doca_comch_client_task_send_set_conf");
	return sd_comch_send_set_conf(&comch_client->ep, task_completion_cb, task_error_cb, num_send_tasks,
				      "doca_comch_client_task_send_set_conf");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client, struct doca_comch_connection *peer,
				       const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	CLIENT_NULL_CHECK(comch_client, comch_client, "doca_comch_client_task_send_alloc_init");
	return sd_comch_send_alloc(&comch_client->ep, peer, msg, len, task, "doca_comch_client_task_send_alloc_init");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
					  doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	CLIENT_NULL_CHECK(comch_client, recv_event_cb, "doca_comch_client_event_msg_recv_register");
	if (sd_comch_ep_check_idle(&comch_client->ep, "doca_comch_client_event_msg_recv_register") != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	comch_client->ep.recv_cb = recv_event_cb;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
					  doca_comch_event_consumer_cb_t new_consumer_event_cb,
					  doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	CLIENT_NULL_CHECK(comch_client, comch_client, "doca_comch_client_event_consumer_register");
	return sd_comch_consumer_register(&comch_client->ep, new_consumer_event_cb, expired_consumer_event_cb,
					  "doca_comch_client_event_consumer_register");
}
