/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bridges between DOCA objects and rdma-core's verbs objects (struct ibv_pd),
 * for programs that mix DOCA with libibverbs (DOCA's Verbs samples).  The
 * functions live in libdoca_common, so linking doca-common and doca-verbs is
 * enough; they are served by libdoca_verbs, which makes softdoca's software
 * ibv_pd objects, and return DOCA_ERROR_NOT_SUPPORTED (logged: "link
 * doca-verbs") in a process that has not loaded it.  The ibv_pd handed out is
 * softdoca's: rdma-core calls on it (ibv_reg_mr, ibv_query_gid, ...) reach
 * softdoca through libsoftdoca_ibverbs, which softdoca's libibverbs.pc links
 * first (docs/verbs.md, "rdma-core interoperability").
 *
 * get_dev_pd: one ibv_pd per device, the same pointer on every call; it lives
 * until the process exits (closing the doca_dev does not free it; it cannot be
 * deallocated).  get_buf_mkey: the key of an MR on the device's PD covering
 * the buf (e.g. one registered with ibv_reg_mr), else the buf's mmap range is
 * registered once on that PD and its key returned.  get_mmap_mkey_from_pd:
 * the mmap's range registered on a softdoca pd once per (mmap, pd), with the
 * mmap's RDMA permissions; such registrations stay until the pd goes (the
 * device's PD: process exit), so do not free an mmap's memory while peers may
 * still hold its key.  Keys are lkey == rkey.  Foreign (rdma-core) ibv_pds:
 * DOCA_ERROR_NOT_SUPPORTED.
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
