/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Opening a device function by PCI address for tests that play both ends of
 * a host/DPU pair in one process.  A program sees only its own side's
 * functions (docs/personalities.md); the test switches its side to the one
 * the address belongs to before listing.
 */
#include <doca_dev.h>

#include "dev_internal.h"
#include "sd_test.h"

static struct doca_dev *
open_on_side(const char *pci, enum sd_dev_side side)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	sd_dev_process_side_set(side);
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t is = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &is) == DOCA_SUCCESS && is)
			ASSERT_OK(doca_dev_open(list[i], &dev));
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
	return dev;
}

struct doca_dev *
sd_test_open_pci(const char *pci)
{
	struct doca_dev *dev = open_on_side(pci, SD_DEV_SIDE_HOST);

	if (dev == NULL)
		dev = open_on_side(pci, SD_DEV_SIDE_DPU);
	if (dev == NULL)
		sd_test_fail(__FILE__, __LINE__, "no device function at PCI address %s on either side", pci);
	return dev;
}
