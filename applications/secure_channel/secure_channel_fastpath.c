/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure Channel's fast path: this side's consumer (receive buffers posted on
 * the connection, reposted as messages arrive until -n came) and producer
 * (messages written into the peer's posted buffers), both on the channel's PE.
 * The receive and send buffers are two separate mmaps: the peer may write into
 * the first only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "secure_channel_core.h"

DOCA_LOG_REGISTER(SECURE_CHANNEL::FASTPATH);

struct sc_fastpath {
	const struct sc_cfg *cfg;
	struct doca_pe *pe;
	uint32_t depth; /* buffers per direction */
	uint8_t *rx_mem, *tx_mem;
	struct doca_mmap *rx_mmap, *tx_mmap;
	struct doca_buf_inventory *inv;
	struct doca_comch_consumer *consumer;
	struct doca_comch_producer *producer;
	uint32_t peer_consumer; /* 0 until the peer's consumer appeared */
	uint32_t free_tx[SC_MAX_DEPTH];
	uint32_t num_free_tx;
	uint32_t submitted, sent, posted, received;
	double start_ms, sent_ms, received_ms;
	bool started, stopping, failed;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct sc_fastpath *
fp_of(union doca_data ctx_user_data)
{
	return ctx_user_data.ptr;
}

/* --- receiving ------------------------------------------------------------------ */

/* Is the data of buf message number i of the peer, whole and intact? */
static bool
message_intact(const struct sc_fastpath *fp, struct doca_buf *buf, uint32_t i)
{
	const uint8_t *data = NULL;
	size_t len = 0;

	(void)doca_buf_get_data(buf, (void **)&data);
	(void)doca_buf_get_data_len(buf, &len);
	if (len != fp->cfg->msg_size) {
		DOCA_LOG_ERR("Message %" PRIu32 " from the other side has %zu bytes, not %" PRIu32, i, len,
			     fp->cfg->msg_size);
		return false;
	}
	for (uint32_t j = 0; j < len; j++)
		if (data[j] != sc_pattern(i, j, !fp->cfg->is_dpu)) {
			DOCA_LOG_ERR("Message %" PRIu32
				     " from the other side differs from what was sent at byte %" PRIu32
				     " (0x%02x, expected 0x%02x): out of order or corrupted",
				     i, j, data[j], sc_pattern(i, j, !fp->cfg->is_dpu));
			return false;
		}
	return true;
}

static doca_error_t
post_recv(struct sc_fastpath *fp, struct doca_comch_consumer_task_post_recv *task)
{
	doca_error_t r = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));

	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to post a receive buffer: %s", doca_error_get_descr(r));
	else
		fp->posted++;
	return r;
}

static void
recv_done(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct sc_fastpath *fp = fp_of(ctx_ud);
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);

	(void)task_ud;
	/* The peer may start before we do: the exchange starts with whichever comes first. */
	if (fp->start_ms == 0)
		fp->start_ms = now_ms();
	if (!message_intact(fp, buf, fp->received))
		fp->failed = true;
	if (++fp->received == fp->cfg->num_msgs)
		fp->received_ms = now_ms();
	/* The same buffer, emptied, for a message still to come. */
	if (!fp->failed && fp->posted < fp->cfg->num_msgs && doca_buf_reset_data_len(buf) == DOCA_SUCCESS &&
	    post_recv(fp, task) == DOCA_SUCCESS)
		return;
	doca_buf_dec_refcount(buf, NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void
recv_failed(struct doca_comch_consumer_task_post_recv *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct sc_fastpath *fp = fp_of(ctx_ud);
	struct doca_task *t = doca_comch_consumer_task_post_recv_as_task(task);

	(void)task_ud;
	/* A buffer still posted when the consumer stops is flushed: expected only after a failure. */
	if (!fp->stopping && !fp->failed)
		DOCA_LOG_ERR("Consumer failed to receive a message: %s", doca_error_get_descr(doca_task_get_status(t)));
	if (!fp->stopping)
		fp->failed = true;
	doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(task), NULL);
	doca_task_free(t);
}

/* --- sending ---------------------------------------------------------------------- */

static void
send_release(struct sc_fastpath *fp, struct doca_comch_producer_task_send *task, union doca_data task_ud)
{
	doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(task), NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	fp->free_tx[fp->num_free_tx++] = (uint32_t)task_ud.u64;
}

static void
send_done(struct doca_comch_producer_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct sc_fastpath *fp = fp_of(ctx_ud);

	send_release(fp, task, task_ud);
	if (++fp->sent == fp->cfg->num_msgs)
		fp->sent_ms = now_ms();
}

static void
send_failed(struct doca_comch_producer_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct sc_fastpath *fp = fp_of(ctx_ud);

	/* the first failure says why; the sends in flight behind it are flushed with it */
	if (!fp->failed)
		DOCA_LOG_ERR("Producer failed to send a message: %s",
			     doca_error_get_descr(doca_task_get_status(doca_comch_producer_task_send_as_task(task))));
	fp->failed = true;
	send_release(fp, task, task_ud);
}

/* Send message number fp->submitted from a free send buffer: SUCCESS, AGAIN (nothing posted yet) or a failure. */
static doca_error_t
send_next(struct sc_fastpath *fp)
{
	uint32_t slot = fp->free_tx[fp->num_free_tx - 1], size = fp->cfg->msg_size;
	uint8_t *mem = fp->tx_mem + (size_t)slot * size;
	struct doca_comch_producer_task_send *task;
	struct doca_buf *buf;
	doca_error_t r;

	for (uint32_t j = 0; j < size; j++)
		mem[j] = sc_pattern(fp->submitted, j, fp->cfg->is_dpu);
	r = doca_buf_inventory_buf_get_by_data(fp->inv, fp->tx_mmap, mem, size, &buf);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_comch_producer_task_send_alloc_init(fp->producer, buf, NULL, 0, fp->peer_consumer, &task);
	if (r != DOCA_SUCCESS) {
		doca_buf_dec_refcount(buf, NULL);
		return r;
	}
	doca_task_set_user_data(doca_comch_producer_task_send_as_task(task), (union doca_data){.u64 = slot});
	r = doca_task_submit(doca_comch_producer_task_send_as_task(task));
	if (r != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(task));
		doca_buf_dec_refcount(buf, NULL);
		return r;
	}
	fp->num_free_tx--;
	fp->submitted++;
	return DOCA_SUCCESS;
}

bool
sc_fastpath_push(struct sc_fastpath *fp)
{
	if (fp->peer_consumer == 0 || fp->failed)
		return !fp->failed;
	if (!fp->started) {
		fp->started = true;
		if (fp->start_ms == 0)
			fp->start_ms = now_ms();
	}
	while (fp->submitted < fp->cfg->num_msgs && fp->num_free_tx != 0) {
		doca_error_t r = send_next(fp);

		if (r == DOCA_ERROR_AGAIN)
			break; /* the peer has not posted a buffer yet: retry after progress */
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Producer failed to send message %" PRIu32 ": %s", fp->submitted,
				     doca_error_get_descr(r));
			fp->failed = true;
		}
	}
	return !fp->failed;
}

/* --- setup and teardown ------------------------------------------------------------- */

static doca_error_t
make_mmap(struct doca_dev *dev, uint8_t *mem, size_t len, struct doca_mmap **mmap)
{
	doca_error_t r = doca_mmap_create(mmap);

	if (r != DOCA_SUCCESS)
		return r;
	r = doca_mmap_add_dev(*mmap, dev);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_memrange(*mmap, mem, len);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_set_permissions(*mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (r == DOCA_SUCCESS)
		r = doca_mmap_start(*mmap);
	if (r != DOCA_SUCCESS) {
		(void)doca_mmap_destroy(*mmap);
		*mmap = NULL;
	}
	return r;
}

static doca_error_t
make_memory(struct sc_fastpath *fp, struct doca_dev *dev)
{
	size_t len = (size_t)fp->depth * fp->cfg->msg_size;
	doca_error_t r;

	fp->rx_mem = calloc(1, len);
	fp->tx_mem = calloc(1, len);
	if (fp->rx_mem == NULL || fp->tx_mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = make_mmap(dev, fp->rx_mem, len, &fp->rx_mmap);
	if (r == DOCA_SUCCESS)
		r = make_mmap(dev, fp->tx_mem, len, &fp->tx_mmap);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_create(2 * fp->depth, &fp->inv);
	if (r == DOCA_SUCCESS)
		r = doca_buf_inventory_start(fp->inv);
	return r;
}

/* Progress until ctx is in state want; false if it ended IDLE instead. */
static bool
progress_until_state(struct sc_fastpath *fp, struct doca_ctx *ctx, enum doca_ctx_states want)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_STARTING;

	for (;;) {
		if (doca_ctx_get_state(ctx, &st) != DOCA_SUCCESS)
			return false;
		if (st == want)
			return true;
		if (st == DOCA_CTX_STATE_IDLE)
			return false;
		if (doca_pe_progress(fp->pe) == 0)
			usleep(10);
	}
}

static doca_error_t
start_consumer(struct sc_fastpath *fp, struct doca_comch_connection *conn)
{
	struct doca_ctx *ctx;
	doca_error_t r = doca_comch_consumer_create(conn, fp->rx_mmap, &fp->consumer);

	if (r != DOCA_SUCCESS)
		return r;
	ctx = doca_comch_consumer_as_ctx(fp->consumer);
	r = doca_pe_connect_ctx(fp->pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = fp});
	if (r == DOCA_SUCCESS)
		r = doca_comch_consumer_task_post_recv_set_conf(fp->consumer, recv_done, recv_failed, fp->depth);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_ctx_start(ctx);
	if (r != DOCA_ERROR_IN_PROGRESS && r != DOCA_SUCCESS)
		return r;
	if (!progress_until_state(fp, ctx, DOCA_CTX_STATE_RUNNING))
		return DOCA_ERROR_NOT_CONNECTED;
	for (uint32_t i = 0; i < fp->depth; i++) {
		struct doca_comch_consumer_task_post_recv *task;
		struct doca_buf *buf;

		r = doca_buf_inventory_buf_get_by_addr(fp->inv, fp->rx_mmap, fp->rx_mem + (size_t)i * fp->cfg->msg_size,
						       fp->cfg->msg_size, &buf);
		if (r != DOCA_SUCCESS)
			return r;
		r = doca_comch_consumer_task_post_recv_alloc_init(fp->consumer, buf, &task);
		if (r == DOCA_SUCCESS) {
			r = post_recv(fp, task);
			if (r != DOCA_SUCCESS)
				doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		}
		if (r != DOCA_SUCCESS) {
			doca_buf_dec_refcount(buf, NULL);
			return r;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t
start_producer(struct sc_fastpath *fp, struct doca_comch_connection *conn)
{
	struct doca_ctx *ctx;
	doca_error_t r = doca_comch_producer_create(conn, &fp->producer);

	if (r != DOCA_SUCCESS)
		return r;
	ctx = doca_comch_producer_as_ctx(fp->producer);
	r = doca_pe_connect_ctx(fp->pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = fp});
	if (r == DOCA_SUCCESS)
		r = doca_comch_producer_task_send_set_conf(fp->producer, send_done, send_failed, fp->depth);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(ctx);
	return r;
}

doca_error_t
sc_fastpath_create(const struct sc_cfg *cfg, struct doca_dev *dev, struct doca_pe *pe,
		   struct doca_comch_connection *conn, struct sc_fastpath **out)
{
	struct sc_fastpath *fp = calloc(1, sizeof(*fp));
	uint32_t by_bytes = SC_DEPTH_BYTES / cfg->msg_size;
	doca_error_t r;

	if (fp == NULL)
		return DOCA_ERROR_NO_MEMORY;
	fp->cfg = cfg;
	fp->pe = pe;
	/* As many buffers as fit the budget, at least one, never more than messages. */
	fp->depth = SC_MAX_DEPTH;
	if (by_bytes < fp->depth)
		fp->depth = by_bytes != 0 ? by_bytes : 1;
	if (cfg->num_msgs < fp->depth)
		fp->depth = cfg->num_msgs;
	for (uint32_t i = 0; i < fp->depth; i++)
		fp->free_tx[fp->num_free_tx++] = i;
	r = make_memory(fp, dev);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to prepare %" PRIu32 " buffers of %" PRIu32 " bytes: %s", 2 * fp->depth,
			     cfg->msg_size, doca_error_get_descr(r));
		goto destroy;
	}
	r = start_consumer(fp, conn);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the consumer: %s", doca_error_get_descr(r));
		goto destroy;
	}
	r = start_producer(fp, conn);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the producer: %s", doca_error_get_descr(r));
		goto destroy;
	}
	*out = fp;
	return DOCA_SUCCESS;

destroy:
	sc_fastpath_destroy(fp);
	return r;
}

void
sc_fastpath_peer_consumer(struct sc_fastpath *fp, uint32_t id)
{
	fp->peer_consumer = id;
}

bool
sc_fastpath_sent_all(const struct sc_fastpath *fp)
{
	return fp->sent == fp->cfg->num_msgs;
}

bool
sc_fastpath_received_all(const struct sc_fastpath *fp)
{
	return fp->received == fp->cfg->num_msgs;
}

void
sc_fastpath_report(const struct sc_fastpath *fp)
{
	DOCA_LOG_INFO("Producer sent %" PRIu32 " messages in approximately %.4f milliseconds", fp->sent,
		      fp->sent_ms - fp->start_ms);
	DOCA_LOG_INFO("Consumer received %" PRIu32 " messages in approximately %.4f milliseconds", fp->received,
		      fp->received_ms - fp->start_ms);
}

/* Stop ctx (progressing until IDLE) and destroy it. */
static void
stop_ctx(struct sc_fastpath *fp, struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	if (doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE &&
	    doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS)
		(void)progress_until_state(fp, ctx, DOCA_CTX_STATE_IDLE);
}

void
sc_fastpath_destroy(struct sc_fastpath *fp)
{
	fp->stopping = true;
	if (fp->producer != NULL) {
		stop_ctx(fp, doca_comch_producer_as_ctx(fp->producer));
		(void)doca_comch_producer_destroy(fp->producer);
	}
	if (fp->consumer != NULL) {
		stop_ctx(fp, doca_comch_consumer_as_ctx(fp->consumer));
		(void)doca_comch_consumer_destroy(fp->consumer);
	}
	if (fp->inv != NULL)
		(void)doca_buf_inventory_destroy(fp->inv);
	if (fp->rx_mmap != NULL)
		(void)doca_mmap_destroy(fp->rx_mmap);
	if (fp->tx_mmap != NULL)
		(void)doca_mmap_destroy(fp->tx_mmap);
	free(fp->rx_mem);
	free(fp->tx_mem);
	free(fp);
}
