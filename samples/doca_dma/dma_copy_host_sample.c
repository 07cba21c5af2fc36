/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host side of the host-to-DPU copy: register a buffer holding the text, export
 * it for PCI access, write the descriptor and the buffer's address and length
 * to files, and keep the memory alive until the operator presses Enter.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include "dma_common.h"
#include "dma_copy_host_sample.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST);

/*
 * Write len bytes to path, a regular file created or truncated.  A FIFO or a
 * device at path is refused at once (opening a FIFO for writing would wait
 * for a reader).
 */
static doca_error_t
write_file(const char *path, const void *data, size_t len)
{
	const char *p = data;
	doca_error_t result;
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = sample_open_regular_file(path, O_WRONLY | O_CREAT, 0644, "output file", NULL, &result);
	if (fd < 0)
		return result;
	/* Truncated only once known to be a regular file. */
	if (ftruncate(fd, 0) != 0) {
		DOCA_LOG_ERR("Failed to truncate %s: %s", path, strerror(errno));
		close(fd);
		return DOCA_ERROR_IO_FAILED;
	}
	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			DOCA_LOG_ERR("Failed to write %zu bytes to %s: %s", len, path,
				     n < 0 ? strerror(errno) : "short write");
			close(fd);
			return DOCA_ERROR_IO_FAILED;
		}
		done += (size_t)n;
	}
	if (close(fd) != 0) {
		DOCA_LOG_ERR("Failed to write %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/* The descriptor verbatim; the buffer's address and length as two decimal lines. */
static doca_error_t
save_config_info_to_files(const void *export_desc, size_t export_desc_len, const char *src_buffer, size_t length,
			  const char *export_desc_path, const char *buf_info_path)
{
	char info[64];
	int n;
	doca_error_t result;

	result = write_file(export_desc_path, export_desc, export_desc_len);
	if (result != DOCA_SUCCESS)
		return result;
	n = snprintf(info, sizeof(info), "%" PRIu64 "\n%" PRIu64 "\n", (uint64_t)(uintptr_t)src_buffer,
		     (uint64_t)length);
	return write_file(buf_info_path, info, (size_t)n);
}

/* Block until the operator presses Enter (or stdin is closed). */
static void
wait_for_enter(void)
{
	int c;

	/* The prompt must be visible even when stdout is a pipe. */
	fflush(stdout);
	fflush(stderr);
	do {
		c = getchar();
	} while (c != '\n' && c != EOF);
}

doca_error_t
host_start_dma_copy(const struct dma_config *cfg, char *src_buffer, size_t length)
{
	struct program_core_objects state;
	const void *export_desc;
	size_t export_desc_len;
	doca_error_t result, tmp;

	result = allocate_dma_host_resources(cfg->pci_address, &state);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate DMA host resources: %s", doca_error_get_descr(result));
		return result;
	}

	/* The DPU may read this memory over PCI, never write it. */
	result = doca_mmap_set_permissions(state.src_mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the mmap permissions: %s", doca_error_get_descr(result));
		goto destroy_resources;
	}
	result = doca_mmap_set_memrange(state.src_mmap, src_buffer, length);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the mmap memory range: %s", doca_error_get_descr(result));
		goto destroy_resources;
	}
	result = doca_mmap_start(state.src_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the mmap: %s", doca_error_get_descr(result));
		goto destroy_resources;
	}
	result = doca_mmap_export_pci(state.src_mmap, state.dev, &export_desc, &export_desc_len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to export the mmap for PCI access: %s", doca_error_get_descr(result));
		goto destroy_resources;
	}

	result = save_config_info_to_files(export_desc, export_desc_len, src_buffer, length, cfg->export_desc_path,
					   cfg->buf_info_path);
	if (result != DOCA_SUCCESS)
		goto destroy_resources;

	DOCA_LOG_INFO("Exported %zu bytes holding \"%s\" (descriptor of %zu bytes)", length, src_buffer,
		      export_desc_len);
	DOCA_LOG_INFO("Please copy %s and %s to the DPU and run the DMA Copy DPU sample", cfg->export_desc_path,
		      cfg->buf_info_path);
	DOCA_LOG_INFO("Wait till the DPU has finished and press enter");
	wait_for_enter();

destroy_resources:
	tmp = destroy_dma_host_resources(&state);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy DMA host resources: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}
