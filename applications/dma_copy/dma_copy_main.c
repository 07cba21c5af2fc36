/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma_copy: DOCA's DMA Copy application.  The same source is built for the
 * host (client) and the DPU (server); the personality decides the role.
 * Flags: -f/--file (mandatory), -p/--pci-addr (mandatory), -r/--rep-pci (DPU).
 */
#include <stdio.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "app_main.h"
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

static const struct app_flag dma_copy_flags[] = {
	{"f", "file", "<path>", "Full path to file to be copied/created after a successful DMA copy",
	 DOCA_ARGP_TYPE_STRING, file_callback, true},
	{"p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comch device PCI address", DOCA_ARGP_TYPE_STRING, pci_callback, true},
	{"r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comch device representor PCI address", DOCA_ARGP_TYPE_STRING,
	 rep_pci_callback, false},
};

static doca_error_t
run(void *config)
{
	const struct dma_copy_cfg *cfg = config;

	return cfg->is_dpu ? dma_copy_dpu(cfg) : dma_copy_host(cfg);
}

int
main(int argc, char **argv)
{
	struct dma_copy_cfg cfg = {0};
	struct app_main_cfg app = {
		.name = "doca_dma_copy",
		.flags = dma_copy_flags,
		.num_flags = sizeof(dma_copy_flags) / sizeof(dma_copy_flags[0]),
		.config = &cfg,
		.rep_pci = cfg.rep_pci,
		.run_what = "DMA copy",
		.run = run,
	};

#ifdef DOCA_ARCH_DPU
	cfg.is_dpu = true;
#endif
	return app_main(argc, argv, &app);
}
