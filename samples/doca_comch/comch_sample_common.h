/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the Comch samples share: their flags (-p, -r, -t), the main() around
 * each sample, and opening the device (and, on the DPU, the representor).
 */
#ifndef COMCH_SAMPLE_COMMON_H_
#define COMCH_SAMPLE_COMMON_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>

#define COMCH_MAX_TEXT 4096 /* -t buffer; the max message size (4080) is checked at run time */
#define COMCH_DEFAULT_TEXT "Message from the client"
#define COMCH_DEFAULT_DPU_PCI "03:00.0"
#define COMCH_DEFAULT_HOST_PCI "b1:00.0"
#define COMCH_DEFAULT_REP_PCI "b1:00.0"

struct comch_config {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];	   /* -p: the Comch device */
	char rep_pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r: representor (DPU side) */
	char text[COMCH_MAX_TEXT + 1];			   /* -t */
	uint32_t text_len;
};

struct comch_sample {
	const char *name;   /* program name in the usage */
	bool on_dpu;	    /* server (DPU) or client (host) */
	bool built_for_dpu; /* this build defines DOCA_ARCH_DPU */
	doca_error_t (*run)(const struct comch_config *cfg);
};

/* Defaults, logging, "Starting the sample", personality, flags, run, the final line. */
int comch_sample_main(const struct comch_sample *sample, int argc, char **argv);

/* DPU: open the device at pci (server-capable) and its representor at rep_pci. */
doca_error_t comch_open_server_dev(const char *pci, const char *rep_pci, struct doca_dev **dev,
				   struct doca_dev_rep **rep);
/* Host: open the device at pci (client-capable). */
doca_error_t comch_open_client_dev(const char *pci, struct doca_dev **dev);

/* The text must fit the device's maximum message size (logged, INVALID_VALUE otherwise). */
doca_error_t comch_check_text_len(struct doca_dev *dev, uint32_t text_len);

#endif /* COMCH_SAMPLE_COMMON_H_ */
