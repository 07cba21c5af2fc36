/* SPDX-License-Identifier: BSD-3-Clause */
/* main() of the applications built for both sides (app_main.h). */
#include <stdlib.h>

#include <doca_build_config.h>
#include <doca_log.h>

#include "app_main.h"
#include "common.h"

DOCA_LOG_REGISTER(APP_MAIN);

static doca_error_t
register_flags(const struct app_flag *flags, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct app_flag *f = &flags[i];
		struct doca_argp_param *param;
		doca_error_t r = doca_argp_param_create(&param);

		if (r != DOCA_SUCCESS)
			return r;
		doca_argp_param_set_short_name(param, f->short_name);
		doca_argp_param_set_long_name(param, f->long_name);
		doca_argp_param_set_arguments(param, f->arguments);
		doca_argp_param_set_description(param, f->description);
		doca_argp_param_set_callback(param, f->callback);
		doca_argp_param_set_type(param, f->type);
		if (f->mandatory)
			doca_argp_param_set_mandatory(param);
		r = doca_argp_register_param(param);
		if (r != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Failed to register program param %s: %s", f->long_name, doca_error_get_descr(r));
			return r;
		}
	}
	return DOCA_SUCCESS;
}

int
app_main(int argc, char **argv, const struct app_main_cfg *app)
{
	int exit_status = EXIT_FAILURE;
	doca_error_t r;

	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	r = doca_argp_init(app->name, app->config);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(r));
		return EXIT_FAILURE;
	}
	r = register_flags(app->flags, app->num_flags);
	if (r != DOCA_SUCCESS)
		goto destroy_argp;
	r = doca_argp_start(argc, argv);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse application input: %s", doca_error_get_descr(r));
		goto destroy_argp;
	}
#ifdef DOCA_ARCH_DPU
	if (app->rep_pci == NULL || app->rep_pci[0] == '\0') {
		DOCA_LOG_ERR("%s",
			     app->rep_pci_missing != NULL
				     ? app->rep_pci_missing
				     : "The DPU side needs the representor of the host function: pass -r/--rep-pci");
		goto destroy_argp;
	}
#endif
	r = app->run(app->config);
	if (r == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;
	else
		DOCA_LOG_ERR("%s failed: %s", app->run_what, doca_error_get_descr(r));
destroy_argp:
	doca_argp_destroy();
	return exit_status;
}
