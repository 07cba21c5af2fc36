/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_receive: receive one message from doca_rdma_send and print it.
 * Start it first; press Enter here, then in the sender.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_receive_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_receive", 0, rdma_receive, argc, argv);
}
