/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The soft NIC's connection manager (RDMA-CM over UCX socket-address
 * endpoints): listen on a TCP port, connect to an address, exchange
 * connection descriptors and private data in a small versioned handshake
 * (fabric_cm_proto.h), and watch every connection until it ends.  It knows
 * nothing of DOCA objects and nothing of data endpoints: descriptors are
 * opaque bytes (libdoca_rdma passes its connection descriptors, which it then
 * connects through the fabric so data keeps the best transport, e.g. shm on
 * one host).  See docs/rdma-cm.md.
 *
 * Object model
 *   fabric_cm       a set of listeners and connections delivering events to one
 *                   owner, on the owner's thread, from sd_fabric_cm_progress()
 *   fabric_cm_conn  one connection: client side (sd_fabric_cm_connect) or server
 *                   side (handed out by a REQUEST event); owned by the caller
 *                   from then on until sd_fabric_cm_conn_destroy()
 *
 * Handshake and events
 *   client connect(desc) -------- REQUEST(desc) --------> server: REQUEST event
 *   client: ACCEPTED event <--- ACCEPT(priv, desc) ------ server accept(priv, desc)
 *   client confirm() ------------ RTU ------------------> server: ESTABLISHED event
 *   client: FAILURE event <------ REJECT(reason) -------- server reject()
 * A connection ends with exactly one FAILURE (before it was established on
 * this side) or DISCONNECT (after) event, never for the side that called
 * disconnect() or conn_destroy().  Statuses:
 *   FAILURE: NOT_CONNECTED (nobody listens / unreachable), NOT_PERMITTED
 *            (rejected by the application), FULL (server at its connection
 *            limit), TIME_OUT (no answer in request_timeout_ms, or no sign of
 *            life for the liveness timeout), CONNECTION_RESET / _ABORTED (the
 *            peer vanished or gave up), INVALID_VALUE / UNSUPPORTED_VERSION
 *            (malformed or foreign handshake), SHUTDOWN (server stopping)
 *   DISCONNECT: SUCCESS (the peer disconnected), CONNECTION_RESET (its
 *            process or socket died), TIME_OUT (no sign of life: link loss)
 *
 * Liveness: every live connection sends a PING every liveness/5 from the
 * CM's own service thread (so a peer blocked in getchar() keeps its
 * connections), and a connection that hears nothing for the liveness timeout
 * (SOFTDOCA_RDMA_CM_LIVENESS_MS, default 1500 ms) ends with TIME_OUT.  A peer whose
 * process dies is seen at once through the TCP connection's reset.
 *
 * Threading: every function is thread-safe; events run only inside
 * sd_fabric_cm_progress(), without internal locks held, so they may call any
 * function here.  One fabric_cm is progressed by one thread at a time.
 */
#ifndef SD_FABRIC_CM_H_
#define SD_FABRIC_CM_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <doca_error.h>

#include "../util/sd_util.h"

struct fabric_cm;
struct fabric_cm_conn;

/* Why a server refuses a request (the client's FAILURE event says NOT_PERMITTED, FULL...). */
enum fabric_cm_reject {
	FABRIC_CM_REJECT_APP,	   /* the application said no */
	FABRIC_CM_REJECT_FULL,	   /* no connection slot left */
	FABRIC_CM_REJECT_PROTOCOL, /* the request was not understood */
	FABRIC_CM_REJECT_SHUTDOWN, /* the server stops listening */
};

enum fabric_cm_event_type {
	FABRIC_CM_EVENT_REQUEST = 1, /* server: answer with accept() or reject(), now or later */
	FABRIC_CM_EVENT_ACCEPTED,    /* client: the server accepted; confirm() or disconnect() */
	FABRIC_CM_EVENT_ESTABLISHED, /* server: the client confirmed */
	FABRIC_CM_EVENT_FAILURE,     /* ended before it was established on this side */
	FABRIC_CM_EVENT_DISCONNECT,  /* ended after it was established */
};

struct fabric_cm_event {
	enum fabric_cm_event_type type;
	struct fabric_cm_conn *conn;
	doca_error_t status; /* FAILURE / DISCONNECT: why (see above) */
	/* REQUEST: the client's; ACCEPTED: the server's; valid during the callback */
	const void *priv;
	uint8_t priv_len;
	const void *desc;
	size_t desc_len;
	uint32_t peer_conn_id;
};

typedef void (*fabric_cm_event_cb)(struct fabric_cm *cm, const struct fabric_cm_event *ev, void *user);

struct fabric_cm_attr {
	fabric_cm_event_cb cb; /* required */
	void *user;
	uint32_t request_timeout_ms; /* client: connect() to the server's answer (0: 5000) */
	uint32_t liveness_ms;	     /* 0: SOFTDOCA_RDMA_CM_LIVENESS_MS from the environment, else 1500 */
};

SD_EXPORT doca_error_t sd_fabric_cm_create(const struct fabric_cm_attr *attr, struct fabric_cm **cm);
/* Stop listening, end every connection (peers see DISCONNECT / FAILURE), free. */
SD_EXPORT void sd_fabric_cm_destroy(struct fabric_cm *cm);
/* Deliver queued events (cb) on the calling thread; returns how many ran. */
SD_EXPORT uint32_t sd_fabric_cm_progress(struct fabric_cm *cm);
/* Readable (level) while events wait for sd_fabric_cm_progress(). */
SD_EXPORT int sd_fabric_cm_get_event_fd(struct fabric_cm *cm);

/*
 * Listen on addr, or with addr NULL on every local IPv4 address (0.0.0.0;
 * SOFTDOCA_RDMA_CM_LISTEN=ipv6: [::] instead; UCX 1.13 cannot serve both on one
 * port) at port *port.  Port 0: any free port.
 * *port (may be NULL with an addr) gets the bound port.  IN_USE when the port
 * is taken (by anyone), ALREADY_EXIST when this cm listens on it already.
 */
SD_EXPORT doca_error_t sd_fabric_cm_listen(struct fabric_cm *cm, const struct sockaddr *addr, socklen_t addrlen,
					   uint16_t *port);
/* NOT_FOUND when not listening on port.  Requests not yet answered are rejected. */
SD_EXPORT doca_error_t sd_fabric_cm_unlisten(struct fabric_cm *cm, uint16_t port);

/*
 * Start a connection to addr carrying desc (1..4096 bytes, copied) and
 * conn_id; the outcome is an ACCEPTED or FAILURE event.  user is the
 * connection's user pointer.
 */
SD_EXPORT doca_error_t sd_fabric_cm_connect(struct fabric_cm *cm, const struct sockaddr *addr, socklen_t addrlen,
					    uint32_t conn_id, const void *desc, size_t desc_len, void *user,
					    struct fabric_cm_conn **conn);

/* Server, after REQUEST: BAD_STATE unless the request is unanswered (or the peer left). */
SD_EXPORT doca_error_t sd_fabric_cm_accept(struct fabric_cm_conn *conn, uint32_t conn_id, const void *priv,
					   uint8_t priv_len, const void *desc, size_t desc_len);
SD_EXPORT doca_error_t sd_fabric_cm_reject(struct fabric_cm_conn *conn, enum fabric_cm_reject why);
/* Client, after ACCEPTED: the connection is established on this side. */
SD_EXPORT doca_error_t sd_fabric_cm_confirm(struct fabric_cm_conn *conn);
/*
 * End the connection in any state (orderly: the peer gets DISCONNECT, or
 * FAILURE if it was not established there).  No event for the caller.
 * Idempotent: SUCCESS when it already ended.
 */
SD_EXPORT doca_error_t sd_fabric_cm_disconnect(struct fabric_cm_conn *conn);
/* Disconnect if needed and free; queued events for conn are dropped. */
SD_EXPORT void sd_fabric_cm_conn_destroy(struct fabric_cm_conn *conn);

SD_EXPORT void sd_fabric_cm_conn_set_user(struct fabric_cm_conn *conn, void *user);
SD_EXPORT void *sd_fabric_cm_conn_get_user(const struct fabric_cm_conn *conn);
/* The peer's socket address (client: the server's; server: the client's). */
SD_EXPORT doca_error_t sd_fabric_cm_conn_get_peer(const struct fabric_cm_conn *conn, struct sockaddr_storage *addr,
						  socklen_t *addrlen);
/* The liveness timeout in force (ms), for diagnostics and tests. */
SD_EXPORT uint32_t sd_fabric_cm_liveness_ms(const struct fabric_cm *cm);

#endif /* SD_FABRIC_CM_H_ */
