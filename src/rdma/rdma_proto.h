/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire formats of the three descriptors libdoca_rdma hands to applications:
 * the connection descriptor (doca_rdma_export), the RDMA mmap descriptor
 * (doca_mmap_export_rdma) and the remote-net sync-event descriptor
 * (doca_sync_event_export_to_remote_net).  Each is a fixed little-endian
 * header followed by the soft NIC's own blob (src/fabric/fabric_proto.h), at
 * most 4096 bytes in all, no pointers.  The parsers are pure (no syscalls, no
 * logging, no allocation) so that fuzz targets can drive them.
 */
#ifndef SD_RDMA_PROTO_H_
#define SD_RDMA_PROTO_H_

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "../core/mmap_pci_proto.h"

#define SD_RDMA_DESC_MAX 4096u

/*
 * Connection descriptor, version 1 (48 bytes + fabric connection blob).
 *
 *   off size field
 *     0   4  magic        "SDRC"
 *     4   2  version      1
 *     6   2  hdr_len      48 (a newer minor layout may be longer; fabric blob follows hdr_len)
 *     8   4  total_len    hdr_len + fabric_len == the length the application passes
 *    12   4  permissions  the exporting context's doca_rdma_set_permissions() mask
 *    16   4  transport    enum doca_rdma_transport_type of the exporter
 *    20   4  conn_id      the exporter's doca_rdma_connection_get_id()
 *    24  16  key          random per export: two descriptors never compare equal
 *    40   4  fabric_len   bytes of the fabric connection blob (FABRIC_CONN_MAGIC)
 *    44   4  reserved     0
 */
#define SD_RDMA_CONN_MAGIC 0x43524453u /* "SDRC" little-endian */
#define SD_RDMA_CONN_VERSION 1

struct sd_rdma_conn_desc {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_len;
	uint32_t total_len;
	uint32_t permissions;
	uint32_t transport;
	uint32_t conn_id;
	uint8_t key[16];
	uint32_t fabric_len;
	uint32_t reserved;
};
static_assert(sizeof(struct sd_rdma_conn_desc) == 48, "connection descriptor v1 is 48 bytes");

/*
 * RDMA mmap descriptor, version 1 (40 bytes + fabric memory blob).
 *
 *   off size field
 *     0  16  hdr          struct sd_mmap_desc_hdr, kind SD_MMAP_DESC_KIND_RDMA, version 1
 *    16   8  addr         exported range, exporter's virtual address
 *    24   8  len          > 0, no wrap; equal to the fabric blob's range
 *    32   4  permissions  the mmap's doca_access_flag mask (RDMA bits decide)
 *    36   4  fabric_len   bytes of the fabric memory blob (FABRIC_MR_MAGIC) that follows
 */
#define SD_RDMA_MMAP_DESC_VERSION 1

struct sd_rdma_mmap_desc {
	struct sd_mmap_desc_hdr hdr;
	uint64_t addr;
	uint64_t len;
	uint32_t permissions;
	uint32_t fabric_len;
};
static_assert(sizeof(struct sd_rdma_mmap_desc) == 40, "RDMA mmap descriptor v1 is 40 bytes");

/*
 * Remote-net sync-event descriptor, version 1 (32 bytes + fabric memory blob of
 * the event's 8-byte value).
 *
 *   off size field
 *     0   4  magic        "SDSE"
 *     4   2  version      1
 *     6   2  hdr_len      32
 *     8   4  total_len
 *    12   4  fabric_len
 *    16   8  addr         the value's address in the exporter (8-aligned, = fabric range)
 *    24   8  reserved     0
 */
#define SD_RDMA_SE_MAGIC 0x45534453u /* "SDSE" little-endian */
#define SD_RDMA_SE_VERSION 1

struct sd_rdma_se_desc {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_len;
	uint32_t total_len;
	uint32_t fabric_len;
	uint64_t addr;
	uint64_t reserved;
};
static_assert(sizeof(struct sd_rdma_se_desc) == 32, "sync-event descriptor v1 is 32 bytes");

/* Parsed connection descriptor; fabric points into the caller's bytes. */
struct sd_rdma_conn_info {
	uint32_t permissions;
	uint32_t transport;
	uint32_t conn_id;
	const uint8_t *fabric;
	size_t fabric_len;
};

/* Parsed memory descriptor (mmap or sync event). */
struct sd_rdma_mem_info {
	uint64_t addr;
	uint64_t len;
	uint32_t permissions;  /* doca_access_flag mask (mmap); 0 for a sync event */
	uint32_t fabric_perms; /* FABRIC_PERM_* in the fabric blob */
	const uint8_t *fabric;
	size_t fabric_len;
};

/*
 * Parsers: SUCCESS fills *out; otherwise *out is untouched and *reason names
 * the broken rule.  INVALID_VALUE for anything malformed (short, too long,
 * bad magic, lengths that disagree, fabric blob malformed or describing
 * another range, reserved bits set), UNSUPPORTED_VERSION for a well-formed
 * header of another version.
 */
doca_error_t sd_rdma_conn_desc_parse(const void *desc, size_t len, struct sd_rdma_conn_info *out, const char **reason);
doca_error_t sd_rdma_mmap_desc_parse(const void *desc, size_t len, struct sd_rdma_mem_info *out, const char **reason);
doca_error_t sd_rdma_se_desc_parse(const void *desc, size_t len, struct sd_rdma_mem_info *out, const char **reason);

#endif /* SD_RDMA_PROTO_H_ */
