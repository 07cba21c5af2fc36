/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp -j/--json contract tests: flat and sectioned files, types, bad
 * files, command-line precedence, cli_only, multiplicity arrays.
 */
#include <json-c/json.h>

#include "argp_test.h"

static char path[512];

/* setup_std() plus -j <file holding text>, started with the extra CLI arguments. */
#define START_JSON(text, ...) (write_tmp("flags.json", (text), path, sizeof(path)), START("-j", path, ##__VA_ARGS__))

TEST(flat_file)
{
	setup_std();
	ASSERT_OK(START_JSON("{\"text\": \"hi there\", \"num-src-buf\": -3, \"use-rdma-cm\": true}"));
	ASSERT_STR_EQ(events, "text=hi there;ns=-3;cm=true;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(sectioned_file)
{
	int level;

	setup_std();
	ASSERT_OK(START_JSON("{\n"
			     "  \"doca_dpdk_flags\": {\"devices\": [{\"device\": \"sf\"}]},\n"
			     "  \"doca_general_flags\": {\"log-level\": 60, \"sdk-log-level\": 30},\n"
			     "  \"doca_program_flags\": {\"device\": \"mlx5_0\", \"transport-type\": \"DC\"}\n"
			     "}\n"));
	ASSERT_STR_EQ(events, "device=mlx5_0;tt=DC;");
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), 60);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), 30);
	ASSERT_OK(doca_argp_get_log_level(&level));
	ASSERT_EQ(level, 60);
	ASSERT_OK(doca_argp_destroy());
}

TEST(comments_are_accepted)
{
	/* DOCA's own example files carry comments; json-c's default mode reads them. */
	setup_std();
	ASSERT_OK(START_JSON("{\n  // the device\n  \"device\": \"mlx5_0\", /* and text */ \"text\": \"t\"\n}"));
	ASSERT_STR_EQ(events, "device=mlx5_0;text=t;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(false_boolean_is_passed_as_false)
{
	setup_std();
	ASSERT_OK(START_JSON("{\"use-rdma-cm\": false}"));
	ASSERT_STR_EQ(events, "cm=false;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(wrong_types_are_invalid)
{
	const char *bad[] = {
		"{\"num-src-buf\": \"2\"}",
		"{\"num-src-buf\": 2.5}",
		"{\"num-src-buf\": 4294967296}",
		"{\"num-src-buf\": null}",
		"{\"text\": 5}",
		"{\"text\": [\"a\"]}",
		"{\"use-rdma-cm\": \"true\"}",
		"{\"use-rdma-cm\": 1}",
		"{\"log-level\": \"60\"}",
		"{\"log-level\": 65}",
		"{\"doca_program_flags\": [1]}",
	};

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		fprintf(stderr, "# case %s\n", bad[i]);
		setup_std();
		ASSERT_ERR(START_JSON(bad[i], "-ns", "1"), DOCA_ERROR_INVALID_VALUE);
		ASSERT_STR_EQ(events, "");
		ASSERT_OK(doca_argp_destroy());
	}
}

TEST(malformed_files_are_invalid)
{
	const char *bad[] = {
		"", "{", "{\"text\" \"a\"}", "{\"text\": \"a\"} trailing", "[\"text\", \"a\"]", "42", "\"text\"",
	};

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		setup_std();
		ASSERT_ERR(START_JSON(bad[i]), DOCA_ERROR_INVALID_VALUE);
		ASSERT_STR_EQ(events, "");
		ASSERT_OK(doca_argp_destroy());
	}
}

TEST(unreadable_files_are_invalid)
{
	char missing[512];

	snprintf(missing, sizeof(missing), "%s/does-not-exist.json", sd_test_tmpdir());
	setup_std();
	ASSERT_ERR(START("-j", missing), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
	/* A directory opens but cannot be read. */
	setup_std();
	ASSERT_ERR(START("--json", (char *)sd_test_tmpdir()), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
	setup_std();
	ASSERT_ERR(START("--json"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(unknown_key_is_not_supported)
{
	setup_std();
	ASSERT_ERR(START_JSON("{\"text\": \"a\", \"bogus\": 1}"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
	/* Keys are long names, not short ones. */
	setup_std();
	ASSERT_ERR(START_JSON("{\"ns\": 1}"), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_argp_destroy());
}

TEST(short_only_param_uses_short_name_as_key)
{
	setup_std();
	reg_param("x", NULL, DOCA_ARGP_TYPE_INT, cb_nd);
	ASSERT_OK(START_JSON("{\"x\": 8}"));
	ASSERT_STR_EQ(events, "nd=8;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(reserved_keys_are_refused)
{
	const char *bad[] = {"{\"json\": \"x.json\"}", "{\"help\": true}", "{\"version\": true}"};

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		setup_std();
		ASSERT_ERR(START_JSON(bad[i]), DOCA_ERROR_INVALID_VALUE);
		ASSERT_OK(doca_argp_destroy());
	}
}

TEST(command_line_wins_over_file)
{
	setup_std();
	/* JSON flags run first, then the CLI ones; a flag given on both sides runs once, with the CLI value. */
	ASSERT_OK(START_JSON("{\"text\": \"from-json\", \"device\": \"json-dev\", \"log-level\": 20}", "-t", "from-cli",
			     "-l", "70"));
	ASSERT_STR_EQ(events, "device=json-dev;text=from-cli;");
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), 70);
	ASSERT_OK(doca_argp_destroy());
}

TEST(json_flag_position_does_not_matter)
{
	write_tmp("flags.json", "{\"text\": \"j\"}", path, sizeof(path));
	setup_std();
	ASSERT_OK(START("-ns", "1", "--json", path, "-nd", "2"));
	ASSERT_STR_EQ(events, "text=j;ns=1;nd=2;");
	ASSERT_OK(doca_argp_destroy());
}

TEST(json_given_twice_is_invalid)
{
	write_tmp("flags.json", "{}", path, sizeof(path));
	setup_std();
	ASSERT_ERR(START("-j", path, "--json", path), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(cli_only_param_refused_in_file)
{
	struct doca_argp_param *p;

	setup_std();
	p = mk_param("k", "key", DOCA_ARGP_TYPE_STRING, cb_text);
	doca_argp_param_set_cli_only(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_ERR(START_JSON("{\"key\": \"secret\"}"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(multiplicity_takes_array)
{
	struct doca_argp_param *p;

	setup_std();
	p = mk_param("a", "add", DOCA_ARGP_TYPE_INT, cb_nd);
	doca_argp_param_set_multiplicity(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_OK(START_JSON("{\"add\": [1, 2, 3], \"num-src-buf\": 0}"));
	ASSERT_STR_EQ(events, "nd=1;nd=2;nd=3;ns=0;");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	p = mk_param("a", "add", DOCA_ARGP_TYPE_INT, cb_nd);
	doca_argp_param_set_multiplicity(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_ERR(START_JSON("{\"add\": [1, \"2\"]}"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_STR_EQ(events, "");
	ASSERT_OK(doca_argp_destroy());
}

TEST(duplicate_between_sections_is_invalid)
{
	setup_std();
	ASSERT_ERR(START_JSON("{\"text\": \"a\", \"doca_program_flags\": {\"text\": \"b\"}}"),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

TEST(mandatory_satisfied_by_file)
{
	struct doca_argp_param *p;

	ASSERT_OK(doca_argp_init("prog", &test_cfg));
	p = mk_param("d", "device", DOCA_ARGP_TYPE_STRING, cb_device);
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_register_param(p));
	ASSERT_OK(START_JSON("{\"doca_program_flags\": {\"device\": \"mlx5_1\"}}"));
	ASSERT_STR_EQ(events, "device=mlx5_1;");
	ASSERT_OK(doca_argp_destroy());
}

static doca_error_t
cb_obj(void *param, void *cfg)
{
	struct json_object *obj = param;

	check_cfg(cfg);
	event("obj=%s", json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN));
	return DOCA_SUCCESS;
}

TEST(json_obj_param_in_file)
{
	setup_std();
	reg_param("o", "rules", DOCA_ARGP_TYPE_JSON_OBJ, cb_obj);
	ASSERT_OK(START_JSON("{\"rules\": {\"port\": 1, \"names\": [\"a\"]}}"));
	ASSERT_STR_EQ(events, "obj={\"port\":1,\"names\":[\"a\"]};");
	ASSERT_OK(doca_argp_destroy());

	events[0] = '\0';
	setup_std();
	reg_param("o", "rules", DOCA_ARGP_TYPE_JSON_OBJ, cb_obj);
	ASSERT_ERR(START_JSON("{\"rules\": \"port=1\"}"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_argp_destroy());
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
