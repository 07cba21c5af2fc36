/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA RDMA: reliable connections between two processes (on one machine or on
 * two) with two-sided messages (send / receive, with or without a 32-bit
 * immediate), one-sided reads, writes and atomics into memory the peer exported,
 * and updates of a peer's sync event.  softdoca carries it over UCX (see
 * docs/rdma.md); the semantics are those of an RC queue pair.
 *
 * Object model
 *   struct doca_rdma             a context on one device: a struct doca_ctx
 *                                (doca_rdma_as_ctx) following doca_ctx.h's state machine
 *                                IDLE -> STARTING -> RUNNING -> STOPPING -> IDLE.
 *   struct doca_rdma_connection  one connection (queue pair) of a context, made by
 *                                doca_rdma_export() (out of band) or by RDMA-CM
 *                                (listen / connect_to_addr).  Owned by the context: valid
 *                                until doca_rdma_destroy().
 *   struct doca_rdma_addr        a peer address for RDMA-CM (IPv4, IPv6 or GID + port).
 *   struct doca_rdma_task_<type> eleven task families (receive, send, send_imm, read,
 *                                write, write_imm, atomic_cmp_swp, atomic_fetch_add,
 *                                remote_net_sync_event_get / _notify_set / _notify_add);
 *                                each is a struct doca_task (doca_rdma_task_<type>_as_task).
 *
 * Call order (out of band)
 *   doca_rdma_create(dev, &rdma); doca_rdma_set_*(...); doca_rdma_task_<type>_set_conf(...)
 *   doca_pe_connect_ctx(pe, doca_rdma_as_ctx(rdma)); doca_ctx_start(doca_rdma_as_ctx(rdma))
 *   -> STARTING, then RUNNING from doca_pe_progress(); in the RUNNING callback (or later):
 *   doca_rdma_export(rdma, &desc, &len, &conn)      give desc to the peer (file, socket, ...)
 *   doca_rdma_connect(rdma, peer_desc, peer_len, conn)
 *   doca_rdma_task_<type>_allocate_init(...); doca_task_submit(...)  (may follow connect at once:
 *   tasks wait until the peer is reachable)
 *   doca_ctx_stop(...)  (tasks in flight are flushed through their error callbacks)
 *   doca_rdma_destroy(rdma)
 *
 * Memory
 *   One-sided tasks name remote memory with buffers of an mmap made by
 *   doca_mmap_create_from_export() from the peer's doca_mmap_export_rdma()
 *   descriptor; doca_mmap_get_memrange() on it gives the exporter's address and
 *   length.  The exporter's permissions decide: read needs DOCA_ACCESS_FLAG_RDMA_READ,
 *   write / write_imm DOCA_ACCESS_FLAG_RDMA_WRITE, atomics DOCA_ACCESS_FLAG_RDMA_ATOMIC;
 *   send / receive need no export.  The peer context's doca_rdma_set_permissions()
 *   must grant the same remote right (remote sync-event get: RDMA_READ; notify_set /
 *   notify_add: RDMA_WRITE).  An access outside the exported range, with a stale or
 *   forged descriptor, or without the permission completes with an error
 *   (DOCA_ERROR_INVALID_VALUE for the range, DOCA_ERROR_NOT_PERMITTED otherwise) and
 *   leaves the target memory untouched.
 *
 * Data placement (doca_buf.h): received / read / fetched bytes are written at the
 *   destination's data + data_len and its data_len grows; sent / written bytes are the
 *   source's data window (summed over a list).
 *
 * Completion
 *   Every submitted task completes exactly once inside doca_pe_progress() through its
 *   success or error callback; doca_task_get_status() says why it failed.  A send,
 *   send_imm or write_imm completes when the peer placed it into a posted receive; a
 *   message that finds no receive waits a bounded time (the RNR timeout, see
 *   doca_rdma_set_rnr_retry_count) and then fails on both sides
 *   (DOCA_ERROR_TIME_OUT), leaving the connection in error.  A write completes when its
 *   data is visible at the target.  Tasks on one connection keep RC order: a send or
 *   write_imm posted after a write is seen after the write's data.  One-sided tasks
 *   complete while the target process makes no DOCA call at all.
 *   If the peer dies, tasks on its connection complete with
 *   DOCA_ERROR_CONNECTION_RESET and the context stops itself (as after any task error).
 *
 * Every function is experimental (DOCA_EXPERIMENTAL).  Every refusal is logged
 * once with the rule broken and the fix.
 */
#ifndef DOCA_RDMA_H_
#define DOCA_RDMA_H_

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;
struct doca_sync_event_remote_net;
struct doca_gpu_dev_rdma;
struct doca_dpa_completion;

/* Opaque objects. */
struct doca_rdma;
struct doca_rdma_connection;
struct doca_rdma_addr;

/* DPA handle of a context (softdoca has no DPA). */
typedef uint64_t doca_dpa_dev_rdma_t;

/* Transport of a context's connections. */
enum doca_rdma_transport_type {
	DOCA_RDMA_TRANSPORT_TYPE_RC = 0, /* reliable connected (default) */
	DOCA_RDMA_TRANSPORT_TYPE_DC = 1, /* dynamically connected: one out-of-band connection */
};

/* One GID table entry. */
struct doca_rdma_gid {
	uint8_t raw[DOCA_GID_BYTE_LENGTH];
};

/* Address kinds of doca_rdma_addr_create() (the mixed case is DOCA's). */
enum doca_rdma_addr_type {
	DOCA_RDMA_ADDR_TYPE_IPv4 = 0,
	DOCA_RDMA_ADDR_TYPE_IPv6 = 1,
	DOCA_RDMA_ADDR_TYPE_GID = 2,
};

/* What a completed receive consumed. */
enum doca_rdma_opcode {
	DOCA_RDMA_OPCODE_RECV_SEND = 0,
	DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM = 1,
	DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM = 2,
};

/* ==== context ==== */

/*
 * Create an RDMA context on dev (a device whose doca_rdma_cap_task_*_is_supported()
 * return SUCCESS).  SUCCESS; INVALID_VALUE (NULL); NOT_SUPPORTED (no RDMA on the
 * device); NO_MEMORY; DRIVER (the UCX fabric of the device's netdev could not open).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma);

/*
 * Destroy a stopped context, its task pools and every connection object.
 * SUCCESS; INVALID_VALUE (NULL); BAD_STATE (not IDLE, or called from one of its callbacks).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_destroy(struct doca_rdma *rdma);

/* The generic context (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma);

/*
 * Out-of-band connection, step 1 (context RUNNING or STARTING): make a new connection
 * object and the descriptor the peer passes to doca_rdma_connect().  Each call gives a
 * new connection and a new descriptor (versioned, <= 4096 bytes, with a fresh random
 * key), owned by the context and valid until doca_rdma_destroy().
 * SUCCESS; INVALID_VALUE (NULL; DC transport and a connection exists); BAD_STATE (not
 * started); FULL (doca_rdma_set_max_num_connections() connections exist); NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details,
						size_t *local_rdma_conn_details_size,
						struct doca_rdma_connection **rdma_connection);

/*
 * Out-of-band connection, step 2: bind rdma_connection (from doca_rdma_export() on this
 * context) to the peer's descriptor.  Legal from the RUNNING state callback.  Tasks may
 * be submitted right away: they wait until the peer is reachable.
 * SUCCESS; INVALID_VALUE (NULL, malformed descriptor, connection of another context);
 * UNSUPPORTED_VERSION (descriptor of a newer softdoca); BAD_STATE (not started, or the
 * connection is already connected).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
						 size_t remote_rdma_conn_details_size,
						 struct doca_rdma_connection *rdma_connection);

/* ==== RDMA-CM (implemented in src/rdma/rdma_cm.c; see docs/rdma.md) ==== */

typedef void (*doca_rdma_connection_request_cb_t)(struct doca_rdma_connection *rdma_connection,
						  union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_established_cb_t)(struct doca_rdma_connection *rdma_connection,
						      union doca_data connection_user_data,
						      union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_failure_cb_t)(struct doca_rdma_connection *rdma_connection,
						  union doca_data connection_user_data, union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_disconnection_cb_t)(struct doca_rdma_connection *rdma_connection,
							union doca_data connection_user_data,
							union doca_data ctx_user_data);

/*
 * Callbacks of CM connections, fired from doca_pe_progress().  request_cb may be NULL
 * for a pure client.  Only while IDLE.  SUCCESS; INVALID_VALUE; BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_connection_state_callbacks(
	struct doca_rdma *rdma, doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
	doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
	doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
	doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb);

/* Server: accept connection requests on port (context RUNNING). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_stop_listen_to_port(struct doca_rdma *rdma, uint16_t port);

/* Peer addresses for doca_rdma_connect_to_addr(). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address,
						     uint16_t port, struct doca_rdma_addr **addr);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *addr);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_addr_get_params(struct doca_rdma_addr *addr,
							 enum doca_rdma_addr_type *addr_type, const char **address,
							 uint16_t *port);

/* Client: connect to a listening server (context RUNNING); outcome through the callbacks. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
							 union doca_data connection_user_data);

/* Answer a connection request (inside or after the request callback). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection,
							   void *private_data, uint8_t private_data_len);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection);

/* End a connection (also legal inside the disconnect callback). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection);

/* The peer's address of a CM connection. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_get_addr(const struct doca_rdma_connection *rdma_connection,
							     struct doca_rdma_addr **addr);

/* Connection identity and user data (any connection). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection,
							   uint32_t *connection_id);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection,
								  union doca_data connection_user_data);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
								  union doca_data *connection_user_data);

/* How long a CM connect waits for the peer, in milliseconds (set while IDLE). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_connection_request_timeout(struct doca_rdma *rdma, uint16_t timeout);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_connection_request_timeout(const struct doca_rdma *rdma,
									uint16_t *timeout);

/* Connections whose CM handshake an application runs itself with librdmacm. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_prepare_connection(struct doca_rdma *rdma, struct rdma_cm_id *cm_id,
								   struct doca_rdma_connection **rdma_connection);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_accept(struct doca_rdma *rdma, void *private_data,
						       uint8_t private_data_len,
						       struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_established(struct doca_rdma *rdma,
							    struct doca_rdma_connection *rdma_connection);

/* ==== capabilities (devinfo of any device; INVALID_VALUE for NULL, NOT_SUPPORTED without RDMA) ==== */

DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo,
								     uint32_t *max_recv_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo,
								     uint32_t *max_send_queue_size);
/* Segments a send / write source list may have. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_send_buf_list_len(const struct doca_devinfo *devinfo,
								       uint32_t *max_send_buf_list_len);
/* Largest message / one-sided transfer in bytes. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_message_size(const struct doca_devinfo *devinfo,
								  uint32_t *max_message_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_gid_table_size(const struct doca_devinfo *devinfo,
								uint32_t *gid_table_size);
/* num_entries GIDs from start_index (INVALID_VALUE past the table). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_gid(const struct doca_devinfo *devinfo, uint32_t start_index,
						     uint32_t num_entries, struct doca_rdma_gid *gid_array);
/* SUCCESS if the transport can be used, NOT_SUPPORTED otherwise. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
									 enum doca_rdma_transport_type transport_type);
/* Segments a receive destination list may have. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_receive_get_max_dst_buf_list_len(
	const struct doca_devinfo *devinfo, enum doca_rdma_transport_type transport_type, uint32_t *max_buf_list_len);

/* ==== properties: setters only while IDLE (BAD_STATE otherwise); INVALID_VALUE for NULL or out of range ==== */

/* Tasks a connection may have in flight (1..cap; default 64). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_send_queue_size(const struct doca_rdma *rdma, uint32_t *send_queue_size);
/* Receives the context may have posted (1..cap; default 64). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size);
/* Source list length of send / write tasks (1..cap; default 1). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_max_send_buf_list_len(struct doca_rdma *rdma,
								   uint32_t max_send_buf_list_len);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_max_send_buf_list_len(const struct doca_rdma *rdma,
								   uint32_t *max_send_buf_list_len);
/* RC (default) or DC; DC allows one out-of-band connection and no RDMA-CM. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_transport_type(struct doca_rdma *rdma,
							    enum doca_rdma_transport_type transport_type);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_transport_type(const struct doca_rdma *rdma,
							    enum doca_rdma_transport_type *transport_type);
/* Path MTU (recorded; UCX picks its own fragment sizes).  Default 1K. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_mtu(struct doca_rdma *rdma, enum doca_mtu_size mtu);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_mtu(const struct doca_rdma *rdma, enum doca_mtu_size *mtu);
/*
 * What peers may do on this context's connections: DOCA_ACCESS_FLAG_RDMA_READ /
 * _RDMA_WRITE / _RDMA_ATOMIC, plus DOCA_ACCESS_FLAG_LOCAL_READ_WRITE (accepted, as the
 * samples pass it).  Default LOCAL_READ_WRITE (no remote access).  Other bits:
 * INVALID_VALUE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_permissions(struct doca_rdma *rdma, uint32_t *permissions);
/* Global routing header, GID index, service level: recorded (UCX routes by itself). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_grh_enabled(const struct doca_rdma *rdma, uint8_t *grh_enabled);
/* GID index (< doca_rdma_cap_get_gid_table_size()). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_gid_index(const struct doca_rdma *rdma, uint32_t *gid_index);
/* Service level 0..15. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_sl(struct doca_rdma *rdma, uint32_t sl);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_sl(const struct doca_rdma *rdma, uint32_t *sl);
/* Connections the context may hold (1..cap; default 1); doca_rdma_export() beyond: FULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *rdma, uint16_t *max_num_connections);
/*
 * How long a message may wait for a receive on the peer: 0..7 as on InfiniBand.
 * softdoca waits (count + 1) x 1 s, and 7 (the default, "retry forever" on
 * hardware) 60 s, before failing both sides with DOCA_ERROR_TIME_OUT.
 * SOFTDOCA_RDMA_RNR_TIMEOUT_MS overrides it.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_rnr_retry_count(struct doca_rdma *rdma, uint8_t rnr_retry_count);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_rnr_retry_count(const struct doca_rdma *rdma, uint8_t *rnr_retry_count);

/* Receive destination list length (1..cap; default 1), while IDLE. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma,
									   uint32_t buf_list_len);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const struct doca_rdma *rdma,
									   uint32_t *buf_list_len);

/* Device-side datapaths: softdoca has none.  NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_gpu_handle(struct doca_rdma *rdma, struct doca_gpu_dev_rdma **gpu_rdma);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *rdma,
							       struct doca_dpa_completion *dpa_comp);

/* ==== tasks ====
 *
 * Every family has: a completion callback type, a capability check, set_conf (enable +
 * pool size, IDLE only), allocate_init, as_task and field accessors.  Connection-based
 * families take the connection in allocate_init and have set/get_rdma_connection.
 * Submit with doca_task_submit(): it refuses only a context that is not RUNNING
 * (BAD_STATE) and a full queue (AGAIN); a task whose buffers, connection or remote
 * access are wrong completes with an error instead.  doca_task_try_submit() validates
 * first and returns the code (INVALID_VALUE / NOT_PERMITTED) without submitting.
 */

/* ---- receive ---- */

/*
 * Receive: consume one message (send, send_imm) or write_imm notification from any
 * connection of the context.  The bytes land in dst_buf (list allowed, up to
 * doca_rdma_task_receive_set_dst_buf_list_len segments) at data + data_len, and data_len
 * grows by what arrived.  dst_buf may be NULL for empty messages and write_imm.
 */
struct doca_rdma_task_receive;

typedef void (*doca_rdma_task_receive_completion_cb_t)(struct doca_rdma_task_receive *task,
						       union doca_data task_user_data, union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_receive_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_receive_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_receive_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf,
								    union doca_data user_data,
								    struct doca_rdma_task_receive **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_receive_as_task(struct doca_rdma_task_receive *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_receive_set_dst_buf(struct doca_rdma_task_receive *task,
							  struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_receive_get_dst_buf(const struct doca_rdma_task_receive *task);
/* Results, valid in the completion callback. */
DOCA_EXPERIMENTAL enum doca_rdma_opcode
doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *task);
DOCA_EXPERIMENTAL uint32_t doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *task);
DOCA_EXPERIMENTAL doca_be32_t
doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *task);
/* The connection the message came on: the same pointer the application holds. */
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_receive_get_result_rdma_connection(const struct doca_rdma_task_receive *task);

/* ---- send ---- */

/*
 * Send: the data window of src_buf (list allowed, up to max_send_buf_list_len segments;
 * NULL or empty = empty message) to one receive posted on the peer.  Completes once the
 * peer placed it.
 */
struct doca_rdma_task_send;

typedef void (*doca_rdma_task_send_completion_cb_t)(struct doca_rdma_task_send *task, union doca_data task_user_data,
						    union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_send_set_conf(struct doca_rdma *rdma, doca_rdma_task_send_completion_cb_t successful_task_completion_cb,
			     doca_rdma_task_send_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *rdma,
								 struct doca_rdma_connection *rdma_connection,
								 const struct doca_buf *src_buf,
								 union doca_data user_data,
								 struct doca_rdma_task_send **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_send_as_task(struct doca_rdma_task_send *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_send_set_rdma_connection(struct doca_rdma_task_send *task,
							       struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_send_get_rdma_connection(const struct doca_rdma_task_send *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_set_src_buf(struct doca_rdma_task_send *task,
						       const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_send_get_src_buf(const struct doca_rdma_task_send *task);

/* ---- send_imm ---- */

/*
 * Send with immediate: as send, plus 32 opaque bits the receiver reads with
 * doca_rdma_task_receive_get_result_immediate_data() (never byte-swapped).
 */
struct doca_rdma_task_send_imm;

typedef void (*doca_rdma_task_send_imm_completion_cb_t)(struct doca_rdma_task_send_imm *task,
							union doca_data task_user_data, union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_send_imm_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_send_imm_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_send_imm_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_send_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_send_imm_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, const struct doca_buf *src_buf,
	doca_be32_t immediate_data, union doca_data user_data, struct doca_rdma_task_send_imm **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_send_imm_as_task(struct doca_rdma_task_send_imm *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_send_imm_set_rdma_connection(struct doca_rdma_task_send_imm *task,
								   struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_send_imm_get_rdma_connection(const struct doca_rdma_task_send_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_imm_set_src_buf(struct doca_rdma_task_send_imm *task,
							   const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_rdma_task_send_imm_get_src_buf(const struct doca_rdma_task_send_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_imm_set_immediate_data(struct doca_rdma_task_send_imm *task,
								  doca_be32_t immediate_data);
DOCA_EXPERIMENTAL doca_be32_t doca_rdma_task_send_imm_get_immediate_data(const struct doca_rdma_task_send_imm *task);

/* ---- read ---- */

/*
 * Read: copy the remote src_buf's data window (a buffer of a doca_mmap_create_from_export()
 * mmap; head only) into the local dst_buf at data + data_len.  The exporter must have
 * granted DOCA_ACCESS_FLAG_RDMA_READ.
 */
struct doca_rdma_task_read;

typedef void (*doca_rdma_task_read_completion_cb_t)(struct doca_rdma_task_read *task, union doca_data task_user_data,
						    union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_read_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_read_set_conf(struct doca_rdma *rdma, doca_rdma_task_read_completion_cb_t successful_task_completion_cb,
			     doca_rdma_task_read_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *rdma,
								 struct doca_rdma_connection *rdma_connection,
								 const struct doca_buf *src_buf,
								 struct doca_buf *dst_buf, union doca_data user_data,
								 struct doca_rdma_task_read **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_read_as_task(struct doca_rdma_task_read *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_read_set_rdma_connection(struct doca_rdma_task_read *task,
							       struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_read_get_rdma_connection(const struct doca_rdma_task_read *task);
DOCA_EXPERIMENTAL void doca_rdma_task_read_set_src_buf(struct doca_rdma_task_read *task,
						       const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_read_get_src_buf(const struct doca_rdma_task_read *task);
DOCA_EXPERIMENTAL void doca_rdma_task_read_set_dst_buf(struct doca_rdma_task_read *task, struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_read_get_dst_buf(const struct doca_rdma_task_read *task);
/* Bytes read, valid in the completion callback. */
DOCA_EXPERIMENTAL uint32_t doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *task);

/* ---- write ---- */

/*
 * Write: copy the local src_buf's data window (list allowed) into the remote dst_buf at
 * data + data_len (head only).  The exporter must have granted DOCA_ACCESS_FLAG_RDMA_WRITE.
 * Completes when the data is visible at the target.
 */
struct doca_rdma_task_write;

typedef void (*doca_rdma_task_write_completion_cb_t)(struct doca_rdma_task_write *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_write_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_write_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_write_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *rdma,
								  struct doca_rdma_connection *rdma_connection,
								  const struct doca_buf *src_buf,
								  struct doca_buf *dst_buf, union doca_data user_data,
								  struct doca_rdma_task_write **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_write_as_task(struct doca_rdma_task_write *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_write_set_rdma_connection(struct doca_rdma_task_write *task,
								struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_write_get_rdma_connection(const struct doca_rdma_task_write *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_set_src_buf(struct doca_rdma_task_write *task,
							const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_write_get_src_buf(const struct doca_rdma_task_write *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_set_dst_buf(struct doca_rdma_task_write *task, struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_write_get_dst_buf(const struct doca_rdma_task_write *task);

/* ---- write_imm ---- */

/*
 * Write with immediate: a write followed by a notification that consumes one receive on
 * the peer (opcode DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM, result length = bytes written).
 */
struct doca_rdma_task_write_imm;

typedef void (*doca_rdma_task_write_imm_completion_cb_t)(struct doca_rdma_task_write_imm *task,
							 union doca_data task_user_data, union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_write_imm_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_imm_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_write_imm_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_write_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_imm_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, const struct doca_buf *src_buf,
	struct doca_buf *dst_buf, doca_be32_t immediate_data, union doca_data user_data,
	struct doca_rdma_task_write_imm **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_write_imm_as_task(struct doca_rdma_task_write_imm *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_rdma_connection(struct doca_rdma_task_write_imm *task,
								    struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_write_imm_get_rdma_connection(const struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_src_buf(struct doca_rdma_task_write_imm *task,
							    const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *
doca_rdma_task_write_imm_get_src_buf(const struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_dst_buf(struct doca_rdma_task_write_imm *task,
							    struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_write_imm_get_dst_buf(const struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_immediate_data(struct doca_rdma_task_write_imm *task,
								   doca_be32_t immediate_data);
DOCA_EXPERIMENTAL doca_be32_t doca_rdma_task_write_imm_get_immediate_data(const struct doca_rdma_task_write_imm *task);

/* ---- atomic_cmp_swp ---- */

/*
 * Atomic compare-and-swap on the 8 bytes at the remote dst_buf's data pointer (8-byte
 * aligned): if they equal cmp_data they become swap_data.  The previous value is written
 * to result_buf at data + data_len.  The exporter must grant DOCA_ACCESS_FLAG_RDMA_ATOMIC.
 */
struct doca_rdma_task_atomic_cmp_swp;

typedef void (*doca_rdma_task_atomic_cmp_swp_completion_cb_t)(struct doca_rdma_task_atomic_cmp_swp *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_atomic_cmp_swp_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_atomic_cmp_swp_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_atomic_cmp_swp_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_atomic_cmp_swp_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_atomic_cmp_swp_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_buf *dst_buf,
	struct doca_buf *result_buf, uint64_t cmp_data, uint64_t swap_data, union doca_data user_data,
	struct doca_rdma_task_atomic_cmp_swp **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_atomic_cmp_swp_as_task(struct doca_rdma_task_atomic_cmp_swp *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_rdma_connection(struct doca_rdma_task_atomic_cmp_swp *task,
									 struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_atomic_cmp_swp_get_rdma_connection(const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_dst_buf(struct doca_rdma_task_atomic_cmp_swp *task,
								 struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *
doca_rdma_task_atomic_cmp_swp_get_dst_buf(const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_result_buf(struct doca_rdma_task_atomic_cmp_swp *task,
								    struct doca_buf *result_buf);
DOCA_EXPERIMENTAL struct doca_buf *
doca_rdma_task_atomic_cmp_swp_get_result_buf(const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_cmp_data(struct doca_rdma_task_atomic_cmp_swp *task,
								  uint64_t cmp_data);
DOCA_EXPERIMENTAL uint64_t doca_rdma_task_atomic_cmp_swp_get_cmp_data(const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_swap_data(struct doca_rdma_task_atomic_cmp_swp *task,
								   uint64_t swap_data);
DOCA_EXPERIMENTAL uint64_t
doca_rdma_task_atomic_cmp_swp_get_swap_data(const struct doca_rdma_task_atomic_cmp_swp *task);

/* ---- atomic_fetch_add ---- */

/*
 * Atomic fetch-and-add on the 8 bytes at the remote dst_buf's data pointer (8-byte
 * aligned).  The previous value is written to result_buf at data + data_len.
 */
struct doca_rdma_task_atomic_fetch_add;

typedef void (*doca_rdma_task_atomic_fetch_add_completion_cb_t)(struct doca_rdma_task_atomic_fetch_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_atomic_fetch_add_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_atomic_fetch_add_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_atomic_fetch_add_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_atomic_fetch_add_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_atomic_fetch_add_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
					      struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t add_data,
					      union doca_data user_data, struct doca_rdma_task_atomic_fetch_add **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_rdma_task_atomic_fetch_add_as_task(struct doca_rdma_task_atomic_fetch_add *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void
doca_rdma_task_atomic_fetch_add_set_rdma_connection(struct doca_rdma_task_atomic_fetch_add *task,
						    struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_atomic_fetch_add_get_rdma_connection(const struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_dst_buf(struct doca_rdma_task_atomic_fetch_add *task,
								   struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *
doca_rdma_task_atomic_fetch_add_get_dst_buf(const struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_result_buf(struct doca_rdma_task_atomic_fetch_add *task,
								      struct doca_buf *result_buf);
DOCA_EXPERIMENTAL struct doca_buf *
doca_rdma_task_atomic_fetch_add_get_result_buf(const struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_add_data(struct doca_rdma_task_atomic_fetch_add *task,
								    uint64_t add_data);
DOCA_EXPERIMENTAL uint64_t
doca_rdma_task_atomic_fetch_add_get_add_data(const struct doca_rdma_task_atomic_fetch_add *task);

/* ---- remote_net_sync_event_get ---- */

/*
 * Remote sync event get: read the 64-bit value of a peer's sync event (imported with
 * doca_sync_event_remote_net_create_from_export()) into dst_buf at data + data_len (8 bytes).
 */
struct doca_rdma_task_remote_net_sync_event_get;

typedef void (*doca_rdma_task_remote_net_sync_event_get_completion_cb_t)(
	struct doca_rdma_task_remote_net_sync_event_get *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_remote_net_sync_event_get_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_get_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_remote_net_sync_event_get_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_remote_net_sync_event_get_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
	const struct doca_sync_event_remote_net *event, struct doca_buf *dst_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_get **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_rdma_task_remote_net_sync_event_get_as_task(struct doca_rdma_task_remote_net_sync_event_get *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void
doca_rdma_task_remote_net_sync_event_get_set_rdma_connection(struct doca_rdma_task_remote_net_sync_event_get *task,
							     struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_get_get_rdma_connection(
	const struct doca_rdma_task_remote_net_sync_event_get *task);
DOCA_EXPERIMENTAL void
doca_rdma_task_remote_net_sync_event_get_set_sync_event(struct doca_rdma_task_remote_net_sync_event_get *task,
							const struct doca_sync_event_remote_net *sync_event);
DOCA_EXPERIMENTAL const struct doca_sync_event_remote_net *
doca_rdma_task_remote_net_sync_event_get_get_sync_event(const struct doca_rdma_task_remote_net_sync_event_get *task);
DOCA_EXPERIMENTAL void
doca_rdma_task_remote_net_sync_event_get_set_dst_buf(struct doca_rdma_task_remote_net_sync_event_get *task,
						     struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *
doca_rdma_task_remote_net_sync_event_get_get_dst_buf(const struct doca_rdma_task_remote_net_sync_event_get *task);
/* Bytes read (8), valid in the completion callback. */
DOCA_EXPERIMENTAL uint32_t
doca_rdma_task_remote_net_sync_event_get_get_result_len(const struct doca_rdma_task_remote_net_sync_event_get *task);

/* ---- remote_net_sync_event_notify_set ---- */

/*
 * Remote sync event set: atomically replace the peer event's value with the 8 bytes at
 * src_buf's data pointer (host byte order).
 */
struct doca_rdma_task_remote_net_sync_event_notify_set;

typedef void (*doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t)(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
	struct doca_rdma *rdma,
	doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	const struct doca_buf *src_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_set **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_rdma_task_remote_net_sync_event_notify_set_as_task(struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_set_set_rdma_connection(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_remote_net_sync_event_notify_set_get_rdma_connection(
	const struct doca_rdma_task_remote_net_sync_event_notify_set *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_set_set_sync_event(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, struct doca_sync_event_remote_net *sync_event);
DOCA_EXPERIMENTAL struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_notify_set_get_sync_event(
	const struct doca_rdma_task_remote_net_sync_event_notify_set *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_set_set_src_buf(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_remote_net_sync_event_notify_set_get_src_buf(
	const struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/* ---- remote_net_sync_event_notify_add ---- */

/*
 * Remote sync event add: atomically add add_data to the peer event's value; the previous
 * value is written to result_buf at data + data_len.
 */
struct doca_rdma_task_remote_net_sync_event_notify_add;

typedef void (*doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t)(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

/* Is the task family available on the device?  SUCCESS or NOT_SUPPORTED (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(const struct doca_devinfo *devinfo);

/*
 * Enable the family and size its task pool (only while IDLE).
 * SUCCESS; INVALID_VALUE (NULL, num_tasks 0 or above the queue cap); BAD_STATE (not IDLE,
 * or tasks of the previous configuration still allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
	struct doca_rdma *rdma,
	doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/*
 * Take a task from the pool and set its fields.  SUCCESS; INVALID_VALUE (NULL rdma or task);
 * BAD_STATE (set_conf not called); NO_MEMORY (every task allocated).
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	struct doca_buf *result_buf, uint64_t add_data, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_add **task);

/* The generic task (NULL for NULL). */
DOCA_EXPERIMENTAL struct doca_task *
doca_rdma_task_remote_net_sync_event_notify_add_as_task(struct doca_rdma_task_remote_net_sync_event_notify_add *task);

/* Field accessors (set: task not in flight; get: NULL/0 for NULL). */
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_rdma_connection(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_remote_net_sync_event_notify_add_get_rdma_connection(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_sync_event(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_sync_event_remote_net *sync_event);
DOCA_EXPERIMENTAL struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_notify_add_get_sync_event(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_result_buf(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_buf *result_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_remote_net_sync_event_notify_add_get_result_buf(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_add_data(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, uint64_t add_data);
DOCA_EXPERIMENTAL uint64_t doca_rdma_task_remote_net_sync_event_notify_add_get_add_data(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMA_H_ */
