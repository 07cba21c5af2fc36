/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Graph instances: creation and destruction, their user data, the data of each
 * node (a task, a cookie, a sub-graph instance) and the checks of
 * doca_graph_instance_submit() before graph_run.c runs the instance.
 */
#include <stdlib.h>

#include <doca_graph.h>

#include "graph_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.graph_instance)

/* The call that sets the data of a node of this kind, for log lines. */
static const char *
setter_name(enum sd_graph_node_kind kind)
{
	static const char *const names[] = {
		[SD_GRAPH_NODE_CTX] = "doca_graph_instance_set_ctx_node_data",
		[SD_GRAPH_NODE_USER] = "doca_graph_instance_set_user_node_data",
		[SD_GRAPH_NODE_SUB] = "doca_graph_instance_set_sub_graph_node_data",
	};

	return (unsigned)kind < SD_ARRAY_SIZE(names) ? names[kind] : "?";
}

doca_error_t
doca_graph_instance_create(const struct doca_graph *graph, struct doca_graph_instance **graph_instance)
{
	struct doca_graph *g = (struct doca_graph *)(uintptr_t)graph; /* counts its instances */
	struct doca_graph_instance *inst;

	if (graph == NULL || graph_instance == NULL) {
		DOCA_LOG_ERR("doca_graph_instance_create: NULL argument (graph=%p, graph_instance=%p)",
			     (const void *)graph, (void *)graph_instance);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!graph->started) {
		DOCA_LOG_ERR("doca_graph_instance_create: graph %p is not started; call doca_graph_start() first",
			     (const void *)graph);
		return DOCA_ERROR_BAD_STATE;
	}
	if (graph->num_instances >= graph->max_instances) {
		DOCA_LOG_ERR("doca_graph_instance_create: graph %p already has its %u instances (doca_graph_set_conf); "
			     "destroy one or configure more",
			     (const void *)graph, graph->max_instances);
		return DOCA_ERROR_NO_MEMORY;
	}
	inst = calloc(1, sizeof(*inst) + graph->num_nodes * sizeof(inst->slots[0]));
	if (inst == NULL) {
		DOCA_LOG_ERR("doca_graph_instance_create: out of memory for an instance of %u nodes", graph->num_nodes);
		return DOCA_ERROR_NO_MEMORY;
	}
	inst->end.kind = SD_GRAPH_WORK_END;
	sd_list_init(&inst->end.link);
	inst->graph = g;
	inst->num_slots = graph->num_nodes;
	for (uint32_t i = 0; i < inst->num_slots; i++) {
		struct sd_graph_slot *slot = &inst->slots[i];

		slot->work.kind = SD_GRAPH_WORK_SLOT;
		sd_list_init(&slot->work.link);
		slot->inst = inst;
		slot->node = graph->nodes[i];
	}
	g->num_instances++;
	*graph_instance = inst;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_destroy(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;

	if (inst == NULL) {
		DOCA_LOG_ERR("doca_graph_instance_destroy: graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inst->submitted) {
		DOCA_LOG_ERR("doca_graph_instance_destroy: instance %p is submitted; destroy it after its completion "
			     "or error callback",
			     (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	if (inst->owner != NULL) {
		DOCA_LOG_ERR(
			"doca_graph_instance_destroy: instance %p is the data of sub-graph node %u of instance %p; "
			"destroy that instance first",
			(void *)inst, inst->owner->node->index, (void *)inst->owner->inst);
		return DOCA_ERROR_IN_USE;
	}
	/* The sub-graph instances it ran are free again. */
	for (uint32_t i = 0; i < inst->num_slots; i++)
		if (inst->slots[i].node->kind == SD_GRAPH_NODE_SUB && inst->slots[i].data_set)
			inst->slots[i].data.sub->owner = NULL;
	inst->graph->num_instances--;
	free(inst);
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance, union doca_data user_data)
{
	if (graph_instance == NULL) {
		DOCA_LOG_ERR("doca_graph_instance_set_user_data: graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (graph_instance->submitted) {
		DOCA_LOG_ERR("doca_graph_instance_set_user_data: instance %p is submitted; set its user data before "
			     "doca_graph_instance_submit() or from its callback",
			     (void *)graph_instance);
		return DOCA_ERROR_IN_USE;
	}
	graph_instance->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance, union doca_data *user_data)
{
	if (graph_instance == NULL || user_data == NULL) {
		DOCA_LOG_ERR("doca_graph_instance_get_user_data: NULL argument (graph_instance=%p, out=%p)",
			     (const void *)graph_instance, (void *)user_data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = graph_instance->user_data;
	return DOCA_SUCCESS;
}

/* --- node data ---------------------------------------------------------------------- */

/* The slot of node in inst, if data of this kind may be set on it now (else logged, NULL in *slot). */
static doca_error_t
data_slot(struct doca_graph_instance *inst, const struct doca_graph_node *node, enum sd_graph_node_kind kind,
	  bool data_given, struct sd_graph_slot **slot)
{
	const char *api = setter_name(kind);

	*slot = NULL;
	if (inst == NULL || node == NULL || !data_given) {
		DOCA_LOG_ERR("%s: NULL argument (graph_instance=%p, node=%p, data %s)", api, (void *)inst,
			     (const void *)node, data_given ? "set" : "NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inst->submitted) {
		DOCA_LOG_ERR("%s: instance %p is submitted; change its node data from its callback or before "
			     "submitting it",
			     api, (void *)inst);
		return DOCA_ERROR_BAD_STATE;
	}
	if (node->graph != inst->graph) {
		DOCA_LOG_ERR(
			"%s: node %p belongs to graph %p, instance %p to graph %p; use the nodes of the graph that "
			"created the instance",
			api, (const void *)node, (void *)node->graph, (void *)inst, (void *)inst->graph);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (node->kind != kind) {
		DOCA_LOG_ERR("%s: node %u is a %s node; set its data with %s()", api, node->index,
			     sd_graph_node_kind_name(node->kind), setter_name(node->kind));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*slot = &inst->slots[node->index];
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance, struct doca_graph_node *node,
				      struct doca_task *task)
{
	struct sd_graph_slot *slot;
	doca_error_t err = data_slot(graph_instance, node, SD_GRAPH_NODE_CTX, task != NULL, &slot);

	if (err != DOCA_SUCCESS)
		return err;
	if (task->ctx != node->u.ctx) {
		DOCA_LOG_ERR("doca_graph_instance_set_ctx_node_data: the task is of a %s context %p, node %u runs "
			     "tasks of %s context %p; allocate the task from the node's context",
			     task->ctx->run_ops.name, (void *)task->ctx, node->index, node->u.ctx->run_ops.name,
			     (void *)node->u.ctx);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	slot->data.task = task;
	slot->data_set = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance, struct doca_graph_node *node,
				       void *cookie)
{
	struct sd_graph_slot *slot;
	doca_error_t err = data_slot(graph_instance, node, SD_GRAPH_NODE_USER, true, &slot);

	if (err != DOCA_SUCCESS)
		return err;
	slot->data.cookie = cookie;
	slot->data_set = true;
	return DOCA_SUCCESS;
}

/* Why sub cannot become the data of slot (logged), or SUCCESS. */
static doca_error_t
sub_check(const struct sd_graph_slot *slot, const struct doca_graph_instance *sub)
{
	static const char api[] = "doca_graph_instance_set_sub_graph_node_data";

	if (sub->graph != slot->node->u.sub) {
		DOCA_LOG_ERR(
			"%s: instance %p is of graph %p, node %u runs graph %p; create the instance from the node's "
			"sub-graph",
			api, (const void *)sub, (void *)sub->graph, slot->node->index, (void *)slot->node->u.sub);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (sub->submitted) {
		DOCA_LOG_ERR("%s: instance %p is submitted; wait for its callback", api, (const void *)sub);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (sub->owner != NULL && sub->owner != slot) {
		DOCA_LOG_ERR("%s: instance %p is already the data of node %u of instance %p; give each sub-graph node "
			     "an instance of its own",
			     api, (const void *)sub, sub->owner->node->index, (void *)sub->owner->inst);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance, struct doca_graph_node *node,
					    struct doca_graph_instance *sub_graph_instance)
{
	struct sd_graph_slot *slot;
	doca_error_t err = data_slot(graph_instance, node, SD_GRAPH_NODE_SUB, sub_graph_instance != NULL, &slot);

	if (err != DOCA_SUCCESS)
		return err;
	err = sub_check(slot, sub_graph_instance);
	if (err != DOCA_SUCCESS)
		return err;
	if (slot->data_set)
		slot->data.sub->owner = NULL;
	slot->data.sub = sub_graph_instance;
	slot->data_set = true;
	sub_graph_instance->owner = slot;
	return DOCA_SUCCESS;
}

/* --- submit ------------------------------------------------------------------------- */

/* Can inst run now: every node has data, every task can be submitted (sub-graphs too)?  Logged. */
static doca_error_t
instance_check(const struct doca_graph_instance *inst)
{
	static const char api[] = "doca_graph_instance_submit";
	doca_error_t err;

	for (uint32_t i = 0; i < inst->num_slots; i++) {
		const struct sd_graph_slot *slot = &inst->slots[i];

		if (!slot->data_set) {
			DOCA_LOG_ERR("%s: %s node %u of instance %p has no data; call %s() first", api,
				     sd_graph_node_kind_name(slot->node->kind), i, (const void *)inst,
				     setter_name(slot->node->kind));
			return DOCA_ERROR_BAD_STATE;
		}
		if (slot->node->kind == SD_GRAPH_NODE_CTX)
			err = sd_task_graph_check(slot->data.task, api); /* logs the task's or ctx's state */
		else if (slot->node->kind == SD_GRAPH_NODE_SUB)
			err = instance_check(slot->data.sub);
		else
			err = DOCA_SUCCESS;
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_graph_instance_submit(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;
	doca_error_t err;

	if (inst == NULL) {
		DOCA_LOG_ERR("doca_graph_instance_submit: graph_instance is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inst->submitted) {
		DOCA_LOG_ERR("doca_graph_instance_submit: instance %p is already submitted; resubmit it from its "
			     "callback or later",
			     (void *)inst);
		return DOCA_ERROR_IN_USE;
	}
	if (inst->owner != NULL) {
		DOCA_LOG_ERR("doca_graph_instance_submit: instance %p is the data of sub-graph node %u of instance %p, "
			     "which runs it; submit that instance",
			     (void *)inst, inst->owner->node->index, (void *)inst->owner->inst);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = instance_check(inst);
	if (err != DOCA_SUCCESS)
		return err;
	return sd_graph_instance_run(inst);
}
