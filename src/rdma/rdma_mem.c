/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory that peers reach over RDMA: the hooks libdoca_common calls for
 * doca_mmap_export_rdma / doca_mmap_create_from_export (mmap_internal.h) and
 * for the remote-net sync-event export / import (sync_event_internal.h).  An
 * export registers the range with the fabric device of the doca_dev's netdev
 * (permissions mapped from the mmap's RDMA flags) and wraps the fabric's blob
 * in an rdma_proto.h descriptor; an import unpacks it into a fabric_rmr.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "rdma_internal.h"
#include "rdma_proto.h"

SD_LOG_REGISTER(rdma.mem);

doca_error_t
sd_rdma_fabric_dev_open(struct doca_dev *dev, const char *api, struct fabric_dev **fdev)
{
	const struct doca_devinfo *di = sd_dev_devinfo(dev);
	doca_error_t err = sd_fabric_dev_open(sd_devinfo_netdev(di), fdev);

	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("%s: cannot open the UCX fabric on netdev \"%s\" of device %s: %s; check the device's "
			     "netdev in the topology and UCX_TLS / UCX_NET_DEVICES",
			     api, sd_devinfo_netdev(di), sd_devinfo_ibdev_name(di), doca_error_get_descr(err));
	return err;
}

/* ---- mmap export (exporter side) ---- */

/* Behind mmap->rdma_desc: the registration, then the descriptor bytes. */
struct mmap_export {
	struct fabric_dev *fdev;
	struct fabric_mr *mr;
	uint8_t desc[]; /* what mmap->rdma_desc points to */
};

static uint32_t
fabric_perms(uint32_t access)
{
	return ((access & DOCA_ACCESS_FLAG_RDMA_READ) ? FABRIC_PERM_REMOTE_READ : 0) |
	       ((access & DOCA_ACCESS_FLAG_RDMA_WRITE) ? FABRIC_PERM_REMOTE_WRITE : 0) |
	       ((access & DOCA_ACCESS_FLAG_RDMA_ATOMIC) ? FABRIC_PERM_REMOTE_ATOMIC : 0);
}

static doca_error_t
mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev, const void **desc, size_t *desc_len)
{
	struct sd_rdma_mmap_desc d = {0};
	struct mmap_export *ex;
	struct fabric_dev *fdev;
	struct fabric_mr *mr;
	const void *fblob;
	size_t flen;
	doca_error_t err;

	/* A second export hands out the same descriptor (one registration per mmap). */
	*desc = sd_mmap_rdma_desc(mmap, desc_len);
	if (*desc != NULL)
		return DOCA_SUCCESS;
	err = sd_rdma_fabric_dev_open((struct doca_dev *)(uintptr_t)dev, "doca_mmap_export_rdma", &fdev);
	if (err != DOCA_SUCCESS)
		return err;
	err = sd_fabric_mr_register(fdev, sd_mmap_addr(mmap), sd_mmap_len(mmap),
				    fabric_perms(sd_mmap_permissions(mmap)), &mr);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_mmap_export_rdma: cannot register [%p, +%zu) with the fabric: %s",
			     sd_mmap_addr(mmap), sd_mmap_len(mmap), doca_error_get_descr(err));
		goto close_dev;
	}
	err = sd_fabric_mr_export(mr, &fblob, &flen);
	if (err == DOCA_SUCCESS && flen > SD_RDMA_DESC_MAX - sizeof(d))
		err = DOCA_ERROR_TOO_BIG;
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_mmap_export_rdma: cannot describe the registration: %s", doca_error_get_descr(err));
		goto deregister;
	}
	ex = malloc(sizeof(*ex) + sizeof(d) + flen);
	if (ex == NULL) {
		DOCA_LOG_ERR("doca_mmap_export_rdma: out of memory");
		err = DOCA_ERROR_NO_MEMORY;
		goto deregister;
	}
	d.hdr.magic = htole32(SD_MMAP_DESC_MAGIC);
	d.hdr.version = htole16(SD_RDMA_MMAP_DESC_VERSION);
	d.hdr.kind = htole16(SD_MMAP_DESC_KIND_RDMA);
	d.hdr.total_len = htole32((uint32_t)(sizeof(d) + flen));
	d.addr = htole64((uint64_t)(uintptr_t)sd_mmap_addr(mmap));
	d.len = htole64((uint64_t)sd_mmap_len(mmap));
	d.permissions = htole32(sd_mmap_permissions(mmap));
	d.fabric_len = htole32((uint32_t)flen);
	memcpy(ex->desc, &d, sizeof(d));
	memcpy(ex->desc + sizeof(d), fblob, flen);
	ex->fdev = fdev;
	ex->mr = mr;
	*desc = ex->desc;
	*desc_len = sizeof(d) + flen;
	return DOCA_SUCCESS;

deregister:
	sd_fabric_mr_deregister(mr);
close_dev:
	sd_fabric_dev_close(fdev);
	return err;
}

static void
mmap_export_revoke(struct doca_mmap *mmap)
{
	struct mmap_export *ex;
	size_t len;
	const void *desc = sd_mmap_rdma_desc(mmap, &len);

	if (desc == NULL)
		return;
	ex = sd_container_of(desc, struct mmap_export, desc);
	/* From now on the rkey and the 128-bit key are dead: peers' accesses fail. */
	sd_fabric_mr_deregister(ex->mr);
	sd_fabric_dev_close(ex->fdev);
	free(ex);
}

/* ---- mmap import (peer side) ---- */

struct remote_mmap {
	struct fabric_dev *fdev;
	struct fabric_rmr *rmr;
};

struct fabric_rmr *
sd_rdma_remote_rmr(const struct doca_mmap *mmap, struct fabric_dev **fdev)
{
	const struct remote_mmap *rm;

	if (sd_mmap_kind(mmap) != SD_MMAP_RDMA_REMOTE || sd_mmap_remote(mmap) == NULL)
		return NULL;
	rm = sd_mmap_remote(mmap);
	*fdev = rm->fdev;
	return rm->rmr;
}

static void
remote_mmap_release(void *remote)
{
	struct remote_mmap *rm = remote;

	sd_fabric_rmr_destroy(rm->rmr);
	sd_fabric_dev_close(rm->fdev);
	free(rm);
}

/* Import a fabric memory blob (copied: the fabric reads it in place, aligned). */
static doca_error_t
import_rmr(struct fabric_dev *fdev, const struct sd_rdma_mem_info *info, struct fabric_rmr **rmr)
{
	uint8_t *blob = malloc(info->fabric_len);
	doca_error_t err;

	if (blob == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(blob, info->fabric, info->fabric_len);
	err = sd_fabric_rmr_import(fdev, blob, info->fabric_len, rmr);
	free(blob);
	return err;
}

static doca_error_t
mmap_create_from_export(const void *desc, size_t desc_len, struct doca_dev *dev, struct doca_mmap *mmap)
{
	struct sd_rdma_mem_info info;
	struct remote_mmap *rm;
	const char *reason = "";
	doca_error_t err;

	err = sd_rdma_mmap_desc_parse(desc, desc_len, &info, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_mmap_create_from_export: the descriptor (%zu bytes) is refused: %s; pass the bytes "
			     "the exporter's doca_mmap_export_rdma() returned, unchanged",
			     desc_len, reason);
		return err;
	}
	rm = calloc(1, sizeof(*rm));
	if (rm == NULL) {
		DOCA_LOG_ERR("doca_mmap_create_from_export: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_rdma_fabric_dev_open(dev, "doca_mmap_create_from_export", &rm->fdev);
	if (err != DOCA_SUCCESS)
		goto free_rm;
	err = import_rmr(rm->fdev, &info, &rm->rmr);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_mmap_create_from_export: the fabric refused the descriptor's memory key: %s",
			     doca_error_get_descr(err));
		goto close_dev;
	}
	sd_mmap_set_rdma_remote(mmap, info.addr, (size_t)info.len, info.permissions, rm, remote_mmap_release);
	return DOCA_SUCCESS;

close_dev:
	sd_fabric_dev_close(rm->fdev);
free_rm:
	free(rm);
	return err;
}

/* ---- sync event (exporter side) ---- */

struct se_export {
	struct fabric_dev *fdev;
	struct fabric_mr *mr;
	size_t desc_len;
	uint8_t desc[];
};

static void
se_changed(void *arg)
{
	sd_sync_event_changed(arg);
}

static void
se_release(struct doca_sync_event *event)
{
	struct se_export *ex = sd_sync_event_remote(event);

	if (ex == NULL)
		return;
	sd_fabric_mr_deregister(ex->mr);
	sd_fabric_dev_close(ex->fdev);
	free(ex);
	sd_sync_event_set_remote(event, NULL, NULL);
}

static doca_error_t
se_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz)
{
	struct sd_rdma_se_desc d = {0};
	struct se_export *ex = sd_sync_event_remote(event);
	struct fabric_dev *fdev;
	struct fabric_mr *mr;
	const void *fblob;
	size_t flen;
	doca_error_t err;

	if (ex != NULL) {
		*data = ex->desc;
		*sz = ex->desc_len;
		return DOCA_SUCCESS;
	}
	if (((uintptr_t)sd_sync_event_value(event) & 7) != 0) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: the event's value at %p is not 8-byte aligned; "
			     "give doca_sync_event_set_addr() an aligned address",
			     (void *)sd_sync_event_value(event));
		return DOCA_ERROR_INVALID_VALUE;
	}
	/*
	 * Register with the fabric device of the event's CPU location device
	 * (the one given to doca_sync_event_add_{publisher,subscriber}_location_cpu);
	 * an event with only a remote_net publisher names none: the device the
	 * process opened last then (the RDMA context's, in every DOCA flow).
	 */
	if (sd_sync_event_dev(event) != NULL) {
		err = sd_rdma_fabric_dev_open(sd_sync_event_dev(event), "doca_sync_event_export_to_remote_net", &fdev);
		if (err != DOCA_SUCCESS)
			return err;
	} else {
		err = sd_fabric_dev_open_last(&fdev);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: cannot open the UCX fabric: %s",
				     doca_error_get_descr(err));
			return err;
		}
	}
	err = sd_fabric_mr_register(fdev, (void *)sd_sync_event_value(event), 8, FABRIC_PERM_ALL, &mr);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: cannot register the event's value: %s",
			     doca_error_get_descr(err));
		goto close_dev;
	}
	err = sd_fabric_mr_export(mr, &fblob, &flen);
	if (err == DOCA_SUCCESS && flen > SD_RDMA_DESC_MAX - sizeof(d))
		err = DOCA_ERROR_TOO_BIG;
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: cannot describe the registration: %s",
			     doca_error_get_descr(err));
		goto deregister;
	}
	ex = malloc(sizeof(*ex) + sizeof(d) + flen);
	if (ex == NULL) {
		DOCA_LOG_ERR("doca_sync_event_export_to_remote_net: out of memory");
		err = DOCA_ERROR_NO_MEMORY;
		goto deregister;
	}
	d.magic = htole32(SD_RDMA_SE_MAGIC);
	d.version = htole16(SD_RDMA_SE_VERSION);
	d.hdr_len = htole16(sizeof(d));
	d.total_len = htole32((uint32_t)(sizeof(d) + flen));
	d.fabric_len = htole32((uint32_t)flen);
	d.addr = htole64((uint64_t)(uintptr_t)sd_sync_event_value(event));
	memcpy(ex->desc, &d, sizeof(d));
	memcpy(ex->desc + sizeof(d), fblob, flen);
	ex->desc_len = sizeof(d) + flen;
	ex->fdev = fdev;
	ex->mr = mr;
	/* peers' notify_set / notify_add tell us: wait tasks on a sleeping PE re-check */
	sd_fabric_mr_set_notify(mr, se_changed, event);
	sd_sync_event_set_remote(event, ex, se_release);
	*data = ex->desc;
	*sz = ex->desc_len;
	return DOCA_SUCCESS;

deregister:
	sd_fabric_mr_deregister(mr);
close_dev:
	sd_fabric_dev_close(fdev);
	return err;
}

/* ---- sync event (peer side) ---- */

static doca_error_t
se_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
				 struct doca_sync_event_remote_net **out)
{
	struct doca_sync_event_remote_net *ev;
	struct sd_rdma_mem_info info;
	const char *reason = "";
	doca_error_t err;

	if (!sd_devinfo_caps(sd_dev_devinfo(dev))->rdma) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_create_from_export: device %s has no RDMA; import on the "
			     "device your RDMA context uses",
			     sd_devinfo_ibdev_name(sd_dev_devinfo(dev)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_rdma_se_desc_parse(data, sz, &info, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_create_from_export: the descriptor (%zu bytes) is refused: "
			     "%s; pass the bytes doca_sync_event_export_to_remote_net() returned, unchanged",
			     sz, reason);
		return err;
	}
	ev = calloc(1, sizeof(*ev));
	if (ev == NULL) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_create_from_export: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_rdma_fabric_dev_open(dev, "doca_sync_event_remote_net_create_from_export", &ev->fdev);
	if (err != DOCA_SUCCESS)
		goto free_ev;
	err = import_rmr(ev->fdev, &info, &ev->rmr);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_create_from_export: the fabric refused the descriptor's "
			     "memory key: %s",
			     doca_error_get_descr(err));
		goto close_dev;
	}
	ev->dev = dev;
	ev->addr = info.addr;
	sd_dev_get(dev);
	*out = ev;
	return DOCA_SUCCESS;

close_dev:
	sd_fabric_dev_close(ev->fdev);
free_ev:
	free(ev);
	return err;
}

static doca_error_t
se_remote_net_destroy(struct doca_sync_event_remote_net *ev)
{
	if (ev->inflight != 0) {
		DOCA_LOG_ERR("doca_sync_event_remote_net_destroy: %u remote_net tasks still use the event; wait for "
			     "their completion first",
			     ev->inflight);
		return DOCA_ERROR_IN_USE;
	}
	sd_fabric_rmr_destroy(ev->rmr);
	sd_fabric_dev_close(ev->fdev);
	sd_dev_put(ev->dev);
	free(ev);
	return DOCA_SUCCESS;
}

static doca_error_t
se_remote_net_cap_supported(const struct doca_devinfo *devinfo)
{
	return sd_devinfo_caps(devinfo)->rdma ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

/* ---- installation ---- */

__attribute__((constructor)) static void
rdma_hooks_install(void)
{
	static const struct sd_mmap_rdma_hooks mmap_hooks = {
		.export_rdma = mmap_export_rdma,
		.create_from_export = mmap_create_from_export,
		.export_revoke = mmap_export_revoke,
	};
	static const struct sd_sync_event_rdma_hooks se_hooks = {
		.export_to_remote_net = se_export_to_remote_net,
		.remote_net_create_from_export = se_remote_net_create_from_export,
		.remote_net_destroy = se_remote_net_destroy,
		.remote_net_cap_supported = se_remote_net_cap_supported,
	};

	sd_mmap_set_rdma_hooks(&mmap_hooks);
	sd_sync_event_set_rdma_hooks(&se_hooks);
}

__attribute__((destructor)) static void
rdma_hooks_remove(void)
{
	sd_mmap_set_rdma_hooks(NULL);
	sd_sync_event_set_rdma_hooks(NULL);
}
