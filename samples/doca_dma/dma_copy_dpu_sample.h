/* SPDX-License-Identifier: BSD-3-Clause */
/* The DPU side of the host-to-DPU DMA copy (dma_copy_dpu_sample.c). */
#ifndef DMA_COPY_DPU_SAMPLE_H_
#define DMA_COPY_DPU_SAMPLE_H_

#include <doca_error.h>

#include "dma_common.h"

/* Read cfg's descriptor and buffer files, copy the host buffer here, print it. */
doca_error_t dma_copy_dpu(struct dma_config *cfg);

#endif /* DMA_COPY_DPU_SAMPLE_H_ */
