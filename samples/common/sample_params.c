/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sample_register_params(): a table of flags into ARGP; sample_main_with_params():
 * the main() of a sample with flags (sample_params.h).
 */
#include <stdlib.h>

#include <doca_log.h>

#include "common.h"
#include "sample_params.h"

DOCA_LOG_REGISTER(SAMPLE_PARAMS);

doca_error_t
sample_register_params(const struct sample_param *params, size_t n)
{
	struct doca_argp_param *param;
	doca_error_t result;
	size_t i;

	for (i = 0; i < n; i++) {
		result = doca_argp_param_create(&param);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to create ARGP param %s: %s", params[i].long_name,
				     doca_error_get_descr(result));
			return result;
		}
		if (params[i].short_name != NULL)
			doca_argp_param_set_short_name(param, params[i].short_name);
		doca_argp_param_set_long_name(param, params[i].long_name);
		if (params[i].arguments != NULL)
			doca_argp_param_set_arguments(param, params[i].arguments);
		doca_argp_param_set_description(param, params[i].description);
		doca_argp_param_set_callback(param, params[i].callback);
		doca_argp_param_set_type(param, params[i].type);
		if (params[i].mandatory)
			doca_argp_param_set_mandatory(param);
		result = doca_argp_register_param(param);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to register ARGP param %s: %s", params[i].long_name,
				     doca_error_get_descr(result));
			return result;
		}
	}
	return DOCA_SUCCESS;
}

int
sample_main_with_params(const char *name, const char *argp_name, uint32_t sdk_level, void *cfg,
			doca_error_t (*register_params)(void), doca_error_t (*run)(const void *cfg), int argc,
			char **argv)
{
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	/* Without a log there is no way to report anything: fail silently. */
	if (sample_logging_init(sdk_level) != DOCA_SUCCESS)
		return EXIT_FAILURE;

	DOCA_LOG_INFO("Starting the sample");

	result = doca_argp_init(argp_name, cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to initialize ARGP: %s", doca_error_get_descr(result));
		goto sample_exit;
	}
	result = register_params();
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register the sample's parameters: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse the sample's input: %s", doca_error_get_descr(result));
		goto argp_cleanup;
	}

	result = run(cfg);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("%s sample failed: %s (%s)", name, doca_error_get_descr(result),
			     doca_error_get_name(result));
	else
		exit_status = EXIT_SUCCESS;

argp_cleanup:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}
