/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pieces both DOCA Verbs samples use: their flags table, the RC connection recipe (RST -> INIT ->
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

/* The values DOCA's samples connect an RC QP with. */
#define VERBS_PORT_NUM 1
#define VERBS_ACK_TIMEOUT 14
#define VERBS_RETRY_CNT 7
#define VERBS_RNR_RETRY 7
#define VERBS_MIN_RNR_TIMER 1
#define VERBS_HOP_LIMIT 255

/* One flag of a sample; short_name NULL makes a long-only flag (--ipv6). */
struct verbs_param {
	const char *short_name;
	const char *long_name;
	const char *arguments; /* "<value>" shown by -h, NULL for a boolean */
	const char *description;
	enum doca_argp_type type;
	doca_argp_param_cb_t callback;
	bool mandatory;
};

/* Create and register each of the n flags with ARGP (after doca_argp_init). */
doca_error_t verbs_register_params(const struct verbs_param *params, size_t n);

/*
 * DOCA's sample main(): logging (SDK messages at sdk_level), "Starting the
 * sample", ARGP named argp_name over cfg with register_params' flags, run(cfg),
 * and "Sample finished successfully" (returns EXIT_SUCCESS) or "Sample finished
 * with errors" (EXIT_FAILURE).  name labels the failure message.
 */
int verbs_sample_main(const char *name, const char *argp_name, uint32_t sdk_level, void *cfg,
		      doca_error_t (*register_params)(void), doca_error_t (*run)(const void *cfg), int argc,
		      char **argv);

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
