/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_read_requester: read the -r string that doca_rdma_read_responder
 * put in the memory it exported.  Start the responder first.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_read_requester_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_read_requester", 0, rdma_read_requester, argc, argv);
}
