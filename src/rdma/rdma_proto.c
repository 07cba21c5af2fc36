/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsers of the descriptors in rdma_proto.h.  They trust nothing: every
 * length is checked before it is used, fields are copied out with memcpy (the
 * application's bytes may be unaligned).  The embedded fabric blob is judged
 * by the fabric's own parser (fabric_blob.c), whose reason the caller logs.
 */
#include <endian.h>
#include <string.h>

#include "rdma_proto.h"
#include "../fabric/fabric_proto.h"
#include "../fabric/fabric.h"
#include "../util/sd_wire.h"

/*
 * The prefix every softdoca RDMA descriptor starts with (le32 magic, le16
 * version, le16 hdr_len, le32 total_len): magic and version first, so a
 * foreign or newer descriptor is named as such, then the lengths against the
 * bytes given and the fixed part of this version.
 */
static doca_error_t
prefix_check(const uint8_t *p, size_t len, uint32_t magic, uint16_t version, size_t fixed, const char *bad_magic,
	     const char *other_version, const char **reason)
{
	uint16_t hdr;
	doca_error_t err;

	if (len < 12 || len > SD_RDMA_DESC_MAX)
		return sd_wire_refuse(reason, "length outside [header, 4096]");
	err = sd_wire_check_magic_version(reason, sd_wire_le32(p), magic, sd_wire_le16(p + 4), version, bad_magic,
					  other_version);
	if (err != DOCA_SUCCESS)
		return err;
	if (len < fixed)
		return sd_wire_refuse(reason, "shorter than the version-1 header");
	hdr = sd_wire_le16(p + 6);
	if (hdr < fixed || hdr > len || sd_wire_le32(p + 8) != len)
		return sd_wire_refuse(reason, "header or total length disagrees with the descriptor's length");
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_conn_desc_parse(const void *desc, size_t len, struct sd_rdma_conn_info *out, const char **reason)
{
	const uint8_t *p = desc;
	struct sd_rdma_conn_desc d;
	doca_error_t err;

	if (desc == NULL || out == NULL)
		return sd_wire_refuse(reason, "NULL descriptor");
	err = prefix_check(p, len, SD_RDMA_CONN_MAGIC, SD_RDMA_CONN_VERSION, sizeof(d),
			   "not a softdoca connection descriptor (bad magic)",
			   "connection descriptor of another version", reason);
	if (err != DOCA_SUCCESS)
		return err;
	memcpy(&d, p, sizeof(d));
	if (le32toh(d.fabric_len) != len - le16toh(d.hdr_len))
		return sd_wire_refuse(reason, "fabric part length disagrees with the total length");
	if (d.reserved != 0)
		return sd_wire_refuse(reason, "reserved field is not 0");
	if (le32toh(d.transport) > 1)
		return sd_wire_refuse(reason, "unknown transport type");
	if (le32toh(d.conn_id) == 0)
		return sd_wire_refuse(reason, "connection id 0");
	err = sd_fabric_conn_blob_parse(p + le16toh(d.hdr_len), le32toh(d.fabric_len), NULL, reason);
	if (err != DOCA_SUCCESS)
		return err;
	out->permissions = le32toh(d.permissions);
	out->transport = le32toh(d.transport);
	out->conn_id = le32toh(d.conn_id);
	out->fabric = p + le16toh(d.hdr_len);
	out->fabric_len = le32toh(d.fabric_len);
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_mmap_desc_parse(const void *desc, size_t len, struct sd_rdma_mem_info *out, const char **reason)
{
	const uint8_t *p = desc;
	struct sd_rdma_mmap_desc d;
	struct fabric_mr_blob fb;
	doca_error_t err;

	if (desc == NULL || out == NULL)
		return sd_wire_refuse(reason, "NULL descriptor");
	if (len < sizeof(d.hdr) || len > SD_RDMA_DESC_MAX)
		return sd_wire_refuse(reason, "length outside [40, 4096]");
	memcpy(&d.hdr, p, sizeof(d.hdr));
	if (le32toh(d.hdr.magic) != SD_MMAP_DESC_MAGIC || le16toh(d.hdr.kind) != SD_MMAP_DESC_KIND_RDMA)
		return sd_wire_refuse(reason, "not a softdoca RDMA mmap descriptor (bad magic or kind)");
	if (le16toh(d.hdr.version) != SD_RDMA_MMAP_DESC_VERSION)
		return sd_wire_refuse_as(reason, "RDMA mmap descriptor of another version",
					 DOCA_ERROR_UNSUPPORTED_VERSION);
	if (len < sizeof(d))
		return sd_wire_refuse(reason, "shorter than the version-1 layout");
	memcpy(&d, p, sizeof(d));
	if (le32toh(d.hdr.total_len) != len || d.hdr.reserved != 0)
		return sd_wire_refuse(reason,
				      "total length disagrees with the descriptor's length, or reserved is set");
	if (le32toh(d.fabric_len) != len - sizeof(d))
		return sd_wire_refuse(reason, "fabric part length disagrees with the total length");
	if (d.len == 0 || le64toh(d.addr) + le64toh(d.len) < le64toh(d.addr))
		return sd_wire_refuse(reason, "empty or wrapping range");
	err = sd_fabric_mr_blob_parse(p + sizeof(d), le32toh(d.fabric_len), &fb, reason);
	if (err != DOCA_SUCCESS)
		return err;
	if (fb.addr != le64toh(d.addr) || fb.len != le64toh(d.len))
		return sd_wire_refuse(reason, "fabric range differs from the descriptor's range");
	out->addr = le64toh(d.addr);
	out->len = le64toh(d.len);
	out->permissions = le32toh(d.permissions);
	out->fabric_perms = fb.perms;
	out->fabric = p + sizeof(d);
	out->fabric_len = le32toh(d.fabric_len);
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_se_desc_parse(const void *desc, size_t len, struct sd_rdma_mem_info *out, const char **reason)
{
	const uint8_t *p = desc;
	struct sd_rdma_se_desc d;
	struct fabric_mr_blob fb;
	doca_error_t err;

	if (desc == NULL || out == NULL)
		return sd_wire_refuse(reason, "NULL descriptor");
	err = prefix_check(p, len, SD_RDMA_SE_MAGIC, SD_RDMA_SE_VERSION, sizeof(d),
			   "not a softdoca sync-event descriptor (bad magic)",
			   "sync-event descriptor of another version", reason);
	if (err != DOCA_SUCCESS)
		return err;
	memcpy(&d, p, sizeof(d));
	if (le32toh(d.fabric_len) != len - le16toh(d.hdr_len) || d.reserved != 0)
		return sd_wire_refuse(reason, "fabric part length disagrees with the total length, or reserved is set");
	if ((le64toh(d.addr) & 7) != 0)
		return sd_wire_refuse(reason, "event value address is not 8-byte aligned");
	err = sd_fabric_mr_blob_parse(p + le16toh(d.hdr_len), le32toh(d.fabric_len), &fb, reason);
	if (err != DOCA_SUCCESS)
		return err;
	if (fb.addr != le64toh(d.addr) || fb.len != 8)
		return sd_wire_refuse(reason, "fabric range is not the event's 8-byte value");
	if ((fb.perms & (FABRIC_PERM_REMOTE_READ | FABRIC_PERM_REMOTE_ATOMIC)) !=
	    (FABRIC_PERM_REMOTE_READ | FABRIC_PERM_REMOTE_ATOMIC))
		return sd_wire_refuse(reason, "fabric range does not grant read and atomic access");
	out->addr = fb.addr;
	out->len = 8;
	out->permissions = 0;
	out->fabric_perms = fb.perms;
	out->fabric = p + le16toh(d.hdr_len);
	out->fabric_len = le32toh(d.fabric_len);
	return DOCA_SUCCESS;
}
