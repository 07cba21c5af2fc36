/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch wire format: every packet between a client process and a server process
 * (one SOCK_SEQPACKET record each) starts with this header.  Fixed-width
 * little-endian fields, no pointers, sizes asserted.  sd_comch_parse() is the one
 * parser; tests/fuzz/comch feeds it arbitrary bytes.
 *
 * Header (16 bytes):
 *
 *   0       4         6      7       8           12          16
 *   +-------+---------+------+-------+-----------+-----------+
 *   | magic | version | type | flags | total_len |    arg    |
 *   +-------+---------+------+-------+-----------+-----------+
 *
 *   magic      "SDCC" as bytes
 *   version    SD_COMCH_PROTO_VERSION; another value is refused (UNSUPPORTED_VERSION)
 *   type       enum sd_comch_type
 *   flags      0 (reserved)
 *   total_len  header + payload; must equal the record's length
 *   arg        per type: consumer id (CONSUMER_*, FP_*), else 0
 *
 * Payloads:
 *   HELLO         client -> server, first record: struct sd_comch_hello + name bytes
 *                 (name_len bytes, no NUL)
 *   WELCOME       server -> client, answer to HELLO: struct sd_comch_welcome; status 0
 *                 accepts, a doca_error_t refuses (the server then closes)
 *   MSG           a control-path message: 0 .. SD_COMCH_MAX_MSG bytes
 *   BYE           orderly end of the connection (empty)
 *   CONSUMER_NEW  a consumer with id arg started on the sender's side: where its post
 *                 ring is and the sender's grants (src/core/xproc.h) of the ring (read)
 *                 and of the consumer's buffer mmap (write) (struct sd_comch_consumer)
 *   CONSUMER_GONE consumer arg stopped (empty)
 *   FP_DATA       producer wrote into consumer arg's oldest posted buffer:
 *                 struct sd_comch_fp_data + imm_len immediate bytes
 *   FP_DOORBELL   consumer arg's shared ring holds new completions and it was armed
 *                 (empty; see "The shared post ring" below)
 *
 * The post ring (struct sd_comch_ring) lives in the consumer's memory - a shared
 * memfd both map when CONSUMER_NEW carries its descriptor, else memory the producer
 * reads through the kernel (process_vm_readv); the producer writes the data through
 * the kernel (process_vm_writev) - into the process at the other end of the socket
 * (SO_PEERCRED), never one a record names, and only inside what that process
 * granted: the pid fields of HELLO and WELCOME are informational.
 */
#ifndef SD_COMCH_PROTO_H_
#define SD_COMCH_PROTO_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "../core/xproc.h"

#define SD_COMCH_MAGIC 0x43434453u /* "SDCC" little-endian */
#define SD_COMCH_PROTO_VERSION 3   /* 2: CONSUMER_NEW carries grants, not a pid; 3: staged completions */
#define SD_COMCH_MAX_MSG 4080u	   /* control-path cap (doca_comch_cap_get_max_msg_size) */
#define SD_COMCH_MAX_NAME 120u	   /* service name, NUL included */
#define SD_COMCH_MAX_IMM 32u	   /* immediate data of a fast-path send */
#define SD_COMCH_MAX_RECORD (16u + SD_COMCH_MAX_MSG) /* the largest record of any type */

enum sd_comch_type {
	SD_COMCH_HELLO = 1,
	SD_COMCH_WELCOME = 2,
	SD_COMCH_MSG = 3,
	SD_COMCH_BYE = 4,
	SD_COMCH_CONSUMER_NEW = 5,
	SD_COMCH_CONSUMER_GONE = 6,
	/* 7: reserved */
	SD_COMCH_FP_DATA = 8,
	SD_COMCH_FP_DOORBELL = 9,
};

struct sd_comch_hdr {
	uint32_t magic;
	uint16_t version;
	uint8_t type;
	uint8_t flags;
	uint32_t total_len;
	uint32_t arg;
};
_Static_assert(sizeof(struct sd_comch_hdr) == 16, "comch header is 16 bytes");

/* HELLO: who connects, with which limits, to which (function, service). */
struct sd_comch_hello {
	uint32_t pid;	     /* client process (informational; SO_PEERCRED says who it is) */
	uint32_t max_msg;    /* largest message the client accepts, <= SD_COMCH_MAX_MSG */
	uint32_t recv_queue; /* client's receive queue size, >= 1 */
	uint32_t name_len;   /* 1 .. SD_COMCH_MAX_NAME - 1 */
	char pci_addr[16];   /* host function "DDDD:BB:DD.F", NUL-padded */
};
_Static_assert(sizeof(struct sd_comch_hello) == 32, "comch hello is 32 bytes");

struct sd_comch_welcome {
	uint32_t status;  /* 0: accepted; else the doca_error_t of the refusal */
	uint32_t max_msg; /* largest message the server accepts */
	uint32_t pid;	  /* server process (informational) */
	uint32_t conn_id; /* the server's number for this connection */
};
_Static_assert(sizeof(struct sd_comch_welcome) == 16, "comch welcome is 16 bytes");

struct sd_comch_consumer {
	uint32_t ring_cap;  /* slots of its post ring: a power of two, <= SD_COMCH_MAX_RING */
	uint32_t reserved;  /* 0 */
	uint64_t ring_addr; /* its post ring, in the sender's process, 8-aligned */
	uint64_t ring_rec;  /* the sender's grant record of the ring (read), 8-aligned */
	uint8_t ring_key[SD_XPROC_KEY_LEN];
	uint64_t buf_rec; /* the sender's grant record of the consumer's buffer mmap (write) */
	uint8_t buf_key[SD_XPROC_KEY_LEN];
};
_Static_assert(sizeof(struct sd_comch_consumer) == 64, "comch consumer record is 64 bytes");

/* CONSUMER_NEW after parsing. */
struct sd_comch_consumer_info {
	uint32_t ring_cap;
	uint64_t ring_addr;
	struct sd_xproc_ref ring; /* covers the ring header and its ring_cap slots */
	struct sd_xproc_ref buf;  /* every posted slot lies inside it */
};

#define SD_COMCH_MAX_RING 65536u

/*
 * The consumer's post ring (not a record: read in place by the producer).  The
 * consumer writes slot[posted % cap] and then publishes posted + 1 (release); a
 * producer reads posted, then the slot (from the shared map, or in one
 * process_vm_readv).  A slot is reused only after its completion was handled.
 */
struct sd_comch_ring_slot {
	uint64_t addr; /* where the data goes, in the consumer's process */
	uint64_t len;  /* room */
};

struct sd_comch_ring {
	uint64_t posted; /* slots ever posted (atomic) */
	uint32_t cap;
	uint32_t reserved;
	struct sd_comch_ring_slot slot[];
};
_Static_assert(sizeof(struct sd_comch_ring) == 16, "comch ring header is 16 bytes");

struct sd_comch_fp_data {
	uint64_t len; /* bytes written at the posted buffer's address */
	uint32_t producer_id;
	uint32_t imm_len; /* 0 .. SD_COMCH_MAX_IMM, the bytes follow */
};
_Static_assert(sizeof(struct sd_comch_fp_data) == 16, "comch data record is 16 bytes");

/*
 * The shared post ring (docs/comch.md "Shared ring").  When the consumer can make
 * one, its post ring lives at offset 0 of a sealed memfd (F_SEAL_SHRINK, GROW,
 * SEAL) of sd_comch_shring_size(cap) bytes, passed with CONSUMER_NEW (SCM_RIGHTS)
 * and mapped by both processes.  After the ring's cap slots, at
 * sd_comch_shring_tail(cap), the producer's half:
 *
 *   done   completions published (atomic, release): entry[p % cap] is the
 *          completion of ring position p for p < done
 *   armed  1: the consumer sleeps on its PE's notification; the producer that
 *          sees it takes it (exchange to 0) and sends one FP_DOORBELL
 *   entry  cap completions (struct sd_comch_shring_comp, FP_DATA's fields)
 *
 * and three fields of the consumer's.  share, written before the descriptor is
 * passed and never changed, names the shared object its buffer mmap lies in
 * (xproc.h "shareable memory"; fd -1: private memory).  It only says where the
 * consumer wants the data: the producer takes that descriptor from the
 * connected process (pidfd_getfd) and maps exactly the range of the buffer
 * grant it read through the kernel.  granted is 1 from then until the
 * consumer revokes that grant (it stores 0 first, release): before each copy
 * through the mapping the producer loads it (acquire) instead of reading the
 * grant through the kernel again, and reads the grant again when it is 0
 * (docs/comch.md "The mapped path"); a consumer with a staging area sets it
 * too (staging waits for 1).  stage_freed: see "The staging area" below.
 *
 * The staging area (docs/comch.md "The staged path").  A consumer may make the
 * memfd SD_COMCH_STAGE_LEN bytes longer: those bytes, from
 * sd_comch_shring_size(cap) on, are a byte ring the producer copies a message
 * of up to SD_COMCH_STAGE_MAX bytes into instead of writing the consumer's
 * buffer; its completion then says staged = 1 and where (stage_at: a running
 * byte count, offset stage_at % SD_COMCH_STAGE_LEN, the bytes never wrap), and
 * the consumer copies the bytes into its own posted buffer as it reaps the
 * completion, then publishes stage_freed = stage_at + len (release).  The
 * producer stages only into room the consumer freed, only while granted is 1
 * (the consumer clears it before it stops), and never reads or writes the
 * consumer's process for it.  The memfd's size says whether the area exists.
 *
 * Both sides treat what the other writes as foreign: the producer copies a slot
 * once and checks it against the consumer's buffer grant (read through the
 * kernel right before the copy), the consumer checks each completion as it
 * checks FP_DATA.  Native byte order: both ends run on one kernel.
 */
struct sd_comch_shring_tail {
	uint64_t done;
	uint32_t armed;
	uint32_t granted;	     /* the consumer's, see above */
	struct sd_xproc_share share; /* the consumer's, see above */
	uint64_t stage_freed;	     /* the consumer's: staged bytes it copied out (a running count) */
	uint8_t pad[8];
};
_Static_assert(sizeof(struct sd_comch_shring_tail) == 64, "shared ring tail is one cache line");

struct sd_comch_shring_comp {
	uint64_t len;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[SD_COMCH_MAX_IMM];
	uint64_t stage_at; /* staged: where the bytes start in the staging area (a running count) */
	uint32_t staged;   /* 1: the bytes are in the staging area, not yet in the buffer; else 0 */
	uint32_t reserved; /* 0 */
};
_Static_assert(sizeof(struct sd_comch_shring_comp) == 64, "shared ring completion is 64 bytes");

#define SD_COMCH_STAGE_LEN (1u << 20) /* the staging area: a power of two */
#define SD_COMCH_STAGE_MAX (1u << 16) /* the largest message staged; larger ones go to the buffer */

/* Offset of the tail (cache-line aligned, after the header and cap slots). */
static inline uint64_t
sd_comch_shring_tail(uint32_t cap)
{
	return (16u + (uint64_t)cap * sizeof(struct sd_comch_ring_slot) + 63u) & ~(uint64_t)63u;
}

/* Bytes of the memfd without a staging area (its offset when there is one): a whole number of 4 KiB pages. */
static inline uint64_t
sd_comch_shring_size(uint32_t cap)
{
	uint64_t end = sd_comch_shring_tail(cap) + 64u + (uint64_t)cap * sizeof(struct sd_comch_shring_comp);

	return (end + 4095u) & ~(uint64_t)4095u;
}

/* A parsed record: the header's fields and the payload (pointing into the input). */
struct sd_comch_msg {
	enum sd_comch_type type;
	uint32_t arg;
	const uint8_t *payload;
	uint32_t payload_len;
	/* per type, decoded */
	union {
		struct sd_comch_hello hello; /* pci_addr NUL-terminated by the parser */
		struct sd_comch_welcome welcome;
		struct sd_comch_consumer_info consumer;
		struct sd_comch_fp_data data;
	} u;
	const char *name;   /* HELLO: name bytes (not NUL-terminated), u.hello.name_len */
	const uint8_t *imm; /* FP_DATA: u.data.imm_len bytes */
};

/*
 * Check len bytes of buf as one record.  SUCCESS fills *msg; INVALID_VALUE (bad
 * magic, type, lengths, reserved bits) and UNSUPPORTED_VERSION refuse with *reason
 * set (when reason is not NULL) and *msg untouched.
 */
doca_error_t sd_comch_parse(const void *buf, size_t len, struct sd_comch_msg *msg, const char **reason);

/* Fill a header for a record of type with payload_len payload bytes. */
void sd_comch_hdr_init(struct sd_comch_hdr *hdr, enum sd_comch_type type, uint32_t payload_len, uint32_t arg);

#endif /* SD_COMCH_PROTO_H_ */
