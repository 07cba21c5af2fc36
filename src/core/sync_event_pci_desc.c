/* SPDX-License-Identifier: BSD-3-Clause */
/* Encoder and the one parser of the PCI sync-event descriptor (sync_event_pci_proto.h). */
#include <endian.h>
#include <string.h>

#include "sync_event_pci_proto.h"

static void
put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t
get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

void
sd_se_pci_desc_encode(const struct sd_se_pci_desc_info *info, uint8_t *buf)
{
	memset(buf, 0, SD_SE_PCI_DESC_LEN);
	put32(buf, SD_SE_PCI_MAGIC);
	buf[4] = SD_SE_PCI_VERSION & 0xff;
	buf[5] = SD_SE_PCI_VERSION >> 8;
	put32(buf + 8, SD_SE_PCI_DESC_LEN);
	put32(buf + 12, info->pid);
	put32(buf + 16, info->fd);
	memcpy(buf + 24, info->key, sizeof(info->key));
}

static doca_error_t
refuse(const char **reason, const char *why, doca_error_t err)
{
	if (reason != NULL)
		*reason = why;
	return err;
}

static int
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

doca_error_t
sd_se_pci_desc_parse(const uint8_t *buf, size_t len, struct sd_se_pci_desc_info *info, const char **reason)
{
	struct sd_se_pci_desc_info out;

	if (buf == NULL || info == NULL)
		return refuse(reason, "NULL descriptor", DOCA_ERROR_INVALID_VALUE);
	if (len < 8)
		return refuse(reason, "shorter than the header", DOCA_ERROR_INVALID_VALUE);
	if (get32(buf) != SD_SE_PCI_MAGIC)
		return refuse(reason, "bad magic (not a softdoca PCI sync-event export)", DOCA_ERROR_INVALID_VALUE);
	if ((buf[4] | buf[5] << 8) != SD_SE_PCI_VERSION)
		return refuse(reason, "unsupported version (exported by another softdoca)",
			      DOCA_ERROR_UNSUPPORTED_VERSION);
	if (len != SD_SE_PCI_DESC_LEN || get32(buf + 8) != SD_SE_PCI_DESC_LEN)
		return refuse(reason, "length is not that of a version-1 descriptor", DOCA_ERROR_INVALID_VALUE);
	if (buf[6] != 0 || buf[7] != 0 || !all_zero(buf + 20, 4) || !all_zero(buf + 40, 8))
		return refuse(reason, "reserved bytes are not 0", DOCA_ERROR_INVALID_VALUE);
	out.pid = get32(buf + 12);
	out.fd = get32(buf + 16);
	if (out.pid == 0 || out.pid > 0x3fffffff)
		return refuse(reason, "pid out of range", DOCA_ERROR_INVALID_VALUE);
	if (out.fd > 0x7fffffff)
		return refuse(reason, "fd out of range", DOCA_ERROR_INVALID_VALUE);
	memcpy(out.key, buf + 24, sizeof(out.key));
	*info = out;
	return DOCA_SUCCESS;
}
