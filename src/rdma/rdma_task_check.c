/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks an RDMA task passes before it runs, one per family, and the
 * table of its refusals: the status each gives the task and the line that
 * names the rule and the fix (refusal.h; the buf faults' rows are Core's).
 * Shared by doca_task_submit() and doca_task_try_submit() (rdma_task.c).
 */
#include <inttypes.h>
#include <string.h>

#include "rdma_task_check.h"

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}
#define ROW_B(text)                                                                                                    \
	{                                                                                                              \
		DOCA_SUCCESS, true, (text)                                                                             \
	}
#define PEER_NO(flag)                                                                                                  \
	ROW(DOCA_ERROR_NOT_PERMITTED, "{api}: {task} task needs DOCA_ACCESS_FLAG_RDMA_" flag " on the peer's RDMA "    \
				      "context, which grants 0x{ax}; the peer must add it with "                       \
				      "doca_rdma_set_permissions() before starting")
#define EXPORT_NO(flag)                                                                                                \
	ROW(DOCA_ERROR_NOT_PERMITTED, "{api}: {task} task needs DOCA_ACCESS_FLAG_RDMA_" flag " on the exported "       \
				      "{what} mmap, which grants 0x{ax}; the exporter must add it with "               \
				      "doca_mmap_set_permissions() before doca_mmap_export_rdma()")
#define NO_BUF(what, setter)                                                                                           \
	ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task has no " what " buffer; set one with the task's " setter "(" \
				      ")")

const struct sd_refusal sd_rdma_refusals[SD_RDMA_NUM_REFUSALS] = {
	/* RDMA's own fix for a list too long; the other buf faults are Core's rows */
	[SD_BUF_LIST_TOO_LONG] = ROW(DOCA_ERROR_INVALID_VALUE,
				     "{api}: {task} task's {what} list has {a} segments, more than the {b} allowed; "
				     "raise doca_rdma_set_max_send_buf_list_len() / "
				     "doca_rdma_task_receive_set_dst_buf_list_len() or chain fewer buffers"),
	[SD_RDMA_NO_CONN] = ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task has no connection; give it one from "
							  "doca_rdma_export() / the CM callbacks"),
	[SD_RDMA_FOREIGN_CONN] =
		ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task's connection belongs to another RDMA context; use a "
					      "connection of the task's context"),
	[SD_RDMA_CONN_ENDED] = ROW_B("{api}: {task} task's connection {a} has failed or ended ({berr}); make a new "
				     "connection"),
	[SD_RDMA_NO_SRC] = NO_BUF("source", "set_src_buf"),
	[SD_RDMA_NO_DST] = NO_BUF("destination", "set_dst_buf"),
	[SD_RDMA_NO_RESULT] = NO_BUF("result", "set_result_buf"),
	[SD_RDMA_REMOTE_LIST] = ROW(DOCA_ERROR_INVALID_VALUE,
				    "{api}: {task} task's remote {what} is a list of {a} buffers; remote memory takes "
				    "one buffer (lists are for local memory)"),
	[SD_RDMA_NOT_LOCAL] = ROW(DOCA_ERROR_INVALID_VALUE,
				  "{api}: {task} task's {what} buffer is not local memory (mmap kind {a}); use a "
				  "buffer of a started local mmap"),
	[SD_RDMA_NOT_REMOTE] = ROW(DOCA_ERROR_INVALID_VALUE,
				   "{api}: {task} task's {what} buffer is not remote memory; take it from an mmap made "
				   "by doca_mmap_create_from_export() with the peer's doca_mmap_export_rdma() "
				   "descriptor"),
	[SD_RDMA_OTHER_DEVICE] = ROW(DOCA_ERROR_INVALID_VALUE,
				     "{api}: {task} task's remote {what} was imported on a device of another network "
				     "path than the context's; import it with the context's doca_dev"),
	[SD_RDMA_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
				"{api}: {task} task moves {a} bytes, more than the device's max message size {b}; "
				"split it (doca_rdma_cap_get_max_message_size)"),
	[SD_RDMA_SRC_SHORT] = ROW(DOCA_ERROR_INVALID_VALUE,
				  "{api}: {task} task's {what} holds {a} bytes of data, {b} are needed; set its data "
				  "window (doca_buf_set_data)"),
	[SD_RDMA_MISALIGNED] = ROW(DOCA_ERROR_INVALID_VALUE,
				   "{api}: {task} task's remote address 0x{ax} is not 8-byte aligned; atomics work on "
				   "aligned 64-bit words"),
	[SD_RDMA_NO_EVENT] =
		ROW(DOCA_ERROR_INVALID_VALUE, "{api}: {task} task has no remote sync event; import one with "
					      "doca_sync_event_remote_net_create_from_export()"),
	[SD_RDMA_PEER_NO_READ] = PEER_NO("READ"),
	[SD_RDMA_PEER_NO_WRITE] = PEER_NO("WRITE"),
	[SD_RDMA_PEER_NO_ATOMIC] = PEER_NO("ATOMIC"),
	[SD_RDMA_EXPORT_NO_READ] = EXPORT_NO("READ"),
	[SD_RDMA_EXPORT_NO_WRITE] = EXPORT_NO("WRITE"),
	[SD_RDMA_EXPORT_NO_ATOMIC] = EXPORT_NO("ATOMIC"),
	[SD_RDMA_POST_REFUSED] = ROW_B("{api}: {task} task refused by the remote access check: {berr} ({bdescr}); "
				       "stay inside the exported range and ask the exporter for the permission "
				       "(doca_mmap_set_permissions before doca_mmap_export_rdma)"),
	[SD_RDMA_POST_FAILED] = ROW_B("{api}: {task} task could not be posted on its connection: {berr} ({bdescr})"),
};
static_assert(SD_RDMA_NUM_REFUSALS <= 64, "the log-once rule keeps a bit per reason");

static bool
refuse(struct sd_buf_verdict *v, unsigned int why, const char *what, uint64_t a, uint64_t b)
{
	return sd_buf_refuse(v, why, what, a, b, 0);
}

static uint32_t
list_len(const struct doca_buf *buf)
{
	return sd_buf_is_head(buf) ? sd_buf_list_len(buf) : 1;
}

/* A local buffer (list): alive, local, inside its mmap; writable when it receives bytes. */
static bool
check_local(const struct doca_buf *buf, const char *what, uint32_t max_list, bool writable, struct sd_buf_verdict *v)
{
	if (!sd_buf_check_held(buf, what, v) || !sd_buf_check_list_len(list_len(buf), max_list, what, v))
		return false;
	for (const struct doca_buf *b = buf; b != NULL; b = sd_buf_next(b)) {
		if (sd_mmap_kind(sd_buf_mmap(b)) != SD_MMAP_LOCAL)
			return refuse(v, SD_RDMA_NOT_LOCAL, what, (uint64_t)sd_mmap_kind(sd_buf_mmap(b)), 0);
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
	if (list_len(buf) > 1 || sd_buf_next(buf) != NULL)
		return refuse(v, SD_RDMA_REMOTE_LIST, what, list_len(buf), 0);
	if (sd_mmap_kind(sd_buf_mmap(buf)) != SD_MMAP_RDMA_REMOTE || sd_mmap_remote(sd_buf_mmap(buf)) == NULL)
		return refuse(v, SD_RDMA_NOT_REMOTE, what, 0, 0);
	if (sd_rdma_remote_rmr(sd_buf_mmap(buf), &fdev) == NULL || fdev != rdma->fdev)
		return refuse(v, SD_RDMA_OTHER_DEVICE, what, 0, 0);
	if (!sd_mmap_contains(sd_buf_mmap(buf), sd_buf_head(buf), sd_buf_len(buf)))
		return refuse(v, SD_BUF_OUTSIDE_MMAP, what, 0, 0);
	/* The exporter's grant, as its descriptor states it (the fabric checks it again). */
	if ((sd_mmap_permissions(sd_buf_mmap(buf)) & need) != need)
		return refuse(v,
			      need == DOCA_ACCESS_FLAG_RDMA_READ    ? SD_RDMA_EXPORT_NO_READ
			      : need == DOCA_ACCESS_FLAG_RDMA_WRITE ? SD_RDMA_EXPORT_NO_WRITE
								    : SD_RDMA_EXPORT_NO_ATOMIC,
			      what, sd_mmap_permissions(sd_buf_mmap(buf)), need);
	return true;
}

static bool
check_conn(struct doca_rdma *rdma, const struct sd_rdma_task *t, uint32_t need, struct sd_buf_verdict *v)
{
	const struct doca_rdma_connection *conn = t->conn;

	if (conn == NULL)
		return refuse(v, SD_RDMA_NO_CONN, NULL, 0, 0);
	if (conn->rdma != rdma)
		return refuse(v, SD_RDMA_FOREIGN_CONN, NULL, 0, 0);
	if (conn->ep == NULL || conn->state == SD_RDMA_CONN_FAILED || conn->state == SD_RDMA_CONN_DISCONNECTED)
		return refuse(v, SD_RDMA_CONN_ENDED, NULL, conn->id,
			      (uint64_t)(conn->err != DOCA_SUCCESS ? conn->err : DOCA_ERROR_NOT_CONNECTED));
	/* the peer disconnected; only what was already in flight may still finish */
	if (conn->peer_left)
		return refuse(v, SD_RDMA_CONN_ENDED, NULL, conn->id, (uint64_t)DOCA_ERROR_CONNECTION_ABORTED);
	/* The peer context's permissions travel in its descriptor; unknown until connected. */
	if (need != 0 && conn->peer_known && (conn->peer_permissions & need) != need)
		return refuse(v,
			      need == DOCA_ACCESS_FLAG_RDMA_READ    ? SD_RDMA_PEER_NO_READ
			      : need == DOCA_ACCESS_FLAG_RDMA_WRITE ? SD_RDMA_PEER_NO_WRITE
								    : SD_RDMA_PEER_NO_ATOMIC,
			      NULL, conn->peer_permissions, 0);
	return true;
}

/* Room after data + data_len of an 8-byte result / destination. */
static bool
check_room8(const struct doca_buf *buf, const char *what, struct sd_buf_verdict *v)
{
	return sd_buf_check_held(buf, what, v) && sd_buf_check_room(sd_buf_tail_room(buf), 8, what, v);
}

/* ---- one check per family ---- */

bool
sd_rdma_check_receive(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (t->dst == NULL)
		return true;
	return check_local(t->dst, "destination", rdma->recv_buf_list_len, true, v);
}

/* The source's bytes fit one message of the device. */
static bool
check_msg_size(struct doca_rdma *rdma, uint64_t len, struct sd_buf_verdict *v)
{
	if (len > rdma->caps->rdma_max_message_size)
		return refuse(v, SD_RDMA_TOO_BIG, "source", len, rdma->caps->rdma_max_message_size);
	return true;
}

bool
sd_rdma_check_send(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (!check_conn(rdma, t, 0, v))
		return false;
	if (t->src == NULL)
		return true;
	if (!check_local(t->src, "source", rdma->max_send_buf_list_len, false, v))
		return false;
	return check_msg_size(rdma, sd_buf_list_data_len(t->src), v);
}

/* The connection grants need, and the task has both of its buffers. */
static bool
check_conn_src_dst(struct doca_rdma *rdma, const struct sd_rdma_task *t, uint32_t need, struct sd_buf_verdict *v)
{
	if (!check_conn(rdma, t, need, v))
		return false;
	if (t->src == NULL)
		return refuse(v, SD_RDMA_NO_SRC, "source", 0, 0);
	if (t->dst == NULL)
		return refuse(v, SD_RDMA_NO_DST, "destination", 0, 0);
	return true;
}

bool
sd_rdma_check_read(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (!check_conn_src_dst(rdma, t, DOCA_ACCESS_FLAG_RDMA_READ, v))
		return false;
	if (!check_remote(rdma, t->src, "source", DOCA_ACCESS_FLAG_RDMA_READ, v) ||
	    !check_local(t->dst, "destination", rdma->caps->rdma_max_recv_buf_list_len, true, v) ||
	    !check_msg_size(rdma, sd_buf_data_len(t->src), v))
		return false;
	return sd_buf_check_room(sd_buf_list_tail_room(t->dst), sd_buf_data_len(t->src), "destination", v);
}

bool
sd_rdma_check_write(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	uint64_t len;

	if (!check_conn_src_dst(rdma, t, DOCA_ACCESS_FLAG_RDMA_WRITE, v))
		return false;
	if (!check_local(t->src, "source", rdma->max_send_buf_list_len, false, v) ||
	    !check_remote(rdma, t->dst, "destination", DOCA_ACCESS_FLAG_RDMA_WRITE, v))
		return false;
	len = sd_buf_list_data_len(t->src);
	if (!check_msg_size(rdma, len, v))
		return false;
	return sd_buf_check_room(sd_buf_tail_room(t->dst), len, "destination", v);
}

bool
sd_rdma_check_atomic(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (!check_conn(rdma, t, DOCA_ACCESS_FLAG_RDMA_ATOMIC, v))
		return false;
	if (t->dst == NULL)
		return refuse(v, SD_RDMA_NO_DST, "destination", 0, 0);
	if (t->result == NULL)
		return refuse(v, SD_RDMA_NO_RESULT, "result", 0, 0);
	if (!check_remote(rdma, t->dst, "destination", DOCA_ACCESS_FLAG_RDMA_ATOMIC, v) ||
	    !check_local(t->result, "result", 1, true, v) || !check_room8(t->result, "result", v))
		return false;
	if (((uintptr_t)sd_buf_data(t->dst) & 7) != 0)
		return refuse(v, SD_RDMA_MISALIGNED, "destination", (uintptr_t)sd_buf_data(t->dst), 0);
	/* the word at data, whatever data_len says */
	return sd_buf_check_room((uint64_t)((sd_buf_head(t->dst) + sd_buf_len(t->dst)) - sd_buf_data(t->dst)), 8,
				 "destination", v);
}

/* A remote sync event task: the connection grants need and the task names an event. */
static bool
check_conn_event(struct doca_rdma *rdma, const struct sd_rdma_task *t, uint32_t need, struct sd_buf_verdict *v)
{
	if (!check_conn(rdma, t, need, v))
		return false;
	if (t->event == NULL)
		return refuse(v, SD_RDMA_NO_EVENT, NULL, 0, 0);
	return true;
}

bool
sd_rdma_check_se_get(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (!check_conn_event(rdma, t, DOCA_ACCESS_FLAG_RDMA_READ, v))
		return false;
	if (t->dst == NULL)
		return refuse(v, SD_RDMA_NO_DST, "destination", 0, 0);
	return check_local(t->dst, "destination", 1, true, v) && check_room8(t->dst, "destination", v);
}

bool
sd_rdma_check_se_notify_set(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (!check_conn_event(rdma, t, DOCA_ACCESS_FLAG_RDMA_WRITE, v))
		return false;
	if (t->src == NULL)
		return refuse(v, SD_RDMA_NO_SRC, "source", 0, 0);
	if (!check_local(t->src, "source", 1, false, v))
		return false;
	if (sd_buf_data_len(t->src) < 8)
		return refuse(v, SD_RDMA_SRC_SHORT, "source", sd_buf_data_len(t->src), 8);
	return true;
}

bool
sd_rdma_check_se_notify_add(struct doca_rdma *rdma, const struct sd_rdma_task *t, struct sd_buf_verdict *v)
{
	if (!check_conn_event(rdma, t, DOCA_ACCESS_FLAG_RDMA_WRITE, v))
		return false;
	if (t->result == NULL)
		return refuse(v, SD_RDMA_NO_RESULT, "result", 0, 0);
	return check_local(t->result, "result", 1, true, v) && check_room8(t->result, "result", v);
}
