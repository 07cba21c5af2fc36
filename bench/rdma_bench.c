/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DOCA RDMA path (public API: tasks, PE, connections, exported mmaps)
 * beside ucx_perftest in the same run: 1 MiB RDMA write bandwidth between two
 * forked processes (target blocked in read(), as the samples' responders are)
 * against ucp_put_bw, and 8-byte send/receive ping-pong latency (half round
 * trip) against ucp_am_lat.  Rounds alternate ours and ucx_perftest so both
 * see the same machine noise; medians and their ratio are printed.  Not a
 * test: speed is never asserted.
 *
 *   rdma_bench [--tcp] [--rounds N] [--size N] [--iters N] [--lat-iters N] [--no-perftest]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#define WINDOW 16
#define SENDS 64

struct side {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rdma;
	struct doca_ctx *ctx;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_rdma_connection *conn;
	uint8_t *mem;
	size_t mem_len;
	int sock;
	int running;
	uint64_t done;	/* writes and sends completed */
	uint64_t recvs; /* receives completed */
	int failed;
};

#define TRY(expr) \
	do { \
		doca_error_t e_ = (expr); \
		if (e_ != DOCA_SUCCESS) { \
			fprintf(stderr, "rdma_bench: %s: %s\n", #expr, doca_error_get_name(e_)); \
			exit(1); \
		} \
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

		if (r <= 0)
			exit(1);
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
	if (l > 4096)
		exit(1);
	xfer(fd, blob, l, 0);
	return l;
}

static void
state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	((struct side *)ud.ptr)->running = next == DOCA_CTX_STATE_RUNNING;
}

static void
count(struct doca_task *task, union doca_data ctx_ud)
{
	struct side *s = ctx_ud.ptr;

	if (doca_task_get_status(task) != DOCA_SUCCESS)
		s->failed = 1;
	s->done++;
}

static void
write_cb(struct doca_rdma_task_write *t, union doca_data ud, union doca_data cud)
{
	count(doca_rdma_task_write_as_task(t), cud);
}

static void
send_cb(struct doca_rdma_task_send *t, union doca_data ud, union doca_data cud)
{
	count(doca_rdma_task_send_as_task(t), cud);
}

static void
recv_cb(struct doca_rdma_task_receive *t, union doca_data ud, union doca_data cud)
{
	struct side *s = cud.ptr;

	if (doca_task_get_status(doca_rdma_task_receive_as_task(t)) != DOCA_SUCCESS)
		s->failed = 1;
	s->recvs++;
}

static void
side_open(struct side *s, size_t mem_len, uint32_t perms)
{
	struct doca_devinfo **list;
	uint32_t n;
	uint8_t blob[4096];
	const void *mine;
	size_t len;

	TRY(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && s->dev == NULL; i++)
		if (doca_rdma_cap_task_write_is_supported(list[i]) == DOCA_SUCCESS)
			TRY(doca_dev_open(list[i], &s->dev));
	TRY(doca_devinfo_destroy_list(list));
	if (s->dev == NULL)
		exit(1);
	s->mem_len = mem_len;
	s->mem = calloc(1, mem_len);
	TRY(doca_mmap_create(&s->mmap));
	TRY(doca_mmap_set_permissions(s->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | perms));
	TRY(doca_mmap_set_memrange(s->mmap, s->mem, mem_len));
	TRY(doca_mmap_add_dev(s->mmap, s->dev));
	TRY(doca_mmap_start(s->mmap));
	TRY(doca_buf_inventory_create(256, &s->inv));
	TRY(doca_buf_inventory_start(s->inv));
	TRY(doca_pe_create(&s->pe));
	TRY(doca_rdma_create(s->dev, &s->rdma));
	s->ctx = doca_rdma_as_ctx(s->rdma);
	TRY(doca_rdma_set_permissions(s->rdma, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | perms));
	TRY(doca_rdma_task_write_set_conf(s->rdma, write_cb, write_cb, WINDOW));
	TRY(doca_rdma_task_send_set_conf(s->rdma, send_cb, send_cb, SENDS));
	TRY(doca_rdma_task_receive_set_conf(s->rdma, recv_cb, recv_cb, 4));
	TRY(doca_ctx_set_state_changed_cb(s->ctx, state_cb));
	TRY(doca_ctx_set_user_data(s->ctx, (union doca_data){.ptr = s}));
	TRY(doca_pe_connect_ctx(s->pe, s->ctx));
	TRY(doca_ctx_start(s->ctx));
	while (!s->running)
		doca_pe_progress(s->pe);
	TRY(doca_rdma_export(s->rdma, &mine, &len, &s->conn));
	send_blob(s->sock, mine, len);
	len = recv_blob(s->sock, blob);
	TRY(doca_rdma_connect(s->rdma, blob, len, s->conn));
}

static void
side_close(struct side *s)
{
	if (doca_ctx_stop(s->ctx) == DOCA_ERROR_IN_PROGRESS)
		while (s->running || doca_pe_progress(s->pe))
			;
	doca_rdma_destroy(s->rdma);
	doca_pe_destroy(s->pe);
	doca_buf_inventory_destroy(s->inv);
	doca_mmap_destroy(s->mmap);
	doca_dev_close(s->dev);
	free(s->mem);
}

/* Requester: iters writes of size bytes, WINDOW in flight; returns MiB/s. */
static double
write_bw(struct side *s, size_t size, int iters)
{
	struct doca_rdma_task_write *t[WINDOW];
	struct doca_buf *src, *dst[WINDOW];
	struct doca_mmap *remote;
	uint8_t blob[4096];
	size_t len, rlen;
	void *raddr;
	int warm = iters / 10, posted = 0;
	double t0 = 0;
	char c = 0;

	len = recv_blob(s->sock, blob);
	TRY(doca_mmap_create_from_export(NULL, blob, len, s->dev, &remote));
	TRY(doca_mmap_get_memrange(remote, &raddr, &rlen));
	TRY(doca_buf_inventory_buf_get_by_data(s->inv, s->mmap, s->mem, size, &src));
	for (int i = 0; i < WINDOW; i++) {
		TRY(doca_buf_inventory_buf_get_by_addr(s->inv, remote, raddr, size, &dst[i]));
		TRY(doca_rdma_task_write_allocate_init(s->rdma, s->conn, src, dst[i], (union doca_data){.u64 = 0},
						       &t[i]));
	}
	s->done = 0;
	while (s->done < (uint64_t)(iters + warm)) {
		while (posted < iters + warm && (uint64_t)posted - s->done < WINDOW) {
			int k = posted % WINDOW;

			TRY(doca_buf_reset_data_len(dst[k]));
			TRY(doca_task_submit(doca_rdma_task_write_as_task(t[k])));
			posted++;
		}
		doca_pe_progress(s->pe);
		if (t0 == 0 && s->done >= (uint64_t)warm)
			t0 = now_s();
	}
	double secs = now_s() - t0;

	if (s->failed)
		exit(1);
	for (int i = 0; i < WINDOW; i++) {
		doca_task_free(doca_rdma_task_write_as_task(t[i]));
		doca_buf_dec_refcount(dst[i], NULL);
	}
	doca_buf_dec_refcount(src, NULL);
	doca_mmap_destroy(remote);
	xfer(s->sock, &c, 1, 1);
	return (double)size * iters / secs / (1024.0 * 1024.0);
}

/* Target: export, then sit in read() (the service thread serves the writes). */
static void
write_target(struct side *s)
{
	const void *desc;
	size_t len;
	char c;

	TRY(doca_mmap_export_rdma(s->mmap, s->dev, &desc, &len));
	send_blob(s->sock, desc, len);
	xfer(s->sock, &c, 1, 0);
}

/* 8-byte ping-pong through send / receive tasks; returns half a round trip in us. */
static double
pingpong(struct side *s, int iters, int initiator)
{
	struct doca_rdma_task_send *st[SENDS];
	struct doca_rdma_task_receive *rt;
	struct doca_buf *sbuf, *rbuf;
	int warm = iters / 10;
	double t0 = 0;

	memset(s->mem, 0x5a, 8);
	TRY(doca_buf_inventory_buf_get_by_data(s->inv, s->mmap, s->mem, 8, &sbuf));
	TRY(doca_buf_inventory_buf_get_by_addr(s->inv, s->mmap, s->mem + 64, 8, &rbuf));
	for (int i = 0; i < SENDS; i++)
		TRY(doca_rdma_task_send_allocate_init(s->rdma, s->conn, sbuf, (union doca_data){.u64 = 0}, &st[i]));
	TRY(doca_rdma_task_receive_allocate_init(s->rdma, rbuf, (union doca_data){.u64 = 0}, &rt));
	s->done = 0;
	s->recvs = 0;
	for (int i = 0; i < iters + warm; i++) {
		if (i == warm)
			t0 = now_s();
		/* a send task is reused SENDS rounds later: its previous use must be acked */
		while (s->done + SENDS <= (uint64_t)i)
			doca_pe_progress(s->pe);
		TRY(doca_buf_reset_data_len(rbuf));
		TRY(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
		if (initiator)
			TRY(doca_task_submit(doca_rdma_task_send_as_task(st[i % SENDS])));
		while (s->recvs <= (uint64_t)i && !s->failed)
			doca_pe_progress(s->pe);
		if (!initiator)
			TRY(doca_task_submit(doca_rdma_task_send_as_task(st[i % SENDS])));
	}
	double secs = now_s() - t0;

	/* drain the last sends (the responder's last one is acked by nobody: bounded) */
	for (double end = now_s() + 1; s->done < (uint64_t)(iters + warm) && now_s() < end;)
		doca_pe_progress(s->pe);
	if (s->failed)
		exit(1);
	for (int i = 0; i < SENDS; i++)
		doca_task_free(doca_rdma_task_send_as_task(st[i]));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_buf_dec_refcount(sbuf, NULL);
	doca_buf_dec_refcount(rbuf, NULL);
	return secs / iters / 2 * 1e6;
}

/* ucx_perftest server + client on loopback; column col of its "Final:" line. */
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
		double c[8];

		if (strncmp(line, "Final:", 6) == 0 &&
		    sscanf(line + 6, "%lf %lf %lf %lf %lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6],
			   &c[7]) == 8)
			v = c[col];
	}
	pclose(f);
	return v;
}

/* One forked pair: the parent measures, the child is the target / responder. */
static void
run_pair(size_t size, int iters, int lat_iters, double *bw, double *lat)
{
	struct side s = {0};
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		exit(1);
	pid = fork();
	if (pid < 0)
		exit(1);
	s.sock = pid == 0 ? sv[1] : sv[0];
	close(pid == 0 ? sv[0] : sv[1]);
	side_open(&s, size + 4096, DOCA_ACCESS_FLAG_RDMA_WRITE);
	if (pid == 0) {
		write_target(&s);
		pingpong(&s, lat_iters, 0);
		side_close(&s);
		_exit(0);
	}
	*bw = write_bw(&s, size, iters);
	*lat = pingpong(&s, lat_iters, 1);
	waitpid(pid, NULL, 0);
	side_close(&s);
	close(s.sock);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	size_t size = 1 << 20;
	int tcp = 0, iters = 0, lat_iters = 0, rounds = 3, run_perftest = 1;
	double bw[16], lat[16], pbw[16], plat[16];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--tcp") == 0)
			tcp = 1;
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			size = strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--lat-iters") == 0 && i + 1 < argc)
			lat_iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-perftest") == 0)
			run_perftest = 0;
		else {
			fprintf(stderr,
				"usage: %s [--tcp] [--rounds N] [--size N] [--iters N] [--lat-iters N] [--no-perftest]\n",
				argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || rounds > 16)
		rounds = 3;
	if (iters == 0)
		iters = tcp ? 500 : 2000;
	if (lat_iters == 0)
		lat_iters = tcp ? 20000 : 50000;
	if (tcp) {
		setenv("UCX_TLS", "tcp", 1);
		setenv("UCX_NET_DEVICES", "lo", 1);
	}
	for (int r = 0; r < rounds; r++) {
		if (run_perftest) {
			pbw[r] = perftest("ucp_put_bw", size, iters, 5);
			plat[r] = perftest("ucp_am_lat", 8, lat_iters, 3);
		}
		run_pair(size, iters, lat_iters, &bw[r], &lat[r]);
		printf("round %d: write %.1f MiB/s, send/recv %.2f us", r + 1, bw[r], lat[r]);
		if (run_perftest)
			printf("   | ucp_put_bw %.1f MiB/s, ucp_am_lat %.2f us", pbw[r], plat[r]);
		printf("\n");
		fflush(stdout);
	}
	printf("transport %s, %d rounds, medians:\n", tcp ? "tcp (loopback)" : "default (shm/cma)", rounds);
	{
		double mbw = median(bw, rounds), mlat = median(lat, rounds);

		printf("  DOCA RDMA write %zu B         %10.1f MiB/s", size, mbw);
		if (run_perftest)
			printf("   ucp_put_bw %10.1f MiB/s   ratio %.2f (target >= 1.0)", median(pbw, rounds),
			       mbw / median(pbw, rounds));
		printf("\n  DOCA RDMA send/recv 8 B       %10.2f us   ", mlat);
		if (run_perftest)
			printf("   ucp_am_lat %10.2f us      ratio %.2f (target <= 1.3)", median(plat, rounds),
			       mlat / median(plat, rounds));
		printf("\n");
	}
	return 0;
}
