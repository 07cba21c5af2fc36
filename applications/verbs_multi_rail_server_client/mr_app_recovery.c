/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recovery thread of verbs_multi_rail_server_client (one a side, the program's own).  It owns
 * every rail the data thread has given up (state DOWN): it moves the rail's QPs to ERR, destroys
 * them and drains the rail's CQ.  The client's thread then probes the rail every
 * probe_interval_ms over a fresh UC probe QP pair (doca_verbs_multi_rail_probe_start / _get_status)
 * and, once a probe round succeeds, asks the server over the recovery TCP channel for new RC QPs,
 * connects its own and hands them to the data thread (state RECOVERING -> UP there).  The
 * server's thread answers: new probe QP, new RC QPs (receives posted for send traffic).  A
 * probe round is UP only when the peer's heartbeat changed too (the library's rule: a UC write
 * completes without the peer), so the server runs probe rounds of its own on the new probe pair
 * (a probe-only Multi-Rail object per rail) for as long as the rail is DOWN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_log.h>
#include <doca_verbs_bridge.h>
#include <doca_verbs_multi_rail.h>

#include "mr_app.h"

DOCA_LOG_REGISTER(MR_APP_RECOVERY);

static enum mr_rail_state
state_of(struct mr_app *app, struct mr_rail *rail)
{
	enum mr_rail_state s;

	pthread_mutex_lock(&app->lock);
	s = rail->state;
	pthread_mutex_unlock(&app->lock);
	return s;
}

/* A DOWN rail's old QPs: to ERR (the soft NIC drops the connection), destroyed, CQ drained. */
static void
fence(struct mr_app *app, struct mr_rail *rail)
{
	struct ibv_wc wc[32];
	uint32_t i;

	if (rail->qps == NULL)
		return;
	for (i = 0; i < rail->num_qps; i++)
		(void)mr_qp_to_err(rail->qps[i].qp);
	mr_rail_destroy_qps(rail->qps, rail->num_qps);
	rail->qps = NULL;
	while (doca_verbs_bridge_poll_cq(rail->cq, 32, wc) > 0)
		;
	(void)app;
}

static doca_error_t
exchange_qpns(struct mr_app *app, uint32_t type, uint32_t rail, const uint32_t *local, uint32_t *remote, uint32_t n,
	      bool send_first)
{
	struct mr_msg msg = {.type = type, .rail = rail, .a = n};
	doca_error_t result = DOCA_SUCCESS;

	if (send_first)
		result = mr_oob_send(app->rec_fd, &msg, local, sizeof(uint32_t) * n);
	if (result == DOCA_SUCCESS && remote != NULL) {
		result = mr_oob_recv(app->rec_fd, &msg, 10000);
		if (result == DOCA_SUCCESS && (msg.a != n || msg.rail != rail)) {
			DOCA_LOG_ERR("Recovery of rail %u: the peer answered for rail %u with %llu QPN(s)", rail,
				     msg.rail, (unsigned long long)msg.a);
			return DOCA_ERROR_UNEXPECTED;
		}
		if (result == DOCA_SUCCESS)
			result = mr_oob_recv_body(app->rec_fd, remote, sizeof(uint32_t) * n);
	}
	return result;
}

/* ---------------------------------------------------------------- client */

static bool
client_probe(struct mr_app *app, struct mr_rail *rail)
{
	enum doca_verbs_multi_rail_rail_status status = DOCA_VERBS_MULTI_RAIL_RAIL_PROBING;
	uint64_t deadline;
	uint32_t remote;

	if (app->mr == NULL)
		return true; /* plain RC: no probes, try to reconnect */
	(void)doca_verbs_multi_rail_set_probe_qp(app->mr, rail->index, NULL, NULL, NULL, 0, 0, 0);
	mr_probe_destroy(rail);
	if (mr_probe_create(app, rail) != DOCA_SUCCESS)
		return false;
	if (exchange_qpns(app, MR_MSG_PROBE_SETUP, rail->index, &rail->probe_qpn, &remote, 1, true) != DOCA_SUCCESS)
		return false;
	if (mr_qp_connect(app, rail, rail->probe_qp, remote, true) != DOCA_SUCCESS)
		return false;
	if (doca_verbs_multi_rail_set_probe_qp(app->mr, rail->index, rail->probe_qp, rail->probe_cq, rail->probe_buf,
					       rail->probe_mr->lkey, rail->remote_probe_va,
					       rail->remote_probe_rkey) != DOCA_SUCCESS ||
	    doca_verbs_multi_rail_probe_start(app->mr) != DOCA_SUCCESS)
		return false;
	deadline = mr_now_ns() + 3000000000ULL;
	while (!atomic_load(&app->stop) && mr_now_ns() < deadline) {
		if (doca_verbs_multi_rail_probe_get_status(app->mr, rail->index, &status) != DOCA_SUCCESS)
			return false;
		if (status != DOCA_VERBS_MULTI_RAIL_RAIL_PROBING)
			break;
		usleep(1000);
	}
	return status == DOCA_VERBS_MULTI_RAIL_RAIL_UP;
}

static bool
client_reconnect(struct mr_app *app, struct mr_rail *rail)
{
	uint32_t local[MR_MAX_QPS], remote[MR_MAX_QPS], i;
	struct mr_qp *qps = NULL;

	if (mr_rail_create_qps(app, rail, rail->num_qps, &qps) != DOCA_SUCCESS)
		return false;
	for (i = 0; i < rail->num_qps; i++)
		local[i] = qps[i].qpn;
	if (exchange_qpns(app, MR_MSG_RECONNECT, rail->index, local, remote, rail->num_qps, true) != DOCA_SUCCESS)
		goto fail;
	for (i = 0; i < rail->num_qps; i++) {
		qps[i].remote_qpn = remote[i];
		if (mr_qp_connect(app, rail, qps[i].qp, remote[i], false) != DOCA_SUCCESS)
			goto fail;
	}
	pthread_mutex_lock(&app->lock);
	rail->new_qps = qps;
	rail->state = MR_RAIL_RECOVERING;
	pthread_mutex_unlock(&app->lock);
	atomic_fetch_add(&app->rails_recovered, 1);
	return true;
fail:
	mr_rail_destroy_qps(qps, rail->num_qps);
	return false;
}

static void *
client_thread(void *arg)
{
	struct mr_app *app = arg;
	uint64_t next_try[MR_MAX_RAILS] = {0}, backoff[MR_MAX_RAILS] = {0};
	uint64_t interval = (uint64_t)app->cfg->rail.probe_interval_ms * 1000000ULL;
	uint32_t r;

	while (!atomic_load(&app->stop)) {
		usleep(2000);
		for (r = 0; r < app->num_rails && !atomic_load(&app->stop); r++) {
			struct mr_rail *rail = &app->rails[r];

			if (state_of(app, rail) != MR_RAIL_DOWN)
				continue;
			fence(app, rail);
			if (!app->cfg->rail.reconnect || mr_now_ns() < next_try[r])
				continue;
			if (client_probe(app, rail) && client_reconnect(app, rail)) {
				backoff[r] = 0;
				continue;
			}
			/* Back off up to 1 s between attempts on a rail that stays down. */
			backoff[r] = backoff[r] == 0
					     ? interval
					     : (backoff[r] * 2 > 1000000000ULL ? 1000000000ULL : backoff[r] * 2);
			next_try[r] = mr_now_ns() + backoff[r];
		}
	}
	return NULL;
}

/* ---------------------------------------------------------------- server */

/* The client reported the rail lost on the data channel; wait until the data thread saw it. */
static bool
wait_down(struct mr_app *app, struct mr_rail *rail)
{
	int i;

	for (i = 0; i < 2000 && state_of(app, rail) == MR_RAIL_UP; i++)
		usleep(1000);
	if (state_of(app, rail) != MR_RAIL_DOWN)
		return false;
	fence(app, rail);
	return true;
}

static void
server_probe_stop(struct mr_rail *rail)
{
	if (rail->probe_obj != NULL)
		(void)doca_verbs_multi_rail_destroy(rail->probe_obj);
	rail->probe_obj = NULL;
}

/* The server's own probe rounds on the rail's probe pair (its heartbeats reach the client's slot). */
static void
server_probe_start(struct mr_app *app, struct mr_rail *rail)
{
	struct doca_verbs_multi_rail_cfg *cfg;
	doca_error_t result;

	if (mr_config_library(&app->cfg->rail, &cfg) != DOCA_SUCCESS)
		return;
	result = doca_verbs_multi_rail_create(1, &rail->probe_obj);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_apply_cfg(rail->probe_obj, cfg);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_set_probe_qp(rail->probe_obj, 0, rail->probe_qp, rail->probe_cq,
							    rail->probe_buf, rail->probe_mr->lkey,
							    rail->remote_probe_va, rail->remote_probe_rkey);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_probe_start(rail->probe_obj);
	(void)doca_verbs_multi_rail_cfg_destroy(cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_WARN("Rail %u: the server's probe rounds did not start: %s", rail->index,
			      doca_error_get_descr(result));
		server_probe_stop(rail);
	}
	(void)app;
}

/* Every pass of the server's thread: settle rounds and start the next while DOWN; stop once not. */
static void
server_probe_poll(struct mr_app *app)
{
	enum doca_verbs_multi_rail_rail_status status;
	uint32_t r;

	for (r = 0; r < app->num_rails; r++) {
		struct mr_rail *rail = &app->rails[r];

		if (rail->probe_obj == NULL)
			continue;
		if (state_of(app, rail) != MR_RAIL_DOWN) {
			server_probe_stop(rail);
			continue;
		}
		(void)doca_verbs_multi_rail_probe_get_status(rail->probe_obj, 0, &status);
		(void)doca_verbs_multi_rail_probe_start(rail->probe_obj); /* no-op while a round is pending */
	}
}

static void
server_probe_setup(struct mr_app *app, struct mr_rail *rail, uint32_t client_qpn)
{
	if (!wait_down(app, rail))
		return;
	server_probe_stop(rail);
	mr_probe_destroy(rail);
	if (mr_probe_create(app, rail) != DOCA_SUCCESS)
		return;
	if (exchange_qpns(app, MR_MSG_PROBE_SETUP, rail->index, &rail->probe_qpn, NULL, 1, true) != DOCA_SUCCESS)
		return;
	if (mr_qp_connect(app, rail, rail->probe_qp, client_qpn, true) == DOCA_SUCCESS && app->cfg->use_multi_rail)
		server_probe_start(app, rail);
}

static void
server_reconnect(struct mr_app *app, struct mr_rail *rail, const uint32_t *remote)
{
	uint32_t local[MR_MAX_QPS], i;
	struct mr_qp *qps = NULL;

	if (!wait_down(app, rail) || mr_rail_create_qps(app, rail, rail->num_qps, &qps) != DOCA_SUCCESS) {
		(void)exchange_qpns(app, MR_MSG_RECONNECT_ACK, rail->index, local, NULL, 0, true);
		return;
	}
	for (i = 0; i < rail->num_qps; i++)
		local[i] = qps[i].qpn;
	if (exchange_qpns(app, MR_MSG_RECONNECT_ACK, rail->index, local, NULL, rail->num_qps, true) != DOCA_SUCCESS)
		goto fail;
	for (i = 0; i < rail->num_qps; i++) {
		qps[i].remote_qpn = remote[i];
		if (mr_qp_connect(app, rail, qps[i].qp, remote[i], false) != DOCA_SUCCESS)
			goto fail;
	}
	if (mr_server_post_receives(app, rail, qps) != DOCA_SUCCESS)
		goto fail;
	pthread_mutex_lock(&app->lock);
	rail->new_qps = qps;
	rail->state = MR_RAIL_RECOVERING;
	pthread_mutex_unlock(&app->lock);
	atomic_fetch_add(&app->rails_recovered, 1);
	printf("rail %u recovered\n", rail->index);
	fflush(stdout);
	return;
fail:
	mr_rail_destroy_qps(qps, rail->num_qps);
}

static void *
server_thread(void *arg)
{
	struct mr_app *app = arg;
	uint32_t remote[MR_MAX_QPS], r;
	struct mr_msg msg;
	doca_error_t result;

	while (!atomic_load(&app->stop)) {
		server_probe_poll(app);
		result = mr_oob_recv(app->rec_fd, &msg, 20);
		if (result == DOCA_ERROR_TIME_OUT) {
			for (r = 0; r < app->num_rails; r++)
				if (state_of(app, &app->rails[r]) == MR_RAIL_DOWN)
					fence(app, &app->rails[r]);
			continue;
		}
		if (result != DOCA_SUCCESS || msg.rail >= app->num_rails)
			break;
		if (msg.type == MR_MSG_PROBE_SETUP && msg.a == 1 &&
		    mr_oob_recv_body(app->rec_fd, remote, sizeof(uint32_t)) == DOCA_SUCCESS)
			server_probe_setup(app, &app->rails[msg.rail], remote[0]);
		else if (msg.type == MR_MSG_RECONNECT && msg.a == app->rails[msg.rail].num_qps &&
			 mr_oob_recv_body(app->rec_fd, remote, sizeof(uint32_t) * msg.a) == DOCA_SUCCESS)
			server_reconnect(app, &app->rails[msg.rail], remote);
		else
			break;
	}
	for (r = 0; r < app->num_rails; r++)
		server_probe_stop(&app->rails[r]);
	return NULL;
}

doca_error_t
mr_recovery_start(struct mr_app *app)
{
	if (pthread_create(&app->recovery_thread, NULL, app->cfg->is_server ? server_thread : client_thread, app) !=
	    0) {
		DOCA_LOG_ERR("Failed to start the recovery thread");
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	app->recovery_started = true;
	return DOCA_SUCCESS;
}

void
mr_recovery_stop(struct mr_app *app)
{
	if (!app->recovery_started)
		return;
	atomic_store(&app->stop, true);
	pthread_join(app->recovery_thread, NULL);
	app->recovery_started = false;
}
