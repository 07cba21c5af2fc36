/* SPDX-License-Identifier: BSD-3-Clause */
/* The DMA engine suite's fixture (engine_fixture.h). */
#include "engine_fixture.h"

struct doca_mmap local_mmap = {
	.kind = SD_MMAP_LOCAL,
	.addr = NULL,
	.len = SIZE_MAX,
	.permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
	.started = true,
};

atomic_uint wakes;

static void
count_wake(void *arg)
{
	(void)arg;
	atomic_fetch_add(&wakes, 1);
}

struct sd_dma_engine *
engine_open(const struct sd_dma_engine_ops *ops, uint32_t depth)
{
	struct sd_dma_engine_conf conf = {
		.depth = depth,
		.flush_status = FLUSH_STATUS,
		.wake = count_wake,
	};
	struct sd_dma_engine *eng = NULL;

	ASSERT_OK(ops->create(&conf, &eng));
	ASSERT_NOT_NULL(eng);
	ASSERT_PTR_EQ(eng->ops, ops);
	return eng;
}

/* A buffer over [head, head + len) with the data window [head + off, + data_len). */
void
buf_init(struct doca_buf *b, struct doca_mmap *m, void *head, size_t len, size_t off, size_t data_len)
{
	memset(b, 0, sizeof(*b));
	b->mmap = m;
	b->head = head;
	b->len = len;
	b->data = (uint8_t *)head + off;
	b->data_len = data_len;
	b->refcount = 1;
	b->is_head = true;
	b->list_len = 1;
	b->last = b;
}

void
buf_chain(struct doca_buf *segs, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i++) {
		segs[i].next = &segs[i + 1];
		segs[i + 1].is_head = false;
	}
	segs[0].list_len = n;
	segs[0].last = &segs[n - 1];
}

void
fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* Poll until n jobs are done (or 10 s); returns the done queue. */
void
poll_until(struct sd_dma_engine *eng, struct sd_dma_jobq *done, unsigned n)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done->count < n) {
		if (eng->ops->poll(eng, done) == 0)
			sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 10)
			sd_test_fail(__FILE__, __LINE__, "%s: %u of %u jobs done after 10 s", eng->ops->name,
				     done->count, n);
	}
}

void
run_one(struct sd_dma_engine *eng, struct sd_dma_job *job)
{
	struct sd_dma_jobq done;

	sd_dma_jobq_init(&done);
	ASSERT_OK(eng->ops->enqueue(eng, job));
	poll_until(eng, &done, 1);
	ASSERT_PTR_EQ(done.head, job);
	ASSERT_EQ(done.count, 1);
}
