/* SPDX-License-Identifier: BSD-3-Clause */
/* The DPU local copy sample's entry point (dma_local_copy_sample.c). */
#ifndef DMA_LOCAL_COPY_SAMPLE_H_
#define DMA_LOCAL_COPY_SAMPLE_H_

#include <stddef.h>

#include <doca_error.h>

#include "dma_common.h"

/*
 * Copy length bytes of src_buffer into each of cfg->num_tasks consecutive
 * length-byte regions of dst_buffer and verify them.
 */
doca_error_t dma_local_copy(const struct dma_config *cfg, char *src_buffer, char *dst_buffer, size_t length);

#endif /* DMA_LOCAL_COPY_SAMPLE_H_ */
