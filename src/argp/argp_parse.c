/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp_start(): the command line is read in two phases.  Phase one turns
 * argv (and the -j file) into a list of flag occurrences with converted values
 * and checks everything that can be checked without the program (unknown
 * flags, values, repeats, mandatory flags).  Only when all of it is valid does
 * phase two apply the log levels and call the callbacks, so a bad command line
 * has no side effect on the program's configuration.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <doca_version.h>

#include "argp_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(argp.parse);

struct parse_ctx {
	struct doca_argp_cmd *selected; /* innermost command word seen so far */
	struct argp_occ_list cli;
	struct argp_occ_list json;
	const char *json_path;
	int log_level;	   /* -1: not given */
	int sdk_log_level; /* -1: not given */
};

doca_error_t
sd_argp_occ_add(struct argp_occ_list *list, const struct argp_occ *occ)
{
	if (list->num == list->cap) {
		size_t cap = list->cap != 0 ? list->cap * 2 : 16;
		struct argp_occ *items = realloc(list->items, cap * sizeof(*items));

		if (items == NULL)
			return DOCA_ERROR_NO_MEMORY;
		list->items = items;
		list->cap = cap;
	}
	list->items[list->num++] = *occ;
	return DOCA_SUCCESS;
}

void
sd_argp_occ_clear(struct argp_occ_list *list)
{
	for (size_t i = 0; i < list->num; i++)
		if (list->items[i].param->type == DOCA_ARGP_TYPE_JSON_OBJ)
			json_object_put(list->items[i].v.obj);
	free(list->items);
	if (list->root != NULL)
		json_object_put(list->root);
	memset(list, 0, sizeof(*list));
}

size_t
sd_argp_occ_count(const struct argp_occ_list *list, const struct doca_argp_param *param)
{
	size_t n = 0;

	for (size_t i = 0; i < list->num; i++)
		n += list->items[i].param == param;
	return n;
}

doca_error_t
sd_argp_parse_int(const char *text, int *value)
{
	const char *digits = text;
	int base = 10;
	long long v;
	char *end;

	/* strtoll would skip leading blanks; a value such as " 5" is a typo, not 5. */
	if (text[0] == '\0' || text[0] == ' ' || text[0] == '\t')
		return DOCA_ERROR_INVALID_VALUE;
	if (*digits == '-' || *digits == '+')
		digits++;
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		base = 16;
	errno = 0;
	v = strtoll(text, &end, base);
	if (end == text || *end != '\0')
		return DOCA_ERROR_INVALID_VALUE;
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	*value = (int)v;
	return DOCA_SUCCESS;
}

bool
sd_argp_log_level_valid(long long level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE && level % 10 == 0;
}

/* A command-line token naming a flag we know, e.g. "-cm" or "--json=x". */
static bool
is_known_flag(struct doca_argp_cmd *cmd, const char *tok)
{
	bool is_long;
	char *name;
	bool known;

	if (tok[0] != '-' || tok[1] == '\0')
		return false;
	is_long = tok[1] == '-';
	name = strndup(tok + (is_long ? 2 : 1), strcspn(tok + (is_long ? 2 : 1), "="));
	if (name == NULL)
		return false;
	known = sd_argp_find_builtin(name, is_long) != NULL || sd_argp_find_param(cmd, name, is_long) != NULL;
	free(name);
	return known;
}

static void
print_versions(void)
{
	printf("DOCA SDK     Version (Compilation): %s\n", DOCA_VERSION_STRING);
	printf("DOCA Runtime Version (Runtime):     %s\n", doca_version_runtime());
	fflush(stdout);
}

/*
 * -v: the version callback (or the DOCA versions) then exit(EXIT_SUCCESS).
 * Returns only when the version callback fails.
 */
static doca_error_t
handle_version(void)
{
	doca_error_t err;

	if (sd_argp.version_cb == NULL) {
		print_versions();
		exit(EXIT_SUCCESS);
	}
	err = sd_argp.version_cb(NULL, sd_argp.config);
	if (err != DOCA_SUCCESS) {
		sd_argp_error("The version callback failed: %s", doca_error_get_name(err));
		return err;
	}
	fflush(stdout);
	exit(EXIT_SUCCESS);
}

static doca_error_t
handle_builtin(struct parse_ctx *ctx, const struct argp_builtin_flag *b, const char *flag, const char *value)
{
	int level;
	int *slot;

	switch (b->id) {
	case ARGP_BUILTIN_HELP:
		/* DOCA behaviour: -h prints the usage and ends the program successfully. */
		sd_argp_print_usage(stdout, ctx->selected);
		exit(EXIT_SUCCESS);
	case ARGP_BUILTIN_VERSION:
		return handle_version();
	case ARGP_BUILTIN_JSON:
		if (ctx->json_path != NULL) {
			sd_argp_error("Flag %s given more than once; give one JSON file", flag);
			return DOCA_ERROR_INVALID_VALUE;
		}
		ctx->json_path = value;
		return DOCA_SUCCESS;
	case ARGP_BUILTIN_LOG_LEVEL:
	case ARGP_BUILTIN_SDK_LOG_LEVEL:
		slot = b->id == ARGP_BUILTIN_LOG_LEVEL ? &ctx->log_level : &ctx->sdk_log_level;
		if (*slot >= 0) {
			sd_argp_error("Flag %s given more than once", flag);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (sd_argp_parse_int(value, &level) != DOCA_SUCCESS || !sd_argp_log_level_valid(level)) {
			sd_argp_error("Invalid value \"%s\" for flag %s; use a log level 10, 20, ..., 70", value, flag);
			return DOCA_ERROR_INVALID_VALUE;
		}
		*slot = level;
		return DOCA_SUCCESS;
	case ARGP_BUILTIN_NONE:
		break;
	}
	return DOCA_ERROR_UNEXPECTED;
}

static doca_error_t
handle_param(struct parse_ctx *ctx, struct doca_argp_param *param, const char *value)
{
	struct argp_occ occ = {.param = param};
	enum json_tokener_error jerr;
	char disp[160];
	doca_error_t err;

	sd_argp_param_display(param, disp, sizeof(disp));
	if (!param->multiplicity && sd_argp_occ_count(&ctx->cli, param) > 0) {
		sd_argp_error("Flag %s given more than once; it takes one value", disp);
		return DOCA_ERROR_INVALID_VALUE;
	}
	switch (param->type) {
	case DOCA_ARGP_TYPE_STRING:
		occ.v.str = value;
		break;
	case DOCA_ARGP_TYPE_INT:
		if (sd_argp_parse_int(value, &occ.v.i) != DOCA_SUCCESS) {
			sd_argp_error("Invalid value \"%s\" for flag %s; expected an integer in [%d, %d]", value, disp,
				      INT_MIN, INT_MAX);
			return DOCA_ERROR_INVALID_VALUE;
		}
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		occ.v.b = true;
		break;
	case DOCA_ARGP_TYPE_JSON_OBJ:
		occ.v.obj = json_tokener_parse_verbose(value, &jerr);
		if (occ.v.obj == NULL || !json_object_is_type(occ.v.obj, json_type_object)) {
			sd_argp_error("Invalid value for flag %s; expected a JSON object (%s)", disp,
				      occ.v.obj == NULL ? json_tokener_error_desc(jerr) : "not an object");
			json_object_put(occ.v.obj);
			return DOCA_ERROR_INVALID_VALUE;
		}
		break;
	default:
		return DOCA_ERROR_UNEXPECTED;
	}
	err = sd_argp_occ_add(&ctx->cli, &occ);
	if (err != DOCA_SUCCESS) {
		if (param->type == DOCA_ARGP_TYPE_JSON_OBJ)
			json_object_put(occ.v.obj);
		sd_argp_error("Out of memory while parsing the command line");
	}
	return err;
}

/* One flag token at tok[*i]; a separate value, if any, is consumed by advancing *i. */
static doca_error_t
parse_flag(struct parse_ctx *ctx, char **tok, int num, int *i)
{
	const char *t = tok[*i];
	bool is_long = t[1] == '-';
	const char *name_start = t + (is_long ? 2 : 1);
	size_t name_len = strcspn(name_start, "=");
	const char *value = name_start[name_len] == '=' ? name_start + name_len + 1 : NULL;
	const struct argp_builtin_flag *b = NULL;
	struct doca_argp_param *param = NULL;
	bool takes_value;
	doca_error_t err;
	char *name;

	name = strndup(name_start, name_len);
	if (name == NULL) {
		sd_argp_error("Out of memory while parsing the command line");
		return DOCA_ERROR_NO_MEMORY;
	}
	if (name_len > 0) {
		b = sd_argp_find_builtin(name, is_long);
		if (b == NULL)
			param = sd_argp_find_param(ctx->selected, name, is_long);
	}
	free(name);
	if (b == NULL && param == NULL) {
		sd_argp_error("Unknown flag %.*s", (int)(name_start - t + name_len), t);
		return DOCA_ERROR_NOT_SUPPORTED;
	}

	if (b != NULL)
		takes_value = b->arguments != NULL;
	else
		takes_value = param->type != DOCA_ARGP_TYPE_BOOLEAN;
	if (!takes_value && value != NULL) {
		sd_argp_error("Flag %.*s takes no value (got \"%s\")", (int)(name_start - t + name_len), t, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (takes_value && value == NULL) {
		/*
		 * The next token is the value, whatever it starts with ("-5" is a
		 * number), unless it is one of our flags: "-d -cm" forgot the device.
		 */
		if (*i + 1 >= num || is_known_flag(ctx->selected, tok[*i + 1])) {
			const char *args = b != NULL ? b->arguments : param->arguments;

			sd_argp_error("Flag %s requires a value%s%s", t, args != NULL ? " " : "",
				      args != NULL ? args : "");
			return DOCA_ERROR_INVALID_VALUE;
		}
		*i += 1;
		value = tok[*i];
	}
	if (b != NULL)
		err = handle_builtin(ctx, b, t, value);
	else
		err = handle_param(ctx, param, value);
	return err;
}

static doca_error_t
parse_tokens(struct parse_ctx *ctx, char **tok, int num)
{
	doca_error_t err;

	for (int i = 0; i < num; i++) {
		const char *t = tok[i];
		struct doca_argp_cmd *cmd;

		if (t[0] == '-' && t[1] != '\0') {
			err = parse_flag(ctx, tok, num, &i);
			if (err != DOCA_SUCCESS)
				return err;
			continue;
		}
		/* A word: the next command, or a mistake. */
		cmd = sd_argp_find_cmd(ctx->selected, t);
		if (cmd == NULL) {
			bool has_cmds = !sd_list_empty(ctx->selected != NULL ? &ctx->selected->cmds : &sd_argp.cmds);

			if (has_cmds)
				sd_argp_error("Unknown command \"%s\"", t);
			else
				sd_argp_error("Unexpected argument \"%s\"; flags start with '-' or '--'", t);
			return DOCA_ERROR_NOT_SUPPORTED;
		}
		ctx->selected = cmd;
	}
	return DOCA_SUCCESS;
}

/* Count the occurrences of param in both lists. */
static size_t
given(const struct parse_ctx *ctx, const struct doca_argp_param *param)
{
	return sd_argp_occ_count(&ctx->cli, param) + sd_argp_occ_count(&ctx->json, param);
}

static doca_error_t
check_mandatory_in(const struct parse_ctx *ctx, struct sd_list *params)
{
	struct sd_list *pos;
	char disp[160];

	sd_list_for_each(pos, params)
	{
		struct doca_argp_param *p = sd_container_of(pos, struct doca_argp_param, node);

		if (!p->mandatory || given(ctx, p) > 0)
			continue;
		sd_argp_param_display(p, disp, sizeof(disp));
		sd_argp_error("Missing mandatory flag %s%s%s", disp, p->arguments != NULL ? " " : "",
			      p->arguments != NULL ? p->arguments : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/*
 * A singular flag must be alone (and then excuses the mandatory ones);
 * otherwise every mandatory flag of the program and of the selected commands
 * must be present.
 */
static doca_error_t
check_presence(const struct parse_ctx *ctx)
{
	const struct argp_occ_list *lists[2] = {&ctx->json, &ctx->cli};
	struct doca_argp_param *singular = NULL;
	doca_error_t err;
	char disp[160];

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->num && singular == NULL; i++)
			if (lists[l]->items[i].param->singular)
				singular = lists[l]->items[i].param;
	if (singular != NULL) {
		if (given(ctx, singular) != ctx->cli.num + ctx->json.num) {
			sd_argp_param_display(singular, disp, sizeof(disp));
			sd_argp_error("Flag %s must be used alone, without other program flags", disp);
			return DOCA_ERROR_INVALID_VALUE;
		}
		return DOCA_SUCCESS;
	}
	err = check_mandatory_in(ctx, &sd_argp.params);
	for (struct doca_argp_cmd *c = ctx->selected; c != NULL && err == DOCA_SUCCESS; c = c->parent)
		err = check_mandatory_in(ctx, &c->params);
	return err;
}

static doca_error_t
apply_log_levels(const struct parse_ctx *ctx)
{
	doca_error_t err;

	if (ctx->log_level >= 0) {
		err = doca_log_level_set_global_lower_limit((uint32_t)ctx->log_level);
		if (err != DOCA_SUCCESS) {
			sd_argp_error("Could not set the log level to %d: %s", ctx->log_level,
				      doca_error_get_name(err));
			return err;
		}
		sd_argp.log_level = ctx->log_level;
	}
	if (ctx->sdk_log_level >= 0) {
		err = doca_log_level_set_global_sdk_limit((uint32_t)ctx->sdk_log_level);
		if (err != DOCA_SUCCESS) {
			sd_argp_error("Could not set the SDK log level to %d: %s", ctx->sdk_log_level,
				      doca_error_get_name(err));
			return err;
		}
		sd_argp.sdk_log_level = ctx->sdk_log_level;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
call_param(const struct argp_occ *occ)
{
	struct doca_argp_param *p = occ->param;
	doca_error_t err;
	char disp[160];
	char *copy;
	bool b;
	int v;

	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		/* The callback gets its own copy: argv and the JSON tree stay intact. */
		copy = strdup(occ->v.str);
		if (copy == NULL) {
			sd_argp_error("Out of memory while calling a flag callback");
			return DOCA_ERROR_NO_MEMORY;
		}
		err = p->callback(copy, sd_argp.config);
		free(copy);
		break;
	case DOCA_ARGP_TYPE_INT:
		v = occ->v.i;
		err = p->callback(&v, sd_argp.config);
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		b = occ->v.b;
		err = p->callback(&b, sd_argp.config);
		break;
	default:
		err = p->callback(occ->v.obj, sd_argp.config);
		break;
	}
	if (err != DOCA_SUCCESS) {
		sd_argp_param_display(p, disp, sizeof(disp));
		sd_argp_error("Failed to handle flag %s: its callback returned %s", disp, doca_error_get_name(err));
	}
	return err;
}

static doca_error_t
call_cmds(struct doca_argp_cmd *cmd)
{
	doca_error_t err;

	if (cmd == NULL)
		return DOCA_SUCCESS;
	err = call_cmds(cmd->parent);
	if (err != DOCA_SUCCESS || cmd->callback == NULL)
		return err;
	err = cmd->callback(sd_argp.config);
	if (err != DOCA_SUCCESS)
		sd_argp_error("Command \"%s\" failed: its callback returned %s", cmd->name, doca_error_get_name(err));
	return err;
}

/* Phase two: everything was valid; hand it to the program. */
static doca_error_t
run_callbacks(const struct parse_ctx *ctx)
{
	const struct argp_occ_list *lists[2] = {&ctx->json, &ctx->cli};
	doca_error_t err;

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->num; i++) {
			err = call_param(&lists[l]->items[i]);
			if (err != DOCA_SUCCESS)
				return err;
		}
	err = call_cmds(ctx->selected);
	if (err != DOCA_SUCCESS)
		return err;
	if (sd_argp.validation_cb != NULL) {
		err = sd_argp.validation_cb(sd_argp.config);
		if (err != DOCA_SUCCESS) {
			sd_argp_error("The program's validation of the flags failed: %s", doca_error_get_name(err));
			return err;
		}
	}
	return DOCA_SUCCESS;
}

/*
 * DPDK programs: "prog <DPDK flags> -- <DOCA flags>".  Fills *dpdk_argv (argv[0]
 * plus the DPDK part) and returns the index of the first argp token.
 */
static doca_error_t
split_dpdk(int argc, char **argv, char ***dpdk_argv, int *dpdk_argc, int *first)
{
	int sep = -1;
	char **dv;

	for (int i = 1; i < argc && sep < 0; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	dv = calloc((size_t)(sep > 0 ? sep : 1) + 1, sizeof(*dv));
	if (dv == NULL)
		return DOCA_ERROR_NO_MEMORY;
	dv[0] = argc > 0 ? argv[0] : (char *)"";
	if (sep > 0) {
		for (int i = 1; i < sep; i++)
			dv[i] = argv[i];
		*dpdk_argc = sep;
		*first = sep + 1;
	} else {
		*dpdk_argc = 1;
		*first = 1;
	}
	*dpdk_argv = dv;
	return DOCA_SUCCESS;
}

static doca_error_t
set_program_name(int argc, char **argv)
{
	const char *base = "program";

	if (sd_argp.program_name != NULL)
		return DOCA_SUCCESS;
	if (argc > 0 && argv[0][0] != '\0') {
		const char *slash = strrchr(argv[0], '/');

		base = slash != NULL && slash[1] != '\0' ? slash + 1 : argv[0];
	}
	sd_argp.program_name = strdup(base);
	return sd_argp.program_name != NULL ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

doca_error_t
doca_argp_start(int argc, char **argv)
{
	struct parse_ctx ctx = {.log_level = -1, .sdk_log_level = -1};
	char **dpdk_argv = NULL;
	int dpdk_argc = 0;
	int first = 1;
	doca_error_t err;

	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_start: argp is not initialised; call doca_argp_init() first");
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_argp.started) {
		DOCA_LOG_ERR("doca_argp_start: already called; call doca_argp_destroy() and doca_argp_init() "
			     "to parse again");
		return DOCA_ERROR_BAD_STATE;
	}
	if (argc < 0 || (argc > 0 && argv == NULL)) {
		DOCA_LOG_ERR("doca_argp_start: invalid arguments (argc %d, argv %p); pass main()'s argc and argv", argc,
			     (void *)argv);
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (int i = 0; i < argc; i++) {
		if (argv[i] == NULL) {
			DOCA_LOG_ERR("doca_argp_start: argv[%d] is NULL while argc is %d", i, argc);
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	sd_argp.started = true;
	err = set_program_name(argc, argv);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_argp_start: out of memory copying the program name");
		return err;
	}

	if (sd_argp.dpdk_cb != NULL) {
		err = split_dpdk(argc, argv, &dpdk_argv, &dpdk_argc, &first);
		if (err != DOCA_SUCCESS) {
			sd_argp_error("Out of memory while splitting the DPDK flags");
			return err;
		}
	}
	if (argc > first) {
		err = parse_tokens(&ctx, argv + first, argc - first);
		if (err != DOCA_SUCCESS)
			goto usage;
	}
	if (ctx.json_path != NULL) {
		err = sd_argp_json_load(ctx.json_path, ctx.selected, &ctx.cli, &ctx.json, &ctx.log_level,
					&ctx.sdk_log_level);
		if (err != DOCA_SUCCESS)
			goto usage;
	}
	err = check_presence(&ctx);
	if (err != DOCA_SUCCESS)
		goto usage;

	err = apply_log_levels(&ctx);
	if (err != DOCA_SUCCESS)
		goto usage;
	if (sd_argp.dpdk_cb != NULL) {
		err = sd_argp.dpdk_cb(dpdk_argc, dpdk_argv);
		if (err != DOCA_SUCCESS) {
			sd_argp_error("The DPDK program refused its flags: %s", doca_error_get_name(err));
			goto usage;
		}
	}
	err = run_callbacks(&ctx);
	if (err != DOCA_SUCCESS)
		goto usage;
	sd_argp.selected = ctx.selected;
	goto free_ctx;

usage:
	sd_argp_error_usage(ctx.selected);
free_ctx:
	sd_argp_occ_clear(&ctx.cli);
	sd_argp_occ_clear(&ctx.json);
	free(dpdk_argv);
	return err;
}
