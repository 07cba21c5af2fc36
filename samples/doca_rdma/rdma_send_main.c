/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_send: send the -s string to doca_rdma_receive.
 * Start the receiver first; press Enter there, then here.
 * Flags: the common RDMA flags and -s (docs/samples.md); the sample is rdma_send_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_send", RDMA_PARAM_SEND_STRING, rdma_send, argc, argv);
}
