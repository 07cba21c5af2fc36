/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the soft NIC active-message fuzz target, its replay driver and
 * its seed generator: the contract check and builders of a valid header part
 * of each message type, written from the wire layout (fabric_proto.h), not
 * from the parser's table, so the two can disagree and be caught.
 */
#ifndef FUZZ_FABRIC_AM_H_
#define FUZZ_FABRIC_AM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fabric/fabric_proto.h"

/* Types 1..FUZZ_AM_NUM_TYPES exist in this version. */
#define FUZZ_AM_NUM_TYPES 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check one input against the parser; aborts on a contract violation. */
void fuzz_am_one(const uint8_t *data, size_t size);

/* Bytes a type's header part carries after the common header. */
static inline size_t
fuzz_am_body_len(uint8_t type)
{
	switch (type) {
	case FABRIC_AM_WRITE:
	case FABRIC_AM_READ:
	case FABRIC_AM_CHANGED:
		return sizeof(struct fabric_am_rma);
	case FABRIC_AM_ATOMIC:
		return sizeof(struct fabric_am_atomic);
	case FABRIC_AM_HELLO:
		return sizeof(struct fabric_am_hello);
	default:
		return 0;
	}
}

/* The requests, which a receiver without the connection answers with a NAK. */
static inline bool
fuzz_am_is_request(uint8_t type)
{
	return type == FABRIC_AM_SEND || type == FABRIC_AM_SEND_IMM || type == FABRIC_AM_WRITE_IMM ||
	       type == FABRIC_AM_WRITE || type == FABRIC_AM_READ || type == FABRIC_AM_ATOMIC;
}

/* A valid header part of type (1..FUZZ_AM_NUM_TYPES) into buf (>= 128 bytes); returns its length. */
static inline size_t
fuzz_am_valid(uint8_t type, uint8_t *buf)
{
	struct fabric_am_hdr h = {0};
	size_t body = fuzz_am_body_len(type);

	h.magic = FABRIC_AM_MAGIC;
	h.version = FABRIC_PROTO_VERSION;
	h.type = type;
	h.dst_id = 5;
	h.cookie = 0x1234abcd;
	h.seq = 9;
	h.ack = 4;
	h.imm = 0xdeadbeef;
	h.aux = type == FABRIC_AM_READ ? 4096 : 0;
	h.src_id = 6;
	h.src_cookie = 0x5678ef01;
	memset(buf, 0, 128);
	memcpy(buf, &h, sizeof(h));
	for (size_t i = 0; i < body; i++)
		buf[sizeof(h) + i] = (uint8_t)(i * 7 + 1);
	return sizeof(h) + body;
}

#endif /* FUZZ_FABRIC_AM_H_ */
