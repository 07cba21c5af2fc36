/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encoder and defensive parser of the PCI export descriptor (mmap_pci_proto.h).
 * Pure functions: the fuzz target compiles this file on its own.
 */
#include <endian.h>
#include <string.h>

#include <doca_types.h>

#include "mmap_pci_proto.h"

#define PCI_PERM_KNOWN_BITS                                                                                            \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |                \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC | DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE |             \
	 DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING)

/* Unaligned little-endian loads and stores: the descriptor may sit anywhere. */
static uint16_t
ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t
ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void
st16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static void
st32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void
st64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

#define OFF(field) offsetof(struct sd_mmap_pci_desc, field)

void
sd_mmap_pci_desc_encode(const struct sd_mmap_pci_desc_info *info, void *buf)
{
	uint8_t *p = buf;

	memset(p, 0, sizeof(struct sd_mmap_pci_desc));
	st32(p + OFF(hdr.magic), SD_MMAP_DESC_MAGIC);
	st16(p + OFF(hdr.version), SD_MMAP_PCI_DESC_VERSION);
	st16(p + OFF(hdr.kind), SD_MMAP_DESC_KIND_PCI);
	st32(p + OFF(hdr.total_len), sizeof(struct sd_mmap_pci_desc));
	st32(p + OFF(pid), (uint32_t)info->pid);
	st32(p + OFF(dev_index), info->dev_index);
	st64(p + OFF(start_time), info->start_time);
	st64(p + OFF(addr), info->addr);
	st64(p + OFF(len), info->len);
	st32(p + OFF(perm), info->perm);
	st64(p + OFF(record_addr), info->record_addr);
	memcpy(p + OFF(key), info->key, sizeof(info->key));
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	while (n-- > 0)
		acc |= *p++;
	return acc == 0;
}

static doca_error_t
refuse(doca_error_t err, const char *why, const char **reason)
{
	if (reason != NULL)
		*reason = why;
	return err;
}

doca_error_t
sd_mmap_pci_desc_parse(const void *desc, size_t desc_len, struct sd_mmap_pci_desc_info *out, const char **reason)
{
	const uint8_t *p = desc;
	struct sd_mmap_pci_desc_info info;
	uint32_t pci;

	if (desc == NULL || out == NULL)
		return refuse(DOCA_ERROR_INVALID_VALUE, "NULL descriptor", reason);
	if (desc_len < sizeof(struct sd_mmap_desc_hdr))
		return refuse(DOCA_ERROR_INVALID_VALUE, "shorter than the descriptor header", reason);
	if (desc_len > SD_MMAP_PCI_DESC_MAX_LEN)
		return refuse(DOCA_ERROR_INVALID_VALUE, "longer than 512 bytes", reason);
	if (ld32(p + OFF(hdr.magic)) != SD_MMAP_DESC_MAGIC)
		return refuse(DOCA_ERROR_INVALID_VALUE, "bad magic: not a softdoca mmap export", reason);
	if (ld16(p + OFF(hdr.kind)) != SD_MMAP_DESC_KIND_PCI)
		return refuse(DOCA_ERROR_INVALID_VALUE, "not a PCI export (wrong kind)", reason);
	if (ld32(p + OFF(hdr.total_len)) != desc_len)
		return refuse(DOCA_ERROR_INVALID_VALUE, "length differs from the length recorded in the descriptor",
			      reason);
	/* Versions are checked once the header itself is known to be sound. */
	if (ld16(p + OFF(hdr.version)) != SD_MMAP_PCI_DESC_VERSION)
		return refuse(DOCA_ERROR_UNSUPPORTED_VERSION, "descriptor version is not 1", reason);
	if (desc_len != sizeof(struct sd_mmap_pci_desc))
		return refuse(DOCA_ERROR_INVALID_VALUE, "version 1 descriptors are 96 bytes", reason);
	if (ld32(p + OFF(hdr.reserved)) != 0 || ld32(p + OFF(flags)) != 0 ||
	    !all_zero(p + OFF(reserved), sizeof(((struct sd_mmap_pci_desc *)0)->reserved)))
		return refuse(DOCA_ERROR_INVALID_VALUE, "reserved fields are not zero", reason);

	info.version = SD_MMAP_PCI_DESC_VERSION;
	info.pid = (pid_t)ld32(p + OFF(pid));
	info.dev_index = ld32(p + OFF(dev_index));
	info.start_time = ld64(p + OFF(start_time));
	info.addr = ld64(p + OFF(addr));
	info.len = ld64(p + OFF(len));
	info.perm = ld32(p + OFF(perm));
	info.record_addr = ld64(p + OFF(record_addr));
	memcpy(info.key, p + OFF(key), sizeof(info.key));

	if (info.pid <= 0)
		return refuse(DOCA_ERROR_INVALID_VALUE, "exporter pid is not positive", reason);
	if (info.perm & ~(uint32_t)PCI_PERM_KNOWN_BITS)
		return refuse(DOCA_ERROR_INVALID_VALUE, "unknown permission bits", reason);
	pci = info.perm & (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	if (pci == 0 || pci == (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE))
		return refuse(DOCA_ERROR_INVALID_VALUE, "permission must hold exactly one PCI access flag", reason);
	if (info.addr == 0 || info.len == 0)
		return refuse(DOCA_ERROR_INVALID_VALUE, "empty or null range", reason);
	if (info.addr + info.len < info.addr || info.len > (uint64_t)SIZE_MAX || info.addr > (uint64_t)UINTPTR_MAX ||
	    info.addr + info.len - 1 > (uint64_t)UINTPTR_MAX)
		return refuse(DOCA_ERROR_INVALID_VALUE, "range wraps the address space", reason);
	if (info.record_addr == 0 || (info.record_addr & 7) != 0 || info.record_addr > (uint64_t)UINTPTR_MAX)
		return refuse(DOCA_ERROR_INVALID_VALUE, "export record address is null or misaligned", reason);

	*out = info;
	return DOCA_SUCCESS;
}
