/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one parser of the soft NIC's export blobs (fabric_proto.h).  The bytes
 * come from another process, through files or messages an application or an
 * attacker may have edited: nothing is trusted, every length is checked
 * before it is used, and the fixed part is copied out (the caller's bytes may
 * be unaligned).  No UCX, no logging: the caller knows the DOCA call and logs
 * the reason once.
 */
#include <string.h>

#include "fabric.h"
#include "fabric_proto.h"
#include "../util/sd_wire.h"

/* What is wrong with a blob's common prefix, per kind of blob. */
struct prefix_msgs {
	const char *too_short, *bad_magic, *other_version, *bad_lengths;
};

static const struct prefix_msgs conn_msgs = {
	"connection blob shorter than its header", "connection blob has a bad magic",
	"connection blob of another soft NIC version", "connection blob lengths disagree"};
static const struct prefix_msgs mr_msgs = {"memory blob shorter than its header", "memory blob has a bad magic",
					   "memory blob of another soft NIC version", "memory blob lengths disagree"};

/* Magic, version and the lengths every blob shares; copies the fixed part into out. */
static doca_error_t
prefix_parse(const void *blob, size_t len, uint32_t magic, size_t fixed, void *out, const struct prefix_msgs *m,
	     const char **reason)
{
	struct fabric_blob_hdr h;
	doca_error_t err;

	if (blob == NULL || len < sizeof(h))
		return sd_wire_refuse(reason, m->too_short);
	memcpy(&h, blob, sizeof(h));
	err = sd_wire_check_magic_version(reason, h.magic, magic, h.version, FABRIC_PROTO_VERSION, m->bad_magic,
					  m->other_version);
	if (err != DOCA_SUCCESS)
		return err;
	if (len > FABRIC_BLOB_MAX || len < fixed || h.hdr_len < fixed || h.hdr_len > len || h.total_len != len)
		return sd_wire_refuse(reason, m->bad_lengths);
	memcpy(out, blob, fixed);
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_conn_blob_parse(const void *blob, size_t len, struct fabric_conn_blob *out, const char **reason)
{
	struct fabric_conn_blob b;
	doca_error_t err;

	err = prefix_parse(blob, len, FABRIC_CONN_MAGIC, sizeof(b), &b, &conn_msgs, reason);
	if (err != DOCA_SUCCESS)
		return err;
	if (b.addr_len == 0 || b.addr_len > len - b.hdr.hdr_len)
		return sd_wire_refuse(reason, "connection blob worker address does not fit");
	if (b.conn_id == 0)
		return sd_wire_refuse(reason, "connection blob has connection id 0");
	if (out != NULL)
		*out = b;
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_mr_blob_parse(const void *blob, size_t len, struct fabric_mr_blob *out, const char **reason)
{
	struct fabric_mr_blob b;
	doca_error_t err;

	err = prefix_parse(blob, len, FABRIC_MR_MAGIC, sizeof(b), &b, &mr_msgs, reason);
	if (err != DOCA_SUCCESS)
		return err;
	if (b.len == 0 || b.addr == 0 || b.addr + b.len < b.addr)
		return sd_wire_refuse(reason, "memory blob range is empty, at 0 or wraps");
	if ((b.perms & ~FABRIC_PERM_ALL) != 0)
		return sd_wire_refuse(reason, "memory blob has unknown permission bits");
	if (b.mr_id == 0)
		return sd_wire_refuse(reason, "memory blob has region id 0");
	if (out != NULL)
		*out = b;
	return DOCA_SUCCESS;
}
