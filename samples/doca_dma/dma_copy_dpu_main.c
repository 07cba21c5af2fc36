/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma_copy_dpu: copy the buffer exported by doca_dma_copy_host (which must
 * be running and waiting for Enter) into DPU memory and print it.
 * Flags: -p -d -b -ns -nd (-t is accepted and unused; see docs/samples.md).
 */
#include "dma_common.h"
#include "dma_copy_dpu_sample.h"

int
main(int argc, char **argv)
{
	static const struct dma_sample sample = {
		.name = "doca_dma_copy_dpu",
		.params = DMA_PARAMS_REMOTE,
		.on_dpu = true,
#ifdef DOCA_ARCH_DPU
		.built_for_dpu = true,
#endif
		.run = dma_copy_dpu,
	};

	return dma_sample_main(&sample, argc, argv);
}
