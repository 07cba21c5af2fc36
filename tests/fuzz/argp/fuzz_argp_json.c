/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of doca_argp's -j/--json input: each input is the content of a
 * flags file, handed to doca_argp_start() through a memfd.  Built for
 * libFuzzer when clang supports -fsanitize=fuzzer, else linked with
 * fuzz_driver.c, which replays the corpus and deterministic mutations of it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-c/json.h>

#include <doca_argp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static doca_error_t
cb_value(void *param, void *cfg)
{
	(void)param;
	(*(unsigned long *)cfg)++;
	return DOCA_SUCCESS;
}

static doca_error_t
cb_obj(void *param, void *cfg)
{
	/* Walk the whole object, as a program reading it would. */
	const char *text = json_object_to_json_string((struct json_object *)param);

	(*(unsigned long *)cfg) += text != NULL;
	return DOCA_SUCCESS;
}

static void
add(const char *short_name, const char *long_name, enum doca_argp_type type, bool multi, bool cli_only)
{
	struct doca_argp_param *p;

	if (doca_argp_param_create(&p) != DOCA_SUCCESS)
		abort();
	doca_argp_param_set_short_name(p, short_name);
	doca_argp_param_set_long_name(p, long_name);
	doca_argp_param_set_type(p, type);
	doca_argp_param_set_callback(p, type == DOCA_ARGP_TYPE_JSON_OBJ ? cb_obj : cb_value);
	if (multi)
		doca_argp_param_set_multiplicity(p);
	if (cli_only)
		doca_argp_param_set_cli_only(p);
	if (doca_argp_register_param(p) != DOCA_SUCCESS)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned long calls;
	char path[64];
	doca_error_t err;
	int fd;

	fd = memfd_create("argp-fuzz", 0);
	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	if (doca_argp_init("fuzz", &calls) != DOCA_SUCCESS)
		abort();
	add("t", "text", DOCA_ARGP_TYPE_STRING, false, false);
	add("n", "num", DOCA_ARGP_TYPE_INT, false, false);
	add("b", "flag", DOCA_ARGP_TYPE_BOOLEAN, false, false);
	add("a", "add", DOCA_ARGP_TYPE_INT, true, false);
	add("s", "strings", DOCA_ARGP_TYPE_STRING, true, false);
	add("o", "obj", DOCA_ARGP_TYPE_JSON_OBJ, true, false);
	add("k", "key", DOCA_ARGP_TYPE_STRING, false, true);
	add("x", NULL, DOCA_ARGP_TYPE_INT, false, false);
	/* Refusals are the common case: keep them off stderr. */
	doca_argp_disable_logger_callback();
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE);
	err = doca_argp_start(3, (char *[]){"fuzz", "-j", path, NULL});
	if ((int)err < DOCA_SUCCESS || err > DOCA_ERROR_SKIPPED)
		abort();
	if (doca_argp_destroy() != DOCA_SUCCESS)
		abort();
	close(fd);
	return 0;
}
