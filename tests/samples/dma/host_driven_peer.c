/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA guide's third picture as two programs a person starts, public API
 * only; one source built twice (tests/samples/dma/meson.build):
 *
 *   DPU build:  host_driven_dpu DESC_FILE
 *     exports 256 MiB (PCI_READ_WRITE) on 03:00.0, writes the descriptor to
 *     DESC_FILE, then answers "check R" on stdin with "ok" or "bad" (is the
 *     region round R's pattern?) until end of input.
 *   host build: host_driven_host DESC_FILE copy|loop
 *     imports the descriptor on b1:00.0; copy: for 1 then 4 tasks in flight,
 *     copies the region DPU -> host in 1 MiB tasks and checks it, writes the
 *     next round host -> DPU and reads it back; loop: copies DPU -> host
 *     until a task fails and prints how long after the last success.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define REGION (256u << 20)
#define CHUNK (1u << 20)
#define NCHUNK (REGION / CHUNK)

#define TRY(expr)                                                                                                      \
	do {                                                                                                           \
		doca_error_t e_ = (expr);                                                                              \
		if (e_ != DOCA_SUCCESS) {                                                                              \
			fprintf(stderr, "%s: %s\n", #expr, doca_error_get_name(e_));                                   \
			exit(1);                                                                                       \
		}                                                                                                      \
	} while (0)

static uint8_t
pattern(size_t i, unsigned round)
{
	return (uint8_t)(i * 13 + (i >> 12) + round * 29 + 1);
}

static struct doca_dev *
open_pci(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	TRY(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t is = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			TRY(doca_dev_open(list[i], &dev));
	}
	TRY(doca_devinfo_destroy_list(list));
	if (dev == NULL) {
		fprintf(stderr, "no device %s\n", pci);
		exit(1);
	}
	return dev;
}

static struct doca_mmap *
local_mmap(struct doca_dev *dev, uint8_t *mem, uint32_t perms)
{
	struct doca_mmap *m;

	TRY(doca_mmap_create(&m));
	TRY(doca_mmap_set_memrange(m, mem, REGION));
	TRY(doca_mmap_set_permissions(m, perms));
	TRY(doca_mmap_add_dev(m, dev));
	TRY(doca_mmap_start(m));
	return m;
}

#ifdef DOCA_ARCH_DPU

int
main(int argc, char **argv)
{
	uint8_t *mem = malloc(REGION);
	struct doca_dev *dev;
	const void *desc;
	char line[64];
	size_t len;
	FILE *f;

	if (argc != 2 || mem == NULL)
		return 2;
	for (size_t i = 0; i < REGION; i++)
		mem[i] = pattern(i, 0);
	dev = open_pci("03:00.0");
	TRY(doca_mmap_export_pci(local_mmap(dev, mem, DOCA_ACCESS_FLAG_PCI_READ_WRITE), dev, &desc, &len));
	f = fopen(argv[1], "wb");
	if (f == NULL || fwrite(desc, 1, len, f) != len || fclose(f) != 0)
		return 1;
	printf("exported\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		unsigned round;
		bool ok = true;

		if (sscanf(line, "check %u", &round) != 1)
			continue;
		for (size_t i = 0; i < REGION && ok; i++)
			ok = mem[i] == pattern(i, round);
		printf("%s\n", ok ? "ok" : "bad");
		fflush(stdout);
	}
	return 0;
}

#else

static unsigned done, failed;
static doca_error_t last_err;

static void
task_cb(struct doca_dma_task_memcpy *t, union doca_data ud, union doca_data cud)
{
	(void)ud;
	(void)cud;
	last_err = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	failed += last_err != DOCA_SUCCESS;
	done++;
	doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(t), NULL);
	doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(t), NULL);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

struct host {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
};

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Submit chunk c from -> to (addresses in each mmap's own range). */
static void
submit(struct host *h, struct doca_mmap *from, uint8_t *fbase, struct doca_mmap *to, uint8_t *tbase, unsigned c)
{
	struct doca_dma_task_memcpy *t;
	struct doca_buf *s, *d;
	union doca_data ud = {.u64 = c};

	TRY(doca_buf_inventory_buf_get_by_data(h->inv, from, fbase + (size_t)c * CHUNK, CHUNK, &s));
	TRY(doca_buf_inventory_buf_get_by_addr(h->inv, to, tbase + (size_t)c * CHUNK, CHUNK, &d));
	TRY(doca_dma_task_memcpy_alloc_init(h->dma, s, d, ud, &t));
	TRY(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
}

static void
copy(struct host *h, struct doca_mmap *from, uint8_t *fbase, struct doca_mmap *to, uint8_t *tbase, unsigned depth)
{
	unsigned next = 0, base = done;

	while (done - base < NCHUNK) {
		while (next < NCHUNK && next - (done - base) < depth)
			submit(h, from, fbase, to, tbase, next++);
		(void)doca_pe_progress(h->pe);
	}
	if (failed != 0) {
		fprintf(stderr, "a copy failed: %s\n", doca_error_get_name(last_err));
		exit(1);
	}
}

static int
check(const uint8_t *mem, unsigned round)
{
	for (size_t i = 0; i < REGION; i++)
		if (mem[i] != pattern(i, round))
			return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	uint8_t desc[512], *mem = malloc(REGION), *back = malloc(REGION), *raddr;
	struct doca_mmap *remote, *lmem, *lback;
	struct host h;
	struct doca_dev *dev;
	size_t len, rlen;
	FILE *f;

	if (argc != 3 || mem == NULL || back == NULL)
		return 2;
	f = fopen(argv[1], "rb");
	if (f == NULL)
		return 1;
	len = fread(desc, 1, sizeof(desc), f);
	fclose(f);
	dev = open_pci("b1:00.0");
	TRY(doca_mmap_create_from_export(NULL, desc, len, dev, &remote));
	TRY(doca_mmap_get_memrange(remote, (void **)&raddr, &rlen));
	/* local destinations registered with PCI_READ_WRITE alone, as programs measured on BlueField-2 do */
	lmem = local_mmap(dev, mem, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	lback = local_mmap(dev, back, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	TRY(doca_pe_create(&h.pe));
	TRY(doca_dma_create(dev, &h.dma));
	TRY(doca_dma_task_memcpy_set_conf(h.dma, task_cb, task_cb, 8));
	TRY(doca_pe_connect_ctx(h.pe, doca_dma_as_ctx(h.dma)));
	TRY(doca_ctx_start(doca_dma_as_ctx(h.dma)));
	TRY(doca_buf_inventory_create(64, &h.inv));
	TRY(doca_buf_inventory_start(h.inv));
	if (strcmp(argv[2], "loop") == 0) {
		double last_ok = now_s();

		printf("looping\n");
		fflush(stdout);
		for (unsigned c = 0; failed == 0; c++) {
			while (c - done >= 4 && failed == 0) {
				unsigned before = done;

				(void)doca_pe_progress(h.pe);
				if (done != before && failed == 0)
					last_ok = now_s();
			}
			if (failed == 0)
				submit(&h, remote, raddr, lmem, mem, c % NCHUNK);
		}
		printf("failed %.3f s after the last success: %s\n", now_s() - last_ok, doca_error_get_name(last_err));
		return 1;
	}
	for (unsigned depth = 1, round = 1; depth <= 4; depth *= 4, round++) {
		copy(&h, remote, raddr, lmem, mem, depth);
		printf("depth %u: DPU -> host %s\n", depth, check(mem, round - 1) ? "ok" : "bad");
		for (size_t i = 0; i < REGION; i++)
			mem[i] = pattern(i, round);
		copy(&h, lmem, mem, remote, raddr, depth);
		copy(&h, remote, raddr, lback, back, depth);
		printf("depth %u: host -> DPU %s\n", depth, check(back, round) ? "ok" : "bad");
	}
	TRY(doca_mmap_destroy(remote));
	TRY(doca_ctx_stop(doca_dma_as_ctx(h.dma)));
	TRY(doca_dma_destroy(h.dma));
	TRY(doca_buf_inventory_destroy(h.inv));
	TRY(doca_pe_destroy(h.pe));
	TRY(doca_mmap_destroy(lmem));
	TRY(doca_mmap_destroy(lback));
	TRY(doca_dev_close(dev));
	printf("done\n");
	return 0;
}

#endif
