/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge between DOCA Verbs objects and rdma-core's: contexts and PDs
 * imported from (or handed out as) ibv_context / ibv_pd, QP attributes given as
 * struct ibv_qp_attr, and the host datapath: post work requests and poll
 * completions with rdma-core's own structs (ibv_send_wr, ibv_recv_wr, ibv_wc).
 *
 * softdoca's ibv_context / ibv_pd are software objects (docs/verbs.md): memory
 * is registered on them with rdma-core's ibv_reg_mr(), which softdoca's
 * libibverbs.pc routes to the soft device while other devices keep working
 * through the real libibverbs.  The post calls return 0 or an errno value and
 * leave *bad_wr NULL on success; on failure *bad_wr names the first work
 * request not posted.  Every function is experimental.
 */
#ifndef DOCA_VERBS_BRIDGE_H_
#define DOCA_VERBS_BRIDGE_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_qp_attr;
struct ibv_context;
struct ibv_device;
struct ibv_pd;
struct ibv_recv_wr;
struct ibv_wc;
struct ibv_send_wr;

/* A Verbs context on an rdma-core device (softdoca: a device softdoca created). */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_bridge_verbs_context_create(struct ibv_device *ibv_dev, uint32_t flags,
								      struct doca_verbs_context **verbs_context);
/* A Verbs context over an ibv_context (e.g. pd->context of doca_rdma_bridge_get_dev_pd()). */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_bridge_verbs_context_import(struct ibv_context *ibv_ctx, uint32_t flags,
								      struct doca_verbs_context **verbs_context);
DOCA_EXPERIMENTAL doca_error_t doca_verbs_bridge_verbs_query_device(struct ibv_context *ibv_ctx,
								    struct doca_verbs_device_attr **verbs_device_attr);
/* A Verbs PD over an ibv_pd; memory registered on that ibv_pd serves the PD's QPs. */
DOCA_EXPERIMENTAL doca_error_t doca_verbs_bridge_verbs_pd_import(struct ibv_pd *pd, struct doca_verbs_pd **verbs_pd);
DOCA_EXPERIMENTAL struct ibv_pd *doca_verbs_bridge_verbs_pd_get_ibv_pd(const struct doca_verbs_pd *verbs_pd);
DOCA_EXPERIMENTAL struct ibv_context *doca_verbs_bridge_get_ibv_ctx(struct doca_verbs_context *verbs_context);

DOCA_EXPERIMENTAL doca_error_t doca_verbs_bridge_qp_attr_set(struct doca_verbs_qp_attr *verbs_qp_attr,
							     const struct ibv_qp_attr *ibv_qp_attr, int attr_mask);
DOCA_EXPERIMENTAL doca_error_t doca_verbs_bridge_qp_attr_get(const struct doca_verbs_qp_attr *verbs_qp_attr,
							     struct ibv_qp_attr *ibv_qp_attr);
/* The DOCA_VERBS_QP_ATTR_* mask for an IBV_QP_* mask. */
DOCA_EXPERIMENTAL int doca_verbs_bridge_get_qp_attr_mask(int ibv_qp_attr_mask);

/* Up to num_entries completions into ibv_wc: the number filled, or a negative value on error. */
DOCA_EXPERIMENTAL int doca_verbs_bridge_poll_cq(struct doca_verbs_cq *verbs_cq, int num_entries, struct ibv_wc *ibv_wc);
DOCA_EXPERIMENTAL int doca_verbs_bridge_post_recv(struct doca_verbs_qp *verbs_qp, struct ibv_recv_wr *wr,
						  struct ibv_recv_wr **bad_wr);
DOCA_EXPERIMENTAL int doca_verbs_bridge_post_send(struct doca_verbs_qp *verbs_qp, struct ibv_send_wr *wr,
						  struct ibv_send_wr **bad_wr);
DOCA_EXPERIMENTAL int doca_verbs_bridge_post_srq_recv(struct doca_verbs_srq *verbs_srq, struct ibv_recv_wr *wr,
						      struct ibv_recv_wr **bad_wr);
/* How many completions of the CQ were polled so far (the consumer index). */
DOCA_EXPERIMENTAL uint32_t doca_verbs_bridge_get_current_cq_ci(struct doca_verbs_cq *verbs_cq);
/*
 * Fill wr as a "wait for the CQ" work request: posted on a QP, it holds every
 * later request of that QP until verbs_cq has produced wait_pi completions;
 * its own completion has opcode IBV_WC_DRIVER1.  Returns 0 or an errno value.
 */
DOCA_EXPERIMENTAL int doca_verbs_bridge_set_wait_cq_pi_wr(struct doca_verbs_cq *verbs_cq, uint32_t wait_pi,
							  struct ibv_send_wr *wr);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERBS_BRIDGE_H_ */
