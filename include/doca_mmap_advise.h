/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA mmap advise: a context whose tasks tell the device how memory will be
 * used.  Its one task invalidates the CPU cache lines that hold a buffer's bytes,
 * so that data a device wrote to memory is read from memory, not from a stale
 * cache line (on BlueField: data that need not be written back from the Arm
 * cores' cache).
 *
 * Object model
 *   struct doca_mmap_advise                        a context on one device; it is a
 *                                                  struct doca_ctx (doca_mmap_advise_as_ctx)
 *                                                  and goes IDLE -> RUNNING directly on
 *                                                  doca_ctx_start().
 *   struct doca_mmap_advise_task_invalidate_cache  invalidate one buffer (list); it is a
 *                                                  struct doca_task
 *                                                  (doca_mmap_advise_task_invalidate_cache_as_doca_task).
 *
 * Call order
 *   doca_mmap_advise_cap_task_cache_invalidate_is_supported(devinfo)
 *   doca_mmap_advise_create(dev, &advise)
 *   doca_mmap_advise_task_invalidate_cache_set_conf(advise, ok_cb, err_cb, n)   while IDLE
 *   doca_pe_connect_ctx(pe, ctx); doca_ctx_start(ctx)
 *   doca_mmap_advise_task_invalidate_cache_alloc_init(advise, buf, user_data, &task)
 *   doca_task_submit(...); doca_pe_progress(pe) runs ok_cb or err_cb
 *   doca_task_free(...); doca_ctx_stop(ctx); doca_mmap_advise_destroy(advise)
 *
 * The bytes invalidated are the data window [data, data + data_len) of the buffer and
 * of every buffer chained to it.  Each must lie in a local mmap (this process's memory)
 * with DOCA_ACCESS_FLAG_LOCAL_READ_WRITE to which the context's device was added, and
 * their total must not exceed doca_mmap_advise_task_cache_invalidate_get_max_buf_size();
 * otherwise the task fails (docs/memory.md "Cache invalidate").
 */
#ifndef DOCA_MMAP_ADVISE_H_
#define DOCA_MMAP_ADVISE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_mmap_advise;
struct doca_mmap_advise_task_invalidate_cache;
struct doca_task;

/* Both the completion and the error callback of the invalidate task have this type. */
typedef void (*doca_mmap_advise_task_invalidate_cache_completion_cb_t)(
	struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

/*
 * DOCA_ERROR_INVALID_VALUE: NULL argument; DOCA_ERROR_NOT_SUPPORTED: the device cannot
 * invalidate caches; DOCA_ERROR_NO_MEMORY.  The device is in use until destroy.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise);

/* DOCA_ERROR_INVALID_VALUE: NULL; DOCA_ERROR_BAD_STATE: the context is not IDLE. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise);

/* The context, or NULL for NULL. */
DOCA_EXPERIMENTAL struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise);

/* SUCCESS when the device can run cache invalidate tasks, else DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo);

/* The most bytes one task may invalidate.  DOCA_ERROR_NOT_SUPPORTED: no cache invalidate. */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);

/*
 * Enable the task with its callbacks and pool size.  DOCA_ERROR_INVALID_VALUE: NULL
 * argument or num_tasks 0; DOCA_ERROR_NOT_PERMITTED: the context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
	struct doca_mmap_advise *mmap_advise, doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks);

/*
 * Take a task from the pool.  buf may be NULL here and set later.  DOCA_ERROR_NO_MEMORY:
 * every task is allocated; DOCA_ERROR_BAD_STATE: set_conf was not called;
 * DOCA_ERROR_INVALID_VALUE: NULL mmap_advise or task.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(
	struct doca_mmap_advise *mmap_advise, struct doca_buf *buf, union doca_data user_data,
	struct doca_mmap_advise_task_invalidate_cache **task);

DOCA_EXPERIMENTAL struct doca_task *
doca_mmap_advise_task_invalidate_cache_as_doca_task(struct doca_mmap_advise_task_invalidate_cache *task);

DOCA_EXPERIMENTAL void
doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
					       struct doca_buf *buf);

DOCA_EXPERIMENTAL struct doca_buf *
doca_mmap_advise_task_invalidate_cache_get_buf(const struct doca_mmap_advise_task_invalidate_cache *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_ADVISE_H_ */
