/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA's clock_cross_timestamp sample includes doca_clock.h (with doca_argp.h,
 * doca_error.h, doca_log.h) and nothing else, yet copies a PCI address of
 * DOCA_DEVINFO_PCI_ADDR_SIZE bytes with strnlen / strncpy and compares clock
 * names with strcmp: doca_clock.h brings doca_dev.h and, through it, <string.h>.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <doca_argp.h>
#include <doca_clock.h>
#include <doca_error.h>
#include <doca_log.h>

int sd_uses_clock_alone(const char *pci, const char *clock_name, const struct doca_clock *clock);

int
sd_uses_clock_alone(const char *pci, const char *clock_name, const struct doca_clock *clock)
{
	char addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	union doca_clock_timespec_t ts;
	size_t len = strnlen(pci, DOCA_DEVINFO_PCI_ADDR_SIZE);
	uint64_t type = strcmp(clock_name, "nic_fr") == 0 ? DOCA_CLOCK_NIC_FREE_RUNNING : DOCA_CLOCK_HOST_REAL_TIME;

	if (len >= DOCA_DEVINFO_PCI_ADDR_SIZE)
		return -1;
	strncpy(addr, pci, len + 1);
	return (int)doca_clock_get_timestamp(clock, type, &ts) + (int)addr[0];
}
