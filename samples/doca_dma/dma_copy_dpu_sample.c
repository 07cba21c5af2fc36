/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPU side of the host-to-DPU copy: import the host's exported memory from the
 * descriptor file, DMA-copy the host buffer named in the buffer file into local
 * memory and print it.  The host sample must be waiting for Enter meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma_common.h"
#include "dma_copy_dpu_sample.h"

DOCA_LOG_REGISTER(DMA_COPY_DPU);

/*
 * Read at most size bytes of a regular file (a FIFO or a device is refused, not
 * waited on); *truncated tells whether more followed.
 */
static doca_error_t
read_regular_file(const char *path, const char *what, void *data, size_t size, size_t *len, bool *truncated)
{
	doca_error_t result;
	size_t done = 0;
	ssize_t n;
	char extra;
	int fd;

	fd = sample_open_regular_file(path, O_RDONLY, 0, what, NULL, &result);
	if (fd < 0)
		return result;
	while (done < size) {
		n = read(fd, (char *)data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			DOCA_LOG_ERR("Failed to read the %s %s: %s", what, path, strerror(errno));
			close(fd);
			return DOCA_ERROR_IO_FAILED;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*truncated = done == size && read(fd, &extra, 1) == 1;
	close(fd);
	*len = done;
	return DOCA_SUCCESS;
}

/* Read at most DMA_MAX_DESC_SIZE bytes of the descriptor file. */
static doca_error_t
read_descriptor(const char *path, uint8_t *desc, size_t *desc_len)
{
	doca_error_t result;
	bool truncated;

	result = read_regular_file(path, "descriptor file", desc, DMA_MAX_DESC_SIZE, desc_len, &truncated);
	if (result == DOCA_SUCCESS && truncated)
		DOCA_LOG_WARN("Descriptor file %s is longer than %d bytes; only the first %d are used", path,
			      DMA_MAX_DESC_SIZE, DMA_MAX_DESC_SIZE);
	return result;
}

/* Parse one decimal unsigned 64-bit number ending at a newline or the end. */
static bool
parse_u64(char **cursor, uint64_t *value)
{
	char *end;

	errno = 0;
	if (**cursor < '0' || **cursor > '9')
		return false;
	*value = strtoull(*cursor, &end, 10);
	if (errno != 0 || (*end != '\n' && *end != '\0'))
		return false;
	*cursor = *end == '\n' ? end + 1 : end;
	return true;
}

/* The host buffer's address and length: two decimal lines. */
static doca_error_t
read_buffer_info(const char *path, uint64_t *addr, uint64_t *len)
{
	char text[128], *cursor = text;
	doca_error_t result;
	bool truncated;
	size_t n;

	result = read_regular_file(path, "buffer information file", text, sizeof(text) - 1, &n, &truncated);
	if (result != DOCA_SUCCESS)
		return result;
	text[n] = '\0';
	if (truncated || !parse_u64(&cursor, addr) || !parse_u64(&cursor, len) || *cursor != '\0') {
		DOCA_LOG_ERR("Buffer information file %s must hold the buffer address and length as two decimal lines",
			     path);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
dma_copy_dpu(struct dma_config *cfg)
{
	uint32_t bufs_per_task = (uint32_t)cfg->num_src_buf + (uint32_t)cfg->num_dst_buf;
	struct dma_resources resources;
	struct program_core_objects *state = &resources.state;
	struct doca_mmap *remote_mmap = NULL;
	struct doca_buf *src_head = NULL, *dst_head = NULL;
	struct doca_dma_task_memcpy *task;
	doca_error_t result, tmp, task_result = DOCA_ERROR_UNKNOWN;
	uint8_t export_desc[DMA_MAX_DESC_SIZE];
	size_t export_desc_len;
	uint64_t remote_addr, remote_len, max_buf_size;
	union doca_data user_data;
	char *dst_buffer = NULL;

	result = allocate_dma_resources(cfg->pci_address, bufs_per_task, bufs_per_task, 1, &resources);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate DMA resources: %s", doca_error_get_descr(result));
		return result;
	}
	result = dma_resources_start(&resources);
	if (result != DOCA_SUCCESS)
		goto finish_resources;

	result = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(state->dev), &max_buf_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the maximum DMA buffer size: %s", doca_error_get_descr(result));
		goto finish_resources;
	}

	result = read_descriptor(cfg->export_desc_path, export_desc, &export_desc_len);
	if (result != DOCA_SUCCESS)
		goto finish_resources;
	result = read_buffer_info(cfg->buf_info_path, &remote_addr, &remote_len);
	if (result != DOCA_SUCCESS)
		goto finish_resources;

	if (remote_len == 0) {
		DOCA_LOG_ERR("The remote buffer is empty (length 0 in %s)", cfg->buf_info_path);
		result = DOCA_ERROR_EMPTY;
		goto finish_resources;
	}
	if (remote_len > max_buf_size) {
		DOCA_LOG_ERR("The remote buffer (%" PRIu64 " bytes) exceeds the device's maximum DMA buffer size "
			     "(%" PRIu64 " bytes)",
			     remote_len, max_buf_size);
		result = DOCA_ERROR_TOO_BIG;
		goto finish_resources;
	}

	dst_buffer = malloc(remote_len);
	if (dst_buffer == NULL) {
		DOCA_LOG_ERR("Failed to allocate %" PRIu64 " bytes for the destination", remote_len);
		result = DOCA_ERROR_NO_MEMORY;
		goto finish_resources;
	}
	result = doca_mmap_set_memrange(state->dst_mmap, dst_buffer, remote_len);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(state->dst_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the destination mmap: %s", doca_error_get_descr(result));
		goto finish_resources;
	}

	result = doca_mmap_create_from_export(NULL, export_desc, export_desc_len, state->dev, &remote_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create an mmap from the host's export descriptor: %s (%s)",
			     doca_error_get_descr(result), doca_error_get_name(result));
		goto finish_resources;
	}

	/* The source list addresses the host's memory by the host's own virtual address. */
	result = allocate_doca_buf_list(state->buf_inv, remote_mmap, (void *)(uintptr_t)remote_addr, remote_len,
					cfg->num_src_buf, true, &src_head);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to build the remote source buffer list: %s", doca_error_get_descr(result));
		goto destroy_remote_mmap;
	}
	result = allocate_doca_buf_list(state->buf_inv, state->dst_mmap, dst_buffer, remote_len, cfg->num_dst_buf,
					false, &dst_head);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to build the destination buffer list: %s", doca_error_get_descr(result));
		goto release_bufs;
	}

	user_data.ptr = &task_result;
	result = doca_dma_task_memcpy_alloc_init(resources.dma_ctx, src_head, dst_head, user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate a DMA memcpy task: %s", doca_error_get_descr(result));
		goto release_bufs;
	}
	result = doca_task_submit(doca_dma_task_memcpy_as_task(task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit the DMA memcpy task: %s", doca_error_get_descr(result));
		doca_task_free(doca_dma_task_memcpy_as_task(task));
		goto release_bufs;
	}
	resources.num_remaining_tasks = 1;
	dma_progress_until_idle(&resources);

	result = task_result;
	if (result == DOCA_SUCCESS) {
		dst_buffer[remote_len - 1] = '\0';
		DOCA_LOG_INFO("Remote DMA copy was done Successfully");
		DOCA_LOG_INFO("Memory content: %s", dst_buffer);
	} else {
		DOCA_LOG_ERR("Remote DMA copy failed: %s (%s)", doca_error_get_descr(result),
			     doca_error_get_name(result));
	}
	/* Either way this side no longer touches the host's memory. */
	DOCA_LOG_INFO("Host sample can be closed, DMA copy ended");

release_bufs:
	if (dst_head != NULL)
		doca_buf_dec_refcount(dst_head, NULL);
	if (src_head != NULL)
		doca_buf_dec_refcount(src_head, NULL);
destroy_remote_mmap:
	if (remote_mmap != NULL) {
		tmp = doca_mmap_destroy(remote_mmap);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the remote mmap: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
	}
finish_resources:
	/*
	 * Already IDLE after a completed copy: the stop then simply succeeds.  Not
	 * inside DOCA_ERROR_PROPAGATE, which skips its second argument once result
	 * is an error (every failure above leaked the resources that way).
	 */
	tmp = dma_resources_finish(&resources);
	DOCA_ERROR_PROPAGATE(result, tmp);
	/* Freed only once no mmap covers it any more. */
	free(dst_buffer);
	return result;
}
