/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_immediate_responder: export local memory and wait, in a
 * receive, for doca_rdma_write_immediate_requester's write with immediate.
 * Start it first.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_write_immediate_responder_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_write_immediate_responder", 0, rdma_write_immediate_responder, argc, argv);
}
