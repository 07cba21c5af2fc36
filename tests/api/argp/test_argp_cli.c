/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp contract tests: life cycle, registration refusals and the command
 * line (names, values, types, repeats, mandatory flags, callback order, log
 * levels, DPDK split, logger callback).
 */
#include <limits.h>

#include <json-c/json.h>

#include "argp_test.h"

/* ---- life cycle ---- */

TEST(init_twice_is_bad_state)
{
	ASSERT_OK(doca_argp_init("prog", NULL));
	ASSERT_ERR(doca_argp_init("prog", NULL), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(destroy_without_init_is_bad_state)
{
	ASSERT_ERR(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_argp_init(NULL, NULL));
	ASSERT_OK(doca_argp_destroy());
	ASSERT_ERR(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
}

TEST(init_destroy_init_again)
{
	setup_std();
	ASSERT_OK(START("-t", "one"));
	ASSERT_OK(doca_argp_destroy());
	/* Everything was freed: the same names register again and a new start runs. */
	setup_std();
	ASSERT_OK(START("-t", "two"));
	ASSERT_OK(doca_argp_destroy());
	ASSERT_STR_EQ(events, "text=one;text=two;");
}

TEST(create_before_init_is_bad_state)
{
	struct doca_argp_param *p = NULL;
	struct doca_argp_cmd *c = NULL;

	ASSERT_ERR(doca_argp_param_create(&p), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(p, NULL);
	ASSERT_ERR(doca_argp_cmd_create(&c), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(c, NULL);
	ASSERT_ERR(doca_argp_start(1, ARGV(NULL)), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_argp_register_validation_callback(cb_validate), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_argp_disable_logger_callback(), DOCA_ERROR_BAD_STATE);
}

TEST(null_arguments_are_invalid)
{
	int level;

	ASSERT_ERR(doca_argp_get_log_level(&level), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_argp_init("prog", NULL));
	ASSERT_ERR(doca_argp_param_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_cmd_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_param(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_cmd(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_param_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_version_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_validation_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_logger_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_get_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_get_sdk_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Void setters on NULL only log. */
	doca_argp_param_set_short_name(NULL, "x");
	doca_argp_param_set_mandatory(NULL);
	doca_argp_cmd_set_name(NULL, "x");
	ASSERT_OK(doca_argp_destroy());
}

TEST(start_twice_is_bad_state)
{
	setup_std();
	ASSERT_OK(START("-ns", "1"));
	ASSERT_ERR(START("-ns", "2"), DOCA_ERROR_BAD_STATE);
	ASSERT_STR_EQ(events, "ns=1;");
	/* Registration after start is refused too, and the param is consumed. */
	ASSERT_ERR(doca_argp_register_param(mk_param("x", NULL, DOCA_ARGP_TYPE_INT, cb_ns)), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(start_rejects_bad_argv)
{
	setup_std();
	ASSERT_ERR(doca_argp_start(-1, ARGV(NULL)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_start(1, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_start(3, ((char *[]){"prog", NULL, NULL})), DOCA_ERROR_INVALID_VALUE);
	/* None of these consumed the single start. */
	ASSERT_OK(doca_argp_start(0, NULL));
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

/* ---- registration ---- */

TEST(register_requires_name_type_callback)
{
	struct doca_argp_param *p;

	ASSERT_OK(doca_argp_init("prog", &test_cfg));
	ASSERT_OK(doca_argp_param_create(&p));
	doca_argp_param_set_type(p, DOCA_ARGP_TYPE_INT);
	doca_argp_param_set_callback(p, cb_ns);
	ASSERT_ERR(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);

	ASSERT_ERR(doca_argp_register_param(mk_param("a", NULL, DOCA_ARGP_TYPE_UNKNOWN, cb_ns)),
		   DOCA_ERROR_INITIALIZATION);
	ASSERT_ERR(doca_argp_register_param(mk_param("a", NULL, (enum doca_argp_type)9, cb_ns)),
		   DOCA_ERROR_INITIALIZATION);
	ASSERT_ERR(doca_argp_register_param(mk_param("a", NULL, DOCA_ARGP_TYPE_INT, NULL)), DOCA_ERROR_INITIALIZATION);
	/* Nothing of the refused params stayed registered: "a" is free. */
	reg_param("a", NULL, DOCA_ARGP_TYPE_INT, cb_ns);
	ASSERT_OK(START("-a", "7"));
	ASSERT_STR_EQ(events, "ns=7;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(register_refuses_duplicate_and_reserved_names)
{
	setup_std();
	ASSERT_ERR(doca_argp_register_param(mk_param("t", "other", DOCA_ARGP_TYPE_STRING, cb_text)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_register_param(mk_param("zz", "text", DOCA_ARGP_TYPE_STRING, cb_text)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_register_param(mk_param(NULL, "num-src-buf", DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_ALREADY_EXIST);
	/* The DOCA flags are reserved. */
	ASSERT_ERR(doca_argp_register_param(mk_param("h", NULL, DOCA_ARGP_TYPE_BOOLEAN, cb_cm)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_register_param(mk_param("x", "json", DOCA_ARGP_TYPE_STRING, cb_text)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_register_param(mk_param(NULL, "sdk-log-level", DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_ALREADY_EXIST);
	ASSERT_ERR(doca_argp_register_param(mk_param("l", NULL, DOCA_ARGP_TYPE_INT, cb_ns)), DOCA_ERROR_ALREADY_EXIST);
	/* A short name may equal another param's long name: they live in different namespaces. */
	reg_param("device2", "d2", DOCA_ARGP_TYPE_STRING, cb_device);
	ASSERT_OK(doca_argp_destroy());
}

TEST(register_refuses_malformed_names)
{
	ASSERT_OK(doca_argp_init("prog", NULL));
	ASSERT_ERR(doca_argp_register_param(mk_param("-x", NULL, DOCA_ARGP_TYPE_INT, cb_ns)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_param(mk_param(NULL, "a=b", DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_param(mk_param("a b", NULL, DOCA_ARGP_TYPE_INT, cb_ns)),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_argp_register_param(mk_param("", NULL, DOCA_ARGP_TYPE_INT, cb_ns)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(param_destroy_only_unregistered)
{
	struct doca_argp_param *p;

	ASSERT_OK(doca_argp_init("prog", NULL));
	p = mk_param("a", NULL, DOCA_ARGP_TYPE_INT, cb_ns);
	ASSERT_OK(doca_argp_param_destroy(p));
	p = mk_param("a", NULL, DOCA_ARGP_TYPE_INT, cb_ns);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_ERR(doca_argp_param_destroy(p), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_argp_register_param(p), DOCA_ERROR_ALREADY_EXIST);
	ASSERT_OK(doca_argp_destroy());
}

/* ---- names and values ---- */

TEST(short_long_and_equals_forms)
{
	setup_std();
	ASSERT_OK(START("-t", "a b", "--device", "mlx5_0", "--transport-type=RC", "-ns=4"));
	ASSERT_STR_EQ(events, "text=a b;device=mlx5_0;tt=RC;ns=4;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(multi_char_short_names)
{
	setup_std();
	ASSERT_OK(START("-ns", "2", "-nd", "3", "-tt", "DC", "-cm"));
	ASSERT_STR_EQ(events, "ns=2;nd=3;tt=DC;cm=true;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(long_name_needs_two_dashes)
{
	setup_std();
	/* "-text" is not -t with a glued value nor --text. */
	ASSERT_ERR(START("-text", "x"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(equals_value_may_be_empty_or_contain_equals)
{
	setup_std();
	ASSERT_OK(START("--text=", "-d", "a=b=c"));
	ASSERT_STR_EQ(events, "text=;device=a=b=c;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(int_values)
{
	setup_std();
	ASSERT_OK(START("-ns", "-5", "--num-dst-buf", "0x1f"));
	ASSERT_STR_EQ(events, "ns=-5;nd=31;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	ASSERT_OK(START("-ns", "2147483647", "-nd", "-2147483648"));
	ASSERT_STR_EQ(events, "ns=2147483647;nd=-2147483648;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(int_rejects_overflow_and_junk)
{
	const char *bad[] = {"2147483648", "-2147483649", "99999999999999999999", "12abc", "", " 5", "0x", "1.5",
			     "five",	   "--"};

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		setup_std();
		ASSERT_ERR(START("-t", "x", "-ns", (char *)bad[i]), DOCA_ERROR_INVALID_VALUE);
		/* Phase one failed: no callback ran, not even the valid -t before it. */
		ASSERT_STR_EQ(events, "");
		ASSERT_OK(doca_argp_destroy());
	}
}

TEST(boolean_takes_no_value)
{
	setup_std();
	ASSERT_OK(START("--use-rdma-cm", "-t", "x"));
	ASSERT_STR_EQ(events, "cm=true;text=x;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	ASSERT_ERR(START("--use-rdma-cm=true"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());

	/* A word after a boolean is not its value. */
	setup_std();
	ASSERT_ERR(START("-cm", "true"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(missing_value)
{
	setup_std();
	ASSERT_ERR(START("-t"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	/* -d followed by a known flag: the device was forgotten. */
	ASSERT_ERR(START("-d", "-cm"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	ASSERT_ERR(START("-d", "--text=x"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
	/* ...but a value that merely starts with '-' is a value. */
	setup_std();
	ASSERT_OK(START("-d", "-not-a-flag"));
	ASSERT_STR_EQ(events, "device=-not-a-flag;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(unknown_flag_is_not_supported)
{
	setup_std();
	ASSERT_ERR(START("-t", "x", "--bogus"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	ASSERT_ERR(START("-q"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	ASSERT_ERR(START("--=x"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	ASSERT_ERR(START("stray"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_argp_destroy());
	/* Without a DPDK program, "--" is not a flag of ours. */
	setup_std();
	ASSERT_ERR(START("--", "-t", "x"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
run_bogus(void)
{
	setup_std();
	return START("--bogus");
}

TEST(error_prints_usage_on_stderr_and_returns)
{
	struct capture c;

	capture_run(run_bogus, &c);
	ASSERT_EQ(c.exit_code, 100 + DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_CONTAINS(c.err, "Unknown flag --bogus");
	ASSERT_CONTAINS(c.err, "Usage: prog [DOCA Flags] [Program Flags]");
	ASSERT_STR_EQ(c.out, "");
}

TEST(repeat_without_multiplicity_is_invalid)
{
	setup_std();
	ASSERT_ERR(START("-t", "a", "--text", "b"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	ASSERT_ERR(START("-l", "50", "--log-level", "60"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(multiplicity_calls_back_per_occurrence)
{
	struct doca_argp_param *p;

	setup_std();
	p = mk_param("a", "add", DOCA_ARGP_TYPE_STRING, cb_text);
	doca_argp_param_set_multiplicity(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_OK(START("-a", "1", "-ns", "9", "--add", "2", "-a=3"));
	ASSERT_STR_EQ(events, "text=1;ns=9;text=2;text=3;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(mandatory_flag)
{
	struct doca_argp_param *p;

	ASSERT_OK(doca_argp_init("prog", &test_cfg));
	p = mk_param("d", "device", DOCA_ARGP_TYPE_STRING, cb_device);
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_register_param(p));
	reg_param("ns", NULL, DOCA_ARGP_TYPE_INT, cb_ns);
	ASSERT_ERR(START("-ns", "1"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());

	ASSERT_OK(doca_argp_init("prog", &test_cfg));
	p = mk_param("d", "device", DOCA_ARGP_TYPE_STRING, cb_device);
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_OK(START("--device", "mlx5_0"));
	ASSERT_STR_EQ(events, "device=mlx5_0;");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
cb_fail(void *param, void *cfg)
{
	check_cfg(cfg);
	event("fail");
	return DOCA_ERROR_NOT_FOUND;
}

TEST(callback_error_stops_parsing)
{
	setup_std();
	reg_param("f", NULL, DOCA_ARGP_TYPE_BOOLEAN, cb_fail);
	ASSERT_OK(doca_argp_register_validation_callback(cb_validate));
	ASSERT_ERR(START("-t", "a", "-f", "-ns", "1"), DOCA_ERROR_NOT_FOUND);
	/* Callbacks after the failing one and the validation did not run. */
	ASSERT_STR_EQ(events, "text=a;fail;");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
cb_validate_fail(void *cfg)
{
	check_cfg(cfg);
	event("validate-fail");
	return DOCA_ERROR_BAD_CONFIG;
}

TEST(validation_runs_after_all_params)
{
	setup_std();
	ASSERT_OK(doca_argp_register_validation_callback(cb_validate));
	ASSERT_OK(START("-ns", "1", "-t", "x", "-cm"));
	ASSERT_STR_EQ(events, "ns=1;text=x;cm=true;validate;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	ASSERT_OK(doca_argp_register_validation_callback(cb_validate_fail));
	ASSERT_ERR(START("-ns", "1"), DOCA_ERROR_BAD_CONFIG);
	ASSERT_STR_EQ(events, "ns=1;validate-fail;");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
cb_obj(void *param, void *cfg)
{
	struct json_object *obj = param;
	struct json_object *a;

	check_cfg(cfg);
	if (json_object_object_get_ex(obj, "a", &a))
		event("obj.a=%d", json_object_get_int(a));
	else
		event("obj-without-a");
	return DOCA_SUCCESS;
}

TEST(json_obj_flag_on_cli)
{
	setup_std();
	reg_param("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, cb_obj);
	ASSERT_OK(START("--obj", "{\"a\": 42}"));
	ASSERT_STR_EQ(events, "obj.a=42;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	reg_param("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, cb_obj);
	ASSERT_ERR(START("--obj", "{\"a\": "), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	reg_param("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, cb_obj);
	ASSERT_ERR(START("-o", "[1,2]"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(string_callback_gets_a_copy)
{
	char arg[] = "value";
	char *argv[] = {"prog", "-t", arg, NULL};

	setup_std();
	ASSERT_OK(doca_argp_start(3, argv));
	ASSERT_STR_EQ(events, "text=value;");
	ASSERT_STR_EQ(arg, "value");
	ASSERT_OK(doca_argp_destroy());
}

/* ---- singular, hidden ---- */

TEST(singular_flag_must_be_alone)
{
	struct doca_argp_param *p;

	setup_std();
	p = mk_param(NULL, "list", DOCA_ARGP_TYPE_BOOLEAN, cb_cm);
	doca_argp_param_set_singular(p);
	ASSERT_OK(doca_argp_register_param(p));
	p = mk_param("m", NULL, DOCA_ARGP_TYPE_STRING, cb_device);
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_register_param(p));
	/* Alone, it excuses the mandatory -m. */
	ASSERT_OK(START("--list"));
	ASSERT_STR_EQ(events, "cm=true;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	p = mk_param(NULL, "list", DOCA_ARGP_TYPE_BOOLEAN, cb_cm);
	doca_argp_param_set_singular(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_ERR(START("--list", "-t", "x"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(hidden_flag_is_accepted)
{
	struct doca_argp_param *p;

	setup_std();
	p = mk_param("x", "secret", DOCA_ARGP_TYPE_INT, cb_ns);
	doca_argp_param_set_hidden(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_OK(START("--secret", "3"));
	ASSERT_STR_EQ(events, "ns=3;");
	ASSERT_OK(doca_argp_destroy());
}

/* ---- log levels ---- */

TEST(log_level_flags)
{
	int level = 0;

	setup_std();
	ASSERT_OK(doca_argp_get_log_level(&level));
	ASSERT_EQ(level, doca_log_level_get_global_lower_limit());
	ASSERT_OK(START("-l", "60", "--sdk-log-level", "20"));
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), 60);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), 20);
	ASSERT_OK(doca_argp_get_log_level(&level));
	ASSERT_EQ(level, 60);
	ASSERT_OK(doca_argp_get_sdk_log_level(&level));
	ASSERT_EQ(level, 20);
	ASSERT_OK(doca_argp_destroy());
}

TEST(log_level_rejects_bad_values)
{
	const char *bad[] = {"5", "80", "55", "abc", "", "-10"};

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		uint32_t before = doca_log_level_get_global_lower_limit();

		setup_std();
		ASSERT_ERR(START("--log-level", (char *)bad[i]), DOCA_ERROR_INVALID_VALUE);
		ASSERT_EQ(doca_log_level_get_global_lower_limit(), before);
		ASSERT_OK(doca_argp_destroy());
	}
	setup_std();
	ASSERT_ERR(START("--sdk-log-level"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

/* ---- DPDK split ---- */

static doca_error_t
cb_dpdk(int argc, char **argv)
{
	event("dpdk(%d", argc);
	for (int i = 0; i < argc; i++)
		event("%s", argv[i]);
	event(")");
	return DOCA_SUCCESS;
}

TEST(dpdk_program_gets_flags_before_separator)
{
	setup_std();
	doca_argp_set_dpdk_program(cb_dpdk);
	ASSERT_OK(START("-a", "0000:01:00.0", "-l", "0-3", "--", "-t", "x"));
	ASSERT_STR_EQ(events, "dpdk(5;prog;-a;0000:01:00.0;-l;0-3;);text=x;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	doca_argp_set_dpdk_program(cb_dpdk);
	ASSERT_OK(START("-t", "y"));
	ASSERT_STR_EQ(events, "dpdk(1;prog;);text=y;");
	ASSERT_OK(doca_argp_destroy());
}

/* ---- logger callback ---- */

static doca_error_t __attribute__((format(printf, 2, 0)))
cb_logger(enum doca_log_level level, const char *format, va_list args)
{
	char line[512];

	vsnprintf(line, sizeof(line), format, args);
	event("log%d:%s", (int)level, line);
	return DOCA_SUCCESS;
}

TEST(logger_callback_gets_diagnostics)
{
	setup_std();
	ASSERT_OK(doca_argp_register_logger_callback(cb_logger));
	ASSERT_ERR(START("--bogus"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "log30:Unknown flag --bogus;");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
run_quiet(void)
{
	setup_std();
	if (doca_argp_register_logger_callback(cb_logger) != DOCA_SUCCESS ||
	    doca_argp_disable_logger_callback() != DOCA_SUCCESS)
		return DOCA_ERROR_UNEXPECTED;
	(void)START("-t");
	printf("events[%s]", events);
	return DOCA_SUCCESS;
}

TEST(disabled_logger_is_silent)
{
	struct capture c;

	capture_run(run_quiet, &c);
	ASSERT_EQ(c.exit_code, 100);
	/* Neither the logger callback nor the usage; the SDK log line remains. */
	ASSERT_STR_EQ(c.out, "events[]");
	ASSERT_NOT_CONTAINS(c.err, "Usage:");
	ASSERT_CONTAINS(c.err, "requires a value");
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
