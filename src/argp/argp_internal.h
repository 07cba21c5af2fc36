/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal state of doca_argp shared by its files: the param and cmd objects,
 * the process-wide singleton, the built-in DOCA flags and the parse-time list
 * of flag occurrences.
 */
#ifndef ARGP_INTERNAL_H_
#define ARGP_INTERNAL_H_

#include <stdbool.h>
#include <stdio.h>

#include <doca_argp.h>

#include "../util/sd_util.h"

struct json_object;

struct doca_argp_param {
	struct sd_list node; /* in the params list of the singleton or of its cmd */
	char *short_name;    /* without the dash; may be several characters */
	char *long_name;     /* without the dashes; also the JSON key */
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool cli_only;
	bool multiplicity;
	bool singular;
	bool inherited;
	bool hidden;
	bool registered;
	bool oom; /* a setter could not copy its string: registration fails with NO_MEMORY */
};

struct doca_argp_cmd {
	struct sd_list node; /* in the cmds list of the singleton or of the parent cmd */
	char *name;
	char *description;
	doca_argp_cmd_cb_t callback;
	bool hidden;
	bool registered;
	bool oom;
	struct doca_argp_cmd *parent; /* NULL for a top-level cmd */
	struct sd_list params;
	struct sd_list cmds;
};

/* The built-in "DOCA Flags". */
enum argp_builtin {
	ARGP_BUILTIN_NONE = 0,
	ARGP_BUILTIN_HELP,
	ARGP_BUILTIN_VERSION,
	ARGP_BUILTIN_LOG_LEVEL,
	ARGP_BUILTIN_SDK_LOG_LEVEL,
	ARGP_BUILTIN_JSON,
};

struct argp_builtin_flag {
	enum argp_builtin id;
	const char *short_name; /* NULL when there is none */
	const char *long_name;
	const char *arguments;
	const char *description;
};

/* Terminated by an entry with id ARGP_BUILTIN_NONE. */
extern const struct argp_builtin_flag sd_argp_builtins[];

/* The singleton; valid while initialised. */
struct argp_state {
	bool initialised;
	bool started;
	bool quiet; /* doca_argp_disable_logger_callback() */
	char *program_name;
	void *config;
	struct sd_list params;
	struct sd_list cmds;
	doca_argp_param_cb_t version_cb;
	doca_argp_validation_cb_t validation_cb;
	doca_argp_logger_cb_t logger_cb;
	doca_argp_dpdk_cb_t dpdk_cb;
	int log_level;			/* given with -l / JSON, or -1 */
	int sdk_log_level;		/* given with --sdk-log-level / JSON, or -1 */
	struct doca_argp_cmd *selected; /* innermost selected cmd of the last start, or NULL */
};

extern struct argp_state sd_argp;

/* One value of a program flag, collected before any callback runs. */
struct argp_occ {
	struct doca_argp_param *param;
	union {
		const char *str;	 /* STRING: in argv or in the JSON tree */
		int i;			 /* INT, log levels */
		bool b;			 /* BOOLEAN */
		struct json_object *obj; /* JSON_OBJ: owned reference */
	} v;
};

struct argp_occ_list {
	struct argp_occ *items;
	size_t num;
	size_t cap;
	struct json_object *root; /* JSON file tree the STRING values point into, or NULL */
};

/* Find a param by short (is_long false) or long name among the flags accepted while cmd is selected. */
struct doca_argp_param *sd_argp_find_param(struct doca_argp_cmd *cmd, const char *name, bool is_long);
/* Find the sub-command `name` of parent (NULL: a top-level command); NULL when none. */
struct doca_argp_cmd *sd_argp_find_cmd(struct doca_argp_cmd *parent, const char *name);
/* Find a built-in flag by name; NULL when none. */
const struct argp_builtin_flag *sd_argp_find_builtin(const char *name, bool is_long);
/* "-s/--long", "-s" or "--long": the way a user refers to a param. */
void sd_argp_param_display(const struct doca_argp_param *param, char *buf, size_t len);

/* Append an occurrence; NO_MEMORY on failure. */
doca_error_t sd_argp_occ_add(struct argp_occ_list *list, const struct argp_occ *occ);
/* Number of occurrences of param in list. */
size_t sd_argp_occ_count(const struct argp_occ_list *list, const struct doca_argp_param *param);
/* Release the list, the JSON_OBJ references and the root it holds. */
void sd_argp_occ_clear(struct argp_occ_list *list);
/* Convert text to an int: decimal or 0x-hex, whole string, within int. */
doca_error_t sd_argp_parse_int(const char *text, int *value);
/* Whether level is one of the seven DOCA log levels. */
bool sd_argp_log_level_valid(long long level);

/*
 * Read the JSON file at path and append its flags to json_occ, looking names
 * up as sd_argp_find_param(cmd, ...).  Flags present in cli are skipped: the
 * command line wins.  The log levels are set only when still < 0 (not given on
 * the command line).  Errors are reported (sd_argp_error) before returning.
 */
doca_error_t sd_argp_json_load(const char *path, struct doca_argp_cmd *cmd, const struct argp_occ_list *cli,
			       struct argp_occ_list *json_occ, int *log_level, int *sdk_log_level);

/*
 * Report a bad command line: the library log gets "doca_argp_start: <msg>",
 * and the logger callback, when registered and not disabled, gets <msg>.
 */
void sd_argp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the usage for the given selected command (NULL: top level). */
void sd_argp_print_usage(FILE *out, struct doca_argp_cmd *cmd);
/* Print the usage on stderr after an error, unless quiet. */
void sd_argp_error_usage(struct doca_argp_cmd *cmd);

#endif /* ARGP_INTERNAL_H_ */
