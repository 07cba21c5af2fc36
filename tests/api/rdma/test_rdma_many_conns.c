/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 1,024 connections on one DOCA RDMA context, to one peer process, under the
 * usual soft limit of 1,024 open files: every connection is made, every
 * connection writes its own 1 KiB of the peer's exported range with tasks
 * submitted right after connecting (before the peer's side of the connection
 * has said anything), every byte lands where it should, and both contexts
 * stop cleanly.  Same host (UCX shm/cma and direct kernel copies).
 */
#include <sys/resource.h>

#include "rdma_test.h"

#define NCONN 1024u
#define SLICE (MEM_LEN / NCONN)

/* The soft limit most shells give (1,024 files), unless the hard limit is lower. */
static void
default_fd_limit(void)
{
	struct rlimit rl;

	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max >= 1024)
		rl.rlim_cur = 1024;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* A bigger inventory than node_open's: two buffers per connection. */
static void
big_inventory(struct node *n)
{
	ASSERT_OK(doca_buf_inventory_stop(n->inv));
	ASSERT_OK(doca_buf_inventory_destroy(n->inv));
	ASSERT_OK(doca_buf_inventory_create(2 * NCONN + 8, &n->inv));
	ASSERT_OK(doca_buf_inventory_start(n->inv));
}

/* The target, connected NCONN times: checks every slice once the initiator's writes completed. */
static void
target(struct node *n)
{
	static uint8_t want[SLICE], got[MEM_LEN];

	sync_wait(n->sock); /* the initiator's writes all completed */
	sd_test_read_foreign(got, n->mem, MEM_LEN);
	for (uint32_t i = 0; i < NCONN; i++) {
		fill(want, SLICE, (uint8_t)(i * 13 + 1));
		ASSERT_MEM_EQ(got + (size_t)i * SLICE, want, SLICE);
	}
	sync_send(n->sock);
	node_close(n);
	_exit(0);
}

TEST(conns1024_write_each_slice)
{
	static struct doca_rdma_connection *conns[NCONN];
	static struct doca_rdma_task_write *wt[NCONN];
	static struct doca_buf *src[NCONN], *dst[NCONN];
	static struct result r[NCONN];
	struct doca_mmap *rm = NULL;
	struct node n = {0};
	void *raddr;
	size_t rlen;
	pid_t pid;
	bool child;

	use_transport(0);
	default_fd_limit();
	child = sd_test_fork_peer(&pid, &n.sock);
	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | (child ? DOCA_ACCESS_FLAG_RDMA_WRITE : 0),
		  DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE, NCONN);
	ASSERT_OK(doca_rdma_task_write_set_conf(n.rdma, write_cb, write_cb, NCONN));
	big_inventory(&n);
	node_start(&n);
	if (child)
		node_send_mmap(&n);
	else
		rm = node_recv_mmap(&n);
	for (uint32_t i = 0; i < NCONN; i++)
		conns[i] = node_connect(&n);
	{
		struct doca_rdma_connection *extra;
		const void *blob;
		size_t len;

		ASSERT_ERR(doca_rdma_export(n.rdma, &blob, &len, &extra), DOCA_ERROR_FULL);
	}
	if (child)
		target(&n);
	ASSERT_OK(doca_mmap_get_memrange(rm, &raddr, &rlen));
	ASSERT_EQ(rlen, MEM_LEN);
	for (uint32_t i = 0; i < NCONN; i++) {
		uint8_t *s = n.mem + (size_t)i * SLICE;

		fill(s, SLICE, (uint8_t)(i * 13 + 1));
		src[i] = buf_at(&n, n.mmap, s, SLICE, SLICE);
		dst[i] = buf_at(&n, rm, (uint8_t *)raddr + (size_t)i * SLICE, SLICE, 0);
		ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, conns[i], src[i], dst[i],
							     (union doca_data){.ptr = &r[i]}, &wt[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt[i])));
	}
	for (uint32_t i = 0; i < NCONN; i++) {
		ASSERT(node_wait(&n, &r[i].done, 1, 20));
		ASSERT_OK(r[i].status);
		ASSERT_EQ(r[i].done, 1);
		doca_task_free(doca_rdma_task_write_as_task(wt[i]));
		ASSERT_OK(doca_buf_dec_refcount(src[i], NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
	}
	sync_send(n.sock);
	sync_wait(n.sock); /* the target checked every slice */
	sd_test_reap(pid);
	ASSERT_OK(doca_mmap_destroy(rm));
	node_close(&n);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
