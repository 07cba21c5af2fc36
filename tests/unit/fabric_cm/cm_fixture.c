/* SPDX-License-Identifier: BSD-3-Clause */
/* The event recorder and process fixtures of the connection-manager tests (cm_fixture.h). */
#include "cm_fixture.h"

uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- event recorder ---- */

const char srv_desc[SRV_DESC_LEN] = "server-descriptor";
const char cli_desc[CLI_DESC_LEN] = "client-descriptor";

void
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

int
count(const struct rec *r, enum fabric_cm_event_type t)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += r->ev[i].type == t;
	return n;
}

const struct rec_ev *
last_of(const struct rec *r, enum fabric_cm_event_type t)
{
	int i;

	for (i = r->n - 1; i >= 0; i--)
		if (r->ev[i].type == t)
			return &r->ev[i];
	return NULL;
}

/* Progress until r has `want` events of type t, or ms passed; returns the count. */
int
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

void
pump_for(struct fabric_cm *cm, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		sd_fabric_cm_progress(cm);
		usleep(1000);
	}
}

struct fabric_cm *
make_cm(struct rec *r, uint32_t request_timeout_ms, uint32_t liveness_ms)
{
	struct fabric_cm_attr a = {
		.cb = on_event, .user = r, .request_timeout_ms = request_timeout_ms, .liveness_ms = liveness_ms};
	struct fabric_cm *cm = NULL;

	CHECK_ERR(sd_fabric_cm_create(&a, &cm), DOCA_SUCCESS);
	return cm;
}

struct sockaddr_in
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

pid_t
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

struct fabric_cm_conn *
client_connect(struct fabric_cm *cm, uint16_t port, uint32_t id)
{
	struct sockaddr_in a = loopback(port);
	struct fabric_cm_conn *c = NULL;

	ASSERT_OK(sd_fabric_cm_connect(cm, (struct sockaddr *)&a, sizeof(a), id, cli_desc, sizeof(cli_desc), NULL, &c));
	ASSERT_NOT_NULL(c);
	return c;
}
