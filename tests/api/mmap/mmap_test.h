/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the mmap / buf / inventory tests, public API only: the built-in
 * topology's host function (PCI export) and small fixtures.  Device and log
 * helpers come from the device tests' header.  The unit tests that also open
 * the DPU function in the same process add tests/unit/mmap/mmap_dpu.h.
 */
#ifndef MMAP_TEST_H_
#define MMAP_TEST_H_

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "../dev/dev_test.h"

/* Built-in topology: mlx5_0 is a host-side function, mlx5_2 a DPU-side one. */
#define HOST_IBDEV "mlx5_0"
#define DPU_IBDEV "mlx5_2"

static inline struct doca_dev *
open_host_dev(void)
{
	use_builtin_topology();
	return open_ibdev(HOST_IBDEV);
}

/* A started mmap over [addr, addr + len) with these permissions and (optional) device. */
static inline struct doca_mmap *
started_mmap(void *addr, size_t len, uint32_t perm, struct doca_dev *dev)
{
	struct doca_mmap *m = NULL;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, addr, len));
	ASSERT_OK(doca_mmap_set_permissions(m, perm));
	if (dev != NULL)
		ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_start(m));
	return m;
}

static inline struct doca_buf_inventory *
started_inventory(size_t n)
{
	struct doca_buf_inventory *inv = NULL;

	ASSERT_OK(doca_buf_inventory_create(n, &inv));
	ASSERT_OK(doca_buf_inventory_start(inv));
	return inv;
}

#define SENTINEL_PTR ((void *)(uintptr_t)0x5a5a5a5a)

#endif /* MMAP_TEST_H_ */
