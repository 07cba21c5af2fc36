/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_write_responder: export local memory for RDMA writes, connect to
 * doca_rdma_write_requester, wait on stdin while the requester writes, then print
 * what the memory holds.  It makes no DOCA call while it waits.
 */
#include <stdio.h>
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_WRITE_RESPONDER);

static doca_error_t
write_responder_run(struct rdma_resources *res)
{
	DOCA_LOG_INFO("Wait till the requester has finished writing and press enter");
	wait_for_enter();
	DOCA_LOG_INFO("Requester has written: \"%.*s\"", (int)strnlen(res->mmap_memrange, RDMA_MSG_LEN),
		      res->mmap_memrange);
	/* Stopping from inside the RUNNING callback, as DOCA's sample does. */
	rdma_finish(res);
	return DOCA_SUCCESS;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_write_responder",
		.peer = "requester",
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_RDMA_WRITE,
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_MMAP,
		.dc_passive = true,
		.run = write_responder_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
