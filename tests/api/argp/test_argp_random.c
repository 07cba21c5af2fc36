/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_argp against random command lines: thousands of argv arrays drawn from
 * the flags' own vocabulary, stray values, JSON files good and bad, and random
 * bytes (fixed seed, so a failure replays).  Every start must return a
 * doca_error_t and never crash, exit, leak a callback with a wrong config or
 * call a callback when it fails.
 */
#include <inttypes.h>

#include "argp_test.h"

#define ITERATIONS 4000
#define MAX_TOKENS 12

static uint64_t rng_state = 0x5eed0a7d0ca1234fULL;

/* xorshift64*: enough to vary the inputs, reproducible by seed. */
static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static const char *const vocabulary[] = {
	"-t",
	"--text",
	"-d",
	"--device",
	"-ns",
	"--num-src-buf",
	"-nd",
	"-tt",
	"-cm",
	"--use-rdma-cm",
	"--use-rdma-cm=1",
	"-l",
	"--log-level",
	"--sdk-log-level",
	"--log-level=60",
	"-j",
	"--json",
	"--",
	"-",
	"run",
	"show",
	"sub",
	"-s",
	"--speed",
	"--level",
	"--deep",
	"-a",
	"--add",
	"-o",
	"--obj",
	"1",
	"-1",
	"0",
	"0x10",
	"2147483647",
	"2147483648",
	"-2147483649",
	"abc",
	"",
	"=",
	"--text=",
	"-ns=5",
	"--=",
	"---",
	"-=",
	"{\"a\":1}",
	"{",
	"10",
	"70",
	"55",
	"RC",
	"--json=",
	"--num-src-buf=x",
};

/* Tokens that end the process by design; random text must not spell them. */
static const char *const exiting[] = {"-h", "--help", "-v", "--version"};

static char json_paths[4][512];
static char random_tokens[MAX_TOKENS][24];

static doca_error_t
cb_any(void *param, void *cfg)
{
	check_cfg(cfg);
	event("cb");
	return DOCA_SUCCESS;
}

static doca_error_t
cb_cmd(void *cfg)
{
	check_cfg(cfg);
	event("cmd");
	return DOCA_SUCCESS;
}

static void
setup_random_program(void)
{
	struct doca_argp_cmd *run, *sub;
	struct doca_argp_param *p;

	setup_std();
	ASSERT_OK(doca_argp_register_validation_callback(cb_validate));
	p = mk_param("a", "add", DOCA_ARGP_TYPE_INT, cb_any);
	doca_argp_param_set_multiplicity(p);
	ASSERT_OK(doca_argp_register_param(p));
	reg_param("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, cb_any);

	ASSERT_OK(doca_argp_cmd_create(&run));
	doca_argp_cmd_set_name(run, "run");
	doca_argp_cmd_set_callback(run, cb_cmd);
	p = mk_param("s", "speed", DOCA_ARGP_TYPE_INT, cb_any);
	doca_argp_param_set_mandatory(p);
	ASSERT_OK(doca_argp_cmd_register_param(run, p));
	p = mk_param(NULL, "level", DOCA_ARGP_TYPE_INT, cb_any);
	doca_argp_param_set_inherited(p);
	ASSERT_OK(doca_argp_cmd_register_param(run, p));
	ASSERT_OK(doca_argp_cmd_create(&sub));
	doca_argp_cmd_set_name(sub, "sub");
	ASSERT_OK(doca_argp_cmd_register_param(sub, mk_param(NULL, "deep", DOCA_ARGP_TYPE_BOOLEAN, cb_any)));
	ASSERT_OK(doca_argp_cmd_register_cmd(run, sub));
	ASSERT_OK(doca_argp_register_cmd(run));
}

static void
random_text(char *buf, size_t len)
{
	static const char alphabet[] = "-=abcdhjlnstvx01{}\"[],: ";
	size_t n = (size_t)(rnd() % (len - 1));

	for (size_t i = 0; i < n; i++)
		buf[i] = alphabet[rnd() % (sizeof(alphabet) - 1)];
	buf[n] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(exiting); i++)
		if (strcmp(buf, exiting[i]) == 0)
			buf[0] = 'x';
}

static const char *
random_token(int slot)
{
	switch (rnd() % 8) {
	case 0:
		return json_paths[rnd() % ARRAY_LEN(json_paths)];
	case 1:
		random_text(random_tokens[slot], sizeof(random_tokens[slot]));
		return random_tokens[slot];
	default:
		return vocabulary[rnd() % ARRAY_LEN(vocabulary)];
	}
}

TEST(random_command_lines_never_crash)
{
	unsigned int counts[DOCA_ERROR_SKIPPED + 1] = {0};
	char *argv[MAX_TOKENS + 2];
	unsigned int ok = 0;

	write_tmp("good.json", "{\"text\": \"j\", \"doca_program_flags\": {\"add\": [1, 2]}, \"log-level\": 50}",
		  json_paths[0], sizeof(json_paths[0]));
	write_tmp("bad.json", "{\"text\": 5", json_paths[1], sizeof(json_paths[1]));
	write_tmp("types.json", "{\"num-src-buf\": \"5\", \"obj\": {\"k\": [null]}}", json_paths[2],
		  sizeof(json_paths[2]));
	snprintf(json_paths[3], sizeof(json_paths[3]), "%s/missing.json", sd_test_tmpdir());

	for (int it = 0; it < ITERATIONS; it++) {
		int argc = 1 + (int)(rnd() % (MAX_TOKENS + 1));
		doca_error_t err;

		argv[0] = "prog";
		for (int i = 1; i < argc; i++)
			argv[i] = (char *)random_token(i - 1);
		argv[argc] = NULL;
		events[0] = '\0';
		setup_random_program();
		/* Thousands of refusals would flood stderr; only the verdicts matter here. */
		ASSERT_OK(doca_argp_disable_logger_callback());
		ASSERT_OK(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE));
		err = doca_argp_start(argc, argv);
		counts[err <= DOCA_ERROR_SKIPPED ? err : 0]++;
		if ((int)err < DOCA_SUCCESS || err > DOCA_ERROR_SKIPPED)
			sd_test_fail(__FILE__, __LINE__, "iteration %d: start returned %d", it, (int)err);
		ASSERT_NOT_CONTAINS(events, "WRONG-CONFIG");
		/* Errors found while reading the input leave the program untouched. */
		if (err == DOCA_ERROR_NOT_SUPPORTED || err == DOCA_ERROR_INVALID_VALUE)
			ASSERT_STR_EQ(events, "");
		if (err == DOCA_SUCCESS) {
			ok++;
			ASSERT_CONTAINS(events, "validate;");
		}
		ASSERT_OK(doca_argp_destroy());
	}
	printf("# SUCCESS %u, NOT_SUPPORTED %u, INVALID_VALUE %u, other %u\n", counts[DOCA_SUCCESS],
	       counts[DOCA_ERROR_NOT_SUPPORTED], counts[DOCA_ERROR_INVALID_VALUE],
	       ITERATIONS - counts[DOCA_SUCCESS] - counts[DOCA_ERROR_NOT_SUPPORTED] - counts[DOCA_ERROR_INVALID_VALUE]);
	/* The generator must also reach the success path, or the test checks little. */
	ASSERT(ok > ITERATIONS / 100);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
