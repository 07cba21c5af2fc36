/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Comch fast path, sending side: a producer, created on an established
 * Comch connection, sends doca_bufs (plus up to 32 bytes of immediate data) into
 * receive buffers posted by a consumer on the other side of that connection.
 *
 * Call order
 *   doca_comch_producer_create(connection, &p); doca_pe_connect_ctx(pe, ..._as_ctx(p))
 *   doca_comch_producer_task_send_set_conf(p, ok_cb, err_cb, n)       while IDLE
 *   doca_ctx_start() -> SUCCESS, RUNNING at once
 *   wait for the remote consumer's id (new-consumer event of the client/server)
 *   doca_comch_producer_task_send_alloc_init(p, buf, imm, imm_len, consumer_id, &t)
 *   doca_task_submit(): AGAIN while the consumer has no free posted buffer (it clears
 *   as soon as the consumer posts, without progress on this side); the bytes are in
 *   the consumer's buffer when the task completes.
 */
#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

#include <stdint.h>

#include <doca_buf.h>
#include <doca_comch.h>
#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_comch_producer;
struct doca_comch_producer_task_send;

typedef void (*doca_comch_producer_task_send_completion_cb_t)(struct doca_comch_producer_task_send *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* SUCCESS on every emulated function; INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
									 uint32_t *max_num_tasks);
/* Largest buffer one send task carries. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
									uint32_t *max_buf_size);
/* 1: a send carries one buffer (no chains). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_buf_list_len);
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
									 uint32_t *max_producers);

/*
 * Create a producer on an open connection.
 * Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE if the connection is not open; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
							  struct doca_comch_producer **producer);
/* IDLE only (BAD_STATE). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);
/* The producer's id (non-zero, unique among this side's producers and consumers of the connection). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_task_send_set_conf(
	struct doca_comch_producer *producer, doca_comch_producer_task_send_completion_cb_t task_completion_cb,
	doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);
/*
 * A task sending buf's data (and imm_len <= 32 bytes of imm_data, copied) to the remote
 * consumer consumer_id.  Returns SUCCESS; INVALID_VALUE for NULL, imm_len over 32 or a
 * buffer over the maximum size; NO_MEMORY when every task is allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
									const struct doca_buf *buf, uint8_t *imm_data,
									uint32_t imm_data_len, uint32_t consumer_id,
									struct doca_comch_producer_task_send **task);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_comch_producer_task_send_get_buf(struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
							     const struct doca_buf *buf);
DOCA_EXPERIMENTAL uint8_t *doca_comch_producer_task_send_get_imm_data(struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL uint32_t doca_comch_producer_task_send_get_imm_data_len(struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
								  uint8_t *imm_data, uint32_t imm_data_len);
DOCA_EXPERIMENTAL uint32_t doca_comch_producer_task_send_get_consumer_id(struct doca_comch_producer_task_send *task);
DOCA_EXPERIMENTAL void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
								     const uint32_t consumer_id);
DOCA_EXPERIMENTAL struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
