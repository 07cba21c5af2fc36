/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp output: the usage text and the diagnostics about a bad command
 * line.  Printing is argp's job (doca_argp_usage(), -h, errors), which is why
 * this file, unlike the rest of the libraries, writes to stdout/stderr.
 */
#include <stdarg.h>
#include <string.h>

#include "argp_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(argp.usage);

/* Left column text is "  -s, --long <arguments>"; descriptions start after the widest one. */
#define USAGE_MIN_WIDTH 34
#define USAGE_LEFT_MAX 256

static void
format_left(char *buf, size_t len, const char *short_name, const char *long_name, const char *arguments)
{
	int n;

	if (short_name != NULL && long_name != NULL)
		n = snprintf(buf, len, "  -%s, --%s", short_name, long_name);
	else if (short_name != NULL)
		n = snprintf(buf, len, "  -%s", short_name);
	else
		n = snprintf(buf, len, "  --%s", long_name != NULL ? long_name : "");
	if (arguments != NULL && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %s", arguments);
}

static void
param_left(const struct doca_argp_param *p, char *buf, size_t len)
{
	format_left(buf, len, p->short_name, p->long_name, p->arguments);
}

static size_t
max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* Width of the widest visible param of a list (inherited ones only when asked). */
static size_t
params_width(struct sd_list *params, bool inherited_only)
{
	char left[USAGE_LEFT_MAX];
	struct sd_list *pos;
	size_t w = 0;

	sd_list_for_each(pos, params)
	{
		struct doca_argp_param *p = sd_container_of(pos, struct doca_argp_param, node);

		if (p->hidden || (inherited_only && !p->inherited))
			continue;
		param_left(p, left, sizeof(left));
		w = max_size(w, strlen(left));
	}
	return w;
}

static void
print_row(FILE *out, const char *left, size_t width, const char *descr, bool mandatory, bool multi)
{
	if (descr == NULL)
		descr = "";
	if (descr[0] == '\0' && !mandatory && !multi) {
		fprintf(out, "%s\n", left);
		return;
	}
	/* The notes follow the description, or start the column when there is none. */
	fprintf(out, "%-*s%s%s%s\n", (int)width, left, descr,
		mandatory ? (descr[0] ? " (mandatory)" : "(mandatory)") : "",
		multi ? (descr[0] || mandatory ? " (may be repeated)" : "(may be repeated)") : "");
}

static void
print_params(FILE *out, struct sd_list *params, bool inherited_only, size_t width)
{
	char left[USAGE_LEFT_MAX];
	struct sd_list *pos;

	sd_list_for_each(pos, params)
	{
		struct doca_argp_param *p = sd_container_of(pos, struct doca_argp_param, node);

		if (p->hidden || (inherited_only && !p->inherited))
			continue;
		param_left(p, left, sizeof(left));
		print_row(out, left, width, p->description, p->mandatory, p->multiplicity);
	}
}

static bool
has_visible_cmds(struct sd_list *cmds)
{
	struct sd_list *pos;

	sd_list_for_each(pos, cmds) if (!sd_container_of(pos, struct doca_argp_cmd, node)->hidden) return true;
	return false;
}

/* The params of the chain of commands, outer first as they appear on the command line. */
static void
print_cmd_params(FILE *out, struct doca_argp_cmd *c, struct doca_argp_cmd *selected, size_t width)
{
	if (c == NULL)
		return;
	print_cmd_params(out, c->parent, selected, width);
	print_params(out, &c->params, c != selected, width);
}

static void
print_chain(FILE *out, struct doca_argp_cmd *cmd)
{
	if (cmd == NULL)
		return;
	print_chain(out, cmd->parent);
	fprintf(out, " %s", cmd->name);
}

void
sd_argp_print_usage(FILE *out, struct doca_argp_cmd *cmd)
{
	struct sd_list *sub_cmds = cmd != NULL ? &cmd->cmds : &sd_argp.cmds;
	char left[USAGE_LEFT_MAX];
	struct sd_list *pos;
	size_t width = 0;
	bool any_param;

	/* One column width for the whole text, so both lists line up. */
	for (const struct argp_builtin_flag *b = sd_argp_builtins; b->id != ARGP_BUILTIN_NONE; b++) {
		format_left(left, sizeof(left), b->short_name, b->long_name, b->arguments);
		width = max_size(width, strlen(left));
	}
	width = max_size(width, params_width(&sd_argp.params, false));
	for (struct doca_argp_cmd *c = cmd; c != NULL; c = c->parent)
		width = max_size(width, params_width(&c->params, c != cmd));
	sd_list_for_each(pos, sub_cmds)
	{
		struct doca_argp_cmd *c = sd_container_of(pos, struct doca_argp_cmd, node);

		if (!c->hidden)
			width = max_size(width, strlen(c->name) + 2);
	}
	width = max_size(width + 2, USAGE_MIN_WIDTH);

	fprintf(out, "Usage: %s", sd_argp.program_name != NULL ? sd_argp.program_name : "program");
	print_chain(out, cmd);
	if (has_visible_cmds(sub_cmds))
		fprintf(out, " <command>");
	fprintf(out, " [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n");
	for (const struct argp_builtin_flag *b = sd_argp_builtins; b->id != ARGP_BUILTIN_NONE; b++) {
		format_left(left, sizeof(left), b->short_name, b->long_name, b->arguments);
		print_row(out, left, width, b->description, false, false);
	}

	any_param = params_width(&sd_argp.params, false) > 0;
	for (struct doca_argp_cmd *c = cmd; c != NULL; c = c->parent)
		any_param = any_param || params_width(&c->params, c != cmd) > 0;
	if (any_param) {
		fprintf(out, "\nProgram Flags:\n");
		print_params(out, &sd_argp.params, false, width);
		print_cmd_params(out, cmd, cmd, width);
	}

	if (has_visible_cmds(sub_cmds)) {
		fprintf(out, "\nCommands:\n");
		sd_list_for_each(pos, sub_cmds)
		{
			struct doca_argp_cmd *c = sd_container_of(pos, struct doca_argp_cmd, node);

			if (c->hidden)
				continue;
			snprintf(left, sizeof(left), "  %s", c->name);
			print_row(out, left, width, c->description, false, false);
		}
	}
	fflush(out);
}

void
doca_argp_usage(void)
{
	if (!sd_argp.initialised) {
		DOCA_LOG_ERR("doca_argp_usage: argp is not initialised; call doca_argp_init() first");
		return;
	}
	sd_argp_print_usage(stdout, sd_argp.selected);
}

/* The logger callback takes a va_list: build one around an already formatted line. */
static void
call_logger(doca_argp_logger_cb_t cb, enum doca_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)cb(level, fmt, ap);
	va_end(ap);
}

/*
 * The library log is the one channel of diagnostics: with no SDK backend it
 * still reaches stderr (the log module's fallback for WARNING and worse).
 */
void
sd_argp_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	DOCA_LOG_ERR("doca_argp_start: %s", msg);
	if (sd_argp.logger_cb != NULL && !sd_argp.quiet)
		call_logger(sd_argp.logger_cb, DOCA_LOG_LEVEL_ERROR, "%s", msg);
}

void
sd_argp_error_usage(struct doca_argp_cmd *cmd)
{
	if (sd_argp.quiet)
		return;
	fputc('\n', stderr);
	sd_argp_print_usage(stderr, cmd);
}
