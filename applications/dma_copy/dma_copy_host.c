/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA Copy, host side: tell the DPU whether the file is here, export the
 * buffer the DPU will read from (the mapped file) or write into (the new file),
 * and wait for the DPU's verdict.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>
#include <doca_mmap.h>

#include "comch_utils.h"
#include "dma_copy_core.h"

DOCA_LOG_REGISTER(DMA_COPY_HOST);

struct host_state {
	const struct dma_copy_cfg *cfg;
	struct comch_channel *ch;
	struct doca_dev *dma_dev;
	struct doca_mmap *mmap;
	struct dma_copy_file file;
	bool holder; /* the file is on the host */
	uint64_t max_size;
	struct dma_copy_inbox in; /* the last message received, handled by the main loop */
	bool done;
	doca_error_t result;
};

static void
send_status(struct host_state *st, bool ok)
{
	dma_copy_send_status(st->ch, &st->in, ok);
}

/* The DPU answered our direction: prepare and export the host buffer. */
static doca_error_t
export_buffer(struct host_state *st, const struct comch_msg_dma_direction *dir)
{
	struct comch_msg_dma_export_discriptor *m;
	const void *desc = NULL;
	size_t desc_len = 0, total;
	doca_error_t r;

	if (st->holder) {
		r = dma_copy_file_open_src(st->cfg->file_path, &st->file);
	} else {
		uint64_t size = be64toh(dir->file_size);

		if (size > st->max_size) {
			DOCA_LOG_ERR("File size %" PRIu64 " is larger than the maximum DMA buffer size %" PRIu64, size,
				     st->max_size);
			return DOCA_ERROR_INVALID_VALUE;
		}
		r = dma_copy_file_open_dst(st->cfg->file_path, size, &st->file);
	}
	if (r != DOCA_SUCCESS)
		return r;
	if (st->file.size != 0) {
		r = doca_mmap_create(&st->mmap);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_add_dev(st->mmap, st->dma_dev);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_set_memrange(st->mmap, st->file.addr, st->file.size);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_set_permissions(st->mmap, st->holder ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
									   : DOCA_ACCESS_FLAG_PCI_READ_WRITE);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_start(st->mmap);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_export_pci(st->mmap, st->dma_dev, &desc, &desc_len);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to export the host buffer: %s", doca_error_get_descr(r));
			return r;
		}
	}
	total = sizeof(*m) + desc_len;
	if (total > comch_channel_max_msg_size(st->ch)) {
		DOCA_LOG_ERR("Export message exceeds max length of comch. Message len: %zu, Max len: %u", total,
			     comch_channel_max_msg_size(st->ch));
		return DOCA_ERROR_INVALID_VALUE;
	}
	m = calloc(1, total);
	if (m == NULL)
		return DOCA_ERROR_NO_MEMORY;
	m->type = COMCH_MSG_EXPORT_DESCRIPTOR;
	m->host_addr = htobe64((uint64_t)(uintptr_t)st->file.addr);
	m->export_desc_len = htobe64(desc_len);
	if (desc_len != 0)
		memcpy(m->exported_mmap, desc, desc_len);
	r = comch_channel_send(st->ch, m, (uint32_t)total);
	free(m);
	return r;
}

static void
handle_msg(void *arg)
{
	struct host_state *st = arg;
	enum comch_msg_type type;
	doca_error_t r;

	st->in.full = false;
	if (st->in.len < sizeof(type)) {
		DOCA_LOG_ERR("Short message from the DPU (%u bytes)", st->in.len);
		st->result = DOCA_ERROR_UNEXPECTED;
		st->done = true;
		return;
	}
	memcpy(&type, st->in.msg, sizeof(type));
	switch (type) {
	case COMCH_MSG_DIRECTION:
		if (st->in.len != sizeof(struct comch_msg_dma_direction))
			break;
		r = export_buffer(st, (const struct comch_msg_dma_direction *)st->in.msg);
		if (r != DOCA_SUCCESS) {
			send_status(st, false);
			st->result = r;
			st->done = true;
		}
		return;
	case COMCH_MSG_STATUS:
		if (st->in.len != sizeof(struct comch_msg_dma_status))
			break;
		st->done = true;
		if (!((const struct comch_msg_dma_status *)st->in.msg)->is_success) {
			DOCA_LOG_ERR("Failure was detected in dma copy");
			st->result = DOCA_ERROR_IO_FAILED;
			return;
		}
		DOCA_LOG_INFO("Final status message was successfully received");
		if (!st->holder) {
			DOCA_LOG_INFO("Writing DMA buffer into a file on %s", st->cfg->file_path);
			st->result = dma_copy_file_commit(&st->file, st->cfg->file_path);
		} else {
			st->result = DOCA_SUCCESS;
		}
		return;
	default:
		break;
	}
	DOCA_LOG_ERR("Unexpected message from the DPU (type %d, %u bytes)", (int)type, st->in.len);
	st->result = DOCA_ERROR_UNEXPECTED;
	st->done = true;
}

doca_error_t
dma_copy_host(const struct dma_copy_cfg *cfg)
{
	struct host_state st = {.cfg = cfg, .in = {.peer = "DPU"}, .result = DOCA_ERROR_UNKNOWN};
	struct comch_channel_cfg ccfg = {
		.name = DMA_COPY_SERVER_NAME,
		.server = false,
		.pci_addr = cfg->comch_pci,
		.num_send_tasks = DMA_COPY_NUM_SEND_TASKS,
		.recv_cb = dma_copy_inbox_recv,
		.cb_arg = &st.in,
	};
	struct comch_msg_dma_direction dir = {.type = COMCH_MSG_DIRECTION};
	uint64_t size = 0;
	doca_error_t r;

	st.file.fd = -1;
	r = dma_copy_open_dma_dev(false, &st.dma_dev);
	if (r != DOCA_SUCCESS)
		return r;
	r = dma_copy_max_size(st.dma_dev, &st.max_size);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	st.holder = dma_copy_file_present(cfg->file_path, &size);
	if (st.holder)
		DOCA_LOG_INFO("The file size is %" PRIu64, size);
	r = comch_channel_create(&ccfg, &st.ch);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	r = comch_channel_wait_connected(st.ch, 0);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect to the DPU: %s", doca_error_get_descr(r));
		goto destroy_channel;
	}
	if (st.holder && size > st.max_size) {
		DOCA_LOG_ERR("File size %" PRIu64 " is larger than the maximum DMA buffer size %" PRIu64
			     " (doca_dma_cap_task_memcpy_get_max_buf_size); split the file",
			     size, st.max_size);
		send_status(&st, false);
		r = DOCA_ERROR_INVALID_VALUE;
		goto destroy_channel;
	}
	dir.file_in_host = st.holder;
	dir.file_size = htobe64(size);
	r = comch_channel_send(st.ch, &dir, sizeof(dir));
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send the direction message: %s", doca_error_get_descr(r));
		goto destroy_channel;
	}
	if (st.holder)
		DOCA_LOG_INFO("File was found locally, it will be DMA copied to the DPU");
	else
		DOCA_LOG_INFO("File was not found locally, it will be DMA copied from the DPU");

	r = dma_copy_serve(st.ch, &st.in, handle_msg, &st, &st.done,
			   "the connection to the DPU was lost before the final status");
	if (r == DOCA_SUCCESS)
		r = st.result;

destroy_channel:
	(void)comch_channel_destroy(st.ch);
	if (st.mmap != NULL) {
		(void)doca_mmap_stop(st.mmap);
		(void)doca_mmap_destroy(st.mmap);
	}
	dma_copy_file_close(&st.file);
close_dev:
	doca_dev_close(st.dma_dev);
	return r;
}
