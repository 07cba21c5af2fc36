/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exporting memory for RDMA changes nothing about that memory, as on
 * hardware: its bytes, a concurrent writer's writes, what a reader sees,
 * fork(), free() + malloc() and MADV_DONTNEED all behave as in a process
 * that never called softdoca.  A writer thread keeps rewriting every 8-byte
 * word of the range (and checks, before each rewrite, that the word still
 * holds what it wrote last) while the main thread runs 500 cycles of
 * create / start / doca_mmap_export_rdma / stop / destroy.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "rdma_test.h"

#define CYCLES 500

struct writer {
	uint64_t *words;
	size_t n;
	atomic_bool stop;
	uint64_t lost;		      /* a word no longer held what this thread wrote */
	atomic_uint_fast64_t passes;  /* full passes over the range (read by the main thread) */
	atomic_uint_fast64_t written; /* words rewritten so far (published every 4096) */
};

static void *
writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t v = 1;

	while (!atomic_load(&w->stop)) {
		for (size_t i = 0; i < w->n; i++) {
			volatile uint64_t *p = &w->words[i];

			if (*p != (v - 1 == 0 ? 0 : (v - 1) * w->n + i))
				w->lost++;
			*p = v * w->n + i;
			if ((i & 4095) == 4095)
				atomic_fetch_add(&w->written, 4096);
		}
		v++;
		atomic_fetch_add(&w->passes, 1);
	}
	return NULL;
}

/* One export cycle of [mem, +len): every call the DOCA way, every result checked. */
static void
export_cycle(struct doca_dev *dev, void *mem, size_t len)
{
	struct doca_mmap *m;
	const void *desc;
	size_t dlen;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
						       DOCA_ACCESS_FLAG_RDMA_WRITE));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, len));
	ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_export_rdma(m, dev, &desc, &dlen));
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_destroy(m));
}

static void
hammer(size_t len)
{
	struct doca_dev *dev = open_rdma_dev();
	struct writer w = {0};
	pthread_t th;
	uint64_t *mem, before, after;

	/* malloc'd, as applications do: private anonymous memory */
	mem = calloc(1, len);
	ASSERT(mem != NULL);
	w.words = mem;
	w.n = len / 8;
	ASSERT_EQ(pthread_create(&th, NULL, writer_main, &w), 0);
	while (atomic_load(&w.written) == 0)
		sched_yield();
	before = atomic_load(&w.written);
	for (int c = 0; c < CYCLES; c++)
		export_cycle(dev, mem, len);
	after = atomic_load(&w.written);
	/* the writer really wrote while the exports came and went */
	ASSERT(after > before);
	/* at least one whole pass ran across the cycles, then stop */
	while (atomic_load(&w.passes) < 2)
		sched_yield();
	atomic_store(&w.stop, true);
	ASSERT_EQ(pthread_join(th, NULL), 0);
	ASSERT_EQ(w.lost, 0);
	free(mem);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(writer_64k)
{
	hammer(64u << 10);
}

TEST(writer_1m)
{
	hammer(1u << 20);
}

TEST(writer_16m)
{
	hammer(16u << 20);
}

/* Start and export [mem, +len); the caller destroys. */
static struct doca_mmap *
exported(struct doca_dev *dev, void *mem, size_t len)
{
	struct doca_mmap *m;
	const void *desc;
	size_t dlen;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, len));
	ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT_OK(doca_mmap_export_rdma(m, dev, &desc, &dlen));
	return m;
}

/* A child writes its copy of the exported range; the parent's stays as it was, and the reverse. */
static void
fork_is_private(uint8_t *mem, size_t len)
{
	int p2c[2], c2p[2];
	pid_t pid;
	char c;

	memset(mem, 0x5a, len);
	ASSERT_EQ(pipe(p2c), 0);
	ASSERT_EQ(pipe(c2p), 0);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		memset(mem, 0xc1, len); /* the child's copy */
		if (write(c2p[1], "w", 1) != 1 || read(p2c[0], &c, 1) != 1)
			_exit(2);
		for (size_t i = 0; i < len; i++)
			if (mem[i] != 0xc1)
				_exit(3); /* the parent's write reached the child */
		_exit(0);
	}
	ASSERT_EQ(read(c2p[0], &c, 1), 1);
	for (size_t i = 0; i < len; i++)
		ASSERT_EQ(mem[i], 0x5a);
	memset(mem, 0xa7, len);
	ASSERT_EQ(write(p2c[1], "g", 1), 1);
	sd_test_reap(pid);
	close(p2c[0]);
	close(p2c[1]);
	close(c2p[0]);
	close(c2p[1]);
}

TEST(fork_while_exported)
{
	struct doca_dev *dev = open_rdma_dev();
	size_t len = 1u << 20;
	uint8_t *mem = malloc(len);
	struct doca_mmap *m;

	ASSERT(mem != NULL);
	m = exported(dev, mem, len);
	fork_is_private(mem, len);
	ASSERT_OK(doca_mmap_destroy(m));
	fork_is_private(mem, len); /* and after the export is gone */
	free(mem);
	ASSERT_OK(doca_dev_close(dev));
}

/*
 * The application frees exported memory (a bug DOCA leaves to it) and
 * malloc hands the same chunk out again: the new buffer is ordinary memory
 * (private after fork), and destroying the old mmap does not touch it.
 */
TEST(free_malloc_while_exported)
{
	struct doca_dev *dev = open_rdma_dev();
	size_t len = 96u << 10; /* below malloc's mmap threshold: the chunk is reused from the heap */
	uint8_t *mem = malloc(len), *again;
	struct doca_mmap *m;
	volatile uintptr_t addr; /* only compared: the freed pointer is not used */

	ASSERT(mem != NULL);
	memset(mem, 0x33, len);
	m = exported(dev, mem, len);
	addr = (uintptr_t)mem;
	free(mem);
	again = malloc(len);
	ASSERT(again != NULL);
	if ((uintptr_t)again != addr) {
		/* ASan's quarantine, for one, never hands a freed chunk straight out again */
		ASSERT_OK(doca_mmap_destroy(m));
		free(again);
		ASSERT_OK(doca_dev_close(dev));
		SKIP("this allocator did not hand the freed chunk out again: the scenario cannot be set up");
	}
	memset(again, 0x44, len);
	fork_is_private(again, len);
	memset(again, 0x44, len);
	ASSERT_OK(doca_mmap_destroy(m));
	for (size_t i = 0; i < len; i++)
		ASSERT_EQ(again[i], 0x44);
	free(again);
	ASSERT_OK(doca_dev_close(dev));
}

/* MADV_DONTNEED on exported private anonymous memory: the pages read back as zeros. */
TEST(madv_dontneed_while_exported)
{
	struct doca_dev *dev = open_rdma_dev();
	size_t len = 1u << 20;
	uint8_t *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct doca_mmap *m;

	ASSERT(mem != MAP_FAILED);
	memset(mem, 0x77, len);
	m = exported(dev, mem, len);
	ASSERT_EQ(madvise(mem, len, MADV_DONTNEED), 0);
	for (size_t i = 0; i < len; i++)
		ASSERT_EQ(mem[i], 0);
	memset(mem, 0x78, len);
	ASSERT_OK(doca_mmap_destroy(m));
	for (size_t i = 0; i < len; i++)
		ASSERT_EQ(mem[i], 0x78);
	ASSERT_EQ(munmap(mem, len), 0);
	ASSERT_OK(doca_dev_close(dev));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
