/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_clock.h contract: capabilities from the device, create/destroy and the
 * device's users, every clock read against the Linux clock it maps to (bracketed
 * by the test's own readings), cross timestamps (exact pairs, bracketed pairs and
 * their margin), and every refusal with its code, untouched outputs and its log line.
 */
#include <stdint.h>
#include <time.h>

#include <doca_clock.h>

#include "../dev/dev_test.h"

/* mlx5_0: every NIC clock softdoca has; mlx5_1: no real-time clock; mlx5_2: no NIC clock. */
static const char clock_topology[] =
	"{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"netdev\": \"lo\", \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\"},\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"ens1f1np1\",\n"
	"   \"caps\": {\"clock_nic_real_time\": false}},\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.2\", \"ibdev\": \"mlx5_2\", \"iface\": \"ens1f2np2\",\n"
	"   \"caps\": {\"clock_nic_free_running\": false, \"clock_nic_real_time\": false}}]}]}\n";

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define SENTINEL ((void *)(uintptr_t)0x5a5a5a5a)
#define NSEC_PER_SEC UINT64_C(1000000000)
/* A bracket wider than this means the machine stalled the test: generous for loaded CI boxes. */
#define MAX_MARGIN_NS UINT64_C(50000000)

static struct doca_dev *
open_clock_dev(const char *ibdev)
{
	use_topology_text(clock_topology);
	return open_ibdev(ibdev);
}

static uint64_t
linux_ns(clockid_t id)
{
	struct timespec ts;

	ASSERT_EQ(clock_gettime(id, &ts), 0);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t
ts_ns(const union doca_clock_timespec_t *t)
{
	ASSERT(t->ts.tv_nsec >= 0 && t->ts.tv_nsec < (long)NSEC_PER_SEC);
	return (uint64_t)t->ts.tv_sec * NSEC_PER_SEC + (uint64_t)t->ts.tv_nsec;
}

static struct doca_clock *
make_clock(struct doca_dev *dev)
{
	struct doca_clock *clock = NULL;

	ASSERT_OK(doca_clock_create(dev, &clock));
	ASSERT_NOT_NULL(clock);
	return clock;
}

/* Outputs a refused call must leave alone. */
static union doca_clock_timespec_t
poisoned(void)
{
	union doca_clock_timespec_t t;

	memset(&t, 0x5a, sizeof(t));
	return t;
}

static bool
is_poisoned(const union doca_clock_timespec_t *t)
{
	union doca_clock_timespec_t p = poisoned();

	return memcmp(t, &p, sizeof(p)) == 0;
}

/* ---- capabilities -------------------------------------------------------------------- */

TEST(caps_follow_the_device)
{
	struct doca_dev *full = open_clock_dev("mlx5_0");
	struct doca_dev *no_rt = open_ibdev("mlx5_1");
	struct doca_dev *none = open_ibdev("mlx5_2");

	ASSERT_OK(doca_clock_cap_nic_free_running_is_supported(doca_dev_as_devinfo(full)));
	ASSERT_OK(doca_clock_cap_nic_real_time_is_supported(doca_dev_as_devinfo(full)));
	/* The DPA timer needs DPA hardware: never, on any device. */
	ASSERT_ERR(doca_clock_cap_nic_dpa_timer_is_supported(doca_dev_as_devinfo(full)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_clock_cap_nic_free_running_is_supported(doca_dev_as_devinfo(no_rt)));
	ASSERT_ERR(doca_clock_cap_nic_real_time_is_supported(doca_dev_as_devinfo(no_rt)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_clock_cap_nic_free_running_is_supported(doca_dev_as_devinfo(none)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_clock_cap_nic_real_time_is_supported(doca_dev_as_devinfo(none)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_clock_cap_nic_free_running_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_cap_nic_real_time_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_cap_nic_dpa_timer_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dev_close(full));
	ASSERT_OK(doca_dev_close(no_rt));
	ASSERT_OK(doca_dev_close(none));
}

TEST(builtin_devices_have_both_nic_clocks)
{
	struct doca_devinfo **list;
	uint32_t n;

	use_builtin_topology();
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n > 0);
	for (uint32_t i = 0; i < n; i++) {
		ASSERT_OK(doca_clock_cap_nic_free_running_is_supported(list[i]));
		ASSERT_OK(doca_clock_cap_nic_real_time_is_supported(list[i]));
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

/* ---- create / destroy ------------------------------------------------------------------- */

TEST(create_destroy_and_the_device_in_use)
{
	struct doca_dev *dev = open_clock_dev("mlx5_0");
	struct doca_clock *clock = (struct doca_clock *)SENTINEL;

	ASSERT_ERR(doca_clock_create(NULL, &clock), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(clock, SENTINEL);
	ASSERT_ERR(doca_clock_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_destroy(NULL), DOCA_ERROR_INVALID_VALUE);

	clock = make_clock(dev);
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_clock_destroy(clock));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(create_on_a_device_without_nic_clock)
{
	struct doca_dev *dev = open_clock_dev("mlx5_2");
	struct doca_clock *clock = (struct doca_clock *)SENTINEL;
	int log = capture_sdk_log();

	ASSERT_ERR(doca_clock_create(dev, &clock), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(clock, SENTINEL);
	ASSERT_LOG_HAS(log, "has no NIC clock");
	ASSERT_LOG_HAS(log, "doca_clock_cap_nic_free_running_is_supported");
	ASSERT_OK(doca_dev_close(dev));
}

/* ---- single timestamps --------------------------------------------------------------------- */

/* Each clock read between two readings of the Linux clock it maps to. */
TEST(timestamps_are_the_mapped_linux_clocks)
{
	static const struct {
		uint64_t type;
		clockid_t linux_id;
	} map[] = {
		{DOCA_CLOCK_NIC_FREE_RUNNING, CLOCK_MONOTONIC_RAW},   {DOCA_CLOCK_NIC_REAL_TIME, CLOCK_REALTIME},
		{DOCA_CLOCK_HOST_REAL_TIME, CLOCK_REALTIME},	      {DOCA_CLOCK_HOST_MONOTONIC, CLOCK_MONOTONIC},
		{DOCA_CLOCK_HOST_MONOTONIC_RAW, CLOCK_MONOTONIC_RAW},
	};
	struct doca_dev *dev = open_clock_dev("mlx5_0");
	struct doca_clock *clock = make_clock(dev);

	for (size_t i = 0; i < N_OF(map); i++) {
		union doca_clock_timespec_t t = poisoned();
		uint64_t before = linux_ns(map[i].linux_id), v, after;

		ASSERT_OK(doca_clock_get_timestamp(clock, map[i].type, &t));
		after = linux_ns(map[i].linux_id);
		v = ts_ns(&t);
		if (v < before || v > after)
			sd_test_fail(__FILE__, __LINE__, "clock 0x%llx read %llu outside [%llu, %llu]",
				     (unsigned long long)map[i].type, (unsigned long long)v, (unsigned long long)before,
				     (unsigned long long)after);
	}
	ASSERT_OK(doca_clock_destroy(clock));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(cycle_counter_fills_counter_and_advances)
{
	struct doca_dev *dev = open_clock_dev("mlx5_0");
	struct doca_clock *clock = make_clock(dev);
	union doca_clock_timespec_t a = poisoned(), b = poisoned();
	struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};

#if !defined(__x86_64__) && !defined(__aarch64__)
	SKIP("no user-space cycle counter on this architecture");
#endif
	ASSERT_OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &a));
	nanosleep(&pause, NULL);
	ASSERT_OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &b));
	ASSERT(a.counter != 0);
	ASSERT(b.counter > a.counter);
	ASSERT_OK(doca_clock_destroy(clock));
}

TEST(timestamp_refusals)
{
	static const uint64_t not_one_clock[] = {0, DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME, 1u << 4,
						 UINT64_C(1) << 40};
	struct doca_dev *dev = open_clock_dev("mlx5_1");
	struct doca_clock *clock = make_clock(dev);
	union doca_clock_timespec_t t = poisoned();
	int log = capture_sdk_log();

	ASSERT_ERR(doca_clock_get_timestamp(NULL, DOCA_CLOCK_HOST_REAL_TIME, &t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, NULL), DOCA_ERROR_INVALID_VALUE);
	for (size_t i = 0; i < N_OF(not_one_clock); i++)
		ASSERT_ERR(doca_clock_get_timestamp(clock, not_one_clock[i], &t), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "is not one DOCA_CLOCK_* value");
	ASSERT_ERR(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_DPA_TIMER, &t), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "DOCA_CLOCK_NIC_DPA_TIMER: not supported");
	/* mlx5_1 has no real-time NIC clock, as its capability says; the host's is still there. */
	ASSERT_ERR(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, &t), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "capability clock_nic_real_time is false");
	ASSERT(is_poisoned(&t));
	ASSERT_OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, &t));
	ASSERT_OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_FREE_RUNNING, &t));
	ASSERT_OK(doca_clock_destroy(clock));
}

/* ---- cross timestamps ------------------------------------------------------------------------ */

/* A primary and a NIC clock on the same Linux clock: one reading, exact. */
TEST(cross_timestamp_of_one_linux_clock_is_exact)
{
	static const uint64_t pairs[][2] = {
		{DOCA_CLOCK_HOST_MONOTONIC_RAW, DOCA_CLOCK_NIC_FREE_RUNNING},
		{DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME},
		{DOCA_CLOCK_NIC_FREE_RUNNING, DOCA_CLOCK_NIC_FREE_RUNNING},
	};
	struct doca_dev *dev = open_clock_dev("mlx5_0");
	struct doca_clock *clock = make_clock(dev);

	for (size_t i = 0; i < N_OF(pairs); i++) {
		union doca_clock_timespec_t p = poisoned(), n = poisoned();
		uint64_t margin = 99;

		ASSERT_OK(doca_clock_get_crosstimestamp(clock, pairs[i][0], pairs[i][1], &p, &n, &margin));
		ASSERT_EQ(margin, 0);
		ASSERT_EQ(ts_ns(&p), ts_ns(&n));
	}
	ASSERT_OK(doca_clock_destroy(clock));
}

/* Two different clocks: each reading inside the test's bracket of its own clock, margin small. */
TEST(cross_timestamp_brackets_the_nic_reading)
{
	struct doca_dev *dev = open_clock_dev("mlx5_0");
	struct doca_clock *clock = make_clock(dev);
	union doca_clock_timespec_t p = poisoned(), n = poisoned();
	uint64_t margin = UINT64_MAX, mono0, raw0, mono1, raw1;

	mono0 = linux_ns(CLOCK_MONOTONIC);
	raw0 = linux_ns(CLOCK_MONOTONIC_RAW);
	ASSERT_OK(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_MONOTONIC, DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n,
						&margin));
	raw1 = linux_ns(CLOCK_MONOTONIC_RAW);
	mono1 = linux_ns(CLOCK_MONOTONIC);
	ASSERT(ts_ns(&p) >= mono0 && ts_ns(&p) <= mono1);
	ASSERT(ts_ns(&n) >= raw0 && ts_ns(&n) <= raw1);
	ASSERT(margin < MAX_MARGIN_NS);
	/*
	 * The primary reading is the bracket's midpoint (rounded down) and the margin half its
	 * width (rounded up): reading ± margin covers the library's bracket, which lies inside
	 * the test's, give or take that rounding nanosecond.
	 */
	ASSERT(ts_ns(&p) + 1 >= mono0 + margin && ts_ns(&p) + margin <= mono1);
	ASSERT_OK(doca_clock_destroy(clock));
}

TEST(cross_timestamp_with_the_cycle_counter)
{
	struct doca_dev *dev = open_clock_dev("mlx5_0");
	struct doca_clock *clock = make_clock(dev);
	union doca_clock_timespec_t before = poisoned(), after = poisoned(), p = poisoned(), n = poisoned();
	uint64_t margin = UINT64_MAX, rt0, rt1;

#if !defined(__x86_64__) && !defined(__aarch64__)
	SKIP("no user-space cycle counter on this architecture");
#endif
	rt0 = linux_ns(CLOCK_REALTIME);
	ASSERT_OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &before));
	ASSERT_OK(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, DOCA_CLOCK_NIC_REAL_TIME, &p, &n,
						&margin));
	ASSERT_OK(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &after));
	rt1 = linux_ns(CLOCK_REALTIME);
	/* The counter and its margin are in cycles, the NIC reading in seconds. */
	ASSERT(p.counter >= before.counter && p.counter <= after.counter);
	ASSERT(margin <= after.counter - before.counter);
	ASSERT(ts_ns(&n) >= rt0 && ts_ns(&n) <= rt1);
	ASSERT_OK(doca_clock_destroy(clock));
}

TEST(cross_timestamp_refusals)
{
	struct doca_dev *dev = open_clock_dev("mlx5_1");
	struct doca_clock *clock = make_clock(dev);
	union doca_clock_timespec_t p = poisoned(), n = poisoned();
	uint64_t margin = 77;
	int log = capture_sdk_log();

	ASSERT_ERR(doca_clock_get_crosstimestamp(NULL, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n,
						 &margin),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_FREE_RUNNING, NULL,
						 &n, &margin),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_FREE_RUNNING, &p,
						 NULL, &margin),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n,
						 NULL),
		   DOCA_ERROR_INVALID_VALUE);
	/* The second clock must be a NIC clock. */
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_NIC_FREE_RUNNING, DOCA_CLOCK_HOST_MONOTONIC, &p, &n,
						 &margin),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "is not a NIC clock");
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, 0, &p, &n, &margin),
		   DOCA_ERROR_INVALID_VALUE);
	/* Clocks this device or softdoca lacks. */
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_DPA_TIMER, &p, &n,
						 &margin),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_NIC_DPA_TIMER, DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n,
						 &margin),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME, &p, &n,
						 &margin),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(
		doca_clock_get_crosstimestamp(clock, UINT64_C(1) << 20, DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n, &margin),
		DOCA_ERROR_NOT_SUPPORTED);
	ASSERT(is_poisoned(&p) && is_poisoned(&n));
	ASSERT_EQ(margin, 77);
	ASSERT_OK(doca_clock_destroy(clock));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
