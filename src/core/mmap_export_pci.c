/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI export of an mmap (host side) and import from a PCI descriptor (DPU
 * side).  The exporter publishes an export record in a static table of this
 * library; the importer checks the exporter's identity and reads that record
 * with process_vm_readv before it trusts the descriptor (docs/security.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "dev_internal.h"
#include "mmap_core.h"
#include "mmap_internal.h"
#include "mmap_pci_proto.h"
#include "../util/sd_errno.h"
#include "sd_log.h"
#include "../util/sd_random.h"

SD_LOG_REGISTER(core.mmap_pci);

#define PCI_PERMS (DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE)

/*
 * Live exports of this process.  Importers read a slot by address, so the
 * table never moves; a slot is reused only after its export was revoked (and
 * its key zeroed).  slot_used is private bookkeeping under records_lock;
 * records[] fields are what other processes see.
 */
#define PCI_EXPORT_MAX_RECORDS 256

static struct sd_mmap_pci_record records[PCI_EXPORT_MAX_RECORDS] __attribute__((aligned(64)));
static bool slot_used[PCI_EXPORT_MAX_RECORDS];
static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;

/* An mmap's PCI export: its record slot and one descriptor per device it was exported to. */
struct sd_mmap_pci_export {
	uint32_t slot;
	bool built[SD_MMAP_MAX_DEVS];
	uint8_t descs[SD_MMAP_MAX_DEVS][sizeof(struct sd_mmap_pci_desc)];
};

/*
 * Start time of a process, in clock ticks after boot (/proc/<pid>/stat field
 * 22).  The comm field (2) may hold spaces and parentheses, so parsing starts
 * after its last ')'.  NOT_FOUND when the process does not exist.
 */
static doca_error_t
proc_start_time(pid_t pid, uint64_t *start_time)
{
	char path[64], buf[4096], *p, *end;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : sd_errno_to_doca(errno);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH ? DOCA_ERROR_NOT_FOUND : sd_errno_to_doca(errno);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p == NULL)
		return DOCA_ERROR_OPERATING_SYSTEM;
	p++;
	/* p is before field 3; skip fields 3..21. */
	for (field = 3; field < 22; field++) {
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')
			p++;
		if (*p == '\0')
			return DOCA_ERROR_OPERATING_SYSTEM;
	}
	errno = 0;
	*start_time = strtoull(p, &end, 10);
	if (errno != 0 || end == p)
		return DOCA_ERROR_OPERATING_SYSTEM;
	return DOCA_SUCCESS;
}

/*
 * Yama ptrace_scope = 1 lets only ancestors read a process's memory; the DPU
 * side is usually not our ancestor.  Allow any process (still subject to the
 * kernel's same-uid rule) to attach, once per process.
 */
static void
allow_ptracer_any(void)
{
	if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) != 0)
		DOCA_LOG_DBG("prctl(PR_SET_PTRACER_ANY) failed (%s): no Yama LSM, nothing to relax", strerror(errno));
}

static pthread_once_t ptracer_once = PTHREAD_ONCE_INIT;
static pthread_once_t self_start_once = PTHREAD_ONCE_INIT;
static uint64_t self_start_time;
static doca_error_t self_start_err;

static void
read_self_start_time(void)
{
	self_start_err = proc_start_time(getpid(), &self_start_time);
}

/* Claim a record slot and publish the export; NO_MEMORY when the table is full. */
static doca_error_t
record_publish(const struct doca_mmap *mmap, uint32_t *slot)
{
	struct sd_mmap_pci_record *rec;
	uint32_t i;

	pthread_mutex_lock(&records_lock);
	for (i = 0; i < PCI_EXPORT_MAX_RECORDS; i++)
		if (!slot_used[i])
			break;
	if (i == PCI_EXPORT_MAX_RECORDS) {
		pthread_mutex_unlock(&records_lock);
		return DOCA_ERROR_NO_MEMORY;
	}
	slot_used[i] = true;
	rec = &records[i];
	rec->magic = SD_MMAP_PCI_RECORD_MAGIC;
	rec->perm = mmap->permissions;
	rec->addr = (uint64_t)(uintptr_t)mmap->addr;
	rec->len = mmap->len;
	memcpy(rec->key, mmap->key, sizeof(rec->key));
	/* Every field above is visible before live (see mmap_pci_proto.h). */
	__atomic_store_n(&rec->live, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&records_lock);
	*slot = i;
	return DOCA_SUCCESS;
}

static void
record_revoke(uint32_t slot)
{
	struct sd_mmap_pci_record *rec = &records[slot];

	pthread_mutex_lock(&records_lock);
	__atomic_store_n(&rec->live, 0, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	explicit_bzero(rec->key, sizeof(rec->key));
	slot_used[slot] = false;
	pthread_mutex_unlock(&records_lock);
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
		DOCA_LOG_ERR("doca_mmap_export_pci: device %s cannot export memory over PCI (a DPU-side function?); "
			     "use a host-side function (doca_mmap_cap_is_export_pci_supported)",
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
		exp = calloc(1, sizeof(*exp));
		if (exp == NULL) {
			DOCA_LOG_ERR("doca_mmap_export_pci: out of memory allocating %zu bytes", sizeof(*exp));
			return DOCA_ERROR_NO_MEMORY;
		}
		err = sd_random_bytes(mmap->key, sizeof(mmap->key));
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("doca_mmap_export_pci: cannot draw a random export key (getrandom: %s)",
				     doca_error_get_name(err));
			goto free_export;
		}
		err = record_publish(mmap, &exp->slot);
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("doca_mmap_export_pci: %d PCI exports are live in this process, the maximum; stop "
				     "or destroy exported mmaps first",
				     PCI_EXPORT_MAX_RECORDS);
			goto free_export;
		}
		pthread_once(&ptracer_once, allow_ptracer_any);
		mmap->pci_export = exp;
		mmap->exported_pci = true;
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
		info.record_addr = (uint64_t)(uintptr_t)&records[exp->slot];
		memcpy(info.key, mmap->key, sizeof(info.key));
		sd_mmap_pci_desc_encode(&info, exp->descs[dev_slot]);
		exp->built[dev_slot] = true;
	}
	mmap->pci_desc = exp->descs[dev_slot];
	mmap->pci_desc_len = sizeof(exp->descs[dev_slot]);
	*export_desc = mmap->pci_desc;
	*export_desc_len = mmap->pci_desc_len;
	return DOCA_SUCCESS;

free_export:
	explicit_bzero(mmap->key, sizeof(mmap->key));
	free(exp);
	return err;
}

void
sd_mmap_pci_unexport(struct doca_mmap *mmap)
{
	struct sd_mmap_pci_export *exp = mmap->pci_export;

	if (exp == NULL)
		return;
	record_revoke(exp->slot);
	free(exp);
	explicit_bzero(mmap->key, sizeof(mmap->key));
	mmap->pci_export = NULL;
	mmap->pci_desc = NULL;
	mmap->pci_desc_len = 0;
	mmap->exported_pci = false;
}

/* Constant-time key comparison: the time taken reveals nothing about the key. */
static bool
key_equal(const uint8_t *a, const uint8_t *b)
{
	uint8_t diff = 0;

	for (size_t i = 0; i < SD_KEY_LEN; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

/*
 * Read the exporter's record and check it against what the importer believes
 * (key, range, permission).  what prefixes the log line (the API or check name).
 */
static doca_error_t
record_check(pid_t pid, uint64_t record_addr, const uint8_t *key, uint64_t addr, uint64_t len, uint32_t perm,
	     const char *what)
{
	struct sd_mmap_pci_record rec;
	struct iovec local = {.iov_base = &rec, .iov_len = sizeof(rec)};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)record_addr, .iov_len = sizeof(rec)};
	ssize_t n;

	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0) {
		int e = errno;

		switch (e) {
		case EPERM:
			DOCA_LOG_ERR("%s: the kernel refused to read the memory of exporter pid %d (EPERM); run both "
				     "sides as the same user (with Yama ptrace_scope >= 2 the importer also needs "
				     "CAP_SYS_PTRACE)",
				     what, (int)pid);
			return DOCA_ERROR_NOT_PERMITTED;
		case ESRCH:
			DOCA_LOG_ERR("%s: exporter pid %d no longer exists; export the memory again from a running "
				     "process",
				     what, (int)pid);
			return DOCA_ERROR_NOT_FOUND;
		case EFAULT:
			DOCA_LOG_ERR("%s: no export record at 0x%" PRIx64 " in pid %d; the descriptor was not "
				     "produced by doca_mmap_export_pci() of that process",
				     what, record_addr, (int)pid);
			return DOCA_ERROR_NOT_PERMITTED;
		default:
			DOCA_LOG_ERR("%s: process_vm_readv(pid %d) failed: %s", what, (int)pid, strerror(e));
			return sd_errno_to_doca(e);
		}
	}
	if ((size_t)n != sizeof(rec) || rec.magic != SD_MMAP_PCI_RECORD_MAGIC) {
		DOCA_LOG_ERR("%s: no export record at 0x%" PRIx64 " in pid %d; the descriptor was not produced by "
			     "doca_mmap_export_pci() of that process",
			     what, record_addr, (int)pid);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (rec.live != 1 || !key_equal(rec.key, key)) {
		DOCA_LOG_ERR("%s: export of pid %d is revoked or its key does not match (the exporter stopped or "
			     "destroyed its mmap, or the descriptor was altered); export again",
			     what, (int)pid);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (rec.addr != addr || rec.len != len || rec.perm != perm) {
		DOCA_LOG_ERR("%s: descriptor claims [0x%" PRIx64 ", +%" PRIu64 ") perm 0x%x but pid %d exported "
			     "[0x%" PRIx64 ", +%" PRIu64 ") perm 0x%x; use the descriptor unmodified",
			     what, addr, len, perm, (int)pid, rec.addr, rec.len, rec.perm);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_mmap_pci_import(struct doca_mmap *mmap, const void *desc, size_t desc_len, struct doca_dev *dev)
{
	static const char api[] = "doca_mmap_create_from_export";
	struct sd_mmap_pci_desc_info info;
	const char *reason = "";
	uint64_t start_time;
	doca_error_t err;

	if (dev->devinfo == NULL || !dev->devinfo->caps.pci_import) {
		DOCA_LOG_ERR("%s: device %s cannot import PCI exports (a host-side function?); open a DPU-side "
			     "function (doca_mmap_cap_is_create_from_export_pci_supported)",
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
	err = proc_start_time(info.pid, &start_time);
	if (err == DOCA_ERROR_NOT_FOUND) {
		DOCA_LOG_ERR("%s: exporter pid %d no longer exists; export the memory again from a running process",
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
	err = record_check(info.pid, info.record_addr, info.key, info.addr, info.len, info.perm, api);
	if (err != DOCA_SUCCESS)
		return err;

	mmap->kind = SD_MMAP_PCI_REMOTE;
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
	return record_check(remote->peer.pid, remote->peer.record_addr, remote->peer.key,
			    (uint64_t)(uintptr_t)remote->addr, remote->len, remote->permissions,
			    "Failed to access exported memory");
}
