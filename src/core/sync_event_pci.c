/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sync events across PCI (host process <-> DPU process of one machine).
 *
 * Export moves the event's value into a shared page: a memfd of the exporting
 * process, mapped MAP_SHARED, with a random key next to the value.  The
 * descriptor (sync_event_pci_proto.h) names the process and the fd; the importer
 * opens /proc/<pid>/fd/<fd> (same user, as for PCI mmap exports), maps the page,
 * checks the key and uses the same 8 bytes.  Both processes then update and wait
 * with ordinary atomics on one physical page, so set/add/wait work between them
 * with no progress and no thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/sd_random.h"
#include "dev_internal.h"
#include "sd_log.h"
#include "sync_event_internal.h"
#include "sync_event_pci_proto.h"

SD_LOG_REGISTER(core.sync_event_pci);

void
sd_sync_event_pci_release(struct doca_sync_event *event)
{
	if (event->pci_page != NULL) {
		/* The value goes back to the event's own storage (it is being destroyed anyway). */
		atomic_store(&event->own_value, atomic_load(event->value));
		event->value = &event->own_value;
		munmap(event->pci_page, SD_SE_PCI_PAGE_SIZE);
		event->pci_page = NULL;
	}
	if (event->pci_fd >= 0)
		close(event->pci_fd);
	event->pci_fd = -1;
}

static doca_error_t
cap_any(const struct doca_devinfo *devinfo, const char *api)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Host and DPU functions alike: either side may export, the other import. */
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo)
{
	return cap_any(devinfo, "doca_sync_event_cap_is_export_to_remote_pci_supported");
}

doca_error_t
doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo)
{
	return cap_any(devinfo, "doca_sync_event_cap_is_create_from_export_supported");
}

/* Move the value into a fresh shared page; on failure nothing changed. */
static doca_error_t
make_shared_page(struct doca_sync_event *event, const char *api)
{
	uint8_t key[16];
	void *page;
	int fd;

	if (sd_random_bytes(key, sizeof(key)) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: no random key available", api);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	fd = memfd_create("softdoca-sync-event", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, SD_SE_PCI_PAGE_SIZE) != 0) {
		DOCA_LOG_ERR("%s: cannot create the shared page: %s", api, strerror(errno));
		if (fd >= 0)
			close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	page = mmap(NULL, SD_SE_PCI_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		DOCA_LOG_ERR("%s: cannot map the shared page: %s", api, strerror(errno));
		close(fd);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	memcpy((uint8_t *)page + SD_SE_PCI_PAGE_KEY_OFF, key, sizeof(key));
	atomic_store((_Atomic uint64_t *)page, atomic_load(event->value));
	event->value = (_Atomic uint64_t *)page;
	event->pci_page = page;
	event->pci_fd = fd;
	memcpy(event->pci_key, key, sizeof(key));
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev, const uint8_t **data,
				     size_t *sz)
{
	static const char api[] = "doca_sync_event_export_to_remote_pci";
	struct sd_se_pci_desc_info info;
	doca_error_t err;

	if (event == NULL || dev == NULL || data == NULL || sz == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (event %p, dev %p, data %p, sz %p)", api, (void *)event, (void *)dev,
			     (void *)data, (void *)sz);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (event->imported) {
		DOCA_LOG_ERR("%s: the event was created from an export; export the original", api);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!(event->publishers & SD_SYNC_EVENT_LOC_REMOTE_PCI) &&
	    !(event->subscribers & SD_SYNC_EVENT_LOC_REMOTE_PCI)) {
		DOCA_LOG_ERR("%s: the event has no remote-PCI location; call "
			     "doca_sync_event_add_publisher_location_remote_pci() (or the subscriber one) first",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (event->pci_page == NULL) {
		if (event->value != &event->own_value || event->remote != NULL) {
			DOCA_LOG_ERR(
				"%s: the value lives in storage given with set_addr/set_doca_buf or is exported to "
				"the network; a PCI export needs the event's own storage",
				api);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		err = make_shared_page(event, api);
		if (err != DOCA_SUCCESS)
			return err;
	}
	info.pid = (uint32_t)getpid();
	info.fd = (uint32_t)event->pci_fd;
	memcpy(info.key, event->pci_key, sizeof(info.key));
	sd_se_pci_desc_encode(&info, event->pci_desc);
	*data = event->pci_desc;
	*sz = SD_SE_PCI_DESC_LEN;
	return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz, struct doca_sync_event **event)
{
	static const char api[] = "doca_sync_event_create_from_export";
	struct sd_se_pci_desc_info info;
	struct doca_sync_event *ev;
	const char *reason = NULL;
	char path[64];
	struct stat st;
	doca_error_t err;
	void *page;
	int fd;

	if (dev == NULL || data == NULL || event == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (dev %p, data %p, event %p)", api, (void *)dev, (const void *)data,
			     (void *)event);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_se_pci_desc_parse(data, sz, &info, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("%s: not a valid PCI sync-event export (%s); pass the bytes of "
			     "doca_sync_event_export_to_remote_pci() unchanged",
			     api, reason);
		return err;
	}
	snprintf(path, sizeof(path), "/proc/%u/fd/%u", info.pid, info.fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		DOCA_LOG_ERR("%s: cannot open the exporter's event page %s: %s; the exporting process must be alive "
			     "and run as the same user",
			     api, path, strerror(errno));
		return errno == ENOENT ? DOCA_ERROR_NOT_FOUND : DOCA_ERROR_NOT_PERMITTED;
	}
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)SD_SE_PCI_PAGE_SIZE) {
		DOCA_LOG_ERR("%s: %s is not an exported sync event (the export was revoked or the pid reused)", api,
			     path);
		close(fd);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	page = mmap(NULL, SD_SE_PCI_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED) {
		DOCA_LOG_ERR("%s: cannot map the exporter's event page: %s", api, strerror(errno));
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (memcmp((uint8_t *)page + SD_SE_PCI_PAGE_KEY_OFF, info.key, sizeof(info.key)) != 0) {
		DOCA_LOG_ERR("%s: the key does not match the exporter's event (the export was revoked or the pid "
			     "reused)",
			     api);
		munmap(page, SD_SE_PCI_PAGE_SIZE);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = doca_sync_event_create(&ev);
	if (err != DOCA_SUCCESS) {
		munmap(page, SD_SE_PCI_PAGE_SIZE);
		return err;
	}
	ev->value = (_Atomic uint64_t *)page;
	ev->pci_page = page;
	ev->imported = true;
	/* Usable as is: both ends are CPUs of this machine; it cannot be configured further. */
	ev->publishers = SD_SYNC_EVENT_LOC_CPU;
	ev->subscribers = SD_SYNC_EVENT_LOC_CPU;
	ev->dev = dev;
	*event = ev;
	return DOCA_SUCCESS;
}
