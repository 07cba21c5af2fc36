/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pieces both DOCA Verbs samples use: the RC connection recipe (RST -> INIT ->
 * RTR -> RTS with DOCA's values), a CQ with the bridge datapath, and a poll
 * loop that gives up when the program's own liveness check says so.
 */
#ifndef SAMPLES_VERBS_COMMON_H_
#define SAMPLES_VERBS_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_uar.h>
#include <doca_verbs.h>

#include "sample_params.h" /* the flags table (struct sample_param) */

/* The values DOCA's samples connect an RC QP with. */
#define VERBS_PORT_NUM 1
#define VERBS_ACK_TIMEOUT 14
#define VERBS_RETRY_CNT 7
#define VERBS_RNR_RETRY 7
#define VERBS_MIN_RNR_TIMER 1
#define VERBS_HOP_LIMIT 255

/* Log "Failed to <what>: <cause>" when result is not SUCCESS; returns result. */
doca_error_t verbs_check(doca_error_t result, const char *what);

/*
 * A CQ of cq_size 64-byte entries polled with doca_verbs_bridge_poll_cq();
 * uar (may be NULL) is set as its external UAR.
 */
doca_error_t verbs_cq_create(struct doca_verbs_context *ctx, uint32_t cq_size, struct doca_uar *uar,
			     struct doca_verbs_cq **cq);

/*
 * Move qp RST -> INIT -> RTR -> RTS towards remote_qpn behind ah with one qp_attr
 * object, only the mask changing: remote write and read allowed, port 1, PSNs 0,
 * path MTU 1K, min RNR timer 1, ack timeout 14, retry 7, RNR retry 7.
 */
doca_error_t verbs_qp_connect(struct doca_verbs_qp *qp, struct doca_verbs_ah_attr *ah, uint32_t remote_qpn);

/*
 * Called between empty polls (every few thousand): SUCCESS to keep waiting,
 * anything else stops the wait with that error (the callback logs why).
 */
typedef doca_error_t (*verbs_wait_check)(void *arg);

/*
 * Spin on doca_verbs_bridge_poll_cq() until one completion arrives (into *wc).
 * A negative poll result is IO_FAILED; check (may be NULL: wait forever) can
 * end the wait.  The completion's status and opcode are the caller's to judge.
 */
doca_error_t verbs_poll_one(struct doca_verbs_cq *cq, struct ibv_wc *wc, verbs_wait_check check, void *arg);

/*
 * SUCCESS when wc completed without error with the expected opcode; otherwise
 * logs what (e.g. "RDMA write #3") with the status text and returns IO_FAILED.
 */
doca_error_t verbs_check_wc(const struct ibv_wc *wc, enum ibv_wc_opcode expected, const char *what);

/* "SEND", "RDMA_WRITE", ..., for messages. */
const char *verbs_wc_opcode_name(enum ibv_wc_opcode opcode);

#endif /* SAMPLES_VERBS_COMMON_H_ */
