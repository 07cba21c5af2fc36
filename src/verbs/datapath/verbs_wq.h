/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Verbs datapath: work queues on the soft NIC's queue pairs.
 *
 * A QP owns one fabric_ep (src/fabric) in a completion domain: its own
 * fabric_ctx, or its SRQ's, whose posted receives are the SRQ's.  A work
 * request becomes one work queue entry holding a fabric_op; the fabric
 * completes the op from sd_fabric_ctx_progress(), which poll_cq runs for the
 * QPs of the CQ it polls.  The entry then retires in post order: a
 * completion is written to the CQ (signaled, or any error), and a failed
 * entry moves the QP to ERR, which flushes everything behind it with
 * IBV_WC_WR_FLUSH_ERR.  A wait-CQ entry holds the entries behind it
 * (not handed to the fabric) until its CQ has produced the wanted number of
 * completions; the thread that produces that completion releases them.
 *
 * Locks: qp->lock (its queues and state) before cq->lock (the ring); never
 * two QP locks at once.  A domain's progress is owned by one thread at a time
 * through an atomic flag (domain->progressing, held only around a progress
 * call: a poller that finds it taken skips the domain, a drain yields until
 * it is free).
 */
#ifndef SD_VERBS_WQ_H_
#define SD_VERBS_WQ_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "../../fabric/fabric.h"
#include "../../util/sd_util.h"

struct doca_verbs_qp;
struct doca_verbs_cq;
struct doca_verbs_srq;

/* A fabric completion domain: one QP's, or an SRQ's shared by its QPs. */
struct sd_verbs_domain {
	struct fabric_ctx *fctx;
	bool progressing; /* atomic: a thread runs the domain's progress (others skip it) */
};

/* Progress the domain unless another thread does now (no lock: an exchange on the flag). */
static inline void
sd_verbs_domain_progress(struct sd_verbs_domain *dom)
{
	if (__atomic_load_n(&dom->progressing, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&dom->progressing, true, __ATOMIC_ACQUIRE))
		return;
	sd_fabric_ctx_progress(dom->fctx);
	__atomic_store_n(&dom->progressing, false, __ATOMIC_RELEASE);
}

enum sd_verbs_swqe_kind {
	SD_SWQE_FABRIC, /* an operation on the fabric */
	SD_SWQE_WAIT,	/* hold what follows until wait_cq produced wait_pi completions */
	SD_SWQE_LOCAL,	/* failed before reaching the fabric (status set at post) */
};

/* Where a read, an atomic or a multi-SGE receive lands: scattered on completion. */
struct sd_verbs_scatter {
	struct ibv_sge *sg; /* sg1, or an array of num_sge */
	struct ibv_sge sg1;
	uint32_t num_sge;
	void *bounce; /* gathered / landing bytes; NULL: straight into sg1 */
};

struct sd_verbs_swqe {
	struct fabric_op op;
	struct fabric_rmr rmr;
	struct doca_verbs_qp *qp;
	uint64_t wr_id;
	uint32_t byte_len;
	enum ibv_wc_opcode wc_opcode;
	enum sd_verbs_swqe_kind kind;
	enum fabric_op_type ftype;
	bool signaled, done;
	enum ibv_wc_status status;
	/* the request, kept until it is handed to the fabric */
	const void *buf;
	size_t len;
	uint64_t raddr;
	uint32_t imm;
	uint64_t operand[2];
	uint64_t atomic_old;
	struct sd_verbs_scatter sc;
	struct doca_verbs_cq *wait_cq;
	uint32_t wait_pi;
	uint64_t due_ns; /* SOFTDOCA_FAULTS delay: retired from then on (0: not held) */
};

struct sd_verbs_rwqe {
	struct fabric_op op;
	struct doca_verbs_qp *qp;   /* NULL on an SRQ */
	struct doca_verbs_srq *srq; /* NULL on a QP's own queue */
	struct sd_list free_link;   /* SRQ pool */
	uint64_t wr_id;
	bool done;
	struct sd_verbs_scatter sc;
	enum ibv_wc_status inj; /* SOFTDOCA_FAULTS: the status injected (IBV_WC_SUCCESS: none) */
	uint64_t due_ns;	/* SOFTDOCA_FAULTS delay (0: not held) */
};

/*
 * The last MR a queue's lkey check found (sd_verbs_mr_check_local, under the
 * QP's lock): valid while no MR was deregistered since (gen, the registry's
 * deregistration count), so a queue posting from one MR looks it up once.
 */
struct sd_verbs_mr_memo {
	uint64_t gen; /* 0: empty */
	uint64_t base, length;
	uint32_t lkey;
	bool local_write;
};

/* The send queue: entries [head, issue) are on the fabric or done, [issue, tail) wait behind a WAIT. */
struct sd_verbs_sq {
	struct sd_verbs_swqe *ring;
	uint32_t size;
	uint32_t head, issue, tail; /* free-running */
	bool waiting;		    /* on wait_cq's waiter list */
	struct sd_list wait_link;
	struct sd_verbs_mr_memo memo;
};

/* A QP's own receive queue: completions retire in post order. */
struct sd_verbs_rq {
	struct sd_verbs_rwqe *ring;
	uint32_t size;
	uint32_t head, tail;
	struct sd_verbs_mr_memo memo;
};

/* ---- verbs_wq.c ---- */

/* A domain's fabric_ctx, receiving at most max_unexpected messages before receives are posted. */
doca_error_t sd_verbs_domain_init(struct sd_verbs_domain *dom, struct fabric_dev *fdev, uint32_t max_unexpected);
/* Run the domain's completions now (waits for another progressing thread). */
void sd_verbs_domain_drain(struct sd_verbs_domain *dom);
void sd_verbs_domain_fini(struct sd_verbs_domain *dom);

/* Work queues of a new QP (sizes from its init attributes); its domain (own or the SRQ's). */
doca_error_t sd_verbs_wq_init(struct doca_verbs_qp *qp);
void sd_verbs_wq_fini(struct doca_verbs_qp *qp);
/* The QP's soft NIC queue pair, in the QP's PD's protection domain. */
doca_error_t sd_verbs_qp_ep_create(struct doca_verbs_qp *qp);
/* Hand an entry to the fabric (or retire it), then issue what a WAIT no longer holds. qp->lock held. */
void sd_verbs_sq_issue(struct doca_verbs_qp *qp);
/* Retire done entries in order; CQs that received a completion are added to kick[] (qp->lock held). */
void sd_verbs_wq_retire(struct doca_verbs_qp *qp, struct doca_verbs_cq *kick[2]);
/* The QP enters ERR (qp->lock held): the fabric ep aborts, receives and held entries flush. */
void sd_verbs_qp_fail(struct doca_verbs_qp *qp, const char *why);
/* Release the QPs waiting on cq's producer index (no lock held). */
void sd_verbs_cq_kick(struct doca_verbs_cq *cq);
/* Status of a fabric completion as an ibv_wc status. */
enum ibv_wc_status sd_verbs_wc_status(doca_error_t err, bool recv);
/* Post-time errors that complete an entry without the fabric (ERR state, bad lkey). */
void sd_verbs_swqe_local(struct sd_verbs_swqe *w, enum ibv_wc_status status);
void sd_verbs_swqe_cb(struct fabric_op *op);
void sd_verbs_rwqe_cb(struct fabric_op *op);
void sd_verbs_scatter_free(struct sd_verbs_scatter *sc);

/* ---- verbs_fault.c: SOFTDOCA_FAULTS, called only for a QP with fault_rules ---- */

/* A post (opcode: the ibv_wr_opcode, -1 for a receive): true when a rule refuses it as a full queue would. */
bool sd_verbs_fault_post(struct doca_verbs_qp *qp, int opcode, uint64_t wr_id);
/* The soft NIC completed the entry (qp->lock held): an injected status, or a delay (due_ns). */
void sd_verbs_fault_swqe(struct doca_verbs_qp *qp, struct sd_verbs_swqe *w);
void sd_verbs_fault_rwqe(struct doca_verbs_qp *qp, struct sd_verbs_rwqe *w);
/* A delayed entry still waits (else *due_ns is cleared). */
bool sd_verbs_fault_held(uint64_t *due_ns);
/* Post and poll (no lock held): the QP's device down or peer vanished; release due delayed entries. */
void sd_verbs_fault_visit(struct doca_verbs_qp *qp);

/* ---- verbs_cq.c ---- */

/* Take qp off cq's waiter list (qp->lock held, cq->lock taken inside). */
void sd_verbs_cq_unwait(struct doca_verbs_cq *cq, struct doca_verbs_qp *qp);
/* Write one completion into cq (cq->lock taken inside); false on overrun (CQ error raised). */
bool sd_verbs_cq_push(struct doca_verbs_cq *cq, const struct ibv_wc *wc);
/* Has cq produced at least pi completions?  If not and qp is given, qp waits on cq (cq->lock inside). */
bool sd_verbs_cq_reached(struct doca_verbs_cq *cq, uint32_t pi, struct doca_verbs_qp *qp);
/* Attach (NO_MEMORY when the CQ's list cannot grow) or detach (always SUCCESS) a QP feeding cq. */
doca_error_t sd_verbs_cq_attach(struct doca_verbs_cq *cq, struct doca_verbs_qp *qp, bool attach);
struct doca_verbs_comp_channel;
/* Progress the domains the channel's handle reported ready (doca_verbs_get_cq_event). */
void sd_verbs_channel_progress(struct doca_verbs_comp_channel *ch);

#endif /* SD_VERBS_WQ_H_ */
