/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma internals: the run context one side of a run holds, and the
 * functions its files share.  perf_rdma_side() (perf_rdma.c) owns the context
 * and hands it to every function; the DOCA callbacks get it back as the RDMA
 * context's user data.
 */
#ifndef DOCA_PERF_RDMA_H
#define DOCA_PERF_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_rdma.h>

#include "perf.h"

#define PERF_RDMA_CTL_BYTES 4096       /* descriptor / done messages */
#define PERF_RDMA_DONE_IMM 0x454e4f44u /* "DONE" */
#define PERF_RDMA_SERVER_RECVS_MIN 8   /* receives the server keeps posted besides the send test's */
#define PERF_RDMA_ECHO_QUEUE 64	       /* ping-pong: receives waiting for the echo task */
#define PERF_RDMA_CTL_RECV UINT64_MAX  /* task user data of the client's control receive */

enum perf_rdma_op { PERF_RDMA_WRITE, PERF_RDMA_READ, PERF_RDMA_SEND, PERF_RDMA_ATOMIC };

/*
 * One side of a run.  Set up by perf_rdma_side(), read by the callbacks through
 * the context's user data; the client run state at the end is set again for
 * every size (perf_rdma_client.c).
 */
struct perf_rdma {
	const struct perf_opts *o;
	enum perf_rdma_op op;
	const char *opname; /* in the title and the JSON config */
	bool server;
	bool lat; /* send: ping-pong, half round trip */
	uint32_t conns;
	uint32_t per_conn; /* tasks in flight per connection */
	size_t max_size;

	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rdma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	uint8_t *mem; /* data area, then PERF_RDMA_CTL_BYTES x 2 control */
	size_t area;
	struct doca_mmap *mmap;
	struct doca_mmap *remote; /* the server's area (client, one-sided ops) */
	uint8_t *raddr;
	size_t rlen;

	struct doca_rdma_connection *conn[PERF_RDMA_MAX_CONNS];
	uint32_t established;
	uint32_t nonce;
	bool peer_done; /* server: PERF_RDMA_DONE_IMM received */
	bool done_sent; /* client: PERF_RDMA_DONE_IMM placed at the server */
	bool peer_lost; /* the other side is gone (reported once) */
	bool have_desc; /* client (CM): the server's mmap descriptor arrived */
	bool stopping;	/* tasks completing with errors now are expected */
	int ready_fd;	/* fork + CM: the server writes a byte once it listens, the client reads it */

	/* server, send tests: one echo task, and the lengths of the pings waiting for it */
	struct doca_rdma_task_send *echo;
	struct doca_buf *echo_buf;
	bool echo_busy;
	uint32_t echo_pending;
	uint32_t echo_len[PERF_RDMA_ECHO_QUEUE];

	/* tasks whose submit returned AGAIN (nothing queued): submitted again after the next progress */
	struct doca_task **parked;
	uint32_t nparked, cap_parked;
	uint64_t again;

	/* client run state */
	uint64_t *stamp; /* per task: TSC at its last submit */
	uint64_t submitted, limit, done, failed, warmup, done0;
	double t0, cpu0;
	bool running, measuring;
	struct perf_hist *lat_hist;
	bool lat_send_done, lat_recv_done;
	struct doca_task *lat_send;
};

/* Receives a side has posted at most: the server's (the send test's, plus a few), the client's few. */
static inline uint32_t
perf_rdma_recvs(const struct perf_rdma *r)
{
	if (!r->server)
		return 4;
	return (r->op == PERF_RDMA_SEND ? r->per_conn * r->conns : 0) + PERF_RDMA_SERVER_RECVS_MIN;
}

/*
 * perf_rdma.c: submit a task; DOCA_ERROR_AGAIN (nothing queued) parks it and
 * counts as submitted (DOCA_SUCCESS); any other refusal is returned.
 */
doca_error_t perf_rdma_submit(struct perf_rdma *r, struct doca_task *t);
/* doca_pe_progress(), then the parked tasks submitted again; non-zero when anything happened. */
uint8_t perf_rdma_progress(struct perf_rdma *r);
/* perf_rdma.c: stop the context, free what the side made (the context itself is the caller's). */
void perf_rdma_ctx_close(struct perf_rdma *r);

/* perf_rdma_cb.c: completion and connection callbacks. */
void perf_rdma_set_task_conf(struct perf_rdma *r);
void perf_rdma_measure_start(struct perf_rdma *r, uint64_t done0);
void perf_rdma_peer_lost(struct perf_rdma *r, struct doca_rdma_connection *c, const char *how);
/* Free a task together with the one buffer it was given (receives, control messages, the echo). */
void perf_rdma_free_with_buf(struct doca_task *t, const struct doca_buf *b);

/* perf_rdma_conn.c: connections and the server's memory descriptor. */
uint8_t *perf_rdma_ctl_mem(struct perf_rdma *r, int i);
void perf_rdma_post_recv(struct perf_rdma *r, uint8_t *at, size_t len, uint64_t ud_val);
void perf_rdma_connect(struct perf_rdma *r);

/* perf_rdma_server.c, perf_rdma_client.c: the two sides, from connecting to perf_rdma_ctx_close().  Exit status. */
int perf_rdma_server_main(struct perf_rdma *r);
int perf_rdma_client_main(struct perf_rdma *r);

#endif /* DOCA_PERF_RDMA_H */
