/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fast-path state of a connection: the consumers this side announced, the
 * consumers the peer announced (their post rings), and the records that
 * change them.  Records arrive through the connection's owner (client or
 * server) progress; a FP_DATA record completes the consumer's oldest posted
 * task, which its own PE then reports.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/sd_log.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.fastpath);

struct sd_comch_fp *
sd_comch_fp_get(struct doca_comch_connection *conn)
{
	if (conn->fp == NULL) {
		conn->fp = calloc(1, sizeof(*conn->fp));
		if (conn->fp == NULL) {
			DOCA_LOG_ERR("Comch fast path: out of memory");
			return NULL;
		}
		sd_list_init(&conn->fp->local_consumers);
		sd_list_init(&conn->fp->remote_consumers);
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

/* The producer filled the consumer's oldest posted buffer: complete that task. */
static unsigned
data_arrived(struct doca_comch_connection *conn, const struct sd_comch_msg *m)
{
	struct doca_comch_consumer *c = local_consumer(conn, m->arg);
	struct doca_comch_consumer_task_post_recv *t;
	struct sd_list *elem;
	size_t len;

	if (c == NULL || (elem = sd_list_pop_head(&c->posted)) == NULL) {
		DOCA_LOG_ERR("Comch peer sent data to consumer %u, which has no posted buffer; dropped", m->arg);
		return 0;
	}
	t = sd_container_of(elem, struct doca_comch_consumer_task_post_recv, task.link);
	sd_list_init(&t->task.link);
	t->producer_id = m->u.data.producer_id;
	t->imm_len = m->u.data.imm_len;
	memcpy(t->imm, m->imm, m->u.data.imm_len);
	(void)doca_buf_get_data_len(t->buf, &len);
	(void)doca_buf_set_data_len(t->buf, len + m->u.data.len);
	sd_task_complete(&t->task, DOCA_SUCCESS);
	sd_pe_wake(c->ctx.pe);
	return 1;
}

unsigned
sd_comch_fp_record(struct doca_comch_connection *conn, const struct sd_comch_msg *m)
{
	struct sd_comch_fp *fp = sd_comch_fp_get(conn);
	struct sd_comch_remote_consumer *rc;

	if (fp == NULL)
		return 0;
	switch (m->type) {
	case SD_COMCH_CONSUMER_NEW:
		if (sd_comch_fp_remote(conn, m->arg) != NULL) {
			DOCA_LOG_ERR("Comch peer announced consumer %u twice; ignored", m->arg);
			return 0;
		}
		rc = calloc(1, sizeof(*rc));
		if (rc == NULL) {
			DOCA_LOG_ERR("Comch fast path: out of memory; consumer %u is lost", m->arg);
			return 0;
		}
		rc->id = m->arg;
		rc->pid = m->u.consumer.pid;
		rc->cap = m->u.consumer.ring_cap;
		rc->ring_addr = m->u.consumer.ring_addr;
		sd_list_insert_tail(&fp->remote_consumers, &rc->link);
		sd_comch_ep_queue_event(conn->ep, SD_COMCH_EV_CONSUMER_NEW, conn, rc->id);
		return 0;
	case SD_COMCH_CONSUMER_GONE:
		rc = sd_comch_fp_remote(conn, m->arg);
		if (rc == NULL)
			return 0;
		sd_list_del(&rc->link);
		free(rc);
		sd_comch_ep_queue_event(conn->ep, SD_COMCH_EV_CONSUMER_GONE, conn, m->arg);
		return 0;
	case SD_COMCH_FP_DATA:
		return data_arrived(conn, m);
	default:
		return 0;
	}
}

void
sd_comch_fp_conn_closed(struct doca_comch_connection *conn)
{
	struct sd_list *elem;

	if (conn->fp == NULL)
		return;
	/* Nothing more will arrive: the consumers' contexts fail, which flushes their posts. */
	sd_list_for_each(elem, &conn->fp->local_consumers)
		sd_ctx_fail(&sd_container_of(elem, struct doca_comch_consumer, link)->ctx);
}

void
sd_comch_fp_conn_free(struct doca_comch_connection *conn)
{
	struct sd_list *elem;

	if (conn->fp == NULL)
		return;
	while ((elem = sd_list_pop_head(&conn->fp->remote_consumers)) != NULL)
		free(sd_container_of(elem, struct sd_comch_remote_consumer, link));
	while ((elem = sd_list_pop_head(&conn->fp->local_consumers)) != NULL) {
		struct doca_comch_consumer *c = sd_container_of(elem, struct doca_comch_consumer, link);

		sd_list_init(&c->link);
		c->announced = false;
	}
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
