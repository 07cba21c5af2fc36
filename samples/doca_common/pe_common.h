/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the PE samples share: one DMA-capable device, one mmap over a region split
 * into per-task 1 KiB source/destination pairs, an inventory, a PE and a DMA
 * context; callbacks that verify each copy; the main() skeleton.
 */
#ifndef PE_COMMON_H_
#define PE_COMMON_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_error.h>

#include "common.h"

#define PE_SAMPLE_BUF_SIZE 1024 /* bytes copied by each task */
#define PE_SAMPLE_MAX_TRANSITIONS 8

struct pe_sample_task {
	struct doca_buf *src;
	struct doca_buf *dst;
	struct doca_dma_task_memcpy *task;
	doca_error_t status; /* as reported to a callback */
	bool reported;
};

struct pe_sample {
	struct program_core_objects core; /* dev, mmap (src_mmap), inventory, pe, ctx */
	struct doca_dma *dma;
	uint8_t *memory; /* num_tasks source areas, then num_tasks destinations */
	uint32_t num_tasks;
	struct pe_sample_task *tasks;
	/* Written by the callbacks. */
	uint32_t num_succeeded;					     /* success callbacks whose copy verified */
	uint32_t num_bad_copies;				     /* success callbacks whose bytes were wrong */
	uint32_t num_failed;					     /* error callbacks */
	enum doca_ctx_states transitions[PE_SAMPLE_MAX_TRANSITIONS]; /* next states, in order */
	uint32_t num_transitions;
};

/* The index of a task (its user data). */
uint32_t pe_sample_task_index(struct doca_dma_task_memcpy *task);

/*
 * Open the first DMA-capable device; map num_tasks * 2 KiB of memory (source i
 * filled with byte i + 1); create an inventory for 2 * num_tasks bufs and a PE.
 */
doca_error_t pe_sample_init(struct pe_sample *s, uint32_t num_tasks);

/*
 * Create the DMA context with num_tasks memcpy tasks and these callbacks (NULL:
 * pe_sample_success_cb / pe_sample_error_cb), connect it to the PE and start it.
 */
doca_error_t pe_sample_start_dma(struct pe_sample *s, doca_dma_task_memcpy_completion_cb_t success_cb,
				 doca_dma_task_memcpy_completion_cb_t error_cb);

/* Get the bufs of every task and allocate the task (user data = index). */
doca_error_t pe_sample_alloc_tasks(struct pe_sample *s);

/* Submit every allocated task, in order; stops at the first refusal. */
doca_error_t pe_sample_submit_all(struct pe_sample *s);

/* Record a callback's outcome for the task; the success variant checks the bytes. */
void pe_sample_record(struct pe_sample *s, struct doca_dma_task_memcpy *task, bool success);

/* Default callbacks: record, free the task. */
void pe_sample_success_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
			  union doca_data ctx_user_data);
void pe_sample_error_cb(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
			union doca_data ctx_user_data);

/* Callbacks run so far (success, wrong copy or error). */
uint32_t pe_sample_num_reported(const struct pe_sample *s);

/* Progress (sleeping 10 us when idle) until n callbacks ran, or until the ctx is IDLE. */
void pe_sample_progress_until_reported(struct pe_sample *s, uint32_t n);
void pe_sample_progress_until_idle(struct pe_sample *s);

/* Was every task reported by a callback?  Logs the first one that was not. */
bool pe_sample_all_reported(const struct pe_sample *s);

/* Did the state callback see exactly these next states, in this order? */
bool pe_sample_saw_transitions(const struct pe_sample *s, const enum doca_ctx_states *expected, uint32_t n);

/* pe_sample_init + pe_sample_start_dma + pe_sample_alloc_tasks. */
doca_error_t pe_sample_setup(struct pe_sample *s, uint32_t num_tasks, doca_dma_task_memcpy_completion_cb_t success_cb,
			     doca_dma_task_memcpy_completion_cb_t error_cb);

/*
 * End of a run: if result is still SUCCESS, require that every task was
 * reported and that the state callback saw exactly the n expected states; then
 * clean up.  Returns the first error.
 */
doca_error_t pe_sample_finish(struct pe_sample *s, doca_error_t result, const enum doca_ctx_states *expected,
			      uint32_t n);

/* Release bufs, stop and destroy the ctx, destroy the Core objects; frees memory. */
doca_error_t pe_sample_cleanup(struct pe_sample *s);

/* main(): logging, "Starting the sample", run, the final "Sample finished ..." line. */
int pe_sample_main(doca_error_t (*run)(void));

#endif /* PE_COMMON_H_ */
