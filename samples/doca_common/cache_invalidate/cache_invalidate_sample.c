/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_cache_invalidate, the sample function.  One 2 KiB buffer in one mmap: a DMA
 * task copies its first KiB to its second; the DMA completion callback submits a
 * cache invalidate task (an mmap advise context on the same PE) on the copy's
 * source; its completion ends the poll loop.  Each step logs its line first, in
 * the order DOCA's sample does; unlike DOCA's, the sample then checks that the
 * copy arrived and that both tasks succeeded.  Teardown undoes whatever was made.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "cache_invalidate_sample.h"
#include "common.h"

DOCA_LOG_REGISTER(CACHE_INVALIDATE::SAMPLE);

#define DMA_BUFFER_SIZE 1024
#define BUFFER_SIZE (2 * DMA_BUFFER_SIZE)
#define NUM_BUFS 2
#define POLL_LIMIT_S 10 /* a lost completion fails the sample instead of spinning forever */

struct ci_state {
	uint8_t *buffer; /* source: first half, destination: second half */
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_mmap_advise *advise;
	struct doca_buf *src;
	struct doca_buf *dst;
	struct doca_dma_task_memcpy *dma_task;
	struct doca_mmap_advise_task_invalidate_cache *invalidate_task;
	bool polling;
	doca_error_t dma_status;
	doca_error_t invalidate_status;
};

/* The device must do both tasks. */
static doca_error_t
dev_is_capable(const struct doca_devinfo *devinfo)
{
	doca_error_t result = doca_dma_cap_task_memcpy_is_supported(devinfo);

	if (result != DOCA_SUCCESS)
		return result;
	return doca_mmap_advise_cap_task_cache_invalidate_is_supported(devinfo);
}

static doca_error_t
allocate_buffer(struct ci_state *s)
{
	s->buffer = malloc(BUFFER_SIZE);
	if (s->buffer == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (size_t i = 0; i < BUFFER_SIZE; i++)
		s->buffer[i] = i < DMA_BUFFER_SIZE ? (uint8_t)(i * 7 + 1) : 0;
	return DOCA_SUCCESS;
}

static doca_error_t
open_device(struct ci_state *s)
{
	return open_doca_device_with_capabilities(dev_is_capable, &s->dev);
}

static doca_error_t
create_mmap(struct ci_state *s)
{
	doca_error_t result = doca_mmap_create(&s->mmap);

	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(s->mmap, s->buffer, BUFFER_SIZE);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(s->mmap, s->dev);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_permissions(s->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(s->mmap);
	return result;
}

static doca_error_t
create_inventory(struct ci_state *s)
{
	doca_error_t result = doca_buf_inventory_create(NUM_BUFS, &s->inv);

	return result == DOCA_SUCCESS ? doca_buf_inventory_start(s->inv) : result;
}

static doca_error_t
create_pe(struct ci_state *s)
{
	return doca_pe_create(&s->pe);
}

/* Connect ctx to the PE with the state as its user data (every callback gets it). */
static doca_error_t
attach_ctx(struct ci_state *s, struct doca_ctx *ctx)
{
	union doca_data ud = {.ptr = s};
	doca_error_t result = doca_pe_connect_ctx(s->pe, ctx);

	return result == DOCA_SUCCESS ? doca_ctx_set_user_data(ctx, ud) : result;
}

/* The copy is done: invalidate the cache lines of its source, from the callback. */
static void
dma_completed(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ci_state *s = ctx_user_data.ptr;
	doca_error_t result;

	s->dma_status = DOCA_SUCCESS;
	DOCA_LOG_INFO("DMA completed, Submitting cache invalidate task");
	result = doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(s->invalidate_task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit the cache invalidate task: %s", doca_error_get_descr(result));
		s->invalidate_status = result;
		s->polling = false;
	}
}

static void
dma_failed(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ci_state *s = ctx_user_data.ptr;

	s->dma_status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	DOCA_LOG_ERR("DMA Task failed with status %s", doca_error_get_descr(s->dma_status));
	s->polling = false;
}

static doca_error_t
create_dma(struct ci_state *s)
{
	doca_error_t result = doca_dma_create(s->dev, &s->dma);

	if (result == DOCA_SUCCESS)
		result = attach_ctx(s, doca_dma_as_ctx(s->dma));
	if (result == DOCA_SUCCESS)
		result = doca_dma_task_memcpy_set_conf(s->dma, dma_completed, dma_failed, 1);
	return result;
}

static void
invalidate_completed(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_user_data,
		     union doca_data ctx_user_data)
{
	struct ci_state *s = ctx_user_data.ptr;

	s->invalidate_status = DOCA_SUCCESS;
	DOCA_LOG_INFO("Cache invalidate completed");
	s->polling = false;
}

static void
invalidate_failed(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_user_data,
		  union doca_data ctx_user_data)
{
	struct ci_state *s = ctx_user_data.ptr;

	s->invalidate_status = doca_task_get_status(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
	DOCA_LOG_ERR("Cache invalidate Task failed with status %s", doca_error_get_descr(s->invalidate_status));
	s->polling = false;
}

static doca_error_t
create_advise(struct ci_state *s)
{
	doca_error_t result = doca_mmap_advise_create(s->dev, &s->advise);

	if (result == DOCA_SUCCESS)
		result = attach_ctx(s, doca_mmap_advise_as_ctx(s->advise));
	if (result == DOCA_SUCCESS)
		result = doca_mmap_advise_task_invalidate_cache_set_conf(s->advise, invalidate_completed,
									 invalidate_failed, 1);
	return result;
}

/* Neither context connects to anything: each is RUNNING when doca_ctx_start() returns. */
static doca_error_t
start_contexts(struct ci_state *s)
{
	doca_error_t result = doca_ctx_start(doca_dma_as_ctx(s->dma));

	return result == DOCA_SUCCESS ? doca_ctx_start(doca_mmap_advise_as_ctx(s->advise)) : result;
}

/* Source: the first KiB, full; destination: the second, empty (the DMA fills it). */
static doca_error_t
allocate_dma_task(struct ci_state *s)
{
	union doca_data ud = {.u64 = 0};
	doca_error_t result;

	result = doca_buf_inventory_buf_get_by_data(s->inv, s->mmap, s->buffer, DMA_BUFFER_SIZE, &s->src);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_buf_get_by_addr(s->inv, s->mmap, s->buffer + DMA_BUFFER_SIZE,
							    DMA_BUFFER_SIZE, &s->dst);
	if (result == DOCA_SUCCESS)
		result = doca_dma_task_memcpy_alloc_init(s->dma, s->src, s->dst, ud, &s->dma_task);
	return result;
}

static doca_error_t
allocate_invalidate_task(struct ci_state *s)
{
	union doca_data ud = {.u64 = 0};

	return doca_mmap_advise_task_invalidate_cache_alloc_init(s->advise, s->src, ud, &s->invalidate_task);
}

static doca_error_t
submit_dma_task(struct ci_state *s)
{
	s->dma_status = s->invalidate_status = DOCA_ERROR_UNKNOWN; /* set by the callbacks */
	return doca_task_submit(doca_dma_task_memcpy_as_task(s->dma_task));
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Spin on the PE until the invalidate's callback (or a failure) clears polling. */
static doca_error_t
poll_for_completion(struct ci_state *s)
{
	double deadline = now_s() + POLL_LIMIT_S;

	s->polling = true;
	while (s->polling) {
		(void)doca_pe_progress(s->pe);
		if (now_s() > deadline) {
			DOCA_LOG_ERR("The tasks did not complete within %d seconds", POLL_LIMIT_S);
			return DOCA_ERROR_TIME_OUT;
		}
	}
	DOCA_LOG_INFO("All tasks are completed");
	if (s->dma_status != DOCA_SUCCESS)
		return s->dma_status;
	if (s->invalidate_status != DOCA_SUCCESS)
		return s->invalidate_status;
	/* softdoca's own check: the destination holds the source's bytes. */
	if (memcmp(s->buffer, s->buffer + DMA_BUFFER_SIZE, DMA_BUFFER_SIZE) != 0) {
		DOCA_LOG_ERR("The DMA destination differs from its source");
		return DOCA_ERROR_UNEXPECTED;
	}
	return DOCA_SUCCESS;
}

/* Tasks first, then the stopped contexts, the PE, the bufs and what they live in. */
static void
cleanup(struct ci_state *s)
{
	if (s->dma_task != NULL)
		doca_task_free(doca_dma_task_memcpy_as_task(s->dma_task));
	if (s->invalidate_task != NULL)
		doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(s->invalidate_task));
	if (s->dma != NULL)
		(void)request_stop_ctx(s->pe, doca_dma_as_ctx(s->dma));
	if (s->advise != NULL)
		(void)request_stop_ctx(s->pe, doca_mmap_advise_as_ctx(s->advise));
	if (s->dma != NULL)
		(void)doca_dma_destroy(s->dma);
	if (s->advise != NULL)
		(void)doca_mmap_advise_destroy(s->advise);
	if (s->pe != NULL)
		(void)doca_pe_destroy(s->pe);
	if (s->src != NULL)
		(void)doca_buf_dec_refcount(s->src, NULL);
	if (s->dst != NULL)
		(void)doca_buf_dec_refcount(s->dst, NULL);
	if (s->inv != NULL) {
		(void)doca_buf_inventory_stop(s->inv);
		(void)doca_buf_inventory_destroy(s->inv);
	}
	if (s->mmap != NULL) {
		(void)doca_mmap_stop(s->mmap);
		(void)doca_mmap_destroy(s->mmap);
	}
	if (s->dev != NULL)
		(void)doca_dev_close(s->dev);
	free(s->buffer);
}

doca_error_t
run_cache_invalidate_sample(void)
{
	/* Each step's line (NULL: none) and the step; the first failure ends the run. */
	static const struct {
		const char *line;
		doca_error_t (*run)(struct ci_state *s);
	} steps[] = {
		{"Allocating buffer", allocate_buffer},
		{"Opening device", open_device},
		{"Creating MMAP", create_mmap},
		{"Creating buf inventory", create_inventory},
		{"Creating PE", create_pe},
		{"Creating DMA", create_dma},
		{"Creating MMAP advise", create_advise},
		{NULL, start_contexts},
		{"Allocating DMA task", allocate_dma_task},
		{"Allocating cache invalidate task", allocate_invalidate_task},
		{"Submitting DMA task", submit_dma_task},
		{"Polling until all tasks are completed", poll_for_completion},
	};
	struct ci_state s = {0};
	doca_error_t result = DOCA_SUCCESS;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && result == DOCA_SUCCESS; i++) {
		if (steps[i].line != NULL)
			DOCA_LOG_INFO("%s", steps[i].line);
		result = steps[i].run(&s);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("%s failed: %s", steps[i].line != NULL ? steps[i].line : "Starting the contexts",
				     doca_error_get_descr(result));
	}
	cleanup(&s);
	return result;
}
