/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch objects shared by the files of libdoca_comch (docs/comch.md).
 *
 * A server and a client are both a struct sd_comch_ep (a doca_ctx plus what the
 * control path needs: name, limits, send-task pool, callbacks, pending events).
 * Each connection is a SOCK_SEQPACKET Unix socket between the two processes; one
 * record per message (comch_proto.h).
 *
 * Threading: everything runs on the thread driving the ctx's PE; nothing here
 * is shared with another thread.
 *
 * Event order: records are read one at a time, in order, per connection; a
 * record that raises an event the application must see before later records
 * (connect, disconnect, consumer) is queued on ep->events and delivered before
 * anything else is read.  At most one event is delivered per doca_pe_progress(),
 * and never while task completions of the same ctx wait to be reported, so a
 * send's completion is always seen before the peer's answer to it.
 */
#ifndef SD_COMCH_INTERNAL_H_
#define SD_COMCH_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>

#include "../core/sd_core.h"
#include "../core/xproc.h"
#include "comch_proto.h"
#include "comch_shring.h"

#define SD_COMCH_DEFAULT_RECV_QUEUE 64u
#define SD_COMCH_MAX_RECV_QUEUE 1024u
#define SD_COMCH_MAX_SEND_TASKS 4096u
#define SD_COMCH_MAX_CLIENTS 512u

enum sd_comch_conn_state {
	SD_COMCH_CONN_HANDSHAKE, /* socket open, HELLO / WELCOME not yet exchanged */
	SD_COMCH_CONN_OPEN,
	SD_COMCH_CONN_CLOSED, /* peer left (or we did); fd closed */
};

struct sd_comch_ep;
struct sd_comch_fp;

struct doca_comch_connection {
	struct sd_comch_ep *ep; /* the server or client owning it */
	int fd;			/* -1 once closed */
	enum sd_comch_conn_state state;
	uint32_t id;		   /* server's number for it (1, 2, ...) */
	struct sd_xproc_peer peer; /* the process at the other end of fd (SO_PEERCRED) */
	uint32_t peer_max_msg;	   /* the peer accepts messages up to this size */
	uint32_t peer_recv_queue;
	union doca_data user_data;
	uint64_t counters[5];	 /* indexed by enum doca_comch_counter */
	uint32_t fp_users;	 /* producers / consumers created on it */
	uint32_t pending_events; /* queued events naming it: keeps it allocated */
	bool orderly;		 /* closed by BYE (or by us), not by a dead peer */
	bool release;		 /* closed and done: free once no event names it */
	struct sd_list link;	 /* server's list */
	struct sd_comch_fp *fp;	 /* fast-path state (comch_fastpath.c), or NULL */
};

enum sd_comch_event_kind {
	SD_COMCH_EV_CONNECT,
	SD_COMCH_EV_DISCONNECT,
	SD_COMCH_EV_CONSUMER_NEW,
	SD_COMCH_EV_CONSUMER_GONE,
};

struct sd_comch_event {
	struct sd_list link;
	enum sd_comch_event_kind kind;
	struct doca_comch_connection *conn;
	uint32_t id; /* consumer id */
};

/* The part of a server or client the connection code uses. */
struct sd_comch_ep {
	struct doca_ctx ctx; /* first: doca_comch_*_as_ctx() */
	bool is_server;
	char name[SD_COMCH_MAX_NAME];
	uint32_t name_len;
	char host_pci[16]; /* the host function: half of the rendezvous key */
	uint32_t max_msg;
	uint32_t recv_queue;
	struct sd_task_pool *send_pool;
	doca_comch_event_msg_recv_cb_t recv_cb;
	doca_comch_event_consumer_cb_t consumer_new_cb;
	doca_comch_event_consumer_cb_t consumer_gone_cb;
	struct sd_list events; /* struct sd_comch_event, oldest first */
	uint8_t *rx;	       /* one record (SD_COMCH_MAX_RECORD + 1 bytes) */
	/*
	 * Server: the epoll set its connections are in, else -1.  A connection leaves it
	 * before its fd is closed: a process forked meanwhile holds the same socket, and
	 * epoll would go on reporting it - with a pointer to the freed connection.
	 */
	int poll_fd;
	/* The first record of a connection still in HANDSHAKE; returns callbacks run. */
	unsigned (*handshake)(struct sd_comch_ep *ep, struct doca_comch_connection *conn,
			      const struct sd_comch_msg *msg);
	/* conn just closed by the peer or a transport error (its fd is closed). */
	void (*conn_closed)(struct sd_comch_ep *ep, struct doca_comch_connection *conn);
	/* The last queued event of a closed connection was delivered (server: free it). */
	void (*conn_release)(struct sd_comch_ep *ep, struct doca_comch_connection *conn);
};

struct doca_comch_server {
	struct sd_comch_ep ep;
	struct doca_dev_rep *rep;
	doca_comch_event_connection_status_changed_cb_t connect_cb;
	doca_comch_event_connection_status_changed_cb_t disconnect_cb;
	int listen_fd;
	int lock_fd;
	int epoll_fd;	      /* listen_fd + every connection fd; a PE wake fd */
	char path[108];	      /* the listening socket */
	struct sd_list conns; /* struct doca_comch_connection */
	uint32_t num_conns;
	uint32_t next_conn_id;
};

struct doca_comch_client {
	struct sd_comch_ep ep;
	struct doca_comch_connection conn; /* the one connection (stable address) */
	int inotify_fd;			   /* STARTING without a server: watches the runtime dir */
	int wake_fd;			   /* fd registered with the PE, or -1 */
	uint64_t next_retry_ns;		   /* bounded retry when inotify is unavailable */
	char path[108];
};

struct doca_comch_task_send {
	struct doca_task task; /* first: doca_comch_task_send_as_task() */
	struct doca_comch_connection *conn;
	const void *msg; /* the caller's bytes, read at submit */
	uint32_t len;
};

static inline struct sd_comch_ep *
sd_comch_ep_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct sd_comch_ep, ctx);
}

/* --- comch_sock.c: rendezvous paths (in the runtime directory, sd_rundir.h), records on sockets --- */

/* Socket path of (host function, service name) inside the runtime directory. */
SD_EXPORT doca_error_t sd_comch_sock_path(const char *host_pci, const char *name, char *path, size_t size);
/*
 * Listen on path: takes path.lock (IN_USE if another live server holds it), binds a
 * temporary name and renames it to path once listening, so a client never finds a
 * path that refuses connections because it is not listening yet.
 */
doca_error_t sd_comch_listen(const char *path, int *listen_fd, int *lock_fd);
/* Remove the server's lock file, then release it (a stopping server). */
void sd_comch_unlock(const char *path, int lock_fd);
/* Non-blocking connect: SUCCESS, or NOT_FOUND (no live server) / AGAIN (backlog full). */
doca_error_t sd_comch_connect(const char *path, int *fd);
/* Size the send buffer so roughly peer_queue messages of peer_max bytes fit. */
void sd_comch_size_sndbuf(int fd, uint32_t peer_queue, uint32_t peer_max);
/* Send one record (header + payload) without blocking: SUCCESS, AGAIN, NOT_CONNECTED. */
doca_error_t sd_comch_send_record(int fd, enum sd_comch_type type, uint32_t arg, const void *p1, uint32_t l1,
				  const void *p2, uint32_t l2);
/* The same, carrying descriptor pass_fd (SCM_RIGHTS) when it is >= 0. */
doca_error_t sd_comch_send_record_fd(int fd, enum sd_comch_type type, uint32_t arg, const void *p1, uint32_t l1,
				     const void *p2, uint32_t l2, int pass_fd);
/*
 * Read one record into buf (SD_COMCH_MAX_RECORD + 1 bytes) and parse it: SUCCESS,
 * AGAIN (nothing to read), CONNECTION_RESET (peer gone, or a malformed record: logged).
 * *fd_out: the descriptor the record carried (SUCCESS only; the caller owns it), else -1.
 */
doca_error_t sd_comch_recv_record(int fd, uint8_t *buf, struct sd_comch_msg *msg, int *fd_out);
/* Close *fd when it is open; *fd becomes -1. */
void sd_comch_close_fd(int *fd);

/* --- comch_ep.c: what servers and clients share --- */

doca_error_t sd_comch_ep_init(struct sd_comch_ep *ep, bool is_server, struct doca_dev *dev, const char *name,
			      const char *host_pci, const struct sd_ctx_ops *ops, const char *api);
void sd_comch_ep_fini(struct sd_comch_ep *ep);
/* Queue an event (NO_MEMORY logged: the event is lost). */
void sd_comch_ep_queue_event(struct sd_comch_ep *ep, enum sd_comch_event_kind kind, struct doca_comch_connection *conn,
			     uint32_t id);
/* Deliver the oldest queued event; false when none. */
bool sd_comch_ep_deliver_event(struct sd_comch_ep *ep);
/* Drop every queued event (stop). */
void sd_comch_ep_drop_events(struct sd_comch_ep *ep);
/* Read and handle one record of conn; returns the number of application callbacks run. */
unsigned sd_comch_conn_poll(struct doca_comch_connection *conn);
/* Close conn's socket (saying BYE when orderly is true and it is open); no event. */
void sd_comch_conn_close(struct doca_comch_connection *conn, bool say_bye);
/*
 * The peer broke a rule of the fast path: end the connection.  Its owner's next
 * progress finds it closed and reports it as any lost connection.
 */
void sd_comch_conn_fail(struct doca_comch_connection *conn);
/* Who is at the other end of conn's socket; false (logged with who) when refused. */
bool sd_comch_conn_identify(struct doca_comch_connection *conn);
/* Shared setter/validation helpers of the public API. */
doca_error_t sd_comch_ep_check_idle(struct sd_comch_ep *ep, const char *api);
doca_error_t sd_comch_set_max_msg(struct sd_comch_ep *ep, uint32_t size, const char *api);
doca_error_t sd_comch_set_recv_queue(struct sd_comch_ep *ep, uint32_t size, const char *api);
doca_error_t sd_comch_send_set_conf(struct sd_comch_ep *ep, doca_comch_task_send_completion_cb_t ok,
				    doca_comch_task_send_completion_cb_t err, uint32_t num, const char *api);
doca_error_t sd_comch_send_alloc(struct sd_comch_ep *ep, struct doca_comch_connection *peer, const void *msg,
				 uint32_t len, struct doca_comch_task_send **task, const char *api);
doca_error_t sd_comch_consumer_register(struct sd_comch_ep *ep, doca_comch_event_consumer_cb_t new_cb,
					doca_comch_event_consumer_cb_t gone_cb, const char *api);
/* ctx op: transmit a send task. */
doca_error_t sd_comch_task_send_submit(struct doca_task *task);

/* --- fast path (comch_fastpath.c, comch_producer.c, comch_consumer.c) --- */

#define SD_COMCH_FP_MAX_BUF (1u << 30) /* bytes per producer send */
#define SD_COMCH_FP_MAX_TASKS 4096u

/* A consumer of the peer, as this side's producers see it (from CONSUMER_NEW). */
struct sd_comch_remote_consumer {
	struct sd_list link;
	uint32_t id;
	struct sd_comch_consumer_info info; /* its ring and the peer's grants, in the peer (conn->peer) */
	uint64_t consumed;		    /* slots this process's producers filled */
	struct sd_comch_ring *shared;	    /* its shared ring mapped here (comch_shring.c), or NULL */
	bool staged;			    /* the shared ring has a staging area (comch_staged.c) */
	bool stage_use;			    /* ... and this side stages into it (SOFTDOCA_COMCH_STAGE) */
	uint64_t stage_head;		    /* staged bytes this process's producers placed (a running count) */
	uint32_t pending;		    /* staged sends whose bytes the consumer has not copied out yet */
	bool gone;			    /* CONSUMER_GONE with sends pending: on fp->gone_consumers, unmapped */
	uint64_t gone_freed;		    /* gone: the consumer's stage_freed as it went */
	/* The mapped path (comch_mapped.c): its buffer mmap mapped here, once per consumer (one grant). */
	struct sd_xproc_window win;
	uint64_t win_addr;	     /* the grant's address when mapped: window offset = slot address - win_addr */
	struct sd_xproc_rec win_rec; /* the grant as read through the kernel when the window was made */
	bool win_tried;		     /* mapped or refused once: not tried again for this grant */
};

/* Fast-path state of one connection (allocated on first use). */
struct sd_comch_fp {
	struct sd_list local_consumers;	 /* struct doca_comch_consumer started on this side */
	struct sd_list remote_consumers; /* struct sd_comch_remote_consumer */
	struct sd_list gone_consumers;	 /* ... gone, kept while staged sends to them are pending */
	uint32_t next_id;		 /* producer / consumer ids of this side */
};

struct doca_comch_consumer {
	struct doca_ctx ctx; /* first: doca_comch_consumer_as_ctx() */
	struct doca_comch_connection *conn;
	struct doca_mmap *mmap;
	uint32_t id;
	uint32_t imm_data_len;
	struct sd_task_pool *recv_pool;
	struct sd_comch_ring *ring; /* read by the producer's process */
	bool shared;		    /* ring is a shared memfd map (sd_comch_shring_create), else calloc'd */
	bool staged;		    /* the shared ring has a staging area (comch_staged.c) */
	/*
	 * The ring's size and posted count as this side knows them: the peer may write
	 * anything into a shared ring, so nothing of it is read back.
	 */
	uint32_t cap;
	uint64_t posted;
	struct sd_xproc_ref ring_grant; /* while announced: the peer may read the ring */
	struct sd_xproc_ref buf_grant;	/* while announced: the peer may write the mmap */
	struct sd_xproc_share share;	/* while announced: the object the mmap lies in (fd -1: private) */
	pid_t tracer;			/* while announced: the peer, allowed to trace us (Yama) */
	/*
	 * The posted tasks in ring order: the task of ring position p is slots[p % cap]
	 * for arrived <= p < ring->posted, NULL once the program freed it (dropped: the
	 * peer may still fill that slot, its data is then discarded).  Only this side
	 * reads it; the peer sees the ring.
	 */
	struct doca_comch_consumer_task_post_recv **slots;
	uint64_t arrived;    /* ring positions the peer filled (FP_DATA handled) */
	uint32_t dropped;    /* posted tasks the program freed since start (logged once, at the stop) */
	struct sd_list link; /* fp->local_consumers while announced */
	bool announced;
};

struct doca_comch_consumer_task_post_recv {
	struct doca_task task; /* first */
	uint64_t pos;	       /* its ring position while posted */
	struct doca_buf *buf;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[SD_COMCH_MAX_IMM];
};

struct doca_comch_producer {
	struct doca_ctx ctx; /* first: doca_comch_producer_as_ctx() */
	struct doca_comch_connection *conn;
	uint32_t id;
	struct sd_task_pool *send_pool;
	struct sd_list staged; /* sends completed in order once the consumer copied their bytes (comch_staged.c) */
};

struct doca_comch_producer_task_send {
	struct doca_task task; /* first */
	const struct doca_buf *buf;
	uint32_t consumer_id;
	uint32_t imm_len;
	uint8_t imm[SD_COMCH_MAX_IMM];
	/* On the producer's staged list: its consumer (NULL: landed, waits only for order) and its bytes' end. */
	struct sd_list stage_node;
	struct sd_comch_remote_consumer *stage_rc;
	uint64_t stage_end;
};

/* The connection's fast-path state, created on first use (NULL: out of memory, logged). */
struct sd_comch_fp *sd_comch_fp_get(struct doca_comch_connection *conn);
struct sd_comch_remote_consumer *sd_comch_fp_remote(struct doca_comch_connection *conn, uint32_t id);
/* The consumer is no longer announced: its grants are revoked (its connection is gone or it stops). */
void sd_comch_consumer_unannounce(struct doca_comch_consumer *c);
/* A producer or consumer of conn was destroyed. */
void sd_comch_fp_user_put(struct doca_comch_connection *conn);

/* What a producer reads of a remote consumer before it writes: the grants, the ring's count and next slot. */
struct sd_comch_ring_view {
	struct sd_xproc_rec ring_rec;
	struct sd_xproc_rec buf_rec;
	uint64_t posted;
	struct sd_comch_ring_slot slot; /* slot rc->consumed; meaningful when posted != consumed */
	bool flag_grant;		/* buf_rec is the window's, the ring's granted word stood for the read */
	bool staged;			/* the bytes go to the staging area at stage_at; buf_rec is not read */
	uint64_t stage_at;
};
/*
 * Read rc's view from the peer (one system call) and check both grants: the ring
 * readable as announced, the buffers writable.  SUCCESS; NOT_CONNECTED (the
 * consumer or its process went away); NOT_PERMITTED (*reason: the peer broke the
 * rule - end the connection).
 */
doca_error_t sd_comch_fp_read_ring(const struct doca_comch_connection *conn, const struct sd_comch_remote_consumer *rc,
				   struct sd_comch_ring_view *v, const char **reason);
/*
 * The same view from rc's shared ring (no system call) for a message of len
 * bytes: staged (v->staged, no system call), else the buffer grant read from the
 * peer (one): SUCCESS, AGAIN (nothing posted), NOT_CONNECTED, NOT_PERMITTED
 * (*reason).  v->ring_rec is not read.
 */
doca_error_t sd_comch_fp_read_shared(const struct doca_comch_connection *conn,
				     const struct sd_comch_remote_consumer *rc, size_t len,
				     struct sd_comch_ring_view *v, const char **reason);
/*
 * The view's slot holds len bytes and, unless staged, lies in the granted
 * buffers: SUCCESS, NOT_PERMITTED, INVALID_VALUE.
 */
doca_error_t sd_comch_fp_slot_check(const struct sd_comch_remote_consumer *rc, const struct sd_comch_ring_view *v,
				    size_t len, const char **reason);

/* CONSUMER_NEW arrived on conn, with the shared ring's descriptor pass_fd (or -1; closed here). */
unsigned sd_comch_fp_consumer_new(struct doca_comch_connection *conn, const struct sd_comch_msg *m, int pass_fd);
/* A fast-path record (CONSUMER_GONE, FP_*) arrived on conn; returns callbacks run. */
unsigned sd_comch_fp_record(struct doca_comch_connection *conn, const struct sd_comch_msg *msg);
/* Complete c's posted tasks the producer finished in its shared ring; returns tasks completed. */
unsigned sd_comch_fp_reap(struct doca_comch_consumer *c);
/* The same for every consumer of this side announced on conn. */
unsigned sd_comch_fp_reap_conn(struct doca_comch_connection *conn);
/* conn closed: fail what the fast path waits for on it. */
void sd_comch_fp_conn_closed(struct doca_comch_connection *conn);
void sd_comch_fp_conn_free(struct doca_comch_connection *conn);

/* --- the mapped path (comch_mapped.c, docs/comch.md "The mapped path") --- */

/* Consumer side: name the object c's mmap lies in, in its shared ring (nothing when private or turned off). */
void sd_comch_mapped_name(struct doca_comch_consumer *c, const void *addr, size_t len);
/*
 * Producer side: write len bytes of data at the slot v holds through rc's
 * window, v's buffer grant having just been checked.  SUCCESS; anything else:
 * nothing usable was done, copy through the kernel.
 */
/*
 * Producer side, before a copy: rc's buffers are mapped and the consumer's
 * ring says the grant they were mapped by is still live: *rec is that grant,
 * no need to read it through the kernel.  False: read it.
 */
bool sd_comch_mapped_grant(const struct sd_comch_remote_consumer *rc, struct sd_xproc_rec *rec);
doca_error_t sd_comch_mapped_write(const struct doca_comch_connection *conn, struct sd_comch_remote_consumer *rc,
				   const struct sd_comch_ring_view *v, void *data, size_t len);
/* The consumer's grant ended (revoked, consumer gone): its window goes. */
void sd_comch_mapped_drop(struct sd_comch_remote_consumer *rc);
/* Sends this process's producers wrote through a window (tests, bench). */
SD_EXPORT uint64_t sd_comch_mapped_copies(void);
/* Tests: copies whose grant came from the ring's granted flag (sd_comch_mapped_grant), in this process. */
SD_EXPORT uint64_t sd_comch_mapped_flag_grants(void);

/* --- the staged path (comch_staged.c; docs/comch.md "The staged path") --- */

/* The consumer makes its shared ring with a staging area (SOFTDOCA_COMCH_STAGE, default on). */
bool sd_comch_staged_offer(void);
/* Producer: stage len bytes for rc (true, *at where) instead of writing its buffer; false: the buffer path. */
bool sd_comch_staged_take(const struct sd_comch_remote_consumer *rc, size_t len, uint64_t *at);
/* Producer: copy the message into rc's staging area at at (from sd_comch_staged_take). */
void sd_comch_staged_write(struct sd_comch_remote_consumer *rc, uint64_t at, const void *data, size_t len);
/* Consumer: copy len staged bytes (st, checked by comp_get) to dst, then free them for the producer. */
void sd_comch_staged_copy_out(struct doca_comch_consumer *c, const struct sd_comch_staged *st, void *dst, size_t len);
/* The consumer dropped the message (its task was freed): free its staged bytes all the same. */
void sd_comch_staged_drop(struct doca_comch_consumer *c, const struct sd_comch_staged *st);
/*
 * Producer: t's bytes are staged up to end in rc (or, rc NULL, already landed):
 * it completes once the consumer copied them out, after every send before it.
 */
void sd_comch_staged_pend(struct doca_comch_producer *p, struct doca_comch_producer_task_send *t,
			  struct sd_comch_remote_consumer *rc, uint64_t end);
/* Producer: sends wait on the staged list (later sends join it, to complete in order). */
bool sd_comch_staged_waiting(const struct doca_comch_producer *p);
/* Producer progress: complete the staged sends whose bytes landed (or fail them: consumer gone); returns how many. */
unsigned sd_comch_staged_progress(struct doca_comch_producer *p);
/* A staged send to rc ended: a gone consumer is freed with its last one. */
void sd_comch_staged_unref(struct sd_comch_remote_consumer *rc);
/* Messages this process's producers staged (tests, bench). */
SD_EXPORT uint64_t sd_comch_staged_sends(void);

#endif /* SD_COMCH_INTERNAL_H_ */
