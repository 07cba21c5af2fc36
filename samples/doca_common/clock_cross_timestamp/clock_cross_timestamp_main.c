/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_clock_cross_timestamp: read a clock of the device at -p, or (-n) a cross
 * timestamp of that clock and a NIC clock.  Flags: -p (required), -c (required),
 * -n (see docs/samples.md).
 */
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "clock_cross_timestamp_sample.h"
#include "common.h"
#include "sample_params.h"

DOCA_LOG_REGISTER(CLOCK_CROSS_TIMESTAMP::MAIN);

#define NIC_CLOCKS (DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME | DOCA_CLOCK_NIC_DPA_TIMER)

/* The flag values and their clocks.  DOCA's sample spells the cycle counter "host_cyles": both work. */
static const struct {
	const char *flag;
	uint64_t type;
} clock_flags[] = {
	{"nic_fr", DOCA_CLOCK_NIC_FREE_RUNNING},	{"nic_rt", DOCA_CLOCK_NIC_REAL_TIME},
	{"nic_dpa", DOCA_CLOCK_NIC_DPA_TIMER},		{"host_cycles", DOCA_CLOCK_HOST_COUNTER_CYCLES},
	{"host_cyles", DOCA_CLOCK_HOST_COUNTER_CYCLES}, {"host_rt", DOCA_CLOCK_HOST_REAL_TIME},
	{"host_mon", DOCA_CLOCK_HOST_MONOTONIC},	{"host_mon_raw", DOCA_CLOCK_HOST_MONOTONIC_RAW},
};

/* The clock a flag value names; 0 (logged) for none. */
static uint64_t
parse_clock(const char *value)
{
	for (size_t i = 0; i < sizeof(clock_flags) / sizeof(clock_flags[0]); i++)
		if (strcmp(value, clock_flags[i].flag) == 0)
			return clock_flags[i].type;
	DOCA_LOG_ERR("Unrecognised clock type: %s", value);
	return 0;
}

static doca_error_t
pci_callback(void *param, void *config)
{
	struct clock_cross_timestamp_sample_cfg *cfg = config;
	doca_error_t result;

	result = copy_string_param("PCI address", param, cfg->pci_addr, sizeof(cfg->pci_addr));
	if (result == DOCA_SUCCESS)
		cfg->pci_set = true;
	return result;
}

static doca_error_t
primary_clock_callback(void *param, void *config)
{
	struct clock_cross_timestamp_sample_cfg *cfg = config;

	cfg->primary_clock = parse_clock(param);
	return cfg->primary_clock != 0 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

static doca_error_t
nic_clock_callback(void *param, void *config)
{
	struct clock_cross_timestamp_sample_cfg *cfg = config;

	cfg->nic_clock = parse_clock(param);
	if (cfg->nic_clock == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if ((cfg->nic_clock & NIC_CLOCKS) == 0) {
		DOCA_LOG_ERR("Input clock (%s) is not a NIC clock", (const char *)param);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
register_params(void)
{
	static const struct sample_param params[] = {
		{"p", "pci-addr", "<PCI-ADDRESS>", "DOCA device PCI device address", DOCA_ARGP_TYPE_STRING,
		 pci_callback, false},
		{"c", "primary-clock", "<CLOCK>",
		 "'nic_fr', 'nic_rt', 'nic_dpa', 'host_cycles', 'host_rt', 'host_mon', or 'host_mon_raw'",
		 DOCA_ARGP_TYPE_STRING, primary_clock_callback, true},
		{"n", "nic-clock", "<CLOCK>", "'nic_fr', 'nic_rt', or 'nic_dpa'", DOCA_ARGP_TYPE_STRING,
		 nic_clock_callback, false},
	};

	return sample_register_params(params, sizeof(params) / sizeof(params[0]));
}

/* -p has no default: DOCA's sample refuses to guess a device. */
static doca_error_t
run_sample(const void *config)
{
	const struct clock_cross_timestamp_sample_cfg *cfg = config;

	if (!cfg->pci_set) {
		DOCA_LOG_ERR("PCI address must be provided");
		return DOCA_ERROR_INVALID_VALUE;
	}
	return run_clock_cross_timestamp_sample(cfg);
}

int
main(int argc, char **argv)
{
	struct clock_cross_timestamp_sample_cfg cfg = {0};

	return sample_main_with_params("clock_cross_timestamp", NULL, DOCA_LOG_LEVEL_WARNING, &cfg, register_params,
				       run_sample, argc, argv);
}
