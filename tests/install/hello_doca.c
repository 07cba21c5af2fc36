/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A tiny DOCA Core program built against an installed softdoca through
 * pkg-config: prints its personality, lists devices and copies 4 KiB with DMA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

static int done;

static void
copy_done(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	(void)ctx_user_data;
	done = doca_task_get_status(doca_dma_task_memcpy_as_task(task)) == DOCA_SUCCESS ? 1 : -1;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

#define CHECK(expr)                                                                                                    \
	do {                                                                                                           \
		doca_error_t r_ = (expr);                                                                              \
		if (r_ != DOCA_SUCCESS) {                                                                              \
			fprintf(stderr, "%s: %s\n", #expr, doca_error_get_name(r_));                                   \
			return 1;                                                                                      \
		}                                                                                                      \
	} while (0)

int
main(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *src, *dst;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_dma_task_memcpy *task;
	uint32_t n;
	static char mem[8192];

#if defined(DOCA_ARCH_HOST) && !defined(DOCA_ARCH_DPU)
	printf("personality: host\n");
#elif defined(DOCA_ARCH_DPU) && !defined(DOCA_ARCH_HOST)
	printf("personality: dpu\n");
#else
	printf("personality: broken\n");
	return 1;
#endif
	printf("version: %s\n", doca_version_runtime());
	CHECK(doca_devinfo_create_list(&list, &n));
	/* Each side sees its own functions: the host b1:00.x, the DPU 03:00.x. */
	for (uint32_t i = 0; i < n; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];

		CHECK(doca_devinfo_get_pci_addr_str(list[i], pci));
		printf("device: %s\n", pci);
	}
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS)
			CHECK(doca_dev_open(list[i], &dev));
	CHECK(doca_devinfo_destroy_list(list));
	if (dev == NULL)
		return 1;
	printf("devices: %u\n", n);

	memset(mem, 'a', 4096);
	memset(mem + 4096, 0, 4096);
	CHECK(doca_mmap_create(&mmap));
	CHECK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	CHECK(doca_mmap_add_dev(mmap, dev));
	CHECK(doca_mmap_start(mmap));
	CHECK(doca_buf_inventory_create(2, &inv));
	CHECK(doca_buf_inventory_start(inv));
	CHECK(doca_buf_inventory_buf_get_by_data(inv, mmap, mem, 4096, &src));
	CHECK(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + 4096, 4096, &dst));
	CHECK(doca_pe_create(&pe));
	CHECK(doca_dma_create(dev, &dma));
	CHECK(doca_dma_task_memcpy_set_conf(dma, copy_done, copy_done, 1));
	CHECK(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	CHECK(doca_ctx_start(doca_dma_as_ctx(dma)));
	CHECK(doca_dma_task_memcpy_alloc_init(dma, src, dst, (union doca_data){.u64 = 0}, &task));
	CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
	while (done == 0)
		doca_pe_progress(pe);
	if (done != 1 || memcmp(mem, mem + 4096, 4096) != 0)
		return 1;
	printf("dma: copied 4096 bytes\n");
	CHECK(doca_ctx_stop(doca_dma_as_ctx(dma)));
	CHECK(doca_dma_destroy(dma));
	CHECK(doca_pe_destroy(pe));
	CHECK(doca_buf_dec_refcount(src, NULL));
	CHECK(doca_buf_dec_refcount(dst, NULL));
	CHECK(doca_buf_inventory_destroy(inv));
	CHECK(doca_mmap_destroy(mmap));
	CHECK(doca_dev_close(dev));
	return 0;
}
