/* SPDX-License-Identifier: BSD-3-Clause */
/* The cross-process engine against forked children: read, write, child to child, an exporter gone, an unmapped range.
 */
#include "engine_fixture.h"

/* ---- xproc against another process ------------------------------------------------- */

struct child {
	pid_t pid;
	uint8_t *addr; /* in the child */
	int to_child;  /* write a byte: child exits */
};

/*
 * Fork a child that maps len bytes filled with pattern(seed) followed by an unmapped
 * page, reports the address and waits for a byte on its pipe.
 */
static struct child
spawn_exporter(size_t len, unsigned seed)
{
	int up[2], down[2];
	struct child c;

	ASSERT_EQ(pipe(up), 0);
	ASSERT_EQ(pipe(down), 0);
	c.pid = fork();
	ASSERT(c.pid >= 0);
	if (c.pid == 0) {
		uint8_t *p = mmap(NULL, len + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char b;

		munmap(p + len, 4096);

		fill_pattern(p, len, seed);
		if (write(up[1], &p, sizeof(p)) != sizeof(p))
			_exit(1);
		if (read(down[0], &b, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	ASSERT_EQ(read(up[0], &c.addr, sizeof(c.addr)), sizeof(c.addr));
	close(up[0]);
	c.to_child = down[1];
	return c;
}

static void
reap(struct child *c)
{
	int st;

	if (write(c->to_child, "x", 1) < 0)
		kill(c->pid, SIGKILL);
	close(c->to_child);
	waitpid(c->pid, &st, 0);
}

static void
remote_mmap_init(struct doca_mmap *m, const struct child *c, size_t len, uint32_t perm)
{
	memset(m, 0, sizeof(*m));
	m->kind = SD_MMAP_PCI_REMOTE;
	m->addr = c->addr;
	m->len = len;
	m->permissions = perm;
	m->started = true;
	m->from_export = true;
	m->peer.pid = c->pid;
}

/* Read a list of remote segments into local segments, > IOV_MAX on both sides. */
TEST(xproc_read_from_child)
{
	enum { LEN = 3 << 20, NS = 2000 };
	struct child c = spawn_exporter(LEN, 9);
	struct sd_dma_engine *eng = engine_open(&sd_dma_engine_xproc_ops, 4);
	uint8_t *expect = malloc(LEN), *dst = malloc(LEN);
	struct doca_buf *s = calloc(NS, sizeof(*s)), d[3];
	struct doca_mmap rm;
	struct sd_dma_job job;
	size_t seg = LEN / NS, total = seg * NS;

	fill_pattern(expect, LEN, 9);
	remote_mmap_init(&rm, &c, LEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	for (unsigned i = 0; i < NS; i++)
		buf_init(&s[i], &rm, c.addr + i * seg, seg, 0, seg);
	buf_chain(s, NS);
	buf_init(&d[0], &local_mmap, dst, 1000, 0, 0);
	buf_init(&d[1], &local_mmap, dst + 1000, 1 << 20, 0, 0);
	buf_init(&d[2], &local_mmap, dst + 1000 + (1 << 20), LEN - 1000 - (1 << 20), 0, 0);
	buf_chain(d, 3);
	job = (struct sd_dma_job){.src = s, .dst = d, .len = total};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);
	ASSERT_MEM_EQ(dst, expect, total);
	ASSERT_EQ(d[0].data_len + d[1].data_len + d[2].data_len, total);
	reap(&c);
	eng->ops->destroy(eng);
}

/* Write into the child (process_vm_writev), then read it back to check. */
TEST(xproc_write_to_child_and_back)
{
	enum { LEN = 1 << 20 };
	struct child c = spawn_exporter(LEN, 1);
	struct sd_dma_engine *eng = engine_open(&sd_dma_engine_xproc_ops, 4);
	uint8_t *src = malloc(LEN), *back = malloc(LEN);
	struct doca_buf s, d, rs, bd;
	struct doca_mmap rm;
	struct sd_dma_job job;

	fill_pattern(src, LEN, 77);
	remote_mmap_init(&rm, &c, LEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	buf_init(&s, &local_mmap, src, LEN, 0, LEN - 10);
	buf_init(&d, &rm, c.addr, LEN, 10, 0); /* tail room starts 10 bytes in */
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = LEN - 10};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);
	ASSERT_EQ(d.data_len, LEN - 10);

	buf_init(&rs, &rm, c.addr, LEN, 0, LEN);
	buf_init(&bd, &local_mmap, back, LEN, 0, 0);
	job = (struct sd_dma_job){.src = &rs, .dst = &bd, .len = LEN};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);
	ASSERT_MEM_EQ(back + 10, src, LEN - 10);
	fill_pattern(src, 10, 1); /* the child's first 10 bytes are its own pattern */
	ASSERT_MEM_EQ(back, src, 10);
	reap(&c);
	eng->ops->destroy(eng);
}

/* Remote to remote (two children) goes through the bounce buffer. */
TEST(xproc_child_to_child)
{
	enum { LEN = (5 << 20) / 2 }; /* 2.5 chunks of the bounce buffer */
	struct child a = spawn_exporter(LEN, 4), b = spawn_exporter(LEN, 5);
	struct sd_dma_engine *eng = engine_open(&sd_dma_engine_xproc_ops, 4);
	uint8_t *expect = malloc(LEN), *back = malloc(LEN);
	struct doca_mmap ma, mb;
	struct doca_buf s, d, rs, bd;
	struct sd_dma_job job;

	remote_mmap_init(&ma, &a, LEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	remote_mmap_init(&mb, &b, LEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	buf_init(&s, &ma, a.addr, LEN, 0, LEN);
	buf_init(&d, &mb, b.addr, LEN, 0, 0);
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = LEN};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_SUCCESS);

	buf_init(&rs, &mb, b.addr, LEN, 0, LEN);
	buf_init(&bd, &local_mmap, back, LEN, 0, 0);
	job = (struct sd_dma_job){.src = &rs, .dst = &bd, .len = LEN};
	run_one(eng, &job);
	fill_pattern(expect, LEN, 4);
	ASSERT_MEM_EQ(back, expect, LEN);
	reap(&a);
	reap(&b);
	eng->ops->destroy(eng);
}

/* The exporter is gone: DRIVER, and the destination is untouched. */
TEST(xproc_exporter_gone_is_driver)
{
	enum { LEN = 4096 };
	struct child c = spawn_exporter(LEN, 2);
	struct sd_dma_engine *eng = engine_open(&sd_dma_engine_xproc_ops, 4);
	uint8_t dst[LEN];
	struct doca_mmap rm;
	struct doca_buf s, d;
	struct sd_dma_job job;

	remote_mmap_init(&rm, &c, LEN, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	reap(&c);
	memset(dst, GUARD, sizeof(dst));
	buf_init(&s, &rm, c.addr, LEN, 0, LEN);
	buf_init(&d, &local_mmap, dst, LEN, 0, 0);
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = LEN};
	run_one(eng, &job);
	ASSERT_ERR(job.status, DOCA_ERROR_DRIVER);
	ASSERT_EQ(d.data_len, 0);
	ASSERT_EQ(dst[0], GUARD);
	eng->ops->destroy(eng);
}

/* An address the exporter never mapped: DRIVER (EFAULT), not a crash or a hang. */
TEST(xproc_unmapped_remote_is_driver)
{
	struct child c = spawn_exporter(4096, 2);
	struct sd_dma_engine *eng = engine_open(&sd_dma_engine_xproc_ops, 4);
	uint8_t dst[8192];
	struct doca_mmap rm;
	struct doca_buf s, d;
	struct sd_dma_job job;

	/* Claim 8 KiB where the child mapped 4 KiB followed by a hole: the copy straddles it. */
	remote_mmap_init(&rm, &c, 8192, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	buf_init(&s, &rm, c.addr + 2048, 4096, 0, 4096);
	buf_init(&d, &local_mmap, dst, 8192, 0, 0);
	job = (struct sd_dma_job){.src = &s, .dst = &d, .len = 4096};
	run_one(eng, &job);
	reap(&c);
	ASSERT_ERR(job.status, DOCA_ERROR_DRIVER);
	ASSERT_EQ(d.data_len, 0);
	eng->ops->destroy(eng);
}
