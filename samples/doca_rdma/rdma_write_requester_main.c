/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_requester: write the -w string into the memory that
 * doca_rdma_write_responder exported.  Start the responder first.
 * Flags: the common RDMA flags and -w (docs/samples.md); the sample is rdma_write_requester_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_write_requester", RDMA_PARAM_WRITE_STRING, rdma_write_requester, argc, argv);
}
