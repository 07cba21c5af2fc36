/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection objects: creation with a fabric endpoint, the connection
 * descriptor (rdma_proto.h), the out-of-band doca_rdma_export /
 * doca_rdma_connect pair, the state changes the RDMA-CM path drives
 * (rdma_internal.h), and what happens when the fabric loses a connection.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "../util/sd_random.h"
#include "rdma_internal.h"
#include "rdma_proto.h"

SD_LOG_REGISTER(rdma.conn);

static bool
conn_terminal(const struct doca_rdma_connection *conn)
{
	return conn->state == SD_RDMA_CONN_FAILED || conn->state == SD_RDMA_CONN_DISCONNECTED;
}

static void
conn_release_slot(struct doca_rdma_connection *conn)
{
	if (conn->counted) {
		conn->counted = false;
		conn->rdma->num_counted--;
	}
}

/* The descriptor: our header, then the fabric endpoint's blob. */
static doca_error_t
conn_build_desc(struct doca_rdma_connection *conn)
{
	struct sd_rdma_conn_desc d = {0};
	const void *fblob;
	size_t flen;
	doca_error_t err;

	err = sd_fabric_ep_export(conn->ep, &fblob, &flen);
	if (err != DOCA_SUCCESS)
		return err;
	if (flen > SD_RDMA_DESC_MAX - sizeof(d))
		return DOCA_ERROR_TOO_BIG;
	err = sd_random_bytes(d.key, sizeof(d.key));
	if (err != DOCA_SUCCESS)
		return err;
	d.magic = htole32(SD_RDMA_CONN_MAGIC);
	d.version = htole16(SD_RDMA_CONN_VERSION);
	d.hdr_len = htole16(sizeof(d));
	d.total_len = htole32((uint32_t)(sizeof(d) + flen));
	d.permissions = htole32(conn->rdma->permissions);
	d.transport = htole32((uint32_t)conn->rdma->transport);
	d.conn_id = htole32(conn->id);
	d.fabric_len = htole32((uint32_t)flen);
	conn->blob = malloc(sizeof(d) + flen);
	if (conn->blob == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(conn->blob, &d, sizeof(d));
	memcpy(conn->blob + sizeof(d), fblob, flen);
	conn->blob_len = sizeof(d) + flen;
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_conn_create(struct doca_rdma *rdma, const char *api, struct doca_rdma_connection **out)
{
	struct doca_rdma_connection *conn;
	doca_error_t err;

	if (rdma->fctx == NULL || (sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_RUNNING &&
				   sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_STARTING)) {
		DOCA_LOG_ERR("%s: the RDMA context is not started (state %d); call it from the RUNNING state "
			     "callback or later",
			     api, (int)sd_ctx_state(&rdma->ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	if (rdma->transport == DOCA_RDMA_TRANSPORT_TYPE_DC && rdma->num_counted > 0) {
		DOCA_LOG_ERR("%s: the DC transport serves one connection and this context has one; use "
			     "DOCA_RDMA_TRANSPORT_TYPE_RC for several",
			     api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma->num_counted >= rdma->max_num_connections) {
		DOCA_LOG_ERR("%s: the context holds its %u connections (max_num_connections); raise it with "
			     "doca_rdma_set_max_num_connections() before doca_ctx_start()",
			     api, rdma->max_num_connections);
		return DOCA_ERROR_FULL;
	}
	conn = calloc(1, sizeof(*conn));
	if (conn == NULL) {
		DOCA_LOG_ERR("%s: out of memory", api);
		return DOCA_ERROR_NO_MEMORY;
	}
	conn->rdma = rdma;
	conn->id = rdma->next_conn_id++;
	conn->state = SD_RDMA_CONN_IDLE;
	sd_list_init(&conn->notify_node);
	err = sd_fabric_ep_create(rdma->fctx, conn, &conn->ep);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: failed to create the connection's endpoint: %s", api, doca_error_get_descr(err));
		goto free_conn;
	}
	err = conn_build_desc(conn);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: failed to build the connection descriptor: %s", api, doca_error_get_descr(err));
		goto destroy_ep;
	}
	conn->counted = true;
	rdma->num_counted++;
	sd_list_insert_tail(&rdma->conns, &conn->node);
	*out = conn;
	return DOCA_SUCCESS;

destroy_ep:
	sd_fabric_ep_destroy(conn->ep);
free_conn:
	free(conn);
	return err;
}

doca_error_t
sd_rdma_conn_get_desc(struct doca_rdma_connection *conn, const void **desc, size_t *len)
{
	if (conn == NULL || desc == NULL || len == NULL || conn->blob == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*desc = conn->blob;
	*len = conn->blob_len;
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_conn_connect(struct doca_rdma_connection *conn, const void *desc, size_t len, const char *api)
{
	struct doca_rdma *rdma = conn->rdma;
	struct sd_rdma_conn_info info;
	const char *reason = "";
	uint8_t *fblob;
	doca_error_t err;

	if (conn->state != SD_RDMA_CONN_IDLE || conn->ep == NULL) {
		DOCA_LOG_ERR("%s: connection %u is already connected or has ended; export a new connection for "
			     "another peer",
			     api, conn->id);
		return DOCA_ERROR_BAD_STATE;
	}
	err = sd_rdma_conn_desc_parse(desc, len, &info, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: the peer's connection descriptor (%zu bytes) is refused: %s; pass the bytes the "
			     "peer's doca_rdma_export() returned, unchanged",
			     api, len, reason);
		return err;
	}
	if (info.transport != (uint32_t)rdma->transport) {
		DOCA_LOG_ERR("%s: the peer uses the %s transport and this context %s; set the same "
			     "doca_rdma_set_transport_type() on both sides",
			     api, info.transport ? "DC" : "RC", rdma->transport ? "DC" : "RC");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* The fabric reads its blob in place: give it aligned bytes. */
	fblob = malloc(info.fabric_len);
	if (fblob == NULL) {
		DOCA_LOG_ERR("%s: out of memory", api);
		return DOCA_ERROR_NO_MEMORY;
	}
	memcpy(fblob, info.fabric, info.fabric_len);
	err = sd_fabric_ep_connect(conn->ep, fblob, info.fabric_len, &reason);
	free(fblob);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: failed to reach the peer of connection %u: %s (%s)", api, conn->id, reason,
			     doca_error_get_name(err));
		return err;
	}
	conn->peer_permissions = info.permissions;
	conn->peer_known = true;
	conn->state = SD_RDMA_CONN_CONNECTING;
	return DOCA_SUCCESS;
}

void
sd_rdma_conn_established(struct doca_rdma_connection *conn, bool notify)
{
	struct doca_rdma *rdma = conn->rdma;

	if (conn->state != SD_RDMA_CONN_IDLE && conn->state != SD_RDMA_CONN_CONNECTING)
		return;
	conn->state = SD_RDMA_CONN_ESTABLISHED;
	DOCA_LOG_TRC("Connection %u established", conn->id);
	sd_diag_event(&rdma->ctx, "connection established", conn->id);
	if (notify && rdma->established_cb != NULL)
		rdma->established_cb(conn, conn->user_data, sd_ctx_user_data(&rdma->ctx));
}

/* The endpoint goes: its ops complete (CONNECTION_ABORTED, mapped to conn->err by rdma_task.c). */
static void
conn_drop_ep(struct doca_rdma_connection *conn)
{
	if (conn->ep != NULL) {
		sd_fabric_ep_destroy(conn->ep);
		conn->ep = NULL;
	}
	if (conn->notify_queued) {
		sd_list_del(&conn->notify_node);
		conn->notify_queued = false;
	}
}

void
sd_rdma_conn_fail(struct doca_rdma_connection *conn, doca_error_t err, bool notify)
{
	struct doca_rdma *rdma = conn->rdma;

	if (conn_terminal(conn))
		return;
	conn->err = err != DOCA_SUCCESS ? err : DOCA_ERROR_CONNECTION_ABORTED;
	conn->state = SD_RDMA_CONN_FAILED;
	conn_drop_ep(conn);
	conn_release_slot(conn);
	DOCA_LOG_DBG("Connection %u failed: %s", conn->id, doca_error_get_name(conn->err));
	sd_diag_event(&rdma->ctx, "connection failed", conn->id);
	if (notify && rdma->failure_cb != NULL)
		rdma->failure_cb(conn, conn->user_data, sd_ctx_user_data(&rdma->ctx));
}

void
sd_rdma_conn_disconnected(struct doca_rdma_connection *conn, bool notify)
{
	struct doca_rdma *rdma = conn->rdma;

	if (conn_terminal(conn))
		return;
	if (conn->err == DOCA_SUCCESS)
		conn->err = DOCA_ERROR_CONNECTION_ABORTED;
	conn->state = SD_RDMA_CONN_DISCONNECTED;
	conn_drop_ep(conn);
	conn_release_slot(conn);
	DOCA_LOG_DBG("Connection %u disconnected", conn->id);
	sd_diag_event(&rdma->ctx, "connection disconnected", conn->id);
	if (notify && rdma->disconnect_cb != NULL)
		rdma->disconnect_cb(conn, conn->user_data, sd_ctx_user_data(&rdma->ctx));
}

/*
 * Called from sd_fabric_ctx_progress(): tasks on the connection already
 * complete with status.  CM connections get their failure / disconnect
 * callback, but only after the fabric's progress returned (a callback may stop
 * the context, which destroys the fabric ctx): they are queued on rdma->notify.
 */
/* Can a connection of the context still deliver into its receives (established, or being made)? */
static bool
rdma_has_live_conn(const struct doca_rdma *rdma)
{
	const struct sd_list *pos;

	sd_list_for_each(pos, &rdma->conns)
	{
		const struct doca_rdma_connection *conn = sd_container_of(pos, const struct doca_rdma_connection, node);

		if (!conn_terminal(conn))
			return true;
	}
	return false;
}

void
sd_rdma_conn_ep_error(struct fabric_ep *ep, doca_error_t status, void *user)
{
	struct doca_rdma *rdma = user;
	struct doca_rdma_connection *conn = sd_fabric_ep_get_user(ep);

	if (conn == NULL || conn_terminal(conn))
		return;
	DOCA_LOG_INFO("Connection %u lost: %s", conn->id, doca_error_get_descr(status));
	if (conn->err == DOCA_SUCCESS)
		conn->err = status;
	if (conn->cm != NULL) {
		sd_rdma_conn_notify_later(conn);
		return;
	}
	/* OOB: no callback in DOCA; the failed tasks stop the context. The endpoint stays until stop. */
	if (conn->state == SD_RDMA_CONN_ESTABLISHED) {
		conn->state = SD_RDMA_CONN_DISCONNECTED;
	} else {
		conn->state = SD_RDMA_CONN_FAILED;
	}
	conn_release_slot(conn);
	/*
	 * A program that only posted receives (a responder) has no failed task to
	 * tell it: as a QP in error flushes its receive queue, the receives fail
	 * once no connection of the context can fill them (CM programs are told
	 * by their disconnect / failure callbacks and may accept new peers).
	 */
	if (!rdma_has_live_conn(rdma))
		sd_fabric_ctx_flush_recvs(rdma->fctx, status);
}

void
sd_rdma_conn_notify_later(struct doca_rdma_connection *conn)
{
	struct doca_rdma *rdma = conn->rdma;

	if (conn->notify_queued)
		return;
	conn->notify_queued = true;
	conn->notify_round = rdma->progress_round;
	sd_list_insert_tail(&rdma->notify, &conn->notify_node);
}

/*
 * The fabric progress that reported a loss may have completed the peer's last
 * receives into the core's queue, which doca_pe_progress() reports after this
 * op returns: a loss queued by this call then waits for the next one, so those
 * receives reach the application before the callback.  Only once: completions
 * of other connections may keep coming.
 */
unsigned
sd_rdma_conns_notify(struct doca_rdma *rdma)
{
	bool wait = sd_ctx_has_completed(&rdma->ctx);
	struct sd_list *pos;
	unsigned n = 0;

	while (rdma->fctx != NULL && (pos = rdma->notify.next) != &rdma->notify) {
		struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, notify_node);

		if (wait && conn->notify_round == rdma->progress_round)
			break;
		sd_list_del(pos);
		conn->notify_queued = false;
		if (conn->state == SD_RDMA_CONN_ESTABLISHED)
			sd_rdma_conn_disconnected(conn, true);
		else
			sd_rdma_conn_fail(conn, conn->err, true);
		n++;
	}
	return n;
}

void
sd_rdma_conns_vanish(struct doca_rdma *rdma)
{
	struct sd_list *pos;

	/* the errors come back through sd_rdma_conn_ep_error() from the next progress, as for a real death */
	sd_list_for_each(pos, &rdma->conns)
	{
		struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, node);

		if (!conn_terminal(conn) && conn->ep != NULL)
			sd_fabric_ep_vanish(conn->ep);
	}
}

void
sd_rdma_conns_teardown(struct doca_rdma *rdma)
{
	struct sd_list *pos;

	sd_list_for_each(pos, &rdma->conns)
	{
		struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, node);

		conn_drop_ep(conn);
		if (!conn_terminal(conn)) {
			conn->err = DOCA_ERROR_CONNECTION_ABORTED;
			conn->state = conn->state == SD_RDMA_CONN_ESTABLISHED ? SD_RDMA_CONN_DISCONNECTED
									      : SD_RDMA_CONN_FAILED;
		}
		conn_release_slot(conn);
	}
}

void
sd_rdma_conns_free(struct doca_rdma *rdma)
{
	struct sd_list *pos;

	while ((pos = sd_list_pop_head(&rdma->conns)) != NULL) {
		struct doca_rdma_connection *conn = sd_container_of(pos, struct doca_rdma_connection, node);

		conn_drop_ep(conn);
		if (conn->cm != NULL)
			rdma->cm_ops.conn_free(conn);
		free(conn->blob);
		free(conn);
	}
	rdma->num_counted = 0;
}

/* ---- out of band ---- */

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details, size_t *local_rdma_conn_details_size,
		 struct doca_rdma_connection **rdma_connection)
{
	struct doca_rdma_connection *conn;
	doca_error_t err;

	if (rdma == NULL || local_rdma_conn_details == NULL || local_rdma_conn_details_size == NULL ||
	    rdma_connection == NULL) {
		DOCA_LOG_ERR("doca_rdma_export: NULL argument (rdma %p, details %p, size %p, connection %p)",
			     (void *)rdma, (void *)local_rdma_conn_details, (void *)local_rdma_conn_details_size,
			     (void *)rdma_connection);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_rdma_conn_create(rdma, "doca_rdma_export", &conn);
	if (err != DOCA_SUCCESS)
		return err;
	conn->oob = true;
	*local_rdma_conn_details = conn->blob;
	*local_rdma_conn_details_size = conn->blob_len;
	*rdma_connection = conn;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details, size_t remote_rdma_conn_details_size,
		  struct doca_rdma_connection *rdma_connection)
{
	doca_error_t err;

	if (rdma == NULL || remote_rdma_conn_details == NULL || rdma_connection == NULL) {
		DOCA_LOG_ERR("doca_rdma_connect: NULL argument (rdma %p, details %p, connection %p)", (void *)rdma,
			     remote_rdma_conn_details, (void *)rdma_connection);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma_connection->rdma != rdma) {
		DOCA_LOG_ERR("doca_rdma_connect: connection %u belongs to another RDMA context; connect it on the "
			     "context whose doca_rdma_export() made it",
			     rdma_connection->id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma->fctx == NULL) {
		DOCA_LOG_ERR("doca_rdma_connect: the RDMA context is not started (state %d); connect from the "
			     "RUNNING state callback or later",
			     (int)sd_ctx_state(&rdma->ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	err = sd_rdma_conn_connect(rdma_connection, remote_rdma_conn_details, remote_rdma_conn_details_size,
				   "doca_rdma_connect");
	if (err != DOCA_SUCCESS)
		return err;
	/* The fabric holds tasks until the peer answers: usable now. */
	sd_rdma_conn_established(rdma_connection, false);
	return DOCA_SUCCESS;
}
