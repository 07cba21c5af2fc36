/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA Copy's files.  The source is mapped read-only and exported or copied
 * from in place (the page cache is the DMA source).  The destination is an
 * unnamed file (O_TMPFILE), allocated and mapped shared, its pages populated in
 * one call, so the DMA lands in the page cache itself; it is linked under its
 * name only after the copy succeeded: a copy that fails or is killed leaves no
 * file behind.  Where the file system cannot (no O_TMPFILE or no fallocate), the
 * DMA lands in anonymous memory written into the file at commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "common.h"
#include "dma_copy_core.h"

DOCA_LOG_REGISTER(DMA_COPY_FILE);

bool
dma_copy_file_present(const char *path, uint64_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	close(fd);
	*size = (uint64_t)st.st_size;
	return true;
}

doca_error_t
dma_copy_file_open_src(const char *path, struct dma_copy_file *f)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) != 0) {
		DOCA_LOG_ERR("Failed to open %s: %s", path, strerror(errno));
		if (f->fd >= 0)
			close(f->fd);
		f->fd = -1;
		return DOCA_ERROR_IO_FAILED;
	}
	f->size = (uint64_t)st.st_size;
	if (f->size == 0)
		return DOCA_SUCCESS;
	f->addr = mmap(NULL, f->size, PROT_READ, MAP_SHARED | MAP_POPULATE, f->fd, 0);
	if (f->addr == MAP_FAILED) {
		DOCA_LOG_ERR("Failed to map %s: %s", path, strerror(errno));
		f->addr = NULL;
		close(f->fd);
		f->fd = -1;
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/*
 * Map the unnamed destination file itself, its blocks allocated first (no
 * SIGBUS for a full disk in the middle of the copy) and its pages populated
 * writable in one call: 1 GiB in 0.3 s against 1.4-4.6 s for anonymous memory
 * then one write() (AMD EPYC guest, docs/results/notes-issue22.md, P25).
 * Faulting a shared file mapping page by page instead would cost several
 * times the write().  NOT_SUPPORTED: use anonymous memory.
 */
static doca_error_t
map_file(struct dma_copy_file *f, const char *path)
{
	void *p;

	if (fallocate(f->fd, 0, 0, (off_t)f->size) != 0) {
		if (errno == ENOSPC || errno == EFBIG) {
			DOCA_LOG_ERR("Failed to allocate %" PRIu64 " bytes for %s: %s", f->size, path, strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	p = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	if (p == MAP_FAILED)
		return DOCA_ERROR_NOT_SUPPORTED;
	/* EINVAL: a kernel before 5.14 faults the pages as the copy writes them */
	if (madvise(p, f->size, MADV_POPULATE_WRITE) != 0 && errno != EINVAL) {
		munmap(p, f->size);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	f->addr = p;
	f->in_file = true;
	return DOCA_SUCCESS;
}

doca_error_t
dma_copy_file_open_dst(const char *path, uint64_t size, struct dma_copy_file *f)
{
	doca_error_t r;
	char dir_buf[DMA_COPY_MAX_FILE_NAME];

	memset(f, 0, sizeof(*f));
	f->is_dest = true;
	f->size = size;
	snprintf(dir_buf, sizeof(dir_buf), "%s", path);
	f->fd = open(dirname(dir_buf), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		/* No O_TMPFILE on this file system: a hidden name, removed unless committed. */
		snprintf(f->tmp_path, sizeof(f->tmp_path), "%s.XXXXXX", path);
		f->fd = mkstemp(f->tmp_path);
		if (f->fd < 0) {
			DOCA_LOG_ERR("Failed to create a file next to %s: %s", path, strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
	}
	if (size == 0)
		return DOCA_SUCCESS;
	/* Only an unnamed file: a named one could be truncated under the copy (SIGBUS) */
	if (f->tmp_path[0] == '\0') {
		r = map_file(f, path);
		if (r != DOCA_ERROR_NOT_SUPPORTED) {
			if (r != DOCA_SUCCESS)
				goto fail;
			return r;
		}
	}
	/*
	 * Anonymous memory written to the file at commit, in transparent huge
	 * pages where the kernel allows them, then populated: 1 GiB in 4 KiB
	 * pages took 3.2 s to fault in on an AMD EPYC guest, in 2 MiB pages 0.8 s.
	 */
	f->addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->addr == MAP_FAILED) {
		DOCA_LOG_ERR("Failed to allocate %" PRIu64 " bytes for %s: %s", size, path, strerror(errno));
		f->addr = NULL;
		goto fail;
	}
	(void)madvise(f->addr, size, MADV_HUGEPAGE); /* a hint: EINVAL without THP */
	/* ENOMEM now rather than a fault in the middle of the copy; EINVAL: a kernel before 5.14 faults lazily */
	if (madvise(f->addr, size, MADV_POPULATE_WRITE) != 0 && errno != EINVAL) {
		DOCA_LOG_ERR("Failed to allocate %" PRIu64 " bytes for %s: %s", size, path, strerror(errno));
		goto fail;
	}
	return DOCA_SUCCESS;
fail:
	dma_copy_file_close(f);
	return DOCA_ERROR_IO_FAILED;
}

/* Write the received bytes into the (still unnamed) destination file. */
static doca_error_t
write_all(struct dma_copy_file *f, const char *path)
{
	uint64_t done = 0;

	while (done < f->size) {
		ssize_t n = pwrite(f->fd, (const uint8_t *)f->addr + done, f->size - done, (off_t)done);

		if (n <= 0) {
			DOCA_LOG_ERR("Failed to write %s: %s", path, n < 0 ? strerror(errno) : "short write");
			return DOCA_ERROR_IO_FAILED;
		}
		done += (uint64_t)n;
	}
	return DOCA_SUCCESS;
}

doca_error_t
dma_copy_file_commit(struct dma_copy_file *f, const char *path)
{
	char proc[64];
	doca_error_t r = f->in_file ? DOCA_SUCCESS : write_all(f, path);

	if (r != DOCA_SUCCESS)
		return r;
	if (f->tmp_path[0] != '\0') {
		if (rename(f->tmp_path, path) != 0) {
			DOCA_LOG_ERR("Failed to create %s: %s", path, strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
		f->tmp_path[0] = '\0';
		return DOCA_SUCCESS;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0) {
		DOCA_LOG_ERR("Failed to create %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

void
dma_copy_file_close(struct dma_copy_file *f)
{
	if (f->addr != NULL)
		munmap(f->addr, f->size);
	f->addr = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp_path[0] != '\0')
		(void)unlink(f->tmp_path);
	f->tmp_path[0] = '\0';
}

doca_error_t
dma_copy_max_size(struct doca_dev *dev, uint64_t *max)
{
	return doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), max);
}

static doca_error_t
can_dma_and_export(const struct doca_devinfo *devinfo)
{
	uint8_t ok = 0;

	if (doca_dma_cap_task_memcpy_is_supported(devinfo) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_SUPPORTED;
	if (doca_mmap_cap_is_export_pci_supported(devinfo, &ok) != DOCA_SUCCESS || !ok)
		return DOCA_ERROR_NOT_SUPPORTED;
	return DOCA_SUCCESS;
}

static doca_error_t
can_dma_and_import(const struct doca_devinfo *devinfo)
{
	uint8_t ok = 0;

	if (doca_dma_cap_task_memcpy_is_supported(devinfo) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_SUPPORTED;
	if (doca_mmap_cap_is_create_from_export_pci_supported(devinfo, &ok) != DOCA_SUCCESS || !ok)
		return DOCA_ERROR_NOT_SUPPORTED;
	return DOCA_SUCCESS;
}

doca_error_t
dma_copy_open_dma_dev(bool dpu, struct doca_dev **dev)
{
	doca_error_t r = open_doca_device_with_capabilities(dpu ? can_dma_and_import : can_dma_and_export, dev);

	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to open a DMA device: %s", doca_error_get_descr(r));
	return r;
}
