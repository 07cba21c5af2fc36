/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Comch fast path, receiving side: a consumer, created on an established
 * Comch connection with an mmap holding its receive buffers, posts doca_bufs; the
 * producer on the other side fills them.
 *
 * Call order
 *   doca_comch_consumer_create(connection, buf_mmap, &c); doca_pe_connect_ctx(pe, ..._as_ctx(c))
 *   doca_comch_consumer_task_post_recv_set_conf(c, ok_cb, err_cb, n)   while IDLE
 *   doca_ctx_start() -> IN_PROGRESS; STARTING, then RUNNING from doca_pe_progress() once
 *   the peer was told: the peer's client/server then raises its new-consumer event
 *   with this consumer's id
 *   doca_comch_consumer_task_post_recv_alloc_init(c, buf, &t); doca_task_submit()
 *   completion: buf's data length grew by the bytes received (written at its data end);
 *   the producer id and immediate data are in the task.  The bytes arrive with the
 *   connection's records, so the connection's PE must be progressed too.
 *   Destroying (stopping) the consumer raises the expired-consumer event on the peer.
 */
#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

#include <stdint.h>

#include <doca_buf.h>
#include <doca_comch.h>
#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_comch_consumer;
struct doca_comch_consumer_task_post_recv;

typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(struct doca_comch_consumer_task_post_recv *task,
								   union doca_data task_user_data,
								   union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
									 uint32_t *max_num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
									uint32_t *max_buf_size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_buf_list_len);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
									 uint32_t *max_consumers);
/* Largest immediate data a producer may attach (32). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_imm_data_len);

/*
 * Create a consumer on an open connection; every posted buffer must be in buf_mmap.
 * Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE if the connection is not open; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
							  struct doca_mmap *buf_mmap,
							  struct doca_comch_consumer **consumer);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);
/* IDLE only (BAD_STATE); at most doca_comch_consumer_cap_get_max_imm_data_len() (INVALID_VALUE). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
								    uint32_t imm_data_len);
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
								    uint32_t *imm_data_len);

DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks);
/* A task posting buf (its room after the data end receives).  NO_MEMORY when every task is allocated. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_task_post_recv_alloc_init(
	struct doca_comch_consumer *consumer, struct doca_buf *buf, struct doca_comch_consumer_task_post_recv **task);
DOCA_EXPERIMENTAL struct doca_buf *
doca_comch_consumer_task_post_recv_get_buf(struct doca_comch_consumer_task_post_recv *task);
DOCA_EXPERIMENTAL void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
								  struct doca_buf *buf);
/* 0 until the task completed successfully. */
DOCA_EXPERIMENTAL uint32_t
doca_comch_consumer_task_post_recv_get_producer_id(struct doca_comch_consumer_task_post_recv *task);
DOCA_EXPERIMENTAL uint8_t *
doca_comch_consumer_task_post_recv_get_imm_data(struct doca_comch_consumer_task_post_recv *task);
DOCA_EXPERIMENTAL uint32_t
doca_comch_consumer_task_post_recv_get_imm_data_len(struct doca_comch_consumer_task_post_recv *task);
DOCA_EXPERIMENTAL struct doca_task *
doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
