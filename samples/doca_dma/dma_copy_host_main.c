/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma_copy_host: export a host buffer holding a text for the DPU to copy.
 * Run it first, then doca_dma_copy_dpu; press Enter here when the DPU is done.
 * Flags: -p -t -d -b (see docs/samples.md).
 */
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "dma_common.h"
#include "dma_copy_host_sample.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST::MAIN);

/* The exported buffer is a private heap allocation, as in DOCA's sample. */
static doca_error_t
run_copy_host(struct dma_config *cfg)
{
	size_t length = strlen(cfg->cpy_txt) + 1;
	char *src_buffer;
	doca_error_t result;

	src_buffer = malloc(length);
	if (src_buffer == NULL) {
		DOCA_LOG_ERR("Failed to allocate the source buffer");
		return DOCA_ERROR_NO_MEMORY;
	}
	memcpy(src_buffer, cfg->cpy_txt, length);
	result = host_start_dma_copy(cfg, src_buffer, length);
	free(src_buffer);
	return result;
}

int
main(int argc, char **argv)
{
	static const struct dma_sample sample = {
		.name = "doca_dma_copy_host",
		.params = DMA_PARAMS_REMOTE,
		.on_dpu = false,
#ifdef DOCA_ARCH_DPU
		.built_for_dpu = true,
#endif
		.run = run_copy_host,
	};

	return dma_sample_main(&sample, argc, argv);
}
