/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA engine contract suite: every engine (inline, worker, xproc) must copy the
 * same bytes into the same places, keep FIFO order, refuse past its depth, flush,
 * and be reusable after quiesce.  Buffers and mmaps are built by hand, so no
 * context or progress engine is involved; xproc also runs against a forked child.
 */
#include "engine_fixture.h"

/* ---- contracts, each run against every engine -------------------------------------- */

/* One segment each side: bytes copied, data_len grown, nothing outside touched. */
static void
contract_single(const struct sd_dma_engine_ops *ops)
{
	struct sd_dma_engine *eng = engine_open(ops, 8);
	uint8_t src[4096], dst[4096 + 64];
	struct doca_buf s, d;
	struct sd_dma_job job = {0};

	fill_pattern(src, sizeof(src), 1);
	memset(dst, GUARD, sizeof(dst));
	buf_init(&s, &local_mmap, src, sizeof(src), 0, sizeof(src));
	buf_init(&d, &local_mmap, dst + 32, 4096, 0, 0);
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = 4096, .status = DOCA_ERROR_UNKNOWN};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);
	ASSERT_MEM_EQ(dst + 32, src, 4096);
	ASSERT_EQ(d.data_len, 4096);
	ASSERT_EQ(s.data_len, 4096);
	for (int i = 0; i < 32; i++) {
		ASSERT_EQ(dst[i], GUARD);
		ASSERT_EQ(dst[32 + 4096 + i], GUARD);
	}
	eng->ops->destroy(eng);
}

/* The destination already holds data: new bytes go to data + data_len (tail room). */
static void
contract_tail(const struct sd_dma_engine_ops *ops)
{
	struct sd_dma_engine *eng = engine_open(ops, 8);
	uint8_t src[100], dst[256];
	struct doca_buf s, d;
	struct sd_dma_job job;

	fill_pattern(src, sizeof(src), 2);
	memset(dst, GUARD, sizeof(dst));
	memset(dst + 16, 0x11, 10); /* existing data: [16, 26) */
	buf_init(&s, &local_mmap, src, sizeof(src), 0, sizeof(src));
	buf_init(&d, &local_mmap, dst + 8, 200, 8, 10);
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = 100};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);
	ASSERT_EQ(d.data_len, 110);
	ASSERT_PTR_EQ(d.data, dst + 16);
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(dst[16 + i], 0x11);
	ASSERT_MEM_EQ(dst + 26, src, 100);
	for (int i = 126; i < 256; i++)
		ASSERT_EQ(dst[i], GUARD);
	for (int i = 0; i < 16; i++)
		ASSERT_EQ(dst[i], GUARD);
	eng->ops->destroy(eng);
}

/*
 * Lists segmented differently on each side (with an empty source segment and
 * destination segments holding data): the concatenation of the source windows
 * lands in the destination tail rooms in order.
 */
static void
contract_lists(const struct sd_dma_engine_ops *ops)
{
	static const size_t src_lens[] = {7, 0, 1000, 33, 4096, 1};
	static const size_t dst_room[] = {500, 1, 3000, 1637, 100}; /* sum 5238 >= 5137 */
	struct sd_dma_engine *eng = engine_open(ops, 8);
	uint8_t srcmem[6][4096], dstmem[5][3100], expect[8192];
	struct doca_buf s[6], d[5];
	struct sd_dma_job job;
	size_t total = 0, off;

	for (unsigned i = 0; i < 6; i++) {
		fill_pattern(srcmem[i], sizeof(srcmem[i]), 10 + i);
		/* data window starts 3 bytes in: the window, not the head, is the source */
		buf_init(&s[i], &local_mmap, srcmem[i], sizeof(srcmem[i]), src_lens[i] == 4096 ? 0 : 3, src_lens[i]);
		memcpy(expect + total, s[i].data, src_lens[i]);
		total += src_lens[i];
	}
	buf_chain(s, 6);
	for (unsigned i = 0; i < 5; i++) {
		memset(dstmem[i], GUARD, sizeof(dstmem[i]));
		/* each destination segment already holds 2 bytes of data */
		buf_init(&d[i], &local_mmap, dstmem[i] + 4, dst_room[i] + 2, 0, 2);
	}
	buf_chain(d, 5);
	job = (struct sd_dma_job){.src = s, .dst = d, .len = total};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);

	off = 0;
	for (unsigned i = 0; i < 5; i++) {
		size_t got = SD_MIN(dst_room[i], total - off);

		ASSERT_EQ(d[i].data_len, 2 + got);
		ASSERT_MEM_EQ(dstmem[i] + 4 + 2, expect + off, got);
		for (size_t k = 4 + 2 + got; k < sizeof(dstmem[i]); k++)
			ASSERT_EQ(dstmem[i][k], GUARD);
		for (size_t k = 0; k < 6; k++)
			ASSERT_EQ(dstmem[i][k], GUARD);
		off += got;
	}
	ASSERT_EQ(off, total);
	eng->ops->destroy(eng);
}

/* Jobs come back in submission order; depth is enforced and frees up after poll. */
static void
contract_fifo_depth(const struct sd_dma_engine_ops *ops)
{
	enum { DEPTH = 16 };
	struct sd_dma_engine *eng = engine_open(ops, DEPTH);
	static uint8_t src[DEPTH + 1][512], dst[DEPTH + 1][512];
	struct doca_buf s[DEPTH + 1], d[DEPTH + 1];
	struct sd_dma_job jobs[DEPTH + 1];
	struct sd_dma_jobq done;
	unsigned i;

	for (i = 0; i <= DEPTH; i++) {
		fill_pattern(src[i], 512, i);
		memset(dst[i], 0, 512);
		buf_init(&s[i], &local_mmap, src[i], 512, 0, 512);
		buf_init(&d[i], &local_mmap, dst[i], 512, 0, 0);
		jobs[i] = (struct sd_dma_job){.src = &s[i], .dst = &d[i], .len = 512};
	}
	for (i = 0; i < DEPTH; i++)
		ASSERT_OK(eng->ops->enqueue(eng, &jobs[i]));
	ASSERT_ERR(eng->ops->enqueue(eng, &jobs[DEPTH]), DOCA_ERROR_AGAIN);

	sd_dma_jobq_init(&done);
	poll_until(eng, &done, DEPTH);
	ASSERT_EQ(done.count, DEPTH);
	i = 0;
	for (struct sd_dma_job *j = done.head; j != NULL; j = j->next, i++) {
		ASSERT_PTR_EQ(j, &jobs[i]);
		ASSERT_ERR(j->status, DOCA_SUCCESS);
		ASSERT_MEM_EQ(dst[i], src[i], 512);
	}
	ASSERT(!eng->ops->pending(eng));

	/* Room again after the poll. */
	sd_dma_jobq_init(&done);
	ASSERT_OK(eng->ops->enqueue(eng, &jobs[DEPTH]));
	poll_until(eng, &done, 1);
	ASSERT_MEM_EQ(dst[DEPTH], src[DEPTH], 512);
	eng->ops->destroy(eng);
}

/*
 * Flush: every job comes back exactly once; flushed ones carry the flush status and
 * left their destination alone; then quiesce makes the engine usable again.
 */
static void
contract_flush(const struct sd_dma_engine_ops *ops)
{
	enum { N = 64 };
	struct sd_dma_engine *eng = engine_open(ops, N);
	static uint8_t src[N][8192], dst[N][8192];
	struct doca_buf s[N], d[N];
	struct sd_dma_job jobs[N], again;
	struct sd_dma_jobq done;
	unsigned flushed = 0, i;

	for (i = 0; i < N; i++) {
		fill_pattern(src[i], 8192, i + 100);
		memset(dst[i], GUARD, 8192);
		buf_init(&s[i], &local_mmap, src[i], 8192, 0, 8192);
		buf_init(&d[i], &local_mmap, dst[i], 8192, 0, 0);
		jobs[i] = (struct sd_dma_job){.src = &s[i], .dst = &d[i], .len = 8192};
		ASSERT_OK(eng->ops->enqueue(eng, &jobs[i]));
	}
	eng->ops->flush(eng);
	sd_dma_jobq_init(&done);
	poll_until(eng, &done, N);
	ASSERT_EQ(done.count, N);
	i = 0;
	for (struct sd_dma_job *j = done.head; j != NULL; j = j->next, i++) {
		ASSERT_PTR_EQ(j, &jobs[i]);
		if (j->status == FLUSH_STATUS) {
			flushed++;
			ASSERT_EQ(d[i].data_len, 0);
			ASSERT_EQ(dst[i][0], GUARD);
			ASSERT_EQ(dst[i][8191], GUARD);
		} else {
			ASSERT_ERR(j->status, DOCA_SUCCESS);
			ASSERT_MEM_EQ(dst[i], src[i], 8192);
		}
	}
	/*
	 * Inline and xproc copy only in poll, so all of them are flushed; the worker may
	 * have finished some before the flush (each checked above either way).
	 */
	if (ops != &sd_dma_engine_worker_ops)
		ASSERT_EQ(flushed, N);

	eng->ops->quiesce(eng);
	d[0].data_len = 0;
	again = (struct sd_dma_job){.src = &s[0], .dst = &d[0], .len = 8192};
	run_one(eng, &again);
	ASSERT_ERR(again.status, DOCA_SUCCESS);
	ASSERT_MEM_EQ(dst[0], src[0], 8192);
	eng->ops->destroy(eng);
}

/* Many segments: more iovecs than one system call takes (IOV_MAX) and odd sizes. */
static void
contract_many_segments(const struct sd_dma_engine_ops *ops)
{
	enum { NS = 1500, ND = 1100 };
	struct sd_dma_engine *eng = engine_open(ops, 4);
	struct doca_buf *s = calloc(NS, sizeof(*s)), *d = calloc(ND, sizeof(*d));
	uint8_t *src = malloc(NS * 13), *dst = malloc(ND * 20 + 64);
	struct sd_dma_job job;

	ASSERT(s && d && src && dst);
	fill_pattern(src, NS * 13, 5);
	memset(dst, GUARD, ND * 20 + 64);
	for (unsigned i = 0; i < NS; i++)
		buf_init(&s[i], &local_mmap, src + i * 13, 13, 0, 13);
	buf_chain(s, NS);
	for (unsigned i = 0; i < ND; i++)
		buf_init(&d[i], &local_mmap, dst + i * 20, 20, 0, 0);
	buf_chain(d, ND);
	job = (struct sd_dma_job){.src = s, .dst = d, .len = NS * 13};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);
	ASSERT_MEM_EQ(dst, src, NS * 13);
	ASSERT_EQ(dst[NS * 13], GUARD);
	ASSERT_EQ(d[0].data_len, 20);
	ASSERT_EQ(d[NS * 13 / 20].data_len, (NS * 13) % 20);
	ASSERT_EQ(d[ND - 1].data_len, 0);
	eng->ops->destroy(eng);
	free(s);
	free(d);
	free(src);
	free(dst);
}

#define ENGINE_TESTS(name, ops)                                                                                        \
	TEST(name##_single)                                                                                            \
	{                                                                                                              \
		contract_single(ops);                                                                                  \
	}                                                                                                              \
	TEST(name##_tail_placement)                                                                                    \
	{                                                                                                              \
		contract_tail(ops);                                                                                    \
	}                                                                                                              \
	TEST(name##_lists)                                                                                             \
	{                                                                                                              \
		contract_lists(ops);                                                                                   \
	}                                                                                                              \
	TEST(name##_fifo_and_depth)                                                                                    \
	{                                                                                                              \
		contract_fifo_depth(ops);                                                                              \
	}                                                                                                              \
	TEST(name##_flush_and_quiesce)                                                                                 \
	{                                                                                                              \
		contract_flush(ops);                                                                                   \
	}                                                                                                              \
	TEST(name##_many_segments)                                                                                     \
	{                                                                                                              \
		contract_many_segments(ops);                                                                           \
	}

ENGINE_TESTS(inline, &sd_dma_engine_inline_ops)
ENGINE_TESTS(worker, &sd_dma_engine_worker_ops)
ENGINE_TESTS(xproc, &sd_dma_engine_xproc_ops)

/* ---- poll budget (inline, xproc) ---------------------------------------------------- */

/*
 * With conf.poll_budget, one poll copies jobs until it has copied at least that many
 * bytes (at least one job), in FIFO order, and leaves the rest queued; a flush
 * reports everything still queued in one poll.
 */
static void
budget_polls(const struct sd_dma_engine_ops *ops)
{
	enum { N = 5, SZ = 8192 };
	struct sd_dma_engine_conf conf = {.depth = 8, .flush_status = FLUSH_STATUS, .poll_budget = 10000};
	static uint8_t src[N][SZ], dst[N][SZ];
	struct doca_buf s[N], d[N];
	struct sd_dma_job jobs[N];
	struct sd_dma_engine *eng = NULL;
	struct sd_dma_jobq done;

	ASSERT_OK(ops->create(&conf, &eng));
	for (unsigned i = 0; i < N; i++) {
		fill_pattern(src[i], SZ, 40 + i);
		memset(dst[i], GUARD, SZ);
		buf_init(&s[i], &local_mmap, src[i], SZ, 0, SZ);
		buf_init(&d[i], &local_mmap, dst[i], SZ, 0, 0);
		jobs[i] = (struct sd_dma_job){.src = &s[i], .dst = &d[i], .len = SZ};
		ASSERT_OK(eng->ops->enqueue(eng, &jobs[i]));
	}
	sd_dma_jobq_init(&done);
	/* 8 KiB < 10000 <= 16 KiB: two jobs per poll. */
	ASSERT_EQ(eng->ops->poll(eng, &done), 2);
	ASSERT_EQ(done.count, 2);
	ASSERT_PTR_EQ(done.head, &jobs[0]);
	ASSERT_PTR_EQ(done.head->next, &jobs[1]);
	ASSERT_PTR_EQ(*done.tail, NULL);
	ASSERT(eng->ops->pending(eng));
	ASSERT_EQ(d[2].data_len, 0);
	ASSERT_EQ(dst[2][0], GUARD);
	ASSERT_EQ(eng->ops->poll(eng, &done), 2);
	ASSERT_EQ(done.count, 4);
	ASSERT_PTR_EQ(done.head->next->next, &jobs[2]);
	eng->ops->flush(eng);
	ASSERT_EQ(eng->ops->poll(eng, &done), 1);
	ASSERT_EQ(done.count, 5);
	ASSERT(!eng->ops->pending(eng));
	for (unsigned i = 0; i < N; i++) {
		struct sd_dma_job *j = sd_dma_jobq_pop(&done);

		ASSERT_PTR_EQ(j, &jobs[i]);
		if (i < 4) {
			ASSERT_ERR(j->status, DOCA_SUCCESS);
			ASSERT_MEM_EQ(dst[i], src[i], SZ);
		} else {
			ASSERT_ERR(j->status, FLUSH_STATUS);
			ASSERT_EQ(dst[i][0], GUARD);
		}
	}
	eng->ops->quiesce(eng);
	eng->ops->destroy(eng);
}

TEST(inline_poll_budget)
{
	budget_polls(&sd_dma_engine_inline_ops);
}

TEST(xproc_poll_budget)
{
	budget_polls(&sd_dma_engine_xproc_ops);
}

/* ---- worker specifics ------------------------------------------------------------- */

/* Completions wake the PE (once per completion at most); an idle worker sleeps. */
/*
 * The worker marks a job done, then wakes: a poller can see the completion
 * an instant before the wake callback has run.  Wait (bounded) for it.
 */
static unsigned
await_at_least(atomic_uint *c, unsigned want)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (atomic_load(c) >= want)
			break;
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 2000000000L);
	return atomic_load(c);
}

TEST(worker_wakes_and_sleeps)
{
	struct sd_dma_engine *eng = engine_open(&sd_dma_engine_worker_ops, 8);
	uint8_t src[64], dst[64];
	struct doca_buf s, d;
	struct sd_dma_job job;
	struct timespec t0, t1;
	clockid_t cpu;

	fill_pattern(src, 64, 3);
	buf_init(&s, &local_mmap, src, 64, 0, 64);
	buf_init(&d, &local_mmap, dst, 64, 0, 0);
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = 64};
	atomic_store(&wakes, 0);
	run_one(eng, &job);
	ASSERT_EQ(await_at_least(&wakes, 1), 1);
	ASSERT_MEM_EQ(dst, src, 64);

	/* The process's CPU time barely moves while the worker has nothing to do. */
	ASSERT_EQ(clock_getcpuclockid(getpid(), &cpu), 0);
	clock_gettime(cpu, &t0);
	usleep(200 * 1000);
	clock_gettime(cpu, &t1);
	ASSERT((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 50 * 1000000L);
	eng->ops->destroy(eng);
}

/*
 * Wake moderation (engine_worker.c): a sleeping application is woken at the latest by
 * the completion after which the worker has nothing left to copy, so a batch never
 * ends without a wake; a lone job always wakes.
 */
#define MOD_JOBS 8
#define MOD_BYTES (1u << 20)

static struct sd_dma_job mod_jobs[MOD_JOBS];
static atomic_uint mod_wakes;
static atomic_uint mod_done_at_last_wake;

/* Runs on the worker thread, which set each finished job's status before waking. */
static void
mod_wake(void *arg)
{
	unsigned n = 0;

	(void)arg;
	for (unsigned i = 0; i < MOD_JOBS; i++)
		n += mod_jobs[i].status == DOCA_SUCCESS;
	atomic_store(&mod_done_at_last_wake, n);
	atomic_fetch_add(&mod_wakes, 1);
}

TEST(worker_wake_moderation)
{
	struct sd_dma_engine_conf conf = {.depth = 16, .flush_status = FLUSH_STATUS, .wake = mod_wake};
	uint8_t *src = malloc(MOD_BYTES), *dst = malloc((size_t)MOD_JOBS * MOD_BYTES);
	struct doca_buf s, d[MOD_JOBS];
	struct sd_dma_engine *eng = NULL;
	struct sd_dma_jobq done;

	ASSERT_NOT_NULL(src);
	ASSERT_NOT_NULL(dst);
	fill_pattern(src, MOD_BYTES, 5);
	buf_init(&s, &local_mmap, src, MOD_BYTES, 0, MOD_BYTES);
	ASSERT_OK(sd_dma_engine_worker_ops.create(&conf, &eng));

	/* One job at a time: every completion leaves the worker idle and wakes. */
	for (unsigned i = 0; i < 3; i++) {
		buf_init(&d[0], &local_mmap, dst, MOD_BYTES, 0, 0);
		mod_jobs[0] =
			(struct sd_dma_job){.src = &s, .dst = &d[0], .len = MOD_BYTES, .status = DOCA_ERROR_UNKNOWN};
		run_one(eng, &mod_jobs[0]);
		ASSERT_EQ(await_at_least(&mod_wakes, i + 1), i + 1);
	}

	/* A batch: however the wakes were spread, the last one saw every job done. */
	atomic_store(&mod_wakes, 0);
	sd_dma_jobq_init(&done);
	for (unsigned i = 0; i < MOD_JOBS; i++) {
		buf_init(&d[i], &local_mmap, dst + (size_t)i * MOD_BYTES, MOD_BYTES, 0, 0);
		mod_jobs[i] =
			(struct sd_dma_job){.src = &s, .dst = &d[i], .len = MOD_BYTES, .status = DOCA_ERROR_UNKNOWN};
	}
	for (unsigned i = 0; i < MOD_JOBS; i++)
		ASSERT_OK(eng->ops->enqueue(eng, &mod_jobs[i]));
	poll_until(eng, &done, MOD_JOBS);
	ASSERT_EQ(done.count, MOD_JOBS);
	ASSERT_EQ(await_at_least(&mod_done_at_last_wake, MOD_JOBS), MOD_JOBS);
	ASSERT(atomic_load(&mod_wakes) >= 1 && atomic_load(&mod_wakes) <= MOD_JOBS);
	for (unsigned i = 0; i < MOD_JOBS; i++)
		ASSERT_MEM_EQ(dst + (size_t)i * MOD_BYTES, src, MOD_BYTES);
	eng->ops->destroy(eng);
	free(dst);
	free(src);
}

/* ---- scatter-gather cursor ----------------------------------------------------------- */

TEST(sg_cursor_iov_and_advance)
{
	uint8_t mem[100];
	struct doca_buf b[3];
	struct sd_dma_sg_cur cur;
	struct iovec iov[4];
	size_t bytes;
	int n;

	buf_init(&b[0], &local_mmap, mem, 10, 2, 5);	   /* data [2,7) tail [7,10) */
	buf_init(&b[1], &local_mmap, mem + 10, 20, 0, 0);  /* data empty, tail [10,30) */
	buf_init(&b[2], &local_mmap, mem + 30, 30, 0, 30); /* data [30,60) tail empty */
	buf_chain(b, 3);

	sd_dma_sg_cur_init(&cur, b, false);
	n = sd_dma_sg_cur_iov(&cur, SIZE_MAX, iov, 4, &bytes);
	ASSERT_EQ(n, 2);
	ASSERT_EQ(bytes, 35);
	ASSERT_PTR_EQ(iov[0].iov_base, mem + 2);
	ASSERT_EQ(iov[0].iov_len, 5);
	ASSERT_PTR_EQ(iov[1].iov_base, mem + 30);
	sd_dma_sg_cur_advance(&cur, 6);
	n = sd_dma_sg_cur_iov(&cur, 3, iov, 4, &bytes);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(bytes, 3);
	ASSERT_PTR_EQ(iov[0].iov_base, mem + 31);

	sd_dma_sg_cur_init(&cur, b, true);
	n = sd_dma_sg_cur_iov(&cur, 10, iov, 1, &bytes);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(bytes, 3); /* limited by max iovecs */
	ASSERT_PTR_EQ(iov[0].iov_base, mem + 7);
	sd_dma_sg_cur_advance(&cur, 3);
	n = sd_dma_sg_cur_iov(&cur, 100, iov, 4, &bytes);
	ASSERT_EQ(n, 1);
	ASSERT_EQ(bytes, 20);
	ASSERT_PTR_EQ(iov[0].iov_base, mem + 10);

	sd_dma_sg_commit(b, 21);
	ASSERT_EQ(b[0].data_len, 8);
	ASSERT_EQ(b[1].data_len, 18);
	ASSERT_EQ(b[2].data_len, 30);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
