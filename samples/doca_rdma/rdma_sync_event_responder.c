/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_sync_event_responder: create a sync event that a network peer
 * publishes to, export it, connect to doca_rdma_sync_event_requester, then spin
 * in doca_sync_event_wait_gt() inside the RUNNING callback: wait for the
 * requester's 0xD0CA, answer 0xD0CB, wait for UINT64_MAX.
 */
#include <stdint.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_SYNC_EVENT_RESPONDER);

#define SE_SIGNAL_VALUE 0xD0CAULL /* what the requester sets */
#define SE_ANSWER_VALUE 0xD0CBULL /* what this side answers */

static bool se_started;

static doca_error_t
se_responder_setup(struct rdma_resources *res)
{
	doca_error_t result;

	result = doca_sync_event_create(&res->sync_event);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_sync_event_add_publisher_location_remote_net(res->sync_event);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to make the remote net a publisher of the sync event: %s",
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_sync_event_add_subscriber_location_cpu(res->sync_event, res->doca_device);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to make the CPU a subscriber of the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_sync_event_start(res->sync_event);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	se_started = true;
	return DOCA_SUCCESS;
}

static doca_error_t
se_responder_run(struct rdma_resources *res)
{
	doca_error_t result;

	/* This side's PE is not progressed while it spins here: the requester's tasks must land anyway. */
	DOCA_LOG_INFO("Waiting for sync event to be signaled from remote");
	result = doca_sync_event_wait_gt(res->sync_event, SE_SIGNAL_VALUE - 1, UINT64_MAX);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to wait for the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	DOCA_LOG_INFO("Signaling sync event");
	result = doca_sync_event_update_set(res->sync_event, SE_ANSWER_VALUE);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	DOCA_LOG_INFO("Waiting for sync event to be notified for completion");
	result = doca_sync_event_wait_gt(res->sync_event, UINT64_MAX - 1, UINT64_MAX);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to wait for the sync event: %s", doca_error_get_descr(result));
		return result;
	}
	DOCA_LOG_INFO("Sync event was notified for completion");
	rdma_finish(res);
	return DOCA_SUCCESS;
}

static doca_error_t
se_responder_teardown(struct rdma_resources *res)
{
	doca_error_t result = DOCA_SUCCESS, tmp;

	if (res->sync_event == NULL)
		return DOCA_SUCCESS;
	if (se_started) {
		result = doca_sync_event_stop(res->sync_event);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to stop the sync event: %s", doca_error_get_descr(result));
		se_started = false;
	}
	tmp = doca_sync_event_destroy(res->sync_event);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the sync event: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	res->sync_event = NULL;
	return result;
}

int
main(int argc, char **argv)
{
	static const struct rdma_sample sample = {
		.name = "doca_rdma_sync_event_responder",
		.peer = "requester",
		.mmap_perm =
			DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
		.rdma_perm = DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
		.role = RDMA_ROLE_RESPONDER,
		.resource = RDMA_RESOURCE_SYNC_EVENT,
		.dc_passive = true,
		.setup = se_responder_setup,
		.run = se_responder_run,
		.teardown = se_responder_teardown,
	};

	return rdma_sample_main(&sample, argc, argv);
}
