/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared inside the devices module: the topology loader (topology.c: where the
 * description comes from, netdev addresses), its JSON parser (topology_parse.c)
 * and the device API files (dev.c, dev_info.c).
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_TOPOLOGY_INTERNAL_H_
#define SD_TOPOLOGY_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>

#include "dev_internal.h"

/*
 * Parse a topology document (docs/devices.md) into topo->devs / num_devs.  Pure:
 * touches no system state; netdev addresses are filled in afterwards.  Every
 * problem is logged naming source and the JSON path; returns DOCA_ERROR_BAD_CONFIG
 * or DOCA_ERROR_NO_MEMORY, leaving topo untouched.
 */
doca_error_t sd_topology_parse(const char *text, size_t len, const char *source, struct sd_topology *topo);

/*
 * Parse "DDDD:BB:DD.F" or "BB:DD.F" (hex digits in either case) into the
 * canonical lower-case "DDDD:BB:DD.F" (domain 0000 for the short form).  False
 * for anything else.  The parser and dev.c's PCI comparisons share it.
 */
bool sd_pci_addr_normalize(const char *in, char out[13]);

/* Log "<api>: <arg> is NULL; ..." and return DOCA_ERROR_INVALID_VALUE (dev.c, dev_info.c). */
doca_error_t sd_dev_null_arg(const char *api, const char *arg);

#endif /* SD_TOPOLOGY_INTERNAL_H_ */
