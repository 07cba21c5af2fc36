/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire formats of mmap export descriptors: the common header every softdoca
 * mmap descriptor starts with, the PCI export descriptor (host -> DPU side of
 * one machine), and the export record an importer reads from the exporter's
 * memory.  All fields are fixed-width little-endian; addresses are u64 values,
 * never pointers dereferenced by the reader.
 */
#ifndef SD_MMAP_PCI_PROTO_H_
#define SD_MMAP_PCI_PROTO_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_error.h>

#include "../util/sd_util.h"
#include "xproc.h"

/*
 * Common header (16 bytes) of every mmap export descriptor.
 *
 *   0      4        6      8          12         16
 *   +------+--------+------+----------+----------+
 *   | magic| version| kind | total_len| reserved |
 *   +------+--------+------+----------+----------+
 *
 * magic "SDMM" as bytes; kind tells doca_mmap_create_from_export which
 * importer parses the rest (PCI here, RDMA in libdoca_rdma, which may use this
 * header with kind SD_MMAP_DESC_KIND_RDMA).  total_len counts the header and
 * must equal the length the application passes.  reserved must be 0.
 */
#define SD_MMAP_DESC_MAGIC 0x4d4d4453u /* "SDMM" little-endian */
#define SD_MMAP_DESC_KIND_PCI 1
#define SD_MMAP_DESC_KIND_RDMA 2

struct sd_mmap_desc_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t kind;
	uint32_t total_len;
	uint32_t reserved;
};
_Static_assert(sizeof(struct sd_mmap_desc_hdr) == 16, "mmap descriptor header is 16 bytes");

/*
 * PCI export descriptor, version 1 (96 bytes; DOCA's samples read at most 512).
 *
 *   off  size  field
 *     0   16   hdr (kind PCI, version 1, total_len 96)
 *    16    4   pid          exporting process
 *    20    4   dev_index    exporting device in the shared topology
 *    24    8   start_time   exporter's start time (/proc/<pid>/stat field 22, clock
 *                           ticks after boot): a reused pid has another one
 *    32    8   addr         exported range, exporter's virtual address
 *    40    8   len          > 0, addr + len does not wrap
 *    48    4   perm         enum doca_access_flag bits of the export; exactly one of
 *                           PCI_READ_ONLY / PCI_READ_WRITE
 *    52    4   flags        0 (reserved)
 *    56    8   record_addr  exporter's address of its grant record (8-aligned)
 *    64   16   key          random 128-bit key, also in the record
 *    80   16   reserved     0
 */
#define SD_MMAP_PCI_DESC_VERSION 1
#define SD_MMAP_PCI_DESC_MAX_LEN 512

struct sd_mmap_pci_desc {
	struct sd_mmap_desc_hdr hdr;
	uint32_t pid;
	uint32_t dev_index;
	uint64_t start_time;
	uint64_t addr;
	uint64_t len;
	uint32_t perm;
	uint32_t flags;
	uint64_t record_addr;
	uint8_t key[16];
	uint8_t reserved[16];
};
_Static_assert(sizeof(struct sd_mmap_pci_desc) == 96, "PCI descriptor v1 is 96 bytes");
_Static_assert(sizeof(struct sd_mmap_pci_desc) <= SD_MMAP_PCI_DESC_MAX_LEN, "PCI descriptor fits 512 bytes");
_Static_assert(offsetof(struct sd_mmap_pci_desc, key) == 64, "PCI descriptor layout");

/*
 * The export record the descriptor's record_addr names is a grant record of
 * the exporter (struct sd_xproc_rec, src/core/xproc.h): the exported range,
 * SD_XPROC_READ (| WRITE for PCI_READ_WRITE), the descriptor's key, and the
 * mmap's DOCA access flags as its tag.
 */

/* A descriptor after parsing, in host byte order. */
struct sd_mmap_pci_desc_info {
	uint16_t version;
	pid_t pid;
	uint32_t dev_index;
	uint64_t start_time;
	uint64_t addr;
	uint64_t len;
	uint32_t perm;
	uint64_t record_addr;
	uint8_t key[16];
};

/*
 * Parse a PCI export descriptor of desc_len bytes (any alignment) without
 * trusting any of it.  Pure: no syscalls, no logging, no allocation.
 * SUCCESS fills *out.  Otherwise *out is untouched and *reason (if not NULL)
 * names the broken rule:
 *   INVALID_VALUE        NULL, shorter than the header, longer than 512 bytes,
 *                        bad magic, not a PCI kind, total_len != desc_len, non-zero
 *                        reserved fields, pid 0, bad permission bits, empty or
 *                        wrapping range, misaligned or null record address;
 *   UNSUPPORTED_VERSION  a well-formed header of another version.
 */
SD_EXPORT doca_error_t sd_mmap_pci_desc_parse(const void *desc, size_t desc_len, struct sd_mmap_pci_desc_info *out,
					      const char **reason);

/* Encode a descriptor (version 1) into buf (sizeof(struct sd_mmap_pci_desc) bytes). */
SD_EXPORT void sd_mmap_pci_desc_encode(const struct sd_mmap_pci_desc_info *info, void *buf);

#endif /* SD_MMAP_PCI_PROTO_H_ */
