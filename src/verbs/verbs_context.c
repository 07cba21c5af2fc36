/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs context and protection domain: creation on an RDMA-capable devinfo,
 * the object counters that make destroy refuse while something is left, the
 * doca_dev a PD hands out, object numbers, and the context's async events
 * (an eventfd plus a queue the datapath fills).  Each PD is backed by a soft
 * ibv_pd (verbs_ibv.c); PDs imported from an ibv_pd are made in verbs_bridge.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <doca_dev.h>

#include "ibv/verbs_ibv.h"
#include "verbs_internal.h"

SD_LOG_REGISTER(verbs.context);

static uint32_t next_num;

uint32_t
sd_verbs_next_num(void)
{
	uint32_t n;

	/* 0 is never a valid number: skip it when the 24-bit space wraps. */
	do
		n = (__atomic_add_fetch(&next_num, 1, __ATOMIC_RELAXED)) & SD_VERBS_NUM_MASK;
	while (n == 0);
	return n;
}

void
sd_verbs_ctx_count(struct doca_verbs_context *ctx, uint32_t *counter, int delta)
{
	pthread_mutex_lock(&ctx->lock);
	*counter = (uint32_t)((int64_t)*counter + delta);
	pthread_mutex_unlock(&ctx->lock);
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_context_create(struct doca_devinfo *devinfo, uint32_t flags, struct doca_verbs_context **verbs_context)
{
	struct doca_verbs_context *ctx;
	struct doca_dev *dev;
	doca_error_t err;
	bool rdma, verbs;

	if (devinfo == NULL || verbs_context == NULL) {
		DOCA_LOG_ERR("doca_verbs_context_create: NULL argument (devinfo %p, verbs_context %p); pass non-NULL "
			     "pointers",
			     (void *)devinfo, (void *)verbs_context);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (flags != DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE) {
		DOCA_LOG_ERR("doca_verbs_context_create: unknown flags 0x%x; pass DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE",
			     flags);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* doca_dev_open checks that devinfo is one of this process's devices (and logs if not). */
	err = doca_dev_open(devinfo, &dev);
	if (err != DOCA_SUCCESS)
		return err;
	rdma = sd_devinfo_caps(devinfo)->rdma;
	verbs = sd_devinfo_caps(devinfo)->verbs;
	doca_dev_close(dev);
	if (rdma && !verbs) {
		DOCA_LOG_ERR("doca_verbs_context_create: device %s (%s) is a %s, which has no DOCA Verbs (BlueField-3 "
			     "and ConnectX-7 have); pick another device or model (docs/devices.md \"Models\")",
			     sd_devinfo_pci_addr(devinfo), sd_devinfo_ibdev_name(devinfo), sd_devinfo_model(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (!rdma) {
		DOCA_LOG_ERR("doca_verbs_context_create: device %s (%s) has no RDMA; pick a device for which "
			     "doca_rdma_cap_task_send_is_supported() returns DOCA_SUCCESS",
			     sd_devinfo_pci_addr(devinfo), sd_devinfo_ibdev_name(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	ctx = sd_fault_create("verbs", "doca_verbs_context_create") ? NULL : calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_verbs_context_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	ctx->async_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ctx->async_fd < 0) {
		DOCA_LOG_ERR("doca_verbs_context_create: failed to create the async event fd: %s; raise the process's "
			     "open-file limit",
			     strerror(errno));
		free(ctx);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* the soft NIC of the device's netdev: QPs and registered memory live on it */
	err = sd_fabric_dev_open(sd_devinfo_netdev(devinfo), &ctx->fdev);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_verbs_context_create: cannot open the soft NIC of %s (netdev %s): %s; check the "
			     "netdev exists and is up (docs/devices.md)",
			     sd_devinfo_ibdev_name(devinfo), sd_devinfo_netdev(devinfo), doca_error_get_descr(err));
		close(ctx->async_fd);
		free(ctx);
		return err;
	}
	pthread_mutex_init(&ctx->lock, NULL);
	sd_list_init(&ctx->async_events);
	ctx->devinfo = devinfo;
	*verbs_context = ctx;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_context_destroy(struct doca_verbs_context *ctx)
{
	uint32_t pds, cqs, qps, srqs, ahs, chans;

	if (ctx == NULL) {
		DOCA_LOG_ERR(
			"doca_verbs_context_destroy: verbs_context is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&ctx->lock);
	pds = ctx->num_pds;
	cqs = ctx->num_cqs;
	qps = ctx->num_qps;
	srqs = ctx->num_srqs;
	ahs = ctx->num_ahs;
	chans = ctx->num_channels;
	pthread_mutex_unlock(&ctx->lock);
	if (pds + cqs + qps + srqs + ahs + chans != 0) {
		DOCA_LOG_ERR("doca_verbs_context_destroy: the context still has %u QP(s), %u SRQ(s), %u CQ(s), "
			     "%u completion channel(s), %u AH attribute(s), %u PD(s); destroy them first "
			     "(QPs, AH attributes, CQs, channels, PDs)",
			     qps, srqs, cqs, chans, ahs, pds);
		return DOCA_ERROR_IN_USE;
	}
	/* the shared bridge context goes with its last holder (imports and imported PDs) */
	if (!ctx->bridged || sd_verbs_ibv_bridge_ctx_put(ctx))
		sd_verbs_ctx_free(ctx);
	return DOCA_SUCCESS;
}

void
sd_verbs_ctx_free(struct doca_verbs_context *ctx)
{
	while (!sd_list_empty(&ctx->async_events)) {
		struct sd_list *l = ctx->async_events.next;

		sd_list_del(l);
		free(sd_container_of(l, struct sd_verbs_async_node, link));
	}
	close(ctx->async_fd);
	sd_fabric_dev_close(ctx->fdev);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

DOCA_EXPERIMENTAL int
doca_verbs_context_export_handle(const struct doca_verbs_context *verbs_context)
{
	(void)verbs_context;
	SD_VERBS_REFUSE_ONCE("doca_verbs_context_export_handle: not supported: a softdoca Verbs context is not a "
			     "kernel verbs object another process could import; create a context in each process");
	return -1;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_context_import_from_handle(int handle, uint32_t flags, struct doca_verbs_context **verbs_context)
{
	(void)handle;
	(void)flags;
	(void)verbs_context;
	SD_VERBS_REFUSE_ONCE("doca_verbs_context_import_from_handle: not supported: softdoca contexts have no "
			     "shareable handle; create the context with doca_verbs_context_create()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_pd_create(struct doca_verbs_context *ctx, struct doca_verbs_pd **verbs_pd)
{
	struct doca_verbs_pd *pd;
	doca_error_t err;

	if (ctx == NULL || verbs_pd == NULL) {
		DOCA_LOG_ERR(
			"doca_verbs_pd_create: NULL argument (verbs_context %p, verbs_pd %p); pass non-NULL pointers",
			(void *)ctx, (void *)verbs_pd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pd = sd_fault_create("verbs", "doca_verbs_pd_create") ? NULL : calloc(1, sizeof(*pd));
	if (pd == NULL) {
		DOCA_LOG_ERR("doca_verbs_pd_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_verbs_ibv_pd_create(ctx->devinfo, ctx, &pd->ibv_pd);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_verbs_pd_create: failed to make the PD's ibv_pd: %s; free memory and retry",
			     doca_error_get_descr(err));
		free(pd);
		return err;
	}
	pd->ctx = ctx;
	sd_verbs_ctx_count(ctx, &ctx->num_pds, 1);
	*verbs_pd = pd;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_pd_destroy(struct doca_verbs_pd *pd)
{
	struct doca_verbs_context *ctx;
	doca_error_t err;
	uint32_t users;

	if (pd == NULL) {
		DOCA_LOG_ERR("doca_verbs_pd_destroy: verbs_pd is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	ctx = pd->ctx;
	pthread_mutex_lock(&ctx->lock);
	users = pd->users;
	pthread_mutex_unlock(&ctx->lock);
	if (users != 0) {
		DOCA_LOG_ERR("doca_verbs_pd_destroy: %u QP(s)/SRQ(s) still use the PD; destroy them first", users);
		return DOCA_ERROR_IN_USE;
	}
	if (pd->imported) {
		sd_verbs_ibv_pd_unimport(pd->ibv_pd);
	} else {
		/* IN_USE while memory is registered on its ibv_pd */
		err = sd_verbs_ibv_pd_destroy(pd->ibv_pd);
		if (err != DOCA_SUCCESS)
			return err;
	}
	/* a PD imported on the bridge context holds a reference instead of being counted */
	if (!pd->bridged)
		sd_verbs_ctx_count(ctx, &ctx->num_pds, -1);
	else if (sd_verbs_ibv_bridge_ctx_put(ctx))
		sd_verbs_ctx_free(ctx);
	free(pd);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_pd_as_doca_dev(struct doca_verbs_pd *pd, struct doca_dev **dev)
{
	if (pd == NULL || dev == NULL) {
		DOCA_LOG_ERR("doca_verbs_pd_as_doca_dev: NULL argument (verbs_pd %p, dev %p); pass non-NULL pointers",
			     (void *)pd, (void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/*
	 * Core shares one doca_dev per devinfo: every call returns that object and
	 * holds one reference, which the program drops with doca_dev_close() (the
	 * samples close it before destroying the PD).  The PD keeps no pointer to
	 * it, so closing it first cannot leave the PD with a dangling one.
	 */
	return doca_dev_open(pd->ctx->devinfo, dev);
}

DOCA_EXPERIMENTAL int
doca_verbs_pd_export_handle(const struct doca_verbs_pd *verbs_pd)
{
	(void)verbs_pd;
	SD_VERBS_REFUSE_ONCE("doca_verbs_pd_export_handle: not supported: a softdoca PD is not a kernel verbs "
			     "object another process could import; create a PD in each process");
	return -1;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_pd_import_from_handle(struct doca_verbs_context *verbs_context, int handle, struct doca_verbs_pd **verbs_pd)
{
	(void)verbs_context;
	(void)handle;
	(void)verbs_pd;
	SD_VERBS_REFUSE_ONCE("doca_verbs_pd_import_from_handle: not supported: softdoca PDs have no shareable "
			     "handle; create the PD with doca_verbs_pd_create()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- async events ---- */

doca_error_t
sd_verbs_async_event_post(struct doca_verbs_context *ctx, int event_type, void *element)
{
	struct sd_verbs_async_node *node = calloc(1, sizeof(*node));
	uint64_t one = 1;

	if (node == NULL) {
		DOCA_LOG_ERR("Failed to queue async event %d: out of memory; free memory and retry", event_type);
		return DOCA_ERROR_NO_MEMORY;
	}
	node->event.event_type = event_type;
	node->event.element.reserved = element;
	pthread_mutex_lock(&ctx->lock);
	sd_list_insert_tail(&ctx->async_events, &node->link);
	pthread_mutex_unlock(&ctx->lock);
	/* The counter only makes the fd readable; the queue says how many events wait. */
	if (write(ctx->async_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		DOCA_LOG_WARN("Failed to signal the async event fd: %s", strerror(errno));
	return DOCA_SUCCESS;
}

void
sd_verbs_async_forget(struct doca_verbs_context *ctx, const void *element)
{
	struct sd_list *l = ctx->async_events.next;
	uint64_t drain;

	while (l != &ctx->async_events) {
		struct sd_verbs_async_node *node = sd_container_of(l, struct sd_verbs_async_node, link);

		l = l->next;
		if (node->event.element.reserved == element) {
			sd_list_del(&node->link);
			free(node);
		}
	}
	if (sd_list_empty(&ctx->async_events) && read(ctx->async_fd, &drain, sizeof(drain)) < 0)
		drain = 0;
}

DOCA_EXPERIMENTAL doca_event_handle_t
doca_verbs_get_async_event_handle(struct doca_verbs_context *ctx)
{
	if (ctx == NULL) {
		DOCA_LOG_ERR("doca_verbs_get_async_event_handle: verbs_context is NULL; pass the object its create "
			     "call returned");
		return doca_event_invalid_handle;
	}
	return ctx->async_fd;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_get_async_event(struct doca_verbs_context *ctx, struct doca_verbs_async_event *event)
{
	struct sd_verbs_async_node *node = NULL;
	uint64_t drain;

	if (ctx == NULL || event == NULL) {
		DOCA_LOG_ERR("doca_verbs_get_async_event: NULL argument (verbs_context %p, event %p); pass non-NULL "
			     "pointers",
			     (void *)ctx, (void *)event);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&ctx->lock);
	if (!sd_list_empty(&ctx->async_events)) {
		node = sd_container_of(ctx->async_events.next, struct sd_verbs_async_node, link);
		sd_list_del(&node->link);
		ctx->async_unacked++;
		/* Not readable once the queue is empty (the read resets the counter). */
		if (sd_list_empty(&ctx->async_events) && read(ctx->async_fd, &drain, sizeof(drain)) < 0)
			drain = 0;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (node == NULL)
		return DOCA_ERROR_AGAIN; /* nothing queued: not a refusal, not logged */
	*event = node->event;
	free(node);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL void
doca_verbs_ack_async_event(struct doca_verbs_async_event *event)
{
	struct doca_verbs_context *ctx;

	if (event == NULL || event->element.reserved == NULL) {
		DOCA_LOG_ERR("doca_verbs_ack_async_event: event is NULL or names no QP / CQ; pass an event filled "
			     "by doca_verbs_get_async_event()");
		return;
	}
	if (event->event_type == DOCA_VERBS_EVENT_CQ_ERR)
		ctx = event->element.cq->ctx;
	else
		ctx = event->element.qp->ctx;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->async_unacked > 0)
		ctx->async_unacked--;
	pthread_mutex_unlock(&ctx->lock);
}
