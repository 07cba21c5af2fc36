/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs write|read|send --lat: the rdma tests through DOCA Verbs, one
 * RC QP a side (perf_verbs_qp.c), descriptors exchanged as files in --oob-dir
 * (perf_verbs_conn.c); with neither --server nor --client the server is a
 * forked child.  This file checks the options, forks, and makes each side's
 * run context; perf_verbs_server.c and perf_verbs_client.c run the sides,
 * perf_verbs_data.c holds the data check.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "perf_verbs.h"

#define MAX_DEPTH 4096

/* The operations, by the name doca_perf.c's table of tests gives them. */
static const char *const verbs_ops[] = {
	[PERF_VERBS_WRITE] = "write",
	[PERF_VERBS_READ] = "read",
	[PERF_VERBS_SEND] = "send",
};

/* The run's shape from the options: operation, depth, chain length, the area, the nonce and seed. */
static void
init_run(struct perf_verbs *v, const struct perf_opts *o, bool server)
{
	struct timespec ts;

	v->o = o;
	v->server = server;
	v->op = PERF_VERBS_SEND;
	for (size_t i = 0; i < sizeof(verbs_ops) / sizeof(verbs_ops[0]); i++)
		if (strcmp(o->test, verbs_ops[i]) == 0)
			v->op = (enum perf_verbs_op)i;
	v->opname = verbs_ops[v->op];
	v->depth = v->op == PERF_VERBS_SEND ? 1 : o->depth;
	v->cq_mod = o->cq_mod != 0 ? o->cq_mod : (v->depth >= 4 ? v->depth / 4 : 1);
	if (v->cq_mod > v->depth)
		v->cq_mod = v->depth;
	for (unsigned i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > v->max_size)
			v->max_size = o->sizes[i];
	v->area = v->op == PERF_VERBS_SEND ? v->max_size : perf_slots(o, v->max_size, v->depth) * v->max_size;
	clock_gettime(CLOCK_REALTIME, &ts);
	v->local.nonce = (uint32_t)getpid() ^ (uint32_t)ts.tv_nsec;
	v->local.seed = perf_verbs_mix64((uint64_t)ts.tv_nsec << 20 ^ (uint64_t)getpid());
}

static int
verbs_side(struct perf_opts *o, bool server)
{
	struct perf_verbs v = {0};
	int rc;

	init_run(&v, o, server);
	/* Stale files of an earlier run must not be mistaken for this one's. */
	if (server && o->oob_dir != NULL)
		perf_verbs_oob_clean(o->oob_dir);
	perf_verbs_open(&v);
	rc = server ? perf_verbs_server_main(&v) : perf_verbs_client_main(&v);
	if (v.again != 0)
		fprintf(stderr, "doca_perf: %s: %llu Verbs posts found the queue full (ENOMEM) and were retried\n",
			server ? "server" : "client", (unsigned long long)v.again);
	perf_verbs_close(&v);
	if (server && o->role == 1)
		perf_verbs_oob_clean(o->oob_dir);
	return rc;
}

/* 0 when the options suit a Verbs run, else the usage message printed and its exit status. */
static int
check_opts(const struct perf_opts *o)
{
	if (o->conns != 1 || o->use_cm || o->sge != 1) {
		fprintf(stderr, "doca_perf: verbs: one connection, descriptor files, one SGE (no -c, -cm, --sge)\n");
		return PERF_EXIT_USAGE;
	}
	if (strcmp(o->test, "send") == 0 && !o->lat) {
		fprintf(stderr, "doca_perf: verbs send: only the ping-pong (--lat) is measured\n");
		return PERF_EXIT_USAGE;
	}
	if (o->depth > MAX_DEPTH) {
		fprintf(stderr, "doca_perf: verbs: -t at most %d\n", MAX_DEPTH);
		return PERF_EXIT_USAGE;
	}
	if (o->role != 0 && o->oob_dir == NULL) {
		fprintf(stderr, "doca_perf: --server/--client need --oob-dir DIR; see doca_perf --help\n");
		return PERF_EXIT_USAGE;
	}
	/* Unusable directory: say why now, not after the peer's 60 s wait. */
	if (o->oob_dir != NULL && perf_oob_dir_check(o->oob_dir) != 0)
		return 1;
	return 0;
}

int
perf_verbs_run(struct perf_opts *o)
{
	char tmpdir[] = "/tmp/doca_perf.XXXXXX";
	pid_t server;
	int rc = check_opts(o);

	if (rc != 0)
		return rc;
	if (o->role != 0)
		return verbs_side(o, o->role == 1);
	/* Both sides here: the server is a forked child, descriptors in a private directory. */
	if (mkdtemp(tmpdir) == NULL) {
		perror("doca_perf: mkdtemp");
		return 1;
	}
	o->oob_dir = tmpdir;
	fflush(NULL);
	server = fork();
	if (server < 0) {
		perror("doca_perf: fork");
		return 1;
	}
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(verbs_side(o, true));
	}
	perf_child_set(server);
	rc = verbs_side(o, false);
	/* Bounded: a server that never got DONE would wait for it forever. */
	if (perf_child_finish(10, rc != 0) != 0)
		rc = 1;
	perf_verbs_oob_clean(tmpdir);
	rmdir(tmpdir);
	o->oob_dir = NULL;
	return rc;
}
