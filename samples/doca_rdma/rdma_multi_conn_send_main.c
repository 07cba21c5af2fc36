/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_multi_conn_send: send the -s string once on each of
 * -nc connections to doca_rdma_multi_conn_receive.  Start the receiver first.
 * Flags: the common RDMA flags and -s -nc (docs/samples.md); the sample is rdma_multi_conn_send_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_multi_conn_send", RDMA_PARAM_SEND_STRING | RDMA_PARAM_NUM_CONNECTIONS,
				rdma_multi_conn_send, argc, argv);
}
