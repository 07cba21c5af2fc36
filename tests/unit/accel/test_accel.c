/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engines' context (src/core/accel_internal.h) through a fake engine that
 * XORs its source into its destination and can be told to take long or to fail:
 * completions in submission order whichever thread ran a task, inline and pool
 * modes giving the same bytes, a failing task stopping the context with the rest
 * flushed, a stop with tasks on the workers, submit-time refusals (kept or
 * failed in order), buffer lists through the bounce buffers, and an idle pool
 * that costs no CPU.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sd_core.h"
#include "sd_test.h"

SD_LOG_REGISTER(test.accel);

#define NUM_TASKS 64u
#define CHUNK 4096u

enum fake_reason {
	FAKE_NO_SRC = SD_ACCEL_NUM_FAULTS,
	FAKE_TOO_SMALL,
	FAKE_BROKEN,
	FAKE_NUM_REASONS,
};

static const struct sd_refusal fake_refusals[FAKE_NUM_REASONS] = {
	SD_ACCEL_REFUSAL_ROWS,
	[FAKE_NO_SRC] = {DOCA_ERROR_INVALID_VALUE, false, "{api}: {task} task has no source"},
	[FAKE_TOO_SMALL] = {DOCA_ERROR_INVALID_VALUE, false, "{api}: {task} destination has room for {b}, needs {a}"},
	[FAKE_BROKEN] = {DOCA_ERROR_IO_FAILED, false, "{api}: {task} task's data is broken (byte {a})"},
};

struct fake_task {
	struct sd_accel_task base;
	struct doca_buf *src, *dst;
	unsigned delay_us; /* run() sleeps this long */
	bool fail;	   /* run() fails */
};

static bool
fake_check(struct sd_accel_task *t, struct sd_buf_verdict *v)
{
	struct fake_task *f = (struct fake_task *)t;

	if (f->src == NULL)
		return sd_buf_refuse(v, FAKE_NO_SRC, NULL, 0, 0, 0);
	if (!sd_accel_check_list(t->accel, f->src, false, 4, "source", v) ||
	    !sd_accel_check_list(t->accel, f->dst, true, 4, "destination", v))
		return false;
	if (sd_accel_list_tail_room(f->dst) < sd_accel_list_data_len(f->src))
		return sd_buf_refuse(v, FAKE_TOO_SMALL, "destination", sd_accel_list_data_len(f->src),
				     sd_accel_list_tail_room(f->dst), 0);
	return true;
}

static bool
fake_run(struct sd_accel_task *t, struct sd_buf_verdict *v)
{
	struct fake_task *f = (struct fake_task *)t;
	struct sd_accel_src s;
	struct sd_accel_dst d;

	if (f->delay_us != 0)
		usleep(f->delay_us);
	if (f->fail)
		return sd_buf_refuse(v, FAKE_BROKEN, NULL, 7, 0, 0);
	if (!sd_accel_src_open(&s, f->src))
		return sd_buf_refuse(v, FAKE_BROKEN, NULL, 0, 0, 0);
	if (!sd_accel_dst_open(&d, f->dst)) {
		sd_accel_src_close(&s);
		return sd_buf_refuse(v, FAKE_BROKEN, NULL, 0, 0, 0);
	}
	for (uint64_t i = 0; i < s.len; i++)
		d.p[i] = s.p[i] ^ 0x5a;
	sd_accel_dst_commit(&d, s.len);
	sd_accel_src_close(&s);
	return true;
}

static uint64_t
fake_cost(const struct sd_accel_task *t)
{
	return sd_accel_list_data_len(((const struct fake_task *)t)->src);
}

static const struct sd_accel_kind fake_kind = {
	.name = "fake xor",
	.refusals = fake_refusals,
	.keep_mask = 1ull << FAKE_NO_SRC,
	.check = fake_check,
	.run = fake_run,
	.cost = fake_cost,
};

/* --- fixture -------------------------------------------------------------------------- */

static struct {
	unsigned order[NUM_TASKS * 2];
	doca_error_t status[NUM_TASKS * 2];
	unsigned n, ok, err;
} seen;

static void
on_done(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud, bool ok)
{
	(void)ctx_ud;
	seen.order[seen.n] = (unsigned)task_ud.u64;
	seen.status[seen.n] = doca_task_get_status(task);
	seen.n++;
	if (ok)
		seen.ok++;
	else
		seen.err++;
}

static void
task_ok(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud)
{
	on_done(task, task_ud, ctx_ud, true);
}

static void
task_err(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud)
{
	on_done(task, task_ud, ctx_ud, false);
}

struct env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct sd_accel accel;
	struct sd_task_pool *pool;
	uint8_t *mem; /* NUM_TASKS sources of CHUNK bytes, then NUM_TASKS destinations */
};

static void
env_up(struct env *e, const char *workers)
{
	memset(&seen, 0, sizeof(seen));
	setenv("SOFTDOCA_ENGINE_WORKERS", workers, 1);
	setenv("SOFTDOCA_ENGINE_INLINE_MAX", "0", 1); /* every task goes to the pool when there is one */
	e->mem = aligned_alloc(64, 2 * NUM_TASKS * CHUNK);
	ASSERT_NOT_NULL(e->mem);
	for (unsigned i = 0; i < NUM_TASKS * CHUNK; i++)
		e->mem[i] = (uint8_t)(i * 7 + i / CHUNK);
	memset(e->mem + NUM_TASKS * CHUNK, 0, NUM_TASKS * CHUNK);
	e->dev = sd_test_open_pci("b1:00.0");
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_mmap_create(&e->mmap));
	ASSERT_OK(doca_mmap_set_memrange(e->mmap, e->mem, 2 * NUM_TASKS * CHUNK));
	ASSERT_OK(doca_mmap_set_permissions(e->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	ASSERT_OK(doca_mmap_add_dev(e->mmap, e->dev));
	ASSERT_OK(doca_mmap_start(e->mmap));
	ASSERT_OK(doca_buf_inventory_create(4 * NUM_TASKS, &e->inv));
	ASSERT_OK(doca_buf_inventory_start(e->inv));
	sd_accel_init(&e->accel, e->dev, "fake", log_source, NULL);
	e->pool = NULL;
	ASSERT_OK(sd_task_pool_configure(&e->accel.ctx, &e->pool, "fake xor", sizeof(struct fake_task), NUM_TASKS,
					 NUM_TASKS, task_ok, task_err, "test"));
	ASSERT_OK(doca_pe_connect_ctx(e->pe, &e->accel.ctx));
	ASSERT_OK(doca_ctx_start(&e->accel.ctx));
	ASSERT_EQ(sd_ctx_state(&e->accel.ctx), DOCA_CTX_STATE_RUNNING);
}

/* Task i: source chunk i into destination chunk i. */
static struct fake_task *
make_task(struct env *e, unsigned i, unsigned delay_us)
{
	struct doca_task *base;
	struct fake_task *t;

	ASSERT_OK(sd_task_alloc(e->pool, (union doca_data){.u64 = i}, "test", &base));
	t = (struct fake_task *)base;
	sd_accel_task_init(&t->base, &e->accel, &fake_kind);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, e->mmap, e->mem + i * CHUNK, CHUNK, &t->src));
	ASSERT_OK(
		doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, e->mem + (NUM_TASKS + i) * CHUNK, CHUNK, &t->dst));
	t->delay_us = delay_us;
	t->fail = false;
	return t;
}

static void
progress_until(struct env *e, unsigned n)
{
	time_t end = time(NULL) + 10;

	while (seen.n < n && time(NULL) < end)
		doca_pe_progress(e->pe);
	ASSERT_EQ(seen.n, n);
}

static void
check_bytes(struct env *e, unsigned i)
{
	const uint8_t *src = e->mem + i * CHUNK, *dst = e->mem + (NUM_TASKS + i) * CHUNK;

	for (unsigned k = 0; k < CHUNK; k++)
		ASSERT_EQ(dst[k], src[k] ^ 0x5a);
}

static void
in_order_run(const char *workers)
{
	struct env e;

	env_up(&e, workers);
	/* Early tasks take longest: on the pool later ones finish first, yet are delivered after. */
	for (unsigned i = 0; i < NUM_TASKS; i++)
		ASSERT_OK(doca_task_submit(&make_task(&e, i, (NUM_TASKS - i) * 100)->base.task));
	progress_until(&e, NUM_TASKS);
	for (unsigned i = 0; i < NUM_TASKS; i++) {
		ASSERT_EQ(seen.order[i], i);
		ASSERT_EQ(seen.status[i], DOCA_SUCCESS);
		check_bytes(&e, i);
	}
	ASSERT_EQ(doca_ctx_stop(&e.accel.ctx), DOCA_SUCCESS);
	ASSERT_OK(sd_accel_fini(&e.accel, "test"));
}

TEST(pool_delivers_in_submission_order)
{
	in_order_run("2");
}

TEST(inline_delivers_in_submission_order)
{
	in_order_run("0");
}

TEST(failed_task_stops_the_context_and_flushes_the_rest)
{
	struct fake_task *t[16];
	struct env e;

	env_up(&e, "2");
	for (unsigned i = 0; i < 16; i++) {
		t[i] = make_task(&e, i, 200);
		t[i]->fail = i == 5;
	}
	for (unsigned i = 0; i < 16; i++)
		ASSERT_OK(doca_task_submit(&t[i]->base.task));
	progress_until(&e, 16);
	for (unsigned i = 0; i < 5; i++)
		ASSERT_EQ(seen.status[i], DOCA_SUCCESS);
	ASSERT_EQ(seen.order[5], 5);
	ASSERT_EQ(seen.status[5], DOCA_ERROR_IO_FAILED);
	ASSERT_EQ(seen.err, 11u);
	for (unsigned i = 6; i < 16; i++)
		ASSERT_EQ(seen.status[i], SD_TASK_FLUSH_STATUS);
	while (sd_ctx_state(&e.accel.ctx) != DOCA_CTX_STATE_IDLE)
		doca_pe_progress(e.pe);
	ASSERT_OK(sd_accel_fini(&e.accel, "test"));
}

TEST(stop_with_tasks_on_the_workers_flushes_them)
{
	struct env e;

	env_up(&e, "1");
	for (unsigned i = 0; i < 32; i++)
		ASSERT_OK(doca_task_submit(&make_task(&e, i, 2000)->base.task));
	ASSERT_EQ(doca_ctx_stop(&e.accel.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(sd_ctx_state(&e.accel.ctx), DOCA_CTX_STATE_STOPPING);
	progress_until(&e, 32);
	ASSERT_EQ(seen.err, 32u);
	for (unsigned i = 0; i < 32; i++)
		ASSERT_EQ(seen.order[i], i);
	while (sd_ctx_state(&e.accel.ctx) != DOCA_CTX_STATE_IDLE)
		doca_pe_progress(e.pe);
	ASSERT_OK(sd_accel_fini(&e.accel, "test"));
}

TEST(refusals_kept_or_failed_in_order)
{
	struct fake_task *none, *small;
	struct env e;

	env_up(&e, "2");
	none = make_task(&e, 0, 0);
	doca_buf_dec_refcount(none->src, NULL);
	none->src = NULL;
	/* No source to report against: returned, the task stays with the caller. */
	ASSERT_ERR(doca_task_submit(&none->base.task), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_try_submit(&none->base.task), DOCA_ERROR_INVALID_VALUE);
	small = make_task(&e, 1, 0);
	ASSERT_OK(doca_buf_set_data(small->dst, e.mem + (NUM_TASKS + 1) * CHUNK, CHUNK - 1));
	ASSERT_ERR(doca_task_try_submit(&small->base.task), DOCA_ERROR_INVALID_VALUE);
	/* A data fault: accepted, then failed through the error callback. */
	ASSERT_OK(doca_task_submit(&small->base.task));
	progress_until(&e, 1);
	ASSERT_EQ(seen.order[0], 1);
	ASSERT_EQ(seen.status[0], DOCA_ERROR_INVALID_VALUE);
	while (sd_ctx_state(&e.accel.ctx) != DOCA_CTX_STATE_IDLE)
		doca_pe_progress(e.pe);
	doca_task_free(&none->base.task);
	ASSERT_OK(sd_accel_fini(&e.accel, "test"));
}

TEST(buffer_lists_go_through_bounce_buffers)
{
	struct doca_buf *s2, *d2;
	struct fake_task *t;
	struct env e;

	env_up(&e, "2");
	t = make_task(&e, 0, 0);
	/* Source: chunk 0 then chunk 1; destination: 3 KiB of chunk 0 and 5 KiB of chunk 1. */
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, e.mmap, e.mem + CHUNK, CHUNK, &s2));
	ASSERT_OK(doca_buf_chain_list(t->src, s2));
	doca_buf_dec_refcount(t->dst, NULL);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, e.mmap, e.mem + NUM_TASKS * CHUNK, 3072, &t->dst));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, e.mmap, e.mem + (NUM_TASKS + 1) * CHUNK, 5120, &d2));
	ASSERT_OK(doca_buf_chain_list(t->dst, d2));
	ASSERT_OK(doca_task_submit(&t->base.task));
	progress_until(&e, 1);
	ASSERT_EQ(seen.status[0], DOCA_SUCCESS);
	for (unsigned k = 0; k < 2 * CHUNK; k++) {
		const uint8_t *out =
			k < 3072 ? e.mem + NUM_TASKS * CHUNK + k : e.mem + (NUM_TASKS + 1) * CHUNK + k - 3072;

		ASSERT_EQ(*out, e.mem[k] ^ 0x5a);
	}
	size_t len;
	ASSERT_OK(doca_buf_get_data_len(t->dst, &len));
	ASSERT_EQ(len, 3072);
	ASSERT_OK(doca_buf_get_data_len(d2, &len));
	ASSERT_EQ(len, 5120);
	ASSERT_EQ(doca_ctx_stop(&e.accel.ctx), DOCA_SUCCESS);
	ASSERT_OK(sd_accel_fini(&e.accel, "test"));
}

static double
cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

TEST(idle_pool_costs_no_cpu)
{
	struct env e;
	double before;

	env_up(&e, "2");
	for (unsigned i = 0; i < 8; i++)
		ASSERT_OK(doca_task_submit(&make_task(&e, i, 0)->base.task));
	progress_until(&e, 8);
	before = cpu_seconds();
	usleep(300 * 1000);
	/* Two sleeping workers and this sleeping thread: nothing runs (generous bound for a noisy host). */
	ASSERT(cpu_seconds() - before < 0.03);
	ASSERT_EQ(doca_ctx_stop(&e.accel.ctx), DOCA_SUCCESS);
	ASSERT_OK(sd_accel_fini(&e.accel, "test"));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
