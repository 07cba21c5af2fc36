/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure Channel, both sides: the Comch connection (server on the DPU, client on
 * the host), the agreement on -s and -n, the exchange, and the end.  A side ends
 * when its producer sent everything, its consumer received everything and the
 * peer said FINISHED (its consumer has everything of ours).  Then the host stops
 * its client and the DPU waits for that disconnection: the connection never ends
 * under a message still on its way.
 */
#include <endian.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_log.h>

#include "comch_utils.h"
#include "secure_channel_core.h"

DOCA_LOG_REGISTER(SECURE_CHANNEL);

#define SC_DISCONNECT_TIMEOUT_SEC 10
#define SC_DRAIN_TIMEOUT_MS 5000.0
#define SC_IDLE_SPINS 64 /* empty progress calls before a short sleep */

struct sc_state {
	const struct sc_cfg *cfg;
	struct comch_channel *ch;
	struct sc_fastpath *fp;
	uint32_t peer_consumer;
	bool peer_config, peer_finished, failed;
};

static void
ctrl_recv(void *arg, const uint8_t *msg, uint32_t len)
{
	struct sc_state *st = arg;
	struct sc_ctrl_msg m;

	if (len != sizeof(m)) {
		DOCA_LOG_ERR("Unexpected control message of %" PRIu32 " bytes from the other side", len);
		st->failed = true;
		return;
	}
	memcpy(&m, msg, sizeof(m));
	switch (le32toh(m.type)) {
	case SC_CTRL_CONFIG:
		if (le32toh(m.msg_size) != st->cfg->msg_size || le32toh(m.num_msgs) != st->cfg->num_msgs) {
			DOCA_LOG_ERR("The other side sends %" PRIu32 " messages of %" PRIu32
				     " bytes, this side %" PRIu32 " of %" PRIu32
				     ": start both sides with the same -s and -n",
				     le32toh(m.num_msgs), le32toh(m.msg_size), st->cfg->num_msgs, st->cfg->msg_size);
			st->failed = true;
			return;
		}
		st->peer_config = true;
		break;
	case SC_CTRL_FINISHED:
		st->peer_finished = true;
		break;
	default:
		DOCA_LOG_ERR("Unknown control message type %" PRIu32 " from the other side", le32toh(m.type));
		st->failed = true;
		break;
	}
}

static void
peer_consumer_new(void *arg, uint32_t id)
{
	struct sc_state *st = arg;

	st->peer_consumer = id;
	if (st->fp != NULL)
		sc_fastpath_peer_consumer(st->fp, id);
}

static void
peer_consumer_expired(void *arg, uint32_t id)
{
	(void)arg;
	DOCA_LOG_DBG("The other side's consumer %" PRIu32 " stopped", id);
}

static doca_error_t
send_ctrl(struct sc_state *st, enum sc_ctrl_type type)
{
	struct sc_ctrl_msg m = {
		.type = htole32(type),
		.msg_size = htole32(st->cfg->msg_size),
		.num_msgs = htole32(st->cfg->num_msgs),
	};
	doca_error_t r = comch_channel_send(st->ch, &m, sizeof(m));

	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to send a control message to the other side: %s", doca_error_get_descr(r));
	return r;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One round of the loop: progress, and a short sleep once nothing has happened for a while. */
static void
progress(struct sc_state *st, unsigned *idle)
{
	if (comch_channel_progress(st->ch) != 0) {
		*idle = 0;
	} else if (++*idle >= SC_IDLE_SPINS) {
		*idle = 0;
		usleep(10);
	}
}

/* Until the peer's CONFIG arrived (and matched). */
static doca_error_t
agree(struct sc_state *st)
{
	unsigned idle = 0;
	doca_error_t r = send_ctrl(st, SC_CTRL_CONFIG);

	while (r == DOCA_SUCCESS && !st->peer_config) {
		if (st->failed)
			return DOCA_ERROR_INVALID_VALUE;
		if (!comch_channel_connected(st->ch)) {
			DOCA_LOG_ERR("The other side left before agreeing on the messages");
			return DOCA_ERROR_CONNECTION_ABORTED;
		}
		progress(st, &idle);
	}
	return r;
}

/* Both directions until everything went and the peer has everything of ours. */
static doca_error_t
exchange(struct sc_state *st)
{
	bool finished_sent = false;
	double left_at = 0;
	unsigned idle = 0;

	for (;;) {
		if (st->failed || !sc_fastpath_push(st->fp))
			return DOCA_ERROR_IO_FAILED;
		if (sc_fastpath_received_all(st->fp) && !finished_sent) {
			if (send_ctrl(st, SC_CTRL_FINISHED) != DOCA_SUCCESS)
				return DOCA_ERROR_IO_FAILED;
			finished_sent = true;
		}
		if (finished_sent && st->peer_finished && sc_fastpath_sent_all(st->fp))
			return DOCA_SUCCESS;
		if (!comch_channel_connected(st->ch)) {
			/* Gone once it had everything: only our last completions are left to report. */
			if (!(finished_sent && st->peer_finished)) {
				DOCA_LOG_ERR("The other side left before the exchange ended");
				return DOCA_ERROR_CONNECTION_ABORTED;
			}
			if (left_at == 0)
				left_at = now_ms();
			else if (now_ms() - left_at > SC_DRAIN_TIMEOUT_MS)
				return DOCA_ERROR_TIME_OUT;
		}
		progress(st, &idle);
	}
}

doca_error_t
sc_run(const struct sc_cfg *cfg)
{
	struct sc_state st = {.cfg = cfg};
	struct comch_channel_cfg ccfg = {
		.name = SC_SERVER_NAME,
		.server = cfg->is_dpu,
		.pci_addr = cfg->comch_pci,
		.rep_pci_addr = cfg->is_dpu ? cfg->rep_pci : NULL,
		.num_send_tasks = SC_NUM_CTRL_TASKS,
		.recv_cb = ctrl_recv,
		.consumer_new_cb = peer_consumer_new,
		.consumer_expired_cb = peer_consumer_expired,
		.cb_arg = &st,
	};
	doca_error_t r;

	r = comch_channel_create(&ccfg, &st.ch);
	if (r != DOCA_SUCCESS)
		return r;
	DOCA_LOG_INFO("%s", cfg->is_dpu ? "Server waiting on a client to connect" : "Connecting to the DPU's server");
	r = comch_channel_wait_connected(st.ch, 0);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to establish the Comch connection: %s", doca_error_get_descr(r));
		goto destroy_channel;
	}
	DOCA_LOG_INFO("Connection established; %" PRIu32 " messages of %" PRIu32 " bytes each way", cfg->num_msgs,
		      cfg->msg_size);
	r = agree(&st);
	if (r != DOCA_SUCCESS)
		goto destroy_channel;
	r = sc_fastpath_create(cfg, comch_channel_dev(st.ch), comch_channel_pe(st.ch), comch_channel_connection(st.ch),
			       &st.fp);
	if (r != DOCA_SUCCESS)
		goto destroy_channel;
	if (st.peer_consumer != 0)
		sc_fastpath_peer_consumer(st.fp, st.peer_consumer);
	r = exchange(&st);
	if (r == DOCA_SUCCESS)
		sc_fastpath_report(st.fp);
	sc_fastpath_destroy(st.fp);
	st.fp = NULL;
	/* The host leaves first, once both consumers are done. */
	if (r == DOCA_SUCCESS && cfg->is_dpu && comch_channel_connected(st.ch) &&
	    comch_channel_wait_disconnected(st.ch, SC_DISCONNECT_TIMEOUT_SEC) != DOCA_SUCCESS)
		DOCA_LOG_WARN("The host did not disconnect within %d seconds", SC_DISCONNECT_TIMEOUT_SEC);
destroy_channel:
	(void)comch_channel_destroy(st.ch);
	return r;
}
