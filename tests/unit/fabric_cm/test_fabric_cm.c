/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract tests of the soft NIC's connection manager (src/fabric/fabric_cm.h)
 * between real processes on loopback: handshake with private data and
 * descriptors, event order, reject / full / timeout / nobody listening,
 * 64 concurrent clients, peer killed, peer silent (link-loss stand-in),
 * blocked peer kept alive, hostile handshake bytes, and the wire parser.
 */
#include "cm_fixture.h"

/* ---- wire format (no UCX) ---- */

TEST(proto_roundtrip_and_refusals)
{
	uint8_t buf[FABRIC_CM_MSG_MAX + 8], priv[255], desc[FABRIC_CM_DESC_MAX];
	struct fabric_cm_msg m;
	struct fabric_cm_hdr h;
	size_t len;

	priv_pattern(priv, sizeof(priv));
	memset(desc, 0x3c, sizeof(desc));
	len = fabric_cm_msg_build(buf, sizeof(buf), FABRIC_CM_MSG_ACCEPT, 77, 5, 0, priv, 255, desc, sizeof(desc));
	ASSERT_EQ(len, FABRIC_CM_MSG_MAX);
	ASSERT_OK(fabric_cm_msg_parse(buf, len, &m));
	ASSERT_EQ(m.type, FABRIC_CM_MSG_ACCEPT);
	ASSERT_EQ(m.priv_len, 255);
	ASSERT_EQ(m.desc_len, sizeof(desc));
	ASSERT_EQ(m.token, 77);
	ASSERT_EQ(m.conn_id, 5);
	ASSERT_MEM_EQ(m.priv, priv, 255);
	ASSERT_MEM_EQ(m.desc, desc, sizeof(desc));
	/* every truncation and every extension is refused */
	ASSERT_ERR(fabric_cm_msg_parse(buf, len - 1, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(fabric_cm_msg_parse(buf, len + 1, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(fabric_cm_msg_parse(buf, 31, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(fabric_cm_msg_parse(NULL, 32, &m), DOCA_ERROR_INVALID_VALUE);
	/* builders refuse what parsers refuse */
	ASSERT_EQ(fabric_cm_msg_build(buf, sizeof(buf), FABRIC_CM_MSG_PING, 0, 0, 0, NULL, 0, NULL, 0), 0);
	ASSERT_EQ(fabric_cm_msg_build(buf, 40, FABRIC_CM_MSG_REQUEST, 1, 0, 0, NULL, 0, desc, 16), 0);
	ASSERT_EQ(fabric_cm_msg_build(buf, sizeof(buf), FABRIC_CM_MSG_REQUEST, 1, 0, 0, NULL, 0, desc,
				      FABRIC_CM_DESC_MAX + 1),
		  0);

#define MUTATE(field, value, expect)                                                                                   \
	do {                                                                                                           \
		len = fabric_cm_msg_build(buf, sizeof(buf), FABRIC_CM_MSG_REQUEST, 9, 1, 0, NULL, 0, desc, 16);        \
		memcpy(&h, buf, sizeof(h));                                                                            \
		h.field = value;                                                                                       \
		memcpy(buf, &h, sizeof(h));                                                                            \
		ASSERT_ERR(fabric_cm_msg_parse(buf, len, &m), expect);                                                 \
	} while (0)
	MUTATE(magic, 0x12345678, DOCA_ERROR_INVALID_VALUE);
	MUTATE(version, 2, DOCA_ERROR_UNSUPPORTED_VERSION);
	MUTATE(version, 0, DOCA_ERROR_UNSUPPORTED_VERSION);
	MUTATE(type, 0, DOCA_ERROR_INVALID_VALUE);
	MUTATE(type, FABRIC_CM_MSG_TYPE_MAX + 1, DOCA_ERROR_INVALID_VALUE);
	MUTATE(total_len, 49, DOCA_ERROR_INVALID_VALUE);
	MUTATE(desc_len, 17, DOCA_ERROR_INVALID_VALUE);
	MUTATE(desc_len, 0xffffffffu, DOCA_ERROR_INVALID_VALUE);
	MUTATE(priv_len, 1, DOCA_ERROR_INVALID_VALUE);
	MUTATE(token, 0, DOCA_ERROR_INVALID_VALUE);
	MUTATE(reserved, 1, DOCA_ERROR_INVALID_VALUE);
	MUTATE(reason, 1, DOCA_ERROR_INVALID_VALUE);
	/* a REQUEST must carry a descriptor; a PING / REJECT must not */
	MUTATE(desc_len, 0, DOCA_ERROR_INVALID_VALUE);
	MUTATE(type, FABRIC_CM_MSG_PING, DOCA_ERROR_INVALID_VALUE);
	MUTATE(type, FABRIC_CM_MSG_REJECT, DOCA_ERROR_INVALID_VALUE);
#undef MUTATE
	len = fabric_cm_msg_build(buf, sizeof(buf), FABRIC_CM_MSG_REJECT, 9, 1, FABRIC_CM_REJ_MAX + 1, NULL, 0, NULL,
				  0);
	ASSERT_ERR(fabric_cm_msg_parse(buf, len, &m), DOCA_ERROR_INVALID_VALUE);
	len = fabric_cm_msg_build(buf, sizeof(buf), FABRIC_CM_MSG_REJECT, 9, 1, FABRIC_CM_REJ_FULL, NULL, 0, NULL, 0);
	ASSERT_OK(fabric_cm_msg_parse(buf, len, &m));
	ASSERT_EQ(m.reason, FABRIC_CM_REJ_FULL);
}

/* ---- handshake ---- */

/* Server: REQUEST, ESTABLISHED, then the client's orderly DISCONNECT, in that order. */
static void
body_accept_then_disconnect(struct fabric_cm *cm, struct rec *r)
{
	uint8_t priv[255];

	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_DISCONNECT, 1, 10000) == 1);
	CHECK(r->n == 3);
	CHECK(r->ev[0].type == FABRIC_CM_EVENT_REQUEST);
	CHECK(r->ev[0].desc_len == sizeof(cli_desc));
	CHECK(memcmp(r->ev[0].desc, cli_desc, sizeof(cli_desc)) == 0);
	CHECK(r->ev[0].priv_len == 0);
	CHECK(r->ev[0].peer_id == 42);
	CHECK(r->ev[1].type == FABRIC_CM_EVENT_ESTABLISHED && r->ev[1].conn == r->ev[0].conn);
	CHECK(r->ev[2].type == FABRIC_CM_EVENT_DISCONNECT && r->ev[2].conn == r->ev[0].conn);
	CHECK(r->ev[2].status == DOCA_SUCCESS || r->ev[2].status == DOCA_ERROR_CONNECTION_RESET);
	/* disconnect of an ended connection: SUCCESS, no event */
	CHECK_ERR(sd_fabric_cm_disconnect(r->ev[0].conn), DOCA_SUCCESS);
	CHECK_ERR(sd_fabric_cm_accept(r->ev[0].conn, 1, NULL, 0, srv_desc, sizeof(srv_desc)), DOCA_ERROR_NOT_CONNECTED);
	priv_pattern(priv, sizeof(priv));
	sd_fabric_cm_conn_destroy(r->ev[0].conn);
}

TEST(accept_private_data_order_disconnect)
{
	struct rec r = {.client_confirms = true};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t priv[255];
	uint16_t port;
	pid_t pid;

	pid = fork_server(SRV_ACCEPT, 0, body_accept_then_disconnect, &port);
	cm = make_cm(&r, 3000, 0);
	c = client_connect(cm, port, 42);
	ASSERT_OK(sd_fabric_cm_conn_get_peer(c, &ss, &sl));
	ASSERT_EQ(ss.ss_family, AF_INET);
	ASSERT_EQ(ntohs(((struct sockaddr_in *)&ss)->sin_port), port);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_ACCEPTED, 1, 5000), 1);
	ASSERT_EQ(r.n, 1);
	ASSERT_PTR_EQ(r.ev[0].conn, c);
	ASSERT_EQ(r.ev[0].priv_len, 255);
	priv_pattern(priv, sizeof(priv));
	ASSERT_MEM_EQ(r.ev[0].priv, priv, 255);
	ASSERT_EQ(r.ev[0].desc_len, sizeof(srv_desc));
	ASSERT_MEM_EQ(r.ev[0].desc, srv_desc, sizeof(srv_desc));
	ASSERT_EQ(r.ev[0].peer_id, 1001);
	/* confirmed in the callback: a second confirm is refused */
	ASSERT_ERR(sd_fabric_cm_confirm(c), DOCA_ERROR_BAD_STATE);
	pump_for(cm, 200);
	ASSERT_OK(sd_fabric_cm_disconnect(c));
	pump_for(cm, 200);
	ASSERT_EQ(r.n, 1); /* the side that disconnects gets no event */
	sd_fabric_cm_conn_destroy(c);
	sd_test_reap(pid);
	sd_fabric_cm_destroy(cm);
}

static void
body_idle(struct fabric_cm *cm, struct rec *r)
{
	(void)r;
	pump_for(cm, 1500);
}

static void
expect_refused(enum srv_mode mode, doca_error_t expect)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint16_t port;
	pid_t pid;

	pid = fork_server(mode, 0, body_idle, &port);
	cm = make_cm(&r, 3000, 0);
	c = client_connect(cm, port, 7);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_FAILURE, 1, 5000), 1);
	ASSERT_EQ(r.n, 1);
	ASSERT_PTR_EQ(r.ev[0].conn, c);
	ASSERT_ERR(r.ev[0].status, expect);
	ASSERT_ERR(sd_fabric_cm_confirm(c), DOCA_ERROR_NOT_CONNECTED);
	sd_fabric_cm_conn_destroy(c);
	sd_test_reap(pid);
	sd_fabric_cm_destroy(cm);
}

TEST(reject_by_application)
{
	expect_refused(SRV_REJECT_APP, DOCA_ERROR_NOT_PERMITTED);
}

TEST(reject_full)
{
	expect_refused(SRV_REJECT_FULL, DOCA_ERROR_FULL);
}

TEST(nobody_listening)
{
	struct sockaddr_in a = loopback(0);
	socklen_t sl = sizeof(a);
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint64_t t0;
	int s;

	/* a port that was free a moment ago and has no listener */
	s = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT(s >= 0);
	ASSERT_EQ(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	ASSERT_EQ(getsockname(s, (struct sockaddr *)&a, &sl), 0);
	close(s);
	cm = make_cm(&r, 3000, 0);
	t0 = now_ms();
	ASSERT_OK(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), 1, cli_desc, sizeof(cli_desc), NULL, &c));
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_FAILURE, 1, 5000), 1);
	ASSERT_ERR(r.ev[0].status, DOCA_ERROR_NOT_CONNECTED);
	fprintf(stderr, "# nobody listening: failure after %llu ms\n", (unsigned long long)(now_ms() - t0));
	ASSERT(now_ms() - t0 < 2000);
	sd_fabric_cm_conn_destroy(c);
	sd_fabric_cm_destroy(cm);
}

/* Server that never answers: the client times out, the server sees its request go away. */
static void
body_ignore(struct fabric_cm *cm, struct rec *r)
{
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_REQUEST, 1, 5000) == 1);
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_FAILURE, 1, 5000) == 1);
	CHECK(r->ev[1].conn == r->ev[0].conn);
	CHECK_ERR(sd_fabric_cm_accept(r->ev[0].conn, 1, NULL, 0, srv_desc, sizeof(srv_desc)), DOCA_ERROR_NOT_CONNECTED);
	sd_fabric_cm_conn_destroy(r->ev[0].conn);
}

TEST(request_timeout)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint64_t t0, dt;
	uint16_t port;
	pid_t pid;

	pid = fork_server(SRV_IGNORE, 0, body_ignore, &port);
	cm = make_cm(&r, 400, 0);
	t0 = now_ms();
	c = client_connect(cm, port, 3);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_FAILURE, 1, 5000), 1);
	dt = now_ms() - t0;
	ASSERT_ERR(r.ev[0].status, DOCA_ERROR_TIME_OUT);
	ASSERT(dt >= 390 && dt < 1500);
	sd_fabric_cm_conn_destroy(c);
	pump_for(cm, 100);
	sd_test_reap(pid);
	sd_fabric_cm_destroy(cm);
}

/* A server application that takes longer than the liveness timeout to answer still connects. */
static void
body_slow_accept(struct fabric_cm *cm, struct rec *r)
{
	static const uint8_t p = 1;

	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_REQUEST, 1, 5000) == 1);
	sleep(2); /* > 1500 ms liveness; no CM call meanwhile */
	CHECK_ERR(sd_fabric_cm_accept(r->ev[0].conn, 5, &p, 1, srv_desc, sizeof(srv_desc)), DOCA_SUCCESS);
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_ESTABLISHED, 1, 5000) == 1);
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_DISCONNECT, 1, 5000) == 1);
	CHECK(count(r, FABRIC_CM_EVENT_FAILURE) == 0);
	sd_fabric_cm_conn_destroy(r->ev[0].conn);
}

TEST(slow_accept_beyond_liveness)
{
	struct rec r = {.client_confirms = true};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint16_t port;
	pid_t pid;

	unsetenv("SOFTDOCA_RDMA_CM_LIVENESS_MS");
	pid = fork_server(SRV_IGNORE, 0, body_slow_accept, &port);
	cm = make_cm(&r, 5000, 0);
	c = client_connect(cm, port, 8);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_ACCEPTED, 1, 6000), 1);
	ASSERT_EQ(r.n, 1);
	ASSERT_EQ(r.ev[0].priv_len, 1);
	pump_for(cm, 200);
	ASSERT_OK(sd_fabric_cm_disconnect(c));
	sd_fabric_cm_conn_destroy(c);
	sd_test_reap(pid);
	sd_fabric_cm_destroy(cm);
}

/* ---- many clients ---- */

#define N_PROCS 4
#define N_PER_PROC 16

static void
body_many(struct fabric_cm *cm, struct rec *r)
{
	int i;

	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_ESTABLISHED, N_PROCS * N_PER_PROC, 20000) == N_PROCS * N_PER_PROC);
	CHECK(count(r, FABRIC_CM_EVENT_REQUEST) == N_PROCS * N_PER_PROC);
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_DISCONNECT, N_PROCS * N_PER_PROC, 20000) == N_PROCS * N_PER_PROC);
	CHECK(count(r, FABRIC_CM_EVENT_FAILURE) == 0);
	for (i = 0; i < r->n; i++)
		if (r->ev[i].type == FABRIC_CM_EVENT_REQUEST)
			sd_fabric_cm_conn_destroy(r->ev[i].conn);
}

TEST(sixty_four_concurrent_clients)
{
	pid_t srv, cli[N_PROCS];
	uint16_t port;
	int p, i;

	srv = fork_server(SRV_ACCEPT, 0, body_many, &port);
	for (p = 0; p < N_PROCS; p++) {
		cli[p] = fork();
		ASSERT(cli[p] >= 0);
		if (cli[p] == 0) {
			static struct rec r = {.client_confirms = true};
			struct fabric_cm_conn *c[N_PER_PROC];
			struct fabric_cm *cm = make_cm(&r, 10000, 0);
			struct sockaddr_in a = loopback(port);

			for (i = 0; i < N_PER_PROC; i++)
				CHECK_ERR(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a),
							       (uint32_t)(p * 100 + i), cli_desc, sizeof(cli_desc),
							       NULL, &c[i]),
					  DOCA_SUCCESS);
			CHECK(pump_until(cm, &r, FABRIC_CM_EVENT_ACCEPTED, N_PER_PROC, 15000) == N_PER_PROC);
			/* hold every connection concurrently for a while */
			pump_for(cm, 1000);
			CHECK(count(&r, FABRIC_CM_EVENT_FAILURE) == 0);
			CHECK(count(&r, FABRIC_CM_EVENT_DISCONNECT) == 0);
			for (i = 0; i < N_PER_PROC; i++)
				sd_fabric_cm_conn_destroy(c[i]);
			pump_for(cm, 300);
			sd_fabric_cm_destroy(cm);
			_exit(0);
		}
	}
	for (p = 0; p < N_PROCS; p++)
		sd_test_reap(cli[p]);
	sd_test_reap(srv);
}

/* ---- peer loss ---- */

static void
body_forever(struct fabric_cm *cm, struct rec *r)
{
	(void)r;
	pump_for(cm, 30000);
}

static struct fabric_cm_conn *
establish(struct fabric_cm *cm, struct rec *r, uint16_t port)
{
	struct fabric_cm_conn *c = client_connect(cm, port, 9);

	r->client_confirms = true;
	ASSERT_EQ(pump_until(cm, r, FABRIC_CM_EVENT_ACCEPTED, 1, 5000), 1);
	return c;
}

TEST(peer_killed_is_reported_fast)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint64_t t0, dt;
	uint16_t port;
	pid_t pid;

	pid = fork_server(SRV_ACCEPT, 0, body_forever, &port);
	cm = make_cm(&r, 3000, 0);
	c = establish(cm, &r, port);
	pump_for(cm, 300);
	t0 = now_ms();
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_DISCONNECT, 1, 5000), 1);
	dt = now_ms() - t0;
	fprintf(stderr, "# peer SIGKILLed: DISCONNECT(%s) after %llu ms\n",
		doca_error_get_name(last_of(&r, FABRIC_CM_EVENT_DISCONNECT)->status), (unsigned long long)dt);
	ASSERT_ERR(last_of(&r, FABRIC_CM_EVENT_DISCONNECT)->status, DOCA_ERROR_CONNECTION_RESET);
	ASSERT(dt < 2000);
	ASSERT_EQ(count(&r, FABRIC_CM_EVENT_FAILURE), 0);
	sd_fabric_cm_conn_destroy(c);
	ASSERT_EQ(sd_test_wait_exit(pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	sd_fabric_cm_destroy(cm);
}

/*
 * A stopped peer sends nothing and its socket stays open: exactly what a dead
 * link looks like from this side.  Default liveness (1500 ms) must report it
 * within 2 s.
 */
TEST(silent_peer_times_out_within_2s)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint64_t t0, dt;
	uint16_t port;
	pid_t pid;

	unsetenv("SOFTDOCA_RDMA_CM_LIVENESS_MS");
	pid = fork_server(SRV_ACCEPT, 0, body_forever, &port);
	cm = make_cm(&r, 3000, 0);
	ASSERT_EQ(sd_fabric_cm_liveness_ms(cm), 1500);
	c = establish(cm, &r, port);
	pump_for(cm, 300);
	ASSERT_EQ(kill(pid, SIGSTOP), 0);
	t0 = now_ms();
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_DISCONNECT, 1, 5000), 1);
	dt = now_ms() - t0;
	fprintf(stderr, "# peer stopped: DISCONNECT(%s) after %llu ms\n",
		doca_error_get_name(last_of(&r, FABRIC_CM_EVENT_DISCONNECT)->status), (unsigned long long)dt);
	ASSERT_ERR(last_of(&r, FABRIC_CM_EVENT_DISCONNECT)->status, DOCA_ERROR_TIME_OUT);
	ASSERT(dt <= 2000);
	sd_fabric_cm_conn_destroy(c);
	kill(pid, SIGKILL);
	kill(pid, SIGCONT);
	(void)sd_test_wait_exit(pid);
	sd_fabric_cm_destroy(cm);
}

TEST(liveness_env_knob)
{
	struct rec r = {0};
	struct fabric_cm *cm;

	setenv("SOFTDOCA_RDMA_CM_LIVENESS_MS", "400", 1);
	cm = make_cm(&r, 0, 0);
	ASSERT_EQ(sd_fabric_cm_liveness_ms(cm), 400);
	sd_fabric_cm_destroy(cm);
	setenv("SOFTDOCA_RDMA_CM_LIVENESS_MS", "banana", 1);
	cm = make_cm(&r, 0, 0);
	ASSERT_EQ(sd_fabric_cm_liveness_ms(cm), 1500);
	sd_fabric_cm_destroy(cm);
}

/* A server that makes no CM call for 3 s (getchar()) keeps its connections. */
static void
body_accept_then_block(struct fabric_cm *cm, struct rec *r)
{
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_ESTABLISHED, 1, 5000) == 1);
	sleep(3);
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_DISCONNECT, 1, 5000) == 1);
	CHECK(count(r, FABRIC_CM_EVENT_FAILURE) == 0);
	sd_fabric_cm_conn_destroy(r->ev[0].conn);
}

TEST(blocked_peer_keeps_connection)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint16_t port;
	pid_t pid;

	pid = fork_server(SRV_ACCEPT, 500, body_accept_then_block, &port);
	cm = make_cm(&r, 3000, 500);
	c = establish(cm, &r, port);
	pump_for(cm, 3200);
	ASSERT_EQ(r.n, 1);
	ASSERT_OK(sd_fabric_cm_disconnect(c));
	sd_fabric_cm_conn_destroy(c);
	sd_test_reap(pid);
	sd_fabric_cm_destroy(cm);
}

/* ---- listeners ---- */

TEST(listen_refusals_and_unlisten)
{
	struct rec r = {0}, r2 = {0};
	struct fabric_cm *cm, *cm2;
	struct fabric_cm_conn *c;
	uint16_t port = 0, p2;

	cm = make_cm(&r, 3000, 0);
	cm2 = make_cm(&r2, 3000, 0);
	ASSERT_ERR(sd_fabric_cm_listen(NULL, NULL, 0, &port), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(sd_fabric_cm_listen(cm, NULL, 0, &port));
	ASSERT_NE(port, 0);
	p2 = port;
	ASSERT_ERR(sd_fabric_cm_listen(cm, NULL, 0, &p2), DOCA_ERROR_ALREADY_EXIST);
	p2 = port;
	ASSERT_ERR(sd_fabric_cm_listen(cm2, NULL, 0, &p2), DOCA_ERROR_IN_USE);
	ASSERT_ERR(sd_fabric_cm_unlisten(cm, (uint16_t)(port + 1)), DOCA_ERROR_NOT_FOUND);
	/* a request pending when the listener goes is refused with SHUTDOWN */
	r.mode = SRV_IGNORE;
	c = client_connect(cm2, port, 5);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_REQUEST, 1, 5000), 1);
	ASSERT_OK(sd_fabric_cm_unlisten(cm, port));
	ASSERT_ERR(sd_fabric_cm_unlisten(cm, port), DOCA_ERROR_NOT_FOUND);
	ASSERT_EQ(pump_until(cm2, &r2, FABRIC_CM_EVENT_FAILURE, 1, 5000), 1);
	ASSERT_ERR(r2.ev[0].status, DOCA_ERROR_SHUTDOWN);
	/* the server side was told too */
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_FAILURE, 1, 1000), 1);
	sd_fabric_cm_conn_destroy(c);
	sd_fabric_cm_conn_destroy(r.ev[0].conn);
	/*
	 * The port is free again once the accepted socket is gone: the client
	 * closes first, so no TIME_WAIT stays on the server's port.
	 */
	pump_for(cm2, 300);
	pump_for(cm, 300);
	p2 = port;
	ASSERT_OK(sd_fabric_cm_listen(cm2, NULL, 0, &p2));
	ASSERT_EQ(p2, port);
	sd_fabric_cm_destroy(cm2);
	sd_fabric_cm_destroy(cm);
}

/* A server destroyed with live connections: its clients see DISCONNECT. */
static void
body_accept_then_exit(struct fabric_cm *cm, struct rec *r)
{
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_ESTABLISHED, 1, 5000) == 1);
	pump_for(cm, 200);
}

TEST(server_destroyed_disconnects_clients)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint16_t port;
	pid_t pid;

	pid = fork_server(SRV_ACCEPT, 0, body_accept_then_exit, &port);
	cm = make_cm(&r, 3000, 0);
	c = establish(cm, &r, port);
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_DISCONNECT, 1, 5000), 1);
	ASSERT(last_of(&r, FABRIC_CM_EVENT_DISCONNECT)->status == DOCA_SUCCESS ||
	       last_of(&r, FABRIC_CM_EVENT_DISCONNECT)->status == DOCA_ERROR_CONNECTION_RESET);
	sd_test_reap(pid);
	sd_fabric_cm_conn_destroy(c);
	sd_fabric_cm_destroy(cm);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
