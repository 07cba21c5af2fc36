/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma write|read|send|atomic, one side: a requester (client) keeps
 * tasks in flight on N connections to a responder (server).  This file makes
 * the side's run context and its DOCA objects (device, PE, RDMA context, buffer
 * inventory, the memory area) and takes them down again; perf_rdma_conn.c
 * connects, perf_rdma_server.c and perf_rdma_client.c run, perf_rdma_cb.c holds
 * the callbacks, perf_rdma_run.c the processes.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "perf_rdma.h"

#define DEFAULT_DEV "mlx5_0"

/* The operations, by the name doca_perf.c's table of tests gives them. */
static const struct {
	const char *test;
	const char *title;
} rdma_ops[] = {
	[PERF_RDMA_WRITE] = {"write", "write"},
	[PERF_RDMA_READ] = {"read", "read"},
	[PERF_RDMA_SEND] = {"send", "send"},
	[PERF_RDMA_ATOMIC] = {"atomic", "atomic fetch-add"},
};

doca_error_t
perf_rdma_submit(struct perf_rdma *r, struct doca_task *t)
{
	doca_error_t err = doca_task_submit(t);

	if (err != DOCA_ERROR_AGAIN || r->nparked == r->cap_parked)
		return err;
	r->parked[r->nparked++] = t;
	r->again++;
	return DOCA_SUCCESS;
}

uint8_t
perf_rdma_progress(struct perf_rdma *r)
{
	uint8_t any = doca_pe_progress(r->pe);
	uint32_t n = r->nparked;
	doca_error_t err;

	/* a task parked anew moves down, never past i */
	r->nparked = 0;
	for (uint32_t i = 0; i < n; i++) {
		err = perf_rdma_submit(r, r->parked[i]);
		if (err == DOCA_SUCCESS)
			continue;
		if (r->failed++ == 0 && !r->stopping)
			fprintf(stderr, "doca_perf: resubmitting a task failed: %s\n", doca_error_get_name(err));
		doca_task_free(r->parked[i]);
	}
	return any | (n != 0);
}

static void
start_ctx(struct perf_rdma *r)
{
	enum doca_ctx_states st;

	PERF_TRY(doca_pe_connect_ctx(r->pe, r->ctx));
	PERF_TRY(doca_ctx_start(r->ctx));
	do {
		doca_pe_progress(r->pe);
		PERF_TRY(doca_ctx_get_state(r->ctx, &st));
	} while (st == DOCA_CTX_STATE_STARTING);
	if (st != DOCA_CTX_STATE_RUNNING) {
		fprintf(stderr, "doca_perf: the RDMA context did not start\n");
		exit(1);
	}
}

/* The data area and the two control slots, filled with a pattern, in one mmap. */
static void
map_memory(struct perf_rdma *r, uint32_t perm)
{
	size_t len = r->area + 2 * PERF_RDMA_CTL_BYTES;

	r->mem = perf_mem_alloc(r->o, len);
	if (r->mem == NULL) {
		fprintf(stderr, "doca_perf: cannot allocate %zu bytes\n", r->area);
		exit(1);
	}
	for (size_t i = 0; i < len; i++)
		r->mem[i] = (uint8_t)(i * 13 + 1);
	PERF_TRY(doca_mmap_create(&r->mmap));
	PERF_TRY(doca_mmap_set_memrange(r->mmap, r->mem, len));
	PERF_TRY(doca_mmap_set_permissions(r->mmap, perm));
	PERF_TRY(doca_mmap_add_dev(r->mmap, r->dev));
	PERF_TRY(doca_mmap_start(r->mmap));
}

static void
ctx_open(struct perf_rdma *r)
{
	uint32_t tasks = r->per_conn * r->conns;
	uint32_t perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |
			DOCA_ACCESS_FLAG_RDMA_ATOMIC;
	union doca_data cud = {.ptr = r};

	PERF_TRY(doca_pe_create(&r->pe));
	PERF_TRY(doca_rdma_create(r->dev, &r->rdma));
	r->ctx = doca_rdma_as_ctx(r->rdma);
	/* The callbacks find the run through the context's user data. */
	PERF_TRY(doca_ctx_set_user_data(r->ctx, cud));
	PERF_TRY(doca_rdma_set_permissions(r->rdma, perm));
	PERF_TRY(doca_rdma_set_max_num_connections(r->rdma, (uint16_t)r->conns));
	PERF_TRY(doca_rdma_set_send_queue_size(r->rdma, tasks + 8));
	PERF_TRY(doca_rdma_set_recv_queue_size(r->rdma, perf_rdma_recvs(r) + 8));
	perf_rdma_set_task_conf(r);
	start_ctx(r);
	PERF_TRY(doca_buf_inventory_create((size_t)tasks * 2 + perf_rdma_recvs(r) + 16, &r->inv));
	r->cap_parked = tasks * 2 + perf_rdma_recvs(r) + 16; /* every task the pools hold */
	r->parked = calloc(r->cap_parked, sizeof(*r->parked));
	if (r->parked == NULL) {
		fprintf(stderr, "doca_perf: out of memory\n");
		exit(1);
	}
	PERF_TRY(doca_buf_inventory_start(r->inv));
	map_memory(r, perm);
}

void
perf_rdma_ctx_close(struct perf_rdma *r)
{
	enum doca_ctx_states st;

	r->stopping = true;
	if (r->again != 0)
		fprintf(stderr, "doca_perf: %s: %llu RDMA submits returned DOCA_ERROR_AGAIN and were retried\n",
			r->server ? "server" : "client", (unsigned long long)r->again);
	while (r->nparked != 0)
		doca_task_free(r->parked[--r->nparked]);
	free(r->parked);
	r->parked = NULL;
	r->cap_parked = 0;
	if (doca_ctx_stop(r->ctx) == DOCA_ERROR_IN_PROGRESS) {
		do {
			doca_pe_progress(r->pe);
			doca_ctx_get_state(r->ctx, &st);
		} while (st != DOCA_CTX_STATE_IDLE);
	}
	doca_rdma_destroy(r->rdma);
	doca_pe_destroy(r->pe);
	/* The rest of what the run made: the process ends holding nothing (leak checkers agree). */
	if (r->inv != NULL) {
		doca_buf_inventory_stop(r->inv);
		doca_buf_inventory_destroy(r->inv);
	}
	if (r->remote != NULL)
		doca_mmap_destroy(r->remote);
	if (r->mmap != NULL) {
		doca_mmap_stop(r->mmap);
		doca_mmap_destroy(r->mmap);
	}
	perf_mem_free(r->o, r->mem);
	doca_dev_close(r->dev);
}

/* The run's shape from the options: operation, depth, the largest size and the area it needs. */
static void
init_run(struct perf_rdma *r, const struct perf_opts *o, bool server, int ready_fd)
{
	struct timespec ts;

	r->o = o;
	r->op = PERF_RDMA_ATOMIC;
	for (size_t i = 0; i < sizeof(rdma_ops) / sizeof(rdma_ops[0]); i++)
		if (strcmp(o->test, rdma_ops[i].test) == 0)
			r->op = (enum perf_rdma_op)i;
	r->opname = rdma_ops[r->op].title;
	r->lat = o->lat;
	r->server = server;
	r->ready_fd = ready_fd;
	r->conns = o->conns;
	r->per_conn = o->depth;
	for (unsigned i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > r->max_size)
			r->max_size = o->sizes[i];
	if (r->op == PERF_RDMA_ATOMIC)
		r->max_size = 8;
	r->area = perf_slots(o, r->max_size, (size_t)r->per_conn * r->conns) * r->max_size;
	if (r->lat)
		r->area = 2 * r->max_size;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->nonce = (uint32_t)getpid() ^ (uint32_t)ts.tv_nsec;
}

int
perf_rdma_side(struct perf_opts *o, bool server, int ready_fd)
{
	struct perf_rdma r = {0};

	init_run(&r, o, server, ready_fd);
	/* Stale files of an earlier run must not be mistaken for this one's. */
	if (r.server && o->oob_dir != NULL)
		perf_oob_remove(o->oob_dir, PERF_RDMA_MAX_CONNS);
	r.dev = perf_open_dev(o->ibdev, DEFAULT_DEV);
	ctx_open(&r);
	return r.server ? perf_rdma_server_main(&r) : perf_rdma_client_main(&r);
}
