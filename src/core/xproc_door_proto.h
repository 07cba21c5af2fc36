/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire format of an owner's door (xproc.h "the door"), its one owner.  One
 * SOCK_SEQPACKET record each way, little-endian:
 *
 *   knock (peer -> owner), 40 bytes
 *     0  4  magic    SD_XPROC_DOOR_MAGIC
 *     4  2  version  SD_XPROC_DOOR_VERSION
 *     6  2  reserved (0)
 *     8  8  rec_addr the owner's address of the grant record the peer holds
 *    16 16  key      that grant's key
 *    32  8  reserved (0)
 *
 *   answer (owner -> peer), 8 bytes
 *     0  4  magic    SD_XPROC_DOOR_MAGIC
 *     4  4  status   doca_error_t: DOCA_SUCCESS once the peer may trace the owner
 *
 * Parsers are pure (no logging): the caller knows the DOCA call and logs.
 */
#ifndef SD_XPROC_DOOR_PROTO_H_
#define SD_XPROC_DOOR_PROTO_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "xproc.h"

#define SD_XPROC_DOOR_MAGIC 0x524f4453u /* "SDOR" little-endian */
#define SD_XPROC_DOOR_VERSION 1u
#define SD_XPROC_DOOR_KNOCK_LEN 40u
#define SD_XPROC_DOOR_ANSWER_LEN 8u

void sd_xproc_door_knock_encode(const struct sd_xproc_ref *ref, uint8_t out[SD_XPROC_DOOR_KNOCK_LEN]);
/* A knock into *ref; INVALID_VALUE / UNSUPPORTED_VERSION with *reason, *ref untouched. */
doca_error_t sd_xproc_door_knock_parse(const void *buf, size_t len, struct sd_xproc_ref *ref, const char **reason);

void sd_xproc_door_answer_encode(doca_error_t status, uint8_t out[SD_XPROC_DOOR_ANSWER_LEN]);
/* An answer's status into *status; INVALID_VALUE with *reason, *status untouched. */
doca_error_t sd_xproc_door_answer_parse(const void *buf, size_t len, doca_error_t *status, const char **reason);

#endif /* SD_XPROC_DOOR_PROTO_H_ */
