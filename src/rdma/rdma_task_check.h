/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an RDMA task must satisfy before it runs (rdma_task_check.c): the
 * reasons it is refused, their table (status and log line, refusal.h) and
 * one check per task family, for the family table of rdma_task.c.  The
 * checks log nothing: rdma_task.c logs a refusal once (SD_REFUSAL_LOG).
 */
#ifndef SD_RDMA_TASK_CHECK_H_
#define SD_RDMA_TASK_CHECK_H_

#include <stdbool.h>

#include "../core/sd_core.h"
#include "rdma_internal.h"

/*
 * Why a task cannot run: the buf faults RDMA shares with DMA (buf_check.h),
 * then RDMA's own; each has one row in sd_rdma_refusals.
 */
enum sd_rdma_refusal {
	SD_RDMA_NO_CONN = SD_BUF_NUM_FAULTS,
	SD_RDMA_FOREIGN_CONN,
	SD_RDMA_CONN_ENDED, /* a: connection id, b: its error (the status) */
	SD_RDMA_NO_SRC,
	SD_RDMA_NO_DST,
	SD_RDMA_NO_RESULT,
	SD_RDMA_REMOTE_LIST,
	SD_RDMA_NOT_LOCAL,
	SD_RDMA_NOT_REMOTE,
	SD_RDMA_OTHER_DEVICE,
	SD_RDMA_TOO_BIG,
	SD_RDMA_SRC_SHORT,
	SD_RDMA_MISALIGNED,
	SD_RDMA_NO_EVENT,
	SD_RDMA_PEER_NO_READ,
	SD_RDMA_PEER_NO_WRITE,
	SD_RDMA_PEER_NO_ATOMIC,
	SD_RDMA_EXPORT_NO_READ,
	SD_RDMA_EXPORT_NO_WRITE,
	SD_RDMA_EXPORT_NO_ATOMIC,
	SD_RDMA_POST_REFUSED, /* the fabric's own access check; b: the status */
	SD_RDMA_POST_FAILED,  /* the fabric could not post; b: the status */
	SD_RDMA_NUM_REFUSALS,
};

/* Indexed by reason; a NULL text at a buf fault is Core's row. */
extern const struct sd_refusal sd_rdma_refusals[SD_RDMA_NUM_REFUSALS];

/* One check per family: true, or false with *v saying why (v->why was set to SD_BUF_OK). */
typedef bool (*sd_rdma_check_fn)(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_receive(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_send(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_read(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_write(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_atomic(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_se_get(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_se_notify_set(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);
bool sd_rdma_check_se_notify_add(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v);

#endif /* SD_RDMA_TASK_CHECK_H_ */
