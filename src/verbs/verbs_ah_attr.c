/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handle attributes: the peer's GID (by value), address type, LID and
 * routing fields a QP copies at INIT -> RTR.  Counted by their context.
 */
#include <stdlib.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.ah_attr);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_ah_attr_create(struct doca_verbs_context *ctx, struct doca_verbs_ah_attr **verbs_ah_attr)
{
	struct doca_verbs_ah_attr *a;

	if (ctx == NULL || verbs_ah_attr == NULL) {
		DOCA_LOG_ERR("doca_verbs_ah_attr_create: NULL argument (verbs_context %p, verbs_ah_attr %p); pass "
			     "non-NULL pointers",
			     (void *)ctx, (void *)verbs_ah_attr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		DOCA_LOG_ERR("doca_verbs_ah_attr_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	a->ctx = ctx;
	a->addr_type = DOCA_VERBS_ADDR_TYPE_IPv4; /* RoCE v2 over IPv4, what a softdoca port is */
	a->hop_limit = 64;
	sd_verbs_ctx_count(ctx, &ctx->num_ahs, 1);
	*verbs_ah_attr = a;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_ah_attr_destroy(struct doca_verbs_ah_attr *a)
{
	if (a == NULL || a->ctx == NULL) {
		/* ctx NULL: the copy inside a QP that doca_verbs_qp_query() pointed to. */
		DOCA_LOG_ERR("doca_verbs_ah_attr_destroy: verbs_ah_attr is NULL or belongs to a QP (from "
			     "doca_verbs_qp_query); destroy only what doca_verbs_ah_attr_create() made");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_verbs_ctx_count(a->ctx, &a->ctx->num_ahs, -1);
	free(a);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_ah_attr_set_gid(struct doca_verbs_ah_attr *a, struct doca_verbs_gid gid)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "ah_attr");
	a->gid = gid;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_verbs_gid
doca_verbs_ah_attr_get_gid(const struct doca_verbs_ah_attr *a)
{
	struct doca_verbs_gid none = {{0}};

	return a == NULL ? none : a->gid;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_ah_attr_set_addr_type(struct doca_verbs_ah_attr *a, enum doca_verbs_addr_type addr_type)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "ah_attr");
	if ((unsigned)addr_type > DOCA_VERBS_ADDR_TYPE_IB_NO_GRH) {
		DOCA_LOG_ERR("doca_verbs_ah_attr_set_addr_type: unknown address type %d; use DOCA_VERBS_ADDR_TYPE_*",
			     (int)addr_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	a->addr_type = addr_type;
	return DOCA_SUCCESS;
}

SD_VERBS_GETTER(ah_attr, addr_type, enum doca_verbs_addr_type, addr_type)
SD_VERBS_FIELD(ah_attr, dlid, uint32_t, dlid)
SD_VERBS_FIELD(ah_attr, sl, uint8_t, sl)
SD_VERBS_FIELD(ah_attr, sgid_index, uint8_t, sgid_index)
SD_VERBS_FIELD(ah_attr, static_rate, uint8_t, static_rate)
SD_VERBS_FIELD(ah_attr, hop_limit, uint8_t, hop_limit)
SD_VERBS_FIELD(ah_attr, traffic_class, uint8_t, traffic_class)
