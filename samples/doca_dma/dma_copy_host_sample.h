/* SPDX-License-Identifier: BSD-3-Clause */
/* The host side of the host-to-DPU DMA copy (dma_copy_host_sample.c). */
#ifndef DMA_COPY_HOST_SAMPLE_H_
#define DMA_COPY_HOST_SAMPLE_H_

#include <stddef.h>

#include <doca_error.h>

#include "dma_common.h"

/* Export src_buffer (length bytes), write cfg's two files, wait for Enter. */
doca_error_t host_start_dma_copy(const struct dma_config *cfg, char *src_buffer, size_t length);

#endif /* DMA_COPY_HOST_SAMPLE_H_ */
