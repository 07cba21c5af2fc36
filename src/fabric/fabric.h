/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Driver-facing API of the soft NIC: reliable-connected queue pairs, memory
 * registration and one-sided operations over UCX (UCP).  It knows nothing of
 * DOCA objects: the RDMA/Verbs facades translate doca_buf/doca_mmap/tasks into
 * plain buffers, lengths, keys and struct fabric_op.  The facade validates, the
 * fabric trusts (NULL checks aside); see docs/rdma-ucx.md for the design.
 *
 * Object model
 *   fabric_dev  one UCP context + worker + service thread per netdev per process,
 *               whichever DOCA libraries load it (libsoftdoca_fabric is one
 *               shared object; sd_fabric_dev_open() returns the shared one, refcounted)
 *   fabric_ctx  a completion domain: completion queue, shared receive queue,
 *               unexpected-message queue; progressed by one application thread
 *               at a time (a doca_rdma context; a Verbs QP's receive queue or SRQ)
 *   fabric_ep   a queue pair: a UCP endpoint + sequence/ack/ordering state,
 *               belongs to one ctx; export() -> blob -> the peer's connect()
 *   fabric_mr   a registered local range with permissions and a random 128-bit
 *               key; export() -> blob -> fabric_rmr on the peer.  Every remote
 *               access is checked against the owner's own record of it
 *               (key, range, permission) before memory is touched.
 *   fabric_op   one operation, embedded in the caller's task; the caller sets
 *               cb/user, posts it, and gets exactly one cb(op) from
 *               fabric_ctx_progress() on its own thread with op->status set.
 *
 * Call order: dev_open -> ctx_create -> ep_create -> ep_export / ep_connect
 * (both sides) -> post ops -> ctx_progress ... -> ep_destroy -> ctx_destroy ->
 * dev_close.  Every function is thread-safe with respect to the service
 * thread; one ctx must be progressed by one thread at a time.
 *
 * RC semantics kept by the layer: a send/send_imm/write_imm completes only
 * when the peer has placed it into a posted receive (an ack); a message
 * arriving before a receive is posted waits at most the ctx's rnr timeout in a
 * bounded queue, then both sides see DOCA_ERROR_TIME_OUT (sender: the op;
 * receiver: the ep error callback) and the connection is in error.  A
 * send/send_imm/write_imm posted after a write/atomic on the same ep is
 * delivered after that write's data is visible.  A write completes when its
 * data is visible at the target (remote completion).
 */
#ifndef SD_FABRIC_H_
#define SD_FABRIC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "../util/sd_util.h"

struct fabric_dev;
struct fabric_ctx;
struct fabric_ep;
struct fabric_mr;
struct fabric_rmr;
struct fabric_ticket;

/* Remote access permissions of a registered range (bit values are on the wire). */
#define FABRIC_PERM_REMOTE_READ (1u << 0)
#define FABRIC_PERM_REMOTE_WRITE (1u << 1)
#define FABRIC_PERM_REMOTE_ATOMIC (1u << 2)
#define FABRIC_PERM_ALL (FABRIC_PERM_REMOTE_READ | FABRIC_PERM_REMOTE_WRITE | FABRIC_PERM_REMOTE_ATOMIC)

/* Export blobs (connection, memory) never exceed this. */
#define FABRIC_BLOB_MAX 4096u

enum fabric_op_type {
	FABRIC_OP_RECV = 1,
	FABRIC_OP_SEND,
	FABRIC_OP_SEND_IMM,
	FABRIC_OP_WRITE,
	FABRIC_OP_WRITE_IMM,
	FABRIC_OP_READ,
	FABRIC_OP_FETCH_ADD,
	FABRIC_OP_CMP_SWP,
};

/* What a completed receive consumed (same values as enum doca_rdma_opcode). */
enum fabric_recv_opcode {
	FABRIC_RECV_SEND = 0,
	FABRIC_RECV_SEND_IMM = 1,
	FABRIC_RECV_WRITE_IMM = 2,
};

struct fabric_op;
typedef void (*fabric_op_cb)(struct fabric_op *op);

/*
 * One operation.  The caller owns the memory, sets cb and user, and must keep
 * the op and its buffers untouched until cb runs.  Everything below "private"
 * belongs to the fabric.
 */
struct fabric_op {
	fabric_op_cb cb;
	void *user;
	/* results, valid in cb */
	doca_error_t status;
	uint32_t len;			/* RECV: bytes placed; READ: bytes read */
	uint32_t imm;			/* RECV: immediate (opaque, as sent) */
	enum fabric_recv_opcode opcode; /* RECV: what was received */
	struct fabric_ep *src_ep;	/* RECV: the local ep the message came on (NULL once it is destroyed) */
	void *src_user;			/* RECV: that ep's user pointer (stays valid after its destroy) */
	/* private */
	struct sd_list node;
	struct fabric_ctx *ctx;
	struct fabric_ep *ep;
	enum fabric_op_type type;
	uint32_t seq;
	uint16_t pending; /* FABRIC_OPP_* bits still outstanding */
	uint16_t stage;	  /* WRITE_IMM: 0 data, 1 notification */
	bool am_only;	  /* a direct copy of it failed: the active-message path from now on */
	void *buf;
	size_t buf_len;
	struct fabric_rmr *rmr;
	uint64_t raddr;
	uint64_t operand[2];
	uint64_t *result;
	uint64_t wire[12];	      /* AM header, alive until UCX is done with it */
	struct fabric_ticket *ticket; /* what UCX's callback holds while a request is out */
};

struct fabric_ep_stats {
	/*
	 * Writes and reads may be copied by the kernel straight into the peer
	 * (same host and pid namespace, the peer's own record checked first);
	 * otherwise they travel as active messages the peer serves.
	 */
	bool direct;
	uint32_t inflight; /* ops waiting for an ack or a UCX completion, or batched */
	uint32_t batched;  /* of those, direct copies waiting for the next progress call */
	uint32_t deferred; /* ops held back by ordering or the window */
	uint64_t mapped;   /* direct copies done with memcpy into the peer's shared object (fabric_mapped.c) */
	uint64_t eager;	   /* small writes and reads sent as messages because the peer was progressing */
	/* syscalls only to see the peer still runs the image that connected (its life lock not held, or not believed)
	 */
	uint64_t image_reads;
};

typedef void (*fabric_ep_error_cb)(struct fabric_ep *ep, doca_error_t status, void *user);

/* ---- device (fabric_ucx.c) ---- */

/*
 * Open (or take a reference on) the fabric device bound to netdev: UCP context
 * restricted to that netdev for network transports (NULL or "" = all), shm/cma
 * allowed, plus its worker and service thread.
 */
SD_EXPORT doca_error_t sd_fabric_dev_open(const char *netdev, struct fabric_dev **dev);
/*
 * A reference on the most recently opened device (or, with none open, the
 * all-netdev one), for memory whose owner names no device (sync events).
 */
SD_EXPORT doca_error_t sd_fabric_dev_open_last(struct fabric_dev **dev);
SD_EXPORT void sd_fabric_dev_close(struct fabric_dev *dev);

/* ---- completion domain (fabric_progress.c) ---- */

struct fabric_ctx_attr {
	uint32_t max_unexpected;	/* messages held before a receive is posted (0: 64) */
	uint32_t rnr_timeout_ms;	/* how long they may wait (0: 2000) */
	fabric_ep_error_cb ep_error_cb; /* connection failed (called from progress) */
	void *user;
	/*
	 * The owner progresses from the one thread that sleeps on the event fd, and
	 * arms (sd_fabric_ctx_arm) before each sleep, as a PE does: the fd is then
	 * written only while armed, never for an owner that busy-polls.  false: it
	 * is written for every completion another thread queues (Verbs domains,
	 * watched by any CQ's channel).
	 */
	bool signal_when_armed;
};

SD_EXPORT doca_error_t sd_fabric_ctx_create(struct fabric_dev *dev, const struct fabric_ctx_attr *attr,
					    struct fabric_ctx **ctx);
/* Fails with IN_USE while eps exist. Posted receives complete with CONNECTION_ABORTED first. */
SD_EXPORT doca_error_t sd_fabric_ctx_destroy(struct fabric_ctx *ctx);
/*
 * Progress the device's worker and deliver this ctx's completions (op->cb) and
 * ep errors on the calling thread.  Returns the number of callbacks run.
 */
SD_EXPORT uint32_t sd_fabric_ctx_progress(struct fabric_ctx *ctx);
/* Are completions or connection errors waiting for sd_fabric_ctx_progress()? */
SD_EXPORT bool sd_fabric_ctx_has_work(struct fabric_ctx *ctx);
/*
 * The owner is going to sleep on its event fd (a PE arming its notification):
 * the service thread takes the worker now.  Returns sd_fabric_ctx_has_work().
 */
SD_EXPORT bool sd_fabric_ctx_arm(struct fabric_ctx *ctx);
/* An fd that becomes readable when completions were queued by the service thread. */
SD_EXPORT int sd_fabric_ctx_get_event_fd(struct fabric_ctx *ctx);
/*
 * Complete every posted receive with err (delivered by the next progress), as
 * a QP in error flushes its receive queue: for the owner that knows no
 * connection can fill them any more.
 */
SD_EXPORT void sd_fabric_ctx_flush_recvs(struct fabric_ctx *ctx, doca_error_t err);
/*
 * How long a message may wait for a receive from now on (UINT64_MAX: for
 * ever, as an RNR retry count of 7); messages already waiting keep theirs.
 */
SD_EXPORT void sd_fabric_ctx_set_rnr_timeout(struct fabric_ctx *ctx, uint64_t timeout_ns);
/* Post a receive buffer (buf may be NULL with len 0: write_imm or empty sends). */
SD_EXPORT doca_error_t sd_fabric_ctx_post_recv(struct fabric_ctx *ctx, struct fabric_op *op, void *buf, size_t len);

/* ---- queue pairs (fabric_ep.c) ---- */

SD_EXPORT doca_error_t sd_fabric_ep_create(struct fabric_ctx *ctx, void *user, struct fabric_ep **ep);
/*
 * Tear the ep down: UCX requests still out are given up to 1 s, the ack owed
 * to the peer is sent and the endpoint flushed (so everything this side sent
 * is on its way before the caller tells the peer over another channel, e.g.
 * the CM's DISCONNECT); then ops not yet completed complete with
 * CONNECTION_ABORTED (delivered by the next progress) and the UCP endpoint is
 * closed.  Receives already completed from this ep keep src_user; their
 * src_ep becomes NULL.
 */
SD_EXPORT void sd_fabric_ep_destroy(struct fabric_ep *ep);
/*
 * The peer is known to be gone (e.g. the CM saw its socket reset): the ep
 * fails now, its ops complete with err, and a later destroy does not wait for
 * the peer.  No error callback.
 */
SD_EXPORT void sd_fabric_ep_abort(struct fabric_ep *ep, doca_error_t err);
/*
 * SOFTDOCA_FAULTS vanish: behave as if the peer process died now - what the
 * liveness check does for a dead same-host peer (ops fail with
 * DOCA_ERROR_CONNECTION_RESET, the error callback follows from progress).
 */
SD_EXPORT void sd_fabric_ep_vanish(struct fabric_ep *ep);
SD_EXPORT void *sd_fabric_ep_get_user(const struct fabric_ep *ep);
/*
 * The ep's protection domain (0: none), before it is exported: the peer's
 * accesses through this ep reach registrations of that domain (and of none).
 */
SD_EXPORT void sd_fabric_ep_set_domain(struct fabric_ep *ep, uint32_t domain);
/* The blob (owned by the ep, valid until destroy) the peer passes to connect(). */
SD_EXPORT doca_error_t sd_fabric_ep_export(struct fabric_ep *ep, const void **blob, size_t *len);
/*
 * Parse the peer's blob (INVALID_VALUE if malformed) and create the UCP
 * endpoint.  On failure *reason (may be NULL) says why, for the caller to log.
 */
SD_EXPORT doca_error_t sd_fabric_ep_connect(struct fabric_ep *ep, const void *blob, size_t len, const char **reason);
SD_EXPORT void sd_fabric_ep_get_stats(struct fabric_ep *ep, struct fabric_ep_stats *stats);
/* No op of the ep is waiting (for the peer, UCX, ordering or the window). */
SD_EXPORT bool sd_fabric_ep_is_idle(struct fabric_ep *ep);

/* Two-sided: consume one receive posted on the peer's ctx. */
SD_EXPORT doca_error_t sd_fabric_ep_send(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len);
SD_EXPORT doca_error_t sd_fabric_ep_send_imm(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len,
					     uint32_t imm);
/*
 * One-sided into [raddr, raddr+len) of rmr; write_imm also consumes a receive.
 * The initiator checks the imported range (INVALID_VALUE / NOT_PERMITTED,
 * nothing sent); the target checks its own record again and refuses a
 * forged or revoked one: the op completes with NOT_PERMITTED, the
 * connection fails on both sides, the target's memory is untouched.
 */
SD_EXPORT doca_error_t sd_fabric_ep_write(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len,
					  struct fabric_rmr *rmr, uint64_t raddr);
SD_EXPORT doca_error_t sd_fabric_ep_write_imm(struct fabric_ep *ep, struct fabric_op *op, const void *buf, size_t len,
					      struct fabric_rmr *rmr, uint64_t raddr, uint32_t imm);
SD_EXPORT doca_error_t sd_fabric_ep_read(struct fabric_ep *ep, struct fabric_op *op, void *buf, size_t len,
					 struct fabric_rmr *rmr, uint64_t raddr);
/* 8-byte atomics on an 8-byte aligned remote address; *result gets the old value. */
SD_EXPORT doca_error_t sd_fabric_ep_fetch_add(struct fabric_ep *ep, struct fabric_op *op, struct fabric_rmr *rmr,
					      uint64_t raddr, uint64_t add, uint64_t *result);
SD_EXPORT doca_error_t sd_fabric_ep_cmp_swp(struct fabric_ep *ep, struct fabric_op *op, struct fabric_rmr *rmr,
					    uint64_t raddr, uint64_t cmp, uint64_t swap, uint64_t *result);
/*
 * After an atomic on rmr completed: tell the target, whose range owner (a sync
 * event) may have waiters to wake.  Fire and forget (a lost notice only costs
 * a sleeping waiter its wake-up), ordered after the atomic on this ep.
 */
SD_EXPORT void sd_fabric_ep_notify_changed(struct fabric_ep *ep, struct fabric_rmr *rmr, uint64_t raddr);

/* ---- memory (fabric_mem.c) ---- */

/*
 * A peer's range as its blob (or an rkey) describes it; the peer's record has
 * the last word.  Public so a caller may embed one next to its op (rkey
 * addressing); fields are the fabric's.
 */
struct fabric_rmr {
	struct fabric_dev *dev;
	uint64_t addr;
	uint64_t len;
	uint32_t perms;
	uint32_t mr_id;
	uint8_t key[16];
};

/*
 * Told that a peer's atomic changed the registered range (see
 * sd_fabric_ep_notify_changed).  Runs on any thread with the device lock
 * held: it must only signal (e.g. wake a PE), never call the fabric.
 */
typedef void (*fabric_mr_notify_cb)(void *arg);

SD_EXPORT doca_error_t sd_fabric_mr_register(struct fabric_dev *dev, void *addr, size_t len, uint32_t perms,
					     struct fabric_mr **mr);
/* Install (or with cb NULL remove) the change notification of a registered range. */
SD_EXPORT void sd_fabric_mr_set_notify(struct fabric_mr *mr, fabric_mr_notify_cb cb, void *arg);
/* Deregister; remote accesses through its blob are refused from now on (the target's record is gone). */
SD_EXPORT void sd_fabric_mr_deregister(struct fabric_mr *mr);
/* The blob (owned by the mr) carrying range, permissions, region id and key. */
SD_EXPORT doca_error_t sd_fabric_mr_export(struct fabric_mr *mr, const void **blob, size_t *len);
/* Parse a peer's mr blob (INVALID_VALUE if malformed, UNSUPPORTED_VERSION if newer). */
SD_EXPORT doca_error_t sd_fabric_rmr_import(struct fabric_dev *dev, const void *blob, size_t len,
					    struct fabric_rmr **rmr);
SD_EXPORT void sd_fabric_rmr_destroy(struct fabric_rmr *rmr);
/*
 * Register for rkey addressing (RDMA Verbs): the range's key is derived from
 * the 32-bit *rkey returned (region id << 8 | an 8-bit random tag), so a peer
 * that knows only (rkey, address) reaches it through sd_fabric_rmr_init_rkey().
 * The owner's record decides every access exactly as for a blob: range,
 * permissions, and a tag that no longer matches once the range is deregistered
 * and its region id reused.  A nonzero domain (a Verbs PD) restricts the range
 * to the owner's connections of that domain (sd_fabric_ep_set_domain), as an
 * MR serves only QPs of its PD.
 */
SD_EXPORT doca_error_t sd_fabric_mr_register_rkey(struct fabric_dev *dev, void *addr, size_t len, uint32_t perms,
						  uint32_t domain, struct fabric_mr **mr, uint32_t *rkey);
/*
 * Fill *rmr (the caller's storage) as the peer range named by rkey: it claims
 * every address and permission, so only the target's check decides.
 */
SD_EXPORT void sd_fabric_rmr_init_rkey(struct fabric_rmr *rmr, struct fabric_dev *dev, uint32_t rkey);
SD_EXPORT void sd_fabric_rmr_get_range(const struct fabric_rmr *rmr, uint64_t *addr, uint64_t *len, uint32_t *perms);

#endif /* SD_FABRIC_H_ */
