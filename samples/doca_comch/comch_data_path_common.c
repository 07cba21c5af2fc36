/* SPDX-License-Identifier: BSD-3-Clause */
/* The consumer and producer halves of the data-path samples. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "comch_data_path_common.h"

DOCA_LOG_REGISTER(COMCH_DATA_PATH);

void
data_path_new_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
{
	(void)event;
	data_path_of_conn(conn)->remote_consumer_id = id;
}

void
data_path_expired_consumer(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
{
	(void)event;
	(void)conn;
	(void)id;
}

struct fp_state {
	struct data_path *dp;
	struct doca_ctx *ctx;
	struct doca_pe *pe;
	bool done; /* the task completed (either way) */
	bool idle;
	doca_error_t result;
	char what; /* 'c' consumer, 'p' producer: which lines to print */
};

static void
fp_state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct fp_state *st = ud.ptr;
	const char *name = st->what == 'c' ? "consumer" : "producer";

	(void)ctx;
	(void)prev;
	switch (next) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("CC %s context has been stopped", name);
		st->idle = true;
		break;
	case DOCA_CTX_STATE_STARTING:
		if (st->what == 'c')
			DOCA_LOG_INFO("CC consumer context entered into starting state. Waiting consumer producer "
				      "negotiation finish");
		else
			DOCA_LOG_ERR("CC producer context entered into starting state. Unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		if (st->what == 'c')
			DOCA_LOG_INFO(
				"CC consumer context is running. Receiving message from producer, waiting finish");
		else
			DOCA_LOG_INFO("CC producer context is running. Posting message to consumer, waiting finish");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("CC %s context entered into stopping state. Waiting to finish", name);
		break;
	default:
		break;
	}
}

static void
recv_done(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	size_t len = 0;
	void *data = NULL;

	(void)task_ud;
	(void)doca_buf_get_data(buf, &data);
	(void)doca_buf_get_data_len(buf, &len);
	DOCA_LOG_INFO("Message received: '%.*s'", (int)len, (const char *)data);
	st->result = DOCA_SUCCESS;
	st->done = true;
	doca_buf_dec_refcount(buf, NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
	(void)doca_ctx_stop(st->ctx);
}

static void
recv_failed(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->result = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task));
	DOCA_LOG_ERR("Consumer task failed with error = %s", doca_error_get_name(st->result));
	st->done = true;
	doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(task), NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
	(void)doca_ctx_stop(st->ctx);
}

static void
send_done(struct doca_comch_producer_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;

	(void)task_ud;
	DOCA_LOG_INFO("Producer task sent successfully");
	st->result = DOCA_SUCCESS;
	st->done = true;
	doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(task), NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	(void)doca_ctx_stop(st->ctx);
}

static void
send_failed(struct doca_comch_producer_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct fp_state *st = ctx_ud.ptr;

	(void)task_ud;
	st->result = doca_task_get_status(doca_comch_producer_task_send_as_task(task));
	DOCA_LOG_ERR("Producer task failed with error = %s", doca_error_get_name(st->result));
	st->done = true;
	doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(task), NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	(void)doca_ctx_stop(st->ctx);
}

/* Progress the connection's PE and the fast-path PE until the fast-path context is IDLE again. */
static void
progress_until_idle(struct fp_state *st)
{
	while (!st->idle) {
		uint8_t a = doca_pe_progress(st->dp->conn_pe);
		uint8_t b = doca_pe_progress(st->pe);

		if (a == 0 && b == 0)
			usleep(10);
	}
}

/* An mmap over a 1 MiB buffer and an inventory of one buffer. */
static doca_error_t
make_memory(struct doca_dev *dev, void **mem, struct doca_mmap **mmap, struct doca_buf_inventory **inv)
{
	doca_error_t r;

	*mem = calloc(1, DATA_PATH_BUF_SIZE);
	if (*mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = doca_mmap_create(mmap);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_add_dev(*mmap, dev);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_memrange(*mmap, *mem, DATA_PATH_BUF_SIZE);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_permissions(*mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_start(*mmap);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_create(1, inv);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_start(*inv);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to prepare the data-path memory: %s", doca_error_get_descr(r));
	return r;
}

static void
free_memory(void *mem, struct doca_mmap *mmap, struct doca_buf_inventory *inv)
{
	if (inv != NULL)
		(void)doca_buf_inventory_destroy(inv);
	if (mmap != NULL)
		(void)doca_mmap_destroy(mmap);
	free(mem);
}

doca_error_t
data_path_receive(struct data_path *dp)
{
	struct fp_state st = {.dp = dp, .what = 'c', .result = DOCA_ERROR_UNKNOWN};
	struct doca_comch_consumer_task_post_recv *task;
	struct doca_comch_consumer *consumer = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *mmap = NULL;
	struct doca_buf *buf;
	void *mem = NULL;
	doca_error_t r;

	r = make_memory(dp->dev, &mem, &mmap, &inv);
	if (r != DOCA_SUCCESS)
		goto free_mem;
	r = doca_pe_create(&st.pe);
	if (r != DOCA_SUCCESS)
		goto free_mem;
	r = doca_comch_consumer_create(dp->conn, mmap, &consumer);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create consumer: %s", doca_error_get_descr(r));
		goto destroy_pe;
	}
	st.ctx = doca_comch_consumer_as_ctx(consumer);
	r = doca_pe_connect_ctx(st.pe, st.ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(st.ctx, fp_state_changed);
	if (r == DOCA_SUCCESS)
		r = doca_comch_consumer_task_post_recv_set_conf(consumer, recv_done, recv_failed, DATA_PATH_NUM_TASKS);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(st.ctx, (union doca_data){.ptr = &st});
	if (r != DOCA_SUCCESS)
		goto destroy_consumer;
	r = doca_ctx_start(st.ctx);
	if (r != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to start consumer context: %s", doca_error_get_descr(r));
		r = r == DOCA_SUCCESS ? DOCA_ERROR_BAD_STATE : r;
		goto destroy_consumer;
	}
	for (enum doca_ctx_states s = DOCA_CTX_STATE_STARTING; s == DOCA_CTX_STATE_STARTING;) {
		(void)doca_pe_progress(dp->conn_pe);
		(void)doca_pe_progress(st.pe);
		(void)doca_ctx_get_state(st.ctx, &s);
	}
	r = doca_buf_inventory_buf_get_by_addr(inv, mmap, mem, DATA_PATH_BUF_SIZE, &buf);
	if (r == DOCA_SUCCESS) {
		r = doca_comch_consumer_task_post_recv_alloc_init(consumer, buf, &task);
		if (r == DOCA_SUCCESS) {
			r = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
			if (r != DOCA_SUCCESS)
				doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		}
		if (r != DOCA_SUCCESS)
			doca_buf_dec_refcount(buf, NULL);
	}
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to post the receive buffer: %s", doca_error_get_descr(r));
		(void)doca_ctx_stop(st.ctx);
	}
	progress_until_idle(&st);
	if (r == DOCA_SUCCESS)
		r = st.result;
destroy_consumer:
	(void)doca_comch_consumer_destroy(consumer);
destroy_pe:
	(void)doca_pe_destroy(st.pe);
free_mem:
	free_memory(mem, mmap, inv);
	return r;
}

doca_error_t
data_path_send(struct data_path *dp, const char *text, uint32_t len)
{
	struct fp_state st = {.dp = dp, .what = 'p', .result = DOCA_ERROR_UNKNOWN};
	struct doca_comch_producer_task_send *task;
	struct doca_comch_producer *producer = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *mmap = NULL;
	struct doca_buf *buf;
	void *mem = NULL;
	doca_error_t r;

	while (dp->remote_consumer_id == 0)
		if (doca_pe_progress(dp->conn_pe) == 0)
			usleep(10);
	if (dp->remote_consumer_id == 0xffff)
		return DOCA_ERROR_CONNECTION_ABORTED;
	DOCA_LOG_INFO("Got a new remote consumer with ID = [%d]", (int)dp->remote_consumer_id);

	r = make_memory(dp->dev, &mem, &mmap, &inv);
	if (r != DOCA_SUCCESS)
		goto free_mem;
	memcpy(mem, text, len);
	r = doca_pe_create(&st.pe);
	if (r != DOCA_SUCCESS)
		goto free_mem;
	r = doca_comch_producer_create(dp->conn, &producer);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create producer: %s", doca_error_get_descr(r));
		goto destroy_pe;
	}
	st.ctx = doca_comch_producer_as_ctx(producer);
	r = doca_pe_connect_ctx(st.pe, st.ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_state_changed_cb(st.ctx, fp_state_changed);
	if (r == DOCA_SUCCESS)
		r = doca_comch_producer_task_send_set_conf(producer, send_done, send_failed, DATA_PATH_NUM_TASKS);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(st.ctx, (union doca_data){.ptr = &st});
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(st.ctx);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start producer context: %s", doca_error_get_descr(r));
		goto destroy_producer;
	}
	r = doca_buf_inventory_buf_get_by_data(inv, mmap, mem, len, &buf);
	if (r == DOCA_SUCCESS) {
		r = doca_comch_producer_task_send_alloc_init(producer, buf, NULL, 0, dp->remote_consumer_id, &task);
		if (r == DOCA_SUCCESS) {
			/* The consumer may not have posted yet: retry without progressing anything. */
			do {
				r = doca_task_submit(doca_comch_producer_task_send_as_task(task));
				if (r == DOCA_ERROR_AGAIN)
					usleep(10);
			} while (r == DOCA_ERROR_AGAIN);
			if (r != DOCA_SUCCESS)
				doca_task_free(doca_comch_producer_task_send_as_task(task));
		}
		if (r != DOCA_SUCCESS)
			doca_buf_dec_refcount(buf, NULL);
	}
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send with the producer: %s", doca_error_get_descr(r));
		(void)doca_ctx_stop(st.ctx);
	}
	progress_until_idle(&st);
	if (r == DOCA_SUCCESS)
		r = st.result;
	dp->remote_consumer_id = 0;
destroy_producer:
	(void)doca_comch_producer_destroy(producer);
destroy_pe:
	(void)doca_pe_destroy(st.pe);
free_mem:
	free_memory(mem, mmap, inv);
	return r;
}
