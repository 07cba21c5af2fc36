/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One misuse per strict-mode rule (docs/diagnostics.md "Strict mode"), run by
 * test_strict.py with and without SOFTDOCA_STRICT=1: `strict_rules <scenario>`.
 * Each scenario checks the default behaviour (the bytes, the return codes) and
 * exits 0; the driver checks the log lines.  Built with -rdynamic so that the
 * strict lines name the scenario functions (dladdr).
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
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define MEM_LEN 4096

#define CHECK(cond)                                                                                                    \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "strict_rules: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
			exit(1);                                                                                       \
		}                                                                                                      \
	} while (0)
#define CHECK_OK(expr) CHECK((expr) == DOCA_SUCCESS)

struct env {
	struct doca_dev *dev[2]; /* two DMA functions of the host side */
	struct doca_pe *pe;
	struct doca_dma *dma; /* on dev[0] */
	struct doca_ctx *ctx;
	struct doca_mmap *mmap[2]; /* mmap[0]: both devices; mmap[1]: dev[1] only */
	struct doca_buf_inventory *inv;
	uint8_t *mem[2];
	unsigned done;
	bool release_bufs; /* the completion callback releases the task's bufs */
	bool progress_in_cb;
	bool hold;	       /* the first callback waits for the other thread's submit */
	pthread_mutex_t *lock; /* the concurrent-use scenarios */
	pthread_cond_t *cond;
	int stage;
};

static struct env e;

static struct doca_dev *
open_pci(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	CHECK_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];

		if (doca_devinfo_get_pci_addr_str(list[i], addr) == DOCA_SUCCESS && strcmp(addr, pci) == 0)
			CHECK_OK(doca_dev_open(list[i], &dev));
	}
	CHECK_OK(doca_devinfo_destroy_list(list));
	CHECK(dev != NULL);
	return dev;
}

/* Exported (the strict lines name them): one per rule, plus the legal two-thread use. */
void scenario_task_freed_in_flight(void);
void scenario_buf_released_in_flight(void);
void scenario_inventory_destroyed_under_task(void);
void scenario_mmap_destroyed_under_bufs(void);
void scenario_buf_cross_device(void);
void scenario_copy_overlap(void);
void scenario_progress_reentry(void);
void scenario_progress_reentry_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data cud);
void scenario_pe_concurrent_use(void);
void *scenario_pe_concurrent_use_thread(void *arg);
void scenario_pe_serialised_use(void);

static void hold_in_cb(void);

static void
done_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data cud)
{
	e.done++;
	if (e.hold && e.done == 1)
		hold_in_cb();
	if (e.progress_in_cb)
		scenario_progress_reentry_cb(task, ud, cud);
	if (e.release_bufs) {
		CHECK_OK(doca_buf_dec_refcount((struct doca_buf *)doca_dma_task_memcpy_get_src(task), NULL));
		CHECK_OK(doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(task), NULL));
	}
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static struct doca_mmap *
mmap_over(uint8_t *mem, int ndevs, struct doca_dev **devs)
{
	struct doca_mmap *m;

	CHECK_OK(doca_mmap_create(&m));
	CHECK_OK(doca_mmap_set_memrange(m, mem, MEM_LEN));
	for (int i = 0; i < ndevs; i++)
		CHECK_OK(doca_mmap_add_dev(m, devs[i]));
	CHECK_OK(doca_mmap_start(m));
	return m;
}

static void
env_open(void)
{
	e.dev[0] = open_pci("0000:b1:00.0");
	e.dev[1] = open_pci("0000:b1:00.1");
	for (int i = 0; i < 2; i++) {
		e.mem[i] = calloc(1, MEM_LEN);
		CHECK(e.mem[i] != NULL);
	}
	e.mmap[0] = mmap_over(e.mem[0], 2, e.dev);
	e.mmap[1] = mmap_over(e.mem[1], 1, &e.dev[1]);
	CHECK_OK(doca_buf_inventory_create(16, &e.inv));
	CHECK_OK(doca_buf_inventory_start(e.inv));
	CHECK_OK(doca_pe_create(&e.pe));
	CHECK_OK(doca_dma_create(e.dev[0], &e.dma));
	e.ctx = doca_dma_as_ctx(e.dma);
	CHECK_OK(doca_dma_task_memcpy_set_conf(e.dma, done_cb, done_cb, 8));
	CHECK_OK(doca_pe_connect_ctx(e.pe, e.ctx));
	CHECK_OK(doca_ctx_start(e.ctx));
}

static void
env_close(void)
{
	CHECK_OK(doca_ctx_stop(e.ctx));
	CHECK_OK(doca_dma_destroy(e.dma));
	CHECK_OK(doca_pe_destroy(e.pe));
	CHECK_OK(doca_buf_inventory_destroy(e.inv));
	for (int i = 0; i < 2; i++) {
		CHECK_OK(doca_mmap_destroy(e.mmap[i]));
		free(e.mem[i]);
	}
	CHECK_OK(doca_dev_close(e.dev[0]));
	CHECK_OK(doca_dev_close(e.dev[1]));
}

static struct doca_buf *
buf_at(int m, size_t off, size_t len, size_t data_len)
{
	struct doca_buf *b;

	CHECK_OK(doca_buf_inventory_buf_get_by_args(e.inv, e.mmap[m], e.mem[m] + off, len, e.mem[m] + off, data_len,
						    &b));
	return b;
}

static struct doca_task *
memcpy_task(struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {.u64 = 0};

	CHECK_OK(doca_dma_task_memcpy_alloc_init(e.dma, src, dst, ud, &t));
	return doca_dma_task_memcpy_as_task(t);
}

static void
progress_until(unsigned done)
{
	for (long i = 0; e.done < done; i++) {
		CHECK(i < 10000000);
		(void)doca_pe_progress(e.pe);
	}
}

/* A simple copy of 64 bytes from mem[0] to mem[0] + 2048; submitted by the caller. */
static struct doca_task *
plain_copy(struct doca_buf **src, struct doca_buf **dst)
{
	memset(e.mem[0], 0x5a, 64);
	*src = buf_at(0, 0, 64, 64);
	*dst = buf_at(0, 2048, 64, 0);
	return memcpy_task(*src, *dst);
}

/* Rule 1: refused by default (the refusal line); the task completes and its callback frees it. */
__attribute__((noinline)) void
scenario_task_freed_in_flight(void)
{
	struct doca_buf *src, *dst;
	struct doca_task *t = plain_copy(&src, &dst);

	e.release_bufs = true;
	CHECK_OK(doca_task_submit(t));
	doca_task_free(t);
	progress_until(1);
	CHECK(memcmp(e.mem[0] + 2048, e.mem[0], 64) == 0);
}

/*
 * Rule 2: released before the copy ran, the bufs are back in their inventory and the bytes land all
 * the same.  With destroy, strict mode only (the default would free the bufs under the task): both
 * released, then their inventory destroyed - refused (IN_USE) in strict mode.  Inlined: the call
 * sites are the scenarios'.
 */
static inline __attribute__((always_inline)) void
release_under_task(bool destroy)
{
	struct doca_buf *src, *dst;

	CHECK_OK(doca_task_submit(plain_copy(&src, &dst)));
	CHECK_OK(doca_buf_dec_refcount(dst, NULL));
	if (destroy) {
		CHECK_OK(doca_buf_dec_refcount(src, NULL));
		CHECK(doca_buf_inventory_destroy(e.inv) == DOCA_ERROR_IN_USE);
	}
	progress_until(1);
	CHECK(memcmp(e.mem[0] + 2048, e.mem[0], 64) == 0);
	if (!destroy)
		CHECK_OK(doca_buf_dec_refcount(src, NULL));
}

__attribute__((noinline)) void
scenario_buf_released_in_flight(void)
{
	release_under_task(false);
}

__attribute__((noinline)) void
scenario_inventory_destroyed_under_task(void)
{
	release_under_task(true);
}

/* Rule 3: stop and destroy refused (NOT_PERMITTED, as by default) while a buf is alive. */
__attribute__((noinline)) void
scenario_mmap_destroyed_under_bufs(void)
{
	struct doca_buf *b = buf_at(1, 0, 64, 0);

	CHECK(doca_mmap_stop(e.mmap[1]) == DOCA_ERROR_NOT_PERMITTED);
	CHECK(doca_mmap_destroy(e.mmap[1]) == DOCA_ERROR_NOT_PERMITTED);
	CHECK_OK(doca_buf_dec_refcount(b, NULL));
}

/* Rule 4: the destination's mmap has only dev[1], the DMA context is on dev[0]: copied anyway. */
__attribute__((noinline)) void
scenario_buf_cross_device(void)
{
	struct doca_buf *src, *dst;

	memset(e.mem[0], 0x33, 64);
	src = buf_at(0, 0, 64, 64);
	dst = buf_at(1, 0, 64, 0);
	e.release_bufs = true;
	CHECK_OK(doca_task_submit(memcpy_task(src, dst)));
	progress_until(1);
	CHECK(memcmp(e.mem[1], e.mem[0], 64) == 0);
}

/* Rule 5: [32, 96) written from [0, 64): by default as if through a temporary copy (memmove). */
__attribute__((noinline)) void
scenario_copy_overlap(void)
{
	struct doca_buf *src, *dst;
	uint8_t want[64];

	for (int i = 0; i < 64; i++)
		e.mem[0][i] = want[i] = (uint8_t)i;
	src = buf_at(0, 0, 64, 64);
	dst = buf_at(0, 32, 64, 0);
	e.release_bufs = true;
	CHECK_OK(doca_task_submit(memcpy_task(src, dst)));
	progress_until(1);
	CHECK(memcmp(e.mem[0] + 32, want, 64) == 0);
}

/* Rule 6: progress from a completion callback is ignored (returns 0, the refusal line). */
__attribute__((noinline)) void
scenario_progress_reentry_cb(struct doca_dma_task_memcpy *task, union doca_data ud, union doca_data cud)
{
	CHECK(doca_pe_progress(e.pe) == 0);
}

__attribute__((noinline)) void
scenario_progress_reentry(void)
{
	struct doca_buf *src, *dst;

	e.progress_in_cb = true;
	e.release_bufs = true;
	CHECK_OK(doca_task_submit(plain_copy(&src, &dst)));
	progress_until(1);
}

/* Rule 7: a second thread submits while the first is inside the PE's progress (held in a callback). */
static void
wait_stage(int stage)
{
	pthread_mutex_lock(e.lock);
	while (e.stage < stage)
		pthread_cond_wait(e.cond, e.lock);
	pthread_mutex_unlock(e.lock);
}

static void
set_stage(int stage)
{
	pthread_mutex_lock(e.lock);
	e.stage = stage;
	pthread_cond_broadcast(e.cond);
	pthread_mutex_unlock(e.lock);
}

static void
hold_in_cb(void)
{
	set_stage(1);
	wait_stage(2); /* the other thread has submitted */
}

__attribute__((noinline)) void *
scenario_pe_concurrent_use_thread(void *arg)
{
	struct doca_buf *src = buf_at(0, 512, 64, 64), *dst = buf_at(0, 1024, 64, 0);

	wait_stage(1); /* the main thread is inside doca_pe_progress() */
	CHECK_OK(doca_task_submit(memcpy_task(src, dst)));
	set_stage(2);
	return arg;
}

/* serialised: the application's own lock orders every call on the PE: legal, and quiet. */
static void
run_two_threads(bool serialised)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct doca_buf *src, *dst;
	pthread_t th;

	e.lock = &lock;
	e.cond = &cond;
	e.release_bufs = true;
	e.hold = !serialised;
	CHECK_OK(doca_task_submit(plain_copy(&src, &dst)));
	if (serialised) {
		/* The other thread submits between two progress calls (the join orders it before the next). */
		progress_until(1);
		set_stage(1);
	}
	CHECK(pthread_create(&th, NULL, scenario_pe_concurrent_use_thread, NULL) == 0);
	if (!serialised)
		progress_until(1); /* its callback holds the PE until the thread submitted */
	CHECK(pthread_join(th, NULL) == 0);
	progress_until(2);
	CHECK(memcmp(e.mem[0] + 1024, e.mem[0] + 512, 64) == 0);
}

__attribute__((noinline)) void
scenario_pe_concurrent_use(void)
{
	run_two_threads(false);
}

__attribute__((noinline)) void
scenario_pe_serialised_use(void)
{
	run_two_threads(true);
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} scenarios[] = {
		{"task-freed-in-flight", scenario_task_freed_in_flight},
		{"buf-released-in-flight", scenario_buf_released_in_flight},
		{"inventory-destroyed-under-task", scenario_inventory_destroyed_under_task},
		{"mmap-destroyed-under-bufs", scenario_mmap_destroyed_under_bufs},
		{"buf-cross-device", scenario_buf_cross_device},
		{"copy-overlap", scenario_copy_overlap},
		{"progress-reentry", scenario_progress_reentry},
		{"pe-concurrent-use", scenario_pe_concurrent_use},
		{"pe-serialised-use", scenario_pe_serialised_use},
	};
	struct doca_log_backend *sdk_log;

	CHECK(argc == 2);
	CHECK_OK(doca_log_backend_create_standard());
	CHECK_OK(doca_log_backend_create_with_file_sdk(stderr, &sdk_log));
	CHECK_OK(doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_INFO));
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(argv[1], scenarios[i].name) != 0)
			continue;
		env_open();
		scenarios[i].fn();
		env_close();
		printf("%s: done\n", argv[1]);
		return 0;
	}
	fprintf(stderr, "strict_rules: unknown scenario %s\n", argv[1]);
	return 2;
}
