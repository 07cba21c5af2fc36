/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma write|read|send|atomic: a requester (client) keeps tasks in flight
 * on N connections to a responder (server), on one machine (forked, the default) or
 * across hosts / namespaces (--server and --client).  Connections come from
 * doca_rdma_export/connect with descriptors exchanged as files (--oob-dir) or from
 * RDMA-CM (--cm); the server's memory descriptor travels the same way (file, or a
 * message on the first CM connection).  The client ends the run with a send_imm
 * carrying DONE_IMM; the server sleeps on the PE's notification handle meanwhile,
 * so one-sided traffic completes without it making a DOCA call.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "perf.h"

#define DEFAULT_DEV "mlx5_0"
#define MAX_CONNS PERF_RDMA_MAX_CONNS
#define CTL_BYTES 4096	     /* descriptor / done messages */
#define DONE_IMM 0x454e4f44u /* "DONE" */
#define SERVER_RECVS_MIN 8

enum op { OP_WRITE, OP_READ, OP_SEND, OP_ATOMIC };

/* Everything one side holds; the client's per-size run state is at the end. */
static struct {
	const struct perf_opts *o;
	enum op op;
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
	uint8_t *mem; /* data area, then CTL_BYTES x 2 control */
	size_t area;
	struct doca_mmap *mmap;
	struct doca_mmap *remote; /* the server's area (client, one-sided ops) */
	uint8_t *raddr;
	size_t rlen;

	struct doca_rdma_connection *conn[MAX_CONNS];
	uint32_t established;
	uint32_t nonce;
	bool peer_done; /* server: DONE_IMM received */
	bool done_sent; /* client: DONE_IMM placed at the server */
	bool peer_lost; /* the other side is gone (reported once) */
	bool have_desc; /* client (CM): the server's mmap descriptor arrived */
	bool stopping;	/* tasks completing with errors now are expected */
	int ready_fd;	/* fork + CM: the server writes a byte once it listens, the client reads it */

	/* server, send tests: echo state */
	struct doca_rdma_task_send *echo;
	struct doca_buf *echo_buf;
	bool echo_busy;
	uint32_t echo_pending;
	uint32_t echo_len[64];

	/* client run state */
	uint64_t *stamp;
	uint64_t submitted, limit, done, failed, warmup, done0;
	double t0, cpu0;
	bool running, measuring;
	struct perf_hist *lat_hist;
	bool lat_send_done, lat_recv_done;
	struct doca_task *lat_send;
} R;

static void
measure_start(uint64_t done0)
{
	R.measuring = true;
	R.done0 = done0;
	R.t0 = perf_now();
	perf_cpu_seconds(&R.cpu0);
}

/* ---- callbacks ----------------------------------------------------------------------------- */

/*
 * The other side is gone (its process died, it disconnected early, its
 * connection failed): say so once, naming it, and fail the run.
 */
static void
peer_lost(struct doca_rdma_connection *c, const char *how)
{
	uint32_t id;

	if (R.stopping || R.peer_lost)
		return;
	R.peer_lost = true;
	R.failed++;
	if (c != NULL && doca_rdma_connection_get_id(c, &id) == DOCA_SUCCESS)
		fprintf(stderr, "doca_perf: %s: lost the %s (connection id %u): %s\n", R.server ? "server" : "client",
			R.server ? "client" : "server", id, how);
	else
		fprintf(stderr, "doca_perf: %s: lost the %s: %s\n", R.server ? "server" : "client",
			R.server ? "client" : "server", how);
}

static bool
is_peer_loss(doca_error_t st)
{
	return st == DOCA_ERROR_CONNECTION_RESET || st == DOCA_ERROR_CONNECTION_ABORTED ||
	       st == DOCA_ERROR_NOT_CONNECTED;
}

static void
report_failed(struct doca_task *t, const char *what)
{
	doca_error_t st = doca_task_get_status(t);
	char how[128];

	if (R.stopping)
		return;
	/* A server's receives only fail when the client's side broke (they are its only tasks). */
	if (is_peer_loss(st) || (R.server && strcmp(what, "receive") == 0)) {
		snprintf(how, sizeof(how), "a %s task failed with %s", what, doca_error_get_name(st));
		peer_lost(NULL, how);
		return;
	}
	if (R.failed++ == 0)
		fprintf(stderr, "doca_perf: %s task failed: %s\n", what, doca_error_get_name(st));
}

static void
task_failed(struct doca_task *t, const char *what)
{
	report_failed(t, what);
	doca_task_free(t);
}

/* Free a task together with the one buffer it was given (receives, control messages). */
static void
free_with_buf(struct doca_task *t, const struct doca_buf *b)
{
	doca_task_free(t);
	if (b != NULL)
		doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)b, NULL);
}

/* A measured task completed: stamp its latency, resubmit it while the run goes on. */
static void
client_task_done(struct doca_task *t, uint64_t k, struct doca_buf *reset)
{
	uint64_t now = perf_ticks();

	if (R.measuring)
		perf_hist_add(R.lat_hist, now - R.stamp[k]);
	else if (R.done + 1 == R.warmup)
		measure_start(R.warmup);
	R.done++;
	if (reset != NULL)
		doca_buf_reset_data_len(reset);
	if (R.running && (R.limit == 0 || R.submitted < R.limit)) {
		R.stamp[k] = now;
		if (doca_task_submit(t) == DOCA_SUCCESS) {
			R.submitted++;
			return;
		}
		R.failed++;
	}
	doca_task_free(t);
}

static void
write_ok(struct doca_rdma_task_write *task, union doca_data ud, union doca_data cud)
{
	(void)cud;
	client_task_done(doca_rdma_task_write_as_task(task), ud.u64, doca_rdma_task_write_get_dst_buf(task));
}

static void
write_err(struct doca_rdma_task_write *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	task_failed(doca_rdma_task_write_as_task(task), "write");
}

static void
read_ok(struct doca_rdma_task_read *task, union doca_data ud, union doca_data cud)
{
	(void)cud;
	client_task_done(doca_rdma_task_read_as_task(task), ud.u64, doca_rdma_task_read_get_dst_buf(task));
}

static void
read_err(struct doca_rdma_task_read *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	task_failed(doca_rdma_task_read_as_task(task), "read");
}

static void
fadd_ok(struct doca_rdma_task_atomic_fetch_add *task, union doca_data ud, union doca_data cud)
{
	(void)cud;
	client_task_done(doca_rdma_task_atomic_fetch_add_as_task(task), ud.u64,
			 doca_rdma_task_atomic_fetch_add_get_result_buf(task));
}

static void
fadd_err(struct doca_rdma_task_atomic_fetch_add *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	task_failed(doca_rdma_task_atomic_fetch_add_as_task(task), "atomic fetch-add");
}

static void lat_next(void);

static void
send_ok(struct doca_rdma_task_send *task, union doca_data ud, union doca_data cud)
{
	(void)cud;
	if (R.server) {
		/* An echo (or the descriptor message) went out; send the next queued echo. */
		if (task != R.echo) {
			free_with_buf(doca_rdma_task_send_as_task(task), doca_rdma_task_send_get_src_buf(task));
			return;
		}
		R.echo_busy = false;
		if (R.echo_pending > 0) {
			uint32_t len = R.echo_len[0];

			memmove(R.echo_len, R.echo_len + 1, sizeof(R.echo_len) - sizeof(R.echo_len[0]));
			R.echo_pending--;
			doca_buf_set_data(R.echo_buf, R.mem, len);
			R.echo_busy = doca_task_submit(doca_rdma_task_send_as_task(R.echo)) == DOCA_SUCCESS;
		}
		return;
	}
	if (R.lat) {
		R.lat_send_done = true;
		lat_next();
		return;
	}
	client_task_done(doca_rdma_task_send_as_task(task), ud.u64, NULL);
}

static void
send_err(struct doca_rdma_task_send *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	if (R.server && task == R.echo) {
		R.echo_busy = false;
		if (!R.stopping)
			R.failed++;
		return;
	}
	if (R.server) {
		report_failed(doca_rdma_task_send_as_task(task), "send");
		free_with_buf(doca_rdma_task_send_as_task(task), doca_rdma_task_send_get_src_buf(task));
		return;
	}
	task_failed(doca_rdma_task_send_as_task(task), "send");
}

static void
imm_ok(struct doca_rdma_task_send_imm *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	/* The server has its end-of-run message: a disconnect from now on is the orderly end. */
	R.done_sent = true;
	free_with_buf(doca_rdma_task_send_imm_as_task(task), doca_rdma_task_send_imm_get_src_buf(task));
}

static void
imm_err(struct doca_rdma_task_send_imm *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	report_failed(doca_rdma_task_send_imm_as_task(task), "send_imm (done message)");
	free_with_buf(doca_rdma_task_send_imm_as_task(task), doca_rdma_task_send_imm_get_src_buf(task));
}

static void
recv_ok(struct doca_rdma_task_receive *task, union doca_data ud, union doca_data cud)
{
	struct doca_buf *dst = doca_rdma_task_receive_get_dst_buf(task);
	struct doca_task *t = doca_rdma_task_receive_as_task(task);
	uint32_t len = doca_rdma_task_receive_get_result_len(task);

	(void)cud;
	if (R.server) {
		if (doca_rdma_task_receive_get_result_opcode(task) == DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM &&
		    doca_rdma_task_receive_get_result_immediate_data(task) == DONE_IMM) {
			R.peer_done = true;
		} else if (R.lat) {
			if (!R.echo_busy) {
				doca_buf_set_data(R.echo_buf, R.mem, len);
				R.echo_busy = doca_task_submit(doca_rdma_task_send_as_task(R.echo)) == DOCA_SUCCESS;
			} else if (R.echo_pending < 64) {
				R.echo_len[R.echo_pending++] = len;
			}
		}
	} else if (ud.u64 == UINT64_MAX) {
		/* The client's control receive: the server's memory descriptor (CM mode). */
		void *data;

		doca_buf_get_data(dst, &data);
		if (doca_mmap_create_from_export(NULL, data, len, R.dev, &R.remote) != DOCA_SUCCESS) {
			fprintf(stderr, "doca_perf: the server's memory descriptor was refused\n");
			R.failed++;
		}
		R.have_desc = true;
		free_with_buf(t, dst);
		return;
	} else if (R.lat) {
		uint64_t now = perf_ticks();

		if (R.measuring)
			perf_hist_add(R.lat_hist, (now - R.stamp[0]) / 2);
		R.lat_recv_done = true;
	}
	doca_buf_reset_data_len(dst);
	if (R.stopping || (!R.server && !R.running && !R.lat) || doca_task_submit(t) != DOCA_SUCCESS)
		free_with_buf(t, dst);
	if (!R.server && R.lat)
		lat_next();
}

static void
recv_err(struct doca_rdma_task_receive *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	report_failed(doca_rdma_task_receive_as_task(task), "receive");
	free_with_buf(doca_rdma_task_receive_as_task(task), doca_rdma_task_receive_get_dst_buf(task));
}

/* Client ping-pong: the next ping once both the send and the echo completed. */
static void
lat_next(void)
{
	uint64_t now;

	if (!R.lat_send_done || !R.lat_recv_done)
		return;
	if (!R.measuring && R.done + 1 == R.warmup)
		measure_start(R.warmup);
	R.done++;
	if (!R.running || (R.limit != 0 && R.submitted >= R.limit))
		return;
	R.lat_send_done = R.lat_recv_done = false;
	now = perf_ticks();
	R.stamp[0] = now;
	if (doca_task_submit(R.lat_send) != DOCA_SUCCESS)
		R.failed++;
	else
		R.submitted++;
}

static void
conn_request(struct doca_rdma_connection *c, union doca_data cud)
{
	(void)cud;
	if (doca_rdma_connection_accept(c, NULL, 0) != DOCA_SUCCESS)
		R.failed++;
}

static void
conn_established(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	if (R.established < MAX_CONNS)
		R.conn[R.established++] = c;
}

static void
conn_failure(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	if (R.established == 0) {
		fprintf(stderr, "doca_perf: RDMA-CM connection failed\n");
		R.failed++;
		return;
	}
	peer_lost(c, "its RDMA-CM connection failed");
}

/*
 * The library reports every completion of the connection before its disconnect
 * callback, so a server that has not seen DONE_IMM by now never will: the client
 * went away in the middle of the run.  Likewise a client whose DONE_IMM was not
 * placed yet.
 */
static void
conn_disconnect(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	if (R.server ? !R.peer_done : !R.done_sent)
		peer_lost(c, "it disconnected before the end of the run");
	doca_rdma_connection_disconnect(c);
}

/* ---- setup --------------------------------------------------------------------------- */

static void
progress_until(bool *flag, double timeout, const char *what)
{
	double t0 = perf_now();

	while (!*flag) {
		doca_pe_progress(R.pe);
		if (R.failed || perf_now() - t0 > timeout) {
			fprintf(stderr, "doca_perf: %s %s\n", what, R.failed ? "failed" : "timed out");
			exit(1);
		}
	}
}

static void
ctx_open(void)
{
	uint32_t tasks = R.per_conn * R.conns;
	uint32_t recvs = R.server ? (R.op == OP_SEND ? tasks : 0) + SERVER_RECVS_MIN : 4;
	uint32_t perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |
			DOCA_ACCESS_FLAG_RDMA_ATOMIC;
	enum doca_ctx_states st;

	PERF_TRY(doca_pe_create(&R.pe));
	PERF_TRY(doca_rdma_create(R.dev, &R.rdma));
	R.ctx = doca_rdma_as_ctx(R.rdma);
	PERF_TRY(doca_rdma_set_permissions(R.rdma, perm));
	PERF_TRY(doca_rdma_set_max_num_connections(R.rdma, (uint16_t)R.conns));
	PERF_TRY(doca_rdma_set_send_queue_size(R.rdma, tasks + 8));
	PERF_TRY(doca_rdma_set_recv_queue_size(R.rdma, recvs + 8));
	PERF_TRY(doca_rdma_task_receive_set_conf(R.rdma, recv_ok, recv_err, recvs));
	PERF_TRY(doca_rdma_task_send_set_conf(R.rdma, send_ok, send_err, R.server ? 4 : tasks + 4));
	PERF_TRY(doca_rdma_task_send_imm_set_conf(R.rdma, imm_ok, imm_err, 4));
	if (!R.server) {
		PERF_TRY(doca_rdma_task_write_set_conf(R.rdma, write_ok, write_err, tasks));
		PERF_TRY(doca_rdma_task_read_set_conf(R.rdma, read_ok, read_err, tasks));
		PERF_TRY(doca_rdma_task_atomic_fetch_add_set_conf(R.rdma, fadd_ok, fadd_err, tasks));
	}
	if (R.o->use_cm)
		PERF_TRY(doca_rdma_set_connection_state_callbacks(R.rdma, R.server ? conn_request : NULL,
								  conn_established, conn_failure, conn_disconnect));
	PERF_TRY(doca_pe_connect_ctx(R.pe, R.ctx));
	PERF_TRY(doca_ctx_start(R.ctx));
	do {
		doca_pe_progress(R.pe);
		PERF_TRY(doca_ctx_get_state(R.ctx, &st));
	} while (st == DOCA_CTX_STATE_STARTING);
	if (st != DOCA_CTX_STATE_RUNNING) {
		fprintf(stderr, "doca_perf: the RDMA context did not start\n");
		exit(1);
	}
	PERF_TRY(doca_buf_inventory_create((size_t)tasks * 2 + recvs + 16, &R.inv));
	PERF_TRY(doca_buf_inventory_start(R.inv));

	R.mem = perf_page_alloc(R.area + 2 * CTL_BYTES);
	if (R.mem == NULL) {
		fprintf(stderr, "doca_perf: cannot allocate %zu bytes\n", R.area);
		exit(1);
	}
	for (size_t i = 0; i < R.area + 2 * CTL_BYTES; i++)
		R.mem[i] = (uint8_t)(i * 13 + 1);
	PERF_TRY(doca_mmap_create(&R.mmap));
	PERF_TRY(doca_mmap_set_memrange(R.mmap, R.mem, R.area + 2 * CTL_BYTES));
	PERF_TRY(doca_mmap_set_permissions(R.mmap, perm));
	PERF_TRY(doca_mmap_add_dev(R.mmap, R.dev));
	PERF_TRY(doca_mmap_start(R.mmap));
}

static uint8_t *
ctl_mem(int i)
{
	return R.mem + R.area + (size_t)i * CTL_BYTES;
}

/* Post a receive of `len` bytes at `at`; ud UINT64_MAX marks the client's control receive. */
static void
post_recv(uint8_t *at, size_t len, uint64_t ud_val)
{
	struct doca_rdma_task_receive *t;
	struct doca_buf *b;
	union doca_data ud = {.u64 = ud_val};

	PERF_TRY(doca_buf_inventory_buf_get_by_addr(R.inv, R.mmap, at, len, &b));
	PERF_TRY(doca_rdma_task_receive_allocate_init(R.rdma, b, ud, &t));
	PERF_TRY(doca_task_submit(doca_rdma_task_receive_as_task(t)));
}

static void
connect_oob(void)
{
	const char *dir = R.o->oob_dir;
	const char *me = R.server ? "server" : "client", *peer = R.server ? "client" : "server";
	char name[64], ready[64];
	const void *desc;
	size_t len;
	uint32_t *peer_nonce;

	if (!R.server) {
		/* The server's ready file names its nonce: our files answer that run only. */
		peer_nonce = perf_oob_wait(dir, "server.ready", &len, 60, "server");
		R.nonce = *peer_nonce;
		free(peer_nonce);
	}
	for (uint32_t i = 0; i < R.conns; i++) {
		PERF_TRY(doca_rdma_export(R.rdma, &desc, &len, &R.conn[i]));
		snprintf(name, sizeof(name), "%s.conn.%u", me, i);
		perf_oob_put(dir, name, desc, len);
	}
	if (R.server) {
		PERF_TRY(doca_mmap_export_rdma(R.mmap, R.dev, &desc, &len));
		perf_oob_put(dir, "server.mmap", desc, len);
		snprintf(ready, sizeof(ready), "server.ready");
		perf_oob_put(dir, ready, &R.nonce, sizeof(R.nonce));
		/* Wait for the client that answers this nonce. */
		for (;;) {
			peer_nonce = perf_oob_wait(dir, "client.ready", &len, 3600, "client");
			if (len == sizeof(R.nonce) && *peer_nonce == R.nonce)
				break;
			free(peer_nonce);
			usleep(10000);
		}
		free(peer_nonce);
	} else {
		void *m = perf_oob_wait(dir, "server.mmap", &len, 10, "server");

		PERF_TRY(doca_mmap_create_from_export(NULL, m, len, R.dev, &R.remote));
		free(m);
		perf_oob_put(dir, "client.ready", &R.nonce, sizeof(R.nonce));
	}
	for (uint32_t i = 0; i < R.conns; i++) {
		void *blob;

		snprintf(name, sizeof(name), "%s.conn.%u", peer, i);
		blob = perf_oob_wait(dir, name, &len, 10, peer);
		PERF_TRY(doca_rdma_connect(R.rdma, blob, len, R.conn[i]));
		free(blob);
	}
	R.established = R.conns;
}

static void
connect_cm(void)
{
	bool all = false;

	if (R.server) {
		PERF_TRY(doca_rdma_start_listen_to_port(R.rdma, R.o->port));
		if (R.ready_fd >= 0 && (write(R.ready_fd, "L", 1) != 1 || close(R.ready_fd) != 0))
			exit(1);
		while (!all) {
			doca_pe_progress(R.pe);
			all = R.established >= R.conns;
			if (R.failed)
				exit(1);
		}
		/* The memory descriptor goes to the client as the first message. */
		if (R.op != OP_SEND) {
			const void *desc;
			size_t len;
			struct doca_buf *b;
			struct doca_rdma_task_send *t;
			union doca_data ud = {.u64 = 0};

			PERF_TRY(doca_mmap_export_rdma(R.mmap, R.dev, &desc, &len));
			if (len > CTL_BYTES) {
				fprintf(stderr, "doca_perf: memory descriptor larger than %d bytes\n", CTL_BYTES);
				exit(1);
			}
			memcpy(ctl_mem(0), desc, len);
			PERF_TRY(doca_buf_inventory_buf_get_by_data(R.inv, R.mmap, ctl_mem(0), len, &b));
			PERF_TRY(doca_rdma_task_send_allocate_init(R.rdma, R.conn[0], b, ud, &t));
			PERF_TRY(doca_task_submit(doca_rdma_task_send_as_task(t)));
		}
		return;
	} else {
		struct doca_rdma_addr *addr;
		const char *ip = R.o->server_addr != NULL ? R.o->server_addr : "127.0.0.1";

		if (R.op != OP_SEND)
			post_recv(ctl_mem(1), CTL_BYTES, UINT64_MAX);
		if (R.ready_fd >= 0) {
			char c;

			if (perf_child_wait_byte(R.ready_fd, &c, 60, "the server to start listening") != 0)
				exit(1);
		}
		PERF_TRY(doca_rdma_addr_create(strchr(ip, ':') ? DOCA_RDMA_ADDR_TYPE_IPv6 : DOCA_RDMA_ADDR_TYPE_IPv4,
					       ip, R.o->port, &addr));
		for (uint32_t i = 0; i < R.conns; i++) {
			union doca_data ud = {.u64 = i};

			PERF_TRY(doca_rdma_connect_to_addr(R.rdma, addr, ud));
		}
		while (!all) {
			doca_pe_progress(R.pe);
			all = R.established >= R.conns;
			if (R.failed)
				exit(1);
			perf_child_check("its RDMA-CM connections");
		}
		doca_rdma_addr_destroy(addr);
		if (R.op != OP_SEND)
			progress_until(&R.have_desc, 30, "waiting for the server's memory descriptor");
	}
}

static void
ctx_close(void)
{
	enum doca_ctx_states st;

	R.stopping = true;
	if (doca_ctx_stop(R.ctx) == DOCA_ERROR_IN_PROGRESS) {
		do {
			doca_pe_progress(R.pe);
			doca_ctx_get_state(R.ctx, &st);
		} while (st != DOCA_CTX_STATE_IDLE);
	}
	doca_rdma_destroy(R.rdma);
	doca_pe_destroy(R.pe);
	/* the rest of what the run made: the process ends holding nothing (leak checkers agree) */
	if (R.inv != NULL) {
		doca_buf_inventory_stop(R.inv);
		doca_buf_inventory_destroy(R.inv);
	}
	if (R.remote != NULL)
		doca_mmap_destroy(R.remote);
	if (R.mmap != NULL) {
		doca_mmap_stop(R.mmap);
		doca_mmap_destroy(R.mmap);
	}
	free(R.mem);
	doca_dev_close(R.dev);
}

/* ---- server ------------------------------------------------------------------------- */

static int
server_main(void)
{
	doca_notification_handle_t fd;
	union doca_data ud = {.u64 = 0};
	uint32_t recvs = (R.op == OP_SEND ? R.per_conn * R.conns : 0) + SERVER_RECVS_MIN;
	size_t rsize = R.op == OP_SEND ? R.max_size : 64;
	uint32_t slots = (uint32_t)(R.area / rsize);
	enum doca_ctx_states st;
	uint64_t quiet = 0;

	if (R.o->use_cm)
		connect_cm();
	else
		connect_oob();
	if (R.op == OP_SEND) {
		PERF_TRY(doca_buf_inventory_buf_get_by_data(R.inv, R.mmap, R.mem, R.max_size, &R.echo_buf));
		PERF_TRY(doca_rdma_task_send_allocate_init(R.rdma, R.conn[0], R.echo_buf, ud, &R.echo));
	}
	/* Receives share slots of the data area (the bytes are not looked at), or the control area. */
	for (uint32_t i = 0; i < recvs; i++) {
		if (R.op == OP_SEND && slots > 0)
			post_recv(R.mem + (size_t)(i % slots) * rsize, rsize, i);
		else
			post_recv(ctl_mem(1) + (i % 8) * 64, 64, i);
	}
	PERF_TRY(doca_pe_get_notification_handle(R.pe, &fd));
	/*
	 * Busy-poll for ping-pong (as ucx_perftest's responder does); otherwise sleep
	 * when quiet.  The run ends with DONE_IMM, or with a failure: a receive that
	 * fails, a disconnect before DONE_IMM (callbacks above), or the context
	 * stopping itself after a failed task.
	 */
	while (!R.peer_done && !R.failed) {
		if (doca_pe_progress(R.pe)) {
			quiet = 0;
			continue;
		}
		if (++quiet % 1024 == 0 && doca_ctx_get_state(R.ctx, &st) == DOCA_SUCCESS &&
		    st != DOCA_CTX_STATE_RUNNING) {
			peer_lost(NULL, "the RDMA context stopped itself (a task on the client's connection failed)");
			break;
		}
		if (R.lat || quiet < 1024)
			continue;
		struct pollfd p = {.fd = (int)fd, .events = POLLIN};

		doca_pe_request_notification(R.pe);
		poll(&p, 1, 100);
		doca_pe_clear_notification(R.pe, fd);
		quiet = 0;
	}
	if (R.o->role == 1)
		fprintf(stderr, "doca_perf: server: %u connection(s) served, peer %s\n", R.conns,
			R.peer_done   ? "done"
			: R.peer_lost ? "lost"
				      : "failed");
	if (R.echo != NULL && !R.echo_busy)
		free_with_buf(doca_rdma_task_send_as_task(R.echo), R.echo_buf);
	ctx_close();
	if (R.o->role == 1 && R.o->oob_dir != NULL)
		perf_oob_remove(R.o->oob_dir, MAX_CONNS);
	return R.failed ? 1 : 0;
}

/* ---- client ------------------------------------------------------------------------- */

static void
run_size(size_t size, struct perf_result *r)
{
	uint32_t depth = R.lat ? 1 : R.per_conn * R.conns;
	size_t slots = perf_slots(R.o, size, depth);
	struct doca_buf **lb = calloc(depth, sizeof(*lb)), **rb = calloc(depth, sizeof(*rb));
	uint64_t next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	double t, cpu1;
	size_t inflight;

	if (lb == NULL || rb == NULL)
		exit(1);
	if (R.op != OP_SEND && slots * size > R.rlen) {
		fprintf(stderr,
			"doca_perf: the server's area (%zu B) is smaller than size %zu x %zu slots; give the "
			"server the same -s and -t\n",
			R.rlen, size, slots);
		exit(1);
	}
	memset(r, 0, sizeof(*r));
	R.lat_hist = &r->lat;
	R.stamp = calloc(depth, sizeof(*R.stamp));
	R.submitted = R.done = R.failed = R.done0 = 0;
	R.measuring = false;
	R.running = true;
	R.warmup = R.o->warmup;
	R.limit = R.o->iters ? R.o->iters + R.o->warmup : 0;
	if (R.warmup == 0)
		measure_start(0);

	for (uint32_t k = 0; k < depth; k++) {
		size_t off = (k % slots) * size;
		struct doca_rdma_connection *c = R.conn[k % R.conns];
		union doca_data ud = {.u64 = k};
		struct doca_task *task = NULL;

		switch (R.op) {
		case OP_WRITE: {
			struct doca_rdma_task_write *w;

			PERF_TRY(doca_buf_inventory_buf_get_by_data(R.inv, R.mmap, R.mem + off, size, &lb[k]));
			PERF_TRY(doca_buf_inventory_buf_get_by_addr(R.inv, R.remote, R.raddr + off, size, &rb[k]));
			PERF_TRY(doca_rdma_task_write_allocate_init(R.rdma, c, lb[k], rb[k], ud, &w));
			task = doca_rdma_task_write_as_task(w);
			break;
		}
		case OP_READ: {
			struct doca_rdma_task_read *rd;

			PERF_TRY(doca_buf_inventory_buf_get_by_addr(R.inv, R.mmap, R.mem + off, size, &lb[k]));
			PERF_TRY(doca_buf_inventory_buf_get_by_data(R.inv, R.remote, R.raddr + off, size, &rb[k]));
			PERF_TRY(doca_rdma_task_read_allocate_init(R.rdma, c, rb[k], lb[k], ud, &rd));
			task = doca_rdma_task_read_as_task(rd);
			break;
		}
		case OP_ATOMIC: {
			struct doca_rdma_task_atomic_fetch_add *a;

			PERF_TRY(doca_buf_inventory_buf_get_by_addr(R.inv, R.mmap, R.mem + off, 8, &lb[k]));
			PERF_TRY(doca_buf_inventory_buf_get_by_addr(R.inv, R.remote, R.raddr + off, 8, &rb[k]));
			PERF_TRY(doca_rdma_task_atomic_fetch_add_allocate_init(R.rdma, c, rb[k], lb[k], 1, ud, &a));
			task = doca_rdma_task_atomic_fetch_add_as_task(a);
			break;
		}
		case OP_SEND: {
			struct doca_rdma_task_send *s;

			PERF_TRY(doca_buf_inventory_buf_get_by_data(R.inv, R.mmap, R.mem + off, size, &lb[k]));
			PERF_TRY(doca_rdma_task_send_allocate_init(R.rdma, c, lb[k], ud, &s));
			task = doca_rdma_task_send_as_task(s);
			break;
		}
		}
		if (R.lat) {
			R.lat_send = task;
			R.lat_send_done = R.lat_recv_done = false;
		}
		if (R.limit != 0 && R.submitted >= R.limit) {
			doca_task_free(task);
			continue;
		}
		R.stamp[k] = perf_ticks();
		PERF_TRY(doca_task_submit(task));
		R.submitted++;
	}
	for (;;) {
		doca_pe_progress(R.pe);
		if (perf_ticks() < next_check)
			continue;
		next_check = perf_ticks() + ms_ticks;
		if (R.failed)
			break;
		if (!R.measuring)
			continue;
		if (!perf_keep_going(R.o, size, R.done - R.done0, R.t0, perf_now()))
			break;
		if (R.limit && R.done >= R.limit)
			break;
	}
	R.running = false;
	/* Drain; a ping-pong ends when its last ping and echo are both back (the receive stays posted). */
	do {
		doca_pe_progress(R.pe);
		doca_ctx_get_num_inflight_tasks(R.ctx, &inflight);
	} while (!R.failed && (R.lat ? !(R.lat_send_done && R.lat_recv_done) : inflight > 0));
	t = perf_now();
	perf_cpu_seconds(&cpu1);
	if (R.failed) {
		fprintf(stderr, "doca_perf: %llu RDMA tasks failed at size %zu\n", (unsigned long long)R.failed, size);
		exit(1);
	}
	if (R.lat)
		doca_task_free(R.lat_send);
	r->size = size;
	r->tasks = R.done - R.done0;
	r->seconds = t - R.t0;
	r->cpu_seconds = cpu1 - R.cpu0;
	for (uint32_t k = 0; k < depth; k++) {
		if (lb[k] != NULL)
			doca_buf_dec_refcount(lb[k], NULL);
		if (rb[k] != NULL)
			doca_buf_dec_refcount(rb[k], NULL);
	}
	free(lb);
	free(rb);
	free(R.stamp);
}

static int
client_main(void)
{
	struct perf_result *r = malloc(sizeof(*r));
	char title[256], cfg[512];
	const char *opname[] = {"write", "read", "send", "atomic fetch-add"};
	void *raddr;

	if (r == NULL)
		exit(1);
	if (R.o->use_cm)
		connect_cm();
	else
		connect_oob();
	if (R.remote != NULL) {
		PERF_TRY(doca_mmap_get_memrange(R.remote, &raddr, &R.rlen));
		R.raddr = raddr;
	}
	if (R.lat)
		post_recv(R.mem + R.area - R.max_size, R.max_size, 0);

	snprintf(title, sizeof(title), "rdma %s%s  connections %u  depth %u/connection  %s", opname[R.op],
		 R.lat ? " (ping-pong, half round trip)" : "", R.conns, R.lat ? 1 : R.per_conn,
		 R.o->use_cm ? "RDMA-CM" : "OOB files");
	snprintf(cfg, sizeof(cfg),
		 "\"op\":\"%s\",\"lat\":%s,\"connections\":%u,\"depth\":%u,\"connect\":\"%s\",\"iters\":%llu,"
		 "\"duration\":%.3f",
		 opname[R.op], R.lat ? "true" : "false", R.conns, R.lat ? 1 : R.per_conn, R.o->use_cm ? "cm" : "oob",
		 (unsigned long long)R.o->iters, R.o->duration);
	perf_report_begin(R.o, title, cfg);
	for (unsigned i = 0; i < R.o->nsizes; i++) {
		run_size(R.op == OP_ATOMIC ? 8 : R.o->sizes[i], r);
		perf_progress_end(R.o);
		perf_report_row(R.o, r);
		if (R.op == OP_ATOMIC)
			break;
	}
	perf_report_end(R.o);
	free(r);

	if (R.o->idle > 0) {
		struct timespec ts = {(time_t)R.o->idle, (long)((R.o->idle - (double)(time_t)R.o->idle) * 1e9)};

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	/* Tell the server the run is over (after everything this connection carried). */
	{
		struct doca_rdma_task_send_imm *t;
		struct doca_buf *b;
		union doca_data ud = {.u64 = 0};
		size_t inflight;

		PERF_TRY(doca_buf_inventory_buf_get_by_data(R.inv, R.mmap, ctl_mem(0), 1, &b));
		PERF_TRY(doca_rdma_task_send_imm_allocate_init(R.rdma, R.conn[0], b, DONE_IMM, ud, &t));
		PERF_TRY(doca_task_submit(doca_rdma_task_send_imm_as_task(t)));
		do {
			doca_pe_progress(R.pe);
			doca_ctx_get_num_inflight_tasks(R.ctx, &inflight);
		} while (inflight > (R.lat ? 1u : 0u) && !R.failed);
	}
	ctx_close();
	return R.failed ? 1 : 0;
}

int
perf_rdma_side(struct perf_opts *o, bool server, int ready_fd)
{
	int rc;

	memset(&R, 0, sizeof(R));
	R.o = o;
	R.op = strcmp(o->test, "write") == 0  ? OP_WRITE
	       : strcmp(o->test, "read") == 0 ? OP_READ
	       : strcmp(o->test, "send") == 0 ? OP_SEND
					      : OP_ATOMIC;
	R.lat = o->lat;
	R.server = server;
	R.ready_fd = ready_fd;
	R.conns = o->conns;
	R.per_conn = o->depth;
	for (unsigned i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > R.max_size)
			R.max_size = o->sizes[i];
	if (R.op == OP_ATOMIC)
		R.max_size = 8;
	R.area = perf_slots(o, R.max_size, (size_t)R.per_conn * R.conns) * R.max_size;
	if (R.lat)
		R.area = 2 * R.max_size;
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		R.nonce = (uint32_t)getpid() ^ (uint32_t)ts.tv_nsec;
	}
	/* Stale files of an earlier run must not be mistaken for this one's. */
	if (R.server && o->oob_dir != NULL)
		perf_oob_remove(o->oob_dir, MAX_CONNS);
	R.dev = perf_open_dev(o->ibdev, DEFAULT_DEV);
	ctx_open();
	rc = R.server ? server_main() : client_main();
	return rc;
}
