/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf verbs, the Verbs objects of one side: a context on the device, a
 * PD, one CQ for both queues, one RC QP taken INIT -> RTR -> RTS as DOCA's
 * samples do, the memory registered with rdma-core's ibv_reg_mr() on the PD's
 * ibv_pd; and the posting and polling the run does through the bridge.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <doca_dev.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>

#include "perf_verbs.h"

#define DEFAULT_DEV "mlx5_0"
#define CQ_SIZE 4096

/* Exit 1 with what went wrong, naming this side. */
void
perf_verbs_die(const struct perf_verbs *v, const char *what)
{
	fprintf(stderr, "doca_perf: %s: %s\n", v->server ? "server" : "client", what);
	exit(1);
}

/* A Verbs context on the device named by IB name or PCI address (as perf_open_dev). */
static void
open_context(struct perf_verbs *v, const char *name)
{
	struct doca_devinfo **list;
	const char *want = name != NULL ? name : DEFAULT_DEV;
	uint32_t n;

	PERF_TRY(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && v->ctx == NULL; i++)
		if (perf_devinfo_matches(list[i], want))
			PERF_TRY(doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &v->ctx));
	doca_devinfo_destroy_list(list);
	if (v->ctx == NULL) {
		fprintf(stderr, "doca_perf: no device '%s' (doca_caps --list-devs shows them)\n", want);
		exit(PERF_EXIT_USAGE);
	}
}

static void
create_cq_qp(struct perf_verbs *v)
{
	struct doca_verbs_cq_attr *ca;
	struct doca_verbs_qp_init_attr *qa;

	PERF_TRY(doca_verbs_pd_create(v->ctx, &v->pd));
	PERF_TRY(doca_verbs_cq_attr_create(&ca));
	PERF_TRY(doca_verbs_cq_attr_set_cq_size(ca, CQ_SIZE));
	PERF_TRY(doca_verbs_cq_attr_set_external_datapath_en(ca, 0));
	PERF_TRY(doca_verbs_cq_attr_set_entry_size(ca, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	PERF_TRY(doca_verbs_cq_create(v->ctx, ca, &v->cq));
	PERF_TRY(doca_verbs_cq_attr_destroy(ca));

	PERF_TRY(doca_verbs_qp_init_attr_create(&qa));
	PERF_TRY(doca_verbs_qp_init_attr_set_pd(qa, v->pd));
	PERF_TRY(doca_verbs_qp_init_attr_set_sq_wr(qa, v->depth + PERF_VERBS_LAT_SIGNAL + 8));
	PERF_TRY(doca_verbs_qp_init_attr_set_rq_wr(qa, PERF_VERBS_NRECV + 8));
	PERF_TRY(doca_verbs_qp_init_attr_set_qp_type(qa, DOCA_VERBS_QP_TYPE_RC));
	PERF_TRY(doca_verbs_qp_init_attr_set_send_cq(qa, v->cq));
	PERF_TRY(doca_verbs_qp_init_attr_set_receive_cq(qa, v->cq));
	PERF_TRY(doca_verbs_qp_init_attr_set_external_datapath_en(qa, 0));
	PERF_TRY(doca_verbs_qp_init_attr_set_send_max_sges(qa, 1));
	PERF_TRY(doca_verbs_qp_init_attr_set_receive_max_sges(qa, 1));
	PERF_TRY(doca_verbs_qp_create(v->ctx, qa, &v->qp));
	PERF_TRY(doca_verbs_qp_init_attr_destroy(qa));
	v->local.qpn = doca_verbs_qp_get_qpn(v->qp);
}

/* GID and LID of port 1, the address type its link layer implies, and the AH attributes. */
static void
query_port(struct perf_verbs *v)
{
	struct ibv_context *ic = doca_verbs_bridge_get_ibv_ctx(v->ctx);
	struct ibv_port_attr pa;
	union ibv_gid gid;

	if (ic == NULL)
		perf_verbs_die(v, "doca_verbs_bridge_get_ibv_ctx gave no ibv_context");
	if (ibv_query_gid(ic, 1, 0, &gid) != 0 || ibv_query_port(ic, 1, &pa) != 0)
		perf_verbs_die(v, "cannot query GID 0 / port 1 of the device");
	memcpy(v->local.gid, gid.raw, sizeof(v->local.gid));
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		v->addr_type = DOCA_VERBS_ADDR_TYPE_IPv4;
	} else {
		v->addr_type = DOCA_VERBS_ADDR_TYPE_IB_NO_GRH;
		v->local.lid = pa.lid;
	}
	PERF_TRY(doca_verbs_ah_attr_create(v->ctx, &v->ah));
	PERF_TRY(doca_verbs_ah_attr_set_addr_type(v->ah, v->addr_type));
	PERF_TRY(doca_verbs_ah_attr_set_sgid_index(v->ah, 0));
	if (v->addr_type == DOCA_VERBS_ADDR_TYPE_IPv4)
		PERF_TRY(doca_verbs_ah_attr_set_hop_limit(v->ah, 255));
}

static void
register_memory(struct perf_verbs *v)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_pd *ipd = doca_verbs_bridge_verbs_pd_get_ibv_pd(v->pd);

	v->rslot = v->op == PERF_VERBS_SEND && v->max_size > PERF_VERBS_CTL_SZ ? v->max_size : PERF_VERBS_CTL_SZ;
	v->mem_len = v->area + PERF_VERBS_NRECV * v->rslot + v->rslot;
	v->mem = perf_mem_alloc(v->o, v->mem_len);
	if (v->mem == NULL)
		perf_verbs_die(v, "out of memory for the buffers");
	memset(v->mem, 0, v->mem_len);
	if (ipd == NULL || (v->mr = ibv_reg_mr(ipd, v->mem, v->mem_len, access)) == NULL)
		perf_verbs_die(v, "ibv_reg_mr on the PD's ibv_pd failed");
	v->local.va = (uint64_t)(uintptr_t)v->mem;
	v->local.len = v->area;
	v->local.rkey = v->mr->rkey;
	/* The side the data comes from holds the pattern (write: client, read: server). */
	if ((v->op == PERF_VERBS_WRITE && !v->server) || (v->op == PERF_VERBS_READ && v->server))
		perf_verbs_pattern_fill(v->mem, v->area, v->local.seed);
}

uint8_t *
perf_verbs_rslot(const struct perf_verbs *v, uint32_t i)
{
	return v->mem + v->area + (size_t)i * v->rslot;
}

uint8_t *
perf_verbs_send_slot(const struct perf_verbs *v)
{
	return v->mem + v->area + (size_t)PERF_VERBS_NRECV * v->rslot;
}

/* ---- the QP -------------------------------------------------------------------------------- */

static void
qp_modify(struct perf_verbs *v, struct doca_verbs_qp_attr *a, enum doca_verbs_qp_state st, int mask)
{
	PERF_TRY(doca_verbs_qp_attr_set_next_state(a, st));
	PERF_TRY(doca_verbs_qp_modify(v->qp, a, mask | DOCA_VERBS_QP_ATTR_NEXT_STATE));
}

void
perf_verbs_connect_qp(struct perf_verbs *v)
{
	struct doca_verbs_qp_attr *a;
	struct doca_verbs_gid gid;

	if (v->addr_type == DOCA_VERBS_ADDR_TYPE_IPv4) {
		memcpy(gid.raw, v->remote.gid, sizeof(gid.raw));
		PERF_TRY(doca_verbs_ah_attr_set_gid(v->ah, gid));
	} else {
		PERF_TRY(doca_verbs_ah_attr_set_dlid(v->ah, v->remote.lid));
	}
	PERF_TRY(doca_verbs_qp_attr_create(&a));
	PERF_TRY(doca_verbs_qp_attr_set_allow_remote_write(a, 1));
	PERF_TRY(doca_verbs_qp_attr_set_allow_remote_read(a, 1));
	PERF_TRY(doca_verbs_qp_attr_set_port_num(a, 1));
	qp_modify(v, a, DOCA_VERBS_QP_STATE_INIT,
		  DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ |
			  DOCA_VERBS_QP_ATTR_PKEY_INDEX | DOCA_VERBS_QP_ATTR_PORT_NUM);
	PERF_TRY(doca_verbs_qp_attr_set_rq_psn(a, 0));
	PERF_TRY(doca_verbs_qp_attr_set_dest_qp_num(a, v->remote.qpn));
	PERF_TRY(doca_verbs_qp_attr_set_min_rnr_timer(a, 1));
	PERF_TRY(doca_verbs_qp_attr_set_path_mtu(a, DOCA_MTU_SIZE_1K_BYTES));
	PERF_TRY(doca_verbs_qp_attr_set_ah_attr(a, v->ah));
	qp_modify(v, a, DOCA_VERBS_QP_STATE_RTR,
		  DOCA_VERBS_QP_ATTR_RQ_PSN | DOCA_VERBS_QP_ATTR_DEST_QP_NUM | DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER |
			  DOCA_VERBS_QP_ATTR_PATH_MTU | DOCA_VERBS_QP_ATTR_AH_ATTR);
	PERF_TRY(doca_verbs_qp_attr_set_sq_psn(a, 0));
	PERF_TRY(doca_verbs_qp_attr_set_ack_timeout(a, 14));
	PERF_TRY(doca_verbs_qp_attr_set_retry_cnt(a, 7));
	PERF_TRY(doca_verbs_qp_attr_set_rnr_retry(a, 7));
	qp_modify(v, a, DOCA_VERBS_QP_STATE_RTS,
		  DOCA_VERBS_QP_ATTR_SQ_PSN | DOCA_VERBS_QP_ATTR_ACK_TIMEOUT | DOCA_VERBS_QP_ATTR_RETRY_CNT |
			  DOCA_VERBS_QP_ATTR_RNR_RETRY);
	PERF_TRY(doca_verbs_qp_attr_destroy(a));
}

/*
 * A single post found the queue full: count it and try again, up to a bound
 * (the queues are sized for what doca_perf keeps posted, so only an injected
 * AGAIN storm gets here, and the odds of 1000 in a row are nil).
 */
static bool
full_queue_retry(struct perf_verbs *v, uint32_t tries)
{
	v->again++;
	return tries < 1000;
}

void
perf_verbs_post_recv_slot(struct perf_verbs *v, uint32_t i)
{
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)perf_verbs_rslot(v, i), .length = (uint32_t)v->rslot, .lkey = v->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &sge, .num_sge = 1}, *bad = NULL;
	int ret;

	/* A full queue (ENOMEM) took nothing: post it again, counted (the queue has room for every slot) */
	for (uint32_t tries = 0; (ret = doca_verbs_bridge_post_recv(v->qp, &wr, &bad)) == ENOMEM; tries++)
		if (!full_queue_retry(v, tries))
			break;
	if (ret != 0)
		perf_verbs_die(v, strerror(ret));
}

/* One SEND (with an immediate when imm != 0) of len bytes at buf. */
void
perf_verbs_post_send(struct perf_verbs *v, const uint8_t *buf, uint32_t len, uint32_t imm, bool signaled, uint64_t id)
{
	struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)buf, .length = len, .lkey = v->mr->lkey};
	struct ibv_send_wr wr = {.wr_id = id,
				 .sg_list = &sge,
				 .num_sge = 1,
				 .opcode = imm != 0 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
				 .send_flags = signaled ? IBV_SEND_SIGNALED : 0,
				 .imm_data = htonl(imm)},
			   *bad = NULL;
	int ret;

	for (uint32_t tries = 0; (ret = doca_verbs_bridge_post_send(v->qp, &wr, &bad)) == ENOMEM; tries++)
		if (!full_queue_retry(v, tries))
			break;
	if (ret != 0)
		perf_verbs_die(v, strerror(ret));
}

void
perf_verbs_check_wc(const struct perf_verbs *v, const struct ibv_wc *wc)
{
	char msg[160];

	if (wc->status == IBV_WC_SUCCESS)
		return;
	snprintf(msg, sizeof(msg), "a work request (id %llu) completed with %s: lost the %s?",
		 (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status), v->server ? "client" : "server");
	perf_verbs_die(v, msg);
}

/*
 * Poll until a receive completes (send completions are consumed); its wc into *out.
 * polite: sched_yield() after every 1024 empty polls (a one-sided target that only
 * waits for DONE leaves the core to a requester sharing it; the poll still progresses).
 */
void
perf_verbs_wait_recv(struct perf_verbs *v, struct ibv_wc *out, double timeout, bool polite)
{
	double t0 = timeout > 0 ? perf_now() : 0;
	struct ibv_wc wc[8];
	uint64_t spins = 0;

	for (;;) {
		int n = doca_verbs_bridge_poll_cq(v->cq, 8, wc);

		if (n < 0)
			perf_verbs_die(v, "doca_verbs_bridge_poll_cq failed");
		for (int i = 0; i < n; i++) {
			perf_verbs_check_wc(v, &wc[i]);
			if (wc[i].opcode == IBV_WC_RECV) {
				*out = wc[i];
				/* Later completions in this batch are send completions only: nothing waits on them. */
				return;
			}
		}
		if (n != 0 || ++spins % 1024 != 0)
			continue;
		if (polite)
			sched_yield();
		if (timeout > 0 && spins % 4096 == 0 && perf_now() - t0 > timeout)
			perf_verbs_die(v, "no answer from the peer in time");
	}
}

void
perf_verbs_close(struct perf_verbs *v)
{
	if (v->mr != NULL)
		ibv_dereg_mr(v->mr);
	if (v->qp != NULL)
		doca_verbs_qp_destroy(v->qp);
	if (v->ah != NULL)
		doca_verbs_ah_attr_destroy(v->ah);
	if (v->cq != NULL)
		doca_verbs_cq_destroy(v->cq);
	if (v->pd != NULL)
		doca_verbs_pd_destroy(v->pd);
	if (v->ctx != NULL)
		doca_verbs_context_destroy(v->ctx);
	perf_mem_free(v->o, v->mem);
}

void
perf_verbs_open(struct perf_verbs *v)
{
	open_context(v, v->o->ibdev);
	create_cq_qp(v);
	query_port(v);
	register_memory(v);
}
