/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA graphs inside libdoca_common (docs/pe-ctx.md "Graphs"): the graph and its
 * nodes (graph.c), instances and their node data (graph_instance.c), and the
 * run of a submitted instance (graph_run.c).  Nothing outside Core sees these.
 *
 * Ownership.  A graph owns its nodes.  An instance owns one slot per node of
 * its graph (slot i is node i's data and run state); it never owns the tasks or
 * sub-graph instances it is given.  References that would dangle are counted
 * and refuse the destroy that would break them: the PE counts its graphs, a ctx
 * the graphs with a node of it (sd_ctx_fini refuses IN_USE), a graph the graphs
 * that use it as a sub-graph, a sub-graph instance its owner slot.
 *
 * Run of one instance (all on the PE's thread):
 *
 *   slot WAITING --all parents DONE (roots: at submit)--> started:
 *     ctx node:  task submitted (task->graph_slot = slot) -> RUNNING
 *                (queue full: READY on pe->graph_work, retried by progress)
 *     user node: READY on pe->graph_work -> its function runs in progress -> DONE
 *     sub node:  the sub-graph instance runs -> RUNNING
 *   RUNNING --task reported (sd_graph_task_done) / sub instance ended--> DONE
 *
 * inst->active counts the slots READY or RUNNING (+1 while a start is under
 * way); when it drops to 0 the instance has ended: it goes on pe->graph_work and
 * progress reports it (its owner slot's DONE, or the graph's callback).  The
 * first failure is kept in inst->status; from then on no slot starts, READY
 * slots go back to WAITING, and a sub-graph instance still running as one of its
 * nodes fails with it.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_GRAPH_INTERNAL_H_
#define SD_GRAPH_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_graph.h>

#include "pe_internal.h"

enum sd_graph_node_kind {
	SD_GRAPH_NODE_CTX,
	SD_GRAPH_NODE_USER,
	SD_GRAPH_NODE_SUB,
};

struct doca_graph_node {
	struct doca_graph *graph;
	enum sd_graph_node_kind kind;
	uint32_t index; /* in graph->nodes; the node's slot in every instance */
	union {
		struct doca_ctx *ctx;
		doca_graph_user_node_cb_t cb;
		struct doca_graph *sub;
	} u;
	uint32_t num_parents;
	uint32_t num_children;
	uint32_t cap_children;
	struct doca_graph_node **children;
	uint64_t visit; /* graph->visit of the last reachability walk that saw it */
};

struct doca_graph {
	struct doca_pe *pe;
	bool started;
	bool configured;
	doca_graph_completion_cb_t completion_cb;
	doca_graph_completion_cb_t error_cb;
	uint32_t max_instances;
	uint32_t num_instances;
	union doca_data user_data;
	struct doca_graph_node **nodes; /* creation order */
	uint32_t num_nodes;
	uint32_t cap_nodes;
	uint32_t num_parent_graphs;   /* graphs with a sub-graph node of this one */
	uint32_t num_started_parents; /* of those, the started ones */
	uint64_t visit;		      /* reachability walks so far */
};

/* What pe->graph_work holds: slots to run and instances to report. */
enum sd_graph_work_kind {
	SD_GRAPH_WORK_SLOT,
	SD_GRAPH_WORK_END,
};

struct sd_graph_work {
	struct sd_list link; /* in pe->graph_work */
	enum sd_graph_work_kind kind;
};

enum sd_graph_slot_state {
	SD_GRAPH_SLOT_WAITING,
	SD_GRAPH_SLOT_READY,
	SD_GRAPH_SLOT_RUNNING,
	SD_GRAPH_SLOT_DONE,
};

struct sd_graph_slot {
	struct sd_graph_work work; /* SD_GRAPH_WORK_SLOT, queued while READY */
	struct doca_graph_instance *inst;
	struct doca_graph_node *node;
	union {
		struct doca_task *task;
		void *cookie;
		struct doca_graph_instance *sub;
	} data;
	bool data_set;
	enum sd_graph_slot_state state;
	uint32_t waiting; /* parents not DONE in this run */
};

struct doca_graph_instance {
	struct sd_graph_work end; /* SD_GRAPH_WORK_END, queued once the run ended */
	struct doca_graph *graph;
	union doca_data user_data;
	bool submitted;		     /* from submit until its end is reported */
	struct sd_graph_slot *owner; /* the sub-graph node slot whose data this is, or NULL */
	uint32_t active;
	doca_error_t status; /* first failure of this run */
	uint32_t num_slots;
	struct sd_graph_slot slots[];
};

/* "ctx", "user", "sub-graph" for log lines. */
const char *sd_graph_node_kind_name(enum sd_graph_node_kind kind);

/* graph_run.c: check and run a submitted instance (doca_graph_instance_submit). */
doca_error_t sd_graph_instance_run(struct doca_graph_instance *inst);

/* graph_run.c, from doca_pe_progress(): run the slots and report the ends queued on pe->graph_work. */
unsigned sd_graph_progress(struct doca_pe *pe);

/* graph_run.c, from sd_ctx_report(): a task a graph submitted was reported with status. */
void sd_graph_task_done(struct doca_task *task, doca_error_t status);

/* task.c: doca_task_submit()'s checks, and its submission for a graph slot (logged as api). */
doca_error_t sd_task_graph_check(const struct doca_task *task, const char *api);
doca_error_t sd_task_graph_submit(struct doca_task *task, struct sd_graph_slot *slot, const char *api);

#endif /* SD_GRAPH_INTERNAL_H_ */
