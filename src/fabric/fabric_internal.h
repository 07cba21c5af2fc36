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

/* Ops needing an answer that may be outstanding per ep (ack window). */
#define FABRIC_WINDOW 64u

/* op->pending bits: what still has to happen before the op completes. */
#define FABRIC_OPP_UCX (1u << 0) /* a UCX request is outstanding */
#define FABRIC_OPP_ACK (1u << 1) /* the peer's ack is awaited */

/* Links a free UCX callback ticket (fabric_ep.c) in dev->ticket_cache; first member of the ticket. */
struct fabric_ticket_link {
	struct fabric_ticket_link *next;
};

/* Ticket cache bound: enough for a window of sends whose UCX requests are out. */
#define FABRIC_TICKET_CACHE_MAX FABRIC_WINDOW

struct fabric_dev {
	pthread_mutex_t lock;
	ucp_context_h ucp;
	ucp_worker_h worker;
	int efd;     /* worker event fd */
	int wake_fd; /* eventfd: stop / re-evaluate the service thread */
	pthread_t svc;
	bool svc_started;
	atomic_bool stop;
	/* CLOCK_MONOTONIC ns of the last application progress; the service thread backs off while recent */
	atomic_uint_fast64_t app_progress_ns;
	bool in_service;		/* the service thread holds the lock and progresses */
	struct fabric_ctx *progressing; /* ctx whose app thread holds the lock in progress */
	/* id -> object tables (slot index + 1); a stale id finds NULL or a new cookie */
	struct fabric_ep **eps;
	uint32_t eps_cap;
	struct fabric_mr **mrs;
	uint32_t mrs_cap;
	struct sd_list ctxs;
	struct sd_list rmrs;	/* imported remote ranges (their rkeys are per ep) */
	struct sd_list ack_eps; /* eps with an ack to send */
	uint8_t host_id[16];
	bool shm_enabled;	   /* shm/cma may carry traffic (UCX_TLS allows it) */
	int write_mode_override;   /* -1 auto, else enum fabric_write_mode */
	uint64_t pid_ns;	   /* our pid namespace inode */
	uint32_t tcp_seg;	   /* UCX tcp receive segment in bytes (fabric_ucx.c); 0: unknown */
	uint32_t n_watched;	   /* eps watching a local peer's pidfd */
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
	struct sd_list err_eps;	    /* eps whose error is to be reported */
	fabric_ep_error_cb ep_error_cb;
	void *user;
	int event_fd;
	bool event_signaled;
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
	enum fabric_write_mode write_mode;
	/* sender side */
	uint32_t tx_seq;	   /* next seq to use */
	uint32_t onesided;	   /* writes/atomics not yet remotely complete */
	struct sd_list inflight;   /* ops waiting for ack (seq order) or UCX */
	uint32_t n_inflight_acked; /* inflight ops that need an ack */
	struct sd_list deferred;   /* ops held back (ordering, window, not connected) */
	/* receiver side */
	uint32_t rx_base;  /* every seq < rx_base placed OK */
	uint64_t rx_done;  /* bit i: seq rx_base+i placed OK */
	uint32_t ack_sent; /* last ack value sent */
	bool ack_queued;   /* in dev->ack_eps */
	struct sd_list ack_node;
	/* export blob */
	uint8_t *blob;
	size_t blob_len;
	uint32_t pending_rx; /* rendezvous receives into our memory still running */
	/*
	 * Same-host peers use UCP_ERR_HANDLING_MODE_NONE (UCX 1.13 refuses shm/cma
	 * under PEER), so their death is seen through a pidfd instead.
	 */
	int pidfd;
	/*
	 * Same host and pid namespace: writes and reads go straight into the peer
	 * with process_vm_writev/readv (what UCX's cma does for rendezvous, but
	 * UCX 1.13 emulates puts to user memory with active messages the target
	 * has to serve).  Cleared when the kernel refuses (ptrace policy).
	 */
	uint32_t peer_pid;
	bool cma;
	ucs_status_ptr_t close_req; /* forced close started when the peer died */
};

/* A registered range's interior on a memfd a same-host peer can map (fabric_window.c). */
struct fabric_window {
	uintptr_t addr; /* page-aligned; 0: no window */
	size_t len;
	int fd; /* -1: no window */
	uint64_t ino; /* the memfd's inode and device, to recognise its mappings */
	uint64_t dev;
};

struct fabric_mr {
	struct fabric_dev *dev;
	uint32_t id;
	void *addr;
	size_t len;
	uint32_t perms;
	uint8_t key[16];
	ucp_mem_h memh;
	uint8_t *blob;
	size_t blob_len;
	fabric_mr_notify_cb notify; /* called (dev->lock held) on FABRIC_AM_CHANGED */
	void *notify_arg;
	struct fabric_window win;
};

struct fabric_rkey_cache {
	struct fabric_ep *ep;
	ucp_rkey_h rkey;
};

struct fabric_rmr {
	struct fabric_dev *dev;
	struct sd_list node; /* in dev->rmrs */
	uint64_t addr;
	uint64_t len;
	uint32_t perms;
	uint32_t mr_id;
	uint8_t key[16];
	void *rkey_buf;
	size_t rkey_len;
	/* rkeys are per UCP endpoint; unpacked lazily */
	struct fabric_rkey_cache *rkeys;
	uint32_t n_rkeys;
	/* the exporter's shared window (win.len 0: none), mapped on first direct access */
	struct fabric_window_desc win;
	uint8_t *win_view;
	bool win_tried;
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
uint64_t fabric_now_ns(void);
void fabric_dev_lock(struct fabric_dev *dev);
void fabric_dev_unlock(struct fabric_dev *dev);
doca_error_t fabric_ucs_to_doca(ucs_status_t st);
doca_error_t fabric_id_alloc(void ***table, uint32_t *cap, void *obj, uint32_t *id);
void *fabric_id_lookup(void **table, uint32_t cap, uint32_t id);
void fabric_id_free(void **table, uint32_t cap, uint32_t id);

/* fabric_progress.c */
void fabric_complete(struct fabric_op *op, doca_error_t status);
void fabric_op_done_bits(struct fabric_op *op, uint16_t bits, doca_error_t status);
void fabric_dev_progress_locked(struct fabric_dev *dev);
void fabric_ctx_deliver_unexpected(struct fabric_ctx *ctx);
uint64_t fabric_timers_run(struct fabric_dev *dev);
doca_error_t fabric_svc_start(struct fabric_dev *dev);
void fabric_svc_stop(struct fabric_dev *dev);

/* fabric_ep.c */
ucs_status_t fabric_am_handler(void *arg, const void *header, size_t header_length, void *data, size_t length,
			       const ucp_am_recv_param_t *param);
void fabric_ep_fail(struct fabric_ep *ep, doca_error_t err);
void fabric_ep_rx_placed(struct fabric_ep *ep, uint32_t seq);
void fabric_ep_send_nak(struct fabric_ep *ep, uint32_t seq, uint32_t status);
void fabric_acks_flush(struct fabric_dev *dev);
void fabric_unexp_free(struct fabric_dev *dev, struct fabric_unexp *u);
void fabric_liveness_check(struct fabric_dev *dev);
void fabric_op_orphan(struct fabric_op *op);
void fabric_ep_complete_orphans(struct fabric_ep *ep, doca_error_t err);
void fabric_recv_rndv(struct fabric_ep *ep, const struct fabric_am_hdr *hdr, void *desc, void *dst, size_t len,
		      struct fabric_op *recv);

/* fabric_window.c */
bool fabric_window_enabled(void);
doca_error_t fabric_window_create(void *addr, size_t len, struct fabric_window *w);
void fabric_window_destroy(struct fabric_window *w);
void *fabric_window_map(int pidfd, int remote_fd, uint64_t ino, uint64_t len);

/* fabric_mem.c */
struct fabric_mr *fabric_mr_lookup(struct fabric_dev *dev, uint32_t id);
ucp_rkey_h fabric_rmr_rkey(struct fabric_rmr *rmr, struct fabric_ep *ep);
void fabric_rmr_forget_ep(struct fabric_dev *dev, struct fabric_ep *ep);

#endif /* SD_FABRIC_INTERNAL_H_ */
