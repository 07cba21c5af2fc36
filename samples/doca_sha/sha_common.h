/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What DOCA's two SHA samples share (doca_sha_create, doca_sha_partial_create):
 * the -d/--data flag and main(), the SHA context with its Core objects and state
 * callback, the destination buffer whose mmap frees it, the digest line, and the
 * cleanup.  Only the public DOCA API is used.
 */
#ifndef SHA_COMMON_H_
#define SHA_COMMON_H_

#include <stdbool.h>
#include <stddef.h>

#include <doca_buf.h>
#include <doca_error.h>
#include <doca_sha.h>

#include "common.h"

#define SHA_SAMPLE_ALGORITHM DOCA_SHA_ALGORITHM_SHA256 /* both samples hash with SHA-256 */
#define SHA_MAX_USER_DATA_LEN 1024		       /* -d: at most this many characters */

/* The sample's objects: the callbacks reach them through the context's user data. */
struct sha_resources {
	struct program_core_objects state; /* device, mmaps, inventory, PE; state.ctx is the SHA context's */
	struct doca_sha *sha_ctx;
	bool run_main_loop;	       /* until the context is IDLE again */
	size_t num_remaining_tasks;    /* sha_create: tasks not completed */
	struct doca_buf *src_doca_buf; /* sha_partial_create: the one source, its window moved */
	const char *src_next;	       /* sha_partial_create: the next segment's first byte */
	size_t remaining_src_len;      /* sha_partial_create: bytes not submitted */
	uint32_t partial_block_size;   /* sha_partial_create: bytes per non-final segment */
	doca_error_t result;	       /* the tasks' outcome */
};

/*
 * Open the first device that passes is_supported, create the SHA context, the Core
 * objects (two bufs), connect the PE and set the state callback.  On failure
 * everything is cleaned up.
 */
doca_error_t sha_sample_open(struct sha_resources *r, tasks_check is_supported, const char *what);

/*
 * A destination of size bytes (calloc'd; the dst mmap's free callback releases it,
 * once, when the mmap is destroyed) and its buf (data_len 0).
 */
doca_error_t sha_sample_dst(struct sha_resources *r, size_t size, struct doca_buf **dst);

/* The source mmap over [data, data + len), started. */
doca_error_t sha_sample_src_mmap(struct sha_resources *r, const char *data, size_t len);

/* Set the context's user data to r, start it, and progress until IDLE (or nothing to do). */
doca_error_t sha_sample_start(struct sha_resources *r);
void sha_sample_wait_stopped(struct sha_resources *r);

/* An error callback's part: keep the task's status, log "SHA <what> task failed: ...", free it. */
void sha_sample_task_failed(struct sha_resources *r, struct doca_task *task, const char *what);

/* Log "SHA256 output is: <hex>" from the destination's data window. */
doca_error_t sha_sample_print(struct doca_buf *dst);

/* Stop the context (again), destroy it and the Core objects; the first error is returned. */
doca_error_t sha_sample_cleanup(struct sha_resources *r);

/*
 * DOCA's sample main() with the -d/--data flag (default_data when not given), then
 * run(data).  name labels the failure line.
 */
int sha_sample_main(int argc, char **argv, const char *name, const char *default_data,
		    doca_error_t (*run)(const char *data));

#endif /* SHA_COMMON_H_ */
