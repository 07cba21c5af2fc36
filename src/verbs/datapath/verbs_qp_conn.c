/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A QP's life on the soft NIC, driven by verbs_qp.c's state machine:
 *   create   a QP number on the device's address service, work queues, and a
 *            fabric_ep whose blob the service hands to peers (src/fabric/fabric_addr.c);
 *   RTR      (remote GID, remote QPN) resolved to the peer's blob and the ep
 *            connected; a peer that cannot be reached leaves the QP in RTR
 *            with every send failing IBV_WC_RETRY_EXC_ERR, as on hardware;
 *   RTS      the RNR budget (min_rnr_timer, rnr_retry; 7 = for ever);
 *   ERR      the ep aborts and everything outstanding flushes;
 *   RST      queues dropped without completions; a connected ep is replaced by a
 *            fresh one (for a new peer), an unconnected one is kept;
 *   destroy  the ep, the queues, the number.
 */
#include <arpa/inet.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../../fabric/fabric_addr.h"
#include "../verbs_internal.h"

SD_LOG_REGISTER(verbs.qp_conn);

/* How long RTR waits for the peer's address service to answer. */
#define RESOLVE_TIMEOUT_MS 2000u

static doca_error_t
publish(struct doca_verbs_qp *qp)
{
	const void *blob;
	size_t len;
	doca_error_t err = sd_fabric_ep_export(qp->ep, &blob, &len);

	if (err == DOCA_SUCCESS)
		err = sd_fabric_addr_publish(qp->qpn, blob, len);
	return err;
}

/* The QP's CQs progress its domains from now on (attach), or no longer; all or nothing. */
static doca_error_t
attach_cqs(struct doca_verbs_qp *qp, bool attach)
{
	struct doca_verbs_cq *scq = qp->init.send_cq, *rcq = qp->init.receive_cq;
	doca_error_t err = DOCA_SUCCESS;

	if (scq != NULL)
		err = sd_verbs_cq_attach(scq, qp, attach);
	if (err == DOCA_SUCCESS && rcq != NULL && rcq != scq) {
		err = sd_verbs_cq_attach(rcq, qp, attach);
		if (err != DOCA_SUCCESS && scq != NULL)
			(void)sd_verbs_cq_attach(scq, qp, false);
	}
	return err;
}

doca_error_t
sd_verbs_qp_conn_create(struct doca_verbs_qp *qp)
{
	doca_error_t err;

	err = sd_fabric_addr_add(qp->ctx->devinfo, &qp->qpn);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_verbs_qp_create: no QP number on %s's address service: %s; destroy QPs you no "
			     "longer use",
			     sd_devinfo_ibdev_name(qp->ctx->devinfo), doca_error_get_descr(err));
		return err;
	}
	err = sd_verbs_wq_init(qp);
	if (err == DOCA_SUCCESS)
		err = publish(qp);
	if (err == DOCA_SUCCESS) {
		/* without its CQs nothing would progress the QP: fail the create instead */
		err = attach_cqs(qp, true);
		if (err == DOCA_SUCCESS)
			return DOCA_SUCCESS;
	}
	DOCA_LOG_ERR("doca_verbs_qp_create: cannot set up the QP's soft NIC queue pair: %s; free memory or "
		     "use smaller queues",
		     doca_error_get_descr(err));
	sd_verbs_wq_fini(qp);
	sd_fabric_addr_remove(qp->qpn);
	return err;
}

/* Off its wait CQ's waiter list, if on it (qp->lock held). */
static void
unwait(struct doca_verbs_qp *qp)
{
	if (qp->sq.waiting) {
		sd_verbs_cq_unwait(qp->sq.ring[qp->sq.issue % qp->sq.size].wait_cq, qp);
		qp->sq.waiting = false;
	}
}

void
sd_verbs_qp_conn_destroy(struct doca_verbs_qp *qp)
{
	(void)attach_cqs(qp, false);
	pthread_mutex_lock(&qp->lock);
	qp->destroying = true;
	unwait(qp);
	pthread_mutex_unlock(&qp->lock);
	/* a kick on another thread may hold the QP, taken off the list before we looked: let it finish */
	while (__atomic_load_n(&qp->kick_refs, __ATOMIC_ACQUIRE) != 0)
		sched_yield();
	sd_fabric_addr_remove(qp->qpn);
	sd_verbs_wq_fini(qp);
}

static const char *
gid_str(const struct doca_verbs_gid *gid, char *buf, size_t len)
{
	static const uint8_t v4_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (memcmp(gid->raw, v4_prefix, sizeof(v4_prefix)) == 0)
		return inet_ntop(AF_INET, &gid->raw[12], buf, (socklen_t)len);
	return inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len);
}

void
sd_verbs_qp_conn_rtr(struct doca_verbs_qp *qp)
{
	uint8_t *blob = malloc(FABRIC_BLOB_MAX);
	const char *reason = NULL;
	char gid[INET6_ADDRSTRLEN] = "?";
	doca_error_t err;
	size_t len = 0;

	gid_str(&qp->ah.gid, gid, sizeof(gid));
	if (blob == NULL) {
		err = DOCA_ERROR_NO_MEMORY;
		reason = "out of memory";
	} else {
		err = sd_fabric_addr_resolve(qp->ctx->devinfo, qp->ah.gid.raw, qp->attr.dest_qp_num, qp->qpn, blob,
					     FABRIC_BLOB_MAX, &len, RESOLVE_TIMEOUT_MS, &reason);
	}
	if (err == DOCA_SUCCESS)
		err = sd_fabric_ep_connect(qp->ep, blob, len, &reason);
	free(blob);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_WARN("QP %u: peer QP %u at GID %s is not reachable (%s: %s); its sends will complete with "
			      "IBV_WC_RETRY_EXC_ERR",
			      qp->qpn, qp->attr.dest_qp_num, gid, doca_error_get_name(err),
			      reason != NULL ? reason : "no reason given");
		qp->reachable = false;
		return;
	}
	sd_fabric_addr_bind(qp->qpn, qp->ah.gid.raw, qp->attr.dest_qp_num);
	qp->reachable = true;
	DOCA_LOG_DBG("QP %u: connected to QP %u at GID %s", qp->qpn, qp->attr.dest_qp_num, gid);
}

/* min_rnr_timer's encoding (InfiniBand's table), in microseconds. */
static uint64_t
rnr_timer_us(uint16_t code)
{
	static const uint32_t us[32] = {
		655360, 10,    20,    30,    40,    60,	    80,	    120,    160,    240,    320,
		480,	640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
		20480,	30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	return us[code & 31u];
}

void
sd_verbs_qp_conn_rts(struct doca_verbs_qp *qp)
{
	uint64_t ns;

	if (qp->dom != &qp->own)
		return; /* an SRQ's QPs share its (for-ever) budget */
	if (qp->attr.rnr_retry >= 7) {
		ns = UINT64_MAX;
	} else {
		ns = (qp->attr.rnr_retry + 1u) * rnr_timer_us(qp->attr.min_rnr_timer) * 1000u;
		ns = SD_MAX(ns, 1000000ull); /* the soft NIC's timers tick in milliseconds */
	}
	sd_fabric_ctx_set_rnr_timeout(qp->own.fctx, ns);
}

void
sd_verbs_qp_conn_err(struct doca_verbs_qp *qp)
{
	struct doca_verbs_cq *kick[2] = {NULL, NULL};

	pthread_mutex_lock(&qp->lock);
	if (qp->state == DOCA_VERBS_QP_STATE_RST)
		qp->state = DOCA_VERBS_QP_STATE_ERR; /* nothing posted yet: nothing to flush */
	sd_verbs_qp_fail(qp, "moved to ERR by doca_verbs_qp_modify()");
	sd_verbs_wq_retire(qp, kick);
	pthread_mutex_unlock(&qp->lock);
	for (int i = 0; i < 2; i++)
		if (kick[i] != NULL)
			sd_verbs_cq_kick(kick[i]);
}

doca_error_t
sd_verbs_qp_conn_reset(struct doca_verbs_qp *qp)
{
	struct sd_verbs_sq *sq = &qp->sq;
	doca_error_t err;
	bool keep;

	pthread_mutex_lock(&qp->lock);
	qp->state = DOCA_VERBS_QP_STATE_RST; /* completions from here on are dropped */
	unwait(qp);
	pthread_mutex_unlock(&qp->lock);
	/*
	 * A queue pair never connected (a fresh QP, or one whose peer did not
	 * resolve) keeps its endpoint: a peer that already resolved it still
	 * reaches this QP once it is back in RTR, as on hardware.  A connected
	 * one starts afresh; its old peer's work is refused from now on.
	 */
	keep = !qp->reachable;
	if (!keep) {
		sd_fabric_ep_destroy(qp->ep);
		qp->ep = NULL;
	}
	if (qp->dom == &qp->own)
		sd_fabric_ctx_flush_recvs(qp->own.fctx, DOCA_ERROR_CONNECTION_ABORTED);
	sd_verbs_domain_drain(qp->dom);
	pthread_mutex_lock(&qp->lock);
	for (uint32_t i = 0; i < sq->size; i++)
		sd_verbs_scatter_free(&sq->ring[i].sc);
	for (uint32_t i = 0; i < qp->rq.size; i++)
		sd_verbs_scatter_free(&qp->rq.ring[i].sc);
	sq->head = sq->issue = sq->tail = 0;
	qp->rq.head = qp->rq.tail = 0;
	qp->reachable = false;
	pthread_mutex_unlock(&qp->lock);
	if (keep)
		return DOCA_SUCCESS;
	err = sd_verbs_qp_ep_create(qp);
	if (err == DOCA_SUCCESS)
		err = publish(qp);
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("QP %u: reset: cannot make a fresh soft NIC queue pair: %s", qp->qpn,
			     doca_error_get_descr(err));
	return err;
}
