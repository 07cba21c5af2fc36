/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection manager, connections: events queued for the owner, the
 * REQUEST/ACCEPT/REJECT/RTU/DISCONNECT/PING messages of fabric_cm_proto.h
 * (sent and parsed here, the one parser), the endpoint records that outlive
 * a connection until UCX is done with its endpoint, the handshake's states,
 * deadlines and liveness.  Design and measurements: docs/rdma-cm.md.
 *
 * Endpoint records: each UCP endpoint has a struct cm_uep that outlives its
 * connection until UCX is done with it; the error handler and the AM handler
 * find the connection through it (NULL once detached), so no callback ever
 * sees a freed connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "fabric_cm_internal.h"
#include "../core/sd_core.h"
#include "../util/sd_random.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(fabric.cm.conn);

const char *
cm_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		port = ntohs(a->sin_port);
		snprintf(buf, len, "%s:%u", ip, port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		port = ntohs(a->sin6_port);
		snprintf(buf, len, "[%s]:%u", ip, port);
	} else {
		snprintf(buf, len, "(unknown address family %u)", ss->ss_family);
	}
	return buf;
}

static const char *
state_name(enum cm_state s)
{
	static const char *const names[] = {"connecting",  "accepted", "awaiting request", "requested", "awaiting RTU",
					    "established", "closed"};

	return (unsigned)s < SD_ARRAY_SIZE(names) ? names[s] : "?";
}

static doca_error_t
reject_status(uint16_t reason)
{
	switch (reason) {
	case FABRIC_CM_REJ_APP:
		return DOCA_ERROR_NOT_PERMITTED;
	case FABRIC_CM_REJ_FULL:
		return DOCA_ERROR_FULL;
	case FABRIC_CM_REJ_VERSION:
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	case FABRIC_CM_REJ_SHUTDOWN:
		return DOCA_ERROR_SHUTDOWN;
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}

static const char *
reject_text(uint16_t reason)
{
	switch (reason) {
	case FABRIC_CM_REJ_APP:
		return "rejected by the server application";
	case FABRIC_CM_REJ_FULL:
		return "the server is at its maximum number of connections";
	case FABRIC_CM_REJ_VERSION:
		return "the server speaks another CM protocol version";
	case FABRIC_CM_REJ_SHUTDOWN:
		return "the server is no longer listening";
	default:
		return "the server found our request malformed";
	}
}

/* ---- events ---- */

static void
cm_signal(struct fabric_cm *cm)
{
	uint64_t one = 1;

	if (cm->signaled)
		return;
	cm->signaled = true;
	if (write(cm->event_fd, &one, sizeof(one)) < 0)
		DOCA_LOG_DBG("Failed to signal CM event fd: %s", strerror(errno));
}

static void
queue_event(struct fabric_cm_conn *conn, enum fabric_cm_event_type type, doca_error_t status)
{
	struct cm_event *e = calloc(1, sizeof(*e));

	if (e == NULL) {
		DOCA_LOG_ERR("Failed to queue CM event %d for a connection: out of memory", type);
		return;
	}
	e->ev.type = type;
	e->ev.conn = conn;
	e->ev.status = status;
	e->ev.peer_conn_id = conn->peer_conn_id;
	if (type == FABRIC_CM_EVENT_REQUEST || type == FABRIC_CM_EVENT_ACCEPTED) {
		e->ev.priv = conn->peer_priv_len ? conn->peer_priv : NULL;
		e->ev.priv_len = conn->peer_priv_len;
		e->ev.desc = conn->peer_desc;
		e->ev.desc_len = conn->peer_desc_len;
	}
	sd_list_insert_tail(&conn->cm->events, &e->node);
	cm_signal(conn->cm);
}

void
cm_drop_events(struct fabric_cm *cm, struct fabric_cm_conn *conn)
{
	struct sd_list *pos, *tmp;

	sd_list_for_each_safe(pos, tmp, &cm->events)
	{
		struct cm_event *e = sd_container_of(pos, struct cm_event, node);

		if (conn == NULL || e->ev.conn == conn) {
			sd_list_del(&e->node);
			free(e);
		}
	}
}

/* ---- sending ---- */

static void
send_done(void *request, ucs_status_t st, void *user)
{
	(void)st;
	ucp_request_free(request);
	free(user);
}

doca_error_t
cm_conn_send(struct fabric_cm_conn *conn, uint8_t type, uint16_t reason, const void *priv, uint8_t priv_len,
	     const void *desc, size_t desc_len)
{
	ucp_request_param_t prm = {0};
	ucs_status_ptr_t req;
	size_t len = sizeof(struct fabric_cm_hdr) + priv_len + desc_len;
	void *buf;

	if (conn->rec == NULL || conn->rec->failed)
		return DOCA_ERROR_NOT_CONNECTED;
	buf = malloc(len);
	if (buf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	if (fabric_cm_msg_build(buf, len, type, conn->token, conn->conn_id, reason, priv, priv_len, desc, desc_len) !=
	    len) {
		free(buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
	prm.cb.send = send_done;
	prm.user_data = buf;
	prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
	req = ucp_am_send_nbx(conn->rec->uep, FABRIC_CM_AM_ID, NULL, 0, buf, len, &prm);
	if (UCS_PTR_IS_ERR(req)) {
		free(buf);
		DOCA_LOG_DBG("Failed to send CM message %u: %s", type, ucs_status_string(UCS_PTR_STATUS(req)));
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (req == NULL)
		free(buf);
	return DOCA_SUCCESS;
}

/* ---- endpoint records ---- */

struct cm_uep *
cm_rec_new(struct cm_world *w, struct fabric_cm_conn *conn)
{
	struct cm_uep *rec = calloc(1, sizeof(*rec));

	if (rec == NULL)
		return NULL;
	rec->conn = conn;
	sd_list_insert_tail(&w->ueps, &rec->node);
	return rec;
}

/*
 * Detach the connection from its endpoint.  Who closes first decides who
 * keeps the TIME_WAIT socket, so the client always does: a client endpoint is
 * closed (flushed, so a last DISCONNECT or RTU still leaves) by the next
 * housekeeping; a server endpoint lingers until the client has closed (its
 * error callback) or the liveness timeout passed.  A restarted server then
 * finds its port free.
 */
static void
conn_detach(struct fabric_cm_conn *conn)
{
	struct cm_uep *rec = conn->rec;

	if (rec == NULL)
		return;
	rec->conn = NULL;
	rec->graceful = !rec->failed;
	rec->linger_until = (conn->server && !rec->failed) ? sd_now_ns() + conn->cm->liveness_ns : 0;
	conn->rec = NULL;
}

/* Close detached endpoints whose time came; free records UCX is done with. */
void
cm_world_housekeeping(struct cm_world *w, bool force_all)
{
	struct sd_list *pos, *tmp;
	uint64_t now = sd_now_ns();

	sd_list_for_each_safe(pos, tmp, &w->ueps)
	{
		struct cm_uep *rec = sd_container_of(pos, struct cm_uep, node);

		if (rec->conn != NULL && !force_all)
			continue;
		if (!rec->closing) {
			ucp_request_param_t prm = {0};
			ucs_status_ptr_t req;

			if (rec->uep != NULL && !rec->failed && !force_all && now < rec->linger_until)
				continue;
			if (rec->conn != NULL) {
				rec->conn->rec = NULL;
				rec->conn = NULL;
			}
			rec->closing = true;
			if (rec->uep != NULL) {
				/* a live peer gets a flushed close: last messages still arrive */
				prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
				prm.flags =
					(rec->failed || !(rec->graceful || force_all)) ? UCP_EP_CLOSE_FLAG_FORCE : 0;
				req = ucp_ep_close_nbx(rec->uep, &prm);
				rec->close_req = UCS_PTR_IS_PTR(req) ? req : NULL;
			}
		}
		if (rec->close_req != NULL) {
			if (ucp_request_check_status(rec->close_req) == UCS_INPROGRESS)
				continue;
			ucp_request_free(rec->close_req);
			rec->close_req = NULL;
		}
		sd_list_del(&rec->node);
		free(rec);
	}
}

/* ---- connection life ---- */

void
cm_conn_free(struct fabric_cm_conn *conn)
{
	struct fabric_cm *cm = conn->cm;

	if (conn->server && !conn->app_owned && cm->n_unanswered > 0)
		cm->n_unanswered--;
	cm_drop_events(cm, conn);
	sd_list_del(&conn->node);
	free(conn->peer_desc);
	free(conn);
}

/*
 * The connection ends.  An application-owned connection gets a FAILURE or
 * DISCONNECT event (unless notify is false: the owner ended it); an internal
 * one (server side before its REQUEST) is freed.
 */
void
cm_conn_end(struct fabric_cm_conn *conn, doca_error_t status, bool notify)
{
	enum cm_state prev = conn->state;

	if (prev == CM_S_CLOSED)
		return;
	if (conn->server && prev == CM_S_REQUESTED && conn->cm->n_unanswered > 0)
		conn->cm->n_unanswered--;
	conn->state = CM_S_CLOSED;
	conn->deadline_ns = 0;
	conn_detach(conn);
	if (!conn->app_owned) {
		cm_conn_free(conn);
		return;
	}
	if (notify)
		queue_event(conn, prev == CM_S_ESTABLISHED ? FABRIC_CM_EVENT_DISCONNECT : FABRIC_CM_EVENT_FAILURE,
			    status);
}

/* Why a CM endpoint failed, for its FAILURE / DISCONNECT event. */
static doca_error_t
ucs_status_doca(ucs_status_t st)
{
	doca_error_t err;

	if (st == UCS_ERR_REJECTED)
		return DOCA_ERROR_FULL; /* only the listener's flood guard rejects */
	if (st == UCS_ERR_IO_ERROR)
		return DOCA_ERROR_NOT_CONNECTED; /* the connect itself failed */
	err = fabric_ucs_to_doca(st);
	switch (err) {
	case DOCA_ERROR_TIME_OUT:
	case DOCA_ERROR_NOT_CONNECTED:
	case DOCA_ERROR_CONNECTION_ABORTED:
		return err;
	default:
		return DOCA_ERROR_CONNECTION_RESET; /* any other failure: the peer is lost */
	}
}

void
cm_uep_err_cb(void *arg, ucp_ep_h uep, ucs_status_t st)
{
	struct cm_uep *rec = arg;
	struct fabric_cm_conn *conn = rec->conn;
	char peer[80];

	(void)uep;
	rec->failed = true;
	if (conn == NULL)
		return;
	cm_addr_str(&conn->peer, peer, sizeof(peer));
	if (conn->state == CM_S_CONNECTING)
		DOCA_LOG_ERR("CM connection %u to %s failed: %s (is a server listening there?)", conn->conn_id, peer,
			     ucs_status_string(st));
	else if (conn->app_owned)
		DOCA_LOG_INFO("CM connection %u with %s lost while %s: %s", conn->conn_id, peer,
			      state_name(conn->state), ucs_status_string(st));
	cm_conn_end(conn, conn->state == CM_S_CONNECTING ? ucs_status_doca(st) : DOCA_ERROR_CONNECTION_RESET, true);
}

struct fabric_cm_conn *
cm_conn_new(struct fabric_cm *cm, bool server)
{
	struct fabric_cm_conn *conn = calloc(1, sizeof(*conn));
	uint64_t now = sd_now_ns();

	if (conn == NULL)
		return NULL;
	conn->cm = cm;
	conn->server = server;
	conn->last_rx_ns = now;
	conn->next_ping_ns = now + cm->liveness_ns / 5;
	sd_list_insert_tail(&cm->conns, &conn->node);
	return conn;
}

/* ---- incoming ---- */

static void
protocol_error(struct fabric_cm_conn *conn, doca_error_t err, const char *why, size_t len)
{
	char peer[80];

	DOCA_LOG_WARN("CM message from %s refused (connection %u, %s, %zu bytes): %s; ending the connection",
		      cm_addr_str(&conn->peer, peer, sizeof(peer)), conn->conn_id, state_name(conn->state), len, why);
	if (conn->server && (conn->state == CM_S_WAIT_REQUEST || conn->state == CM_S_REQUESTED)) {
		if (conn->token == 0)
			(void)sd_random_bytes(&conn->token, sizeof(conn->token));
		conn->token |= 1;
		(void)cm_conn_send(conn, FABRIC_CM_MSG_REJECT,
				   err == DOCA_ERROR_UNSUPPORTED_VERSION ? FABRIC_CM_REJ_VERSION
									 : FABRIC_CM_REJ_PROTOCOL,
				   NULL, 0, NULL, 0);
		cm_conn_end(conn, err, true);
		return;
	}
	cm_conn_end(conn, err, true);
}

/* Keep the peer's descriptor and private data of a REQUEST or an ACCEPT: false when out of memory. */
static bool
peer_msg_keep(struct fabric_cm_conn *conn, const struct fabric_cm_msg *m)
{
	conn->peer_desc = malloc(m->desc_len);
	if (conn->peer_desc == NULL)
		return false;
	memcpy(conn->peer_desc, m->desc, m->desc_len);
	conn->peer_desc_len = m->desc_len;
	memcpy(conn->peer_priv, m->priv, m->priv_len);
	conn->peer_priv_len = m->priv_len;
	return true;
}

/* A REQUEST reaches a server waiting for one: the application is asked to accept it. */
static void
rx_request(struct fabric_cm_conn *conn, const struct fabric_cm_msg *m, size_t len)
{
	if (!conn->server || conn->state != CM_S_WAIT_REQUEST) {
		protocol_error(conn, DOCA_ERROR_INVALID_VALUE, "unexpected REQUEST", len);
		return;
	}
	if (!peer_msg_keep(conn, m)) {
		cm_conn_end(conn, DOCA_ERROR_NO_MEMORY, false);
		return;
	}
	conn->token = m->token;
	conn->peer_conn_id = m->conn_id;
	conn->state = CM_S_REQUESTED;
	conn->deadline_ns = 0;
	conn->app_owned = true;
	queue_event(conn, FABRIC_CM_EVENT_REQUEST, DOCA_SUCCESS);
}

static void
conn_rx(struct fabric_cm_conn *conn, const void *data, size_t len)
{
	const char *why = NULL;
	struct fabric_cm_msg m;
	doca_error_t err;
	char peer[80];

	err = fabric_cm_msg_parse_why(data, len, &m, &why);
	if (err != DOCA_SUCCESS) {
		protocol_error(conn, err, why, len);
		return;
	}
	conn->last_rx_ns = sd_now_ns();
	/*
	 * UCX delivers a multi-fragment AM (a REQUEST with its descriptor) when
	 * its last fragment arrives, so a later one-fragment PING may overtake
	 * it (seen under load): a server ignores a PING ahead of the REQUEST.
	 */
	if (m.type == FABRIC_CM_MSG_PING &&
	    ((conn->token != 0 && m.token == conn->token) || conn->state == CM_S_WAIT_REQUEST))
		return;
	if (m.type == FABRIC_CM_MSG_REQUEST) {
		rx_request(conn, &m, len);
		return;
	}
	if (m.token != conn->token) {
		protocol_error(conn, DOCA_ERROR_INVALID_VALUE, "token does not match the connection", len);
		return;
	}
	switch (m.type) {
	case FABRIC_CM_MSG_PING:
		return;
	case FABRIC_CM_MSG_ACCEPT:
		if (conn->server || conn->state != CM_S_CONNECTING)
			break;
		if (!peer_msg_keep(conn, &m)) {
			cm_conn_end(conn, DOCA_ERROR_NO_MEMORY, true);
			return;
		}
		conn->peer_conn_id = m.conn_id;
		conn->state = CM_S_ACCEPTED;
		conn->deadline_ns = 0;
		queue_event(conn, FABRIC_CM_EVENT_ACCEPTED, DOCA_SUCCESS);
		return;
	case FABRIC_CM_MSG_REJECT:
		if (conn->server || conn->state != CM_S_CONNECTING)
			break;
		DOCA_LOG_ERR("CM connection %u to %s refused: %s", conn->conn_id,
			     cm_addr_str(&conn->peer, peer, sizeof(peer)), reject_text(m.reason));
		cm_conn_end(conn, reject_status(m.reason), true);
		return;
	case FABRIC_CM_MSG_RTU:
		if (!conn->server || conn->state != CM_S_WAIT_RTU)
			break;
		conn->state = CM_S_ESTABLISHED;
		conn->deadline_ns = 0;
		queue_event(conn, FABRIC_CM_EVENT_ESTABLISHED, DOCA_SUCCESS);
		return;
	case FABRIC_CM_MSG_DISCONNECT:
		DOCA_LOG_INFO("CM connection %u: %s disconnected", conn->conn_id,
			      cm_addr_str(&conn->peer, peer, sizeof(peer)));
		cm_conn_end(conn, conn->state == CM_S_ESTABLISHED ? DOCA_SUCCESS : DOCA_ERROR_CONNECTION_ABORTED, true);
		return;
	default:
		break;
	}
	protocol_error(conn, DOCA_ERROR_INVALID_VALUE, "message not valid in this state", len);
}

static struct cm_uep *
rec_by_uep(struct cm_world *w, ucp_ep_h uep)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &w->ueps)
	{
		struct cm_uep *rec = sd_container_of(pos, struct cm_uep, node);

		if (rec->uep == uep && !rec->closing)
			return rec;
	}
	return NULL;
}

ucs_status_t
cm_am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
	 const ucp_am_recv_param_t *param)
{
	struct cm_world *w = arg;
	struct cm_uep *rec;

	(void)header;
	(void)header_length;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
		DOCA_LOG_DBG("CM message without reply endpoint or not eager dropped");
		return UCS_OK;
	}
	rec = rec_by_uep(w, param->reply_ep);
	if (rec == NULL || rec->conn == NULL)
		return UCS_OK; /* a connection that already ended */
	conn_rx(rec->conn, data, length);
	return UCS_OK;
}

/* ---- timers ---- */

/* Deadlines, liveness and pings of every connection; returns the next due time. */
uint64_t
cm_world_timers(struct cm_world *w)
{
	struct sd_list *cpos, *pos, *tmp;
	uint64_t now = sd_now_ns(), next = 0;
	char peer[80];

#define CM_NEXT(t)                                                                                                     \
	do {                                                                                                           \
		if ((t) != 0 && (next == 0 || (t) < next))                                                             \
			next = (t);                                                                                    \
	} while (0)

	sd_list_for_each(cpos, &w->cms)
	{
		struct fabric_cm *cm = sd_container_of(cpos, struct fabric_cm, node);

		sd_list_for_each_safe(pos, tmp, &cm->conns)
		{
			struct fabric_cm_conn *conn = sd_container_of(pos, struct fabric_cm_conn, node);

			if (conn->state == CM_S_CLOSED || conn->rec == NULL)
				continue;
			if (conn->deadline_ns != 0 && now >= conn->deadline_ns) {
				cm_addr_str(&conn->peer, peer, sizeof(peer));
				if (conn->state == CM_S_CONNECTING)
					DOCA_LOG_ERR(
						"CM connection %u to %s: no answer within %llu ms; giving up "
						"(is the server progressing? raise the connection request timeout)",
						conn->conn_id, peer,
						(unsigned long long)(cm->request_timeout_ns / 1000000));
				else
					DOCA_LOG_WARN("CM connection %u with %s: no progress while %s for %llu ms; "
						      "ending it",
						      conn->conn_id, peer, state_name(conn->state),
						      (unsigned long long)(cm->request_timeout_ns / 1000000));
				conn->rec->failed = true;
				cm_conn_end(conn, DOCA_ERROR_TIME_OUT, true);
				continue;
			}
			/* before the peer's first answer the handshake deadline rules */
			if (conn->state != CM_S_CONNECTING && conn->state != CM_S_WAIT_REQUEST &&
			    now - conn->last_rx_ns >= cm->liveness_ns) {
				DOCA_LOG_WARN("CM connection %u with %s: no sign of life for %llu ms while %s "
					      "(link down or peer stuck); ending it",
					      conn->conn_id, cm_addr_str(&conn->peer, peer, sizeof(peer)),
					      (unsigned long long)((now - conn->last_rx_ns) / 1000000),
					      state_name(conn->state));
				conn->rec->failed = true; /* treat as dead: force-close, no linger */
				cm_conn_end(conn, DOCA_ERROR_TIME_OUT, true);
				continue;
			}
			/* a client pings while its request waits too: the server's application may be slow */
			if (now >= conn->next_ping_ns && conn->token != 0) {
				(void)cm_conn_send(conn, FABRIC_CM_MSG_PING, 0, NULL, 0, NULL, 0);
				conn->next_ping_ns = now + cm->liveness_ns / 5;
			}
			CM_NEXT(conn->deadline_ns);
			if (conn->state != CM_S_CONNECTING && conn->state != CM_S_WAIT_REQUEST)
				CM_NEXT(conn->last_rx_ns + cm->liveness_ns);
			CM_NEXT(conn->token != 0 ? conn->next_ping_ns : 0);
		}
	}
	sd_list_for_each(pos, &w->ueps)
	{
		struct cm_uep *rec = sd_container_of(pos, struct cm_uep, node);

		if (rec->conn == NULL)
			CM_NEXT(rec->closing ? now + 10000000ull : rec->linger_until);
	}
#undef CM_NEXT
	return next;
}
