/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma, the responder (server): after connecting it keeps receives
 * posted and waits for the client's end-of-run message.  One-sided traffic
 * needs nothing of it, so it sleeps on the PE's notification handle when
 * quiet, except for the ping-pong, which it busy-polls to echo at once.
 */
#include <poll.h>
#include <stdio.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "perf_rdma.h"

/* Receives share slots of the data area (the bytes are not looked at), or of the control area. */
static void
post_receives(struct perf_rdma *r)
{
	uint32_t recvs = perf_rdma_recvs(r);
	size_t rsize = r->op == PERF_RDMA_SEND ? r->max_size : 64;
	uint32_t slots = (uint32_t)(r->area / rsize);

	for (uint32_t i = 0; i < recvs; i++) {
		if (r->op == PERF_RDMA_SEND && slots > 0)
			perf_rdma_post_recv(r, r->mem + (size_t)(i % slots) * rsize, rsize, i);
		else
			perf_rdma_post_recv(r, perf_rdma_ctl_mem(r, 1) + (i % 8) * 64, 64, i);
	}
}

/*
 * Until the end-of-run message, or a failure: a receive that fails, a
 * disconnect before that message (perf_rdma_cb.c), or the context stopping
 * itself after a failed task.
 */
static void
serve(struct perf_rdma *r)
{
	doca_notification_handle_t fd;
	enum doca_ctx_states st;
	uint64_t quiet = 0;

	PERF_TRY(doca_pe_get_notification_handle(r->pe, &fd));
	while (!r->peer_done && !r->failed) {
		if (perf_rdma_progress(r)) {
			quiet = 0;
			continue;
		}
		if (++quiet % 1024 == 0 && doca_ctx_get_state(r->ctx, &st) == DOCA_SUCCESS &&
		    st != DOCA_CTX_STATE_RUNNING) {
			perf_rdma_peer_lost(
				r, NULL, "the RDMA context stopped itself (a task on the client's connection failed)");
			break;
		}
		/* Busy-poll for ping-pong (as ucx_perftest's responder does); otherwise sleep when quiet. */
		if (r->lat || quiet < 1024)
			continue;
		struct pollfd p = {.fd = (int)fd, .events = POLLIN};

		doca_pe_request_notification(r->pe);
		poll(&p, 1, 100);
		doca_pe_clear_notification(r->pe, fd);
		quiet = 0;
	}
}

int
perf_rdma_server_main(struct perf_rdma *r)
{
	union doca_data ud = {.u64 = 0};

	perf_rdma_connect(r);
	if (r->op == PERF_RDMA_SEND) {
		PERF_TRY(doca_buf_inventory_buf_get_by_data(r->inv, r->mmap, r->mem, r->max_size, &r->echo_buf));
		PERF_TRY(doca_rdma_task_send_allocate_init(r->rdma, r->conn[0], r->echo_buf, ud, &r->echo));
	}
	post_receives(r);
	serve(r);
	if (r->o->role == 1)
		fprintf(stderr, "doca_perf: server: %u connection(s) served, peer %s\n", r->conns,
			r->peer_done   ? "done"
			: r->peer_lost ? "lost"
				       : "failed");
	if (r->echo != NULL && !r->echo_busy)
		perf_rdma_free_with_buf(doca_rdma_task_send_as_task(r->echo), r->echo_buf);
	perf_rdma_ctx_close(r);
	if (r->o->role == 1 && r->o->oob_dir != NULL)
		perf_oob_remove(r->o->oob_dir, PERF_RDMA_MAX_CONNS);
	return r->failed ? 1 : 0;
}
