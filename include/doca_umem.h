/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User memory objects: a range of a program's memory handed to a device for
 * its queues.  softdoca records the range (id, address, size, access); queues
 * that would live in it (external datapath) are not supported, and DPA / GPU
 * memory returns DOCA_ERROR_NOT_SUPPORTED (docs/verbs.md).
 */
#ifndef DOCA_UMEM_H_
#define DOCA_UMEM_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dpa;
struct doca_gpu;
struct doca_umem;

DOCA_EXPERIMENTAL doca_error_t doca_umem_create(const struct doca_dev *dev, void *address, size_t size,
						uint32_t access_flags, struct doca_umem **umem_obj);
DOCA_EXPERIMENTAL doca_error_t doca_umem_dpa_create(struct doca_dpa *dpa, uint64_t address, size_t size,
						    uint32_t access_flags, struct doca_umem **umem_obj);
DOCA_EXPERIMENTAL doca_error_t doca_umem_gpu_create(struct doca_gpu *gpu, struct doca_dev *dev, void *address,
						    size_t size, uint32_t access_flags, struct doca_umem **umem_obj);
DOCA_EXPERIMENTAL doca_error_t doca_umem_destroy(struct doca_umem *umem_obj);
DOCA_EXPERIMENTAL doca_error_t doca_umem_get_id(const struct doca_umem *umem_obj, uint32_t *umem_id);
DOCA_EXPERIMENTAL doca_error_t doca_umem_get_size(const struct doca_umem *umem_obj, uint32_t *umem_size);
DOCA_EXPERIMENTAL doca_error_t doca_umem_get_address(const struct doca_umem *umem_obj, void **umem_address);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_UMEM_H_ */
