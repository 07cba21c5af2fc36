/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire format of the soft NIC's connection manager: the messages two CM
 * endpoints exchange over their UCX socket-address endpoint (REQUEST with the
 * client's descriptor, ACCEPT with private data and the server's descriptor,
 * REJECT, RTU, DISCONNECT, PING).  Fixed-width little-endian fields, no
 * pointers, sizes asserted; fabric_cm_msg_parse() checks every length before
 * use and is what the fuzz target drives (tests/fuzz/rdma_cm).
 */
#ifndef SD_FABRIC_CM_PROTO_H_
#define SD_FABRIC_CM_PROTO_H_

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <doca_error.h>

#include "../util/sd_wire.h"

/* UCP active-message id of CM messages (on the CM's own worker). */
#define FABRIC_CM_AM_ID 0x5e

#define FABRIC_CM_MAGIC 0x4d434453u /* "SDCM" */
#define FABRIC_CM_VERSION 1

/* DOCA gives private data a uint8_t length. */
#define FABRIC_CM_PRIV_MAX 255u
/* Connection descriptors never exceed this (same bound as the fabric's blobs). */
#define FABRIC_CM_DESC_MAX 4096u

enum fabric_cm_msg_type {
	FABRIC_CM_MSG_REQUEST = 1,    /* client -> server: descriptor (+ private data) */
	FABRIC_CM_MSG_ACCEPT = 2,     /* server -> client: descriptor + private data */
	FABRIC_CM_MSG_REJECT = 3,     /* server -> client: reason */
	FABRIC_CM_MSG_RTU = 4,	      /* client -> server: ready to use (client connected) */
	FABRIC_CM_MSG_DISCONNECT = 5, /* either way: orderly end */
	FABRIC_CM_MSG_PING = 6,	      /* either way: liveness */
	FABRIC_CM_MSG_TYPE_MAX = FABRIC_CM_MSG_PING,
};

enum fabric_cm_reject_reason {
	FABRIC_CM_REJ_APP = 1,	    /* the server application rejected the request */
	FABRIC_CM_REJ_FULL = 2,	    /* max number of connections reached */
	FABRIC_CM_REJ_PROTOCOL = 3, /* malformed or unexpected message */
	FABRIC_CM_REJ_VERSION = 4,  /* the server speaks another version */
	FABRIC_CM_REJ_SHUTDOWN = 5, /* the server stopped listening / is stopping */
	FABRIC_CM_REJ_MAX = FABRIC_CM_REJ_SHUTDOWN,
};

/*
 * Every message: this header, then priv_len bytes of private data, then
 * desc_len bytes of descriptor.  token is chosen at random by the client and
 * echoed by every message of the connection; conn_id is the sender's
 * connection id (diagnostics, doca_rdma_connection_get_id()).
 */
struct fabric_cm_hdr {
	uint32_t magic;	  /* FABRIC_CM_MAGIC */
	uint16_t version; /* FABRIC_CM_VERSION */
	uint8_t type;	  /* enum fabric_cm_msg_type */
	uint8_t priv_len;
	uint32_t total_len; /* header + priv_len + desc_len */
	uint32_t desc_len;
	uint64_t token;
	uint32_t conn_id;
	uint16_t reason;   /* REJECT: enum fabric_cm_reject_reason, else 0 */
	uint16_t reserved; /* 0 */
};
static_assert(sizeof(struct fabric_cm_hdr) == 32, "fabric_cm_hdr is a wire format");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "wire formats are little-endian");

#define FABRIC_CM_MSG_MAX (sizeof(struct fabric_cm_hdr) + FABRIC_CM_PRIV_MAX + FABRIC_CM_DESC_MAX)

/* A parsed message; priv and desc point into the parsed buffer. */
struct fabric_cm_msg {
	uint8_t type;
	uint8_t priv_len;
	uint16_t reason;
	uint32_t desc_len;
	uint32_t conn_id;
	uint64_t token;
	const uint8_t *priv;
	const uint8_t *desc;
};

/*
 * Validate buf[0, len) as one CM message.  INVALID_VALUE for anything
 * malformed (short, bad magic, lengths that disagree, unknown type, fields a
 * type must not carry, zero token), UNSUPPORTED_VERSION for another version
 * with a good magic, with *reason (may be NULL) saying what is wrong.  *msg
 * is written only on success.
 */
static inline doca_error_t
fabric_cm_msg_parse_why(const void *buf, size_t len, struct fabric_cm_msg *msg, const char **reason)
{
	struct fabric_cm_hdr h;
	const uint8_t *p = (const uint8_t *)buf;
	doca_error_t err;

	if (buf == NULL || msg == NULL || len < sizeof(h) || len > FABRIC_CM_MSG_MAX)
		return sd_wire_refuse(reason, "CM message length outside [header, maximum]");
	memcpy(&h, buf, sizeof(h)); /* UCX gives no alignment guarantee */
	err = sd_wire_check_magic_version(reason, h.magic, FABRIC_CM_MAGIC, h.version, FABRIC_CM_VERSION,
					  "not a CM message (bad magic)", "unsupported CM protocol version");
	if (err != DOCA_SUCCESS)
		return err;
	if (h.total_len != len || h.reserved != 0 || h.token == 0 || h.type == 0 || h.type > FABRIC_CM_MSG_TYPE_MAX)
		return sd_wire_refuse(reason, "malformed CM message (length, reserved, token or type)");
	if (h.desc_len > FABRIC_CM_DESC_MAX || (size_t)h.desc_len + h.priv_len + sizeof(h) != len)
		return sd_wire_refuse(reason, "malformed CM message (descriptor and private data lengths)");
	switch (h.type) {
	case FABRIC_CM_MSG_REQUEST:
	case FABRIC_CM_MSG_ACCEPT:
		if (h.desc_len == 0 || h.reason != 0)
			return sd_wire_refuse(reason, "malformed CM message (request or accept without descriptor)");
		break;
	case FABRIC_CM_MSG_REJECT:
		if (h.desc_len != 0 || h.priv_len != 0 || h.reason == 0 || h.reason > FABRIC_CM_REJ_MAX)
			return sd_wire_refuse(reason, "malformed CM message (reject with data or unknown reason)");
		break;
	default: /* RTU, DISCONNECT, PING carry nothing */
		if (h.desc_len != 0 || h.priv_len != 0 || h.reason != 0)
			return sd_wire_refuse(reason, "malformed CM message (control message with data)");
		break;
	}
	msg->type = h.type;
	msg->priv_len = h.priv_len;
	msg->reason = h.reason;
	msg->desc_len = h.desc_len;
	msg->conn_id = h.conn_id;
	msg->token = h.token;
	msg->priv = p + sizeof(h);
	msg->desc = p + sizeof(h) + h.priv_len;
	return DOCA_SUCCESS;
}

/* fabric_cm_msg_parse_why() for a caller that needs no reason. */
static inline doca_error_t
fabric_cm_msg_parse(const void *buf, size_t len, struct fabric_cm_msg *msg)
{
	return fabric_cm_msg_parse_why(buf, len, msg, NULL);
}

/*
 * Build a message into buf (cap bytes).  Returns its length, or 0 when it
 * does not fit or the arguments break the rules fabric_cm_msg_parse() checks.
 */
static inline size_t
fabric_cm_msg_build(void *buf, size_t cap, uint8_t type, uint64_t token, uint32_t conn_id, uint16_t reason,
		    const void *priv, uint8_t priv_len, const void *desc, size_t desc_len)
{
	struct fabric_cm_hdr h;
	size_t len = sizeof(h) + priv_len + desc_len;
	uint8_t *p = (uint8_t *)buf;

	if (buf == NULL || desc_len > FABRIC_CM_DESC_MAX || len > cap || token == 0 || (priv_len && priv == NULL) ||
	    (desc_len && desc == NULL))
		return 0;
	memset(&h, 0, sizeof(h));
	h.magic = FABRIC_CM_MAGIC;
	h.version = FABRIC_CM_VERSION;
	h.type = type;
	h.priv_len = priv_len;
	h.total_len = (uint32_t)len;
	h.desc_len = (uint32_t)desc_len;
	h.token = token;
	h.conn_id = conn_id;
	h.reason = reason;
	memcpy(p, &h, sizeof(h));
	if (priv_len)
		memcpy(p + sizeof(h), priv, priv_len);
	if (desc_len)
		memcpy(p + sizeof(h) + priv_len, desc, desc_len);
	return len;
}

#endif /* SD_FABRIC_CM_PROTO_H_ */
