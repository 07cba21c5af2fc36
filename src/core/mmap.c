/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_mmap: life cycle, configuration, and the dispatch of exports/imports to
 * the PCI code (mmap_export_pci.c) or the RDMA library's hooks.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "diag.h"
#include "dev_internal.h"
#include "mmap_core.h"
#include "mmap_internal.h"
#include "mmap_pci_proto.h"
#include "sd_log.h"
#include "strict.h"
#include "../util/sd_thp.h"

SD_LOG_REGISTER(core.mmap);

#define PERM_KNOWN_BITS                                                                                                \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |                \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC | DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE |             \
	 DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING)
#define PERM_PCI_BOTH (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)
#define PERM_RDMA_ANY (DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)

/* Installed by libdoca_rdma at load time; all NULL otherwise. */
static struct sd_mmap_rdma_hooks rdma_hooks;

void
sd_mmap_set_rdma_hooks(const struct sd_mmap_rdma_hooks *hooks)
{
	if (hooks == NULL)
		memset(&rdma_hooks, 0, sizeof(rdma_hooks));
	else
		rdma_hooks = *hooks;
}

/* Refuse a setter on a started or imported mmap: configuration is frozen. */
static doca_error_t
check_configurable(const struct doca_mmap *mmap, const char *api)
{
	if (mmap->from_export) {
		DOCA_LOG_ERR(
			"%s: mmap was created from an export and cannot be configured; configure the exporter's mmap",
			api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (mmap->started) {
		DOCA_LOG_ERR("%s: mmap is started and its configuration is frozen; call it before doca_mmap_start() "
			     "(or after doca_mmap_stop())",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/*
 * Can the mmap be stopped (pins too: a running context caches it) or destroyed
 * (bufs only, doca_mmap_destroy) now?  api names the caller for the log line.
 */
static doca_error_t
check_unused(const struct doca_mmap *mmap, const char *api, bool pins_matter)
{
	unsigned int bufs = atomic_load(&mmap->num_bufs);
	unsigned int pins = atomic_load(&mmap->refs) - 1;
	unsigned int writers = atomic_load(&mmap->peer_writers);

	if (bufs != 0) {
		DOCA_LOG_ERR("%s: %u doca_buf(s) still point into the mmap; release them with doca_buf_dec_refcount() "
			     "first",
			     api, bufs);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (writers != 0) {
		DOCA_LOG_ERR("%s: %u running Comch consumer(s) let their peer write into the mmap; stop them "
			     "(doca_ctx_stop) first",
			     api, writers);
		return DOCA_ERROR_BAD_STATE;
	}
	if (pins_matter && pins != 0) {
		DOCA_LOG_ERR("%s: %u running context(s) still use the mmap; stop them (doca_ctx_stop) first", api,
			     pins);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* Revoke exports and drop the import side; leaves the mmap unstarted. */
static void
mmap_stop(struct doca_mmap *mmap)
{
	sd_mmap_pci_stop(mmap);
	if (mmap->exported_rdma) {
		if (rdma_hooks.export_revoke != NULL)
			rdma_hooks.export_revoke(mmap);
		mmap->exported_rdma = false;
		mmap->rdma_desc = NULL;
		mmap->rdma_desc_len = 0;
	}
	if (mmap->remote != NULL && mmap->remote_release != NULL)
		mmap->remote_release(mmap->remote);
	mmap->remote = NULL;
	mmap->remote_release = NULL;
	mmap->started = false;
}

static struct doca_mmap *
mmap_alloc(void)
{
	struct doca_mmap *mmap = calloc(1, sizeof(*mmap));

	(void)sd_diag_config(); /* the knobs before the first buf: strict mode's rules (strict.h) */
	if (mmap == NULL)
		return NULL;
	mmap->kind = SD_MMAP_LOCAL;
	mmap->permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	mmap->max_num_devs = SD_MMAP_MAX_DEVS;
	atomic_init(&mmap->num_bufs, 0);
	atomic_init(&mmap->refs, 1);
	atomic_init(&mmap->peer_writers, 0);
	return mmap;
}

static void
mmap_free(struct doca_mmap *mmap)
{
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		sd_dev_put(mmap->devs[i]);
	free(mmap);
}

doca_error_t
doca_mmap_create(struct doca_mmap **mmap)
{
	struct doca_mmap *m;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_create: mmap output pointer is NULL; pass the address of a struct doca_mmap *");
		return DOCA_ERROR_INVALID_VALUE;
	}
	m = mmap_alloc();
	if (m == NULL) {
		DOCA_LOG_ERR("doca_mmap_create: out of memory allocating %zu bytes", sizeof(*m));
		return DOCA_ERROR_NO_MEMORY;
	}
	*mmap = m;
	return DOCA_SUCCESS;
}

void
sd_mmap_release(struct doca_mmap *mmap)
{
	mmap_free(mmap);
}

/*
 * DOCA's rule: an mmap outlives the bufs taken from it (and so the tasks in
 * flight on it), not every context that once used it.  A running context that
 * used it keeps only the struct (its pin) until it stops; the range is the
 * application's again at once (exports revoked, the free callback called).
 */
doca_error_t
doca_mmap_destroy(struct doca_mmap *mmap)
{
	doca_error_t err;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_destroy: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_unused(mmap, "doca_mmap_destroy", false);
	if (err != DOCA_SUCCESS) {
		if (sd_unlikely(sd_strict_on) && err == DOCA_ERROR_NOT_PERMITTED)
			sd_strict_mmap_in_use(mmap, "doca_mmap_destroy", SD_STRICT_CALLER());
		return err;
	}
	mmap_stop(mmap);
	/* The free callback owns the memrange only for local mmaps: imports describe someone else's memory. */
	if (mmap->free_cb != NULL && mmap->kind == SD_MMAP_LOCAL && mmap->memrange_set)
		mmap->free_cb(mmap->addr, mmap->len, mmap->free_opaque);
	mmap->free_cb = NULL;
	sd_mmap_unpin(mmap); /* the application's reference */
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_start(struct doca_mmap *mmap)
{
	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_start: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->from_export) {
		DOCA_LOG_ERR("doca_mmap_start: mmap was created from an export and is usable without start; "
			     "do not start it");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (mmap->started) {
		DOCA_LOG_ERR("doca_mmap_start: mmap is already started");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!mmap->memrange_set) {
		DOCA_LOG_ERR("doca_mmap_start: memrange not set; call doca_mmap_set_memrange() before "
			     "doca_mmap_start()");
		return DOCA_ERROR_BAD_STATE;
	}
	/* Our memory, as a peer's process_vm_writev will pin it: huge pages if the knob asks (sd_thp.h). */
	if (mmap->kind == SD_MMAP_LOCAL)
		(void)sd_thp_advise(mmap->addr, mmap->len, "doca_mmap_start");
	mmap->started = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_stop(struct doca_mmap *mmap)
{
	doca_error_t err;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_stop: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/*
	 * DOCA documents NOT_PERMITTED for exported and from-export mmaps, but the
	 * RDMA samples stop both kinds during teardown and propagate the result:
	 * stopping them is allowed (it revokes the export / drops the import).
	 */
	err = check_unused(mmap, "doca_mmap_stop", true);
	if (err != DOCA_SUCCESS) {
		if (sd_unlikely(sd_strict_on) && err == DOCA_ERROR_NOT_PERMITTED)
			sd_strict_mmap_in_use(mmap, "doca_mmap_stop", SD_STRICT_CALLER());
		return err;
	}
	mmap_stop(mmap);
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t err;

	if (mmap == NULL || dev == NULL) {
		DOCA_LOG_ERR("doca_mmap_add_dev: NULL argument (mmap %p, dev %p)", (void *)mmap, (void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_add_dev");
	if (err != DOCA_SUCCESS)
		return err;
	if (sd_mmap_dev_slot(mmap, dev) >= 0) {
		DOCA_LOG_ERR("doca_mmap_add_dev: device was already added to this mmap; add each device once");
		return DOCA_ERROR_ALREADY_EXIST;
	}
	if (mmap->num_devs >= mmap->max_num_devs) {
		DOCA_LOG_ERR("doca_mmap_add_dev: mmap already has %u device(s), its maximum; raise it with "
			     "doca_mmap_set_max_num_devices() (up to %u)",
			     mmap->num_devs, SD_MMAP_MAX_DEVS);
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_dev_get(dev);
	mmap->devs[mmap->num_devs++] = dev;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t err;
	int slot;

	if (mmap == NULL || dev == NULL) {
		DOCA_LOG_ERR("doca_mmap_rm_dev: NULL argument (mmap %p, dev %p)", (void *)mmap, (void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_rm_dev");
	if (err != DOCA_SUCCESS)
		return err;
	slot = sd_mmap_dev_slot(mmap, dev);
	if (slot < 0) {
		DOCA_LOG_ERR("doca_mmap_rm_dev: device was not added to this mmap");
		return DOCA_ERROR_NOT_FOUND;
	}
	sd_dev_put(dev);
	mmap->num_devs--;
	memmove(&mmap->devs[slot], &mmap->devs[slot + 1], (mmap->num_devs - (uint32_t)slot) * sizeof(mmap->devs[0]));
	mmap->devs[mmap->num_devs] = NULL;
	return DOCA_SUCCESS;
}

doca_error_t
sd_mmap_check_exportable(const struct doca_mmap *mmap, const struct doca_dev *dev, const void **desc, size_t *desc_len,
			 const char *api)
{
	if (mmap == NULL || dev == NULL || desc == NULL || desc_len == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (mmap %p, dev %p, export_desc %p, export_desc_len %p)", api,
			     (const void *)mmap, (const void *)dev, (const void *)desc, (const void *)desc_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->from_export) {
		DOCA_LOG_ERR("%s: mmap was created from an export and cannot be exported again; export the original "
			     "mmap",
			     api);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!mmap->started) {
		DOCA_LOG_ERR("%s: mmap is not started; call doca_mmap_start() before exporting it", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_mmap_dev_slot(mmap, dev) < 0) {
		DOCA_LOG_ERR("%s: device was not added to this mmap; call doca_mmap_add_dev() before doca_mmap_start()",
			     api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
		      size_t *export_desc_len)
{
	const void *desc;
	size_t len;
	doca_error_t err;

	err = sd_mmap_check_exportable(mmap, dev, export_desc, export_desc_len, "doca_mmap_export_rdma");
	if (err != DOCA_SUCCESS)
		return err;
	if ((mmap->permissions & PERM_RDMA_ANY) == 0) {
		DOCA_LOG_ERR("doca_mmap_export_rdma: mmap permissions 0x%x have no RDMA access flag; add "
			     "DOCA_ACCESS_FLAG_RDMA_READ/WRITE/ATOMIC with doca_mmap_set_permissions() before start",
			     mmap->permissions);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (rdma_hooks.export_rdma == NULL) {
		DOCA_LOG_ERR("doca_mmap_export_rdma: RDMA export needs libdoca_rdma; link the program with doca-rdma");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = rdma_hooks.export_rdma(mmap, dev, &desc, &len);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->exported_rdma = true;
	mmap->rdma_desc = (void *)(uintptr_t)desc;
	mmap->rdma_desc_len = len;
	*export_desc = desc;
	*export_desc_len = len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev, doca_dpa_dev_mmap_t *dpa_mmap_handle)
{
	DOCA_LOG_ERR("doca_mmap_dev_get_dpa_handle: softdoca emulates no DPA (Data Path Accelerator); use host or "
		     "DPU-side memory instead");
	return DOCA_ERROR_NOT_SUPPORTED;
}

/* Which importer a descriptor belongs to. */
enum desc_route {
	ROUTE_PCI,
	ROUTE_RDMA,
	ROUTE_RDMA_MISSING,
};

static enum desc_route
route_descriptor(const void *desc, size_t desc_len)
{
	struct sd_mmap_desc_hdr hdr;

	if (desc_len >= sizeof(hdr)) {
		memcpy(&hdr, desc, sizeof(hdr));
		if (le32toh(hdr.magic) == SD_MMAP_DESC_MAGIC) {
			if (le16toh(hdr.kind) != SD_MMAP_DESC_KIND_RDMA)
				return ROUTE_PCI;
			return rdma_hooks.create_from_export != NULL ? ROUTE_RDMA : ROUTE_RDMA_MISSING;
		}
	}
	/* A foreign format: the RDMA library's, if loaded; else the PCI parser explains the refusal. */
	return rdma_hooks.create_from_export != NULL ? ROUTE_RDMA : ROUTE_PCI;
}

doca_error_t
doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc, size_t export_desc_len,
			     struct doca_dev *dev, struct doca_mmap **mmap)
{
	struct doca_mmap *m;
	doca_error_t err;

	if (export_desc == NULL || dev == NULL || mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_create_from_export: NULL argument (export_desc %p, dev %p, mmap %p)",
			     export_desc, (void *)dev, (void *)mmap);
		return DOCA_ERROR_INVALID_VALUE;
	}
	m = mmap_alloc();
	if (m == NULL) {
		DOCA_LOG_ERR("doca_mmap_create_from_export: out of memory allocating %zu bytes", sizeof(*m));
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_dev_get(dev);
	m->devs[0] = dev;
	m->num_devs = 1;

	switch (route_descriptor(export_desc, export_desc_len)) {
	case ROUTE_PCI:
		err = sd_mmap_pci_import(m, export_desc, export_desc_len, dev);
		break;
	case ROUTE_RDMA:
		err = rdma_hooks.create_from_export(export_desc, export_desc_len, dev, m);
		break;
	default:
		DOCA_LOG_ERR("doca_mmap_create_from_export: RDMA export needs libdoca_rdma; link the program with "
			     "doca-rdma");
		err = DOCA_ERROR_NOT_SUPPORTED;
		break;
	}
	if (err != DOCA_SUCCESS)
		goto free_mmap;

	m->from_export = true;
	m->started = true;
	if (user_data != NULL)
		m->user_data = *user_data;
	*mmap = m;
	return DOCA_SUCCESS;

free_mmap:
	if (m->remote != NULL && m->remote_release != NULL)
		m->remote_release(m->remote);
	mmap_free(m);
	return err;
}

doca_error_t
doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
	doca_error_t err;

	if (mmap == NULL || addr == NULL || len == 0) {
		DOCA_LOG_ERR("doca_mmap_set_memrange: invalid argument (mmap %p, addr %p, len %zu); pass a non-empty "
			     "range",
			     (void *)mmap, addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((uintptr_t)addr + len < (uintptr_t)addr) {
		DOCA_LOG_ERR("doca_mmap_set_memrange: range %p + %zu wraps the address space", addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_set_memrange");
	if (err != DOCA_SUCCESS)
		return err;
	if (mmap->memrange_set) {
		DOCA_LOG_ERR("doca_mmap_set_memrange: memrange already set (%p, %zu bytes); an mmap maps one range, "
			     "create another mmap for another range",
			     (void *)mmap->addr, mmap->len);
		return DOCA_ERROR_BAD_STATE;
	}
	mmap->addr = addr;
	mmap->len = len;
	mmap->memrange_set = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr, size_t dmabuf_offset, size_t len)
{
	DOCA_LOG_ERR("doca_mmap_set_dmabuf_memrange: dma-buf memory (GPU / device memory) is not emulated by "
		     "softdoca; map host memory with doca_mmap_set_memrange()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa, uint64_t dpa_addr, size_t len)
{
	DOCA_LOG_ERR("doca_mmap_set_dpa_memrange: softdoca emulates no DPA (Data Path Accelerator); map host "
		     "memory with doca_mmap_set_memrange()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
	if (mmap == NULL || addr == NULL || len == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_memrange: NULL argument (mmap %p, addr %p, len %p)", (const void *)mmap,
			     (void *)addr, (void *)len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!mmap->memrange_set) {
		DOCA_LOG_ERR("doca_mmap_get_memrange: memrange not set; call doca_mmap_set_memrange() first");
		return DOCA_ERROR_BAD_STATE;
	}
	*addr = mmap->addr;
	*len = mmap->len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb, void *opaque)
{
	doca_error_t err;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_set_free_cb: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_set_free_cb");
	if (err != DOCA_SUCCESS)
		return err;
	mmap->free_cb = free_cb;
	mmap->free_opaque = opaque;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data)
{
	if (mmap == NULL || user_data == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_user_data: NULL argument (mmap %p, user_data %p)", (const void *)mmap,
			     (void *)user_data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = mmap->user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_set_user_data: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mmap->started) {
		DOCA_LOG_ERR("doca_mmap_set_user_data: mmap is started; set user data before doca_mmap_start() "
			     "(from-export mmaps take it in doca_mmap_create_from_export())");
		return DOCA_ERROR_BAD_STATE;
	}
	mmap->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices)
{
	if (mmap == NULL || max_num_devices == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_max_num_devices: NULL argument (mmap %p, max_num_devices %p)",
			     (const void *)mmap, (void *)max_num_devices);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*max_num_devices = mmap->max_num_devs;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
	doca_error_t err;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_set_max_num_devices: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_set_max_num_devices");
	if (err != DOCA_SUCCESS)
		return err;
	if (max_num_devices == 0 || max_num_devices > SD_MMAP_MAX_DEVS || max_num_devices < mmap->num_devs) {
		DOCA_LOG_ERR("doca_mmap_set_max_num_devices: %u out of range; pass a value in [max(1, %u), %u]",
			     max_num_devices, mmap->num_devs, SD_MMAP_MAX_DEVS);
		return DOCA_ERROR_INVALID_VALUE;
	}
	mmap->max_num_devs = max_num_devices;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs)
{
	if (mmap == NULL || num_bufs == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_num_bufs: NULL argument (mmap %p, num_bufs %p)", (const void *)mmap,
			     (void *)num_bufs);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*num_bufs = atomic_load(&mmap->num_bufs);
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported)
{
	if (mmap == NULL || exported == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_exported: NULL argument (mmap %p, exported %p)", (const void *)mmap,
			     (void *)exported);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*exported = mmap->exported_pci || mmap->exported_rdma;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export)
{
	if (mmap == NULL || from_export == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_from_export: NULL argument (mmap %p, from_export %p)", (const void *)mmap,
			     (void *)from_export);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*from_export = mmap->from_export;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
	doca_error_t err;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_set_permissions: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (access_mask & ~(uint32_t)PERM_KNOWN_BITS) {
		DOCA_LOG_ERR("doca_mmap_set_permissions: unknown access bits 0x%x in 0x%x; use enum doca_access_flag "
			     "values only",
			     access_mask & ~(uint32_t)PERM_KNOWN_BITS, access_mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((access_mask & PERM_PCI_BOTH) == PERM_PCI_BOTH) {
		DOCA_LOG_ERR("doca_mmap_set_permissions: PCI_READ_ONLY and PCI_READ_WRITE are exclusive (mask 0x%x); "
			     "choose one",
			     access_mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_set_permissions");
	if (err != DOCA_SUCCESS)
		return err;
	mmap->permissions = access_mask;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_get_permissions(const struct doca_mmap *mmap, uint32_t *access_mask)
{
	if (mmap == NULL || access_mask == NULL) {
		DOCA_LOG_ERR("doca_mmap_get_permissions: NULL argument (mmap %p, access_mask %p)", (const void *)mmap,
			     (void *)access_mask);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*access_mask = mmap->permissions;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *is_supported)
{
	if (devinfo == NULL || is_supported == NULL) {
		DOCA_LOG_ERR("doca_mmap_cap_is_export_pci_supported: NULL argument (devinfo %p, is_supported %p)",
			     (const void *)devinfo, (void *)is_supported);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_supported = devinfo->caps.pci_export;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *is_supported)
{
	if (devinfo == NULL || is_supported == NULL) {
		DOCA_LOG_ERR("doca_mmap_cap_is_create_from_export_pci_supported: NULL argument (devinfo %p, "
			     "is_supported %p)",
			     (const void *)devinfo, (void *)is_supported);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_supported = devinfo->caps.pci_import;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_enable_thread_safety(struct doca_mmap *mmap)
{
	doca_error_t err;

	if (mmap == NULL) {
		DOCA_LOG_ERR("doca_mmap_enable_thread_safety: mmap is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_configurable(mmap, "doca_mmap_enable_thread_safety");
	if (err != DOCA_SUCCESS)
		return err;
	mmap->thread_safe = true;
	return DOCA_SUCCESS;
}
