/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_verbs internals: the objects behind doca_verbs.h and the helpers the
 * per-object files share; the datapath's queues are in verbs_wq.h.
 *
 * Ownership: a context counts the objects made on it (PDs, CQs, QPs, SRQs, AH
 * attributes, completion channels) and refuses to go while any remains; a PD
 * counts the QPs and SRQs on it, a CQ the QPs using it, an SRQ its QPs, a
 * channel its CQs.  Counters change under the context's lock, so objects of one
 * context may be created and destroyed from several threads.
 */
#ifndef SD_VERBS_INTERNAL_H_
#define SD_VERBS_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_verbs.h>

#include "../core/sd_core.h"
#include "../fabric/fabric.h"
#include "../util/sd_util.h"
#include "datapath/verbs_wq.h"

/* Software limits (doca_verbs_query_device reports them; docs/verbs.md). */
#define SD_VERBS_MAX_QP 65536u
#define SD_VERBS_MAX_CQ 65536u
#define SD_VERBS_MAX_CQE 65536u
#define SD_VERBS_MAX_MR 1048576u
#define SD_VERBS_MAX_PD 65536u
#define SD_VERBS_MAX_AH 65536u
#define SD_VERBS_MAX_SRQ 65536u
#define SD_VERBS_MAX_PKEYS 1u
#define SD_VERBS_MAX_RD_ATOM 16u
#define SD_VERBS_MAX_INLINE_DATA 1024u
#define SD_VERBS_CLOCK_HZ 1000000000u /* the free-running clock counts nanoseconds */
#define SD_VERBS_PORT 1u
#define SD_VERBS_NUM_MASK 0xffffffu /* QPN, PSN: 24 bits */

struct sd_verbs_async_node {
	struct sd_list link;
	struct doca_verbs_async_event event;
};

struct doca_verbs_context {
	struct doca_devinfo *devinfo; /* lives as long as the process (dev_internal.h) */
	struct fabric_dev *fdev;      /* the soft NIC of devinfo's netdev (src/fabric) */
	pthread_mutex_t lock;	      /* counters below, the async queue */
	uint32_t num_pds, num_cqs, num_qps, num_srqs, num_ahs, num_channels;
	int async_fd;		     /* eventfd: readable while async_events is not empty */
	struct sd_list async_events; /* struct sd_verbs_async_node */
	uint32_t async_unacked;	     /* events handed out, not yet acknowledged */
	bool bridged;		     /* the device's shared bridge context (verbs_ibv.h): refcounted, see destroy */
};

struct ibv_pd;

/*
 * A PD is backed by a soft rdma-core ibv_pd (verbs_ibv.h), where programs
 * register memory with ibv_reg_mr: its own (doca_verbs_pd_create), or one it
 * imports (doca_verbs_bridge_verbs_pd_import; bridged: ctx is the device's
 * shared bridge context, one reference held).
 */
struct doca_verbs_pd {
	struct doca_verbs_context *ctx;
	uint32_t users; /* QPs and SRQs (ctx->lock) */
	struct ibv_pd *ibv_pd;
	bool imported, bridged;
};

struct doca_verbs_ah_attr {
	struct doca_verbs_context *ctx; /* NULL for the copy a QP keeps */
	struct doca_verbs_gid gid;
	enum doca_verbs_addr_type addr_type;
	uint32_t dlid;
	uint8_t sl, sgid_index, static_rate, hop_limit, traffic_class;
};

struct doca_verbs_cq_attr {
	enum doca_verbs_cq_entry_size entry_size;
	uint32_t cq_size;
	uint8_t cq_overrun;
	struct doca_verbs_comp_channel *comp_channel;
	void *cq_context;
	struct doca_umem *umem;
	uint64_t umem_offset;
	struct doca_uar *uar;
	uint32_t dpa_thread_id;
	uint8_t external_datapath_en;
};

struct doca_verbs_comp_channel {
	struct doca_verbs_context *ctx;
	int fd;		       /* eventfd: readable while events is not empty */
	int epfd;	       /* the handle: fd, plus the soft NIC domains of armed CQs (verbs_cq.c) */
	struct sd_list events; /* CQs with an event queued (cq->event_link), under ctx->lock */
	uint32_t users;	       /* CQs (ctx->lock) */
};

struct doca_verbs_cq {
	struct doca_verbs_context *ctx;
	struct doca_verbs_cq_attr attr; /* as created */
	uint32_t cqn;
	uint32_t users; /* QPs (ctx->lock) */
	/* Notification (ctx->lock): armed by doca_verbs_req_notify_cq, one event per arm. */
	bool armed, solicited_only, event_queued;
	struct sd_list event_link;
	uint64_t events_delivered, events_acked;
	/* Datapath (verbs_cq.c): the ring under lock; pi - ci entries wait for poll_cq. */
	pthread_mutex_t lock;
	struct ibv_wc *ring;
	uint32_t pi, ci;
	bool overrun;
	struct sd_list waiters; /* QPs whose WAIT entry waits for pi (sq.wait_link) */
	uint32_t n_waiters;	/* their number: changed under lock, read by a kick without it (atomic) */
	/*
	 * QPs whose domains poll_cq progresses: changed under qps_lock with
	 * qps_changing raised, once no poller is inside (qps_readers, verbs_cq.c).
	 */
	pthread_mutex_t qps_lock;
	bool qps_changing;    /* atomic */
	uint32_t qps_readers; /* atomic */
	struct doca_verbs_qp **qps;
	uint32_t n_qps, cap_qps;
};

struct doca_verbs_srq_init_attr {
	uint32_t srq_wr, receive_max_sges;
	enum doca_verbs_srq_type type;
	struct doca_verbs_pd *pd;
	uint8_t external_datapath_en;
	struct doca_umem *umem, *dbr_umem;
	uint64_t umem_offset, dbr_umem_offset;
	struct doca_dpa *dpa;
};

struct doca_verbs_srq {
	struct doca_verbs_context *ctx;
	struct doca_verbs_srq_init_attr attr;
	uint32_t srqn;
	uint32_t users; /* QPs (ctx->lock) */
	/* Datapath: the receives the SRQ's QPs share (verbs_wq.c) */
	struct sd_verbs_domain dom;
	pthread_mutex_t lock; /* the pool */
	struct sd_verbs_rwqe *pool;
	struct sd_list free_rwqes;
};

struct doca_verbs_qp_init_attr {
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *send_cq, *receive_cq;
	struct doca_verbs_srq *srq;
	int sq_sig_all;
	uint32_t sq_wr, rq_wr, send_max_sges, receive_max_sges, max_inline_data, user_index, qp_type;
	struct doca_umem *umem, *dbr_umem;
	uint64_t umem_offset, dbr_umem_offset;
	struct doca_uar *uar;
	uint8_t core_direct_master, external_datapath_en;
	void *qp_context;
	struct doca_dpa *dpa;
	struct doca_dpa_completion *send_dpa_comp, *receive_dpa_comp;
	uint32_t dbr_umem_id, wq_umem_id, uar_id, pdn;
	uint64_t dbr_umem_id_offset, wq_umem_offset;
	enum doca_verbs_qp_scatter_to_cqe cqe_inline;
	enum doca_verbs_qp_send_dbr_mode send_dbr_mode;
};

struct doca_verbs_qp_attr {
	enum doca_verbs_qp_state next_state, current_state;
	enum doca_mtu_size path_mtu;
	uint32_t rq_psn, sq_psn, dest_qp_num;
	int allow_remote_write, allow_remote_read;
	enum doca_verbs_qp_atomic_mode atomic_mode;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	struct doca_verbs_ah_attr *ah_attr;
	uint16_t pkey_index, port_num, ack_timeout, retry_cnt, rnr_retry, min_rnr_timer;
	struct doca_verbs_cc_group *cc_group;
};

/*
 * A queue pair.  attr holds the current attributes (defaults until a modify
 * sets them), attr.ah_attr points at ah, the QP's own copy of the address
 * given at INIT -> RTR.  The remote GID (ah.gid) and QPN (attr.dest_qp_num)
 * reach the peer's fabric queue pair through the address service
 * (src/fabric/fabric_addr.c): the QP's ep connects at INIT -> RTR (verbs_qp.c).
 */
struct doca_verbs_qp {
	struct doca_verbs_context *ctx;
	struct doca_verbs_qp_init_attr init; /* as created */
	uint32_t qpn;
	enum doca_verbs_qp_state state;
	struct doca_verbs_qp_attr attr;
	struct doca_verbs_ah_attr ah;
	int valid_mask; /* attributes valid in the current state (doca_verbs_qp_query) */
	/* Datapath (verbs_wq.h): state and queues change under lock */
	pthread_mutex_t lock;
	struct sd_verbs_domain own; /* the QP's domain when it has no SRQ */
	struct sd_verbs_domain *dom;
	struct fabric_ep *ep;
	struct doca_verbs_cq *recv_cq; /* receive completions: the receive CQ, else (SRQ only) the send CQ */
	struct sd_verbs_sq sq;
	struct sd_verbs_rq rq;
	bool reachable;	     /* the peer was resolved and the ep connected */
	bool destroying;     /* doca_verbs_qp_destroy() runs: no kick issues its queue any more */
	uint32_t kick_refs;  /* kicks holding the QP after taking it off a CQ's waiters (atomic) */
	const char *err_why; /* why the QP entered ERR (for the log) */
	/* SOFTDOCA_FAULTS: the rules acting on the QP, taken at create (datapath/verbs_fault.c) */
	uint32_t fault_rules;
};

/* The device's queue limits, as doca_verbs_query_device reports them. */
static inline uint32_t
sd_verbs_max_qp_wr(const struct doca_verbs_context *ctx)
{
	const struct sd_dev_caps *caps = sd_devinfo_caps(ctx->devinfo);

	return SD_MIN(caps->rdma_max_send_queue_size, caps->rdma_max_recv_queue_size);
}

static inline uint32_t
sd_verbs_max_sge(const struct doca_verbs_context *ctx)
{
	const struct sd_dev_caps *caps = sd_devinfo_caps(ctx->devinfo);

	return SD_MIN(caps->rdma_max_send_buf_list_len, caps->rdma_max_recv_buf_list_len);
}

/* A QP on the soft NIC (verbs_qp_conn.c), called by verbs_qp.c's create, destroy and modify. */
doca_error_t sd_verbs_qp_conn_create(struct doca_verbs_qp *qp);
void sd_verbs_qp_conn_destroy(struct doca_verbs_qp *qp);
void sd_verbs_qp_conn_rtr(struct doca_verbs_qp *qp);
void sd_verbs_qp_conn_rts(struct doca_verbs_qp *qp);
void sd_verbs_qp_conn_err(struct doca_verbs_qp *qp);
doca_error_t sd_verbs_qp_conn_reset(struct doca_verbs_qp *qp);

/* Context helpers (verbs_context.c). */
void sd_verbs_ctx_count(struct doca_verbs_context *ctx, uint32_t *counter, int delta);
/* Free a context nothing uses any more (destroy's last step; the bridge's last reference). */
void sd_verbs_ctx_free(struct doca_verbs_context *ctx);

/*
 * The next number for a CQ or SRQ: 24-bit, never 0, unique in the process
 * until 2^24 - 1 numbers were handed out (verbs_context.c).  QP numbers come
 * from the address service (src/fabric/fabric_addr.h): they say where the QP listens.
 */
uint32_t sd_verbs_next_num(void);

/*
 * Called by the datapath (verbs_cq.c, verbs_wq.c) and by tests: a completion
 * was written to cq (queues one channel event if the CQ is armed); an async
 * event happened on a QP or CQ of ctx.
 */
SD_EXPORT void sd_verbs_cq_completion_added(struct doca_verbs_cq *cq, bool solicited);
SD_EXPORT doca_error_t sd_verbs_async_event_post(struct doca_verbs_context *ctx, int event_type, void *element);

/*
 * Attribute accessors.  A setter refuses a NULL object (INVALID_VALUE, logged
 * under the including file's source); a getter returns 0 / NULL for one.
 */
#define SD_VERBS_NULL_OBJ(func, what)                                                                                  \
	(DOCA_LOG_ERR("%s: %s is NULL; create it first", (func), (what)), DOCA_ERROR_INVALID_VALUE)

#define SD_VERBS_SETTER(obj, name, type, field)                                                                        \
	DOCA_EXPERIMENTAL doca_error_t doca_verbs_##obj##_set_##name(struct doca_verbs_##obj *a, type v)               \
	{                                                                                                              \
		if (a == NULL)                                                                                         \
			return SD_VERBS_NULL_OBJ(__func__, #obj);                                                      \
		a->field = v;                                                                                          \
		return DOCA_SUCCESS;                                                                                   \
	}

#define SD_VERBS_GETTER(obj, name, type, field)                                                                        \
	DOCA_EXPERIMENTAL type doca_verbs_##obj##_get_##name(const struct doca_verbs_##obj *a)                         \
	{                                                                                                              \
		return a == NULL ? (type)0 : (type)a->field;                                                           \
	}

#define SD_VERBS_FIELD(obj, name, type, field)                                                                         \
	SD_VERBS_SETTER(obj, name, type, field)                                                                        \
	SD_VERBS_GETTER(obj, name, type, field)

/*
 * Drop the queued, not yet fetched async events that name element (a QP or CQ
 * being destroyed), so no event hands out a freed object.  ctx->lock held.
 */
void sd_verbs_async_forget(struct doca_verbs_context *ctx, const void *element);

/* Log a hardware-only refusal once per process per call site (the reason never changes). */
#define SD_VERBS_REFUSE_ONCE(...)                                                                                      \
	do {                                                                                                           \
		static int sd_logged_;                                                                                 \
		if (__atomic_exchange_n(&sd_logged_, 1, __ATOMIC_RELAXED) == 0)                                        \
			DOCA_LOG_ERR(__VA_ARGS__);                                                                     \
	} while (0)

#endif /* SD_VERBS_INTERNAL_H_ */
