/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one parser (and the encoders) of the Verbs address service's messages
 * (fabric_addr_proto.h).  Nothing from the socket is trusted: sizes, magic,
 * version, lengths and every value are checked before they are used.
 */
#include <endian.h>
#include <string.h>

#include "fabric_addr_proto.h"
#include "../util/sd_wire.h"

void
sd_fabric_addr_req_encode(const struct sd_fabric_addr_req *req, void *buf)
{
	struct sd_fabric_addr_req_wire w;

	memset(&w, 0, sizeof(w));
	w.magic = htole32(SD_FABRIC_ADDR_MAGIC);
	w.version = htole16(SD_FABRIC_ADDR_VERSION);
	w.hdr_len = htole16((uint16_t)sizeof(w));
	w.dest_qpn = htole32(req->dest_qpn);
	w.src_qpn = htole32(req->src_qpn);
	memcpy(w.src_gid, req->src_gid, sizeof(w.src_gid));
	memcpy(buf, &w, sizeof(w));
}

void
sd_fabric_addr_resp_encode(const struct sd_fabric_addr_resp *resp, void *buf)
{
	struct sd_fabric_addr_resp_wire w;

	memset(&w, 0, sizeof(w));
	w.magic = htole32(SD_FABRIC_ADDR_MAGIC);
	w.version = htole16(SD_FABRIC_ADDR_VERSION);
	w.hdr_len = htole16((uint16_t)sizeof(w));
	w.status = htole32((uint32_t)resp->status);
	w.blob_len = htole32(resp->blob_len);
	memcpy(buf, &w, sizeof(w));
}

/* magic, version, hdr_len: the part both messages share. */
static doca_error_t
check_common(uint32_t magic, uint16_t version, uint16_t hdr_len, size_t want, const char **reason)
{
	doca_error_t err = sd_wire_check_magic_version(
		reason, magic, SD_FABRIC_ADDR_MAGIC, version, SD_FABRIC_ADDR_VERSION,
		"bad magic (not a softdoca Verbs address message)", "unsupported protocol version");

	if (err != DOCA_SUCCESS)
		return err;
	if (hdr_len != want)
		return sd_wire_refuse(reason, "header length field does not match version 1");
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_addr_req_parse(const void *buf, size_t len, struct sd_fabric_addr_req *out, const char **reason)
{
	static const uint8_t zero[sizeof(((struct sd_fabric_addr_req_wire *)0)->reserved)];
	struct sd_fabric_addr_req_wire w;
	uint32_t dest_qpn, src_qpn;
	doca_error_t err;

	if (buf == NULL || len != sizeof(w))
		return sd_wire_refuse(reason, "request is not 40 bytes");
	memcpy(&w, buf, sizeof(w));
	err = check_common(le32toh(w.magic), le16toh(w.version), le16toh(w.hdr_len), sizeof(w), reason);
	if (err != DOCA_SUCCESS)
		return err;
	dest_qpn = le32toh(w.dest_qpn);
	src_qpn = le32toh(w.src_qpn);
	if (!sd_fabric_addr_qpn_valid(dest_qpn))
		return sd_wire_refuse(reason, "destination QPN is not a valid slot/index QPN");
	if (src_qpn == 0 || src_qpn > 0xffffffu)
		return sd_wire_refuse(reason, "source QPN is 0 or wider than 24 bits");
	if (memcmp(w.reserved, zero, sizeof(zero)) != 0)
		return sd_wire_refuse(reason, "reserved bytes are not 0");
	out->dest_qpn = dest_qpn;
	out->src_qpn = src_qpn;
	memcpy(out->src_gid, w.src_gid, sizeof(out->src_gid));
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_addr_resp_parse(const void *buf, size_t len, struct sd_fabric_addr_resp *out, const char **reason)
{
	struct sd_fabric_addr_resp_wire w;
	uint32_t status, blob_len;
	doca_error_t err;

	if (buf == NULL || len != sizeof(w))
		return sd_wire_refuse(reason, "response header is not 16 bytes");
	memcpy(&w, buf, sizeof(w));
	err = check_common(le32toh(w.magic), le16toh(w.version), le16toh(w.hdr_len), sizeof(w), reason);
	if (err != DOCA_SUCCESS)
		return err;
	status = le32toh(w.status);
	blob_len = le32toh(w.blob_len);
	if (status > SD_FABRIC_ADDR_STATUS_MAX)
		return sd_wire_refuse(reason, "unknown status");
	if (status == SD_FABRIC_ADDR_OK && (blob_len == 0 || blob_len > SD_FABRIC_ADDR_BLOB_MAX))
		return sd_wire_refuse(reason, "blob length of an OK answer is 0 or over 4096");
	if (status != SD_FABRIC_ADDR_OK && blob_len != 0)
		return sd_wire_refuse(reason, "a refusal carries a blob");
	out->status = (enum sd_fabric_addr_status)status;
	out->blob_len = blob_len;
	return DOCA_SUCCESS;
}
