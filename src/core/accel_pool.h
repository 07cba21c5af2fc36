/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process's engine pool (accel_pool.c): worker threads that run the
 * acceleration tasks handed to them, as a card's engines run beside the CPU.
 * One pool serves every accel context of the process; a worker sleeps while
 * the queue is empty.  Private to accel.c and accel_pool.c.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_ACCEL_POOL_H_
#define SD_ACCEL_POOL_H_

#include <stdbool.h>
#include <stdint.h>

#include "sd_core.h"

/* Make sure at least workers threads run (started on first use; a forked child starts its own). */
doca_error_t sd_accel_pool_start(uint32_t workers);

/* Queue a QUEUED task for the workers (FIFO over all contexts). */
void sd_accel_pool_push(struct sd_accel_task *t);

/* Take t back if no worker started it yet: true, and t is out of the queue (still QUEUED). */
bool sd_accel_pool_cancel(struct sd_accel_task *t);

/* A worker runs t (accel.c): result, DONE, wake its PE, then it lets go of the context. */
void sd_accel_pool_run(struct sd_accel_task *t);

#endif /* SD_ACCEL_POOL_H_ */
