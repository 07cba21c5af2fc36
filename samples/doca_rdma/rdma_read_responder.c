/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_read_responder: put the -r string in local memory, export it for
 * RDMA reads, connect to doca_rdma_read_requester and wait on stdin while the
 * requester reads it.  It makes no DOCA call while it waits.
 */
#include <string.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_READ_RESPONDER);

/* The text must be in place before the memory is exported: the requester may read at any time after. */
static doca_error_t
read_responder_setup(struct rdma_resources *res)
{
	rdma_put_text(res, 0, res->cfg->read_string);
	return DOCA_SUCCESS;
}

static doca_error_t
read_responder_run(struct rdma_resources *res)
{
	DOCA_LOG_INFO("Wait till the requester has finished reading and press enter");
	wait_for_enter();
	rdma_finish(res);
	return DOCA_SUCCESS;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_read_responder",
		.peer = "requester",
		.params = RDMA_PARAM_READ_STRING,
		.mmap_perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ,
		.rdma_perm = DOCA_ACCESS_FLAG_RDMA_READ,
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_MMAP,
		.dc_passive = true,
		.setup = read_responder_setup,
		.run = read_responder_run,
	};

	return rdma_sample_main(&sample, argc, argv);
}
