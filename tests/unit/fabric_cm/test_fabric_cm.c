/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract tests of the soft NIC's connection manager (src/fabric/fabric_cm.h)
 * between real processes on loopback: handshake with private data and
 * descriptors, event order, reject / full / timeout / nobody listening,
 * 64 concurrent clients, peer killed, peer silent (link-loss stand-in),
 * blocked peer kept alive, hostile handshake bytes, and the wire parser.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <ucp/api/ucp.h>

#include "sd_test_peer.h"
#include "fabric/fabric_cm.h"
#include "fabric/fabric_cm_proto.h" /* the wire, for the malformed-message cases */
#include "sd_util.h"

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- event recorder ---- */

enum srv_mode { SRV_ACCEPT, SRV_REJECT_APP, SRV_REJECT_FULL, SRV_IGNORE };

struct rec_ev {
	enum fabric_cm_event_type type;
	doca_error_t status;
	struct fabric_cm_conn *conn;
	uint32_t peer_id;
	uint8_t priv_len;
	uint8_t priv[255];
	size_t desc_len;
	uint8_t desc[64];
	uint64_t t_ms;
};

struct rec {
	struct rec_ev ev[512];
	int n;
	enum srv_mode mode;
	bool client_confirms;
};

static const char srv_desc[] = "server-descriptor";
static const char cli_desc[] = "client-descriptor";

static void
priv_pattern(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(0xa5 ^ i);
}

static void
on_event(struct fabric_cm *cm, const struct fabric_cm_event *ev, void *user)
{
	struct rec *r = user;
	struct rec_ev *e;
	uint8_t priv[255];

	(void)cm;
	CHECK(r->n < (int)SD_ARRAY_SIZE(r->ev));
	e = &r->ev[r->n++];
	memset(e, 0, sizeof(*e));
	e->type = ev->type;
	e->status = ev->status;
	e->conn = ev->conn;
	e->peer_id = ev->peer_conn_id;
	e->priv_len = ev->priv_len;
	if (ev->priv_len)
		memcpy(e->priv, ev->priv, ev->priv_len);
	e->desc_len = ev->desc_len;
	if (ev->desc_len)
		memcpy(e->desc, ev->desc, SD_MIN(ev->desc_len, sizeof(e->desc)));
	e->t_ms = now_ms();
	if (ev->type == FABRIC_CM_EVENT_REQUEST) {
		switch (r->mode) {
		case SRV_ACCEPT:
			priv_pattern(priv, sizeof(priv));
			CHECK_ERR(sd_fabric_cm_accept(ev->conn, 1000 + (uint32_t)r->n, priv, 255, srv_desc,
						      sizeof(srv_desc)),
				  DOCA_SUCCESS);
			/* a second answer is refused */
			CHECK_ERR(sd_fabric_cm_reject(ev->conn, FABRIC_CM_REJECT_APP), DOCA_ERROR_BAD_STATE);
			break;
		case SRV_REJECT_APP:
			CHECK_ERR(sd_fabric_cm_reject(ev->conn, FABRIC_CM_REJECT_APP), DOCA_SUCCESS);
			break;
		case SRV_REJECT_FULL:
			CHECK_ERR(sd_fabric_cm_reject(ev->conn, FABRIC_CM_REJECT_FULL), DOCA_SUCCESS);
			break;
		case SRV_IGNORE:
			break;
		}
	} else if (ev->type == FABRIC_CM_EVENT_ACCEPTED && r->client_confirms) {
		CHECK_ERR(sd_fabric_cm_confirm(ev->conn), DOCA_SUCCESS);
	}
}

static int
count(const struct rec *r, enum fabric_cm_event_type t)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += r->ev[i].type == t;
	return n;
}

static const struct rec_ev *
last_of(const struct rec *r, enum fabric_cm_event_type t)
{
	int i;

	for (i = r->n - 1; i >= 0; i--)
		if (r->ev[i].type == t)
			return &r->ev[i];
	return NULL;
}

/* Progress until r has `want` events of type t, or ms passed; returns the count. */
static int
pump_until(struct fabric_cm *cm, struct rec *r, enum fabric_cm_event_type t, int want, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (count(r, t) < want && now_ms() < end) {
		struct pollfd p = {.fd = sd_fabric_cm_get_event_fd(cm), .events = POLLIN};

		sd_fabric_cm_progress(cm);
		if (count(r, t) < want)
			(void)poll(&p, 1, 5);
	}
	return count(r, t);
}

static void
pump_for(struct fabric_cm *cm, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		sd_fabric_cm_progress(cm);
		usleep(1000);
	}
}

static struct fabric_cm *
make_cm(struct rec *r, uint32_t request_timeout_ms, uint32_t liveness_ms)
{
	struct fabric_cm_attr a = {
		.cb = on_event, .user = r, .request_timeout_ms = request_timeout_ms, .liveness_ms = liveness_ms};
	struct fabric_cm *cm = NULL;

	CHECK_ERR(sd_fabric_cm_create(&a, &cm), DOCA_SUCCESS);
	return cm;
}

static struct sockaddr_in
loopback(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/*
 * Fork a server: listens on a free port (told through the peer socket), answers requests
 * per mode, runs body(cm, rec) and exits with its status.  Returns the pid.
 */
typedef void (*server_body)(struct fabric_cm *cm, struct rec *r);

static pid_t
fork_server(enum srv_mode mode, uint32_t liveness_ms, server_body body, uint16_t *port)
{
	pid_t pid;
	int sock;

	if (sd_test_fork_peer(&pid, &sock)) {
		static struct rec r;
		struct fabric_cm *cm;
		uint16_t p = 0;

		r.mode = mode;
		cm = make_cm(&r, 2000, liveness_ms);
		CHECK_ERR(sd_fabric_cm_listen(cm, NULL, 0, &p), DOCA_SUCCESS);
		CHECK(p != 0);
		CHECK(write(sock, &p, sizeof(p)) == sizeof(p));
		close(sock);
		body(cm, &r);
		sd_fabric_cm_destroy(cm);
		_exit(0);
	}
	ASSERT_EQ(read(sock, port, sizeof(*port)), (ssize_t)sizeof(*port));
	close(sock);
	return pid;
}

static struct fabric_cm_conn *
client_connect(struct fabric_cm *cm, uint16_t port, uint32_t id)
{
	struct sockaddr_in a = loopback(port);
	struct fabric_cm_conn *c = NULL;

	ASSERT_OK(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), id, cli_desc, sizeof(cli_desc), NULL, &c));
	ASSERT_NOT_NULL(c);
	return c;
}

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

/* ---- hostile bytes ---- */

/*
 * A raw UCX client (not fabric_cm) sends garbage on the CM's AM id: the server
 * refuses it without an event and keeps serving real clients.
 */
static void
body_hostile(struct fabric_cm *cm, struct rec *r)
{
	CHECK(pump_until(cm, r, FABRIC_CM_EVENT_ESTABLISHED, 1, 8000) == 1);
	CHECK(r->ev[0].type == FABRIC_CM_EVENT_REQUEST);
	CHECK(r->ev[0].peer_id == 4242);
	pump_for(cm, 300);
	sd_fabric_cm_conn_destroy(r->ev[0].conn);
}

/* What the raw client heard back: the REJECT reason (0: nothing, -1: not a valid message). */
static int raw_reason;

static ucs_status_t
raw_am(void *arg, const void *header, size_t header_length, void *data, size_t length, const ucp_am_recv_param_t *param)
{
	struct fabric_cm_msg m;

	(void)arg;
	(void)header;
	(void)header_length;
	(void)param;
	if (fabric_cm_msg_parse(data, length, &m) != DOCA_SUCCESS || m.type != FABRIC_CM_MSG_REJECT)
		raw_reason = -1;
	else
		raw_reason = m.reason;
	return UCS_OK;
}

static void
raw_err(void *arg, ucp_ep_h ep, ucs_status_t st)
{
	(void)ep;
	(void)st;
	*(int *)arg = 1;
}

TEST(hostile_handshake_refused)
{
	struct rec r = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	struct sockaddr_in a;
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_config_t *config;
	ucp_params_t pp = {0};
	ucp_worker_params_t wp = {0};
	uint16_t port;
	pid_t pid;
	int k, errs[4] = {0};

	pid = fork_server(SRV_ACCEPT, 0, body_hostile, &port);
	a = loopback(port);
	ASSERT_EQ(ucp_config_read(NULL, NULL, &config), UCS_OK);
	ucp_config_modify(config, "TLS", "tcp");
	ucp_config_modify(config, "SOCKADDR_TLS_PRIORITY", "tcp");
	pp.field_mask = UCP_PARAM_FIELD_FEATURES;
	pp.features = UCP_FEATURE_AM;
	ASSERT_EQ(ucp_init(&pp, config, &ctx), UCS_OK);
	ucp_config_release(config);
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SINGLE;
	ASSERT_EQ(ucp_worker_create(ctx, &wp, &w), UCS_OK);
	{
		/* UCX 1.13 crashes on a reply to an AM id nobody registered */
		ucp_am_handler_param_t am = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
							   UCP_AM_HANDLER_PARAM_FIELD_CB |
							   UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
					     .id = FABRIC_CM_AM_ID,
					     .flags = UCP_AM_FLAG_WHOLE_MSG,
					     .cb = raw_am};

		ASSERT_EQ(ucp_worker_set_am_recv_handler(w, &am), UCS_OK);
	}
	for (k = 0; k < 4; k++) {
		static const int expect_reason[4] = {FABRIC_CM_REJ_PROTOCOL, FABRIC_CM_REJ_VERSION,
						     FABRIC_CM_REJ_PROTOCOL, FABRIC_CM_REJ_PROTOCOL};
		ucp_ep_params_t ep = {0};
		ucp_request_param_t prm = {0};
		ucp_ep_h e;
		uint8_t junk[64];
		size_t len = sizeof(junk);
		void *req;
		uint64_t end;

		memset(junk, 0x41 + k, sizeof(junk));
		if (k == 1) { /* good magic, future version */
			len = fabric_cm_msg_build(junk, sizeof(junk), FABRIC_CM_MSG_REQUEST, 5, 1, 0, NULL, 0, "x", 1);
			((struct fabric_cm_hdr *)(void *)junk)->version = 9;
		} else if (k == 2) { /* a length that lies */
			len = fabric_cm_msg_build(junk, sizeof(junk), FABRIC_CM_MSG_REQUEST, 5, 1, 0, NULL, 0, "x", 1);
			((struct fabric_cm_hdr *)(void *)junk)->desc_len = 4000;
		} else if (k == 3) { /* an ACCEPT to a server */
			len = fabric_cm_msg_build(junk, sizeof(junk), FABRIC_CM_MSG_ACCEPT, 5, 1, 0, NULL, 0, "x", 1);
		}
		ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
				UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
		ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
		ep.sockaddr.addr = (struct sockaddr *)&a;
		ep.sockaddr.addrlen = sizeof(a);
		ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
		ep.err_handler.cb = raw_err;
		ep.err_handler.arg = &errs[k];
		raw_reason = 0;
		ASSERT_EQ(ucp_ep_create(w, &ep, &e), UCS_OK);
		prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
		prm.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
		req = ucp_am_send_nbx(e, FABRIC_CM_AM_ID, NULL, 0, junk, len, &prm);
		ASSERT(!UCS_PTR_IS_ERR(req));
		end = now_ms() + 3000;
		while (req != NULL && ucp_request_check_status(req) == UCS_INPROGRESS && now_ms() < end)
			ucp_worker_progress(w);
		if (req != NULL)
			ucp_request_free(req);
		/* the server drops the connection after refusing the bytes */
		end = now_ms() + 3000;
		while (!errs[k] && now_ms() < end)
			ucp_worker_progress(w);
		ASSERT_EQ(errs[k], 1);
		ASSERT_EQ(raw_reason, expect_reason[k]);
		{
			ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
						  .flags = UCP_EP_CLOSE_FLAG_FORCE};
			req = ucp_ep_close_nbx(e, &cp);
			while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS)
				ucp_worker_progress(w);
			if (UCS_PTR_IS_PTR(req))
				ucp_request_free(req);
		}
	}
	ucp_worker_destroy(w);
	ucp_cleanup(ctx);
	/* the server still serves a real client */
	cm = make_cm(&r, 3000, 0);
	c = client_connect(cm, port, 4242);
	r.client_confirms = true;
	ASSERT_EQ(pump_until(cm, &r, FABRIC_CM_EVENT_ACCEPTED, 1, 5000), 1);
	sd_test_reap(pid);
	sd_fabric_cm_conn_destroy(c);
	sd_fabric_cm_destroy(cm);
}

TEST(argument_refusals)
{
	struct rec r = {0};
	struct fabric_cm_attr bad = {0};
	struct fabric_cm *cm = NULL;
	struct fabric_cm_conn *c = NULL;
	struct sockaddr_in a = loopback(1);
	struct sockaddr un = {.sa_family = AF_UNIX};
	uint8_t big[FABRIC_CM_DESC_MAX + 1] = {0};

	ASSERT_ERR(sd_fabric_cm_create(&bad, &cm), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_create(NULL, &cm), DOCA_ERROR_INVALID_VALUE);
	cm = make_cm(&r, 0, 0);
	ASSERT_ERR(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), 1, NULL, 0, NULL, &c),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), 1, big, sizeof(big), NULL, &c),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_connect(cm, &un, sizeof(un), 1, "x", 1, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_accept(NULL, 1, NULL, 0, "x", 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_reject(NULL, FABRIC_CM_REJECT_APP), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_fabric_cm_listen(cm, &un, sizeof(un), NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT(c == NULL);
	sd_fabric_cm_destroy(cm);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
