/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_responder: export local memory for doca_rdma_write_requester
 * to write into, then print it.  Start it first; Enter here, in the requester,
 * then here again.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_write_responder_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_write_responder", 0, rdma_write_responder, argc, argv);
}
