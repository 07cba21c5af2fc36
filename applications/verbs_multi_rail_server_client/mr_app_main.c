/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs_multi_rail_server_client: flags, then the set-up both sides share: the rails, the data
 * buffer registered on each, the TCP handshake and the exchange of GIDs, keys and QPNs, the RC
 * QPs to RTS and the UC probe QPs; then the client or the server runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "common.h"
#include "mr_app.h"
#include "verbs_common.h"

DOCA_LOG_REGISTER(MR_APP);

uint64_t
mr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- flags */

static doca_error_t
num_qps_cb(void *param, void *config)
{
	struct mr_config *cfg = config;
	int v = *(int *)param;

	if (v < 1 || v > MR_MAX_QPS) {
		DOCA_LOG_ERR("--num-qps must be 1 .. %d (got %d)", MR_MAX_QPS, v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->num_qps = (uint32_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t
path_cb(const char *flag, const char *value, char *dst)
{
	return copy_string_param(flag, value, dst, MR_PATH_MAX);
}

static doca_error_t
qp_json_cb(void *param, void *config)
{
	return path_cb("--qp-json", param, ((struct mr_config *)config)->qp_json);
}

static doca_error_t
dev_json_cb(void *param, void *config)
{
	return path_cb("--dev-json", param, ((struct mr_config *)config)->dev_json);
}

static doca_error_t
mr_json_cb(void *param, void *config)
{
	return path_cb("--multi-rail-json", param, ((struct mr_config *)config)->mr_json);
}

static doca_error_t
chunks_total_cb(void *param, void *config)
{
	struct mr_config *cfg = config;
	const char *s = param;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v == 0 || v > (1ULL << 34)) {
		DOCA_LOG_ERR("--chunks-total must be a number of bytes, 1 .. 16 GiB (got \"%.32s\")", s);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->chunks_total = v;
	return DOCA_SUCCESS;
}

static doca_error_t
traffic_cb(void *param, void *config)
{
	struct mr_config *cfg = config;
	const char *s = param;

	if (strcmp(s, "send") == 0)
		cfg->traffic = MR_TRAFFIC_SEND;
	else if (strcmp(s, "write") == 0)
		cfg->traffic = MR_TRAFFIC_WRITE;
	else {
		DOCA_LOG_ERR("--traffic must be send or write (got \"%.32s\")", s);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
server_cb(void *param, void *config)
{
	((struct mr_config *)config)->is_server = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
server_ip_cb(void *param, void *config)
{
	return copy_string_param("--server-ip", param, ((struct mr_config *)config)->server_ip, 64);
}

static doca_error_t
tcp_port_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v < 1 || v > 65535) {
		DOCA_LOG_ERR("--tcp-port must be 1 .. 65535 (got %d)", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct mr_config *)config)->tcp_port = (uint16_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t
multi_rail_cb(void *param, void *config)
{
	((struct mr_config *)config)->use_multi_rail = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
iterations_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v < 1) {
		DOCA_LOG_ERR("--iterations must be at least 1 (got %d)", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct mr_config *)config)->iterations = (uint32_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t
duration_cb(void *param, void *config)
{
	const char *s = param;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v > 0) || v > 86400) {
		DOCA_LOG_ERR("--duration must be seconds, > 0 (got \"%.32s\")", s);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct mr_config *)config)->duration = v;
	return DOCA_SUCCESS;
}

static doca_error_t
progress_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v < 0) {
		DOCA_LOG_ERR("--progress-ms must be >= 0 (got %d)", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct mr_config *)config)->progress_ms = (uint32_t)v;
	return DOCA_SUCCESS;
}

static const struct sample_param mr_params[] = {
	{NULL, "num-qps", "<n>", "RC QPs, spread over the rails (1 .. 4096, mandatory)", DOCA_ARGP_TYPE_INT, num_qps_cb,
	 true},
	{NULL, "qp-json", "<path>", "QP attributes (JSON)", DOCA_ARGP_TYPE_STRING, qp_json_cb, false},
	{NULL, "dev-json", "<path>", "the devices = the rails (JSON)", DOCA_ARGP_TYPE_STRING, dev_json_cb, false},
	{NULL, "multi-rail-json", "<path>", "multi-rail configuration (JSON)", DOCA_ARGP_TYPE_STRING, mr_json_cb,
	 false},
	{NULL, "chunks-total", "<bytes>", "bytes per iteration (default 131072)", DOCA_ARGP_TYPE_STRING,
	 chunks_total_cb, false},
	{NULL, "traffic", "<send|write>", "operation moving the data (default write)", DOCA_ARGP_TYPE_STRING,
	 traffic_cb, false},
	{NULL, "server", NULL, "run as the server (receiver)", DOCA_ARGP_TYPE_BOOLEAN, server_cb, false},
	{NULL, "server-ip", "<ip>", "the server's IPv4 address (client)", DOCA_ARGP_TYPE_STRING, server_ip_cb, false},
	{NULL, "tcp-port", "<port>", "TCP port of the handshake (default 5000)", DOCA_ARGP_TYPE_INT, tcp_port_cb,
	 false},
	{NULL, "use-multi-rail", NULL, "spread over every device (default: plain RC on the first)",
	 DOCA_ARGP_TYPE_BOOLEAN, multi_rail_cb, false},
	{NULL, "iterations", "<n>", "softdoca: move chunks-total n times (default 1)", DOCA_ARGP_TYPE_INT,
	 iterations_cb, false},
	{NULL, "duration", "<seconds>", "softdoca: repeat iterations for this long", DOCA_ARGP_TYPE_STRING, duration_cb,
	 false},
	{NULL, "progress-ms", "<ms>", "softdoca: progress line period (0: none; default 1000)", DOCA_ARGP_TYPE_INT,
	 progress_cb, false},
};

static doca_error_t
register_params(void)
{
	return sample_register_params(mr_params, sizeof(mr_params) / sizeof(mr_params[0]));
}

/* ---------------------------------------------------------------- set-up */

/* What each side sends about a rail, followed by num_qps QPNs. */
struct mr_rail_info {
	uint8_t gid[16];
	uint64_t buf_va;
	uint64_t probe_va;
	uint32_t rkey;
	uint32_t probe_rkey;
	uint32_t probe_qpn;
	uint32_t num_qps;
};

static doca_error_t
open_rails(struct mr_app *app)
{
	struct mr_config *cfg = app->cfg;
	doca_error_t result = DOCA_SUCCESS;
	uint32_t r, i;

	app->num_rails = cfg->use_multi_rail ? cfg->devs.num_devs : 1;
	if (cfg->num_qps < app->num_rails) {
		DOCA_LOG_ERR("--num-qps (%u) must be at least the number of rails (%u)", cfg->num_qps, app->num_rails);
		return DOCA_ERROR_INVALID_VALUE;
	}
	app->num_chunks = (uint32_t)(cfg->chunks_total / cfg->rail.chunk_size);
	/* MR_ITER_SLOTS iterations in flight: the client moves one while the server verifies the other. */
	app->buf_bytes = MR_ITER_SLOTS * cfg->chunks_total;
	app->buf = aligned_alloc(4096, (app->buf_bytes + 4095) & ~4095ULL);
	if (app->buf == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(app->buf, 0, app->buf_bytes);
	if (cfg->is_server && cfg->traffic == MR_TRAFFIC_SEND) {
		app->recv_slots_per_qp = cfg->qp.rq_depth;
		app->recv_buf = calloc((size_t)cfg->num_qps * app->recv_slots_per_qp, cfg->rail.chunk_size);
		if (app->recv_buf == NULL) {
			DOCA_LOG_ERR("Failed to allocate %u x %u receive buffers of %u bytes", cfg->num_qps,
				     app->recv_slots_per_qp, cfg->rail.chunk_size);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	for (r = 0; r < app->num_rails && result == DOCA_SUCCESS; r++) {
		struct mr_rail *rail = &app->rails[r];

		rail->index = r;
		snprintf(rail->ibdev, sizeof(rail->ibdev), "%s", cfg->devs.ibdev[r]);
		/* QP i is on rail i % num_rails. */
		for (i = r; i < cfg->num_qps; i += app->num_rails)
			rail->num_qps++;
		result = mr_rail_open(app, rail);
		if (result == DOCA_SUCCESS)
			result = mr_rail_register(app, rail);
		if (result == DOCA_SUCCESS)
			result = mr_rail_create_qps(app, rail, rail->num_qps, &rail->qps);
		if (result == DOCA_SUCCESS)
			result = mr_probe_create(app, rail);
	}
	return result;
}

static doca_error_t
exchange_rails(struct mr_app *app)
{
	uint32_t qpns[MR_MAX_QPS];
	struct mr_rail_info info;
	doca_error_t result;
	uint32_t r, i;

	for (r = 0; r < app->num_rails; r++) {
		struct mr_rail *rail = &app->rails[r];

		memcpy(info.gid, rail->gid, 16);
		info.buf_va = (uint64_t)(uintptr_t)app->buf;
		info.probe_va = (uint64_t)(uintptr_t)rail->probe_buf;
		info.rkey = rail->mr->rkey;
		info.probe_rkey = rail->probe_mr->rkey;
		info.probe_qpn = rail->probe_qpn;
		info.num_qps = rail->num_qps;
		for (i = 0; i < rail->num_qps; i++)
			qpns[i] = rail->qps[i].qpn;
		result = mr_oob_send(app->conn_fd, &(struct mr_msg){.type = MR_MSG_QPNS, .rail = r}, &info,
				     sizeof(info));
		if (result == DOCA_SUCCESS)
			result = mr_oob_send(app->conn_fd, &(struct mr_msg){.type = MR_MSG_QPNS, .rail = r}, qpns,
					     sizeof(uint32_t) * rail->num_qps);
		if (result != DOCA_SUCCESS)
			return result;
	}
	for (r = 0; r < app->num_rails; r++) {
		struct mr_rail *rail = &app->rails[r];
		struct mr_msg msg;

		result = mr_oob_recv(app->conn_fd, &msg, -1);
		if (result == DOCA_SUCCESS)
			result = mr_oob_recv_body(app->conn_fd, &info, sizeof(info));
		if (result == DOCA_SUCCESS &&
		    (msg.type != MR_MSG_QPNS || msg.rail != r || info.num_qps != rail->num_qps)) {
			DOCA_LOG_ERR("The peer's description of rail %u is not what this side expects", r);
			result = DOCA_ERROR_BAD_CONFIG;
		}
		if (result == DOCA_SUCCESS)
			result = mr_oob_recv(app->conn_fd, &msg, -1);
		if (result == DOCA_SUCCESS)
			result = mr_oob_recv_body(app->conn_fd, qpns, sizeof(uint32_t) * rail->num_qps);
		if (result != DOCA_SUCCESS)
			return result;
		memcpy(rail->remote_gid, info.gid, 16);
		app->remote_va = info.buf_va;
		app->remote_rkey[r] = info.rkey;
		rail->remote_probe_va = info.probe_va;
		rail->remote_probe_rkey = info.probe_rkey;
		rail->remote_probe_qpn = info.probe_qpn;
		for (i = 0; i < rail->num_qps; i++)
			rail->qps[i].remote_qpn = qpns[i];
	}
	return DOCA_SUCCESS;
}

static doca_error_t
connect_rails(struct mr_app *app)
{
	doca_error_t result = DOCA_SUCCESS;
	uint32_t r, i;

	for (r = 0; r < app->num_rails && result == DOCA_SUCCESS; r++) {
		struct mr_rail *rail = &app->rails[r];

		for (i = 0; i < rail->num_qps && result == DOCA_SUCCESS; i++)
			result = mr_qp_connect(app, rail, rail->qps[i].qp, rail->qps[i].remote_qpn, false);
		if (result == DOCA_SUCCESS)
			result = mr_qp_connect(app, rail, rail->probe_qp, rail->remote_probe_qpn, true);
		rail->up_since_ns = mr_now_ns();
	}
	if (result == DOCA_SUCCESS)
		DOCA_LOG_INFO("%u RC QP(s) on %u rail(s) in RTS; UC probe QPs connected", app->cfg->num_qps,
			      app->num_rails);
	return result;
}

static doca_error_t
run(struct mr_app *app)
{
	struct mr_config *cfg = app->cfg;
	doca_error_t result;

	result = mr_config_load_files(cfg);
	if (result != DOCA_SUCCESS)
		return result;
	if (!cfg->is_server && cfg->server_ip[0] == '\0') {
		DOCA_LOG_ERR("The client needs --server-ip (or run with --server)");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* The handshake comes first: a mismatch is reported before any device is touched. */
	if (cfg->is_server) {
		result = mr_oob_listen(cfg->tcp_port, &app->listen_fd);
		if (result == DOCA_SUCCESS)
			result = mr_oob_accept(app->listen_fd, &app->conn_fd);
	} else {
		result = mr_oob_connect(cfg->server_ip, cfg->tcp_port, &app->conn_fd);
	}
	if (result == DOCA_SUCCESS)
		result = mr_oob_handshake(app->conn_fd, cfg);
	if (result != DOCA_SUCCESS)
		return result;
	/* The recovery channel: the client's second connection. */
	if (cfg->is_server)
		result = mr_oob_accept(app->listen_fd, &app->rec_fd);
	else
		result = mr_oob_connect(cfg->server_ip, cfg->tcp_port, &app->rec_fd);
	if (result == DOCA_SUCCESS)
		result = open_rails(app);
	if (result == DOCA_SUCCESS)
		result = exchange_rails(app);
	if (result == DOCA_SUCCESS)
		result = connect_rails(app);
	if (result != DOCA_SUCCESS)
		return result;
	return cfg->is_server ? mr_server_run(app) : mr_client_run(app);
}

int
main(int argc, char **argv)
{
	struct mr_config cfg = {0};
	struct mr_app app = {.cfg = &cfg, .listen_fd = -1, .conn_fd = -1, .rec_fd = -1};
	doca_error_t result;
	uint32_t r;

	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	mr_config_defaults(&cfg);
	pthread_mutex_init(&app.lock, NULL);
	result = doca_argp_init("doca_verbs_multi_rail_server_client", &cfg);
	if (result == DOCA_SUCCESS)
		result = register_params();
	if (result == DOCA_SUCCESS)
		result = doca_argp_start(argc, argv);
	if (result == DOCA_SUCCESS)
		result = run(&app);
	mr_recovery_stop(&app);
	for (r = 0; r < app.num_rails; r++)
		(void)mr_rail_close(&app.rails[r]);
	free(app.buf);
	free(app.recv_buf);
	mr_oob_close(&app.rec_fd);
	mr_oob_close(&app.conn_fd);
	mr_oob_close(&app.listen_fd);
	doca_argp_destroy();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("verbs_multi_rail_server_client failed: %s (%s)", doca_error_get_descr(result),
			     doca_error_get_name(result));
		return EXIT_FAILURE;
	}
	DOCA_LOG_INFO("verbs_multi_rail_server_client finished successfully");
	return EXIT_SUCCESS;
}
