/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail internals (doca_verbs_multi_rail.h): the configuration record,
 * the object with its rails, and the calls its three files share —
 * verbs_multi_rail.c (object, feedback, error classes), verbs_multi_rail_lb.c
 * (bandwidth estimates, weights, the split), verbs_multi_rail_probe.c (probes).
 *
 * Locking: everything in struct doca_verbs_multi_rail is under its lock; the
 * sd_mr_* helpers below are called with it held.
 */
#ifndef SD_VERBS_MULTI_RAIL_H_
#define SD_VERBS_MULTI_RAIL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_verbs_multi_rail.h>

struct doca_verbs_multi_rail_cfg {
	double bw_decay_factor;
	double max_bw_drop_factor;
	uint64_t min_chunk_size;
	uint64_t chunk_alignment;
	uint64_t min_splitable_message_size;
	enum doca_verbs_multi_rail_lb_mode lb_mode;
	uint32_t probe_count;
	uint32_t probe_timeout_s;
	uint32_t readmit_interval_ms;
};

/* A rail left out for low bandwidth gets at least this fraction of the best rail's weight on trial. */
#define SD_MR_TRIAL_MIN_WEIGHT (1.0 / 16.0)

struct sd_mr_rail {
	bool up; /* the verdict: UP (used) or DOWN */
	/* bandwidth (verbs_multi_rail_lb.c) */
	double bw;	       /* bytes per second, EWMA; 0 = not measured */
	uint64_t sample_bytes; /* fed by update_qp since the last update */
	uint64_t sample_ns;
	uint64_t window_ns;   /* program time since the rail's last sample (caps its busy time) */
	bool excluded;	      /* BW_WEIGHTED: below max_bw_drop_factor x best */
	bool trial;	      /* excluded, given a small share to be measured again */
	uint64_t excluded_ns; /* when it was (last) left out, on the program's clock */
	double swrr;	      /* smooth weighted round robin credit (whole messages) */
	/* probing (verbs_multi_rail_probe.c) */
	struct doca_verbs_qp *probe_qp;
	struct doca_verbs_cq *probe_cq;
	void *local_addr;
	uint32_t lkey, rkey;
	uint64_t remote_addr;
	bool round_active;     /* a probe round awaits its verdict */
	uint32_t round_id;     /* of the latest round: completions of older ones are ignored */
	uint32_t round_ok;     /* successful probes of the active round */
	uint64_t start_ns;     /* of the active round, CLOCK_MONOTONIC */
	uint64_t deadline_ns;  /* CLOCK_MONOTONIC */
	uint64_t tx_seq;       /* the heartbeat this side writes into the peer's slot */
	uint64_t rx_seen;      /* the peer's heartbeat last read from the local slot */
	uint64_t rx_change_ns; /* when it last changed (0: never) */
	uint32_t inflight;     /* probes posted, not yet polled (any round) */
};

struct doca_verbs_multi_rail {
	pthread_mutex_t lock;
	bool applied;
	struct doca_verbs_multi_rail_cfg cfg;
	uint32_t num_rails;
	uint32_t rr_cursor;	   /* ROUND_ROBIN: the rail the next message starts on */
	uint64_t last_now_ns;	   /* of the last update() */
	bool none_up_logged;	   /* "no rail UP" said once per outage */
	struct sd_mr_rail rails[]; /* num_rails */
};

/* Defaults of a new cfg (verbs_multi_rail_cfg.c). */
void sd_mr_cfg_defaults(struct doca_verbs_multi_rail_cfg *cfg);
/* INVALID_VALUE, logged with the rule, when cfg breaks one (verbs_multi_rail_cfg.c). */
doca_error_t sd_mr_cfg_validate(const struct doca_verbs_multi_rail_cfg *cfg);

/* Rail state changes (verbs_multi_rail.c): log the change once, reset what the change invalidates. */
void sd_mr_rail_set_down(struct doca_verbs_multi_rail *mr, uint32_t rail, const char *why);
void sd_mr_rail_set_up(struct doca_verbs_multi_rail *mr, uint32_t rail);
/* The name of an enum ibv_wc_status value, for logs. */
const char *sd_mr_wc_status_name(int wc_status);

/* Weight of each rail get_post_split uses now; 0 = not used.  Returns the sum (verbs_multi_rail_lb.c). */
double sd_mr_weights(const struct doca_verbs_multi_rail *mr, double *weights);

/* Common refusals of the run-time calls: NULL object, not applied, rail out of range. */
doca_error_t sd_mr_check(const struct doca_verbs_multi_rail *mr, const char *func);
doca_error_t sd_mr_check_rail(const struct doca_verbs_multi_rail *mr, uint32_t rail, const char *func);

#endif /* SD_VERBS_MULTI_RAIL_H_ */
