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

#define FABRIC_PROTO_VERSION 1

/* ---- active messages ---- */

/* The one UCP AM id the soft NIC registers; the type lives in the header. */
#define FABRIC_AM_ID 0x5d

#define FABRIC_AM_MAGIC 0x5dfa

enum fabric_am_type {
	FABRIC_AM_SEND = 1,	 /* payload -> posted receive; needs ack */
	FABRIC_AM_SEND_IMM = 2,	 /* same, imm valid */
	FABRIC_AM_WRITE_IMM = 3, /* no payload; consumes a receive; aux = written length */
	FABRIC_AM_WRITE = 4,	 /* payload -> registered range (struct fabric_am_write follows) */
	FABRIC_AM_ACK = 5,	 /* no payload; ack field is the news */
	FABRIC_AM_NAK = 6,	 /* seq failed with status aux (FABRIC_NAK_*); connection is dead */
	/*
	 * struct fabric_am_write follows, no payload, no ack: the initiator's
	 * atomic on that range completed; the target tells the range's owner
	 * (sync events wake their waiters).  Unknown mr or wrong key: dropped.
	 */
	FABRIC_AM_CHANGED = 7,
};

enum fabric_nak_status {
	FABRIC_NAK_RNR_TIMEOUT = 1, /* no receive posted in time */
	FABRIC_NAK_TOO_LONG = 2,    /* message longer than the posted receive */
	FABRIC_NAK_ACCESS = 3,	    /* key, range or permission refused */
	FABRIC_NAK_QUEUE_FULL = 4,  /* unexpected queue full */
	FABRIC_NAK_INTERNAL = 5,
};

/*
 * Header of every soft NIC active message (UCP carries it separately from the
 * payload).  seq numbers the messages that need an answer (SEND*, WRITE*) per
 * direction of a connection, from 1; ack says "every seq below this one was
 * placed successfully" (cumulative, piggybacked on any message).
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
	uint32_t aux;	     /* WRITE_IMM: length; NAK: status */
	uint32_t src_id;     /* sender's connection id: lets a receiver that never */
	uint32_t src_cookie; /* connected back address its acks */
	uint32_t reserved;
};
static_assert(sizeof(struct fabric_am_hdr) == 40, "fabric_am_hdr is a wire format");

/* Follows the header of FABRIC_AM_WRITE: where the payload goes, and the proof. */
struct fabric_am_write {
	uint64_t raddr; /* target virtual address */
	uint32_t mr_id;
	uint32_t reserved;
	uint8_t key[16];
};
static_assert(sizeof(struct fabric_am_write) == 32, "fabric_am_write is a wire format");
/* An op embeds the largest header (struct fabric_op.wire). */
#define FABRIC_AM_HDR_MAX (sizeof(struct fabric_am_hdr) + sizeof(struct fabric_am_write))

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

/* Connection blob: then addr_len bytes of UCP worker address. */
struct fabric_conn_blob {
	struct fabric_blob_hdr hdr;
	uint32_t conn_id;
	uint32_t cookie;
	uint8_t host_id[16]; /* boot id: equal => same kernel, shm/cma reachable */
	uint32_t addr_len;
	uint32_t pid;	 /* exporting process, for liveness on the same host */
	uint64_t pid_ns; /* inode of its pid namespace: pid means something only if equal */
	/*
	 * Extension of version 1 (read only when hdr_len covers it): the
	 * exporter's UCX tcp receive segment in bytes.  UCX sends AM fragments
	 * as large as its own segment and a receiver with a smaller one aborts,
	 * so tcp peers must agree.  A blob without it comes from a build that
	 * left UCX's default (FABRIC_TCP_SEG_UCX_DEFAULT).
	 */
	uint32_t tcp_seg;
	uint32_t reserved;
};
#define FABRIC_CONN_BLOB_V1_LEN 56 /* fixed part before tcp_seg */
#define FABRIC_TCP_SEG_UCX_DEFAULT (64u << 10)
static_assert(sizeof(struct fabric_conn_blob) == 64, "fabric_conn_blob is a wire format");
static_assert(offsetof(struct fabric_conn_blob, tcp_seg) == FABRIC_CONN_BLOB_V1_LEN, "v1 prefix kept");

/*
 * A shared window: a memfd in the exporter that a same-host peer may map
 * (fabric_window.c).  len 0: none.
 */
struct fabric_window_desc {
	uint64_t addr; /* inside the blob's [addr, addr + len), page-aligned */
	uint64_t len;
	uint64_t ino; /* the memfd's inode: tells a reused fd number apart */
	int32_t fd;   /* fd number in the exporter */
	uint32_t pid; /* exporter pid, in the pid namespace pid_ns */
	uint64_t pid_ns;
};
static_assert(sizeof(struct fabric_window_desc) == 40, "fabric_window_desc is a wire format");

/*
 * Memory blob: then rkey_len bytes of packed UCP rkey (at hdr_len).  The
 * window extends version 1: a parser reads it only when hdr_len covers it,
 * and older parsers skip it.
 */
struct fabric_mr_blob {
	struct fabric_blob_hdr hdr;
	uint64_t addr;
	uint64_t len;
	uint32_t perms; /* FABRIC_PERM_* */
	uint32_t mr_id;
	uint8_t key[16];
	uint32_t rkey_len;
	uint32_t reserved;
	struct fabric_window_desc win;
};
static_assert(sizeof(struct fabric_mr_blob) == 104, "fabric_mr_blob is a wire format");
#define FABRIC_MR_BLOB_V1_LEN 64u

/* A blob's window, when it has one, lies inside its range and names an fd. */
static inline bool
sd_fabric_window_desc_ok(const struct fabric_mr_blob *b)
{
	const struct fabric_window_desc *w = &b->win;

	if (w->len == 0)
		return true;
	return w->fd >= 0 && w->addr >= b->addr && w->addr + w->len > w->addr && w->addr + w->len <= b->addr + b->len;
}

/* The soft NIC only runs where the CPU is little-endian (x86-64, aarch64). */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "wire formats are little-endian");

#endif /* SD_FABRIC_PROTO_H_ */
