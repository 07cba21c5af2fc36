/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire format of the Verbs address service (fabric_addr.c, docs/verbs.md
 * "Addressing"): how a QP number encodes where its owner listens, the request
 * a resolver sends and the response it gets back.  All fields are fixed-width
 * little-endian; one request and one response per TCP connection.
 */
#ifndef SD_FABRIC_ADDR_PROTO_H_
#define SD_FABRIC_ADDR_PROTO_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "../util/sd_util.h"

/*
 * QP number layout (24 bits):
 *
 *   23          14 13                 0
 *   +-------------+--------------------+
 *   | slot 1..1023| index 1..16383     |
 *   +-------------+--------------------+
 *
 * The owner of a QPN listens on TCP port (port base + slot) of its device's
 * IP address; the index names the QP inside that process.  0 is never a slot
 * or an index, so no QPN is 0.
 */
#define SD_FABRIC_ADDR_SLOT_SHIFT 14
#define SD_FABRIC_ADDR_INDEX_MASK 0x3fffu
#define SD_FABRIC_ADDR_MAX_SLOT 1023u
#define SD_FABRIC_ADDR_MAX_INDEX 16383u
#define SD_FABRIC_ADDR_PORT_BASE_DEFAULT 18500u /* SOFTDOCA_VERBS_PORT_BASE */
#define SD_FABRIC_ADDR_PORT_BASE_MIN 1024u
#define SD_FABRIC_ADDR_PORT_BASE_MAX (65535u - SD_FABRIC_ADDR_MAX_SLOT)

static inline uint32_t
sd_fabric_addr_qpn(uint32_t slot, uint32_t index)
{
	return slot << SD_FABRIC_ADDR_SLOT_SHIFT | index;
}

static inline uint32_t
sd_fabric_addr_qpn_slot(uint32_t qpn)
{
	return (qpn >> SD_FABRIC_ADDR_SLOT_SHIFT) & SD_FABRIC_ADDR_MAX_SLOT;
}

static inline uint32_t
sd_fabric_addr_qpn_index(uint32_t qpn)
{
	return qpn & SD_FABRIC_ADDR_INDEX_MASK;
}

/* A 24-bit QPN with a non-zero slot and index. */
static inline bool
sd_fabric_addr_qpn_valid(uint32_t qpn)
{
	return qpn <= 0xffffffu && sd_fabric_addr_qpn_slot(qpn) != 0 && sd_fabric_addr_qpn_index(qpn) != 0;
}

#define SD_FABRIC_ADDR_MAGIC 0x52444156u /* "VADR" as bytes */
#define SD_FABRIC_ADDR_VERSION 1
#define SD_FABRIC_ADDR_BLOB_MAX 4096u /* a fabric connection blob */

/*
 * Request, version 1 (40 bytes), resolver -> owner:
 *
 *   off  size  field
 *     0    4   magic      SD_FABRIC_ADDR_MAGIC
 *     4    2   version    1 (another one: closed, UNSUPPORTED_VERSION)
 *     6    2   hdr_len    40
 *     8    4   dest_qpn   the QPN asked for (valid layout, above)
 *    12    4   src_qpn    the resolver's QPN (24 bits, not 0)
 *    16   16   src_gid    the resolver's GID; its IP must be the connection's source
 *    32    8   reserved   0
 */
struct sd_fabric_addr_req_wire {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_len;
	uint32_t dest_qpn;
	uint32_t src_qpn;
	uint8_t src_gid[16];
	uint8_t reserved[8];
};
_Static_assert(sizeof(struct sd_fabric_addr_req_wire) == 40, "address request v1 is 40 bytes");

/*
 * Response, version 1 (16-byte header, then blob_len bytes), owner -> resolver:
 *
 *   off  size  field
 *     0    4   magic      SD_FABRIC_ADDR_MAGIC
 *     4    2   version    1
 *     6    2   hdr_len    16
 *     8    4   status     enum sd_fabric_addr_status
 *    12    4   blob_len   1..4096 with status OK, else 0
 *    16    -   blob       the connection blob the owner published
 */
struct sd_fabric_addr_resp_wire {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_len;
	uint32_t status;
	uint32_t blob_len;
};
_Static_assert(sizeof(struct sd_fabric_addr_resp_wire) == 16, "address response header v1 is 16 bytes");

enum sd_fabric_addr_status {
	SD_FABRIC_ADDR_OK = 0,
	SD_FABRIC_ADDR_NO_QP = 1,     /* no QP with that number in the owning process */
	SD_FABRIC_ADDR_BOUND = 2,     /* the QP is bound to another (GID, QPN) */
	SD_FABRIC_ADDR_NOT_READY = 3, /* the QP exists, its blob is not published yet */
};
#define SD_FABRIC_ADDR_STATUS_MAX SD_FABRIC_ADDR_NOT_READY

/* A request or response header in host order. */
struct sd_fabric_addr_req {
	uint32_t dest_qpn;
	uint32_t src_qpn;
	uint8_t src_gid[16];
};

struct sd_fabric_addr_resp {
	enum sd_fabric_addr_status status;
	uint32_t blob_len;
};

/* Encoders: write exactly sizeof the wire struct into buf. */
SD_EXPORT void sd_fabric_addr_req_encode(const struct sd_fabric_addr_req *req, void *buf);
SD_EXPORT void sd_fabric_addr_resp_encode(const struct sd_fabric_addr_resp *resp, void *buf);

/*
 * The parsers: len must be exactly the wire header's size.  On success *out is
 * filled; on failure *out is untouched, *reason (may be NULL) names what was
 * wrong and the result is INVALID_VALUE, or UNSUPPORTED_VERSION for another
 * version.  A response's blob_len is checked against its status (see above);
 * the caller then reads exactly blob_len bytes.
 */
SD_EXPORT doca_error_t sd_fabric_addr_req_parse(const void *buf, size_t len, struct sd_fabric_addr_req *out,
						const char **reason);
SD_EXPORT doca_error_t sd_fabric_addr_resp_parse(const void *buf, size_t len, struct sd_fabric_addr_resp *out,
						 const char **reason);

#endif /* SD_FABRIC_ADDR_PROTO_H_ */
