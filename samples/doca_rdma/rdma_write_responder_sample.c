/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA write responder: export local memory for RDMA writes (descriptor file
 * -m, or a send with RDMA-CM), connect to the requester, then wait on stdin
 * while the requester writes and print what the memory holds.  No task: the
 * write lands without any DOCA call on this side.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_WRITE_RESPONDER::SAMPLE);

/* Connected, the mmap exported: wait for the requester's write, print it, stop. */
static doca_error_t
write_responder_wait(struct rdma_resources *res)
{
	DOCA_LOG_INFO("Wait till the requester has finished writing and press enter");
	wait_for_enter();
	DOCA_LOG_INFO("Requester has written: \"%.*s\"", (int)strnlen(res->mmap_memrange, RDMA_MSG_LEN),
		      res->mmap_memrange);
	/* Stopping from inside the RUNNING callback, as DOCA's sample does. */
	rdma_finish(res);
	return DOCA_SUCCESS;
}

doca_error_t
rdma_write_responder(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "requester",
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_MMAP,
		.dc_passive = true,
		.run = write_responder_wait,
	};
	doca_error_t result;

	/* The requester writes: the mmap and the context allow remote writes. */
	result = allocate_rdma_resources(cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
					 DOCA_ACCESS_FLAG_RDMA_WRITE, NULL, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy;

	/* Exporting the mmap, connecting and waiting happen from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);
destroy:
	return destroy_rdma_resources(&resources, result);
}
