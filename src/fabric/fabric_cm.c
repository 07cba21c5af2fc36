/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection manager of the soft NIC: UCX listeners and socket-address
 * endpoints on a UCP context of its own (tcp only, so the CM channel sees
 * link loss and peer death), the REQUEST/ACCEPT/REJECT/RTU/DISCONNECT/PING
 * handshake of fabric_cm_proto.h, liveness, and event delivery.  Design and
 * measurements: docs/rdma-cm.md.
 *
 * This file: the process-wide world (a UCP worker host of its own, its
 * service thread's round) and the API of fabric_cm.h; connections are
 * fabric_cm_conn.c, listeners fabric_cm_listen.c, the objects and the
 * locking rule fabric_cm_internal.h.
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
#include "../util/sd_env.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(fabric.cm);

static pthread_mutex_t world_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct cm_world *the_world;

/* ---- service thread (its loop: fabric_worker.c) ---- */

/* Progress the worker, close what is due, run timers (lock held). */
static unsigned
world_round(void *owner, uint64_t *next)
{
	struct cm_world *w = owner;
	unsigned n = 0, e;

	for (int i = 0; i < CM_PROGRESS_BATCH && (e = ucp_worker_progress(w->wk.worker)) != 0; i++)
		n += e;
	cm_world_housekeeping(w, false);
	*next = cm_world_timers(w);
	return n;
}

/* The CM's worker is the service thread's alone: it serves at once, one round per wake-up. */
static const struct fabric_worker_ops world_svc_ops = {
	.round = world_round,
};

void
cm_world_wake(struct cm_world *w)
{
	fabric_worker_wake(&w->wk);
}

/* ---- world (process-wide UCP context for the CM) ---- */

static void
world_configure(ucp_config_t *config, void *arg)
{
	(void)arg;
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
}

static doca_error_t
world_ucx_open(struct cm_world *w)
{
	struct fabric_worker_attr attr = {
		.name = "softdoca-cm",
		.thread_name = FABRIC_WORKER_THREAD_PREFIX "-cm",
		.env_prefix = "SD_CM",
		.configure = world_configure,
		.thread_mode = UCS_THREAD_MODE_SERIALIZED, /* w->wk.lock serializes every call */
		.am_id = FABRIC_CM_AM_ID,
		.am_cb = cm_am_cb,
		.am_arg = w,
	};

	return fabric_worker_open(&w->wk, &attr);
}

static doca_error_t
world_get(struct cm_world **out)
{
	struct cm_world *w;
	doca_error_t err;

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
	sd_list_init(&w->cms);
	sd_list_init(&w->ueps);
	err = world_ucx_open(w);
	if (err != DOCA_SUCCESS)
		goto free_world;
	err = fabric_worker_start(&w->wk, &world_svc_ops, w);
	if (err != DOCA_SUCCESS)
		goto close_worker;
	w->refcnt = 1;
	the_world = w;
	*out = w;
	pthread_mutex_unlock(&world_mutex);
	return DOCA_SUCCESS;

close_worker:
	fabric_worker_close(&w->wk);
free_world:
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

	fabric_worker_stop(&w->wk);
	/* lingering endpoints go now; UCX gets a bounded time to finish closing them */
	pthread_mutex_lock(&w->wk.lock);
	deadline = sd_now_ns() + 1000000000ull;
	cm_world_housekeeping(w, true);
	while (!sd_list_empty(&w->ueps) && sd_now_ns() < deadline) {
		ucp_worker_progress(w->wk.worker);
		cm_world_housekeeping(w, true);
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
	pthread_mutex_unlock(&w->wk.lock);
	fabric_worker_close(&w->wk);
	free(w);
}

/* ---- public ---- */

static uint64_t
liveness_from_env(void)
{
	return sd_env_u64("SOFTDOCA_RDMA_CM_LIVENESS_MS", CM_DEFAULT_LIVENESS_MS, CM_MIN_LIVENESS_MS,
			  CM_MAX_LIVENESS_MS);
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
	pthread_mutex_lock(&cm->w->wk.lock);
	sd_list_insert_tail(&cm->w->cms, &cm->node);
	pthread_mutex_unlock(&cm->w->wk.lock);
	*out = cm;
	return DOCA_SUCCESS;

close_fd:
	close(cm->event_fd);
free_cm:
	free(cm);
	return err;
}

void
sd_fabric_cm_destroy(struct fabric_cm *cm)
{
	struct cm_world *w;

	if (cm == NULL)
		return;
	w = cm->w;
	pthread_mutex_lock(&w->wk.lock);
	while (!sd_list_empty(&cm->listeners))
		cm_listener_close(sd_container_of(cm->listeners.next, struct cm_listener, node));
	while (!sd_list_empty(&cm->conns)) {
		struct fabric_cm_conn *conn = sd_container_of(cm->conns.next, struct fabric_cm_conn, node);

		if (conn->state != CM_S_CLOSED) {
			(void)cm_conn_send(conn, FABRIC_CM_MSG_DISCONNECT, 0, NULL, 0, NULL, 0);
			cm_conn_end(conn, DOCA_ERROR_SHUTDOWN, false);
		}
		if (conn->state == CM_S_CLOSED && conn->app_owned)
			cm_conn_free(conn);
	}
	cm_drop_events(cm, NULL);
	sd_list_del(&cm->node);
	/* send the DISCONNECTs now: the lingering endpoints flush them */
	ucp_worker_progress(w->wk.worker);
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
	close(cm->event_fd);
	free(cm);
	world_put(w);
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
	uint64_t next;
	uint32_t n = 0;

	if (cm == NULL)
		return 0;
	w = cm->w;
	pthread_mutex_lock(&w->wk.lock);
	(void)world_round(w, &next);
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
		pthread_mutex_unlock(&w->wk.lock);
		cm->cb(cm, &e->ev, cm->user);
		free(e);
		n++;
		pthread_mutex_lock(&w->wk.lock);
	}
	pthread_mutex_unlock(&w->wk.lock);
	/* callbacks may have sent messages or armed timers the service thread must see */
	if (n > 0)
		cm_world_wake(w);
	return n;
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
	pthread_mutex_lock(&w->wk.lock);
	conn = cm_conn_new(cm, false);
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
	conn->rec = cm_rec_new(w, conn);
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
	params.err_handler.cb = cm_uep_err_cb;
	params.err_handler.arg = conn->rec;
	st = ucp_ep_create(w->wk.worker, &params, &conn->rec->uep);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("CM connection to %s: UCX endpoint creation failed: %s",
			     cm_addr_str(&conn->peer, peer, sizeof(peer)), ucs_status_string(st));
		conn->rec->closing = true;
		conn->rec->conn = NULL;
		conn->rec = NULL;
		err = DOCA_ERROR_NOT_CONNECTED;
		goto free_conn;
	}
	conn->state = CM_S_CONNECTING;
	conn->deadline_ns = sd_now_ns() + cm->request_timeout_ns;
	err = cm_conn_send(conn, FABRIC_CM_MSG_REQUEST, 0, NULL, 0, desc, desc_len);
	if (err != DOCA_SUCCESS) {
		cm_conn_end(conn, err, false);
		goto free_conn;
	}
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
	*out = conn;
	return DOCA_SUCCESS;

free_conn:
	cm_conn_free(conn);
unlock:
	pthread_mutex_unlock(&w->wk.lock);
	return err;
}

doca_error_t
sd_fabric_cm_accept(struct fabric_cm_conn *conn, uint32_t conn_id, const void *priv, uint8_t priv_len, const void *desc,
		    size_t desc_len)
{
	struct cm_world *w;
	doca_error_t err;

	if (conn == NULL || (priv == NULL && priv_len != 0) || desc == NULL || desc_len == 0 ||
	    desc_len > FABRIC_CM_DESC_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	w = conn->cm->w;
	pthread_mutex_lock(&w->wk.lock);
	if (conn->state == CM_S_CLOSED) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (!conn->server || conn->state != CM_S_REQUESTED) {
		err = DOCA_ERROR_BAD_STATE;
	} else {
		conn->conn_id = conn_id;
		err = cm_conn_send(conn, FABRIC_CM_MSG_ACCEPT, 0, priv, priv_len, desc, desc_len);
		if (err == DOCA_SUCCESS) {
			conn->cm->n_unanswered--;
			conn->state = CM_S_WAIT_RTU;
			conn->deadline_ns = sd_now_ns() + conn->cm->request_timeout_ns;
		}
	}
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
	return err;
}

doca_error_t
sd_fabric_cm_reject(struct fabric_cm_conn *conn, enum fabric_cm_reject why)
{
	/* the API's reasons are not the wire's: the protocol stays inside the fabric */
	static const uint16_t wire[] = {
		[FABRIC_CM_REJECT_APP] = FABRIC_CM_REJ_APP,
		[FABRIC_CM_REJECT_FULL] = FABRIC_CM_REJ_FULL,
		[FABRIC_CM_REJECT_PROTOCOL] = FABRIC_CM_REJ_PROTOCOL,
		[FABRIC_CM_REJECT_SHUTDOWN] = FABRIC_CM_REJ_SHUTDOWN,
	};
	struct cm_world *w;
	doca_error_t err = DOCA_SUCCESS;
	uint16_t reason;

	if (conn == NULL || (unsigned)why >= SD_ARRAY_SIZE(wire))
		return DOCA_ERROR_INVALID_VALUE;
	reason = wire[why];
	w = conn->cm->w;
	pthread_mutex_lock(&w->wk.lock);
	if (conn->state == CM_S_CLOSED) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (!conn->server || conn->state != CM_S_REQUESTED) {
		err = DOCA_ERROR_BAD_STATE;
	} else {
		(void)cm_conn_send(conn, FABRIC_CM_MSG_REJECT, reason, NULL, 0, NULL, 0);
		cm_conn_end(conn, DOCA_ERROR_NOT_PERMITTED, false);
	}
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
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
	pthread_mutex_lock(&w->wk.lock);
	if (conn->state == CM_S_CLOSED) {
		err = DOCA_ERROR_NOT_CONNECTED;
	} else if (conn->server || conn->state != CM_S_ACCEPTED) {
		err = DOCA_ERROR_BAD_STATE;
	} else {
		err = cm_conn_send(conn, FABRIC_CM_MSG_RTU, 0, NULL, 0, NULL, 0);
		if (err == DOCA_SUCCESS)
			conn->state = CM_S_ESTABLISHED;
	}
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
	return err;
}

static void
disconnect_locked(struct fabric_cm_conn *conn)
{
	if (conn->state == CM_S_CLOSED)
		return;
	if (conn->server && conn->state == CM_S_REQUESTED)
		(void)cm_conn_send(conn, FABRIC_CM_MSG_REJECT, FABRIC_CM_REJ_APP, NULL, 0, NULL, 0);
	else if (conn->token != 0)
		(void)cm_conn_send(conn, FABRIC_CM_MSG_DISCONNECT, 0, NULL, 0, NULL, 0);
	cm_conn_end(conn, DOCA_SUCCESS, false);
}

doca_error_t
sd_fabric_cm_disconnect(struct fabric_cm_conn *conn)
{
	struct cm_world *w;

	if (conn == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	w = conn->cm->w;
	pthread_mutex_lock(&w->wk.lock);
	disconnect_locked(conn);
	cm_drop_events(conn->cm, conn);
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
	return DOCA_SUCCESS;
}

void
sd_fabric_cm_conn_destroy(struct fabric_cm_conn *conn)
{
	struct cm_world *w;

	if (conn == NULL)
		return;
	w = conn->cm->w;
	pthread_mutex_lock(&w->wk.lock);
	disconnect_locked(conn);
	cm_conn_free(conn);
	pthread_mutex_unlock(&w->wk.lock);
	cm_world_wake(w);
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
