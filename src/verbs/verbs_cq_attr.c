/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CQ attributes: entry size, depth, overrun, channel and user context.  The
 * external memory / UAR / DPA thread fields are recorded for programs written
 * for hardware; doca_verbs_cq_create refuses what it cannot honour.
 */
#include <stdlib.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.cq_attr);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_create(struct doca_verbs_cq_attr **a)
{
	if (a == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass the address of a pointer to fill", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*a = calloc(1, sizeof(**a));
	if (*a == NULL) {
		DOCA_LOG_ERR("doca_verbs_cq_attr_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	(*a)->entry_size = DOCA_VERBS_CQ_ENTRY_SIZE_64;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_destroy(struct doca_verbs_cq_attr *a)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "cq_attr");
	free(a);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_set_entry_size(struct doca_verbs_cq_attr *a, enum doca_verbs_cq_entry_size entry_size)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "cq_attr");
	if ((unsigned)entry_size > DOCA_VERBS_CQ_ENTRY_SIZE_128) {
		DOCA_LOG_ERR("doca_verbs_cq_attr_set_entry_size: unknown entry size %d; use "
			     "DOCA_VERBS_CQ_ENTRY_SIZE_64",
			     (int)entry_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->entry_size = entry_size;
	return DOCA_SUCCESS;
}

SD_VERBS_GETTER(cq_attr, entry_size, enum doca_verbs_cq_entry_size, entry_size)
SD_VERBS_FIELD(cq_attr, cq_size, uint32_t, cq_size)
SD_VERBS_FIELD(cq_attr, cq_overrun, uint8_t, cq_overrun)
SD_VERBS_FIELD(cq_attr, comp_channel, struct doca_verbs_comp_channel *, comp_channel)
SD_VERBS_FIELD(cq_attr, cq_context, void *, cq_context)
SD_VERBS_FIELD(cq_attr, external_datapath_en, uint8_t, external_datapath_en)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_set_external_umem(struct doca_verbs_cq_attr *a, struct doca_umem *umem, uint64_t offset)
{
	/* sd:no-effect: software CQ entries live in the library's memory, not in a program's umem */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "cq_attr");
	a->umem = umem;
	a->umem_offset = offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_get_external_umem(const struct doca_verbs_cq_attr *a, struct doca_umem **umem, uint64_t *offset)
{
	if (a == NULL || umem == NULL || offset == NULL) {
		DOCA_LOG_ERR("doca_verbs_cq_attr_get_external_umem: NULL argument (cq_attr %p, umem %p, offset %p); "
			     "pass non-NULL pointers",
			     (const void *)a, (void *)umem, (void *)offset);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*umem = a->umem;
	*offset = a->umem_offset;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_set_external_uar(struct doca_verbs_cq_attr *a, struct doca_uar *uar)
{
	/* sd:no-effect: software CQs have no doorbell page; arming goes through doca_verbs_req_notify_cq */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "cq_attr");
	a->uar = uar;
	return DOCA_SUCCESS;
}

SD_VERBS_GETTER(cq_attr, external_uar, struct doca_uar *, uar)

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_cq_attr_set_dpa_thread_id(struct doca_verbs_cq_attr *a, uint32_t dpa_thread_id)
{
	/* sd:no-effect: there is no DPA to attach a thread of */
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "cq_attr");
	a->dpa_thread_id = dpa_thread_id;
	return DOCA_SUCCESS;
}

SD_VERBS_GETTER(cq_attr, dpa_thread_id, uint32_t, dpa_thread_id)
