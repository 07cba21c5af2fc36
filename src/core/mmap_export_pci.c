/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI export of an mmap (host side) and import from a PCI descriptor (DPU
 * side).  The exporter publishes the range as a grant (xproc.h) and opens its
 * door; the importer checks the exporter's identity, knocks on the door with
 * the grant's key (so Yama lets it read the exporter), and reads that grant's
 * record through the exporter's address space before it trusts the
 * descriptor, and again before each copy (docs/security.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "dev_internal.h"
#include "mmap_core.h"
#include "mmap_internal.h"
#include "mmap_pci_proto.h"
#include "xproc.h"
#include "../util/sd_errno.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.mmap_pci);

#define PCI_PERMS (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)

/* What the importer's side may do with an export of these DOCA access flags. */
static uint32_t
grant_perm(uint32_t flags)
{
	return SD_XPROC_READ | ((flags & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0 ? SD_XPROC_WRITE : 0);
}

/* An mmap's PCI export: its record slot, its open of the door, one descriptor per device it was exported to. */
struct sd_mmap_pci_export {
	struct sd_xproc_ref grant;
	bool door;
	bool built[SD_MMAP_MAX_DEVS];
	uint8_t descs[SD_MMAP_MAX_DEVS][sizeof(struct sd_mmap_pci_desc)];
};

static pthread_once_t self_start_once = PTHREAD_ONCE_INIT;
static uint64_t self_start_time;
static doca_error_t self_start_err;

static void
read_self_start_time(void)
{
	self_start_err = sd_xproc_start_time(getpid(), &self_start_time);
}

/* The first PCI export of mmap: publish its range as a grant. */
static doca_error_t
export_begin(struct doca_mmap *mmap, struct sd_mmap_pci_export **out)
{
	struct sd_mmap_pci_export *exp = calloc(1, sizeof(*exp));
	const char *reason = "";
	doca_error_t err;

	if (exp == NULL) {
		DOCA_LOG_ERR("doca_mmap_export_pci: out of memory allocating %zu bytes", sizeof(*exp));
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_xproc_grant(mmap->addr, mmap->len, grant_perm(mmap->permissions), mmap->permissions, &exp->grant);
	if (err != DOCA_SUCCESS) {
		if (err == DOCA_ERROR_NO_MEMORY)
			DOCA_LOG_ERR("doca_mmap_export_pci: %d memory grants are live in this process, the maximum; "
				     "stop or destroy exported mmaps first",
				     SD_XPROC_GRANTS);
		else
			DOCA_LOG_ERR("doca_mmap_export_pci: cannot draw a random export key (getrandom: %s)",
				     doca_error_get_name(err));
		free(exp);
		return err;
	}
	/*
	 * The importer is not known here (the descriptor travels out of band):
	 * it knocks on the door with the grant's key and becomes our tracer
	 * under Yama ptrace_scope 1.  Without Yama 1 a door that cannot open
	 * costs nothing.
	 */
	err = sd_xproc_door_open(&reason);
	if (err != DOCA_SUCCESS && sd_xproc_yama_scope() == 1) {
		DOCA_LOG_ERR("doca_mmap_export_pci: Yama ptrace_scope is 1 and this process cannot open the door its "
			     "importers knock on (%s); without it no importer can read the memory (set "
			     "kernel.yama.ptrace_scope=0 or fix the runtime directory)",
			     reason);
		sd_xproc_revoke(&exp->grant);
		free(exp);
		return err;
	}
	if (err != DOCA_SUCCESS)
		DOCA_LOG_DBG("doca_mmap_export_pci: no door (%s); Yama does not need one", reason);
	exp->door = err == DOCA_SUCCESS;
	mmap->pci_export = exp;
	mmap->exported_pci = true;
	*out = exp;
	return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
		     size_t *export_desc_len)
{
	struct sd_mmap_pci_export *exp;
	struct sd_mmap_pci_desc_info info;
	doca_error_t err;
	int dev_slot;

	err = sd_mmap_check_exportable(mmap, dev, export_desc, export_desc_len, "doca_mmap_export_pci");
	if (err != DOCA_SUCCESS)
		return err;
	if (dev->devinfo == NULL || !dev->devinfo->caps.pci_export) {
		DOCA_LOG_ERR("doca_mmap_export_pci: device %s cannot export memory over PCI (its topology caps say "
			     "pci_export false); use a function where doca_mmap_cap_is_export_pci_supported is true",
			     dev->devinfo != NULL ? dev->devinfo->pci_addr : "?");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if ((mmap->permissions & PCI_PERMS) == 0) {
		DOCA_LOG_ERR(
			"doca_mmap_export_pci: mmap permissions 0x%x have no PCI access flag; set "
			"DOCA_ACCESS_FLAG_PCI_READ_ONLY or _PCI_READ_WRITE with doca_mmap_set_permissions() before "
			"start",
			mmap->permissions);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	pthread_once(&self_start_once, read_self_start_time);
	if (self_start_err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_mmap_export_pci: cannot read this process's start time from /proc/self/stat (%s); "
			     "mount /proc",
			     doca_error_get_name(self_start_err));
		return self_start_err;
	}

	exp = mmap->pci_export;
	if (exp == NULL) {
		err = export_begin(mmap, &exp);
		if (err != DOCA_SUCCESS)
			return err;
	}

	dev_slot = sd_mmap_dev_slot(mmap, dev);
	if (!exp->built[dev_slot]) {
		memset(&info, 0, sizeof(info));
		info.pid = getpid();
		info.dev_index = dev->devinfo->index;
		info.start_time = self_start_time;
		info.addr = (uint64_t)(uintptr_t)mmap->addr;
		info.len = mmap->len;
		info.perm = mmap->permissions;
		info.record_addr = exp->grant.rec_addr;
		memcpy(info.key, exp->grant.key, sizeof(info.key));
		sd_mmap_pci_desc_encode(&info, exp->descs[dev_slot]);
		exp->built[dev_slot] = true;
	}
	mmap->pci_desc = exp->descs[dev_slot];
	mmap->pci_desc_len = sizeof(exp->descs[dev_slot]);
	*export_desc = mmap->pci_desc;
	*export_desc_len = mmap->pci_desc_len;
	return DOCA_SUCCESS;
}

void
sd_mmap_pci_stop(struct doca_mmap *mmap)
{
	struct sd_mmap_pci_export *exp = mmap->pci_export;

	if (mmap->kind == SD_MMAP_PCI_REMOTE && mmap->peer.door_fd >= 0) {
		close(mmap->peer.door_fd);
		mmap->peer.door_fd = -1;
	}
	if (exp == NULL)
		return;
	sd_xproc_revoke(&exp->grant);
	if (exp->door)
		sd_xproc_door_close();
	free(exp);
	mmap->pci_export = NULL;
	mmap->pci_desc = NULL;
	mmap->pci_desc_len = 0;
	mmap->exported_pci = false;
}

/*
 * Read the exporter's grant record and check it against what the importer
 * believes (key, range, permission).  what prefixes the log line (the API or
 * check name).
 */
static doca_error_t
record_check(const struct sd_mmap_peer *peer, uint64_t addr, uint64_t len, uint32_t perm, const char *what)
{
	struct sd_xproc_peer xp = {.pid = peer->pid, .uid = (uid_t)-1, .pidfd = -1};
	struct sd_xproc_ref ref = {.rec_addr = peer->record_addr};
	const char *reason = "";
	struct sd_xproc_rec rec;
	doca_error_t err;

	memcpy(ref.key, peer->key, sizeof(ref.key));
	err = sd_xproc_rec_fetch(&xp, &ref, &rec, &reason);
	if (err == DOCA_ERROR_NOT_FOUND) {
		DOCA_LOG_ERR("%s: exporter pid %d no longer exists; export the memory again from a running process",
			     what, (int)peer->pid);
		return err;
	}
	/* live and keyed; the range and permission must be the exported ones exactly (below) */
	if (err == DOCA_SUCCESS)
		err = sd_xproc_rec_check(&rec, &ref, rec.addr, 0, 0, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: no export record at 0x%" PRIx64 " in pid %d grants the descriptor (%s); use a "
			     "descriptor doca_mmap_export_pci() produced, while the export stands",
			     what, peer->record_addr, (int)peer->pid, reason);
		return err;
	}
	if (rec.addr != addr || rec.len != len || rec.tag != perm) {
		DOCA_LOG_ERR("%s: descriptor claims [0x%" PRIx64 ", +%" PRIu64 ") perm 0x%x but pid %d exported "
			     "[0x%" PRIx64 ", +%" PRIu64 ") perm 0x%x; use the descriptor unmodified",
			     what, addr, len, perm, (int)peer->pid, rec.addr, rec.len, rec.tag);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/*
 * Knock on the exporter's door so that it lets this process read it under Yama
 * ptrace_scope 1: the connection's fd, -1 when there is no door and Yama does
 * not need one, -2 when Yama needs it and it failed (logged).
 */
static int
knock(const struct sd_mmap_pci_desc_info *info, const char *api)
{
	struct sd_xproc_ref ref = {.rec_addr = info->record_addr};
	const char *reason = "";
	doca_error_t err;
	int fd = -1;

	memcpy(ref.key, info->key, sizeof(ref.key));
	err = sd_xproc_door_knock(info->pid, info->start_time, &ref, &fd, &reason);
	explicit_bzero(&ref, sizeof(ref));
	if (err == DOCA_SUCCESS)
		return fd;
	if (sd_xproc_yama_scope() == 1) {
		DOCA_LOG_ERR("%s: under Yama ptrace_scope 1 the exporter (pid %d) must let this process read it, and "
			     "its door failed: %s; run both with the same SOFTDOCA_RUNTIME_DIR and softdoca",
			     api, (int)info->pid, reason);
		return -2;
	}
	DOCA_LOG_DBG("%s: exporter pid %d: no door (%s); Yama does not need one", api, (int)info->pid, reason);
	return -1;
}

doca_error_t
sd_mmap_pci_import(struct doca_mmap *mmap, const void *desc, size_t desc_len, struct doca_dev *dev)
{
	static const char api[] = "doca_mmap_create_from_export";
	struct sd_mmap_pci_desc_info info;
	const char *reason = "";
	uint64_t start_time;
	doca_error_t err;
	int door_fd;

	if (dev->devinfo == NULL || !dev->devinfo->caps.pci_import) {
		DOCA_LOG_ERR("%s: device %s cannot import PCI exports (its topology caps say pci_import false); use "
			     "a function where doca_mmap_cap_is_create_from_export_pci_supported is true",
			     api, dev->devinfo != NULL ? dev->devinfo->pci_addr : "?");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	err = sd_mmap_pci_desc_parse(desc, desc_len, &info, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: malformed PCI export descriptor (%zu bytes): %s; pass exactly the bytes "
			     "doca_mmap_export_pci() produced",
			     api, desc_len, reason);
		return err;
	}
	if (sd_devinfo_by_index(info.dev_index) == NULL) {
		DOCA_LOG_ERR("%s: descriptor names device index %u, which this process's topology lacks; use the "
			     "same topology configuration on both sides",
			     api, info.dev_index);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/*
	 * A dead exporter and a pid reused by another process both mean "the
	 * exporting process is gone": NOT_FOUND, logged with the difference.
	 */
	err = sd_xproc_start_time(info.pid, &start_time);
	if (err == DOCA_ERROR_NOT_FOUND) {
		DOCA_LOG_ERR("%s: exporter pid %d is not a running process (it exited, or the id is a thread's); "
			     "export the memory again from a running process and pass its descriptor unmodified",
			     api, (int)info.pid);
		return DOCA_ERROR_NOT_FOUND;
	}
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: cannot read /proc/%d/stat (%s); mount /proc", api, (int)info.pid,
			     doca_error_get_name(err));
		return err;
	}
	if (start_time != info.start_time) {
		DOCA_LOG_ERR("%s: exporter pid %d has exited and the pid now belongs to another process (start time "
			     "%" PRIu64 ", descriptor says %" PRIu64 "); export again",
			     api, (int)info.pid, start_time, info.start_time);
		return DOCA_ERROR_NOT_FOUND;
	}
	door_fd = knock(&info, api);
	if (door_fd == -2)
		return DOCA_ERROR_NOT_PERMITTED;
	{
		struct sd_mmap_peer claimed = {.pid = info.pid, .record_addr = info.record_addr};

		memcpy(claimed.key, info.key, sizeof(claimed.key));
		err = record_check(&claimed, info.addr, info.len, info.perm, api);
		if (err != DOCA_SUCCESS) {
			if (door_fd >= 0)
				close(door_fd);
			return err;
		}
	}
	mmap->kind = SD_MMAP_PCI_REMOTE;
	mmap->peer.door_fd = door_fd;
	mmap->addr = (uint8_t *)(uintptr_t)info.addr;
	mmap->len = (size_t)info.len;
	mmap->memrange_set = true;
	mmap->permissions = info.perm;
	mmap->peer.pid = info.pid;
	mmap->peer.start_time = info.start_time;
	mmap->peer.dev_index = info.dev_index;
	memcpy(mmap->peer.key, info.key, sizeof(mmap->peer.key));
	mmap->peer.record_addr = info.record_addr;
	return DOCA_SUCCESS;
}

doca_error_t
sd_mmap_pci_validate(const struct doca_mmap *remote)
{
	if (remote == NULL || remote->kind != SD_MMAP_PCI_REMOTE) {
		DOCA_LOG_ERR("PCI export check: mmap %p is not a PCI import", (const void *)remote);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return record_check(&remote->peer, (uint64_t)(uintptr_t)remote->addr, remote->len, remote->permissions,
			    "Failed to access exported memory");
}
