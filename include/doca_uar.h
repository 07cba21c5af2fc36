/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User access regions: on hardware, a doorbell page a program maps to ring
 * its queues.  softdoca's queues have no doorbells; a doca_uar is a plain
 * object that groups queues (DOCA Verbs requires a wait-CQ work request and
 * the CQ it waits on to share one) and has no page: doca_uar_page_get and
 * doca_uar_reg_addr_get return DOCA_ERROR_NOT_SUPPORTED (docs/verbs.md).
 */
#ifndef DOCA_UAR_H_
#define DOCA_UAR_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dpa;
struct doca_uar;

enum doca_uar_allocation_type {
	DOCA_UAR_ALLOCATION_TYPE_BLUEFLAME = 0,
	DOCA_UAR_ALLOCATION_TYPE_NONCACHE = 1,
	DOCA_UAR_ALLOCATION_TYPE_NONCACHE_DEDICATED = 2,
};

DOCA_EXPERIMENTAL doca_error_t doca_uar_create(const struct doca_dev *dev,
					       enum doca_uar_allocation_type allocation_type, struct doca_uar **uar);
DOCA_EXPERIMENTAL doca_error_t doca_uar_dpa_create(struct doca_dpa *dpa, struct doca_uar **uar);
DOCA_EXPERIMENTAL doca_error_t doca_uar_destroy(struct doca_uar *uar);
DOCA_EXPERIMENTAL doca_error_t doca_uar_id_get(const struct doca_uar *uar, uint32_t *id);
DOCA_EXPERIMENTAL doca_error_t doca_uar_page_get(const struct doca_uar *uar, void **page);
DOCA_EXPERIMENTAL doca_error_t doca_uar_reg_addr_get(const struct doca_uar *uar, void **reg);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_UAR_H_ */
