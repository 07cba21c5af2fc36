/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma_copy: DOCA's DMA Copy application.  The same source is built for the
 * host (client) and the DPU (server); the personality decides the role.
 * Flags: -f/--file (mandatory), -p/--pci-addr (mandatory), -r/--rep-pci (DPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>
#include <doca_version.h>

#include "common.h"
#include "dma_copy_core.h"

DOCA_LOG_REGISTER(DMA_COPY);

static doca_error_t
file_callback(void *param, void *config)
{
	struct dma_copy_cfg *cfg = config;
	const char *path = param;

	if (strnlen(path, DMA_COPY_MAX_FILE_NAME) >= DMA_COPY_MAX_FILE_NAME) {
		DOCA_LOG_ERR("File name is too long - MAX=%d", DMA_COPY_MAX_FILE_NAME - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(cfg->file_path, sizeof(cfg->file_path), "%s", path);
	return DOCA_SUCCESS;
}

static doca_error_t
pci_callback(void *param, void *config)
{
	struct dma_copy_cfg *cfg = config;

	return copy_string_param("Comch DOCA device PCI address (-p)", param, cfg->comch_pci, sizeof(cfg->comch_pci));
}

static doca_error_t
rep_pci_callback(void *param, void *config)
{
	struct dma_copy_cfg *cfg = config;

	/* Kept only on the DPU: the host has no representors. */
	if (!cfg->is_dpu)
		return DOCA_SUCCESS;
	return copy_string_param("Comch DOCA device representor PCI address (-r)", param, cfg->rep_pci,
				 sizeof(cfg->rep_pci));
}

static doca_error_t
version_callback(void *param, void *config)
{
	(void)param;
	(void)config;
	printf("DOCA SDK     Version (Compilation): %s\n", doca_version());
	printf("DOCA Runtime Version (Runtime):     %s\n", doca_version_runtime());
	return DOCA_SUCCESS;
}

static doca_error_t
register_param(const char *s, const char *l, const char *arg, const char *desc, doca_argp_param_cb_t cb, bool mandatory)
{
	struct doca_argp_param *param;
	doca_error_t r = doca_argp_param_create(&param);

	if (r != DOCA_SUCCESS)
		return r;
	doca_argp_param_set_short_name(param, s);
	doca_argp_param_set_long_name(param, l);
	doca_argp_param_set_arguments(param, arg);
	doca_argp_param_set_description(param, desc);
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
	if (mandatory)
		doca_argp_param_set_mandatory(param);
	r = doca_argp_register_param(param);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register program param %s: %s", l, doca_error_get_descr(r));
	return r;
}

static doca_error_t
register_dma_copy_params(void)
{
	doca_error_t r;

	r = register_param("f", "file", "<path>", "Full path to file to be copied/created after a successful DMA copy",
			   file_callback, true);
	if (r == DOCA_SUCCESS)
		r = register_param("p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comch device PCI address", pci_callback,
				   true);
	if (r == DOCA_SUCCESS)
		r = register_param("r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comch device representor PCI address",
				   rep_pci_callback, false);
	if (r == DOCA_SUCCESS)
		r = doca_argp_register_version_callback(version_callback);
	return r;
}

int
main(int argc, char **argv)
{
	struct dma_copy_cfg cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t r;

	memset(&cfg, 0, sizeof(cfg));
#ifdef DOCA_ARCH_DPU
	cfg.is_dpu = true;
#endif
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	r = doca_argp_init("doca_dma_copy", &cfg);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(r));
		return EXIT_FAILURE;
	}
	r = register_dma_copy_params();
	if (r != DOCA_SUCCESS)
		goto destroy_argp;
	r = doca_argp_start(argc, argv);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse application input: %s", doca_error_get_descr(r));
		goto destroy_argp;
	}
	if (cfg.is_dpu && cfg.rep_pci[0] == '\0') {
		DOCA_LOG_ERR("The DPU side needs the representor of the host function: pass -r/--rep-pci");
		goto destroy_argp;
	}
	r = cfg.is_dpu ? dma_copy_dpu(&cfg) : dma_copy_host(&cfg);
	if (r == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;
	else
		DOCA_LOG_ERR("DMA copy failed: %s", doca_error_get_descr(r));
destroy_argp:
	doca_argp_destroy();
	return exit_status;
}
