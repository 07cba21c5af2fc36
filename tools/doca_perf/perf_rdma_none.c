/* SPDX-License-Identifier: BSD-3-Clause */
/* doca_perf rdma when this build has no doca_rdma.h: say so instead of failing to build. */
#include "perf.h"

int
perf_rdma_run(struct perf_opts *o)
{
	fprintf(stderr, "doca_perf: rdma %s: this build has no DOCA RDMA library\n", o->test);
	return 1;
}
