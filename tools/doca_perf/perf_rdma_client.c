/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma, the requester (client): for every size, depth x connections
 * tasks spread round-robin over the connections (one ping for --lat), kept in
 * flight by the completion callbacks until the size's measurement ends; then a
 * report row.  The run ends with a send_imm carrying PERF_RDMA_DONE_IMM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "perf_rdma.h"

/* Task k of this size: its local buffer in lb, the remote one in rb (one-sided ops). */
static struct doca_task *
make_task(struct perf_rdma *r, uint32_t k, size_t size, size_t off, struct doca_buf **lb, struct doca_buf **rb)
{
	struct doca_rdma_connection *c = r->conn[k % r->conns];
	union doca_data ud = {.u64 = k};
	struct doca_rdma_task_write *w;
	struct doca_rdma_task_read *rd;
	struct doca_rdma_task_atomic_fetch_add *a;
	struct doca_rdma_task_send *s;

	switch (r->op) {
	case PERF_RDMA_WRITE:
		PERF_TRY(doca_buf_inventory_buf_get_by_data(r->inv, r->mmap, r->mem + off, size, lb));
		PERF_TRY(doca_buf_inventory_buf_get_by_addr(r->inv, r->remote, r->raddr + off, size, rb));
		PERF_TRY(doca_rdma_task_write_allocate_init(r->rdma, c, *lb, *rb, ud, &w));
		return doca_rdma_task_write_as_task(w);
	case PERF_RDMA_READ:
		PERF_TRY(doca_buf_inventory_buf_get_by_addr(r->inv, r->mmap, r->mem + off, size, lb));
		PERF_TRY(doca_buf_inventory_buf_get_by_data(r->inv, r->remote, r->raddr + off, size, rb));
		PERF_TRY(doca_rdma_task_read_allocate_init(r->rdma, c, *rb, *lb, ud, &rd));
		return doca_rdma_task_read_as_task(rd);
	case PERF_RDMA_ATOMIC:
		PERF_TRY(doca_buf_inventory_buf_get_by_addr(r->inv, r->mmap, r->mem + off, 8, lb));
		PERF_TRY(doca_buf_inventory_buf_get_by_addr(r->inv, r->remote, r->raddr + off, 8, rb));
		PERF_TRY(doca_rdma_task_atomic_fetch_add_allocate_init(r->rdma, c, *rb, *lb, 1, ud, &a));
		return doca_rdma_task_atomic_fetch_add_as_task(a);
	case PERF_RDMA_SEND:
		break;
	}
	PERF_TRY(doca_buf_inventory_buf_get_by_data(r->inv, r->mmap, r->mem + off, size, lb));
	PERF_TRY(doca_rdma_task_send_allocate_init(r->rdma, c, *lb, ud, &s));
	return doca_rdma_task_send_as_task(s);
}

/* The size's run state, before its first task. */
static void
reset_run(struct perf_rdma *r, uint32_t depth, struct perf_result *res)
{
	memset(res, 0, sizeof(*res));
	r->lat_hist = &res->lat;
	r->stamp = calloc(depth, sizeof(*r->stamp));
	if (r->stamp == NULL)
		exit(1);
	r->submitted = r->done = r->failed = r->done0 = 0;
	r->measuring = false;
	r->running = true;
	r->warmup = r->o->warmup;
	r->limit = r->o->iters ? r->o->iters + r->o->warmup : 0;
	if (r->warmup == 0)
		perf_rdma_measure_start(r, 0);
}

/* Make and submit the size's depth tasks (fewer when -n is smaller). */
static void
submit_all(struct perf_rdma *r, uint32_t depth, size_t size, size_t slots, struct doca_buf **lb, struct doca_buf **rb)
{
	for (uint32_t k = 0; k < depth; k++) {
		struct doca_task *task = make_task(r, k, size, (k % slots) * size, &lb[k], &rb[k]);

		if (r->lat) {
			r->lat_send = task;
			r->lat_send_done = r->lat_recv_done = false;
		}
		if (r->limit != 0 && r->submitted >= r->limit) {
			doca_task_free(task);
			continue;
		}
		r->stamp[k] = perf_ticks();
		PERF_TRY(perf_rdma_submit(r, task));
		r->submitted++;
	}
}

/*
 * Progress while the measurement goes on (checked once a millisecond), then
 * drain; a ping-pong ends when its last ping and echo are both back (the
 * receive stays posted).
 */
static void
progress_run(struct perf_rdma *r, size_t size)
{
	uint64_t next_check = 0, ms_ticks = (uint64_t)(1e6 / perf_ticks_to_ns(1.0));
	size_t inflight;

	for (;;) {
		perf_rdma_progress(r);
		if (perf_ticks() < next_check)
			continue;
		next_check = perf_ticks() + ms_ticks;
		if (r->failed)
			break;
		if (!r->measuring)
			continue;
		if (!perf_keep_going(r->o, size, r->done - r->done0, r->t0, perf_now()))
			break;
		if (r->limit && r->done >= r->limit)
			break;
	}
	r->running = false;
	do {
		perf_rdma_progress(r);
		doca_ctx_get_num_inflight_tasks(r->ctx, &inflight);
	} while (!r->failed && (r->lat ? !(r->lat_send_done && r->lat_recv_done) : inflight > 0 || r->nparked != 0));
}

static void
run_size(struct perf_rdma *r, size_t size, struct perf_result *res)
{
	uint32_t depth = r->lat ? 1 : r->per_conn * r->conns;
	size_t slots = perf_slots(r->o, size, depth);
	struct doca_buf **lb = calloc(depth, sizeof(*lb)), **rb = calloc(depth, sizeof(*rb));
	double t, cpu1;

	if (lb == NULL || rb == NULL)
		exit(1);
	if (r->op != PERF_RDMA_SEND && slots * size > r->rlen) {
		fprintf(stderr,
			"doca_perf: the server's area (%zu B) is smaller than size %zu x %zu slots; give the "
			"server the same -s and -t\n",
			r->rlen, size, slots);
		exit(1);
	}
	reset_run(r, depth, res);
	submit_all(r, depth, size, slots, lb, rb);
	progress_run(r, size);
	t = perf_now();
	perf_cpu_seconds(&cpu1);
	if (r->failed) {
		fprintf(stderr, "doca_perf: %llu RDMA tasks failed at size %zu\n", (unsigned long long)r->failed, size);
		exit(1);
	}
	if (r->lat)
		doca_task_free(r->lat_send);
	res->size = size;
	res->tasks = r->done - r->done0;
	res->seconds = t - r->t0;
	res->cpu_seconds = cpu1 - r->cpu0;
	for (uint32_t k = 0; k < depth; k++) {
		if (lb[k] != NULL)
			doca_buf_dec_refcount(lb[k], NULL);
		if (rb[k] != NULL)
			doca_buf_dec_refcount(rb[k], NULL);
	}
	free(lb);
	free(rb);
	free(r->stamp);
}

/* The header, one row per size (atomic: one 8-byte row), the footer. */
static void
run_sizes(struct perf_rdma *r)
{
	struct perf_result *res = malloc(sizeof(*res));
	uint32_t depth = r->lat ? 1 : r->per_conn;
	char title[256], cfg[512];

	if (res == NULL)
		exit(1);
	snprintf(title, sizeof(title), "rdma %s%s  connections %u  depth %u/connection  %s", r->opname,
		 r->lat ? " (ping-pong, half round trip)" : "", r->conns, depth,
		 r->o->use_cm ? "RDMA-CM" : "OOB files");
	snprintf(cfg, sizeof(cfg),
		 "\"op\":\"%s\",\"lat\":%s,\"connections\":%u,\"depth\":%u,\"connect\":\"%s\",\"iters\":%llu,"
		 "\"duration\":%.3f",
		 r->opname, r->lat ? "true" : "false", r->conns, depth, r->o->use_cm ? "cm" : "oob",
		 (unsigned long long)r->o->iters, r->o->duration);
	perf_report_begin(r->o, title, cfg);
	for (unsigned i = 0; i < r->o->nsizes; i++) {
		run_size(r, r->op == PERF_RDMA_ATOMIC ? 8 : r->o->sizes[i], res);
		perf_progress_end(r->o);
		perf_report_row(r->o, res);
		if (r->op == PERF_RDMA_ATOMIC)
			break;
	}
	perf_report_end(r->o);
	free(res);
}

/* Tell the server the run is over (after everything connection 0 carried); wait until it is placed. */
static void
send_done(struct perf_rdma *r)
{
	struct doca_rdma_task_send_imm *t;
	struct doca_buf *b;
	union doca_data ud = {.u64 = 0};
	size_t inflight;

	PERF_TRY(doca_buf_inventory_buf_get_by_data(r->inv, r->mmap, perf_rdma_ctl_mem(r, 0), 1, &b));
	PERF_TRY(doca_rdma_task_send_imm_allocate_init(r->rdma, r->conn[0], b, PERF_RDMA_DONE_IMM, ud, &t));
	PERF_TRY(perf_rdma_submit(r, doca_rdma_task_send_imm_as_task(t)));
	/* The ping-pong's receive stays posted. */
	do {
		perf_rdma_progress(r);
		doca_ctx_get_num_inflight_tasks(r->ctx, &inflight);
	} while ((inflight > (r->lat ? 1u : 0u) || r->nparked != 0) && !r->failed);
}

int
perf_rdma_client_main(struct perf_rdma *r)
{
	void *raddr;

	perf_rdma_connect(r);
	if (r->remote != NULL) {
		PERF_TRY(doca_mmap_get_memrange(r->remote, &raddr, &r->rlen));
		r->raddr = raddr;
	}
	if (r->lat)
		perf_rdma_post_recv(r, r->mem + r->area - r->max_size, r->max_size, 0);
	run_sizes(r);
	if (r->o->idle > 0) {
		struct timespec ts = {(time_t)r->o->idle, (long)((r->o->idle - (double)(time_t)r->o->idle) * 1e9)};

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	send_done(r);
	perf_rdma_ctx_close(r);
	return r->failed ? 1 : 0;
}
