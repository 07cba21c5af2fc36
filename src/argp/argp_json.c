/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp -j/--json: flags read from a JSON file.  The file is an object whose
 * keys are the flags' long names, either flat or in DOCA's sections
 * "doca_general_flags" / "doca_program_flags" (and "doca_dpdk_flags", which is
 * ignored).  Values must have the JSON type of the flag; a multiplicity flag
 * may take an array.  The file is untrusted input: size-limited, and every
 * malformed piece is an error, never a crash.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "argp_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(argp.json);

/* A flags file is small; refuse anything that is clearly not one. */
#define ARGP_JSON_MAX_SIZE (16u << 20)

struct json_ctx {
	const char *path;
	struct doca_argp_cmd *cmd;
	const struct argp_occ_list *cli;
	struct argp_occ_list *out;
	int *log_level;
	int *sdk_log_level;
};

static doca_error_t
read_file(const char *path, char **data, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = NULL;
	FILE *f;

	f = fopen(path, "r");
	if (f == NULL) {
		sd_argp_error("Cannot open JSON file \"%s\": %s", path, strerror(errno));
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (;;) {
		size_t got;

		if (buf == NULL || n == cap) {
			char *bigger;

			if (buf != NULL)
				cap *= 2;
			bigger = realloc(buf, cap + 1);
			if (bigger == NULL) {
				sd_argp_error("Out of memory reading JSON file \"%s\"", path);
				goto fail;
			}
			buf = bigger;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n > ARGP_JSON_MAX_SIZE) {
			sd_argp_error("JSON file \"%s\" is larger than %u bytes; it is not a flags file", path,
				      ARGP_JSON_MAX_SIZE);
			goto fail;
		}
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		/* Directories open fine and fail here (EISDIR). */
		sd_argp_error("Cannot read JSON file \"%s\": %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return DOCA_SUCCESS;
fail:
	free(buf);
	fclose(f);
	return DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t
parse_text(const char *path, const char *data, size_t len, struct json_object **root)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	struct json_object *obj;
	size_t end;

	if (tok == NULL) {
		sd_argp_error("Out of memory parsing JSON file \"%s\"", path);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (len > INT_MAX)
		len = INT_MAX;
	obj = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	/* An empty or truncated file leaves the tokener waiting for more ("continue"). */
	if (obj == NULL || jerr != json_tokener_success) {
		sd_argp_error("JSON file \"%s\" is malformed at byte %zu: %s", path, end,
			      jerr == json_tokener_continue ? "unexpected end of file" : json_tokener_error_desc(jerr));
		json_object_put(obj);
		return DOCA_ERROR_INVALID_VALUE;
	}
	end += strspn(data + end, " \t\r\n");
	if (end < len) {
		sd_argp_error("JSON file \"%s\" is malformed at byte %zu: text after the top-level object", path, end);
		json_object_put(obj);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		sd_argp_error("JSON file \"%s\" must hold an object of flags, not a %s", path,
			      json_type_to_name(json_object_get_type(obj)));
		json_object_put(obj);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*root = obj;
	return DOCA_SUCCESS;
}

static const char *
type_name(enum doca_argp_type type)
{
	switch (type) {
	case DOCA_ARGP_TYPE_STRING:
		return "a string";
	case DOCA_ARGP_TYPE_INT:
		return "an integer";
	case DOCA_ARGP_TYPE_BOOLEAN:
		return "a boolean";
	case DOCA_ARGP_TYPE_JSON_OBJ:
		return "an object";
	default:
		return "?";
	}
}

static bool
json_int(struct json_object *val, int *out)
{
	int64_t v;

	if (!json_object_is_type(val, json_type_int))
		return false;
	v = json_object_get_int64(val);
	/* json-c saturates values beyond int64; anything outside int is refused. */
	if (v < INT_MIN || v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

/*
 * Check one value of a program flag and, when keep, append it; val is a member
 * of the tree kept alive by out->root.
 */
static doca_error_t
add_value(struct json_ctx *ctx, const char *key, struct doca_argp_param *param, struct json_object *val, bool keep)
{
	struct argp_occ occ = {.param = param};
	bool ok = false;

	switch (param->type) {
	case DOCA_ARGP_TYPE_STRING:
		ok = json_object_is_type(val, json_type_string);
		occ.v.str = ok ? json_object_get_string(val) : NULL;
		break;
	case DOCA_ARGP_TYPE_INT:
		ok = json_int(val, &occ.v.i);
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		ok = json_object_is_type(val, json_type_boolean);
		occ.v.b = ok && json_object_get_boolean(val);
		break;
	case DOCA_ARGP_TYPE_JSON_OBJ:
		ok = json_object_is_type(val, json_type_object);
		occ.v.obj = val;
		break;
	default:
		break;
	}
	if (!ok) {
		sd_argp_error("JSON key \"%s\" in \"%s\" must be %s%s, not %s (%s)", key, ctx->path,
			      type_name(param->type), param->type == DOCA_ARGP_TYPE_INT ? " within int" : "",
			      json_type_to_name(json_object_get_type(val)), json_object_to_json_string(val));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!keep)
		return DOCA_SUCCESS;
	/* The occurrence list holds its own reference to an object value. */
	if (param->type == DOCA_ARGP_TYPE_JSON_OBJ)
		json_object_get(val);
	if (sd_argp_occ_add(ctx->out, &occ) != DOCA_SUCCESS) {
		if (param->type == DOCA_ARGP_TYPE_JSON_OBJ)
			json_object_put(val);
		sd_argp_error("Out of memory reading JSON file \"%s\"", ctx->path);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
handle_builtin(struct json_ctx *ctx, const struct argp_builtin_flag *b, const char *key, struct json_object *val)
{
	int *slot;
	int level;

	if (b->id != ARGP_BUILTIN_LOG_LEVEL && b->id != ARGP_BUILTIN_SDK_LOG_LEVEL) {
		sd_argp_error("JSON key \"%s\" in \"%s\": --%s can only be given on the command line", key, ctx->path,
			      b->long_name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	slot = b->id == ARGP_BUILTIN_LOG_LEVEL ? ctx->log_level : ctx->sdk_log_level;
	if (!json_int(val, &level) || !sd_argp_log_level_valid(level)) {
		sd_argp_error("JSON key \"%s\" in \"%s\" must be a log level 10, 20, ..., 70, not %s", key, ctx->path,
			      json_object_to_json_string(val));
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* The command line wins, and of two JSON occurrences (flat and in a section) the first. */
	if (*slot < 0)
		*slot = level;
	else
		DOCA_LOG_DBG("argp: JSON \"%s\" ignored, the level was already given", key);
	return DOCA_SUCCESS;
}

static doca_error_t
handle_key(struct json_ctx *ctx, const char *key, struct json_object *val)
{
	const struct argp_builtin_flag *b = sd_argp_find_builtin(key, true);
	struct doca_argp_param *param;
	doca_error_t err;
	char disp[160];
	bool keep;

	if (b != NULL)
		return handle_builtin(ctx, b, key, val);
	param = sd_argp_find_param(ctx->cmd, key, true);
	if (param == NULL) {
		/* A flag with only a short name uses that name as its key. */
		param = sd_argp_find_param(ctx->cmd, key, false);
		if (param != NULL && param->long_name != NULL)
			param = NULL;
	}
	if (param == NULL) {
		sd_argp_error("Unknown flag \"%s\" in JSON file \"%s\"", key, ctx->path);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	sd_argp_param_display(param, disp, sizeof(disp));
	if (param->cli_only) {
		sd_argp_error("Flag %s can only be given on the command line, not in JSON file \"%s\"", disp,
			      ctx->path);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_argp_occ_count(ctx->out, param) > 0 && !param->multiplicity) {
		sd_argp_error("Flag %s appears more than once in JSON file \"%s\"", disp, ctx->path);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* A flag also given on the command line is still checked: a broken file is refused as a whole. */
	keep = sd_argp_occ_count(ctx->cli, param) == 0;
	if (!keep)
		DOCA_LOG_DBG("argp: JSON key \"%s\" ignored, %s was given on the command line", key, disp);
	if (json_object_is_type(val, json_type_array) && param->multiplicity) {
		size_t n = json_object_array_length(val);

		for (size_t i = 0; i < n; i++) {
			err = add_value(ctx, key, param, json_object_array_get_idx(val, i), keep);
			if (err != DOCA_SUCCESS)
				return err;
		}
		return DOCA_SUCCESS;
	}
	return add_value(ctx, key, param, val, keep);
}

static bool
is_section(const char *key)
{
	return strcmp(key, "doca_general_flags") == 0 || strcmp(key, "doca_program_flags") == 0;
}

static doca_error_t
walk(struct json_ctx *ctx, struct json_object *obj, bool top)
{
	doca_error_t err;

	json_object_object_foreach(obj, key, val)
	{
		if (top && is_section(key)) {
			if (!json_object_is_type(val, json_type_object)) {
				sd_argp_error("JSON key \"%s\" in \"%s\" must be an object of flags, not %s", key,
					      ctx->path, json_type_to_name(json_object_get_type(val)));
				return DOCA_ERROR_INVALID_VALUE;
			}
			err = walk(ctx, val, false);
		} else if (top && strcmp(key, "doca_dpdk_flags") == 0) {
			DOCA_LOG_WARN("argp: \"doca_dpdk_flags\" in JSON file \"%s\" ignored; give DPDK flags on the "
				      "command line before \"--\"",
				      ctx->path);
			err = DOCA_SUCCESS;
		} else {
			err = handle_key(ctx, key, val);
		}
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_argp_json_load(const char *path, struct doca_argp_cmd *cmd, const struct argp_occ_list *cli,
		  struct argp_occ_list *json_occ, int *log_level, int *sdk_log_level)
{
	struct json_ctx ctx = {
		.path = path,
		.cmd = cmd,
		.cli = cli,
		.out = json_occ,
		.log_level = log_level,
		.sdk_log_level = sdk_log_level,
	};
	struct json_object *root;
	doca_error_t err;
	size_t len;
	char *data;

	err = read_file(path, &data, &len);
	if (err != DOCA_SUCCESS)
		return err;
	err = parse_text(path, data, len, &root);
	free(data);
	if (err != DOCA_SUCCESS)
		return err;
	/* The STRING values point into the tree: it lives as long as the list. */
	json_occ->root = root;
	return walk(&ctx, root, true);
}
