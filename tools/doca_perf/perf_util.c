/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf glue shared by the tests: the clock (TSC calibrated against
 * CLOCK_MONOTONIC), the latency histogram, the progress line, the human and JSON
 * reports, and device lookup by IB device name or PCI address.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <doca_dev.h>

#include "perf.h"

static double ns_per_tick = 1.0;
static bool report_first_row;

double
perf_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

uint64_t perf_ticks_slow(void);

uint64_t
perf_ticks_slow(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Per-task timestamps use the TSC where there is one (a few ns, against ~20 ns for
 * clock_gettime); 20 ms against CLOCK_MONOTONIC gives the scale to better than 0.1 %.
 */
void
perf_clock_init(void)
{
	double t0 = perf_now(), t1;
	uint64_t k0 = perf_ticks(), k1;

	do {
		t1 = perf_now();
	} while (t1 - t0 < 0.02);
	k1 = perf_ticks();
	if (k1 > k0)
		ns_per_tick = (t1 - t0) * 1e9 / (double)(k1 - k0);
}

double
perf_ticks_to_ns(double ticks)
{
	return ticks * ns_per_tick;
}

void
perf_cpu_seconds(double *cpu)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec * 1e-6;
}

void
perf_hist_reset(struct perf_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void
perf_hist_merge(struct perf_hist *into, const struct perf_hist *from)
{
	if (from->count == 0)
		return;
	if (into->count == 0 || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	into->sum += from->sum;
	for (unsigned i = 0; i < PERF_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

/* Lowest value a bucket holds, and its width. */
static void
bucket_range(unsigned idx, double *lo, double *width)
{
	unsigned sub = idx & ((1u << PERF_HIST_SUB_BITS) - 1);
	unsigned blk = idx >> PERF_HIST_SUB_BITS;

	if (blk == 0) {
		*lo = sub;
		*width = 1;
		return;
	}
	/* Block b holds exponent e = b + SUB_BITS - 1, step 2^(e - SUB_BITS). */
	*width = ldexp(1.0, (int)blk - 1);
	*lo = ldexp(1.0, (int)(blk + PERF_HIST_SUB_BITS - 1)) + sub * *width;
}

double
perf_hist_quantile(const struct perf_hist *h, double q)
{
	double want, seen = 0, lo, width;

	if (h->count == 0)
		return 0;
	want = q * (double)h->count;
	for (unsigned i = 0; i < PERF_HIST_BUCKETS; i++) {
		if (h->bucket[i] == 0)
			continue;
		if (seen + (double)h->bucket[i] >= want) {
			double v;

			bucket_range(i, &lo, &width);
			/* Interpolate inside the bucket; clamp to what was really seen. */
			v = lo + width * (want - seen) / (double)h->bucket[i];
			if (v < (double)h->min)
				v = (double)h->min;
			if (v > (double)h->max)
				v = (double)h->max;
			return v;
		}
		seen += (double)h->bucket[i];
	}
	return (double)h->max;
}

/* ---- progress -------------------------------------------------------------------- */

static double progress_last;
static double progress_start;
static bool progress_shown;

void
perf_progress(const struct perf_opts *o, size_t size, double frac)
{
	double t = perf_now();
	bool on = o->progress > 0 || (o->progress < 0 && isatty(STDERR_FILENO));

	if (!on)
		return;
	if (progress_start == 0)
		progress_start = t;
	/* Only runs longer than a second get a progress line, refreshed 4 times a second. */
	if (t - progress_start < 1.0 || t - progress_last < 0.25)
		return;
	progress_last = t;
	progress_shown = true;
	fprintf(stderr, "\rdoca_perf %s: size %zu B  %3.0f%%  (%.0f s)  ", o->test, size,
		frac > 1 ? 100.0 : frac * 100.0, t - progress_start);
	fflush(stderr);
}

void
perf_progress_end(const struct perf_opts *o)
{
	(void)o;
	if (progress_shown)
		fprintf(stderr, "\r%60s\r", "");
	progress_shown = false;
	progress_start = 0;
}

bool
perf_keep_going(const struct perf_opts *o, size_t size, uint64_t done, double t0, double t)
{
	double frac = o->iters ? (double)done / (double)o->iters : (t - t0) / o->duration;

	perf_progress(o, size, frac);
	return frac < 1.0;
}

/* ---- report ---------------------------------------------------------------------- */

void
perf_report_begin(const struct perf_opts *o, const char *title, const char *config_json)
{
	report_first_row = true;
	if (o->json) {
		printf("{\"tool\":\"doca_perf\",\"test\":\"%s\",\"config\":{%s},\"results\":[", o->test, config_json);
		return;
	}
	printf("# doca_perf %s\n", title);
	printf("%10s %10s %10s %12s %10s %10s %10s %10s %10s %6s\n", "#bytes", "#tasks", "seconds",
	       o->gbits ? "BW[Gb/s]" : "BW[MB/s]", "Mtasks/s", "lat_avg", "lat_p50", "lat_p99", "lat_p99.9", "cpu%");
	printf("%10s %10s %10s %12s %10s %10s %10s %10s %10s %6s\n", "", "", "", "", "", "[us]", "[us]", "[us]", "[us]",
	       "");
}

void
perf_report_row(const struct perf_opts *o, const struct perf_result *r)
{
	double secs = r->seconds > 0 ? r->seconds : 1e-9;
	double bps = (double)r->tasks * (double)r->size / secs;
	double rate = (double)r->tasks / secs;
	double avg = r->lat.count ? perf_ticks_to_ns(r->lat.sum / (double)r->lat.count) : 0;
	double p50 = perf_ticks_to_ns(perf_hist_quantile(&r->lat, 0.50));
	double p99 = perf_ticks_to_ns(perf_hist_quantile(&r->lat, 0.99));
	double p999 = perf_ticks_to_ns(perf_hist_quantile(&r->lat, 0.999));
	double mn = perf_ticks_to_ns((double)r->lat.min), mx = perf_ticks_to_ns((double)r->lat.max);
	double cpu = 100.0 * r->cpu_seconds / secs;

	if (o->json) {
		printf("%s{\"size\":%zu,\"tasks\":%llu,\"seconds\":%.6f,\"bytes_per_sec\":%.1f,"
		       "\"tasks_per_sec\":%.1f,\"cpu_percent\":%.1f,\"lat_ns\":{\"samples\":%llu,\"min\":%.1f,"
		       "\"avg\":%.1f,\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%.1f}}",
		       report_first_row ? "" : ",", r->size, (unsigned long long)r->tasks, r->seconds, bps, rate, cpu,
		       (unsigned long long)r->lat.count, mn, avg, p50, p99, p999, mx);
		report_first_row = false;
		fflush(stdout);
		return;
	}
	printf("%10zu %10llu %10.3f %12.2f %10.3f %10.2f %10.2f %10.2f %10.2f %6.1f\n", r->size,
	       (unsigned long long)r->tasks, r->seconds, o->gbits ? bps * 8 / 1e9 : bps / 1e6, rate / 1e6, avg / 1e3,
	       p50 / 1e3, p99 / 1e3, p999 / 1e3, cpu);
	fflush(stdout);
}

void
perf_report_end(const struct perf_opts *o)
{
	if (o->json)
		printf("]}\n");
	fflush(stdout);
}

void
perf_die(const char *what, doca_error_t err)
{
	fprintf(stderr, "doca_perf: %s failed: %s (%s)\n", what, doca_error_get_name(err), doca_error_get_descr(err));
	exit(1);
}

bool
perf_devinfo_matches(struct doca_devinfo *di, const char *want)
{
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "";
	char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
	size_t wl = strlen(want), pl;

	doca_devinfo_get_pci_addr_str(di, pci);
	doca_devinfo_get_ibdev_name(di, ib, sizeof(ib));
	pl = strlen(pci);
	/* "b1:00.0" matches "0000:b1:00.0" as in the DOCA samples' -p. */
	return strcmp(ib, want) == 0 || strcmp(pci, want) == 0 ||
	       (wl < pl && strcmp(pci + pl - wl, want) == 0 && pci[pl - wl - 1] == ':');
}

struct doca_dev *
perf_open_dev(const char *name, const char *fallback)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	const char *want = name != NULL ? name : fallback;
	uint32_t n;

	PERF_TRY(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (perf_devinfo_matches(list[i], want))
			PERF_TRY(doca_dev_open(list[i], &dev));
	doca_devinfo_destroy_list(list);
	if (dev == NULL) {
		fprintf(stderr, "doca_perf: no device '%s' (doca_caps --list-devs shows them)\n", want);
		exit(PERF_EXIT_USAGE);
	}
	return dev;
}

size_t
perf_slots(const struct perf_opts *o, size_t size, size_t depth)
{
	size_t s = (256u << 20) / size;

	if (o->buffers != 0 && o->buffers < depth)
		depth = o->buffers;
	if (s > depth)
		s = depth;
	return s < 1 ? 1 : s;
}

uint32_t
perf_lat_every(const struct perf_opts *o, size_t size)
{
	if (o->lat_every != 0)
		return o->lat_every;
	return size < 4096 ? 64 : 1;
}

void *
perf_page_alloc(size_t n)
{
	return aligned_alloc(4096, (n + 4095) & ~(size_t)4095);
}
