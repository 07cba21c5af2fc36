/* SPDX-License-Identifier: BSD-3-Clause */
/* Written as DOCA's RDMA samples' common code is: doca_rdma.h, then PRIu32/PRIu64 and ctx/PE calls. */
#include <stdio.h>

#include <doca_rdma.h>

int sd_uses_rdma_alone(struct doca_rdma *rdma, struct doca_pe *pe);

int
sd_uses_rdma_alone(struct doca_rdma *rdma, struct doca_pe *pe)
{
	uint32_t size = 0;
	uint64_t done = 0;

	(void)doca_rdma_get_send_queue_size(rdma, &size);
	printf("queue %" PRIu32 " done %" PRIu64 "\n", size, done);
	(void)doca_ctx_stop(doca_rdma_as_ctx(rdma));
	return doca_pe_progress(pe);
}
