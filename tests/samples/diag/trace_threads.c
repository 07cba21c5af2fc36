/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several PEs on several threads at once, for SOFTDOCA_TRACE (test_trace.py,
 * and under ThreadSanitizer): each thread opens the first DMA device, makes
 * its own PE, DMA context, mmap and inventory, copies TASKS buffers of 4 KiB
 * with 8 in flight (resubmitting from the callback) and checks every byte,
 * then stops and destroys everything.
 *
 * Usage: trace_threads THREADS TASKS   (prints "ok <threads> x <tasks>", exit 0)
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define LEN 4096u
#define DEPTH 8u

#define CHECK(call)                                                                                                    \
	do {                                                                                                           \
		doca_error_t err_ = (call);                                                                            \
		if (err_ != DOCA_SUCCESS) {                                                                            \
			fprintf(stderr, "trace_threads: %s: %s\n", #call, doca_error_get_name(err_));                  \
			exit(1);                                                                                       \
		}                                                                                                      \
	} while (0)

struct worker {
	pthread_t thread;
	struct doca_dev *dev;
	uint8_t *mem; /* DEPTH sources, then DEPTH destinations */
	unsigned submitted, done, tasks;
	bool bad;
};

/* The task's buffers back to the inventory, and the task to its pool. */
static void
task_release(struct doca_dma_task_memcpy *task)
{
	CHECK(doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(task), NULL));
	CHECK(doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(task), NULL));
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void
copy_done(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	struct worker *w = ctx_ud.ptr;
	size_t slot = ud.u64;
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(task);

	w->done++;
	if (memcmp(w->mem + slot * LEN, w->mem + (DEPTH + slot) * LEN, LEN) != 0)
		w->bad = true;
	if (w->submitted == w->tasks) {
		task_release(task);
		return;
	}
	memset(w->mem + (DEPTH + slot) * LEN, 0, LEN);
	CHECK(doca_buf_reset_data_len(dst));
	w->submitted++;
	CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
}

static void
copy_failed(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data ctx_ud)
{
	struct worker *w = ctx_ud.ptr;

	(void)ud;
	w->done++;
	w->bad = true;
	task_release(task);
}

static void
run_copies(struct worker *w, struct doca_dma *dma, struct doca_pe *pe, struct doca_mmap *mmap,
	   struct doca_buf_inventory *inv)
{
	for (size_t slot = 0; slot < DEPTH && slot < w->tasks; slot++) {
		struct doca_buf *src, *dst;
		struct doca_dma_task_memcpy *task;

		for (size_t i = 0; i < LEN; i++)
			w->mem[slot * LEN + i] = (uint8_t)(slot * 31 + i);
		CHECK(doca_buf_inventory_buf_get_by_data(inv, mmap, w->mem + slot * LEN, LEN, &src));
		CHECK(doca_buf_inventory_buf_get_by_addr(inv, mmap, w->mem + (DEPTH + slot) * LEN, LEN, &dst));
		CHECK(doca_dma_task_memcpy_alloc_init(dma, src, dst, (union doca_data){.u64 = slot}, &task));
		w->submitted++;
		CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
	}
	while (w->done < w->tasks)
		(void)doca_pe_progress(pe);
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	enum doca_ctx_states st;

	w->mem = calloc(2 * DEPTH, LEN);
	if (w->mem == NULL)
		exit(1);
	CHECK(doca_pe_create(&pe));
	CHECK(doca_dma_create(w->dev, &dma));
	CHECK(doca_dma_task_memcpy_set_conf(dma, copy_done, copy_failed, DEPTH));
	CHECK(doca_ctx_set_user_data(doca_dma_as_ctx(dma), (union doca_data){.ptr = w}));
	CHECK(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	CHECK(doca_mmap_create(&mmap));
	CHECK(doca_mmap_set_memrange(mmap, w->mem, 2 * DEPTH * LEN));
	CHECK(doca_mmap_add_dev(mmap, w->dev));
	CHECK(doca_mmap_start(mmap));
	CHECK(doca_buf_inventory_create(2 * DEPTH, &inv));
	CHECK(doca_buf_inventory_start(inv));
	CHECK(doca_ctx_start(doca_dma_as_ctx(dma)));
	run_copies(w, dma, pe, mmap, inv);
	CHECK(doca_ctx_stop(doca_dma_as_ctx(dma)));
	do {
		(void)doca_pe_progress(pe);
		CHECK(doca_ctx_get_state(doca_dma_as_ctx(dma), &st));
	} while (st != DOCA_CTX_STATE_IDLE);
	CHECK(doca_dma_destroy(dma));
	CHECK(doca_pe_destroy(pe));
	CHECK(doca_buf_inventory_destroy(inv));
	CHECK(doca_mmap_destroy(mmap));
	free(w->mem);
	return NULL;
}

static struct doca_dev *
open_dma_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			CHECK(doca_dev_open(list[i], &dev));
	CHECK(doca_devinfo_destroy_list(list));
	if (dev == NULL) {
		fprintf(stderr, "trace_threads: no device with DMA memcpy\n");
		exit(1);
	}
	return dev;
}

int
main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	struct worker *w;
	struct doca_dev *dev;
	unsigned num_tasks = argc > 2 ? (unsigned)atoi(argv[2]) : 500;
	bool bad = false;

	if (threads == 0 || threads > 64 || num_tasks == 0) {
		fprintf(stderr, "usage: trace_threads THREADS(1-64) TASKS\n");
		return 2;
	}
	dev = open_dma_dev();
	w = calloc(threads, sizeof(*w));
	if (w == NULL)
		return 1;
	for (unsigned i = 0; i < threads; i++) {
		w[i].dev = dev;
		w[i].tasks = num_tasks;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0)
			return 1;
	}
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		bad |= w[i].bad || w[i].done != num_tasks;
	}
	free(w);
	CHECK(doca_dev_close(dev));
	if (bad) {
		fprintf(stderr, "trace_threads: a copy failed or differs\n");
		return 1;
	}
	printf("ok %u x %u\n", threads, num_tasks);
	return 0;
}
