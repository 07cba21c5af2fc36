/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_sync_event_responder: export a sync event, wait for
 * doca_rdma_sync_event_requester's signal, answer it.  Start it first.
 * Flags: the common RDMA flags (docs/samples.md); the sample is rdma_sync_event_responder_sample.c.
 */
#include "rdma_common.h"

int
main(int argc, char **argv)
{
	return rdma_sample_main("doca_rdma_sync_event_responder", 0, rdma_sync_event_responder, argc, argv);
}
