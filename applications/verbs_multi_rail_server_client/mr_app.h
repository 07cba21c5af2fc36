/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs_multi_rail_server_client: the configuration, the rails (one Verbs device each, its RC QPs
 * and its UC probe QP pair) and the interfaces between the files of the application.  The client
 * moves the data, the server verifies it; docs/multi-rail.md describes flags, files and output.
 */
#ifndef MR_APP_H_
#define MR_APP_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <doca_error.h>
#include <doca_verbs.h>
#include <doca_verbs_multi_rail.h>

#define MR_MAX_QPS 4096
#define MR_MAX_RAILS 8
#define MR_PATH_MAX 512
#define MR_NAME_MAX 64
#define MR_DEFAULT_PORT 5000
#define MR_DEFAULT_CHUNKS_TOTAL 131072
/*
 * Iterations in flight: the data buffers hold this many iterations of chunks_total bytes each
 * (iteration i in slot i % MR_ITER_SLOTS), so the client moves the next one while the server
 * verifies the previous one.
 */
#define MR_ITER_SLOTS 2
/* Every chunk starts with this header; the checksum covers the rest of the chunk. */
#define MR_CHUNK_HDR 24

enum mr_traffic {
	MR_TRAFFIC_SEND = 0,
	MR_TRAFFIC_WRITE = 1,
};

/* --qp-json: attributes of every RC QP (docs/multi-rail.md, "QP file"). */
struct mr_qp_cfg {
	uint32_t sq_depth;
	uint32_t rq_depth;
	uint32_t path_mtu; /* bytes: 256 .. 4096 */
	uint32_t ack_timeout;
	uint32_t retry_cnt;
	uint32_t rnr_retry;
	uint32_t min_rnr_timer;
};

/* --dev-json: the rails. */
struct mr_dev_cfg {
	uint32_t num_devs;
	char ibdev[MR_MAX_RAILS][MR_NAME_MAX];
};

/* --multi-rail-json: chunking, failure detection and recovery. */
struct mr_rail_cfg {
	uint32_t chunk_size;
	uint64_t max_inflight_bytes; /* per rail */
	uint32_t stall_timeout_ms;   /* a rail with work and no completion for this long is lost */
	uint32_t probe_interval_ms;
	uint32_t all_down_timeout_ms; /* every rail lost for this long: the run fails */
	bool reconnect;
	/* the library's configuration (doca_verbs_multi_rail_cfg_set_*) */
	enum doca_verbs_multi_rail_lb_mode lb_mode;
	double bw_decay_factor;
	double max_bw_drop_factor;
	uint64_t min_splitable_message_size; /* 0: two chunks */
	uint32_t probe_count;
	uint32_t probe_timeout_s;
};

struct mr_config {
	uint32_t num_qps;
	uint64_t chunks_total;
	enum mr_traffic traffic;
	bool is_server;
	bool use_multi_rail;
	char server_ip[64];
	uint16_t tcp_port;
	uint32_t iterations;
	double duration; /* seconds; 0: iterations decide */
	uint32_t progress_ms;
	char qp_json[MR_PATH_MAX];
	char dev_json[MR_PATH_MAX];
	char mr_json[MR_PATH_MAX];
	struct mr_qp_cfg qp;
	struct mr_dev_cfg devs;
	struct mr_rail_cfg rail;
};

/* Defaults of the three files (used when a file is not given or leaves a key out). */
void mr_config_defaults(struct mr_config *cfg);
/* Parse each file named in cfg; BAD_CONFIG with one error naming file and field. */
doca_error_t mr_config_load_files(struct mr_config *cfg);
/* A library configuration from --multi-rail-json (chunk alignment and minimum: chunk_size); destroy it after use. */
doca_error_t mr_config_library(const struct mr_rail_cfg *rail, struct doca_verbs_multi_rail_cfg **out);

/* ---------------------------------------------------------------- TCP channel (mr_app_oob.c) */

enum mr_msg_type {
	MR_MSG_HELLO = 1,     /* handshake, body struct mr_hello */
	MR_MSG_ITER_DONE,     /* client: every chunk of iteration a completed; b = chunk count */
	MR_MSG_ITER_OK,	      /* server: iteration a verified; b = chunks repaired so far */
	MR_MSG_NACK,	      /* server: chunk b of iteration a failed its check: post it again */
	MR_MSG_RAIL_DOWN,     /* client: rail lost, fence it */
	MR_MSG_FINISH,	      /* client: no more iterations */
	MR_MSG_ABORT,	      /* either: giving up, a = doca_error_t */
	MR_MSG_PROBE_SETUP,   /* recovery channel: new UC probe pair on rail; a = client QPN */
	MR_MSG_PROBE,	      /* recovery: probe number a of b bytes follows on the rail */
	MR_MSG_PROBE_RESULT,  /* recovery: a = probe number, b = 1 received, 0 not */
	MR_MSG_RECONNECT,     /* recovery: new RC QPs on rail; a = count, then a QPNs */
	MR_MSG_RECONNECT_ACK, /* recovery: the server's QPNs, same layout */
	MR_MSG_QPNS,	      /* set-up: a = count, then a QPNs (rail order) */
};

struct mr_msg {
	uint32_t type;
	uint32_t rail;
	uint64_t a;
	uint64_t b;
};

/* What must match on both sides: exchanged first. */
struct mr_hello {
	char magic[4]; /* "MRAP" */
	uint32_t version;
	uint32_t num_qps;
	uint32_t traffic;
	uint32_t use_multi_rail;
	uint32_t num_rails;
	uint64_t chunks_total;
	uint32_t chunk_size;
	uint32_t reserved;
};

doca_error_t mr_oob_listen(uint16_t port, int *listen_fd);
doca_error_t mr_oob_accept(int listen_fd, int *conn_fd);
doca_error_t mr_oob_connect(const char *ip, uint16_t port, int *conn_fd);
doca_error_t mr_oob_send(int fd, const struct mr_msg *msg, const void *body, size_t body_len);
/* Wait up to timeout_ms (-1: for ever) for a message; TIME_OUT when none came. */
doca_error_t mr_oob_recv(int fd, struct mr_msg *msg, int timeout_ms);
doca_error_t mr_oob_recv_body(int fd, void *body, size_t len);
doca_error_t mr_oob_handshake(int fd, const struct mr_config *cfg);
void mr_oob_close(int *fd);

/* ---------------------------------------------------------------- rails (mr_app_rail.c) */

enum mr_rail_state {
	MR_RAIL_UP = 0,
	MR_RAIL_DOWN,	    /* lost: the recovery thread owns its QPs */
	MR_RAIL_RECOVERING, /* new QPs connected, waiting for the data thread to take them */
};

struct doca_verbs_multi_rail;

/* One posted chunk: where it is and on which QP; generation tells a stale completion. */
struct mr_slot {
	uint32_t chunk;
	uint32_t gen;
	bool busy;
};

struct mr_qp {
	struct doca_verbs_qp *qp;
	uint32_t qpn;
	uint32_t remote_qpn;
	uint32_t outstanding;
};

struct mr_rail {
	uint32_t index;
	char ibdev[MR_NAME_MAX];
	struct doca_verbs_context *ctx;
	struct doca_verbs_pd *pd;
	struct doca_dev *dev;
	struct doca_verbs_cq *cq;
	struct doca_verbs_ah_attr *ah;
	struct ibv_mr *mr;	 /* the data buffer on this rail's PD */
	struct ibv_mr *recv_mr;	 /* server, send traffic: receive buffers */
	struct ibv_mr *probe_mr; /* probe buffer */
	uint8_t gid[16];
	uint8_t remote_gid[16];
	uint32_t num_qps;
	struct mr_qp *qps; /* num_qps */
	/* Probe pair (UC). */
	struct doca_verbs_cq *probe_cq;
	struct doca_verbs_qp *probe_qp;
	uint32_t probe_qpn;
	uint8_t *probe_buf;
	uint64_t remote_probe_va;
	uint32_t remote_probe_rkey;
	uint32_t remote_probe_qpn;
	struct doca_verbs_multi_rail *probe_obj; /* server: its own probe rounds while the rail is DOWN */
	/* Shared with the recovery thread under app->lock. */
	enum mr_rail_state state;
	struct mr_qp *new_qps; /* RECOVERING: the replacement QPs */
	/* Data thread only. */
	uint64_t inflight_bytes;
	uint64_t bytes_done;
	uint64_t last_completion_ns;
	uint64_t lost_count, recovered_count;
	uint64_t up_since_ns, up_ns_total;
};

struct mr_app {
	struct mr_config *cfg;
	struct doca_verbs_multi_rail *mr; /* client, --use-multi-rail: the split and the probes */
	uint32_t num_rails;
	struct mr_rail rails[MR_MAX_RAILS];
	uint8_t *buf;	    /* MR_ITER_SLOTS x chunks_total bytes */
	uint64_t buf_bytes; /* its size */
	uint64_t remote_va;
	uint32_t remote_rkey[MR_MAX_RAILS];
	uint32_t num_chunks;
	uint8_t *recv_buf; /* server, send traffic */
	uint32_t recv_slots_per_qp;
	int listen_fd, conn_fd, rec_fd; /* main and recovery TCP channels */
	pthread_mutex_t lock;
	pthread_t recovery_thread;
	bool recovery_started;
	atomic_bool stop;
	atomic_uint rails_lost, rails_recovered;
};

doca_error_t mr_rail_open(struct mr_app *app, struct mr_rail *rail);
doca_error_t mr_rail_register(struct mr_app *app, struct mr_rail *rail);
/* Create n RC QPs on the rail (into *qps, calloc'd). */
doca_error_t mr_rail_create_qps(struct mr_app *app, struct mr_rail *rail, uint32_t n, struct mr_qp **qps);
/* RST -> INIT -> RTR -> RTS towards the peer's QPN (UC: no RC timers). */
doca_error_t mr_qp_connect(struct mr_app *app, struct mr_rail *rail, struct doca_verbs_qp *qp, uint32_t remote_qpn,
			   bool uc);
doca_error_t mr_qp_to_err(struct doca_verbs_qp *qp);
void mr_rail_destroy_qps(struct mr_qp *qps, uint32_t n);
doca_error_t mr_probe_create(struct mr_app *app, struct mr_rail *rail);
void mr_probe_destroy(struct mr_rail *rail);
doca_error_t mr_rail_close(struct mr_rail *rail);
/* Post one receive of len bytes at addr (lkey) with wr_id on qp. */
doca_error_t mr_post_recv(struct doca_verbs_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey);

/* ---------------------------------------------------------------- data (mr_app_xfer.c) */

void mr_chunk_fill(uint8_t *p, uint32_t len, uint32_t iter, uint32_t chunk);
/* SUCCESS when the chunk carries iteration iter, number chunk and a matching checksum. */
doca_error_t mr_chunk_check(const uint8_t *p, uint32_t len, uint32_t iter, uint32_t chunk, char *why, size_t why_len);
doca_error_t mr_client_run(struct mr_app *app);
doca_error_t mr_server_post_receives(struct mr_app *app, struct mr_rail *rail, struct mr_qp *qps);
doca_error_t mr_server_run(struct mr_app *app);

/* ---------------------------------------------------------------- recovery (mr_app_recovery.c) */

doca_error_t mr_recovery_start(struct mr_app *app);
void mr_recovery_stop(struct mr_app *app);

uint64_t mr_now_ns(void);

#endif /* MR_APP_H_ */
