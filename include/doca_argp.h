/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA ARGP: the command-line (and JSON file) parser DOCA programs use.
 *
 * Object model.  The parser is a process-wide singleton:
 *
 *   doca_argp_init(name, &cfg)                 create the singleton
 *   doca_argp_param_create(&p)                 a flag: short/long name, type, callback, ...
 *   doca_argp_register_param(p)                argp owns p from here on (even on failure)
 *   doca_argp_cmd_create(&c) / _register_cmd   optional commands ("prog <cmd> [flags]")
 *   doca_argp_start(argc, argv)                parse, then call the callbacks
 *   doca_argp_destroy()                        free everything; init may be called again
 *
 * Flags.  A short name is used with ONE dash and may be several characters
 * long ("-ns 2", "-tt RC", "-cm"); a long name is used with two dashes
 * ("--num-src-buf 2" or "--num-src-buf=2") and is also the key of the flag in
 * a JSON file.  A BOOLEAN flag takes no value: its presence means true.
 *
 * Callbacks receive a pointer to the parsed value, valid only during the call
 * (copy what you keep), and the program_config given to doca_argp_init():
 *   STRING   -> char *            INT     -> int *
 *   BOOLEAN  -> bool *            JSON_OBJ -> struct json_object * (json-c)
 *
 * Built-in "DOCA Flags": -h/--help, -v/--version, -l/--log-level <10..70>,
 * --sdk-log-level <10..70>, -j/--json <path>.  -h and -v print to stdout and
 * then call exit(EXIT_SUCCESS): they are the only places where the library
 * ends the process.  Every bad input (unknown flag, missing or malformed
 * value, missing mandatory flag, unreadable JSON file) makes doca_argp_start()
 * log the reason (DOCA SDK log, which reaches stderr even without an SDK
 * backend), print the usage on stderr and return an error; it never exits.
 *
 * The parser is not thread-safe: call it from one thread, usually main().
 * See docs/argp.md for the full behaviour (order of callbacks, JSON layout,
 * CLI-over-JSON precedence, commands).
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdarg.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A flag of the program, and a command word ("prog <cmd> ..."). */
struct doca_argp_param;
struct doca_argp_cmd;

/* Value types of a flag. */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0,
	DOCA_ARGP_TYPE_STRING,	 /* char *: any text */
	DOCA_ARGP_TYPE_INT,	 /* int *: decimal or 0x-hex, within the range of int */
	DOCA_ARGP_TYPE_BOOLEAN,	 /* bool *: no value on the CLI; true/false in JSON */
	DOCA_ARGP_TYPE_JSON_OBJ, /* struct json_object *: a JSON object (CLI: its text) */
};

/*
 * Called once per occurrence of a flag with its parsed value and the
 * program_config of doca_argp_init().  A non-SUCCESS return stops parsing and
 * becomes the result of doca_argp_start().
 */
typedef doca_error_t (*doca_argp_param_cb_t)(void *param, void *config);

/* Called with program_config when the command was selected, after the flags' callbacks. */
typedef doca_error_t (*doca_argp_cmd_cb_t)(void *config);

/* Receives the DPDK part of the command line (see doca_argp_set_dpdk_program()). */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);

/* Called with program_config after every flag callback, to check the whole configuration. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *config);

/* Receives argp's diagnostics (errors about the command line), one line per call. */
typedef doca_error_t (*doca_argp_logger_cb_t)(enum doca_log_level level, const char *format, va_list args);

/*
 * Print the usage (flags of the program and the DOCA flags) on stdout.
 * Does nothing when argp is not initialised.
 */
DOCA_EXPERIMENTAL void doca_argp_usage(void);

/*
 * Create the parser.  program_name is shown in the usage; NULL means the
 * basename of argv[0] given to doca_argp_start().  program_config is passed to
 * every callback (may be NULL).
 *
 * Return: SUCCESS; BAD_STATE if already initialised; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);

/*
 * Register a program flag.  argp owns the param afterwards, also when this
 * call fails (the param is then destroyed).
 *
 * Return: SUCCESS; INVALID_VALUE if input_param is NULL or a name is malformed
 * (starts with '-', contains '=' or a space); INITIALIZATION if the param has
 * no name, no type or no callback; ALREADY_EXIST if a name is taken (also by a
 * DOCA flag: h, help, v, version, l, log-level, sdk-log-level, j, json);
 * BAD_STATE if argp is not initialised or already started; NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);

/*
 * Register a top-level command.  argp owns the cmd (and what it holds)
 * afterwards, also on failure.
 *
 * Return: SUCCESS; INVALID_VALUE if cmd is NULL or its name is malformed;
 * INITIALIZATION if it has no name; ALREADY_EXIST if a command of that name
 * exists or cmd is already registered; BAD_STATE if argp is not initialised
 * or already started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *cmd);

/*
 * -v/--version calls callback(NULL, program_config) instead of printing the
 * DOCA versions.  When it returns SUCCESS, the process exits with EXIT_SUCCESS;
 * an error is returned by doca_argp_start().
 *
 * Return: SUCCESS; INVALID_VALUE if callback is NULL; BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);

/*
 * Called with program_config after all flag and command callbacks.
 *
 * Return: SUCCESS; INVALID_VALUE if callback is NULL; BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

/*
 * Also hand argp's diagnostics (one line per problem, without the usage) to
 * callback, besides the DOCA SDK log.
 *
 * Return: SUCCESS; INVALID_VALUE if callback is NULL; BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback);

/*
 * Silence argp's own output on errors: no usage on stderr and no call of the
 * logger callback.  The DOCA SDK log still records the reason; -h and -v
 * still print.
 *
 * Return: SUCCESS; BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_disable_logger_callback(void);

/*
 * Parse the command line and, with -j, a JSON file; then call, in this order:
 * the DPDK callback (if set), every flag callback (JSON flags first, then the
 * command-line flags, each in the order given), the callbacks of the selected
 * commands (outer first), and the validation callback.  Nothing is called
 * when the input has an error.
 *
 * Return: SUCCESS; NOT_SUPPORTED for an unknown flag, command or JSON key;
 * INVALID_VALUE for a missing or malformed value, a repeated flag without
 * multiplicity, a missing mandatory flag, a bad JSON file or wrong JSON type,
 * or bad arguments (argc < 0, argv NULL); BAD_STATE if not initialised or
 * already started; NO_MEMORY; any error a callback returned.
 * -h and -v do not return (exit(EXIT_SUCCESS)).
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);

/*
 * Free the parser, its params and commands.  doca_argp_init() may be called again.
 *
 * Return: SUCCESS; BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);

/*
 * The program uses DPDK: the arguments before the first "--" go to callback
 * (with argv[0] in front), the ones after it to argp.  Without "--" every
 * argument belongs to argp and callback receives only argv[0].
 */
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

/*
 * Create an empty param; give it at least a name, a type and a callback
 * before registering it.
 *
 * Return: SUCCESS; INVALID_VALUE if param is NULL; BAD_STATE before doca_argp_init(); NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);

/* Setters of a param (ignored with an error log when param is NULL).  Strings are copied. */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);
/* Text shown after the names in the usage, e.g. "<IB device name>". */
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);
/* Mandatory. */
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);
/* Mandatory. */
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);
/* doca_argp_start() fails when the flag is missing (default: optional). */
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);
/* The flag may not appear in a JSON file. */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);
/* The flag may be repeated; the callback runs once per occurrence (JSON: an array of values). */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);
/*
 * The flag must be the only program flag given (like --version): with it,
 * other program flags are an error and mandatory flags are not required.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_singular(struct doca_argp_param *param);
/* A param of a command that its sub-commands accept too. */
DOCA_EXPERIMENTAL void doca_argp_param_set_inherited(struct doca_argp_param *param);
/* Accepted but not shown in the usage. */
DOCA_EXPERIMENTAL void doca_argp_param_set_hidden(struct doca_argp_param *param);

/*
 * Destroy a param that was never registered.
 *
 * Return: SUCCESS; INVALID_VALUE if param is NULL; IN_USE if it is registered
 * (argp frees it in doca_argp_destroy()).
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/*
 * Create a command: a word on the command line that selects it ("prog <name>
 * [flags]"); its params and sub-commands are accepted only after the word.
 *
 * Return: SUCCESS; INVALID_VALUE if cmd is NULL; BAD_STATE before doca_argp_init(); NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd);
DOCA_EXPERIMENTAL void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name);
DOCA_EXPERIMENTAL void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description);
DOCA_EXPERIMENTAL void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback);
/* Accepted but not shown in the usage. */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd);

/*
 * Add a param to a command; the command owns it afterwards, also on failure.
 *
 * Return: as doca_argp_register_param(); INVALID_VALUE if cmd is NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd, struct doca_argp_param *param);

/*
 * Add a sub-command; cmd owns sub_cmd afterwards, also on failure.
 *
 * Return: SUCCESS; INVALID_VALUE if an argument is NULL, sub_cmd is cmd or an
 * ancestor of cmd, or sub_cmd already belongs somewhere (these three leave
 * sub_cmd with the caller); INITIALIZATION if sub_cmd has no name;
 * ALREADY_EXIST if cmd has a sub-command of that name; BAD_STATE as above.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *sub_cmd);

/*
 * Destroy a command (with its params and sub-commands) that was never registered.
 *
 * Return: SUCCESS; INVALID_VALUE if cmd is NULL; IN_USE if it is registered.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd);

/*
 * The program log level given with -l/--log-level, or the current global
 * lower limit (doca_log_level_get_global_lower_limit()) when none was given.
 *
 * Return: SUCCESS; INVALID_VALUE if log_level is NULL; BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);

/* Same for --sdk-log-level and doca_log_level_get_global_sdk_limit(). */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
