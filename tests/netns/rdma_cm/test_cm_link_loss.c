/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link loss under a CM connection: server and client in two network
 * namespaces joined by a veth pair; the client's link goes down and the
 * connection must end within 2 s (TIME_OUT) on both sides, and once the link
 * is back a new connection must work.  The namespaces are the Python test bed's
 * (meson runs this under `python3 -m softdoca_testbed.netns`, which names them in
 * SD_NETNS_*); without root they are not made and the case skips with the reason.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "sd_test_peer.h"
#include "fabric/fabric_cm.h"

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A variable the netns runner sets (softdoca_testbed/netns.py). */
static const char *
netns_env(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL || v[0] == '\0')
		sd_test_fail(__FILE__, __LINE__, "%s is not set (run under python3 -m softdoca_testbed.netns)", name);
	return v;
}

/* `ip link set <the client's veth end> up|down`, run inside the client's namespace. */
static int
client_link(const char *state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set %s %s", netns_env("SD_NETNS_VETH_B"), state);
	return system(cmd);
}

struct events {
	int accepted, failure, disconnect, request, established;
	doca_error_t last_status;
	uint64_t last_ms;
};

static void
on_event(struct fabric_cm *cm, const struct fabric_cm_event *ev, void *user)
{
	struct events *e = user;
	static const char desc[] = "d";

	(void)cm;
	switch (ev->type) {
	case FABRIC_CM_EVENT_REQUEST:
		e->request++;
		(void)sd_fabric_cm_accept(ev->conn, 1, NULL, 0, desc, sizeof(desc));
		break;
	case FABRIC_CM_EVENT_ACCEPTED:
		e->accepted++;
		(void)sd_fabric_cm_confirm(ev->conn);
		break;
	case FABRIC_CM_EVENT_ESTABLISHED:
		e->established++;
		break;
	case FABRIC_CM_EVENT_FAILURE:
		e->failure++;
		break;
	case FABRIC_CM_EVENT_DISCONNECT:
		e->disconnect++;
		break;
	}
	e->last_status = ev->status;
	e->last_ms = now_ms();
}

static int
pump(struct fabric_cm *cm, const int *counter, int want, uint64_t ms)
{
	uint64_t end = now_ms() + ms;

	while (*counter < want && now_ms() < end) {
		struct pollfd p = {.fd = sd_fabric_cm_get_event_fd(cm), .events = POLLIN};

		sd_fabric_cm_progress(cm);
		(void)poll(&p, 1, 5);
	}
	return *counter;
}

/* Server role, run by `ip netns exec A`: accept, lose the first connection, accept a second. */
static int
role_server(void)
{
	struct fabric_cm_attr attr = {.cb = on_event};
	struct events sev = {0};
	struct fabric_cm *cm;
	uint16_t port = 13579;

	attr.user = &sev;
	if (sd_fabric_cm_create(&attr, &cm) != DOCA_SUCCESS || sd_fabric_cm_listen(cm, NULL, 0, &port) != DOCA_SUCCESS)
		return 91;
	pump(cm, &sev.established, 1, 15000);
	/* the client's link goes down: this side times out too */
	pump(cm, &sev.disconnect, 1, 10000);
	if (sev.established != 1 || sev.disconnect != 1 || sev.last_status != DOCA_ERROR_TIME_OUT) {
		fprintf(stderr, "server: established %d disconnect %d status %s\n", sev.established, sev.disconnect,
			doca_error_get_name(sev.last_status));
		return 92;
	}
	pump(cm, &sev.established, 2, 20000);
	pump(cm, &sev.disconnect, 2, 10000);
	if (sev.established != 2 || sev.disconnect != 2)
		return 93;
	sd_fabric_cm_destroy(cm);
	return 0;
}

/* Connect until the server answers (it may still be starting); 0 on success. */
static int
connect_retry(struct fabric_cm *cm, struct events *ev, const struct sockaddr_in *srv, struct fabric_cm_conn **c)
{
	int want = ev->accepted + 1;

	for (int i = 0; i < 100; i++) {
		int f = ev->failure;

		if (sd_fabric_cm_connect(cm, (const struct sockaddr *)srv, sizeof(*srv), 1, "c", 1, NULL, c) !=
		    DOCA_SUCCESS)
			return 1;
		while (ev->accepted < want && ev->failure == f)
			pump(cm, &ev->accepted, want, 100);
		if (ev->accepted == want)
			return 0;
		sd_fabric_cm_conn_destroy(*c);
		usleep(100000);
	}
	return 1;
}

/* Client role, run by `ip netns exec B`. */
static int
role_client(void)
{
	struct fabric_cm_attr attr = {.cb = on_event};
	struct sockaddr_in srv = {.sin_family = AF_INET, .sin_port = htons(13579)};
	struct events ev = {0};
	struct fabric_cm *cm;
	struct fabric_cm_conn *c;
	uint64_t t0, dt;
	int failures;

	if (inet_pton(AF_INET, netns_env("SD_NETNS_ADDR_A"), &srv.sin_addr) != 1)
		return 80;
	attr.user = &ev;
	if (sd_fabric_cm_create(&attr, &cm) != DOCA_SUCCESS)
		return 81;
	if (connect_retry(cm, &ev, &srv, &c) != 0)
		return 82;
	/*
	 * Settle: nothing happens to the connection.  Failures of attempts made
	 * before the server listened (connect_retry) do not count.
	 */
	failures = ev.failure;
	pump(cm, &ev.failure, failures + 1, 500);
	if (ev.failure != failures || ev.disconnect != 0) {
		fprintf(stderr, "client: failure %d disconnect %d (%s) while the link was up\n", ev.failure,
			ev.disconnect, doca_error_get_name(ev.last_status));
		return 83;
	}
	if (client_link("down") != 0)
		return 84;
	t0 = now_ms();
	pump(cm, &ev.disconnect, 1, 5000);
	dt = ev.last_ms - t0;
	printf("# link down: DISCONNECT(%s) after %llu ms\n", doca_error_get_name(ev.last_status),
	       (unsigned long long)dt);
	if (ev.disconnect != 1 || ev.last_status != DOCA_ERROR_TIME_OUT || dt > 2000)
		return 85;
	sd_fabric_cm_conn_destroy(c);
	/* the link returns: a new connection works */
	if (client_link("up") != 0)
		return 86;
	if (connect_retry(cm, &ev, &srv, &c) != 0)
		return 87;
	pump(cm, &ev.failure, 100, 300);
	if (ev.failure != 0 && ev.accepted != 2)
		return 88;
	sd_fabric_cm_disconnect(c);
	sd_fabric_cm_conn_destroy(c);
	sd_fabric_cm_destroy(cm);
	return 0;
}

/* Run this binary in a role inside a namespace (`ip netns exec` also remounts /sys for UCX). */
static pid_t
spawn_role(const char *ns, const char *role)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t pid;

	ASSERT(n > 0);
	exe[n] = '\0';
	fflush(NULL);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		setenv("SD_CM_TEST_ROLE", role, 1);
		execlp("ip", "ip", "netns", "exec", ns, exe, (char *)NULL);
		_exit(127);
	}
	return pid;
}

TEST(link_down_ends_connection_and_recovers)
{
	const char *skip = getenv("SD_NETNS_SKIP");
	pid_t srv, cli;
	int rs, rc;

	if (skip != NULL)
		SKIP(skip);
	if (getenv("SD_NETNS_A") == NULL)
		SKIP("no namespaces: run through meson test (python3 -m softdoca_testbed.netns makes them)");
	srv = spawn_role(netns_env("SD_NETNS_A"), "server");
	cli = spawn_role(netns_env("SD_NETNS_B"), "client");
	rc = sd_test_wait_exit(cli);
	if (rc != 0)
		kill(srv, SIGKILL);
	rs = sd_test_wait_exit(srv);
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(rs, 0);
}

int
main(int argc, char **argv)
{
	const char *role = getenv("SD_CM_TEST_ROLE");

	if (role != NULL && strcmp(role, "server") == 0)
		return role_server();
	if (role != NULL && strcmp(role, "client") == 0)
		return role_client();
	return sd_test_main(argc, argv);
}
