/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_file_compression: DOCA's File Compression application.  One source,
 * built for the host (the client, which compresses and sends a file) and the
 * DPU (the server, which receives, decompresses and writes it).  Flags:
 * -p/--pci-addr (mandatory: the Comch device), -r/--rep-pci (the DPU's
 * representor of the host function), -f/--file (mandatory), -t/--timeout.
 */
#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "app_main.h"
#include "common.h"
#include "file_compression_core.h"

DOCA_LOG_REGISTER(FILE_COMPRESSION::MAIN);

static doca_error_t
pci_callback(void *param, void *config)
{
	struct fc_cfg *cfg = config;

	return copy_string_param("Comch DOCA device PCI address (-p)", param, cfg->comch_pci, sizeof(cfg->comch_pci));
}

static doca_error_t
rep_pci_callback(void *param, void *config)
{
	struct fc_cfg *cfg = config;

	/* Kept only on the DPU: the host has no representors. */
	if (!cfg->is_server)
		return DOCA_SUCCESS;
	return copy_string_param("Comch DOCA device representor PCI address (-r)", param, cfg->rep_pci,
				 sizeof(cfg->rep_pci));
}

static doca_error_t
file_callback(void *param, void *config)
{
	struct fc_cfg *cfg = config;

	return copy_string_param("File path (-f)", param, cfg->file_path, sizeof(cfg->file_path));
}

static doca_error_t
timeout_callback(void *param, void *config)
{
	struct fc_cfg *cfg = config;
	int t = *(int *)param;

	if (t <= 0) {
		DOCA_LOG_ERR("Timeout (-t) must be a positive number of seconds, got %d", t);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->timeout_sec = t;
	return DOCA_SUCCESS;
}

static const struct app_flag fc_flags[] = {
	{"p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comch device PCI address", DOCA_ARGP_TYPE_STRING, pci_callback, true},
	{"r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comch device representor PCI address (needed only on the DPU)",
	 DOCA_ARGP_TYPE_STRING, rep_pci_callback, false},
	{"f", "file", "<path>", "File to send by the client / file to write by the server", DOCA_ARGP_TYPE_STRING,
	 file_callback, true},
	{"t", "timeout", "<seconds>", "Application timeout for receiving file content messages, default is 10 sec",
	 DOCA_ARGP_TYPE_INT, timeout_callback, false},
};

static doca_error_t
run(void *config)
{
	struct fc_cfg *cfg = config;

	return cfg->is_server ? fc_server_run(cfg) : fc_client_run(cfg);
}

int
main(int argc, char **argv)
{
	struct fc_cfg cfg = {.timeout_sec = 10};
	struct app_main_cfg app = {
		.name = "doca_file_compression",
		.flags = fc_flags,
		.num_flags = sizeof(fc_flags) / sizeof(fc_flags[0]),
		.config = &cfg,
		.rep_pci = cfg.rep_pci,
		.rep_pci_missing = "Missing representor PCI address for server",
		.run_what = "File compression",
		.run = run,
	};

#ifndef DOCA_ARCH_HOST
	cfg.is_server = true;
#endif
	return app_main(argc, argv, &app);
}
