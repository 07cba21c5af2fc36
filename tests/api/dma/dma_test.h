/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the DMA API tests: a topology with small, known DMA caps, a device,
 * PE, DMA context, one mmap with guard bytes around every buffer, and progress
 * loops with a deadline.  Public API only.
 */
#ifndef DMA_TEST_H_
#define DMA_TEST_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sd_test.h"

/*
 * Caps of the test topology: 64 KiB per buffer, 4 segments per task, 64 tasks.
 * Function b1:00.1 has no DMA engine.
 */
#define T_MAX_BUF_SIZE 65536u
#define T_MAX_LIST_LEN 4u
#define T_MAX_TASKS 64u
#define T_HOST_PCI "0000:b1:00.0"
#define T_DPU_PCI "0000:03:00.0"
#define T_NODMA_PCI "0000:b1:00.1"
#define GUARD_BYTE 0xEE

static const char dma_test_topology[] =
	"{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"netdev\": \"lo\",\n"
	" \"caps\": {\"dma_max_buf_size\": 65536, \"dma_max_buf_list_len\": 4, \"dma_max_num_tasks\": 64},\n"
	" \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\"},\n"
	"  {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.0\", \"ibdev\": \"mlx5_1\", \"iface\": \"p0\"},\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.1\", \"ibdev\": \"mlx5_2\", \"iface\": \"ens1f1np1\",\n"
	"   \"caps\": {\"dma_memcpy\": false}}]}]}\n";

/* Use the small-caps topology (call first in a case: the topology loads once per process). */
static inline void
use_dma_test_topology(void)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/topology.json", sd_test_tmpdir());
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	ASSERT(fputs(dma_test_topology, f) >= 0);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", path, 1), 0);
}

static inline struct doca_devinfo *
find_devinfo(struct doca_devinfo **list, uint32_t n, const char *pci)
{
	for (uint32_t i = 0; i < n; i++) {
		char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];

		if (doca_devinfo_get_pci_addr_str(list[i], addr) == DOCA_SUCCESS && strcmp(addr, pci) == 0)
			return list[i];
	}
	sd_test_fail(__FILE__, __LINE__, "no device %s in the topology", pci);
}

static inline struct doca_dev *
open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_OK(doca_dev_open(find_devinfo(list, n, pci), &dev));
	ASSERT_OK(doca_devinfo_destroy_list(list));
	return dev;
}

/* Completion bookkeeping shared by the callbacks below. */
struct results {
	unsigned ok;
	unsigned err;
	doca_error_t last_status;
	doca_error_t statuses[1024]; /* by task user data u64 when < 1024 */
	int order[1024];	     /* user data in completion order */
	unsigned n;
	unsigned done; /* every completion (n stops at 1024) */
	bool free_tasks;
	bool free_bufs; /* release the task's source and destination too */
};

static struct results results;

static inline void
record(struct doca_dma_task_memcpy *task, union doca_data ud, bool ok)
{
	doca_error_t st = doca_task_get_status(doca_dma_task_memcpy_as_task(task));

	if (ok) {
		ASSERT_ERR(st, DOCA_SUCCESS);
		results.ok++;
	} else {
		ASSERT_NE(st, DOCA_SUCCESS);
		results.err++;
	}
	results.last_status = st;
	if (ud.u64 < 1024)
		results.statuses[ud.u64] = st;
	if (results.n < 1024)
		results.order[results.n++] = (int)ud.u64;
	results.done++;
	if (results.free_bufs) {
		ASSERT_OK(doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(task), NULL));
		ASSERT_OK(doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(task), NULL));
	}
	if (results.free_tasks)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static inline void
ok_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ctx_ud;
	record(task, ud, true);
}

static inline void
err_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ctx_ud;
	record(task, ud, false);
}

/* One context on one device with one local mmap over mem_len bytes. */
struct env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	uint8_t *mem;
	size_t mem_len;
};

static inline void
env_open(struct env *e, const char *pci, size_t mem_len, uint32_t perms, uint32_t num_tasks)
{
	memset(e, 0, sizeof(*e));
	memset(&results, 0, sizeof(results));
	results.free_tasks = true;
	e->dev = open_dev(pci);
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_dma_create(e->dev, &e->dma));
	e->ctx = doca_dma_as_ctx(e->dma);
	ASSERT_NOT_NULL(e->ctx);
	ASSERT_OK(doca_dma_task_memcpy_set_conf(e->dma, ok_cb, err_cb, num_tasks));
	ASSERT_OK(doca_pe_connect_ctx(e->pe, e->ctx));

	e->mem_len = mem_len;
	e->mem = aligned_alloc(64, mem_len);
	ASSERT_NOT_NULL(e->mem);
	memset(e->mem, GUARD_BYTE, mem_len);
	ASSERT_OK(doca_mmap_create(&e->mmap));
	ASSERT_OK(doca_mmap_set_memrange(e->mmap, e->mem, mem_len));
	ASSERT_OK(doca_mmap_set_permissions(e->mmap, perms));
	ASSERT_OK(doca_mmap_add_dev(e->mmap, e->dev));
	ASSERT_OK(doca_mmap_start(e->mmap));
	ASSERT_OK(doca_buf_inventory_create(1024, &e->inv));
	ASSERT_OK(doca_buf_inventory_start(e->inv));
}

static inline void
env_start(struct env *e)
{
	enum doca_ctx_states st;

	ASSERT_OK(doca_ctx_start(e->ctx));
	ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_RUNNING);
}

/* A source buffer with len bytes of data at off, filled with pattern seed. */
static inline struct doca_buf *
src_buf(struct env *e, size_t off, size_t len, unsigned seed)
{
	struct doca_buf *b = NULL;

	ASSERT(off + len <= e->mem_len);
	for (size_t i = 0; i < len; i++)
		e->mem[off + i] = (uint8_t)(seed * 13 + i * 7 + (i >> 9));
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, e->mmap, e->mem + off, len, &b));
	return b;
}

/* An empty destination buffer over [off, off + len). */
static inline struct doca_buf *
dst_buf(struct env *e, size_t off, size_t len)
{
	struct doca_buf *b = NULL;

	ASSERT(off + len <= e->mem_len);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, e->mem + off, len, &b));
	return b;
}

static inline bool
all_guard(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != GUARD_BYTE)
			return false;
	return true;
}

static inline double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Progress until *done_count reaches want (10 s deadline). */
static inline void
progress_until(struct doca_pe *pe, const unsigned *done_count, unsigned want)
{
	double end = now_s() + 10;

	while (*(const volatile unsigned *)done_count < want) {
		if (doca_pe_progress(pe) == 0)
			usleep(10);
		if (now_s() > end)
			sd_test_fail(__FILE__, __LINE__, "only %u of %u completions after 10 s", *done_count, want);
	}
}

/* Progress until the ctx is IDLE (10 s deadline). */
static inline void
progress_until_idle(struct doca_pe *pe, struct doca_ctx *ctx)
{
	double end = now_s() + 10;
	enum doca_ctx_states st;

	for (;;) {
		ASSERT_OK(doca_ctx_get_state(ctx, &st));
		if (st == DOCA_CTX_STATE_IDLE)
			return;
		if (doca_pe_progress(pe) == 0)
			usleep(10);
		if (now_s() > end)
			sd_test_fail(__FILE__, __LINE__, "ctx not IDLE after 10 s (state %d)", (int)st);
	}
}

static inline void
env_close(struct env *e)
{
	doca_error_t err = doca_ctx_stop(e->ctx);

	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	progress_until_idle(e->pe, e->ctx);
	ASSERT_OK(doca_dma_destroy(e->dma));
	ASSERT_OK(doca_pe_destroy(e->pe));
}

#endif /* DMA_TEST_H_ */
