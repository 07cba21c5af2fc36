/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_immediate_requester: write the -w string with immediate
 * data 0xABCD into the memory of doca_rdma_write_immediate_responder.
 * Flags: the common RDMA flags and -w (docs/samples.md); the sample is rdma_write_immediate_requester_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_write_immediate_requester", RDMA_PARAM_WRITE_STRING,
				rdma_write_immediate_requester, argc, argv);
}
