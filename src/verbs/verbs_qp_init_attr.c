/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP init attributes: what doca_verbs_qp_create needs (PD, CQs or SRQ, type,
 * depths, SGEs, inline size) and the hardware placement fields (umem, UAR,
 * doorbell ids, PDN) that programs written for ConnectX set.  The latter are
 * recorded and have no effect; doca_verbs_qp_create refuses what changes
 * behaviour it cannot provide (DPA, external datapath, CQE inline).
 */
#include <stdlib.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.qp_init_attr);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_create(struct doca_verbs_qp_init_attr **a)
{
	if (a == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass the address of a pointer to fill", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*a = calloc(1, sizeof(**a));
	if (*a == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	(*a)->qp_type = DOCA_VERBS_QP_TYPE_RC;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_destroy(struct doca_verbs_qp_init_attr *a)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	free(a);
	return DOCA_SUCCESS;
}

SD_VERBS_FIELD(qp_init_attr, pd, struct doca_verbs_pd *, pd)
SD_VERBS_FIELD(qp_init_attr, send_cq, struct doca_verbs_cq *, send_cq)
SD_VERBS_FIELD(qp_init_attr, receive_cq, struct doca_verbs_cq *, receive_cq)
SD_VERBS_FIELD(qp_init_attr, sq_sig_all, int, sq_sig_all)
SD_VERBS_FIELD(qp_init_attr, sq_wr, uint32_t, sq_wr)
SD_VERBS_FIELD(qp_init_attr, rq_wr, uint32_t, rq_wr)
SD_VERBS_FIELD(qp_init_attr, send_max_sges, uint32_t, send_max_sges)
SD_VERBS_FIELD(qp_init_attr, receive_max_sges, uint32_t, receive_max_sges)
SD_VERBS_FIELD(qp_init_attr, max_inline_data, uint32_t, max_inline_data)
SD_VERBS_FIELD(qp_init_attr, user_index, uint32_t, user_index)
SD_VERBS_FIELD(qp_init_attr, qp_context, void *, qp_context)
SD_VERBS_FIELD(qp_init_attr, srq, struct doca_verbs_srq *, srq)
SD_VERBS_FIELD(qp_init_attr, dpa, struct doca_dpa *, dpa)
SD_VERBS_FIELD(qp_init_attr, send_dpa_completion, struct doca_dpa_completion *, send_dpa_comp)
SD_VERBS_FIELD(qp_init_attr, receive_dpa_completion, struct doca_dpa_completion *, receive_dpa_comp)
SD_VERBS_FIELD(qp_init_attr, external_datapath_en, uint8_t, external_datapath_en)
SD_VERBS_GETTER(qp_init_attr, cqe_inline, uint8_t, cqe_inline)
SD_VERBS_GETTER(qp_init_attr, send_dbr_mode, enum doca_verbs_qp_send_dbr_mode, send_dbr_mode)
SD_VERBS_GETTER(qp_init_attr, core_direct_master, uint8_t, core_direct_master)
SD_VERBS_GETTER(qp_init_attr, dbr_umem_id, uint32_t, dbr_umem_id)
SD_VERBS_GETTER(qp_init_attr, dbr_umem_offset, uint64_t, dbr_umem_id_offset)
SD_VERBS_GETTER(qp_init_attr, wq_umem_id, uint32_t, wq_umem_id)
SD_VERBS_GETTER(qp_init_attr, wq_umem_offset, uint64_t, wq_umem_offset)
SD_VERBS_GETTER(qp_init_attr, uar_id, uint32_t, uar_id)
SD_VERBS_GETTER(qp_init_attr, pdn, uint32_t, pdn)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_qp_type(struct doca_verbs_qp_init_attr *a, uint32_t qp_type)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	if (qp_type != DOCA_VERBS_QP_TYPE_RC && qp_type != DOCA_VERBS_QP_TYPE_UC) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_set_qp_type: unknown QP type %u; use DOCA_VERBS_QP_TYPE_RC or "
			     "DOCA_VERBS_QP_TYPE_UC",
			     qp_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->qp_type = qp_type;
	return DOCA_SUCCESS;
}

SD_VERBS_GETTER(qp_init_attr, qp_type, uint32_t, qp_type)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_cqe_inline(struct doca_verbs_qp_init_attr *a, enum doca_verbs_qp_scatter_to_cqe cqe_inline)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	if ((unsigned)cqe_inline > DOCA_VERBS_QP_SCATTER_TO_CQE_32B) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_set_cqe_inline: unknown mode %d; use "
			     "DOCA_VERBS_QP_SCATTER_TO_CQE_NONE",
			     (int)cqe_inline);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->cqe_inline = cqe_inline;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_send_dbr_mode(struct doca_verbs_qp_init_attr *a, enum doca_verbs_qp_send_dbr_mode mode)
{
	/* sd:no-effect: software send queues have no doorbell record; every mode behaves as DBR_VALID */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	if ((unsigned)mode > DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_INT) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_set_send_dbr_mode: unknown mode %d; use "
			     "DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID",
			     (int)mode);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->send_dbr_mode = mode;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_core_direct_master(struct doca_verbs_qp_init_attr *a, uint8_t core_direct_master)
{
	/* sd:no-effect: cross-queue WAIT ordering is the datapath's job, not a QP flag in software */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->core_direct_master = core_direct_master;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_external_umem(struct doca_verbs_qp_init_attr *a, struct doca_umem *umem, uint64_t offset)
{
	/* sd:no-effect: software work queues live in the library's memory, not in a program's umem */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->umem = umem;
	a->umem_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_get_external_umem(const struct doca_verbs_qp_init_attr *a, struct doca_umem **umem,
					  uint64_t *offset)
{
	if (a == NULL || umem == NULL || offset == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_get_external_umem: NULL argument (qp_init_attr %p, umem %p, "
			     "offset %p); pass non-NULL pointers",
			     (const void *)a, (void *)umem, (void *)offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*umem = a->umem;
	*offset = a->umem_offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_external_dbr_umem(struct doca_verbs_qp_init_attr *a, struct doca_umem *umem,
					      uint64_t offset)
{
	/* sd:no-effect: software queues have no doorbell record to place in a program's umem */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->dbr_umem = umem;
	a->dbr_umem_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_get_external_dbr_umem(const struct doca_verbs_qp_init_attr *a, struct doca_umem **umem,
					      uint64_t *offset)
{
	if (a == NULL || umem == NULL || offset == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_get_external_dbr_umem: NULL argument (qp_init_attr %p, umem "
			     "%p, offset %p); pass non-NULL pointers",
			     (const void *)a, (void *)umem, (void *)offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*umem = a->dbr_umem;
	*offset = a->dbr_umem_offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_external_uar(struct doca_verbs_qp_init_attr *a, struct doca_uar *uar)
{
	/* sd:no-effect: software queues have no doorbell page; posting is a library call */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->uar = uar;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_get_external_uar(const struct doca_verbs_qp_init_attr *a, struct doca_uar **uar)
{
	if (a == NULL || uar == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_init_attr_get_external_uar: NULL argument (qp_init_attr %p, uar %p); pass "
			     "non-NULL pointers",
			     (const void *)a, (void *)uar);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*uar = a->uar;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_dbr_umem(struct doca_verbs_qp_init_attr *a, uint32_t umem_id, uint64_t offset)
{
	/* sd:no-effect: software queues have no doorbell record to place in a umem */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->dbr_umem_id = umem_id;
	a->dbr_umem_id_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_wq_umem(struct doca_verbs_qp_init_attr *a, uint32_t umem_id, uint64_t offset)
{
	/* sd:no-effect: software work queues live in the library's memory, not in a umem */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->wq_umem_id = umem_id;
	a->wq_umem_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_uar_id(struct doca_verbs_qp_init_attr *a, uint32_t uar_id)
{
	/* sd:no-effect: software queues have no doorbell page */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->uar_id = uar_id;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_init_attr_set_pdn(struct doca_verbs_qp_init_attr *a, uint32_t pdn)
{
	/* sd:no-effect: the PD set with doca_verbs_qp_init_attr_set_pd decides; hardware PD numbers do not exist */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_init_attr");
	a->pdn = pdn;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_qp_init_attr_get_send_cqn(const struct doca_verbs_qp_init_attr *a)
{
	return a == NULL || a->send_cq == NULL ? 0 : a->send_cq->cqn;
}

DOCA_EXPERIMENTAL uint32_t
doca_verbs_qp_init_attr_get_receive_cqn(const struct doca_verbs_qp_init_attr *a)
{
	return a == NULL || a->receive_cq == NULL ? 0 : a->receive_cq->cqn;
}
