/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The automatic engine choice (SOFTDOCA_DMA_ENGINE=auto, docs/dma.md): large local
 * copies go to the worker thread only when it can copy in parallel with the
 * application (enough CPUs, or the application sleeps on the notification handle);
 * otherwise they are copied inside doca_pe_progress(), a bounded amount per call.
 * Which engine ran is visible from outside: the worker writes the destination
 * without any progress call, the inline engine only inside one.
 */
#include <sched.h>

#include "dma_test.h"

#define TASK 16384u /* above the worker threshold these tests set */

static union doca_data
ud(uint64_t v)
{
	union doca_data d = {.u64 = v};

	return d;
}

/* auto mode, worker threshold 4 KiB, worker only with at least min_cpus CPUs. */
static void
auto_open(struct env *e, const char *min_cpus)
{
	use_dma_test_topology();
	ASSERT_EQ(setenv("SOFTDOCA_DMA_ENGINE", "auto", 1), 0);
	ASSERT_EQ(setenv("SOFTDOCA_DMA_WORKER_MIN_BYTES", "4096", 1), 0);
	ASSERT_EQ(setenv("SOFTDOCA_DMA_WORKER_MIN_CPUS", min_cpus, 1), 0);
	env_open(e, T_HOST_PCI, 8 * TASK, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 8);
	env_start(e);
}

/* Submit slot i's copy: source [i * TASK, +TASK) -> destination [(4 + i) * TASK, +TASK). */
static void
submit_slot(struct env *e, unsigned i)
{
	struct doca_dma_task_memcpy *t;

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, src_buf(e, (size_t)i * TASK, TASK, i),
						  dst_buf(e, (size_t)(4 + i) * TASK, TASK), ud(i), &t));
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
}

static bool
slot_copied(const struct env *e, unsigned i)
{
	static uint8_t dst[TASK];

	/* the worker writes the destination; this thread polls it without a progress call */
	sd_test_read_foreign(dst, e->mem + (size_t)(4 + i) * TASK, TASK);
	return memcmp(dst, e->mem + (size_t)i * TASK, TASK) == 0;
}

/* Without a progress call: the worker copies within 10 s (fails the test otherwise). */
static void
expect_worker_copy(struct env *e, unsigned i)
{
	for (double end = now_s() + 10; !slot_copied(e, i);) {
		if (now_s() > end)
			sd_test_fail(__FILE__, __LINE__, "slot %u not copied without progress: not the worker", i);
		usleep(100);
	}
}

/* Without a progress call nothing moves for 50 ms; the first progress copies it. */
static void
expect_inline_copy(struct env *e, unsigned i, unsigned done_before)
{
	usleep(50 * 1000);
	ASSERT(all_guard(e->mem + (size_t)(4 + i) * TASK, TASK));
	ASSERT_EQ(results.ok, done_before);
	(void)doca_pe_progress(e->pe);
	ASSERT_EQ(results.ok, done_before + 1);
	ASSERT(slot_copied(e, i));
}

static bool
have_two_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) >= 2;
}

/* A busy-polling application on fewer CPUs than the worker needs: inline copies. */
TEST(auto_few_cpus_busy_poll_copies_inline)
{
	struct env e;

	auto_open(&e, "1024");
	submit_slot(&e, 0);
	expect_inline_copy(&e, 0, 0);
	ASSERT_EQ(results.err, 0);
	env_close(&e);
}

/* Enough CPUs: a large copy runs on the worker, a small one (below the threshold) inline. */
TEST(auto_enough_cpus_uses_worker)
{
	struct doca_dma_task_memcpy *t;
	struct env e;

	auto_open(&e, "1");
	submit_slot(&e, 0);
	expect_worker_copy(&e, 0);
	progress_until(e.pe, &results.ok, 1);

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, src_buf(&e, TASK, 1024, 9),
						  dst_buf(&e, 5 * (size_t)TASK, 1024), ud(1), &t));
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	usleep(50 * 1000);
	ASSERT(all_guard(e.mem + 5 * (size_t)TASK, 1024));
	progress_until(e.pe, &results.ok, 2);
	ASSERT_MEM_EQ(e.mem + 5 * (size_t)TASK, e.mem + TASK, 1024);
	ASSERT_EQ(results.err, 0);
	env_close(&e);
}

/*
 * An application that sleeps on the notification handle gets the worker (it copies
 * while the application sleeps) even on few CPUs; once it busy-polls again (more
 * than a few progress calls without arming), copies return inline.
 */
TEST(auto_event_mode_uses_worker_then_busy_poll_inline)
{
	struct env e;

	if (!have_two_cpus())
		SKIP("the process may run on one CPU only: the worker never pays there");
	auto_open(&e, "1024");
	ASSERT_OK(doca_pe_request_notification(e.pe));
	ASSERT_OK(doca_pe_clear_notification(e.pe, 0));
	submit_slot(&e, 0);
	expect_worker_copy(&e, 0);
	progress_until(e.pe, &results.ok, 1);

	for (int i = 0; i < 64; i++)
		(void)doca_pe_progress(e.pe);
	submit_slot(&e, 1);
	expect_inline_copy(&e, 1, 1);
	ASSERT_EQ(results.err, 0);
	env_close(&e);
}

/* Inline copies are bounded per progress call (1 MiB): one 1 MiB task per call. */
TEST(inline_progress_copies_a_bounded_amount)
{
	enum { MIB = 1 << 20, N = 3 };
	struct doca_dma_task_memcpy *t[N];
	struct env e;

	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	ASSERT_EQ(setenv("SOFTDOCA_DMA_ENGINE", "inline", 1), 0);
	env_open(&e, T_HOST_PCI, 2 * N * (size_t)MIB, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, N);
	env_start(&e);
	for (unsigned i = 0; i < N; i++) {
		ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, src_buf(&e, (size_t)i * MIB, MIB, i),
							  dst_buf(&e, (size_t)(N + i) * MIB, MIB), ud(i), &t[i]));
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t[i])));
	}
	for (unsigned i = 0; i < N; i++) {
		(void)doca_pe_progress(e.pe);
		ASSERT_EQ(results.ok, i + 1);
		ASSERT_EQ(results.order[i], (int)i);
		ASSERT_MEM_EQ(e.mem + (size_t)(N + i) * MIB, e.mem + (size_t)i * MIB, MIB);
	}
	ASSERT_EQ(results.err, 0);
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
