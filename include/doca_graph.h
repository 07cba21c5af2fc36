/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA graphs (DOCA Core): run a fixed set of steps, some of them tasks of
 * contexts, in dependency order, as one unit that completes with one callback.
 *
 * Object model.  A struct doca_graph is bound to one progress engine and holds
 * nodes of three kinds:
 *   - a context node stands for one task of a context (a DMA memcpy, ...);
 *   - a user node stands for a call of an application function with a cookie;
 *   - a sub-graph node stands for a run of another, already started graph.
 * doca_graph_add_dependency(from, to) makes `to` wait for `from`; a node with no
 * dependency is a root.  The graph only describes the shape: the data of each
 * node (which task, which cookie, which sub-graph instance) belongs to a struct
 * doca_graph_instance, so one graph can run many times at once.
 *
 * Call order:
 *   doca_graph_create(pe) -> doca_graph_set_conf -> node_create_* ->
 *   doca_graph_add_dependency -> (the contexts RUNNING) doca_graph_start ->
 *   doca_graph_instance_create -> instance_set_*_node_data ->
 *   doca_graph_instance_submit -> loop { doca_pe_progress } -> completion callback
 *   (the instance may be submitted again from here or later) ->
 *   doca_graph_instance_destroy -> doca_graph_stop -> doca_graph_destroy ->
 *   stop and destroy the contexts -> doca_pe_destroy
 *
 * Running.  Submitting an instance submits the tasks of the root context nodes
 * at once; every other node starts when all the nodes it depends on completed.
 * User-node functions and the instance's completion callback run only inside
 * doca_pe_progress() of the graph's PE.  The tasks of context nodes complete
 * into the graph: their own completion callbacks are not called (the context
 * still needs its task *_set_conf).  A context that is busy (its queue full)
 * delays a node; it does not fail it.  When a node fails (a task completes with
 * an error, a user function returns an error, a sub-graph instance fails), no
 * further node starts; once the nodes already running finished, the graph's
 * error callback reports the instance.  A submitted instance cannot be
 * cancelled.
 *
 * Threads: like its PE, a graph is used from one thread at a time.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_pe;
struct doca_task;

struct doca_graph;
struct doca_graph_node;
struct doca_graph_instance;

/*
 * An instance finished: the completion callback when every node succeeded, the
 * error callback when one failed.  instance_user_data and graph_user_data are
 * the values set on the instance and on the graph.  The callback may submit the
 * instance again or destroy it.
 */
typedef void (*doca_graph_completion_cb_t)(struct doca_graph_instance *instance, union doca_data instance_user_data,
					   union doca_data graph_user_data);

/*
 * The function of a user node, called with the cookie set on the instance's node.
 * DOCA_SUCCESS lets the nodes that depend on it start; any other value fails
 * the instance.
 */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie);

/*
 * Create an empty graph bound to pe; destroy it before the PE.
 * Returns SUCCESS, INVALID_VALUE (NULL argument), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph);

/*
 * Destroy a stopped graph and its nodes.
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (started: stop it first), IN_USE (it
 * is the sub-graph of a node of another graph: destroy that graph first).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_destroy(struct doca_graph *graph);

/*
 * Set the callbacks that report finished instances and the number of instances
 * the graph may have at a time.  Required before doca_graph_start().
 * Returns SUCCESS, INVALID_VALUE (a NULL callback, num_instances 0), BAD_STATE
 * (started).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_set_conf(struct doca_graph *graph,
						   doca_graph_completion_cb_t graph_completion_cb,
						   doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances);

/* The graph's user data, passed to its callbacks.  SUCCESS, INVALID_VALUE, BAD_STATE (started). */
DOCA_EXPERIMENTAL doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data);

/* SUCCESS, INVALID_VALUE. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data);

/*
 * Add a context node: each instance sets a task of ctx as its data.  Every new
 * node is a root until a dependency says otherwise.  Nodes belong to the graph
 * and go with it (no destroy call).
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (graph started), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
							       struct doca_graph_node **node);

/*
 * Add a user node that calls cb with the cookie its instance sets.
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (graph started), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph, doca_graph_user_node_cb_t cb,
								struct doca_graph_node **node);

/*
 * Add a node that runs an instance of sub_graph, a started graph of the same
 * PE.  sub_graph cannot be stopped while a started graph uses it, nor destroyed
 * while any graph does.
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (graph started, or sub_graph not
 * started), NOT_PERMITTED (sub_graph is graph, or belongs to
 * another PE), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph, struct doca_graph *sub_graph,
								 struct doca_graph_node **node);

/*
 * Make `to` start only after `from` completed (both nodes of graph).  Adding an
 * existing dependency again changes nothing.
 * Returns SUCCESS, INVALID_VALUE (NULL, or a node of another graph), BAD_STATE
 * (graph started), NOT_PERMITTED (the dependency would close a cycle), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
							 struct doca_graph_node *to);

/*
 * Freeze the graph so instances can be made.  Needs doca_graph_set_conf(), at
 * least one context node (a sub-graph node counts: its graph has one), every
 * node context connected to the graph's PE and RUNNING, every sub-graph started.
 * Returns SUCCESS (also when already started), INVALID_VALUE, BAD_STATE (one of
 * the rules above but the PE's), NOT_PERMITTED (a node context is connected to
 * another PE), NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_start(struct doca_graph *graph);

/*
 * Unfreeze the graph: nodes and dependencies may be added again.
 * Returns SUCCESS (also when not started), INVALID_VALUE, IN_USE (instances of
 * the graph exist, or a started graph uses it as a sub-graph).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_stop(struct doca_graph *graph);

/*
 * Create an instance of a started graph: one slot of data per node, none set.
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (graph not started), NO_MEMORY
 * (the graph has its num_instances already, or out of memory).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
							  struct doca_graph_instance **graph_instance);

/*
 * Destroy an instance that is not running.  The tasks it was given stay the
 * application's (free them after this call or before, once not in flight).
 * Returns SUCCESS, INVALID_VALUE, IN_USE (submitted and not yet reported, or
 * the data of a sub-graph node of another instance: destroy that one first).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance);

/* The instance's user data, passed to the graph's callbacks.  SUCCESS, INVALID_VALUE, IN_USE (submitted). */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
								 union doca_data user_data);

/* SUCCESS, INVALID_VALUE. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
								 union doca_data *user_data);

/*
 * Give a context node of this instance its task, a task of the node's context.
 * The task must outlive the instance; its completion callbacks are not called
 * while the graph runs it (read its status and results from a dependent node
 * or from the instance's callback).
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (instance submitted), NOT_PERMITTED
 * (node of another graph, not a context node, or task of another context).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
								     struct doca_graph_node *node,
								     struct doca_task *task);

/*
 * Give a user node of this instance its cookie (NULL is a valid cookie).
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (instance submitted), NOT_PERMITTED
 * (node of another graph, or not a user node).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
								      struct doca_graph_node *node, void *cookie);

/*
 * Give a sub-graph node of this instance the instance it runs: an instance of
 * the node's sub-graph, not submitted and not the data of another node.  From
 * then on that instance runs only as part of this one (it cannot be submitted
 * alone, nor destroyed before this one).
 * Returns SUCCESS, INVALID_VALUE, BAD_STATE (instance submitted), NOT_PERMITTED
 * (node of another graph, not a sub-graph node, sub_graph_instance of another
 * graph, submitted, or already the data of another node).
 */
DOCA_EXPERIMENTAL doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance, struct doca_graph_node *node,
					    struct doca_graph_instance *sub_graph_instance);

/*
 * Run the instance: submit the tasks of its root context nodes now; the rest
 * starts from doca_pe_progress().  Every node needs its data.  When this
 * returns SUCCESS, exactly one of the graph's callbacks reports the instance.
 * Returns SUCCESS, INVALID_VALUE (NULL, or a node's task is not allocated),
 * IN_USE (already submitted), NOT_PERMITTED (the instance is the data of a
 * sub-graph node: its parent runs it), BAD_STATE (a node has no data, a node's
 * context is not RUNNING, or its task is in flight), or the refusal of the first
 * root task's submission (the instance is then not submitted).
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
