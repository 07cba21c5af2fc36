/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Task and buf helpers of the RDMA samples: the end of a run (record the first
 * error, stop the context after the last task), bufs over the local and the
 * responder's memory, submitting, and the receive every receiver posts.
 */
#include <string.h>

#include <doca_buf.h>
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_COMMON_TASK);

void
rdma_record_error(struct rdma_resources *res, doca_error_t err)
{
	if (err != DOCA_SUCCESS && res->first_error == DOCA_SUCCESS)
		res->first_error = err;
}

void
rdma_fail(struct rdma_resources *res, doca_error_t err)
{
	rdma_record_error(res, err);
	/* SUCCESS (now IDLE), IN_PROGRESS (flushing) or already stopping: all end the run. */
	(void)doca_ctx_stop(res->rdma_ctx);
}

void
rdma_finish(struct rdma_resources *res)
{
	doca_error_t result;

	if (res->cfg->use_rdma_cm)
		rdma_record_error(res, rdma_cm_disconnect(res));
	result = doca_ctx_stop(res->rdma_ctx);
	if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) {
		DOCA_LOG_ERR("Failed to stop the RDMA context: %s", doca_error_get_descr(result));
		rdma_record_error(res, result);
	}
}

void
rdma_task_complete(struct rdma_resources *res, struct doca_task *task, const struct doca_buf *buf1,
		   const struct doca_buf *buf2, doca_error_t status)
{
	rdma_release_buf(buf1);
	rdma_release_buf(buf2);
	doca_task_free(task);
	rdma_record_error(res, status);
	if (res->num_remaining_tasks > 0 && --res->num_remaining_tasks == 0)
		rdma_finish(res);
}

void
rdma_task_failed(struct rdma_resources *res, struct doca_task *task, const char *what, const struct doca_buf *buf1,
		 const struct doca_buf *buf2)
{
	doca_error_t status = doca_task_get_status(task);

	/* An error callback with a successful status would be a library bug: still fail the sample. */
	if (status == DOCA_SUCCESS)
		status = DOCA_ERROR_UNKNOWN;
	DOCA_LOG_ERR("RDMA %s task failed: %s (%s)", what, doca_error_get_descr(status), doca_error_get_name(status));
	rdma_task_complete(res, task, buf1, buf2, status);
}

void
rdma_put_text(struct rdma_resources *res, size_t offset, const char *text)
{
	/* A 256-character string fills the slice without its NUL: readers bound by length. */
	memset(res->mmap_memrange + offset, 0, RDMA_MSG_LEN);
	memcpy(res->mmap_memrange + offset, text, strnlen(text, RDMA_MSG_LEN));
}

/* A buf over [addr, addr + len) of mmap, holding data (a source) or empty (a destination). */
static doca_error_t
get_buf(struct rdma_resources *res, struct doca_mmap *mmap, void *addr, size_t len, bool with_data,
	struct doca_buf **buf)
{
	if (with_data)
		return doca_buf_inventory_buf_get_by_data(res->buf_inventory, mmap, addr, len, buf);
	return doca_buf_inventory_buf_get_by_addr(res->buf_inventory, mmap, addr, len, buf);
}

doca_error_t
rdma_local_buf(struct rdma_resources *res, size_t offset, size_t len, bool with_data, struct doca_buf **buf)
{
	doca_error_t result = get_buf(res, res->mmap, res->mmap_memrange + offset, len, with_data, buf);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to get a buf over the local memory: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
rdma_remote_buf(struct rdma_resources *res, size_t len, bool with_data, struct doca_buf **buf)
{
	void *remote_addr;
	size_t remote_len;
	doca_error_t result;

	result = doca_mmap_get_memrange(res->remote_mmap, &remote_addr, &remote_len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the memory range of the remote mmap: %s", doca_error_get_descr(result));
		return result;
	}
	if (remote_len < len) {
		DOCA_LOG_ERR("The responder exported %zu bytes; this sample needs %zu", remote_len, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = get_buf(res, res->remote_mmap, remote_addr, len, with_data, buf);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to get a buf over the remote memory: %s", doca_error_get_descr(result));
	return result;
}

doca_error_t
rdma_one_sided_bufs(struct rdma_resources *res, bool write, struct doca_buf **src, struct doca_buf **dst)
{
	struct doca_buf *local, *remote;
	doca_error_t result;

	result = rdma_local_buf(res, 0, RDMA_MSG_LEN, write, &local);
	if (result != DOCA_SUCCESS)
		return result;
	result = rdma_remote_buf(res, RDMA_MSG_LEN, !write, &remote);
	if (result != DOCA_SUCCESS) {
		rdma_release_buf(local);
		return result;
	}
	*src = write ? local : remote;
	*dst = write ? remote : local;
	return DOCA_SUCCESS;
}

void
rdma_release_buf(const struct doca_buf *buf)
{
	doca_error_t result;

	if (buf == NULL)
		return;
	/* Tasks hand back const bufs; the inventory owns them and takes them back here. */
	result = doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)buf, NULL);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to release a buf: %s", doca_error_get_descr(result));
}

doca_error_t
rdma_submit(struct doca_task *task, const char *what, struct doca_buf *buf1, struct doca_buf *buf2)
{
	doca_error_t result;

	result = doca_task_submit(task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit the %s task: %s", what, doca_error_get_descr(result));
		doca_task_free(task);
		rdma_release_buf(buf1);
		rdma_release_buf(buf2);
	}
	return result;
}

int
rdma_buf_text(const struct doca_buf *buf, const char **text)
{
	void *data = NULL;
	size_t len = 0;

	if (buf == NULL || doca_buf_get_data(buf, &data) != DOCA_SUCCESS ||
	    doca_buf_get_data_len(buf, &len) != DOCA_SUCCESS || data == NULL) {
		*text = "";
		return 0;
	}
	*text = data;
	return (int)strnlen(data, len);
}

doca_error_t
rdma_post_receive(struct rdma_resources *res, size_t offset, size_t len)
{
	union doca_data task_user_data = {.ptr = res};
	struct doca_rdma_task_receive *task;
	struct doca_buf *dst = NULL;
	doca_error_t result;

	if (len > 0) {
		result = rdma_local_buf(res, offset, len, false, &dst);
		if (result != DOCA_SUCCESS)
			return result;
	}
	result = doca_rdma_task_receive_allocate_init(res->rdma, dst, task_user_data, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate an RDMA receive task: %s", doca_error_get_descr(result));
		rdma_release_buf(dst);
		return result;
	}
	res->num_remaining_tasks++;
	return rdma_submit(doca_rdma_task_receive_as_task(task), "RDMA receive", dst, NULL);
}

doca_error_t
rdma_receive_one(struct rdma_resources *res)
{
	doca_error_t result = rdma_post_receive(res, 0, RDMA_MSG_LEN);

	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("Receive task was submitted; waiting for the sender");
	return result;
}

void
rdma_receive_error(struct doca_rdma_task_receive *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	(void)task_user_data;
	rdma_task_failed(ctx_user_data.ptr, doca_rdma_task_receive_as_task(task), "receive",
			 doca_rdma_task_receive_get_dst_buf(task), NULL);
}
