/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run of a submitted graph instance: roots first, then every node whose
 * parents are all DONE; tasks go to their contexts at once, user functions and
 * the report of an ended instance wait for doca_pe_progress() on the PE's
 * graph_work list (the state machine is drawn in graph_internal.h).
 */
#include <doca_graph.h>

#include "graph_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.graph_run)

static void slot_finish(struct sd_graph_slot *slot, doca_error_t status);

static void
queue_work(struct doca_graph_instance *inst, struct sd_graph_work *work)
{
	sd_list_insert_tail(&inst->graph->pe->graph_work, &work->link);
}

/* One slot (or the start) less holds the instance open; the last one queues the end of the run. */
static void
instance_release(struct doca_graph_instance *inst)
{
	if (--inst->active == 0)
		queue_work(inst, &inst->end);
}

/*
 * The first failure of a run: nothing starts any more, in this instance or in the
 * sub-graph instances it runs, and what waited on the PE's list will not run.
 */
static void
instance_fail(struct doca_graph_instance *inst, doca_error_t status)
{
	if (inst->status != DOCA_SUCCESS)
		return;
	inst->status = status;
	for (uint32_t i = 0; i < inst->num_slots; i++) {
		struct sd_graph_slot *slot = &inst->slots[i];

		if (slot->state == SD_GRAPH_SLOT_READY) {
			sd_list_del(&slot->work.link);
			slot->state = SD_GRAPH_SLOT_WAITING;
			inst->active--;
		} else if (slot->state == SD_GRAPH_SLOT_RUNNING && slot->node->kind == SD_GRAPH_NODE_SUB) {
			instance_fail(slot->data.sub, status);
		}
	}
	/* A sub-graph instance failed from above may have had only queued nodes. */
	if (inst->active == 0)
		queue_work(inst, &inst->end);
}

/* Run the slot from the next doca_pe_progress(). */
static void
make_ready(struct sd_graph_slot *slot)
{
	slot->state = SD_GRAPH_SLOT_READY;
	queue_work(slot->inst, &slot->work);
}

static void
start_task(struct sd_graph_slot *slot)
{
	doca_error_t err = sd_task_graph_submit(slot->data.task, slot, "doca_graph_instance_submit");

	if (err == DOCA_SUCCESS)
		slot->state = SD_GRAPH_SLOT_RUNNING;
	else if (err == DOCA_ERROR_AGAIN)
		make_ready(slot); /* a busy context delays the node, it does not fail it */
	else
		slot_finish(slot, err);
}

static void
start_sub(struct sd_graph_slot *slot)
{
	doca_error_t err = sd_graph_instance_run(slot->data.sub);

	if (err == DOCA_SUCCESS)
		slot->state = SD_GRAPH_SLOT_RUNNING;
	else
		slot_finish(slot, err);
}

static void
slot_start(struct sd_graph_slot *slot)
{
	slot->inst->active++;
	switch (slot->node->kind) {
	case SD_GRAPH_NODE_CTX:
		start_task(slot);
		break;
	case SD_GRAPH_NODE_USER:
		make_ready(slot); /* user functions run only inside doca_pe_progress() */
		break;
	case SD_GRAPH_NODE_SUB:
		start_sub(slot);
		break;
	}
}

/* The slot's node completed with status: start the dependents it was the last parent of. */
static void
slot_finish(struct sd_graph_slot *slot, doca_error_t status)
{
	struct doca_graph_instance *inst = slot->inst;
	const struct doca_graph_node *node = slot->node;

	slot->state = SD_GRAPH_SLOT_DONE;
	if (status != DOCA_SUCCESS && inst->status == DOCA_SUCCESS) {
		DOCA_LOG_DBG("graph instance %p: %s node %u failed (%s); no further node starts", (void *)inst,
			     sd_graph_node_kind_name(node->kind), node->index, doca_error_get_name(status));
		instance_fail(inst, status); /* this slot still holds the instance: it cannot end here */
	}
	for (uint32_t i = 0; i < node->num_children && inst->status == DOCA_SUCCESS; i++) {
		struct sd_graph_slot *child = &inst->slots[node->children[i]->index];

		if (--child->waiting == 0)
			slot_start(child);
	}
	/* Last: a dependent that failed at once must not end the run while this slot still counts. */
	instance_release(inst);
}

/* Start the roots of one sort (user nodes or the others) until one fails. */
static void
start_roots(struct doca_graph_instance *inst, bool user_nodes)
{
	for (uint32_t i = 0; i < inst->num_slots && inst->status == DOCA_SUCCESS; i++) {
		struct sd_graph_slot *slot = &inst->slots[i];

		if (slot->node->num_parents == 0 && (slot->node->kind == SD_GRAPH_NODE_USER) == user_nodes)
			slot_start(slot);
	}
}

doca_error_t
sd_graph_instance_run(struct doca_graph_instance *inst)
{
	for (uint32_t i = 0; i < inst->num_slots; i++) {
		inst->slots[i].state = SD_GRAPH_SLOT_WAITING;
		inst->slots[i].waiting = inst->slots[i].node->num_parents;
	}
	inst->status = DOCA_SUCCESS;
	inst->active = 1; /* this start, until every root is started */
	inst->submitted = true;
	/*
	 * Tasks and sub-graphs first, user nodes (which only queue) last: while
	 * nothing else of the instance runs, the refusal of a root is returned and
	 * the instance is not submitted.  After that, a refusal fails the run, which
	 * is reported by the error callback like any failed node.
	 */
	start_roots(inst, false);
	start_roots(inst, true);
	if (inst->status != DOCA_SUCCESS && inst->active == 1) {
		inst->active = 0;
		inst->submitted = false;
		return inst->status;
	}
	instance_release(inst);
	return DOCA_SUCCESS;
}

/* The run ended: report it to the sub-graph node that ran it, or to the graph's callback. */
static void
report_end(struct doca_graph_instance *inst)
{
	const struct doca_graph *graph = inst->graph;
	doca_error_t status = inst->status;

	inst->submitted = false;
	if (inst->owner != NULL) {
		slot_finish(inst->owner, status);
		return;
	}
	DOCA_LOG_TRC("graph instance %p ended: %s", (void *)inst, doca_error_get_name(status));
	/* The callback may submit or destroy the instance: nothing here touches it afterwards. */
	if (status == DOCA_SUCCESS)
		graph->completion_cb(inst, inst->user_data, graph->user_data);
	else
		graph->error_cb(inst, inst->user_data, graph->user_data);
}

/* A slot taken from the PE's list: a user function to call, or a task whose context was full. */
static void
run_slot(struct sd_graph_slot *slot)
{
	if (slot->node->kind == SD_GRAPH_NODE_USER) {
		slot->state = SD_GRAPH_SLOT_RUNNING;
		slot_finish(slot, slot->node->u.cb(slot->data.cookie));
		return;
	}
	start_task(slot);
}

unsigned
sd_graph_progress(struct doca_pe *pe)
{
	struct sd_list batch, *elem;
	unsigned events = 0;

	/*
	 * Only what was queued before this call: a callback that resubmits at once
	 * waits for the next progress.  A slot of an instance that fails meanwhile
	 * is taken off this batch by instance_fail(); instances on it are submitted,
	 * so no callback can destroy them.
	 */
	sd_list_move_all(&batch, &pe->graph_work);
	while ((elem = sd_list_pop_head(&batch)) != NULL) {
		struct sd_graph_work *work = sd_container_of(elem, struct sd_graph_work, link);

		if (work->kind == SD_GRAPH_WORK_END)
			report_end(sd_container_of(work, struct doca_graph_instance, end));
		else
			run_slot(sd_container_of(work, struct sd_graph_slot, work));
		events++;
	}
	return events;
}

void
sd_graph_task_done(struct doca_task *task, doca_error_t status)
{
	struct sd_graph_slot *slot = task->graph_slot;

	task->graph_slot = NULL;
	slot_finish(slot, status);
}
