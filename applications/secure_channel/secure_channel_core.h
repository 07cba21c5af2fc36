/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure Channel: a host process and a DPU process send each other -n messages of
 * -s bytes over DOCA Comch.  A Comch server (DPU) / client (host) connection
 * carries the control messages; the messages themselves go over the fast path,
 * this side's producer into the peer's consumer and the peer's producer into
 * this side's consumer, both directions at once.  Every message is checked on
 * arrival (its length, its bytes, its order).
 */
#ifndef SECURE_CHANNEL_CORE_H_
#define SECURE_CHANNEL_CORE_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#define SC_SERVER_NAME "secure_channel"
#define SC_MAX_MSG_SIZE (64u << 20) /* -s: bytes per message */
#define SC_MAX_DEPTH 64u	    /* receives posted / sends in flight at once, per direction */
#define SC_DEPTH_BYTES (16u << 20)  /* ... and at most this many bytes of them */
#define SC_NUM_CTRL_TASKS 8

struct sc_cfg {
	uint32_t msg_size;			      /* -s */
	uint32_t num_msgs;			      /* -n */
	char comch_pci[DOCA_DEVINFO_PCI_ADDR_SIZE];   /* -p */
	char rep_pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r (DPU) */
	bool is_dpu;
};

/*
 * Control messages (little-endian).  CONFIG is the first message of each side: the
 * two must agree on -s and -n.  FINISHED says the sender's consumer has every
 * message of the other side; a side ends once both consumers are done.
 */
enum sc_ctrl_type {
	SC_CTRL_CONFIG = 1,
	SC_CTRL_FINISHED = 2,
};

struct sc_ctrl_msg {
	uint32_t type;
	uint32_t msg_size;
	uint32_t num_msgs;
	uint32_t reserved; /* 0 */
};
_Static_assert(sizeof(struct sc_ctrl_msg) == 16, "control message is 16 bytes");

/* Run one side to the end: SUCCESS once every message went both ways intact. */
doca_error_t sc_run(const struct sc_cfg *cfg);

/* --- secure_channel_fastpath.c: one direction each way --- */

struct sc_fastpath;

/* The side's fast path on conn, sharing pe: the consumer started and its receives posted, a producer started. */
doca_error_t sc_fastpath_create(const struct sc_cfg *cfg, struct doca_dev *dev, struct doca_pe *pe,
				struct doca_comch_connection *conn, struct sc_fastpath **fp);
/* The peer's consumer appeared: the producer may send to it. */
void sc_fastpath_peer_consumer(struct sc_fastpath *fp, uint32_t id);
/* Submit what can be sent now; false once a send or receive failed (logged). */
bool sc_fastpath_push(struct sc_fastpath *fp);
/* Every message sent (and completed) / received and checked. */
bool sc_fastpath_sent_all(const struct sc_fastpath *fp);
bool sc_fastpath_received_all(const struct sc_fastpath *fp);
/* Print the two results lines. */
void sc_fastpath_report(const struct sc_fastpath *fp);
/* Stop the producer and the consumer (progressing the PE until IDLE) and free everything. */
void sc_fastpath_destroy(struct sc_fastpath *fp);

/* Message i's byte at offset j, from the host (false) or the DPU (true). */
static inline uint8_t
sc_pattern(uint32_t i, uint32_t j, bool from_dpu)
{
	return (uint8_t)((i * 131u + j * 7u + (j >> 8) + (from_dpu ? 0x5au : 0xa5u)) ^ (i >> 8));
}

#endif /* SECURE_CHANNEL_CORE_H_ */
