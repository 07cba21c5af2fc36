/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DOCA RDMA path (public API: tasks, PE, connections, exported mmaps)
 * beside its peers in the same run: 1 MiB RDMA write bandwidth between two
 * forked processes (target blocked in read(), as the samples' responders are)
 * against ucp_put_bw (and ucp_am_bw, iperf3 across namespaces), and 8-byte
 * send/receive ping-pong latency (half round trip) against ucp_am_lat.
 * Rounds alternate ours and the peers (the order flips every round) so both
 * see the same machine noise; medians and their ratio are printed.  Not a
 * test: speed is never asserted.
 *
 *   rdma_bench [--tcp] [--netns] [--only write|lat] [--pin] [--thp] [--rounds N]
 *              [--size N] [--iters N] [--lat-iters N] [--no-perftest]
 *
 * --netns (root): the pair runs in two network namespaces joined by a veth
 * pair, each side's device bound to its veth end (P6); with --tcp both sides
 * also set UCX_TLS=tcp, as two hosts would be (no shared memory, no CMA).
 * --pin: the measuring process on CPU 0, the target on CPU 1 (ucx_perftest
 * gets -c the same way): the best case on an otherwise idle box.
 * --thp: the target's exported memory 2 MiB aligned with MADV_HUGEPAGE, as
 * UCX allocates the memory ucp_put_bw writes into (fewer pages to pin).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
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

/* Options shared by both processes of a pair. */
static struct {
	int tcp, netns, pin, thp;
	char ns[2][32], veth[2][32], topo[2][64];
} opt;

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
	if (opt.thp) {
		size_t al = ((mem_len + (2u << 20) - 1) / (2u << 20)) * (2u << 20);

		if (posix_memalign((void **)&s->mem, 2u << 20, al) != 0)
			exit(1);
		(void)madvise(s->mem, al, MADV_HUGEPAGE);
		memset(s->mem, 0, al);
	} else {
		s->mem = calloc(1, mem_len);
	}
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

/* Run a shell command, return the last number found after `key` in its output (-1: none). */
static double
run_parse(const char *cmd, const char *key, int col)
{
	char line[512];
	double v = -1;
	FILE *f = popen(cmd, "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		double c[8];

		if (strncmp(line, key, strlen(key)) == 0 &&
		    sscanf(line + strlen(key), "%lf %lf %lf %lf %lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3], &c[4],
			   &c[5], &c[6], &c[7]) > col)
			v = c[col];
	}
	pclose(f);
	return v;
}

/*
 * ucx_perftest server + client (loopback, or across the namespaces over tcp
 * on the veth); column col of its "Final:" line.
 */
static double
perftest(const char *test, size_t size, int iters, int col)
{
	char cmd[1024], spre[160] = "", cpre[160] = "";
	int port = 20000 + (int)((unsigned)getpid() % 20000);

	if (opt.netns) {
		snprintf(spre, sizeof(spre), "UCX_TLS=tcp UCX_NET_DEVICES=%s ip netns exec %s", opt.veth[0], opt.ns[0]);
		snprintf(cpre, sizeof(cpre), "UCX_TLS=tcp UCX_NET_DEVICES=%s ip netns exec %s", opt.veth[1], opt.ns[1]);
	}
	snprintf(cmd, sizeof(cmd),
		 "%s ucx_perftest -p %d -t %s -s %zu -n %d %s >/dev/null 2>&1 & sleep 0.5; "
		 "%s ucx_perftest %s -p %d -t %s -s %zu -n %d %s 2>/dev/null; wait",
		 spre, port, test, size, iters, opt.pin ? "-c 1" : "", cpre, opt.netns ? "192.0.2.1" : "127.0.0.1",
		 port, test, size, iters, opt.pin ? "-c 0" : "");
	return run_parse(cmd, "Final:", col);
}

/* iperf3 across the namespaces, 1 s; MiB/s received. */
static double
iperf3(void)
{
	char cmd[512];
	double bits;

	snprintf(cmd, sizeof(cmd),
		 "ip netns exec %s iperf3 -s -1 -p 5299 >/dev/null 2>&1 & sleep 0.5; "
		 "ip netns exec %s iperf3 -c 192.0.2.1 -p 5299 -t 1 -f m 2>/dev/null | "
		 "awk '/receiver/ {print \"BW:\", $7}'; wait",
		 opt.ns[0], opt.ns[1]);
	bits = run_parse(cmd, "BW:", 0);
	return bits < 0 ? -1 : bits * 1e6 / 8 / (1024.0 * 1024.0);
}

static void __attribute__((format(printf, 1, 2)))
sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0) {
		fprintf(stderr, "rdma_bench: failed: %s\n", cmd);
		exit(1);
	}
}

static void
netns_down(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null; rm -f %s %s", opt.ns[0],
		 opt.ns[1], opt.topo[0], opt.topo[1]);
	if (system(cmd) != 0)
		fprintf(stderr, "rdma_bench: namespace cleanup failed\n");
}

/* Two namespaces, a veth pair 192.0.2.1/24 - 192.0.2.2/24 (TEST-NET-1), a topology file per side. */
static void
netns_up(void)
{
	unsigned tag = (unsigned)getpid() & 0xffff;

	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(opt.ns[i], sizeof(opt.ns[i]), "sdrb%x%c", tag, 'a' + i);
		snprintf(opt.veth[i], sizeof(opt.veth[i]), "sdr%x%c", tag, 'a' + i);
		snprintf(opt.topo[i], sizeof(opt.topo[i]), "/tmp/rdma_bench-%x-%d.json", tag, i);
		f = fopen(opt.topo[i], "w");
		if (f == NULL)
			exit(1);
		fprintf(f,
			"{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"netdev\": \"%s\", \"functions\": "
			"[{\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", "
			"\"iface\": \"ens1f0np0\", \"vhca_id\": 0}]}]}\n",
			opt.veth[i]);
		fclose(f);
	}
	atexit(netns_down);
	sh("ip netns add %s && ip netns add %s", opt.ns[0], opt.ns[1]);
	sh("ip link add %s type veth peer name %s", opt.veth[0], opt.veth[1]);
	for (int i = 0; i < 2; i++) {
		sh("ip link set %s netns %s", opt.veth[i], opt.ns[i]);
		sh("ip -n %s addr add 192.0.2.%d/24 dev %s", opt.ns[i], i + 1, opt.veth[i]);
		sh("ip -n %s link set %s up", opt.ns[i], opt.veth[i]);
		sh("ip -n %s link set lo up", opt.ns[i]);
	}
}

/* Move the calling process into side i's namespace / CPU, as the options say. */
static void
place_side(int i)
{
	if (opt.netns) {
		char path[96];
		int fd;

		snprintf(path, sizeof(path), "/var/run/netns/%s", opt.ns[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
			perror("rdma_bench: setns");
			exit(1);
		}
		close(fd);
		/* as `ip netns exec` does: UCX lists network devices from /sys/class/net */
		if (unshare(CLONE_NEWNS) != 0 || mount("", "/", NULL, MS_SLAVE | MS_REC, NULL) != 0 ||
		    umount2("/sys", MNT_DETACH) != 0 || mount(opt.ns[i], "/sys", "sysfs", 0, NULL) != 0) {
			perror("rdma_bench: remounting /sys in the namespace");
			exit(1);
		}
		setenv("SOFTDOCA_TOPOLOGY", opt.topo[i], 1);
		setenv("UCX_NET_DEVICES", opt.veth[i], 1);
	}
	if (opt.pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(i ? 0 : 1, &set);
		(void)sched_setaffinity(0, sizeof(set), &set);
	}
}

/*
 * One forked pair: a measuring child and its forked target / responder, so
 * this process never changes namespace or affinity.  Results come back
 * through a pipe.
 */
static void
run_pair(size_t size, int iters, int lat_iters, int do_bw, int do_lat, double *bw, double *lat)
{
	double res[2] = {-1, -1};
	int sv[2], rp[2];
	pid_t meas, pid;

	if (pipe(rp) != 0)
		exit(1);
	meas = fork();
	if (meas < 0)
		exit(1);
	if (meas == 0) {
		struct side s = {0};

		close(rp[0]);
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			_exit(1);
		pid = fork();
		if (pid < 0)
			_exit(1);
		s.sock = pid == 0 ? sv[1] : sv[0];
		close(pid == 0 ? sv[0] : sv[1]);
		place_side(pid == 0 ? 0 : 1);
		side_open(&s, size + 4096, DOCA_ACCESS_FLAG_RDMA_WRITE);
		if (pid == 0) {
			if (do_bw)
				write_target(&s);
			if (do_lat)
				pingpong(&s, lat_iters, 0);
			side_close(&s);
			_exit(0);
		}
		if (do_bw)
			res[0] = write_bw(&s, size, iters);
		if (do_lat)
			res[1] = pingpong(&s, lat_iters, 1);
		waitpid(pid, NULL, 0);
		side_close(&s);
		xfer(rp[1], res, sizeof(res), 1);
		_exit(0);
	}
	close(rp[1]);
	xfer(rp[0], res, sizeof(res), 0);
	close(rp[0]);
	waitpid(meas, NULL, 0);
	*bw = res[0];
	*lat = res[1];
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(const double *in, int n)
{
	double v[16];

	memcpy(v, in, sizeof(*v) * (size_t)n);
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [--tcp] [--netns] [--only write|lat] [--pin] [--thp] [--rounds N] [--size N] "
		"[--iters N] [--lat-iters N] [--no-perftest]\n",
		argv0);
	exit(2);
}

int
main(int argc, char **argv)
{
	size_t size = 1 << 20;
	int iters = 0, lat_iters = 0, rounds = 5, run_perftest = 1, do_bw = 1, do_lat = 1;
	double bw[16], lat[16], pbw[16], pam[16], plat[16], ip[16];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--tcp") == 0)
			opt.tcp = 1;
		else if (strcmp(argv[i], "--netns") == 0)
			opt.netns = 1;
		else if (strcmp(argv[i], "--pin") == 0)
			opt.pin = 1;
		else if (strcmp(argv[i], "--thp") == 0)
			opt.thp = 1;
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
			i++;
			do_bw = strcmp(argv[i], "write") == 0;
			do_lat = strcmp(argv[i], "lat") == 0;
			if (!do_bw && !do_lat)
				usage(argv[0]);
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			size = strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--lat-iters") == 0 && i + 1 < argc)
			lat_iters = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-perftest") == 0)
			run_perftest = 0;
		else
			usage(argv[0]);
	}
	if (rounds < 1 || rounds > 16)
		rounds = 5;
	if (iters == 0)
		iters = opt.tcp || opt.netns ? 500 : 2000;
	if (lat_iters == 0)
		lat_iters = opt.tcp || opt.netns ? 20000 : 50000;
	if (opt.netns) {
		if (geteuid() != 0) {
			fprintf(stderr, "rdma_bench: --netns needs root (network namespaces)\n");
			return 2;
		}
		netns_up();
	}
	if (opt.tcp) {
		setenv("UCX_TLS", "tcp", 1);
		if (!opt.netns)
			setenv("UCX_NET_DEVICES", "lo", 1);
	}
	for (int r = 0; r < rounds; r++) {
		int ours_first = r % 2 == 0;

		pbw[r] = pam[r] = plat[r] = ip[r] = -1;
		if (ours_first)
			run_pair(size, iters, lat_iters, do_bw, do_lat, &bw[r], &lat[r]);
		if (run_perftest) {
			if (do_bw)
				pbw[r] = perftest("ucp_put_bw", size, iters, 5);
			if (do_bw && (opt.netns || opt.tcp))
				pam[r] = perftest("ucp_am_bw", size, iters, 5);
			if (do_bw && opt.netns)
				ip[r] = iperf3();
			if (do_lat)
				plat[r] = perftest("ucp_am_lat", 8, lat_iters, 3);
		}
		if (!ours_first)
			run_pair(size, iters, lat_iters, do_bw, do_lat, &bw[r], &lat[r]);
		printf("round %d:", r + 1);
		if (do_bw)
			printf(" write %.1f MiB/s", bw[r]);
		if (do_lat)
			printf(" send/recv %.2f us", lat[r]);
		if (run_perftest) {
			printf("   |");
			if (do_bw)
				printf(" ucp_put_bw %.1f MiB/s", pbw[r]);
			if (pam[r] >= 0)
				printf(", ucp_am_bw %.1f MiB/s", pam[r]);
			if (ip[r] >= 0)
				printf(", iperf3 %.1f MiB/s", ip[r]);
			if (do_lat)
				printf(" ucp_am_lat %.2f us", plat[r]);
		}
		printf("\n");
		fflush(stdout);
	}
	printf("%s%s%s%s, %d rounds, medians:\n",
	       opt.netns ? "two network namespaces (veth), " : "", opt.tcp ? "UCX_TLS=tcp" : "default transports",
	       opt.pin ? ", pinned" : "", opt.thp ? ", THP target memory" : "", rounds);
	if (do_bw) {
		double mbw = median(bw, rounds);

		printf("  DOCA RDMA write %zu B       %10.1f MiB/s\n", size, mbw);
		if (run_perftest) {
			double mp = median(pbw, rounds);

			printf("    ucp_put_bw                  %10.1f MiB/s   ratio %.2f\n", mp, mbw / mp);
			if (opt.netns || opt.tcp) {
				double ma = median(pam, rounds);

				printf("    ucp_am_bw                   %10.1f MiB/s   ratio %.2f\n", ma, mbw / ma);
			}
			if (opt.netns) {
				double mi = median(ip, rounds);

				printf("    iperf3                      %10.1f MiB/s   ratio %.2f\n", mi, mbw / mi);
			}
		}
	}
	if (do_lat) {
		double mlat = median(lat, rounds);

		printf("  DOCA RDMA send/recv 8 B     %10.2f us\n", mlat);
		if (run_perftest) {
			double mp = median(plat, rounds);

			printf("    ucp_am_lat                  %10.2f us      ratio %.2f (lower is better)\n", mp,
			       mlat / mp);
		}
	}
	return 0;
}
