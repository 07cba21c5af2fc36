/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The resources of one RDMA sample (device, local memory and its mmap, buf
 * inventory, PE, RDMA context) and their teardown, the state callback every
 * sample connects, the progress loop, and exporting / importing a responder's
 * mmap or sync event.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_COMMON);

/* The local memory every sample works in, registered with the device. */
static doca_error_t
create_local_mmap(struct rdma_resources *res, uint32_t permissions)
{
	doca_error_t result;

	res->mmap_memrange = calloc(1, RDMA_MEM_RANGE_LEN);
	if (res->mmap_memrange == NULL) {
		DOCA_LOG_ERR("Failed to allocate %d bytes for the memory range", RDMA_MEM_RANGE_LEN);
		return DOCA_ERROR_NO_MEMORY;
	}
	result = doca_mmap_create(&res->mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the mmap: %s", doca_error_get_descr(result));
		return result;
	}
	result = doca_mmap_set_permissions(res->mmap, permissions);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_set_memrange(res->mmap, res->mmap_memrange, RDMA_MEM_RANGE_LEN);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_add_dev(res->mmap, res->doca_device);
	if (result == DOCA_SUCCESS)
		result = doca_mmap_start(res->mmap);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to set up the mmap of the local memory: %s", doca_error_get_descr(result));
	return result;
}

/* The RDMA context with what the flags ask for, connected to the PE. */
static doca_error_t
create_rdma_ctx(struct rdma_resources *res, uint32_t permissions)
{
	struct rdma_config *cfg = res->cfg;
	doca_error_t result;

	result = doca_rdma_create(res->doca_device, &res->rdma);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the RDMA context: %s", doca_error_get_descr(result));
		return result;
	}
	res->rdma_ctx = doca_rdma_as_ctx(res->rdma);
	if (res->rdma_ctx == NULL) {
		DOCA_LOG_ERR("Failed to get the context of the RDMA object");
		return DOCA_ERROR_UNEXPECTED;
	}
	result = doca_rdma_set_permissions(res->rdma, permissions);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the RDMA permissions: %s", doca_error_get_descr(result));
		return result;
	}
	if (cfg->is_gid_index_set) {
		result = doca_rdma_set_gid_index(res->rdma, cfg->gid_index);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to set GID index %u: %s", cfg->gid_index, doca_error_get_descr(result));
			return result;
		}
	}
	result = doca_rdma_set_max_num_connections(res->rdma, (uint16_t)cfg->num_connections);
	if (result == DOCA_SUCCESS)
		result = doca_rdma_set_transport_type(res->rdma, cfg->transport_type);
	if (result == DOCA_SUCCESS)
		result = doca_pe_connect_ctx(res->pe, res->rdma_ctx);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to configure the RDMA context: %s", doca_error_get_descr(result));
	return result;
}

static doca_error_t
create_resources(struct rdma_config *cfg, uint32_t mmap_permissions, uint32_t rdma_permissions, tasks_check func,
		 struct rdma_resources *res)
{
	uint32_t num_bufs = RDMA_INVENTORY_PER_CONN * cfg->num_connections;
	doca_error_t result;

	/* DC targets are addressed per message: no connection objects to multiply or to hand to RDMA-CM. */
	if (cfg->transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC && (cfg->num_connections > 1 || cfg->use_rdma_cm)) {
		DOCA_LOG_ERR("DC transport type supports only a single out-of-band connection (got -nc %u%s); "
			     "use -tt RC",
			     cfg->num_connections, cfg->use_rdma_cm ? " with -cm" : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	result = open_doca_device_with_ibdev_name((const uint8_t *)cfg->device_name, strlen(cfg->device_name), func,
						  &res->doca_device);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open DOCA device %s: %s", cfg->device_name, doca_error_get_descr(result));
		return result;
	}
	result = create_local_mmap(res, mmap_permissions);
	if (result != DOCA_SUCCESS)
		return result;
	result = doca_buf_inventory_create(num_bufs, &res->buf_inventory);
	if (result == DOCA_SUCCESS)
		result = doca_buf_inventory_start(res->buf_inventory);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up a buf inventory of %u elements: %s", num_bufs,
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_pe_create(&res->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the progress engine: %s", doca_error_get_descr(result));
		return result;
	}
	return create_rdma_ctx(res, rdma_permissions);
}

doca_error_t
allocate_rdma_resources(struct rdma_config *cfg, uint32_t mmap_permissions, uint32_t rdma_permissions, tasks_check func,
			struct rdma_resources *resources)
{
	doca_error_t result;

	resources->cfg = cfg;
	resources->first_error = DOCA_SUCCESS;
	result = create_resources(cfg, mmap_permissions, rdma_permissions, func, resources);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate RDMA resources: %s", doca_error_get_descr(result));
		/* Nothing was connected or written yet: the teardown only releases. */
		(void)destroy_rdma_resources(resources, result);
	}
	return result;
}

/* Log a teardown failure; the first one becomes the result unless there is one already. */
static void
teardown_step(doca_error_t *result, doca_error_t tmp, const char *what)
{
	if (tmp == DOCA_SUCCESS)
		return;
	DOCA_LOG_ERR("Failed to %s: %s", what, doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(*result, tmp);
}

/* What the run added on top of allocate_rdma_resources(). */
static void
destroy_run_objects(struct rdma_resources *res, doca_error_t *result)
{
	uint32_t i;

	if (res->remote_mmap != NULL) {
		teardown_step(result, doca_mmap_stop(res->remote_mmap), "stop the remote mmap");
		teardown_step(result, doca_mmap_destroy(res->remote_mmap), "destroy the remote mmap");
		res->remote_mmap = NULL;
	}
	if (res->remote_se != NULL) {
		teardown_step(result, doca_sync_event_remote_net_destroy(res->remote_se),
			      "destroy the remote sync event");
		res->remote_se = NULL;
	}
	if (res->cm_addr != NULL) {
		teardown_step(result, doca_rdma_addr_destroy(res->cm_addr), "destroy the RDMA-CM address");
		res->cm_addr = NULL;
	}
	if (res->negotiation_mmap != NULL) {
		teardown_step(result, doca_mmap_destroy(res->negotiation_mmap), "destroy the negotiation mmap");
		res->negotiation_mmap = NULL;
	}
	free(res->negotiation_buf);
	res->negotiation_buf = NULL;
	for (i = 0; i < RDMA_MAX_CONNECTIONS; i++) {
		free(res->remote_conn_desc[i]);
		res->remote_conn_desc[i] = NULL;
	}
	free(res->remote_resource_desc);
	res->remote_resource_desc = NULL;
}

doca_error_t
destroy_rdma_resources(struct rdma_resources *res, doca_error_t result)
{
	/* The context is normally IDLE here; stopping it again must succeed. */
	if (res->rdma_ctx != NULL)
		teardown_step(&result, request_stop_ctx(res->pe, res->rdma_ctx), "stop the RDMA context");
	if (res->buf_inventory != NULL) {
		teardown_step(&result, doca_buf_inventory_stop(res->buf_inventory), "stop the buf inventory");
		teardown_step(&result, doca_buf_inventory_destroy(res->buf_inventory), "destroy the buf inventory");
		res->buf_inventory = NULL;
	}
	destroy_run_objects(res, &result);
	if (res->rdma != NULL) {
		teardown_step(&result, doca_rdma_destroy(res->rdma), "destroy the RDMA context");
		res->rdma = NULL;
		res->rdma_ctx = NULL;
	}
	if (res->pe != NULL) {
		teardown_step(&result, doca_pe_destroy(res->pe), "destroy the progress engine");
		res->pe = NULL;
	}
	if (res->mmap != NULL) {
		teardown_step(&result, doca_mmap_stop(res->mmap), "stop the mmap");
		teardown_step(&result, doca_mmap_destroy(res->mmap), "destroy the mmap");
		res->mmap = NULL;
	}
	free(res->mmap_memrange);
	res->mmap_memrange = NULL;
	if (res->doca_device != NULL) {
		teardown_step(&result, doca_dev_close(res->doca_device), "close the device");
		res->doca_device = NULL;
	}
	rdma_remove_owned_files(res);
	return result;
}

static void
rdma_state_changed_callback(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev_state,
			    enum doca_ctx_states next_state)
{
	struct rdma_resources *res = user_data.ptr;
	doca_error_t result;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_STARTING:
		DOCA_LOG_INFO("RDMA context entered starting state");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("RDMA context is running");
		/* Connections are made from here, as DOCA's samples do; this may block on stdin. */
		if (res->cfg->use_rdma_cm)
			result = rdma_cm_connect(res);
		else
			result = rdma_oob_connect_and_run(res);
		if (result != DOCA_SUCCESS)
			rdma_fail(res, result);
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("RDMA context entered stopping state. Any inflight tasks will be flushed");
		break;
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("RDMA context has been stopped");
		res->run_pe_progress = false;
		break;
	default:
		break;
	}
}

doca_error_t
rdma_connect_callbacks(struct rdma_resources *res)
{
	union doca_data ctx_user_data = {.ptr = res};
	doca_error_t result;

	result = doca_ctx_set_state_changed_cb(res->rdma_ctx, rdma_state_changed_callback);
	if (result == DOCA_SUCCESS)
		result = doca_ctx_set_user_data(res->rdma_ctx, ctx_user_data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the state callback of the RDMA context: %s", doca_error_get_descr(result));
		return result;
	}
	if (!res->cfg->use_rdma_cm)
		return DOCA_SUCCESS;
	return config_rdma_cm_callback_and_negotiation_task(res, res->role == RDMA_ROLE_RESPONDER,
							    res->role == RDMA_ROLE_REQUESTER);
}

doca_error_t
rdma_start_and_progress(struct rdma_resources *res)
{
	struct timespec pause = {.tv_sec = 0, .tv_nsec = 10 * 1000};
	doca_error_t result;

	/* Set before the start: the RUNNING callback may run inside doca_ctx_start(). */
	res->run_pe_progress = true;
	result = doca_ctx_start(res->rdma_ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the RDMA context: %s", doca_error_get_descr(result));
		res->run_pe_progress = false;
		return result;
	}
	while (res->run_pe_progress) {
		if (doca_pe_progress(res->pe) == 0)
			nanosleep(&pause, NULL);
	}
	return res->first_error;
}

doca_error_t
rdma_export_resource(struct rdma_resources *res, const void **desc, size_t *desc_len)
{
	const uint8_t *se_desc;
	doca_error_t result;

	switch (res->resource) {
	case RDMA_RESOURCE_MMAP:
		result = doca_mmap_export_rdma(res->mmap, res->doca_device, desc, desc_len);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to export the mmap for RDMA: %s", doca_error_get_descr(result));
		return result;
	case RDMA_RESOURCE_SYNC_EVENT:
		result = doca_sync_event_export_to_remote_net(res->sync_event, &se_desc, desc_len);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to export the sync event to the remote net: %s",
				     doca_error_get_descr(result));
		else
			*desc = se_desc;
		return result;
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}

doca_error_t
rdma_import_resource(struct rdma_resources *res, const void *desc, size_t desc_len)
{
	doca_error_t result;

	switch (res->resource) {
	case RDMA_RESOURCE_MMAP:
		result = doca_mmap_create_from_export(NULL, desc, desc_len, res->doca_device, &res->remote_mmap);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to create the remote mmap from the responder's export: %s",
				     doca_error_get_descr(result));
		return result;
	case RDMA_RESOURCE_SYNC_EVENT:
		result = doca_sync_event_remote_net_create_from_export(res->doca_device, desc, desc_len,
								       &res->remote_se);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to create the remote sync event from the responder's export: %s",
				     doca_error_get_descr(result));
		return result;
	default:
		return DOCA_ERROR_INVALID_VALUE;
	}
}
