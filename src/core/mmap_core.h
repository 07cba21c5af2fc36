/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the mmap, buf and inventory files of libdoca_common only;
 * other libraries use mmap_internal.h.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_MMAP_CORE_H_
#define SD_MMAP_CORE_H_

#include "mmap_internal.h"

/* Index of dev in mmap->devs, or -1. */
static inline int
sd_mmap_dev_slot(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		if (mmap->devs[i] == dev)
			return (int)i;
	return -1;
}

/*
 * The checks every export shares: non-NULL arguments, not from-export (NOT_PERMITTED),
 * started (BAD_STATE), dev added to the mmap (INVALID_VALUE).  Logged under api.
 */
doca_error_t sd_mmap_check_exportable(const struct doca_mmap *mmap, const struct doca_dev *dev, const void **desc,
				      size_t *desc_len, const char *api);

/*
 * End what PCI gave mmap: revoke its export (record no longer live, the door
 * closed with the last export) and free its descriptors; for an import, hang
 * up on the exporter's door.  No-op when the mmap has neither.
 */
void sd_mmap_pci_stop(struct doca_mmap *mmap);

/*
 * doca_mmap_create_from_export for a PCI descriptor: parse it, verify the
 * exporter, knock on its door (xproc.h) and check its record, and fill mmap
 * (kind, addr, len, memrange_set, permissions, peer).  Logs its refusals under the public API's name.
 */
doca_error_t sd_mmap_pci_import(struct doca_mmap *mmap, const void *desc, size_t desc_len, struct doca_dev *dev);

/*
 * Return a buf whose refcount reached 0 (or a list element released with its
 * head) to its inventory and drop its reference on the mmap.
 */
void sd_buf_inventory_put(struct doca_buf *buf);

#endif /* SD_MMAP_CORE_H_ */
