/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link loss under a CM connection: server and client in two network
 * namespaces joined by a veth pair; the client's link goes down and the
 * connection must end within 2 s (TIME_OUT) on both sides, and once the link
 * is back a new connection must work.  Needs root and `ip netns`; skipped with
 * the reason otherwise.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "sd_test.h"
#include "fabric/fabric_cm.h"

/*
 * Namespace names carry the test's pid: parallel runs (several build
 * directories on one machine) must not delete each other's namespaces, which
 * showed up as "Endpoint is not connected" when one run's cleanup removed the
 * other's link.
 */
static char ns_a[32], ns_b[32];

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Run a shell command built from a literal format. */
#define SH(...)                                                                                                        \
	({                                                                                                             \
		char sh_cmd_[512];                                                                                     \
		snprintf(sh_cmd_, sizeof(sh_cmd_), __VA_ARGS__);                                                       \
		system(sh_cmd_);                                                                                       \
	})

static void
cleanup(void)
{
	(void)SH("ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null", ns_a, ns_b);
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

	inet_pton(AF_INET, "10.77.0.1", &srv.sin_addr);
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
	if (system("ip link set vb down") != 0)
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
	if (system("ip link set vb up") != 0)
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
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		setenv("SD_CM_TEST_ROLE", role, 1);
		execlp("ip", "ip", "netns", "exec", ns, exe, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int
exit_code(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

TEST(link_down_ends_connection_and_recovers)
{
	pid_t srv, cli;
	int rs, rc;

	if (geteuid() != 0)
		SKIP("needs root to create network namespaces");
	snprintf(ns_a, sizeof(ns_a), "sdcm_a%d", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "sdcm_b%d", (int)getpid());
	cleanup();
	if (SH("ip netns add %s && ip netns add %s", ns_a, ns_b) != 0) {
		cleanup();
		SKIP("`ip netns add` failed (no netns support in this environment)");
	}
	if (SH("ip link add va netns %s type veth peer name vb netns %s", ns_a, ns_b) != 0 ||
	    SH("ip -n %s addr add 10.77.0.1/24 dev va && ip -n %s addr add 10.77.0.2/24 dev vb", ns_a, ns_b) != 0 ||
	    SH("ip -n %s link set va up && ip -n %s link set vb up", ns_a, ns_b) != 0 ||
	    SH("ip -n %s link set lo up && ip -n %s link set lo up", ns_a, ns_b) != 0) {
		cleanup();
		SKIP("cannot build the veth pair between the namespaces");
	}
	/* UCX lists only running interfaces, once, when the CM starts: wait for carrier */
	ASSERT_EQ(SH("ip netns exec %s sh -c 'for i in $(seq 100); do grep -q up /sys/class/net/va/operstate && "
		     "exit 0; sleep 0.05; done; exit 1'",
		     ns_a),
		  0);
	ASSERT_EQ(SH("ip netns exec %s sh -c 'for i in $(seq 100); do grep -q up /sys/class/net/vb/operstate && "
		     "exit 0; sleep 0.05; done; exit 1'",
		     ns_b),
		  0);
	srv = spawn_role(ns_a, "server");
	cli = spawn_role(ns_b, "client");
	rc = exit_code(cli);
	if (rc != 0)
		kill(srv, SIGKILL);
	rs = exit_code(srv);
	cleanup();
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
