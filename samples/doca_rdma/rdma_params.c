/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The main() of the RDMA samples: DOCA's defaults, the common flags every
 * program takes and the sample-specific ones (-s -r -w -nc), each checked as it
 * is parsed, then the sample function and the final line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "rdma_common.h"

DOCA_LOG_REGISTER(RDMA_PARAMS);

static void
set_default_config_value(struct rdma_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->send_string, sizeof(cfg->send_string), "%s", RDMA_DEFAULT_STRING);
	snprintf(cfg->read_string, sizeof(cfg->read_string), "%s", RDMA_DEFAULT_STRING);
	snprintf(cfg->write_string, sizeof(cfg->write_string), "%s", RDMA_DEFAULT_STRING);
	snprintf(cfg->local_connection_desc_path, sizeof(cfg->local_connection_desc_path), "%s",
		 RDMA_DEFAULT_LOCAL_DESC_PATH);
	snprintf(cfg->remote_connection_desc_path, sizeof(cfg->remote_connection_desc_path), "%s",
		 RDMA_DEFAULT_REMOTE_DESC_PATH);
	snprintf(cfg->remote_resource_desc_path, sizeof(cfg->remote_resource_desc_path), "%s",
		 RDMA_DEFAULT_RESOURCE_DESC_PATH);
	cfg->is_gid_index_set = false;
	cfg->num_connections = 1;
	cfg->transport_type = DOCA_RDMA_TRANSPORT_TYPE_RC;
	cfg->use_rdma_cm = false;
	cfg->cm_port = RDMA_DEFAULT_CM_PORT;
	cfg->cm_addr_type = DOCA_RDMA_ADDR_TYPE_IPv4;
}

static doca_error_t
device_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("IB device name (-d)", param, cfg->device_name, sizeof(cfg->device_name));
}

static doca_error_t
local_desc_path_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Local descriptor path (-ld)", param, cfg->local_connection_desc_path,
				 sizeof(cfg->local_connection_desc_path));
}

static doca_error_t
remote_desc_path_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Remote descriptor path (-re)", param, cfg->remote_connection_desc_path,
				 sizeof(cfg->remote_connection_desc_path));
}

static doca_error_t
resource_desc_path_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Remote resource descriptor path (-m)", param, cfg->remote_resource_desc_path,
				 sizeof(cfg->remote_resource_desc_path));
}

static doca_error_t
gid_index_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;
	int value = *(int *)param;

	if (value < 0) {
		DOCA_LOG_ERR("GID index (-g) cannot be negative (got %d)", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->gid_index = (uint32_t)value;
	cfg->is_gid_index_set = true;
	return DOCA_SUCCESS;
}

static doca_error_t
transport_type_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;
	const char *value = param;

	if (strcasecmp(value, "RC") == 0)
		cfg->transport_type = DOCA_RDMA_TRANSPORT_TYPE_RC;
	else if (strcasecmp(value, "DC") == 0)
		cfg->transport_type = DOCA_RDMA_TRANSPORT_TYPE_DC;
	else {
		DOCA_LOG_ERR("Transport type (-tt) must be RC or DC (got \"%.32s\")", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
use_rdma_cm_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	cfg->use_rdma_cm = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
listen_port_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;
	int value = *(int *)param;

	if (value < 0 || value > UINT16_MAX) {
		DOCA_LOG_ERR("Listen port (-lp) must be 0..%u (got %d)", UINT16_MAX, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->cm_port = (uint16_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t
server_addr_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Server address (-sa)", param, cfg->cm_addr, sizeof(cfg->cm_addr));
}

static doca_error_t
server_addr_type_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;
	const char *value = param;

	if (strcasecmp(value, "ip4") == 0 || strcasecmp(value, "ipv4") == 0)
		cfg->cm_addr_type = DOCA_RDMA_ADDR_TYPE_IPv4;
	else if (strcasecmp(value, "ip6") == 0 || strcasecmp(value, "ipv6") == 0)
		cfg->cm_addr_type = DOCA_RDMA_ADDR_TYPE_IPv6;
	else if (strcasecmp(value, "gid") == 0)
		cfg->cm_addr_type = DOCA_RDMA_ADDR_TYPE_GID;
	else {
		DOCA_LOG_ERR("Server address type (-sat) must be ip4, ipv4, ip6, ipv6 or gid (got \"%.32s\")", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
send_string_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Send string (-s)", param, cfg->send_string, sizeof(cfg->send_string));
}

static doca_error_t
read_string_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Read string (-r)", param, cfg->read_string, sizeof(cfg->read_string));
}

static doca_error_t
write_string_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;

	return copy_string_param("Write string (-w)", param, cfg->write_string, sizeof(cfg->write_string));
}

static doca_error_t
num_connections_callback(void *param, void *config)
{
	struct rdma_config *cfg = config;
	int value = *(int *)param;

	if (value < 1 || value > RDMA_MAX_CONNECTIONS) {
		DOCA_LOG_ERR("Number of connections (-nc) must be 1..%d (got %d)", RDMA_MAX_CONNECTIONS, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->num_connections = (uint32_t)value;
	return DOCA_SUCCESS;
}

/* Create, describe and register one flag. */
static doca_error_t
register_param(const char *short_name, const char *long_name, const char *arguments, const char *description,
	       enum doca_argp_type type, doca_argp_param_cb_t callback, bool mandatory)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create ARGP param %s: %s", long_name, doca_error_get_descr(result));
		return result;
	}
	doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	if (arguments != NULL)
		doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, type);
	if (mandatory)
		doca_argp_param_set_mandatory(param);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register ARGP param %s: %s", long_name, doca_error_get_descr(result));
	return result;
}

struct param_desc {
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
	enum doca_argp_type type;
	doca_argp_param_cb_t callback;
	bool mandatory;
};

static doca_error_t
register_param_table(const struct param_desc *table, size_t n)
{
	doca_error_t result;
	size_t i;

	for (i = 0; i < n; i++) {
		result = register_param(table[i].short_name, table[i].long_name, table[i].arguments,
					table[i].description, table[i].type, table[i].callback, table[i].mandatory);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
register_rdma_common_params(void)
{
	static const struct param_desc common[] = {
		{"d", "device", "<IB device name>", "IB device name", DOCA_ARGP_TYPE_STRING, device_callback, true},
		{"ld", "local-descriptor-path", "<path>",
		 "Local descriptor file path that includes the local connection descriptor to be copied to the "
		 "remote program",
		 DOCA_ARGP_TYPE_STRING, local_desc_path_callback, false},
		{"re", "remote-descriptor-path", "<path>",
		 "Remote descriptor file path that includes the remote connection descriptor to be copied from the "
		 "remote program",
		 DOCA_ARGP_TYPE_STRING, remote_desc_path_callback, false},
		{"m", "remote-resource-descriptor-path", "<path>",
		 "Remote descriptor file path that includes the remote mmap or sync event descriptor (written by the "
		 "responder, read by the requester)",
		 DOCA_ARGP_TYPE_STRING, resource_desc_path_callback, false},
		{"g", "gid-index", "<index>", "GID index for DOCA RDMA (optional)", DOCA_ARGP_TYPE_INT,
		 gid_index_callback, false},
		{"tt", "transport-type", "<type>", "Transport type for DOCA RDMA: RC or DC (default RC)",
		 DOCA_ARGP_TYPE_STRING, transport_type_callback, false},
		{"cm", "use-rdma-cm", NULL, "Set up the connection with RDMA-CM instead of descriptor files",
		 DOCA_ARGP_TYPE_BOOLEAN, use_rdma_cm_callback, false},
		{"lp", "listen-port", "<listen-port-num>", "RDMA-CM port to listen on / connect to (default 13579)",
		 DOCA_ARGP_TYPE_INT, listen_port_callback, false},
		{"sa", "server-addr", "<server address>",
		 "RDMA-CM server address; given, this program is the RDMA-CM client", DOCA_ARGP_TYPE_STRING,
		 server_addr_callback, false},
		{"sat", "server-addr-type", "<server address type>",
		 "RDMA-CM server address type: ip4, ipv4, ip6, ipv6 or gid (default ipv4)", DOCA_ARGP_TYPE_STRING,
		 server_addr_type_callback, false},
	};

	return register_param_table(common, sizeof(common) / sizeof(common[0]));
}

static doca_error_t
register_rdma_params(unsigned int params)
{
	static const struct param_desc specific[] = {
		{"s", "send-string", "<Send string>", "String to send (up to 256 characters)", DOCA_ARGP_TYPE_STRING,
		 send_string_callback, false},
		{"r", "read-string", "<Read string>", "String the requester reads (up to 256 characters)",
		 DOCA_ARGP_TYPE_STRING, read_string_callback, false},
		{"w", "write-string", "<Write string>", "String to write (up to 256 characters)", DOCA_ARGP_TYPE_STRING,
		 write_string_callback, false},
		{"nc", "num-connections", "<num>", "Number of connections (1..8, default 1)", DOCA_ARGP_TYPE_INT,
		 num_connections_callback, false},
	};
	static const unsigned int bits[] = {RDMA_PARAM_SEND_STRING, RDMA_PARAM_READ_STRING, RDMA_PARAM_WRITE_STRING,
					    RDMA_PARAM_NUM_CONNECTIONS};
	doca_error_t result;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if ((params & bits[i]) == 0)
			continue;
		result = register_param_table(&specific[i], 1);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

int
rdma_sample_main(const char *name, unsigned int params, rdma_sample_fn sample, int argc, char **argv)
{
	struct rdma_config cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	set_default_config_value(&cfg);

	/* Without a log there is no way to report anything: fail silently. */
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;

	DOCA_LOG_INFO("Starting the sample");

	result = doca_argp_init(name, &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to initialize ARGP: %s", doca_error_get_descr(result));
		goto sample_exit;
	}
	result = register_rdma_common_params();
	if (result == DOCA_SUCCESS)
		result = register_rdma_params(params);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register the sample's parameters: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse the sample's input: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}

	result = sample(&cfg);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("%s sample failed: %s (%s)", name, doca_error_get_descr(result),
			     doca_error_get_name(result));
	else
		exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}
