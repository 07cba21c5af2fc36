/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_clock_cross_timestamp: the flags main() parses and the sample function
 * that reads one clock, or a clock and a NIC clock as a cross timestamp.
 */
#ifndef CLOCK_CROSS_TIMESTAMP_SAMPLE_H_
#define CLOCK_CROSS_TIMESTAMP_SAMPLE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <doca_clock.h>
#include <doca_error.h>

struct clock_cross_timestamp_sample_cfg {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p */
	bool pci_set;
	uint64_t primary_clock; /* -c: a DOCA_CLOCK_* value */
	uint64_t nic_clock;	/* -n: a DOCA_CLOCK_NIC_* value, 0 for none (one timestamp) */
};

/* The name DOCA's sample prints for a clock ("DOCA_CLOCK_NIC_REAL_TIME"). */
const char *clock_sample_clock_name(uint64_t clock_type);

/* Open the device at cfg->pci_addr, check its NIC clocks, print the reading(s). */
doca_error_t run_clock_cross_timestamp_sample(const struct clock_cross_timestamp_sample_cfg *cfg);

#endif /* CLOCK_CROSS_TIMESTAMP_SAMPLE_H_ */
