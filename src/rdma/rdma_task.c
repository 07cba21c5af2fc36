/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running RDMA tasks: the validation shared by doca_task_submit() (a refusal
 * becomes the task's completion status, so the error reaches the error
 * callback as on hardware, after the tasks submitted before it) and doca_task_try_submit() (which returns it), the
 * translation of each family into fabric ops, buffer lists through a bounce
 * buffer, data placement at data + data_len, and completion.
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

#include "../core/buf_check.h"
#include "../core/sd_log.h"
#include "rdma_internal.h"

SD_LOG_REGISTER(rdma.task);

/*
 * Why a task cannot run; each has one log line naming the rule and the fix.
 * The buf faults RDMA shares with DMA come from buf_check.h.
 */
enum refusal {
	OK = SD_BUF_OK,
	BUF_RELEASED = SD_BUF_RELEASED,
	LIST_TOO_LONG = SD_BUF_LIST_TOO_LONG,
	OUTSIDE_MMAP = SD_BUF_OUTSIDE_MMAP,
	NO_LOCAL_WRITE = SD_BUF_NO_LOCAL_WRITE,
	DST_TOO_SMALL = SD_BUF_NO_ROOM,
	NO_CONN = SD_BUF_NUM_FAULTS,
	FOREIGN_CONN,
	CONN_ENDED,
	NO_BUF,
	REMOTE_LIST,
	NOT_LOCAL,
	NOT_REMOTE,
	OTHER_DEVICE,
	TOO_BIG,
	SRC_SHORT,
	MISALIGNED,
	NO_EVENT,
	PEER_NO_READ,
	PEER_NO_WRITE,
	PEER_NO_ATOMIC,
	EXPORT_NO_PERM,
	NUM_REFUSALS,
};

static const doca_error_t own_status[NUM_REFUSALS] = {
	[NO_CONN] = DOCA_ERROR_INVALID_VALUE,	     [FOREIGN_CONN] = DOCA_ERROR_INVALID_VALUE,
	[CONN_ENDED] = DOCA_ERROR_NOT_CONNECTED,     [NO_BUF] = DOCA_ERROR_INVALID_VALUE,
	[REMOTE_LIST] = DOCA_ERROR_INVALID_VALUE,    [NOT_LOCAL] = DOCA_ERROR_INVALID_VALUE,
	[NOT_REMOTE] = DOCA_ERROR_INVALID_VALUE,     [OTHER_DEVICE] = DOCA_ERROR_INVALID_VALUE,
	[TOO_BIG] = DOCA_ERROR_INVALID_VALUE,	     [SRC_SHORT] = DOCA_ERROR_INVALID_VALUE,
	[MISALIGNED] = DOCA_ERROR_INVALID_VALUE,     [NO_EVENT] = DOCA_ERROR_INVALID_VALUE,
	[PEER_NO_READ] = DOCA_ERROR_NOT_PERMITTED,   [PEER_NO_WRITE] = DOCA_ERROR_NOT_PERMITTED,
	[PEER_NO_ATOMIC] = DOCA_ERROR_NOT_PERMITTED, [EXPORT_NO_PERM] = DOCA_ERROR_NOT_PERMITTED,
};

/* The status of a refused task (CONN_ENDED carries the connection's own, in b). */
static doca_error_t
refusal_status(const struct sd_buf_verdict *v)
{
	if (v->why < SD_BUF_NUM_FAULTS)
		return sd_buf_fault_status((enum sd_buf_fault)v->why);
	return v->why == CONN_ENDED ? (doca_error_t)v->b : own_status[v->why];
}

static const char *const type_names[SD_RDMA_TASK_TYPES] = {
	[SD_RDMA_TASK_RECEIVE] = "receive",
	[SD_RDMA_TASK_SEND] = "send",
	[SD_RDMA_TASK_SEND_IMM] = "send_imm",
	[SD_RDMA_TASK_READ] = "read",
	[SD_RDMA_TASK_WRITE] = "write",
	[SD_RDMA_TASK_WRITE_IMM] = "write_imm",
	[SD_RDMA_TASK_ATOMIC_CMP_SWP] = "atomic_cmp_swp",
	[SD_RDMA_TASK_ATOMIC_FETCH_ADD] = "atomic_fetch_add",
	[SD_RDMA_TASK_SE_GET] = "remote_net_sync_event_get",
	[SD_RDMA_TASK_SE_NOTIFY_SET] = "remote_net_sync_event_notify_set",
	[SD_RDMA_TASK_SE_NOTIFY_ADD] = "remote_net_sync_event_notify_add",
};

static void
log_refusal(struct doca_rdma *rdma, const char *api, const struct sd_rdma_task *t, const struct sd_buf_verdict *v)
{
	const char *tn = type_names[t->type];

	/* doca_task_submit() refusals become completions: log each kind once per run at ERR. */
	if (api == NULL) {
		if (rdma->logged_refusals & (1ull << v->why)) {
			DOCA_LOG_DBG("%s task refused again (reason %d)", tn, (int)v->why);
			return;
		}
		rdma->logged_refusals |= 1ull << v->why;
		api = "doca_task_submit";
	}
	switch ((enum refusal)v->why) {
	case OK:
	case NUM_REFUSALS:
		break;
	case NO_CONN:
		DOCA_LOG_ERR("%s: %s task has no connection; give it one from doca_rdma_export() / the CM callbacks",
			     api, tn);
		break;
	case FOREIGN_CONN:
		DOCA_LOG_ERR("%s: %s task's connection belongs to another RDMA context; use a connection of the "
			     "task's context",
			     api, tn);
		break;
	case CONN_ENDED:
		DOCA_LOG_ERR("%s: %s task's connection %" PRIu64 " has failed or ended (%s); make a new connection",
			     api, tn, v->a, doca_error_get_name((doca_error_t)v->b));
		break;
	case NO_BUF:
		DOCA_LOG_ERR("%s: %s task has no %s buffer; set one with the task's set_%s_buf()", api, tn, v->what,
			     strcmp(v->what, "source") == 0   ? "src"
			     : strcmp(v->what, "result") == 0 ? "result"
							      : "dst");
		break;
	case BUF_RELEASED:
		DOCA_LOG_ERR("%s: %s task's %s buffer was released (refcount 0); give the task a buffer you hold", api,
			     tn, v->what);
		break;
	case LIST_TOO_LONG:
		DOCA_LOG_ERR("%s: %s task's %s list has %" PRIu64 " segments, more than the %" PRIu64
			     " allowed; raise doca_rdma_set_max_send_buf_list_len() / "
			     "doca_rdma_task_receive_set_dst_buf_list_len() or chain fewer buffers",
			     api, tn, v->what, v->a, v->b);
		break;
	case REMOTE_LIST:
		DOCA_LOG_ERR("%s: %s task's remote %s is a list of %" PRIu64 " buffers; remote memory takes one "
			     "buffer (lists are for local memory)",
			     api, tn, v->what, v->a);
		break;
	case NOT_LOCAL:
		DOCA_LOG_ERR("%s: %s task's %s buffer is not local memory (mmap kind %" PRIu64
			     "); use a buffer of a started local mmap",
			     api, tn, v->what, v->a);
		break;
	case NOT_REMOTE:
		DOCA_LOG_ERR("%s: %s task's %s buffer is not remote memory; take it from an mmap made by "
			     "doca_mmap_create_from_export() with the peer's doca_mmap_export_rdma() descriptor",
			     api, tn, v->what);
		break;
	case OTHER_DEVICE:
		DOCA_LOG_ERR("%s: %s task's remote %s was imported on a device of another network path than the "
			     "context's; import it with the context's doca_dev",
			     api, tn, v->what);
		break;
	case OUTSIDE_MMAP:
		DOCA_LOG_ERR("%s: %s task's %s buffer lies outside its mmap's range; take buffers inside the mmap", api,
			     tn, v->what);
		break;
	case NO_LOCAL_WRITE:
		DOCA_LOG_ERR("%s: %s task's %s mmap lacks DOCA_ACCESS_FLAG_LOCAL_READ_WRITE (permissions 0x%" PRIx64
			     "); set it with doca_mmap_set_permissions() before doca_mmap_start()",
			     api, tn, v->what, v->a);
		break;
	case TOO_BIG:
		DOCA_LOG_ERR("%s: %s task moves %" PRIu64 " bytes, more than the device's max message size %" PRIu64
			     "; split it (doca_rdma_cap_get_max_message_size)",
			     api, tn, v->a, v->b);
		break;
	case DST_TOO_SMALL:
		DOCA_LOG_ERR("%s: %s task's %s has room for %" PRIu64 " bytes after data + data_len, %" PRIu64
			     " are needed; use a larger buffer or reset its data_len",
			     api, tn, v->what, v->b, v->a);
		break;
	case SRC_SHORT:
		DOCA_LOG_ERR("%s: %s task's %s holds %" PRIu64 " bytes of data, %" PRIu64
			     " are needed; set its data window (doca_buf_set_data)",
			     api, tn, v->what, v->a, v->b);
		break;
	case MISALIGNED:
		DOCA_LOG_ERR("%s: %s task's remote address 0x%" PRIx64 " is not 8-byte aligned; atomics work on "
			     "aligned 64-bit words",
			     api, tn, v->a);
		break;
	case NO_EVENT:
		DOCA_LOG_ERR("%s: %s task has no remote sync event; import one with "
			     "doca_sync_event_remote_net_create_from_export()",
			     api, tn);
		break;
	case EXPORT_NO_PERM:
		DOCA_LOG_ERR("%s: %s task needs DOCA_ACCESS_FLAG_RDMA_%s on the exported %s mmap, which grants "
			     "0x%" PRIx64 "; the exporter must add it with doca_mmap_set_permissions() before "
			     "doca_mmap_export_rdma()",
			     api, tn,
			     v->b == DOCA_ACCESS_FLAG_RDMA_READ	   ? "READ"
			     : v->b == DOCA_ACCESS_FLAG_RDMA_WRITE ? "WRITE"
								   : "ATOMIC",
			     v->what, v->a);
		break;
	case PEER_NO_READ:
	case PEER_NO_WRITE:
	case PEER_NO_ATOMIC:
		DOCA_LOG_ERR("%s: %s task needs DOCA_ACCESS_FLAG_RDMA_%s on the peer's RDMA context, which grants "
			     "0x%" PRIx64 "; the peer must add it with doca_rdma_set_permissions() before starting",
			     api, tn,
			     v->why == PEER_NO_READ    ? "READ"
			     : v->why == PEER_NO_WRITE ? "WRITE"
						       : "ATOMIC",
			     v->a);
		break;
	}
}

static bool
refuse(struct sd_buf_verdict *v, enum refusal why, const char *what, uint64_t a, uint64_t b)
{
	return sd_buf_refuse(v, why, what, a, b, 0);
}

static uint32_t
list_len(const struct doca_buf *buf)
{
	return buf->is_head ? buf->list_len : 1;
}

/* A local buffer (list): alive, local, inside its mmap; writable when it receives bytes. */
static bool
check_local(const struct doca_buf *buf, const char *what, uint32_t max_list, bool writable, struct sd_buf_verdict *v)
{
	if (!sd_buf_check_held(buf, what, v) || !sd_buf_check_list_len(list_len(buf), max_list, what, v))
		return false;
	for (const struct doca_buf *b = buf; b != NULL; b = b->next) {
		if (b->mmap->kind != SD_MMAP_LOCAL)
			return refuse(v, NOT_LOCAL, what, (uint64_t)b->mmap->kind, 0);
		if (!sd_buf_check_seg(b, writable, what, v))
			return false;
	}
	return true;
}

static bool
check_remote(struct doca_rdma *rdma, const struct doca_buf *buf, const char *what, uint32_t need,
	     struct sd_buf_verdict *v)
{
	struct fabric_dev *fdev = NULL;

	if (!sd_buf_check_held(buf, what, v))
		return false;
	if (list_len(buf) > 1 || buf->next != NULL)
		return refuse(v, REMOTE_LIST, what, list_len(buf), 0);
	if (buf->mmap->kind != SD_MMAP_RDMA_REMOTE || buf->mmap->remote == NULL)
		return refuse(v, NOT_REMOTE, what, 0, 0);
	if (sd_rdma_remote_rmr(buf->mmap, &fdev) == NULL || fdev != rdma->fdev)
		return refuse(v, OTHER_DEVICE, what, 0, 0);
	if (!sd_mmap_contains(buf->mmap, buf->head, buf->len))
		return refuse(v, OUTSIDE_MMAP, what, 0, 0);
	/* The exporter's grant, as its descriptor states it (the fabric checks it again). */
	if ((buf->mmap->permissions & need) != need)
		return refuse(v, EXPORT_NO_PERM, what, buf->mmap->permissions, need);
	return true;
}

static bool
check_conn(struct doca_rdma *rdma, const struct sd_rdma_task *t, uint32_t need, struct sd_buf_verdict *v)
{
	const struct doca_rdma_connection *conn = t->conn;

	if (conn == NULL)
		return refuse(v, NO_CONN, NULL, 0, 0);
	if (conn->rdma != rdma)
		return refuse(v, FOREIGN_CONN, NULL, 0, 0);
	if (conn->ep == NULL || conn->state == SD_RDMA_CONN_FAILED || conn->state == SD_RDMA_CONN_DISCONNECTED)
		return refuse(v, CONN_ENDED, NULL, conn->id,
			      (uint64_t)(conn->err != DOCA_SUCCESS ? conn->err : DOCA_ERROR_NOT_CONNECTED));
	/* the peer disconnected; only what was already in flight may still finish */
	if (conn->peer_left)
		return refuse(v, CONN_ENDED, NULL, conn->id, (uint64_t)DOCA_ERROR_CONNECTION_ABORTED);
	/* The peer context's permissions travel in its descriptor; unknown until connected. */
	if (need != 0 && conn->peer_known && (conn->peer_permissions & need) != need)
		return refuse(v,
			      need == DOCA_ACCESS_FLAG_RDMA_READ    ? PEER_NO_READ
			      : need == DOCA_ACCESS_FLAG_RDMA_WRITE ? PEER_NO_WRITE
								    : PEER_NO_ATOMIC,
			      NULL, conn->peer_permissions, 0);
	return true;
}

/* Room after data + data_len of an 8-byte result / destination. */
static bool
check_room8(const struct doca_buf *buf, const char *what, struct sd_buf_verdict *v)
{
	return sd_buf_check_held(buf, what, v) && sd_buf_check_room(sd_buf_tail_room(buf), 8, what, v);
}

/* Inlined: the call cost showed in an 8-byte ping-pong (two submits a round trip). */
static inline __attribute__((always_inline)) bool
validate(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	const struct sd_dev_caps *caps = rdma->caps;
	uint64_t len;

	v->why = OK;
	switch (t->type) {
	case SD_RDMA_TASK_RECEIVE:
		if (t->dst == NULL)
			return true;
		return check_local(t->dst, "destination", rdma->recv_buf_list_len, true, v);
	case SD_RDMA_TASK_SEND:
	case SD_RDMA_TASK_SEND_IMM:
		if (!check_conn(rdma, t, 0, v))
			return false;
		if (t->src == NULL)
			return true;
		if (!check_local(t->src, "source", rdma->max_send_buf_list_len, false, v))
			return false;
		len = sd_buf_list_data_len(t->src);
		if (len > caps->rdma_max_message_size)
			return refuse(v, TOO_BIG, "source", len, caps->rdma_max_message_size);
		return true;
	case SD_RDMA_TASK_READ:
		if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_READ, v))
			return false;
		if (t->src == NULL)
			return refuse(v, NO_BUF, "source", 0, 0);
		if (t->dst == NULL)
			return refuse(v, NO_BUF, "destination", 0, 0);
		if (!check_remote(rdma, t->src, "source", DOCA_ACCESS_FLAG_RDMA_READ, v) ||
		    !check_local(t->dst, "destination", caps->rdma_max_recv_buf_list_len, true, v))
			return false;
		len = t->src->data_len;
		if (len > caps->rdma_max_message_size)
			return refuse(v, TOO_BIG, "source", len, caps->rdma_max_message_size);
		return sd_buf_check_room(sd_buf_list_tail_room(t->dst), len, "destination", v);
	case SD_RDMA_TASK_WRITE:
	case SD_RDMA_TASK_WRITE_IMM:
		if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_WRITE, v))
			return false;
		if (t->src == NULL)
			return refuse(v, NO_BUF, "source", 0, 0);
		if (t->dst == NULL)
			return refuse(v, NO_BUF, "destination", 0, 0);
		if (!check_local(t->src, "source", rdma->max_send_buf_list_len, false, v) ||
		    !check_remote(rdma, t->dst, "destination", DOCA_ACCESS_FLAG_RDMA_WRITE, v))
			return false;
		len = sd_buf_list_data_len(t->src);
		if (len > caps->rdma_max_message_size)
			return refuse(v, TOO_BIG, "source", len, caps->rdma_max_message_size);
		return sd_buf_check_room(sd_buf_tail_room(t->dst), len, "destination", v);
	case SD_RDMA_TASK_ATOMIC_CMP_SWP:
	case SD_RDMA_TASK_ATOMIC_FETCH_ADD:
		if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_ATOMIC, v))
			return false;
		if (t->dst == NULL)
			return refuse(v, NO_BUF, "destination", 0, 0);
		if (t->result == NULL)
			return refuse(v, NO_BUF, "result", 0, 0);
		if (!check_remote(rdma, t->dst, "destination", DOCA_ACCESS_FLAG_RDMA_ATOMIC, v) ||
		    !check_local(t->result, "result", 1, true, v) || !check_room8(t->result, "result", v))
			return false;
		if (((uintptr_t)t->dst->data & 7) != 0)
			return refuse(v, MISALIGNED, "destination", (uintptr_t)t->dst->data, 0);
		/* the word at data, whatever data_len says */
		return sd_buf_check_room((uint64_t)((t->dst->head + t->dst->len) - t->dst->data), 8, "destination", v);
	case SD_RDMA_TASK_SE_GET:
		if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_READ, v))
			return false;
		if (t->event == NULL)
			return refuse(v, NO_EVENT, NULL, 0, 0);
		if (t->dst == NULL)
			return refuse(v, NO_BUF, "destination", 0, 0);
		return check_local(t->dst, "destination", 1, true, v) && check_room8(t->dst, "destination", v);
	case SD_RDMA_TASK_SE_NOTIFY_SET:
		if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_WRITE, v))
			return false;
		if (t->event == NULL)
			return refuse(v, NO_EVENT, NULL, 0, 0);
		if (t->src == NULL)
			return refuse(v, NO_BUF, "source", 0, 0);
		if (!check_local(t->src, "source", 1, false, v))
			return false;
		if (t->src->data_len < 8)
			return refuse(v, SRC_SHORT, "source", t->src->data_len, 8);
		return true;
	case SD_RDMA_TASK_SE_NOTIFY_ADD:
		if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_WRITE, v))
			return false;
		if (t->event == NULL)
			return refuse(v, NO_EVENT, NULL, 0, 0);
		if (t->result == NULL)
			return refuse(v, NO_BUF, "result", 0, 0);
		return check_local(t->result, "result", 1, true, v) && check_room8(t->result, "result", v);
	case SD_RDMA_TASK_TYPES:
		break;
	}
	return true;
}

/* ---- placement ---- */

/* Copy a list's data windows into dst (gather). */
static void
gather(const struct doca_buf *buf, uint8_t *dst)
{
	for (; buf != NULL; buf = buf->next) {
		memcpy(dst, buf->data, buf->data_len);
		dst += buf->data_len;
	}
}

/* Append len bytes at data + data_len, segment after segment (scatter). */
static void
scatter(struct doca_buf *buf, const uint8_t *src, size_t len)
{
	for (; buf != NULL && len > 0; buf = buf->next) {
		size_t n = SD_MIN((size_t)sd_buf_tail_room(buf), len);

		if (src != NULL)
			memcpy(buf->data + buf->data_len, src, n);
		buf->data_len += n;
		src = src != NULL ? src + n : NULL;
		len -= n;
	}
}

static void
append8(struct doca_buf *buf, uint64_t value)
{
	memcpy(buf->data + buf->data_len, &value, 8);
	buf->data_len += 8;
}

/* ---- pins ---- */

static void
pin(struct sd_rdma_task *t, struct doca_buf *buf)
{
	if (buf == NULL || t->num_pinned >= SD_ARRAY_SIZE(t->pinned))
		return;
	sd_mmap_pin(buf->mmap);
	t->pinned[t->num_pinned++] = buf->mmap;
}

static void
unpin_all(struct sd_rdma_task *t)
{
	while (t->num_pinned > 0)
		sd_mmap_unpin(t->pinned[--t->num_pinned]);
}

/* ---- completion ---- */

static void task_finish(struct sd_rdma_task *t, doca_error_t status);

static doca_error_t
post_cmp_swp_event(struct sd_rdma_task *t)
{
	struct doca_sync_event_remote_net *ev = t->event;

	return sd_fabric_ep_cmp_swp(t->conn->ep, &t->op, ev->rmr, ev->addr, t->operand[0], t->operand[1],
				    &t->atomic_old);
}

static void
op_done(struct fabric_op *op)
{
	struct sd_rdma_task *t = sd_container_of(op, struct sd_rdma_task, op);
	struct doca_rdma *rdma = sd_rdma_from_ctx(t->task.ctx);
	doca_error_t status = op->status;

	if (status == DOCA_ERROR_CONNECTION_ABORTED) {
		/* The endpoint was torn down: a stop flushes, a lost connection says why. */
		if (rdma->tearing_down || rdma->ctx.state == DOCA_CTX_STATE_STOPPING)
			status = SD_TASK_FLUSH_STATUS;
		else if (t->conn != NULL && t->conn->err != DOCA_SUCCESS)
			status = t->conn->err;
	}
	if (status != DOCA_SUCCESS) {
		task_finish(t, status);
		return;
	}
	switch (t->type) {
	case SD_RDMA_TASK_RECEIVE:
		t->result_len = op->len;
		t->result_opcode = (enum doca_rdma_opcode)op->opcode;
		t->result_imm = op->imm;
		t->result_conn = op->src_user;
		/* write_imm: the bytes are already in place; its length is not ours to append. */
		if (t->dst == NULL || t->result_opcode == DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM)
			break;
		/* One segment received in place: post() offered at most its tail room. */
		if (t->bounce == NULL && t->dst->next == NULL)
			t->dst->data_len += op->len;
		else
			scatter(t->dst, t->bounce, op->len);
		break;
	case SD_RDMA_TASK_READ:
		t->result_len = op->len;
		scatter(t->dst, t->bounce, op->len);
		break;
	case SD_RDMA_TASK_WRITE:
	case SD_RDMA_TASK_WRITE_IMM:
		t->dst->data_len += t->op.buf_len;
		break;
	case SD_RDMA_TASK_ATOMIC_CMP_SWP:
	case SD_RDMA_TASK_ATOMIC_FETCH_ADD:
		append8(t->result, t->atomic_old);
		break;
	case SD_RDMA_TASK_SE_NOTIFY_ADD:
		append8(t->result, t->atomic_old);
		sd_fabric_ep_notify_changed(t->conn->ep, t->event->rmr, t->event->addr);
		break;
	case SD_RDMA_TASK_SE_GET:
		t->event->last = t->atomic_old;
		append8(t->dst, t->atomic_old);
		t->result_len = 8;
		break;
	case SD_RDMA_TASK_SE_NOTIFY_SET:
		if (t->atomic_old != t->operand[0]) {
			/* Lost the race (or guessed wrong): compare against what is there now. */
			t->operand[0] = t->atomic_old;
			if (rdma->tearing_down || t->conn->ep == NULL) {
				status = SD_TASK_FLUSH_STATUS;
				break;
			}
			status = post_cmp_swp_event(t);
			if (status == DOCA_SUCCESS)
				return;
			break;
		}
		t->event->last = t->operand[1];
		/* the exporter's wait tasks re-check (a sleeping PE wakes) */
		sd_fabric_ep_notify_changed(t->conn->ep, t->event->rmr, t->event->addr);
		break;
	default:
		break;
	}
	task_finish(t, status);
}

/* Give back what submit took for the task (bounce buffer, pins, counts). */
static void
task_release(struct sd_rdma_task *t)
{
	struct doca_rdma *rdma = sd_rdma_from_ctx(t->task.ctx);

	if (t->bounce != NULL) {
		free(t->bounce);
		t->bounce = NULL;
		t->bounce_len = 0;
	}
	unpin_all(t);
	if (t->event != NULL && (t->type == SD_RDMA_TASK_SE_GET || t->type == SD_RDMA_TASK_SE_NOTIFY_SET ||
				 t->type == SD_RDMA_TASK_SE_NOTIFY_ADD)) {
		/*
		 * A count that would wrap means a task finished twice: say so
		 * instead of leaving the event undestroyable (IN_USE forever).
		 */
		if (t->event->inflight == 0)
			DOCA_LOG_ERR("Internal error: %s task %p finished with no task counted on its remote sync "
				     "event; please report",
				     type_names[t->type], (void *)t);
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

static doca_error_t
post(struct doca_rdma *rdma, struct sd_rdma_task *t)
{
	struct fabric_ep *ep = t->conn != NULL ? t->conn->ep : NULL;
	struct fabric_dev *fdev;
	struct fabric_rmr *rmr;
	const uint8_t *src = NULL;
	uint8_t *dst;
	size_t len = 0;
	doca_error_t err;

	switch (t->type) {
	case SD_RDMA_TASK_RECEIVE:
		if (t->dst == NULL)
			return sd_fabric_ctx_post_recv(rdma->fctx, &t->op, NULL, 0);
		len = SD_MIN(sd_buf_list_tail_room(t->dst), (size_t)rdma->caps->rdma_max_message_size);
		if (t->dst->next == NULL)
			return sd_fabric_ctx_post_recv(rdma->fctx, &t->op, t->dst->data + t->dst->data_len, len);
		err = bounce_alloc(t, len);
		if (err != DOCA_SUCCESS)
			return err;
		return sd_fabric_ctx_post_recv(rdma->fctx, &t->op, t->bounce, len);
	case SD_RDMA_TASK_SEND:
	case SD_RDMA_TASK_SEND_IMM:
	case SD_RDMA_TASK_WRITE:
	case SD_RDMA_TASK_WRITE_IMM:
		if (t->src != NULL) {
			len = sd_buf_list_data_len(t->src);
			src = t->src->data;
			if (t->src->next != NULL) {
				err = bounce_alloc(t, len);
				if (err != DOCA_SUCCESS)
					return err;
				gather(t->src, t->bounce);
				src = t->bounce;
			}
		}
		if (len == 0)
			src = NULL;
		if (t->type == SD_RDMA_TASK_SEND)
			return sd_fabric_ep_send(ep, &t->op, src, len);
		if (t->type == SD_RDMA_TASK_SEND_IMM)
			return sd_fabric_ep_send_imm(ep, &t->op, src, len, t->imm);
		rmr = sd_rdma_remote_rmr(t->dst->mmap, &fdev);
		if (t->type == SD_RDMA_TASK_WRITE)
			return sd_fabric_ep_write(ep, &t->op, src, len, rmr,
						  (uint64_t)(uintptr_t)(t->dst->data + t->dst->data_len));
		return sd_fabric_ep_write_imm(ep, &t->op, src, len, rmr,
					      (uint64_t)(uintptr_t)(t->dst->data + t->dst->data_len), t->imm);
	case SD_RDMA_TASK_READ:
		len = t->src->data_len;
		rmr = sd_rdma_remote_rmr(t->src->mmap, &fdev);
		if (t->dst->next == NULL) {
			dst = t->dst->data + t->dst->data_len;
		} else {
			err = bounce_alloc(t, len);
			if (err != DOCA_SUCCESS)
				return err;
			dst = t->bounce;
		}
		return sd_fabric_ep_read(ep, &t->op, len ? dst : NULL, len, rmr, (uint64_t)(uintptr_t)t->src->data);
	case SD_RDMA_TASK_ATOMIC_CMP_SWP:
		rmr = sd_rdma_remote_rmr(t->dst->mmap, &fdev);
		return sd_fabric_ep_cmp_swp(ep, &t->op, rmr, (uint64_t)(uintptr_t)t->dst->data, t->operand[0],
					    t->operand[1], &t->atomic_old);
	case SD_RDMA_TASK_ATOMIC_FETCH_ADD:
		rmr = sd_rdma_remote_rmr(t->dst->mmap, &fdev);
		return sd_fabric_ep_fetch_add(ep, &t->op, rmr, (uint64_t)(uintptr_t)t->dst->data, t->operand[0],
					      &t->atomic_old);
	case SD_RDMA_TASK_SE_GET:
		/* An atomic read: fetch-and-add 0 never tears against the owner's updates. */
		return sd_fabric_ep_fetch_add(ep, &t->op, t->event->rmr, t->event->addr, 0, &t->atomic_old);
	case SD_RDMA_TASK_SE_NOTIFY_SET: {
		uint64_t value;

		memcpy(&value, t->src->data, sizeof(value));
		/* compare-and-swap from the last value seen until it sticks */
		t->operand[0] = t->event->last;
		t->operand[1] = value;
		return post_cmp_swp_event(t);
	}
	case SD_RDMA_TASK_SE_NOTIFY_ADD:
		return sd_fabric_ep_fetch_add(ep, &t->op, t->event->rmr, t->event->addr, t->operand[0], &t->atomic_old);
	case SD_RDMA_TASK_TYPES:
		break;
	}
	return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t
sd_rdma_task_submit(struct doca_task *task)
{
	struct sd_rdma_task *t = sd_rdma_task_from_task(task);
	struct doca_rdma *rdma = sd_rdma_from_ctx(task->ctx);
	struct sd_buf_verdict v;
	doca_error_t err;

	if (sd_unlikely(!validate(rdma, t, &v))) {
		log_refusal(rdma, NULL, t, &v);
		/*
		 * Hardware takes the work request and fails it when it executes: the
		 * error callback runs after those of every task submitted before it.
		 */
		sd_task_fail_in_order(task, refusal_status(&v));
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
	if (t->event != NULL && (t->type == SD_RDMA_TASK_SE_GET || t->type == SD_RDMA_TASK_SE_NOTIFY_SET ||
				 t->type == SD_RDMA_TASK_SE_NOTIFY_ADD))
		t->event->inflight++;
	rdma->inflight++;
	err = post(rdma, t);
	if (err != DOCA_SUCCESS) {
		/* The fabric's own checks (exported range and permission): an error completion. */
		if (err == DOCA_ERROR_NOT_CONNECTED && t->conn != NULL && t->conn->err != DOCA_SUCCESS)
			err = t->conn->err;
		if (!(rdma->logged_refusals & (1ull << 63))) {
			rdma->logged_refusals |= 1ull << 63;
			if (err == DOCA_ERROR_NOT_PERMITTED || err == DOCA_ERROR_INVALID_VALUE)
				DOCA_LOG_ERR("doca_task_submit: %s task refused by the remote access check: %s (%s); "
					     "stay inside the exported range and ask the exporter for the permission "
					     "(doca_mmap_set_permissions before doca_mmap_export_rdma)",
					     type_names[t->type], doca_error_get_name(err), doca_error_get_descr(err));
			else
				DOCA_LOG_ERR("doca_task_submit: %s task could not be posted on its connection: %s (%s)",
					     type_names[t->type], doca_error_get_name(err), doca_error_get_descr(err));
		}
		task_release(t);
		sd_task_fail_in_order(task, err);
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_rdma_task_validate(struct doca_task *task)
{
	struct sd_rdma_task *t = sd_rdma_task_from_task(task);
	struct doca_rdma *rdma = sd_rdma_from_ctx(task->ctx);
	struct sd_buf_verdict v;

	if (validate(rdma, t, &v))
		return DOCA_SUCCESS;
	log_refusal(rdma, "doca_task_try_submit", t, &v);
	return refusal_status(&v);
}
