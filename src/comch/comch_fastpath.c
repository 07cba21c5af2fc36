/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fast-path state of a connection: the consumers this side announced, the
 * consumers the peer announced (their post rings), and the records that
 * change them.  Records arrive through the connection's owner (client or
 * server) progress; a FP_DATA record completes the consumer's oldest posted
 * task, which its own PE then reports.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "../core/sd_core.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.fastpath);

struct sd_comch_fp *
sd_comch_fp_get(struct doca_comch_connection *conn)
{
	if (conn->fp == NULL) {
		conn->fp = calloc(1, sizeof(*conn->fp));
		if (conn->fp == NULL) {
			DOCA_LOG_ERR("Comch fast path: out of memory; free memory and retry");
			return NULL;
		}
		sd_list_init(&conn->fp->local_consumers);
		sd_list_init(&conn->fp->remote_consumers);
		sd_list_init(&conn->fp->gone_consumers);
	}
	return conn->fp;
}

struct sd_comch_remote_consumer *
sd_comch_fp_remote(struct doca_comch_connection *conn, uint32_t id)
{
	struct sd_list *elem;

	if (conn->fp == NULL)
		return NULL;
	sd_list_for_each(elem, &conn->fp->remote_consumers)
	{
		struct sd_comch_remote_consumer *rc = sd_container_of(elem, struct sd_comch_remote_consumer, link);

		if (rc->id == id)
			return rc;
	}
	return NULL;
}

static struct doca_comch_consumer *
local_consumer(struct doca_comch_connection *conn, uint32_t id)
{
	struct sd_list *elem;

	if (conn->fp == NULL)
		return NULL;
	sd_list_for_each(elem, &conn->fp->local_consumers)
	{
		struct doca_comch_consumer *c = sd_container_of(elem, struct doca_comch_consumer, link);

		if (c->id == id)
			return c;
	}
	return NULL;
}

doca_error_t
sd_comch_fp_read_ring(const struct doca_comch_connection *conn, const struct sd_comch_remote_consumer *rc,
		      struct sd_comch_ring_view *v, const char **reason)
{
	const struct sd_comch_consumer_info *ci = &rc->info;
	uint64_t ring_len = sizeof(struct sd_comch_ring) + (uint64_t)ci->ring_cap * sizeof(struct sd_comch_ring_slot);
	uint64_t slot_addr = ci->ring_addr + sizeof(struct sd_comch_ring) +
			     (rc->consumed & (ci->ring_cap - 1)) * sizeof(struct sd_comch_ring_slot);
	struct iovec local[4] = {
		{&v->ring_rec, sizeof(v->ring_rec)},
		{&v->buf_rec, sizeof(v->buf_rec)},
		{&v->posted, sizeof(v->posted)},
		{&v->slot, sizeof(v->slot)},
	};
	struct iovec remote[4] = {
		{(void *)(uintptr_t)ci->ring.rec_addr, sizeof(v->ring_rec)},
		{(void *)(uintptr_t)ci->buf.rec_addr, sizeof(v->buf_rec)},
		{(void *)(uintptr_t)ci->ring_addr, sizeof(v->posted)},
		{(void *)(uintptr_t)slot_addr, sizeof(v->slot)},
	};
	size_t len = sizeof(v->ring_rec) + sizeof(v->buf_rec) + sizeof(v->posted) + sizeof(v->slot);
	doca_error_t err;

	v->flag_grant = false;
	v->staged = false;
	/* Both records, the posted count and the next slot in one system call, from the connected process. */
	err = sd_xproc_copy(&conn->peer, false, local, 4, remote, 4, len, reason);
	if (err == DOCA_ERROR_DRIVER) {
		/* Which address did not hold? A consumer that went away revoked its ring first. */
		err = sd_xproc_rec_fetch(&conn->peer, &ci->ring, &v->ring_rec, reason);
		if (err == DOCA_SUCCESS && v->ring_rec.magic == SD_XPROC_REC_MAGIC && v->ring_rec.live == 0)
			return DOCA_ERROR_NOT_CONNECTED;
		*reason = "an address the consumer announced is not mapped in its process";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (err != DOCA_SUCCESS)
		return err == DOCA_ERROR_NOT_FOUND ? DOCA_ERROR_NOT_CONNECTED : err;
	/* A revoked grant is a consumer that stopped; a bad one a peer breaking the rules. */
	if (v->ring_rec.magic == SD_XPROC_REC_MAGIC && v->ring_rec.live == 0)
		return DOCA_ERROR_NOT_CONNECTED;
	err = sd_xproc_rec_check(&v->ring_rec, &ci->ring, ci->ring_addr, ring_len, SD_XPROC_READ, reason);
	if (err == DOCA_SUCCESS && v->buf_rec.magic == SD_XPROC_REC_MAGIC && v->buf_rec.live == 0)
		return DOCA_ERROR_NOT_CONNECTED;
	if (err == DOCA_SUCCESS)
		err = sd_xproc_rec_check(&v->buf_rec, &ci->buf, v->buf_rec.addr, 0, SD_XPROC_WRITE, reason);
	return err;
}

doca_error_t
sd_comch_fp_slot_check(const struct sd_comch_remote_consumer *rc, const struct sd_comch_ring_view *v, size_t len,
		       const char **reason)
{
	/* Staged: the slot's address is never used (the consumer copies into its own task's buffer). */
	if (v->staged && len > v->slot.len) {
		*reason = "the data does not fit the consumer's posted buffer";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (v->staged)
		return DOCA_SUCCESS;
	return sd_comch_shring_check(&v->buf_rec, &rc->info.buf, &v->slot, len, reason);
}

doca_error_t
sd_comch_fp_read_shared(const struct doca_comch_connection *conn, const struct sd_comch_remote_consumer *rc, size_t len,
			struct sd_comch_ring_view *v, const char **reason)
{
	const char *ring_reason = "";
	doca_error_t taken, err;

	v->staged = false;
	taken = sd_comch_shring_take(rc->shared, rc->info.ring_cap, rc->consumed, &v->slot, &ring_reason);
	if (taken == DOCA_ERROR_AGAIN)
		return taken; /* nothing posted: no system call */
	v->posted = rc->consumed + 1;
	/* Mapped buffers the consumer still grants: no system call (comch_mapped.c). */
	v->flag_grant = taken == DOCA_SUCCESS && sd_comch_mapped_grant(rc, &v->buf_rec);
	if (v->flag_grant)
		return DOCA_SUCCESS;
	/* Private buffers: the message goes to the ring's staging area, no system call (comch_staged.c). */
	v->staged = taken == DOCA_SUCCESS && sd_comch_staged_take(rc, len, &v->stage_at);
	if (v->staged)
		return DOCA_SUCCESS;
	/* Else the grant is read through the kernel right before the copy (xproc.h rule 3). */
	err = sd_xproc_rec_fetch(&conn->peer, &rc->info.buf, &v->buf_rec, reason);
	if (err == DOCA_ERROR_NOT_FOUND)
		return DOCA_ERROR_NOT_CONNECTED;
	if (err == DOCA_SUCCESS && v->buf_rec.magic == SD_XPROC_REC_MAGIC && v->buf_rec.live == 0)
		return DOCA_ERROR_NOT_CONNECTED; /* revoked: the consumer stopped (and may have reset its ring) */
	if (err == DOCA_SUCCESS && taken != DOCA_SUCCESS) {
		*reason = ring_reason;
		return taken;
	}
	return err;
}

/* Map the ring the peer passed with CONSUMER_NEW; without one (or a bad one) rc reads the ring via the kernel. */
static void
consumer_map(struct doca_comch_connection *conn, struct sd_comch_remote_consumer *rc, int pass_fd)
{
	const char *reason = "";

	if (pass_fd < 0)
		return;
	rc->shared = sd_comch_shring_map(pass_fd, rc->info.ring_cap, &rc->staged, &reason);
	rc->stage_use = rc->staged && sd_comch_staged_offer();
	if (rc->shared == NULL)
		DOCA_LOG_WARN("Comch peer (pid %d) passed a shared ring for consumer %u that is refused: %s; its "
			      "producers read the ring through the kernel instead",
			      (int)conn->peer.pid, rc->id, reason);
	sd_comch_close_fd(&pass_fd);
}

/* rc left the peer's consumers (unlinked): freed, or kept on gone_consumers while staged sends to it are pending. */
static void
remote_free(struct sd_comch_fp *fp, struct sd_comch_remote_consumer *rc)
{
	sd_comch_mapped_drop(rc);
	if (rc->pending != 0 && rc->shared != NULL)
		rc->gone_freed = sd_comch_shring_stage_freed(rc->shared, rc->info.ring_cap);
	sd_comch_shring_unmap(rc->shared, rc->info.ring_cap, rc->staged);
	rc->shared = NULL;
	if (rc->pending != 0) {
		rc->gone = true;
		sd_list_insert_tail(&fp->gone_consumers, &rc->link);
		return;
	}
	free(rc);
}

/* A consumer the peer announces must name a ring and buffers its own process granted. */
unsigned
sd_comch_fp_consumer_new(struct doca_comch_connection *conn, const struct sd_comch_msg *m, int pass_fd)
{
	struct sd_comch_fp *fp = sd_comch_fp_get(conn);
	struct sd_comch_remote_consumer *rc;
	struct sd_comch_ring_view v;
	const char *reason = "";
	doca_error_t err;

	if (fp == NULL || sd_comch_fp_remote(conn, m->arg) != NULL) {
		if (fp != NULL)
			DOCA_LOG_ERR("Comch peer announced consumer %u twice; ignored", m->arg);
		sd_comch_close_fd(&pass_fd);
		return 0;
	}
	rc = calloc(1, sizeof(*rc));
	if (rc == NULL) {
		DOCA_LOG_ERR("Comch fast path: out of memory; consumer %u is lost", m->arg);
		sd_comch_close_fd(&pass_fd);
		return 0;
	}
	rc->id = m->arg;
	rc->info = m->u.consumer;
	err = sd_comch_fp_read_ring(conn, rc, &v, &reason);
	if (err != DOCA_SUCCESS && err != DOCA_ERROR_NOT_CONNECTED) {
		DOCA_LOG_ERR("Comch peer (pid %d) announced consumer %u that its process did not grant: %s; closing "
			     "the connection",
			     (int)conn->peer.pid, m->arg, reason);
		free(rc);
		sd_comch_close_fd(&pass_fd);
		sd_comch_conn_fail(conn);
		return 0;
	}
	consumer_map(conn, rc, pass_fd);
	sd_list_insert_tail(&fp->remote_consumers, &rc->link);
	sd_comch_ep_queue_event(conn->ep, SD_COMCH_EV_CONSUMER_NEW, conn, rc->id);
	return 0;
}

/* Bytes after a buf's data (what post_recv offered the producer); *data_len its data now. */
static size_t
tail_room(const struct doca_buf *buf, size_t *data_len)
{
	void *head = NULL, *data = NULL;
	size_t head_len = 0;

	(void)doca_buf_get_head(buf, &head);
	(void)doca_buf_get_len(buf, &head_len);
	(void)doca_buf_get_data(buf, &data);
	(void)doca_buf_get_data_len(buf, data_len);
	return (size_t)((uintptr_t)head + head_len - (uintptr_t)data - *data_len);
}

/*
 * The producer filled c's oldest posted buffer (d, imm), or staged its bytes
 * (st, checked; NULL for a FP_DATA record): complete that task; -1 when the peer
 * broke a rule.
 */
static int
posted_filled(struct doca_comch_consumer *c, const struct sd_comch_fp_data *d, const uint8_t *imm,
	      const struct sd_comch_staged *st)
{
	struct doca_comch_consumer_task_post_recv *t, **slot;
	size_t len = 0, room = 0;
	void *data = NULL;

	slot = &c->slots[c->arrived & (c->cap - 1)];
	t = *slot;
	if (t == NULL) {
		/* The program freed this receive: the bytes are in its memory (or dropped), nobody is told. */
		if (st != NULL && st->staged)
			sd_comch_staged_drop(c, st);
		c->arrived++;
		DOCA_LOG_DBG("Comch consumer %u: %llu bytes arrived for a posted task the program freed; discarded",
			     c->id, (unsigned long long)d->len);
		return 0;
	}
	room = tail_room(t->buf, &len);
	if (d->len > room) {
		DOCA_LOG_ERR("Comch peer says it wrote %llu bytes into consumer %u's buffer of %zu free bytes; closing "
			     "the connection",
			     (unsigned long long)d->len, c->id, room);
		sd_comch_conn_fail(c->conn);
		return -1;
	}
	if (st != NULL && st->staged) {
		(void)doca_buf_get_data(t->buf, &data);
		sd_comch_staged_copy_out(c, st, (uint8_t *)data + len, d->len);
	}
	*slot = NULL;
	c->arrived++;
	t->producer_id = d->producer_id;
	t->imm_len = d->imm_len;
	memcpy(t->imm, imm, d->imm_len);
	(void)doca_buf_set_data_len(t->buf, len + d->len);
	sd_task_complete(&t->task, DOCA_SUCCESS);
	sd_pe_wake(sd_ctx_pe(&c->ctx));
	return 1;
}

static unsigned
data_arrived(struct doca_comch_connection *conn, const struct sd_comch_msg *m)
{
	struct doca_comch_consumer *c = local_consumer(conn, m->arg);

	if (c == NULL || c->arrived == c->posted) {
		DOCA_LOG_ERR("Comch peer sent data to consumer %u, which has no posted buffer; dropped", m->arg);
		return 0;
	}
	return posted_filled(c, &m->u.data, m->imm, NULL) > 0 ? 1 : 0;
}

unsigned
sd_comch_fp_reap(struct doca_comch_consumer *c)
{
	uint8_t imm[SD_COMCH_MAX_IMM];
	struct sd_comch_staged st;
	struct sd_comch_fp_data d;
	const char *reason = "";
	unsigned n = 0;
	uint64_t done;
	int r;

	if (!c->shared || !c->announced)
		return 0;
	done = sd_comch_shring_done(c->ring, c->cap);
	if (done == c->arrived)
		return 0;
	if (done - c->arrived > c->posted - c->arrived) {
		DOCA_LOG_ERR("Comch peer (pid %d) completed %llu receives of consumer %u, which has %llu posted; "
			     "closing the connection",
			     (int)c->conn->peer.pid, (unsigned long long)(done - c->arrived), c->id,
			     (unsigned long long)(c->posted - c->arrived));
		sd_comch_conn_fail(c->conn);
		return 0;
	}
	while (c->arrived != done) {
		if (sd_comch_shring_comp_get(c->ring, c->cap, c->staged, c->arrived, &d, imm, &st, &reason) !=
		    DOCA_SUCCESS) {
			DOCA_LOG_ERR("Comch peer (pid %d) broke consumer %u's shared ring: %s; closing the connection",
				     (int)c->conn->peer.pid, c->id, reason);
			sd_comch_conn_fail(c->conn);
			break;
		}
		r = posted_filled(c, &d, imm, &st);
		if (r < 0)
			break;
		n += (unsigned)r;
	}
	return n;
}

unsigned
sd_comch_fp_reap_conn(struct doca_comch_connection *conn)
{
	struct sd_list *elem, *next;
	unsigned n = 0;

	if (conn->fp == NULL)
		return 0;
	sd_list_for_each_safe(elem, next, &conn->fp->local_consumers)
	{
		n += sd_comch_fp_reap(sd_container_of(elem, struct doca_comch_consumer, link));
	}
	return n;
}

unsigned
sd_comch_fp_record(struct doca_comch_connection *conn, const struct sd_comch_msg *m)
{
	struct sd_comch_fp *fp = sd_comch_fp_get(conn);
	struct sd_comch_remote_consumer *rc;

	if (fp == NULL)
		return 0;
	switch (m->type) {
	case SD_COMCH_CONSUMER_GONE:
		rc = sd_comch_fp_remote(conn, m->arg);
		if (rc == NULL)
			return 0;
		sd_list_del(&rc->link);
		remote_free(fp, rc);
		sd_comch_ep_queue_event(conn->ep, SD_COMCH_EV_CONSUMER_GONE, conn, m->arg);
		return 0;
	case SD_COMCH_FP_DATA:
		return data_arrived(conn, m);
	case SD_COMCH_FP_DOORBELL:
		/* The ring was reaped before this record (sd_comch_conn_poll), which woke the consumer's PE. */
		return 0;
	default:
		return 0;
	}
}

void
sd_comch_fp_conn_closed(struct doca_comch_connection *conn)
{
	struct sd_list *elem, *next;

	if (conn->fp == NULL)
		return;
	/* Nothing more will arrive: the consumers' contexts fail, which flushes their posts (and unlinks them). */
	sd_list_for_each_safe(elem, next, &conn->fp->local_consumers)
		sd_ctx_fail(&sd_container_of(elem, struct doca_comch_consumer, link)->ctx);
}

void
sd_comch_fp_conn_free(struct doca_comch_connection *conn)
{
	struct sd_list *elem;

	if (conn->fp == NULL)
		return;
	while ((elem = sd_list_pop_head(&conn->fp->remote_consumers)) != NULL)
		remote_free(conn->fp, sd_container_of(elem, struct sd_comch_remote_consumer, link));
	/* Every producer is gone (fp_users): no staged send still points at these. */
	while ((elem = sd_list_pop_head(&conn->fp->gone_consumers)) != NULL)
		free(sd_container_of(elem, struct sd_comch_remote_consumer, link));
	while (!sd_list_empty(&conn->fp->local_consumers))
		sd_comch_consumer_unannounce(
			sd_container_of(conn->fp->local_consumers.next, struct doca_comch_consumer, link));
	free(conn->fp);
	conn->fp = NULL;
}

void
sd_comch_fp_user_put(struct doca_comch_connection *conn)
{
	struct sd_comch_ep *ep = conn->ep;

	/* The connection outlives its producers and consumers (server side: freed now if it ended). */
	if (--conn->fp_users != 0 || !conn->release || conn->pending_events != 0)
		return;
	if (ep == NULL) {
		/* Orphaned by its server's stop (comch_server.c). */
		sd_comch_fp_conn_free(conn);
		free(conn);
	} else if (ep->conn_release != NULL) {
		ep->conn_release(ep, conn);
	}
}
