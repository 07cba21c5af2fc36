/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager's objects as its own files see them: the world
 * (fabric_cm.c), connections and their handshake (fabric_cm_conn.c),
 * listeners (fabric_cm_listen.c).  Locking: one process-wide world (a UCP
 * worker host, fabric_worker.h) serves every fabric_cm; its lock protects the
 * worker and every list and field below.  UCX callbacks run inside
 * ucp_worker_progress(), i.e. with the lock held; they only change states
 * and queue events.  UCP endpoints are closed outside callbacks
 * (cm_world_housekeeping()).  Events run in sd_fabric_cm_progress() with the
 * lock released.
 */
#ifndef SD_FABRIC_CM_INTERNAL_H_
#define SD_FABRIC_CM_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <ucp/api/ucp.h>

#include "fabric_cm.h"
#include "fabric_cm_proto.h"
#include "fabric_worker.h"
#include "../util/sd_util.h"

#define CM_DEFAULT_LIVENESS_MS 1500u
#define CM_MIN_LIVENESS_MS 50u
#define CM_MAX_LIVENESS_MS 3600000u
#define CM_DEFAULT_REQUEST_TIMEOUT_MS 5000u
/* Server connections not yet answered by the application, per cm (flood guard). */
#define CM_MAX_UNANSWERED 1024u
#define CM_PROGRESS_BATCH 64

struct cm_world {
	struct fabric_worker wk; /* its lock guards every list and field below */
	uint32_t refcnt;
	struct sd_list cms;
	struct sd_list ueps; /* struct cm_uep */
};

/* One UCP endpoint, alive until UCX has closed it. */
struct cm_uep {
	struct sd_list node; /* in world->ueps */
	ucp_ep_h uep;
	struct fabric_cm_conn *conn; /* NULL once detached */
	uint64_t linger_until;	     /* detached: force-close at this time */
	bool failed;		     /* UCX reported an error on it */
	bool graceful;		     /* close with a flush (peer alive) rather than force */
	bool closing;
	ucs_status_ptr_t close_req;
};

enum cm_state {
	CM_S_CONNECTING,   /* client: REQUEST sent, awaiting ACCEPT / REJECT */
	CM_S_ACCEPTED,	   /* client: ACCEPT delivered, awaiting confirm() */
	CM_S_WAIT_REQUEST, /* server: endpoint made, REQUEST not yet received (internal) */
	CM_S_REQUESTED,	   /* server: REQUEST delivered, awaiting accept() / reject() */
	CM_S_WAIT_RTU,	   /* server: ACCEPT sent, awaiting RTU */
	CM_S_ESTABLISHED,
	CM_S_CLOSED,
};

struct cm_listener {
	struct sd_list node; /* in cm->listeners */
	struct fabric_cm *cm;
	ucp_listener_h l;
	uint16_t port;
};

struct fabric_cm_conn {
	struct fabric_cm *cm;
	struct sd_list node; /* in cm->conns */
	enum cm_state state;
	bool server;
	bool app_owned; /* handed to the owner (connect() or a REQUEST event) */
	struct cm_uep *rec;
	struct cm_listener *listener; /* server: where it came in (NULL once unlistened) */
	void *user;
	uint64_t token;
	uint32_t conn_id;
	uint32_t peer_conn_id;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint8_t peer_priv[FABRIC_CM_PRIV_MAX];
	uint8_t peer_priv_len;
	uint8_t *peer_desc;
	size_t peer_desc_len;
	uint64_t deadline_ns; /* handshake step deadline, 0: none */
	uint64_t last_rx_ns;
	uint64_t next_ping_ns;
};

struct cm_event {
	struct sd_list node;
	struct fabric_cm_event ev;
};

struct fabric_cm {
	struct cm_world *w;
	struct sd_list node; /* in world->cms */
	fabric_cm_event_cb cb;
	void *user;
	uint64_t request_timeout_ns;
	uint64_t liveness_ns;
	struct sd_list listeners;
	struct sd_list conns;
	struct sd_list events;
	uint32_t n_unanswered;
	int event_fd;
	bool signaled;
};

/* Shared by the three files (defined where their object lives). */
const char *cm_addr_str(const struct sockaddr_storage *ss, char *buf, size_t len);
ucs_status_t cm_am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
		      const ucp_am_recv_param_t *param);
void cm_conn_end(struct fabric_cm_conn *conn, doca_error_t status, bool notify);
void cm_conn_free(struct fabric_cm_conn *conn);
struct fabric_cm_conn *cm_conn_new(struct fabric_cm *cm, bool server);
doca_error_t cm_conn_send(struct fabric_cm_conn *conn, uint8_t type, uint16_t reason, const void *priv,
			  uint8_t priv_len, const void *desc, size_t desc_len);
void cm_drop_events(struct fabric_cm *cm, struct fabric_cm_conn *conn);
void cm_listener_close(struct cm_listener *l);
struct cm_uep *cm_rec_new(struct cm_world *w, struct fabric_cm_conn *conn);
void cm_uep_err_cb(void *arg, ucp_ep_h uep, ucs_status_t st);
void cm_world_housekeeping(struct cm_world *w, bool force_all);
uint64_t cm_world_timers(struct cm_world *w);
void cm_world_wake(struct cm_world *w);

#endif /* SD_FABRIC_CM_INTERNAL_H_ */
