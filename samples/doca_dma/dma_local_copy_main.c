/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma_local_copy: DMA-copy a text between two local buffers on the DPU.
 * Flags: -p -t -ns -nd -nt -mnr (see docs/samples.md).
 */
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "dma_common.h"
#include "dma_local_copy_sample.h"

DOCA_LOG_REGISTER(DPU_LOCAL_DMA_COPY::MAIN);

/* The destination holds one copy of the text per task. */
static doca_error_t
run_local_copy(struct dma_config *cfg)
{
	size_t length = strlen(cfg->cpy_txt) + 1;
	char *src_buffer, *dst_buffer;
	doca_error_t result;

	/* -nt sizes the destination, the task table and the inventory: check it against the caps first. */
	result = dma_check_caps(cfg->pci_address, (uint32_t)cfg->num_src_buf + (uint32_t)cfg->num_dst_buf,
				(uint32_t)cfg->num_tasks, length);
	if (result != DOCA_SUCCESS)
		return result;

	src_buffer = malloc(length);
	dst_buffer = calloc((size_t)cfg->num_tasks, length);
	if (src_buffer == NULL || dst_buffer == NULL) {
		DOCA_LOG_ERR("Failed to allocate the source and destination buffers");
		result = DOCA_ERROR_NO_MEMORY;
		goto free_buffers;
	}
	memcpy(src_buffer, cfg->cpy_txt, length);
	result = dma_local_copy(cfg, src_buffer, dst_buffer, length);

free_buffers:
	free(dst_buffer);
	free(src_buffer);
	return result;
}

int
main(int argc, char **argv)
{
	static const struct dma_sample sample = {
		.name = "doca_dma_local_copy",
		.params = DMA_PARAMS_LOCAL,
		.on_dpu = true,
#ifdef DOCA_ARCH_DPU
		.built_for_dpu = true,
#endif
		.run = run_local_copy,
	};

	return dma_sample_main(&sample, argc, argv);
}
