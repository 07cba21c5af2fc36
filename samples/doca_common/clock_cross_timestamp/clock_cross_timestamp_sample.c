/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_clock_cross_timestamp, the sample function: open the device given with -p,
 * check that it has the NIC clocks asked for, create a doca_clock and print either
 * one timestamp of the primary clock or a cross timestamp of the primary clock and
 * the NIC clock, with its accuracy.
 */
#include <inttypes.h>
#include <stddef.h>

#include <doca_dev.h>
#include <doca_log.h>

#include "clock_cross_timestamp_sample.h"
#include "common.h"

DOCA_LOG_REGISTER(CLOCK_CROSS_TIMESTAMP::SAMPLE);

/* The NIC clocks a device may lack: the capability that says so and the line a refusal prints. */
static const struct {
	uint64_t type;
	doca_error_t (*cap)(const struct doca_devinfo *devinfo);
	const char *what;
} nic_caps[] = {
	{DOCA_CLOCK_NIC_FREE_RUNNING, doca_clock_cap_nic_free_running_is_supported, "NIC free running clock"},
	{DOCA_CLOCK_NIC_REAL_TIME, doca_clock_cap_nic_real_time_is_supported, "NIC real time clock"},
	{DOCA_CLOCK_NIC_DPA_TIMER, doca_clock_cap_nic_dpa_timer_is_supported, "NIC DPA timer clock"},
};

const char *
clock_sample_clock_name(uint64_t clock_type)
{
	switch (clock_type) {
	case DOCA_CLOCK_NIC_FREE_RUNNING:
		return "DOCA_CLOCK_NIC_FREE_RUNNING";
	case DOCA_CLOCK_NIC_REAL_TIME:
		return "DOCA_CLOCK_NIC_REAL_TIME";
	case DOCA_CLOCK_NIC_DPA_TIMER:
		return "DOCA_CLOCK_NIC_DPA_TIMER";
	case DOCA_CLOCK_HOST_COUNTER_CYCLES:
		return "DOCA_CLOCK_HOST_COUNTER_CYCLES";
	case DOCA_CLOCK_HOST_REAL_TIME:
		return "DOCA_CLOCK_HOST_REAL_TIME";
	case DOCA_CLOCK_HOST_MONOTONIC:
		return "DOCA_CLOCK_HOST_MONOTONIC";
	case DOCA_CLOCK_HOST_MONOTONIC_RAW:
		return "DOCA_CLOCK_HOST_MONOTONIC_RAW";
	default:
		return "CLOCK_UNKNOWN";
	}
}

/* Every NIC clock the configuration names must be one the device has. */
static doca_error_t
check_nic_clocks(struct doca_dev *dev, const struct clock_cross_timestamp_sample_cfg *cfg)
{
	for (size_t i = 0; i < sizeof(nic_caps) / sizeof(nic_caps[0]); i++) {
		doca_error_t result;

		if (cfg->primary_clock != nic_caps[i].type && cfg->nic_clock != nic_caps[i].type)
			continue;
		result = nic_caps[i].cap(doca_dev_as_devinfo(dev));
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("%s not supported. Error=%s", nic_caps[i].what, doca_error_get_name(result));
			return result;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t
print_timestamp(const struct doca_clock *clock, uint64_t clock_type)
{
	union doca_clock_timespec_t ts = {0};
	doca_error_t result;

	result = doca_clock_get_timestamp(clock, clock_type, &ts);
	if (result != DOCA_SUCCESS)
		return result;
	if (clock_type == DOCA_CLOCK_HOST_COUNTER_CYCLES)
		DOCA_LOG_INFO("Timestamp - %s: %" PRIu64 " cycles", clock_sample_clock_name(clock_type), ts.counter);
	else
		DOCA_LOG_INFO("Timestamp - %s: %lld.%09ld seconds", clock_sample_clock_name(clock_type),
			      (long long)ts.ts.tv_sec, (long)ts.ts.tv_nsec);
	return DOCA_SUCCESS;
}

static doca_error_t
print_cross_timestamp(const struct doca_clock *clock, uint64_t primary, uint64_t nic)
{
	union doca_clock_timespec_t p = {0}, n = {0};
	uint64_t accuracy = 0;
	doca_error_t result;

	result = doca_clock_get_crosstimestamp(clock, primary, nic, &p, &n, &accuracy);
	if (result != DOCA_SUCCESS)
		return result;
	/* The accuracy is in the primary clock's unit. */
	if (primary == DOCA_CLOCK_HOST_COUNTER_CYCLES)
		DOCA_LOG_INFO("Cross-timestamp - %s: %" PRIu64 " cycles, %s: %lld.%09ld seconds, accuracy: %" PRIu64
			      " cycles",
			      clock_sample_clock_name(primary), p.counter, clock_sample_clock_name(nic),
			      (long long)n.ts.tv_sec, (long)n.ts.tv_nsec, accuracy);
	else
		DOCA_LOG_INFO("Cross-timestamp - %s: %lld.%09ld seconds, %s: %lld.%09ld seconds, accuracy: %" PRIu64
			      " nanoseconds",
			      clock_sample_clock_name(primary), (long long)p.ts.tv_sec, (long)p.ts.tv_nsec,
			      clock_sample_clock_name(nic), (long long)n.ts.tv_sec, (long)n.ts.tv_nsec, accuracy);
	return DOCA_SUCCESS;
}

doca_error_t
run_clock_cross_timestamp_sample(const struct clock_cross_timestamp_sample_cfg *cfg)
{
	struct doca_clock *clock;
	struct doca_dev *dev;
	doca_error_t result, tmp;

	/* No capability filter: any function at that address has clocks to ask about. */
	result = open_doca_device_with_pci(cfg->pci_addr, NULL, &dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open device. error=%s", doca_error_get_name(result));
		return result;
	}
	result = check_nic_clocks(dev, cfg);
	if (result != DOCA_SUCCESS)
		goto close_dev;

	result = doca_clock_create(dev, &clock);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create doca clock. Error=%s", doca_error_get_name(result));
		goto close_dev;
	}
	if (cfg->nic_clock == 0) {
		result = print_timestamp(clock, cfg->primary_clock);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to get timestamp. Error=%s", doca_error_get_name(result));
	} else {
		result = print_cross_timestamp(clock, cfg->primary_clock, cfg->nic_clock);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to get cross-timestamp. Error=%s", doca_error_get_name(result));
	}

	tmp = doca_clock_destroy(clock);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy doca clock. Error=%s", doca_error_get_name(tmp));
close_dev:
	(void)doca_dev_close(dev);
	return result;
}
