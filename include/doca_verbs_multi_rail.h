/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Verbs Multi-Rail: spread one logical stream of messages over several
 * "rails" (one RC QP per NIC / port each) and keep going when a rail fails.
 *
 * softdoca's design.  DOCA 3.5 publishes only the names of this API (objects
 * doca_verbs_multi_rail_cfg and doca_verbs_multi_rail, the cfg setters and the
 * run-time calls); every signature, type, default and rule below is softdoca's
 * own, built from those names (docs/multi-rail.md).  doca_verbs_multi_rail_cfg_create,
 * doca_verbs_multi_rail_cfg_set_readmit_interval_ms, get_rail_bw and get_rail_share
 * are softdoca additions.
 *
 * The object does not own or post to the program's data QPs.  It answers three
 * questions, only when the program asks (no thread of its own):
 *   how to cut a message   doca_verbs_multi_rail_get_post_split(): chunks
 *                          {rail, offset, length} the program posts itself;
 *   how fast is each rail  doca_verbs_multi_rail_update_qp() after each chunk's
 *                          completion, doca_verbs_multi_rail_update() periodically;
 *   is a rail alive        probe QPs (one per rail, UC recommended):
 *                          doca_verbs_multi_rail_probe_start() posts probes,
 *                          doca_verbs_multi_rail_probe_get_status() polls them.
 *
 * Call order
 *   cfg_create -> cfg_set_* -> create(num_rails) -> apply_cfg(cfg) [-> cfg_destroy]
 *   -> set_probe_qp per rail (optional)
 *   -> loop: get_post_split, post chunks, poll, update_qp per completion, update(now)
 *            every few milliseconds, probe_start / probe_get_status when wanted
 *   -> destroy.
 *
 * Rails are numbered 0 .. num_rails - 1 and start UP.  A rail goes DOWN when
 * its probes fail or time out, or when the program reports a recoverable error
 * on it (update_qp); a DOWN rail comes back UP when a probe round on it succeeds
 * (status PROBING while that round is in flight).  get_post_split uses UP rails
 * only; in BW_WEIGHTED mode it also leaves out a rail slower than
 * max_bw_drop_factor x the fastest, trying it again for a small share every
 * readmit interval.
 *
 * Errors: NULL objects or outputs and out-of-range values are INVALID_VALUE;
 * run-time calls before the first successful apply_cfg are BAD_STATE; a rail
 * index >= num_rails is INVALID_VALUE.  Every refusal is logged once, where
 * detected, with the rule and the fix.  Outputs are written only on success.
 *
 * Threads: each object has one lock; every call on it takes that lock, so the
 * calls may come from any thread.  A cfg object is a plain record (no lock).
 * All functions are experimental.
 */
#ifndef DOCA_VERBS_MULTI_RAIL_H_
#define DOCA_VERBS_MULTI_RAIL_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_verbs_multi_rail_cfg;
struct doca_verbs_multi_rail;

/* Most rails one object may have. */
#define DOCA_VERBS_MULTI_RAIL_MAX_RAILS 64
/* Bytes one probe writes (an RDMA WRITE of the local heartbeat into the peer's slot). */
#define DOCA_VERBS_MULTI_RAIL_PROBE_BYTES 8
/* Size of the probe buffer each side registers: heartbeat word + landing slot. */
#define DOCA_VERBS_MULTI_RAIL_PROBE_BUF_BYTES 16

/* How get_post_split shares bytes among the usable rails. */
enum doca_verbs_multi_rail_lb_mode {
	/* Equal shares; whole messages go to the rails in turn. */
	DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN = 0,
	/* Shares proportional to each rail's measured bandwidth (the default). */
	DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED = 1,
};

/* A rail's health (doca_verbs_multi_rail_probe_get_status). */
enum doca_verbs_multi_rail_rail_status {
	DOCA_VERBS_MULTI_RAIL_RAIL_UP = 0,	/* used by get_post_split */
	DOCA_VERBS_MULTI_RAIL_RAIL_DOWN = 1,	/* not used */
	DOCA_VERBS_MULTI_RAIL_RAIL_PROBING = 2, /* DOWN, a probe round in flight: not used yet */
};

/* One piece of a message: bytes [offset, offset + length) go on rail `rail`. */
struct doca_verbs_multi_rail_chunk {
	uint32_t rail;	   /* 0 .. num_rails - 1 */
	uint32_t reserved; /* 0 */
	uint64_t offset;   /* from the message start; a multiple of chunk_alignment */
	uint64_t length;
};

/* ==== configuration (a plain record, applied with doca_verbs_multi_rail_apply_cfg) ==== */

/* A configuration holding the defaults listed with each setter. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_create(struct doca_verbs_multi_rail_cfg **cfg);
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_destroy(struct doca_verbs_multi_rail_cfg *cfg);
/*
 * EWMA weight of the newest bandwidth sample, in (0, 1]: at each update()
 * bw = (1 - f) * bw + f * sample.  1 = no smoothing.  Default 0.25.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_bw_decay_factor(struct doca_verbs_multi_rail_cfg *cfg,
									     double factor);
/*
 * In (0, 1]: a rail whose bandwidth is below factor x the fastest rail's is
 * left out (BW_WEIGHTED only).  Default 0.5.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_max_bw_drop_factor(struct doca_verbs_multi_rail_cfg *cfg,
										double factor);
/* No chunk is shorter (only a message given whole may be).  >= chunk_alignment.  Default 4096. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_min_chunk_size(struct doca_verbs_multi_rail_cfg *cfg,
									    uint64_t min_chunk_size);
/* Chunk offsets are multiples of it; a power of two >= 1.  Default 64. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_chunk_alignment(struct doca_verbs_multi_rail_cfg *cfg,
									     uint64_t chunk_alignment);
/* Messages shorter than this go whole on one rail.  Default 16384. */
DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_cfg_set_min_splitable_message_size(struct doca_verbs_multi_rail_cfg *cfg, uint64_t size);
/* Default DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_lb_mode(struct doca_verbs_multi_rail_cfg *cfg,
								     enum doca_verbs_multi_rail_lb_mode lb_mode);
/* Probes per rail per probe_start, >= 1 (the probe QP's send queue must hold them).  Default 3. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_probe_count(struct doca_verbs_multi_rail_cfg *cfg,
									 uint32_t probe_count);
/* A rail whose probes have not all completed this long after probe_start is DOWN; >= 1.  Default 1. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_probe_timeout_s(struct doca_verbs_multi_rail_cfg *cfg,
									     uint32_t probe_timeout_s);
/* softdoca: how long a rail left out for low bandwidth waits before a trial share; >= 1.  Default 1000. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_readmit_interval_ms(struct doca_verbs_multi_rail_cfg *cfg,
										 uint32_t interval_ms);

/* ==== the multi-rail object ==== */

/* An object for num_rails rails (1 .. DOCA_VERBS_MULTI_RAIL_MAX_RAILS); apply a cfg before use. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_create(uint32_t num_rails, struct doca_verbs_multi_rail **mr);
/* Does not touch the probe QPs or CQs (the program destroys them, after this call or before). */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_destroy(struct doca_verbs_multi_rail *mr);
/*
 * Validate cfg and copy it into mr (cfg may be destroyed afterwards).  May be
 * called again at run time; rail states and estimates are kept.  INVALID_VALUE
 * (logged with the rule) when: chunk_alignment is not a power of two,
 * min_chunk_size < chunk_alignment, a factor is outside (0, 1], probe_count,
 * probe_timeout_s or readmit_interval_ms is 0, or lb_mode is unknown.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_apply_cfg(struct doca_verbs_multi_rail *mr,
							       const struct doca_verbs_multi_rail_cfg *cfg);

/*
 * The probe path of a rail: probe_qp (UC recommended; RC works) connected to
 * the peer's probe QP over the same NIC as the rail's data QP, its send CQ
 * probe_cq, and the probe buffers: local_addr is this side's
 * DOCA_VERBS_MULTI_RAIL_PROBE_BUF_BYTES (registered with key lkey, remote write
 * allowed, 8-byte aligned), remote_addr / rkey the peer's.  Word 0 of a buffer
 * holds the heartbeat its owner sends (the object writes it), word 1 the
 * slot where the peer's probes land.  The peer runs the same calls on its own
 * object: a rail is UP only when the peer's probes keep arriving.  probe_cq
 * must carry completions of probe QPs of this object only (several rails may
 * share it).  probe_qp NULL removes the rail's probe path.  The QP's send queue
 * must hold probe_count requests.  Replacing the path of a rail with a probe
 * round in flight is BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_set_probe_qp(struct doca_verbs_multi_rail *mr, uint32_t rail,
								  struct doca_verbs_qp *probe_qp,
								  struct doca_verbs_cq *probe_cq, void *local_addr,
								  uint32_t lkey, uint64_t remote_addr, uint32_t rkey);
/*
 * Post probe_count signaled probes on the probe QP of every rail that has one
 * and no probe round awaiting its verdict, and start its probe_timeout_s timer.  A rail whose
 * post fails is DOWN at once.  NOT_FOUND when no rail has a probe QP.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_probe_start(struct doca_verbs_multi_rail *mr);
/*
 * Poll the probe CQs (this thread, no blocking), read the probe slots, settle
 * probe rounds, and report the rail's status.  A round settles UP when all its
 * probes completed with IBV_WC_SUCCESS and the peer's heartbeat changed within
 * probe_timeout_s of the round's start; DOWN at the first failed probe or
 * when probe_timeout_s passed (CLOCK_MONOTONIC) without both.  (A UC write
 * completes without any acknowledgement, hence the peer's heartbeat.)  A rail
 * UP before the round stays usable (UP) while it is in flight; a DOWN rail
 * reads PROBING.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_probe_get_status(struct doca_verbs_multi_rail *mr, uint32_t rail,
								      enum doca_verbs_multi_rail_rail_status *status);

/*
 * Cut a message of msg_len bytes into chunks (in offset order, covering every
 * byte exactly once) over the usable rails: at most max_chunks (>= 1) and one
 * per rail; every offset a multiple of chunk_alignment; every chunk at least
 * min_chunk_size long unless the message goes whole on one rail, which it does
 * when msg_len < min_splitable_message_size (also msg_len 0: one chunk of
 * length 0).  NOT_CONNECTED (logged once per outage) when no rail is UP.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_get_post_split(struct doca_verbs_multi_rail *mr, uint64_t msg_len,
								    struct doca_verbs_multi_rail_chunk *chunks,
								    uint32_t max_chunks, uint32_t *num_chunks);
/*
 * Feed back one completed chunk of a rail: bytes moved and duration_ns from
 * post to completion; wc_status is the completion's enum ibv_wc_status.  On
 * success the sample counts towards the rail's bandwidth at the next update().
 * A recoverable error (doca_verbs_multi_rail_error_is_recoverable) marks the
 * rail DOWN; other errors are the program's to handle and change nothing.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_update_qp(struct doca_verbs_multi_rail *mr, uint32_t rail,
							       uint64_t bytes, uint64_t duration_ns, int wc_status);
/*
 * Fold the samples fed since the last call into each rail's bandwidth (EWMA
 * with bw_decay_factor; rate = sum of bytes / busy time, busy time = sum of
 * durations capped by the time since the previous call: with chunks queued
 * back to back on a rail this is its delivered throughput), then decide
 * which rails are left out (BW_WEIGHTED) and which get a trial share.  now_ns:
 * the program's monotonic clock in nanoseconds, never decreasing
 * (INVALID_VALUE otherwise).
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_update(struct doca_verbs_multi_rail *mr, uint64_t now_ns);
/*
 * Whether a failed completion (wc_status, an enum ibv_wc_status) on one rail
 * means "re-post that chunk on another rail" (*recoverable = 1: IBV_WC_RETRY_EXC_ERR,
 * IBV_WC_WR_FLUSH_ERR, IBV_WC_RESP_TIMEOUT_ERR, IBV_WC_BAD_RESP_ERR, IBV_WC_REM_ABORT_ERR,
 * IBV_WC_FATAL_ERR) or a fault of the program or the peer that another rail
 * would hit too (0: every other status, IBV_WC_RNR_RETRY_EXC_ERR included).
 * IBV_WC_SUCCESS or a negative value: INVALID_VALUE.  Needs no apply_cfg.
 */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_error_is_recoverable(const struct doca_verbs_multi_rail *mr,
									  int wc_status, uint8_t *recoverable);

/* softdoca: the rail's bandwidth estimate in bytes per second (0 until measured). */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_get_rail_bw(struct doca_verbs_multi_rail *mr, uint32_t rail,
								 double *bytes_per_s);
/* softdoca: the fraction of bytes get_post_split aims to give the rail now (0 when not used). */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_get_rail_share(struct doca_verbs_multi_rail *mr, uint32_t rail,
								    double *share);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERBS_MULTI_RAIL_H_ */
