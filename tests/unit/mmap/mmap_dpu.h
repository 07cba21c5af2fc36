/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in topology's DPU function (PCI import) for the mmap tests that hold
 * both ends of a PCI export in one process; the side switch is internal
 * (dev_internal.h), which is why those tests are unit tests.
 */
#ifndef MMAP_DPU_H_
#define MMAP_DPU_H_

#include "dev_internal.h"
#include "mmap_test.h"

/*
 * These tests hold both ends of a PCI export in one host-built process.  A host
 * program lists only host functions (docs/personalities.md), so the DPU function
 * is opened by listing as the DPU would (the test-only side switch), then the
 * process is a host program again.
 */
static inline struct doca_dev *
open_dpu_dev(void)
{
	struct doca_dev *dev;

	use_builtin_topology();
	sd_dev_process_side_set(SD_DEV_SIDE_DPU);
	dev = open_ibdev(DPU_IBDEV);
	sd_dev_process_side_set(SD_DEV_SIDE_HOST);
	return dev;
}

#endif /* MMAP_DPU_H_ */
