/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two PCI sync-event programs.  The event is used synchronously
 * (doca_sync_event_update_* and wait_eq_yield) or, with --async, through its
 * task families on a progress engine, each task polled for at most a second.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include "common.h"
#include "comch_utils.h"
#include "sync_event_pci_common.h"

DOCA_LOG_REGISTER(SYNC_EVENT_PCI);

doca_error_t se_pci_run_local(const struct se_pci_cfg *cfg);
doca_error_t se_pci_run_remote(const struct se_pci_cfg *cfg);

struct se_pci {
	const struct se_pci_cfg *cfg;
	struct comch_channel *ch;
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct doca_pe *pe;	      /* --async */
	uint8_t blob[SE_PCI_MAX_MSG]; /* received export */
	uint32_t blob_len;
	bool have_blob;
	int task_done; /* --async: 1 success, -1 failure */
};

static void
recv_blob(void *arg, const uint8_t *msg, uint32_t len)
{
	struct se_pci *s = arg;

	if (len > sizeof(s->blob)) {
		DOCA_LOG_ERR("Received a blob of %u bytes, more than %zu", len, sizeof(s->blob));
		return;
	}
	memcpy(s->blob, msg, len);
	s->blob_len = len;
	s->have_blob = true;
}

static doca_error_t
connect_peer(struct se_pci *s)
{
	struct comch_channel_cfg c = {
		.name = SE_PCI_SERVER_NAME,
		.server = s->cfg->is_dpu,
		.pci_addr = s->cfg->pci_addr,
		.rep_pci_addr = s->cfg->rep_pci_addr,
		.max_msg_size = SE_PCI_MAX_MSG,
		.recv_queue_size = SE_PCI_RECV_QUEUE,
		.num_send_tasks = SE_PCI_SEND_TASKS,
		.recv_cb = recv_blob,
		.cb_arg = s,
	};
	doca_error_t r = comch_channel_create(&c, &s->ch);

	if (r != DOCA_SUCCESS)
		return r;
	r = comch_channel_wait_connected(s->ch, SE_PCI_TIMEOUT_SEC);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR(s->cfg->is_dpu ? "Failed to receive connection from host: timeout"
					    : "Failed to connect to server: timeout");
		return r;
	}
	if (s->cfg->is_dpu) {
		DOCA_LOG_INFO("Server received a new connection");
		DOCA_LOG_INFO("Received connection from host");
	} else {
		DOCA_LOG_INFO("Connection to DPU has been established");
	}
	return DOCA_SUCCESS;
}

static void
disconnect_peer(struct se_pci *s)
{
	if (s->ch == NULL)
		return;
	if (s->cfg->is_dpu) {
		if (comch_channel_wait_disconnected(s->ch, SE_PCI_TIMEOUT_SEC) == DOCA_SUCCESS)
			DOCA_LOG_INFO("Client has disconnected from server");
		else
			DOCA_LOG_ERR("Server did not get client disconnection: timeout");
	}
	(void)comch_channel_destroy(s->ch);
	s->ch = NULL;
}

/* --- asynchronous mode: one task at a time, polled for at most a second ---------------- */

static void
task_ok(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	struct se_pci *s = cud.ptr;

	(void)tud;
	s->task_done = 1;
	doca_task_free(task);
}

static void
task_err(struct doca_task *task, union doca_data tud, union doca_data cud)
{
	struct se_pci *s = cud.ptr;

	(void)tud;
	DOCA_LOG_ERR("Sync event task failed: %s", doca_error_get_descr(doca_task_get_status(task)));
	s->task_done = -1;
	doca_task_free(task);
}

static doca_error_t
run_task(struct se_pci *s, struct doca_task *task)
{
	struct timespec start, now;
	doca_error_t r;

	s->task_done = 0;
	r = doca_task_submit(task);
	if (r != DOCA_SUCCESS) {
		doca_task_free(task);
		return r;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (s->task_done == 0) {
		(void)doca_pe_progress(s->pe);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 1 && now.tv_nsec >= start.tv_nsec) {
			DOCA_LOG_ERR("Sync event task did not complete within a second");
			return DOCA_ERROR_TIME_OUT;
		}
	}
	return s->task_done == 1 ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
}

static doca_error_t
start_async(struct se_pci *s)
{
	struct doca_ctx *ctx = doca_sync_event_as_ctx(s->se);
	uint32_t n = (uint32_t)s->cfg->async_num_tasks;
	doca_error_t r;

	r = doca_pe_create(&s->pe);
	if (r == DOCA_SUCCESS)
		r = doca_pe_connect_ctx(s->pe, ctx);
	if (r == DOCA_SUCCESS)
		r = doca_sync_event_task_notify_set_set_conf(
			s->se, (doca_sync_event_task_notify_set_completion_cb_t)(void (*)(void))task_ok,
			(doca_sync_event_task_notify_set_completion_cb_t)(void (*)(void))task_err, n);
	if (r == DOCA_SUCCESS)
		r = doca_sync_event_task_notify_add_set_conf(
			s->se, (doca_sync_event_task_notify_add_completion_cb_t)(void (*)(void))task_ok,
			(doca_sync_event_task_notify_add_completion_cb_t)(void (*)(void))task_err, n);
	if (r == DOCA_SUCCESS)
		r = doca_sync_event_task_wait_eq_set_conf(
			s->se, (doca_sync_event_task_wait_eq_completion_cb_t)(void (*)(void))task_ok,
			(doca_sync_event_task_wait_eq_completion_cb_t)(void (*)(void))task_err, n);
	if (r == DOCA_SUCCESS)
		r = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = s});
	if (r == DOCA_SUCCESS)
		r = doca_ctx_start(ctx);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start the sync event as a context: %s", doca_error_get_descr(r));
	return r;
}

static doca_error_t
start_event(struct se_pci *s)
{
	doca_error_t r = s->cfg->is_async ? start_async(s) : doca_sync_event_start(s->se);

	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start DOCA Sync Event: %s", doca_error_get_descr(r));
	return r;
}

static doca_error_t
signal_value(struct se_pci *s, uint64_t value)
{
	union doca_data ud = {.ptr = s};
	uint64_t fetched = 0;

	DOCA_LOG_INFO("Signaling sync event for remote side");
	if (!s->cfg->is_async)
		return s->cfg->is_update_atomic ? doca_sync_event_update_add(s->se, 1, &fetched)
						: doca_sync_event_update_set(s->se, value);
	if (s->cfg->is_update_atomic) {
		struct doca_sync_event_task_notify_add *t;
		doca_error_t r = doca_sync_event_task_notify_add_alloc_init(s->se, 1, &fetched, ud, &t);

		return r != DOCA_SUCCESS ? r : run_task(s, doca_sync_event_task_notify_add_as_doca_task(t));
	} else {
		struct doca_sync_event_task_notify_set *t;
		doca_error_t r = doca_sync_event_task_notify_set_alloc_init(s->se, value, ud, &t);

		return r != DOCA_SUCCESS ? r : run_task(s, doca_sync_event_task_notify_set_as_doca_task(t));
	}
}

static doca_error_t
wait_value(struct se_pci *s, uint64_t value)
{
	DOCA_LOG_INFO("Waiting for sync event to be signaled from remote side");
	if (!s->cfg->is_async)
		return doca_sync_event_wait_eq_yield(s->se, value, UINT64_MAX);
	for (int attempt = 0; attempt < SE_PCI_TIMEOUT_SEC; attempt++) {
		struct doca_sync_event_task_wait_eq *t;
		doca_error_t r = doca_sync_event_task_wait_eq_alloc_init(s->se, value, UINT64_MAX,
									 (union doca_data){.ptr = s}, &t);

		if (r != DOCA_SUCCESS)
			return r;
		r = run_task(s, doca_sync_event_task_wait_eq_as_doca_task(t));
		if (r != DOCA_ERROR_TIME_OUT)
			return r;
		/* Not yet: flush the waiting task by restarting the context. */
		(void)doca_ctx_stop(doca_sync_event_as_ctx(s->se));
		for (enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING; st != DOCA_CTX_STATE_IDLE;) {
			(void)doca_pe_progress(s->pe);
			(void)doca_ctx_get_state(doca_sync_event_as_ctx(s->se), &st);
		}
		r = doca_ctx_start(doca_sync_event_as_ctx(s->se));
		if (r != DOCA_SUCCESS)
			return r;
	}
	return DOCA_ERROR_TIME_OUT;
}

static void
teardown(struct se_pci *s)
{
	if (s->se != NULL) {
		if (s->cfg->is_async) {
			struct doca_ctx *ctx = doca_sync_event_as_ctx(s->se);

			if (doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS)
				for (enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING; st != DOCA_CTX_STATE_IDLE;) {
					(void)doca_pe_progress(s->pe);
					(void)doca_ctx_get_state(ctx, &st);
				}
		} else {
			(void)doca_sync_event_stop(s->se);
		}
		(void)doca_sync_event_destroy(s->se);
	}
	if (s->pe != NULL)
		(void)doca_pe_destroy(s->pe);
	disconnect_peer(s);
	if (s->dev != NULL)
		(void)doca_dev_close(s->dev);
}

static doca_error_t
local_caps(const struct doca_devinfo *devinfo)
{
	return doca_sync_event_cap_is_export_to_remote_pci_supported(devinfo);
}

static doca_error_t
remote_caps(const struct doca_devinfo *devinfo)
{
	return doca_sync_event_cap_is_create_from_export_supported(devinfo);
}

doca_error_t
se_pci_run_local(const struct se_pci_cfg *cfg)
{
	struct se_pci s = {.cfg = cfg};
	const uint8_t *blob;
	size_t blob_len;
	doca_error_t r;

	r = open_doca_device_with_pci(cfg->pci_addr, local_caps, &s.dev);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device %s: %s", cfg->pci_addr, doca_error_get_descr(r));
		return r;
	}
	r = doca_sync_event_create(&s.se);
	if (r == DOCA_SUCCESS)
		r = doca_sync_event_add_publisher_location_remote_pci(s.se);
	if (r == DOCA_SUCCESS)
		r = doca_sync_event_add_subscriber_location_cpu(s.se, s.dev);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create DOCA Sync Event: %s", doca_error_get_descr(r));
		goto out;
	}
	r = start_event(&s);
	if (r == DOCA_SUCCESS)
		r = connect_peer(&s);
	if (r != DOCA_SUCCESS)
		goto out;
	r = doca_sync_event_export_to_remote_pci(s.se, s.dev, &blob, &blob_len);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to export DOCA Sync Event: %s", doca_error_get_descr(r));
		goto out;
	}
	DOCA_LOG_INFO("Sending exported DOCA Sync Event to remote side");
	r = comch_channel_send(s.ch, blob, (uint32_t)blob_len);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send the exported event: %s", doca_error_get_descr(r));
		goto out;
	}
	DOCA_LOG_INFO("Exported DOCA Sync Event has been sent to remote side successfully");
	/* From here on no progress: the message is delivered anyway. */
	r = signal_value(&s, 1);
	if (r == DOCA_SUCCESS)
		r = wait_value(&s, 2);
	if (r == DOCA_SUCCESS)
		DOCA_LOG_INFO("Done");
out:
	teardown(&s);
	return r;
}

doca_error_t
se_pci_run_remote(const struct se_pci_cfg *cfg)
{
	struct se_pci s = {.cfg = cfg};
	doca_error_t r;

	r = open_doca_device_with_pci(cfg->pci_addr, remote_caps, &s.dev);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device %s: %s", cfg->pci_addr, doca_error_get_descr(r));
		return r;
	}
	r = connect_peer(&s);
	if (r != DOCA_SUCCESS)
		goto out;
	DOCA_LOG_INFO("Listening");
	while (!s.have_blob && comch_channel_connected(s.ch))
		if (comch_channel_progress(s.ch) == 0)
			usleep(10);
	if (!s.have_blob) {
		DOCA_LOG_ERR("The connection ended before the exported event arrived");
		r = DOCA_ERROR_NOT_CONNECTED;
		goto out;
	}
	DOCA_LOG_INFO("Received blob from remote side");
	r = doca_sync_event_create_from_export(s.dev, s.blob, s.blob_len, &s.se);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create DOCA Sync Event from export: %s", doca_error_get_descr(r));
		goto out;
	}
	r = start_event(&s);
	if (r == DOCA_SUCCESS)
		r = wait_value(&s, 1);
	if (r == DOCA_SUCCESS)
		r = signal_value(&s, 2);
	if (r == DOCA_SUCCESS)
		DOCA_LOG_INFO("Done");
out:
	teardown(&s);
	return r;
}
