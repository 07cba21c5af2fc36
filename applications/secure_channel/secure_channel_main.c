/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_secure_channel: DOCA's Secure Channel application.  One source, built for
 * the host (Comch client) and the DPU (Comch server); the personality decides
 * the role.  Flags: -s/--msg-size and -n/--num-msgs (mandatory, the same on both
 * sides), -p/--pci-addr (mandatory), -r/--rep-pci (mandatory on the DPU), and
 * DOCA's standard flags.
 */

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "app_main.h"
#include "common.h"
#include "secure_channel_core.h"

DOCA_LOG_REGISTER(SECURE_CHANNEL::MAIN);

static doca_error_t
msg_size_callback(void *param, void *config)
{
	struct sc_cfg *cfg = config;
	int size = *(int *)param;

	if (size < 1 || (unsigned)size > SC_MAX_MSG_SIZE) {
		DOCA_LOG_ERR("Message size (-s) must be between 1 and %u bytes, got %d", SC_MAX_MSG_SIZE, size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->msg_size = (uint32_t)size;
	return DOCA_SUCCESS;
}

static doca_error_t
num_msgs_callback(void *param, void *config)
{
	struct sc_cfg *cfg = config;
	int n = *(int *)param;

	if (n < 1) {
		DOCA_LOG_ERR("Number of messages (-n) must be at least 1, got %d", n);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->num_msgs = (uint32_t)n;
	return DOCA_SUCCESS;
}

static doca_error_t
pci_callback(void *param, void *config)
{
	struct sc_cfg *cfg = config;

	return copy_string_param("Comch DOCA device PCI address (-p)", param, cfg->comch_pci, sizeof(cfg->comch_pci));
}

static doca_error_t
rep_pci_callback(void *param, void *config)
{
	struct sc_cfg *cfg = config;

	/* Kept only on the DPU: the host has no representors. */
	if (!cfg->is_dpu)
		return DOCA_SUCCESS;
	return copy_string_param("Comch DOCA device representor PCI address (-r)", param, cfg->rep_pci,
				 sizeof(cfg->rep_pci));
}

static const struct app_flag sc_flags[] = {
	{"s", "msg-size", "<num>", "Message size to be sent, in bytes", DOCA_ARGP_TYPE_INT, msg_size_callback, true},
	{"n", "num-msgs", "<num>", "Number of messages to be sent", DOCA_ARGP_TYPE_INT, num_msgs_callback, true},
	{"p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comch device PCI address", DOCA_ARGP_TYPE_STRING, pci_callback, true},
	{"r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comch device representor PCI address (needed only on the DPU)",
	 DOCA_ARGP_TYPE_STRING, rep_pci_callback, false},
};

static doca_error_t
run(void *config)
{
	return sc_run(config);
}

int
main(int argc, char **argv)
{
	struct sc_cfg cfg = {0};
	struct app_main_cfg app = {
		.name = "doca_secure_channel",
		.flags = sc_flags,
		.num_flags = sizeof(sc_flags) / sizeof(sc_flags[0]),
		.config = &cfg,
		.rep_pci = cfg.rep_pci,
		.run_what = "Secure channel",
		.run = run,
	};

#ifdef DOCA_ARCH_DPU
	cfg.is_dpu = true;
#endif
	return app_main(argc, argv, &app);
}
