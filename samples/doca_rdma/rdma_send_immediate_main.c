/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_send_immediate: send the -s string with immediate data 0xABCD to
 * doca_rdma_receive_immediate.  Start the receiver first; Enter there, then here.
 * Flags: the common RDMA flags and -s (docs/samples.md); the sample is rdma_send_immediate_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_send_immediate", RDMA_PARAM_SEND_STRING, rdma_send_immediate, argc, argv);
}
