/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_file_integrity: DOCA's File Integrity application.  One source, built for
 * the host (Comch client: hashes and sends -f) and the DPU (Comch server: hashes
 * what it receives, writes it to -f and compares).  Flags: -p/--pci-addr
 * (mandatory), -r/--rep-pci (mandatory on the DPU), -f/--file (mandatory; the
 * client's must exist), -t/--timeout (seconds, default 10), and DOCA's standard
 * flags.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "app_main.h"
#include "file_integrity_core.h"

DOCA_LOG_REGISTER(FILE_INTEGRITY);

static doca_error_t
file_callback(void *param, void *config)
{
	struct fi_cfg *cfg = config;
	const char *path = param;

	if (strnlen(path, FI_MAX_FILE_NAME + 1) > FI_MAX_FILE_NAME) {
		DOCA_LOG_ERR("File name is too long - MAX=%d", FI_MAX_FILE_NAME);
		return DOCA_ERROR_INVALID_VALUE;
	}
	snprintf(cfg->file_path, sizeof(cfg->file_path), "%s", path);
	return DOCA_SUCCESS;
}

static doca_error_t
pci_callback(void *param, void *config)
{
	struct fi_cfg *cfg = config;

	return copy_string_param("DOCA Comch device PCI address (-p)", param, cfg->comch_pci, sizeof(cfg->comch_pci));
}

static doca_error_t
rep_pci_callback(void *param, void *config)
{
	struct fi_cfg *cfg = config;

	/* Kept only on the DPU: the host has no representors. */
	if (!cfg->is_dpu)
		return DOCA_SUCCESS;
	return copy_string_param("DOCA Comch device representor PCI address (-r)", param, cfg->rep_pci,
				 sizeof(cfg->rep_pci));
}

static doca_error_t
timeout_callback(void *param, void *config)
{
	struct fi_cfg *cfg = config;
	int timeout = *(int *)param;

	if (timeout <= 0) {
		DOCA_LOG_ERR("Timeout parameter must be positive value");
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->timeout = timeout;
	return DOCA_SUCCESS;
}

static const struct app_flag fi_flags[] = {
	{"p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comch device PCI address", DOCA_ARGP_TYPE_STRING, pci_callback, true},
	{"r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comch device representor PCI address", DOCA_ARGP_TYPE_STRING,
	 rep_pci_callback, false},
	{"f", "file", "<path>", "File to send by the client / File to write by the server", DOCA_ARGP_TYPE_STRING,
	 file_callback, true},
	{"t", "timeout", "<seconds>", "Application timeout for receiving file content messages, default is 10 sec",
	 DOCA_ARGP_TYPE_INT, timeout_callback, false},
};

static doca_error_t
run(void *config)
{
	const struct fi_cfg *cfg = config;

	if (!cfg->is_dpu && access(cfg->file_path, F_OK) != 0) {
		DOCA_LOG_ERR("File was not found %s", cfg->file_path);
		return DOCA_ERROR_NOT_FOUND;
	}
	return cfg->is_dpu ? fi_server(cfg) : fi_client(cfg);
}

int
main(int argc, char **argv)
{
	struct fi_cfg cfg = {.timeout = FI_DEFAULT_TIMEOUT};
	struct app_main_cfg app = {
		.name = "doca_file_integrity",
		.flags = fi_flags,
		.num_flags = sizeof(fi_flags) / sizeof(fi_flags[0]),
		.config = &cfg,
		.rep_pci = cfg.rep_pci,
		.run_what = "File Integrity",
		.run = run,
	};

#ifdef DOCA_ARCH_DPU
	cfg.is_dpu = true;
#endif
	return app_main(argc, argv, &app);
}
