/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sample's flags as a table: one row per flag, registered with ARGP in one
 * call.  Needs doca-argp (kept out of common.c, which samples without flags
 * also compile).
 */
#ifndef SAMPLES_SAMPLE_PARAMS_H_
#define SAMPLES_SAMPLE_PARAMS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_argp.h>
#include <doca_error.h>

/* One flag of a sample; short_name NULL makes a long-only flag (--ipv6). */
struct sample_param {
	const char *short_name;
	const char *long_name;
	const char *arguments; /* "<value>" shown by -h, NULL for a boolean */
	const char *description;
	enum doca_argp_type type;
	doca_argp_param_cb_t callback;
	bool mandatory;
};

/* Create and register each of the n flags with ARGP (after doca_argp_init). */
doca_error_t sample_register_params(const struct sample_param *params, size_t n);

/*
 * DOCA's sample main(): logging (SDK messages at sdk_level), "Starting the
 * sample", ARGP named argp_name over cfg with register_params' flags, run(cfg),
 * and "Sample finished successfully" (returns EXIT_SUCCESS) or "Sample finished
 * with errors" (EXIT_FAILURE).  name labels the failure message.
 */
int sample_main_with_params(const char *name, const char *argp_name, uint32_t sdk_level, void *cfg,
			    doca_error_t (*register_params)(void), doca_error_t (*run)(const void *cfg), int argc,
			    char **argv);

#endif /* SAMPLES_SAMPLE_PARAMS_H_ */
