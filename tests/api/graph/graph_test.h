/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the graph API tests: the DMA fixture of tests/api/dma (a device, PE,
 * started DMA context and one mmap), user nodes that record the order they ran
 * in, graph callbacks that count instances, and DMA copies to put in context
 * nodes.  Public API only.
 */
#ifndef GRAPH_TEST_H_
#define GRAPH_TEST_H_

#include <doca_graph.h>

#include "dma_test.h"

/* What the user nodes and graph callbacks saw. */
struct graph_log {
	int order[64]; /* user node ids (their cookies) in the order they ran */
	unsigned n;
	doca_error_t fail_id_status; /* returned by the user node whose id is fail_id */
	int fail_id;
	unsigned completed;
	unsigned failed;
	struct doca_graph_instance *last_instance;
	union doca_data last_instance_data;
	union doca_data last_graph_data;
	/* Resubmit the instance from its completion callback this many times. */
	unsigned resubmits;
};

static struct graph_log glog;

static inline void
graph_log_reset(void)
{
	memset(&glog, 0, sizeof(glog));
	glog.fail_id = -1;
}

/* A user node: the cookie is an id (intptr_t); records it, fails when it is glog.fail_id. */
static inline doca_error_t
user_node(void *cookie)
{
	int id = (int)(intptr_t)cookie;

	if (glog.n < sizeof(glog.order) / sizeof(glog.order[0]))
		glog.order[glog.n++] = id;
	return id == glog.fail_id ? glog.fail_id_status : DOCA_SUCCESS;
}

/* What both graph callbacks record. */
static inline void
graph_note(struct doca_graph_instance *inst, union doca_data inst_data, union doca_data graph_data)
{
	glog.last_instance = inst;
	glog.last_instance_data = inst_data;
	glog.last_graph_data = graph_data;
}

static inline void
graph_done(struct doca_graph_instance *inst, union doca_data inst_data, union doca_data graph_data)
{
	glog.completed++;
	graph_note(inst, inst_data, graph_data);
	if (glog.resubmits != 0) {
		glog.resubmits--;
		ASSERT_OK(doca_graph_instance_submit(inst));
	}
}

static inline void
graph_failed(struct doca_graph_instance *inst, union doca_data inst_data, union doca_data graph_data)
{
	glog.failed++;
	graph_note(inst, inst_data, graph_data);
}

/* Where id ran in glog.order, or -1. */
static inline int
ran_at(int id)
{
	for (unsigned i = 0; i < glog.n; i++)
		if (glog.order[i] == id)
			return (int)i;
	return -1;
}

#define COOKIE(id) ((void *)(intptr_t)(id))

/* Progress until an instance was reported (10 s deadline). */
static inline void
progress_until_reported(struct doca_pe *pe, unsigned want)
{
	double end = now_s() + 10;

	while (glog.completed + glog.failed < want) {
		(void)doca_pe_progress(pe);
		if (now_s() > end)
			sd_test_fail(__FILE__, __LINE__, "only %u of %u instances reported after 10 s",
				     glog.completed + glog.failed, want);
	}
}

/* The DMA fixture, started, on the small-caps topology; graph logs cleared. */
static inline void
graph_env_open(struct env *e)
{
	use_dma_test_topology();
	env_open(e, T_HOST_PCI, 1 << 16, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 16);
	env_start(e);
	graph_log_reset();
}

/* A configured, empty graph on e's PE. */
static inline struct doca_graph *
new_graph(struct env *e, uint32_t num_instances)
{
	struct doca_graph *g = NULL;

	ASSERT_OK(doca_graph_create(e->pe, &g));
	ASSERT_OK(doca_graph_set_conf(g, graph_done, graph_failed, num_instances));
	return g;
}

/* A memcpy task of e's context copying len bytes at src_off (filled with a pattern) into dst. */
static inline struct doca_task *
copy_task_to(struct env *e, size_t src_off, size_t len, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t = NULL;
	struct doca_buf *s = src_buf(e, src_off, len, (unsigned)src_off);

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, s, dst, (union doca_data){.u64 = 0}, &t));
	return doca_dma_task_memcpy_as_task(t);
}

/* The same with a len-byte destination at dst_off (*dst receives it). */
static inline struct doca_task *
copy_task(struct env *e, size_t src_off, size_t dst_off, size_t len, struct doca_buf **dst)
{
	*dst = dst_buf(e, dst_off, len);
	return copy_task_to(e, src_off, len, *dst);
}

#endif /* GRAPH_TEST_H_ */
