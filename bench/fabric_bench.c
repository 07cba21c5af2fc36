/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soft NIC benchmark beside ucx_perftest in the same run: RDMA write
 * bandwidth (1 MiB) and 8-byte send/receive ping-pong latency between two
 * forked processes, over shm (default) or tcp on loopback (--tcp), printing
 * both numbers and the ratio.  Not a test: speed is never asserted.
 *
 *   fabric_bench [--tcp] [--no-direct] [--size N] [--iters N] [--lat-iters N] [--no-perftest]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "fabric.h"

struct peer {
	struct fabric_dev *dev;
	struct fabric_ctx *ctx;
	struct fabric_ep *ep;
	int sock;
};

static void
die(const char *what, doca_error_t err)
{
	fprintf(stderr, "fabric_bench: %s failed: %s\n", what, doca_error_get_name(err));
	exit(1);
}

#define TRY(expr)                                                                                                      \
	do {                                                                                                           \
		doca_error_t e_ = (expr);                                                                              \
		if (e_ != DOCA_SUCCESS)                                                                                \
			die(#expr, e_);                                                                                \
	} while (0)

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
xfer(int fd, void *buf, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = out ? write(fd, (char *)buf + done, len - done) : read(fd, (char *)buf + done, len - done);

		if (r <= 0) {
			perror("fabric_bench: socket");
			exit(1);
		}
		done += (size_t)r;
	}
}

static void
send_blob(int fd, const void *blob, size_t len)
{
	uint32_t l = (uint32_t)len;

	xfer(fd, &l, sizeof(l), 1);
	xfer(fd, (void *)(uintptr_t)blob, len, 1);
}

static size_t
recv_blob(int fd, void *blob)
{
	uint32_t l;

	xfer(fd, &l, sizeof(l), 0);
	if (l > FABRIC_BLOB_MAX)
		exit(1);
	xfer(fd, blob, l, 0);
	return l;
}

static void
peer_open(struct peer *p)
{
	uint8_t blob[FABRIC_BLOB_MAX];
	const void *mine;
	size_t len;

	TRY(sd_fabric_dev_open(getenv("UCX_NET_DEVICES"), &p->dev));
	TRY(sd_fabric_ctx_create(p->dev, NULL, &p->ctx));
	TRY(sd_fabric_ep_create(p->ctx, NULL, &p->ep));
	TRY(sd_fabric_ep_export(p->ep, &mine, &len));
	send_blob(p->sock, mine, len);
	len = recv_blob(p->sock, blob);
	TRY(sd_fabric_ep_connect(p->ep, blob, len, NULL));
}

static void
peer_close(struct peer *p)
{
	sd_fabric_ep_destroy(p->ep);
	sd_fabric_ctx_destroy(p->ctx);
	sd_fabric_dev_close(p->dev);
}

static void
count_cb(struct fabric_op *op)
{
	(*(uint64_t *)op->user)++;
}

#define WINDOW 16

/* Initiator side of the write test: returns MiB/s. */
static double
write_bw(struct peer *p, size_t size, int iters)
{
	uint8_t blob[FABRIC_BLOB_MAX], *src = malloc(size);
	struct fabric_op ops[WINDOW];
	struct fabric_rmr *rmr;
	uint64_t done = 0, raddr;
	int posted = 0, warm = iters / 10;
	double t0 = 0;
	size_t len;
	char c = 0;

	memset(src, 0xa5, size);
	len = recv_blob(p->sock, blob);
	TRY(sd_fabric_rmr_import(p->dev, blob, len, &rmr));
	sd_fabric_rmr_get_range(rmr, &raddr, NULL, NULL);
	while (done < (uint64_t)(iters + warm)) {
		while (posted < iters + warm && (uint64_t)posted - done < WINDOW) {
			struct fabric_op *op = &ops[posted % WINDOW];

			memset(op, 0, sizeof(*op));
			op->cb = count_cb;
			op->user = &done;
			TRY(sd_fabric_ep_write(p->ep, op, src, size, rmr, raddr));
			posted++;
		}
		sd_fabric_ctx_progress(p->ctx);
		if (t0 == 0 && done >= (uint64_t)warm)
			t0 = now_s();
	}
	double secs = now_s() - t0;

	xfer(p->sock, &c, 1, 1);
	sd_fabric_rmr_destroy(rmr);
	free(src);
	return (double)size * iters / secs / (1024.0 * 1024.0);
}

/* Target side of the write test: export, then keep progressing until told to stop. */
static void
write_target(struct peer *p, size_t size, int spin)
{
	uint8_t *mem = calloc(1, size);
	struct fabric_mr *mr;
	const void *blob;
	size_t len;
	char c;

	TRY(sd_fabric_mr_register(p->dev, mem, size, FABRIC_PERM_REMOTE_WRITE, &mr));
	TRY(sd_fabric_mr_export(mr, &blob, &len));
	send_blob(p->sock, blob, len);
	if (spin) {
		struct timeval tv = {0};

		for (;;) {
			fd_set rd;

			sd_fabric_ctx_progress(p->ctx);
			FD_ZERO(&rd);
			FD_SET(p->sock, &rd);
			if (select(p->sock + 1, &rd, NULL, NULL, &tv) > 0)
				break;
		}
	}
	xfer(p->sock, &c, 1, 0); /* blocked here when !spin: the service thread serves */
	sd_fabric_mr_deregister(mr);
	free(mem);
}

/* Ping-pong of 8-byte sends; returns half the round trip in microseconds. */
static double
pingpong(struct peer *p, int iters, int initiator)
{
	uint64_t payload = 0x1122334455667788ull, in = 0, recvd = 0, sent_done = 0;
	struct fabric_op rop, sops[64];
	int i, warm = iters / 10;
	double t0 = 0;

	memset(&rop, 0, sizeof(rop));
	rop.cb = count_cb;
	rop.user = &recvd;
	for (i = 0; i < iters + warm; i++) {
		struct fabric_op *sop = &sops[i % 64];

		if (i == warm)
			t0 = now_s();
		/* the previous use of this send op must be complete (acked) */
		while (sent_done + 64 <= (uint64_t)i)
			sd_fabric_ctx_progress(p->ctx);
		TRY(sd_fabric_ctx_post_recv(p->ctx, &rop, &in, sizeof(in)));
		if (initiator) {
			memset(sop, 0, sizeof(*sop));
			sop->cb = count_cb;
			sop->user = &sent_done;
			TRY(sd_fabric_ep_send(p->ep, sop, &payload, sizeof(payload)));
		}
		while (recvd <= (uint64_t)i)
			sd_fabric_ctx_progress(p->ctx);
		if (!initiator) {
			memset(sop, 0, sizeof(*sop));
			sop->cb = count_cb;
			sop->user = &sent_done;
			TRY(sd_fabric_ep_send(p->ep, sop, &payload, sizeof(payload)));
		}
	}
	double secs = now_s() - t0;

	while (sent_done < (uint64_t)(iters + warm))
		sd_fabric_ctx_progress(p->ctx);
	return secs / iters / 2 * 1e6;
}

/* Run ucx_perftest server + client on loopback; return column col of its "Final:" line. */
static double
perftest(const char *test, size_t size, int iters, int col)
{
	char cmd[512], line[512];
	double v = -1;
	int port = 20000 + (int)(getpid() % 20000);
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "ucx_perftest -p %d -t %s -s %zu -n %d >/dev/null 2>&1 & sleep 0.5; "
		 "ucx_perftest 127.0.0.1 -p %d -t %s -s %zu -n %d 2>/dev/null; wait",
		 port, test, size, iters, port, test, size, iters);
	f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "Final:", 6) == 0) {
			double c[8];

			if (sscanf(line + 6, "%lf %lf %lf %lf %lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3], &c[4],
				   &c[5], &c[6], &c[7]) == 8)
				v = c[col];
		}
	}
	pclose(f);
	return v;
}

int
main(int argc, char **argv)
{
	size_t size = 1 << 20;
	int tcp = 0, iters = 0, lat_iters = 0, run_perftest = 1, blocked = 0, i;
	double bw, lat, ref_bw = -1, ref_am_bw = -1, ref_lat = -1;
	struct peer p = {0};
	int sv[2];
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--tcp") == 0)
			tcp = 1;
		else if (strcmp(argv[i], "--no-direct") == 0)
			setenv("SOFTDOCA_FABRIC_CMA", "0", 1); /* same host: active messages only */
		else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			size = strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--lat-iters") == 0 && i + 1 < argc)
			lat_iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-perftest") == 0)
			run_perftest = 0;
		else if (strcmp(argv[i], "--target-blocked") == 0)
			blocked = 1;
		else {
			fprintf(stderr,
				"usage: %s [--tcp] [--no-direct] [--size N] [--iters N] "
				"[--lat-iters N] [--no-perftest] [--target-blocked]\n",
				argv[0]);
			return 2;
		}
	}
	if (iters == 0)
		iters = tcp ? 500 : 2000;
	if (lat_iters == 0)
		lat_iters = tcp ? 20000 : 100000;
	if (tcp) {
		setenv("UCX_TLS", "tcp", 1);
		setenv("UCX_NET_DEVICES", "lo", 1);
	}
	if (run_perftest) {
		ref_bw = perftest("ucp_put_bw", size, iters, 5);
		ref_am_bw = perftest("ucp_am_bw", size, iters, 5);
		ref_lat = perftest("ucp_am_lat", 8, lat_iters, 3);
	}

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	p.sock = pid == 0 ? sv[1] : sv[0];
	close(pid == 0 ? sv[0] : sv[1]);
	peer_open(&p);
	if (pid == 0) {
		write_target(&p, size, !blocked);
		pingpong(&p, lat_iters, 0);
		peer_close(&p);
		_exit(0);
	}
	bw = write_bw(&p, size, iters);
	lat = pingpong(&p, lat_iters, 1);
	waitpid(pid, NULL, 0);
	{
		struct fabric_ep_stats st;

		sd_fabric_ep_get_stats(p.ep, &st);
		printf("transport %s, writes as %s%s\n", tcp ? "tcp (loopback)" : "shm/cma",
		       st.direct ? "kernel copies checked against the target's record" : "rendezvous AM",
		       blocked ? ", target blocked (service thread)" : "");
	}
	peer_close(&p);
	printf("%-34s %12.1f MiB/s", "fabric write bandwidth", bw);
	if (ref_bw > 0)
		printf("   ucx_perftest ucp_put_bw %10.1f MiB/s  ratio %.2f", ref_bw, bw / ref_bw);
	if (ref_am_bw > 0)
		printf("   ucp_am_bw %10.1f  ratio %.2f", ref_am_bw, bw / ref_am_bw);
	printf("\n%-34s %12.3f us   ", "fabric 8 B send/recv latency", lat);
	if (ref_lat > 0)
		printf("   ucx_perftest ucp_am_lat %10.3f us     ratio %.2f", ref_lat, lat / ref_lat);
	printf("\n");
	return 0;
}
