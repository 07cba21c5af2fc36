/* SPDX-License-Identifier: BSD-3-Clause */
/* doca_verbs_wait_cq_wr: DOCA's flags (-d, -gi, --ipv6) and the usual sample main(). */

#include <doca_argp.h>
#include <doca_log.h>

#include "common.h"
#include "verbs_common.h"
#include "verbs_wait_cq_wr.h"

DOCA_LOG_REGISTER(VERBS_WAIT_CQ_WR_MAIN);

static doca_error_t
device_callback(void *param, void *config)
{
	struct wait_cq_config *cfg = config;

	return copy_string_param("Device name (-d)", param, cfg->device_name, sizeof(cfg->device_name));
}

static doca_error_t
gid_index_callback(void *param, void *config)
{
	struct wait_cq_config *cfg = config;
	int value = *(int *)param;

	if (value < 0 || value > UINT8_MAX) {
		DOCA_LOG_ERR("GID index (-gi) must be 0..%u (got %d)", UINT8_MAX, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->gid_index = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t
ipv6_callback(void *param, void *config)
{
	struct wait_cq_config *cfg = config;

	cfg->ipv6 = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
register_params(void)
{
	static const struct sample_param params[] = {
		{"d", "device-name", "<device name>", "IB device name", DOCA_ARGP_TYPE_STRING, device_callback, true},
		{"gi", "gid-index", "<index>", "GID index (default 0)", DOCA_ARGP_TYPE_INT, gid_index_callback, false},
		{NULL, "ipv6", NULL, "Address the QPs with IPv6 instead of IPv4", DOCA_ARGP_TYPE_BOOLEAN, ipv6_callback,
		 false},
	};

	return sample_register_params(params, sizeof(params) / sizeof(params[0]));
}

/* The run step: the sample function on the parsed configuration. */
static doca_error_t
run_sample(const void *cfg)
{
	return verbs_wait_cq_wr((const struct wait_cq_config *)cfg);
}

int
main(int argc, char **argv)
{
	struct wait_cq_config cfg = {0};

	return sample_main_with_params("verbs_wait_cq_wr", "wait_cq_wr", DOCA_LOG_LEVEL_WARNING, &cfg, register_params,
				       run_sample, argc, argv);
}
