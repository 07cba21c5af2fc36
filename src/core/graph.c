/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DOCA graph object: its configuration, its nodes and their dependencies,
 * and start / stop, which freeze and unfreeze its shape (graph_internal.h).
 * Instances and runs are in graph_instance.c and graph_run.c.
 */
#include <stdlib.h>

#include <doca_graph.h>

#include "graph_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.graph)

const char *
sd_graph_node_kind_name(enum sd_graph_node_kind kind)
{
	static const char *const names[] = {
		[SD_GRAPH_NODE_CTX] = "ctx",
		[SD_GRAPH_NODE_USER] = "user",
		[SD_GRAPH_NODE_SUB] = "sub-graph",
	};

	return (unsigned)kind < SD_ARRAY_SIZE(names) ? names[kind] : "?";
}

doca_error_t
doca_graph_create(struct doca_pe *pe, struct doca_graph **graph)
{
	struct doca_graph *g;

	if (pe == NULL || graph == NULL) {
		DOCA_LOG_ERR("doca_graph_create: NULL argument (pe=%p, graph=%p)", (void *)pe, (void *)graph);
		return DOCA_ERROR_INVALID_VALUE;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		DOCA_LOG_ERR("doca_graph_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	g->pe = pe;
	pe->num_graphs++;
	*graph = g;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_destroy(struct doca_graph *graph)
{
	if (graph == NULL) {
		DOCA_LOG_ERR("doca_graph_destroy: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph->started) {
		DOCA_LOG_ERR("doca_graph_destroy: graph %p is started; call doca_graph_stop() first", (void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph->num_parent_graphs != 0) {
		DOCA_LOG_ERR("doca_graph_destroy: graph %p is the sub-graph of nodes of %u graphs; destroy them first",
			     (void *)graph, graph->num_parent_graphs);
		return DOCA_ERROR_IN_USE;
	}
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		struct doca_graph_node *node = graph->nodes[i];

		if (node->kind == SD_GRAPH_NODE_CTX)
			node->u.ctx->graph_refs--;
		else if (node->kind == SD_GRAPH_NODE_SUB)
			node->u.sub->num_parent_graphs--;
		free(node->children);
		free(node);
	}
	free(graph->nodes);
	graph->pe->num_graphs--;
	free(graph);
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_set_conf(struct doca_graph *graph, doca_graph_completion_cb_t graph_completion_cb,
		    doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances)
{
	if (graph == NULL || graph_completion_cb == NULL || graph_error_cb == NULL) {
		DOCA_LOG_ERR("doca_graph_set_conf: NULL argument (graph=%p, completion cb %s, error cb %s); the graph "
			     "and both callbacks are required",
			     (void *)graph, graph_completion_cb == NULL ? "NULL" : "set",
			     graph_error_cb == NULL ? "NULL" : "set");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (num_instances == 0) {
		DOCA_LOG_ERR("doca_graph_set_conf: num_instances is 0; allow at least one instance");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph->started) {
		DOCA_LOG_ERR("doca_graph_set_conf: graph %p is started; configure it before doca_graph_start()",
			     (void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	graph->completion_cb = graph_completion_cb;
	graph->error_cb = graph_error_cb;
	graph->max_instances = num_instances;
	graph->configured = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data)
{
	if (graph == NULL) {
		DOCA_LOG_ERR("doca_graph_set_user_data: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph->started) {
		DOCA_LOG_ERR(
			"doca_graph_set_user_data: graph %p is started; set its user data before doca_graph_start()",
			(void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	graph->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data)
{
	if (graph == NULL || user_data == NULL) {
		DOCA_LOG_ERR("doca_graph_get_user_data: NULL argument (graph=%p, out=%p)", (const void *)graph,
			     (void *)user_data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = graph->user_data;
	return DOCA_SUCCESS;
}

/* --- nodes ------------------------------------------------------------------------- */

/* Append a node of this kind to graph (not started, arguments checked); NULL when out of memory. */
static struct doca_graph_node *
node_add(struct doca_graph *graph, enum sd_graph_node_kind kind, const char *api)
{
	struct doca_graph_node *node;

	if (graph->num_nodes == graph->cap_nodes) {
		uint32_t cap = graph->cap_nodes != 0 ? graph->cap_nodes * 2 : 8;
		struct doca_graph_node **nodes = realloc(graph->nodes, cap * sizeof(*nodes));

		if (nodes == NULL)
			goto no_memory;
		graph->nodes = nodes;
		graph->cap_nodes = cap;
	}
	node = calloc(1, sizeof(*node));
	if (node == NULL)
		goto no_memory;
	node->graph = graph;
	node->kind = kind;
	node->index = graph->num_nodes;
	graph->nodes[graph->num_nodes++] = node;
	return node;

no_memory:
	DOCA_LOG_ERR("%s: out of memory for node %u of graph %p", api, graph->num_nodes, (void *)graph);
	return NULL;
}

/* The checks every node_create_* starts with. */
static doca_error_t
node_create_check(const struct doca_graph *graph, bool what_set, const char *what, struct doca_graph_node **node,
		  const char *api)
{
	if (graph == NULL || !what_set || node == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (graph=%p, %s %s, node=%p)", api, (const void *)graph, what,
			     what_set ? "set" : "NULL", (void *)node);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph->started) {
		DOCA_LOG_ERR(
			"%s: graph %p is started; add nodes before doca_graph_start() (or after doca_graph_stop())",
			api, (const void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx, struct doca_graph_node **node)
{
	static const char api[] = "doca_graph_node_create_from_ctx";
	doca_error_t err = node_create_check(graph, ctx != NULL, "ctx", node, api);
	struct doca_graph_node *n;

	if (err != DOCA_SUCCESS)
		return err;
	n = node_add(graph, SD_GRAPH_NODE_CTX, api);
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	/* The graph keeps a reference (the ctx is const to the caller, not to its bookkeeping). */
	n->u.ctx = (struct doca_ctx *)(uintptr_t)ctx;
	n->u.ctx->graph_refs++;
	*node = n;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_node_create_from_user(struct doca_graph *graph, doca_graph_user_node_cb_t cb, struct doca_graph_node **node)
{
	static const char api[] = "doca_graph_node_create_from_user";
	doca_error_t err = node_create_check(graph, cb != NULL, "cb", node, api);
	struct doca_graph_node *n;

	if (err != DOCA_SUCCESS)
		return err;
	n = node_add(graph, SD_GRAPH_NODE_USER, api);
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	n->u.cb = cb;
	*node = n;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_node_create_from_graph(struct doca_graph *graph, struct doca_graph *sub_graph, struct doca_graph_node **node)
{
	static const char api[] = "doca_graph_node_create_from_graph";
	doca_error_t err = node_create_check(graph, sub_graph != NULL, "sub_graph", node, api);
	struct doca_graph_node *n;

	if (err != DOCA_SUCCESS)
		return err;
	/*
	 * Only the graph itself can close a cycle: a started sub-graph's own
	 * sub-graphs are started and stay so while it is (doca_graph_stop), so none
	 * of them is this graph, which is not started.
	 */
	if (sub_graph == graph) {
		DOCA_LOG_ERR("%s: graph %p cannot be a sub-graph of itself; use another graph", api, (void *)graph);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (sub_graph->pe != graph->pe) {
		DOCA_LOG_ERR("%s: sub-graph %p is bound to PE %p, graph %p to PE %p; use graphs of one PE", api,
			     (void *)sub_graph, (void *)sub_graph->pe, (void *)graph, (void *)graph->pe);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!sub_graph->started) {
		DOCA_LOG_ERR("%s: sub-graph %p is not started; call doca_graph_start() on it first", api,
			     (void *)sub_graph);
		return DOCA_ERROR_BAD_STATE;
	}
	n = node_add(graph, SD_GRAPH_NODE_SUB, api);
	if (n == NULL)
		return DOCA_ERROR_NO_MEMORY;
	n->u.sub = sub_graph;
	sub_graph->num_parent_graphs++;
	*node = n;
	return DOCA_SUCCESS;
}

/* --- dependencies ------------------------------------------------------------------- */

/* Can target be reached from start along dependencies?  NO_MEMORY, or SUCCESS with *found. */
static doca_error_t
reaches(struct doca_graph *graph, struct doca_graph_node *start, const struct doca_graph_node *target, bool *found)
{
	struct doca_graph_node **stack = malloc(graph->num_nodes * sizeof(*stack));
	uint32_t depth = 0;

	if (stack == NULL)
		return DOCA_ERROR_NO_MEMORY;
	*found = false;
	graph->visit++;
	start->visit = graph->visit;
	stack[depth++] = start;
	while (depth != 0 && !*found) {
		struct doca_graph_node *node = stack[--depth];

		for (uint32_t i = 0; i < node->num_children; i++) {
			struct doca_graph_node *child = node->children[i];

			if (child == target)
				*found = true;
			if (child->visit != graph->visit) {
				child->visit = graph->visit;
				stack[depth++] = child;
			}
		}
	}
	free(stack);
	return DOCA_SUCCESS;
}

static bool
has_child(const struct doca_graph_node *node, const struct doca_graph_node *child)
{
	for (uint32_t i = 0; i < node->num_children; i++)
		if (node->children[i] == child)
			return true;
	return false;
}

/* Why from -> to cannot be added, or SUCCESS. */
static doca_error_t
dependency_check(struct doca_graph *graph, struct doca_graph_node *from, struct doca_graph_node *to)
{
	static const char api[] = "doca_graph_add_dependency";
	bool cycle = from == to;
	doca_error_t err;

	if (graph == NULL || from == NULL || to == NULL || from->graph != graph || to->graph != graph) {
		DOCA_LOG_ERR("%s: NULL argument or node of another graph (graph=%p, from=%p of %p, to=%p of %p); use "
			     "nodes created on this graph",
			     api, (void *)graph, (void *)from, from != NULL ? (void *)from->graph : NULL, (void *)to,
			     to != NULL ? (void *)to->graph : NULL);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph->started) {
		DOCA_LOG_ERR("%s: graph %p is started; add dependencies before doca_graph_start()", api, (void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	if (!cycle) {
		err = reaches(graph, to, from, &cycle);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("%s: out of memory while looking for a cycle", api);
			return err;
		}
	}
	if (cycle) {
		DOCA_LOG_ERR("%s: node %u -> node %u would close a cycle (node %u already waits for node %u); a graph "
			     "must be acyclic",
			     api, from->index, to->index, from->index, to->index);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from, struct doca_graph_node *to)
{
	doca_error_t err = dependency_check(graph, from, to);

	if (err != DOCA_SUCCESS)
		return err;
	if (has_child(from, to))
		return DOCA_SUCCESS;
	if (from->num_children == from->cap_children) {
		uint32_t cap = from->cap_children != 0 ? from->cap_children * 2 : 4;
		struct doca_graph_node **children = realloc(from->children, cap * sizeof(*children));

		if (children == NULL) {
			DOCA_LOG_ERR("doca_graph_add_dependency: out of memory for the dependents of node %u",
				     from->index);
			return DOCA_ERROR_NO_MEMORY;
		}
		from->children = children;
		from->cap_children = cap;
	}
	from->children[from->num_children++] = to;
	to->num_parents++;
	return DOCA_SUCCESS;
}

/* --- start / stop -------------------------------------------------------------------- */

/* Why node keeps the graph from starting (logged), or SUCCESS. */
static doca_error_t
start_check_node(const struct doca_graph *graph, const struct doca_graph_node *node)
{
	static const char api[] = "doca_graph_start";
	const struct doca_ctx *ctx = node->u.ctx;

	if (node->kind == SD_GRAPH_NODE_SUB && !node->u.sub->started) {
		DOCA_LOG_ERR("%s: the sub-graph %p of node %u is not started; start it before graph %p", api,
			     (void *)node->u.sub, node->index, (const void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	if (node->kind != SD_GRAPH_NODE_CTX)
		return DOCA_SUCCESS;
	if (ctx->pe != graph->pe) {
		DOCA_LOG_ERR(
			"%s: the %s context of node %u is connected to PE %p, the graph is bound to PE %p; connect "
			"the context (doca_pe_connect_ctx) to the graph's PE",
			api, ctx->run_ops.name, node->index, (void *)ctx->pe, (void *)graph->pe);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (ctx->state != DOCA_CTX_STATE_RUNNING) {
		DOCA_LOG_ERR(
			"%s: the %s context of node %u is %s; start it (doca_ctx_start) and wait for RUNNING before "
			"the graph",
			api, ctx->run_ops.name, node->index, sd_ctx_state_name(ctx->state));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* Why graph cannot start (logged), or SUCCESS. */
static doca_error_t
start_check(const struct doca_graph *graph)
{
	bool has_ctx_node = false;
	doca_error_t err;

	if (!graph->configured) {
		DOCA_LOG_ERR("doca_graph_start: graph %p has no callbacks; call doca_graph_set_conf() first",
			     (const void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		const struct doca_graph_node *node = graph->nodes[i];

		err = start_check_node(graph, node);
		if (err != DOCA_SUCCESS)
			return err;
		/* A started sub-graph has a context node itself. */
		has_ctx_node |= node->kind != SD_GRAPH_NODE_USER;
	}
	if (!has_ctx_node) {
		DOCA_LOG_ERR("doca_graph_start: graph %p has %u nodes and no context node; add one "
			     "(doca_graph_node_create_from_ctx)",
			     (const void *)graph, graph->num_nodes);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_start(struct doca_graph *graph)
{
	doca_error_t err;

	if (graph == NULL) {
		DOCA_LOG_ERR("doca_graph_start: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph->started)
		return DOCA_SUCCESS;
	/* Cycles never get this far: doca_graph_add_dependency and create_from_graph refuse them. */
	err = start_check(graph);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		if (graph->nodes[i]->kind == SD_GRAPH_NODE_SUB)
			graph->nodes[i]->u.sub->num_started_parents++;
	graph->started = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_stop(struct doca_graph *graph)
{
	if (graph == NULL) {
		DOCA_LOG_ERR("doca_graph_stop: graph is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!graph->started)
		return DOCA_SUCCESS;
	if (graph->num_instances != 0) {
		DOCA_LOG_ERR("doca_graph_stop: graph %p has %u instances; destroy them (doca_graph_instance_destroy) "
			     "first",
			     (void *)graph, graph->num_instances);
		return DOCA_ERROR_IN_USE;
	}
	if (graph->num_started_parents != 0) {
		DOCA_LOG_ERR("doca_graph_stop: graph %p is the sub-graph of %u started graphs; stop them first",
			     (void *)graph, graph->num_started_parents);
		return DOCA_ERROR_IN_USE;
	}
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		if (graph->nodes[i]->kind == SD_GRAPH_NODE_SUB)
			graph->nodes[i]->u.sub->num_started_parents--;
	graph->started = false;
	return DOCA_SUCCESS;
}
