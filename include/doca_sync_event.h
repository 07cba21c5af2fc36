/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sync events: a 64-bit value that publishers update and subscribers wait on.
 *
 * Object model.  A struct doca_sync_event is created, told where its publishers
 * and subscribers run (add_publisher_location_* / add_subscriber_location_*:
 * at least one of each), optionally given its value storage (set_addr or
 * set_doca_buf; by default it owns 8 bytes), then started either stand-alone
 * (doca_sync_event_start) or as a context (doca_sync_event_as_ctx +
 * doca_pe_connect_ctx + doca_ctx_start, which also enables the task families
 * below).  Started, the value is read and changed with get / update_* and waited
 * on with wait_*.  Configuration is refused once started (BAD_STATE).
 *
 * Locations softdoca provides: CPU (publisher and subscriber) and remote network
 * (publisher: a peer updates the value over RDMA; export_to_remote_net and the
 * remote_net functions come with libdoca_rdma).  DPA, GPU and remote PCI
 * locations return NOT_SUPPORTED: softdoca has no DPA, GPU or PCIe peer.
 *
 * Waits busy-poll the value ((value & mask) compared with the argument); the
 * *_yield variants call sched_yield() between polls.  A wait returns only when
 * its condition holds: there is no timeout.
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_sync_event;
struct doca_sync_event_remote_net;
struct doca_dev;
struct doca_devinfo;
struct doca_buf;
struct doca_ctx;
struct doca_task;
struct doca_dpa;
struct doca_gpu;

/* Device-side handles of an exported event (DPA / GPU); unused by softdoca. */
typedef uint64_t doca_dpa_dev_sync_event_t;
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;
typedef uint64_t doca_gpu_dev_sync_event_t;
typedef uint64_t doca_gpu_dev_sync_event_remote_net_t;

/* --- lifetime ------------------------------------------------------------------ */

/* SUCCESS, INVALID_VALUE, NO_MEMORY. */
DOCA_STABLE doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/*
 * Create an event from the other side's doca_sync_event_export_to_remote_pci() bytes
 * (the host process and the DPU process of one machine).  Both processes then share
 * the same 64-bit value: updates and waits on either side see each other at once.
 * The result cannot be configured (no locations, set_addr...); start it and use it.
 * SUCCESS; INVALID_VALUE (NULL, malformed bytes); UNSUPPORTED_VERSION; NOT_FOUND (the
 * exporting process is gone); NOT_PERMITTED (another user, or the export was revoked).
 */
DOCA_STABLE doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
							    struct doca_sync_event **event);

/* SUCCESS on every emulated function (host or DPU side); INVALID_VALUE for NULL. */
DOCA_STABLE doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/*
 * Import a peer's doca_sync_event_export_to_remote_net() descriptor, for the
 * RDMA remote_net sync-event tasks.  Provided by libdoca_rdma (NOT_SUPPORTED,
 * logged, when it is not loaded).  Returns SUCCESS, INVALID_VALUE, NOT_SUPPORTED,
 * NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data,
								       size_t sz,
								       struct doca_sync_event_remote_net **event);

/* SUCCESS when libdoca_rdma is loaded and the device supports RDMA; else NOT_SUPPORTED. */
DOCA_STABLE doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo);

/*
 * Destroy an event.  A stand-alone started event is stopped first; an event used
 * as a context must be IDLE (BAD_STATE otherwise).  SUCCESS, INVALID_VALUE,
 * BAD_STATE.
 */
DOCA_STABLE doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

DOCA_STABLE doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

/* --- configuration (before start) ---------------------------------------------- */

/* SUCCESS, INVALID_VALUE, BAD_STATE (started). */
DOCA_STABLE doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
								    struct doca_dev *dev);
/* NOT_SUPPORTED: no DPA / GPU in softdoca. */
DOCA_STABLE doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event,
								    struct doca_dpa *dpa);
DOCA_STABLE doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event,
								    struct doca_gpu *gpu);
/* The other side of the PCI bus updates the event (export_to_remote_pci).  SUCCESS, INVALID_VALUE, BAD_STATE. */
DOCA_STABLE doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);
/* A network peer updates the event (export_to_remote_net).  SUCCESS, INVALID_VALUE, BAD_STATE. */
DOCA_STABLE doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);

/* SUCCESS, INVALID_VALUE, BAD_STATE (started). */
DOCA_STABLE doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
								     struct doca_dev *dev);
/* NOT_SUPPORTED: no DPA / GPU in softdoca. */
DOCA_STABLE doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event,
								     struct doca_dpa *dpa);
DOCA_STABLE doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event,
								     struct doca_gpu *gpu);
/* The other side of the PCI bus waits on the event.  SUCCESS, INVALID_VALUE, BAD_STATE. */
DOCA_STABLE doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event);

/*
 * Keep the value in the caller's 8-byte aligned storage (which must outlive the
 * event) instead of the event's own.  The current content becomes the value.
 * SUCCESS, INVALID_VALUE (NULL or misaligned), BAD_STATE (started).
 */
DOCA_STABLE doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/*
 * Same with the first 8 bytes of buf's data window (data_len >= 8, aligned).
 * SUCCESS, INVALID_VALUE, BAD_STATE.
 */
DOCA_STABLE doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf);

/*
 * Stand-alone start / stop.  Start needs a publisher and a subscriber location.
 * SUCCESS, INVALID_VALUE, BAD_STATE (no locations; already started; used as a
 * context).  Stopping a stopped event returns SUCCESS.
 */
DOCA_STABLE doca_error_t doca_sync_event_start(struct doca_sync_event *event);
DOCA_STABLE doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/* The event as a context (for the task families below); NULL for event NULL. */
DOCA_STABLE struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

/* --- export ---------------------------------------------------------------------- */

/*
 * Export to the process on the other side of the PCI bus (host <-> DPU of one machine):
 * *data (48 bytes, owned by the event) goes to the peer, which calls
 * doca_sync_event_create_from_export().  Needs a remote-PCI publisher or subscriber
 * location and the event's own storage (not set_addr / set_doca_buf).
 * SUCCESS; INVALID_VALUE (NULL); BAD_STATE (no remote-PCI location); NOT_PERMITTED
 * (an imported event); NOT_SUPPORTED (user storage, or exported to the network).
 */
DOCA_STABLE doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev,
							      const uint8_t **data, size_t *sz);
/* SUCCESS on every emulated function; INVALID_VALUE for NULL. */
DOCA_STABLE doca_error_t doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);
/* NOT_SUPPORTED: no DPA / GPU in softdoca. */
DOCA_STABLE doca_error_t doca_sync_event_export_to_dpa(struct doca_sync_event *event, struct doca_dpa *dpa,
						       doca_dpa_dev_sync_event_t *dpa_dev_se_handle);
DOCA_STABLE doca_error_t doca_sync_event_export_to_gpu(struct doca_sync_event *event, struct doca_gpu *gpu,
						       doca_gpu_dev_sync_event_t *gpu_dev_se);

/*
 * Describe a started event whose publisher is remote_net so that a peer can
 * update it over RDMA (at most 4096 bytes, owned by the event).  Provided by
 * libdoca_rdma.  SUCCESS, INVALID_VALUE, BAD_STATE, NOT_PERMITTED (no remote_net
 * publisher), NOT_SUPPORTED (libdoca_rdma not loaded).
 */
DOCA_STABLE doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data,
							      size_t *sz);

/* NOT_SUPPORTED: no DPA / GPU in softdoca. */
DOCA_STABLE doca_error_t
doca_sync_event_remote_net_export_to_dpa(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
					 doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);
DOCA_STABLE doca_error_t
doca_sync_event_remote_net_export_to_gpu(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
					 doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event);

/* --- value (started events) ---------------------------------------------------- */

/* All: SUCCESS, INVALID_VALUE, BAD_STATE (not started). */
DOCA_STABLE doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);
/* Atomically add; *fetched (may be NULL) receives the value before the addition. */
DOCA_STABLE doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched);
DOCA_STABLE doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/* Busy-wait until (event value & mask) > value, == value, != value respectively. */
DOCA_STABLE doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_STABLE doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_STABLE doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_STABLE doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_STABLE doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_STABLE doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/* --- task families (event started as a context) -------------------------------- */
/*
 * Each family: cap_task_*_is_supported(devinfo) (SUCCESS: CPU implementation),
 * *_set_conf (IDLE only; BAD_STATE / INVALID_VALUE), *_alloc_init (NO_MEMORY when
 * the pool is exhausted, BAD_STATE before set_conf), *_as_doca_task, setters and
 * getters.  get / notify_set / notify_add complete at the next progress; wait_eq /
 * wait_neq complete when (value & mask) ==/!= wait_val, as seen by progress.
 */
struct doca_sync_event_task_get;
struct doca_sync_event_task_notify_set;
struct doca_sync_event_task_notify_add;
struct doca_sync_event_task_wait_eq;
struct doca_sync_event_task_wait_neq;

typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
							 union doca_data task_user_data, union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
							     union doca_data task_user_data,
							     union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(struct doca_sync_event_task_wait_neq *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* get: copy the value to *ret_val_ptr. */
DOCA_STABLE doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);
DOCA_STABLE doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
							   doca_sync_event_task_get_completion_cb_t completion_cb,
							   doca_sync_event_task_get_completion_cb_t error_cb,
							   uint32_t num_tasks);
DOCA_STABLE doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
							     union doca_data user_data,
							     struct doca_sync_event_task_get **task);
DOCA_STABLE struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);
DOCA_STABLE void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task, uint64_t *ret_val_ptr);
DOCA_STABLE uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

/* notify_set: set the value to set_val. */
DOCA_STABLE doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);
DOCA_STABLE doca_error_t doca_sync_event_task_notify_set_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_notify_set_completion_cb_t completion_cb,
	doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_STABLE doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
								    union doca_data user_data,
								    struct doca_sync_event_task_notify_set **task);
DOCA_STABLE struct doca_task *
doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);
DOCA_STABLE void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
							     uint64_t set_val);
DOCA_STABLE uint64_t doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

/* notify_add: add inc_val; the previous value goes to *fetched_val_ptr (may be NULL). */
DOCA_STABLE doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);
DOCA_STABLE doca_error_t doca_sync_event_task_notify_add_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_notify_add_completion_cb_t completion_cb,
	doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_STABLE doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
								    uint64_t *fetched_val_ptr,
								    union doca_data user_data,
								    struct doca_sync_event_task_notify_add **task);
DOCA_STABLE struct doca_task *
doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);
DOCA_STABLE void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
							     uint64_t inc_val);
DOCA_STABLE uint64_t doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);
DOCA_STABLE void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
								     uint64_t *fetched_val_ptr);
DOCA_STABLE uint64_t *
doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task);

/* wait_eq: complete when (value & mask) == wait_val. */
DOCA_STABLE doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);
DOCA_STABLE doca_error_t doca_sync_event_task_wait_eq_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
	doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_STABLE doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
								 uint64_t mask, union doca_data user_data,
								 struct doca_sync_event_task_wait_eq **task);
DOCA_STABLE struct doca_task *doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);
DOCA_STABLE void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task,
							   uint64_t wait_val);
DOCA_STABLE uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);
DOCA_STABLE void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask);
DOCA_STABLE uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

/* wait_neq: complete when (value & mask) != wait_val. */
DOCA_STABLE doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);
DOCA_STABLE doca_error_t doca_sync_event_task_wait_neq_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
	doca_sync_event_task_wait_neq_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_STABLE doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
								  uint64_t mask, union doca_data user_data,
								  struct doca_sync_event_task_wait_neq **task);
DOCA_STABLE struct doca_task *doca_sync_event_task_wait_neq_as_doca_task(struct doca_sync_event_task_wait_neq *task);
DOCA_STABLE void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task,
							    uint64_t wait_val);
DOCA_STABLE uint64_t doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);
DOCA_STABLE void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task, uint64_t mask);
DOCA_STABLE uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
