/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection manager of the soft NIC: UCX listeners and socket-address
 * endpoints on a UCP context of its own (tcp only, so the CM channel sees
 * link loss and peer death), the REQUEST/ACCEPT/REJECT/RTU/DISCONNECT/PING
 * handshake of fabric_cm_proto.h, liveness, and event delivery.  Design and
 * measurements: docs/rdma-cm.md.
 *
 * Locking: one process-wide "world" (UCP context + worker + service thread)
 * serves every fabric_cm; its mutex protects the worker and every list and
 * field below.  UCX callbacks run inside ucp_worker_progress(), i.e. with the
 * lock held; they only change states and queue events.  UCP endpoints are
 * closed outside callbacks (world_housekeeping()).  Events run in
 * sd_fabric_cm_progress() with the lock released.
 *
 * Endpoint records: each UCP endpoint has a struct cm_uep that outlives its
 * connection until UCX is done with it; the error handler and the AM handler
 * find the connection through it (NULL once detached), so no callback ever
 * sees a freed connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <ucp/api/ucp.h>

#include "fabric_cm.h"
#include "../core/sd_log.h"
#include "../util/sd_env.h"
#include "../util/sd_random.h"
#include "../util/sd_util.h"

SD_LOG_REGISTER(fabric.cm);

#define CM_DEFAULT_LIVENESS_MS 1500u
#define CM_MIN_LIVENESS_MS 50u
#define CM_MAX_LIVENESS_MS 3600000u
#define CM_DEFAULT_REQUEST_TIMEOUT_MS 5000u
/* Server connections not yet answered by the application, per cm (flood guard). */
#define CM_MAX_UNANSWERED 1024u
#define CM_PROGRESS_BATCH 64

struct cm_world {
	pthread_mutex_t lock;
	ucp_context_h ucp;
	ucp_worker_h worker;
	int efd;
	int wake_fd;
	pthread_t svc;
	bool svc_started;
	atomic_bool stop;
	uint32_t refcnt;
	struct sd_list cms;
	struct sd_list ueps; /* struct cm_uep */
};

/* One UCP endpoint, alive until UCX has closed it. */
struct cm_uep {
	struct sd_list node; /* in world->ueps */
	ucp_ep_h uep;
	struct fabric_cm_conn *conn; /* NULL once detached */
	uint64_t linger_until;	     /* detached: force-close at this time */
	bool failed;		     /* UCX reported an error on it */
	bool graceful;		     /* close with a flush (peer alive) rather than force */
	bool closing;
	ucs_status_ptr_t close_req;
};

enum cm_state {
	CM_S_CONNECTING,   /* client: REQUEST sent, awaiting ACCEPT / REJECT */
	CM_S_ACCEPTED,	   /* client: ACCEPT delivered, awaiting confirm() */
	CM_S_WAIT_REQUEST, /* server: endpoint made, REQUEST not yet received (internal) */
	CM_S_REQUESTED,	   /* server: REQUEST delivered, awaiting accept() / reject() */
	CM_S_WAIT_RTU,	   /* server: ACCEPT sent, awaiting RTU */
	CM_S_ESTABLISHED,
	CM_S_CLOSED,
};

struct cm_listener {
	struct sd_list node; /* in cm->listeners */
	struct fabric_cm *cm;
	ucp_listener_h l;
	uint16_t port;
};

struct fabric_cm_conn {
	struct fabric_cm *cm;
	struct sd_list node; /* in cm->conns */
	enum cm_state state;
	bool server;
	bool app_owned; /* handed to the owner (connect() or a REQUEST event) */
	struct cm_uep *rec;
	struct cm_listener *listener; /* server: where it came in (NULL once unlistened) */
	void *user;
	uint64_t token;
	uint32_t conn_id;
	uint32_t peer_conn_id;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint8_t peer_priv[FABRIC_CM_PRIV_MAX];
	uint8_t peer_priv_len;
	uint8_t *peer_desc;
	size_t peer_desc_len;
	uint64_t deadline_ns; /* handshake step deadline, 0: none */
	uint64_t last_rx_ns;
	uint64_t next_ping_ns;
};

struct cm_event {
	struct sd_list node;
	struct fabric_cm_event ev;
};

struct fabric_cm {
	struct cm_world *w;
	struct sd_list node; /* in world->cms */
	fabric_cm_event_cb cb;
	void *user;
	uint64_t request_timeout_ns;
	uint64_t liveness_ns;
	struct sd_list listeners;
	struct sd_list conns;
	struct sd_list events;
	uint32_t n_unanswered;
	int event_fd;
	bool signaled;
};

static pthread_mutex_t world_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct cm_world *the_world;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *
addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
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
	static const char *const names[] = {"connecting", "accepted",  "awaiting request", "requested",
					    "awaiting RTU", "established", "closed"};

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

static void
drop_events(struct fabric_cm *cm, struct fabric_cm_conn *conn)
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

static doca_error_t
conn_send(struct fabric_cm_conn *conn, uint8_t type, uint16_t reason, const void *priv, uint8_t priv_len,
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

static void uep_err_cb(void *arg, ucp_ep_h uep, ucs_status_t st);

static struct cm_uep *
rec_new(struct cm_world *w, struct fabric_cm_conn *conn)
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
	rec->linger_until = (conn->server && !rec->failed) ? now_ns() + conn->cm->liveness_ns : 0;
	conn->rec = NULL;
}

/* Close detached endpoints whose time came; free records UCX is done with. */
static void
world_housekeeping(struct cm_world *w, bool force_all)
{
	struct sd_list *pos, *tmp;
	uint64_t now = now_ns();

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
				prm.flags = (rec->failed || !(rec->graceful || force_all)) ? UCP_EP_CLOSE_FLAG_FORCE : 0;
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

static void
conn_free(struct fabric_cm_conn *conn)
{
	struct fabric_cm *cm = conn->cm;

	if (conn->server && !conn->app_owned && cm->n_unanswered > 0)
		cm->n_unanswered--;
	drop_events(cm, conn);
	sd_list_del(&conn->node);
	free(conn->peer_desc);
	free(conn);
}

/*
 * The connection ends.  An application-owned connection gets a FAILURE or
 * DISCONNECT event (unless notify is false: the owner ended it); an internal
 * one (server side before its REQUEST) is freed.
 */
static void
conn_end(struct fabric_cm_conn *conn, doca_error_t status, bool notify)
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
		conn_free(conn);
		return;
	}
	if (notify)
		queue_event(conn,
			    prev == CM_S_ESTABLISHED ? FABRIC_CM_EVENT_DISCONNECT : FABRIC_CM_EVENT_FAILURE, status);
}

static doca_error_t
ucs_status_doca(ucs_status_t st)
{
	switch (st) {
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_NOT_CONNECTED:
	case UCS_ERR_IO_ERROR:
		return DOCA_ERROR_NOT_CONNECTED;
	case UCS_ERR_REJECTED:
		return DOCA_ERROR_FULL; /* only the listener's flood guard rejects */
	case UCS_ERR_TIMED_OUT:
	case UCS_ERR_ENDPOINT_TIMEOUT:
		return DOCA_ERROR_TIME_OUT;
	case UCS_ERR_CANCELED:
		return DOCA_ERROR_CONNECTION_ABORTED;
	default:
		return DOCA_ERROR_CONNECTION_RESET;
	}
}

static void
uep_err_cb(void *arg, ucp_ep_h uep, ucs_status_t st)
{
	struct cm_uep *rec = arg;
	struct fabric_cm_conn *conn = rec->conn;
	char peer[80];

	(void)uep;
	rec->failed = true;
	if (conn == NULL)
		return;
	addr_str(&conn->peer, peer, sizeof(peer));
	if (conn->state == CM_S_CONNECTING)
		DOCA_LOG_ERR("CM connection %u to %s failed: %s (is a server listening there?)", conn->conn_id, peer,
			     ucs_status_string(st));
	else if (conn->app_owned)
		DOCA_LOG_INFO("CM connection %u with %s lost while %s: %s", conn->conn_id, peer,
			      state_name(conn->state), ucs_status_string(st));
	conn_end(conn, conn->state == CM_S_CONNECTING ? ucs_status_doca(st) : DOCA_ERROR_CONNECTION_RESET, true);
}

static struct fabric_cm_conn *
conn_new(struct fabric_cm *cm, bool server)
{
	struct fabric_cm_conn *conn = calloc(1, sizeof(*conn));
	uint64_t now = now_ns();

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
		      addr_str(&conn->peer, peer, sizeof(peer)), conn->conn_id, state_name(conn->state), len, why);
	if (conn->server && (conn->state == CM_S_WAIT_REQUEST || conn->state == CM_S_REQUESTED)) {
		if (conn->token == 0)
			(void)sd_random_bytes(&conn->token, sizeof(conn->token));
		conn->token |= 1;
		(void)conn_send(conn,
				FABRIC_CM_MSG_REJECT,
				err == DOCA_ERROR_UNSUPPORTED_VERSION ? FABRIC_CM_REJ_VERSION : FABRIC_CM_REJ_PROTOCOL,
				NULL, 0, NULL, 0);
		conn_end(conn, err, true);
		return;
	}
	conn_end(conn, err, true);
}

static void
conn_rx(struct fabric_cm_conn *conn, const void *data, size_t len)
{
	struct fabric_cm_msg m;
	doca_error_t err;
	char peer[80];

	err = fabric_cm_msg_parse(data, len, &m);
	if (err != DOCA_SUCCESS) {
		protocol_error(conn, err,
			       err == DOCA_ERROR_UNSUPPORTED_VERSION ? "unsupported CM protocol version"
								     : "malformed CM message",
			       len);
		return;
	}
	conn->last_rx_ns = now_ns();
	/*
	 * UCX delivers a multi-fragment AM (a REQUEST with its descriptor) when
	 * its last fragment arrives, so a later one-fragment PING may overtake
	 * it (seen under load): a server ignores a PING ahead of the REQUEST.
	 */
	if (m.type == FABRIC_CM_MSG_PING &&
	    ((conn->token != 0 && m.token == conn->token) || conn->state == CM_S_WAIT_REQUEST))
		return;
	if (m.type == FABRIC_CM_MSG_REQUEST) {
		if (!conn->server || conn->state != CM_S_WAIT_REQUEST) {
			protocol_error(conn, DOCA_ERROR_INVALID_VALUE, "unexpected REQUEST", len);
			return;
		}
		conn->peer_desc = malloc(m.desc_len);
		if (conn->peer_desc == NULL) {
			conn_end(conn, DOCA_ERROR_NO_MEMORY, false);
			return;
		}
		memcpy(conn->peer_desc, m.desc, m.desc_len);
		conn->peer_desc_len = m.desc_len;
		memcpy(conn->peer_priv, m.priv, m.priv_len);
		conn->peer_priv_len = m.priv_len;
		conn->token = m.token;
		conn->peer_conn_id = m.conn_id;
		conn->state = CM_S_REQUESTED;
		conn->deadline_ns = 0;
		conn->app_owned = true;
		queue_event(conn, FABRIC_CM_EVENT_REQUEST, DOCA_SUCCESS);
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
		conn->peer_desc = malloc(m.desc_len);
		if (conn->peer_desc == NULL) {
			conn_end(conn, DOCA_ERROR_NO_MEMORY, true);
			return;
		}
		memcpy(conn->peer_desc, m.desc, m.desc_len);
		conn->peer_desc_len = m.desc_len;
		memcpy(conn->peer_priv, m.priv, m.priv_len);
		conn->peer_priv_len = m.priv_len;
		conn->peer_conn_id = m.conn_id;
		conn->state = CM_S_ACCEPTED;
		conn->deadline_ns = 0;
		queue_event(conn, FABRIC_CM_EVENT_ACCEPTED, DOCA_SUCCESS);
		return;
	case FABRIC_CM_MSG_REJECT:
		if (conn->server || conn->state != CM_S_CONNECTING)
			break;
		DOCA_LOG_ERR("CM connection %u to %s refused: %s", conn->conn_id,
			     addr_str(&conn->peer, peer, sizeof(peer)), reject_text(m.reason));
		conn_end(conn, reject_status(m.reason), true);
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
			      addr_str(&conn->peer, peer, sizeof(peer)));
		conn_end(conn, conn->state == CM_S_ESTABLISHED ? DOCA_SUCCESS : DOCA_ERROR_CONNECTION_ABORTED, true);
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

static ucs_status_t
cm_am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
	 const ucp_am_recv_param_t *param)
{
	struct cm_world *w = arg;
	struct cm_uep *rec;

	(void)header;
	(void)header_length;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ||
	    (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
		DOCA_LOG_DBG("CM message without reply endpoint or not eager dropped");
		return UCS_OK;
	}
	rec = rec_by_uep(w, param->reply_ep);
	if (rec == NULL || rec->conn == NULL)
		return UCS_OK; /* a connection that already ended */
	conn_rx(rec->conn, data, length);
	return UCS_OK;
}

static void
listener_conn_cb(ucp_conn_request_h req, void *arg)
{
	struct cm_listener *l = arg;
	struct fabric_cm *cm = l->cm;
	struct cm_world *w = cm->w;
	ucp_conn_request_attr_t attr = {0};
	ucp_ep_params_t params = {0};
	struct fabric_cm_conn *conn;
	ucs_status_t st;
	char peer[80] = "?";

	attr.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR;
	st = ucp_conn_request_query(req, &attr);
	if (st == UCS_OK)
		addr_str(&attr.client_address, peer, sizeof(peer));
	if (cm->n_unanswered >= CM_MAX_UNANSWERED) {
		DOCA_LOG_WARN("CM listener on port %u refused %s: %u requests are unanswered already", l->port, peer,
			      cm->n_unanswered);
		(void)ucp_listener_reject(l->l, req);
		return;
	}
	conn = conn_new(cm, true);
	if (conn == NULL)
		goto reject;
	cm->n_unanswered++; /* until answered or freed (conn_free / conn_end) */
	conn->rec = rec_new(w, conn);
	if (conn->rec == NULL)
		goto free_conn;
	conn->listener = l;
	conn->state = CM_S_WAIT_REQUEST;
	conn->deadline_ns = now_ns() + cm->request_timeout_ns;
	if (st == UCS_OK) {
		memcpy(&conn->peer, &attr.client_address, sizeof(conn->peer));
		conn->peer_len = attr.client_address.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
									    : sizeof(struct sockaddr_in);
	}
	params.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.conn_request = req;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = uep_err_cb;
	params.err_handler.arg = conn->rec;
	st = ucp_ep_create(w->worker, &params, &conn->rec->uep);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("CM listener on port %u: failed to accept the endpoint of %s: %s", l->port, peer,
			     ucs_status_string(st));
		conn->rec->closing = true; /* nothing to close; freed by housekeeping */
		conn->rec->conn = NULL;
		conn->rec = NULL;
		conn_free(conn);
		return; /* the request was consumed by ucp_ep_create */
	}
	DOCA_LOG_DBG("CM listener on port %u: connection from %s", l->port, peer);
	return;

free_conn:
	conn_free(conn);
reject:
	DOCA_LOG_ERR("CM listener on port %u refused %s: out of memory", l->port, peer);
	(void)ucp_listener_reject(l->l, req);
}

/* ---- timers ---- */

/* Deadlines, liveness and pings of every connection; returns the next due time. */
static uint64_t
world_timers(struct cm_world *w)
{
	struct sd_list *cpos, *pos, *tmp;
	uint64_t now = now_ns(), next = 0;
	char peer[80];

#define CM_NEXT(t) \
	do { \
		if ((t) != 0 && (next == 0 || (t) < next)) \
			next = (t); \
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
				addr_str(&conn->peer, peer, sizeof(peer));
				if (conn->state == CM_S_CONNECTING)
					DOCA_LOG_ERR("CM connection %u to %s: no answer within %llu ms; giving up "
						     "(is the server progressing? raise the connection request timeout)",
						     conn->conn_id, peer,
						     (unsigned long long)(cm->request_timeout_ns / 1000000));
				else
					DOCA_LOG_WARN("CM connection %u with %s: no progress while %s for %llu ms; "
						      "ending it",
						      conn->conn_id, peer, state_name(conn->state),
						      (unsigned long long)(cm->request_timeout_ns / 1000000));
				conn->rec->failed = true;
				conn_end(conn, DOCA_ERROR_TIME_OUT, true);
				continue;
			}
			/* before the peer's first answer the handshake deadline rules */
			if (conn->state != CM_S_CONNECTING && conn->state != CM_S_WAIT_REQUEST &&
			    now - conn->last_rx_ns >= cm->liveness_ns) {
				DOCA_LOG_WARN("CM connection %u with %s: no sign of life for %llu ms while %s "
					      "(link down or peer stuck); ending it",
					      conn->conn_id, addr_str(&conn->peer, peer, sizeof(peer)),
					      (unsigned long long)((now - conn->last_rx_ns) / 1000000),
					      state_name(conn->state));
				conn->rec->failed = true; /* treat as dead: force-close, no linger */
				conn_end(conn, DOCA_ERROR_TIME_OUT, true);
				continue;
			}
			/* a client pings while its request waits too: the server's application may be slow */
			if (now >= conn->next_ping_ns && conn->token != 0) {
				(void)conn_send(conn, FABRIC_CM_MSG_PING, 0, NULL, 0, NULL, 0);
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

/* Progress the worker, close what is due, run timers (lock held). */
static uint64_t
world_progress_locked(struct cm_world *w)
{
	int i;

	for (i = 0; i < CM_PROGRESS_BATCH; i++)
		if (ucp_worker_progress(w->worker) == 0)
			break;
	world_housekeeping(w, false);
	return world_timers(w);
}

/* ---- service thread ---- */

static void *
svc_main(void *arg)
{
	struct cm_world *w = arg;

	while (!atomic_load(&w->stop)) {
		struct pollfd fds[2] = {
			{.fd = w->wake_fd, .events = POLLIN},
			{.fd = w->efd, .events = POLLIN},
		};
		uint64_t next, now;
		ucs_status_t st;
		int timeout;

		pthread_mutex_lock(&w->lock);
		do {
			next = world_progress_locked(w);
			st = ucp_worker_arm(w->worker);
		} while (st == UCS_ERR_BUSY);
		pthread_mutex_unlock(&w->lock);
		now = now_ns();
		if (st != UCS_OK)
			timeout = 10;
		else if (next == 0)
			timeout = -1;
		else
			timeout = next > now ? (int)((next - now + 999999) / 1000000) : 0;
		if (poll(fds, 2, timeout) > 0 && (fds[0].revents & POLLIN)) {
			uint64_t v;

			if (read(w->wake_fd, &v, sizeof(v)) < 0)
				v = 0;
		}
	}
	return NULL;
}

static void
world_wake(struct cm_world *w)
{
	uint64_t one = 1;

	if (write(w->wake_fd, &one, sizeof(one)) < 0)
		DOCA_LOG_DBG("Failed to wake the CM service thread: %s", strerror(errno));
}

/* ---- world (process-wide UCP context for the CM) ---- */

static doca_error_t
world_ucx_open(struct cm_world *w)
{
	ucp_params_t params = {0};
	ucp_worker_params_t wparams = {0};
	ucp_am_handler_param_t am = {0};
	ucp_config_t *config;
	ucs_status_t st;

	st = ucp_config_read("SD_CM", NULL, &config);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to read UCX configuration for the CM: %s", ucs_status_string(st));
		return DOCA_ERROR_INITIALIZATION;
	}
	/*
	 * The CM channel is tcp on purpose: its socket is what sees a dead peer
	 * or a dead link (data travels on the fabric's own endpoints, shm
	 * included).  tcp sockaddr CM: rdmacm needs RDMA hardware.  UCX reads
	 * the tcp CM's own options (UCX_TCP_CM_REUSEADDR, ...) from the
	 * environment only; SD_CM_UCX_* overrides UCX_* for this context.
	 */
	(void)ucp_config_modify(config, "TLS", "tcp");
	(void)ucp_config_modify(config, "SOCKADDR_TLS_PRIORITY", "tcp");
	if (getenv("SD_CM_UCX_NET_DEVICES") == NULL)
		(void)ucp_config_modify(config, "NET_DEVICES", "all");
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
	params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	params.name = "softdoca-cm";
	st = ucp_init(&params, config, &w->ucp);
	ucp_config_release(config);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to initialize UCP for the CM: %s", ucs_status_string(st));
		return DOCA_ERROR_INITIALIZATION;
	}
	wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wparams.thread_mode = UCS_THREAD_MODE_SERIALIZED; /* w->lock serializes every call */
	st = ucp_worker_create(w->ucp, &wparams, &w->worker);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to create the CM's UCP worker: %s", ucs_status_string(st));
		goto cleanup_ucp;
	}
	st = ucp_worker_get_efd(w->worker, &w->efd);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to get the CM worker's event fd: %s", ucs_status_string(st));
		goto cleanup_worker;
	}
	am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
			UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
	am.id = FABRIC_CM_AM_ID;
	am.flags = UCP_AM_FLAG_WHOLE_MSG;
	am.cb = cm_am_cb;
	am.arg = w;
	st = ucp_worker_set_am_recv_handler(w->worker, &am);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to set the CM's active message handler: %s", ucs_status_string(st));
		goto cleanup_worker;
	}
	return DOCA_SUCCESS;

cleanup_worker:
	ucp_worker_destroy(w->worker);
cleanup_ucp:
	ucp_cleanup(w->ucp);
	return DOCA_ERROR_INITIALIZATION;
}

static doca_error_t
world_get(struct cm_world **out)
{
	struct cm_world *w;
	doca_error_t err;
	int rc;

	pthread_mutex_lock(&world_mutex);
	if (the_world != NULL) {
		the_world->refcnt++;
		*out = the_world;
		pthread_mutex_unlock(&world_mutex);
		return DOCA_SUCCESS;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		err = DOCA_ERROR_NO_MEMORY;
		goto unlock;
	}
	pthread_mutex_init(&w->lock, NULL);
	sd_list_init(&w->cms);
	sd_list_init(&w->ueps);
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		DOCA_LOG_ERR("Failed to create the CM wake fd: %s", strerror(errno));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto free_world;
	}
	err = world_ucx_open(w);
	if (err != DOCA_SUCCESS)
		goto close_wake;
	rc = pthread_create(&w->svc, NULL, svc_main, w);
	if (rc != 0) {
		DOCA_LOG_ERR("Failed to start the CM service thread: %s", strerror(rc));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto close_ucx;
	}
	w->svc_started = true;
	w->refcnt = 1;
	the_world = w;
	*out = w;
	pthread_mutex_unlock(&world_mutex);
	return DOCA_SUCCESS;

close_ucx:
	ucp_worker_destroy(w->worker);
	ucp_cleanup(w->ucp);
close_wake:
	close(w->wake_fd);
free_world:
	pthread_mutex_destroy(&w->lock);
	free(w);
unlock:
	pthread_mutex_unlock(&world_mutex);
	return err;
}

static void
world_put(struct cm_world *w)
{
	uint64_t deadline;

	pthread_mutex_lock(&world_mutex);
	if (--w->refcnt > 0) {
		pthread_mutex_unlock(&world_mutex);
		return;
	}
	the_world = NULL;
	pthread_mutex_unlock(&world_mutex);

	atomic_store(&w->stop, true);
	world_wake(w);
	pthread_join(w->svc, NULL);
	/* lingering endpoints go now; UCX gets a bounded time to finish closing them */
	pthread_mutex_lock(&w->lock);
	deadline = now_ns() + 1000000000ull;
	world_housekeeping(w, true);
	while (!sd_list_empty(&w->ueps) && now_ns() < deadline) {
		ucp_worker_progress(w->worker);
		world_housekeeping(w, true);
	}
	if (!sd_list_empty(&w->ueps))
		DOCA_LOG_WARN("CM endpoints still closing after 1 s; destroying the worker anyway");
	while (!sd_list_empty(&w->ueps)) {
		struct cm_uep *rec = sd_container_of(w->ueps.next, struct cm_uep, node);

		sd_list_del(&rec->node);
		if (rec->close_req != NULL)
			ucp_request_free(rec->close_req);
		free(rec);
	}
	pthread_mutex_unlock(&w->lock);
	ucp_worker_destroy(w->worker);
	ucp_cleanup(w->ucp);
	close(w->wake_fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* ---- public ---- */

static uint64_t
liveness_from_env(void)
{
	return sd_env_u64("SOFTDOCA_RDMA_CM_LIVENESS_MS", CM_DEFAULT_LIVENESS_MS, CM_MIN_LIVENESS_MS, CM_MAX_LIVENESS_MS);
}

doca_error_t
sd_fabric_cm_create(const struct fabric_cm_attr *attr, struct fabric_cm **out)
{
	struct fabric_cm *cm;
	doca_error_t err;

	if (attr == NULL || attr->cb == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return DOCA_ERROR_NO_MEMORY;
	cm->cb = attr->cb;
	cm->user = attr->user;
	cm->request_timeout_ns =
		(uint64_t)(attr->request_timeout_ms ? attr->request_timeout_ms : CM_DEFAULT_REQUEST_TIMEOUT_MS) *
		1000000ull;
	cm->liveness_ns = (attr->liveness_ms ? attr->liveness_ms : liveness_from_env()) * 1000000ull;
	sd_list_init(&cm->listeners);
	sd_list_init(&cm->conns);
	sd_list_init(&cm->events);
	cm->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cm->event_fd < 0) {
		DOCA_LOG_ERR("Failed to create the CM event fd: %s", strerror(errno));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto free_cm;
	}
	err = world_get(&cm->w);
	if (err != DOCA_SUCCESS)
		goto close_fd;
	pthread_mutex_lock(&cm->w->lock);
	sd_list_insert_tail(&cm->w->cms, &cm->node);
	pthread_mutex_unlock(&cm->w->lock);
	*out = cm;
	return DOCA_SUCCESS;

close_fd:
	close(cm->event_fd);
free_cm:
	free(cm);
	return err;
}

static void
listener_close(struct cm_listener *l)
{
	struct sd_list *pos, *tmp;

	/* requests not answered yet are refused; accepted ones live on */
	sd_list_for_each_safe(pos, tmp, &l->cm->conns)
	{
		struct fabric_cm_conn *conn = sd_container_of(pos, struct fabric_cm_conn, node);

		if (conn->listener != l)
			continue;
		conn->listener = NULL;
		if (conn->state == CM_S_WAIT_REQUEST) {
			conn_end(conn, DOCA_ERROR_SHUTDOWN, false);
		} else if (conn->state == CM_S_REQUESTED) {
			(void)conn_send(conn, FABRIC_CM_MSG_REJECT, FABRIC_CM_REJ_SHUTDOWN, NULL, 0, NULL, 0);
			conn_end(conn, DOCA_ERROR_SHUTDOWN, true);
		}
	}
	ucp_listener_destroy(l->l);
	sd_list_del(&l->node);
	free(l);
}

void
sd_fabric_cm_destroy(struct fabric_cm *cm)
{
	struct cm_world *w;

	if (cm == NULL)
		return;
	w = cm->w;
	pthread_mutex_lock(&w->lock);
	while (!sd_list_empty(&cm->listeners))
		listener_close(sd_container_of(cm->listeners.next, struct cm_listener, node));
	while (!sd_list_empty(&cm->conns)) {
		struct fabric_cm_conn *conn = sd_container_of(cm->conns.next, struct fabric_cm_conn, node);

		if (conn->state != CM_S_CLOSED) {
			(void)conn_send(conn, FABRIC_CM_MSG_DISCONNECT, 0, NULL, 0, NULL, 0);
			conn_end(conn, DOCA_ERROR_SHUTDOWN, false);
		}
		if (conn->state == CM_S_CLOSED && conn->app_owned)
			conn_free(conn);
	}
	drop_events(cm, NULL);
	sd_list_del(&cm->node);
	/* send the DISCONNECTs now: the lingering endpoints flush them */
	ucp_worker_progress(w->worker);
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
	close(cm->event_fd);
	free(cm);
	world_put(w);
}

void
sd_fabric_cm_set_request_timeout(struct fabric_cm *cm, uint32_t ms)
{
	if (cm == NULL)
		return;
	pthread_mutex_lock(&cm->w->lock);
	cm->request_timeout_ns = (uint64_t)(ms ? ms : CM_DEFAULT_REQUEST_TIMEOUT_MS) * 1000000ull;
	pthread_mutex_unlock(&cm->w->lock);
}

uint32_t
sd_fabric_cm_liveness_ms(const struct fabric_cm *cm)
{
	return cm ? (uint32_t)(cm->liveness_ns / 1000000ull) : 0;
}

int
sd_fabric_cm_get_event_fd(struct fabric_cm *cm)
{
	return cm ? cm->event_fd : -1;
}

uint32_t
sd_fabric_cm_progress(struct fabric_cm *cm)
{
	struct cm_world *w;
	uint32_t n = 0;

	if (cm == NULL)
		return 0;
	w = cm->w;
	pthread_mutex_lock(&w->lock);
	(void)world_progress_locked(w);
	for (;;) {
		struct cm_event *e;

		if (sd_list_empty(&cm->events)) {
			if (cm->signaled) {
				uint64_t v;

				cm->signaled = false;
				if (read(cm->event_fd, &v, sizeof(v)) < 0)
					v = 0;
			}
			break;
		}
		e = sd_container_of(sd_list_pop_head(&cm->events), struct cm_event, node);
		pthread_mutex_unlock(&w->lock);
		cm->cb(cm, &e->ev, cm->user);
		free(e);
		n++;
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	/* callbacks may have sent messages or armed timers the service thread must see */
	if (n > 0)
		world_wake(w);
	return n;
}

static doca_error_t
listen_one(struct fabric_cm *cm, const struct sockaddr *addr, socklen_t addrlen, struct cm_listener *l)
{
	ucp_listener_params_t params = {0};
	ucs_status_t st;

	params.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	params.sockaddr.addr = addr;
	params.sockaddr.addrlen = addrlen;
	params.conn_handler.cb = listener_conn_cb;
	params.conn_handler.arg = l;
	st = ucp_listener_create(cm->w->worker, &params, &l->l);
	if (st == UCS_OK)
		return DOCA_SUCCESS;
	if (st == UCS_ERR_BUSY)
		return DOCA_ERROR_IN_USE;
	DOCA_LOG_DBG("ucp_listener_create: %s", ucs_status_string(st));
	return DOCA_ERROR_NOT_SUPPORTED;
}

static bool
listen_ipv6(void)
{
	static const char *const families[] = {"ipv4", "ipv6", "ip6"};

	return sd_env_choice("SOFTDOCA_RDMA_CM_LISTEN", families, SD_ARRAY_SIZE(families), 0) != 0;
}

static uint16_t
sockaddr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	return 0;
}

doca_error_t
sd_fabric_cm_listen(struct fabric_cm *cm, const struct sockaddr *addr, socklen_t addrlen, uint16_t *port)
{
	struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	struct sockaddr_in any4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	ucp_listener_attr_t attr = {0};
	struct cm_listener *l;
	struct sd_list *pos;
	uint16_t want;
	doca_error_t err;

	if (cm == NULL || (addr == NULL && addrlen != 0) ||
	    (addr != NULL && addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return DOCA_ERROR_INVALID_VALUE;
	want = addr != NULL ? sockaddr_port(addr) : (port != NULL ? *port : 0);
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return DOCA_ERROR_NO_MEMORY;
	l->cm = cm;
	pthread_mutex_lock(&cm->w->lock);
	if (want != 0) {
		sd_list_for_each(pos, &cm->listeners)
		{
			if (sd_container_of(pos, struct cm_listener, node)->port == want) {
				pthread_mutex_unlock(&cm->w->lock);
				free(l);
				return DOCA_ERROR_ALREADY_EXIST;
			}
		}
	}
	if (addr != NULL) {
		err = listen_one(cm, addr, addrlen, l);
	} else if (listen_ipv6()) {
		any6.sin6_port = htons(want);
		err = listen_one(cm, (const struct sockaddr *)&any6, sizeof(any6), l);
	} else {
		/*
		 * UCX 1.13 cannot complete IPv4 clients on a [::] listener (measured:
		 * "Endpoint is not connected") and refuses [::] next to 0.0.0.0 on
		 * one port, so the default is IPv4; SD_RDMA_CM_LISTEN=ipv6 picks [::].
		 */
		any4.sin_port = htons(want);
		err = listen_one(cm, (const struct sockaddr *)&any4, sizeof(any4), l);
	}
	if (err != DOCA_SUCCESS) {
		pthread_mutex_unlock(&cm->w->lock);
		free(l);
		return err;
	}
	attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
	if (ucp_listener_query(l->l, &attr) == UCS_OK)
		l->port = sockaddr_port((const struct sockaddr *)&attr.sockaddr);
	else
		l->port = want;
	sd_list_insert_tail(&cm->listeners, &l->node);
	pthread_mutex_unlock(&cm->w->lock);
	world_wake(cm->w);
	if (port != NULL)
		*port = l->port;
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_cm_unlisten(struct fabric_cm *cm, uint16_t port)
{
	struct sd_list *pos;

	if (cm == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&cm->w->lock);
	sd_list_for_each(pos, &cm->listeners)
	{
		struct cm_listener *l = sd_container_of(pos, struct cm_listener, node);

		if (l->port == port) {
			listener_close(l);
			pthread_mutex_unlock(&cm->w->lock);
			world_wake(cm->w);
			return DOCA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&cm->w->lock);
	return DOCA_ERROR_NOT_FOUND;
}

doca_error_t
sd_fabric_cm_connect(struct fabric_cm *cm, const struct sockaddr *addr, socklen_t addrlen, uint32_t conn_id,
		     const void *desc, size_t desc_len, void *user, struct fabric_cm_conn **out)
{
	ucp_ep_params_t params = {0};
	struct fabric_cm_conn *conn;
	struct cm_world *w;
	ucs_status_t st;
	doca_error_t err;
	char peer[80];

	if (cm == NULL || addr == NULL || out == NULL || desc == NULL || desc_len == 0 ||
	    desc_len > FABRIC_CM_DESC_MAX || addrlen > sizeof(struct sockaddr_storage) ||
	    (addr->sa_family != AF_INET && addr->sa_family != AF_INET6))
		return DOCA_ERROR_INVALID_VALUE;
	w = cm->w;
	pthread_mutex_lock(&w->lock);
	conn = conn_new(cm, false);
	if (conn == NULL) {
		err = DOCA_ERROR_NO_MEMORY;
		goto unlock;
	}
	conn->app_owned = true;
	conn->user = user;
	conn->conn_id = conn_id;
	memcpy(&conn->peer, addr, addrlen);
	conn->peer_len = addrlen;
	err = sd_random_bytes(&conn->token, sizeof(conn->token));
	if (err != DOCA_SUCCESS)
		goto free_conn;
	conn->token |= 1; /* never 0 */
	conn->rec = rec_new(w, conn);
	if (conn->rec == NULL) {
		err = DOCA_ERROR_NO_MEMORY;
		goto free_conn;
	}
	params.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			    UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	params.sockaddr.addr = (const struct sockaddr *)&conn->peer;
	params.sockaddr.addrlen = addrlen;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = uep_err_cb;
	params.err_handler.arg = conn->rec;
	st = ucp_ep_create(w->worker, &params, &conn->rec->uep);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("CM connection to %s: UCX endpoint creation failed: %s",
			     addr_str(&conn->peer, peer, sizeof(peer)), ucs_status_string(st));
		conn->rec->closing = true;
		conn->rec->conn = NULL;
		conn->rec = NULL;
		err = DOCA_ERROR_NOT_CONNECTED;
		goto free_conn;
	}
	conn->state = CM_S_CONNECTING;
	conn->deadline_ns = now_ns() + cm->request_timeout_ns;
	err = conn_send(conn, FABRIC_CM_MSG_REQUEST, 0, NULL, 0, desc, desc_len);
	if (err != DOCA_SUCCESS) {
		conn_end(conn, err, false);
		goto free_conn;
	}
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
	*out = conn;
	return DOCA_SUCCESS;

free_conn:
	conn_free(conn);
unlock:
	pthread_mutex_unlock(&w->lock);
	return err;
}

doca_error_t
sd_fabric_cm_accept(struct fabric_cm_conn *conn, uint32_t conn_id, const void *priv, uint8_t priv_len,
		    const void *desc, size_t desc_len)
{
	struct cm_world *w;
	doca_error_t err;

	if (conn == NULL || (priv == NULL && priv_len != 0) || desc == NULL || desc_len == 0 ||
	    desc_len > FABRIC_CM_DESC_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	w = conn->cm->w;
	pthread_mutex_lock(&w->lock);
	if (conn->state == CM_S_CLOSED) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (!conn->server || conn->state != CM_S_REQUESTED) {
		err = DOCA_ERROR_BAD_STATE;
	} else {
		conn->conn_id = conn_id;
		err = conn_send(conn, FABRIC_CM_MSG_ACCEPT, 0, priv, priv_len, desc, desc_len);
		if (err == DOCA_SUCCESS) {
			conn->cm->n_unanswered--;
			conn->state = CM_S_WAIT_RTU;
			conn->deadline_ns = now_ns() + conn->cm->request_timeout_ns;
		}
	}
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
	return err;
}

doca_error_t
sd_fabric_cm_reject(struct fabric_cm_conn *conn, enum fabric_cm_reject_reason reason)
{
	struct cm_world *w;
	doca_error_t err = DOCA_SUCCESS;

	if (conn == NULL || reason == 0 || reason > FABRIC_CM_REJ_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	w = conn->cm->w;
	pthread_mutex_lock(&w->lock);
	if (conn->state == CM_S_CLOSED) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (!conn->server || conn->state != CM_S_REQUESTED) {
		err = DOCA_ERROR_BAD_STATE;
	} else {
		(void)conn_send(conn, FABRIC_CM_MSG_REJECT, (uint16_t)reason, NULL, 0, NULL, 0);
		conn_end(conn, DOCA_ERROR_NOT_PERMITTED, false);
	}
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
	return err;
}

doca_error_t
sd_fabric_cm_confirm(struct fabric_cm_conn *conn)
{
	struct cm_world *w;
	doca_error_t err;

	if (conn == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	w = conn->cm->w;
	pthread_mutex_lock(&w->lock);
	if (conn->state == CM_S_CLOSED) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (conn->server || conn->state != CM_S_ACCEPTED) {
		err = DOCA_ERROR_BAD_STATE;
	} else {
		err = conn_send(conn, FABRIC_CM_MSG_RTU, 0, NULL, 0, NULL, 0);
		if (err == DOCA_SUCCESS)
			conn->state = CM_S_ESTABLISHED;
	}
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
	return err;
}

static void
disconnect_locked(struct fabric_cm_conn *conn)
{
	if (conn->state == CM_S_CLOSED)
		return;
	if (conn->server && conn->state == CM_S_REQUESTED)
		(void)conn_send(conn, FABRIC_CM_MSG_REJECT, FABRIC_CM_REJ_APP, NULL, 0, NULL, 0);
	else if (conn->token != 0)
		(void)conn_send(conn, FABRIC_CM_MSG_DISCONNECT, 0, NULL, 0, NULL, 0);
	conn_end(conn, DOCA_SUCCESS, false);
}

doca_error_t
sd_fabric_cm_disconnect(struct fabric_cm_conn *conn)
{
	struct cm_world *w;

	if (conn == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	w = conn->cm->w;
	pthread_mutex_lock(&w->lock);
	disconnect_locked(conn);
	drop_events(conn->cm, conn);
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
	return DOCA_SUCCESS;
}

void
sd_fabric_cm_conn_destroy(struct fabric_cm_conn *conn)
{
	struct cm_world *w;

	if (conn == NULL)
		return;
	w = conn->cm->w;
	pthread_mutex_lock(&w->lock);
	disconnect_locked(conn);
	conn_free(conn);
	pthread_mutex_unlock(&w->lock);
	world_wake(w);
}

void
sd_fabric_cm_conn_set_user(struct fabric_cm_conn *conn, void *user)
{
	if (conn != NULL)
		conn->user = user;
}

void *
sd_fabric_cm_conn_get_user(const struct fabric_cm_conn *conn)
{
	return conn ? conn->user : NULL;
}

doca_error_t
sd_fabric_cm_conn_get_peer(const struct fabric_cm_conn *conn, struct sockaddr_storage *addr, socklen_t *addrlen)
{
	if (conn == NULL || addr == NULL || addrlen == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (conn->peer_len == 0)
		return DOCA_ERROR_NOT_FOUND;
	memcpy(addr, &conn->peer, sizeof(*addr));
	*addrlen = conn->peer_len;
	return DOCA_SUCCESS;
}
