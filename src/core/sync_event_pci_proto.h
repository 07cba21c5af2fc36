/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire format of a sync event exported to the other side of the PCI bus
 * (doca_sync_event_export_to_remote_pci).  The event's 8-byte value lives in a
 * shared page (a memfd) of the exporting process; the descriptor names that
 * process and fd, and carries a random key that the page repeats, so an importer
 * maps exactly the page of the event that was exported (not the same fd number
 * of a reused pid).  Fixed-width little-endian fields, no pointers.
 *
 *   off  size  field
 *     0    4   magic "SDSE"
 *     4    2   version (1)
 *     6    2   reserved, 0
 *     8    4   total_len (48)
 *    12    4   pid          exporting process
 *    16    4   fd           its memfd holding the page
 *    20    4   reserved, 0
 *    24   16   key          random, also at SD_SE_PCI_PAGE_KEY_OFF in the page
 *    40    8   reserved, 0
 *
 * Page (SD_SE_PCI_PAGE_SIZE bytes): value (u64, atomic) at 0, key at 16.
 */
#ifndef SD_SYNC_EVENT_PCI_PROTO_H_
#define SD_SYNC_EVENT_PCI_PROTO_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define SD_SE_PCI_MAGIC 0x45534453u /* "SDSE" little-endian */
#define SD_SE_PCI_VERSION 1
#define SD_SE_PCI_DESC_LEN 48u
#define SD_SE_PCI_PAGE_SIZE 4096u
#define SD_SE_PCI_PAGE_KEY_OFF 16u

struct sd_se_pci_desc_info {
	uint32_t pid;
	uint32_t fd;
	uint8_t key[16];
};

/* Encode info into buf (SD_SE_PCI_DESC_LEN bytes). */
void sd_se_pci_desc_encode(const struct sd_se_pci_desc_info *info, uint8_t *buf);

/*
 * Parse len bytes.  SUCCESS fills *info; INVALID_VALUE / UNSUPPORTED_VERSION refuse
 * with *reason set (when not NULL) and *info untouched.
 */
doca_error_t sd_se_pci_desc_parse(const uint8_t *buf, size_t len, struct sd_se_pci_desc_info *info,
				  const char **reason);

#endif /* SD_SYNC_EVENT_PCI_PROTO_H_ */
