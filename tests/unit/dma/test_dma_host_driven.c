/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA guide's third picture across two processes: a forked "DPU" exports
 * 256 MiB with doca_mmap_export_pci() on its DPU function and waits; this
 * process, the host, imports it on a host function and runs its DMA context
 * on the host: 1 MiB tasks, 1 and then 4 in flight, both directions, every
 * byte checked.  Then the protections of the other direction: every
 * single-byte change of the descriptor refused, the exporter's stop and exit,
 * an exec'd exporter, and an exporter killed in the middle of a copy (the host
 * sees errors within 2 s and stops cleanly).
 */
#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dma_test.h"
#include "dev_internal.h"
#include "mmap_internal.h"
#include "sd_test_peer.h"

#define REGION (256u << 20)
#define CHUNK (1u << 20)
#define NCHUNK (REGION / CHUNK)

static uint8_t
pattern(size_t i, unsigned round)
{
	return (uint8_t)(i * 13 + (i >> 12) + round * 29 + 1);
}

struct dpu {
	pid_t pid;
	int sock;
	uint8_t desc[512];
	size_t desc_len;
	uint8_t *addr;
};

/* The DPU program: export REGION of pattern(round 0), report, obey: c(heck round), s(top), x(exec), q. */
static void __attribute__((noreturn)) dpu_main(int sock)
{
	uint8_t *buf = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *m;
	struct doca_dev *dev;
	const void *desc;
	size_t len;
	char c[2];

	CHECK(buf != MAP_FAILED);
	for (size_t i = 0; i < REGION; i++)
		buf[i] = pattern(i, 0);
	sd_dev_process_side_set(SD_DEV_SIDE_DPU);
	dev = open_dev(T_DPU_PCI);
	CHECK_ERR(doca_mmap_create(&m), DOCA_SUCCESS);
	CHECK_ERR(doca_mmap_set_memrange(m, buf, REGION), DOCA_SUCCESS);
	CHECK_ERR(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	CHECK_ERR(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	CHECK_ERR(doca_mmap_start(m), DOCA_SUCCESS);
	CHECK_ERR(doca_mmap_export_pci(m, dev, &desc, &len), DOCA_SUCCESS);
	CHECK(len <= 512);
	CHECK(write(sock, &len, sizeof(len)) == sizeof(len) && write(sock, desc, len) == (ssize_t)len &&
	      write(sock, &buf, sizeof(buf)) == sizeof(buf));
	while (read(sock, c, 2) == 2) {
		uint8_t ok = 1;

		if (c[0] == 'c') {
			for (size_t i = 0; i < REGION && ok; i++)
				ok = buf[i] == pattern(i, (unsigned)c[1]);
		} else if (c[0] == 's') {
			ok = doca_mmap_stop(m) == DOCA_SUCCESS;
		} else if (c[0] == 'x') {
			/* same pid, same start time, another program: no record where the descriptor says */
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
			_exit(7);
		} else {
			break;
		}
		CHECK(write(sock, &ok, 1) == 1);
	}
	_exit(0);
}

static struct dpu
dpu_start(void)
{
	struct dpu d;

	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	if (sd_test_fork_peer(&d.pid, &d.sock))
		dpu_main(d.sock);
	ASSERT_EQ(read(d.sock, &d.desc_len, sizeof(d.desc_len)), sizeof(d.desc_len));
	ASSERT(d.desc_len <= sizeof(d.desc));
	ASSERT_EQ(read(d.sock, d.desc, d.desc_len), (ssize_t)d.desc_len);
	ASSERT_EQ(read(d.sock, &d.addr, sizeof(d.addr)), sizeof(d.addr));
	return d;
}

static bool
dpu_ask(struct dpu *d, char c, unsigned arg)
{
	char cmd[2] = {c, (char)arg};
	uint8_t ok = 0;

	ASSERT_EQ(write(d->sock, cmd, 2), 2);
	ASSERT_EQ(read(d->sock, &ok, 1), 1);
	return ok == 1;
}

/* The host: a context on the host function, REGION of local memory (PCI_READ_WRITE alone, as on BlueField-2). */
static struct doca_mmap *
host_open(struct env *e, struct dpu *d)
{
	struct doca_mmap *remote = NULL;

	env_open(e, T_HOST_PCI, REGION, DOCA_ACCESS_FLAG_PCI_READ_WRITE, 8);
	ASSERT_OK(doca_mmap_create_from_export(NULL, d->desc, d->desc_len, e->dev, &remote));
	env_start(e);
	return remote;
}

/* Copy the whole region in CHUNK tasks, depth in flight; every task's status must be want. */
static void
copy_region(struct env *e, struct doca_mmap *from, uint8_t *from_base, struct doca_mmap *to, uint8_t *to_base,
	    unsigned depth)
{
	unsigned next = 0, base = results.done;

	while (results.done - base < NCHUNK) {
		while (next < NCHUNK && next - (results.done - base) < depth) {
			struct doca_buf *s, *t;
			struct doca_dma_task_memcpy *task;
			union doca_data ud = {.u64 = 2000}; /* not recorded by index */

			ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, from, from_base + (size_t)next * CHUNK,
								     CHUNK, &s));
			ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, to, to_base + (size_t)next * CHUNK, CHUNK,
								     &t));
			ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, s, t, ud, &task));
			ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
			next++;
		}
		progress_until(e->pe, &results.done, results.done + 1);
	}
	ASSERT_EQ(results.err, 0);
}

TEST(host_copies_both_ways_1_then_4_in_flight)
{
	struct dpu d = dpu_start();
	struct doca_mmap *remote;
	struct env e;

	remote = host_open(&e, &d);
	results.free_bufs = true;
	for (unsigned depth = 1, round = 1; depth <= 4; depth *= 4, round++) {
		/* DPU -> host: every byte of the export lands here */
		copy_region(&e, remote, d.addr, e.mmap, e.mem, depth);
		for (size_t i = 0; i < REGION; i++)
			if (e.mem[i] != pattern(i, round - 1))
				sd_test_fail(__FILE__, __LINE__, "depth %u: byte %zu is 0x%02x", depth, i, e.mem[i]);
		/* host -> DPU: the next round's bytes, checked by the exporter */
		for (size_t i = 0; i < REGION; i++)
			e.mem[i] = pattern(i, round);
		copy_region(&e, e.mmap, e.mem, remote, d.addr, depth);
		ASSERT(dpu_ask(&d, 'c', round));
	}
	ASSERT_OK(doca_mmap_destroy(remote));
	env_close(&e);
	ASSERT_EQ(write(d.sock, "q?", 2), 2);
	sd_test_reap(d.pid);
}

TEST(every_single_byte_change_of_the_descriptor_is_refused)
{
	struct dpu d = dpu_start();
	struct doca_dev *host = open_dev(T_HOST_PCI);
	unsigned accepted = 0;

	for (size_t i = 0; i < d.desc_len; i++) {
		uint8_t forged[512];
		struct doca_mmap *r = NULL;

		memcpy(forged, d.desc, d.desc_len);
		forged[i] ^= (uint8_t)(1u << (i % 8));
		if (doca_mmap_create_from_export(NULL, forged, d.desc_len, host, &r) == DOCA_SUCCESS) {
			accepted++;
			ASSERT_OK(doca_mmap_destroy(r));
		}
	}
	ASSERT_EQ(accepted, 0);
	ASSERT_OK(doca_dev_close(host));
	ASSERT_EQ(write(d.sock, "q?", 2), 2);
	sd_test_reap(d.pid);
}

/* Field 22 (start time) of /proc/<id>/stat, for a process or a thread. */
static uint64_t
stat_start_time(uint32_t id)
{
	char path[64], buf[4096], *p;
	unsigned long long v = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	f = fopen(path, "r");
	ASSERT_NOT_NULL(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	ASSERT_NOT_NULL(p);
	for (int field = 2; field < 22; field++) /* p: the space before field 22 */
		p = strchr(p + 1, ' ');
	ASSERT(sscanf(p, " %llu", &v) == 1);
	return v;
}

/*
 * A thread of the exporter (its door thread) has its own /proc entry, the same memory and
 * its own start time: a descriptor forged with the thread's id and start time (both
 * readable in /proc) must not pass for the exporter.
 */
TEST(a_descriptor_naming_a_thread_of_the_exporter_is_refused)
{
	struct dpu d = dpu_start();
	struct doca_dev *host = open_dev(T_HOST_PCI);
	struct doca_mmap *r = NULL;
	uint32_t tid = 0;
	char path[64];
	struct dirent *e;
	uint8_t forged[512];
	uint64_t start;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)d.pid);
	dir = opendir(path);
	ASSERT_NOT_NULL(dir);
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.' && atoi(e->d_name) != d.pid)
			tid = (uint32_t)atoi(e->d_name);
	closedir(dir);
	if (tid == 0)
		SKIP("the exporter has no thread besides its main one (no door thread)");
	memcpy(forged, d.desc, d.desc_len);
	memcpy(forged + 16, &tid, sizeof(tid)); /* the descriptor's pid and start time, little-endian */
	start = stat_start_time(tid);
	memcpy(forged + 24, &start, sizeof(start));
	ASSERT_NE(doca_mmap_create_from_export(NULL, forged, d.desc_len, host, &r), DOCA_SUCCESS);
	ASSERT_OK(doca_mmap_create_from_export(NULL, d.desc, d.desc_len, host, &r));
	ASSERT_OK(doca_mmap_destroy(r));
	ASSERT_OK(doca_dev_close(host));
	ASSERT_EQ(write(d.sock, "q?", 2), 2);
	sd_test_reap(d.pid);
}

TEST(stop_exit_and_exec_of_the_exporter_are_refused)
{
	struct dpu d = dpu_start(), d2;
	struct doca_dev *host = open_dev(T_HOST_PCI);
	struct doca_mmap *r = NULL;

	ASSERT_OK(doca_mmap_create_from_export(NULL, d.desc, d.desc_len, host, &r));
	ASSERT_OK(sd_mmap_pci_validate(r));
	ASSERT(dpu_ask(&d, 's', 0)); /* the DPU stops its mmap: the export is revoked */
	ASSERT_ERR(sd_mmap_pci_validate(r), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_mmap_destroy(r));
	ASSERT_EQ(write(d.sock, "q?", 2), 2);
	sd_test_reap(d.pid);
	ASSERT_ERR(doca_mmap_create_from_export(NULL, d.desc, d.desc_len, host, &r), DOCA_ERROR_NOT_FOUND);

	d2 = dpu_start();
	ASSERT_EQ(write(d2.sock, "x?", 2), 2);
	usleep(200000); /* the exec is done: /bin/sleep runs under the exporter's pid */
	ASSERT_ERR(doca_mmap_create_from_export(NULL, d2.desc, d2.desc_len, host, &r), DOCA_ERROR_NOT_PERMITTED);
	kill(d2.pid, SIGKILL);
	ASSERT_EQ(sd_test_wait_exit(d2.pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	ASSERT_OK(doca_dev_close(host));
}

TEST(exporter_killed_mid_copy_fails_the_copies_within_2_s)
{
	struct dpu d = dpu_start();
	struct doca_mmap *remote;
	struct env e;
	unsigned submitted = 0;
	double t_kill = 0;

	remote = host_open(&e, &d);
	results.free_bufs = true;
	/* 4 in flight from the DPU's memory, round after round, until a task fails after the kill */
	for (;;) {
		while (submitted - results.done < 4) {
			struct doca_buf *s, *t;
			struct doca_dma_task_memcpy *task;
			union doca_data ud = {.u64 = 2000};
			size_t off = (size_t)(submitted % NCHUNK) * CHUNK;

			ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, d.addr + off, CHUNK, &s));
			ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, e.mmap, e.mem + off, CHUNK, &t));
			ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, s, t, ud, &task));
			ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
			submitted++;
		}
		progress_until(e.pe, &results.done, results.done + 1);
		if (submitted >= 40 && t_kill == 0) {
			kill(d.pid, SIGKILL);
			t_kill = now_s();
		}
		if (results.err > 0)
			break;
		ASSERT(t_kill == 0 || now_s() - t_kill < 2.0);
	}
	ASSERT(t_kill > 0);
	ASSERT(now_s() - t_kill < 2.0);
	ASSERT_NE(results.last_status, DOCA_SUCCESS);
	progress_until(e.pe, &results.done, submitted); /* the rest complete too, nothing hangs */
	ASSERT_EQ(sd_test_wait_exit(d.pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	ASSERT_OK(doca_mmap_destroy(remote));
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
