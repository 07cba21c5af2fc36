/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues and their init attributes.  Linked-list SRQs only:
 * a contiguous SRQ is a hardware ring layout a program writes directly.
 * The SRQ is a soft NIC domain of its own whose posted receives its QPs'
 * queue pairs share (verbs_wq.c); its entries come from a pool of srq_wr.
 */
#include <stdlib.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.srq);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_create(struct doca_verbs_srq_init_attr **a)
{
	if (a == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass the address of a pointer to fill", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*a = calloc(1, sizeof(**a));
	if (*a == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_init_attr_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	(*a)->type = DOCA_VERBS_SRQ_TYPE_LINKED_LIST;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_destroy(struct doca_verbs_srq_init_attr *a)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "srq_init_attr");
	free(a);
	return DOCA_SUCCESS;
}

SD_VERBS_FIELD(srq_init_attr, srq_wr, uint32_t, srq_wr)
SD_VERBS_FIELD(srq_init_attr, receive_max_sges, uint32_t, receive_max_sges)
SD_VERBS_FIELD(srq_init_attr, pd, struct doca_verbs_pd *, pd)
SD_VERBS_FIELD(srq_init_attr, external_datapath_en, uint8_t, external_datapath_en)
SD_VERBS_FIELD(srq_init_attr, dpa, struct doca_dpa *, dpa)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_set_type(struct doca_verbs_srq_init_attr *a, enum doca_verbs_srq_type srq_type)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "srq_init_attr");
	if ((unsigned)srq_type > DOCA_VERBS_SRQ_TYPE_CONTIGUOUS) {
		DOCA_LOG_ERR("doca_verbs_srq_init_attr_set_type: unknown SRQ type %d; use "
			     "DOCA_VERBS_SRQ_TYPE_LINKED_LIST",
			     (int)srq_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->type = srq_type;
	return DOCA_SUCCESS;
}

SD_VERBS_GETTER(srq_init_attr, type, enum doca_verbs_srq_type, type)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_set_external_umem(struct doca_verbs_srq_init_attr *a, struct doca_umem *umem, uint64_t offset)
{
	/* sd:no-effect: software receive queues live in the library's memory, not in a program's umem */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "srq_init_attr");
	a->umem = umem;
	a->umem_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_get_external_umem(const struct doca_verbs_srq_init_attr *a, struct doca_umem **umem,
					   uint64_t *offset)
{
	if (a == NULL || umem == NULL || offset == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_init_attr_get_external_umem: NULL argument (srq_init_attr %p, umem %p, "
			     "offset %p); pass non-NULL pointers",
			     (const void *)a, (void *)umem, (void *)offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*umem = a->umem;
	*offset = a->umem_offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_set_external_dbr_umem(struct doca_verbs_srq_init_attr *a, struct doca_umem *umem,
					       uint64_t offset)
{
	/* sd:no-effect: software receive queues have no doorbell record */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "srq_init_attr");
	a->dbr_umem = umem;
	a->dbr_umem_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_init_attr_get_external_dbr_umem(const struct doca_verbs_srq_init_attr *a, struct doca_umem **umem,
					       uint64_t *offset)
{
	if (a == NULL || umem == NULL || offset == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_init_attr_get_external_dbr_umem: NULL argument (srq_init_attr %p, umem "
			     "%p, offset %p); pass non-NULL pointers",
			     (const void *)a, (void *)umem, (void *)offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*umem = a->dbr_umem;
	*offset = a->dbr_umem_offset;
	return DOCA_SUCCESS;
}

static doca_error_t
srq_check_attr(const struct doca_verbs_context *ctx, const struct doca_verbs_srq_init_attr *a)
{
	if (a->pd == NULL || a->pd->ctx != ctx) {
		DOCA_LOG_ERR("doca_verbs_srq_create: the PD is %s; set a PD of this context with "
			     "doca_verbs_srq_init_attr_set_pd()",
			     a->pd == NULL ? "not set" : "of another context");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (a->type != DOCA_VERBS_SRQ_TYPE_LINKED_LIST) {
		DOCA_LOG_ERR("doca_verbs_srq_create: contiguous SRQs are not supported: they are a hardware ring "
			     "layout; use DOCA_VERBS_SRQ_TYPE_LINKED_LIST");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (a->srq_wr == 0 || a->srq_wr > sd_devinfo_caps(ctx->devinfo)->rdma_max_recv_queue_size) {
		DOCA_LOG_ERR("doca_verbs_srq_create: srq_wr %u is out of range (1 .. %u, "
			     "doca_verbs_device_attr_get_max_srq_wr); use a value in that range",
			     a->srq_wr, sd_devinfo_caps(ctx->devinfo)->rdma_max_recv_queue_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (a->receive_max_sges > sd_devinfo_caps(ctx->devinfo)->rdma_max_recv_buf_list_len) {
		DOCA_LOG_ERR("doca_verbs_srq_create: receive_max_sges %u exceeds %u "
			     "(doca_verbs_device_attr_get_max_srq_sge); use at most that many",
			     a->receive_max_sges, sd_devinfo_caps(ctx->devinfo)->rdma_max_recv_buf_list_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (a->external_datapath_en != 0 || a->dpa != NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_create: an external (DPA / GPU) datapath is not supported: it needs a "
			     "hardware receive queue; leave external_datapath_en 0 and dpa unset");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_create(struct doca_verbs_context *ctx, struct doca_verbs_srq_init_attr *init_attr,
		      struct doca_verbs_srq **verbs_srq)
{
	struct doca_verbs_srq *srq;
	doca_error_t err;

	if (ctx == NULL || init_attr == NULL || verbs_srq == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_create: NULL argument (verbs_context %p, init_attr %p, verbs_srq %p); "
			     "pass non-NULL pointers",
			     (void *)ctx, (void *)init_attr, (void *)verbs_srq);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = srq_check_attr(ctx, init_attr);
	if (err != DOCA_SUCCESS)
		return err;
	srq = sd_fault_create("verbs", "doca_verbs_srq_create") ? NULL : calloc(1, sizeof(*srq));
	if (srq == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	srq->pool = calloc(init_attr->srq_wr, sizeof(*srq->pool));
	/* messages for the SRQ's QPs wait here when it is empty: room for every QP's send queue */
	err = srq->pool == NULL ? DOCA_ERROR_NO_MEMORY : sd_verbs_domain_init(&srq->dom, ctx->fdev, SD_VERBS_MAX_CQE);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_verbs_srq_create: cannot set up the SRQ's receive queue: %s; free memory or use a "
			     "smaller srq_wr",
			     doca_error_get_descr(err));
		free(srq->pool);
		free(srq);
		return err;
	}
	pthread_mutex_init(&srq->lock, NULL);
	sd_list_init(&srq->free_rwqes);
	for (uint32_t i = 0; i < init_attr->srq_wr; i++) {
		srq->pool[i].srq = srq;
		srq->pool[i].sc.sg = &srq->pool[i].sc.sg1;
		sd_list_insert_tail(&srq->free_rwqes, &srq->pool[i].free_link);
	}
	srq->ctx = ctx;
	srq->attr = *init_attr;
	srq->srqn = sd_verbs_next_num();
	pthread_mutex_lock(&ctx->lock);
	ctx->num_srqs++;
	srq->attr.pd->users++;
	pthread_mutex_unlock(&ctx->lock);
	*verbs_srq = srq;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_destroy(struct doca_verbs_srq *srq)
{
	struct doca_verbs_context *ctx;
	uint32_t users;

	if (srq == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_destroy: verbs_srq is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx = srq->ctx;
	pthread_mutex_lock(&ctx->lock);
	users = srq->users;
	if (users == 0) {
		ctx->num_srqs--;
		srq->attr.pd->users--;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (users != 0) {
		DOCA_LOG_ERR("doca_verbs_srq_destroy: SRQ %u is used by %u QP(s); destroy them first", srq->srqn,
			     users);
		return DOCA_ERROR_IN_USE;
	}
	/* receives still posted go without completions, as on hardware */
	pthread_mutex_lock(&srq->lock);
	sd_list_init(&srq->free_rwqes);
	pthread_mutex_unlock(&srq->lock);
	sd_fabric_ctx_flush_recvs(srq->dom.fctx, DOCA_ERROR_CONNECTION_ABORTED);
	sd_verbs_domain_fini(&srq->dom);
	for (uint32_t i = 0; i < srq->attr.srq_wr; i++)
		sd_verbs_scatter_free(&srq->pool[i].sc);
	pthread_mutex_destroy(&srq->lock);
	free(srq->pool);
	free(srq);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_query(struct doca_verbs_srq *srq, struct doca_verbs_srq_init_attr *init_attr)
{
	if (srq == NULL || init_attr == NULL) {
		DOCA_LOG_ERR("doca_verbs_srq_query: NULL argument (verbs_srq %p, init_attr %p); pass non-NULL pointers",
			     (void *)srq, (void *)init_attr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*init_attr = srq->attr;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_srq_get_srqn(const struct doca_verbs_srq *srq)
{
	return srq == NULL ? 0 : srq->srqn;
}

DOCA_EXPERIMENTAL void
doca_verbs_srq_get_wq(const struct doca_verbs_srq *srq, void **srq_buf, uint32_t *srq_num_entries,
		      uint32_t *rwqe_size_bytes)
{
	(void)srq;
	if (srq_buf != NULL)
		*srq_buf = NULL;
	if (srq_num_entries != NULL)
		*srq_num_entries = 0;
	if (rwqe_size_bytes != NULL)
		*rwqe_size_bytes = 0;
	SD_VERBS_REFUSE_ONCE("doca_verbs_srq_get_wq: not supported: softdoca SRQs have no hardware ring; post "
			     "with doca_verbs_bridge_post_srq_recv()");
}

DOCA_EXPERIMENTAL void *
doca_verbs_srq_get_dbr_addr(const struct doca_verbs_srq *srq)
{
	(void)srq;
	SD_VERBS_REFUSE_ONCE("doca_verbs_srq_get_dbr_addr: not supported: softdoca SRQs have no doorbell record; "
			     "returning NULL");
	return NULL;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_srq_get_dpa_handle(struct doca_verbs_srq *srq, struct doca_dpa *dpa, doca_dpa_dev_verbs_srq_t *handle)
{
	(void)srq;
	(void)dpa;
	(void)handle;
	SD_VERBS_REFUSE_ONCE("doca_verbs_srq_get_dpa_handle: not supported: softdoca has no DPA; drive the queue from "
			     "the host with doca_verbs_bridge_post_*()");
	return DOCA_ERROR_NOT_SUPPORTED;
}
