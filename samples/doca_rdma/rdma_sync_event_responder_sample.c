/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA sync event responder: create a sync event that a network peer
 * publishes to, export it, connect to the requester, then spin in
 * doca_sync_event_wait_gt() inside the RUNNING callback: wait for the
 * requester's 0xD0CA, answer 0xD0CB, wait for UINT64_MAX.
 */
#include <stdint.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SYNC_EVENT_RESPONDER::SAMPLE);

#define SE_SIGNAL_VALUE 0xD0CAULL /* what the requester sets */
#define SE_ANSWER_VALUE 0xD0CBULL /* what this side answers */

/* A sync event the remote net publishes to and this CPU waits on. */
static doca_error_t
create_sync_event(struct rdma_resources *res)
{
	doca_error_t result;

	result = doca_sync_event_create(&res->sync_event);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_sync_event_add_publisher_location_remote_net(res->sync_event);
	if (result == DOCA_SUCCESS)
		result = doca_sync_event_add_subscriber_location_cpu(res->sync_event, res->doca_device);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the publisher and subscriber of the sync event: %s",
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_sync_event_start(res->sync_event);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to start the sync event: %s", doca_error_get_descr(result));
	return result;
}

/* Wait until the event is above value (no timeout: the requester drives it). */
static doca_error_t
wait_above(struct rdma_resources *res, uint64_t value)
{
	doca_error_t result = doca_sync_event_wait_gt(res->sync_event, value, UINT64_MAX);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to wait for the sync event: %s", doca_error_get_descr(result));
	return result;
}

/* Connected, the event exported: the exchange of values with the requester. */
static doca_error_t
sync_event_responder_run(struct rdma_resources *res)
{
	doca_error_t result;

	/* This side's PE is not progressed while it spins here: the requester's tasks must land anyway. */
	DOCA_LOG_INFO("Waiting for sync event to be signaled from remote");
	result = wait_above(res, SE_SIGNAL_VALUE - 1);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Signaling sync event");
	result = doca_sync_event_update_set(res->sync_event, SE_ANSWER_VALUE);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	DOCA_LOG_INFO("Waiting for sync event to be notified for completion");
	result = wait_above(res, UINT64_MAX - 1);
	if (result != DOCA_SUCCESS)
		return result;
	DOCA_LOG_INFO("Sync event was notified for completion");
	rdma_finish(res);
	return DOCA_SUCCESS;
}

/* After the context is IDLE: stop the event if it was started, destroy it. */
static doca_error_t
destroy_sync_event(struct rdma_resources *res, bool started)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	if (res->sync_event == NULL)
		return DOCA_SUCCESS;
	if (started) {
		result = doca_sync_event_stop(res->sync_event);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to stop the sync event: %s", doca_error_get_descr(result));
	}
	tmp = doca_sync_event_destroy(res->sync_event);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the sync event: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	res->sync_event = NULL;
	return result;
}

doca_error_t
rdma_sync_event_responder(struct rdma_config *cfg)
{
	struct rdma_resources resources = {
		.peer = "requester",
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_SYNC_EVENT,
		.dc_passive = true,
		.run = sync_event_responder_run,
	};
	bool started = false;
	doca_error_t result, tmp;

	result = allocate_rdma_resources(
		cfg, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
		DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE, NULL, &resources);
	if (result != DOCA_SUCCESS)
		return result;

	result = create_sync_event(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy_event;
	started = true;
	result = rdma_connect_callbacks(&resources);
	if (result != DOCA_SUCCESS)
		goto destroy_event;

	/* Exporting the event, connecting and the waits happen from the RUNNING callback. */
	result = rdma_start_and_progress(&resources);

destroy_event:
	/* The context is IDLE already; stopping it again must succeed.  The event goes before the device. */
	tmp = request_stop_ctx(resources.pe, resources.rdma_ctx);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to stop the RDMA context: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	/* Not inside DOCA_ERROR_PROPAGATE: it skips its second argument after a failure. */
	tmp = destroy_sync_event(&resources, started);
	DOCA_ERROR_PROPAGATE(result, tmp);
	return destroy_rdma_resources(&resources, result);
}
