/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixture of the connection-manager tests (cm_fixture.c): an event
 * recorder, servers and clients in forked processes on loopback.
 */
#ifndef CM_FIXTURE_H_
#define CM_FIXTURE_H_

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <ucp/api/ucp.h>

#include "sd_test_peer.h"
#include "fabric/fabric_cm.h"
#include "fabric/fabric_cm_proto.h" /* the wire, for the malformed-message cases */
#include "sd_util.h"

enum srv_mode { SRV_ACCEPT, SRV_REJECT_APP, SRV_REJECT_FULL, SRV_IGNORE };

struct rec_ev {
	enum fabric_cm_event_type type;
	doca_error_t status;
	struct fabric_cm_conn *conn;
	uint32_t peer_id;
	uint8_t priv_len;
	uint8_t priv[255];
	size_t desc_len;
	uint8_t desc[64];
	uint64_t t_ms;
};

struct rec {
	struct rec_ev ev[512];
	int n;
	enum srv_mode mode;
	bool client_confirms;
};

typedef void (*server_body)(struct fabric_cm *cm, struct rec *r);

#define SRV_DESC_LEN sizeof("server-descriptor")
#define CLI_DESC_LEN sizeof("client-descriptor")
extern const char srv_desc[SRV_DESC_LEN];
extern const char cli_desc[CLI_DESC_LEN];

uint64_t now_ms(void);
void priv_pattern(uint8_t *p, size_t n);
int count(const struct rec *r, enum fabric_cm_event_type t);
const struct rec_ev *last_of(const struct rec *r, enum fabric_cm_event_type t);
int pump_until(struct fabric_cm *cm, struct rec *r, enum fabric_cm_event_type t, int want, uint64_t ms);
void pump_for(struct fabric_cm *cm, uint64_t ms);
struct fabric_cm *make_cm(struct rec *r, uint32_t request_timeout_ms, uint32_t liveness_ms);
struct sockaddr_in loopback(uint16_t port);
pid_t fork_server(enum srv_mode mode, uint32_t liveness_ms, server_body body, uint16_t *port);
struct fabric_cm_conn *client_connect(struct fabric_cm *cm, uint16_t port, uint32_t id);

#endif /* CM_FIXTURE_H_ */
