/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail probing: each rail may have a probe path (a QP, usually UC,
 * connected to the peer's probe QP over the rail's NIC, its send CQ, and a
 * local and a remote probe buffer).  probe_start posts a round of probe_count
 * signaled RDMA WRITEs of this side's heartbeat (buffer word 0) into the
 * peer's slot (word 1); probe_get_status polls the probe CQs in the caller's
 * thread, reads the local slot, and settles rounds: all probes completed with
 * success and the peer's heartbeat changed within probe_timeout_s -> UP; a
 * failed probe or probe_timeout_s elapsed without both -> DOWN.
 *
 * Why the peer's heartbeat: a UC write completes once it left the local NIC
 * (there is no acknowledgement), so local completions alone cannot see a dead
 * peer QP or a cut on the far side of the path; the peer's writes landing here
 * prove the path and the peer's probe QP alive.  Both sides must therefore run
 * probe rounds (at least once per probe_timeout_s).
 *
 * A probe's wr_id is PROBE_MAGIC << 48 | rail << 32 | round: completions of
 * a round that was superseded (or cancelled by a DOWN verdict) are counted out
 * of the in-flight total and otherwise ignored, so a late success never
 * revives a rail.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <string.h>
#include <time.h>

#include <doca_verbs_bridge.h>

#include "../verbs_internal.h"
#include "verbs_multi_rail.h"

SD_LOG_REGISTER(verbs.multi_rail_probe);

#define PROBE_MAGIC 0x4d52ull /* "MR" */
#define POLL_BATCH 16

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
probe_wr_id(uint32_t rail, uint32_t round)
{
	return PROBE_MAGIC << 48 | (uint64_t)rail << 32 | round;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_set_probe_qp(struct doca_verbs_multi_rail *mr, uint32_t rail, struct doca_verbs_qp *probe_qp,
				   struct doca_verbs_cq *probe_cq, void *local_addr, uint32_t lkey,
				   uint64_t remote_addr, uint32_t rkey)
{
	struct sd_mr_rail *r;
	doca_error_t err;

	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check_rail(mr, rail, __func__);
	if (err != DOCA_SUCCESS)
		goto unlock;
	r = &mr->rails[rail];
	if (probe_qp != NULL && (probe_cq == NULL || local_addr == NULL)) {
		DOCA_LOG_ERR("%s: rail %u: a probe QP needs its send CQ and a registered local buffer of %u bytes; "
			     "pass probe_cq and local_addr (or probe_qp NULL to remove the path)",
			     __func__, rail, DOCA_VERBS_MULTI_RAIL_PROBE_BYTES);
		err = DOCA_ERROR_INVALID_VALUE;
		goto unlock;
	}
	if (r->round_active) {
		DOCA_LOG_ERR("%s: rail %u has a probe round in flight; wait for its verdict "
			     "(doca_verbs_multi_rail_probe_get_status) before changing the path",
			     __func__, rail);
		err = DOCA_ERROR_BAD_STATE;
		goto unlock;
	}
	r->probe_qp = probe_qp;
	r->probe_cq = probe_qp != NULL ? probe_cq : NULL;
	r->local_addr = local_addr;
	r->lkey = lkey;
	r->remote_addr = remote_addr;
	r->rkey = rkey;
	r->inflight = 0; /* what the old path still owes is polled by nobody now */
	r->rx_seen = probe_qp != NULL ? __atomic_load_n((uint64_t *)local_addr + 1, __ATOMIC_ACQUIRE) : 0;
	r->rx_change_ns = 0;
unlock:
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}

/* Post one round on a rail; a probe the QP refuses puts the rail DOWN. */
static void
start_round(struct doca_verbs_multi_rail *mr, uint32_t rail, uint64_t now)
{
	struct sd_mr_rail *r = &mr->rails[rail];
	char why[128];

	r->round_id++;
	r->round_ok = 0;
	r->round_active = true;
	r->start_ns = now;
	r->deadline_ns = now + (uint64_t)mr->cfg.probe_timeout_s * 1000000000u;
	/* Word 0 is what the probes carry; the NIC reads it after this store (post_send orders it). */
	__atomic_store_n((uint64_t *)r->local_addr, ++r->tx_seq, __ATOMIC_RELEASE);
	for (uint32_t p = 0; p < mr->cfg.probe_count; p++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)r->local_addr, .length = DOCA_VERBS_MULTI_RAIL_PROBE_BYTES, .lkey = r->lkey};
		struct ibv_send_wr wr, *bad = NULL;
		int ret;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = probe_wr_id(rail, r->round_id);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r->remote_addr + sizeof(uint64_t); /* the peer's slot */
		wr.wr.rdma.rkey = r->rkey;
		ret = doca_verbs_bridge_post_send(r->probe_qp, &wr, &bad);
		if (ret != 0) {
			snprintf(why, sizeof(why),
				 "posting probe %u of %u failed (%s); is the probe QP in RTS with a "
				 "send queue of probe_count?",
				 p + 1, mr->cfg.probe_count, strerror(ret));
			sd_mr_rail_set_down(mr, rail, why);
			return;
		}
		r->inflight++;
	}
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_probe_start(struct doca_verbs_multi_rail *mr)
{
	doca_error_t err;
	bool any = false;
	uint64_t now;

	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check(mr, __func__);
	if (err != DOCA_SUCCESS)
		goto unlock;
	now = mono_ns();
	for (uint32_t i = 0; i < mr->num_rails; i++) {
		if (mr->rails[i].probe_qp == NULL)
			continue;
		any = true;
		if (!mr->rails[i].round_active)
			start_round(mr, i, now);
	}
	if (!any) {
		DOCA_LOG_ERR("%s: no rail has a probe QP; call doca_verbs_multi_rail_set_probe_qp() first", __func__);
		err = DOCA_ERROR_NOT_FOUND;
	}
unlock:
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}

/* One probe completion from cq. */
static void
probe_done(struct doca_verbs_multi_rail *mr, struct doca_verbs_cq *cq, const struct ibv_wc *wc)
{
	uint32_t rail = (uint32_t)(wc->wr_id >> 32) & 0xffff;
	struct sd_mr_rail *r;
	char why[96];

	if (wc->wr_id >> 48 != PROBE_MAGIC || rail >= mr->num_rails || mr->rails[rail].probe_cq != cq) {
		SD_VERBS_REFUSE_ONCE("multi-rail: a probe CQ returned a completion that is not a probe of this "
				     "object (wr_id 0x%llx); give the probe QPs CQs of their own",
				     (unsigned long long)wc->wr_id);
		return;
	}
	r = &mr->rails[rail];
	if (r->inflight > 0)
		r->inflight--;
	if (!r->round_active || (uint32_t)wc->wr_id != r->round_id)
		return;
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(why, sizeof(why), "a probe completed with %s", sd_mr_wc_status_name(wc->status));
		sd_mr_rail_set_down(mr, rail, why);
		return;
	}
	r->round_ok++;
}

/* The peer's heartbeat changed recently enough for the active round. */
static bool
peer_alive(const struct doca_verbs_multi_rail *mr, const struct sd_mr_rail *r)
{
	uint64_t window = (uint64_t)mr->cfg.probe_timeout_s * 1000000000u;

	return r->rx_change_ns != 0 && r->rx_change_ns + window >= r->start_ns;
}

/* Read the slots, settle the rounds that have their verdict, expire the late ones. */
static void
settle_rounds(struct doca_verbs_multi_rail *mr)
{
	uint64_t now = mono_ns();
	char why[192];

	for (uint32_t i = 0; i < mr->num_rails; i++) {
		struct sd_mr_rail *r = &mr->rails[i];
		uint64_t seen;

		if (r->probe_qp == NULL)
			continue;
		seen = __atomic_load_n((uint64_t *)r->local_addr + 1, __ATOMIC_ACQUIRE);
		if (seen != r->rx_seen) {
			r->rx_seen = seen;
			r->rx_change_ns = now;
		}
		if (!r->round_active)
			continue;
		if (r->round_ok >= mr->cfg.probe_count && peer_alive(mr, r)) {
			r->round_active = false;
			sd_mr_rail_set_up(mr, i);
			continue;
		}
		if (now < r->deadline_ns)
			continue;
		snprintf(why, sizeof(why),
			 "%u of its %u probes completed and the peer's probes %s within probe_timeout_s (%u s)",
			 r->round_ok, mr->cfg.probe_count, peer_alive(mr, r) ? "arrived" : "did not arrive",
			 mr->cfg.probe_timeout_s);
		if (!r->up)
			r->round_active = false; /* already DOWN: just end the round */
		sd_mr_rail_set_down(mr, i, why);
	}
}

/* Drain every probe CQ once (a CQ shared by rails is polled once). */
static void
poll_probes(struct doca_verbs_multi_rail *mr)
{
	struct ibv_wc wc[POLL_BATCH];

	for (uint32_t i = 0; i < mr->num_rails; i++) {
		struct doca_verbs_cq *cq = mr->rails[i].probe_cq;
		bool seen = false;
		int n;

		for (uint32_t j = 0; j < i && !seen; j++)
			seen = mr->rails[j].probe_cq == cq;
		if (cq == NULL || seen)
			continue;
		do {
			n = doca_verbs_bridge_poll_cq(cq, POLL_BATCH, wc);
			for (int k = 0; k < n; k++)
				probe_done(mr, cq, &wc[k]);
		} while (n == POLL_BATCH);
	}
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_probe_get_status(struct doca_verbs_multi_rail *mr, uint32_t rail,
				       enum doca_verbs_multi_rail_rail_status *status)
{
	doca_error_t err;

	if (status == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass where to store the answer", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check_rail(mr, rail, __func__);
	if (err != DOCA_SUCCESS)
		goto unlock;
	poll_probes(mr);
	settle_rounds(mr);
	*status = mr->rails[rail].up		 ? DOCA_VERBS_MULTI_RAIL_RAIL_UP
		  : mr->rails[rail].round_active ? DOCA_VERBS_MULTI_RAIL_RAIL_PROBING
						 : DOCA_VERBS_MULTI_RAIL_RAIL_DOWN;
unlock:
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}
