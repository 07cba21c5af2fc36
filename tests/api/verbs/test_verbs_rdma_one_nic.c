/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One soft NIC per process: a program that opens the same device through DOCA
 * RDMA and through DOCA Verbs (as tools/doca_perf does) gets one fabric device
 * for the netdev - one UCP worker and one service thread ("sdfab:<netdev>") -
 * because both libraries link the one libsoftdoca_fabric.  Each path moves
 * bytes (one RDMA write each, checked) while the threads are counted in
 * /proc/self/task; with a fabric copy per library there would be two.  The
 * test uses one device only, so every "sdfab:" thread is that device's (the
 * netdev carrying its traffic is not in the public API).
 */
#include <dirent.h>
#include <link.h>
#include <stdio.h>

#include "dp_test.h"
#include "../rdma/rdma_test.h"

#define LEN 4096u
#define DST_OFF 8192u		 /* where the writes land in the target's memory */
#define DEV_THREAD "sdfab:"	 /* a fabric device's service thread: "sdfab:<netdev>" */
#define ADDR_THREAD "sdfab-addr" /* the (GID, QPN) address service */

/* Threads of this process whose name (comm) starts with prefix. */
static int
threads_named(const char *prefix)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)) != NULL) {
		char path[64 + sizeof(e->d_name)], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f == NULL) /* the thread ended meanwhile */
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		n += strncmp(comm, prefix, strlen(prefix)) == 0;
	}
	closedir(d);
	return n;
}

struct lib_count {
	const char *prefix; /* file name the object's starts with */
	int n;
};

static int
count_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lib_count *c = arg;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base != NULL ? base + 1 : info->dlpi_name;
	c->n += strncmp(base, c->prefix, strlen(c->prefix)) == 0;
	return 0;
}

/* How many loaded objects' file names start with prefix. */
static int
libs_loaded(const char *prefix)
{
	struct lib_count c = {.prefix = prefix};

	dl_iterate_phdr(count_lib, &c);
	return c.n;
}

/* DOCA RDMA: contexts a and b on the device, connected; a writes LEN bytes into b's memory. */
static struct doca_mmap *
rdma_write_checked(struct node *a, struct node *b)
{
	uint32_t perms = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;
	struct doca_rdma_connection *ca, *cb;
	struct doca_rdma_task_write *wt;
	struct doca_buf *src, *dst;
	struct result wr = {0};
	struct doca_mmap *imp;
	const void *da, *db, *md;
	size_t la, lb, ml;

	node_open(a, perms, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_open(b, perms, DOCA_ACCESS_FLAG_RDMA_WRITE, 1);
	node_conf_all(a);
	node_conf_all(b);
	node_start(a);
	node_start(b);
	ASSERT_OK(doca_rdma_export(a->rdma, &da, &la, &ca));
	ASSERT_OK(doca_rdma_export(b->rdma, &db, &lb, &cb));
	ASSERT_OK(doca_rdma_connect(a->rdma, db, lb, ca));
	ASSERT_OK(doca_rdma_connect(b->rdma, da, la, cb));

	fill(a->mem, LEN, 0x31);
	ASSERT_OK(doca_mmap_export_rdma(b->mmap, b->dev, &md, &ml));
	ASSERT_OK(doca_mmap_create_from_export(NULL, md, ml, a->dev, &imp));
	src = buf_at(a, a->mmap, a->mem, LEN, LEN);
	dst = buf_at(a, imp, b->mem + DST_OFF, LEN, 0);
	ASSERT_OK(doca_rdma_task_write_allocate_init(a->rdma, ca, src, dst, (union doca_data){.ptr = &wr}, &wt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	for (double end = now_s() + 10; wr.done == 0 && now_s() < end;) {
		doca_pe_progress(a->pe);
		doca_pe_progress(b->pe);
	}
	ASSERT_EQ(wr.done, 1);
	ASSERT_OK(wr.status);
	ASSERT_MEM_EQ(b->mem + DST_OFF, a->mem, LEN);
	ASSERT_EQ(b->mem[DST_OFF - 1], 0);
	ASSERT_EQ(b->mem[DST_OFF + LEN], 0);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	return imp;
}

/* DOCA Verbs on dev's devinfo: QPs a and b connected; a writes LEN bytes into b's buffer. */
static void
verbs_write_checked(struct dp_pair *p, struct doca_dev *dev)
{
	struct doca_verbs_context *ctx;
	struct ibv_wc wc;

	ASSERT_OK(doca_verbs_context_create(doca_dev_as_devinfo(dev), DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &ctx));
	dp_open_ctx(&p->d, ctx);
	p->a = dp_qp(&p->d, NULL);
	p->b = dp_qp(&p->d, NULL);
	dp_connect(&p->d, p->a, p->b, 7);
	p->abuf = calloc(1, LEN);
	p->bbuf = calloc(1, DST_OFF + LEN + 1);
	ASSERT(p->abuf != NULL && p->bbuf != NULL);
	p->amr = dp_mr(&p->d, p->abuf, LEN, DP_ALL);
	p->bmr = dp_mr(&p->d, p->bbuf, DST_OFF + LEN + 1, DP_ALL);

	dp_fill(p->abuf, LEN, 0x57);
	ASSERT_EQ(dp_send(p->a, IBV_WR_RDMA_WRITE, 9, p->abuf, LEN, p->amr->lkey, (uintptr_t)p->bbuf + DST_OFF,
			  p->bmr->rkey),
		  0);
	dp_poll1(p->d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 9);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	ASSERT_MEM_EQ(p->bbuf + DST_OFF, p->abuf, LEN);
	ASSERT_EQ(p->bbuf[DST_OFF - 1], 0);
	ASSERT_EQ(p->bbuf[DST_OFF + LEN], 0);
}

TEST(rdma_and_verbs_share_one_service_thread)
{
	struct node a = {0}, b = {0};
	struct dp_pair v;
	struct doca_mmap *imp;

	ASSERT_EQ(libs_loaded("libdoca_rdma.so"), 1);
	ASSERT_EQ(libs_loaded("libdoca_verbs.so"), 1);
	ASSERT_EQ(libs_loaded("libsoftdoca_fabric.so"), 1);
	imp = rdma_write_checked(&a, &b);
	ASSERT_EQ(threads_named(DEV_THREAD), 1);
	verbs_write_checked(&v, a.dev);
	/* both libraries' traffic on the netdev, one worker serving it; one address service too */
	ASSERT_EQ(threads_named(DEV_THREAD), 1);
	ASSERT_EQ(threads_named(ADDR_THREAD), 1);
	ASSERT_EQ(libs_loaded("libsoftdoca_fabric.so"), 1);

	dp_pair_close(&v);
	ASSERT_EQ(threads_named(ADDR_THREAD), 0);
	ASSERT_EQ(threads_named(DEV_THREAD), 1); /* RDMA still holds the device */
	ASSERT_OK(doca_mmap_destroy(imp));
	node_close(&a);
	node_close(&b);
	ASSERT_EQ(threads_named(DEV_THREAD), 0); /* the last user closed it: its thread was joined */
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
