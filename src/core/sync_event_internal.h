/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sync events as libdoca_rdma sees them: the 64-bit value (an atomic the RDMA
 * layer may read and update from any thread, including its service thread while
 * the owner's PE is not progressing), the publisher/subscriber locations, and the
 * hooks through which doca_sync_event_export_to_remote_net() and the remote_net
 * functions of libdoca_common reach libdoca_rdma.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_SYNC_EVENT_INTERNAL_H_
#define SD_SYNC_EVENT_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_sync_event.h>

#include "ctx_internal.h"

/* Locations (bit mask of struct doca_sync_event.publishers / .subscribers). */
#define SD_SYNC_EVENT_LOC_CPU (1u << 0)
#define SD_SYNC_EVENT_LOC_REMOTE_NET (1u << 1)
#define SD_SYNC_EVENT_LOC_REMOTE_PCI (1u << 2)

/* Task families of an event used as a context (index into pools[]). */
enum sd_sync_event_task_type {
	SD_SE_TASK_GET,
	SD_SE_TASK_NOTIFY_SET,
	SD_SE_TASK_NOTIFY_ADD,
	SD_SE_TASK_WAIT_EQ,
	SD_SE_TASK_WAIT_NEQ,
	SD_SE_TASK_TYPES,
};

struct doca_sync_event {
	struct doca_ctx SD_CORE_PRIVATE(ctx);	     /* first: doca_sync_event_as_ctx() */
	_Atomic uint64_t SD_CORE_PRIVATE(own_value); /* default storage of the value */
	/*
	 * The value: &own_value, or the user's storage (set_addr / set_doca_buf).
	 * Fixed once started.  Update it only with atomics, then call
	 * sd_sync_event_changed() so that wait tasks of a sleeping PE re-check.
	 */
	_Atomic uint64_t *SD_CORE_PRIVATE(value);
	/*
	 * The device of the first CPU location added (publisher or subscriber):
	 * doca_sync_event_export_to_remote_net() registers the value with it.  Not
	 * referenced: DOCA requires the device to outlive the event.
	 */
	struct doca_dev *SD_CORE_PRIVATE(dev);
	uint32_t SD_CORE_PRIVATE(publishers); /* SD_SYNC_EVENT_LOC_* */
	uint32_t SD_CORE_PRIVATE(subscribers);
	bool SD_CORE_PRIVATE(standalone_started); /* doca_sync_event_start() (as opposed to doca_ctx_start) */
	/* Context mode: pools per family and the wait tasks not yet satisfied. */
	struct sd_task_pool *SD_CORE_PRIVATE(pools)[SD_SE_TASK_TYPES];
	struct sd_list SD_CORE_PRIVATE(waiters);
	atomic_uint SD_CORE_PRIVATE(num_waiters); /* read by other threads in sd_sync_event_changed() */
	/* Remote-net export: owned by libdoca_rdma, released at destroy (may stay NULL). */
	void *SD_CORE_PRIVATE(remote);
	void (*SD_CORE_PRIVATE(remote_release))(struct doca_sync_event *event);
	/* Remote-PCI export / import (sync_event_pci.c): the shared page holding the value. */
	void *SD_CORE_PRIVATE(pci_page);
	int SD_CORE_PRIVATE(pci_fd); /* exporter's memfd, -1 otherwise */
	uint8_t SD_CORE_PRIVATE(pci_key)[16];
	uint8_t SD_CORE_PRIVATE(pci_desc)[48]; /* the descriptor handed out by the export */
	bool SD_CORE_PRIVATE(imported);	       /* created from an export: not configurable */
};

/* Started stand-alone or as a (non-IDLE) context: the value may be used. */
static inline bool
sd_sync_event_started(const struct doca_sync_event *event)
{
	return event->SD_CORE_PRIVATE(standalone_started) ||
	       event->SD_CORE_PRIVATE(ctx).SD_CORE_PRIVATE(state) != DOCA_CTX_STATE_IDLE;
}

/* The value changed behind the API (remote write): wake a PE with wait tasks.  Any thread. */
SD_EXPORT void sd_sync_event_changed(struct doca_sync_event *event);

/* Unmap / close the remote-PCI page of an exported or imported event (destroy). */
void sd_sync_event_pci_release(struct doca_sync_event *event);

/*
 * Installed by libdoca_rdma when it loads.  Unset hooks make the calls return
 * NOT_SUPPORTED, logged "available with libdoca_rdma".  The facade in
 * sync_event.c has already checked NULL arguments; export_to_remote_net is
 * called only for a started event with a remote_net publisher.
 */
struct sd_sync_event_rdma_hooks {
	doca_error_t (*export_to_remote_net)(struct doca_sync_event *event, const uint8_t **data, size_t *sz);
	doca_error_t (*remote_net_create_from_export)(struct doca_dev *dev, const uint8_t *data, size_t sz,
						      struct doca_sync_event_remote_net **event);
	doca_error_t (*remote_net_destroy)(struct doca_sync_event_remote_net *event);
	doca_error_t (*remote_net_cap_supported)(const struct doca_devinfo *devinfo);
};
SD_EXPORT void sd_sync_event_set_rdma_hooks(const struct sd_sync_event_rdma_hooks *hooks);

/* --- inside libdoca_common only (sync_event.c <-> sync_event_task.c) ------------ */

enum sd_sync_event_cmp {
	SD_SE_CMP_GT,
	SD_SE_CMP_EQ,
	SD_SE_CMP_NEQ,
};

/* (current & mask) compared with value. */
bool sd_sync_event_cond_met(uint64_t current, uint64_t mask, uint64_t value, enum sd_sync_event_cmp cmp);

/* Not started, with a publisher and a subscriber: SUCCESS, else the refusal (logged with api). */
doca_error_t sd_sync_event_check_startable(const struct doca_sync_event *event, const char *api);

/* The ctx ops of an event used as a context (sync_event_task.c). */
extern const struct sd_ctx_ops sd_sync_event_ctx_ops;

#endif /* SD_SYNC_EVENT_INTERNAL_H_ */
