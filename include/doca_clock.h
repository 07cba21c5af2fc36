/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA Clock: read the clocks of a device and of the host, alone or as a
 * cross timestamp (two clocks read as close together as possible).
 *
 * Object model
 *   struct doca_clock   a handle on one opened device's clocks.  It is not a context:
 *                       create it, read timestamps from any thread, destroy it.  The
 *                       device stays in use (doca_dev_close() -> DOCA_ERROR_IN_USE)
 *                       until the clock is destroyed.
 *
 * Call order
 *   doca_clock_cap_nic_free_running_is_supported(devinfo)    which NIC clocks exist
 *   doca_clock_create(dev, &clock)
 *   doca_clock_get_timestamp(clock, DOCA_CLOCK_..., &ts)
 *   doca_clock_get_crosstimestamp(clock, primary, nic, &p, &n, &margin)
 *   doca_clock_destroy(clock)
 *
 * Clocks (one bit each; pass exactly one to every clock_type parameter)
 *   DOCA_CLOCK_NIC_FREE_RUNNING     the device's free-running clock, in ts
 *   DOCA_CLOCK_NIC_REAL_TIME        the device's real-time (wall) clock, in ts
 *   DOCA_CLOCK_NIC_DPA_TIMER        the device's DPA timer, in ts
 *   DOCA_CLOCK_HOST_COUNTER_CYCLES  the CPU's cycle counter, in counter (not ts)
 *   DOCA_CLOCK_HOST_REAL_TIME       CLOCK_REALTIME, in ts
 *   DOCA_CLOCK_HOST_MONOTONIC       CLOCK_MONOTONIC, in ts
 *   DOCA_CLOCK_HOST_MONOTONIC_RAW   CLOCK_MONOTONIC_RAW, in ts
 *
 * In softdoca (docs/devices.md "Clocks") the NIC free-running clock is the host's
 * CLOCK_MONOTONIC_RAW and the NIC real-time clock its CLOCK_REALTIME; the DPA timer
 * needs DPA hardware and is DOCA_ERROR_NOT_SUPPORTED; the cycle counter is the TSC
 * on x86-64 and CNTVCT_EL0 on Arm64.
 */
#ifndef DOCA_CLOCK_H_
#define DOCA_CLOCK_H_

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Programs that include only this header also print PCI addresses (DOCA_DEVINFO_PCI_ADDR_SIZE). */
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_clock;
struct doca_dev;
struct doca_devinfo;

#define DOCA_CLOCK_NIC_FREE_RUNNING 0x1
#define DOCA_CLOCK_NIC_REAL_TIME (0x1 << 1)
#define DOCA_CLOCK_NIC_DPA_TIMER (0x1 << 8)
#define DOCA_CLOCK_HOST_COUNTER_CYCLES (0x1 << 16)
#define DOCA_CLOCK_HOST_REAL_TIME (0x1 << 17)
#define DOCA_CLOCK_HOST_MONOTONIC (0x1 << 18)
#define DOCA_CLOCK_HOST_MONOTONIC_RAW (0x1 << 19)

/* One reading: counter for DOCA_CLOCK_HOST_COUNTER_CYCLES, ts for every other clock. */
union doca_clock_timespec_t {
	struct timespec ts;
	uint64_t counter;
};

/*
 * Does the device have this NIC clock?  SUCCESS: yes; DOCA_ERROR_NOT_SUPPORTED: no
 * (the DPA timer: never in softdoca); DOCA_ERROR_INVALID_VALUE: devinfo is NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo);

/*
 * A clock handle on dev.  DOCA_ERROR_INVALID_VALUE: NULL argument;
 * DOCA_ERROR_NOT_SUPPORTED: the device has no NIC clock at all; DOCA_ERROR_NO_MEMORY.
 * *clock is written only on success.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock);

/* DOCA_ERROR_INVALID_VALUE: clock is NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_clock_destroy(struct doca_clock *clock);

/*
 * Read one clock into *clock_ts.  DOCA_ERROR_INVALID_VALUE: NULL argument;
 * DOCA_ERROR_NOT_SUPPORTED: clock_type is not one clock bit, or the device or host
 * lacks that clock; DOCA_ERROR_OPERATING_SYSTEM: the kernel refused to read it.
 * *clock_ts is written only on success.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
							union doca_clock_timespec_t *clock_ts);

/*
 * Read a primary clock (any clock) and a NIC clock as one pair.  *error_margin_nsecs
 * bounds how far the primary reading may be from the primary clock's value at the
 * instant the NIC clock was read, in the primary clock's unit (cycles for
 * DOCA_CLOCK_HOST_COUNTER_CYCLES, else nanoseconds); 0 when both come from one
 * reading.  DOCA_ERROR_INVALID_VALUE: NULL argument, or nic_clock_type is not a NIC
 * clock; DOCA_ERROR_NOT_SUPPORTED and DOCA_ERROR_OPERATING_SYSTEM as for
 * doca_clock_get_timestamp().  The outputs are written only on success.
 */
DOCA_EXPERIMENTAL doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock,
							     uint64_t primary_clock_type, uint64_t nic_clock_type,
							     union doca_clock_timespec_t *primary_clock_ts,
							     union doca_clock_timespec_t *nic_clock_ts,
							     uint64_t *error_margin_nsecs);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CLOCK_H_ */
