/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UCP put / get into a forked peer's PRIVATE buffer (issue 22, bench/compare.py): what a DOCA
 * program registers is its own memory, not a segment UCX allocated and mapped into both
 * processes as ucx_perftest's ucp_put_bw uses (there each put is a memcpy).
 *
 *   peer_ucp put|get SIZE SECONDS [BATCH]
 *
 * The peer aligned_alloc's SIZE bytes (page-aligned, as doca_perf), fills them with the pattern,
 * registers them with ucp_mem_map (address given, nothing allocated by UCX), packs the rkey and
 * sends it with its worker address over a socketpair, then progresses its worker until told to
 * stop.  We unpack the rkey and post BATCH ucp_put_nbx / ucp_get_nbx of SIZE bytes to the same
 * remote address, flush the endpoint, repeat for SECONDS.  At the end the peer checks its bytes
 * (put), we check ours (get).  UCX_TLS etc. come from the environment.  Prints doca_perf's JSON
 * shape (one result).  Not a test.
 */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "peer_common.h"

#define MAX_BATCH 64

struct side {
	ucp_context_h ctx;
	ucp_worker_h worker;
};

static int
side_init(struct side *s)
{
	ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_RMA};
	ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				  .thread_mode = UCS_THREAD_MODE_SINGLE};

	if (ucp_init(&params, NULL, &s->ctx) != UCS_OK)
		return -1;
	return ucp_worker_create(s->ctx, &wp, &s->worker) == UCS_OK ? 0 : -1;
}

/* A length-prefixed blob over the socketpair. */
static int
send_blob(int fd, const void *p, size_t n)
{
	uint64_t len = n;

	return write(fd, &len, sizeof(len)) == sizeof(len) && write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static void *
recv_blob(int fd)
{
	uint64_t len;
	void *p;

	if (recv(fd, &len, sizeof(len), MSG_WAITALL) != sizeof(len) || (p = malloc(len)) == NULL)
		return NULL;
	return recv(fd, p, len, MSG_WAITALL) == (ssize_t)len ? p : NULL;
}

/* The peer: register a private buffer, hand out its rkey, progress until the stop byte. */
static void
target(int fd, size_t size, int is_put)
{
	struct side s;
	ucp_mem_h memh;
	void *rkey, *addr;
	size_t rkey_len, addr_len;
	size_t rounded = (size + 4095) & ~(size_t)4095;
	uint8_t *buf = aligned_alloc(4096, rounded);
	uint64_t va = (uintptr_t)buf;
	char verdict;

	if (buf == NULL || side_init(&s) != 0)
		_exit(1);
	if (is_put)
		memset(buf, 0, size);
	else
		for (size_t i = 0; i < size; i++)
			buf[i] = (uint8_t)(i * 7 + 3);
	ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
				   .address = buf,
				   .length = size};
	if (ucp_mem_map(s.ctx, &mp, &memh) != UCS_OK || ucp_rkey_pack(s.ctx, memh, &rkey, &rkey_len) != UCS_OK ||
	    ucp_worker_get_address(s.worker, (ucp_address_t **)&addr, &addr_len) != UCS_OK)
		_exit(1);
	if (send_blob(fd, addr, addr_len) != 0 || send_blob(fd, rkey, rkey_len) != 0 || send_blob(fd, &va, 8) != 0)
		_exit(1);
	/* a put into memory UCX did not map is served by this side's progress: never sleep */
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};

		for (int i = 0; i < 256; i++)
			ucp_worker_progress(s.worker);
		if (poll(&pfd, 1, 0) == 1)
			break;
	}
	verdict = is_put ? (char)peer_pattern_ok(buf, size) : 1;
	if (write(fd, &verdict, 1) != 1)
		_exit(1);
	_exit(0);
}

/* Wait for one request (a put, a get or the flush) and free it. */
static int
wait_req(ucp_worker_h w, void *req)
{
	ucs_status_t st;

	if (req == NULL)
		return 0;
	if (UCS_PTR_IS_ERR(req))
		return -1;
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
		ucp_worker_progress(w);
	ucp_request_free(req);
	return st == UCS_OK ? 0 : -1;
}

static int
one_batch(struct side *s, ucp_ep_h ep, ucp_rkey_h rkey, uint64_t va, uint8_t *local, size_t size, unsigned batch,
	  int is_put)
{
	ucp_request_param_t rp = {.op_attr_mask = 0};
	void *reqs[MAX_BATCH];
	int rc = 0;

	for (unsigned i = 0; i < batch; i++)
		reqs[i] = is_put ? ucp_put_nbx(ep, local, size, va, rkey, &rp)
				 : ucp_get_nbx(ep, local, size, va, rkey, &rp);
	rc |= wait_req(s->worker, ucp_ep_flush_nbx(ep, &rp));
	for (unsigned i = 0; i < batch; i++)
		rc |= wait_req(s->worker, reqs[i]);
	return rc;
}

int
main(int argc, char **argv)
{
	int sv[2], is_put, rc = 0;
	size_t size;
	unsigned batch;
	double seconds, t0, t, cpu0;
	char config[64];
	uint64_t ops = 0, *va;
	struct side s;
	ucp_ep_h ep;
	ucp_rkey_h rkey;
	void *addr, *packed;
	uint8_t *local;
	char verdict = 0;
	pid_t pid;

	if (argc < 4 || argc > 5 || (strcmp(argv[1], "put") != 0 && strcmp(argv[1], "get") != 0)) {
		fprintf(stderr, "usage: peer_ucp put|get SIZE SECONDS [BATCH]\n");
		return 2;
	}
	is_put = strcmp(argv[1], "put") == 0;
	size = strtoull(argv[2], NULL, 0);
	seconds = atof(argv[3]);
	batch = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 0) : 16;
	if (size == 0 || !(seconds > 0) || batch == 0 || batch > MAX_BATCH) {
		fprintf(stderr, "peer_ucp: SIZE and SECONDS must be positive, BATCH 1..%d\n", MAX_BATCH);
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(sv[0]);
		target(sv[1], size, is_put);
	}
	close(sv[1]);
	local = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	if (local == NULL || side_init(&s) != 0 || (addr = recv_blob(sv[0])) == NULL ||
	    (packed = recv_blob(sv[0])) == NULL || (va = recv_blob(sv[0])) == NULL) {
		fprintf(stderr, "peer_ucp: setting up UCP or the peer failed\n");
		return 1;
	}
	for (size_t i = 0; i < size; i++)
		local[i] = is_put ? (uint8_t)(i * 7 + 3) : 0;
	ucp_ep_params_t ep_params = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = addr};
	if (ucp_ep_create(s.worker, &ep_params, &ep) != UCS_OK || ucp_ep_rkey_unpack(ep, packed, &rkey) != UCS_OK) {
		fprintf(stderr, "peer_ucp: endpoint or rkey failed\n");
		return 1;
	}
	rc |= one_batch(&s, ep, rkey, *va, local, size, batch, is_put); /* untimed warm-up */
	cpu0 = peer_cpu_now();
	t0 = peer_now();
	do {
		rc |= one_batch(&s, ep, rkey, *va, local, size, batch, is_put);
		ops += batch;
		t = peer_now();
	} while (t - t0 < seconds && rc == 0);
	if (write(sv[0], "x", 1) != 1 || read(sv[0], &verdict, 1) != 1)
		verdict = 0;
	waitpid(pid, NULL, 0);
	if (rc != 0 || verdict != 1 || (!is_put && !peer_pattern_ok(local, size))) {
		fprintf(stderr, "peer_ucp: %s\n", rc != 0 ? "a put/get failed" : "data check failed");
		return 1;
	}
	snprintf(config, sizeof(config), "\"batch\":%u", batch);
	peer_print("peer_ucp", argv[1], config, size, ops, t - t0, peer_cpu_now() - cpu0);
	return 0;
}
