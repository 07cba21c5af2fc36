/* SPDX-License-Identifier: BSD-3-Clause */
/* Encoder and the one parser of the PCI sync-event descriptor (sync_event_pci_proto.h). */
#include <string.h>

#include "sync_event_pci_proto.h"
#include "../util/sd_wire.h"

void
sd_se_pci_desc_encode(const struct sd_se_pci_desc_info *info, uint8_t *buf)
{
	memset(buf, 0, SD_SE_PCI_DESC_LEN);
	sd_wire_put_le32(buf, SD_SE_PCI_MAGIC);
	sd_wire_put_le16(buf + 4, SD_SE_PCI_VERSION);
	sd_wire_put_le32(buf + 8, SD_SE_PCI_DESC_LEN);
	sd_wire_put_le32(buf + 12, info->pid);
	sd_wire_put_le32(buf + 16, info->fd);
	memcpy(buf + 24, info->key, sizeof(info->key));
}

doca_error_t
sd_se_pci_desc_parse(const uint8_t *buf, size_t len, struct sd_se_pci_desc_info *info, const char **reason)
{
	struct sd_se_pci_desc_info out;
	doca_error_t err;

	if (buf == NULL || info == NULL)
		return sd_wire_refuse(reason, "NULL descriptor");
	if (len < 8)
		return sd_wire_refuse(reason, "shorter than the header");
	err = sd_wire_check_magic_version(reason, sd_wire_le32(buf), SD_SE_PCI_MAGIC, sd_wire_le16(buf + 4),
					  SD_SE_PCI_VERSION, "bad magic (not a softdoca PCI sync-event export)",
					  "unsupported version (exported by another softdoca)");
	if (err != DOCA_SUCCESS)
		return err;
	if (len != SD_SE_PCI_DESC_LEN || sd_wire_le32(buf + 8) != SD_SE_PCI_DESC_LEN)
		return sd_wire_refuse(reason, "length is not that of a version-1 descriptor");
	if (buf[6] != 0 || buf[7] != 0 || !sd_wire_zero(buf + 20, 4) || !sd_wire_zero(buf + 40, 8))
		return sd_wire_refuse(reason, "reserved bytes are not 0");
	out.pid = sd_wire_le32(buf + 12);
	out.fd = sd_wire_le32(buf + 16);
	if (out.pid == 0 || out.pid > 0x3fffffff)
		return sd_wire_refuse(reason, "pid out of range");
	if (out.fd > 0x7fffffff)
		return sd_wire_refuse(reason, "fd out of range");
	memcpy(out.key, buf + 24, sizeof(out.key));
	*info = out;
	return DOCA_SUCCESS;
}
