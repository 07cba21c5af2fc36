/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_multi_conn_receive: receive one message on each of -nc
 * connections from doca_rdma_multi_conn_send.  Start it first.
 * Flags: the common RDMA flags and -nc (docs/samples.md); the sample is rdma_multi_conn_receive_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_multi_conn_receive", RDMA_PARAM_NUM_CONNECTIONS, rdma_multi_conn_receive,
				argc, argv);
}
