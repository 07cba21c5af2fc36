/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA facade's objects as the files of src/rdma/ see them: the context,
 * the connection object (shared by the OOB path in rdma_conn.c and the
 * RDMA-CM path in rdma_cm.c), the task layout, and the internal calls the CM
 * path uses to drive a connection through its states.
 *
 * Connection states (conn->state):
 *
 *   IDLE ------ sd_rdma_conn_connect() (OOB connect / CM reply) -----> CONNECTING
 *   IDLE|CONNECTING -- sd_rdma_conn_established() -----------------> ESTABLISHED
 *   IDLE|CONNECTING -- sd_rdma_conn_fail() --------------------------> FAILED
 *   ESTABLISHED ------ sd_rdma_conn_disconnected() / peer lost ------> DISCONNECTED
 *
 * Tasks may be submitted on a connection in IDLE, CONNECTING or ESTABLISHED:
 * the fabric endpoint holds them (deferred) until it is connected, so tasks
 * submitted right after doca_rdma_connect() or before the CM handshake ends
 * wait instead of failing.  In FAILED / DISCONNECTED every task completes with
 * an error.  OOB connections go IDLE -> ESTABLISHED inside doca_rdma_connect()
 * (the fabric queues until the peer is reachable); no callback fires for them.
 *
 * Threading: everything here runs on the thread that progresses the context's
 * PE (the DOCA calls and doca_pe_progress()); the fabric's service thread never
 * touches these objects.
 */
#ifndef SD_RDMA_INTERNAL_H_
#define SD_RDMA_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_rdma.h>

#include "../core/sd_core.h"
#include "../fabric/fabric.h"

/* Task families (index of rdma->pools[]). */
enum sd_rdma_task_type {
	SD_RDMA_TASK_RECEIVE,
	SD_RDMA_TASK_SEND,
	SD_RDMA_TASK_SEND_IMM,
	SD_RDMA_TASK_READ,
	SD_RDMA_TASK_WRITE,
	SD_RDMA_TASK_WRITE_IMM,
	SD_RDMA_TASK_ATOMIC_CMP_SWP,
	SD_RDMA_TASK_ATOMIC_FETCH_ADD,
	SD_RDMA_TASK_SE_GET,
	SD_RDMA_TASK_SE_NOTIFY_SET,
	SD_RDMA_TASK_SE_NOTIFY_ADD,
	SD_RDMA_TASK_TYPES,
};

/* Defaults of the context's properties (doca_rdma.h documents them). */
#define SD_RDMA_DEFAULT_QUEUE_SIZE 64u
#define SD_RDMA_DEFAULT_MAX_CONNECTIONS 1u
#define SD_RDMA_DEFAULT_CONN_REQUEST_TIMEOUT_MS 5000u
#define SD_RDMA_DEFAULT_RNR_RETRY_COUNT 7u

enum sd_rdma_conn_state {
	SD_RDMA_CONN_IDLE,	   /* created (export / CM request), peer unknown */
	SD_RDMA_CONN_CONNECTING,   /* peer known, handshake not finished (CM) */
	SD_RDMA_CONN_ESTABLISHED,  /* tasks flow */
	SD_RDMA_CONN_FAILED,	   /* never established, or failed: tasks fail */
	SD_RDMA_CONN_DISCONNECTED, /* was established, now gone: tasks fail */
};

/*
 * RDMA-CM hooks.  A context starts with do-nothing hooks (a context that
 * never uses the CM); rdma_cm.c overlays its own with sd_rdma_set_cm_ops()
 * (and sets rdma->cm) when the CM path is first used (listen /
 * connect_to_addr / bridge).  Every slot is always filled: no caller tests
 * for NULL.
 */
struct sd_rdma_cm_ops {
	/* From the context's progress (doca_pe_progress); return the events produced. */
	unsigned (*progress)(struct doca_rdma *rdma);
	/* The context is entering STOPPING or IDLE: stop listening, drop pending requests. */
	void (*stop)(struct doca_rdma *rdma);
	/* From the PE's arm: CM work is due without any fd becoming readable (a draining disconnect). */
	bool (*has_work)(struct doca_rdma *rdma);
	/* doca_rdma_destroy(): free rdma->cm. */
	void (*destroy)(struct doca_rdma *rdma);
	/* A CM-managed connection object is being freed: free conn->cm. */
	void (*conn_free)(struct doca_rdma_connection *conn);
};

struct doca_rdma_connection {
	struct doca_rdma *rdma;
	struct sd_list node; /* in rdma->conns */
	uint32_t id;	     /* doca_rdma_connection_get_id(); unique per context */
	enum sd_rdma_conn_state state;
	doca_error_t err;	   /* why it failed / was lost (tasks complete with it) */
	struct fabric_ep *ep;	   /* NULL once failed, disconnected or the ctx stopped */
	union doca_data user_data; /* doca_rdma_connection_set_user_data() */
	bool oob;		   /* made by doca_rdma_export() */
	bool counted;		   /* holds a slot of max_num_connections */
	uint8_t *blob;		   /* OOB: doca_rdma_export() descriptor (owned) */
	size_t blob_len;
	uint32_t peer_permissions; /* the peer context's doca_rdma_set_permissions() mask */
	bool peer_known;	   /* peer_permissions is valid */
	/*
	 * The peer disconnected (CM DISCONNECT) while tasks were still in flight:
	 * they may still complete (their acks and replies were sent before the
	 * DISCONNECT, on the data channel), new ones are refused; the
	 * disconnect callback follows once they are done (rdma_cm.c).
	 */
	bool peer_left;
	/* CM: owned by rdma_cm.c (freed through cm_ops.conn_free) */
	struct doca_rdma_addr *addr; /* doca_rdma_connection_get_addr() */
	void *cm;
	/* facade-private: a lost CM connection waiting for its callback (rdma->notify) */
	struct sd_list notify_node;
	bool notify_queued;
	uint32_t notify_round; /* rdma->progress_round when it was queued */
};

struct doca_rdma {
	struct doca_ctx ctx; /* first: doca_rdma_as_ctx() */
	struct doca_dev *dev;
	const struct sd_dev_caps *caps; /* the device's, read-only */
	struct fabric_dev *fdev;	/* opened at create (the device's netdev) */
	struct fabric_ctx *fctx;	/* exists from start until the ctx is IDLE again */
	int wake_fd;			/* fctx's event fd registered with the PE, or -1 */
	/* properties (doca_rdma_set_*) */
	uint32_t send_queue_size;
	uint32_t recv_queue_size;
	uint32_t max_send_buf_list_len;
	uint32_t recv_buf_list_len; /* doca_rdma_task_receive_set_dst_buf_list_len */
	enum doca_rdma_transport_type transport;
	enum doca_mtu_size mtu;
	uint32_t permissions;
	uint8_t grh_enabled;
	uint32_t gid_index;
	uint32_t sl;
	uint16_t conn_request_timeout_ms;
	uint16_t max_num_connections;
	uint8_t rnr_retry_count;
	/* connection state callbacks (doca_rdma_set_connection_state_callbacks) */
	doca_rdma_connection_request_cb_t request_cb;
	doca_rdma_connection_established_cb_t established_cb;
	doca_rdma_connection_failure_cb_t failure_cb;
	doca_rdma_connection_disconnection_cb_t disconnect_cb;
	/* connections: every object made while this context lives, freed at destroy */
	struct sd_list conns;
	uint32_t num_counted; /* connections holding a max_num_connections slot */
	uint32_t next_conn_id;
	/* task pools */
	struct sd_task_pool *pools[SD_RDMA_TASK_TYPES];
	uint32_t inflight; /* tasks handed to the fabric, not completed */
	/* RDMA-CM (rdma_cm.c): the hooks in use, every slot filled */
	struct sd_rdma_cm_ops cm_ops;
	void *cm;
	/* facade-private */
	struct sd_list notify;	 /* CM connections lost, callback due (fired after fabric progress) */
	uint32_t progress_round; /* rdma_progress() calls, for the order of rdma->notify */
	bool tearing_down;	 /* flush/stop in progress: completing ops must not post again */
};

/*
 * One task of any family.  The public task types are this struct (each
 * doca_rdma_task_<type> below is a struct sd_rdma_task); as_task() returns
 * &task->task.
 */
struct sd_rdma_task {
	struct doca_task task; /* first */
	enum sd_rdma_task_type type;
	struct doca_rdma_connection *conn;
	struct doca_buf *src;	 /* send*, write*: local; read: remote; se notify_set: local */
	struct doca_buf *dst;	 /* receive, read: local; write*, atomics: remote; se get: local */
	struct doca_buf *result; /* atomics, se notify_add: local 8 bytes */
	struct doca_sync_event_remote_net *event;
	uint64_t operand[2]; /* cmp_swp: cmp, swap; fetch_add / notify_add: add */
	uint32_t imm;	     /* opaque 32 bits, never swapped */
	/* results */
	uint32_t result_len;
	enum doca_rdma_opcode result_opcode;
	uint32_t result_imm;
	struct doca_rdma_connection *result_conn;
	/* while in flight */
	struct fabric_op op;
	uint8_t *bounce; /* gather/scatter copy for buffer lists (malloc'd) */
	size_t bounce_len;
	uint64_t atomic_old;
	uint32_t stage; /* multi-step tasks (notify_set) */
	/* facade-private: mmaps pinned while in flight (head buffers) */
	struct doca_mmap *pinned[3];
	uint8_t num_pinned;
};

/* The public task types are the common task. */
#define SD_RDMA_TASK_STRUCT(name)                                                                                      \
	struct doca_rdma_task_##name {                                                                                 \
		struct sd_rdma_task t;                                                                                 \
	}
SD_RDMA_TASK_STRUCT(receive);
SD_RDMA_TASK_STRUCT(send);
SD_RDMA_TASK_STRUCT(send_imm);
SD_RDMA_TASK_STRUCT(read);
SD_RDMA_TASK_STRUCT(write);
SD_RDMA_TASK_STRUCT(write_imm);
SD_RDMA_TASK_STRUCT(atomic_cmp_swp);
SD_RDMA_TASK_STRUCT(atomic_fetch_add);
SD_RDMA_TASK_STRUCT(remote_net_sync_event_get);
SD_RDMA_TASK_STRUCT(remote_net_sync_event_notify_set);
SD_RDMA_TASK_STRUCT(remote_net_sync_event_notify_add);

static inline struct doca_rdma *
sd_rdma_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct doca_rdma, ctx);
}

static inline struct sd_rdma_task *
sd_rdma_task_from_task(struct doca_task *task)
{
	return sd_container_of(task, struct sd_rdma_task, task);
}

/*
 * A peer's sync event (doca_sync_event_remote_net_create_from_export()): the
 * imported 8-byte range that the remote_net tasks read and update atomically.
 */
struct doca_sync_event_remote_net {
	struct doca_dev *dev;
	struct fabric_dev *fdev; /* reference held until destroy */
	struct fabric_rmr *rmr;
	uint64_t addr;	   /* the value's address in the exporter */
	uint64_t last;	   /* last value seen: first guess of notify_set's compare-and-swap */
	uint32_t inflight; /* tasks using it (destroy -> IN_USE) */
};

/* ---- connections (rdma_conn.c); all need the context STARTING or RUNNING ---- */

/*
 * A new connection object with a fabric endpoint of its own: state IDLE, id
 * assigned, a max_num_connections slot taken.  FULL when every slot is taken
 * (logged with api), BAD_STATE unless the context is RUNNING or STARTING,
 * INVALID_VALUE when the transport is DC and this is not the first connection.
 * The object stays owned by rdma (freed at doca_rdma_destroy()).
 */
doca_error_t sd_rdma_conn_create(struct doca_rdma *rdma, const char *api, struct doca_rdma_connection **conn);

/*
 * The descriptor the peer passes to sd_rdma_conn_connect() (the same bytes
 * doca_rdma_export() returns): owned by conn, valid while it lives, <= 4096 B.
 */
doca_error_t sd_rdma_conn_get_desc(struct doca_rdma_connection *conn, const void **desc, size_t *len);

/*
 * Attach the peer's descriptor: parse it (INVALID_VALUE / UNSUPPORTED_VERSION,
 * logged with api) and connect the fabric endpoint.  State IDLE -> CONNECTING;
 * tasks posted from now on wait in the fabric until the peer is reachable.
 */
doca_error_t sd_rdma_conn_connect(struct doca_rdma_connection *conn, const void *desc, size_t len, const char *api);

/*
 * IDLE/CONNECTING -> ESTABLISHED.  With notify, the established callback fires
 * now (call only from progress, i.e. inside doca_pe_progress()).
 */
void sd_rdma_conn_established(struct doca_rdma_connection *conn, bool notify);

/*
 * The connection could not be made (or failed before it was established):
 * -> FAILED, every task on it completes with err (from the next progress), the
 * slot is released, and with notify the failure callback fires now (progress
 * only).
 */
void sd_rdma_conn_fail(struct doca_rdma_connection *conn, doca_error_t err, bool notify);

/*
 * The peer or the application ended an established connection: ->
 * DISCONNECTED, tasks on it complete with CONNECTION_ABORTED, the slot is
 * released, and with notify the disconnect callback fires now (progress only).
 * Idempotent.
 */
void sd_rdma_conn_disconnected(struct doca_rdma_connection *conn, bool notify);

/* ---- inside src/rdma only ---- */

/* rdma_conn.c: the fabric reported a connection error (ep_error_cb). */
void sd_rdma_conn_ep_error(struct fabric_ep *ep, doca_error_t status, void *user);
/*
 * rdma_conn.c: a CM connection ended; its callback comes from
 * sd_rdma_conns_notify(), after the completions queued so far are reported.
 */
void sd_rdma_conn_notify_later(struct doca_rdma_connection *conn);
/* rdma_conn.c: fire the callbacks of lost CM connections (after fabric progress). */
unsigned sd_rdma_conns_notify(struct doca_rdma *rdma);
/* rdma_conn.c: SOFTDOCA_FAULTS vanish: the peer of every live connection dies (sd_fabric_ep_vanish). */
void sd_rdma_conns_vanish(struct doca_rdma *rdma);
/* rdma_conn.c: the context is stopping: every endpoint goes, connections end. */
void sd_rdma_conns_teardown(struct doca_rdma *rdma);
/* rdma_conn.c: doca_rdma_destroy(): free every connection object. */
void sd_rdma_conns_free(struct doca_rdma *rdma);

/* rdma.c: install CM hooks; a NULL slot of ops keeps its do-nothing default. */
void sd_rdma_set_cm_ops(struct doca_rdma *rdma, const struct sd_rdma_cm_ops *ops);

/* rdma_task.c: ctx ops */
doca_error_t sd_rdma_task_submit(struct doca_task *task);
doca_error_t sd_rdma_task_validate(struct doca_task *task);

/* rdma_mem.c: the fabric import behind an SD_MMAP_RDMA_REMOTE mmap (NULL otherwise). */
struct fabric_rmr *sd_rdma_remote_rmr(const struct doca_mmap *mmap, struct fabric_dev **fdev);
/* rdma_mem.c: the fabric device of a doca_dev (refcounted by the fabric). */
doca_error_t sd_rdma_fabric_dev_open(struct doca_dev *dev, const char *api, struct fabric_dev **fdev);

#endif /* SD_RDMA_INTERNAL_H_ */
