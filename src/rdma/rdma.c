/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA context: creation on an RDMA-capable device, properties,
 * capabilities, and the ctx ops core's state machine calls.  The context owns
 * a fabric completion domain (fabric_ctx) from doca_ctx_start() until it is
 * IDLE again; its connections' endpoints live inside it (rdma_conn.c), its
 * tasks are fabric ops (rdma_task.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sd_core.h"
#include "../util/sd_env.h"
#include "rdma_internal.h"

SD_LOG_REGISTER(rdma);

#define PERM_ALLOWED                                                                                                   \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |                \
	 DOCA_ACCESS_FLAG_RDMA_ATOMIC)

/* RNR wait in ms for a retry count (doca_rdma.h), or SOFTDOCA_RDMA_RNR_TIMEOUT_MS. */
static uint32_t
rnr_timeout_ms(const struct doca_rdma *rdma)
{
	uint64_t v = sd_env_u64("SOFTDOCA_RDMA_RNR_TIMEOUT_MS", 0, 0, 3600000); /* 0: the mapping below */

	if (v != 0)
		return (uint32_t)v;
	if (rdma->rnr_retry_count >= 7)
		return 30000;
	return (uint32_t)(rdma->rnr_retry_count + 1) * 1000;
}

static doca_error_t
rdma_start(struct doca_ctx *ctx, bool *running)
{
	struct doca_rdma *rdma = sd_rdma_from_ctx(ctx);
	struct fabric_ctx_attr attr = {
		.max_unexpected = SD_MAX(rdma->recv_queue_size, 64u),
		.rnr_timeout_ms = rnr_timeout_ms(rdma),
		.ep_error_cb = sd_rdma_conn_ep_error,
		.user = rdma,
		.signal_when_armed = true, /* the PE: one progressing thread, arming before it sleeps */
	};
	doca_error_t err;

	err = sd_fabric_ctx_create(rdma->fdev, &attr, &rdma->fctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_ctx_start: failed to create the RDMA completion domain: %s",
			     doca_error_get_descr(err));
		return err;
	}
	rdma->wake_fd = sd_fabric_ctx_get_event_fd(rdma->fctx);
	err = sd_pe_add_wake_fd(sd_ctx_pe(ctx), rdma->wake_fd);
	if (err != DOCA_SUCCESS) {
		/* Polling applications still work; event-driven ones would sleep through completions. */
		DOCA_LOG_WARN("doca_ctx_start: RDMA completions cannot wake the PE's notification handle (%s); "
			      "poll with doca_pe_progress()",
			      doca_error_get_name(err));
		rdma->wake_fd = -1;
	}
	rdma->inflight = 0;
	/* STARTING now, RUNNING from the next doca_pe_progress() (as on hardware). */
	*running = false;
	return DOCA_SUCCESS;
}

/* Endpoints, completion domain and wake fd go; every fabric op completes (flush). */
static void
rdma_teardown(struct doca_rdma *rdma)
{
	doca_error_t err;

	if (rdma->tearing_down)
		return;
	rdma->tearing_down = true;
	/*
	 * Deliver what already completed while the endpoints exist, then drop
	 * them: each sends the acks it owes and flushes (ops still waiting
	 * complete aborted).  Only then does the CM tell the peers (DISCONNECT on
	 * its own channel), so a peer never sees the DISCONNECT before the data
	 * this side sent before stopping.
	 */
	if (rdma->fctx != NULL)
		sd_fabric_ctx_progress(rdma->fctx);
	sd_rdma_conns_teardown(rdma);
	rdma->cm_ops.stop(rdma);
	if (rdma->fctx == NULL) {
		rdma->tearing_down = false;
		return;
	}
	if (rdma->wake_fd >= 0)
		sd_pe_del_wake_fd(sd_ctx_pe(&rdma->ctx), rdma->wake_fd);
	rdma->wake_fd = -1;
	/* Runs the callbacks of every op still queued: tasks complete from here. */
	err = sd_fabric_ctx_destroy(rdma->fctx);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to release the RDMA completion domain: %s", doca_error_get_descr(err));
		rdma->tearing_down = false;
		return;
	}
	rdma->fctx = NULL;
	rdma->tearing_down = false;
}

static void
rdma_flush(struct doca_ctx *ctx)
{
	rdma_teardown(sd_rdma_from_ctx(ctx));
}

static void
rdma_stopped(struct doca_ctx *ctx)
{
	rdma_teardown(sd_rdma_from_ctx(ctx));
}

static unsigned
rdma_progress(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = sd_rdma_from_ctx(ctx);
	unsigned n = 0;

	if (sd_ctx_state(ctx) == DOCA_CTX_STATE_STARTING) {
		/*
		 * The RUNNING callback runs inside: it may export, connect, submit,
		 * block on stdin or stop the context (which tears the fabric down),
		 * so nothing below may run in this call.
		 */
		sd_ctx_set_running(ctx);
		return 1;
	}
	rdma->progress_round++;
	if (rdma->fctx != NULL)
		n += sd_fabric_ctx_progress(rdma->fctx);
	/* Connection callbacks may stop the context: they come last. */
	if (!sd_list_empty(&rdma->notify))
		n += sd_rdma_conns_notify(rdma);
	if (rdma->fctx != NULL)
		n += rdma->cm_ops.progress(rdma);
	return n;
}

static bool
rdma_arm(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = sd_rdma_from_ctx(ctx);

	return sd_ctx_state(ctx) == DOCA_CTX_STATE_STARTING ||
	       (rdma->fctx != NULL &&
		(!sd_list_empty(&rdma->notify) || sd_fabric_ctx_arm(rdma->fctx) || rdma->cm_ops.has_work(rdma)));
}

/* ---- CM hooks of a context that never used the CM ---- */

static unsigned
cm_none_progress(struct doca_rdma *rdma)
{
	(void)rdma;
	return 0;
}

static void
cm_none_rdma(struct doca_rdma *rdma)
{
	(void)rdma;
}

static bool
cm_none_has_work(struct doca_rdma *rdma)
{
	(void)rdma;
	return false;
}

static void
cm_none_conn_free(struct doca_rdma_connection *conn)
{
	(void)conn;
}

static const struct sd_rdma_cm_ops cm_none_ops = {
	.progress = cm_none_progress,
	.stop = cm_none_rdma,
	.has_work = cm_none_has_work,
	.destroy = cm_none_rdma,
	.conn_free = cm_none_conn_free,
};

void
sd_rdma_set_cm_ops(struct doca_rdma *rdma, const struct sd_rdma_cm_ops *ops)
{
	rdma->cm_ops = cm_none_ops;
	if (ops->progress != NULL)
		rdma->cm_ops.progress = ops->progress;
	if (ops->stop != NULL)
		rdma->cm_ops.stop = ops->stop;
	if (ops->has_work != NULL)
		rdma->cm_ops.has_work = ops->has_work;
	if (ops->destroy != NULL)
		rdma->cm_ops.destroy = ops->destroy;
	if (ops->conn_free != NULL)
		rdma->cm_ops.conn_free = ops->conn_free;
}

/* SOFTDOCA_FAULTS rdma.peer=vanish: every live connection's peer dies (the fabric's path for a dead peer). */
static void
rdma_vanish(struct doca_ctx *ctx)
{
	sd_rdma_conns_vanish(sd_rdma_from_ctx(ctx));
}

static const struct sd_ctx_ops rdma_ctx_ops = {
	.name = "rdma",
	.start = rdma_start,
	.flush = rdma_flush,
	.stopped = rdma_stopped,
	.progress = rdma_progress,
	.submit = sd_rdma_task_submit,
	.validate = sd_rdma_task_validate,
	.arm = rdma_arm,
	.vanish = rdma_vanish,
};

/* ---- create / destroy ---- */

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma_out)
{
	struct doca_rdma *rdma;
	doca_error_t err;

	if (dev == NULL || rdma_out == NULL) {
		DOCA_LOG_ERR("doca_rdma_create: NULL argument (dev %p, rdma %p)", (void *)dev, (void *)rdma_out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(sd_dev_devinfo(dev))->rdma) {
		DOCA_LOG_ERR("doca_rdma_create: device %s (%s) has no RDMA; pick a device for which "
			     "doca_rdma_cap_task_send_is_supported() returns DOCA_SUCCESS",
			     sd_devinfo_pci_addr(sd_dev_devinfo(dev)), sd_devinfo_ibdev_name(sd_dev_devinfo(dev)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	rdma = sd_fault_create("rdma", "doca_rdma_create") ? NULL : calloc(1, sizeof(*rdma));
	if (rdma == NULL) {
		DOCA_LOG_ERR("doca_rdma_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	err = sd_rdma_fabric_dev_open(dev, "doca_rdma_create", &rdma->fdev);
	if (err != DOCA_SUCCESS) {
		free(rdma);
		return err;
	}
	rdma->dev = dev;
	rdma->caps = sd_devinfo_caps(sd_dev_devinfo(dev));
	rdma->wake_fd = -1;
	rdma->send_queue_size = SD_MIN(SD_RDMA_DEFAULT_QUEUE_SIZE, rdma->caps->rdma_max_send_queue_size);
	rdma->recv_queue_size = SD_MIN(SD_RDMA_DEFAULT_QUEUE_SIZE, rdma->caps->rdma_max_recv_queue_size);
	rdma->max_send_buf_list_len = 1;
	rdma->recv_buf_list_len = 1;
	rdma->transport = DOCA_RDMA_TRANSPORT_TYPE_RC;
	rdma->mtu = DOCA_MTU_SIZE_1K_BYTES;
	rdma->permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	rdma->conn_request_timeout_ms = SD_RDMA_DEFAULT_CONN_REQUEST_TIMEOUT_MS;
	rdma->max_num_connections = SD_RDMA_DEFAULT_MAX_CONNECTIONS;
	rdma->rnr_retry_count = SD_RDMA_DEFAULT_RNR_RETRY_COUNT;
	rdma->next_conn_id = 1;
	sd_list_init(&rdma->conns);
	sd_list_init(&rdma->notify);
	sd_ctx_init(&rdma->ctx, &rdma_ctx_ops, dev);
	sd_rdma_set_cm_ops(rdma, &cm_none_ops);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*rdma_out = rdma;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_destroy(struct doca_rdma *rdma)
{
	doca_error_t err;

	if (rdma == NULL) {
		DOCA_LOG_ERR("doca_rdma_destroy: rdma is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE unless IDLE (logged by core); IDLE means the fabric ctx is gone. */
	err = sd_ctx_fini(&rdma->ctx, "doca_rdma_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	rdma->cm_ops.destroy(rdma);
	sd_rdma_conns_free(rdma);
	sd_fabric_dev_close(rdma->fdev);
	sd_dev_put(rdma->dev);
	free(rdma);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_rdma_as_ctx(struct doca_rdma *rdma)
{
	if (rdma == NULL) {
		DOCA_LOG_ERR("doca_rdma_as_ctx: rdma is NULL");
		return NULL;
	}
	return &rdma->ctx;
}

/* ---- capabilities ---- */

static doca_error_t
cap_check(const struct doca_devinfo *devinfo, const void *out, const char *api)
{
	if (devinfo == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, output %p)", api, (const void *)devinfo, out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(devinfo)->rdma) {
		DOCA_LOG_ERR("%s: device %s has no RDMA; check doca_rdma_cap_task_send_is_supported() first", api,
			     sd_devinfo_pci_addr(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

#define CAP_U32(fn, field)                                                                                             \
	DOCA_EXPERIMENTAL doca_error_t fn(const struct doca_devinfo *devinfo, uint32_t *out)                           \
	{                                                                                                              \
		doca_error_t err = cap_check(devinfo, out, #fn);                                                       \
		if (err != DOCA_SUCCESS)                                                                               \
			return err;                                                                                    \
		*out = sd_devinfo_caps(devinfo)->field;                                                                \
		return DOCA_SUCCESS;                                                                                   \
	}

CAP_U32(doca_rdma_cap_get_max_recv_queue_size, rdma_max_recv_queue_size)
CAP_U32(doca_rdma_cap_get_max_send_queue_size, rdma_max_send_queue_size)
CAP_U32(doca_rdma_cap_get_max_send_buf_list_len, rdma_max_send_buf_list_len)
CAP_U32(doca_rdma_cap_get_max_message_size, rdma_max_message_size)
CAP_U32(doca_rdma_cap_get_gid_table_size, gid_table_size)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_get_gid(const struct doca_devinfo *devinfo, uint32_t start_index, uint32_t num_entries,
		      struct doca_rdma_gid *gid_array)
{
	doca_error_t err = cap_check(devinfo, gid_array, "doca_rdma_cap_get_gid");

	if (err != DOCA_SUCCESS)
		return err;
	if (num_entries == 0 || start_index >= sd_devinfo_caps(devinfo)->gid_table_size ||
	    num_entries > sd_devinfo_caps(devinfo)->gid_table_size - start_index) {
		DOCA_LOG_ERR("doca_rdma_cap_get_gid: entries [%u, %u + %u) outside the GID table of %u entries; "
			     "ask within doca_rdma_cap_get_gid_table_size()",
			     start_index, start_index, num_entries, sd_devinfo_caps(devinfo)->gid_table_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* One GID per port (the topology's); further entries repeat it. */
	for (uint32_t i = 0; i < num_entries; i++)
		memcpy(gid_array[i].raw, sd_devinfo_gid(devinfo), sizeof(gid_array[i].raw));
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
					  enum doca_rdma_transport_type transport_type)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_rdma_cap_transport_type_is_supported: devinfo is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_devinfo_caps(devinfo)->rdma)
		return DOCA_ERROR_NOT_SUPPORTED;
	if (transport_type == DOCA_RDMA_TRANSPORT_TYPE_RC)
		return DOCA_SUCCESS;
	if (transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC)
		return sd_devinfo_caps(devinfo)->rdma_dc ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
	DOCA_LOG_ERR("doca_rdma_cap_transport_type_is_supported: unknown transport type %d; use "
		     "DOCA_RDMA_TRANSPORT_TYPE_RC or _DC",
		     (int)transport_type);
	return DOCA_ERROR_INVALID_VALUE;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_receive_get_max_dst_buf_list_len(const struct doca_devinfo *devinfo,
						    enum doca_rdma_transport_type transport_type,
						    uint32_t *max_buf_list_len)
{
	doca_error_t err = cap_check(devinfo, max_buf_list_len, "doca_rdma_cap_task_receive_get_max_dst_buf_list_len");

	if (err != DOCA_SUCCESS)
		return err;
	if (transport_type != DOCA_RDMA_TRANSPORT_TYPE_RC && transport_type != DOCA_RDMA_TRANSPORT_TYPE_DC) {
		DOCA_LOG_ERR("doca_rdma_cap_task_receive_get_max_dst_buf_list_len: unknown transport type %d; use "
			     "DOCA_RDMA_TRANSPORT_TYPE_RC or _DC",
			     (int)transport_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*max_buf_list_len = sd_devinfo_caps(devinfo)->rdma_max_recv_buf_list_len;
	return DOCA_SUCCESS;
}

/* Every task family exists on every RDMA device. */
#define CAP_TASK(name)                                                                                                 \
	DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_##name##_is_supported(const struct doca_devinfo *devinfo)    \
	{                                                                                                              \
		if (devinfo == NULL) {                                                                                 \
			DOCA_LOG_ERR("doca_rdma_cap_task_" #name "_is_supported: devinfo is NULL");                    \
			return DOCA_ERROR_INVALID_VALUE;                                                               \
		}                                                                                                      \
		return sd_devinfo_caps(devinfo)->rdma ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;                       \
	}

CAP_TASK(receive)
CAP_TASK(send)
CAP_TASK(send_imm)
CAP_TASK(read)
CAP_TASK(write)
CAP_TASK(write_imm)
CAP_TASK(atomic_cmp_swp)
CAP_TASK(atomic_fetch_add)
CAP_TASK(remote_net_sync_event_get)
CAP_TASK(remote_net_sync_event_notify_set)
CAP_TASK(remote_net_sync_event_notify_add)

/* ---- properties ---- */

/* Setters: non-NULL, IDLE. */
static doca_error_t
setter_check(const struct doca_rdma *rdma, const char *api)
{
	if (rdma == NULL) {
		DOCA_LOG_ERR("%s: rdma is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_ctx_state(&rdma->ctx) != DOCA_CTX_STATE_IDLE) {
		DOCA_LOG_ERR("%s: the RDMA context is not IDLE (state %d); set properties before doca_ctx_start() or "
			     "after it stopped",
			     api, (int)sd_ctx_state(&rdma->ctx));
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
range_check(uint64_t v, uint64_t min, uint64_t max, const char *api, const char *what, const char *fix)
{
	if (v >= min && v <= max)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("%s: %s %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]; %s", api, what, v, min, max, fix);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t
getter_check(const void *rdma, const void *out, const char *api)
{
	if (rdma == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (rdma %p, output %p)", api, rdma, out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

#define GETTER(fn, rdma_qual, type, field)                                                                             \
	DOCA_EXPERIMENTAL doca_error_t fn(rdma_qual struct doca_rdma *rdma, type *out)                                 \
	{                                                                                                              \
		doca_error_t err = getter_check(rdma, out, #fn);                                                       \
		if (err != DOCA_SUCCESS)                                                                               \
			return err;                                                                                    \
		*out = rdma->field;                                                                                    \
		return DOCA_SUCCESS;                                                                                   \
	}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_send_queue_size");

	if (err == DOCA_SUCCESS)
		err = range_check(send_queue_size, 1, rdma->caps->rdma_max_send_queue_size,
				  "doca_rdma_set_send_queue_size", "send queue size",
				  "stay within doca_rdma_cap_get_max_send_queue_size()");
	if (err == DOCA_SUCCESS)
		rdma->send_queue_size = send_queue_size;
	return err;
}
GETTER(doca_rdma_get_send_queue_size, const, uint32_t, send_queue_size)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_recv_queue_size");

	if (err == DOCA_SUCCESS)
		err = range_check(recv_queue_size, 1, rdma->caps->rdma_max_recv_queue_size,
				  "doca_rdma_set_recv_queue_size", "receive queue size",
				  "stay within doca_rdma_cap_get_max_recv_queue_size()");
	if (err == DOCA_SUCCESS)
		rdma->recv_queue_size = recv_queue_size;
	return err;
}
GETTER(doca_rdma_get_recv_queue_size, const, uint32_t, recv_queue_size)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_max_send_buf_list_len(struct doca_rdma *rdma, uint32_t max_send_buf_list_len)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_max_send_buf_list_len");

	if (err == DOCA_SUCCESS)
		err = range_check(max_send_buf_list_len, 1, rdma->caps->rdma_max_send_buf_list_len,
				  "doca_rdma_set_max_send_buf_list_len", "send buffer list length",
				  "stay within doca_rdma_cap_get_max_send_buf_list_len()");
	if (err == DOCA_SUCCESS)
		rdma->max_send_buf_list_len = max_send_buf_list_len;
	return err;
}
GETTER(doca_rdma_get_max_send_buf_list_len, const, uint32_t, max_send_buf_list_len)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_transport_type(struct doca_rdma *rdma, enum doca_rdma_transport_type transport_type)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_transport_type");

	if (err != DOCA_SUCCESS)
		return err;
	if (transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC) {
		if (!rdma->caps->rdma_dc) {
			DOCA_LOG_ERR("doca_rdma_set_transport_type: the device has no DC transport; use "
				     "DOCA_RDMA_TRANSPORT_TYPE_RC");
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		if (rdma->max_num_connections > 1) {
			DOCA_LOG_ERR("doca_rdma_set_transport_type: DC serves a single out-of-band connection but "
				     "max_num_connections is %u; use RC for several connections",
				     rdma->max_num_connections);
			return DOCA_ERROR_INVALID_VALUE;
		}
	} else if (transport_type != DOCA_RDMA_TRANSPORT_TYPE_RC) {
		DOCA_LOG_ERR("doca_rdma_set_transport_type: unknown transport type %d; use "
			     "DOCA_RDMA_TRANSPORT_TYPE_RC or _DC",
			     (int)transport_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	rdma->transport = transport_type;
	return DOCA_SUCCESS;
}
GETTER(doca_rdma_get_transport_type, const, enum doca_rdma_transport_type, transport)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_mtu(struct doca_rdma *rdma, enum doca_mtu_size mtu)
{
	/* sd:no-effect: recorded for the getter; UCX chooses its own fragment size on each transport */
	doca_error_t err = setter_check(rdma, "doca_rdma_set_mtu");

	if (err == DOCA_SUCCESS)
		err = range_check((uint64_t)mtu, DOCA_MTU_SIZE_256_BYTES, DOCA_MTU_SIZE_4K_BYTES, "doca_rdma_set_mtu",
				  "MTU code", "use DOCA_MTU_SIZE_256_BYTES .. DOCA_MTU_SIZE_4K_BYTES");
	if (err == DOCA_SUCCESS)
		rdma->mtu = mtu;
	return err;
}
GETTER(doca_rdma_get_mtu, const, enum doca_mtu_size, mtu)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_permissions");

	if (err != DOCA_SUCCESS)
		return err;
	if ((permissions & ~(uint32_t)PERM_ALLOWED) != 0) {
		DOCA_LOG_ERR("doca_rdma_set_permissions: mask 0x%x has bits other than LOCAL_READ_WRITE, RDMA_READ, "
			     "RDMA_WRITE and RDMA_ATOMIC (0x%x); PCI flags belong to doca_mmap_set_permissions()",
			     permissions, (unsigned)(permissions & ~(uint32_t)PERM_ALLOWED));
		return DOCA_ERROR_INVALID_VALUE;
	}
	rdma->permissions = permissions;
	return DOCA_SUCCESS;
}
GETTER(doca_rdma_get_permissions, , uint32_t, permissions)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled)
{
	/* sd:no-effect: recorded for the getter; no InfiniBand routing header exists over UCX */
	doca_error_t err = setter_check(rdma, "doca_rdma_set_grh_enabled");

	if (err == DOCA_SUCCESS)
		rdma->grh_enabled = grh_enabled != 0;
	return err;
}
GETTER(doca_rdma_get_grh_enabled, const, uint8_t, grh_enabled)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_gid_index");

	if (err == DOCA_SUCCESS && rdma->caps->gid_table_size == 0) {
		DOCA_LOG_ERR("doca_rdma_set_gid_index: the device has an empty GID table; do not set a GID index");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (err == DOCA_SUCCESS)
		err = range_check(gid_index, 0, rdma->caps->gid_table_size - 1, "doca_rdma_set_gid_index", "GID index",
				  "pick an index below doca_rdma_cap_get_gid_table_size()");
	if (err == DOCA_SUCCESS)
		rdma->gid_index = gid_index;
	return err;
}
GETTER(doca_rdma_get_gid_index, const, uint32_t, gid_index)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_sl(struct doca_rdma *rdma, uint32_t sl)
{
	/* sd:no-effect: recorded for the getter; there is no fabric QoS to map a service level to */
	doca_error_t err = setter_check(rdma, "doca_rdma_set_sl");

	if (err == DOCA_SUCCESS)
		err = range_check(sl, 0, 15, "doca_rdma_set_sl", "service level", "use 0..15");
	if (err == DOCA_SUCCESS)
		rdma->sl = sl;
	return err;
}
GETTER(doca_rdma_get_sl, const, uint32_t, sl)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_max_num_connections");

	if (err == DOCA_SUCCESS)
		err = range_check(max_num_connections, 1, SD_MIN(rdma->caps->rdma_max_connections, UINT16_MAX),
				  "doca_rdma_set_max_num_connections", "connection count",
				  "ask for at least one and at most the device's limit");
	if (err == DOCA_SUCCESS && rdma->transport == DOCA_RDMA_TRANSPORT_TYPE_DC && max_num_connections > 1) {
		DOCA_LOG_ERR("doca_rdma_set_max_num_connections: the DC transport serves one out-of-band connection "
			     "(asked for %u); use DOCA_RDMA_TRANSPORT_TYPE_RC for several",
			     max_num_connections);
		err = DOCA_ERROR_INVALID_VALUE;
	}
	if (err == DOCA_SUCCESS)
		rdma->max_num_connections = max_num_connections;
	return err;
}
GETTER(doca_rdma_get_max_num_connections, , uint16_t, max_num_connections)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_set_rnr_retry_count(struct doca_rdma *rdma, uint8_t rnr_retry_count)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_set_rnr_retry_count");

	if (err == DOCA_SUCCESS)
		err = range_check(rnr_retry_count, 0, 7, "doca_rdma_set_rnr_retry_count", "RNR retry count",
				  "use 0..7 (7: the longest wait)");
	if (err == DOCA_SUCCESS)
		rdma->rnr_retry_count = rnr_retry_count;
	return err;
}
GETTER(doca_rdma_get_rnr_retry_count, const, uint8_t, rnr_retry_count)

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma, uint32_t buf_list_len)
{
	doca_error_t err = setter_check(rdma, "doca_rdma_task_receive_set_dst_buf_list_len");

	if (err == DOCA_SUCCESS)
		err = range_check(buf_list_len, 1, rdma->caps->rdma_max_recv_buf_list_len,
				  "doca_rdma_task_receive_set_dst_buf_list_len", "receive buffer list length",
				  "stay within doca_rdma_cap_task_receive_get_max_dst_buf_list_len()");
	if (err == DOCA_SUCCESS)
		rdma->recv_buf_list_len = buf_list_len;
	return err;
}
GETTER(doca_rdma_task_receive_get_dst_buf_list_len, const, uint32_t, recv_buf_list_len)

/* ---- device-side datapaths ---- */

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma)
{
	if (rdma == NULL || dpa_rdma == NULL) {
		DOCA_LOG_ERR("doca_rdma_get_dpa_handle: NULL argument (rdma %p, dpa_rdma %p)", (void *)rdma,
			     (void *)dpa_rdma);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_get_dpa_handle: softdoca emulates no DPA; run the RDMA datapath on the CPU "
		     "through a doca_pe");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_get_gpu_handle(struct doca_rdma *rdma, struct doca_gpu_dev_rdma **gpu_rdma)
{
	if (rdma == NULL || gpu_rdma == NULL) {
		DOCA_LOG_ERR("doca_rdma_get_gpu_handle: NULL argument (rdma %p, gpu_rdma %p)", (void *)rdma,
			     (void *)gpu_rdma);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_get_gpu_handle: softdoca has no GPU datapath; run the RDMA datapath on the CPU "
		     "through a doca_pe");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_dpa_completion_attach(struct doca_rdma *rdma, struct doca_dpa_completion *dpa_comp)
{
	if (rdma == NULL || dpa_comp == NULL) {
		DOCA_LOG_ERR("doca_rdma_dpa_completion_attach: NULL argument (rdma %p, dpa_comp %p)", (void *)rdma,
			     (void *)dpa_comp);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_dpa_completion_attach: softdoca emulates no DPA; completions arrive through "
		     "the doca_pe the context is connected to");
	return DOCA_ERROR_NOT_SUPPORTED;
}
