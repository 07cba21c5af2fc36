/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA RDMA between two processes, through the public API only: every task
 * family end to end (bytes, opcodes, immediates, results), remote access rules,
 * RC ordering, atomics from two processes, 64 connections on one context, tasks
 * submitted before the peer is there, a send nobody receives, and a peer that
 * dies.  Each case runs over the default transports (UCX shm/cma) and over tcp
 * on loopback.  The target of one-sided operations sits in read() on a socket
 * (no DOCA call) while they run.
 */
#include <sys/epoll.h>

#include "rdma_test.h"

/* ---- send / send_imm / receive ---- */

static void
run_send_recv(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_rdma_task_receive *rt[3];
		struct result r[3] = {0};
		struct doca_buf *dst[3];
		int done = 0;

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		node_connect(&n);
		for (int i = 0; i < 3; i++) {
			dst[i] = buf_at(&n, n.mmap, n.mem + i * 4096, 4096, 0);
			ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, dst[i], (union doca_data){.ptr = &r[i]},
								       &rt[i]));
			ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
		}
		sync_send(n.sock); /* receives posted */
		for (int i = 0; i < 3; i++) {
			ASSERT(node_wait(&n, &r[i].done, 1, 10));
			ASSERT_OK(r[i].status);
			done++;
		}
		ASSERT_EQ(doca_rdma_task_receive_get_result_opcode(rt[0]), DOCA_RDMA_OPCODE_RECV_SEND);
		ASSERT_EQ(doca_rdma_task_receive_get_result_len(rt[0]), 14);
		ASSERT_MEM_EQ(n.mem, "Hi DOCA RDMA!", 14);
		ASSERT_EQ(doca_rdma_task_receive_get_result_opcode(rt[1]), DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM);
		/* opaque 32 bits: no byte swap */
		ASSERT_EQ(doca_rdma_task_receive_get_result_immediate_data(rt[1]), 0xABCD);
		ASSERT_MEM_EQ(n.mem + 4096, "imm", 4);
		ASSERT_EQ(doca_rdma_task_receive_get_result_len(rt[2]), 0);
		for (int i = 0; i < 3; i++) {
			size_t dl;

			ASSERT_PTR_EQ(doca_rdma_task_receive_get_result_rdma_connection(rt[i]), n.conn);
			ASSERT_PTR_EQ(doca_rdma_task_receive_get_dst_buf(rt[i]), dst[i]);
			ASSERT_OK(doca_buf_get_data_len(dst[i], &dl));
			ASSERT_EQ(dl, doca_rdma_task_receive_get_result_len(rt[i]));
			doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
			ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
		}
		sync_wait(n.sock);
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_send *st, *st_empty;
	struct doca_rdma_task_send_imm *it;
	struct result r[3] = {0};
	struct doca_buf *src, *src2;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	memcpy(n.mem, "Hi DOCA RDMA!", 14);
	memcpy(n.mem + 256, "imm", 4);
	src = buf_at(&n, n.mmap, n.mem, 256, 14);
	src2 = buf_at(&n, n.mmap, n.mem + 256, 256, 4);
	sync_wait(n.sock);
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, src, (union doca_data){.ptr = &r[0]}, &st));
	ASSERT_PTR_EQ(doca_rdma_task_send_get_src_buf(st), src);
	ASSERT_PTR_EQ(doca_rdma_task_send_get_rdma_connection(st), n.conn);
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	ASSERT_OK(doca_rdma_task_send_imm_allocate_init(n.rdma, n.conn, src2, 0xABCD, (union doca_data){.ptr = &r[1]},
							&it));
	ASSERT_EQ(doca_rdma_task_send_imm_get_immediate_data(it), 0xABCD);
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_imm_as_task(it)));
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, NULL, (union doca_data){.ptr = &r[2]}, &st_empty));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st_empty)));
	for (int i = 0; i < 3; i++) {
		ASSERT(node_wait(&n, &r[i].done, 1, 10));
		ASSERT_OK(r[i].status);
	}
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_send_imm_as_task(it));
	doca_task_free(doca_rdma_task_send_as_task(st_empty));
	/* task memory stays readable after free (the CM sample relies on it) */
	ASSERT_PTR_EQ(doca_rdma_task_send_get_src_buf(st), src);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(src2, NULL));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(send_recv)

/* ---- write / read (target blocked in read()) ---- */

static void
run_write_read(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		uint8_t *want = malloc(MEM_LEN);

		node_open(&n,
			  DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
		node_start(&n);
		node_connect(&n);
		fill(n.mem + MEM_LEN / 2, MEM_LEN / 2, 0x33);
		node_send_mmap(&n);
		/* blocked in read(): no doca_pe_progress while the peer writes and reads */
		sync_wait(n.sock);
		fill(want, MEM_LEN / 2, 0x77);
		sd_test_read_foreign(want + MEM_LEN / 2, n.mem, MEM_LEN / 2); /* written by the peer */
		ASSERT_MEM_EQ(want + MEM_LEN / 2, want, MEM_LEN / 2);
		sync_send(n.sock);
		sync_wait(n.sock);
		node_close(&n);
		free(want);
		_exit(0);
	}
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct result wr = {0}, rr = {0};
	struct doca_mmap *remote;
	struct doca_buf *src, *rdst, *rsrc, *dst;
	void *raddr;
	size_t rlen, dl;
	uint8_t *want = malloc(MEM_LEN);

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	ASSERT_EQ(rlen, MEM_LEN);
	fill(n.mem, MEM_LEN / 2, 0x77);
	src = buf_at(&n, n.mmap, n.mem, MEM_LEN / 2, MEM_LEN / 2);
	rdst = buf_at(&n, remote, raddr, MEM_LEN / 2, 0);
	ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rdst, (union doca_data){.ptr = &wr}, &wt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	ASSERT(node_wait(&n, &wr.done, 1, 20));
	ASSERT_OK(wr.status);
	ASSERT_OK(doca_buf_get_data_len(rdst, &dl));
	ASSERT_EQ(dl, MEM_LEN / 2);
	/* read the other half back into our second half */
	rsrc = buf_at(&n, remote, (uint8_t *)raddr + MEM_LEN / 2, MEM_LEN / 2, MEM_LEN / 2);
	dst = buf_at(&n, n.mmap, n.mem + MEM_LEN / 2, MEM_LEN / 2, 0);
	ASSERT_OK(doca_rdma_task_read_allocate_init(n.rdma, n.conn, rsrc, dst, (union doca_data){.ptr = &rr}, &rt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_read_as_task(rt)));
	ASSERT(node_wait(&n, &rr.done, 1, 20));
	ASSERT_OK(rr.status);
	ASSERT_EQ(doca_rdma_task_read_get_result_len(rt), MEM_LEN / 2);
	ASSERT_OK(doca_buf_get_data_len(dst, &dl));
	ASSERT_EQ(dl, MEM_LEN / 2);
	fill(want, MEM_LEN / 2, 0x33);
	ASSERT_MEM_EQ(n.mem + MEM_LEN / 2, want, MEM_LEN / 2);
	sync_send(n.sock);
	sync_wait(n.sock);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rdst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rsrc, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	/* the samples stop the imported mmap in teardown and propagate the result */
	ASSERT_OK(doca_mmap_stop(remote));
	ASSERT_OK(doca_mmap_destroy(remote));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
	free(want);
}
BOTH(write_read)

/* ---- write_imm into a receive with no destination ---- */

static void
run_write_imm(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_rdma_task_receive *rt;
		struct result r = {0};

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		node_connect(&n);
		ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, NULL, (union doca_data){.ptr = &r}, &rt));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
		node_send_mmap(&n);
		ASSERT(node_wait(&n, &r.done, 1, 20));
		ASSERT_OK(r.status);
		ASSERT_EQ(doca_rdma_task_receive_get_result_opcode(rt), DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM);
		ASSERT_EQ(doca_rdma_task_receive_get_result_immediate_data(rt), 0xABCD);
		ASSERT_EQ(doca_rdma_task_receive_get_result_len(rt), 19);
		ASSERT_PTR_EQ(doca_rdma_task_receive_get_result_rdma_connection(rt), n.conn);
		/* the data is in place when the notification arrives */
		ASSERT_MEM_EQ(n.mem + 100, "Hi DOCA RDMA write", 19);
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		sync_wait(n.sock);
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_write_imm *wt;
	struct result r = {0};
	struct doca_mmap *remote;
	struct doca_buf *src, *rdst;
	void *raddr;
	size_t rlen;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	memcpy(n.mem, "Hi DOCA RDMA write", 19);
	src = buf_at(&n, n.mmap, n.mem, 256, 19);
	rdst = buf_at(&n, remote, (uint8_t *)raddr + 100, 256, 0);
	ASSERT_OK(doca_rdma_task_write_imm_allocate_init(n.rdma, n.conn, src, rdst, 0xABCD,
							 (union doca_data){.ptr = &r}, &wt));
	ASSERT_EQ(doca_rdma_task_write_imm_get_immediate_data(wt), 0xABCD);
	ASSERT_OK(doca_task_submit(doca_rdma_task_write_imm_as_task(wt)));
	ASSERT(node_wait(&n, &r.done, 1, 20));
	ASSERT_OK(r.status);
	doca_task_free(doca_rdma_task_write_imm_as_task(wt));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rdst, NULL));
	ASSERT_OK(doca_mmap_destroy(remote));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(write_imm)

/* ---- RC ordering: a send_imm after a write is received after the write's data ---- */

static void
run_ordering(int tcp)
{
	struct node n = {0};
	pid_t pid;
	const int rounds = 8;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		uint8_t *want = malloc(MEM_LEN / 2);

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		node_connect(&n);
		node_send_mmap(&n);
		for (int i = 0; i < rounds; i++) {
			struct doca_rdma_task_receive *rt;
			struct doca_buf *dst = buf_at(&n, n.mmap, n.mem + MEM_LEN / 2, 64, 0);
			struct result r = {0};

			ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, dst, (union doca_data){.ptr = &r}, &rt));
			ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
			sync_send(n.sock);
			ASSERT(node_wait(&n, &r.done, 1, 20));
			ASSERT_OK(r.status);
			ASSERT_EQ(doca_rdma_task_receive_get_result_immediate_data(rt), (uint32_t)i);
			/* the whole write is visible when the receive completes */
			fill(want, MEM_LEN / 2, (uint8_t)i);
			ASSERT_MEM_EQ(n.mem, want, MEM_LEN / 2);
			doca_task_free(doca_rdma_task_receive_as_task(rt));
			ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
		}
		sync_wait(n.sock);
		node_close(&n);
		free(want);
		_exit(0);
	}
	struct doca_mmap *remote;
	void *raddr;
	size_t rlen;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	for (int i = 0; i < rounds; i++) {
		struct doca_rdma_task_write *wt;
		struct doca_rdma_task_send_imm *it;
		struct result wr = {0}, ir = {0};
		struct doca_buf *src, *rdst;

		fill(n.mem, MEM_LEN / 2, (uint8_t)i);
		src = buf_at(&n, n.mmap, n.mem, MEM_LEN / 2, MEM_LEN / 2);
		rdst = buf_at(&n, remote, raddr, MEM_LEN / 2, 0);
		sync_wait(n.sock);
		ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rdst, (union doca_data){.ptr = &wr},
							     &wt));
		ASSERT_OK(doca_rdma_task_send_imm_allocate_init(n.rdma, n.conn, NULL, (uint32_t)i,
								(union doca_data){.ptr = &ir}, &it));
		/* both submitted before either completes */
		ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
		ASSERT_OK(doca_task_submit(doca_rdma_task_send_imm_as_task(it)));
		ASSERT(node_wait(&n, &wr.done, 1, 20));
		ASSERT(node_wait(&n, &ir.done, 1, 20));
		ASSERT_OK(wr.status);
		ASSERT_OK(ir.status);
		doca_task_free(doca_rdma_task_write_as_task(wt));
		doca_task_free(doca_rdma_task_send_imm_as_task(it));
		ASSERT_OK(doca_buf_dec_refcount(src, NULL));
		ASSERT_OK(doca_buf_dec_refcount(rdst, NULL));
	}
	ASSERT_OK(doca_mmap_destroy(remote));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(ordering)

/* ---- atomics: results, target value, and two requesters at once ---- */

#define ADDS 500

static void
atomic_requester(struct node *n, int role)
{
	struct doca_mmap *remote;
	struct doca_buf *rdst, *res;
	void *raddr;
	size_t rlen;
	uint64_t old;

	node_open(n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(n);
	node_start(n);
	node_connect(n);
	remote = node_recv_mmap(n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	rdst = buf_at(n, remote, raddr, 8, 8);
	res = buf_at(n, n->mmap, n->mem, MEM_LEN, 0);
	if (role == 0) {
		struct doca_rdma_task_atomic_cmp_swp *ct;
		struct result r = {0};

		/* 0x1000 -> 0x2000 fails (value is 7), 7 -> 0x2000 succeeds */
		ASSERT_OK(doca_rdma_task_atomic_cmp_swp_allocate_init(n->rdma, n->conn, rdst, res, 0x1000, 0x2000,
								      (union doca_data){.ptr = &r}, &ct));
		ASSERT_EQ(doca_rdma_task_atomic_cmp_swp_get_cmp_data(ct), 0x1000);
		ASSERT_EQ(doca_rdma_task_atomic_cmp_swp_get_swap_data(ct), 0x2000);
		ASSERT_OK(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(ct)));
		ASSERT(node_wait(n, &r.done, 1, 10));
		ASSERT_OK(r.status);
		memcpy(&old, n->mem, 8);
		ASSERT_EQ(old, 7);
		doca_rdma_task_atomic_cmp_swp_set_cmp_data(ct, 7);
		ASSERT_OK(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(ct)));
		ASSERT(node_wait(n, &r.done, 2, 10));
		ASSERT_OK(r.status);
		memcpy(&old, n->mem + 8, 8);
		ASSERT_EQ(old, 7);
		doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(ct));
		sync_send(n->sock);
	}
	sync_wait(n->sock); /* go */
	{
		struct doca_rdma_task_atomic_fetch_add *ft;
		struct result r = {0};
		size_t dl;

		ASSERT_OK(doca_buf_reset_data_len(res));
		ASSERT_OK(doca_rdma_task_atomic_fetch_add_allocate_init(n->rdma, n->conn, rdst, res, 1,
									(union doca_data){.ptr = &r}, &ft));
		for (int i = 0; i < ADDS; i++) {
			ASSERT_OK(doca_buf_reset_data_len(res));
			ASSERT_OK(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(ft)));
			ASSERT(node_wait(n, &r.done, i + 1, 10));
			ASSERT_OK(r.status);
			ASSERT_OK(doca_buf_get_data_len(res, &dl));
			ASSERT_EQ(dl, 8);
		}
		doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(ft));
	}
	ASSERT_OK(doca_buf_dec_refcount(rdst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(res, NULL));
	sync_send(n->sock); /* done */
	sync_wait(n->sock);
	ASSERT_OK(doca_mmap_destroy(remote));
	node_close(n);
}

static void
run_atomics(int tcp)
{
	struct node n = {0}, a = {0}, b = {0};
	pid_t pa, pb;
	uint64_t v = 7, final;

	use_transport(tcp);
	if (sd_test_fork_peer(&pa, &a.sock)) {
		atomic_requester(&a, 0);
		_exit(0);
	}
	if (sd_test_fork_peer(&pb, &b.sock)) {
		close(a.sock);
		atomic_requester(&b, 1);
		_exit(0);
	}
	/* the target: one context, two connections, one 8-byte word at offset 0 */
	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC, DOCA_ACCESS_FLAG_RDMA_ATOMIC,
		  2);
	memcpy(n.mem, &v, 8);
	node_start(&n);
	n.sock = a.sock;
	node_connect(&n);
	node_send_mmap(&n);
	n.sock = b.sock;
	node_connect(&n);
	node_send_mmap(&n);
	sync_wait(a.sock); /* cmp_swp done */
	sd_test_read_foreign(&v, n.mem, 8);
	ASSERT_EQ(v, 0x2000);
	sync_send(a.sock);
	sync_send(b.sock);
	/* blocked in read() while both add */
	sync_wait(a.sock);
	sync_wait(b.sock);
	sd_test_read_foreign(&final, n.mem, 8);
	ASSERT_EQ(final, 0x2000 + 2 * ADDS);
	sync_send(a.sock);
	sync_send(b.sock);
	sd_test_reap(pa);
	sd_test_reap(pb);
	node_close(&n);
}
BOTH(atomics)

/* ---- remote sync event: the responder waits in wait_gt, never progressing ---- */

static void
run_sync_event(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_sync_event *se;
		const uint8_t *desc;
		size_t len;

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
		ASSERT_OK(doca_sync_event_create(&se));
		ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(se));
		ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(se, n.dev));
		ASSERT_OK(doca_sync_event_start(se));
		node_start(&n);
		node_connect(&n);
		ASSERT_OK(doca_sync_event_export_to_remote_net(se, &desc, &len));
		ASSERT(len <= BLOB_MAX);
		send_blob(n.sock, desc, len);
		/* as rdma_sync_event_responder: wait, signal, wait; no doca_pe_progress */
		ASSERT_OK(doca_sync_event_wait_gt(se, 0xD0CA - 1, UINT64_MAX));
		ASSERT_OK(doca_sync_event_update_set(se, 0xD0CB));
		ASSERT_OK(doca_sync_event_wait_gt(se, UINT64_MAX - 1, UINT64_MAX));
		sync_wait(n.sock);
		node_close(&n);
		ASSERT_OK(doca_sync_event_stop(se));
		ASSERT_OK(doca_sync_event_destroy(se));
		_exit(0);
	}
	struct doca_rdma_task_remote_net_sync_event_notify_set *st;
	struct doca_rdma_task_remote_net_sync_event_get *gt;
	struct doca_rdma_task_remote_net_sync_event_notify_add *at;
	struct doca_sync_event_remote_net *rse;
	struct result sr = {0}, gr = {0}, ar = {0};
	struct doca_buf *src, *dst, *res;
	uint8_t desc[BLOB_MAX];
	uint64_t v = 0xD0CA;
	size_t len;
	int polls = 0;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	len = recv_blob(n.sock, desc, sizeof(desc));
	ASSERT_OK(doca_sync_event_remote_net_create_from_export(n.dev, desc, len, &rse));
	memcpy(n.mem, &v, 8);
	src = buf_at(&n, n.mmap, n.mem, 8, 8);
	dst = buf_at(&n, n.mmap, n.mem + 64, 8, 0);
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(n.rdma, n.conn, rse, src,
										(union doca_data){.ptr = &sr}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st)));
	ASSERT(node_wait(&n, &sr.done, 1, 10));
	ASSERT_OK(sr.status);
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_get_allocate_init(n.rdma, n.conn, rse, dst,
									 (union doca_data){.ptr = &gr}, &gt));
	ASSERT_PTR_EQ(doca_rdma_task_remote_net_sync_event_get_get_dst_buf(gt), dst);
	/* poll until the responder signals (value > 0xD0CA), resubmitting the same task */
	for (;;) {
		uint64_t got;

		ASSERT_OK(doca_buf_reset_data_len(dst));
		ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_get_as_task(gt)));
		ASSERT(node_wait(&n, &gr.done, ++polls, 10));
		ASSERT_OK(gr.status);
		ASSERT_EQ(doca_rdma_task_remote_net_sync_event_get_get_result_len(gt), 8);
		memcpy(&got, n.mem + 64, 8);
		if (got > 0xD0CA) {
			ASSERT_EQ(got, 0xD0CB);
			break;
		}
		ASSERT_EQ(got, 0xD0CA);
		ASSERT(polls < 100000);
	}
	res = buf_at(&n, n.mmap, n.mem + 128, 8, 0);
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(n.rdma, n.conn, rse, res, 2,
										(union doca_data){.ptr = &ar}, &at));
	ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_add_as_task(at)));
	ASSERT(node_wait(&n, &ar.done, 1, 10));
	ASSERT_OK(ar.status);
	memcpy(&v, n.mem + 128, 8);
	ASSERT_EQ(v, 0xD0CB);
	/* release the responder's last wait */
	v = UINT64_MAX;
	memcpy(n.mem, &v, 8);
	ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st)));
	ASSERT(node_wait(&n, &sr.done, 2, 10));
	ASSERT_OK(sr.status);
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st));
	doca_task_free(doca_rdma_task_remote_net_sync_event_get_as_task(gt));
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_add_as_task(at));
	ASSERT_OK(doca_sync_event_remote_net_destroy(rse));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(res, NULL));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(sync_event)

/*
 * A remote notify_set completes the exporter's wait task and wakes its PE's
 * notification handle while the exporter sleeps in epoll_wait() (no progress,
 * no busy wait: only the fabric's service thread runs there).
 */
static int se_waits_done;

static void
se_wait_eq_cb(struct doca_sync_event_task_wait_eq *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	if (doca_task_get_status(doca_sync_event_task_wait_eq_as_doca_task(task)) == DOCA_SUCCESS)
		se_waits_done++;
}

static void
run_sync_event_wait_task_wakes(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_sync_event_task_wait_eq *wt;
		struct epoll_event ev = {.events = EPOLLIN};
		doca_notification_handle_t h;
		struct doca_sync_event *se;
		struct doca_pe *pe;
		const uint8_t *desc;
		double t0, dt;
		size_t len;
		int efd, rc;

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC, 1);
		ASSERT_OK(doca_pe_create(&pe));
		ASSERT_OK(doca_sync_event_create(&se));
		ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(se));
		ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(se, n.dev));
		ASSERT_OK(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(se)));
		ASSERT_OK(doca_sync_event_task_wait_eq_set_conf(se, se_wait_eq_cb, se_wait_eq_cb, 4));
		ASSERT_OK(doca_ctx_start(doca_sync_event_as_ctx(se)));
		node_start(&n);
		node_connect(&n);
		ASSERT_OK(doca_sync_event_export_to_remote_net(se, &desc, &len));
		send_blob(n.sock, desc, len);
		ASSERT_OK(doca_sync_event_task_wait_eq_alloc_init(se, 0x77, UINT64_MAX, (union doca_data){0}, &wt));
		ASSERT_OK(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(wt)));
		while (doca_pe_progress(pe) != 0)
			;
		ASSERT_EQ(se_waits_done, 0);
		ASSERT_OK(doca_pe_get_notification_handle(pe, &h));
		efd = epoll_create1(0);
		ASSERT(efd >= 0);
		ASSERT_EQ(epoll_ctl(efd, EPOLL_CTL_ADD, h, &ev), 0);
		ASSERT_OK(doca_pe_request_notification(pe));
		sync_send(n.sock); /* the peer may set the value now */
		t0 = now_s();
		rc = epoll_wait(efd, &ev, 1, 5000);
		dt = now_s() - t0;
		fprintf(stderr, "# exporter's PE woke after %.1f ms (rc %d)\n", dt * 1000, rc);
		ASSERT_EQ(rc, 1);
		ASSERT_OK(doca_pe_clear_notification(pe, h));
		for (int i = 0; i < 1000 && se_waits_done == 0; i++)
			doca_pe_progress(pe);
		ASSERT_EQ(se_waits_done, 1);
		close(efd);
		sync_wait(n.sock);
		doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(wt));
		ASSERT_OK(doca_ctx_stop(doca_sync_event_as_ctx(se)));
		ASSERT_OK(doca_sync_event_destroy(se));
		ASSERT_OK(doca_pe_destroy(pe));
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_remote_net_sync_event_notify_set *st;
	struct doca_sync_event_remote_net *rse;
	struct result sr = {0};
	struct doca_buf *src;
	uint8_t desc[BLOB_MAX];
	uint64_t v = 0x77;
	size_t len;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	len = recv_blob(n.sock, desc, sizeof(desc));
	ASSERT_OK(doca_sync_event_remote_net_create_from_export(n.dev, desc, len, &rse));
	memcpy(n.mem, &v, 8);
	src = buf_at(&n, n.mmap, n.mem, 8, 8);
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(n.rdma, n.conn, rse, src,
										(union doca_data){.ptr = &sr}, &st));
	sync_wait(n.sock);
	ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st)));
	ASSERT(node_wait(&n, &sr.done, 1, 10));
	ASSERT_OK(sr.status);
	/* keep the connection until the exporter saw its wait complete */
	for (double end = now_s() + 0.5; now_s() < end;)
		doca_pe_progress(n.pe);
	sync_send(n.sock);
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(st));
	ASSERT_OK(doca_sync_event_remote_net_destroy(rse));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(sync_event_wait_task_wakes)

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
