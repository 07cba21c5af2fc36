/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA read responder: put the -r string in local memory, export it for RDMA
 * reads, connect to the requester and wait on stdin while the requester reads
 * it.  No task: the read is served without any DOCA call on this side.
 */
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_READ_RESPONDER::SAMPLE);

/* Connected, the mmap exported: wait for the requester's read, stop. */
static doca_error_t
read_responder_wait(struct rdma_resources *res)
{
	DOCA_LOG_INFO("Wait till the requester has finished reading and press enter");
	wait_for_enter();
	rdma_finish(res);
	return DOCA_SUCCESS;
}

doca_error_t
rdma_read_responder(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "requester",
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_MMAP,
		.dc_passive = true,
		.run = read_responder_wait,
	};
	doca_error_t result;

	/* The requester reads: the mmap and the context allow remote reads. */
	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ,
					 DOCA_ACCESS_FLAG_RDMA_READ, NULL, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	/* The text must be in place before the memory is exported: the requester may read at any time after. */
	rdma_put_text(&resources, 0, cfg->read_string);

	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* Exporting the mmap, connecting and waiting happen from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
