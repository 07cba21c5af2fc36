/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM through the public API, between forked processes on loopback:
 * callback order and data over a CM connection, addresses and ids, reject,
 * max_num_connections, nobody listening, request timeout, 64 concurrent
 * clients, the peer SIGKILLed with tasks in flight (bounded detection, every
 * task through its error callback, clean stop), and argument refusals.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../rdma/rdma_test.h"

/* ---- CM bookkeeping (ctx user data is the node; this struct wraps it) ---- */

enum { EV_REQUEST = 1, EV_ESTABLISHED, EV_FAILURE, EV_DISCONNECT, EV_RECV, EV_SEND };

struct cm_node {
	struct node n; /* first: the ctx user data points here */
	int ev[64];    /* event kinds in order */
	int n_ev;
	int n_request, n_established, n_failure, n_disconnect;
	struct doca_rdma_connection *conns[128];
	int n_conns;
	bool accept;	  /* request callback accepts (else rejects) */
	bool ignore;	  /* request callback does nothing */
	uint64_t last_ms; /* when the last failure/disconnect arrived */
};

static uint64_t
ms_now(void)
{
	return (uint64_t)(now_s() * 1000.0);
}

static void
ev_add(struct cm_node *c, int kind)
{
	if (c->n_ev < (int)(sizeof(c->ev) / sizeof(c->ev[0])))
		c->ev[c->n_ev++] = kind;
}

static void
request_cb(struct doca_rdma_connection *conn, union doca_data ctx_user_data)
{
	struct cm_node *c = ctx_user_data.ptr;
	uint8_t priv[255];

	c->n_request++;
	ev_add(c, EV_REQUEST);
	if (c->ignore)
		return;
	if (c->accept) {
		memset(priv, 0x5a, sizeof(priv));
		ASSERT_OK(doca_rdma_connection_accept(conn, priv, sizeof(priv)));
		ASSERT_ERR(doca_rdma_connection_accept(conn, NULL, 0), DOCA_ERROR_BAD_STATE);
		ASSERT_OK(doca_rdma_connection_set_user_data(conn, (union doca_data){.u64 = 77}));
	} else {
		ASSERT_OK(doca_rdma_connection_reject(conn));
	}
}

static void
established_cb(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_user_data)
{
	struct cm_node *c = ctx_user_data.ptr;

	(void)conn_ud;
	c->n_established++;
	ev_add(c, EV_ESTABLISHED);
	if (c->n_conns < (int)(sizeof(c->conns) / sizeof(c->conns[0])))
		c->conns[c->n_conns++] = conn;
}

static void
failure_cb(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_user_data)
{
	struct cm_node *c = ctx_user_data.ptr;

	(void)conn;
	(void)conn_ud;
	c->n_failure++;
	c->last_ms = ms_now();
	ev_add(c, EV_FAILURE);
}

static void
disconnect_cb(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_user_data)
{
	struct cm_node *c = ctx_user_data.ptr;

	(void)conn_ud;
	c->n_disconnect++;
	c->last_ms = ms_now();
	ev_add(c, EV_DISCONNECT);
	/* what the samples do inside this callback */
	ASSERT_OK(doca_rdma_connection_disconnect(conn));
}

static void
cm_open(struct cm_node *c, uint16_t max_conns, bool server)
{
	node_open(&c->n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, max_conns);
	ASSERT_OK(doca_rdma_task_receive_set_conf(c->n.rdma, receive_cb, receive_cb, 128));
	ASSERT_OK(doca_rdma_task_send_set_conf(c->n.rdma, send_cb, send_cb, 128));
	ASSERT_OK(doca_rdma_set_connection_state_callbacks(c->n.rdma, server ? request_cb : NULL, established_cb,
							   failure_cb, disconnect_cb));
}

static bool
cm_wait(struct cm_node *c, const int *counter, int want, double secs)
{
	return node_wait(&c->n, counter, want, secs);
}

static void
client_connect(struct cm_node *c, const char *ip, uint16_t port, uint64_t user)
{
	struct doca_rdma_addr *addr;

	ASSERT_OK(doca_rdma_addr_create(strchr(ip, ':') ? DOCA_RDMA_ADDR_TYPE_IPv6 : DOCA_RDMA_ADDR_TYPE_IPv4, ip, port,
					&addr));
	ASSERT_OK(doca_rdma_connect_to_addr(c->n.rdma, addr, (union doca_data){.u64 = user}));
	/* the connection keeps its own copy */
	ASSERT_OK(doca_rdma_addr_destroy(addr));
}

/* ---- data and callback order ---- */

TEST(cm_send_receive_order_addr_id)
{
	static struct cm_node c;
	uint16_t port = free_port();
	pid_t pid;

	if (sd_test_fork_peer(&pid, &c.n.sock)) {
		/* server: receive posted first, accept, get the message, then the client's disconnect */
		struct doca_rdma_task_receive *rt;
		struct result rr = {0};
		struct doca_buf *dst;
		struct doca_rdma_addr *peer;
		enum doca_rdma_addr_type type;
		const char *text;
		uint16_t pport;
		union doca_data ud;
		uint32_t id;

		c.accept = true;
		cm_open(&c, 2, true);
		node_start(&c.n);
		dst = buf_at(&c.n, c.n.mmap, c.n.mem, 256, 0);
		ASSERT_OK(doca_rdma_task_receive_allocate_init(c.n.rdma, dst, (union doca_data){.ptr = &rr}, &rt));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
		ASSERT_OK(doca_rdma_start_listen_to_port(c.n.rdma, port));
		ASSERT_ERR(doca_rdma_start_listen_to_port(c.n.rdma, port), DOCA_ERROR_ALREADY_EXIST);
		sync_send(c.n.sock);
		ASSERT(cm_wait(&c, &rr.done, 1, 10));
		ASSERT_OK(rr.status);
		ASSERT_STR_EQ((char *)c.n.mem, "hello over rdma-cm");
		ASSERT_EQ(c.n_request, 1);
		ASSERT_EQ(c.n_established, 1);
		ASSERT_PTR_EQ(doca_rdma_task_receive_get_result_rdma_connection(rt), c.conns[0]);
		ASSERT_OK(doca_rdma_connection_get_addr(c.conns[0], &peer));
		ASSERT_OK(doca_rdma_addr_get_params(peer, &type, &text, &pport));
		ASSERT_EQ(type, DOCA_RDMA_ADDR_TYPE_IPv4);
		ASSERT_STR_EQ(text, "127.0.0.1");
		ASSERT_NE(pport, port);
		ASSERT_OK(doca_rdma_connection_get_user_data(c.conns[0], &ud));
		ASSERT_EQ(ud.u64, 77);
		ASSERT_OK(doca_rdma_connection_get_id(c.conns[0], &id));
		ASSERT(cm_wait(&c, &c.n_disconnect, 1, 10));
		/* order: request, established, disconnect (the receive is a task, not a CM event) */
		ASSERT_EQ(c.n_ev, 3);
		ASSERT_EQ(c.ev[0], EV_REQUEST);
		ASSERT_EQ(c.ev[1], EV_ESTABLISHED);
		ASSERT_EQ(c.ev[2], EV_DISCONNECT);
		ASSERT_EQ(c.n_failure, 0);
		ASSERT_OK(doca_rdma_stop_listen_to_port(c.n.rdma, port));
		ASSERT_ERR(doca_rdma_stop_listen_to_port(c.n.rdma, port), DOCA_ERROR_NOT_FOUND);
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		doca_buf_dec_refcount(dst, NULL);
		node_close(&c.n);
		_exit(0);
	} else {
		struct doca_rdma_task_send *st;
		struct result sr = {0};
		struct doca_buf *src;
		struct doca_rdma_addr *peer;
		enum doca_rdma_addr_type type;
		const char *text;
		uint16_t pport;
		union doca_data ud;

		cm_open(&c, 1, false);
		node_start(&c.n);
		sync_wait(c.n.sock);
		client_connect(&c, "127.0.0.1", port, 1234);
		ASSERT(cm_wait(&c, &c.n_established, 1, 10));
		ASSERT_EQ(c.n_ev, 1);
		ASSERT_OK(doca_rdma_connection_get_user_data(c.conns[0], &ud));
		ASSERT_EQ(ud.u64, 1234);
		ASSERT_OK(doca_rdma_connection_get_addr(c.conns[0], &peer));
		ASSERT_OK(doca_rdma_addr_get_params(peer, &type, &text, &pport));
		ASSERT_EQ(pport, port);
		ASSERT_STR_EQ(text, "127.0.0.1");
		strcpy((char *)c.n.mem, "hello over rdma-cm");
		src = buf_at(&c.n, c.n.mmap, c.n.mem, 256, strlen("hello over rdma-cm") + 1);
		ASSERT_OK(doca_rdma_task_send_allocate_init(c.n.rdma, c.conns[0], src, (union doca_data){.ptr = &sr},
							    &st));
		ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
		ASSERT(cm_wait(&c, &sr.done, 1, 10));
		ASSERT_OK(sr.status);
		ASSERT_OK(doca_rdma_connection_disconnect(c.conns[0]));
		ASSERT_OK(doca_rdma_connection_disconnect(c.conns[0])); /* idempotent */
		/* no callback for the side that disconnected */
		for (int i = 0; i < 1000; i++)
			doca_pe_progress(c.n.pe);
		ASSERT_EQ(c.n_ev, 1);
		doca_task_free(doca_rdma_task_send_as_task(st));
		doca_buf_dec_refcount(src, NULL);
		sd_test_reap(pid);
		node_close(&c.n);
	}
}

/* ---- refusals seen by a client ---- */

static void
server_idle(struct cm_node *c, uint16_t port, uint16_t max_conns, double secs)
{
	cm_open(c, max_conns, true);
	node_start(&c->n);
	ASSERT_OK(doca_rdma_start_listen_to_port(c->n.rdma, port));
	sync_send(c->n.sock);
	{
		double end = now_s() + secs;

		while (now_s() < end) {
			doca_pe_progress(c->n.pe);
			usleep(200);
		}
	}
}

TEST(cm_reject)
{
	static struct cm_node c;
	uint16_t port = free_port();
	pid_t pid;

	if (sd_test_fork_peer(&pid, &c.n.sock)) {
		c.accept = false;
		server_idle(&c, port, 1, 2);
		ASSERT_EQ(c.n_request, 1);
		ASSERT_EQ(c.n_established + c.n_failure + c.n_disconnect, 0);
		node_close(&c.n);
		_exit(0);
	}
	cm_open(&c, 1, false);
	node_start(&c.n);
	sync_wait(c.n.sock);
	client_connect(&c, "127.0.0.1", port, 1);
	ASSERT(cm_wait(&c, &c.n_failure, 1, 5));
	ASSERT_EQ(c.n_established, 0);
	sd_test_reap(pid);
	node_close(&c.n);
}

TEST(cm_max_num_connections_refuses_extra)
{
	static struct cm_node c;
	uint16_t port = free_port();
	pid_t pid;

	if (sd_test_fork_peer(&pid, &c.n.sock)) {
		c.accept = true;
		server_idle(&c, port, 1, 3);
		/* the extra request never reaches the application */
		ASSERT_EQ(c.n_request, 1);
		ASSERT_EQ(c.n_established, 1);
		node_close(&c.n);
		_exit(0);
	}
	cm_open(&c, 2, false);
	node_start(&c.n);
	sync_wait(c.n.sock);
	client_connect(&c, "127.0.0.1", port, 1);
	ASSERT(cm_wait(&c, &c.n_established, 1, 5));
	client_connect(&c, "127.0.0.1", port, 2);
	ASSERT(cm_wait(&c, &c.n_failure, 1, 5));
	ASSERT_EQ(c.n_established, 1);
	sd_test_reap(pid);
	node_close(&c.n);
}

TEST(cm_nobody_listening)
{
	static struct cm_node c;
	double t0;

	cm_open(&c, 1, false);
	node_start(&c.n);
	t0 = now_s();
	client_connect(&c, "127.0.0.1", free_port(), 1);
	ASSERT(cm_wait(&c, &c.n_failure, 1, 5));
	ASSERT(now_s() - t0 < 2.0);
	ASSERT_EQ(c.n_established, 0);
	node_close(&c.n);
}

TEST(cm_request_timeout)
{
	static struct cm_node c;
	uint16_t port = free_port();
	uint16_t t;
	double t0, dt;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &c.n.sock)) {
		c.ignore = true;
		server_idle(&c, port, 1, 2);
		ASSERT_EQ(c.n_request, 1);
		/* the client gave up: the unanswered request fails here too */
		ASSERT_EQ(c.n_failure, 1);
		node_close(&c.n);
		_exit(0);
	}
	cm_open(&c, 1, false);
	ASSERT_OK(doca_rdma_set_connection_request_timeout(c.n.rdma, 400));
	ASSERT_OK(doca_rdma_get_connection_request_timeout(c.n.rdma, &t));
	ASSERT_EQ(t, 400);
	node_start(&c.n);
	ASSERT_ERR(doca_rdma_set_connection_request_timeout(c.n.rdma, 500), DOCA_ERROR_BAD_STATE);
	sync_wait(c.n.sock);
	t0 = now_s();
	client_connect(&c, "127.0.0.1", port, 1);
	ASSERT(cm_wait(&c, &c.n_failure, 1, 5));
	dt = now_s() - t0;
	ASSERT(dt >= 0.39 && dt < 1.5);
	sd_test_reap(pid);
	node_close(&c.n);
}

/* ---- many clients ---- */

#define PROCS 4
#define PER_PROC 16

TEST(cm_sixty_four_concurrent_connections)
{
	static struct cm_node c;
	uint16_t port = free_port();
	pid_t srv, cli[PROCS];
	int sv[2];

	ASSERT_EQ(pipe(sv), 0);
	srv = fork();
	ASSERT(srv >= 0);
	if (srv == 0) {
		close(sv[0]);
		c.accept = true;
		cm_open(&c, PROCS * PER_PROC, true);
		node_start(&c.n);
		ASSERT_OK(doca_rdma_start_listen_to_port(c.n.rdma, port));
		ASSERT_EQ(write(sv[1], "x", 1), 1);
		if (!cm_wait(&c, &c.n_established, PROCS * PER_PROC, 60))
			sd_test_fail(__FILE__, __LINE__, "server: %d requests, %d established, %d failed", c.n_request,
				     c.n_established, c.n_failure);
		ASSERT(cm_wait(&c, &c.n_disconnect, PROCS * PER_PROC, 60));
		ASSERT_EQ(c.n_failure, 0);
		node_close(&c.n);
		_exit(0);
	}
	close(sv[1]);
	{
		char x;

		ASSERT_EQ(read(sv[0], &x, 1), 1);
	}
	for (int p = 0; p < PROCS; p++) {
		cli[p] = fork();
		ASSERT(cli[p] >= 0);
		if (cli[p] == 0) {
			cm_open(&c, PER_PROC, false);
			node_start(&c.n);
			for (int i = 0; i < PER_PROC; i++)
				client_connect(&c, "127.0.0.1", port, (uint64_t)i);
			if (!cm_wait(&c, &c.n_established, PER_PROC, 60))
				sd_test_fail(__FILE__, __LINE__, "client %d: %d established, %d failed", p,
					     c.n_established, c.n_failure);
			/* all held at once for a while */
			for (double end = now_s() + 1.0; now_s() < end;)
				doca_pe_progress(c.n.pe);
			ASSERT_EQ(c.n_failure + c.n_disconnect, 0);
			for (int i = 0; i < PER_PROC; i++)
				ASSERT_OK(doca_rdma_connection_disconnect(c.conns[i]));
			node_close(&c.n);
			_exit(0);
		}
	}
	for (int p = 0; p < PROCS; p++)
		sd_test_reap(cli[p]);
	sd_test_reap(srv);
}

/* ---- peer death with tasks in flight ---- */

TEST(cm_peer_killed_mid_transfer)
{
	static struct cm_node c;
	static struct result sr[64];
	struct doca_rdma_task_send *st[64];
	struct doca_buf *src[64];
	uint16_t port = free_port();
	double t_kill, dt;
	int done = 0;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &c.n.sock)) {
		/* server: accepts and never posts a receive, so the client's sends stay in flight */
		c.accept = true;
		server_idle(&c, port, 1, 30);
		_exit(0);
	}
	cm_open(&c, 1, false);
	node_start(&c.n);
	sync_wait(c.n.sock);
	client_connect(&c, "127.0.0.1", port, 1);
	ASSERT(cm_wait(&c, &c.n_established, 1, 5));
	for (int i = 0; i < 64; i++) {
		src[i] = buf_at(&c.n, c.n.mmap, c.n.mem + i * 4096, 4096, 4096);
		ASSERT_OK(doca_rdma_task_send_allocate_init(c.n.rdma, c.conns[0], src[i],
							    (union doca_data){.ptr = &sr[i]}, &st[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st[i])));
	}
	for (int i = 0; i < 200; i++)
		doca_pe_progress(c.n.pe);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	t_kill = now_s();
	ASSERT(cm_wait(&c, &c.n_disconnect, 1, 5));
	dt = now_s() - t_kill;
	fprintf(stderr, "# peer SIGKILLed: disconnect callback after %.0f ms\n", dt * 1000);
	ASSERT(dt < 2.0);
	/* every in-flight task completes through its error callback */
	for (double end = now_s() + 5; now_s() < end && done < 64;) {
		doca_pe_progress(c.n.pe);
		done = 0;
		for (int i = 0; i < 64; i++)
			done += sr[i].done;
	}
	ASSERT_EQ(done, 64);
	for (int i = 0; i < 64; i++) {
		ASSERT_EQ(sr[i].done, 1);
		ASSERT_NE(sr[i].status, DOCA_SUCCESS);
		doca_task_free(doca_rdma_task_send_as_task(st[i]));
		doca_buf_dec_refcount(src[i], NULL);
	}
	ASSERT_EQ(c.n_failure, 0);
	waitpid(pid, NULL, 0);
	node_close(&c.n);
}

/*
 * The peer dies while this side holds nothing but a posted receive: the disconnect callback
 * comes, the receive stays posted (a CM context may accept new peers), and a task then
 * submitted on the dead connection fails at once.  It used to be held for in-order delivery
 * behind that receive and never came (the soak test's survivor, docs/robustness.md).
 */
TEST(cm_task_on_a_dead_connection_fails_at_once)
{
	static struct cm_node c;
	static struct result rr, sr;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_buf *dst, *src;
	uint16_t port = free_port();
	double t0;
	pid_t pid;

	if (sd_test_fork_peer(&pid, &c.n.sock)) {
		/* client: connect, then die without a word */
		cm_open(&c, 1, false);
		node_start(&c.n);
		sync_wait(c.n.sock);
		client_connect(&c, "127.0.0.1", port, 1);
		CHECK(cm_wait(&c, &c.n_established, 1, 10));
		sync_send(c.n.sock);
		sync_wait(c.n.sock);
		_exit(0);
	}
	c.accept = true;
	cm_open(&c, 1, true);
	node_start(&c.n);
	ASSERT_OK(doca_rdma_start_listen_to_port(c.n.rdma, port));
	sync_send(c.n.sock);
	ASSERT(cm_wait(&c, &c.n_established, 1, 10));
	dst = buf_at(&c.n, c.n.mmap, c.n.mem, 4096, 0);
	src = buf_at(&c.n, c.n.mmap, c.n.mem + 4096, 64, 64);
	ASSERT_OK(doca_rdma_task_receive_allocate_init(c.n.rdma, dst, (union doca_data){.ptr = &rr}, &rt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	sync_wait(c.n.sock);
	sync_send(c.n.sock);
	sd_test_reap(pid);
	ASSERT(cm_wait(&c, &c.n_disconnect, 1, 10));
	ASSERT_EQ(rr.done, 0); /* still posted */
	ASSERT_OK(doca_rdma_task_send_allocate_init(c.n.rdma, c.conns[0], src, (union doca_data){.ptr = &sr}, &st));
	t0 = now_s();
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	ASSERT(cm_wait(&c, &sr.done, 1, 10));
	ASSERT(now_s() - t0 < 2);
	ASSERT_NE(sr.status, DOCA_SUCCESS);
	/* the failed task stops the context, which flushes the receive */
	wait_idle(&c.n);
	ASSERT_EQ(rr.done, 1);
	ASSERT_NE(rr.status, DOCA_SUCCESS);
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	node_close(&c.n);
}

/* ---- argument and state refusals (single process) ---- */

TEST(cm_addr_and_refusals)
{
	static struct cm_node c;
	struct doca_rdma_addr *a;
	enum doca_rdma_addr_type type;
	const char *text;
	uint16_t port;
	struct doca_rdma_connection *none = NULL;

	ASSERT_OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "192.168.7.9", 13579, &a));
	ASSERT_OK(doca_rdma_addr_get_params(a, &type, &text, &port));
	ASSERT_EQ(type, DOCA_RDMA_ADDR_TYPE_IPv4);
	ASSERT_STR_EQ(text, "192.168.7.9");
	ASSERT_EQ(port, 13579);
	ASSERT_OK(doca_rdma_addr_destroy(a));
	ASSERT_OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv6, "fe80::1", 1, &a));
	ASSERT_OK(doca_rdma_addr_get_params(a, &type, &text, &port));
	ASSERT_EQ(type, DOCA_RDMA_ADDR_TYPE_IPv6);
	ASSERT_OK(doca_rdma_addr_destroy(a));
	ASSERT_OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_GID, "::ffff:10.0.0.1", 2, &a));
	ASSERT_OK(doca_rdma_addr_get_params(a, &type, &text, &port));
	ASSERT_EQ(type, DOCA_RDMA_ADDR_TYPE_GID);
	ASSERT_STR_EQ(text, "::ffff:10.0.0.1");
	ASSERT_OK(doca_rdma_addr_destroy(a));
	ASSERT_ERR(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "::1", 1, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "300.1.1.1", 1, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_GID, "10.0.0.1", 1, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, NULL, 1, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_addr_create((enum doca_rdma_addr_type)7, "1.2.3.4", 1, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_addr_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_addr_get_params(NULL, &type, &text, &port), DOCA_ERROR_INVALID_VALUE);

	cm_open(&c, 1, false);
	/* not started */
	ASSERT_ERR(doca_rdma_connect_to_addr(c.n.rdma, NULL, (union doca_data){0}), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_set_connection_state_callbacks(c.n.rdma, NULL, NULL, failure_cb, disconnect_cb),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_set_connection_request_timeout(c.n.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", 1, &a));
	ASSERT_ERR(doca_rdma_connect_to_addr(c.n.rdma, a, (union doca_data){0}), DOCA_ERROR_BAD_STATE);
	node_start(&c.n);
	/* running: callbacks frozen; listening needs a request callback and a port */
	ASSERT_ERR(doca_rdma_set_connection_state_callbacks(c.n.rdma, request_cb, established_cb, failure_cb,
							    disconnect_cb),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_rdma_start_listen_to_port(c.n.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_start_listen_to_port(c.n.rdma, 13579), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_rdma_stop_listen_to_port(c.n.rdma, 13579), DOCA_ERROR_NOT_FOUND);
	ASSERT_ERR(doca_rdma_connection_accept(NULL, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connection_reject(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connection_disconnect(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connection_get_id(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_bridge_prepare_connection(c.n.rdma, NULL, &none), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_rdma_bridge_accept(c.n.rdma, NULL, 0, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_rdma_bridge_established(c.n.rdma, NULL), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT(none == NULL);
	/* an OOB connection has no peer address and cannot be accepted */
	{
		const void *blob;
		size_t len;
		struct doca_rdma_connection *oob;
		struct doca_rdma_addr *pa;

		ASSERT_OK(doca_rdma_export(c.n.rdma, &blob, &len, &oob));
		ASSERT_ERR(doca_rdma_connection_get_addr(oob, &pa), DOCA_ERROR_NOT_FOUND);
		ASSERT_ERR(doca_rdma_connection_accept(oob, NULL, 0), DOCA_ERROR_BAD_STATE);
	}
	ASSERT_OK(doca_rdma_addr_destroy(a));
	node_close(&c.n);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
