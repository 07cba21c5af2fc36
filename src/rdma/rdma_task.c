/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running RDMA tasks: one row per family (check, post, complete), the
 * submission shared by doca_task_submit() (a refusal becomes the task's
 * completion status, so the error reaches the error callback as on hardware,
 * after the tasks submitted before it) and doca_task_try_submit() (which
 * returns it), buffer lists through a bounce buffer, data placement at data +
 * data_len, and completion.  The checks and the refusal table are
 * rdma_task_check.c.
 *
 * Buffer lists: the fabric moves one contiguous range per op.  A one-segment
 * buffer (the common case) is used in place; a longer list is gathered into
 * (send, write) or scattered from (receive, read) one malloc'd bounce buffer.
 * Measured on this 2-core box the copy costs less than a second op per
 * segment would (each op carries an ack or a flush); see docs/rdma.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "rdma_task_check.h"

SD_LOG_REGISTER(rdma.task);

/* ---- placement ---- */

/* Copy a list's data windows into dst (gather). */
static void
gather(const struct doca_buf *buf, uint8_t *dst)
{
	for (; buf != NULL; buf = sd_buf_next(buf)) {
		memcpy(dst, sd_buf_data(buf), sd_buf_data_len(buf));
		dst += sd_buf_data_len(buf);
	}
}

/* Append len bytes at data + data_len, segment after segment (scatter). */
static void
scatter(struct doca_buf *buf, const uint8_t *src, size_t len)
{
	for (; buf != NULL && len > 0; buf = sd_buf_next(buf)) {
		size_t n = SD_MIN((size_t)sd_buf_tail_room(buf), len);

		if (src != NULL)
			memcpy(sd_buf_data(buf) + sd_buf_data_len(buf), src, n);
		sd_buf_add_data_len(buf, n);
		src = src != NULL ? src + n : NULL;
		len -= n;
	}
}

static void
append8(struct doca_buf *buf, uint64_t value)
{
	memcpy(sd_buf_data(buf) + sd_buf_data_len(buf), &value, 8);
	sd_buf_add_data_len(buf, 8);
}

/* ---- pins ---- */

static void
pin(struct sd_rdma_task *t, struct doca_buf *buf)
{
	if (buf == NULL || t->num_pinned >= SD_ARRAY_SIZE(t->pinned))
		return;
	sd_mmap_pin(sd_buf_mmap(buf));
	t->pinned[t->num_pinned++] = sd_buf_mmap(buf);
}

static void
unpin_all(struct sd_rdma_task *t)
{
	while (t->num_pinned > 0)
		sd_mmap_unpin(t->pinned[--t->num_pinned]);
}

/* ---- posting, one function per family ---- */

/* Bounce buffer for a list, or NULL with *direct pointing into the single segment. */
static doca_error_t
bounce_alloc(struct sd_rdma_task *t, size_t len)
{
	t->bounce = malloc(len ? len : 1);
	if (t->bounce == NULL)
		return DOCA_ERROR_NO_MEMORY;
	t->bounce_len = len;
	return DOCA_SUCCESS;
}

static struct fabric_ep *
task_ep(const struct sd_rdma_task *t)
{
	return t->conn != NULL ? t->conn->ep : NULL;
}

static doca_error_t
post_receive(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	size_t len;
	doca_error_t err;

	if (t->dst == NULL)
		return sd_fabric_ctx_post_recv(rdma->fctx, &t->op, NULL, 0);
	len = SD_MIN(sd_buf_list_tail_room(t->dst), (size_t)rdma->caps->rdma_max_message_size);
	if (sd_buf_next(t->dst) == NULL)
		return sd_fabric_ctx_post_recv(rdma->fctx, &t->op, sd_buf_data(t->dst) + sd_buf_data_len(t->dst), len);
	err = bounce_alloc(t, len);
	if (err != DOCA_SUCCESS)
		return err;
	return sd_fabric_ctx_post_recv(rdma->fctx, &t->op, t->bounce, len);
}

/* The bytes a send or write carries: the single segment in place, a list gathered (NULL when empty). */
static doca_error_t
outgoing(struct sd_rdma_task *t, const uint8_t **src, size_t *len)
{
	doca_error_t err;

	*src = NULL;
	*len = 0;
	if (t->src == NULL)
		return DOCA_SUCCESS;
	*len = sd_buf_list_data_len(t->src);
	*src = sd_buf_data(t->src);
	if (sd_buf_next(t->src) != NULL) {
		err = bounce_alloc(t, *len);
		if (err != DOCA_SUCCESS)
			return err;
		gather(t->src, t->bounce);
		*src = t->bounce;
	}
	if (*len == 0)
		*src = NULL;
	return DOCA_SUCCESS;
}

static doca_error_t
post_send(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	const uint8_t *src;
	size_t len;
	doca_error_t err = outgoing(t, &src, &len);

	(void)rdma;
	if (err != DOCA_SUCCESS)
		return err;
	if (t->type == SD_RDMA_TASK_SEND_IMM)
		return sd_fabric_ep_send_imm(task_ep(t), &t->op, src, len, t->imm);
	return sd_fabric_ep_send(task_ep(t), &t->op, src, len);
}

static doca_error_t
post_write(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	uint64_t raddr = (uint64_t)(uintptr_t)(sd_buf_data(t->dst) + sd_buf_data_len(t->dst));
	struct fabric_dev *fdev;
	struct fabric_rmr *rmr;
	const uint8_t *src;
	size_t len;
	doca_error_t err = outgoing(t, &src, &len);

	(void)rdma;
	if (err != DOCA_SUCCESS)
		return err;
	rmr = sd_rdma_remote_rmr(sd_buf_mmap(t->dst), &fdev);
	if (t->type == SD_RDMA_TASK_WRITE_IMM)
		return sd_fabric_ep_write_imm(task_ep(t), &t->op, src, len, rmr, raddr, t->imm);
	return sd_fabric_ep_write(task_ep(t), &t->op, src, len, rmr, raddr);
}

static doca_error_t
post_read(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	size_t len = sd_buf_data_len(t->src);
	struct fabric_dev *fdev;
	struct fabric_rmr *rmr = sd_rdma_remote_rmr(sd_buf_mmap(t->src), &fdev);
	uint8_t *dst;
	doca_error_t err;

	(void)rdma;
	if (sd_buf_next(t->dst) == NULL) {
		dst = sd_buf_data(t->dst) + sd_buf_data_len(t->dst);
	} else {
		err = bounce_alloc(t, len);
		if (err != DOCA_SUCCESS)
			return err;
		dst = t->bounce;
	}
	return sd_fabric_ep_read(task_ep(t), &t->op, len ? dst : NULL, len, rmr,
				 (uint64_t)(uintptr_t)sd_buf_data(t->src));
}

static doca_error_t
post_atomic(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	struct fabric_dev *fdev;
	struct fabric_rmr *rmr = sd_rdma_remote_rmr(sd_buf_mmap(t->dst), &fdev);
	uint64_t raddr = (uint64_t)(uintptr_t)sd_buf_data(t->dst);

	(void)rdma;
	if (t->type == SD_RDMA_TASK_ATOMIC_CMP_SWP)
		return sd_fabric_ep_cmp_swp(task_ep(t), &t->op, rmr, raddr, t->operand[0], t->operand[1],
					    &t->atomic_old);
	return sd_fabric_ep_fetch_add(task_ep(t), &t->op, rmr, raddr, t->operand[0], &t->atomic_old);
}

static doca_error_t
post_cmp_swp_event(struct sd_rdma_task *t)
{
	struct doca_sync_event_remote_net *ev = t->event;

	return sd_fabric_ep_cmp_swp(t->conn->ep, &t->op, ev->rmr, ev->addr, t->operand[0], t->operand[1],
				    &t->atomic_old);
}

/* An atomic read: fetch-and-add 0 never tears against the owner's updates. */
static doca_error_t
post_se_get(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	(void)rdma;
	return sd_fabric_ep_fetch_add(task_ep(t), &t->op, t->event->rmr, t->event->addr, 0, &t->atomic_old);
}

/* Compare-and-swap from the last value seen until it sticks (complete_se_notify_set retries). */
static doca_error_t
post_se_notify_set(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	uint64_t value;

	(void)rdma;
	memcpy(&value, sd_buf_data(t->src), sizeof(value));
	t->operand[0] = t->event->last;
	t->operand[1] = value;
	return post_cmp_swp_event(t);
}

static doca_error_t
post_se_notify_add(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	(void)rdma;
	return sd_fabric_ep_fetch_add(task_ep(t), &t->op, t->event->rmr, t->event->addr, t->operand[0], &t->atomic_old);
}

/*
 * ---- completion, one function per family ----
 * Called when the fabric op succeeded; *status starts DOCA_SUCCESS.  True:
 * the task finishes with *status; false: it went on (posted again).
 */

static bool
complete_none(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	(void)rdma, (void)t, (void)status;
	return true;
}

static bool
complete_receive(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	const struct fabric_op *op = &t->op;

	(void)rdma, (void)status;
	t->result_len = op->len;
	t->result_opcode = (enum doca_rdma_opcode)op->opcode;
	t->result_imm = op->imm;
	t->result_conn = op->src_user;
	/* write_imm: the bytes are already in place; its length is not ours to append. */
	if (t->dst == NULL || t->result_opcode == DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM)
		return true;
	/* One segment received in place: post_receive() offered at most its tail room. */
	if (t->bounce == NULL && sd_buf_next(t->dst) == NULL)
		sd_buf_add_data_len(t->dst, op->len);
	else
		scatter(t->dst, t->bounce, op->len);
	return true;
}

static bool
complete_read(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	(void)rdma, (void)status;
	t->result_len = t->op.len;
	scatter(t->dst, t->bounce, t->op.len);
	return true;
}

static bool
complete_write(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	(void)rdma, (void)status;
	sd_buf_add_data_len(t->dst, t->op.buf_len);
	return true;
}

static bool
complete_atomic(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	(void)rdma, (void)status;
	append8(t->result, t->atomic_old);
	return true;
}

static bool
complete_se_get(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	(void)rdma, (void)status;
	t->event->last = t->atomic_old;
	append8(t->dst, t->atomic_old);
	t->result_len = 8;
	return true;
}

static bool
complete_se_notify_set(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	if (t->atomic_old != t->operand[0]) {
		/* Lost the race (or guessed wrong): compare against what is there now. */
		t->operand[0] = t->atomic_old;
		if (rdma->tearing_down || t->conn->ep == NULL) {
			*status = SD_TASK_FLUSH_STATUS;
			return true;
		}
		*status = post_cmp_swp_event(t);
		return *status != DOCA_SUCCESS;
	}
	t->event->last = t->operand[1];
	/* the exporter's wait tasks re-check (a sleeping PE wakes) */
	sd_fabric_ep_notify_changed(t->conn->ep, t->event->rmr, t->event->addr);
	return true;
}

static bool
complete_se_notify_add(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status)
{
	(void)rdma, (void)status;
	append8(t->result, t->atomic_old);
	sd_fabric_ep_notify_changed(t->conn->ep, t->event->rmr, t->event->addr);
	return true;
}

/* ---- the families: one row each ---- */

struct task_desc {
	const char *name; /* in log lines: doca_rdma_task_<name> */
	sd_rdma_check_fn check;
	doca_error_t (*post)(struct doca_rdma *rdma, struct sd_rdma_task *t);
	bool (*complete)(struct doca_rdma *rdma, struct sd_rdma_task *t, doca_error_t *status);
	bool event; /* counts itself on its remote sync event while in flight */
};

static const struct task_desc task_descs[SD_RDMA_TASK_TYPES] = {
	[SD_RDMA_TASK_RECEIVE] = {"receive", sd_rdma_check_receive, post_receive, complete_receive, false},
	[SD_RDMA_TASK_SEND] = {"send", sd_rdma_check_send, post_send, complete_none, false},
	[SD_RDMA_TASK_SEND_IMM] = {"send_imm", sd_rdma_check_send, post_send, complete_none, false},
	[SD_RDMA_TASK_READ] = {"read", sd_rdma_check_read, post_read, complete_read, false},
	[SD_RDMA_TASK_WRITE] = {"write", sd_rdma_check_write, post_write, complete_write, false},
	[SD_RDMA_TASK_WRITE_IMM] = {"write_imm", sd_rdma_check_write, post_write, complete_write, false},
	[SD_RDMA_TASK_ATOMIC_CMP_SWP] = {"atomic_cmp_swp", sd_rdma_check_atomic, post_atomic, complete_atomic, false},
	[SD_RDMA_TASK_ATOMIC_FETCH_ADD] = {"atomic_fetch_add", sd_rdma_check_atomic, post_atomic, complete_atomic,
					   false},
	[SD_RDMA_TASK_SE_GET] = {"remote_net_sync_event_get", sd_rdma_check_se_get, post_se_get, complete_se_get, true},
	[SD_RDMA_TASK_SE_NOTIFY_SET] = {"remote_net_sync_event_notify_set", sd_rdma_check_se_notify_set,
					post_se_notify_set, complete_se_notify_set, true},
	[SD_RDMA_TASK_SE_NOTIFY_ADD] = {"remote_net_sync_event_notify_add", sd_rdma_check_se_notify_add,
					post_se_notify_add, complete_se_notify_add, true},
};

/* Every family has its row (a new enum value without one fails here, not at run time). */
static_assert(SD_RDMA_TASK_SE_NOTIFY_ADD + 1 == SD_RDMA_TASK_TYPES, "a task family lacks its row in task_descs");

static inline bool
validate(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	v->why = SD_BUF_OK;
	return task_descs[t->type].check(rdma, t, v);
}

/* A refusal of v, logged by the log-once rule (refusal.h); returned: try_submit's (always at ERR). */
static void
log_refusal(struct doca_rdma *rdma, const char *api, const struct sd_rdma_task *t, const struct sd_buf_verdict *v,
	    bool returned)
{
	SD_REFUSAL_LOG(&rdma->ctx, sd_rdma_refusals, api, task_descs[t->type].name, v, !returned);
}

/* ---- completion ---- */

static void task_finish(struct sd_rdma_task *t, doca_error_t status);

static void
op_done(struct fabric_op *op)
{
	struct sd_rdma_task *t = sd_container_of(op, struct sd_rdma_task, op);
	struct doca_rdma *rdma = sd_rdma_from_ctx(sd_task_ctx(&t->task));
	doca_error_t status = op->status;

	if (status == DOCA_ERROR_CONNECTION_ABORTED) {
		/* The endpoint was torn down: a stop flushes, a lost connection says why. */
		if (rdma->tearing_down || sd_ctx_state(&rdma->ctx) == DOCA_CTX_STATE_STOPPING)
			status = SD_TASK_FLUSH_STATUS;
		else if (t->conn != NULL && t->conn->err != DOCA_SUCCESS)
			status = t->conn->err;
	}
	if (status == DOCA_SUCCESS && !task_descs[t->type].complete(rdma, t, &status))
		return;
	task_finish(t, status);
}

/* Give back what submit took for the task (bounce buffer, pins, counts). */
static void
task_release(struct sd_rdma_task *t)
{
	struct doca_rdma *rdma = sd_rdma_from_ctx(sd_task_ctx(&t->task));

	if (t->bounce != NULL) {
		free(t->bounce);
		t->bounce = NULL;
		t->bounce_len = 0;
	}
	unpin_all(t);
	if (t->event != NULL && task_descs[t->type].event) {
		/*
		 * A count that would wrap means a task finished twice: say so
		 * instead of leaving the event undestroyable (IN_USE forever).
		 */
		if (t->event->inflight == 0)
			DOCA_LOG_ERR("Internal error: %s task %p finished with no task counted on its remote sync "
				     "event; please report",
				     task_descs[t->type].name, (void *)t);
		else
			t->event->inflight--;
	}
	rdma->inflight--;
}

static void
task_finish(struct sd_rdma_task *t, doca_error_t status)
{
	task_release(t);
	/* No per-task log line: even filtered, the call and the status name cost ~60 instructions a task. */
	sd_task_complete(&t->task, status);
}

/* ---- submission ---- */

doca_error_t
sd_rdma_task_submit(struct doca_task *task)
{
	struct sd_rdma_task *t = sd_rdma_task_from_task(task);
	struct doca_rdma *rdma = sd_rdma_from_ctx(sd_task_ctx(task));
	struct sd_buf_verdict v;
	doca_error_t err;

	if (sd_unlikely(!validate(rdma, t, &v))) {
		log_refusal(rdma, "doca_task_submit", t, &v, false);
		/*
		 * Hardware takes the work request and fails it when it executes: the
		 * error callback runs after those of every task submitted before it.
		 * Except on a connection that failed or ended: its queue is in error and
		 * flushes at once.  Held in order, such a task would wait for every task
		 * still running, a posted receive included, which no dead peer ever
		 * fills: the first error of a peer that died while nothing was in flight
		 * would never come (the soak test's survivor, docs/robustness.md).
		 */
		if (v.why == SD_RDMA_CONN_ENDED)
			sd_task_complete(task, sd_refusal_status(sd_rdma_refusals, &v));
		else
			sd_task_fail_in_order(task, sd_refusal_status(sd_rdma_refusals, &v));
		return DOCA_SUCCESS;
	}
	/*
	 * Not a compound literal: zeroing the whole op (its 80-byte wire header
	 * included) cost more than the rest of this function.  The fabric's post
	 * calls set what they use; these are the fields it may read first.
	 */
	t->op.cb = op_done;
	t->op.user = t;
	t->op.status = DOCA_SUCCESS;
	t->op.len = 0;
	t->op.imm = 0;
	t->op.src_ep = NULL;
	t->op.src_user = NULL;
	t->op.rmr = NULL;
	t->op.result = NULL;
	t->op.ticket = NULL;
	t->bounce = NULL;
	t->num_pinned = 0;
	t->result_len = 0;
	t->result_conn = NULL;
	pin(t, t->src);
	pin(t, t->dst);
	pin(t, t->result);
	if (t->event != NULL && task_descs[t->type].event)
		t->event->inflight++;
	rdma->inflight++;
	err = task_descs[t->type].post(rdma, t);
	if (err != DOCA_SUCCESS) {
		/* The fabric's own checks (exported range and permission): an error completion. */
		if (err == DOCA_ERROR_NOT_CONNECTED && t->conn != NULL && t->conn->err != DOCA_SUCCESS)
			err = t->conn->err;
		sd_buf_refuse(&v,
			      err == DOCA_ERROR_NOT_PERMITTED || err == DOCA_ERROR_INVALID_VALUE ? SD_RDMA_POST_REFUSED
												 : SD_RDMA_POST_FAILED,
			      NULL, 0, (uint64_t)err, 0);
		log_refusal(rdma, "doca_task_submit", t, &v, false);
		task_release(t);
		/*
		 * Not the target's checks but the connection that cannot carry it (failed,
		 * ended, timed out; the RDMA connection may not know yet): at once, as above.
		 */
		if (v.why == SD_RDMA_POST_FAILED)
			sd_task_complete(task, err);
		else
			sd_task_fail_in_order(task, err);
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_task_validate(struct doca_task *task)
{
	struct sd_rdma_task *t = sd_rdma_task_from_task(task);
	struct doca_rdma *rdma = sd_rdma_from_ctx(sd_task_ctx(task));
	struct sd_buf_verdict v;

	if (validate(rdma, t, &v))
		return DOCA_SUCCESS;
	log_refusal(rdma, "doca_task_try_submit", t, &v, true);
	return sd_refusal_status(sd_rdma_refusals, &v);
}
