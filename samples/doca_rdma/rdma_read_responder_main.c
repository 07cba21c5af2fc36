/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_read_responder: export local memory holding the -r string for
 * doca_rdma_read_requester to read.  Start it first; Enter here, in the
 * requester, then here again.
 * Flags: the common RDMA flags and -r (docs/samples.md); the sample is rdma_read_responder_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_read_responder", RDMA_PARAM_READ_STRING, rdma_read_responder, argc, argv);
}
