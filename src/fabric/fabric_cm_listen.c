/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection manager, listeners: UCX listeners on a port (IPv4 and, when the
 * host has it, IPv6), the connection requests they take (a server connection
 * per request, refused past the flood guard), and their closing.
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

SD_LOG_REGISTER(fabric.cm.listen);

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
		cm_addr_str(&attr.client_address, peer, sizeof(peer));
	if (cm->n_unanswered >= CM_MAX_UNANSWERED) {
		DOCA_LOG_WARN("CM listener on port %u refused %s: %u requests are unanswered already", l->port, peer,
			      cm->n_unanswered);
		(void)ucp_listener_reject(l->l, req);
		return;
	}
	conn = cm_conn_new(cm, true);
	if (conn == NULL)
		goto reject;
	cm->n_unanswered++; /* until answered or freed (cm_conn_free / cm_conn_end) */
	conn->rec = cm_rec_new(w, conn);
	if (conn->rec == NULL)
		goto free_conn;
	conn->listener = l;
	conn->state = CM_S_WAIT_REQUEST;
	conn->deadline_ns = sd_now_ns() + cm->request_timeout_ns;
	if (st == UCS_OK) {
		memcpy(&conn->peer, &attr.client_address, sizeof(conn->peer));
		conn->peer_len = attr.client_address.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
									   : sizeof(struct sockaddr_in);
	}
	params.field_mask =
		UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.conn_request = req;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = cm_uep_err_cb;
	params.err_handler.arg = conn->rec;
	st = ucp_ep_create(w->wk.worker, &params, &conn->rec->uep);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("CM listener on port %u: failed to accept the endpoint of %s: %s", l->port, peer,
			     ucs_status_string(st));
		conn->rec->closing = true; /* nothing to close; freed by housekeeping */
		conn->rec->conn = NULL;
		conn->rec = NULL;
		cm_conn_free(conn);
		return; /* the request was consumed by ucp_ep_create */
	}
	DOCA_LOG_DBG("CM listener on port %u: connection from %s", l->port, peer);
	return;

free_conn:
	cm_conn_free(conn);
reject:
	DOCA_LOG_ERR("CM listener on port %u refused %s: out of memory", l->port, peer);
	(void)ucp_listener_reject(l->l, req);
}

void
cm_listener_close(struct cm_listener *l)
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
			cm_conn_end(conn, DOCA_ERROR_SHUTDOWN, false);
		} else if (conn->state == CM_S_REQUESTED) {
			(void)cm_conn_send(conn, FABRIC_CM_MSG_REJECT, FABRIC_CM_REJ_SHUTDOWN, NULL, 0, NULL, 0);
			cm_conn_end(conn, DOCA_ERROR_SHUTDOWN, true);
		}
	}
	ucp_listener_destroy(l->l);
	sd_list_del(&l->node);
	free(l);
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
	st = ucp_listener_create(cm->w->wk.worker, &params, &l->l);
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
	pthread_mutex_lock(&cm->w->wk.lock);
	if (want != 0) {
		sd_list_for_each(pos, &cm->listeners)
		{
			if (sd_container_of(pos, struct cm_listener, node)->port == want) {
				pthread_mutex_unlock(&cm->w->wk.lock);
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
		 * one port, so the default is IPv4; SOFTDOCA_RDMA_CM_LISTEN=ipv6 picks [::].
		 */
		any4.sin_port = htons(want);
		err = listen_one(cm, (const struct sockaddr *)&any4, sizeof(any4), l);
	}
	if (err != DOCA_SUCCESS) {
		pthread_mutex_unlock(&cm->w->wk.lock);
		free(l);
		return err;
	}
	attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
	if (ucp_listener_query(l->l, &attr) == UCS_OK)
		l->port = sockaddr_port((const struct sockaddr *)&attr.sockaddr);
	else
		l->port = want;
	sd_list_insert_tail(&cm->listeners, &l->node);
	pthread_mutex_unlock(&cm->w->wk.lock);
	cm_world_wake(cm->w);
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
	pthread_mutex_lock(&cm->w->wk.lock);
	sd_list_for_each(pos, &cm->listeners)
	{
		struct cm_listener *l = sd_container_of(pos, struct cm_listener, node);

		if (l->port == port) {
			cm_listener_close(l);
			pthread_mutex_unlock(&cm->w->wk.lock);
			cm_world_wake(cm->w);
			return DOCA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&cm->w->wk.lock);
	return DOCA_ERROR_NOT_FOUND;
}
