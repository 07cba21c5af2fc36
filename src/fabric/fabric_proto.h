/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire formats of the soft NIC: the active-message header every message
 * carries and the two export blobs (connection, memory).  All fields are
 * fixed-width little-endian, no pointers; sizes are asserted.  Parsers must
 * check magic, version and every length before use (fabric_proto_* helpers).
 */
#ifndef SD_FABRIC_PROTO_H_
#define SD_FABRIC_PROTO_H_

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <endian.h>
#include <stdint.h>

#include <doca_error.h>

#include "../util/sd_util.h"

/*
 * Version 2: every remote access is checked by the target's own record of
 * the range: served by the target as an active message, or (same host) copied
 * by the initiator with the kernel after it read that record (no UCX
 * put/get/atomics, no rkeys, no shared windows); see docs/security.md.
 */
/*
 * Version 3: 128-byte records naming the shared object a range lies in (the
 * mapped path), and UCX shared-memory FIFO elements of 256 bytes
 * (fabric_ucx.c): a version-2 peer would fill our FIFO with 128-byte steps,
 * so the two refuse each other at connect instead of hanging.
 */
#define FABRIC_PROTO_VERSION 3

/* ---- active messages ---- */

/* The one UCP AM id the soft NIC registers; the type lives in the header. */
#define FABRIC_AM_ID 0x5d

#define FABRIC_AM_MAGIC 0x5dfa

/*
 * The message types: one row each, and the only place a type is added.
 * Columns: name (FABRIC_AM_<name>), value on the wire, bytes that follow the
 * header in UCX's header part (0 or one of the structs below), whether a
 * receiver with no such connection answers it with a NAK (requests only:
 * never acks, NAKs or answers, so two dead ends cannot ping-pong), and the
 * receiver's handler (rx_<handler> in fabric_rx.c).  The parser
 * (fabric_am.c) takes lengths and the NAK rule from here, the receiver its
 * dispatch.
 *
 * SEND, SEND_IMM: payload -> posted receive; needs ack (SEND_IMM: imm valid).
 * WRITE_IMM: no payload; consumes a receive; aux = written length.
 * WRITE: payload -> registered range (struct fabric_am_rma follows); needs ack.
 * ACK: no payload; the ack field is the news.
 * NAK: seq failed with status aux (FABRIC_NAK_*); the connection is dead.
 * CHANGED: struct fabric_am_rma follows, no payload, no ack: the initiator's
 *   atomic on that range completed; the target tells the range's owner (sync
 *   events wake their waiters).  Unknown mr or wrong key: dropped.
 * READ: struct fabric_am_rma follows; seq = request id, aux = length.
 *   Answered by READ_RESP: seq = request id, aux = 0 or a FABRIC_NAK_*
 *   status; payload: the bytes read.
 * ATOMIC: struct fabric_am_atomic follows; seq = request id.  Answered by
 *   ATOMIC_RESP: aux = 0 or a FABRIC_NAK_* status; payload: the old value (8 bytes).
 * HELLO: struct fabric_am_hello follows: sent once by each side right after it connects.
 */
#define FABRIC_AM_TYPES(X)                                                                                             \
	X(SEND, 1, 0, true, message)                                                                                   \
	X(SEND_IMM, 2, 0, true, message)                                                                               \
	X(WRITE_IMM, 3, 0, true, message)                                                                              \
	X(WRITE, 4, sizeof(struct fabric_am_rma), true, write)                                                         \
	X(ACK, 5, 0, false, ack)                                                                                       \
	X(NAK, 6, 0, false, nak)                                                                                       \
	X(CHANGED, 7, sizeof(struct fabric_am_rma), false, changed)                                                    \
	X(READ, 8, sizeof(struct fabric_am_rma), true, read)                                                           \
	X(READ_RESP, 9, 0, false, answer)                                                                              \
	X(ATOMIC, 10, sizeof(struct fabric_am_atomic), true, atomic)                                                   \
	X(ATOMIC_RESP, 11, 0, false, answer)                                                                           \
	X(HELLO, 12, sizeof(struct fabric_am_hello), false, hello)

/* clang-format off */
enum fabric_am_type {
#define FABRIC_AM_ENUM(name, value, body, stranger_nak, handler) FABRIC_AM_##name = value,
	FABRIC_AM_TYPES(FABRIC_AM_ENUM)
#undef FABRIC_AM_ENUM
	FABRIC_AM_TYPE_LIMIT, /* one past the largest value (the table's size) */
};
/* clang-format on */

enum fabric_nak_status {
	FABRIC_NAK_RNR_TIMEOUT = 1, /* no receive posted in time */
	FABRIC_NAK_TOO_LONG = 2,    /* message longer than the posted receive */
	FABRIC_NAK_ACCESS = 3,	    /* key, range or permission refused */
	FABRIC_NAK_QUEUE_FULL = 4,  /* unexpected queue full */
	FABRIC_NAK_INTERNAL = 5,
	FABRIC_NAK_NO_CONNECTION = 6, /* the receiving connection is gone (destroyed, reset or failed) */
};

/*
 * Header of every soft NIC active message (UCP carries it separately from the
 * payload).  seq numbers the messages that need an ack (SEND*, WRITE*) per
 * direction of a connection, from 1; ack says "every seq below this one was
 * placed successfully" (cumulative, piggybacked on any message).  READ and
 * ATOMIC requests number themselves separately (their answer is the ack).
 */
struct fabric_am_hdr {
	uint16_t magic;	 /* FABRIC_AM_MAGIC */
	uint8_t version; /* FABRIC_PROTO_VERSION */
	uint8_t type;	 /* enum fabric_am_type */
	uint32_t dst_id; /* receiver's connection id (from its export blob) */
	uint32_t cookie; /* receiver's connection cookie (from its export blob) */
	uint32_t seq;
	uint32_t ack;
	uint32_t imm;	     /* opaque, never byte-swapped */
	uint32_t aux;	     /* WRITE_IMM, READ: length; NAK, *_RESP: status */
	uint32_t src_id;     /* sender's connection id: lets a receiver that never */
	uint32_t src_cookie; /* connected back address its acks */
	uint32_t reserved;
};
static_assert(sizeof(struct fabric_am_hdr) == 40, "fabric_am_hdr is a wire format");

/* Follows the header of WRITE, READ and CHANGED: which registered range, and the proof. */
struct fabric_am_rma {
	uint64_t raddr; /* target virtual address */
	uint32_t mr_id;
	uint32_t reserved;
	uint8_t key[16];
};
static_assert(sizeof(struct fabric_am_rma) == 32, "fabric_am_rma is a wire format");

enum fabric_atomic_op {
	FABRIC_ATOMIC_FETCH_ADD = 1, /* operand[0] added */
	FABRIC_ATOMIC_CMP_SWP = 2,   /* operand[1] stored if the value equals operand[0] */
};

/* Follows the header of ATOMIC: an 8-byte aligned word of a registered range. */
struct fabric_am_atomic {
	struct fabric_am_rma rma;
	uint32_t op; /* enum fabric_atomic_op */
	uint32_t reserved;
	uint64_t operand[2];
};
static_assert(sizeof(struct fabric_am_atomic) == 56, "fabric_am_atomic is a wire format");

/*
 * Follows the header of HELLO.  What the sender is, in its own words (a
 * descriptor file can be edited; a message from the process itself cannot):
 * its pid and pid namespace, and its registration records (fabric_direct.c):
 * a sealed memfd of recs_cap records, by fd number and inode, which a
 * same-host peer may map read-only to verify a key, range and permission
 * against the owner's own record before copying with the kernel.
 * recs_cap 0: no records (direct copies into this process are not offered).
 */
struct fabric_am_hello {
	uint32_t pid;
	uint32_t recs_cap;
	uint64_t pid_ns;
	int32_t recs_fd;
	uint32_t reserved;
	uint64_t recs_ino;
	uint64_t recs_addr; /* where the table is mapped in the sender (its record 0 holds a random nonce) */
};
static_assert(sizeof(struct fabric_am_hello) == 40, "fabric_am_hello is a wire format");

/*
 * A registration as its owner records it (fabric_direct.c), slot mr_id of the
 * record table its HELLO names (slot 0: the table's identity, a random nonce
 * in key), which same-host peers map read-only and
 * read before they copy into or out of the range themselves.  The owner
 * writes seq_end = odd, the fields, then seq = seq_end = even; a reader loads
 * seq, the fields, then seq_end: equal and even means not torn by an update.
 * share_*: the shared object the range lies in, when it is one (xproc.h
 * "shareable memory"): the owner's descriptor number, the object's inode and
 * device, the range's offset in it; share_fd -1 when the range is private.
 * The table's last slot is no registration's (perms 0; struct fabric_recs_tail): its progress_ns is
 * when the owner's application last progressed its soft NIC (CLOCK_MONOTONIC,
 * sampled every FABRIC_STAMP_EVERY progress calls; 0: never), which tells a
 * peer whether a small write sent as a message is placed at once
 * (fabric_direct_wanted()).
 */
struct fabric_mr_rec {
	uint64_t seq;
	uint64_t addr;
	uint64_t len;
	uint32_t perms; /* 0: no registration */
	uint32_t mr_id;
	uint8_t key[16];
	uint64_t seq_end;
	uint32_t domain; /* 0: any connection; else only the peer connections of that domain (written with the rest) */
	int32_t share_fd;
	uint64_t share_off;
	uint64_t share_ino;
	uint64_t share_dev;
	uint64_t progress_ns; /* the table's last slot only */
	uint64_t reserved[4];
};
static_assert(sizeof(struct fabric_mr_rec) == 128, "fabric_mr_rec is read by other processes");

/*
 * The table's last slot as its owner lays it out.  perms and mr_id sit where
 * a record has them and stay 0, so no access is ever granted by this slot.
 * life is the owner's life lock (fabric_direct.c "life lock"): a
 * process-shared robust mutex its soft NIC's service thread holds while it
 * runs.  A peer reads only its first 32 bits, the futex word of the kernel's
 * robust-futex ABI (<linux/futex.h>): the holder's thread id while held, 0
 * once released, FUTEX_OWNER_DIED once the holder ended without releasing it
 * (its process exited, was killed or exec'd).  The owner checks at locking
 * that its libc keeps the futex word there, else it leaves the word 0.
 */
struct fabric_recs_tail {
	uint64_t unused[3];
	uint32_t perms; /* 0 */
	uint32_t mr_id; /* 0 */
	union {
		uint32_t futex; /* what peers read */
		uint8_t bytes[56];
	} life;
	uint64_t progress_ns; /* as fabric_mr_rec.progress_ns */
	uint64_t reserved[4];
};
static_assert(sizeof(struct fabric_recs_tail) == sizeof(struct fabric_mr_rec), "one slot of the table");
static_assert(offsetof(struct fabric_recs_tail, perms) == offsetof(struct fabric_mr_rec, perms), "no grant");
static_assert(offsetof(struct fabric_recs_tail, progress_ns) == offsetof(struct fabric_mr_rec, progress_ns),
	      "the progress stamp");

/* An op embeds the largest request header (struct fabric_op.wire). */
#define FABRIC_AM_HDR_MAX (sizeof(struct fabric_am_hdr) + sizeof(struct fabric_am_atomic))

/* A message's header part as the parser hands it over: aligned, checked, zero past what was sent. */
struct fabric_am_msg {
	struct fabric_am_hdr h;
	union {
		struct fabric_am_rma rma;	/* WRITE, READ, CHANGED */
		struct fabric_am_atomic atomic; /* ATOMIC */
		struct fabric_am_hello hello;	/* HELLO */
	} u;
	bool stranger_nak; /* the type's row: a receiver without the connection answers with a NAK */
};
static_assert(offsetof(struct fabric_am_msg, u) == sizeof(struct fabric_am_hdr), "the body follows the header");

/*
 * The one parser of the header part of a soft NIC active message (UCX hands
 * it at any alignment): a pure function over bytes from another process
 * (fuzzed, tests/fuzz/rdma).  It checks magic, version, the type against
 * FABRIC_AM_TYPES and the length against that type's row, copies the header
 * and its body into *out and returns DOCA_SUCCESS; otherwise INVALID_VALUE
 * (UNSUPPORTED_VERSION for another version) with *reason (may be NULL)
 * saying what is wrong, and *out untouched.  Nothing in the header (its ack
 * field included) may be acted on before this succeeds.
 */
doca_error_t sd_fabric_am_parse(const void *header, size_t len, struct fabric_am_msg *out, const char **reason);

/* ---- export blobs ---- */

#define FABRIC_CONN_MAGIC 0x4e4e4f43u /* "CONN" */
#define FABRIC_MR_MAGIC 0x4d52464du   /* "MFRM" */

/* Common prefix of every blob. */
struct fabric_blob_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t hdr_len;   /* bytes of the fixed part, >= what this version defines */
	uint32_t total_len; /* fixed part + variable part */
	uint32_t reserved;
};
static_assert(sizeof(struct fabric_blob_hdr) == 16, "fabric_blob_hdr is a wire format");

/* Connection blob: then addr_len bytes of UCP worker address (at hdr_len). */
struct fabric_conn_blob {
	struct fabric_blob_hdr hdr;
	uint32_t conn_id;
	uint32_t cookie;
	uint8_t host_id[16]; /* boot id: equal => same kernel, shm/cma reachable */
	uint32_t addr_len;
	uint32_t pid;	 /* exporting process, for liveness on the same host */
	uint64_t pid_ns; /* inode of its pid namespace: pid means something only if equal */
	/*
	 * The exporter's UCX tcp receive segment in bytes (0: tcp not allowed
	 * there).  UCX sends AM fragments as large as its own segment and a
	 * receiver with a smaller one aborts, so tcp peers must agree.
	 */
	uint32_t tcp_seg;
	/*
	 * The exporter's protection domain (0: none).  A registration made in a
	 * domain is reachable only from connections of the same domain, as an
	 * rkey only from QPs of its MR's PD (RDMA Verbs).
	 */
	uint32_t domain;
};
static_assert(sizeof(struct fabric_conn_blob) == 64, "fabric_conn_blob is a wire format");

/*
 * Memory blob: a registered range and the 128-bit key that proves the right
 * to it.  The target checks key, range and permission on every access.
 */
struct fabric_mr_blob {
	struct fabric_blob_hdr hdr;
	uint64_t addr;
	uint64_t len;
	uint32_t perms; /* FABRIC_PERM_* */
	uint32_t mr_id;
	uint8_t key[16];
};
static_assert(sizeof(struct fabric_mr_blob) == 56, "fabric_mr_blob is a wire format");
static_assert(offsetof(struct fabric_mr_blob, perms) == 32 && offsetof(struct fabric_mr_blob, key) == 40,
	      "fabric_mr_blob field offsets are a wire format");

/*
 * Parsers of the blobs (fabric_blob.c), the only ones: pure functions over
 * bytes from another process (fuzzed, tests/fuzz/rdma).  They check magic,
 * version, every length and field, copy the fixed part into *out and return
 * DOCA_SUCCESS; otherwise INVALID_VALUE (UNSUPPORTED_VERSION for another
 * version) with *reason (may be NULL) saying what is wrong, for the caller
 * that knows the DOCA call to log.  A connection blob's worker address is
 * the addr_len bytes at blob + out->hdr.hdr_len.
 */
SD_EXPORT doca_error_t sd_fabric_conn_blob_parse(const void *blob, size_t len, struct fabric_conn_blob *out,
						 const char **reason);
SD_EXPORT doca_error_t sd_fabric_mr_blob_parse(const void *blob, size_t len, struct fabric_mr_blob *out,
					       const char **reason);

/* The soft NIC only runs where the CPU is little-endian (x86-64, aarch64). */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "wire formats are little-endian");

#endif /* SD_FABRIC_PROTO_H_ */
