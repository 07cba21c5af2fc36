/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bridges between DOCA objects and rdma-core's verbs objects (struct ibv_pd),
 * for programs that mix DOCA with libibverbs.  softdoca's devices are not
 * verbs devices: these functions return DOCA_ERROR_NOT_SUPPORTED with the reason
 * logged, unless the Verbs library provides them (see docs/rdma.md).
 */
#ifndef DOCA_RDMA_BRIDGE_H_
#define DOCA_RDMA_BRIDGE_H_

#include <stdint.h>

#include <infiniband/verbs.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_dev;
struct doca_mmap;

/* The verbs protection domain of an open device.  SUCCESS; INVALID_VALUE; NOT_SUPPORTED. */
DOCA_STABLE doca_error_t doca_rdma_bridge_get_dev_pd(const struct doca_dev *dev, struct ibv_pd **pd);

/* Open the DOCA device behind a verbs protection domain.  SUCCESS; INVALID_VALUE; NOT_SUPPORTED. */
DOCA_STABLE doca_error_t doca_rdma_bridge_open_dev_from_pd(struct ibv_pd *pd, struct doca_dev **dev);

/* The memory key of a buffer on dev.  SUCCESS; INVALID_VALUE; NOT_SUPPORTED. */
DOCA_STABLE doca_error_t doca_rdma_bridge_get_buf_mkey(const struct doca_buf *buf, struct doca_dev *dev,
						       uint32_t *mkey);

/* The memory key of an mmap registered in a verbs protection domain.  SUCCESS; INVALID_VALUE; NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_get_mmap_mkey_from_pd(const struct doca_mmap *mmap, struct ibv_pd *pd,
								      uint32_t *mkey);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMA_BRIDGE_H_ */
