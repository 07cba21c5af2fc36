/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_clock: the soft device's clocks and the host's, one table row per DOCA
 * clock.  The NIC free-running clock is CLOCK_MONOTONIC_RAW and the NIC real-time
 * clock CLOCK_REALTIME (a soft NIC ticks with the host: docs/devices.md "Clocks"); the
 * DPA timer needs DPA hardware.  A cross timestamp brackets the NIC reading between
 * two primary readings and keeps the tightest of a few tries.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_clock.h>

#include "dev_internal.h"
#include "sd_log.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

SD_LOG_REGISTER(core.clock);

/* Bracketing rounds of a cross timestamp: the narrowest wins (a preemption widens one). */
#define CROSS_ROUNDS 4

#define NIC_CLOCKS (DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME | DOCA_CLOCK_NIC_DPA_TIMER)

struct doca_clock {
	struct doca_dev *dev;		/* held (sd_dev_get) until destroy */
	const struct sd_dev_caps *caps; /* the device's, read-only */
};

enum clock_source {
	SRC_LINUX,  /* clock_gettime(row->linux_id) into ts */
	SRC_CYCLES, /* the CPU's cycle counter into counter */
	SRC_NONE,   /* needs hardware softdoca does not emulate */
};

/* One DOCA clock: what it reads, and the device capability it needs (if any). */
struct clock_row {
	uint64_t type;
	const char *name;
	enum clock_source source;
	clockid_t linux_id;
	size_t cap_offset; /* offsetof(struct sd_dev_caps, <bool>), or SIZE_MAX: none */
	const char *cap_name;
};

#define NO_CAP SIZE_MAX, NULL
#define CAP_OF(field) offsetof(struct sd_dev_caps, field), #field

static const struct clock_row clock_rows[] = {
	{DOCA_CLOCK_NIC_FREE_RUNNING, "DOCA_CLOCK_NIC_FREE_RUNNING", SRC_LINUX, CLOCK_MONOTONIC_RAW,
	 CAP_OF(clock_nic_free_running)},
	{DOCA_CLOCK_NIC_REAL_TIME, "DOCA_CLOCK_NIC_REAL_TIME", SRC_LINUX, CLOCK_REALTIME, CAP_OF(clock_nic_real_time)},
	{DOCA_CLOCK_NIC_DPA_TIMER, "DOCA_CLOCK_NIC_DPA_TIMER", SRC_NONE, 0, NO_CAP},
	{DOCA_CLOCK_HOST_COUNTER_CYCLES, "DOCA_CLOCK_HOST_COUNTER_CYCLES", SRC_CYCLES, 0, NO_CAP},
	{DOCA_CLOCK_HOST_REAL_TIME, "DOCA_CLOCK_HOST_REAL_TIME", SRC_LINUX, CLOCK_REALTIME, NO_CAP},
	{DOCA_CLOCK_HOST_MONOTONIC, "DOCA_CLOCK_HOST_MONOTONIC", SRC_LINUX, CLOCK_MONOTONIC, NO_CAP},
	{DOCA_CLOCK_HOST_MONOTONIC_RAW, "DOCA_CLOCK_HOST_MONOTONIC_RAW", SRC_LINUX, CLOCK_MONOTONIC_RAW, NO_CAP},
};

static const char dpa_reason[] = "the DPA timer is a clock of the Data Path Accelerator, which softdoca does not "
				 "emulate; use DOCA_CLOCK_NIC_FREE_RUNNING or DOCA_CLOCK_NIC_REAL_TIME";

/* --- the cycle counter ------------------------------------------------------------- */

/* Does this CPU have a counter user space can read (TSC; Arm64's virtual counter)? */
static bool
have_cycle_counter(void)
{
#if defined(__x86_64__) || defined(__i386__)
	const unsigned int edx_tsc = 1u << 4; /* CPUID leaf 1, EDX bit 4: time-stamp counter */
	unsigned int eax, ebx, ecx, edx;

	return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (edx & edx_tsc) != 0;
#elif defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

/* Ordered with the reads around it: a cross timestamp's bracket must not be reordered. */
static inline uint64_t
read_cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t v;

	_mm_lfence();
	v = __rdtsc();
	_mm_lfence();
	return v;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

/* --- rows ----------------------------------------------------------------------------- */

static const struct clock_row *
find_row(uint64_t type)
{
	for (size_t i = 0; i < SD_ARRAY_SIZE(clock_rows); i++)
		if (clock_rows[i].type == type)
			return &clock_rows[i];
	return NULL;
}

static bool
row_cap(const struct clock_row *row, const struct sd_dev_caps *caps)
{
	return row->cap_offset == SIZE_MAX || *(const bool *)(const void *)((const char *)caps + row->cap_offset);
}

/*
 * The row of clock_type, if the device (caps) and this host can read it; else
 * NOT_SUPPORTED, logged with the reason and the fix.
 */
static doca_error_t
resolve(const struct doca_clock *clock, uint64_t type, const char *api, const struct clock_row **out)
{
	const struct clock_row *row = find_row(type);

	if (row == NULL) {
		DOCA_LOG_ERR("%s: clock type 0x%" PRIx64 " is not one DOCA_CLOCK_* value; pass exactly one clock", api,
			     type);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (row->source == SRC_NONE) {
		DOCA_LOG_ERR("%s: %s: not supported: %s", api, row->name, dpa_reason);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (!row_cap(row, clock->caps)) {
		DOCA_LOG_ERR("%s: device %s has no %s (capability %s is false); check its "
			     "doca_clock_cap_*_is_supported() first or pick another clock",
			     api, clock->dev->devinfo->pci_addr, row->name, row->cap_name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	if (row->source == SRC_CYCLES && !have_cycle_counter()) {
		DOCA_LOG_ERR("%s: %s: not supported: this CPU has no cycle counter user space can read (x86 TSC, "
			     "Arm64 CNTVCT_EL0); use DOCA_CLOCK_HOST_MONOTONIC_RAW",
			     api, row->name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*out = row;
	return DOCA_SUCCESS;
}

/* One reading in the clock's unit (ns or cycles). */
static doca_error_t
read_units(const struct clock_row *row, const char *api, uint64_t *units)
{
	struct timespec ts;

	if (row->source == SRC_CYCLES) {
		*units = read_cycles();
		return DOCA_SUCCESS;
	}
	if (clock_gettime(row->linux_id, &ts) != 0) {
		int err = errno;

		DOCA_LOG_ERR("%s: clock_gettime() of %s failed: %s", api, row->name, strerror(err));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	*units = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
	return DOCA_SUCCESS;
}

static void
units_to_out(const struct clock_row *row, uint64_t units, union doca_clock_timespec_t *out)
{
	memset(out, 0, sizeof(*out));
	if (row->source == SRC_CYCLES) {
		out->counter = units;
		return;
	}
	out->ts.tv_sec = (time_t)(units / UINT64_C(1000000000));
	out->ts.tv_nsec = (long)(units % UINT64_C(1000000000));
}

/* --- capabilities ------------------------------------------------------------------------ */

/* A device filter's question: NOT_SUPPORTED is an answer, logged at DBG only. */
static doca_error_t
cap_query(const struct doca_devinfo *devinfo, uint64_t type, const char *api)
{
	const struct clock_row *row = find_row(type);

	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (row->source == SRC_NONE) {
		DOCA_LOG_DBG("%s: device %s: %s", api, devinfo->pci_addr, dpa_reason);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return row_cap(row, &devinfo->caps) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_query(devinfo, DOCA_CLOCK_NIC_FREE_RUNNING, "doca_clock_cap_nic_free_running_is_supported");
}

DOCA_EXPERIMENTAL doca_error_t
doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_query(devinfo, DOCA_CLOCK_NIC_REAL_TIME, "doca_clock_cap_nic_real_time_is_supported");
}

DOCA_EXPERIMENTAL doca_error_t
doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_query(devinfo, DOCA_CLOCK_NIC_DPA_TIMER, "doca_clock_cap_nic_dpa_timer_is_supported");
}

/* --- the clock object ---------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock)
{
	struct doca_clock *c;

	if (dev == NULL || clock == NULL) {
		DOCA_LOG_ERR("doca_clock_create: NULL argument (dev %p, clock %p)", (const void *)dev, (void *)clock);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!dev->devinfo->caps.clock_nic_free_running && !dev->devinfo->caps.clock_nic_real_time) {
		DOCA_LOG_ERR("doca_clock_create: device %s (%s) has no NIC clock (capabilities clock_nic_free_running "
			     "and clock_nic_real_time are false); pick a device for which "
			     "doca_clock_cap_nic_free_running_is_supported() returns DOCA_SUCCESS",
			     dev->devinfo->pci_addr, dev->devinfo->ibdev_name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		DOCA_LOG_ERR("doca_clock_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	/* The device is the application's: a clock only counts as one of its users. */
	c->dev = (struct doca_dev *)(uintptr_t)dev;
	c->caps = &dev->devinfo->caps;
	sd_dev_get(c->dev);
	*clock = c;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_clock_destroy(struct doca_clock *clock)
{
	if (clock == NULL) {
		DOCA_LOG_ERR("doca_clock_destroy: clock is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_dev_put(clock->dev);
	free(clock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type, union doca_clock_timespec_t *clock_ts)
{
	static const char api[] = "doca_clock_get_timestamp";
	const struct clock_row *row;
	uint64_t units;
	doca_error_t err;

	if (clock == NULL || clock_ts == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (clock %p, clock_ts %p)", api, (const void *)clock, (void *)clock_ts);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = resolve(clock, clock_type, api, &row);
	if (err == DOCA_SUCCESS)
		err = read_units(row, api, &units);
	if (err != DOCA_SUCCESS)
		return err;
	units_to_out(row, units, clock_ts);
	return DOCA_SUCCESS;
}

/*
 * primary, nic, primary again, CROSS_ROUNDS times; the narrowest bracket gives the
 * pair: its midpoint, and half its width (rounded up) as the margin.  A wall clock
 * stepped backwards inside a bracket only makes that round wider.
 */
static doca_error_t
bracket(const struct clock_row *prim, const struct clock_row *nic, uint64_t *p_out, uint64_t *n_out, uint64_t *margin)
{
	static const char api[] = "doca_clock_get_crosstimestamp";
	uint64_t best = UINT64_MAX;
	doca_error_t err;

	for (int i = 0; i < CROSS_ROUNDS; i++) {
		uint64_t p1, n, p2, lo, width;

		err = read_units(prim, api, &p1);
		if (err == DOCA_SUCCESS)
			err = read_units(nic, api, &n);
		if (err == DOCA_SUCCESS)
			err = read_units(prim, api, &p2);
		if (err != DOCA_SUCCESS)
			return err;
		lo = SD_MIN(p1, p2);
		width = SD_MAX(p1, p2) - lo;
		if (width < best) {
			best = width;
			*p_out = lo + width / 2;
			*n_out = n;
			*margin = width / 2 + (width & 1);
		}
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_clock_get_crosstimestamp(const struct doca_clock *clock, uint64_t primary_clock_type, uint64_t nic_clock_type,
			      union doca_clock_timespec_t *primary_clock_ts, union doca_clock_timespec_t *nic_clock_ts,
			      uint64_t *error_margin_nsecs)
{
	static const char api[] = "doca_clock_get_crosstimestamp";
	const struct clock_row *prim, *nic;
	uint64_t p = 0, n = 0, margin = 0;
	doca_error_t err;

	if (clock == NULL || primary_clock_ts == NULL || nic_clock_ts == NULL || error_margin_nsecs == NULL) {
		DOCA_LOG_ERR(
			"%s: NULL argument (clock %p, primary_clock_ts %p, nic_clock_ts %p, error_margin_nsecs %p)",
			api, (const void *)clock, (void *)primary_clock_ts, (void *)nic_clock_ts,
			(void *)error_margin_nsecs);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (find_row(nic_clock_type) == NULL || (nic_clock_type & NIC_CLOCKS) == 0) {
		DOCA_LOG_ERR("%s: nic_clock_type 0x%" PRIx64 " is not a NIC clock; pass DOCA_CLOCK_NIC_FREE_RUNNING "
			     "or DOCA_CLOCK_NIC_REAL_TIME",
			     api, nic_clock_type);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = resolve(clock, nic_clock_type, api, &nic);
	if (err == DOCA_SUCCESS)
		err = resolve(clock, primary_clock_type, api, &prim);
	if (err != DOCA_SUCCESS)
		return err;

	if (prim->source == SRC_LINUX && prim->linux_id == nic->linux_id) {
		/* Both are the same Linux clock: one reading is an exact pair. */
		err = read_units(prim, api, &p);
		n = p;
	} else {
		err = bracket(prim, nic, &p, &n, &margin);
	}
	if (err != DOCA_SUCCESS)
		return err;
	units_to_out(prim, p, primary_clock_ts);
	units_to_out(nic, n, nic_clock_ts);
	*error_margin_nsecs = margin;
	return DOCA_SUCCESS;
}
