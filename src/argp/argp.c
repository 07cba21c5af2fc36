/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp objects: the process-wide singleton (init/destroy), params and
 * commands with their setters, registration and the small getters.  Parsing
 * lives in argp_parse.c, JSON files in argp_json.c, usage in argp_usage.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "argp_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(argp);

struct argp_state sd_argp;

/* DOCA reserves these names; programs cannot register them. */
const struct argp_builtin_flag sd_argp_builtins[] = {
	{ARGP_BUILTIN_HELP, "h", "help", NULL, "Print a help synopsis"},
	{ARGP_BUILTIN_VERSION, "v", "version", NULL, "Print program version information"},
	{ARGP_BUILTIN_LOG_LEVEL, "l", "log-level", "<level>",
	 "Set the (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, "
	 "50=INFO, 60=DEBUG, 70=TRACE>"},
	{ARGP_BUILTIN_SDK_LOG_LEVEL, NULL, "sdk-log-level", "<level>",
	 "Set the SDK (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, 40=WARNING, "
	 "50=INFO, 60=DEBUG, 70=TRACE>"},
	{ARGP_BUILTIN_JSON, "j", "json", "<path>", "Parse all command flags from an input json file"},
	{ARGP_BUILTIN_NONE, NULL, NULL, NULL, NULL},
};

static void param_free(struct doca_argp_param *param);
static void cmd_free(struct doca_argp_cmd *cmd);

/* Replace *dst with a copy of src (NULL clears); on failure keep the old value and set *oom. */
static void
set_string(char **dst, const char *src, bool *oom)
{
	char *copy = NULL;

	if (src != NULL) {
		copy = strdup(src);
		if (copy == NULL) {
			*oom = true;
			return;
		}
	}
	free(*dst);
	*dst = copy;
}

/* A name is usable on a command line: not empty, no leading '-', no '=' and no blank. */
static bool
name_valid(const char *name)
{
	if (name[0] == '\0' || name[0] == '-')
		return false;
	for (const char *c = name; *c != '\0'; c++)
		if (*c == '=' || isspace((unsigned char)*c))
			return false;
	return true;
}

static bool
names_clash(const struct doca_argp_param *a, const struct doca_argp_param *b)
{
	if (a->short_name != NULL && b->short_name != NULL && strcmp(a->short_name, b->short_name) == 0)
		return true;
	return a->long_name != NULL && b->long_name != NULL && strcmp(a->long_name, b->long_name) == 0;
}

static struct doca_argp_param *
find_clash(struct sd_list *params, const struct doca_argp_param *param)
{
	struct sd_list *pos;

	sd_list_for_each(pos, params)
	{
		struct doca_argp_param *p = sd_container_of(pos, struct doca_argp_param, node);

		if (names_clash(p, param))
			return p;
	}
	return NULL;
}

const struct argp_builtin_flag *
sd_argp_find_builtin(const char *name, bool is_long)
{
	for (const struct argp_builtin_flag *b = sd_argp_builtins; b->id != ARGP_BUILTIN_NONE; b++) {
		const char *n = is_long ? b->long_name : b->short_name;

		if (n != NULL && strcmp(n, name) == 0)
			return b;
	}
	return NULL;
}

static struct doca_argp_param *
find_in(struct sd_list *params, const char *name, bool is_long, bool inherited_only)
{
	struct sd_list *pos;

	sd_list_for_each(pos, params)
	{
		struct doca_argp_param *p = sd_container_of(pos, struct doca_argp_param, node);
		const char *n = is_long ? p->long_name : p->short_name;

		if (inherited_only && !p->inherited)
			continue;
		if (n != NULL && strcmp(n, name) == 0)
			return p;
	}
	return NULL;
}

/*
 * Lookup order: the selected command's own params, the inherited params of its
 * ancestors (nearest first), then the top-level params.  A command param may
 * shadow a top-level one of the same name.
 */
struct doca_argp_param *
sd_argp_find_param(struct doca_argp_cmd *cmd, const char *name, bool is_long)
{
	struct doca_argp_param *p;

	for (struct doca_argp_cmd *c = cmd; c != NULL; c = c->parent) {
		p = find_in(&c->params, name, is_long, c != cmd);
		if (p != NULL)
			return p;
	}
	return find_in(&sd_argp.params, name, is_long, false);
}

void
sd_argp_param_display(const struct doca_argp_param *param, char *buf, size_t len)
{
	if (param->short_name != NULL && param->long_name != NULL)
		snprintf(buf, len, "-%s/--%s", param->short_name, param->long_name);
	else if (param->short_name != NULL)
		snprintf(buf, len, "-%s", param->short_name);
	else
		snprintf(buf, len, "--%s", param->long_name != NULL ? param->long_name : "?");
}

doca_error_t
doca_argp_init(const char *program_name, void *program_config)
{
	char *name = NULL;

	if (sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_init: argp is already initialised; call doca_argp_destroy() first");
		return DOCA_ERROR_BAD_STATE;
	}
	if (program_name != NULL) {
		name = strdup(program_name);
		if (name == NULL) {
			DOCA_LOG_ERR("doca_argp_init: out of memory copying the program name");
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	memset(&sd_argp, 0, sizeof(sd_argp));
	sd_argp.program_name = name;
	sd_argp.config = program_config;
	sd_list_init(&sd_argp.params);
	sd_list_init(&sd_argp.cmds);
	sd_argp.log_level = -1;
	sd_argp.sdk_log_level = -1;
	sd_argp.initialised = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_destroy(void)
{
	struct sd_list *pos;

	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_destroy: argp is not initialised; call doca_argp_init() first");
		return DOCA_ERROR_BAD_STATE;
	}
	while ((pos = sd_list_pop_head(&sd_argp.params)) != NULL)
		param_free(sd_container_of(pos, struct doca_argp_param, node));
	while ((pos = sd_list_pop_head(&sd_argp.cmds)) != NULL)
		cmd_free(sd_container_of(pos, struct doca_argp_cmd, node));
	free(sd_argp.program_name);
	memset(&sd_argp, 0, sizeof(sd_argp));
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_param_create(struct doca_argp_param **param)
{
	struct doca_argp_param *p;

	if (param == NULL) {
		DOCA_LOG_ERR("doca_argp_param_create: param is NULL; pass the address of a pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_param_create: argp is not initialised; call doca_argp_init() first");
		return DOCA_ERROR_BAD_STATE;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		DOCA_LOG_ERR("doca_argp_param_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_list_init(&p->node);
	*param = p;
	return DOCA_SUCCESS;
}

static void
param_free(struct doca_argp_param *param)
{
	free(param->short_name);
	free(param->long_name);
	free(param->arguments);
	free(param->description);
	free(param);
}

doca_error_t
doca_argp_param_destroy(struct doca_argp_param *param)
{
	if (param == NULL) {
		DOCA_LOG_ERR("doca_argp_param_destroy: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (param->registered) {
		DOCA_LOG_ERR("doca_argp_param_destroy: param is registered and owned by argp; "
			     "doca_argp_destroy() frees it");
		return DOCA_ERROR_IN_USE;
	}
	param_free(param);
	return DOCA_SUCCESS;
}

/* The setters are void: a NULL object can only be logged. */
#define SETTER_CHECK(obj, kind)                                                                                        \
	do {                                                                                                           \
		if ((obj) == NULL) {                                                                                   \
			DOCA_LOG_ERR("%s: " kind " is NULL; create it with doca_argp_" kind "_create()", __func__);    \
			return;                                                                                        \
		}                                                                                                      \
	} while (0)

void
doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
	SETTER_CHECK(param, "param");
	set_string(&param->short_name, name, &param->oom);
}

void
doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
	SETTER_CHECK(param, "param");
	set_string(&param->long_name, name, &param->oom);
}

void
doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
	SETTER_CHECK(param, "param");
	set_string(&param->arguments, arguments, &param->oom);
}

void
doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
	SETTER_CHECK(param, "param");
	set_string(&param->description, description, &param->oom);
}

void
doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	SETTER_CHECK(param, "param");
	param->callback = callback;
}

void
doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	SETTER_CHECK(param, "param");
	param->type = type;
}

void
doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
	SETTER_CHECK(param, "param");
	param->mandatory = true;
}

void
doca_argp_param_set_cli_only(struct doca_argp_param *param)
{
	SETTER_CHECK(param, "param");
	param->cli_only = true;
}

void
doca_argp_param_set_multiplicity(struct doca_argp_param *param)
{
	SETTER_CHECK(param, "param");
	param->multiplicity = true;
}

void
doca_argp_param_set_singular(struct doca_argp_param *param)
{
	SETTER_CHECK(param, "param");
	param->singular = true;
}

void
doca_argp_param_set_inherited(struct doca_argp_param *param)
{
	SETTER_CHECK(param, "param");
	param->inherited = true;
}

void
doca_argp_param_set_hidden(struct doca_argp_param *param)
{
	SETTER_CHECK(param, "param");
	param->hidden = true;
}

/*
 * Check a param about to join the list `params`; api names the caller for the
 * log.  The caller frees the param when this fails.
 */
static doca_error_t
param_check(const char *api, struct doca_argp_param *param, struct sd_list *params)
{
	const char *names[2] = {param->short_name, param->long_name};
	struct doca_argp_param *other;
	char disp[160];

	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("%s: argp is not initialised; call doca_argp_init() first", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_argp.started) {
		DOCA_LOG_ERR("%s: doca_argp_start() already ran; register params before it", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (param->oom) {
		DOCA_LOG_ERR("%s: a string of the param could not be copied (out of memory)", api);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (param->short_name == NULL && param->long_name == NULL) {
		DOCA_LOG_ERR("%s: param has no name; set a short or long name", api);
		return DOCA_ERROR_INITIALIZATION;
	}
	sd_argp_param_display(param, disp, sizeof(disp));
	if (param->type <= DOCA_ARGP_TYPE_UNKNOWN || param->type > DOCA_ARGP_TYPE_JSON_OBJ) {
		DOCA_LOG_ERR("%s: param %s has no valid type (%d); call doca_argp_param_set_type()", api, disp,
			     (int)param->type);
		return DOCA_ERROR_INITIALIZATION;
	}
	if (param->callback == NULL) {
		DOCA_LOG_ERR("%s: param %s has no callback; call doca_argp_param_set_callback()", api, disp);
		return DOCA_ERROR_INITIALIZATION;
	}
	for (int i = 0; i < 2; i++) {
		if (names[i] == NULL)
			continue;
		if (!name_valid(names[i])) {
			DOCA_LOG_ERR("%s: param name \"%s\" is malformed; use no leading '-', no '=' and no blank", api,
				     names[i]);
			return DOCA_ERROR_INVALID_VALUE;
		}
		if (sd_argp_find_builtin(names[i], i == 1) != NULL) {
			DOCA_LOG_ERR("%s: param name \"%s\" is reserved for a DOCA flag; choose another name", api,
				     names[i]);
			return DOCA_ERROR_ALREADY_EXIST;
		}
	}
	other = find_clash(params, param);
	if (other != NULL) {
		char other_disp[160];

		sd_argp_param_display(other, other_disp, sizeof(other_disp));
		DOCA_LOG_ERR("%s: param %s uses a name of the registered param %s; names must be unique", api, disp,
			     other_disp);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_register_param(struct doca_argp_param *input_param)
{
	doca_error_t err;

	if (input_param == NULL) {
		DOCA_LOG_ERR("doca_argp_register_param: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (input_param->registered) {
		DOCA_LOG_ERR("doca_argp_register_param: param is already registered");
		return DOCA_ERROR_ALREADY_EXIST;
	}
	err = param_check(__func__, input_param, &sd_argp.params);
	if (err != DOCA_SUCCESS) {
		/* argp owns the param from the call on, so a refused param dies here. */
		param_free(input_param);
		return err;
	}
	input_param->registered = true;
	sd_list_insert_tail(&sd_argp.params, &input_param->node);
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_cmd_create(struct doca_argp_cmd **cmd)
{
	struct doca_argp_cmd *c;

	if (cmd == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_create: cmd is NULL; pass the address of a pointer");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_cmd_create: argp is not initialised; call doca_argp_init() first");
		return DOCA_ERROR_BAD_STATE;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_list_init(&c->node);
	sd_list_init(&c->params);
	sd_list_init(&c->cmds);
	*cmd = c;
	return DOCA_SUCCESS;
}

static void
cmd_free(struct doca_argp_cmd *cmd)
{
	struct sd_list *pos;

	while ((pos = sd_list_pop_head(&cmd->params)) != NULL)
		param_free(sd_container_of(pos, struct doca_argp_param, node));
	while ((pos = sd_list_pop_head(&cmd->cmds)) != NULL)
		cmd_free(sd_container_of(pos, struct doca_argp_cmd, node));
	free(cmd->name);
	free(cmd->description);
	free(cmd);
}

doca_error_t
doca_argp_cmd_destroy(struct doca_argp_cmd *cmd)
{
	if (cmd == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_destroy: cmd is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cmd->registered) {
		DOCA_LOG_ERR("doca_argp_cmd_destroy: cmd \"%s\" is registered and owned by argp; "
			     "doca_argp_destroy() frees it",
			     cmd->name != NULL ? cmd->name : "");
		return DOCA_ERROR_IN_USE;
	}
	cmd_free(cmd);
	return DOCA_SUCCESS;
}

void
doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name)
{
	SETTER_CHECK(cmd, "cmd");
	set_string(&cmd->name, name, &cmd->oom);
}

void
doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description)
{
	SETTER_CHECK(cmd, "cmd");
	set_string(&cmd->description, description, &cmd->oom);
}

void
doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback)
{
	SETTER_CHECK(cmd, "cmd");
	cmd->callback = callback;
}

void
doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd)
{
	SETTER_CHECK(cmd, "cmd");
	cmd->hidden = true;
}

doca_error_t
doca_argp_cmd_register_param(struct doca_argp_cmd *cmd, struct doca_argp_param *param)
{
	doca_error_t err;

	if (param == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_register_param: param is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (param->registered) {
		DOCA_LOG_ERR("doca_argp_cmd_register_param: param is already registered");
		return DOCA_ERROR_ALREADY_EXIST;
	}
	if (cmd == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_register_param: cmd is NULL");
		param_free(param);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = param_check(__func__, param, &cmd->params);
	if (err != DOCA_SUCCESS) {
		param_free(param);
		return err;
	}
	param->registered = true;
	sd_list_insert_tail(&cmd->params, &param->node);
	return DOCA_SUCCESS;
}

static struct doca_argp_cmd *
find_cmd(struct sd_list *cmds, const char *name)
{
	struct sd_list *pos;

	sd_list_for_each(pos, cmds)
	{
		struct doca_argp_cmd *c = sd_container_of(pos, struct doca_argp_cmd, node);

		if (strcmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

struct doca_argp_cmd *
sd_argp_find_cmd(struct doca_argp_cmd *parent, const char *name)
{
	return find_cmd(parent != NULL ? &parent->cmds : &sd_argp.cmds, name);
}

/* Shared checks of register_cmd and cmd_register_cmd; the caller frees cmd on failure. */
static doca_error_t
cmd_check(const char *api, struct doca_argp_cmd *cmd, struct sd_list *siblings)
{
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("%s: argp is not initialised; call doca_argp_init() first", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (sd_argp.started) {
		DOCA_LOG_ERR("%s: doca_argp_start() already ran; register commands before it", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (cmd->oom) {
		DOCA_LOG_ERR("%s: a string of the cmd could not be copied (out of memory)", api);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (cmd->name == NULL) {
		DOCA_LOG_ERR("%s: cmd has no name; call doca_argp_cmd_set_name()", api);
		return DOCA_ERROR_INITIALIZATION;
	}
	if (!name_valid(cmd->name)) {
		DOCA_LOG_ERR("%s: cmd name \"%s\" is malformed; use no leading '-', no '=' and no blank", api,
			     cmd->name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (find_cmd(siblings, cmd->name) != NULL) {
		DOCA_LOG_ERR("%s: a cmd named \"%s\" is already registered here; names must be unique", api, cmd->name);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_register_cmd(struct doca_argp_cmd *cmd)
{
	doca_error_t err;

	if (cmd == NULL) {
		DOCA_LOG_ERR("doca_argp_register_cmd: cmd is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cmd->registered) {
		DOCA_LOG_ERR("doca_argp_register_cmd: cmd \"%s\" is already registered", cmd->name);
		return DOCA_ERROR_ALREADY_EXIST;
	}
	err = cmd_check(__func__, cmd, &sd_argp.cmds);
	if (err != DOCA_SUCCESS) {
		cmd_free(cmd);
		return err;
	}
	cmd->registered = true;
	sd_list_insert_tail(&sd_argp.cmds, &cmd->node);
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *sub_cmd)
{
	doca_error_t err;

	if (sub_cmd == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_register_cmd: sub_cmd is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* A registered sub_cmd belongs to someone else: leave it alone. */
	if (sub_cmd->registered || sub_cmd == cmd) {
		DOCA_LOG_ERR("doca_argp_cmd_register_cmd: sub_cmd \"%s\" is already registered (or is cmd itself)",
			     sub_cmd->name != NULL ? sub_cmd->name : "");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cmd == NULL) {
		DOCA_LOG_ERR("doca_argp_cmd_register_cmd: cmd is NULL");
		cmd_free(sub_cmd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* sub_cmd heading the tree that holds cmd would make a cycle; both stay with the caller. */
	for (struct doca_argp_cmd *c = cmd->parent; c != NULL; c = c->parent) {
		if (c == sub_cmd) {
			DOCA_LOG_ERR(
				"doca_argp_cmd_register_cmd: \"%s\" is an ancestor of \"%s\"; commands form a tree",
				sub_cmd->name != NULL ? sub_cmd->name : "", cmd->name != NULL ? cmd->name : "");
			return DOCA_ERROR_INVALID_VALUE;
		}
	}
	err = cmd_check(__func__, sub_cmd, &cmd->cmds);
	if (err != DOCA_SUCCESS) {
		cmd_free(sub_cmd);
		return err;
	}
	sub_cmd->registered = true;
	sub_cmd->parent = cmd;
	sd_list_insert_tail(&cmd->cmds, &sub_cmd->node);
	return DOCA_SUCCESS;
}

/* The common refusals of the callback registrations. */
static doca_error_t
callback_check(const char *api, const void *callback)
{
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("%s: argp is not initialised; call doca_argp_init() first", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (callback == NULL) {
		DOCA_LOG_ERR("%s: callback is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	doca_error_t err = callback_check(__func__, (const void *)(uintptr_t)callback);

	if (err == DOCA_SUCCESS)
		sd_argp.version_cb = callback;
	return err;
}

doca_error_t
doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	doca_error_t err = callback_check(__func__, (const void *)(uintptr_t)callback);

	if (err == DOCA_SUCCESS)
		sd_argp.validation_cb = callback;
	return err;
}

doca_error_t
doca_argp_register_logger_callback(doca_argp_logger_cb_t callback)
{
	doca_error_t err = callback_check(__func__, (const void *)(uintptr_t)callback);

	if (err == DOCA_SUCCESS) {
		sd_argp.logger_cb = callback;
		sd_argp.quiet = false;
	}
	return err;
}

doca_error_t
doca_argp_disable_logger_callback(void)
{
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_disable_logger_callback: argp is not initialised; call doca_argp_init() first");
		return DOCA_ERROR_BAD_STATE;
	}
	sd_argp.logger_cb = NULL;
	sd_argp.quiet = true;
	return DOCA_SUCCESS;
}

void
doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_set_dpdk_program: argp is not initialised; call doca_argp_init() first");
		return;
	}
	sd_argp.dpdk_cb = callback;
}

static doca_error_t
get_level(const char *api, int given, uint32_t (*current)(void), int *log_level)
{
	if (log_level == NULL) {
		DOCA_LOG_ERR("%s: log_level is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("%s: argp is not initialised; call doca_argp_init() first", api);
		return DOCA_ERROR_BAD_STATE;
	}
	*log_level = given >= 0 ? given : (int)current();
	return DOCA_SUCCESS;
}

doca_error_t
doca_argp_get_log_level(int *log_level)
{
	return get_level(__func__, sd_argp.log_level, doca_log_level_get_global_lower_limit, log_level);
}

doca_error_t
doca_argp_get_sdk_log_level(int *log_level)
{
	return get_level(__func__, sd_argp.sdk_log_level, doca_log_level_get_global_sdk_limit, log_level);
}
