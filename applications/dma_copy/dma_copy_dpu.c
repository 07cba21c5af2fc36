/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA Copy, DPU side: accept the host, check the direction and the size,
 * import the host's exported buffer and copy with one DMA memcpy task, then
 * report the result.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "comch_utils.h"
#include "dma_copy_core.h"

DOCA_LOG_REGISTER(DMA_COPY_DPU);

#define DPU_DISCONNECT_TIMEOUT_SEC 30

struct dpu_state {
	const struct dma_copy_cfg *cfg;
	struct comch_channel *ch;
	struct doca_dev *dma_dev;
	bool holder; /* the file is on the DPU */
	uint64_t local_size;
	uint64_t copy_size; /* agreed size of the copy */
	uint64_t max_size;
	struct dma_copy_inbox in; /* the last message received, handled by the main loop */
	bool done;
	doca_error_t result;
};

struct dma_job {
	bool finished;
	doca_error_t status;
};

static void
send_status(struct dpu_state *st, bool ok)
{
	dma_copy_send_status(st->ch, &st->in, ok);
}

static void
memcpy_done(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct dma_job *job = task_ud.ptr;

	(void)ctx_ud;
	job->status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	job->finished = true;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

/* One memcpy task from src to dst on the DMA device, progressed to completion. */
static doca_error_t
run_dma(struct doca_dev *dev, struct doca_buf *src, struct doca_buf *dst)
{
	struct dma_job job = {.status = DOCA_ERROR_UNKNOWN};
	struct doca_dma_task_memcpy *task;
	struct doca_dma *dma = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx;
	doca_error_t r;

	r = doca_pe_create(&pe);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_dma_create(dev, &dma);
	if (r != DOCA_SUCCESS)
		goto destroy_pe;
	ctx = doca_dma_as_ctx(dma);
	r = doca_dma_task_memcpy_set_conf(dma, memcpy_done, memcpy_done, 1);
	if (r == DOCA_SUCCESS)
		r = doca_pe_connect_ctx(pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(ctx);
	if (r != DOCA_SUCCESS)
		goto destroy_dma;
	r = doca_dma_task_memcpy_alloc_init(dma, src, dst, (union doca_data){.ptr = &job}, &task);
	if (r == DOCA_SUCCESS) {
		r = doca_task_submit(doca_dma_task_memcpy_as_task(task));
		if (r != DOCA_SUCCESS)
			doca_task_free(doca_dma_task_memcpy_as_task(task));
	}
	if (r == DOCA_SUCCESS) {
		while (!job.finished)
			(void)doca_pe_progress(pe);
		r = job.status;
	}
	if (doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS) {
		enum doca_ctx_states state = DOCA_CTX_STATE_STOPPING;

		while (state != DOCA_CTX_STATE_IDLE) {
			(void)doca_pe_progress(pe);
			(void)doca_ctx_get_state(ctx, &state);
		}
	}
destroy_dma:
	(void)doca_dma_destroy(dma);
destroy_pe:
	(void)doca_pe_destroy(pe);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("DMA copy failed: %s", doca_error_get_descr(r));
	return r;
}

/* Import the host's buffer, map the local file and copy in the agreed direction. */
static doca_error_t
copy_with_descriptor(struct dpu_state *st, const struct comch_msg_dma_export_discriptor *m, uint32_t len)
{
	uint64_t desc_len = be64toh(m->export_desc_len), host_addr = be64toh(m->host_addr);
	struct doca_mmap *remote = NULL, *local = NULL;
	struct doca_buf *src = NULL, *dst = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct dma_copy_file file;
	doca_error_t r;

	if (desc_len != len - sizeof(*m)) {
		DOCA_LOG_ERR("Export descriptor message of %u bytes announces %" PRIu64 " descriptor bytes", len,
			     desc_len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	r = st->holder ? dma_copy_file_open_src(st->cfg->file_path, &file)
		       : dma_copy_file_open_dst(st->cfg->file_path, st->copy_size, &file);
	if (r != DOCA_SUCCESS)
		return r;
	if (file.size != st->copy_size) {
		DOCA_LOG_ERR("%s changed size during the copy", st->cfg->file_path);
		r = DOCA_ERROR_IO_FAILED;
		goto close_file;
	}
	if (st->copy_size != 0) {
		r = doca_mmap_create_from_export(NULL, m->exported_mmap, desc_len, st->dma_dev, &remote);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to create mmap from export: %s", doca_error_get_descr(r));
			goto close_file;
		}
		r = doca_mmap_create(&local);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_add_dev(local, st->dma_dev);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_set_memrange(local, file.addr, file.size);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_set_permissions(local, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
		if (r == DOCA_SUCCESS)
			r = doca_mmap_start(local);
		if (r == DOCA_SUCCESS)
			r = doca_buf_inventory_create(2, &inv);
		if (r == DOCA_SUCCESS)
			r = doca_buf_inventory_start(inv);
		if (r != DOCA_SUCCESS)
			goto destroy;
		if (st->holder) {
			r = doca_buf_inventory_buf_get_by_data(inv, local, file.addr, file.size, &src);
			if (r == DOCA_SUCCESS)
				r = doca_buf_inventory_buf_get_by_addr(inv, remote, (void *)(uintptr_t)host_addr,
								       file.size, &dst);
		} else {
			r = doca_buf_inventory_buf_get_by_data(inv, remote, (void *)(uintptr_t)host_addr, file.size,
							       &src);
			if (r == DOCA_SUCCESS)
				r = doca_buf_inventory_buf_get_by_addr(inv, local, file.addr, file.size, &dst);
		}
		if (r == DOCA_SUCCESS)
			r = run_dma(st->dma_dev, src, dst);
		if (r != DOCA_SUCCESS)
			goto destroy;
	}
	DOCA_LOG_INFO("DMA copy was done Successfully");
	if (!st->holder) {
		DOCA_LOG_INFO("Writing DMA buffer into a file on %s", st->cfg->file_path);
		r = dma_copy_file_commit(&file, st->cfg->file_path);
	}
destroy:
	if (src != NULL)
		doca_buf_dec_refcount(src, NULL);
	if (dst != NULL)
		doca_buf_dec_refcount(dst, NULL);
	if (inv != NULL)
		(void)doca_buf_inventory_destroy(inv);
	if (local != NULL) {
		(void)doca_mmap_stop(local);
		(void)doca_mmap_destroy(local);
	}
	if (remote != NULL)
		(void)doca_mmap_destroy(remote);
close_file:
	dma_copy_file_close(&file);
	return r;
}

/* The host said where the file is: check, and answer with our side of it. */
static doca_error_t
handle_direction(struct dpu_state *st, const struct comch_msg_dma_direction *hd)
{
	struct comch_msg_dma_direction reply = {.type = COMCH_MSG_DIRECTION};

	if (hd->file_in_host && st->holder) {
		DOCA_LOG_ERR("Error - File was found on both Host and DPU");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!hd->file_in_host && !st->holder) {
		DOCA_LOG_ERR("Error - File was not found on both Host and DPU");
		return DOCA_ERROR_INVALID_VALUE;
	}
	st->copy_size = hd->file_in_host ? be64toh(hd->file_size) : st->local_size;
	if (st->copy_size > st->max_size) {
		DOCA_LOG_ERR("File size %" PRIu64 " is larger than the maximum DMA buffer size %" PRIu64
			     " (doca_dma_cap_task_memcpy_get_max_buf_size); split the file",
			     st->copy_size, st->max_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	reply.file_in_host = hd->file_in_host;
	reply.file_size = htobe64(st->holder ? st->local_size : 0);
	if (st->holder)
		DOCA_LOG_INFO("File was found locally, it will be DMA copied to the Host");
	else
		DOCA_LOG_INFO("File was not found locally, it will be DMA copied from the Host");
	return comch_channel_send(st->ch, &reply, sizeof(reply));
}

static void
handle_msg(void *arg)
{
	struct dpu_state *st = arg;
	enum comch_msg_type type = 0;
	doca_error_t r = DOCA_ERROR_UNEXPECTED;

	st->in.full = false;
	if (st->in.len >= sizeof(type))
		memcpy(&type, st->in.msg, sizeof(type));
	switch (type) {
	case COMCH_MSG_DIRECTION:
		if (st->in.len != sizeof(struct comch_msg_dma_direction))
			break;
		r = handle_direction(st, (const struct comch_msg_dma_direction *)st->in.msg);
		if (r == DOCA_SUCCESS)
			return;
		send_status(st, false);
		st->result = r;
		st->done = true;
		return;
	case COMCH_MSG_EXPORT_DESCRIPTOR:
		if (st->in.len < sizeof(struct comch_msg_dma_export_discriptor))
			break;
		r = copy_with_descriptor(st, (const struct comch_msg_dma_export_discriptor *)st->in.msg, st->in.len);
		send_status(st, r == DOCA_SUCCESS);
		st->result = r;
		st->done = true;
		return;
	case COMCH_MSG_STATUS:
		if (st->in.len != sizeof(struct comch_msg_dma_status))
			break;
		DOCA_LOG_ERR("Failure was detected in dma copy");
		st->result = DOCA_ERROR_IO_FAILED;
		st->done = true;
		return;
	default:
		break;
	}
	DOCA_LOG_ERR("Unexpected message from the host (type %d, %u bytes)", (int)type, st->in.len);
	send_status(st, false);
	st->result = r;
	st->done = true;
}

doca_error_t
dma_copy_dpu(const struct dma_copy_cfg *cfg)
{
	struct dpu_state st = {.cfg = cfg, .in = {.peer = "host"}, .result = DOCA_ERROR_UNKNOWN};
	struct comch_channel_cfg ccfg = {
		.name = DMA_COPY_SERVER_NAME,
		.server = true,
		.pci_addr = cfg->comch_pci,
		.rep_pci_addr = cfg->rep_pci,
		.num_send_tasks = DMA_COPY_NUM_SEND_TASKS,
		.recv_cb = dma_copy_inbox_recv,
		.cb_arg = &st.in,
	};
	doca_error_t r;

	r = dma_copy_open_dma_dev(true, &st.dma_dev);
	if (r != DOCA_SUCCESS)
		return r;
	r = dma_copy_max_size(st.dma_dev, &st.max_size);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	st.holder = dma_copy_file_present(cfg->file_path, &st.local_size);
	if (st.holder)
		DOCA_LOG_INFO("The file size is %" PRIu64, st.local_size);
	r = comch_channel_create(&ccfg, &st.ch);
	if (r != DOCA_SUCCESS)
		goto close_dev;
	DOCA_LOG_INFO("Server waiting on a client to connect");
	r = comch_channel_wait_connected(st.ch, 0);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to receive a connection from the host: %s", doca_error_get_descr(r));
		goto destroy_channel;
	}
	DOCA_LOG_INFO("Server connection established");

	r = dma_copy_serve(st.ch, &st.in, handle_msg, &st, &st.done, "the host disconnected before the copy ended");
	if (r == DOCA_SUCCESS)
		r = st.result;
	/* The host stops its client once it has our status. */
	if (comch_channel_connected(st.ch) &&
	    comch_channel_wait_disconnected(st.ch, DPU_DISCONNECT_TIMEOUT_SEC) != DOCA_SUCCESS)
		DOCA_LOG_WARN("The host did not disconnect within %d seconds", DPU_DISCONNECT_TIMEOUT_SEC);

destroy_channel:
	(void)comch_channel_destroy(st.ch);
close_dev:
	doca_dev_close(st.dma_dev);
	return r;
}
