/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provider behind doca_rdma_bridge.h.  The public functions live in
 * libdoca_common (rdma_bridge.c) so programs linking doca-common and
 * doca-verbs only (as DOCA's Verbs samples do) find them; libdoca_verbs, which
 * owns the soft rdma-core objects, installs this table from a constructor.
 * Arguments reach the ops already checked for NULL.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_RDMA_BRIDGE_INTERNAL_H_
#define SD_RDMA_BRIDGE_INTERNAL_H_

#include <doca_rdma_bridge.h>

#include "../util/sd_util.h"

struct sd_rdma_bridge_ops {
	doca_error_t (*get_dev_pd)(const struct doca_dev *dev, struct ibv_pd **pd);
	doca_error_t (*open_dev_from_pd)(struct ibv_pd *pd, struct doca_dev **dev);
	doca_error_t (*get_buf_mkey)(const struct doca_buf *buf, struct doca_dev *dev, uint32_t *mkey);
	doca_error_t (*get_mmap_mkey_from_pd)(const struct doca_mmap *mmap, struct ibv_pd *pd, uint32_t *mkey);
};

/* Install (or with NULL remove) the provider; the pointer is kept (a static table). */
SD_EXPORT void sd_rdma_bridge_set_ops(const struct sd_rdma_bridge_ops *ops);

#endif /* SD_RDMA_BRIDGE_INTERNAL_H_ */
