/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-family task API of doca_rdma.h: set_conf, allocate_init, as_task and
 * the field accessors of the eleven families.  Every family is a struct
 * sd_rdma_task (rdma_internal.h); what a task does is in rdma_task.c.  The
 * functions are stamped out by the macros below so that the eleven families
 * cannot drift apart.
 */
#include "../core/sd_core.h"
#include "rdma_internal.h"

SD_LOG_REGISTER(rdma.task_api);

static doca_error_t
conf(struct doca_rdma *rdma, enum sd_rdma_task_type type, const char *name, doca_task_completion_cb_t ok,
     doca_task_completion_cb_t err, uint32_t num_tasks, const char *api)
{
	uint32_t max;

	if (rdma == NULL) {
		DOCA_LOG_ERR("%s: rdma is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	max = type == SD_RDMA_TASK_RECEIVE ? rdma->caps->rdma_max_recv_queue_size
					   : rdma->caps->rdma_max_send_queue_size;
	return sd_task_pool_configure(&rdma->ctx, &rdma->pools[type], name, sizeof(struct sd_rdma_task), num_tasks, max,
				      ok, err, api);
}

/* Take a task of the family from its pool and clear what the previous use left. */
static doca_error_t
alloc(struct doca_rdma *rdma, enum sd_rdma_task_type type, union doca_data user_data, void *out, const char *api,
      struct sd_rdma_task **task)
{
	struct doca_task *dt;
	struct sd_rdma_task *t;
	doca_error_t err;

	if (rdma == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (rdma %p, task %p)", api, (void *)rdma, out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(rdma->pools[type], user_data, api, &dt);
	if (err != DOCA_SUCCESS)
		return err;
	t = sd_rdma_task_from_task(dt);
	t->type = type;
	t->conn = NULL;
	t->src = NULL;
	t->dst = NULL;
	t->result = NULL;
	t->event = NULL;
	t->operand[0] = 0;
	t->operand[1] = 0;
	t->imm = 0;
	t->result_len = 0;
	t->result_opcode = DOCA_RDMA_OPCODE_RECV_SEND;
	t->result_imm = 0;
	t->result_conn = NULL;
	t->bounce = NULL;
	t->bounce_len = 0;
	t->num_pinned = 0;
	*task = t;
	return DOCA_SUCCESS;
}

static struct sd_rdma_task *
task_of(const void *task, const char *api)
{
	if (task == NULL)
		DOCA_LOG_ERR("%s: task is NULL", api);
	return (struct sd_rdma_task *)(uintptr_t)task;
}

/* set_conf + as_task + (connection accessors) of family NAME (enum TYPE). */
#define FAMILY(NAME, TYPE)                                                                                             \
	DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_##NAME##_set_conf(                                               \
		struct doca_rdma *rdma, doca_rdma_task_##NAME##_completion_cb_t ok_cb,                                 \
		doca_rdma_task_##NAME##_completion_cb_t err_cb, uint32_t num_tasks)                                    \
	{                                                                                                              \
		return conf(rdma, TYPE, #NAME, SD_TASK_CB(ok_cb), SD_TASK_CB(err_cb), num_tasks,                       \
			    "doca_rdma_task_" #NAME "_set_conf");                                                      \
	}                                                                                                              \
	DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_##NAME##_as_task(struct doca_rdma_task_##NAME *task)        \
	{                                                                                                              \
		struct sd_rdma_task *t = task_of(task, "doca_rdma_task_" #NAME "_as_task");                            \
		return t != NULL ? &t->task : NULL;                                                                    \
	}

#define CONN_ACCESSORS(NAME)                                                                                           \
	DOCA_EXPERIMENTAL void doca_rdma_task_##NAME##_set_rdma_connection(struct doca_rdma_task_##NAME *task,         \
									   struct doca_rdma_connection *conn)          \
	{                                                                                                              \
		struct sd_rdma_task *t = task_of(task, "doca_rdma_task_" #NAME "_set_rdma_connection");                \
		if (t != NULL)                                                                                         \
			t->conn = conn;                                                                                \
	}                                                                                                              \
	DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_##NAME##_get_rdma_connection(              \
		const struct doca_rdma_task_##NAME *task)                                                              \
	{                                                                                                              \
		struct sd_rdma_task *t = task_of(task, "doca_rdma_task_" #NAME "_get_rdma_connection");                \
		return t != NULL ? t->conn : NULL;                                                                     \
	}

/* A settable field: setter stores (casting const away), getter returns it (0 for NULL). */
#define FIELD(NAME, FIELD_NAME, SET_T, GET_T, MEMBER, CAST)                                                            \
	DOCA_EXPERIMENTAL void doca_rdma_task_##NAME##_set_##FIELD_NAME(struct doca_rdma_task_##NAME *task, SET_T v)   \
	{                                                                                                              \
		struct sd_rdma_task *t = task_of(task, "doca_rdma_task_" #NAME "_set_" #FIELD_NAME);                   \
		if (t != NULL)                                                                                         \
			t->MEMBER = CAST v;                                                                            \
	}                                                                                                              \
	DOCA_EXPERIMENTAL GET_T doca_rdma_task_##NAME##_get_##FIELD_NAME(const struct doca_rdma_task_##NAME *task)     \
	{                                                                                                              \
		struct sd_rdma_task *t = task_of(task, "doca_rdma_task_" #NAME "_get_" #FIELD_NAME);                   \
		return t != NULL ? (GET_T)t->MEMBER : (GET_T)0;                                                        \
	}

FAMILY(receive, SD_RDMA_TASK_RECEIVE)
FIELD(receive, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf, union doca_data user_data,
				     struct doca_rdma_task_receive **task)
{
	struct sd_rdma_task *t;
	doca_error_t err =
		alloc(rdma, SD_RDMA_TASK_RECEIVE, user_data, task, "doca_rdma_task_receive_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	*task = (struct doca_rdma_task_receive *)t;
	return DOCA_SUCCESS;
}

FAMILY(send, SD_RDMA_TASK_SEND)
CONN_ACCESSORS(send)
FIELD(send, src_buf, const struct doca_buf *, const struct doca_buf *, src, (struct doca_buf *)(uintptr_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_send_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
				  const struct doca_buf *src_buf, union doca_data user_data,
				  struct doca_rdma_task_send **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_SEND, user_data, task, "doca_rdma_task_send_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->src = (struct doca_buf *)(uintptr_t)src_buf;
	*task = (struct doca_rdma_task_send *)t;
	return DOCA_SUCCESS;
}

FAMILY(send_imm, SD_RDMA_TASK_SEND_IMM)
CONN_ACCESSORS(send_imm)
FIELD(send_imm, src_buf, const struct doca_buf *, const struct doca_buf *, src, (struct doca_buf *)(uintptr_t))
FIELD(send_imm, immediate_data, doca_be32_t, doca_be32_t, imm, (uint32_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_send_imm_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
				      const struct doca_buf *src_buf, doca_be32_t immediate_data,
				      union doca_data user_data, struct doca_rdma_task_send_imm **task)
{
	struct sd_rdma_task *t;
	doca_error_t err =
		alloc(rdma, SD_RDMA_TASK_SEND_IMM, user_data, task, "doca_rdma_task_send_imm_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->src = (struct doca_buf *)(uintptr_t)src_buf;
	t->imm = (uint32_t)immediate_data;
	*task = (struct doca_rdma_task_send_imm *)t;
	return DOCA_SUCCESS;
}

FAMILY(read, SD_RDMA_TASK_READ)
CONN_ACCESSORS(read)
FIELD(read, src_buf, const struct doca_buf *, const struct doca_buf *, src, (struct doca_buf *)(uintptr_t))
FIELD(read, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_read_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
				  const struct doca_buf *src_buf, struct doca_buf *dst_buf, union doca_data user_data,
				  struct doca_rdma_task_read **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_READ, user_data, task, "doca_rdma_task_read_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->src = (struct doca_buf *)(uintptr_t)src_buf;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	*task = (struct doca_rdma_task_read *)t;
	return DOCA_SUCCESS;
}

FAMILY(write, SD_RDMA_TASK_WRITE)
CONN_ACCESSORS(write)
FIELD(write, src_buf, const struct doca_buf *, const struct doca_buf *, src, (struct doca_buf *)(uintptr_t))
FIELD(write, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_write_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
				   const struct doca_buf *src_buf, struct doca_buf *dst_buf, union doca_data user_data,
				   struct doca_rdma_task_write **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_WRITE, user_data, task, "doca_rdma_task_write_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->src = (struct doca_buf *)(uintptr_t)src_buf;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	*task = (struct doca_rdma_task_write *)t;
	return DOCA_SUCCESS;
}

FAMILY(write_imm, SD_RDMA_TASK_WRITE_IMM)
CONN_ACCESSORS(write_imm)
FIELD(write_imm, src_buf, const struct doca_buf *, const struct doca_buf *, src, (struct doca_buf *)(uintptr_t))
FIELD(write_imm, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))
FIELD(write_imm, immediate_data, doca_be32_t, doca_be32_t, imm, (uint32_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_write_imm_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
				       const struct doca_buf *src_buf, struct doca_buf *dst_buf,
				       doca_be32_t immediate_data, union doca_data user_data,
				       struct doca_rdma_task_write_imm **task)
{
	struct sd_rdma_task *t;
	doca_error_t err =
		alloc(rdma, SD_RDMA_TASK_WRITE_IMM, user_data, task, "doca_rdma_task_write_imm_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->src = (struct doca_buf *)(uintptr_t)src_buf;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	t->imm = (uint32_t)immediate_data;
	*task = (struct doca_rdma_task_write_imm *)t;
	return DOCA_SUCCESS;
}

FAMILY(atomic_cmp_swp, SD_RDMA_TASK_ATOMIC_CMP_SWP)
CONN_ACCESSORS(atomic_cmp_swp)
FIELD(atomic_cmp_swp, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))
FIELD(atomic_cmp_swp, result_buf, struct doca_buf *, struct doca_buf *, result, (struct doca_buf *)(uintptr_t))
FIELD(atomic_cmp_swp, cmp_data, uint64_t, uint64_t, operand[0], (uint64_t))
FIELD(atomic_cmp_swp, swap_data, uint64_t, uint64_t, operand[1], (uint64_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_atomic_cmp_swp_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
					    struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t cmp_data,
					    uint64_t swap_data, union doca_data user_data,
					    struct doca_rdma_task_atomic_cmp_swp **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_ATOMIC_CMP_SWP, user_data, task,
				 "doca_rdma_task_atomic_cmp_swp_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	t->result = (struct doca_buf *)(uintptr_t)result_buf;
	t->operand[0] = cmp_data;
	t->operand[1] = swap_data;
	*task = (struct doca_rdma_task_atomic_cmp_swp *)t;
	return DOCA_SUCCESS;
}

FAMILY(atomic_fetch_add, SD_RDMA_TASK_ATOMIC_FETCH_ADD)
CONN_ACCESSORS(atomic_fetch_add)
FIELD(atomic_fetch_add, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))
FIELD(atomic_fetch_add, result_buf, struct doca_buf *, struct doca_buf *, result, (struct doca_buf *)(uintptr_t))
FIELD(atomic_fetch_add, add_data, uint64_t, uint64_t, operand[0], (uint64_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_atomic_fetch_add_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
					      struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t add_data,
					      union doca_data user_data, struct doca_rdma_task_atomic_fetch_add **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_ATOMIC_FETCH_ADD, user_data, task,
				 "doca_rdma_task_atomic_fetch_add_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	t->result = (struct doca_buf *)(uintptr_t)result_buf;
	t->operand[0] = add_data;
	*task = (struct doca_rdma_task_atomic_fetch_add *)t;
	return DOCA_SUCCESS;
}

FAMILY(remote_net_sync_event_get, SD_RDMA_TASK_SE_GET)
CONN_ACCESSORS(remote_net_sync_event_get)
FIELD(remote_net_sync_event_get, sync_event, const struct doca_sync_event_remote_net *,
      const struct doca_sync_event_remote_net *, event, (struct doca_sync_event_remote_net *)(uintptr_t))
FIELD(remote_net_sync_event_get, dst_buf, struct doca_buf *, struct doca_buf *, dst, (struct doca_buf *)(uintptr_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_remote_net_sync_event_get_allocate_init(struct doca_rdma *rdma,
						       struct doca_rdma_connection *rdma_connection,
						       const struct doca_sync_event_remote_net *event,
						       struct doca_buf *dst_buf, union doca_data user_data,
						       struct doca_rdma_task_remote_net_sync_event_get **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_SE_GET, user_data, task,
				 "doca_rdma_task_remote_net_sync_event_get_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->event = (struct doca_sync_event_remote_net *)(uintptr_t)event;
	t->dst = (struct doca_buf *)(uintptr_t)dst_buf;
	*task = (struct doca_rdma_task_remote_net_sync_event_get *)t;
	return DOCA_SUCCESS;
}

FAMILY(remote_net_sync_event_notify_set, SD_RDMA_TASK_SE_NOTIFY_SET)
CONN_ACCESSORS(remote_net_sync_event_notify_set)
FIELD(remote_net_sync_event_notify_set, sync_event, struct doca_sync_event_remote_net *,
      struct doca_sync_event_remote_net *, event, (struct doca_sync_event_remote_net *)(uintptr_t))
FIELD(remote_net_sync_event_notify_set, src_buf, const struct doca_buf *, const struct doca_buf *, src,
      (struct doca_buf *)(uintptr_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	const struct doca_buf *src_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_set **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_SE_NOTIFY_SET, user_data, task,
				 "doca_rdma_task_remote_net_sync_event_notify_set_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->event = (struct doca_sync_event_remote_net *)(uintptr_t)event;
	t->src = (struct doca_buf *)(uintptr_t)src_buf;
	*task = (struct doca_rdma_task_remote_net_sync_event_notify_set *)t;
	return DOCA_SUCCESS;
}

FAMILY(remote_net_sync_event_notify_add, SD_RDMA_TASK_SE_NOTIFY_ADD)
CONN_ACCESSORS(remote_net_sync_event_notify_add)
FIELD(remote_net_sync_event_notify_add, sync_event, struct doca_sync_event_remote_net *,
      struct doca_sync_event_remote_net *, event, (struct doca_sync_event_remote_net *)(uintptr_t))
FIELD(remote_net_sync_event_notify_add, result_buf, struct doca_buf *, struct doca_buf *, result,
      (struct doca_buf *)(uintptr_t))
FIELD(remote_net_sync_event_notify_add, add_data, uint64_t, uint64_t, operand[0], (uint64_t))

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	struct doca_buf *result_buf, uint64_t add_data, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_add **task)
{
	struct sd_rdma_task *t;
	doca_error_t err = alloc(rdma, SD_RDMA_TASK_SE_NOTIFY_ADD, user_data, task,
				 "doca_rdma_task_remote_net_sync_event_notify_add_allocate_init", &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->conn = rdma_connection;
	t->event = (struct doca_sync_event_remote_net *)(uintptr_t)event;
	t->result = (struct doca_buf *)(uintptr_t)result_buf;
	t->operand[0] = add_data;
	*task = (struct doca_rdma_task_remote_net_sync_event_notify_add *)t;
	return DOCA_SUCCESS;
}

/* ---- results ---- */

DOCA_EXPERIMENTAL enum doca_rdma_opcode
doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *task)
{
	struct sd_rdma_task *t = task_of(task, "doca_rdma_task_receive_get_result_opcode");

	return t != NULL ? t->result_opcode : DOCA_RDMA_OPCODE_RECV_SEND;
}

DOCA_EXPERIMENTAL uint32_t
doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *task)
{
	struct sd_rdma_task *t = task_of(task, "doca_rdma_task_receive_get_result_len");

	return t != NULL ? t->result_len : 0;
}

DOCA_EXPERIMENTAL doca_be32_t
doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *task)
{
	struct sd_rdma_task *t = task_of(task, "doca_rdma_task_receive_get_result_immediate_data");

	/* Opaque 32 bits: handed back exactly as the sender gave them. */
	return t != NULL ? (doca_be32_t)t->result_imm : (doca_be32_t)0;
}

DOCA_EXPERIMENTAL const struct doca_rdma_connection *
doca_rdma_task_receive_get_result_rdma_connection(const struct doca_rdma_task_receive *task)
{
	struct sd_rdma_task *t = task_of(task, "doca_rdma_task_receive_get_result_rdma_connection");

	return t != NULL ? t->result_conn : NULL;
}

DOCA_EXPERIMENTAL uint32_t
doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *task)
{
	struct sd_rdma_task *t = task_of(task, "doca_rdma_task_read_get_result_len");

	return t != NULL ? t->result_len : 0;
}

DOCA_EXPERIMENTAL uint32_t
doca_rdma_task_remote_net_sync_event_get_get_result_len(const struct doca_rdma_task_remote_net_sync_event_get *task)
{
	struct sd_rdma_task *t = task_of(task, "doca_rdma_task_remote_net_sync_event_get_get_result_len");

	return t != NULL ? t->result_len : 0;
}
