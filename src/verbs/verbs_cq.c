/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion queues: creation checks (64-byte entries, depth within the
 * device's limit, a channel of the same context, no external datapath), the
 * CQ number, arming for a channel event, and the hardware-ring getters that
 * software cannot fill; then the datapath's side: the ring of ibv_wc the QPs'
 * completions are written to, doca_verbs_bridge_poll_cq() (which progresses
 * the soft NIC domains of the CQ's QPs first), and the waiters of wait-CQ
 * entries, released when the producer index reaches their value.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <doca_verbs_bridge.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.cq);

static doca_error_t
cq_check_attr(const struct doca_verbs_context *ctx, const struct doca_verbs_cq_attr *attr)
{
	if (attr->entry_size != DOCA_VERBS_CQ_ENTRY_SIZE_64) {
		DOCA_LOG_ERR("doca_verbs_cq_create: 128-byte CQ entries are not supported: softdoca's completions "
			     "are 64-byte entries; set DOCA_VERBS_CQ_ENTRY_SIZE_64");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (attr->cq_size == 0 || attr->cq_size > SD_VERBS_MAX_CQE) {
		DOCA_LOG_ERR("doca_verbs_cq_create: cq_size %u is out of range (1 .. %u, "
			     "doca_verbs_device_attr_get_max_cqe); set it with doca_verbs_cq_attr_set_cq_size()",
			     attr->cq_size, SD_VERBS_MAX_CQE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (attr->comp_channel != NULL && attr->comp_channel->ctx != ctx) {
		DOCA_LOG_ERR("doca_verbs_cq_create: the completion channel belongs to another context; create it on "
			     "this one");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (attr->external_datapath_en != 0) {
		DOCA_LOG_ERR("doca_verbs_cq_create: external datapath is not supported: it needs a hardware CQ ring "
			     "(DPA / GPU); leave external_datapath_en 0 and poll with doca_verbs_bridge_poll_cq()");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_create(struct doca_verbs_context *ctx, struct doca_verbs_cq_attr *attr, struct doca_verbs_cq **verbs_cq)
{
	struct doca_verbs_cq *cq;
	doca_error_t err;

	if (ctx == NULL || attr == NULL || verbs_cq == NULL) {
		DOCA_LOG_ERR("doca_verbs_cq_create: NULL argument (verbs_context %p, cq_attr %p, verbs_cq %p); pass "
			     "non-NULL pointers",
			     (void *)ctx, (void *)attr, (void *)verbs_cq);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = cq_check_attr(ctx, attr);
	if (err != DOCA_SUCCESS)
		return err;
	cq = sd_fault_create("verbs", "doca_verbs_cq_create") ? NULL : calloc(1, sizeof(*cq));
	if (cq == NULL) {
		DOCA_LOG_ERR("doca_verbs_cq_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	cq->ring = calloc(attr->cq_size, sizeof(*cq->ring));
	if (cq->ring == NULL) {
		DOCA_LOG_ERR("doca_verbs_cq_create: out of memory for %u entries; free memory or ask for fewer",
			     attr->cq_size);
		free(cq);
		return DOCA_ERROR_NO_MEMORY;
	}
	cq->ctx = ctx;
	cq->attr = *attr;
	cq->cqn = sd_verbs_next_num();
	sd_list_init(&cq->event_link);
	sd_list_init(&cq->waiters);
	pthread_mutex_init(&cq->lock, NULL);
	pthread_mutex_init(&cq->qps_lock, NULL);
	pthread_mutex_lock(&ctx->lock);
	ctx->num_cqs++;
	if (attr->comp_channel != NULL)
		attr->comp_channel->users++;
	pthread_mutex_unlock(&ctx->lock);
	*verbs_cq = cq;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_destroy(struct doca_verbs_cq *cq)
{
	struct doca_verbs_context *ctx;
	uint64_t unacked;
	uint32_t users;

	if (cq == NULL) {
		DOCA_LOG_ERR("doca_verbs_cq_destroy: verbs_cq is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx = cq->ctx;
	pthread_mutex_lock(&ctx->lock);
	users = cq->users;
	unacked = cq->events_delivered - cq->events_acked;
	if (users == 0 && unacked == 0) {
		ctx->num_cqs--;
		if (cq->attr.comp_channel != NULL)
			cq->attr.comp_channel->users--;
		if (cq->event_queued)
			sd_list_del(&cq->event_link); /* queued, never fetched: nothing to acknowledge */
		sd_verbs_async_forget(ctx, cq);
	}
	pthread_mutex_unlock(&ctx->lock);
	if (users != 0) {
		DOCA_LOG_ERR("doca_verbs_cq_destroy: CQ %u is used by %u QP(s); destroy them first", cq->cqn, users);
		return DOCA_ERROR_IN_USE;
	}
	if (unacked != 0) {
		DOCA_LOG_ERR("doca_verbs_cq_destroy: CQ %u has %llu event(s) from doca_verbs_get_cq_event() not "
			     "acknowledged; call doca_verbs_ack_cq_events() first",
			     cq->cqn, (unsigned long long)unacked);
		return DOCA_ERROR_IN_USE;
	}
	pthread_mutex_destroy(&cq->qps_lock);
	pthread_mutex_destroy(&cq->lock);
	free(cq->qps);
	free(cq->ring);
	free(cq);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_cq_get_cqn(const struct doca_verbs_cq *cq)
{
	return cq == NULL ? 0 : cq->cqn;
}

/*
 * The program is going to sleep on the CQ's channel: the channel's handle
 * (an epoll set) watches the soft NIC domains of the CQ's QPs, whose
 * completions only a progress call turns into CQ entries (and so into the
 * event); the service thread takes the soft NIC meanwhile.
 */
static void
cq_watch_domains(struct doca_verbs_cq *cq)
{
	struct doca_verbs_comp_channel *ch = cq->attr.comp_channel;

	pthread_mutex_lock(&cq->qps_lock); /* the list stays as it is: writers take this lock too */
	for (uint32_t i = 0; i < cq->n_qps; i++) {
		struct sd_verbs_domain *dom = cq->qps[i]->dom;
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = dom};

		if (epoll_ctl(ch->epfd, EPOLL_CTL_ADD, sd_fabric_ctx_get_event_fd(dom->fctx), &ev) != 0 &&
		    errno != EEXIST)
			DOCA_LOG_WARN("CQ %u: cannot watch QP %u's soft NIC domain: %s", cq->cqn, cq->qps[i]->qpn,
				      strerror(errno));
		if (sd_fabric_ctx_arm(dom->fctx))
			sd_verbs_domain_progress(dom);
	}
	pthread_mutex_unlock(&cq->qps_lock);
}

void
sd_verbs_channel_progress(struct doca_verbs_comp_channel *ch)
{
	struct epoll_event evs[16];
	int n = epoll_wait(ch->epfd, evs, 16, 0);

	for (int i = 0; i < n; i++)
		if (evs[i].data.ptr != NULL)
			sd_verbs_domain_progress(evs[i].data.ptr);
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_req_notify_cq(struct doca_verbs_cq *cq, int solicited_only)
{
	if (cq == NULL) {
		DOCA_LOG_ERR("doca_verbs_req_notify_cq: verbs_cq is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cq->attr.comp_channel == NULL) {
		DOCA_LOG_ERR("doca_verbs_req_notify_cq: CQ %u has no completion channel to deliver the event; set "
			     "one with doca_verbs_cq_attr_set_comp_channel() before doca_verbs_cq_create()",
			     cq->cqn);
		return DOCA_ERROR_BAD_STATE;
	}
	pthread_mutex_lock(&cq->ctx->lock);
	/* Arming again only widens a solicited-only arm, as on hardware. */
	cq->solicited_only = cq->armed ? cq->solicited_only && solicited_only != 0 : solicited_only != 0;
	cq->armed = true;
	pthread_mutex_unlock(&cq->ctx->lock);
	cq_watch_domains(cq);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL void
doca_verbs_ack_cq_events(struct doca_verbs_cq *cq, unsigned int nevents)
{
	uint64_t unacked;

	if (cq == NULL) {
		DOCA_LOG_ERR("doca_verbs_ack_cq_events: verbs_cq is NULL; pass the object its create call returned");
		return;
	}
	pthread_mutex_lock(&cq->ctx->lock);
	unacked = cq->events_delivered - cq->events_acked;
	cq->events_acked += SD_MIN((uint64_t)nevents, unacked);
	pthread_mutex_unlock(&cq->ctx->lock);
	if (nevents > unacked)
		DOCA_LOG_WARN("doca_verbs_ack_cq_events: CQ %u: %u event(s) acknowledged but only %llu were "
			      "delivered; acknowledge what doca_verbs_get_cq_event() returned",
			      cq->cqn, nevents, (unsigned long long)unacked);
}

DOCA_EXPERIMENTAL void
doca_verbs_cq_get_wq(struct doca_verbs_cq *cq, void **cq_buf, uint32_t *cq_num_entries, uint8_t *cq_entry_size)
{
	(void)cq;
	if (cq_buf != NULL)
		*cq_buf = NULL;
	if (cq_num_entries != NULL)
		*cq_num_entries = 0;
	if (cq_entry_size != NULL)
		*cq_entry_size = 0;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cq_get_wq: not supported: softdoca CQs have no hardware ring a program "
			     "could read; poll them with doca_verbs_bridge_poll_cq()");
}

DOCA_EXPERIMENTAL void
doca_verbs_cq_get_dbr_addr(struct doca_verbs_cq *cq, uint64_t **uar_db_reg, uint32_t **ci_dbr, uint32_t **arm_dbr)
{
	(void)cq;
	if (uar_db_reg != NULL)
		*uar_db_reg = NULL;
	if (ci_dbr != NULL)
		*ci_dbr = NULL;
	if (arm_dbr != NULL)
		*arm_dbr = NULL;
	SD_VERBS_REFUSE_ONCE("doca_verbs_cq_get_dbr_addr: not supported: softdoca CQs have no doorbell records; "
			     "arm them with doca_verbs_req_notify_cq()");
}

/* ---- datapath: the ring ---- */

bool
sd_verbs_cq_push(struct doca_verbs_cq *cq, const struct ibv_wc *wc)
{
	uint32_t size = cq->attr.cq_size;
	bool overrun;

	pthread_mutex_lock(&cq->lock);
	overrun = cq->pi - cq->ci >= size;
	if (!overrun) {
		cq->ring[cq->pi % size] = *wc;
		__atomic_store_n(&cq->pi, cq->pi + 1, __ATOMIC_RELEASE); /* read unlocked by poll's fast path */
	} else if (cq->attr.cq_overrun != 0) {
		/* overrun allowed: the oldest entry is overwritten, as the hardware ring would (poll skips it) */
		cq->ring[cq->pi % size] = *wc;
		__atomic_store_n(&cq->pi, cq->pi + 1, __ATOMIC_RELEASE);
		overrun = false;
	}
	if (overrun && !cq->overrun) {
		cq->overrun = true;
		pthread_mutex_unlock(&cq->lock);
		DOCA_LOG_ERR("CQ %u overrun: %u completions wait to be polled and the CQ holds %u; completions are "
			     "lost from now on (raise cq_size or poll faster)",
			     cq->cqn, size, size);
		sd_verbs_async_event_post(cq->ctx, DOCA_VERBS_EVENT_CQ_ERR, cq);
		return false;
	}
	pthread_mutex_unlock(&cq->lock);
	if (!overrun)
		sd_verbs_cq_completion_added(cq, true);
	return !overrun;
}

bool
sd_verbs_cq_reached(struct doca_verbs_cq *cq, uint32_t pi, struct doca_verbs_qp *qp)
{
	bool reached;

	pthread_mutex_lock(&cq->lock);
	reached = (int32_t)(cq->pi - pi) >= 0;
	if (!reached && qp != NULL && !qp->sq.waiting) {
		sd_list_insert_tail(&cq->waiters, &qp->sq.wait_link);
		__atomic_store_n(&cq->n_waiters, cq->n_waiters + 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&cq->lock);
	return reached;
}

void
sd_verbs_cq_unwait(struct doca_verbs_cq *cq, struct doca_verbs_qp *qp)
{
	pthread_mutex_lock(&cq->lock);
	if (!sd_list_empty(&qp->sq.wait_link)) { /* a kick may have taken it off already */
		sd_list_del(&qp->sq.wait_link);
		__atomic_store_n(&cq->n_waiters, cq->n_waiters - 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&cq->lock);
}

void
sd_verbs_cq_kick(struct doca_verbs_cq *cq)
{
	/*
	 * The waiters present now, one at a time: a QP that still waits goes back for a later kick.
	 * Read without the lock: a QP that starts waiting after the push this kick follows saw the
	 * push's producer index (both under cq->lock), so it is not this kick's to release.
	 */
	uint32_t n = __atomic_load_n(&cq->n_waiters, __ATOMIC_RELAXED);
	struct sd_list *l;

	while (n-- > 0) {
		struct doca_verbs_cq *kick[2] = {NULL, NULL};
		struct doca_verbs_qp *qp;

		pthread_mutex_lock(&cq->lock);
		l = sd_list_pop_head(&cq->waiters);
		if (l != NULL)
			__atomic_store_n(&cq->n_waiters, cq->n_waiters - 1, __ATOMIC_RELAXED);
		qp = l != NULL ? sd_container_of(l, struct doca_verbs_qp, sq.wait_link) : NULL;
		/* taken under the CQ's lock: a QP being destroyed waits for this kick to let it go */
		if (qp != NULL)
			__atomic_add_fetch(&qp->kick_refs, 1, __ATOMIC_ACQ_REL);
		pthread_mutex_unlock(&cq->lock);
		if (qp == NULL)
			return;
		pthread_mutex_lock(&qp->lock);
		qp->sq.waiting = false;
		if (!qp->destroying && qp->state != DOCA_VERBS_QP_STATE_RST) {
			sd_verbs_sq_issue(qp);
			sd_verbs_wq_retire(qp, kick);
		}
		pthread_mutex_unlock(&qp->lock);
		__atomic_sub_fetch(&qp->kick_refs, 1, __ATOMIC_ACQ_REL);
		for (int i = 0; i < 2; i++)
			if (kick[i] != NULL && kick[i] != cq)
				sd_verbs_cq_kick(kick[i]);
	}
}

/*
 * The CQ's QP list: pollers enter with an increment of qps_readers, then back
 * out (skipping the progress) if a writer is changing the list; a writer, under
 * qps_lock, raises qps_changing and waits for the readers inside to leave.
 * Both sides order the flag and the count sequentially consistently, so a
 * reader that missed the flag is seen by the writer.  Two atomic operations
 * per poll instead of a read lock and its unlock.
 */
static bool
qps_enter(struct doca_verbs_cq *cq)
{
	__atomic_add_fetch(&cq->qps_readers, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&cq->qps_changing, __ATOMIC_SEQ_CST))
		return true;
	__atomic_sub_fetch(&cq->qps_readers, 1, __ATOMIC_RELEASE);
	return false;
}

static void
qps_leave(struct doca_verbs_cq *cq)
{
	__atomic_sub_fetch(&cq->qps_readers, 1, __ATOMIC_RELEASE);
}

static void
qps_change_begin(struct doca_verbs_cq *cq)
{
	pthread_mutex_lock(&cq->qps_lock);
	__atomic_store_n(&cq->qps_changing, true, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&cq->qps_readers, __ATOMIC_SEQ_CST) != 0)
		sched_yield();
}

static void
qps_change_end(struct doca_verbs_cq *cq)
{
	__atomic_store_n(&cq->qps_changing, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cq->qps_lock);
}

doca_error_t
sd_verbs_cq_attach(struct doca_verbs_cq *cq, struct doca_verbs_qp *qp, bool attach)
{
	qps_change_begin(cq);
	if (attach) {
		if (cq->n_qps == cq->cap_qps) {
			uint32_t cap = cq->cap_qps ? cq->cap_qps * 2 : 8;
			struct doca_verbs_qp **q = realloc(cq->qps, cap * sizeof(*q));

			if (q == NULL) {
				qps_change_end(cq);
				return DOCA_ERROR_NO_MEMORY;
			}
			cq->qps = q;
			cq->cap_qps = cap;
		}
		cq->qps[cq->n_qps++] = qp;
	} else {
		bool shared = false;

		for (uint32_t i = 0; i < cq->n_qps; i++) {
			if (cq->qps[i] == qp) {
				cq->qps[i] = cq->qps[--cq->n_qps];
				break;
			}
		}
		for (uint32_t i = 0; i < cq->n_qps; i++)
			shared = shared || cq->qps[i]->dom == qp->dom;
		/*
		 * The domain may go with the QP: its event fd leaves the channel's epoll set
		 * now.  Closing the fd removes it only once no process holds it (a fork), and
		 * a signal between the domain's last drain and that close would be reported
		 * with the freed domain as its pointer.  An SRQ's domain other QPs feed stays.
		 */
		if (!shared && cq->attr.comp_channel != NULL)
			(void)epoll_ctl(cq->attr.comp_channel->epfd, EPOLL_CTL_DEL,
					sd_fabric_ctx_get_event_fd(qp->dom->fctx), NULL);
	}
	qps_change_end(cq);
	return DOCA_SUCCESS;
}

/*
 * Progress every domain feeding the CQ (a domain another thread progresses is
 * skipped, and all of them while a QP attaches or detaches: the next poll does it).
 */
static void
cq_progress(struct doca_verbs_cq *cq)
{
	if (!qps_enter(cq))
		return;
	for (uint32_t i = 0; i < cq->n_qps; i++) {
		sd_verbs_domain_progress(cq->qps[i]->dom);
		if (sd_unlikely(cq->qps[i]->fault_rules != 0))
			sd_verbs_fault_visit(cq->qps[i]);
	}
	qps_leave(cq);
}

DOCA_EXPERIMENTAL int
doca_verbs_bridge_poll_cq(struct doca_verbs_cq *cq, int num_entries, struct ibv_wc *wc)
{
	uint32_t size, n = 0;

	if (cq == NULL || num_entries < 0 || (wc == NULL && num_entries > 0)) {
		DOCA_LOG_ERR("doca_verbs_bridge_poll_cq: invalid argument (verbs_cq %p, num_entries %d, ibv_wc %p); "
			     "pass a CQ, "
			     "num_entries >= 0 and an array of that many ibv_wc",
			     (void *)cq, num_entries, (void *)wc);
		return -EINVAL;
	}
	size = cq->attr.cq_size;
	if (__atomic_load_n(&cq->pi, __ATOMIC_RELAXED) - __atomic_load_n(&cq->ci, __ATOMIC_RELAXED) <
	    (uint32_t)num_entries)
		cq_progress(cq);
	/*
	 * Nothing to return (most calls of a spinning poller): no lock.  An entry pushed after this
	 * load is the next call's, as if this call had come a moment earlier.
	 */
	if (__atomic_load_n(&cq->pi, __ATOMIC_ACQUIRE) == __atomic_load_n(&cq->ci, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&cq->lock);
	if (cq->pi - cq->ci > size)
		__atomic_store_n(&cq->ci, cq->pi - size, __ATOMIC_RELAXED); /* overwritten (cq_overrun): unseen */
	while (n < (uint32_t)num_entries && cq->ci != cq->pi) {
		wc[n++] = cq->ring[cq->ci % size];
		__atomic_store_n(&cq->ci, cq->ci + 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&cq->lock);
	return (int)n;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_bridge_get_current_cq_ci(struct doca_verbs_cq *cq)
{
	uint32_t ci;

	if (cq == NULL)
		return 0;
	pthread_mutex_lock(&cq->lock);
	ci = cq->ci;
	pthread_mutex_unlock(&cq->lock);
	return ci;
}
