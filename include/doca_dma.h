/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA DMA: a context that copies bytes from one buffer (list) to another.
 *
 * Object model
 *   struct doca_dma               a DMA context on one device; it is a struct doca_ctx
 *                                 (doca_dma_as_ctx) and follows the ctx state machine of
 *                                 doca_ctx.h: configure while IDLE, doca_ctx_start(), submit
 *                                 tasks while RUNNING, doca_ctx_stop(), doca_dma_destroy().
 *   struct doca_dma_task_memcpy   the one task type: copy the source buffer list's data into
 *                                 the destination buffer list.  It is a struct doca_task
 *                                 (doca_dma_task_memcpy_as_task); submit, free, status and
 *                                 user data go through doca_pe.h.
 *
 * Call order
 *   doca_dma_cap_task_memcpy_is_supported(devinfo)      pick a device (SUCCESS = usable)
 *   doca_dma_create(dev, &dma)
 *   doca_dma_task_memcpy_set_conf(dma, ok_cb, err_cb, n) before doca_ctx_start()
 *   doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)); doca_ctx_start(doca_dma_as_ctx(dma))
 *   doca_dma_task_memcpy_alloc_init(dma, src, dst, user_data, &task)
 *   doca_task_submit(doca_dma_task_memcpy_as_task(task)); doca_pe_progress(pe) ...
 *   doca_ctx_stop(...); doca_dma_destroy(dma)
 *
 * Data placement
 *   The bytes copied are the concatenation of each source segment's data window
 *   [data, data + data_len).  They are written into the destination list segment by
 *   segment, each segment receiving bytes at data + data_len (its tail room) up to the
 *   end of its region; every destination segment's data_len grows by what it received.
 *   A task whose source is longer than the destination's total tail room fails with
 *   DOCA_ERROR_INVALID_VALUE and writes nothing.
 *
 * Permissions
 *   Source: any started local mmap; a from-export (PCI) mmap whose exporter granted
 *   DOCA_ACCESS_FLAG_PCI_READ_ONLY or DOCA_ACCESS_FLAG_PCI_READ_WRITE.  Destination: a local
 *   mmap with DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, or a from-export mmap with
 *   DOCA_ACCESS_FLAG_PCI_READ_WRITE.  Otherwise the task fails with DOCA_ERROR_NOT_PERMITTED.
 *
 * Completion
 *   Every submitted task completes exactly once, inside doca_pe_progress(), through the
 *   success or the error callback given to doca_dma_task_memcpy_set_conf();
 *   doca_task_get_status() tells why a task failed.  doca_task_submit() refuses only what it
 *   can see without touching the buffers (state, queue full); doca_task_try_submit()
 *   validates the whole task first and returns the code instead of submitting.
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <inttypes.h> /* as DOCA's: programs print task sizes with PRIu64 after this include alone */
#include <stdint.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;
struct doca_gpu_dma;

/* Opaque DMA context. */
struct doca_dma;
/* Opaque DMA memcpy task. */
struct doca_dma_task_memcpy;

/*
 * Completion callback of a memcpy task: task_user_data is the task's user data,
 * ctx_user_data the DMA context's (doca_ctx_set_user_data).
 */
typedef void (*doca_dma_task_memcpy_completion_cb_t)(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

/*
 * Create a DMA context on dev.
 * Returns SUCCESS; INVALID_VALUE for NULL arguments; NOT_SUPPORTED if the device cannot
 * do DMA memcpy; NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma);

/*
 * Destroy a DMA context and its task pool.  The context must be IDLE (stopped) and
 * every task freed.
 * Returns SUCCESS; INVALID_VALUE for NULL; BAD_STATE if the context is not IDLE.
 */
DOCA_STABLE doca_error_t doca_dma_destroy(struct doca_dma *dma);

/* The generic context of a DMA context (NULL for NULL). */
DOCA_STABLE struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma);

/*
 * Can the device run memcpy tasks?
 * Returns SUCCESS if yes; NOT_SUPPORTED if not; INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo);

/*
 * Largest number of memcpy tasks one context may be configured with.
 * Returns SUCCESS; INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks);

/*
 * Largest number of segments a task may use, source and destination segments added.
 * Returns SUCCESS; INVALID_VALUE for NULL; NOT_SUPPORTED if the device has no DMA.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								       uint32_t *max_buf_list_len);

/*
 * Largest buffer (bytes, summed over a list) a task may copy from or into.
 * Returns SUCCESS; INVALID_VALUE for NULL; NOT_SUPPORTED if the device has no DMA.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo,
								   uint64_t *buf_size);

/*
 * Enable memcpy tasks and size their pool.  Only while the context is IDLE.
 * Returns SUCCESS; INVALID_VALUE for NULL dma or callbacks, num_memcpy_tasks 0 or above
 * doca_dma_cap_get_max_num_tasks(); BAD_STATE if the context is not IDLE or tasks
 * of the previous configuration are still allocated.
 */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
						       doca_dma_task_memcpy_completion_cb_t task_completion_cb,
						       doca_dma_task_memcpy_completion_cb_t task_error_cb,
						       uint32_t num_memcpy_tasks);

/*
 * Take a memcpy task from the pool and set its buffers and user data.  src and dst may
 * be NULL and set later (doca_dma_task_memcpy_set_src/_dst) before submitting.
 * Returns SUCCESS; INVALID_VALUE for NULL dma/task, or a buffer (list) larger than
 * doca_dma_cap_task_memcpy_get_max_buf_size() or more segments than
 * doca_dma_cap_task_memcpy_get_max_buf_list_len(); BAD_STATE if set_conf was not called;
 * NO_MEMORY when every task of the pool is allocated.
 */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
							 struct doca_buf *dst, union doca_data user_data,
							 struct doca_dma_task_memcpy **task);

/* The generic task of a memcpy task (NULL for NULL). */
DOCA_STABLE struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task);

/* Replace the source buffer (list head) of a task that is not in flight. */
DOCA_STABLE void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src);

/* The source buffer of a task (NULL for NULL). */
DOCA_STABLE const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task);

/* Replace the destination buffer (list head) of a task that is not in flight. */
DOCA_STABLE void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst);

/* The destination buffer of a task (NULL for NULL). */
DOCA_STABLE struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task);

/*
 * GPU datapath handle.  softdoca has no GPU datapath.
 * Returns NOT_SUPPORTED (INVALID_VALUE for NULL arguments).
 */
DOCA_EXPERIMENTAL doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **gpu_dma);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
