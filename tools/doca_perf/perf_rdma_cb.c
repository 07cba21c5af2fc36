/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma, the callbacks: task completions (the client stamps and
 * resubmits, the server echoes pings and watches for the end-of-run message)
 * and RDMA-CM connection events.  Each gets the side's struct perf_rdma as the
 * RDMA context's user data; a client task's own user data is its index.
 */
#include <stdio.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_rdma.h>

#include "perf_rdma.h"

static struct perf_rdma *
run_of(union doca_data cud)
{
	return cud.ptr;
}

/* The measurement starts at the warm-up's last completion, tasks still in flight. */
void
perf_rdma_measure_start(struct perf_rdma *r, uint64_t done0)
{
	r->measuring = true;
	r->done0 = done0;
	r->t0 = perf_now();
	perf_cpu_seconds(&r->cpu0);
}

/*
 * The other side is gone (its process died, it disconnected early, its
 * connection failed): say so once, naming it, and fail the run.
 */
void
perf_rdma_peer_lost(struct perf_rdma *r, struct doca_rdma_connection *c, const char *how)
{
	const char *me = r->server ? "server" : "client", *peer = r->server ? "client" : "server";
	uint32_t id;

	if (r->stopping || r->peer_lost)
		return;
	r->peer_lost = true;
	r->failed++;
	if (c != NULL && doca_rdma_connection_get_id(c, &id) == DOCA_SUCCESS)
		fprintf(stderr, "doca_perf: %s: lost the %s (connection id %u): %s\n", me, peer, id, how);
	else
		fprintf(stderr, "doca_perf: %s: lost the %s: %s\n", me, peer, how);
}

static bool
is_peer_loss(doca_error_t st)
{
	return st == DOCA_ERROR_CONNECTION_RESET || st == DOCA_ERROR_CONNECTION_ABORTED ||
	       st == DOCA_ERROR_NOT_CONNECTED;
}

static void
report_failed(struct perf_rdma *r, struct doca_task *t, const char *what)
{
	doca_error_t st = doca_task_get_status(t);
	char how[128];

	if (r->stopping)
		return;
	/* A server's receives only fail when the client's side broke (they are its only tasks). */
	if (is_peer_loss(st) || (r->server && strcmp(what, "receive") == 0)) {
		snprintf(how, sizeof(how), "a %s task failed with %s", what, doca_error_get_name(st));
		perf_rdma_peer_lost(r, NULL, how);
		return;
	}
	if (r->failed++ == 0)
		fprintf(stderr, "doca_perf: %s task failed: %s\n", what, doca_error_get_name(st));
}

static void
task_failed(struct perf_rdma *r, struct doca_task *t, const char *what)
{
	report_failed(r, t, what);
	doca_task_free(t);
}

void
perf_rdma_free_with_buf(struct doca_task *t, const struct doca_buf *b)
{
	doca_task_free(t);
	if (b != NULL)
		doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)b, NULL);
}

/*
 * A client task k completed: stamp its latency once the measurement runs (or
 * start it at the warm-up's last completion), resubmit it while the run goes on.
 */
static void
client_task_done(struct perf_rdma *r, struct doca_task *t, uint64_t k, struct doca_buf *reset)
{
	uint64_t now = perf_ticks();

	if (r->measuring)
		perf_hist_add(r->lat_hist, now - r->stamp[k]);
	else if (r->done + 1 == r->warmup)
		perf_rdma_measure_start(r, r->warmup);
	r->done++;
	if (reset != NULL)
		doca_buf_reset_data_len(reset);
	if (r->running && (r->limit == 0 || r->submitted < r->limit)) {
		r->stamp[k] = now;
		if (perf_rdma_submit(r, t) == DOCA_SUCCESS) {
			r->submitted++;
			return;
		}
		r->failed++;
	}
	doca_task_free(t);
}

static void
write_ok(struct doca_rdma_task_write *task, union doca_data ud, union doca_data cud)
{
	client_task_done(run_of(cud), doca_rdma_task_write_as_task(task), ud.u64,
			 doca_rdma_task_write_get_dst_buf(task));
}

static void
write_err(struct doca_rdma_task_write *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	task_failed(run_of(cud), doca_rdma_task_write_as_task(task), "write");
}

static void
read_ok(struct doca_rdma_task_read *task, union doca_data ud, union doca_data cud)
{
	client_task_done(run_of(cud), doca_rdma_task_read_as_task(task), ud.u64, doca_rdma_task_read_get_dst_buf(task));
}

static void
read_err(struct doca_rdma_task_read *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	task_failed(run_of(cud), doca_rdma_task_read_as_task(task), "read");
}

static void
fadd_ok(struct doca_rdma_task_atomic_fetch_add *task, union doca_data ud, union doca_data cud)
{
	client_task_done(run_of(cud), doca_rdma_task_atomic_fetch_add_as_task(task), ud.u64,
			 doca_rdma_task_atomic_fetch_add_get_result_buf(task));
}

static void
fadd_err(struct doca_rdma_task_atomic_fetch_add *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	task_failed(run_of(cud), doca_rdma_task_atomic_fetch_add_as_task(task), "atomic fetch-add");
}

/* Client ping-pong: the next ping once both the send and the echo completed. */
static void
lat_next(struct perf_rdma *r)
{
	if (!r->lat_send_done || !r->lat_recv_done)
		return;
	if (!r->measuring && r->done + 1 == r->warmup)
		perf_rdma_measure_start(r, r->warmup);
	r->done++;
	if (!r->running || (r->limit != 0 && r->submitted >= r->limit))
		return;
	r->lat_send_done = r->lat_recv_done = false;
	r->stamp[0] = perf_ticks();
	if (perf_rdma_submit(r, r->lat_send) != DOCA_SUCCESS)
		r->failed++;
	else
		r->submitted++;
}

/* Server: send len bytes of the data area back with the one echo task. */
static void
echo_submit(struct perf_rdma *r, uint32_t len)
{
	doca_buf_set_data(r->echo_buf, r->mem, len);
	r->echo_busy = perf_rdma_submit(r, doca_rdma_task_send_as_task(r->echo)) == DOCA_SUCCESS;
}

static void
send_ok(struct doca_rdma_task_send *task, union doca_data ud, union doca_data cud)
{
	struct perf_rdma *r = run_of(cud);

	if (r->server) {
		/* An echo (or the descriptor message) went out; send the next queued echo. */
		if (task != r->echo) {
			perf_rdma_free_with_buf(doca_rdma_task_send_as_task(task),
						doca_rdma_task_send_get_src_buf(task));
			return;
		}
		r->echo_busy = false;
		if (r->echo_pending > 0) {
			uint32_t len = r->echo_len[0];

			memmove(r->echo_len, r->echo_len + 1, sizeof(r->echo_len) - sizeof(r->echo_len[0]));
			r->echo_pending--;
			echo_submit(r, len);
		}
		return;
	}
	if (r->lat) {
		r->lat_send_done = true;
		lat_next(r);
		return;
	}
	client_task_done(r, doca_rdma_task_send_as_task(task), ud.u64, NULL);
}

static void
send_err(struct doca_rdma_task_send *task, union doca_data ud, union doca_data cud)
{
	struct perf_rdma *r = run_of(cud);

	(void)ud;
	if (r->server && task == r->echo) {
		r->echo_busy = false;
		if (!r->stopping)
			r->failed++;
		return;
	}
	if (r->server) {
		report_failed(r, doca_rdma_task_send_as_task(task), "send");
		perf_rdma_free_with_buf(doca_rdma_task_send_as_task(task), doca_rdma_task_send_get_src_buf(task));
		return;
	}
	task_failed(r, doca_rdma_task_send_as_task(task), "send");
}

static void
imm_ok(struct doca_rdma_task_send_imm *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	/* The server has its end-of-run message: a disconnect from now on is the orderly end. */
	run_of(cud)->done_sent = true;
	perf_rdma_free_with_buf(doca_rdma_task_send_imm_as_task(task), doca_rdma_task_send_imm_get_src_buf(task));
}

static void
imm_err(struct doca_rdma_task_send_imm *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	report_failed(run_of(cud), doca_rdma_task_send_imm_as_task(task), "send_imm (done message)");
	perf_rdma_free_with_buf(doca_rdma_task_send_imm_as_task(task), doca_rdma_task_send_imm_get_src_buf(task));
}

/* Server: the end-of-run message, or (ping-pong) a ping to echo now or once the echo task is free. */
static void
server_received(struct perf_rdma *r, struct doca_rdma_task_receive *task, uint32_t len)
{
	if (doca_rdma_task_receive_get_result_opcode(task) == DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM &&
	    doca_rdma_task_receive_get_result_immediate_data(task) == PERF_RDMA_DONE_IMM) {
		r->peer_done = true;
	} else if (r->lat) {
		if (!r->echo_busy)
			echo_submit(r, len);
		else if (r->echo_pending < PERF_RDMA_ECHO_QUEUE)
			r->echo_len[r->echo_pending++] = len;
	}
}

/* Client, CM mode: the control receive carries the server's memory descriptor. */
static void
client_got_desc(struct perf_rdma *r, struct doca_buf *dst, uint32_t len)
{
	void *data;

	doca_buf_get_data(dst, &data);
	if (doca_mmap_create_from_export(NULL, data, len, r->dev, &r->remote) != DOCA_SUCCESS) {
		fprintf(stderr, "doca_perf: the server's memory descriptor was refused\n");
		r->failed++;
	}
	r->have_desc = true;
}

static void
recv_ok(struct doca_rdma_task_receive *task, union doca_data ud, union doca_data cud)
{
	struct perf_rdma *r = run_of(cud);
	struct doca_buf *dst = doca_rdma_task_receive_get_dst_buf(task);
	struct doca_task *t = doca_rdma_task_receive_as_task(task);
	uint32_t len = doca_rdma_task_receive_get_result_len(task);

	if (r->server) {
		server_received(r, task, len);
	} else if (ud.u64 == PERF_RDMA_CTL_RECV) {
		client_got_desc(r, dst, len);
		perf_rdma_free_with_buf(t, dst);
		return;
	} else if (r->lat) {
		uint64_t now = perf_ticks();

		if (r->measuring)
			perf_hist_add(r->lat_hist, (now - r->stamp[0]) / 2);
		r->lat_recv_done = true;
	}
	doca_buf_reset_data_len(dst);
	if (r->stopping || (!r->server && !r->running && !r->lat) || perf_rdma_submit(r, t) != DOCA_SUCCESS)
		perf_rdma_free_with_buf(t, dst);
	if (!r->server && r->lat)
		lat_next(r);
}

static void
recv_err(struct doca_rdma_task_receive *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	report_failed(run_of(cud), doca_rdma_task_receive_as_task(task), "receive");
	perf_rdma_free_with_buf(doca_rdma_task_receive_as_task(task), doca_rdma_task_receive_get_dst_buf(task));
}

static void
conn_request(struct doca_rdma_connection *c, union doca_data cud)
{
	if (doca_rdma_connection_accept(c, NULL, 0) != DOCA_SUCCESS)
		run_of(cud)->failed++;
}

static void
conn_established(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	struct perf_rdma *r = run_of(cud);

	(void)ud;
	if (r->established < PERF_RDMA_MAX_CONNS)
		r->conn[r->established++] = c;
}

static void
conn_failure(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	struct perf_rdma *r = run_of(cud);

	(void)ud;
	if (r->established == 0) {
		fprintf(stderr, "doca_perf: RDMA-CM connection failed\n");
		r->failed++;
		return;
	}
	perf_rdma_peer_lost(r, c, "its RDMA-CM connection failed");
}

/*
 * The library reports every completion of the connection before its disconnect
 * callback, so a server that has not seen PERF_RDMA_DONE_IMM by now never will:
 * the client went away in the middle of the run.  Likewise a client whose
 * PERF_RDMA_DONE_IMM was not placed yet.
 */
static void
conn_disconnect(struct doca_rdma_connection *c, union doca_data ud, union doca_data cud)
{
	struct perf_rdma *r = run_of(cud);

	(void)ud;
	if (r->server ? !r->peer_done : !r->done_sent)
		perf_rdma_peer_lost(r, c, "it disconnected before the end of the run");
	doca_rdma_connection_disconnect(c);
}

/*
 * The task kinds a side uses, with their callbacks: receives, sends (the
 * server's: the echo and the descriptor message) and the done message on both
 * sides, the one-sided ops on the client; RDMA-CM events with -cm.
 */
void
perf_rdma_set_task_conf(struct perf_rdma *r)
{
	uint32_t tasks = r->per_conn * r->conns;

	PERF_TRY(doca_rdma_task_receive_set_conf(r->rdma, recv_ok, recv_err, perf_rdma_recvs(r)));
	PERF_TRY(doca_rdma_task_send_set_conf(r->rdma, send_ok, send_err, r->server ? 4 : tasks + 4));
	PERF_TRY(doca_rdma_task_send_imm_set_conf(r->rdma, imm_ok, imm_err, 4));
	if (!r->server) {
		PERF_TRY(doca_rdma_task_write_set_conf(r->rdma, write_ok, write_err, tasks));
		PERF_TRY(doca_rdma_task_read_set_conf(r->rdma, read_ok, read_err, tasks));
		PERF_TRY(doca_rdma_task_atomic_fetch_add_set_conf(r->rdma, fadd_ok, fadd_err, tasks));
	}
	if (r->o->use_cm)
		PERF_TRY(doca_rdma_set_connection_state_callbacks(r->rdma, r->server ? conn_request : NULL,
								  conn_established, conn_failure, conn_disconnect));
}
