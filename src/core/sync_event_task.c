/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sync event used as a context: the get / notify_set / notify_add / wait_eq /
 * wait_neq task families on the generic ctx machinery.  get and notify_* act at
 * submit and complete at the next progress; wait tasks queue until progress sees
 * their condition hold (another thread's update or a remote write wakes a
 * sleeping PE through sd_sync_event_changed()).
 */
#include <doca_sync_event.h>

#include "sd_log.h"
#include "sync_event_internal.h"

SD_LOG_REGISTER(core.sync_event_task)

/* Ample for any sample; the pool is allocated at set_conf. */
#define SE_MAX_TASKS (1u << 16)

/* One layout for every family; the public types wrap it. */
struct se_task {
	struct doca_task task; /* first */
	enum sd_sync_event_task_type type;
	uint64_t val;  /* notify_set: set_val; notify_add: inc_val; wait_*: wait_val */
	uint64_t mask; /* wait_* */
	uint64_t *ptr; /* get: ret_val_ptr; notify_add: fetched_val_ptr (may be NULL) */
};

struct doca_sync_event_task_get {
	struct se_task se;
};
struct doca_sync_event_task_notify_set {
	struct se_task se;
};
struct doca_sync_event_task_notify_add {
	struct se_task se;
};
struct doca_sync_event_task_wait_eq {
	struct se_task se;
};
struct doca_sync_event_task_wait_neq {
	struct se_task se;
};

static const char *const family_names[SD_SE_TASK_TYPES] = {
	[SD_SE_TASK_GET] = "get",
	[SD_SE_TASK_NOTIFY_SET] = "notify_set",
	[SD_SE_TASK_NOTIFY_ADD] = "notify_add",
	[SD_SE_TASK_WAIT_EQ] = "wait_eq",
	[SD_SE_TASK_WAIT_NEQ] = "wait_neq",
};

static struct doca_sync_event *
to_event(struct doca_ctx *ctx)
{
	return sd_container_of(ctx, struct doca_sync_event, ctx);
}

static bool
waiter_ready(const struct doca_sync_event *ev, const struct se_task *t)
{
	return sd_sync_event_cond_met(atomic_load_explicit(ev->value, memory_order_acquire), t->mask, t->val,
				      t->type == SD_SE_TASK_WAIT_EQ ? SD_SE_CMP_EQ : SD_SE_CMP_NEQ);
}

/* --- ctx ops ---------------------------------------------------------------------- */

static doca_error_t
se_start(struct doca_ctx *ctx, bool *running)
{
	doca_error_t err = sd_sync_event_check_startable(to_event(ctx), "doca_ctx_start");

	if (err != DOCA_SUCCESS)
		return err;
	*running = true;
	return DOCA_SUCCESS;
}

static void
waiter_done(struct doca_sync_event *ev, struct se_task *t, doca_error_t status)
{
	atomic_fetch_sub_explicit(&ev->num_waiters, 1, memory_order_relaxed);
	sd_task_complete(&t->task, status);
}

static doca_error_t
se_submit(struct doca_task *task)
{
	struct doca_sync_event *ev = to_event(task->ctx);
	struct se_task *t = (struct se_task *)task;
	uint64_t old;

	switch (t->type) {
	case SD_SE_TASK_GET:
		if (t->ptr != NULL)
			*t->ptr = atomic_load_explicit(ev->value, memory_order_acquire);
		break;
	case SD_SE_TASK_NOTIFY_SET:
		atomic_store_explicit(ev->value, t->val, memory_order_release);
		sd_sync_event_changed(ev);
		break;
	case SD_SE_TASK_NOTIFY_ADD:
		old = atomic_fetch_add_explicit(ev->value, t->val, memory_order_acq_rel);
		if (t->ptr != NULL)
			*t->ptr = old;
		sd_sync_event_changed(ev);
		break;
	default:
		if (!waiter_ready(ev, t)) {
			sd_list_insert_tail(&ev->waiters, &task->link);
			atomic_fetch_add_explicit(&ev->num_waiters, 1, memory_order_release);
			return DOCA_SUCCESS;
		}
		break;
	}
	sd_task_complete(task, DOCA_SUCCESS);
	return DOCA_SUCCESS;
}

static doca_error_t
se_validate(struct doca_task *task)
{
	struct se_task *t = (struct se_task *)task;

	if (t->type == SD_SE_TASK_GET && t->ptr == NULL) {
		DOCA_LOG_ERR("doca_task_try_submit: sync event get task has no ret_val_ptr; set it with "
			     "doca_sync_event_task_get_set_ret_val_ptr()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static unsigned
se_progress(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = to_event(ctx);
	struct sd_list *elem, *tmp;
	unsigned n = 0;

	sd_list_for_each_safe(elem, tmp, &ev->waiters)
	{
		struct se_task *t = sd_container_of(elem, struct se_task, task.link);

		if (waiter_ready(ev, t)) {
			waiter_done(ev, t, DOCA_SUCCESS);
			n++;
		}
	}
	return n;
}

static void
se_flush(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = to_event(ctx);
	struct sd_list *elem, *tmp;

	sd_list_for_each_safe(elem, tmp, &ev->waiters)
		waiter_done(ev, sd_container_of(elem, struct se_task, task.link), SD_TASK_FLUSH_STATUS);
}

static bool
se_arm(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = to_event(ctx);
	const struct sd_list *elem;

	sd_list_for_each(elem, &ev->waiters)
	{
		if (waiter_ready(ev, sd_container_of(elem, struct se_task, task.link)))
			return true;
	}
	return false;
}

const struct sd_ctx_ops sd_sync_event_ctx_ops = {
	.name = "sync_event",
	.start = se_start,
	.flush = se_flush,
	.progress = se_progress,
	.submit = se_submit,
	.validate = se_validate,
	.arm = se_arm,
};

/* --- shared family plumbing --------------------------------------------------------- */

static doca_error_t
se_set_conf(struct doca_sync_event *ev, enum sd_sync_event_task_type type, doca_task_completion_cb_t cb,
	    doca_task_completion_cb_t error_cb, uint32_t num_tasks, const char *api)
{
	if (ev == NULL) {
		DOCA_LOG_ERR("%s: event is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ev->standalone_started) {
		DOCA_LOG_ERR("%s: the event was started stand-alone; tasks need it started as a context "
			     "(doca_sync_event_as_ctx + doca_ctx_start)",
			     api);
		return DOCA_ERROR_BAD_STATE;
	}
	return sd_task_pool_configure(&ev->ctx, &ev->pools[type], family_names[type], sizeof(struct se_task), num_tasks,
				      SE_MAX_TASKS, cb, error_cb, api);
}

/* Allocate and fill a task; user_out is the caller's output pointer (NULL check only). */
static doca_error_t
se_alloc(struct doca_sync_event *ev, enum sd_sync_event_task_type type, uint64_t val, uint64_t mask, uint64_t *ptr,
	 union doca_data user_data, const void *user_out, struct se_task **out, const char *api)
{
	struct doca_task *task;
	struct se_task *t;
	doca_error_t err;

	if (ev == NULL || user_out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (event=%p, task=%p)", api, (void *)ev, user_out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = sd_task_alloc(ev->pools[type], user_data, api, &task);
	if (err != DOCA_SUCCESS)
		return err;
	t = (struct se_task *)task;
	t->type = type;
	t->val = val;
	t->mask = mask;
	t->ptr = ptr;
	*out = t;
	return DOCA_SUCCESS;
}

static doca_error_t
se_cap(const struct doca_devinfo *devinfo, const char *api)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS; /* a CPU implementation: every device */
}

/* NULL task in an accessor: log and fall back. */
#define SE_TASK_OR(task, api, fallback)                                                                                \
	do {                                                                                                           \
		if ((task) == NULL) {                                                                                  \
			DOCA_LOG_ERR("%s: task is NULL", api);                                                         \
			return fallback;                                                                               \
		}                                                                                                      \
	} while (0)

/* cap, set_conf and as_doca_task of one family. */
#define SE_FAMILY(fam, TYPE)                                                                                           \
	doca_error_t doca_sync_event_cap_task_##fam##_is_supported(const struct doca_devinfo *devinfo)                 \
	{                                                                                                              \
		return se_cap(devinfo, "doca_sync_event_cap_task_" #fam "_is_supported");                              \
	}                                                                                                              \
	doca_error_t doca_sync_event_task_##fam##_set_conf(                                                            \
		struct doca_sync_event *event, doca_sync_event_task_##fam##_completion_cb_t cb,                        \
		doca_sync_event_task_##fam##_completion_cb_t error_cb, uint32_t num_tasks)                             \
	{                                                                                                              \
		return se_set_conf(event, TYPE, SD_TASK_CB(cb), SD_TASK_CB(error_cb), num_tasks,                       \
				   "doca_sync_event_task_" #fam "_set_conf");                                          \
	}                                                                                                              \
	struct doca_task *doca_sync_event_task_##fam##_as_doca_task(struct doca_sync_event_task_##fam *task)           \
	{                                                                                                              \
		SE_TASK_OR(task, "doca_sync_event_task_" #fam "_as_doca_task", NULL);                                  \
		return &task->se.task;                                                                                 \
	}

/* A setter and a getter of one field. */
#define SE_FIELD(fam, name, field, type)                                                                               \
	void doca_sync_event_task_##fam##_set_##name(struct doca_sync_event_task_##fam *task, type v)                  \
	{                                                                                                              \
		SE_TASK_OR(task, "doca_sync_event_task_" #fam "_set_" #name, );                                        \
		task->se.field = v;                                                                                    \
	}                                                                                                              \
	type doca_sync_event_task_##fam##_get_##name(const struct doca_sync_event_task_##fam *task)                    \
	{                                                                                                              \
		SE_TASK_OR(task, "doca_sync_event_task_" #fam "_get_" #name, 0);                                       \
		return task->se.field;                                                                                 \
	}

SE_FAMILY(get, SD_SE_TASK_GET)
SE_FAMILY(notify_set, SD_SE_TASK_NOTIFY_SET)
SE_FAMILY(notify_add, SD_SE_TASK_NOTIFY_ADD)
SE_FAMILY(wait_eq, SD_SE_TASK_WAIT_EQ)
SE_FAMILY(wait_neq, SD_SE_TASK_WAIT_NEQ)

SE_FIELD(get, ret_val_ptr, ptr, uint64_t *)
SE_FIELD(notify_set, set_val, val, uint64_t)
SE_FIELD(notify_add, inc_val, val, uint64_t)
SE_FIELD(notify_add, fetched_val_ptr, ptr, uint64_t *)
SE_FIELD(wait_eq, wait_val, val, uint64_t)
SE_FIELD(wait_eq, mask, mask, uint64_t)
SE_FIELD(wait_neq, wait_val, val, uint64_t)
SE_FIELD(wait_neq, mask, mask, uint64_t)

/* Allocate one family's task and hand it out as its public type. */
#define SE_ALLOC_INIT(fam, TYPE, val, mask, ptr)                                                                       \
	do {                                                                                                           \
		struct se_task *t;                                                                                     \
		doca_error_t err = se_alloc(event, TYPE, val, mask, ptr, user_data, task, &t,                          \
					    "doca_sync_event_task_" #fam "_alloc_init");                               \
                                                                                                                       \
		if (err == DOCA_SUCCESS)                                                                               \
			*task = (struct doca_sync_event_task_##fam *)(void *)t;                                        \
		return err;                                                                                            \
	} while (0)

doca_error_t
doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr, union doca_data user_data,
				    struct doca_sync_event_task_get **task)
{
	SE_ALLOC_INIT(get, SD_SE_TASK_GET, 0, 0, ret_val_ptr);
}

doca_error_t
doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val, union doca_data user_data,
					   struct doca_sync_event_task_notify_set **task)
{
	SE_ALLOC_INIT(notify_set, SD_SE_TASK_NOTIFY_SET, set_val, 0, NULL);
}

doca_error_t
doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val, uint64_t *fetched_val_ptr,
					   union doca_data user_data, struct doca_sync_event_task_notify_add **task)
{
	SE_ALLOC_INIT(notify_add, SD_SE_TASK_NOTIFY_ADD, inc_val, 0, fetched_val_ptr);
}

doca_error_t
doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
					union doca_data user_data, struct doca_sync_event_task_wait_eq **task)
{
	SE_ALLOC_INIT(wait_eq, SD_SE_TASK_WAIT_EQ, wait_val, mask, NULL);
}

doca_error_t
doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
					 union doca_data user_data, struct doca_sync_event_task_wait_neq **task)
{
	SE_ALLOC_INIT(wait_neq, SD_SE_TASK_WAIT_NEQ, wait_val, mask, NULL);
}
