/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_graph.h, the refusals: every rule of create, set_conf, node
 * creation, dependencies, start, instances and node data, and the destroy
 * order, each with its exact error code and its outputs untouched.
 */
#include "graph_test.h"

#define SENTINEL ((void *)(uintptr_t)0x5eed)

TEST(graph_create_conf_refusals)
{
	struct doca_graph *g = SENTINEL;
	union doca_data ud = {.u64 = 5};
	struct env e;

	graph_env_open(&e);
	ASSERT_ERR(doca_graph_create(NULL, &g), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(g, SENTINEL);
	ASSERT_ERR(doca_graph_create(e.pe, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_graph_create(e.pe, &g));
	ASSERT_ERR(doca_graph_set_conf(NULL, graph_done, graph_failed, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_set_conf(g, NULL, graph_failed, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_set_conf(g, graph_done, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_set_conf(g, graph_done, graph_failed, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_get_user_data(g, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(ud.u64, 5);
	ASSERT_OK(doca_graph_set_user_data(g, (union doca_data){.u64 = 77}));
	ASSERT_OK(doca_graph_get_user_data(g, &ud));
	ASSERT_EQ(ud.u64, 77);
	ASSERT_OK(doca_graph_destroy(g));
	ASSERT_ERR(doca_graph_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	env_close(&e);
}

TEST(graph_node_create_refusals)
{
	struct doca_graph_node *n = SENTINEL, *c = NULL;
	struct doca_graph *g;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	ASSERT_ERR(doca_graph_node_create_from_ctx(NULL, e.ctx, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_node_create_from_ctx(g, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_node_create_from_ctx(g, e.ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_node_create_from_user(g, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_node_create_from_graph(g, NULL, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(n, SENTINEL);
	ASSERT_OK(doca_graph_node_create_from_ctx(g, e.ctx, &c));
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_start(g)); /* already started */
	ASSERT_ERR(doca_graph_node_create_from_ctx(g, e.ctx, &n), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_node_create_from_user(g, user_node, &n), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_node_create_from_graph(g, g, &n), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_set_conf(g, graph_done, graph_failed, 2), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_set_user_data(g, (union doca_data){.u64 = 1}), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(n, SENTINEL);
	/* Stopped, the graph takes nodes again. */
	ASSERT_OK(doca_graph_stop(g));
	ASSERT_OK(doca_graph_stop(g)); /* already stopped */
	ASSERT_OK(doca_graph_node_create_from_user(g, user_node, &n));
	ASSERT_OK(doca_graph_add_dependency(g, c, n));
	ASSERT_OK(doca_graph_destroy(g));
	env_close(&e);
}

TEST(graph_dependency_refusals)
{
	struct doca_graph_node *a, *b, *c, *foreign;
	struct doca_graph *g, *other;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	other = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_ctx(g, e.ctx, &a));
	ASSERT_OK(doca_graph_node_create_from_user(g, user_node, &b));
	ASSERT_OK(doca_graph_node_create_from_user(g, user_node, &c));
	ASSERT_OK(doca_graph_node_create_from_user(other, user_node, &foreign));
	ASSERT_ERR(doca_graph_add_dependency(NULL, a, b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_add_dependency(g, NULL, b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_add_dependency(g, a, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_add_dependency(g, a, foreign), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_add_dependency(other, a, foreign), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_add_dependency(g, a, a), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_graph_add_dependency(g, a, b));
	ASSERT_OK(doca_graph_add_dependency(g, a, b)); /* again: no change */
	ASSERT_OK(doca_graph_add_dependency(g, b, c));
	ASSERT_ERR(doca_graph_add_dependency(g, c, a), DOCA_ERROR_NOT_PERMITTED); /* a -> b -> c -> a */
	ASSERT_ERR(doca_graph_add_dependency(g, b, a), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_graph_add_dependency(g, a, c)); /* a shortcut is no cycle */
	ASSERT_OK(doca_graph_start(g));
	ASSERT_ERR(doca_graph_add_dependency(g, b, c), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_graph_stop(g));
	ASSERT_OK(doca_graph_destroy(g));
	ASSERT_OK(doca_graph_destroy(other));
	env_close(&e);
}

/* A second PE with a started DMA context of its own. */
struct other_pe {
	struct doca_pe *pe;
	struct doca_dma *dma;
};

static void
other_pe_open(struct other_pe *o, struct env *e)
{
	ASSERT_OK(doca_pe_create(&o->pe));
	ASSERT_OK(doca_dma_create(e->dev, &o->dma));
	ASSERT_OK(doca_dma_task_memcpy_set_conf(o->dma, ok_cb, err_cb, 4));
	ASSERT_OK(doca_pe_connect_ctx(o->pe, doca_dma_as_ctx(o->dma)));
	ASSERT_OK(doca_ctx_start(doca_dma_as_ctx(o->dma)));
}

static void
other_pe_close(struct other_pe *o)
{
	ASSERT_OK(doca_ctx_stop(doca_dma_as_ctx(o->dma)));
	ASSERT_OK(doca_dma_destroy(o->dma));
	ASSERT_OK(doca_pe_destroy(o->pe));
}

TEST(graph_start_refusals)
{
	struct doca_graph_node *n, *u;
	struct doca_graph *g;
	struct other_pe o;
	struct env e;

	graph_env_open(&e);
	other_pe_open(&o, &e);
	ASSERT_ERR(doca_graph_start(NULL), DOCA_ERROR_INVALID_VALUE);
	/* No set_conf. */
	ASSERT_OK(doca_graph_create(e.pe, &g));
	ASSERT_OK(doca_graph_node_create_from_ctx(g, e.ctx, &n));
	ASSERT_ERR(doca_graph_start(g), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_graph_destroy(g));
	/* No node, then only user nodes. */
	g = new_graph(&e, 1);
	ASSERT_ERR(doca_graph_start(g), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_graph_node_create_from_user(g, user_node, &u));
	ASSERT_ERR(doca_graph_start(g), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_graph_destroy(g));
	/* A context connected to another PE. */
	g = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_ctx(g, doca_dma_as_ctx(o.dma), &n));
	ASSERT_ERR(doca_graph_start(g), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_graph_destroy(g));
	/* A context that is not RUNNING. */
	g = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_ctx(g, e.ctx, &n));
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_ERR(doca_graph_start(g), DOCA_ERROR_BAD_STATE);
	env_start(&e);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_stop(g));
	ASSERT_OK(doca_graph_destroy(g));
	other_pe_close(&o);
	env_close(&e);
}

TEST(graph_sub_graph_rules)
{
	struct doca_graph_node *n = SENTINEL, *c;
	struct doca_graph *sub, *parent, *elsewhere;
	struct other_pe o;
	struct env e;

	graph_env_open(&e);
	other_pe_open(&o, &e);
	sub = new_graph(&e, 1);
	parent = new_graph(&e, 1);
	ASSERT_OK(doca_graph_create(o.pe, &elsewhere));
	ASSERT_OK(doca_graph_node_create_from_ctx(sub, e.ctx, &c));
	ASSERT_ERR(doca_graph_node_create_from_graph(sub, sub, &n), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_graph_node_create_from_graph(parent, sub, &n), DOCA_ERROR_BAD_STATE); /* not started */
	ASSERT_OK(doca_graph_start(sub));
	ASSERT_ERR(doca_graph_node_create_from_graph(elsewhere, sub, &n), DOCA_ERROR_NOT_PERMITTED); /* other PE */
	ASSERT_PTR_EQ(n, SENTINEL);
	ASSERT_OK(doca_graph_node_create_from_graph(parent, sub, &n));
	/* A started sub-graph node counts as the context node. */
	ASSERT_OK(doca_graph_start(parent));
	ASSERT_ERR(doca_graph_stop(sub), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_graph_destroy(sub), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_graph_stop(parent));
	ASSERT_OK(doca_graph_stop(sub));
	ASSERT_ERR(doca_graph_destroy(sub), DOCA_ERROR_IN_USE);	    /* parent still has a node of it */
	ASSERT_ERR(doca_graph_start(parent), DOCA_ERROR_BAD_STATE); /* its sub-graph is stopped */
	ASSERT_OK(doca_graph_destroy(parent));
	ASSERT_OK(doca_graph_destroy(sub));
	ASSERT_OK(doca_graph_destroy(elsewhere));
	other_pe_close(&o);
	env_close(&e);
}

TEST(graph_instance_refusals)
{
	struct doca_graph_instance *inst = SENTINEL, *i2, *i3;
	struct doca_graph_node *c, *u, *foreign;
	union doca_data ud = {.u64 = 9};
	struct doca_dma_task_memcpy *foreign_task;
	struct doca_graph *g, *other;
	struct doca_buf *dst;
	struct other_pe o;
	struct env e;

	graph_env_open(&e);
	other_pe_open(&o, &e);
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(o.dma, src_buf(&e, 0, 64, 1), dst_buf(&e, 8192, 64),
						  (union doca_data){.u64 = 0}, &foreign_task));
	g = new_graph(&e, 2);
	other = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_ctx(g, e.ctx, &c));
	ASSERT_OK(doca_graph_node_create_from_user(g, user_node, &u));
	ASSERT_OK(doca_graph_node_create_from_user(other, user_node, &foreign));
	ASSERT_ERR(doca_graph_instance_create(g, &inst), DOCA_ERROR_BAD_STATE); /* not started */
	ASSERT_ERR(doca_graph_instance_create(NULL, &inst), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(inst, SENTINEL);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_ERR(doca_graph_instance_create(g, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	ASSERT_OK(doca_graph_instance_create(g, &i2));
	ASSERT_ERR(doca_graph_instance_create(g, &i3), DOCA_ERROR_NO_MEMORY); /* num_instances is 2 */
	ASSERT_OK(doca_graph_instance_destroy(i2));

	/* Node data: the right kind, of this graph, a task of the node's context. */
	ASSERT_ERR(doca_graph_instance_set_ctx_node_data(inst, c, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_instance_set_ctx_node_data(NULL, c, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_instance_set_user_node_data(inst, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_graph_instance_set_user_node_data(inst, c, NULL), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_graph_instance_set_user_node_data(inst, foreign, NULL), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_graph_instance_set_ctx_node_data(inst, u, copy_task(&e, 0, 4096, 64, &dst)),
		   DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_graph_instance_set_ctx_node_data(inst, c, doca_dma_task_memcpy_as_task(foreign_task)),
		   DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_graph_instance_set_sub_graph_node_data(inst, u, inst), DOCA_ERROR_NOT_PERMITTED);

	/* A node without data. */
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, c, copy_task(&e, 0, 4096, 64, &dst)));
	ASSERT_ERR(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_instance_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, u, COOKIE(1)));

	/* Submitted: no data change, no second submit, no destroy. */
	ASSERT_OK(doca_graph_instance_submit(inst));
	ASSERT_ERR(doca_graph_instance_submit(inst), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_graph_instance_set_user_node_data(inst, u, COOKIE(2)), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_instance_set_user_data(inst, ud), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_graph_instance_destroy(inst), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_graph_stop(g), DOCA_ERROR_IN_USE);
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.completed, 1);
	ASSERT_OK(doca_graph_instance_set_user_data(inst, ud));
	ud.u64 = 0;
	ASSERT_ERR(doca_graph_instance_get_user_data(inst, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_graph_instance_get_user_data(inst, &ud));
	ASSERT_EQ(ud.u64, 9);
	ASSERT_ERR(doca_graph_stop(g), DOCA_ERROR_IN_USE); /* the instance still exists */
	ASSERT_ERR(doca_graph_instance_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_graph_instance_destroy(inst));
	ASSERT_OK(doca_graph_stop(g));
	ASSERT_OK(doca_graph_destroy(g));
	ASSERT_OK(doca_graph_destroy(other));
	other_pe_close(&o);
	env_close(&e);
}

TEST(graph_submit_refuses_unready_tasks)
{
	struct doca_graph_instance *inst;
	struct doca_graph_node *c;
	struct doca_task *task;
	struct doca_graph *g;
	struct doca_buf *dst;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_ctx(g, e.ctx, &c));
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	task = copy_task(&e, 0, 4096, 64, &dst);
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, c, task));
	/* The task is in flight outside the graph. */
	ASSERT_OK(doca_task_submit(task));
	ASSERT_ERR(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	results.free_tasks = false;
	progress_until(e.pe, &results.ok, 1);
	/* The context is stopped. */
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_ERR(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	env_start(&e);
	ASSERT_OK(doca_buf_reset_data_len(dst)); /* the direct run filled it */
	ASSERT_OK(doca_graph_instance_submit(inst));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.completed, 1);
	ASSERT_EQ(results.ok, 1); /* the graph's run called no task callback */
	ASSERT_OK(doca_graph_instance_destroy(inst));
	ASSERT_OK(doca_graph_stop(g));
	ASSERT_OK(doca_graph_destroy(g));
	env_close(&e);
}

TEST(graph_destroy_order_refusals)
{
	struct doca_graph_instance *pi, *si;
	struct doca_graph_node *c, *sn;
	struct doca_graph *sub, *parent, *lone;
	struct doca_pe *pe2;
	struct doca_buf *dst;
	struct env e;

	graph_env_open(&e);
	/* A PE with a graph and no context. */
	ASSERT_OK(doca_pe_create(&pe2));
	ASSERT_OK(doca_graph_create(pe2, &lone));
	ASSERT_ERR(doca_pe_destroy(pe2), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_graph_destroy(lone));
	ASSERT_OK(doca_pe_destroy(pe2));

	sub = new_graph(&e, 1);
	parent = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_ctx(sub, e.ctx, &c));
	ASSERT_OK(doca_graph_start(sub));
	ASSERT_OK(doca_graph_node_create_from_graph(parent, sub, &sn));
	ASSERT_OK(doca_graph_start(parent));
	ASSERT_OK(doca_graph_instance_create(parent, &pi));
	ASSERT_OK(doca_graph_instance_create(sub, &si));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(si, c, copy_task(&e, 0, 4096, 64, &dst)));
	ASSERT_OK(doca_graph_instance_set_sub_graph_node_data(pi, sn, si));

	/* Owned by pi: si runs only through it and goes after it. */
	ASSERT_ERR(doca_graph_instance_submit(si), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(doca_graph_instance_destroy(si), DOCA_ERROR_IN_USE);
	/* The context and the graphs are in use. */
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_ERR(doca_dma_destroy(e.dma), DOCA_ERROR_IN_USE);
	env_start(&e);
	ASSERT_ERR(doca_graph_destroy(parent), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_graph_stop(parent), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_graph_stop(sub), DOCA_ERROR_IN_USE);

	ASSERT_OK(doca_graph_instance_destroy(pi));
	ASSERT_OK(doca_graph_instance_destroy(si));
	ASSERT_OK(doca_graph_stop(parent));
	ASSERT_OK(doca_graph_stop(sub));
	ASSERT_ERR(doca_graph_destroy(sub), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_graph_destroy(parent));
	ASSERT_OK(doca_graph_destroy(sub));
	env_close(&e); /* the context and the PE go now */
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
