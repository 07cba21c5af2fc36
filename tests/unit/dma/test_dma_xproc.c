/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host -> DPU path across two processes, at the API level: a forked "host"
 * exports a buffer with doca_mmap_export_pci(); the "DPU" (this process) imports it
 * with doca_mmap_create_from_export() and DMA-copies from it, writes back into it
 * (PCI_READ_WRITE), is refused writing into a read-only export (NOT_PERMITTED), and
 * gets DOCA_ERROR_DRIVER once the exporter is gone.
 */
#include <signal.h>
#include <sys/wait.h>

#include "dma_test.h"
#include "dev_internal.h"
#include "sd_test_peer.h"

#define XLEN (256u * 1024u)

struct host {
	pid_t pid;
	int cmd;   /* parent -> child */
	int reply; /* child -> parent */
	uint8_t desc[512];
	size_t desc_len;
	uint8_t *addr;
};

static uint8_t
pattern(size_t i)
{
	return (uint8_t)(i * 11 + (i >> 10) + 3);
}

/* The host side: export, report, then obey commands until 'q'. */
static void __attribute__((noreturn)) host_main(uint32_t perms, int cmd, int reply)
{
	uint8_t *buf = malloc(XLEN);
	struct doca_mmap *mmap;
	struct doca_dev *dev;
	const void *desc;
	size_t desc_len;
	char c;

	for (size_t i = 0; i < XLEN; i++)
		buf[i] = pattern(i);
	dev = open_dev(T_HOST_PCI);
	ASSERT_OK(doca_mmap_create(&mmap));
	ASSERT_OK(doca_mmap_set_memrange(mmap, buf, XLEN));
	ASSERT_OK(doca_mmap_set_permissions(mmap, perms));
	ASSERT_OK(doca_mmap_add_dev(mmap, dev));
	ASSERT_OK(doca_mmap_start(mmap));
	ASSERT_OK(doca_mmap_export_pci(mmap, dev, &desc, &desc_len));
	ASSERT(desc_len <= 512);
	ASSERT_EQ(write(reply, &desc_len, sizeof(desc_len)), sizeof(desc_len));
	ASSERT_EQ(write(reply, desc, desc_len), (ssize_t)desc_len);
	ASSERT_EQ(write(reply, &buf, sizeof(buf)), sizeof(buf));
	while (read(cmd, &c, 1) == 1) {
		uint8_t ok = 1;

		switch (c) {
		case 'w': /* did the parent write 0xA5 ^ pattern into [1000, XLEN)? */
			for (size_t i = 0; i < XLEN; i++)
				if (buf[i] != (i < 1000 ? pattern(i) : (uint8_t)(pattern(i) ^ 0xA5)))
					ok = 0;
			break;
		case 'u': /* untouched? */
			for (size_t i = 0; i < XLEN; i++)
				if (buf[i] != pattern(i))
					ok = 0;
			break;
		case 's': /* revoke the export */
			ok = doca_mmap_stop(mmap) == DOCA_SUCCESS;
			break;
		default:
			_exit(0);
		}
		ASSERT_EQ(write(reply, &ok, 1), 1);
	}
	_exit(0);
}

static struct host
host_start(uint32_t perms)
{
	int down[2], up[2];
	struct host h;

	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	ASSERT_EQ(pipe(down), 0);
	ASSERT_EQ(pipe(up), 0);
	h.pid = fork();
	ASSERT(h.pid >= 0);
	if (h.pid == 0) {
		close(down[1]);
		close(up[0]);
		host_main(perms, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	h.cmd = down[1];
	h.reply = up[0];
	ASSERT_EQ(read(h.reply, &h.desc_len, sizeof(h.desc_len)), sizeof(h.desc_len));
	ASSERT(h.desc_len <= sizeof(h.desc));
	ASSERT_EQ(read(h.reply, h.desc, h.desc_len), (ssize_t)h.desc_len);
	ASSERT_EQ(read(h.reply, &h.addr, sizeof(h.addr)), sizeof(h.addr));
	return h;
}

static bool
host_ask(struct host *h, char c)
{
	uint8_t ok = 0;

	ASSERT_EQ(write(h->cmd, &c, 1), 1);
	ASSERT_EQ(read(h->reply, &ok, 1), 1);
	return ok == 1;
}

static void
host_stop(struct host *h)
{

	ASSERT_EQ(write(h->cmd, "q", 1), 1);
	sd_test_reap(h->pid);
}

/* The DPU side: a context on the DPU function, local memory, and the imported mmap. */
static struct doca_mmap *
dpu_open(struct env *e, struct host *h)
{
	struct doca_mmap *remote = NULL;
	void *addr;
	size_t len;

	/*
	 * This process plays the DPU program (the forked child stays the host): it
	 * lists the DPU's functions, as a program built with the DPU personality does.
	 */
	sd_dev_process_side_set(SD_DEV_SIDE_DPU);
	env_open(e, T_DPU_PCI, 2 * XLEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 8);
	ASSERT_OK(doca_mmap_create_from_export(NULL, h->desc, h->desc_len, e->dev, &remote));
	ASSERT_OK(doca_mmap_get_memrange(remote, &addr, &len));
	ASSERT_PTR_EQ(addr, h->addr);
	ASSERT_EQ(len, XLEN);
	env_start(e);
	return remote;
}

static doca_error_t
copy(struct env *e, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {.u64 = 0};
	unsigned before = results.ok + results.err;

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, src, dst, ud, &t));
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	progress_until(e->pe, &results.n, before + 1);
	return results.last_status;
}

TEST(host_to_dpu_copy)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_buf *src, *src2, *dst;
	struct doca_mmap *remote;
	struct env e;
	size_t len;

	remote = dpu_open(&e, &h);
	/* A source in the exporter's address space, as dma_copy_dpu builds it. */
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, h.addr, XLEN, &src));
	dst = dst_buf(&e, 0, XLEN);
	ASSERT_ERR(copy(&e, src, dst), DOCA_SUCCESS);
	for (size_t i = 0; i < XLEN; i++)
		if (e.mem[i] != pattern(i))
			sd_test_fail(__FILE__, __LINE__, "byte %zu: 0x%02x != 0x%02x", i, e.mem[i], pattern(i));
	ASSERT_OK(doca_buf_get_data_len(dst, &len));
	ASSERT_EQ(len, XLEN);
	ASSERT(all_guard(e.mem + XLEN, XLEN));

	/* A window in the middle, into a destination that already holds data. */
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, h.addr + 4097, 3000, &src2));
	dst = dst_buf(&e, XLEN, 8192);
	ASSERT_OK(doca_buf_set_data(dst, e.mem + XLEN, 5));
	ASSERT_ERR(copy(&e, src2, dst), DOCA_SUCCESS);
	for (size_t i = 0; i < 3000; i++)
		ASSERT_EQ(e.mem[XLEN + 5 + i], pattern(4097 + i));
	ASSERT(all_guard(e.mem + XLEN + 3005, XLEN - 3005));

	ASSERT(host_ask(&h, 'u'));
	/*
	 * DMA Copy's DPU order: release the bufs, destroy the imported mmap while
	 * the context runs, then stop and destroy the context and close the device.
	 */
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(src2, NULL));
	ASSERT_ERR(doca_mmap_stop(remote), DOCA_ERROR_BAD_STATE); /* the running context cached it */
	ASSERT_OK(doca_mmap_destroy(remote));
	env_close(&e);
	host_stop(&h);
}

/*
 * NVIDIA's DMA Copy, DPU side, tears down in this order after its copy: release
 * the bufs, destroy the imported mmap (its DMA context still running), stop and
 * destroy the context, destroy the rest, close the device.  Every call succeeds.
 */
TEST(dma_copy_dpu_teardown_order)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	struct env e;

	remote = dpu_open(&e, &h);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, h.addr, XLEN, &src));
	dst = dst_buf(&e, 0, XLEN);
	ASSERT_ERR(copy(&e, src, dst), DOCA_SUCCESS);
	ASSERT_EQ(e.mem[XLEN - 1], pattern(XLEN - 1));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_mmap_destroy(remote));
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_dma_destroy(e.dma));
	ASSERT_OK(doca_mmap_destroy(e.mmap));
	ASSERT_OK(doca_buf_inventory_destroy(e.inv));
	ASSERT_OK(doca_pe_destroy(e.pe));
	ASSERT_OK(doca_dev_close(e.dev));
	free(e.mem);
	host_stop(&h);
}

/*
 * A source released while its copy is in flight (strict mode's buf-released-in-flight,
 * docs/diagnostics.md): by default the copy still runs from the same exported range, as on
 * hardware - the cross-process engine still finds the exporter through the buf's mmap.
 */
TEST(remote_source_released_in_flight_still_copies)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dma_task_memcpy *t;
	union doca_data ud = {.u64 = 0};
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	struct env e;

	remote = dpu_open(&e, &h);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, h.addr, 4096, &src));
	dst = dst_buf(&e, 0, 4096);
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, src, dst, ud, &t));
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	progress_until(e.pe, &results.n, 1);
	ASSERT_ERR(results.last_status, DOCA_SUCCESS);
	for (size_t i = 0; i < 4096; i++)
		ASSERT_EQ(e.mem[i], pattern(i));
	ASSERT_OK(doca_mmap_destroy(remote));
	env_close(&e);
	host_stop(&h);
}

/* Write-back into a PCI_READ_WRITE export (the destination lives in the other process). */
TEST(dpu_writes_back_to_host)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	struct env e;
	size_t len;

	remote = dpu_open(&e, &h);
	for (size_t i = 0; i < XLEN - 1000; i++)
		e.mem[i] = (uint8_t)(pattern(i + 1000) ^ 0xA5);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, e.mmap, e.mem, XLEN - 1000, &src));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, remote, h.addr, XLEN, &dst));
	ASSERT_OK(doca_buf_set_data(dst, h.addr, 1000)); /* tail room starts at 1000 */
	ASSERT_ERR(copy(&e, src, dst), DOCA_SUCCESS);
	ASSERT_OK(doca_buf_get_data_len(dst, &len));
	ASSERT_EQ(len, XLEN);
	ASSERT(host_ask(&h, 'w'));
	env_close(&e);
	host_stop(&h);
}

/* Taxonomy: a read-only export as destination -> NOT_PERMITTED, host memory untouched. */
TEST(read_only_export_as_destination_not_permitted)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_dma_task_memcpy *t;
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	union doca_data ud = {.u64 = 0};
	struct env e;

	remote = dpu_open(&e, &h);
	src = src_buf(&e, 0, 4096, 1);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, remote, h.addr, XLEN, &dst));
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, src, dst, ud, &t));
	ASSERT_ERR(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_NOT_PERMITTED);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	ASSERT_ERR(copy(&e, src, dst), DOCA_ERROR_NOT_PERMITTED);
	ASSERT(host_ask(&h, 'u'));
	progress_until_idle(e.pe, e.ctx);
	host_stop(&h);
}

/* Taxonomy: the exporting process is gone -> DRIVER completion, destination untouched. */
TEST(exporter_gone_driver)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	struct env e;

	remote = dpu_open(&e, &h);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, h.addr, XLEN, &src));
	dst = dst_buf(&e, 0, XLEN);
	kill(h.pid, SIGKILL);
	ASSERT_EQ(sd_test_wait_exit(h.pid), SD_TEST_EXIT_SIGNAL(SIGKILL));
	ASSERT_ERR(copy(&e, src, dst), DOCA_ERROR_DRIVER);
	ASSERT(all_guard(e.mem, 2 * XLEN));
	progress_until_idle(e.pe, e.ctx);
}

/* The exporter revoked its export (doca_mmap_stop): NOT_PERMITTED, nothing copied. */
TEST(revoked_export_not_permitted)
{
	struct host h = host_start(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct doca_buf *src, *dst;
	struct doca_mmap *remote;
	struct env e;

	remote = dpu_open(&e, &h);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, remote, h.addr, XLEN, &src));
	dst = dst_buf(&e, 0, XLEN);
	ASSERT(host_ask(&h, 's'));
	ASSERT_ERR(copy(&e, src, dst), DOCA_ERROR_NOT_PERMITTED);
	ASSERT(all_guard(e.mem, 2 * XLEN));
	progress_until_idle(e.pe, e.ctx);
	host_stop(&h);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
