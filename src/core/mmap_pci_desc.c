/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encoder and defensive parser of the PCI export descriptor (mmap_pci_proto.h).
 * Pure functions: the fuzz target compiles this file on its own.
 */
#include <string.h>

#include <doca_types.h>

#include "mmap_pci_proto.h"
#include "../util/sd_wire.h"

#define PCI_PERM_KNOWN_BITS                                                                                            \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |                \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC | DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE |             \
	 DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING)

#define OFF(field) offsetof(struct sd_mmap_pci_desc, field)

void
sd_mmap_pci_desc_encode(const struct sd_mmap_pci_desc_info *info, void *buf)
{
	uint8_t *p = buf;

	memset(p, 0, sizeof(struct sd_mmap_pci_desc));
	sd_wire_put_le32(p + OFF(hdr.magic), SD_MMAP_DESC_MAGIC);
	sd_wire_put_le16(p + OFF(hdr.version), SD_MMAP_PCI_DESC_VERSION);
	sd_wire_put_le16(p + OFF(hdr.kind), SD_MMAP_DESC_KIND_PCI);
	sd_wire_put_le32(p + OFF(hdr.total_len), sizeof(struct sd_mmap_pci_desc));
	sd_wire_put_le32(p + OFF(pid), (uint32_t)info->pid);
	sd_wire_put_le32(p + OFF(dev_index), info->dev_index);
	sd_wire_put_le64(p + OFF(start_time), info->start_time);
	sd_wire_put_le64(p + OFF(addr), info->addr);
	sd_wire_put_le64(p + OFF(len), info->len);
	sd_wire_put_le32(p + OFF(perm), info->perm);
	sd_wire_put_le64(p + OFF(record_addr), info->record_addr);
	memcpy(p + OFF(key), info->key, sizeof(info->key));
}

doca_error_t
sd_mmap_pci_desc_parse(const void *desc, size_t desc_len, struct sd_mmap_pci_desc_info *out, const char **reason)
{
	const uint8_t *p = desc;
	struct sd_mmap_pci_desc_info info;
	uint32_t pci;

	if (desc == NULL || out == NULL)
		return sd_wire_refuse_as(reason, "NULL descriptor", DOCA_ERROR_INVALID_VALUE);
	if (desc_len < sizeof(struct sd_mmap_desc_hdr))
		return sd_wire_refuse_as(reason, "shorter than the descriptor header", DOCA_ERROR_INVALID_VALUE);
	if (desc_len > SD_MMAP_PCI_DESC_MAX_LEN)
		return sd_wire_refuse_as(reason, "longer than 512 bytes", DOCA_ERROR_INVALID_VALUE);
	if (sd_wire_le32(p + OFF(hdr.magic)) != SD_MMAP_DESC_MAGIC)
		return sd_wire_refuse_as(reason, "bad magic: not a softdoca mmap export", DOCA_ERROR_INVALID_VALUE);
	if (sd_wire_le16(p + OFF(hdr.kind)) != SD_MMAP_DESC_KIND_PCI)
		return sd_wire_refuse_as(reason, "not a PCI export (wrong kind)", DOCA_ERROR_INVALID_VALUE);
	if (sd_wire_le32(p + OFF(hdr.total_len)) != desc_len)
		return sd_wire_refuse_as(reason, "length differs from the length recorded in the descriptor",
					 DOCA_ERROR_INVALID_VALUE);
	/* Versions are checked once the header itself is known to be sound. */
	if (sd_wire_le16(p + OFF(hdr.version)) != SD_MMAP_PCI_DESC_VERSION)
		return sd_wire_refuse_as(reason, "descriptor version is not 1", DOCA_ERROR_UNSUPPORTED_VERSION);
	if (desc_len != sizeof(struct sd_mmap_pci_desc))
		return sd_wire_refuse_as(reason, "version 1 descriptors are 96 bytes", DOCA_ERROR_INVALID_VALUE);
	if (sd_wire_le32(p + OFF(hdr.reserved)) != 0 || sd_wire_le32(p + OFF(flags)) != 0 ||
	    !sd_wire_zero(p + OFF(reserved), sizeof(((struct sd_mmap_pci_desc *)0)->reserved)))
		return sd_wire_refuse_as(reason, "reserved fields are not zero", DOCA_ERROR_INVALID_VALUE);

	info.version = SD_MMAP_PCI_DESC_VERSION;
	info.pid = (pid_t)sd_wire_le32(p + OFF(pid));
	info.dev_index = sd_wire_le32(p + OFF(dev_index));
	info.start_time = sd_wire_le64(p + OFF(start_time));
	info.addr = sd_wire_le64(p + OFF(addr));
	info.len = sd_wire_le64(p + OFF(len));
	info.perm = sd_wire_le32(p + OFF(perm));
	info.record_addr = sd_wire_le64(p + OFF(record_addr));
	memcpy(info.key, p + OFF(key), sizeof(info.key));

	if (info.pid <= 0)
		return sd_wire_refuse_as(reason, "exporter pid is not positive", DOCA_ERROR_INVALID_VALUE);
	if (info.perm & ~(uint32_t)PCI_PERM_KNOWN_BITS)
		return sd_wire_refuse_as(reason, "unknown permission bits", DOCA_ERROR_INVALID_VALUE);
	pci = info.perm & (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (pci == 0 || pci == (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE))
		return sd_wire_refuse_as(reason, "permission must hold exactly one PCI access flag",
					 DOCA_ERROR_INVALID_VALUE);
	if (info.addr == 0 || info.len == 0)
		return sd_wire_refuse_as(reason, "empty or null range", DOCA_ERROR_INVALID_VALUE);
	if (info.addr + info.len < info.addr || info.len > (uint64_t)SIZE_MAX || info.addr > (uint64_t)UINTPTR_MAX ||
	    info.addr + info.len - 1 > (uint64_t)UINTPTR_MAX)
		return sd_wire_refuse_as(reason, "range wraps the address space", DOCA_ERROR_INVALID_VALUE);
	if (info.record_addr == 0 || (info.record_addr & 7) != 0 || info.record_addr > (uint64_t)UINTPTR_MAX)
		return sd_wire_refuse_as(reason, "export record address is null or misaligned",
					 DOCA_ERROR_INVALID_VALUE);

	*out = info;
	return DOCA_SUCCESS;
}
