/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Comch: a reliable, message-based channel between a host process and a DPU
 * process (docs/comch.md).
 *
 * Object model
 *   struct doca_comch_server      DPU side.  Created on a DPU-side device and the
 *                                 representor of one host PCI function, under a service
 *                                 name; any number of clients of that function connect
 *                                 to it.  A struct doca_ctx (doca_comch_server_as_ctx).
 *   struct doca_comch_client      host side.  Created on the host PCI function with the
 *                                 same service name; one connection to one server.
 *   struct doca_comch_connection  one client <-> server pair, present on both sides.
 *   struct doca_comch_task_send   a control-path message (copied; at most the max
 *                                 message size) sent on a connection.
 *   Events                        message received (both sides), connection and
 *                                 disconnection (server), consumer created / destroyed
 *                                 on the remote side (both; doca_comch_consumer.h).
 *
 * Call order (either side)
 *   doca_comch_server_create(dev, rep, name, &s) / doca_comch_client_create(dev, name, &c)
 *   doca_pe_connect_ctx(pe, ..._as_ctx()); doca_ctx_set_state_changed_cb(...)
 *   ..._task_send_set_conf(), ..._event_msg_recv_register(), server:
 *   ..._event_connection_status_changed_register()          all while IDLE
 *   doca_ctx_start()   server: SUCCESS, RUNNING at once (listening)
 *                      client: IN_PROGRESS, STARTING until the server accepted it
 *                      (a client started before its server waits for it), then
 *                      RUNNING from a later doca_pe_progress()
 *   ..._task_send_alloc_init(); doca_task_submit(); doca_pe_progress() ...
 *   doca_ctx_stop(); progress until IDLE; ..._destroy()
 *
 * Delivery
 *   A message is handed to the peer when doca_task_submit() returns SUCCESS: it reaches
 *   the peer even if the sender never calls doca_pe_progress() again, or stops.  The
 *   completion is reported by the sender's doca_pe_progress().  Messages arrive in order,
 *   byte for byte, with their length as sent.  A send when the peer's receive queue is
 *   full returns DOCA_ERROR_AGAIN (the caller keeps the task and retries).  If the peer
 *   process dies, its connection ends: the server reports a disconnection, a client
 *   context goes STOPPING then IDLE, and unreported tasks complete with an error.
 *
 * Personality
 *   As on hardware, servers exist only on DPU-side devices and clients only on host-side
 *   functions: the other way is refused with DOCA_ERROR_NOT_SUPPORTED.
 */
#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_comch_server;
struct doca_comch_client;
struct doca_comch_connection;
struct doca_comch_task_send;
struct doca_comch_event_msg_recv;
struct doca_comch_event_connection_status_changed;
struct doca_comch_event_consumer;

/* Completion (success or error) of a control-path send task. */
typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

/*
 * A message arrived on comch_connection.  recv_buffer holds msg_len bytes and is valid
 * only during the callback.
 */
typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer,
					       uint32_t msg_len, struct doca_comch_connection *comch_connection);

/* Server: a client connected (change_successful 1) or left (1: orderly, 0: it died). */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(
	struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *comch_connection,
	uint8_t change_successful);

/* A consumer with this id was started (or destroyed) on the remote side of the connection. */
typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
					       struct doca_comch_connection *comch_connection, uint32_t id);

/* Counters of a connection (doca_comch_connection_get_counter). */
enum doca_comch_counter {
	DOCA_COMCH_COUNTER_SENT_MESSAGES = 1,
	DOCA_COMCH_COUNTER_SENT_BYTES = 2,
	DOCA_COMCH_COUNTER_RECV_MESSAGES = 3,
	DOCA_COMCH_COUNTER_RECV_BYTES = 4,
};

/* --- capabilities (SUCCESS, NOT_SUPPORTED for a device without Comch, INVALID_VALUE for NULL) --- */

/* Largest control-path message, in bytes. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);
/* Largest receive queue (messages) a server or client may be configured with. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo,
								      uint32_t *size);
/* Longest service name, including the terminating NUL. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo,
							       uint32_t *max_name_len);
/* Most clients one server accepts. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo,
							      uint32_t *max_clients);
/* Most send tasks one server or client may be configured with. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
								 uint32_t *max_send_tasks);
/* SUCCESS on a DPU-side device; NOT_SUPPORTED elsewhere. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);
/* SUCCESS on a host-side PCI function; NOT_SUPPORTED elsewhere. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* --- connection --- */

/* SUCCESS; INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
								   union doca_data user_data);
/* The value set last; 0 when never set or for NULL. */
DOCA_EXPERIMENTAL union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);
/* The server owning a server-side connection; NULL on a client-side one. */
DOCA_EXPERIMENTAL struct doca_comch_server *
doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection);
/* The client owning a client-side connection; NULL on a server-side one. */
DOCA_EXPERIMENTAL struct doca_comch_client *
doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection);
/* Nothing to refresh in software: SUCCESS (INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *connection);
/* Messages / bytes sent and received on the connection.  INVALID_VALUE for NULL or an unknown counter. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_connection_get_counter(struct doca_comch_connection *connection,
								 enum doca_comch_counter counter, uint64_t *value);

/* --- server (DPU) --- */

/*
 * Create a server on the DPU-side device dev for the host function repr represents,
 * under name (shorter than doca_comch_cap_get_max_name_len()).
 * Returns SUCCESS; INVALID_VALUE for NULL or a name that is empty or too long, or a
 * representor of another device; NOT_SUPPORTED on a host-side device; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
							const char *name, struct doca_comch_server **comch_server);
/* IDLE only: BAD_STATE otherwise.  INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);
/* IDLE only (BAD_STATE); size in [1, cap] (INVALID_VALUE). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server,
								  uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server,
								  uint32_t *size);
/* IDLE only (BAD_STATE); size in [1, cap] (INVALID_VALUE). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server,
								     uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
								     uint32_t *size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
							    struct doca_dev **dev);
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server,
								 struct doca_dev_rep **repr);
/* IDLE only.  num_send_tasks in [1, doca_comch_cap_get_max_send_tasks()]. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_task_send_set_conf(
	struct doca_comch_server *comch_server, doca_comch_task_send_completion_cb_t task_completion_cb,
	doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);
/*
 * A task sending len bytes of msg (copied now) on peer, a connection of this server.
 * Returns SUCCESS; INVALID_VALUE for NULL, a connection of another context or len over
 * the maximum message size; BAD_STATE if the server is not RUNNING or the connection
 * ended; NO_MEMORY when every task is allocated.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
								      struct doca_comch_connection *peer,
								      const void *msg, uint32_t len,
								      struct doca_comch_task_send **task);
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
									 doca_comch_event_msg_recv_cb_t recv_event_cb);
/* IDLE only.  Both callbacks are required. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);
/* The name older DOCA releases used; same behaviour. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_connection_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);
/* IDLE only.  Both callbacks are required. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_consumer_register(
	struct doca_comch_server *comch_server, doca_comch_event_consumer_cb_t new_consumer_event_cb,
	doca_comch_event_consumer_cb_t expired_consumer_event_cb);
/*
 * End one connection and tell the client (its context stops).  Allowed from the
 * connect callback.  Returns SUCCESS; INVALID_VALUE for NULL or a connection of another
 * server; BAD_STATE if it already ended; IN_USE while producers or consumers use it.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
							    struct doca_comch_connection *connection);

/* --- client (host) --- */

/*
 * Create a client on the host PCI function dev for the server called name.
 * Returns SUCCESS; INVALID_VALUE for NULL or a bad name; NOT_SUPPORTED on a DPU-side
 * device; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
							struct doca_comch_client **comch_client);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client,
								  uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client,
								  uint32_t *size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client,
								     uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
								     uint32_t *size);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
							    struct doca_dev **dev);
/* The connection, once RUNNING (BAD_STATE before). */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
								struct doca_comch_connection **connection);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_task_send_set_conf(
	struct doca_comch_client *comch_client, doca_comch_task_send_completion_cb_t task_completion_cb,
	doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);
/* As doca_comch_server_task_send_alloc_init(), on the client's connection. */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
								      struct doca_comch_connection *peer,
								      const void *msg, uint32_t len,
								      struct doca_comch_task_send **task);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
									 doca_comch_event_msg_recv_cb_t recv_event_cb);
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_event_consumer_register(
	struct doca_comch_client *comch_client, doca_comch_event_consumer_cb_t new_consumer_event_cb,
	doca_comch_event_consumer_cb_t expired_consumer_event_cb);

/* --- send task --- */

DOCA_EXPERIMENTAL struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
