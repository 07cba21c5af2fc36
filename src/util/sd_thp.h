/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transparent huge pages for registered ranges (docs/memory.md "Huge pages for
 * registrations"): a same-host peer's process_vm_writev/readv into a range pins
 * its pages one by one, so a range backed by 2 MiB pages costs it about half.
 * SOFTDOCA_MMAP_HUGEPAGES says whether registering a large range advises the
 * kernel (MADV_HUGEPAGE on its 2 MiB-aligned interior: later faults, and
 * khugepaged, may make huge pages) and/or turns the whole 2 MiB pages already
 * there into huge pages now (MADV_COLLAPSE).  No byte of the application's
 * memory changes; its page size may, and with MADV_HUGEPAGE its RSS.
 */
#ifndef SD_THP_H_
#define SD_THP_H_

#include <stddef.h>

#include "sd_util.h"

/* The size of a PMD-mapped transparent huge page on x86-64 and arm64 (4 KiB base pages). */
#define SD_THP_BYTES ((size_t)2 << 20)

/* What SOFTDOCA_MMAP_HUGEPAGES asks for. */
enum sd_thp_mode {
	SD_THP_OFF,	 /* leave the application's pages as they are */
	SD_THP_ADVISE,	 /* MADV_HUGEPAGE: pages faulted in from now on may be huge, khugepaged may collapse */
	SD_THP_COLLAPSE, /* MADV_COLLAPSE of the whole 2 MiB pages present now, nothing else: no page added */
	SD_THP_BOTH,	 /* advise, then collapse */
};

/* The knob, read again on each call (docs/knobs.md). */
SD_EXPORT enum sd_thp_mode sd_thp_mode(void);

/*
 * Advise huge pages on the 2 MiB-aligned interior of [addr, addr + len) as the
 * knob says, if the range is at least SOFTDOCA_MMAP_HUGEPAGES_MIN_BYTES.  Never
 * fails: what is not done (THP off in the kernel, the application's own "no
 * huge pages" advice, hugetlbfs, MADV_COLLAPSE missing or busy) is logged at
 * DBG, naming api.  Returns the bytes of the interior it acted on (0: none).
 */
SD_EXPORT size_t sd_thp_advise(void *addr, size_t len, const char *api);

#endif /* SD_THP_H_ */
