/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_sync_event_requester: signal the sync event of
 * doca_rdma_sync_event_responder over RDMA and wait for its answer.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_sync_event_requester_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_sync_event_requester", 0, rdma_sync_event_requester, argc, argv);
}
