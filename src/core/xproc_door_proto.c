/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Encoding and parsing of the door's two records (xproc_door_proto.h).
 */
#include <string.h>

#include "xproc_door_proto.h"
#include "../util/sd_wire.h"

void
sd_xproc_door_knock_encode(const struct sd_xproc_ref *ref, uint8_t out[SD_XPROC_DOOR_KNOCK_LEN])
{
	memset(out, 0, SD_XPROC_DOOR_KNOCK_LEN);
	sd_wire_put_le32(out, SD_XPROC_DOOR_MAGIC);
	sd_wire_put_le16(out + 4, SD_XPROC_DOOR_VERSION);
	sd_wire_put_le64(out + 8, ref->rec_addr);
	memcpy(out + 16, ref->key, SD_XPROC_KEY_LEN);
}

doca_error_t
sd_xproc_door_knock_parse(const void *buf, size_t len, struct sd_xproc_ref *ref, const char **reason)
{
	const uint8_t *p = buf;
	doca_error_t err;

	if (len != SD_XPROC_DOOR_KNOCK_LEN)
		return sd_wire_refuse(reason, "a knock is 40 bytes");
	err = sd_wire_check_magic_version(reason, sd_wire_le32(p), SD_XPROC_DOOR_MAGIC, sd_wire_le16(p + 4),
					  SD_XPROC_DOOR_VERSION, "not a softdoca door knock (bad magic)",
					  "a knock of another softdoca version");
	if (err != DOCA_SUCCESS)
		return err;
	if (!sd_wire_zero(p + 6, 2) || !sd_wire_zero(p + 32, 8))
		return sd_wire_refuse(reason, "reserved bytes of the knock are not zero");
	if (sd_wire_le64(p + 8) == 0 || sd_wire_le64(p + 8) % 8 != 0)
		return sd_wire_refuse(reason, "the grant record address is null or misaligned");
	ref->rec_addr = sd_wire_le64(p + 8);
	memcpy(ref->key, p + 16, SD_XPROC_KEY_LEN);
	return DOCA_SUCCESS;
}

void
sd_xproc_door_answer_encode(doca_error_t status, uint8_t out[SD_XPROC_DOOR_ANSWER_LEN])
{
	sd_wire_put_le32(out, SD_XPROC_DOOR_MAGIC);
	sd_wire_put_le32(out + 4, (uint32_t)status);
}

doca_error_t
sd_xproc_door_answer_parse(const void *buf, size_t len, doca_error_t *status, const char **reason)
{
	const uint8_t *p = buf;
	uint32_t st;

	if (len != SD_XPROC_DOOR_ANSWER_LEN || sd_wire_le32(p) != SD_XPROC_DOOR_MAGIC)
		return sd_wire_refuse(reason, "not a softdoca door answer");
	st = sd_wire_le32(p + 4);
	/* the statuses a door answers (xproc_door.c) */
	if (st != DOCA_SUCCESS && st != DOCA_ERROR_NOT_PERMITTED && st != DOCA_ERROR_INVALID_VALUE &&
	    st != DOCA_ERROR_UNSUPPORTED_VERSION)
		return sd_wire_refuse(reason, "the door answered a status it never sends");
	*status = (doca_error_t)st;
	return DOCA_SUCCESS;
}
