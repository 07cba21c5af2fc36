/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Comch producer: a context on a connection that sends doca_bufs to a
 * consumer of the peer.  With the consumer's shared ring mapped (comch_shring.c)
 * a send takes the next slot from the map and either copies the data into the
 * ring's staging area (comch_staged.c, no system call) or reads the consumer's
 * buffer grant (one system call) and writes the data into the slot's buffer if
 * the grant covers it (xproc.h, one system call; a memcpy when the buffers are
 * mapped, comch_mapped.c), then publishes the completion in the ring,
 * sending a FP_DOORBELL record only when the consumer sleeps.  Without one it
 * reads from the connected process its grants of the consumer's ring and
 * buffers, the ring's posted count and the next slot (one system call,
 * comch_fastpath.c), writes the data, then tells the consumer with a FP_DATA
 * record.  All of it happens in doca_task_submit, so
 * a send that found no posted buffer (AGAIN) succeeds as soon as the consumer posts, without progress on this side; the
 * completion is reported by progress.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "../core/sd_core.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.producer);

static inline struct doca_comch_producer *
producer_from_ctx(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct doca_comch_producer, ctx);
}

static doca_error_t
producer_start(struct doca_ctx *ctx, bool *running)
{
	struct doca_comch_producer *p = producer_from_ctx(ctx);

	if (p->send_pool == NULL) {
		DOCA_LOG_ERR("doca_ctx_start: Comch producer has no send tasks; call "
			     "doca_comch_producer_task_send_set_conf() first");
		return DOCA_ERROR_BAD_STATE;
	}
	if (p->conn->state != SD_COMCH_CONN_OPEN) {
		DOCA_LOG_ERR(
			"doca_ctx_start: the producer's connection has ended; create producers on a live connection");
		return DOCA_ERROR_NOT_CONNECTED;
	}
	*running = true;
	return DOCA_SUCCESS;
}

/*
 * The data is in the consumer's buffer or staged (view): publish the completion
 * in its shared ring, ring the doorbell if it sleeps.
 */
static doca_error_t
producer_complete_shared(struct doca_comch_producer *p, struct sd_comch_remote_consumer *rc,
			 struct doca_comch_producer_task_send *t, const struct sd_comch_ring_view *view, size_t len)
{
	struct sd_comch_fp_data d = {.len = len, .producer_id = p->id, .imm_len = t->imm_len};

	/* A full socket already wakes the consumer (it is readable): AGAIN loses no wake-up. */
	if (sd_comch_shring_complete(rc->shared, rc->info.ring_cap, rc->consumed, &d, t->imm,
				     view->staged ? &view->stage_at : NULL))
		(void)sd_comch_send_record(p->conn->fd, SD_COMCH_FP_DOORBELL, rc->id, NULL, 0, NULL, 0);
	rc->consumed++;
	/* Staged: done once the consumer copied the bytes out; a landed send behind one waits its turn. */
	if (view->staged)
		sd_comch_staged_pend(p, t, rc, view->stage_at + len);
	else if (sd_comch_staged_waiting(p))
		sd_comch_staged_pend(p, t, NULL, 0);
	else
		sd_task_complete(&t->task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

/* The data is in the consumer's buffer: tell it with a FP_DATA record (the ring is not shared). */
static doca_error_t
producer_complete_record(struct doca_comch_producer *p, struct sd_comch_remote_consumer *rc,
			 struct doca_comch_producer_task_send *t, size_t len)
{
	struct sd_comch_fp_data rec = {
		.len = htole64(len), .producer_id = htole32(p->id), .imm_len = htole32(t->imm_len)};
	doca_error_t err;

	err = sd_comch_send_record(p->conn->fd, SD_COMCH_FP_DATA, rc->id, &rec, sizeof(rec), t->imm, t->imm_len);
	if (err == DOCA_ERROR_AGAIN)
		return err; /* the slot is written again on the retry */
	if (err != DOCA_SUCCESS) {
		sd_task_fail_in_order(&t->task, DOCA_ERROR_NOT_CONNECTED);
		return DOCA_SUCCESS;
	}
	rc->consumed++;
	if (sd_comch_staged_waiting(p))
		sd_comch_staged_pend(p, t, NULL, 0);
	else
		sd_task_complete(&t->task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

/*
 * Write the data into the staging area the view holds (comch_staged.c), or
 * into its slot, its grant just checked: through the consumer's mapped buffers
 * when it has them (comch_mapped.c), else through the kernel.  NOT_FOUND: the consumer's process is gone.  AGAIN: the
 * window failed under a grant the ring's granted word stood for, which covers
 * only copies through the window: read the grant, then copy (the window is
 * gone, so the next read goes through the kernel).
 */
static doca_error_t
producer_write(struct doca_comch_producer *p, struct sd_comch_remote_consumer *rc,
	       const struct sd_comch_ring_view *view, void *data, size_t len, const char **reason)
{
	struct iovec l = {data, len}, r = {(void *)(uintptr_t)view->slot.addr, len};

	if (view->staged) {
		sd_comch_staged_write(rc, view->stage_at, data, len);
		return DOCA_SUCCESS;
	}
	if (sd_comch_mapped_write(p->conn, rc, view, data, len) == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	if (view->flag_grant)
		return DOCA_ERROR_AGAIN;
	return sd_xproc_copy(&p->conn->peer, true, &l, 1, &r, 1, len, reason);
}

static doca_error_t
producer_submit(struct doca_task *task)
{
	struct doca_comch_producer_task_send *t = sd_container_of(task, struct doca_comch_producer_task_send, task);
	struct doca_comch_producer *p = producer_from_ctx(sd_task_ctx(task));
	struct sd_comch_remote_consumer *rc = sd_comch_fp_remote(p->conn, t->consumer_id);
	struct sd_comch_ring_view view;
	const char *reason = "";
	size_t len = 0;
	void *data = NULL;
	doca_error_t err;

	if (t->buf == NULL) {
		DOCA_LOG_ERR("doca_task_submit: producer send task has no buffer; give it one in "
			     "doca_comch_producer_task_send_alloc_init()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (p->conn->state != SD_COMCH_CONN_OPEN) {
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_CONNECTED);
		return DOCA_SUCCESS;
	}
	if (rc == NULL) {
		DOCA_LOG_ERR("doca_task_submit: no consumer %u on the other side of the connection; use an id from "
			     "the new-consumer event",
			     t->consumer_id);
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_FOUND);
		return DOCA_SUCCESS;
	}
	(void)doca_buf_get_data(t->buf, &data);
	(void)doca_buf_get_data_len(t->buf, &len);
	/*
	 * Shared ring: the slot from the map, then staged or the buffer grant in one system call.
	 * Else one system call: the consumer's grants, the posted count and the slot we would fill.
	 */
again:
	if (rc->shared != NULL)
		err = sd_comch_fp_read_shared(p->conn, rc, len, &view, &reason);
	else
		err = sd_comch_fp_read_ring(p->conn, rc, &view, &reason);
	if (err == DOCA_ERROR_AGAIN)
		return err; /* no buffer posted: the caller retries */
	if (err == DOCA_ERROR_NOT_CONNECTED) {
		sd_comch_mapped_drop(rc); /* the grant is revoked (or its process gone): never written again */
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_CONNECTED);
		return DOCA_SUCCESS;
	}
	if (err == DOCA_SUCCESS && view.posted == rc->consumed)
		return DOCA_ERROR_AGAIN; /* no buffer posted: the caller retries */
	if (err == DOCA_SUCCESS)
		err = sd_comch_fp_slot_check(rc, &view, len, &reason);
	if (err == DOCA_ERROR_INVALID_VALUE) {
		DOCA_LOG_ERR(
			"doca_task_submit: %zu bytes do not fit the consumer's posted buffer (%llu bytes); send less "
			"or post larger receive buffers",
			len, (unsigned long long)view.slot.len);
		sd_task_fail_in_order(task, DOCA_ERROR_INVALID_VALUE);
		return DOCA_SUCCESS;
	}
	if (err == DOCA_SUCCESS && (len != 0 || view.staged))
		err = producer_write(p, rc, &view, data, len, &reason);
	if (err == DOCA_ERROR_AGAIN)
		goto again; /* once: the window that failed is unmapped */
	if (err == DOCA_ERROR_NOT_FOUND) {
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_CONNECTED);
		return DOCA_SUCCESS;
	}
	if (err != DOCA_SUCCESS) {
		/* Not what the consumer's process granted (or the kernel refused): no byte was written. */
		DOCA_LOG_ERR("Comch producer: writing into consumer %u of pid %d refused: %s; closing the connection",
			     rc->id, (int)p->conn->peer.pid, reason);
		sd_task_fail_in_order(task, DOCA_ERROR_NOT_PERMITTED);
		sd_comch_conn_fail(p->conn);
		return DOCA_SUCCESS;
	}
	if (rc->shared != NULL)
		return producer_complete_shared(p, rc, t, &view, len);
	return producer_complete_record(p, rc, t, len);
}

static unsigned
producer_progress(struct doca_ctx *ctx)
{
	return sd_comch_staged_progress(producer_from_ctx(ctx));
}

/* Staged sends complete when the consumer copied them out, which wakes no one: keep the PE awake until then. */
static bool
producer_arm(struct doca_ctx *ctx)
{
	return sd_comch_staged_waiting(producer_from_ctx(ctx));
}

/* SOFTDOCA_FAULTS comch.peer=vanish: its connection ends as when the peer's process dies (EOF). */
static void
producer_vanish(struct doca_ctx *ctx)
{
	sd_comch_conn_fail(producer_from_ctx(ctx)->conn);
}

static const struct sd_ctx_ops producer_ctx_ops = {
	.name = "comch_producer",
	.start = producer_start,
	.submit = producer_submit,
	.progress = producer_progress,
	.arm = producer_arm,
	.success_survives_stop = true,
	.vanish = producer_vanish,
};

/* --- public API ------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_create(struct doca_comch_connection *comch_connection, struct doca_comch_producer **producer)
{
	struct doca_comch_producer *p;
	struct sd_comch_fp *fp;

	if (comch_connection == NULL || producer == NULL) {
		DOCA_LOG_ERR("doca_comch_producer_create: NULL argument; pass non-NULL pointers");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (comch_connection->state != SD_COMCH_CONN_OPEN) {
		DOCA_LOG_ERR("doca_comch_producer_create: the connection is not established; create producers once "
			     "the client is RUNNING or the server got the connect event");
		return DOCA_ERROR_BAD_STATE;
	}
	fp = sd_comch_fp_get(comch_connection);
	p = sd_fault_create("comch", "doca_comch_producer_create") ? NULL : calloc(1, sizeof(*p));
	if (fp == NULL || p == NULL) {
		free(p);
		DOCA_LOG_ERR("doca_comch_producer_create: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	p->conn = comch_connection;
	sd_list_init(&p->staged);
	p->id = ++fp->next_id == 0xffff ? ++fp->next_id : fp->next_id;
	sd_ctx_init(&p->ctx, &producer_ctx_ops, sd_ctx_dev(&comch_connection->ep->ctx));
	comch_connection->fp_users++;
	*producer = p;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	doca_error_t err;

	if (producer == NULL) {
		DOCA_LOG_ERR("doca_comch_producer_destroy: producer is NULL; pass the object its create call returned");
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_ctx_fini(&producer->ctx, "doca_comch_producer_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_comch_fp_user_put(producer->conn);
	free(producer);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
	return producer == NULL ? NULL : &producer->ctx;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
	if (producer == NULL || id == NULL) {
		DOCA_LOG_ERR("doca_comch_producer_get_id: NULL argument; pass non-NULL pointers");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*id = producer->id;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
				       doca_comch_producer_task_send_completion_cb_t task_completion_cb,
				       doca_comch_producer_task_send_completion_cb_t task_error_cb,
				       uint32_t num_send_tasks)
{
	static const char api[] = "doca_comch_producer_task_send_set_conf";

	if (producer == NULL || task_completion_cb == NULL || task_error_cb == NULL) {
		DOCA_LOG_ERR("%s: the producer and both callbacks are required; pass all three", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_task_pool_configure(
		&producer->ctx, &producer->send_pool, "send", sizeof(struct doca_comch_producer_task_send),
		num_send_tasks, SD_COMCH_FP_MAX_TASKS, SD_TASK_CB(task_completion_cb), SD_TASK_CB(task_error_cb), api);
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer, const struct doca_buf *buf,
					 uint8_t *imm_data, uint32_t imm_data_len, uint32_t consumer_id,
					 struct doca_comch_producer_task_send **task)
{
	static const char api[] = "doca_comch_producer_task_send_alloc_init";
	struct doca_task *t;
	size_t len = 0;
	doca_error_t err;

	if (producer == NULL || task == NULL || (imm_data == NULL && imm_data_len != 0)) {
		DOCA_LOG_ERR("%s: NULL argument; pass non-NULL pointers", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (imm_data_len > SD_COMCH_MAX_IMM) {
		DOCA_LOG_ERR("%s: %u bytes of immediate data, at most %u; send at most %u", api, imm_data_len,
			     SD_COMCH_MAX_IMM, SD_COMCH_MAX_IMM);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf != NULL && (doca_buf_get_data_len(buf, &len) != DOCA_SUCCESS || len > SD_COMCH_FP_MAX_BUF)) {
		DOCA_LOG_ERR("%s: buffer of %zu bytes is over the maximum %u "
			     "(doca_comch_producer_cap_get_max_buf_size); send a smaller buffer",
			     api, len, SD_COMCH_FP_MAX_BUF);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(producer->send_pool, (union doca_data){.u64 = 0}, api, &t);
	if (err != DOCA_SUCCESS)
		return err;
	*task = sd_container_of(t, struct doca_comch_producer_task_send, task);
	(*task)->buf = buf;
	(*task)->consumer_id = consumer_id;
	doca_comch_producer_task_send_set_imm_data(*task, imm_data, imm_data_len);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL const struct doca_buf *
doca_comch_producer_task_send_get_buf(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : task->buf;
}

DOCA_EXPERIMENTAL void
doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

DOCA_EXPERIMENTAL uint8_t *
doca_comch_producer_task_send_get_imm_data(struct doca_comch_producer_task_send *task)
{
	return task == NULL || task->imm_len == 0 ? NULL : task->imm;
}

DOCA_EXPERIMENTAL uint32_t
doca_comch_producer_task_send_get_imm_data_len(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? 0 : task->imm_len;
}

DOCA_EXPERIMENTAL void
doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, uint8_t *imm_data,
					   uint32_t imm_data_len)
{
	if (task == NULL)
		return;
	if (imm_data == NULL || imm_data_len > SD_COMCH_MAX_IMM)
		imm_data_len = 0;
	task->imm_len = imm_data_len;
	if (imm_data_len != 0)
		memcpy(task->imm, imm_data, imm_data_len);
}

DOCA_EXPERIMENTAL uint32_t
doca_comch_producer_task_send_get_consumer_id(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? 0 : task->consumer_id;
}

DOCA_EXPERIMENTAL void
doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task, const uint32_t consumer_id)
{
	if (task != NULL)
		task->consumer_id = consumer_id;
}

DOCA_EXPERIMENTAL struct doca_task *
doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : &task->task;
}
