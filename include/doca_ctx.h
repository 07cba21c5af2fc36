/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic context of DOCA Core: the state machine every DMA, RDMA and sync
 * event context goes through, its user data and its in-flight accounting.
 *
 * A context is created by its library (doca_dma_create(), ...), converted with
 * *_as_ctx(), connected to a progress engine (doca_pe_connect_ctx()), configured
 * while IDLE, then started:
 *
 *   IDLE --start--> STARTING --(progress)--> RUNNING      (some types skip STARTING)
 *   RUNNING --stop, nothing in flight--> IDLE            (doca_ctx_stop returns SUCCESS)
 *   RUNNING --stop with tasks in flight, or a task failed--> STOPPING
 *   STOPPING --(progress) last in-flight task reported--> IDLE
 *
 * The state-changed callback runs on every edge, synchronously: inside
 * doca_ctx_start()/doca_ctx_stop() for the edges they cause, inside
 * doca_pe_progress() for the others.  It may block, submit tasks and call
 * doca_ctx_stop() (nested transitions are reported in order).  When a stop finds
 * tasks in flight, those tasks come back through their error callback with a
 * flush status (DOCA_ERROR_IO_FAILED in softdoca).
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_devinfo;
struct doca_gpu;
struct doca_dpa;

enum doca_ctx_states {
	DOCA_CTX_STATE_IDLE = 0,
	DOCA_CTX_STATE_STARTING = 1,
	DOCA_CTX_STATE_RUNNING = 2,
	DOCA_CTX_STATE_STOPPING = 3,
};

/* State change notification; user_data is the context's user data. */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data, struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state, enum doca_ctx_states next_state);

/*
 * Start a context: freezes its configuration.
 * Returns SUCCESS (now STARTING or RUNNING), INVALID_VALUE, NOT_CONNECTED (not
 * connected to a PE), BAD_STATE (not IDLE), or the context type's start errors
 * (missing configuration, device capability, ...).
 */
DOCA_STABLE doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/*
 * Stop a context.
 * Returns SUCCESS when the context is IDLE on return (including when it already
 * was), IN_PROGRESS when tasks are in flight (the context is STOPPING; their
 * error callbacks and the move to IDLE happen in doca_pe_progress()),
 * INVALID_VALUE.
 */
DOCA_STABLE doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/*
 * Tasks submitted and not yet reported through a callback (a completion that
 * happened but was not reported yet still counts).  SUCCESS, INVALID_VALUE.
 */
DOCA_STABLE doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/* softdoca has no GPU: always NOT_SUPPORTED (logged). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev);

/*
 * The user data given to the state callback and, as ctx_user_data, to every task
 * callback.  SUCCESS, INVALID_VALUE.
 */
DOCA_STABLE doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);
DOCA_STABLE doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/* Set (or with NULL, clear) the state-changed callback.  SUCCESS, INVALID_VALUE. */
DOCA_STABLE doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

DOCA_STABLE doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

/*
 * Complete every task still in flight with the flush status and run their
 * callbacks now.  Meaningful only while STOPPING; otherwise it does nothing
 * (logged).
 */
DOCA_EXPERIMENTAL void doca_ctx_flush_tasks(struct doca_ctx *ctx);

/* softdoca has no DPA: always NOT_SUPPORTED (logged). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev);

/*
 * Completion vector (interrupt line) of the context.  softdoca has one vector:
 * SUCCESS for 0 while IDLE, INVALID_VALUE for other values, BAD_STATE when not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t completion_vector);

/* Number of completion vectors: always 1.  SUCCESS, INVALID_VALUE. */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo,
								       uint32_t *num_completion_vectors);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
