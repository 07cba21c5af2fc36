/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA benchmark: runs the DOCA DMA path and its software peer in the same process,
 * on the same sizes and buffers, and prints a table with the ratio.
 *
 *   small   64-byte tasks, submit-to-completion rate (peer: a 64-byte memcpy loop)
 *   local   1 MiB tasks, 32 in flight (peer: a memcpy loop over the same 32 pairs)
 *   xproc   64 KiB .. 4 MiB tasks from a forked exporter's doca_mmap_export_pci()
 *           buffer, 32 in flight (peer: a process_vm_readv loop on the same memory)
 *   loop    (alone: `dma_bench SECONDS loop`) the small row's DOCA side only, for SECONDS,
 *           as one doca_perf-style JSON row: make bench's bare loop that doca_perf's own
 *           bookkeeping is measured against (target P2)
 *
 * Each row alternates ROUNDS short slices of the DOCA path and of the peer, so both
 * see the same noise from whatever else runs on the machine, and prints the median
 * of the per-round ratios twice: by wall-clock rate, and by work per CPU-second of
 * the process (user + system, every thread; robust against the preemption a shared
 * machine inflicts, blind to a worker thread that waits for a core).
 *
 * Usage: dma_bench [seconds-per-row (default 1)] [row filter substring]
 * Not a test: numbers depend on the machine; docs/dma.md records ours.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <softdoca_dev.h>

#define INFLIGHT 32
#define HOST_PCI "0000:b1:00.0"
#define DPU_PCI "0000:03:00.0"
#define XPROC_AREA (128u << 20)
#define ROUNDS 10

static double seconds = 1.0;

static double
clock_s(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double
now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* Work done in the slices of one side of a row, per round: wall and CPU seconds. */
struct side {
	double work[ROUNDS];
	double wall[ROUNDS];
	double cpu[ROUNDS];
	double t0, c0;
};

static void
side_start(struct side *sd)
{
	sd->c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	sd->t0 = now();
}

static void
side_stop(struct side *sd, int round, double work)
{
	sd->wall[round] = now() - sd->t0;
	sd->cpu[round] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - sd->c0;
	sd->work[round] = work;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median over the rounds of per[round] = a's rate / b's rate, by wall or CPU time. */
static double
ratio(const struct side *a, const struct side *b, bool cpu)
{
	double r[ROUNDS];

	for (int i = 0; i < ROUNDS; i++)
		r[i] = (a->work[i] / (cpu ? a->cpu[i] : a->wall[i])) / (b->work[i] / (cpu ? b->cpu[i] : b->wall[i]));
	return median(r, ROUNDS);
}

/* Median rate of one side (work per wall second). */
static double
rate(const struct side *a)
{
	double r[ROUNDS];

	for (int i = 0; i < ROUNDS; i++)
		r[i] = a->work[i] / a->wall[i];
	return median(r, ROUNDS);
}

static void
check(doca_error_t err, const char *what)
{
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "dma_bench: %s: %s\n", what, doca_error_get_descr(err));
		exit(1);
	}
}

static struct doca_dev *
open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	check(doca_devinfo_create_list(&list, &n), "doca_devinfo_create_list");
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];

		if (doca_devinfo_get_pci_addr_str(list[i], addr) == DOCA_SUCCESS && strcmp(addr, pci) == 0)
			check(doca_dev_open(list[i], &dev), "doca_dev_open");
	}
	doca_devinfo_destroy_list(list);
	if (dev == NULL) {
		fprintf(stderr, "dma_bench: no device %s\n", pci);
		exit(1);
	}
	return dev;
}

/* The DOCA side of a row: a ctx whose callbacks resubmit every task until time is up. */
static struct {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	bool running;
	uint64_t done;
	uint64_t failed;
} B;

static void
ok_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	B.done++;
	doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
	if (B.running)
		doca_task_submit(doca_dma_task_memcpy_as_task(task));
	else
		doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void
err_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	B.failed++;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void
ctx_open(struct doca_dev *dev, uint32_t tasks)
{
	memset(&B, 0, sizeof(B));
	check(doca_pe_create(&B.pe), "doca_pe_create");
	check(doca_dma_create(dev, &B.dma), "doca_dma_create");
	check(doca_dma_task_memcpy_set_conf(B.dma, ok_cb, err_cb, tasks), "set_conf");
	check(doca_pe_connect_ctx(B.pe, doca_dma_as_ctx(B.dma)), "connect");
	check(doca_ctx_start(doca_dma_as_ctx(B.dma)), "start");
	check(doca_buf_inventory_create(2 * tasks, &B.inv), "inventory");
	check(doca_buf_inventory_start(B.inv), "inventory start");
}

/*
 * Submit n tasks (src[i] -> dst[i]) and keep them cycling for `slice` seconds, then
 * drain; records the completions (times unit) and the times of round `round`.
 */
static void
ctx_run(struct doca_buf **src, struct doca_buf **dst, unsigned n, double slice, struct side *sd, int round, double unit)
{
	double t0, t1;
	size_t inflight;

	B.done = 0;
	B.running = true;
	for (unsigned i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *t;
		union doca_data ud = {.u64 = i};

		check(doca_dma_task_memcpy_alloc_init(B.dma, src[i], dst[i], ud, &t), "alloc_init");
		check(doca_task_submit(doca_dma_task_memcpy_as_task(t)), "submit");
	}
	side_start(sd);
	t0 = sd->t0;
	do {
		for (int k = 0; k < 64; k++)
			doca_pe_progress(B.pe);
		t1 = now();
	} while (t1 - t0 < slice);
	B.running = false;
	do {
		doca_pe_progress(B.pe);
		doca_ctx_get_num_inflight_tasks(doca_dma_as_ctx(B.dma), &inflight);
	} while (inflight > 0);
	if (B.failed) {
		fprintf(stderr, "dma_bench: %lu tasks failed\n", (unsigned long)B.failed);
		exit(1);
	}
	/* The drain's completions took time too: count both. */
	side_stop(sd, round, (double)B.done * unit);
}

static void
ctx_close(void)
{
	check(doca_ctx_stop(doca_dma_as_ctx(B.dma)), "stop");
	check(doca_dma_destroy(B.dma), "destroy");
	check(doca_pe_destroy(B.pe), "pe destroy");
}

static struct doca_mmap *
local_mmap(struct doca_dev *dev, void *mem, size_t len)
{
	struct doca_mmap *m;

	check(doca_mmap_create(&m), "mmap create");
	check(doca_mmap_set_memrange(m, mem, len), "memrange");
	check(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), "permissions");
	check(doca_mmap_add_dev(m, dev), "add dev");
	check(doca_mmap_start(m), "mmap start");
	return m;
}

static void
row(const char *name, const char *size, const char *unit, double scale, const struct side *doca,
    const struct side *peer)
{
	printf("| %-22s | %7s | %12.3f %-5s | %12.3f %-5s | %6.3f | %6.3f |\n", name, size, rate(doca) / scale, unit,
	       rate(peer) / scale, unit, ratio(doca, peer, false), ratio(doca, peer, true));
	fflush(stdout);
}

/* Keep the compiler from dropping a peer loop's copies. */
static volatile uint8_t sink;

/* ---- small: 64-byte tasks ------------------------------------------------------------- */

/* The small rows' context and depth pairs of 64-byte bufs (src[i] -> dst[i]) over mem. */
static void
small_open(struct doca_dev *dev, unsigned depth, uint8_t *mem, struct doca_buf **src, struct doca_buf **dst)
{
	enum { SZ = 64 };
	struct doca_mmap *m;

	memset(mem, 1, (size_t)2 * depth * SZ);
	ctx_open(dev, depth);
	m = local_mmap(dev, mem, (size_t)2 * depth * SZ);
	for (unsigned i = 0; i < depth; i++) {
		check(doca_buf_inventory_buf_get_by_data(B.inv, m, mem + i * SZ, SZ, &src[i]), "buf");
		check(doca_buf_inventory_buf_get_by_addr(B.inv, m, mem + (depth + i) * SZ, SZ, &dst[i]), "buf");
	}
}

static void
bench_small(struct doca_dev *dev, unsigned depth)
{
	enum { SZ = 64 };
	uint8_t *mem = aligned_alloc(4096, (size_t)2 * depth * SZ);
	struct doca_buf *src[1024], *dst[1024];
	struct side doca, peer;
	double t1;
	char label[64];

	small_open(dev, depth, mem, src, dst);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t ops = 0;

		ctx_run(src, dst, depth, seconds / ROUNDS, &doca, r, 1.0);
		side_start(&peer);
		do {
			for (unsigned k = 0; k < 64; k++)
				for (unsigned i = 0; i < depth; i++) {
					memcpy(mem + (depth + i) * SZ, mem + i * SZ, SZ);
					__asm__ __volatile__("" ::: "memory");
				}
			ops += 64u * depth;
			t1 = now();
		} while (t1 - peer.t0 < seconds / ROUNDS);
		side_stop(&peer, r, (double)ops);
	}
	ctx_close();
	sink = mem[depth * SZ];
	snprintf(label, sizeof(label), "small, %u in flight", depth);
	row(label, "64 B", "Mop/s", 1e6, &doca, &peer);
}

/* The small row's DOCA side alone, as `doca_perf dma --json` prints a row (compare.py reads it). */
static void
bench_loop(struct doca_dev *dev)
{
	enum { SZ = 64 };
	uint8_t *mem = aligned_alloc(4096, (size_t)2 * INFLIGHT * SZ);
	struct doca_buf *src[INFLIGHT], *dst[INFLIGHT];
	struct side doca;

	small_open(dev, INFLIGHT, mem, src, dst);
	ctx_run(src, dst, INFLIGHT, seconds, &doca, 0, 1.0);
	ctx_close();
	printf("{\"results\":[{\"size\":%d,\"tasks\":%.0f,\"seconds\":%.6f,\"bytes_per_sec\":%.1f,"
	       "\"tasks_per_sec\":%.1f,\"cpu_percent\":%.1f,\"lat_ns\":{\"avg\":0}}]}\n",
	       SZ, doca.work[0], doca.wall[0], doca.work[0] * SZ / doca.wall[0], doca.work[0] / doca.wall[0],
	       100.0 * doca.cpu[0] / doca.wall[0]);
}

/* ---- local: large tasks, 32 in flight ---------------------------------------------------- */

static void
bench_local(struct doca_dev *dev, size_t sz, const char *size_label, const char *engine)
{
	uint8_t *mem = aligned_alloc(4096, 2 * INFLIGHT * sz);
	struct doca_buf *src[INFLIGHT], *dst[INFLIGHT];
	struct doca_mmap *m;
	struct side doca, peer;
	double t1;
	char label[64];

	memset(mem, 7, 2 * INFLIGHT * sz);
	if (engine != NULL)
		setenv("SOFTDOCA_DMA_ENGINE", engine, 1);
	ctx_open(dev, INFLIGHT);
	unsetenv("SOFTDOCA_DMA_ENGINE");
	m = local_mmap(dev, mem, 2 * INFLIGHT * sz);
	for (unsigned i = 0; i < INFLIGHT; i++) {
		check(doca_buf_inventory_buf_get_by_data(B.inv, m, mem + i * sz, sz, &src[i]), "buf");
		check(doca_buf_inventory_buf_get_by_addr(B.inv, m, mem + (INFLIGHT + i) * sz, sz, &dst[i]), "buf");
	}
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t bytes = 0;

		ctx_run(src, dst, INFLIGHT, seconds / ROUNDS, &doca, r, (double)sz);
		side_start(&peer);
		do {
			for (unsigned i = 0; i < INFLIGHT; i++)
				memcpy(mem + (INFLIGHT + i) * sz, mem + i * sz, sz);
			bytes += INFLIGHT * sz;
			t1 = now();
		} while (t1 - peer.t0 < seconds / ROUNDS);
		side_stop(&peer, r, (double)bytes);
	}
	ctx_close();
	sink = mem[INFLIGHT * sz];
	snprintf(label, sizeof(label), "local, %s", engine != NULL ? engine : "auto");
	row(label, size_label, "GB/s", 1e9, &doca, &peer);
}

/* ---- xproc: a forked exporter ---------------------------------------------------------- */

struct exporter {
	pid_t pid;
	int cmd;
	uint8_t desc[512];
	size_t desc_len;
	uint8_t *addr;
};

static struct exporter
exporter_start(void)
{
	int down[2], up[2];
	struct exporter x;

	if (pipe(down) != 0 || pipe(up) != 0)
		exit(1);
	x.pid = fork();
	if (x.pid == 0) {
		uint8_t *buf = aligned_alloc(4096, XPROC_AREA);
		struct doca_dev *dev = open_dev(HOST_PCI);
		struct doca_mmap *m;
		const void *desc;
		size_t len;
		char c;

		memset(buf, 9, XPROC_AREA);
		check(doca_mmap_create(&m), "mmap");
		check(doca_mmap_set_memrange(m, buf, XPROC_AREA), "memrange");
		check(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY), "perm");
		check(doca_mmap_add_dev(m, dev), "add dev");
		check(doca_mmap_start(m), "start");
		check(doca_mmap_export_pci(m, dev, &desc, &len), "export");
		if (write(up[1], &len, sizeof(len)) < 0 || write(up[1], desc, len) < 0 ||
		    write(up[1], &buf, sizeof(buf)) < 0)
			_exit(1);
		if (read(down[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	x.cmd = down[1];
	if (read(up[0], &x.desc_len, sizeof(x.desc_len)) != sizeof(x.desc_len) || x.desc_len > sizeof(x.desc) ||
	    read(up[0], x.desc, x.desc_len) != (ssize_t)x.desc_len ||
	    read(up[0], &x.addr, sizeof(x.addr)) != sizeof(x.addr)) {
		fprintf(stderr, "dma_bench: exporter failed\n");
		exit(1);
	}
	close(up[0]);
	return x;
}

static void
bench_xproc(struct doca_dev *dev, struct exporter *x, size_t sz, const char *size_label)
{
	uint8_t *mem = aligned_alloc(4096, INFLIGHT * sz);
	struct doca_buf *src[INFLIGHT], *dst[INFLIGHT];
	struct doca_mmap *m, *remote;
	struct side doca, peer;
	double t1;

	memset(mem, 0, INFLIGHT * sz);
	ctx_open(dev, INFLIGHT);
	check(doca_mmap_create_from_export(NULL, x->desc, x->desc_len, dev, &remote), "create_from_export");
	m = local_mmap(dev, mem, INFLIGHT * sz);
	for (unsigned i = 0; i < INFLIGHT; i++) {
		check(doca_buf_inventory_buf_get_by_data(B.inv, remote, x->addr + i * sz, sz, &src[i]), "buf");
		check(doca_buf_inventory_buf_get_by_addr(B.inv, m, mem + i * sz, sz, &dst[i]), "buf");
	}
	for (int round = 0; round < ROUNDS; round++) {
		uint64_t bytes = 0;

		ctx_run(src, dst, INFLIGHT, seconds / ROUNDS, &doca, round, (double)sz);
		side_start(&peer);
		do {
			for (unsigned i = 0; i < INFLIGHT; i++) {
				struct iovec l = {mem + i * sz, sz}, r = {x->addr + i * sz, sz};

				if (process_vm_readv(x->pid, &l, 1, &r, 1, 0) != (ssize_t)sz) {
					perror("process_vm_readv");
					exit(1);
				}
			}
			bytes += INFLIGHT * sz;
			t1 = now();
		} while (t1 - peer.t0 < seconds / ROUNDS);
		side_stop(&peer, round, (double)bytes);
	}
	ctx_close();
	row("xproc (read), 32 infl.", size_label, "GB/s", 1e9, &doca, &peer);
}

static bool
want(const char *filter, const char *name)
{
	return filter == NULL || strstr(name, filter) != NULL;
}

int
main(int argc, char **argv)
{
	const char *filter = argc > 2 ? argv[2] : NULL;
	struct doca_dev *host, *dpu;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (getenv("SOFTDOCA_TOPOLOGY") == NULL)
		setenv("SOFTDOCA_TOPOLOGY", "builtin", 1);
	host = open_dev(HOST_PCI);
	/* One program playing both sides: open the DPU's function as a DPU program would. */
	softdoca_process_set_side(SOFTDOCA_SIDE_DPU);
	dpu = open_dev(DPU_PCI);
	softdoca_process_set_side(SOFTDOCA_SIDE_HOST);

	if (filter != NULL && strcmp(filter, "loop") == 0) {
		bench_loop(host);
		return 0;
	}
	printf("| %-22s | %7s | %18s | %18s | %6s | %6s |\n", "row", "size", "softdoca DMA", "peer", "ratio", "/cpu");
	printf("|%s|%s|%s|%s|%s|%s|\n", "------------------------", "---------", "--------------------",
	       "--------------------", "--------", "--------");
	if (want(filter, "small")) {
		bench_small(host, 32);
		bench_small(host, 256);
	}
	if (want(filter, "local")) {
		bench_local(host, 64 * 1024, "64 KiB", NULL);
		bench_local(host, 1 << 20, "1 MiB", NULL);
		bench_local(host, 1 << 20, "1 MiB", "inline");
		bench_local(host, 1 << 20, "1 MiB", "worker");
	}
	if (want(filter, "xproc")) {
		struct exporter x = exporter_start();
		int st;

		bench_xproc(dpu, &x, 64 * 1024, "64 KiB");
		bench_xproc(dpu, &x, 256 * 1024, "256 KiB");
		bench_xproc(dpu, &x, 1 << 20, "1 MiB");
		bench_xproc(dpu, &x, 4 << 20, "4 MiB");
		if (write(x.cmd, "q", 1) < 0)
			kill(x.pid, SIGKILL);
		waitpid(x.pid, &st, 0);
	}
	/* Buffers, mmaps and devices of the rows are released by the process exit. */
	return 0;
}
