/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_umem.h: a umem records a range of the program's memory (id, address,
 * size, access).  Nothing lives in it: queues in external memory are refused
 * at CQ / QP / SRQ create (external datapath), and DPA / GPU memory is not
 * supported.
 */
#include <stdlib.h>

#include <doca_umem.h>

#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.umem);

struct doca_umem {
	const struct doca_dev *dev;
	void *address;
	uint32_t size;
	uint32_t access;
	uint32_t id;
};

DOCA_EXPERIMENTAL doca_error_t
doca_umem_create(const struct doca_dev *dev, void *address, size_t size, uint32_t access_flags,
		 struct doca_umem **umem_obj)
{
	static uint32_t next_id;
	struct doca_umem *u;

	if (dev == NULL || address == NULL || umem_obj == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (dev %p, address %p, umem_obj %p); pass non-NULL pointers", __func__,
			     (const void *)dev, address, (void *)umem_obj);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (size == 0 || size > UINT32_MAX) {
		DOCA_LOG_ERR("%s: size %zu is out of range (1 .. 2^32 - 1: doca_umem_get_size reports 32 bits); "
			     "register at most 4 GiB - 1 per umem",
			     __func__, size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL) {
		DOCA_LOG_ERR("%s: out of memory; free memory and retry", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	u->dev = dev;
	u->address = address;
	u->size = (uint32_t)size;
	u->access = access_flags;
	u->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	*umem_obj = u;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_umem_dpa_create(struct doca_dpa *dpa, uint64_t address, size_t size, uint32_t access_flags,
		     struct doca_umem **umem_obj)
{
	(void)dpa;
	(void)address;
	(void)size;
	(void)access_flags;
	(void)umem_obj;
	SD_VERBS_REFUSE_ONCE("doca_umem_dpa_create: not supported: softdoca has no DPA memory; use "
			     "doca_umem_create()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_umem_gpu_create(struct doca_gpu *gpu, struct doca_dev *dev, void *address, size_t size, uint32_t access_flags,
		     struct doca_umem **umem_obj)
{
	(void)gpu;
	(void)dev;
	(void)address;
	(void)size;
	(void)access_flags;
	(void)umem_obj;
	SD_VERBS_REFUSE_ONCE("doca_umem_gpu_create: not supported: softdoca has no GPU memory; use "
			     "doca_umem_create()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_umem_destroy(struct doca_umem *umem_obj)
{
	if (umem_obj == NULL) {
		DOCA_LOG_ERR("%s: umem_obj is NULL; pass the object its create call returned", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	free(umem_obj);
	return DOCA_SUCCESS;
}

#define UMEM_GET(name, type, field)                                                                                    \
	DOCA_EXPERIMENTAL doca_error_t doca_umem_get_##name(const struct doca_umem *umem_obj, type *out)               \
	{                                                                                                              \
		if (umem_obj == NULL || out == NULL) {                                                                 \
			DOCA_LOG_ERR("%s: NULL argument (umem_obj %p, output %p); pass non-NULL pointers", __func__,   \
				     (const void *)umem_obj, (void *)out);                                             \
			return DOCA_ERROR_INVALID_VALUE;                                                               \
		}                                                                                                      \
		*out = umem_obj->field;                                                                                \
		return DOCA_SUCCESS;                                                                                   \
	}

UMEM_GET(id, uint32_t, id)
UMEM_GET(size, uint32_t, size)
UMEM_GET(address, void *, address)
