/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data integrity under load, on every engine (SOFTDOCA_DMA_ENGINE): 32 tasks stay in
 * flight, each completion checks its copy (checksum of the source windows against
 * the destination windows, untouched tail rooms) and resubmits the task with a new
 * random size and random source/destination segmentation (seeded, reproducible).
 */
#include <sched.h>

#include "dma_test.h"

#define SLOTS 32
#define AREA (1u << 20) /* per slot: 1 MiB of source, 1 MiB of destination */
#define MAX_SEGS 8

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t
fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001B3ull;
	return h;
}

static struct {
	struct env *e;
	unsigned done, target, submitted, failures;
	size_t max_len;
	struct doca_dma_task_memcpy *tasks[SLOTS];
} L;

/* Split len into n positive parts. */
static void
split(size_t len, unsigned n, size_t *parts)
{
	size_t left = len;

	for (unsigned i = 0; i < n; i++) {
		size_t remaining = n - i - 1;
		size_t max = left - remaining;

		parts[i] = i + 1 == n ? left : 1 + (size_t)(rnd() % max);
		left -= parts[i];
	}
}

/* Give slot k's task a new random copy. */
static void
arm_slot(unsigned k)
{
	struct env *e = L.e;
	uint8_t *sarea = e->mem + (size_t)k * 2 * AREA, *darea = sarea + AREA;
	size_t len = 1 + (size_t)(rnd() % L.max_len), sp[MAX_SEGS], dp[MAX_SEGS];
	unsigned ns = 1 + (unsigned)(rnd() % MAX_SEGS), nd = 1 + (unsigned)(rnd() % MAX_SEGS);
	struct doca_buf *src = NULL, *dst = NULL, *b;
	size_t off = 0;

	if (ns > len)
		ns = (unsigned)len;
	if (nd > len)
		nd = (unsigned)len;
	split(len, ns, sp);
	split(len, nd, dp);
	/* Segments spread with random gaps; each region has room for len plus gaps. */
	for (unsigned i = 0; i < ns; i++) {
		size_t gap = (size_t)(rnd() % ((AREA - len) / MAX_SEGS + 1));

		off += gap;
		for (size_t j = 0; j < sp[i]; j++)
			sarea[off + j] = (uint8_t)rnd();
		ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, e->mmap, sarea + off, sp[i], &b));
		if (src == NULL)
			src = b;
		else
			ASSERT_OK(doca_buf_chain_list(src, b));
		off += sp[i];
	}
	memset(darea, GUARD_BYTE, AREA);
	off = 0;
	for (unsigned i = 0; i < nd; i++) {
		size_t gap = (size_t)(rnd() % ((AREA - len) / (2 * MAX_SEGS) + 1));
		size_t extra = i + 1 == nd ? (size_t)(rnd() % ((AREA - len) / (2 * MAX_SEGS) + 1)) : 0;

		off += gap;
		ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, darea + off, dp[i] + extra, &b));
		if (dst == NULL)
			dst = b;
		else
			ASSERT_OK(doca_buf_chain_list(dst, b));
		off += dp[i] + extra;
	}
	ASSERT(off <= AREA);
	doca_dma_task_memcpy_set_src(L.tasks[k], src);
	doca_dma_task_memcpy_set_dst(L.tasks[k], dst);
	L.submitted++;
}

static void
check_copy(struct doca_dma_task_memcpy *task)
{
	const struct doca_buf *s = doca_dma_task_memcpy_get_src(task);
	struct doca_buf *d = doca_dma_task_memcpy_get_dst(task), *next;
	uint64_t hs = 0xCBF29CE484222325ull, hd = hs;
	size_t ls = 0, ld = 0;

	for (struct doca_buf *b = (struct doca_buf *)s; b != NULL; b = next) {
		void *data;
		size_t n;

		ASSERT_OK(doca_buf_get_data(b, &data));
		ASSERT_OK(doca_buf_get_data_len(b, &n));
		hs = fnv(hs, data, n);
		ls += n;
		next = NULL;
		ASSERT_OK(doca_buf_get_next_in_list(b, &next));
	}
	for (struct doca_buf *b = d; b != NULL; b = next) {
		void *data, *head;
		size_t n, len;

		ASSERT_OK(doca_buf_get_data(b, &data));
		ASSERT_OK(doca_buf_get_data_len(b, &n));
		ASSERT_OK(doca_buf_get_head(b, &head));
		ASSERT_OK(doca_buf_get_len(b, &len));
		hd = fnv(hd, data, n);
		ld += n;
		/* nothing written past the data window */
		ASSERT(all_guard((uint8_t *)data + n, (size_t)((uint8_t *)head + len - ((uint8_t *)data + n))));
		next = NULL;
		ASSERT_OK(doca_buf_get_next_in_list(b, &next));
	}
	ASSERT_EQ(ls, ld);
	if (hs != hd)
		L.failures++;
}

static void
load_ok_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ctx_ud;
	check_copy(task);
	L.done++;
	ASSERT_OK(doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(task), NULL));
	ASSERT_OK(doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(task), NULL));
	if (L.submitted < L.target) {
		arm_slot((unsigned)ud.u64);
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
	}
}

static void
load_err_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	(void)ud;
	(void)ctx_ud;
	sd_test_fail(__FILE__, __LINE__, "task failed: %s",
		     doca_error_get_name(doca_task_get_status(doca_dma_task_memcpy_as_task(task))));
}

static void
load(const char *engine, unsigned target, size_t max_len)
{
	struct env e;

	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	ASSERT_EQ(setenv("SOFTDOCA_DMA_ENGINE", engine, 1), 0);
	memset(&L, 0, sizeof(L));
	L.e = &e;
	L.target = target;
	L.max_len = max_len;
	env_open(&e, T_HOST_PCI, (size_t)SLOTS * 2 * AREA, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, SLOTS);
	ASSERT_OK(doca_dma_task_memcpy_set_conf(e.dma, load_ok_cb, load_err_cb, SLOTS));
	env_start(&e);
	for (unsigned k = 0; k < SLOTS; k++) {
		union doca_data ud = {.u64 = k};

		ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, NULL, NULL, ud, &L.tasks[k]));
		arm_slot(k);
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(L.tasks[k])));
	}
	for (double end = now_s() + 60; L.done < target;) {
		if (doca_pe_progress(e.pe) == 0)
			sched_yield();
		if (now_s() > end)
			sd_test_fail(__FILE__, __LINE__, "%u of %u done after 60 s", L.done, target);
	}
	ASSERT_EQ(L.failures, 0);
	ASSERT_EQ(L.done, target);
	for (unsigned k = 0; k < SLOTS; k++)
		doca_task_free(doca_dma_task_memcpy_as_task(L.tasks[k]));
	env_close(&e);
}

TEST(integrity_inline)
{
	load("inline", 4000, 16384);
}

TEST(integrity_worker)
{
	load("worker", 2000, 65536);
}

TEST(integrity_xproc)
{
	load("xproc", 2000, 65536);
}

/*
 * auto where the worker pays (SOFTDOCA_DMA_WORKER_MIN_CPUS=1, whatever this machine
 * has): small tasks inline, tasks of 256 KiB and more on the worker, completing out
 * of order.
 */
TEST(integrity_auto_mixed_sizes)
{
	ASSERT_EQ(setenv("SOFTDOCA_DMA_WORKER_MIN_CPUS", "1", 1), 0);
	load("auto", 600, 700 * 1024);
}

/* auto where the worker does not pay: every size inline, a bounded amount per progress. */
TEST(integrity_auto_inline_only)
{
	ASSERT_EQ(setenv("SOFTDOCA_DMA_WORKER_MIN_CPUS", "1024", 1), 0);
	load("auto", 600, 700 * 1024);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
