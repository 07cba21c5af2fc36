/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_verbs_server_client: DOCA's flags (-c -d -gid -ro -s -qt -n -b), each
 * checked as it is parsed, and the usual sample main().
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_verbs.h>

#include "common.h"
#include "verbs_common.h"
#include "verbs_server_client.h"

DOCA_LOG_REGISTER(VERBS_SERVER_CLIENT_MAIN);

static doca_error_t
client_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;
	const char *value = param;
	struct in_addr addr;

	if (inet_pton(AF_INET, value, &addr) != 1) {
		DOCA_LOG_ERR(
			"Server address (-c) must be an IPv4 address in dotted form, e.g. 192.0.2.1 (got \"%.64s\")",
			value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(cfg->server_ip, sizeof(cfg->server_ip), "%s", value);
	cfg->is_client = true;
	return DOCA_SUCCESS;
}

static doca_error_t
device_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;

	return copy_string_param("IB device name (-d)", param, cfg->device_name, sizeof(cfg->device_name));
}

static doca_error_t
gid_index_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;
	int value = *(int *)param;

	if (value < 0) {
		DOCA_LOG_ERR("GID index (-gid) cannot be negative (got %d)", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->gid_index = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t
oper_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;
	const char *value = param;

	if (strcasecmp(value, "send") == 0)
		cfg->oper = VERBS_OPER_SEND;
	else if (strcasecmp(value, "write") == 0)
		cfg->oper = VERBS_OPER_WRITE;
	else if (strcasecmp(value, "read") == 0)
		cfg->oper = VERBS_OPER_READ;
	else {
		DOCA_LOG_ERR("RDMA operation type (-ro) must be send, write or read (got \"%.32s\")", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
buffer_size_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;
	int value = *(int *)param;

	if (value < VERBS_MIN_BUF_SIZE) {
		DOCA_LOG_ERR("Buffer size (-s) must be at least %d bytes: each message starts with its 32-bit number "
			     "(got %d)",
			     VERBS_MIN_BUF_SIZE, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->buf_size = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t
qp_type_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;
	const char *value = param;

	if (strcasecmp(value, "RC") != 0) {
		DOCA_LOG_ERR("QP type (-qt) must be RC, the only type this sample supports (got \"%.32s\")", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->qp_type = DOCA_VERBS_QP_TYPE_RC;
	return DOCA_SUCCESS;
}

static doca_error_t
iters_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;
	int value = *(int *)param;

	if (value < 1 || value > VERBS_MAX_ITERS) {
		DOCA_LOG_ERR("Number of iterations (-n) must be 1..%d (got %d)", VERBS_MAX_ITERS, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->iters = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t
send_burst_callback(void *param, void *config)
{
	struct verbs_config *cfg = config;

	cfg->send_burst = *(bool *)param;
	return DOCA_SUCCESS;
}

/* Checks that need more than one flag: run once every flag was parsed. */
static doca_error_t
validate_config(void *config)
{
	struct verbs_config *cfg = config;
	unsigned long long total = (unsigned long long)cfg->buf_size * cfg->iters;

	if (total > VERBS_MAX_TOTAL_SIZE) {
		DOCA_LOG_ERR("Buffer size (-s) times iterations (-n) is %llu bytes; at most %llu can be registered",
			     total, VERBS_MAX_TOTAL_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
register_params(void)
{
	static const struct sample_param params[] = {
		{"c", "client", "<server IP>", "Run as the client and connect to this server (IPv4 address)",
		 DOCA_ARGP_TYPE_STRING, client_callback, false},
		{"d", "device", "<IB device name>", "IB device name", DOCA_ARGP_TYPE_STRING, device_callback, true},
		{"gid", "gid-index", "<index>", "GID index (default 0)", DOCA_ARGP_TYPE_INT, gid_index_callback, false},
		{"ro", "rdma-oper-type", "<type>", "RDMA operation: send, write or read (default send)",
		 DOCA_ARGP_TYPE_STRING, oper_callback, false},
		{"s", "buffer-size", "<bytes>", "Bytes per message (default 64)", DOCA_ARGP_TYPE_INT,
		 buffer_size_callback, false},
		{"qt", "qp-type", "<type>", "QP type: RC (default RC)", DOCA_ARGP_TYPE_STRING, qp_type_callback, false},
		{"n", "iters", "<num>", "Number of messages, 1..10000 (default 1)", DOCA_ARGP_TYPE_INT, iters_callback,
		 false},
		{"b", "send-burst", NULL, "Send all messages at once instead of asking for each burst's size",
		 DOCA_ARGP_TYPE_BOOLEAN, send_burst_callback, false},
	};
	doca_error_t result;

	result = sample_register_params(params, sizeof(params) / sizeof(params[0]));
	if (result != DOCA_SUCCESS)
		return result;
	return doca_argp_register_validation_callback(validate_config);
}

/* The run step: the sample function on the parsed configuration. */
static doca_error_t
run_sample(const void *cfg)
{
	return verbs_server_client((const struct verbs_config *)cfg);
}

int
main(int argc, char **argv)
{
	struct verbs_config cfg = {
		.oper = VERBS_OPER_SEND,
		.buf_size = VERBS_DEFAULT_BUF_SIZE,
		.qp_type = DOCA_VERBS_QP_TYPE_RC,
		.iters = 1,
	};

	return sample_main_with_params("verbs_server_client", "doca_verbs_server_client", DOCA_LOG_LEVEL_INFO, &cfg,
				       register_params, run_sample, argc, argv);
}
