/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM for doca_rdma: listen / connect_to_addr / accept / reject /
 * disconnect and the connection-state callbacks (addresses: rdma_cm_addr.c), on the soft
 * NIC's connection manager (src/fabric/fabric_cm.h).  The CM handshake carries
 * the connection descriptors both sides would otherwise exchange out of band,
 * so data then flows over the fabric's best transport; the CM channel stays
 * up to watch the peer (docs/rdma-cm.md).
 *
 * Mapping of CM events to DOCA callbacks (all from doca_pe_progress()):
 *   REQUEST      -> new connection object, request callback (server)
 *   ACCEPTED     -> connect the descriptor, confirm, established callback (client)
 *   ESTABLISHED  -> established callback (server)
 *   FAILURE      -> failure callback (never established)
 *   DISCONNECT   -> disconnect callback (was established)
 * Tasks of a connection that ends complete through their error callbacks.
 */
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../core/sd_core.h"
#include "../fabric/fabric_cm.h"
#include "rdma_cm_internal.h"
#include "rdma_internal.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(rdma.cm);

/*
 * After the peer's DISCONNECT, how long tasks still in flight on the
 * connection may take to finish before they are flushed.  The peer sent its
 * acks and replies before the DISCONNECT (it flushes its data endpoint first),
 * but on another channel, so they may arrive a little later; ops the peer
 * never answered (a message it had no receive for) wait this long.
 */
#define RDMA_CM_DRAIN_MS 1000u

/* rdma->cm */
struct rdma_cm {
	struct fabric_cm *fcm;
	int wake_fd;	  /* the fcm's event fd as registered with the PE, or -1 */
	bool progressing; /* inside sd_fabric_cm_progress(): the fcm must stay */
	bool stopped;	  /* the context stopped meanwhile: drop events, free the fcm after */
};

/* conn->cm */
struct rdma_cm_conn {
	struct fabric_cm_conn *fc; /* NULL once the CM connection is gone */
	bool server;
	uint8_t *client_desc; /* server: the client's descriptor until accept() */
	size_t client_desc_len;
	uint64_t drain_deadline_ns; /* conn->peer_left: flush what is still in flight at this time */
};

static bool
conn_ended(const struct doca_rdma_connection *conn)
{
	return conn->state == SD_RDMA_CONN_FAILED || conn->state == SD_RDMA_CONN_DISCONNECTED;
}

/* The CM connection goes (the peer learns it, unless it already ended). */
static void
cm_conn_release(struct doca_rdma_connection *conn)
{
	struct rdma_cm_conn *cc = conn->cm;

	if (cc == NULL)
		return;
	if (cc->fc != NULL) {
		sd_fabric_cm_conn_destroy(cc->fc);
		cc->fc = NULL;
	}
	free(cc->client_desc);
	cc->client_desc = NULL;
}

/* ---- events ---- */

static void
on_request(struct doca_rdma *rdma, const struct fabric_cm_event *ev)
{
	struct doca_rdma_connection *conn;
	struct rdma_cm_conn *cc;
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	doca_error_t err;

	if (rdma->request_cb == NULL) {
		DOCA_LOG_WARN("Connection request refused: no request callback set; pass one to "
			      "doca_rdma_set_connection_state_callbacks() on a listening context");
		(void)sd_fabric_cm_reject(ev->conn, FABRIC_CM_REJECT_APP);
		sd_fabric_cm_conn_destroy(ev->conn);
		return;
	}
	err = sd_rdma_conn_create(rdma, "connection request", &conn);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_WARN("Connection request from peer connection %u refused: %s", ev->peer_conn_id,
			      doca_error_get_name(err));
		(void)sd_fabric_cm_reject(ev->conn,
					  err == DOCA_ERROR_FULL ? FABRIC_CM_REJECT_FULL : FABRIC_CM_REJECT_SHUTDOWN);
		sd_fabric_cm_conn_destroy(ev->conn);
		return;
	}
	cc = calloc(1, sizeof(*cc));
	if (cc != NULL)
		cc->client_desc = malloc(ev->desc_len);
	if (cc == NULL || cc->client_desc == NULL || sd_fabric_cm_conn_get_peer(ev->conn, &ss, &sl) != DOCA_SUCCESS ||
	    sd_rdma_cm_addr_from_sockaddr(&ss, sl, &conn->addr) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Connection request refused: out of memory");
		if (cc != NULL)
			free(cc->client_desc);
		free(cc);
		free(conn->addr);
		conn->addr = NULL;
		(void)sd_fabric_cm_reject(ev->conn, FABRIC_CM_REJECT_SHUTDOWN);
		sd_fabric_cm_conn_destroy(ev->conn);
		sd_rdma_conn_fail(conn, DOCA_ERROR_NO_MEMORY, false);
		return;
	}
	memcpy(cc->client_desc, ev->desc, ev->desc_len);
	cc->client_desc_len = ev->desc_len;
	cc->fc = ev->conn;
	cc->server = true;
	conn->cm = cc;
	sd_fabric_cm_conn_set_user(ev->conn, conn);
	DOCA_LOG_DBG("Connection %u: request from %s:%u (peer connection %u, %u bytes of private data)", conn->id,
		     conn->addr->text, conn->addr->port, ev->peer_conn_id, ev->priv_len);
	rdma->request_cb(conn, sd_ctx_user_data(&rdma->ctx));
}

static void
on_accepted(struct doca_rdma_connection *conn, const struct fabric_cm_event *ev)
{
	struct rdma_cm_conn *cc = conn->cm;
	doca_error_t err;

	DOCA_LOG_DBG("Connection %u: accepted by the server (peer connection %u, %u bytes of private data)", conn->id,
		     ev->peer_conn_id, ev->priv_len);
	err = sd_rdma_conn_connect(conn, ev->desc, ev->desc_len, "doca_rdma_connect_to_addr");
	if (err == DOCA_SUCCESS)
		err = sd_fabric_cm_confirm(cc->fc);
	if (err != DOCA_SUCCESS) {
		cm_conn_release(conn);
		sd_rdma_conn_fail(conn, err, true);
		return;
	}
	sd_rdma_conn_established(conn, true);
}

static void
on_event(struct fabric_cm *fcm, const struct fabric_cm_event *ev, void *user)
{
	struct doca_rdma *rdma = user;
	struct rdma_cm *rcm = rdma->cm;
	struct doca_rdma_connection *conn;

	(void)fcm;
	if (rcm->stopped) {
		/* the context stopped inside an earlier callback of this progress */
		if (ev->type == FABRIC_CM_EVENT_REQUEST)
			sd_fabric_cm_conn_destroy(ev->conn);
		return;
	}
	if (ev->type == FABRIC_CM_EVENT_REQUEST) {
		on_request(rdma, ev);
		return;
	}
	conn = sd_fabric_cm_conn_get_user(ev->conn);
	if (conn == NULL || conn->cm == NULL || conn_ended(conn))
		return;
	switch (ev->type) {
	case FABRIC_CM_EVENT_ACCEPTED:
		on_accepted(conn, ev);
		break;
	case FABRIC_CM_EVENT_ESTABLISHED:
		sd_rdma_conn_established(conn, true);
		break;
	case FABRIC_CM_EVENT_FAILURE:
		DOCA_LOG_INFO("Connection %u with %s:%u failed: %s", conn->id, conn->addr ? conn->addr->text : "?",
			      conn->addr ? conn->addr->port : 0, doca_error_get_descr(ev->status));
		cm_conn_release(conn);
		if (conn->ep != NULL)
			sd_fabric_ep_abort(conn->ep, ev->status);
		sd_rdma_conn_fail(conn, ev->status, true);
		break;
	case FABRIC_CM_EVENT_DISCONNECT:
		DOCA_LOG_INFO("Connection %u with %s:%u ended by the peer: %s", conn->id,
			      conn->addr ? conn->addr->text : "?", conn->addr ? conn->addr->port : 0,
			      ev->status == DOCA_SUCCESS ? "disconnected" : doca_error_get_descr(ev->status));
		if (ev->status != DOCA_SUCCESS && conn->err == DOCA_SUCCESS)
			conn->err = ev->status;
		cm_conn_release(conn);
		/*
		 * An orderly DISCONNECT travels on the CM channel and may overtake
		 * the acks, replies and messages the peer sent before it on the data
		 * channel: let the tasks in flight finish and the completions
		 * already queued be delivered first (rcm_drain(), bounded).
		 */
		if (ev->status == DOCA_SUCCESS && conn->state == SD_RDMA_CONN_ESTABLISHED && conn->ep != NULL) {
			conn->peer_left = true;
			((struct rdma_cm_conn *)conn->cm)->drain_deadline_ns =
				sd_now_ns() + RDMA_CM_DRAIN_MS * 1000000ull;
			break;
		}
		/*
		 * The peer died or the link is gone: its tasks fail now with that
		 * reason, no waiting; receives it filled before are reported first.
		 */
		if (ev->status != DOCA_SUCCESS && conn->ep != NULL)
			sd_fabric_ep_abort(conn->ep, ev->status);
		if (conn->state == SD_RDMA_CONN_ESTABLISHED)
			sd_rdma_conn_notify_later(conn);
		else
			sd_rdma_conn_disconnected(conn, true);
		break;
	default:
		break;
	}
}

/* ---- hooks called by the facade ---- */

static void
rcm_free_fcm(struct doca_rdma *rdma, struct rdma_cm *rcm)
{
	struct sd_list *pos;

	/* every CM connection goes first (the peers see DISCONNECT / FAILURE) */
	sd_list_for_each(pos, &rdma->conns) cm_conn_release(sd_container_of(pos, struct doca_rdma_connection, node));
	if (rcm->wake_fd >= 0 && sd_ctx_pe(&rdma->ctx) != NULL)
		sd_pe_del_wake_fd(sd_ctx_pe(&rdma->ctx), rcm->wake_fd);
	rcm->wake_fd = -1;
	sd_fabric_cm_destroy(rcm->fcm);
	rcm->fcm = NULL;
}

/*
 * Connections whose peer disconnected (orderly): once their tasks in flight
 * are done and every completion of the context was delivered (so a receive
 * the peer filled last reaches the application before the disconnect
 * callback), or the drain time is over, the connection ends and the
 * disconnect callback fires.  One per scan: the callback may stop the context.
 */
static unsigned
rcm_drain(struct doca_rdma *rdma)
{
	struct sd_list *pos;
	uint64_t now = 0;
	unsigned n = 0;
	bool again = true;

	while (again && rdma->fctx != NULL) {
		again = false;
		sd_list_for_each(pos, &rdma->conns)
		{
			struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, node);
			struct rdma_cm_conn *cc = conn->cm;

			if (!conn->peer_left || conn_ended(conn) || cc == NULL)
				continue;
			if (now == 0)
				now = sd_now_ns();
			/*
			 * Task completions reach the application after this progress
			 * op returns (core reports rdma->ctx.completed): wait for the
			 * next call when some are queued, here or in the fabric.
			 */
			if (now < cc->drain_deadline_ns &&
			    (sd_ctx_has_completed(&rdma->ctx) || sd_fabric_ctx_has_work(rdma->fctx) ||
			     (conn->ep != NULL && !sd_fabric_ep_is_idle(conn->ep))))
				continue;
			if (now >= cc->drain_deadline_ns)
				DOCA_LOG_WARN("Connection %u: tasks still in flight %u ms after the peer disconnected; "
					      "they complete with CONNECTION_ABORTED",
					      conn->id, RDMA_CM_DRAIN_MS);
			conn->peer_left = false;
			sd_rdma_conn_disconnected(conn, true);
			n++;
			again = true;
			break;
		}
	}
	return n;
}

static bool
rcm_has_work(struct doca_rdma *rdma)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &rdma->conns)
	{
		struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, node);

		if (conn->peer_left && !conn_ended(conn))
			return true;
	}
	return false;
}

static unsigned
rcm_progress(struct doca_rdma *rdma)
{
	struct rdma_cm *rcm = rdma->cm;
	struct sd_list *pos;
	unsigned n;

	if (rcm == NULL || rcm->fcm == NULL)
		return 0;
	rcm->progressing = true;
	n = sd_fabric_cm_progress(rcm->fcm);
	rcm->progressing = false;
	if (rcm->stopped) {
		rcm_free_fcm(rdma, rcm);
		rcm->stopped = false;
		return n;
	}
	n += rcm_drain(rdma);
	if (rcm->fcm == NULL)
		return n;
	/* connections the fabric lost first (facade callback done): let the peer know */
	sd_list_for_each(pos, &rdma->conns)
	{
		struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, node);
		struct rdma_cm_conn *cc = conn->cm;

		if (cc != NULL && cc->fc != NULL && conn_ended(conn) && !conn->notify_queued)
			cm_conn_release(conn);
	}
	return n;
}

static void
rcm_stop(struct doca_rdma *rdma)
{
	struct rdma_cm *rcm = rdma->cm;

	if (rcm == NULL || rcm->fcm == NULL)
		return;
	if (rcm->progressing) {
		rcm->stopped = true; /* freed when sd_fabric_cm_progress() returns */
		return;
	}
	rcm_free_fcm(rdma, rcm);
}

static void
rcm_destroy(struct doca_rdma *rdma)
{
	struct rdma_cm *rcm = rdma->cm;

	if (rcm == NULL)
		return;
	if (rcm->fcm != NULL)
		rcm_free_fcm(rdma, rcm);
	free(rcm);
	rdma->cm = NULL;
}

static void
rcm_conn_free(struct doca_rdma_connection *conn)
{
	struct rdma_cm_conn *cc = conn->cm;

	if (cc != NULL) {
		if (cc->fc != NULL)
			sd_fabric_cm_conn_destroy(cc->fc);
		free(cc->client_desc);
		free(cc);
		conn->cm = NULL;
	}
	free(conn->addr);
	conn->addr = NULL;
}

static const struct sd_rdma_cm_ops rdma_cm_ops = {
	.progress = rcm_progress,
	.stop = rcm_stop,
	.has_work = rcm_has_work,
	.destroy = rcm_destroy,
	.conn_free = rcm_conn_free,
};

/* The CM of a started context, made on first use. */
static doca_error_t
rcm_get(struct doca_rdma *rdma, const char *api, struct rdma_cm **out)
{
	struct fabric_cm_attr attr = {0};
	struct rdma_cm *rcm = rdma->cm;
	doca_error_t err;

	if (sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_RUNNING && sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_STARTING) {
		DOCA_LOG_ERR("%s: the RDMA context is not started (state %d); call it from the RUNNING state callback "
			     "or later",
			     api, (int)sd_ctx_state(&rdma->ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	if (rcm == NULL) {
		rcm = calloc(1, sizeof(*rcm));
		if (rcm == NULL) {
			DOCA_LOG_ERR("%s: out of memory", api);
			return DOCA_ERROR_NO_MEMORY;
		}
		rcm->wake_fd = -1;
		rdma->cm = rcm;
		sd_rdma_set_cm_ops(rdma, &rdma_cm_ops);
	}
	if (rcm->stopped) {
		DOCA_LOG_ERR("%s: the RDMA context is stopping", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (rcm->fcm == NULL) {
		attr.cb = on_event;
		attr.user = rdma;
		attr.request_timeout_ms = rdma->conn_request_timeout_ms;
		err = sd_fabric_cm_create(&attr, &rcm->fcm);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("%s: failed to start the connection manager: %s", api, doca_error_get_descr(err));
			return err;
		}
		if (sd_ctx_pe(&rdma->ctx) != NULL &&
		    sd_pe_add_wake_fd(sd_ctx_pe(&rdma->ctx), sd_fabric_cm_get_event_fd(rcm->fcm)) == DOCA_SUCCESS)
			rcm->wake_fd = sd_fabric_cm_get_event_fd(rcm->fcm);
		else
			DOCA_LOG_WARN("%s: connection events cannot wake the PE's notification handle; poll with "
				      "doca_pe_progress()",
				      api);
	}
	*out = rcm;
	return DOCA_SUCCESS;
}

/* ---- public API ---- */

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_connection_state_callbacks(struct doca_rdma *rdma,
					 doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
					 doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
					 doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
					 doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb)
{
	if (rdma == NULL || doca_rdma_connect_established_cb == NULL || doca_rdma_connect_failure_cb == NULL ||
	    doca_rdma_disconnect_cb == NULL) {
		DOCA_LOG_ERR("doca_rdma_set_connection_state_callbacks: rdma (%p) and the established (%p), failure "
			     "(%p) and disconnect (%p) callbacks are required; only the request callback may be NULL",
			     (void *)rdma, (void *)(uintptr_t)doca_rdma_connect_established_cb,
			     (void *)(uintptr_t)doca_rdma_connect_failure_cb,
			     (void *)(uintptr_t)doca_rdma_disconnect_cb);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_rdma_set_connection_state_callbacks: the context is not idle (state %d); set the "
			     "callbacks before doca_ctx_start()",
			     (int)sd_ctx_state(&rdma->ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	rdma->request_cb = doca_rdma_connect_request_cb;
	rdma->established_cb = doca_rdma_connect_established_cb;
	rdma->failure_cb = doca_rdma_connect_failure_cb;
	rdma->disconnect_cb = doca_rdma_disconnect_cb;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port)
{
	struct rdma_cm *rcm;
	uint16_t p = port;
	doca_error_t err;

	if (rdma == NULL || port == 0) {
		DOCA_LOG_ERR("doca_rdma_start_listen_to_port: rdma (%p) must not be NULL and port (%u) not 0",
			     (void *)rdma, port);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma->request_cb == NULL) {
		DOCA_LOG_ERR("doca_rdma_start_listen_to_port: no connection request callback; set one with "
			     "doca_rdma_set_connection_state_callbacks() before doca_ctx_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	err = rcm_get(rdma, "doca_rdma_start_listen_to_port", &rcm);
	if (err != DOCA_SUCCESS)
		return err;
	err = sd_fabric_cm_listen(rcm->fcm, NULL, 0, &p);
	if (err == DOCA_ERROR_ALREADY_EXIST)
		DOCA_LOG_ERR("doca_rdma_start_listen_to_port: this context listens on port %u already", port);
	else if (err == DOCA_ERROR_IN_USE)
		DOCA_LOG_ERR("doca_rdma_start_listen_to_port: port %u is in use (another listener, or sockets of "
			     "an earlier server still closing: wait up to 60 s or set UCX_TCP_CM_REUSEADDR=y); "
			     "pick another port with -lp",
			     port);
	else if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("doca_rdma_start_listen_to_port: cannot listen on port %u: %s", port,
			     doca_error_get_descr(err));
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_stop_listen_to_port(struct doca_rdma *rdma, uint16_t port)
{
	struct rdma_cm *rcm;
	doca_error_t err;

	if (rdma == NULL) {
		DOCA_LOG_ERR("doca_rdma_stop_listen_to_port: rdma is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rcm = rdma->cm;
	err = rcm != NULL && rcm->fcm != NULL ? sd_fabric_cm_unlisten(rcm->fcm, port) : DOCA_ERROR_NOT_FOUND;
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("doca_rdma_stop_listen_to_port: the context does not listen on port %u", port);
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr, union doca_data connection_user_data)
{
	static const char api[] = "doca_rdma_connect_to_addr";
	struct doca_rdma_connection *conn;
	struct rdma_cm_conn *cc;
	struct rdma_cm *rcm;
	const void *desc;
	size_t desc_len;
	doca_error_t err;

	if (rdma == NULL || addr == NULL) {
		DOCA_LOG_ERR("%s: rdma (%p) and addr (%p) are required", api, (void *)rdma, (void *)addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = rcm_get(rdma, api, &rcm);
	if (err != DOCA_SUCCESS)
		return err;
	err = sd_rdma_conn_create(rdma, api, &conn);
	if (err != DOCA_SUCCESS)
		return err;
	conn->user_data = connection_user_data;
	cc = calloc(1, sizeof(*cc));
	conn->addr = malloc(sizeof(*conn->addr));
	if (cc == NULL || conn->addr == NULL) {
		DOCA_LOG_ERR("%s: out of memory", api);
		free(cc);
		free(conn->addr);
		conn->addr = NULL;
		err = DOCA_ERROR_NO_MEMORY;
		goto fail;
	}
	memcpy(conn->addr, addr, sizeof(*addr));
	conn->cm = cc;
	err = sd_rdma_conn_get_desc(conn, &desc, &desc_len);
	if (err == DOCA_SUCCESS)
		err = sd_fabric_cm_connect(rcm->fcm, (const struct sockaddr *)&addr->ss, addr->ss_len, conn->id, desc,
					   desc_len, conn, &cc->fc);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: cannot start connecting to %s:%u: %s", api, addr->text, addr->port,
			     doca_error_get_descr(err));
		goto fail;
	}
	DOCA_LOG_DBG("Connection %u: connecting to %s:%u", conn->id, addr->text, addr->port);
	return DOCA_SUCCESS;

fail:
	/* the object stays with the context (freed at destroy); its slot is released */
	sd_rdma_conn_fail(conn, err, false);
	return err;
}

static struct rdma_cm_conn *
cm_conn_of(struct doca_rdma_connection *conn, const char *api)
{
	if (conn->cm == NULL) {
		DOCA_LOG_ERR("%s: connection %u was made by doca_rdma_export(), not by RDMA-CM", api, conn->id);
		return NULL;
	}
	return conn->cm;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection, void *private_data, uint8_t private_data_len)
{
	static const char api[] = "doca_rdma_connection_accept";
	struct doca_rdma_connection *conn = rdma_connection;
	struct rdma_cm_conn *cc;
	const void *desc;
	size_t desc_len;
	doca_error_t err;

	if (conn == NULL || (private_data == NULL && private_data_len != 0)) {
		DOCA_LOG_ERR("%s: connection (%p) is required, and private data (%p) when its length (%u) is not 0",
			     api, (void *)conn, private_data, private_data_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cc = cm_conn_of(conn, api);
	if (cc == NULL)
		return DOCA_ERROR_BAD_STATE;
	if (!cc->server || cc->client_desc == NULL || conn->state != SD_RDMA_CONN_IDLE) {
		DOCA_LOG_ERR("%s: connection %u is not an unanswered request (already accepted, rejected or ended)",
			     api, conn->id);
		return conn_ended(conn) ? DOCA_ERROR_NOT_CONNECTED : DOCA_ERROR_BAD_STATE;
	}
	err = sd_rdma_conn_connect(conn, cc->client_desc, cc->client_desc_len, api);
	if (err != DOCA_SUCCESS) {
		(void)sd_fabric_cm_reject(cc->fc, FABRIC_CM_REJECT_PROTOCOL);
		cm_conn_release(conn);
		sd_rdma_conn_fail(conn, err, false);
		return err;
	}
	free(cc->client_desc);
	cc->client_desc = NULL;
	err = sd_rdma_conn_get_desc(conn, &desc, &desc_len);
	if (err == DOCA_SUCCESS)
		err = sd_fabric_cm_accept(cc->fc, conn->id, private_data, private_data_len, desc, desc_len);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_WARN("%s: connection %u: the client is gone (%s); its failure callback follows", api, conn->id,
			      doca_error_get_name(err));
		return DOCA_ERROR_NOT_CONNECTED;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection)
{
	static const char api[] = "doca_rdma_connection_reject";
	struct doca_rdma_connection *conn = rdma_connection;
	struct rdma_cm_conn *cc;

	if (conn == NULL) {
		DOCA_LOG_ERR("%s: connection is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cc = cm_conn_of(conn, api);
	if (cc == NULL)
		return DOCA_ERROR_BAD_STATE;
	if (!cc->server || cc->client_desc == NULL || conn->state != SD_RDMA_CONN_IDLE) {
		DOCA_LOG_ERR("%s: connection %u is not an unanswered request (already accepted, rejected or ended)",
			     api, conn->id);
		return conn_ended(conn) ? DOCA_ERROR_NOT_CONNECTED : DOCA_ERROR_BAD_STATE;
	}
	(void)sd_fabric_cm_reject(cc->fc, FABRIC_CM_REJECT_APP);
	cm_conn_release(conn);
	sd_rdma_conn_fail(conn, DOCA_ERROR_NOT_PERMITTED, false);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection)
{
	struct doca_rdma_connection *conn = rdma_connection;

	if (conn == NULL) {
		DOCA_LOG_ERR("doca_rdma_connection_disconnect: connection is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* ended already (e.g. inside the disconnect callback): nothing left to do */
	if (conn_ended(conn))
		return DOCA_SUCCESS;
	if (conn->cm != NULL) {
		struct rdma_cm_conn *cc = conn->cm;

		if (cc->server && cc->client_desc != NULL && cc->fc != NULL)
			(void)sd_fabric_cm_reject(cc->fc, FABRIC_CM_REJECT_APP);
	}
	/*
	 * The data endpoint goes first: it sends the ack it owes (e.g. for the
	 * message whose receive callback is disconnecting) and flushes, so the
	 * peer's last operations complete before it learns of the DISCONNECT.
	 * Tasks still on the connection complete through their error callbacks.
	 */
	conn->peer_left = false;
	if (conn->state == SD_RDMA_CONN_ESTABLISHED)
		sd_rdma_conn_disconnected(conn, false);
	else
		sd_rdma_conn_fail(conn, DOCA_ERROR_CONNECTION_ABORTED, false);
	cm_conn_release(conn);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_get_addr(const struct doca_rdma_connection *rdma_connection, struct doca_rdma_addr **addr)
{
	if (rdma_connection == NULL || addr == NULL) {
		DOCA_LOG_ERR("doca_rdma_connection_get_addr: connection (%p) and addr (%p) are required",
			     (const void *)rdma_connection, (void *)addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma_connection->addr == NULL) {
		DOCA_LOG_ERR("doca_rdma_connection_get_addr: connection %u was made by doca_rdma_export() and has "
			     "no peer address",
			     rdma_connection->id);
		return DOCA_ERROR_NOT_FOUND;
	}
	*addr = rdma_connection->addr;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection, uint32_t *connection_id)
{
	if (rdma_connection == NULL || connection_id == NULL) {
		DOCA_LOG_ERR("doca_rdma_connection_get_id: connection (%p) and connection_id (%p) are required",
			     (const void *)rdma_connection, (void *)connection_id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*connection_id = rdma_connection->id;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection, union doca_data connection_user_data)
{
	if (rdma_connection == NULL) {
		DOCA_LOG_ERR("doca_rdma_connection_set_user_data: connection is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	rdma_connection->user_data = connection_user_data;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
				   union doca_data *connection_user_data)
{
	if (rdma_connection == NULL || connection_user_data == NULL) {
		DOCA_LOG_ERR("doca_rdma_connection_get_user_data: connection (%p) and connection_user_data (%p) are "
			     "required",
			     (const void *)rdma_connection, (void *)connection_user_data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*connection_user_data = rdma_connection->user_data;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_connection_request_timeout(struct doca_rdma *rdma, uint16_t timeout)
{
	if (rdma == NULL || timeout == 0) {
		DOCA_LOG_ERR("doca_rdma_set_connection_request_timeout: rdma (%p) is required and timeout (%u ms) "
			     "must not be 0",
			     (void *)rdma, timeout);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_rdma_set_connection_request_timeout: the context is not idle (state %d); set it "
			     "before doca_ctx_start()",
			     (int)sd_ctx_state(&rdma->ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	rdma->conn_request_timeout_ms = timeout;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_get_connection_request_timeout(const struct doca_rdma *rdma, uint16_t *timeout)
{
	if (rdma == NULL || timeout == NULL) {
		DOCA_LOG_ERR("doca_rdma_get_connection_request_timeout: rdma (%p) and timeout (%p) are required",
			     (const void *)rdma, (void *)timeout);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*timeout = rdma->conn_request_timeout_ms;
	return DOCA_SUCCESS;
}

/* ---- bridge: needs librdmacm's kernel CM ---- */

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_bridge_prepare_connection(struct doca_rdma *rdma, struct rdma_cm_id *cm_id,
				    struct doca_rdma_connection **rdma_connection)
{
	(void)rdma;
	(void)cm_id;
	(void)rdma_connection;
	DOCA_LOG_ERR("doca_rdma_bridge_prepare_connection: not supported: it needs a real rdma_cm_id (kernel "
		     "RDMA-CM on RDMA hardware), which softdoca's UCX fabric does not have; use "
		     "doca_rdma_start_listen_to_port() / doca_rdma_connect_to_addr()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_bridge_accept(struct doca_rdma *rdma, void *private_data, uint8_t private_data_len,
			struct doca_rdma_connection *rdma_connection)
{
	(void)rdma;
	(void)private_data;
	(void)private_data_len;
	(void)rdma_connection;
	DOCA_LOG_ERR("doca_rdma_bridge_accept: not supported: it needs a connection from "
		     "doca_rdma_bridge_prepare_connection() (a real rdma_cm_id); use doca_rdma_connection_accept()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_bridge_established(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection)
{
	(void)rdma;
	(void)rdma_connection;
	DOCA_LOG_ERR("doca_rdma_bridge_established: not supported: it needs a connection from "
		     "doca_rdma_bridge_prepare_connection() (a real rdma_cm_id); RDMA-CM connections made with "
		     "doca_rdma_connect_to_addr() report establishment through the established callback");
	return DOCA_ERROR_NOT_SUPPORTED;
}
