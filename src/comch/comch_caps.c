/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch capabilities.  Every emulated function has Comch; servers exist on
 * DPU-side functions and clients on host-side ones, as on a BlueField.  The
 * limits are softdoca's choices (docs/comch.md), the same on both sides.
 */
#include "../core/sd_core.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.caps);

static doca_error_t
cap_u32(const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value, const char *api)
{
	if (devinfo == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, output %p); pass non-NULL pointers", api,
			     (const void *)devinfo, (void *)out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = value;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
	return cap_u32(devinfo, size, SD_COMCH_MAX_MSG, "doca_comch_cap_get_max_msg_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
	return cap_u32(devinfo, size, SD_COMCH_MAX_RECV_QUEUE, "doca_comch_cap_get_max_recv_queue_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len)
{
	return cap_u32(devinfo, max_name_len, SD_COMCH_MAX_NAME, "doca_comch_cap_get_max_name_len");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *max_clients)
{
	return cap_u32(devinfo, max_clients, SD_COMCH_MAX_CLIENTS, "doca_comch_cap_get_max_clients");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo, uint32_t *max_send_tasks)
{
	return cap_u32(devinfo, max_send_tasks, SD_COMCH_MAX_SEND_TASKS, "doca_comch_cap_get_max_send_tasks");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_comch_cap_server_is_supported: devinfo is NULL; pass a devinfo from "
			     "doca_devinfo_create_list()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* A device-filter answer: not logged. */
	return sd_devinfo_side(devinfo) == SD_DEV_SIDE_DPU ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("doca_comch_cap_client_is_supported: devinfo is NULL; pass a devinfo from "
			     "doca_devinfo_create_list()");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_devinfo_side(devinfo) == SD_DEV_SIDE_HOST ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

/* --- fast path --- */

static doca_error_t
cap_fp_supported(const struct doca_devinfo *devinfo, const char *api)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL; pass a devinfo from doca_devinfo_create_list()", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_fp_supported(devinfo, "doca_comch_producer_cap_is_supported");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	return cap_u32(devinfo, max_num_tasks, SD_COMCH_FP_MAX_TASKS, "doca_comch_producer_cap_get_max_num_tasks");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	return cap_u32(devinfo, max_buf_size, SD_COMCH_FP_MAX_BUF, "doca_comch_producer_cap_get_max_buf_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)
{
	return cap_u32(devinfo, max_buf_list_len, 1, "doca_comch_producer_cap_get_max_buf_list_len");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo, uint32_t *max_producers)
{
	return cap_u32(devinfo, max_producers, 0xfffe, "doca_comch_producer_cap_get_max_producers");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_fp_supported(devinfo, "doca_comch_consumer_cap_is_supported");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	return cap_u32(devinfo, max_num_tasks, SD_COMCH_FP_MAX_TASKS, "doca_comch_consumer_cap_get_max_num_tasks");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	return cap_u32(devinfo, max_buf_size, SD_COMCH_FP_MAX_BUF, "doca_comch_consumer_cap_get_max_buf_size");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)
{
	return cap_u32(devinfo, max_buf_list_len, 1, "doca_comch_consumer_cap_get_max_buf_list_len");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo, uint32_t *max_consumers)
{
	return cap_u32(devinfo, max_consumers, 0xfffe, "doca_comch_consumer_cap_get_max_consumers");
}

DOCA_EXPERIMENTAL doca_error_t
doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo, uint32_t *max_imm_data_len)
{
	return cap_u32(devinfo, max_imm_data_len, SD_COMCH_MAX_IMM, "doca_comch_consumer_cap_get_max_imm_data_len");
}
