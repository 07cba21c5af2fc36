/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_receive_immediate: receive one send with immediate data 0xABCD from
 * doca_rdma_send_immediate.  Start it first; Enter here, then in the sender.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_receive_immediate_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_receive_immediate", 0, rdma_receive_immediate, argc, argv);
}
