/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Behaviours DOCA programs depend on (issue 11), on an RDMA context writing into
 * a peer process's exported memory: a write whose destination has no room is
 * accepted and fails in submission order; a stop from a completion callback is
 * asynchronous (the sync-event requester checks for IN_PROGRESS); the IDLE state
 * callback may destroy the context, after which the program tears everything
 * else down.
 */
#include "rdma_test.h"

#define NUM_WRITES 4
#define CHUNK 64u

static struct {
	unsigned n;
	unsigned ud[16];
	doca_error_t status[16];
	int stop_after; /* doca_ctx_stop() from the completion that makes this many */
	doca_error_t stop_ret;
	bool destroy_on_idle;
	doca_error_t destroy_ret;
	struct node *node;
	bool idle;
} seen;

static void
write_done(struct doca_rdma_task_write *task, union doca_data ud, union doca_data cud)
{
	struct doca_task *t = doca_rdma_task_write_as_task(task);

	(void)cud;
	seen.ud[seen.n] = (unsigned)ud.u64;
	seen.status[seen.n] = doca_task_get_status(t);
	seen.n++;
	doca_task_free(t);
	if (seen.stop_after != 0 && (int)seen.n == seen.stop_after)
		seen.stop_ret = doca_ctx_stop(seen.node->ctx);
}

static void
reactive_state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
		  enum doca_ctx_states next)
{
	state_cb(user_data, ctx, prev, next);
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	seen.idle = true;
	if (seen.destroy_on_idle) {
		seen.destroy_ret = doca_rdma_destroy(seen.node->rdma);
		seen.node->rdma = NULL;
	}
}

/* The target: export memory, wait until the requester is done, close. */
static void
target(struct node *n)
{
	node_open(n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE, DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
	node_start(n);
	node_connect(n);
	node_send_mmap(n);
	sync_wait(n->sock);
	node_close(n);
	_exit(0);
}

static void
requester_open(struct node *n)
{
	memset(&seen, 0, sizeof(seen));
	seen.node = n;
	seen.stop_ret = DOCA_ERROR_UNKNOWN;
	seen.destroy_ret = DOCA_ERROR_UNKNOWN;
	node_open(n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	ASSERT_OK(doca_rdma_task_write_set_conf(n->rdma, write_done, write_done, 16));
	ASSERT_OK(doca_ctx_set_state_changed_cb(n->ctx, reactive_state_cb));
	node_start(n);
	node_connect(n);
}

static void
wait_seen_idle(struct node *n)
{
	double end = now_s() + 20;

	while (!seen.idle) {
		if (doca_pe_progress(n->pe) == 0)
			usleep(10);
		ASSERT(now_s() < end);
	}
}

/*
 * Writes 0, 1, 3 are good; write 2's destination has 16 bytes of room for 64.
 * Hardware takes it and fails it when it runs: 0 and 1 complete, 2 fails, the
 * context stops, 3 is flushed.  The IDLE callback destroys the context.
 */
TEST(write_error_in_submission_order_then_destroy_from_idle_callback)
{
	struct doca_buf *bufs[2 * NUM_WRITES];
	struct doca_mmap *remote;
	struct node n = {0};
	size_t rlen;
	void *raddr;
	pid_t pid;

	use_transport(0);
	if (sd_test_fork_peer(&pid, &n.sock))
		target(&n);
	requester_open(&n);
	seen.destroy_on_idle = true;
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	for (unsigned i = 0; i < NUM_WRITES; i++) {
		struct doca_rdma_task_write *wt;

		fill(n.mem + i * CHUNK, CHUNK, (uint8_t)i);
		bufs[2 * i] = buf_at(&n, n.mmap, n.mem + i * CHUNK, CHUNK, CHUNK);
		bufs[2 * i + 1] = buf_at(&n, remote, (uint8_t *)raddr + i * CHUNK, i == 2 ? 16 : CHUNK, 0);
		ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, bufs[2 * i], bufs[2 * i + 1],
							     (union doca_data){.u64 = i}, &wt));
		ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	}
	wait_seen_idle(&n);
	ASSERT_EQ(seen.n, NUM_WRITES);
	for (unsigned i = 0; i < NUM_WRITES; i++) {
		ASSERT_EQ(seen.ud[i], i);
		if (i < 2)
			ASSERT_OK(seen.status[i]);
		else if (i == 2)
			ASSERT_ERR(seen.status[i], DOCA_ERROR_INVALID_VALUE);
		else
			ASSERT_ERR(seen.status[i], DOCA_ERROR_IO_FAILED);
	}
	ASSERT_OK(seen.destroy_ret);
	/* The rest of the teardown, as the samples do it after the loop. */
	for (unsigned i = 0; i < 2 * NUM_WRITES; i++)
		ASSERT_OK(doca_buf_dec_refcount(bufs[i], NULL));
	ASSERT_OK(doca_mmap_stop(remote));
	ASSERT_OK(doca_mmap_destroy(remote));
	ASSERT_OK(doca_pe_destroy(n.pe));
	ASSERT_OK(doca_buf_inventory_stop(n.inv));
	ASSERT_OK(doca_buf_inventory_destroy(n.inv));
	ASSERT_OK(doca_mmap_stop(n.mmap));
	ASSERT_OK(doca_mmap_destroy(n.mmap));
	ASSERT_OK(doca_dev_close(n.dev));
	free(n.mem);
	sync_send(n.sock);
	sd_test_reap(pid);
}

/*
 * The sync-event requester pattern: the last completion callback stops the
 * context, with nothing else in flight, and checks for DOCA_ERROR_IN_PROGRESS.
 * The context is STOPPING when the callback returns and IDLE after a later
 * doca_pe_progress().
 */
TEST(stop_from_completion_callback_is_in_progress)
{
	struct doca_rdma_task_write *wt;
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	struct node n = {0};
	enum doca_ctx_states s;
	size_t rlen;
	void *raddr;
	pid_t pid;

	use_transport(0);
	if (sd_test_fork_peer(&pid, &n.sock))
		target(&n);
	requester_open(&n);
	seen.stop_after = 1;
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	src = buf_at(&n, n.mmap, n.mem, CHUNK, CHUNK);
	dst = buf_at(&n, remote, raddr, CHUNK, 0);
	ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, dst, (union doca_data){.u64 = 0}, &wt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	ASSERT(node_wait(&n, (const int *)&seen.n, 1, 20));
	ASSERT_OK(seen.status[0]);
	ASSERT_ERR(seen.stop_ret, DOCA_ERROR_IN_PROGRESS);
	ASSERT_OK(doca_ctx_get_state(n.ctx, &s));
	ASSERT_EQ(s, DOCA_CTX_STATE_STOPPING);
	wait_seen_idle(&n);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_mmap_stop(remote));
	ASSERT_OK(doca_mmap_destroy(remote));
	node_close(&n);
	sync_send(n.sock);
	sd_test_reap(pid);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
