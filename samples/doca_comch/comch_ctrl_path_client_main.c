/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main() of doca_comch_ctrl_path_client: the flags (comch_sample_main), then the sample itself,
 * comch_ctrl_path_client_sample.c.
 */
#include "comch_sample_common.h"

int
main(int argc, char **argv)
{
	static const struct comch_sample sample = {
		.name = "doca_comch_ctrl_path_client",
		.on_dpu = false,
#ifdef DOCA_ARCH_DPU
		.built_for_dpu = true,
#endif
		.run = ctrl_path_client,
	};

	return comch_sample_main(&sample, argc, argv);
}
