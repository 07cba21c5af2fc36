/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sync events, local CPU part: the object, its locations and value storage,
 * stand-alone start/stop, get/update and the busy waits.  Remote-net export and
 * import are forwarded to libdoca_rdma through hooks; the task families (event
 * as a context) are in sync_event_task.c.
 */
#include <sched.h>
#include <stdlib.h>

#include <doca_sync_event.h>

#include "mmap_internal.h"
#include "sd_log.h"
#include "sync_event_internal.h"

SD_LOG_REGISTER(core.sync_event)

static struct sd_sync_event_rdma_hooks rdma_hooks;

void
sd_sync_event_set_rdma_hooks(const struct sd_sync_event_rdma_hooks *hooks)
{
	if (hooks == NULL)
		rdma_hooks = (struct sd_sync_event_rdma_hooks){0};
	else
		rdma_hooks = *hooks;
}

#define NEEDS_RDMA "available with libdoca_rdma; link the program with doca-rdma"

/* --- lifetime -------------------------------------------------------------------- */

doca_error_t
doca_sync_event_create(struct doca_sync_event **event)
{
	struct doca_sync_event *ev;

	if (event == NULL) {
		DOCA_LOG_ERR(
			"doca_sync_event_create: event is NULL; pass the address of a struct doca_sync_event pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ev = calloc(1, sizeof(*ev));
	if (ev == NULL) {
		DOCA_LOG_ERR("doca_sync_event_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_ctx_init(&ev->ctx, &sd_sync_event_ctx_ops, NULL);
	atomic_init(&ev->own_value, 0);
	ev->value = &ev->own_value;
	sd_list_init(&ev->waiters);
	atomic_init(&ev->num_waiters, 0);
	ev->pci_fd = -1;
	*event = ev;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_destroy(struct doca_sync_event *event)
{
	doca_error_t err;

	if (event == NULL) {
		DOCA_LOG_ERR("doca_sync_event_destroy: event is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE (logged) while the event runs as a context. */
	err = sd_ctx_fini(&event->ctx, "doca_sync_event_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	event->standalone_started = false;
	if (event->remote != NULL && event->remote_release != NULL)
		event->remote_release(event);
	sd_sync_event_pci_release(event);
	free(event);
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
					      struct doca_sync_event_remote_net **event)
{
	if (dev == NULL || data == NULL || sz == 0 || event == NULL) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_create_from_export: NULL or empty argument (dev=%p, data=%p, "
			     "sz=%zu, event=%p)",
			     (void *)dev, (const void *)data, sz, (void *)event);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma_hooks.remote_net_create_from_export == NULL) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_create_from_export: " NEEDS_RDMA);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return rdma_hooks.remote_net_create_from_export(dev, data, sz, event);
}

doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_sync_event_cap_remote_net_is_create_from_export_supported: devinfo is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma_hooks.remote_net_cap_supported == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	return rdma_hooks.remote_net_cap_supported(devinfo);
}

doca_error_t
doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event)
{
	if (event == NULL) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_destroy: event is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma_hooks.remote_net_destroy == NULL) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_destroy: " NEEDS_RDMA);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return rdma_hooks.remote_net_destroy(event);
}

/* --- configuration ----------------------------------------------------------------- */

/* Common checks of the configuration calls; logs the refusal. */
static doca_error_t
check_configurable(const struct doca_sync_event *event, const char *api)
{
	if (event == NULL) {
		DOCA_LOG_ERR("%s: event is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_sync_event_started(event)) {
		DOCA_LOG_ERR(
			"%s: the sync event is started; configure it before doca_sync_event_start()/doca_ctx_start()",
			api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (event->imported) {
		DOCA_LOG_ERR("%s: an event created from an export cannot be configured; configure the exported one",
			     api);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
add_cpu_location(struct doca_sync_event *event, struct doca_dev *dev, uint32_t *mask, const char *api)
{
	doca_error_t err = check_configurable(event, api);

	if (err != DOCA_SUCCESS)
		return err;
	if (dev == NULL) {
		DOCA_LOG_ERR("%s: dev is NULL; pass the doca_dev the CPU side uses", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*mask |= SD_SYNC_EVENT_LOC_CPU;
	if (event->dev == NULL)
		event->dev = dev;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return add_cpu_location(event, dev, event != NULL ? &event->publishers : NULL,
				"doca_sync_event_add_publisher_location_cpu");
}

doca_error_t
doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return add_cpu_location(event, dev, event != NULL ? &event->subscribers : NULL,
				"doca_sync_event_add_subscriber_location_cpu");
}

doca_error_t
doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event)
{
	doca_error_t err = check_configurable(event, "doca_sync_event_add_publisher_location_remote_net");

	if (err != DOCA_SUCCESS)
		return err;
	event->publishers |= SD_SYNC_EVENT_LOC_REMOTE_NET;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	DOCA_LOG_ERR("doca_sync_event_add_publisher_location_dpa: softdoca has no DPA; publish from the CPU or from a "
		     "network peer (remote_net)");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	DOCA_LOG_ERR("doca_sync_event_add_publisher_location_gpu: softdoca has no GPU; publish from the CPU or from a "
		     "network peer (remote_net)");
	return DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t
add_remote_pci_location(struct doca_sync_event *event, uint32_t *mask, const char *api)
{
	doca_error_t err = check_configurable(event, api);

	if (err != DOCA_SUCCESS)
		return err;
	*mask |= SD_SYNC_EVENT_LOC_REMOTE_PCI;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event)
{
	return add_remote_pci_location(event, event == NULL ? NULL : &event->publishers,
				       "doca_sync_event_add_publisher_location_remote_pci");
}

doca_error_t
doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	DOCA_LOG_ERR("doca_sync_event_add_subscriber_location_dpa: softdoca has no DPA; subscribe from the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	DOCA_LOG_ERR("doca_sync_event_add_subscriber_location_gpu: softdoca has no GPU; subscribe from the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event)
{
	return add_remote_pci_location(event, event == NULL ? NULL : &event->subscribers,
				       "doca_sync_event_add_subscriber_location_remote_pci");
}

static doca_error_t
set_storage(struct doca_sync_event *event, void *addr, const char *api)
{
	doca_error_t err = check_configurable(event, api);

	if (err != DOCA_SUCCESS)
		return err;
	if (addr == NULL || ((uintptr_t)addr & 7) != 0) {
		DOCA_LOG_ERR("%s: value storage %p is NULL or not 8-byte aligned; pass an aligned uint64_t", api, addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	event->value = (_Atomic uint64_t *)addr;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr)
{
	return set_storage(event, addr, "doca_sync_event_set_addr");
}

doca_error_t
doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf)
{
	if (buf == NULL) {
		DOCA_LOG_ERR("doca_sync_event_set_doca_buf: buf is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((size_t)((buf->head + buf->len) - buf->data) < sizeof(uint64_t)) {
		DOCA_LOG_ERR("doca_sync_event_set_doca_buf: only %zu bytes from the buffer's data pointer to its end; "
			     "the value needs 8",
			     (size_t)((buf->head + buf->len) - buf->data));
		return DOCA_ERROR_INVALID_VALUE;
	}
	return set_storage(event, buf->data, "doca_sync_event_set_doca_buf");
}

static doca_error_t
check_locations(const struct doca_sync_event *event, const char *api)
{
	if (event->publishers == 0 || event->subscribers == 0) {
		DOCA_LOG_ERR("%s: no %s location; call doca_sync_event_add_%s_location_*() first", api,
			     event->publishers == 0 ? "publisher" : "subscriber",
			     event->publishers == 0 ? "publisher" : "subscriber");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_sync_event_check_startable(const struct doca_sync_event *event, const char *api)
{
	if (event == NULL) {
		DOCA_LOG_ERR("%s: event is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_sync_event_started(event)) {
		DOCA_LOG_ERR("%s: the sync event is already started", api);
		return DOCA_ERROR_BAD_STATE;
	}
	/* An imported event is complete as created: it starts, it is not configured. */
	return check_locations(event, api);
}

doca_error_t
doca_sync_event_start(struct doca_sync_event *event)
{
	doca_error_t err = sd_sync_event_check_startable(event, "doca_sync_event_start");

	if (err != DOCA_SUCCESS)
		return err;
	event->standalone_started = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_stop(struct doca_sync_event *event)
{
	if (event == NULL) {
		DOCA_LOG_ERR("doca_sync_event_stop: event is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (event->ctx.state != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("doca_sync_event_stop: the event runs as a context; stop it with doca_ctx_stop()");
		return DOCA_ERROR_BAD_STATE;
	}
	event->standalone_started = false;
	return DOCA_SUCCESS;
}

struct doca_ctx *
doca_sync_event_as_ctx(struct doca_sync_event *event)
{
	if (event == NULL) {
		DOCA_LOG_ERR("doca_sync_event_as_ctx: event is NULL");
		return NULL;
	}
	return &event->ctx;
}

/* --- export -------------------------------------------------------------------------- */

doca_error_t
doca_sync_event_export_to_dpa(struct doca_sync_event *event, struct doca_dpa *dpa,
			      doca_dpa_dev_sync_event_t *dpa_dev_se_handle)
{
	DOCA_LOG_ERR("doca_sync_event_export_to_dpa: softdoca has no DPA; use the event from the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_sync_event_export_to_gpu(struct doca_sync_event *event, struct doca_gpu *gpu,
			      doca_gpu_dev_sync_event_t *gpu_dev_se)
{
	DOCA_LOG_ERR("doca_sync_event_export_to_gpu: softdoca has no GPU; use the event from the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz)
{
	if (event == NULL || data == NULL || sz == NULL) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: NULL argument (event=%p, data=%p, sz=%p)",
			     (void *)event, (void *)data, (void *)sz);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (rdma_hooks.export_to_remote_net == NULL) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: " NEEDS_RDMA);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (!(event->publishers & SD_SYNC_EVENT_LOC_REMOTE_NET)) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: the event has no remote_net publisher; call "
			     "doca_sync_event_add_publisher_location_remote_net() before starting it");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!sd_sync_event_started(event)) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: the event is not started; call "
			     "doca_sync_event_start() first");
		return DOCA_ERROR_BAD_STATE;
	}
	return rdma_hooks.export_to_remote_net(event, data, sz);
}

doca_error_t
doca_sync_event_remote_net_export_to_dpa(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
					 doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event)
{
	DOCA_LOG_ERR(
		"doca_sync_event_remote_net_export_to_dpa: softdoca has no DPA; use the remote event from the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_sync_event_remote_net_export_to_gpu(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
					 doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event)
{
	DOCA_LOG_ERR(
		"doca_sync_event_remote_net_export_to_gpu: softdoca has no GPU; use the remote event from the CPU");
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* --- value ---------------------------------------------------------------------------- */

static inline doca_error_t
check_started(const struct doca_sync_event *event, const char *api)
{
	if (sd_unlikely(event == NULL)) {
		DOCA_LOG_ERR("%s: event is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_unlikely(!sd_sync_event_started(event))) {
		DOCA_LOG_ERR(
			"%s: the sync event is not started; call doca_sync_event_start() (or doca_ctx_start()) first",
			api);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

void
sd_sync_event_changed(struct doca_sync_event *event)
{
	struct doca_pe *pe = event->ctx.pe;

	/* Only wait tasks care; without them this is one load. */
	if (atomic_load_explicit(&event->num_waiters, memory_order_acquire) != 0 && pe != NULL)
		sd_pe_wake(pe);
}

doca_error_t
doca_sync_event_get(struct doca_sync_event *event, uint64_t *value)
{
	doca_error_t err = check_started(event, "doca_sync_event_get");

	if (err != DOCA_SUCCESS)
		return err;
	if (value == NULL) {
		DOCA_LOG_ERR("doca_sync_event_get: value is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*value = atomic_load_explicit(event->value, memory_order_acquire);
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched)
{
	doca_error_t err = check_started(event, "doca_sync_event_update_add");
	uint64_t old;

	if (err != DOCA_SUCCESS)
		return err;
	old = atomic_fetch_add_explicit(event->value, value, memory_order_acq_rel);
	if (fetched != NULL)
		*fetched = old;
	sd_sync_event_changed(event);
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value)
{
	doca_error_t err = check_started(event, "doca_sync_event_update_set");

	if (err != DOCA_SUCCESS)
		return err;
	atomic_store_explicit(event->value, value, memory_order_release);
	sd_sync_event_changed(event);
	return DOCA_SUCCESS;
}

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

bool
sd_sync_event_cond_met(uint64_t current, uint64_t mask, uint64_t value, enum sd_sync_event_cmp cmp)
{
	uint64_t v = current & mask;

	switch (cmp) {
	case SD_SE_CMP_GT:
		return v > value;
	case SD_SE_CMP_EQ:
		return v == value;
	default:
		return v != value;
	}
}

static doca_error_t
wait_until(struct doca_sync_event *event, uint64_t value, uint64_t mask, enum sd_sync_event_cmp cmp, bool yield,
	   const char *api)
{
	doca_error_t err = check_started(event, api);

	if (err != DOCA_SUCCESS)
		return err;
	while (!sd_sync_event_cond_met(atomic_load_explicit(event->value, memory_order_acquire), mask, value, cmp)) {
		if (yield)
			sched_yield();
		else
			cpu_relax();
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return wait_until(event, value, mask, SD_SE_CMP_GT, false, "doca_sync_event_wait_gt");
}

doca_error_t
doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return wait_until(event, value, mask, SD_SE_CMP_GT, true, "doca_sync_event_wait_gt_yield");
}

doca_error_t
doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return wait_until(event, value, mask, SD_SE_CMP_EQ, false, "doca_sync_event_wait_eq");
}

doca_error_t
doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return wait_until(event, value, mask, SD_SE_CMP_EQ, true, "doca_sync_event_wait_eq_yield");
}

doca_error_t
doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return wait_until(event, value, mask, SD_SE_CMP_NEQ, false, "doca_sync_event_wait_neq");
}

doca_error_t
doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask)
{
	return wait_until(event, value, mask, SD_SE_CMP_NEQ, true, "doca_sync_event_wait_neq_yield");
}
