/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Objects of the soft NIC as its own files see them, and the locking rule.
 *
 * Locking: one mutex per device (dev->lock) protects the UCP worker (created
 * UCS_THREAD_MODE_SERIALIZED) and every list/field below reachable from the
 * device: ctx queues, ep state, op lists, id tables.  UCX callbacks run inside
 * ucp_worker_progress(), i.e. with dev->lock held; they only move ops onto a
 * ctx's completion queue.  Application callbacks (op->cb, ep_error_cb) run in
 * sd_fabric_ctx_progress() with the lock released, so they may post new ops.
 */
#ifndef SD_FABRIC_INTERNAL_H_
#define SD_FABRIC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include <ucp/api/ucp.h>

#include "fabric.h"
#include "fabric_proto.h"
#include "fabric_worker.h"
#include "../core/xproc.h"

/* Ops needing an answer that may be outstanding per ep (ack window). */
#define FABRIC_WINDOW 64u

/*
 * A stream's lone ack waits until this many messages are unacknowledged, or
 * until the ep's messages stop coming (fabric_acks_flush()): a receiver kept
 * busy by a stream sends one ack per this many messages, not one per call.
 */
#define FABRIC_ACK_BATCH 8u

/* op->pending bits: what still has to happen before the op completes. */
#define FABRIC_OPP_UCX (1u << 0)   /* a UCX request is outstanding */
#define FABRIC_OPP_ACK (1u << 1)   /* the peer's ack is awaited */
#define FABRIC_OPP_RESP (1u << 2)  /* READ/ATOMIC: the peer's answer is awaited */
#define FABRIC_OPP_FETCH (1u << 3) /* READ: the answer's rendezvous payload is being fetched */

/*
 * Registration records a process offers to same-host peers (fabric_direct.c):
 * regions with a higher id are reached by active messages.  2,048 records of
 * 128 bytes: the table takes the 256 KiB of address space it took with 4,096
 * of 64 (tools/doca_perf's address-space-limit test runs near UCX's limit).
 */
#define FABRIC_RECS_CAP 2048u
/* The last slot holds the owner's progress stamp, not a registration (fabric_proto.h). */
#define FABRIC_STAMP_SLOT (FABRIC_RECS_CAP - 1)
/* Progress calls between two stamps: a clock read and a store in 256 calls. */
#define FABRIC_STAMP_EVERY 256u
/* A peer stamped this recently is progressing: it places a message at once. */
#define FABRIC_PEER_BUSY_NS (10 * 1000 * 1000ull)
/* Default of SOFTDOCA_FABRIC_EAGER_RMA: writes and reads up to this size go as messages to a busy peer. */
#define FABRIC_EAGER_RMA_DEFAULT 4096u
/* Direct copies an ep gathers into one process_vm_writev/readv (fabric_direct.c). */
#define FABRIC_DIRECT_BATCH 64u

/* Links a free UCX callback ticket (fabric_ep.c) in dev->ticket_cache; first member of the ticket. */
struct fabric_ticket_link {
	struct fabric_ticket_link *next;
};

/* Ticket cache bound: enough for a window of sends whose UCX requests are out. */
#define FABRIC_TICKET_CACHE_MAX FABRIC_WINDOW

struct fabric_dev {
	/* UCP context + worker, its lock (the "device lock") and service thread (fabric_worker.c) */
	struct fabric_worker w;
	/* CLOCK_MONOTONIC ns of the last application progress; the service thread backs off while recent */
	atomic_uint_fast64_t app_progress_ns;
	struct fabric_ctx *progressing; /* ctx whose app thread holds the lock in progress */
	/* id -> object tables (slot index + 1); a stale id finds NULL or a new cookie */
	struct fabric_ep **eps;
	uint32_t eps_cap;
	struct fabric_mr **mrs;
	uint32_t mrs_cap;
	struct sd_list ctxs;
	struct sd_list ack_eps; /* eps with an ack to send */
	/* records of our registrations for same-host peers (fabric_direct.c); NULL: none */
	struct fabric_mr_rec *recs;
	int recs_fd;
	uint64_t recs_ino;
	uint32_t recs_pid; /* the process that made the table: a fork child has none (MADV_DONTFORK) */
	bool life_ok;	   /* the table's life lock is initialised (fabric_recs_life_hold()) */
	uint8_t host_id[16];
	bool shm_enabled;	   /* shm/cma may carry traffic (UCX_TLS allows it) */
	bool direct_enabled;	   /* SOFTDOCA_FABRIC_CMA is not off (fabric_direct.c) */
	bool mapped_enabled;	   /* SOFTDOCA_FABRIC_MAPPED is not off (fabric_mapped.c) */
	uint32_t eager_rma_max;	   /* SOFTDOCA_FABRIC_EAGER_RMA (fabric_direct_wanted()) */
	uint32_t svc_stamp_rounds; /* service rounds that served something, to the next stamp */
	uint64_t pid_ns;	   /* our pid namespace inode */
	uint32_t tcp_seg;	   /* UCX tcp receive segment in bytes (fabric_ucx.c); 0: unknown */
	uint32_t n_watched;	   /* eps watching a local peer's pidfd */
	struct sd_list watches;	   /* struct fabric_watch: one pidfd per peer process (fabric_ep.c) */
	uint64_t next_liveness_ns; /* when to poll those pidfds next */
	/* recycled UCX callback tickets (fabric_ep.c), freed when the last ctx goes */
	struct fabric_ticket_link *ticket_cache;
	uint32_t n_ticket_cache;
	/* process-wide registry */
	char netdev[64];
	uint32_t refcnt;
	struct sd_list node;
};

struct fabric_ctx {
	struct fabric_dev *dev;
	struct sd_list node; /* in dev->ctxs */
	struct sd_list eps;
	struct sd_list posted;	   /* RECV ops, FIFO */
	struct sd_list unexpected; /* struct fabric_unexp, FIFO */
	uint32_t n_unexpected;
	uint32_t max_unexpected;
	uint64_t rnr_timeout_ns;
	struct sd_list completions; /* ops ready for cb */
	/*
	 * Ops taken off completions by the running sd_fabric_ctx_progress(), whose
	 * callbacks it runs with the lock released; empty outside that call.  Only
	 * the ctx's own thread touches the list (ep destroy walks it too, for src_ep).
	 */
	struct sd_list delivering;
	struct sd_list err_eps; /* eps whose error is to be reported */
	struct sd_list batched; /* eps with direct copies for the next progress (fabric_direct.c) */
	fabric_ep_error_cb ep_error_cb;
	void *user;
	int event_fd;
	bool event_signaled;
	/*
	 * May the owner be asleep on event_fd?  Set by sd_fabric_ctx_arm before its
	 * re-check of the lists (under dev->w.lock), read by fabric_ctx_signal under
	 * that lock after queueing: the lock orders the two, so either the re-check
	 * sees the work or the signaller sees armed.  Cleared when the owner
	 * progresses (signal_when_armed only; otherwise always true).
	 */
	atomic_bool armed;
	bool signal_when_armed;
	uint32_t progress_calls; /* counts to the next progress stamp (fabric_recs_stamp()) */
};

enum fabric_ep_state {
	FABRIC_EP_IDLE, /* exported, not connected */
	FABRIC_EP_CONNECTED,
	FABRIC_EP_ERROR, /* failed; ops complete with err */
};

struct fabric_ep {
	struct fabric_ctx *ctx;
	struct sd_list node; /* in ctx->eps */
	void *user;
	uint32_t id;
	uint32_t cookie;
	enum fabric_ep_state state;
	doca_error_t err;
	bool err_reported;
	struct sd_list err_node; /* in ctx->err_eps */
	ucp_ep_h uep;
	ucp_ep_h reply_uep; /* to answer a peer that never connected back */
	uint32_t peer_id;
	uint32_t peer_cookie;
	uint32_t domain;      /* ours, in the blob (sd_fabric_ep_set_domain) */
	uint32_t peer_domain; /* the peer's, from its blob: what its registrations of a domain demand */
	/* sender side */
	uint32_t tx_seq;	   /* next seq to use */
	uint32_t tx_rid;	   /* next READ/ATOMIC request id */
	uint32_t onesided;	   /* writes/atomics not yet remotely complete */
	uint32_t writes;	   /* of those, writes (reads and atomics wait for them) */
	uint32_t n_requests;	   /* READ/ATOMIC requests awaiting their answer */
	struct sd_list inflight;   /* ops waiting for ack (seq order) or UCX */
	uint32_t n_inflight_acked; /* inflight ops that need an ack */
	struct sd_list deferred;   /* ops held back (ordering, window, not connected) */
	/* receiver side */
	uint32_t rx_base;  /* every seq < rx_base placed OK */
	uint64_t rx_done;  /* bit i: seq rx_base+i placed OK */
	uint32_t ack_sent; /* last ack value sent */
	bool ack_queued;   /* in dev->ack_eps */
	bool ack_fresh;	   /* placed a message since fabric_acks_flush() last deferred its ack */
	struct sd_list ack_node;
	/* export blob */
	uint8_t *blob;
	size_t blob_len;
	uint32_t pending_rx; /* rendezvous receives into our memory still running */
	/*
	 * Same-host peers use UCP_ERR_HANDLING_MODE_NONE (UCX 1.13 refuses shm/cma
	 * under PEER), so their death is seen through a pidfd instead.
	 */
	int pidfd; /* watch->pidfd: shared by every connection to that process */
	struct fabric_watch *watch;
	/*
	 * Same host and pid namespace: writes and reads may go straight into the
	 * peer with process_vm_writev/readv once its HELLO said where its
	 * registration records are (fabric_direct.c).  peer_pid comes from the
	 * connection blob; direct is set only when the HELLO's own pid agrees
	 * and its record table could be mapped, and cleared when the kernel
	 * refuses a copy (ptrace policy).
	 */
	uint32_t peer_pid;
	const struct fabric_tx_ops *tx; /* how writes and reads travel (fabric_tx.c) */
	/*
	 * Direct since a HELLO that came while writes or reads of ours still
	 * travelled as active messages: later ones wait until those are done
	 * (they may not overtake them) instead of following them as messages,
	 * which a connection kept busy would do forever (fabric_tx.c).
	 */
	bool direct_drain;
	uint32_t peer_recs_cap;
	const struct fabric_mr_rec *peer_recs; /* the peer's record table, mapped read-only */
	uint64_t n_eager;		       /* small writes and reads sent as messages to a busy peer */
	uint64_t peer_recs_addr; /* where the peer maps it (checked per batch: still that process image) */
	uint64_t n_image_reads;	 /* nonce reads: the peer's life lock was not held (fabric_direct.c) */
	bool peer_replaced; /* a copy found another program under the peer's pid: the liveness check fails the ep */
	/* the peer's program at connect (/proc/<pid>/exe): another one there means it exec'd; ino 0: unknown */
	uint64_t peer_exe_dev, peer_exe_ino;
	/* a HELLO that came before our connect(): checked and applied by it */
	struct fabric_am_hello early_hello;
	uint32_t early_hello_src_id, early_hello_src_cookie;
	bool early_hello_valid;
	/* direct copies checked and waiting to be done in one syscall (fabric_direct.c) */
	struct sd_list batch;
	uint32_t n_batch;
	bool batch_write;
	struct sd_list batch_node; /* in ctx->batched while n_batch > 0 */
	/* the peer's shareable regions this side mapped, by region id and record version (fabric_mapped.c) */
	struct fabric_win *wins;
	uint32_t n_wins, wins_next;
	uint64_t n_mapped;	    /* copies done through a window */
	ucs_status_ptr_t close_req; /* forced close started when the peer died */
};

/* A same-host peer process watched through one pidfd, whatever its number of connections to us. */
struct fabric_watch {
	struct sd_list node; /* in dev->watches */
	uint32_t pid;
	int pidfd;
	uint32_t refs; /* eps using it */
};

/*
 * A window onto a peer's registered range that lies in a shared object
 * (fabric_mapped.c): valid while the peer's record of mr_id has version seq.
 * win.base NULL: that version of the record names nothing this side could
 * map (not asked again until the record changes).
 */
struct fabric_win {
	uint32_t mr_id; /* 0: free slot */
	uint64_t seq;
	struct sd_xproc_window win;
};

#define FABRIC_WINS 8 /* windows kept per connection (round robin) */

/* Region ids an rkey can carry (24 bits: rkey = id << 8 | tag). */
#define FABRIC_RKEY_MAX_ID 0xffffffu

struct fabric_mr {
	struct fabric_dev *dev;
	uint32_t id;
	uint32_t domain; /* 0: reachable from every connection; else only from connections of this domain */
	void *addr;
	size_t len;
	uint32_t perms;
	uint8_t key[16];
	struct fabric_mr_blob blob;
	struct sd_xproc_share share; /* the shared object the range lies in, for the mapped path (fabric_mapped.c) */
	fabric_mr_notify_cb notify;  /* called (dev->lock held) on FABRIC_AM_CHANGED */
	void *notify_arg;
};

/* A message that arrived before a receive was posted. */
struct fabric_unexp {
	struct sd_list node;
	struct fabric_ep *ep;
	struct fabric_am_hdr hdr;
	uint64_t deadline_ns;
	size_t len;
	void *data;	 /* eager: malloc'd copy */
	void *rndv_desc; /* rendezvous: UCP descriptor, data still remote */
};

/* Free the cached tickets (dev->lock held, or no other thread left). */
static inline void
fabric_ticket_cache_free(struct fabric_dev *dev)
{
	while (dev->ticket_cache != NULL) {
		struct fabric_ticket_link *t = dev->ticket_cache;

		dev->ticket_cache = t->next;
		free(t);
	}
	dev->n_ticket_cache = 0;
}

/* fabric_ucx.c */
void fabric_dev_lock(struct fabric_dev *dev);
void fabric_dev_unlock(struct fabric_dev *dev);
doca_error_t fabric_id_alloc(void ***table, uint32_t *cap, void *obj, uint32_t *id);
void *fabric_id_lookup(void **table, uint32_t cap, uint32_t id);
void fabric_id_free(void **table, uint32_t cap, uint32_t id);

/* fabric_progress.c */
/* Wake the ctx's owner (its event fd) unless it is progressing this ctx right now. */
void fabric_ctx_signal(struct fabric_ctx *ctx);
void fabric_complete(struct fabric_op *op, doca_error_t status);
void fabric_op_done_bits(struct fabric_op *op, uint16_t bits, doca_error_t status);
void fabric_dev_progress_locked(struct fabric_dev *dev);
uint64_t fabric_timers_run(struct fabric_dev *dev);
extern const struct fabric_worker_ops fabric_dev_svc_ops;

/* The UCP endpoint answers go out on: ours, or the one a peer that never connected back came on. */
static inline ucp_ep_h
fabric_ep_uep(const struct fabric_ep *ep)
{
	return ep->uep != NULL ? ep->uep : ep->reply_uep;
}

/* fabric_ep.c: queue pairs, their life */
void fabric_ep_fail(struct fabric_ep *ep, doca_error_t err);
void fabric_unexp_free(struct fabric_dev *dev, struct fabric_unexp *u);
void fabric_liveness_check(struct fabric_dev *dev);
void fabric_ep_complete_orphans(struct fabric_ep *ep, doca_error_t err);

/* fabric_tx.c: queue pairs, the send side */

/*
 * How a connection's writes and reads travel, chosen per connection: as
 * active messages the target checks (fabric_tx_am, from connect on), or as
 * kernel copies checked against the target's record (fabric_tx_direct, once
 * the peer's HELLO offered them, until the kernel refuses one).  A direct op
 * the record does not grant still goes as an active message: the target's
 * refusal is the answer to a forged descriptor.
 */
struct fabric_tx_ops {
	doca_error_t (*write)(struct fabric_ep *ep, struct fabric_op *op);
	doca_error_t (*read)(struct fabric_ep *ep, struct fabric_op *op);
};
extern const struct fabric_tx_ops fabric_tx_am;
extern const struct fabric_tx_ops fabric_tx_direct;

static inline bool
fabric_ep_direct(const struct fabric_ep *ep)
{
	return ep->tx == &fabric_tx_direct;
}

void fabric_ep_kick(struct fabric_ep *ep);
/* Post op (its type and buffers set) on ep: issued now, or deferred behind ordering and the window. */
doca_error_t fabric_ep_post(struct fabric_ep *ep, struct fabric_op *op);
void fabric_ep_rx_placed(struct fabric_ep *ep, uint32_t seq);
void fabric_ep_send_nak(struct fabric_ep *ep, uint32_t seq, uint32_t status);
void fabric_ep_acked(struct fabric_ep *ep, uint32_t ack);
void fabric_ep_send_hello(struct fabric_ep *ep);
/*
 * A control message (no seq of its own, no ack): header, ext_len bytes after
 * it, then len bytes of payload.  Header and extension are copied; so is the
 * payload with copy, else it must stay valid until UCX is done (a READ answer
 * straight from a registered range).  Dropped if the ep cannot send.
 */
void fabric_ep_send_ctrl(struct fabric_ep *ep, uint8_t type, uint32_t seq, uint32_t aux, const void *ext,
			 size_t ext_len, const void *payload, size_t len, bool copy);
struct fabric_op *fabric_ep_find_request(struct fabric_ep *ep, uint32_t rid);
void fabric_ep_request_answered(struct fabric_op *op, doca_error_t status);
/*
 * Send the lone acks owed.  batch: an ep that placed a message since the last
 * look and owes fewer than FABRIC_ACK_BATCH stays queued for the next look.
 */
void fabric_acks_flush(struct fabric_dev *dev, bool batch);
void fabric_op_orphan(struct fabric_op *op);
doca_error_t fabric_nak_to_doca(uint32_t status);
/* The NAK status that tells a peer err (FABRIC_NAK_NO_CONNECTION for any other). */
uint32_t fabric_doca_to_nak(doca_error_t err);

/* fabric_rx.c: the receiver side (UCX's AM handler, placement, the target's checks) */
ucs_status_t fabric_am_handler(void *arg, const void *header, size_t header_length, void *data, size_t length,
			       const ucp_am_recv_param_t *param);
void fabric_ctx_deliver_unexpected(struct fabric_ctx *ctx);

/* fabric_direct.c */
void fabric_recs_init(struct fabric_dev *dev);
void fabric_recs_fini(struct fabric_dev *dev);
void fabric_rec_publish(struct fabric_dev *dev, const struct fabric_mr *mr);
void fabric_rec_revoke(struct fabric_dev *dev, const struct fabric_mr *mr);
void fabric_direct_hello(struct fabric_ep *ep, const struct fabric_am_hdr *h, const struct fabric_am_hello *hello);
void fabric_direct_connected(struct fabric_ep *ep);
void fabric_direct_forget(struct fabric_ep *ep);
/*
 * Our soft NIC is being progressed: stamp the table's last slot for same-host
 * peers.  check_pid: the caller may be a fork child, whose table is not mapped
 * (the service thread never is).
 */
void fabric_recs_stamp(struct fabric_dev *dev, bool check_pid);
/* The service thread holds the table's life lock while it runs (fabric_recs_tail): hold at its start, release at its
 * end. */
void fabric_recs_life_hold(struct fabric_dev *dev);
void fabric_recs_life_release(struct fabric_dev *dev);
/*
 * Has the peer process become another program (exec) since it connected?  Known
 * only while its record table is mapped: its nonce is read through the pid.
 */
bool fabric_direct_peer_replaced(const struct fabric_ep *ep);
/* Note the program the watched peer (ep->peer_pid) runs now, for fabric_direct_peer_replaced. */
void fabric_direct_note_peer_exe(struct fabric_ep *ep);
/*
 * Copy op (a WRITE, WRITE_IMM or READ) ourselves?  Only what the peer's
 * record grants; and a small WRITE_IMM into private memory of a peer whose
 * application is progressing goes faster as a message it places itself (a
 * WRITE or READ that is alone in its batch too: fabric_direct_flush_before).
 */
bool fabric_direct_wanted(struct fabric_ep *ep, const struct fabric_op *op, bool write);
/* The same check, handing back the record it passed (for the mapped path). */
bool fabric_direct_grants_rec(const struct fabric_ep *ep, const struct fabric_rmr *rmr, uint64_t raddr, size_t len,
			      bool write, struct fabric_mr_rec *rec);
bool fabric_direct_copy(struct fabric_ep *ep, void *buf, size_t len, uint64_t raddr, bool write);
void fabric_direct_batch(struct fabric_ep *ep, struct fabric_op *op, bool write);
bool fabric_direct_flush_before(struct fabric_ep *ep, struct fabric_op *op);
void fabric_direct_flush(struct fabric_ep *ep);
void fabric_direct_drop(struct fabric_ep *ep, doca_error_t err);

/* fabric_mapped.c */
/* The window onto the region rec describes (mapped now if need be), or NULL: copy through the kernel. */
const struct sd_xproc_window *fabric_win_get(struct fabric_ep *ep, const struct fabric_mr_rec *rec);
/* A window whose copy failed: forget it (the next version of the record is tried again). */
void fabric_win_drop(struct fabric_ep *ep, uint32_t mr_id);
/* Unmap windows whose record changed since (a revoked region keeps no object alive); and all of them. */
void fabric_wins_sweep(struct fabric_ep *ep);
void fabric_wins_fini(struct fabric_ep *ep);

/* fabric_mem.c */
struct fabric_mr *fabric_mr_lookup(struct fabric_dev *dev, uint32_t id);
/* The target's verdict on an access to one of its ranges: NULL (allowed, *mr set) or why not. */
const char *fabric_mr_check(struct fabric_dev *dev, const struct fabric_ep *ep, const struct fabric_am_rma *rma,
			    uint64_t len, uint32_t perm, struct fabric_mr **mr);

#endif /* SD_FABRIC_INTERNAL_H_ */
