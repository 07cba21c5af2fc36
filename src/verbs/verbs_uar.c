/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_uar.h: a UAR is a plain object with a number.  softdoca's queues have
 * no doorbells, so there is no page to map: page_get / reg_addr_get say so.
 * CQs and QPs accept one as their external UAR (recorded, no effect), which
 * is what DOCA's wait-CQ sample does.
 */
#include <stdlib.h>

#include <doca_uar.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.uar);

struct doca_uar {
	const struct doca_dev *dev;
	enum doca_uar_allocation_type type;
	uint32_t id;
};

DOCA_EXPERIMENTAL doca_error_t
doca_uar_create(const struct doca_dev *dev, enum doca_uar_allocation_type allocation_type, struct doca_uar **uar)
{
	static uint32_t next_id;
	struct doca_uar *u;

	if (dev == NULL || uar == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (dev %p, uar %p); pass non-NULL pointers", __func__, (const void *)dev,
			     (void *)uar);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((unsigned int)allocation_type > DOCA_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED) {
		DOCA_LOG_ERR("%s: unknown allocation type %d; use DOCA_UAR_ALLOCATION_TYPE_*", __func__,
			     (int)allocation_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL) {
		DOCA_LOG_ERR("%s: out of memory; free memory and retry", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	u->dev = dev;
	u->type = allocation_type;
	u->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	*uar = u;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_uar_dpa_create(struct doca_dpa *dpa, struct doca_uar **uar)
{
	(void)dpa;
	(void)uar;
	SD_VERBS_REFUSE_ONCE("doca_uar_dpa_create: not supported: softdoca has no DPA; use doca_uar_create()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_uar_destroy(struct doca_uar *uar)
{
	if (uar == NULL) {
		DOCA_LOG_ERR("%s: uar is NULL; pass the object its create call returned", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	free(uar);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_uar_id_get(const struct doca_uar *uar, uint32_t *id)
{
	if (uar == NULL || id == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (uar %p, id %p); pass non-NULL pointers", __func__, (const void *)uar,
			     (void *)id);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*id = uar->id;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_uar_page_get(const struct doca_uar *uar, void **page)
{
	(void)uar;
	(void)page;
	SD_VERBS_REFUSE_ONCE("doca_uar_page_get: not supported: softdoca queues have no doorbell page to map; post "
			     "work with doca_verbs_bridge_post_*(), which rings none");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_uar_reg_addr_get(const struct doca_uar *uar, void **reg)
{
	(void)uar;
	(void)reg;
	SD_VERBS_REFUSE_ONCE("doca_uar_reg_addr_get: not supported: softdoca queues have no doorbell register; "
			     "post work with doca_verbs_bridge_post_*(), which rings none");
	return DOCA_ERROR_NOT_SUPPORTED;
}
