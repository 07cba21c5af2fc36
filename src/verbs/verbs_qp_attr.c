/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP attributes: the record doca_verbs_qp_modify reads under an attribute
 * mask and doca_verbs_qp_query fills.  Setters refuse values no QP could take
 * (unknown enum values, PSNs and QP numbers wider than 24 bits, timer and retry
 * codes wider than their fields); what depends on the QP's state is checked by
 * doca_verbs_qp_modify (verbs_qp.c).
 */
#include <stdlib.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.qp_attr);

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_attr_create(struct doca_verbs_qp_attr **a)
{
	if (a == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass the address of a pointer to fill", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*a = calloc(1, sizeof(**a));
	if (*a == NULL) {
		DOCA_LOG_ERR("doca_verbs_qp_attr_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_qp_attr_destroy(struct doca_verbs_qp_attr *a)
{
	if (a == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "qp_attr");
	free(a);
	return DOCA_SUCCESS;
}

/* A setter whose value must not exceed max (an enum's last value or a field's width). */
#define QP_ATTR_BOUNDED(name, type, max, hint)                                                                         \
	DOCA_EXPERIMENTAL doca_error_t doca_verbs_qp_attr_set_##name(struct doca_verbs_qp_attr *a, type v)             \
	{                                                                                                              \
		if (a == NULL)                                                                                         \
			return SD_VERBS_NULL_OBJ(__func__, "qp_attr");                                                 \
		if ((uint64_t)v > (uint64_t)(max)) {                                                                   \
			DOCA_LOG_ERR("%s: %s %llu is out of range (at most %llu); %s", __func__, #name,                \
				     (unsigned long long)v, (unsigned long long)(max), hint);                          \
			return DOCA_ERROR_INVALID_VALUE;                                                               \
		}                                                                                                      \
		a->name = v;                                                                                           \
		return DOCA_SUCCESS;                                                                                   \
	}                                                                                                              \
	SD_VERBS_GETTER(qp_attr, name, type, name)

QP_ATTR_BOUNDED(next_state, enum doca_verbs_qp_state, DOCA_VERBS_QP_STATE_ERR, "use DOCA_VERBS_QP_STATE_*")
QP_ATTR_BOUNDED(current_state, enum doca_verbs_qp_state, DOCA_VERBS_QP_STATE_ERR, "use DOCA_VERBS_QP_STATE_*")
QP_ATTR_BOUNDED(path_mtu, enum doca_mtu_size, DOCA_MTU_SIZE_4K_BYTES,
		"a QP's path MTU is DOCA_MTU_SIZE_256_BYTES .. DOCA_MTU_SIZE_4K_BYTES")
QP_ATTR_BOUNDED(rq_psn, uint32_t, SD_VERBS_NUM_MASK, "PSNs are 24-bit")
QP_ATTR_BOUNDED(sq_psn, uint32_t, SD_VERBS_NUM_MASK, "PSNs are 24-bit")
QP_ATTR_BOUNDED(dest_qp_num, uint32_t, SD_VERBS_NUM_MASK, "QP numbers are 24-bit (doca_verbs_qp_get_qpn)")
QP_ATTR_BOUNDED(atomic_mode, enum doca_verbs_qp_atomic_mode, DOCA_VERBS_QP_ATOMIC_MODE_UP_TO_256BYTES,
		"use DOCA_VERBS_QP_ATOMIC_MODE_*")
QP_ATTR_BOUNDED(ack_timeout, uint16_t, 31, "the ACK timeout is a 5-bit code (4.096 us * 2^code)")
QP_ATTR_BOUNDED(min_rnr_timer, uint16_t, 31, "the minimum RNR NAK timer is a 5-bit code")
QP_ATTR_BOUNDED(retry_cnt, uint16_t, 7, "the retry count is 3-bit")
QP_ATTR_BOUNDED(rnr_retry, uint16_t, 7, "the RNR retry count is 3-bit (7: retry forever)")

SD_VERBS_FIELD(qp_attr, allow_remote_write, int, allow_remote_write)
SD_VERBS_FIELD(qp_attr, allow_remote_read, int, allow_remote_read)
SD_VERBS_FIELD(qp_attr, max_rd_atomic, uint8_t, max_rd_atomic)
SD_VERBS_FIELD(qp_attr, max_dest_rd_atomic, uint8_t, max_dest_rd_atomic)
SD_VERBS_FIELD(qp_attr, ah_attr, struct doca_verbs_ah_attr *, ah_attr)
SD_VERBS_FIELD(qp_attr, pkey_index, uint16_t, pkey_index)
SD_VERBS_FIELD(qp_attr, port_num, uint16_t, port_num)
SD_VERBS_FIELD(qp_attr, cc_group, struct doca_verbs_cc_group *, cc_group)
