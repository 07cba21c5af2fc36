/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma, the processes: check the options, then run one side here
 * (--server / --client) or both, the server as a forked child.  The parent's
 * waits for the child are bounded and end as soon as the child is gone.
 */
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doca_rdma.h>

#include "perf.h"

/* A TCP port nobody uses right now (the kernel's pick), or fallback if it cannot tell. */
static uint16_t
free_tcp_port(uint16_t fallback)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	uint16_t port = fallback;

	if (fd < 0)
		return fallback;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin6_port);
	close(fd);
	return port;
}

int
perf_rdma_run(struct perf_opts *o)
{
	char tmpdir[] = "/tmp/doca_perf.XXXXXX";
	int ready_pipe[2], ready_fd = -1;
	pid_t server = 0;
	int rc;

	if (o->conns > PERF_RDMA_MAX_CONNS || o->conns > UINT16_MAX) {
		fprintf(stderr, "doca_perf: -c %u: at most %d connections\n", o->conns, PERF_RDMA_MAX_CONNS);
		return PERF_EXIT_USAGE;
	}
	if (!o->use_cm && o->role != 0 && o->oob_dir == NULL) {
		fprintf(stderr, "doca_perf: --server/--client need --oob-dir DIR (or -cm); see doca_perf --help\n");
		return PERF_EXIT_USAGE;
	}
	if (o->use_cm && o->role == 2 && o->server_addr == NULL) {
		fprintf(stderr, "doca_perf: -cm --client needs --server-addr IP; see doca_perf --help\n");
		return PERF_EXIT_USAGE;
	}
	/* Unusable directory: say why now, not after the peer's 60 s wait. */
	if (!o->use_cm && o->oob_dir != NULL && perf_oob_dir_check(o->oob_dir) != 0)
		return 1;
	if (o->role == 0) {
		/* Both sides here: the server is a forked child, descriptors in a private directory. */
		if (o->oob_dir == NULL && !o->use_cm) {
			if (mkdtemp(tmpdir) == NULL) {
				perror("doca_perf: mkdtemp");
				return 1;
			}
			o->oob_dir = tmpdir;
		}
		if (o->use_cm && pipe(ready_pipe) != 0) {
			perror("doca_perf: pipe");
			return 1;
		}
		/* A fixed port would collide with an earlier run's sockets still closing. */
		if (o->use_cm && !o->port_set)
			o->port = free_tcp_port(o->port);
		fflush(NULL);
		server = fork();
		if (server < 0) {
			perror("doca_perf: fork");
			return 1;
		}
		if (server == 0)
			prctl(PR_SET_PDEATHSIG, SIGKILL);
		else
			perf_child_set(server);
		/* Each side keeps its end only: the client's read sees EOF if the server dies. */
		if (o->use_cm) {
			close(ready_pipe[server == 0 ? 0 : 1]);
			ready_fd = ready_pipe[server == 0 ? 1 : 0];
		}
	}
	if (o->role == 0 && server == 0)
		_exit(perf_rdma_side(o, true, ready_fd));
	if (o->role != 0)
		return perf_rdma_side(o, o->role == 1, -1);
	rc = perf_rdma_side(o, false, ready_fd);
	/* Bounded: a server that never got the end-of-run message would wait for it forever. */
	if (server > 0 && perf_child_finish(10, rc != 0) != 0)
		rc = 1;
	if (o->oob_dir == tmpdir) {
		perf_oob_remove(tmpdir, PERF_RDMA_MAX_CONNS);
		rmdir(tmpdir);
		o->oob_dir = NULL;
	}
	return rc;
}
