/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The graph every instance runs:
 *
 *      DMA 0 (source -> destination 0)     DMA 1 (source -> destination 1)
 *                      \                         /
 *                       user node: both destinations hold the source's 1024 bytes
 *
 * Ten instances share the graph; each has its own source, two destinations, two
 * memcpy tasks and, as the user node's cookie, its own record.  All ten are
 * submitted at once and the PE is polled until each has been reported.  The
 * memcpy tasks' own callbacks are never called (a graph's tasks complete into
 * the graph), but DOCA still wants them configured.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_graph.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "common.h"

DOCA_LOG_REGISTER(GRAPH::SAMPLE);

#define NUM_INSTANCES 10
#define NUM_DMA 2
#define COPY_SIZE 1024
#define INSTANCE_MEMORY (COPY_SIZE * (1 + NUM_DMA)) /* source, then one destination per DMA */
#define NUM_BUFS (NUM_INSTANCES * (1 + NUM_DMA))

/* What one instance owns; the user node gets it as its cookie. */
struct instance_data {
	uint32_t index;
	struct doca_graph_instance *instance;
	uint8_t *src_addr;
	struct doca_buf *src;
	uint8_t *dst_addr[NUM_DMA];
	struct doca_buf *dst[NUM_DMA];
	struct doca_dma_task_memcpy *task[NUM_DMA];
};

struct graph_sample {
	uint8_t *memory;
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inventory;
	struct doca_pe *pe;
	struct doca_dma *dma[NUM_DMA];
	struct doca_graph *graph;
	struct doca_graph_node *dma_node[NUM_DMA];
	struct doca_graph_node *user_node;
	struct instance_data instances[NUM_INSTANCES];
	uint32_t num_completed;
};

/* Log a failed step and pass its status on. */
static doca_error_t
check(doca_error_t result, const char *what)
{
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to %s: %s", what, doca_error_get_descr(result));
	return result;
}

/* Required by doca_dma_task_memcpy_set_conf; never called for the tasks of a graph. */
static void
memcpy_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task;
	(void)task_user_data;
	(void)ctx_user_data;
}

/* Reports every instance, whether it succeeded or failed (the user node logged why). */
static void
instance_cb(struct doca_graph_instance *instance, union doca_data instance_user_data, union doca_data graph_user_data)
{
	struct graph_sample *s = graph_user_data.ptr;

	(void)instance;
	(void)instance_user_data;
	s->num_completed++;
}

/* The user node: runs once both copies of its instance completed. */
static doca_error_t
user_node_cb(void *cookie)
{
	struct instance_data *inst = cookie;
	size_t len = 0;

	DOCA_LOG_INFO("Instance %u user callback", inst->index);
	for (int i = 0; i < NUM_DMA; i++) {
		doca_error_t result = doca_buf_get_data_len(inst->dst[i], &len);

		if (result != DOCA_SUCCESS)
			return check(result, "read the DMA destination length");
		if (len != COPY_SIZE) {
			DOCA_LOG_ERR("DMA destination buffer length %zu should be %d", len, COPY_SIZE);
			return DOCA_ERROR_BAD_STATE;
		}
		if (memcmp(inst->dst_addr[i], inst->src_addr, len) != 0) {
			DOCA_LOG_ERR("DMA source and destination mismatch");
			return DOCA_ERROR_BAD_STATE;
		}
	}
	return DOCA_SUCCESS;
}

/* Buffer, device, mmap, inventory and PE. */
static doca_error_t
create_core(struct graph_sample *s)
{
	doca_error_t result;

	DOCA_LOG_INFO("Allocating buffer");
	s->memory = calloc(NUM_INSTANCES, INSTANCE_MEMORY);
	if (s->memory == NULL)
		return check(DOCA_ERROR_NO_MEMORY, "allocate the buffer");

	DOCA_LOG_INFO("Opening device");
	result = open_doca_device_with_capabilities(doca_dma_cap_task_memcpy_is_supported, &s->dev);
	if (result != DOCA_SUCCESS)
		return check(result, "open a DMA-capable device");

	DOCA_LOG_INFO("Creating MMAP");
	result = doca_mmap_create(&s->mmap);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(s->mmap, s->memory, (size_t)NUM_INSTANCES * INSTANCE_MEMORY);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_permissions(s->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(s->mmap, s->dev);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(s->mmap);
	if (result != DOCA_SUCCESS)
		return check(result, "create the mmap");

	DOCA_LOG_INFO("Creating buf inventory");
	result = doca_buf_inventory_create(NUM_BUFS, &s->inventory);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_start(s->inventory);
	if (result != DOCA_SUCCESS)
		return check(result, "create the buf inventory");

	DOCA_LOG_INFO("Creating progress engine");
	return check(doca_pe_create(&s->pe), "create the progress engine");
}

/* Two DMA contexts on the PE, each with room for one memcpy task per instance, started. */
static doca_error_t
create_dmas(struct graph_sample *s)
{
	doca_error_t result;

	for (int i = 0; i < NUM_DMA; i++) {
		DOCA_LOG_INFO("Creating DMA %d", i);
		result = doca_dma_create(s->dev, &s->dma[i]);
		if (result != DOCA_SUCCESS)
			return check(result, "create a DMA context");
		result = doca_dma_task_memcpy_set_conf(s->dma[i], memcpy_cb, memcpy_cb, NUM_INSTANCES);
		if (result != DOCA_SUCCESS)
			return check(result, "configure the DMA memcpy tasks");
		result = doca_pe_connect_ctx(s->pe, doca_dma_as_ctx(s->dma[i]));
		if (result != DOCA_SUCCESS)
			return check(result, "connect the DMA context to the progress engine");
	}
	DOCA_LOG_INFO("Starting contexts");
	for (int i = 0; i < NUM_DMA; i++) {
		result = doca_ctx_start(doca_dma_as_ctx(s->dma[i]));
		if (result != DOCA_SUCCESS)
			return check(result, "start a DMA context");
	}
	return DOCA_SUCCESS;
}

/* The graph: both DMA nodes are roots, the user node depends on both. */
static doca_error_t
create_graph(struct graph_sample *s)
{
	union doca_data graph_user_data = {.ptr = s};
	doca_error_t result;

	DOCA_LOG_INFO("Creating graph");
	result = doca_graph_create(s->pe, &s->graph);
	if (result != DOCA_SUCCESS)
		return check(result, "create the graph");
	result = doca_graph_set_conf(s->graph, instance_cb, instance_cb, NUM_INSTANCES);
	if (result == DOCA_SUCCESS)
		result = doca_graph_set_user_data(s->graph, graph_user_data);
	for (int i = 0; i < NUM_DMA && result == DOCA_SUCCESS; i++)
		result = doca_graph_node_create_from_ctx(s->graph, doca_dma_as_ctx(s->dma[i]), &s->dma_node[i]);
	if (result == DOCA_SUCCESS)
		result = doca_graph_node_create_from_user(s->graph, user_node_cb, &s->user_node);
	for (int i = 0; i < NUM_DMA && result == DOCA_SUCCESS; i++)
		result = doca_graph_add_dependency(s->graph, s->dma_node[i], s->user_node);
	if (result != DOCA_SUCCESS)
		return check(result, "build the graph");
	return check(doca_graph_start(s->graph), "start the graph");
}

/* Instance i: its memory, bufs and tasks, set as the data of its nodes. */
static doca_error_t
create_instance(struct graph_sample *s, uint32_t i)
{
	struct instance_data *inst = &s->instances[i];
	union doca_data no_user_data = {.u64 = 0};
	uint8_t *mem = s->memory + (size_t)i * INSTANCE_MEMORY;
	doca_error_t result;

	inst->index = i;
	inst->src_addr = mem;
	memset(inst->src_addr, (int)(i + 1), COPY_SIZE);
	result = doca_graph_instance_create(s->graph, &inst->instance);
	if (result != DOCA_SUCCESS)
		return check(result, "create a graph instance");
	/* The one source is read by both copies at once. */
	result = doca_buf_inventory_buf_get_by_data(s->inventory, s->mmap, inst->src_addr, COPY_SIZE, &inst->src);
	if (result != DOCA_SUCCESS)
		return check(result, "get the source buf");
	for (int d = 0; d < NUM_DMA; d++) {
		inst->dst_addr[d] = mem + (size_t)(d + 1) * COPY_SIZE;
		result = doca_buf_inventory_buf_get_by_addr(s->inventory, s->mmap, inst->dst_addr[d], COPY_SIZE,
							    &inst->dst[d]);
		if (result != DOCA_SUCCESS)
			return check(result, "get a destination buf");
		result = doca_dma_task_memcpy_alloc_init(s->dma[d], inst->src, inst->dst[d], no_user_data,
							 &inst->task[d]);
		if (result != DOCA_SUCCESS)
			return check(result, "allocate a memcpy task");
		result = doca_graph_instance_set_ctx_node_data(inst->instance, s->dma_node[d],
							       doca_dma_task_memcpy_as_task(inst->task[d]));
		if (result != DOCA_SUCCESS)
			return check(result, "set the data of a DMA node");
	}
	result = doca_graph_instance_set_user_node_data(inst->instance, s->user_node, inst);
	if (result != DOCA_SUCCESS)
		return check(result, "set the data of the user node");
	(void)doca_graph_instance_set_user_data(inst->instance, (union doca_data){.ptr = inst});
	return DOCA_SUCCESS;
}

/* Submit every instance, then poll until each was reported. */
static doca_error_t
run_instances(struct graph_sample *s)
{
	uint32_t num_submitted;
	doca_error_t result;

	DOCA_LOG_INFO("Creating graph instances");
	for (uint32_t i = 0; i < NUM_INSTANCES; i++) {
		result = create_instance(s, i);
		if (result != DOCA_SUCCESS)
			return result;
	}
	DOCA_LOG_INFO("Submitting all graph instances");
	for (num_submitted = 0; num_submitted < NUM_INSTANCES; num_submitted++) {
		result = doca_graph_instance_submit(s->instances[num_submitted].instance);
		if (result != DOCA_SUCCESS) {
			(void)check(result, "submit a graph instance");
			break;
		}
	}
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("Waiting until all instances are complete");
	/* Even after a refused submission: the instances already running must end before teardown. */
	while (s->num_completed < num_submitted)
		(void)doca_pe_progress(s->pe);
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("All instances completed");
	return result;
}

/* Instance i's graph instance, tasks and bufs. */
static void
destroy_instance(struct instance_data *inst)
{
	if (inst->instance != NULL)
		(void)check(doca_graph_instance_destroy(inst->instance), "destroy a graph instance");
	for (int d = 0; d < NUM_DMA; d++) {
		if (inst->task[d] != NULL)
			doca_task_free(doca_dma_task_memcpy_as_task(inst->task[d]));
		if (inst->dst[d] != NULL)
			(void)doca_buf_dec_refcount(inst->dst[d], NULL);
	}
	if (inst->src != NULL)
		(void)doca_buf_dec_refcount(inst->src, NULL);
}

/* Everything, in the order DOCA requires: instances, graph, contexts, PE, inventory, mmap, device. */
static void
cleanup(struct graph_sample *s)
{
	for (uint32_t i = 0; i < NUM_INSTANCES; i++)
		destroy_instance(&s->instances[i]);
	if (s->graph != NULL) {
		(void)check(doca_graph_stop(s->graph), "stop the graph");
		(void)check(doca_graph_destroy(s->graph), "destroy the graph");
	}
	for (int i = 0; i < NUM_DMA; i++) {
		if (s->dma[i] == NULL)
			continue;
		if (s->pe != NULL)
			(void)check(request_stop_ctx(s->pe, doca_dma_as_ctx(s->dma[i])), "stop a DMA context");
		(void)check(doca_dma_destroy(s->dma[i]), "destroy a DMA context");
	}
	if (s->pe != NULL)
		(void)check(doca_pe_destroy(s->pe), "destroy the progress engine");
	if (s->inventory != NULL)
		(void)check(doca_buf_inventory_destroy(s->inventory), "destroy the buf inventory");
	if (s->mmap != NULL)
		(void)check(doca_mmap_destroy(s->mmap), "destroy the mmap");
	if (s->dev != NULL)
		(void)check(doca_dev_close(s->dev), "close the device");
	free(s->memory);
}

doca_error_t run_graph_sample(void);

doca_error_t
run_graph_sample(void)
{
	struct graph_sample *s = calloc(1, sizeof(*s));
	doca_error_t result;

	if (s == NULL)
		return check(DOCA_ERROR_NO_MEMORY, "allocate the sample's state");
	result = create_core(s);
	if (result == DOCA_SUCCESS)
		result = create_dmas(s);
	if (result == DOCA_SUCCESS)
		result = create_graph(s);
	if (result == DOCA_SUCCESS)
		result = run_instances(s);
	cleanup(s);
	free(s);
	return result;
}
