/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The three optional JSON files of verbs_multi_rail_server_client (--qp-json, --dev-json,
 * --multi-rail-json), parsed with json-c.  Unknown keys and wrong types are errors naming the
 * file and the field, so a typo never silently keeps a default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <doca_log.h>

#include "mr_app.h"

DOCA_LOG_REGISTER(MR_APP_JSON);

#define MR_JSON_MAX_FILE (1 << 20)

void
mr_config_defaults(struct mr_config *cfg)
{
	cfg->chunks_total = MR_DEFAULT_CHUNKS_TOTAL;
	cfg->traffic = MR_TRAFFIC_WRITE;
	cfg->tcp_port = MR_DEFAULT_PORT;
	cfg->iterations = 1;
	cfg->progress_ms = 1000;
	cfg->qp = (struct mr_qp_cfg){.sq_depth = 64,
				     .rq_depth = 64,
				     .path_mtu = 1024,
				     .ack_timeout = 14,
				     .retry_cnt = 7,
				     .rnr_retry = 7,
				     .min_rnr_timer = 1};
	cfg->devs.num_devs = 2;
	snprintf(cfg->devs.ibdev[0], MR_NAME_MAX, "mlx5_0");
	snprintf(cfg->devs.ibdev[1], MR_NAME_MAX, "mlx5_1");
	cfg->rail = (struct mr_rail_cfg){.chunk_size = 16384,
					 .max_inflight_bytes = 1 << 20,
					 .stall_timeout_ms = 80,
					 .probe_interval_ms = 50,
					 .all_down_timeout_ms = 3000,
					 .reconnect = true,
					 .lb_mode = DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED,
					 .bw_decay_factor = 0.25,
					 .max_bw_drop_factor = 0.05,
					 .probe_count = 3,
					 .probe_timeout_s = 1};
}

/* Read and parse path; on failure log "<what> file <path>: <reason>". */
static doca_error_t
load(const char *what, const char *path, struct json_object **out)
{
	struct json_tokener *tok;
	struct json_object *obj;
	char *text;
	size_t len;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		DOCA_LOG_ERR("Failed to open the %s file %s: %s", what, path, strerror(errno));
		return DOCA_ERROR_BAD_CONFIG;
	}
	text = malloc(MR_JSON_MAX_FILE + 1);
	if (text == NULL) {
		fclose(f);
		return DOCA_ERROR_NO_MEMORY;
	}
	len = fread(text, 1, MR_JSON_MAX_FILE + 1, f);
	fclose(f);
	if (len > MR_JSON_MAX_FILE) {
		DOCA_LOG_ERR("The %s file %s is larger than %d bytes", what, path, MR_JSON_MAX_FILE);
		free(text);
		return DOCA_ERROR_BAD_CONFIG;
	}
	tok = json_tokener_new();
	if (tok == NULL) {
		free(text);
		return DOCA_ERROR_NO_MEMORY;
	}
	obj = json_tokener_parse_ex(tok, text, (int)len);
	if (obj == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    tok->char_offset < (int)len - (int)strspn(text + tok->char_offset, " \t\r\n")) {
		DOCA_LOG_ERR("The %s file %s is not valid JSON: %s (at byte %d)", what, path,
			     obj == NULL ? json_tokener_error_desc(json_tokener_get_error(tok))
					 : "text after the value",
			     tok->char_offset);
		json_object_put(obj);
		json_tokener_free(tok);
		free(text);
		return DOCA_ERROR_BAD_CONFIG;
	}
	json_tokener_free(tok);
	free(text);
	if (!json_object_is_type(obj, json_type_object)) {
		DOCA_LOG_ERR("The %s file %s: the top level must be an object", what, path);
		json_object_put(obj);
		return DOCA_ERROR_BAD_CONFIG;
	}
	*out = obj;
	return DOCA_SUCCESS;
}

/* An integer field in [min, max]. */
static doca_error_t
get_uint(const char *what, const char *path, const char *key, struct json_object *val, uint64_t min, uint64_t max,
	 uint64_t *out)
{
	int64_t v;

	if (!json_object_is_type(val, json_type_int)) {
		DOCA_LOG_ERR("The %s file %s: field \"%s\" must be an integer", what, path, key);
		return DOCA_ERROR_BAD_CONFIG;
	}
	v = json_object_get_int64(val);
	if (v < 0 || (uint64_t)v < min || (uint64_t)v > max) {
		DOCA_LOG_ERR("The %s file %s: field \"%s\" is %lld, must be %llu .. %llu", what, path, key,
			     (long long)v, (unsigned long long)min, (unsigned long long)max);
		return DOCA_ERROR_BAD_CONFIG;
	}
	*out = (uint64_t)v;
	return DOCA_SUCCESS;
}

/* An optional number field in (0, 1] (the library's factors). */
static doca_error_t
get_factor(const char *path, struct json_object *obj, const char *key, double *out)
{
	struct json_object *val;
	double v;

	if (!json_object_object_get_ex(obj, key, &val))
		return DOCA_SUCCESS;
	if (!json_object_is_type(val, json_type_double) && !json_object_is_type(val, json_type_int)) {
		DOCA_LOG_ERR("The multi-rail file %s: field \"%s\" must be a number", path, key);
		return DOCA_ERROR_BAD_CONFIG;
	}
	v = json_object_get_double(val);
	if (!(v > 0.0 && v <= 1.0)) {
		DOCA_LOG_ERR("The multi-rail file %s: field \"%s\" is %g, must be in (0, 1]", path, key, v);
		return DOCA_ERROR_BAD_CONFIG;
	}
	*out = v;
	return DOCA_SUCCESS;
}

struct uint_field {
	const char *key;
	uint64_t min, max;
	uint32_t *u32;
	uint64_t *u64;
};

/* Every key of obj must be one of fields (or extra_key, handled by the caller). */
static doca_error_t
parse_fields(const char *what, const char *path, struct json_object *obj, const struct uint_field *fields, size_t n,
	     const char *const *extra_keys)
{
	doca_error_t result;
	uint64_t v;
	size_t i;

	json_object_object_foreach(obj, key, val)
	{
		bool extra = false;

		for (i = 0; extra_keys != NULL && extra_keys[i] != NULL; i++)
			extra = extra || strcmp(key, extra_keys[i]) == 0;
		if (extra)
			continue;
		for (i = 0; i < n; i++)
			if (strcmp(key, fields[i].key) == 0)
				break;
		if (i == n) {
			DOCA_LOG_ERR("The %s file %s: unknown field \"%s\" (docs/multi-rail.md lists the fields)", what,
				     path, key);
			return DOCA_ERROR_BAD_CONFIG;
		}
		result = get_uint(what, path, key, val, fields[i].min, fields[i].max, &v);
		if (result != DOCA_SUCCESS)
			return result;
		if (fields[i].u32 != NULL)
			*fields[i].u32 = (uint32_t)v;
		else
			*fields[i].u64 = v;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
load_qp(struct mr_config *cfg)
{
	struct mr_qp_cfg *q = &cfg->qp;
	const struct uint_field fields[] = {
		{"sq_depth", 1, 8192, &q->sq_depth, NULL},	   {"rq_depth", 1, 8192, &q->rq_depth, NULL},
		{"path_mtu", 256, 4096, &q->path_mtu, NULL},	   {"ack_timeout", 0, 31, &q->ack_timeout, NULL},
		{"retry_cnt", 0, 7, &q->retry_cnt, NULL},	   {"rnr_retry", 0, 7, &q->rnr_retry, NULL},
		{"min_rnr_timer", 0, 31, &q->min_rnr_timer, NULL},
	};
	struct json_object *obj;
	doca_error_t result;

	result = load("QP", cfg->qp_json, &obj);
	if (result != DOCA_SUCCESS)
		return result;
	result = parse_fields("QP", cfg->qp_json, obj, fields, sizeof(fields) / sizeof(fields[0]), NULL);
	json_object_put(obj);
	if (result == DOCA_SUCCESS && (q->path_mtu & (q->path_mtu - 1)) != 0) {
		DOCA_LOG_ERR("The QP file %s: field \"path_mtu\" is %u, must be 256, 512, 1024, 2048 or 4096",
			     cfg->qp_json, q->path_mtu);
		result = DOCA_ERROR_BAD_CONFIG;
	}
	return result;
}

static doca_error_t
load_devs(struct mr_config *cfg)
{
	const char *path = cfg->dev_json;
	struct json_object *obj, *devs = NULL, *dev, *name;
	doca_error_t result = DOCA_ERROR_BAD_CONFIG;
	size_t i, n;

	if (load("device", path, &obj) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_CONFIG;
	json_object_object_foreach(obj, key, val)
	{
		if (strcmp(key, "devices") != 0) {
			DOCA_LOG_ERR("The device file %s: unknown field \"%s\" (only \"devices\")", path, key);
			goto out;
		}
		devs = val;
	}
	if (devs == NULL || !json_object_is_type(devs, json_type_array)) {
		DOCA_LOG_ERR("The device file %s: field \"devices\" must be an array of objects", path);
		goto out;
	}
	n = json_object_array_length(devs);
	if (n < 1 || n > MR_MAX_RAILS) {
		DOCA_LOG_ERR("The device file %s: field \"devices\" has %zu entries, must have 1 .. %d", path, n,
			     MR_MAX_RAILS);
		goto out;
	}
	for (i = 0; i < n; i++) {
		dev = json_object_array_get_idx(devs, i);
		name = NULL;
		if (!json_object_is_type(dev, json_type_object)) {
			DOCA_LOG_ERR("The device file %s: devices[%zu] must be an object", path, i);
			goto out;
		}
		json_object_object_foreach(dev, dkey, dval)
		{
			if (strcmp(dkey, "ibdev") != 0) {
				DOCA_LOG_ERR("The device file %s: devices[%zu]: unknown field \"%s\" (only \"ibdev\")",
					     path, i, dkey);
				goto out;
			}
			name = dval;
		}
		if (name == NULL || !json_object_is_type(name, json_type_string) ||
		    json_object_get_string_len(name) == 0 || json_object_get_string_len(name) >= MR_NAME_MAX) {
			DOCA_LOG_ERR("The device file %s: devices[%zu].ibdev must be a device name such as \"mlx5_0\"",
				     path, i);
			goto out;
		}
		snprintf(cfg->devs.ibdev[i], MR_NAME_MAX, "%s", json_object_get_string(name));
	}
	cfg->devs.num_devs = (uint32_t)n;
	result = DOCA_SUCCESS;
out:
	json_object_put(obj);
	return result;
}

static doca_error_t
load_rail(struct mr_config *cfg)
{
	struct mr_rail_cfg *r = &cfg->rail;
	const struct uint_field fields[] = {
		{"chunk_size", MR_CHUNK_HDR + 8, 1 << 26, &r->chunk_size, NULL},
		{"max_inflight_bytes", 1, 1ULL << 32, NULL, &r->max_inflight_bytes},
		{"stall_timeout_ms", 1, 60000, &r->stall_timeout_ms, NULL},
		{"probe_interval_ms", 1, 60000, &r->probe_interval_ms, NULL},
		{"all_down_timeout_ms", 1, 600000, &r->all_down_timeout_ms, NULL},
		{"min_splitable_message_size", 0, 1ULL << 40, NULL, &r->min_splitable_message_size},
		{"probe_count", 1, 1024, &r->probe_count, NULL},
		{"probe_timeout_s", 1, 3600, &r->probe_timeout_s, NULL},
	};
	static const char *const extra[] = {"reconnect", "lb_mode", "bw_decay_factor", "max_bw_drop_factor", NULL};
	struct json_object *obj, *val;
	const char *path = cfg->mr_json;
	doca_error_t result;

	result = load("multi-rail", path, &obj);
	if (result != DOCA_SUCCESS)
		return result;
	result = parse_fields("multi-rail", path, obj, fields, sizeof(fields) / sizeof(fields[0]), extra);
	if (result == DOCA_SUCCESS && json_object_object_get_ex(obj, "reconnect", &val)) {
		if (!json_object_is_type(val, json_type_boolean)) {
			DOCA_LOG_ERR("The multi-rail file %s: field \"reconnect\" must be true or false", path);
			result = DOCA_ERROR_BAD_CONFIG;
		} else {
			r->reconnect = json_object_get_boolean(val);
		}
	}
	if (result == DOCA_SUCCESS && json_object_object_get_ex(obj, "lb_mode", &val)) {
		const char *m = json_object_is_type(val, json_type_string) ? json_object_get_string(val) : "";

		if (strcmp(m, "round_robin") == 0) {
			r->lb_mode = DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN;
		} else if (strcmp(m, "bw_weighted") == 0) {
			r->lb_mode = DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED;
		} else {
			DOCA_LOG_ERR("The multi-rail file %s: field \"lb_mode\" must be \"round_robin\" or "
				     "\"bw_weighted\"",
				     path);
			result = DOCA_ERROR_BAD_CONFIG;
		}
	}
	if (result == DOCA_SUCCESS)
		result = get_factor(path, obj, "bw_decay_factor", &r->bw_decay_factor);
	if (result == DOCA_SUCCESS)
		result = get_factor(path, obj, "max_bw_drop_factor", &r->max_bw_drop_factor);
	json_object_put(obj);
	return result;
}

doca_error_t
mr_config_library(const struct mr_rail_cfg *r, struct doca_verbs_multi_rail_cfg **out)
{
	struct doca_verbs_multi_rail_cfg *c;
	uint64_t cs = r->chunk_size;
	doca_error_t result = doca_verbs_multi_rail_cfg_create(&c);

	if (result != DOCA_SUCCESS)
		return result;
	/* Cut only at chunk boundaries: each chunk keeps its own header and checksum. */
	result = doca_verbs_multi_rail_cfg_set_chunk_alignment(c, cs);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_min_chunk_size(c, cs);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_min_splitable_message_size(
			c, r->min_splitable_message_size != 0 ? r->min_splitable_message_size : 2 * cs);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_lb_mode(c, r->lb_mode);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_bw_decay_factor(c, r->bw_decay_factor);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_max_bw_drop_factor(c, r->max_bw_drop_factor);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_probe_count(c, r->probe_count);
	if (result == DOCA_SUCCESS)
		result = doca_verbs_multi_rail_cfg_set_probe_timeout_s(c, r->probe_timeout_s);
	if (result != DOCA_SUCCESS) {
		(void)doca_verbs_multi_rail_cfg_destroy(c);
		return result;
	}
	*out = c;
	return DOCA_SUCCESS;
}

doca_error_t
mr_config_load_files(struct mr_config *cfg)
{
	doca_error_t result = DOCA_SUCCESS;

	if (cfg->qp_json[0] != '\0')
		result = load_qp(cfg);
	if (result == DOCA_SUCCESS && cfg->dev_json[0] != '\0')
		result = load_devs(cfg);
	if (result == DOCA_SUCCESS && cfg->mr_json[0] != '\0')
		result = load_rail(cfg);
	if (result != DOCA_SUCCESS)
		return result;
	if (cfg->chunks_total < cfg->rail.chunk_size) {
		DOCA_LOG_ERR("--chunks-total (%llu) is smaller than one chunk (chunk_size %u)",
			     (unsigned long long)cfg->chunks_total, cfg->rail.chunk_size);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (cfg->chunks_total % cfg->rail.chunk_size != 0) {
		DOCA_LOG_ERR("--chunks-total (%llu) must be a multiple of chunk_size (%u)",
			     (unsigned long long)cfg->chunks_total, cfg->rail.chunk_size);
		return DOCA_ERROR_BAD_CONFIG;
	}
	return DOCA_SUCCESS;
}
