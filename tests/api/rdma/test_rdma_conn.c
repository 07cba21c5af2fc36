/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA RDMA rules between two processes: remote access (each permission row,
 * the peer context's permissions, range, forged key, revoked export), a send
 * that finds no receive, 64 connections on one context, tasks submitted before
 * the connection is made, stop with tasks in flight, and a peer that dies
 * (with tasks in flight, or while only receives are posted).
 * Over UCX shm/cma and over tcp on loopback.
 */
#include "rdma_test.h"

/* Submit a task and wait for its completion; returns its status. */
#define RUN(n, family, task, r)                                                                                        \
	({                                                                                                             \
		ASSERT_OK(doca_task_submit(doca_rdma_task_##family##_as_task(task)));                                  \
		ASSERT(node_wait((n), &(r)->done, (r)->done + 1, 20));                                                 \
		(r)->status;                                                                                           \
	})

static bool
all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* Export [mem + off, +len) with perms as a separate mmap and send its descriptor. */
static struct doca_mmap *
export_region(struct node *n, size_t off, size_t len, uint32_t perms)
{
	struct doca_mmap *m;
	const void *desc;
	size_t dlen;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_permissions(m, perms));
	ASSERT_OK(doca_mmap_set_memrange(m, n->mem + off, len));
	ASSERT_OK(doca_mmap_add_dev(m, n->dev));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_export_rdma(m, n->dev, &desc, &dlen));
	send_blob(n->sock, desc, dlen);
	return m;
}

/*
 * The permission table, one refused access per connection (a remote access
 * error ends the connection and stops the context, as on an RC QP): the target
 * exports A (RDMA_READ), B (RDMA_WRITE), C (RDMA_ATOMIC), 4 KiB each, filled
 * with 0x5A.  Refused accesses complete with NOT_PERMITTED and leave both ends'
 * bytes as they were; allowed ones work.
 */
#define ROWS 4

static void
run_permission_rows(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		static uint8_t got[3 * 4096];
		struct doca_mmap *m[3];
		uint64_t c;

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC, 8);
		memset(n.mem, 0x5A, 3 * 4096);
		node_start(&n);
		m[0] = export_region(&n, 0, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ);
		m[1] = export_region(&n, 4096, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE);
		m[2] = export_region(&n, 8192, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC);
		for (int row = 0; row <= ROWS; row++)
			node_connect(&n); /* a new connection per row, the last for the allowed accesses */
		sync_wait(n.sock);
		sd_test_read_foreign(got, n.mem, sizeof(got)); /* written by the peer */
		ASSERT(all_bytes(got, 4096, 0x5A));	       /* A: written by nobody */
		ASSERT(all_bytes(got + 4096, 4096, 0x11));     /* B: written once */
		memcpy(&c, got + 8192, 8);
		ASSERT_EQ(c, 0x5A5A5A5A5A5A5A5Aull + 1); /* C: one fetch_add */
		ASSERT(all_bytes(got + 8192 + 8, 4088, 0x5A));
		sync_send(n.sock);
		sync_wait(n.sock);
		for (int i = 0; i < 3; i++) {
			ASSERT_OK(doca_mmap_stop(m[i]));
			ASSERT_OK(doca_mmap_destroy(m[i]));
		}
		node_close(&n);
		_exit(0);
	}
	struct doca_mmap *rm[3];
	struct doca_buf *rb[3], *src, *dst, *res;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_atomic_fetch_add *ft;
	struct doca_rdma_task_atomic_cmp_swp *ct;
	struct result wr = {0}, rr = {0}, fr = {0}, cr = {0};
	void *raddr;
	size_t rlen, dl;
	uint64_t old;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	for (int i = 0; i < 3; i++) {
		rm[i] = node_recv_mmap(&n);
		ASSERT_OK(doca_mmap_get_memrange(rm[i], &raddr, &rlen));
		ASSERT_EQ(rlen, 4096);
		rb[i] = buf_at(&n, rm[i], raddr, 4096, 4096);
	}
	memset(n.mem, 0x11, 4096);
	memset(n.mem + 65536, 0xEE, 65536);
	src = buf_at(&n, n.mmap, n.mem, 4096, 4096);
	dst = buf_at(&n, n.mmap, n.mem + 65536, 4096, 0);
	res = buf_at(&n, n.mmap, n.mem + 2 * 65536, 4096, 0);
	for (int row = 0; row < ROWS; row++) {
		doca_error_t st = DOCA_SUCCESS;

		node_start(&n);
		node_connect(&n);
		ASSERT_OK(doca_buf_reset_data_len(rb[0]));
		ASSERT_OK(doca_buf_reset_data_len(rb[1]));
		switch (row) {
		case 0: /* write to A (read-only) */
			ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rb[0],
								     (union doca_data){.ptr = &wr}, &wt));
			ASSERT_ERR(doca_task_try_submit(doca_rdma_task_write_as_task(wt)), DOCA_ERROR_NOT_PERMITTED);
			st = RUN(&n, write, wt, &wr);
			doca_task_free(doca_rdma_task_write_as_task(wt));
			break;
		case 1: /* read from B (write-only) */
			ASSERT_OK(doca_rdma_task_read_allocate_init(n.rdma, n.conn, rb[1], dst,
								    (union doca_data){.ptr = &rr}, &rt));
			ASSERT_ERR(doca_task_try_submit(doca_rdma_task_read_as_task(rt)), DOCA_ERROR_NOT_PERMITTED);
			st = RUN(&n, read, rt, &rr);
			doca_task_free(doca_rdma_task_read_as_task(rt));
			break;
		case 2: /* fetch_add on A (no RDMA_ATOMIC) */
			ASSERT_OK(doca_rdma_task_atomic_fetch_add_allocate_init(n.rdma, n.conn, rb[0], res, 1,
										(union doca_data){.ptr = &fr}, &ft));
			st = RUN(&n, atomic_fetch_add, ft, &fr);
			doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(ft));
			break;
		default: /* cmp_swp on B (no RDMA_ATOMIC) */
			ASSERT_OK(doca_rdma_task_atomic_cmp_swp_allocate_init(n.rdma, n.conn, rb[1], res, 0x5A, 1,
									      (union doca_data){.ptr = &cr}, &ct));
			st = RUN(&n, atomic_cmp_swp, ct, &cr);
			doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(ct));
			break;
		}
		ASSERT_ERR(st, DOCA_ERROR_NOT_PERMITTED);
		wait_idle(&n);
	}
	/* nothing landed locally either */
	ASSERT(all_bytes(n.mem + 65536, 65536, 0xEE));
	ASSERT_OK(doca_buf_get_data_len(res, &dl));
	ASSERT_EQ(dl, 0);

	/* the allowed accesses, on a last connection */
	node_start(&n);
	node_connect(&n);
	ASSERT_OK(doca_buf_reset_data_len(rb[1]));
	ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rb[1], (union doca_data){.ptr = &wr}, &wt));
	ASSERT_OK(RUN(&n, write, wt, &wr));
	ASSERT_OK(doca_mmap_get_memrange(rm[0], &raddr, &rlen));
	ASSERT_OK(doca_buf_set_data(rb[0], raddr, 4096)); /* the rows above emptied it */
	ASSERT_OK(doca_rdma_task_read_allocate_init(n.rdma, n.conn, rb[0], dst, (union doca_data){.ptr = &rr}, &rt));
	ASSERT_OK(RUN(&n, read, rt, &rr));
	ASSERT(all_bytes(n.mem + 65536, 4096, 0x5A));
	ASSERT_OK(doca_buf_get_data_len(dst, &dl));
	ASSERT_EQ(dl, 4096);
	ASSERT_OK(doca_mmap_get_memrange(rm[2], &raddr, &rlen));
	ASSERT_OK(doca_buf_dec_refcount(rb[2], NULL));
	rb[2] = buf_at(&n, rm[2], raddr, 8, 8);
	ASSERT_OK(doca_rdma_task_atomic_fetch_add_allocate_init(n.rdma, n.conn, rb[2], res, 1,
								(union doca_data){.ptr = &fr}, &ft));
	ASSERT_OK(RUN(&n, atomic_fetch_add, ft, &fr));
	memcpy(&old, n.mem + 2 * 65536, 8);
	ASSERT_EQ(old, 0x5A5A5A5A5A5A5A5Aull);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(ft));
	sync_send(n.sock);
	sync_wait(n.sock);
	for (int i = 0; i < 3; i++) {
		ASSERT_OK(doca_buf_dec_refcount(rb[i], NULL));
		ASSERT_OK(doca_mmap_destroy(rm[i]));
	}
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(res, NULL));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(permission_rows)

/*
 * The peer context's doca_rdma_set_permissions() row: the mmap grants
 * everything, the target context only RDMA_READ.  Reads work; writes and
 * atomics are refused (NOT_PERMITTED) and the target stays untouched.
 */
static void
run_peer_ctx_permissions(int tcp)
{
	struct node n = {0};
	pid_t pid;
	const uint32_t all = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
			     DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		node_open(&n, all, DOCA_ACCESS_FLAG_RDMA_READ, 1);
		memset(n.mem, 0x5A, 4096);
		node_start(&n);
		node_connect(&n);
		node_send_mmap(&n);
		sync_wait(n.sock);
		ASSERT(all_bytes(n.mem, 4096, 0x5A));
		sync_send(n.sock);
		node_close(&n);
		_exit(0);
	}
	struct doca_mmap *remote;
	struct doca_buf *src, *dst, *rb, *res;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_atomic_fetch_add *ft;
	struct result wr = {0}, rr = {0}, fr = {0};
	void *raddr;
	size_t rlen;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	remote = node_recv_mmap(&n);
	ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
	memset(n.mem, 0x11, 4096);
	src = buf_at(&n, n.mmap, n.mem, 4096, 4096);
	dst = buf_at(&n, n.mmap, n.mem + 8192, 4096, 0);
	res = buf_at(&n, n.mmap, n.mem + 16384, 64, 0);
	rb = buf_at(&n, remote, raddr, 4096, 4096);
	ASSERT_OK(doca_rdma_task_read_allocate_init(n.rdma, n.conn, rb, dst, (union doca_data){.ptr = &rr}, &rt));
	ASSERT_OK(RUN(&n, read, rt, &rr));
	ASSERT(all_bytes(n.mem + 8192, 4096, 0x5A));
	ASSERT_OK(doca_rdma_task_atomic_fetch_add_allocate_init(n.rdma, n.conn, rb, res, 1,
								(union doca_data){.ptr = &fr}, &ft));
	ASSERT_ERR(doca_task_try_submit(doca_rdma_task_atomic_fetch_add_as_task(ft)), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_buf_reset_data_len(rb));
	ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rb, (union doca_data){.ptr = &wr}, &wt));
	ASSERT_ERR(doca_task_try_submit(doca_rdma_task_write_as_task(wt)), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(RUN(&n, write, wt, &wr), DOCA_ERROR_NOT_PERMITTED);
	wait_idle(&n);
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(ft));
	sync_send(n.sock);
	sync_wait(n.sock);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(res, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rb, NULL));
	ASSERT_OK(doca_mmap_destroy(remote));
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(peer_ctx_permissions)

/*
 * Forged and revoked descriptors through the DOCA API, on the default paths
 * (same host: the target's record checked before a kernel copy, then the
 * target's own check; tcp: the target's check): nothing touches the target's
 * memory.  Case 0: the range grown past the
 * export; 1: a flipped key byte; 2: permission bits raised in both the
 * descriptor and the fabric blob; 3: the export revoked (doca_mmap_stop).
 */
#define FORGE_CASES 4
/* Offsets inside the RDMA mmap descriptor (rdma_proto.h / fabric_proto.h). */
#define DESC_LEN_OFF 24	 /* sd_rdma_mmap_desc.len */
#define DESC_PERM_OFF 32 /* sd_rdma_mmap_desc.permissions */
#define FABRIC_OFF 40	 /* fabric blob */
#define FABRIC_LEN_OFF (40 + 24)
#define FABRIC_PERM_OFF (40 + 32)
#define FABRIC_KEY_OFF (40 + 40)

static void
run_forged(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_mmap *m;

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE, 8);
		memset(n.mem, 0x5A, 3 * 4096);
		node_start(&n);
		for (int c = 0; c < FORGE_CASES; c++) {
			/* case 2 exports read-only memory; the others writable memory */
			m = export_region(&n, 4096, 4096,
					  DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
						  (c == 2 ? DOCA_ACCESS_FLAG_RDMA_READ : DOCA_ACCESS_FLAG_RDMA_WRITE));
			if (c == 3)
				ASSERT_OK(doca_mmap_stop(m)); /* revoked before use */
			node_connect(&n);
			/*
			 * Connected: the peer may write now.  (A forged write reaching
			 * the endpoint before doca_rdma_connect() fails it, and the
			 * connect then returns BAD_STATE, as a QP in error would.)
			 */
			sync_send(n.sock);
			sync_wait(n.sock);
			ASSERT(all_bytes(n.mem, 3 * 4096, 0x5A));
			sync_send(n.sock);
			ASSERT_OK(doca_mmap_destroy(m));
		}
		node_close(&n);
		_exit(0);
	}
	uint8_t desc[BLOB_MAX];

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	memset(n.mem, 0x11, 8192);
	for (int c = 0; c < FORGE_CASES; c++) {
		struct doca_rdma_task_write *wt;
		struct result wr = {0};
		struct doca_mmap *remote;
		struct doca_buf *src, *rb;
		size_t len = recv_blob(n.sock, desc, sizeof(desc));
		uint64_t v;
		uint32_t p;
		size_t wlen = 4096;
		void *raddr;
		size_t rlen;

		switch (c) {
		case 0:
			v = 8192;
			memcpy(desc + DESC_LEN_OFF, &v, 8);
			memcpy(desc + FABRIC_LEN_OFF, &v, 8);
			wlen = 8192;
			break;
		case 1:
			desc[FABRIC_KEY_OFF + 3] ^= 0x40;
			break;
		case 2:
			memcpy(&p, desc + DESC_PERM_OFF, 4);
			p |= DOCA_ACCESS_FLAG_RDMA_WRITE;
			memcpy(desc + DESC_PERM_OFF, &p, 4);
			memcpy(&p, desc + FABRIC_PERM_OFF, 4);
			p |= 2; /* FABRIC_PERM_REMOTE_WRITE */
			memcpy(desc + FABRIC_PERM_OFF, &p, 4);
			break;
		default:
			break;
		}
		ASSERT_OK(doca_mmap_create_from_export(NULL, desc, len, n.dev, &remote));
		ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
		src = buf_at(&n, n.mmap, n.mem, wlen, wlen);
		rb = buf_at(&n, remote, raddr, wlen, 0);
		node_start(&n);
		node_connect(&n);
		sync_wait(n.sock); /* the exporter connected too */
		ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, rb, (union doca_data){.ptr = &wr},
							     &wt));
		ASSERT_NE(RUN(&n, write, wt, &wr), DOCA_SUCCESS);
		wait_idle(&n);
		doca_task_free(doca_rdma_task_write_as_task(wt));
		ASSERT_OK(doca_buf_dec_refcount(src, NULL));
		ASSERT_OK(doca_buf_dec_refcount(rb, NULL));
		ASSERT_OK(doca_mmap_destroy(remote));
		sync_send(n.sock);
		sync_wait(n.sock);
	}
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(forged)

/* ---- send without a posted receive: bounded wait, then both sides see TIME_OUT ---- */

static void
run_send_without_recv(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	setenv("SOFTDOCA_RDMA_RNR_TIMEOUT_MS", "300", 1);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_rdma_task_send *st;
		struct result r = {0};
		double t0 = now_s();

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		node_connect(&n);
		sync_wait(n.sock); /* the peer has sent */
		/* progress without posting: the message expires here, the connection fails */
		while (now_s() - t0 < 1.5)
			doca_pe_progress(n.pe);
		ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, NULL, (union doca_data){.ptr = &r}, &st));
		ASSERT_ERR(RUN(&n, send, st, &r), DOCA_ERROR_TIME_OUT);
		doca_task_free(doca_rdma_task_send_as_task(st));
		wait_idle(&n);
		sync_send(n.sock);
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_send *st;
	struct result r = {0};
	double t0;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, NULL, (union doca_data){.ptr = &r}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	sync_send(n.sock);
	t0 = now_s();
	ASSERT(node_wait(&n, &r.done, 1, 10));
	ASSERT_ERR(r.status, DOCA_ERROR_TIME_OUT);
	ASSERT(now_s() - t0 < 5);
	doca_task_free(doca_rdma_task_send_as_task(st));
	wait_idle(&n);
	sync_wait(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(send_without_recv)

/* ---- 64 connections on one context; results name the right connection ---- */

#define NCONN 64

static void
run_conns64(int tcp)
{
	struct node n = {0};
	struct doca_rdma_connection *conns[NCONN];
	pid_t pid;
	bool child;

	use_transport(tcp);
	child = sd_test_fork_peer(&pid, &n.sock);
	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NCONN);
	node_conf_all(&n);
	node_start(&n);
	for (int i = 0; i < NCONN; i++) {
		conns[i] = node_connect(&n);
		for (int j = 0; j < i; j++)
			ASSERT(conns[j] != conns[i]);
	}
	{
		struct doca_rdma_connection *extra;
		const void *blob;
		size_t len;

		ASSERT_ERR(doca_rdma_export(n.rdma, &blob, &len, &extra), DOCA_ERROR_FULL);
	}
	if (child) {
		struct doca_rdma_task_receive *rt[NCONN];
		struct result r[NCONN] = {0};
		struct doca_buf *dst[NCONN];
		bool seen[NCONN] = {0};

		for (int i = 0; i < NCONN; i++) {
			dst[i] = buf_at(&n, n.mmap, n.mem + i * 64, 64, 0);
			ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, dst[i], (union doca_data){.ptr = &r[i]},
								       &rt[i]));
			ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
		}
		sync_send(n.sock);
		for (int i = 0; i < NCONN; i++) {
			uint32_t idx;

			ASSERT(node_wait(&n, &r[i].done, 1, 20));
			ASSERT_OK(r[i].status);
			ASSERT_EQ(doca_rdma_task_receive_get_result_len(rt[i]), 4);
			memcpy(&idx, n.mem + i * 64, 4);
			ASSERT(idx < NCONN);
			ASSERT(!seen[idx]);
			seen[idx] = true;
			ASSERT_PTR_EQ(doca_rdma_task_receive_get_result_rdma_connection(rt[i]), conns[idx]);
			doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
			ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
		}
		sync_wait(n.sock);
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_send *st[NCONN];
	struct result r[NCONN] = {0};
	struct doca_buf *src[NCONN];

	sync_wait(n.sock);
	for (uint32_t i = 0; i < NCONN; i++) {
		memcpy(n.mem + i * 64, &i, 4);
		src[i] = buf_at(&n, n.mmap, n.mem + i * 64, 64, 4);
		ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, conns[i], src[i], (union doca_data){.ptr = &r[i]},
							    &st[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st[i])));
	}
	for (int i = 0; i < NCONN; i++) {
		ASSERT(node_wait(&n, &r[i].done, 1, 20));
		ASSERT_OK(r[i].status);
		doca_task_free(doca_rdma_task_send_as_task(st[i]));
		ASSERT_OK(doca_buf_dec_refcount(src[i], NULL));
	}
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(conns64)

/* ---- tasks submitted before connect (and before the peer connects) complete later ---- */

static void
run_before_connect(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		struct doca_rdma_task_receive *rt;
		struct doca_buf *dst;
		struct result r = {0};
		uint8_t peer[BLOB_MAX];
		const void *blob;
		size_t len, plen;

		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		ASSERT_OK(doca_rdma_export(n.rdma, &blob, &len, &n.conn));
		send_blob(n.sock, blob, len);
		plen = recv_blob(n.sock, peer, sizeof(peer));
		/* the peer submitted before connecting; make it wait a while longer */
		for (double t0 = now_s(); now_s() - t0 < 0.3;)
			doca_pe_progress(n.pe);
		ASSERT_OK(doca_rdma_connect(n.rdma, peer, plen, n.conn));
		dst = buf_at(&n, n.mmap, n.mem, 64, 0);
		ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, dst, (union doca_data){.ptr = &r}, &rt));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
		ASSERT(node_wait(&n, &r.done, 1, 20));
		ASSERT_OK(r.status);
		ASSERT_MEM_EQ(n.mem, "early", 6);
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
		sync_wait(n.sock);
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_send *st;
	struct result r = {0};
	struct doca_buf *src;
	uint8_t peer[BLOB_MAX];
	const void *blob;
	size_t len, plen;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	ASSERT_OK(doca_rdma_export(n.rdma, &blob, &len, &n.conn));
	memcpy(n.mem, "early", 6);
	src = buf_at(&n, n.mmap, n.mem, 64, 6);
	/* submitted on a connection that is not connected yet: it waits */
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, src, (union doca_data){.ptr = &r}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	for (double t0 = now_s(); now_s() - t0 < 0.2;)
		doca_pe_progress(n.pe);
	ASSERT_EQ(r.done, 0);
	send_blob(n.sock, blob, len);
	plen = recv_blob(n.sock, peer, sizeof(peer));
	ASSERT_OK(doca_rdma_connect(n.rdma, peer, plen, n.conn));
	ASSERT(node_wait(&n, &r.done, 1, 20));
	ASSERT_OK(r.status);
	doca_task_free(doca_rdma_task_send_as_task(st));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(before_connect)

/* ---- stop with tasks in flight: IN_PROGRESS, flushed through the error callback ---- */

static void
run_stop_flush(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		node_connect(&n);
		sync_wait(n.sock); /* never posts a receive */
		node_close(&n);
		_exit(0);
	}
	struct doca_rdma_task_receive *rt[3];
	struct doca_rdma_task_send *st;
	struct result rr[3] = {0}, sr = {0};
	size_t inflight;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	for (int i = 0; i < 3; i++) {
		ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, NULL, (union doca_data){.ptr = &rr[i]}, &rt[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
	}
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, NULL, (union doca_data){.ptr = &sr}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(n.ctx, &inflight));
	ASSERT_EQ(inflight, 4);
	ASSERT_ERR(doca_ctx_stop(n.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(n.state, DOCA_CTX_STATE_STOPPING);
	wait_idle(&n);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(rr[i].done, 1);
		ASSERT_ERR(rr[i].status, DOCA_ERROR_IO_FAILED);
		doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
	}
	ASSERT_EQ(sr.done, 1);
	ASSERT_NE(sr.status, DOCA_SUCCESS);
	doca_task_free(doca_rdma_task_send_as_task(st));
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(n.ctx, &inflight));
	ASSERT_EQ(inflight, 0);
	sync_send(n.sock);
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(stop_flush)

/* ---- the peer dies: tasks on its connection fail (no hang), the context stops ---- */

static void
run_peer_death(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
			  DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
		node_start(&n);
		node_connect(&n);
		node_send_mmap(&n);
		sync_wait(n.sock);
		_exit(0); /* gone, without any cleanup */
	}
	struct doca_rdma_task_send *st;
	struct result r = {0};
	double t0;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	{
		/*
		 * One write completes first, so the endpoint is wired up before the
		 * peer dies: UCX 1.13 aborts the surviving process
		 * (wireup_ep.c:241 "pending_count == 0") when a tcp peer dies in
		 * the middle of the wireup with a message pending on it.
		 */
		struct doca_mmap *remote = node_recv_mmap(&n);
		struct doca_rdma_task_write *wt;
		struct result wr = {0};
		struct doca_buf *src = buf_at(&n, n.mmap, n.mem, 8, 8);
		struct doca_buf *dst;
		void *raddr;
		size_t rlen;

		ASSERT_OK(doca_mmap_get_memrange(remote, &raddr, &rlen));
		dst = buf_at(&n, remote, raddr, 8, 0);
		ASSERT_OK(doca_rdma_task_write_allocate_init(n.rdma, n.conn, src, dst, (union doca_data){.ptr = &wr},
							     &wt));
		ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
		ASSERT(node_wait(&n, &wr.done, 1, 10));
		ASSERT_OK(wr.status);
		doca_task_free(doca_rdma_task_write_as_task(wt));
		ASSERT_OK(doca_buf_dec_refcount(src, NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
		ASSERT_OK(doca_mmap_destroy(remote));
	}
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, n.conn, NULL, (union doca_data){.ptr = &r}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	sync_send(n.sock);
	sd_test_reap(pid);
	t0 = now_s();
	ASSERT(node_wait(&n, &r.done, 1, 15));
	ASSERT_NE(r.status, DOCA_SUCCESS);
	ASSERT(now_s() - t0 < 10);
	wait_idle(&n);
	doca_task_free(doca_rdma_task_send_as_task(st));
	node_close(&n);
}
BOTH(peer_death)

/*
 * A responder that only posted receives (doca_perf's server, DOCA's receive
 * samples) learns of its peer's death: the receives fail, as a QP in error
 * flushes its receive queue, within the liveness time, and the context stops.
 */
static void
run_receiver_sees_peer_death(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock)) {
		node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
		node_conf_all(&n);
		node_start(&n);
		node_connect(&n);
		sync_wait(n.sock);
		_exit(0); /* gone, without any cleanup */
	}
	struct doca_rdma_task_receive *rt[2];
	struct doca_buf *dst[2];
	struct result r[2] = {0};
	double t0;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	node_start(&n);
	node_connect(&n);
	for (int i = 0; i < 2; i++) {
		dst[i] = buf_at(&n, n.mmap, n.mem + i * 4096, 4096, 0);
		ASSERT_OK(
			doca_rdma_task_receive_allocate_init(n.rdma, dst[i], (union doca_data){.ptr = &r[i]}, &rt[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
	}
	/* the connection is up both ways before the peer goes */
	for (int i = 0; i < 50; i++)
		doca_pe_progress(n.pe);
	sync_send(n.sock);
	sd_test_reap(pid);
	t0 = now_s();
	ASSERT(node_wait(&n, &r[1].done, 1, 15));
	ASSERT_EQ(r[0].done, 1);
	fprintf(stderr, "# receives failed %.2f s after the peer died (%s, %s)\n", now_s() - t0,
		doca_error_get_name(r[0].status), doca_error_get_name(r[1].status));
	ASSERT(now_s() - t0 < 5);
	/* the first fails with the loss, the other is flushed as the context stops */
	ASSERT_NE(r[0].status, DOCA_SUCCESS);
	ASSERT_NE(r[1].status, DOCA_SUCCESS);
	wait_idle(&n);
	for (int i = 0; i < 2; i++) {
		doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
		ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
	}
	node_close(&n);
}
BOTH(receiver_sees_peer_death)

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
