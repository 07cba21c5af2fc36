/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Huge pages for registered ranges (sd_thp.h): the knob, the kernel's THP
 * setting, the application's own advice on the range (/proc/self/smaps
 * VmFlags), then madvise.  Registration time only, never a data path.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/sd_log.h"
#include "sd_env.h"
#include "sd_thp.h"

SD_LOG_REGISTER(util.thp);

/* Linux 6.1's synchronous collapse; older headers lack it (older kernels answer EINVAL). */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define THP_MIN_BYTES_DEFAULT ((uint64_t)4 << 20) /* a range this large always holds one aligned 2 MiB page */

enum sd_thp_mode
sd_thp_mode(void)
{
	static const char *const names[] = {"off", "advise", "collapse", "both"};

	return (enum sd_thp_mode)sd_env_choice("SOFTDOCA_MMAP_HUGEPAGES", names, SD_ARRAY_SIZE(names), SD_THP_OFF);
}

/* The kernel's THP policy ("always", "madvise", "never"), or NULL when this kernel has no THP. */
static const char *
kernel_policy(char *buf, size_t len)
{
	FILE *f = fopen(THP_ENABLED, "re");
	char *open, *close;

	if (f == NULL)
		return NULL;
	if (fgets(buf, (int)len, f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	/* "always [madvise] never": the bracketed word is the policy */
	open = strchr(buf, '[');
	close = open != NULL ? strchr(open, ']') : NULL;
	if (close == NULL)
		return NULL;
	*close = '\0';
	return open + 1;
}

/* Does the VmFlags line carry the two-letter flag? */
static bool
has_flag(const char *vmflags, const char *flag)
{
	for (const char *p = vmflags; (p = strstr(p, flag)) != NULL; p += 2)
		if (p[-1] == ' ' && (p[2] == ' ' || p[2] == '\n' || p[2] == '\0'))
			return true;
	return false;
}

/*
 * Why the application's mappings of [lo, hi) forbid our advice: its own
 * MADV_NOHUGEPAGE ("nh"), hugetlbfs ("ht", already huge), or NULL.  Sets
 * *advised when every mapping already carries MADV_HUGEPAGE ("hg").
 */
static const char *
app_advice(uintptr_t lo, uintptr_t hi, bool *advised)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long start = 0, end = 0;
	const char *why = NULL;
	bool seen = false;
	char line[512];

	*advised = true;
	if (f == NULL) {
		*advised = false;
		return NULL; /* no /proc: nothing known against it */
	}
	while (why == NULL && fgets(line, sizeof(line), f) != NULL) {
		unsigned long s, e;

		/* a mapping's first line: "start-end perms ..."; its keys ("Size:", "VmFlags:") follow */
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			start = s;
			end = e;
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) != 0 || end <= lo || start >= hi)
			continue;
		seen = true;
		if (has_flag(line, "nh"))
			why = "the application advised MADV_NOHUGEPAGE on it";
		else if (has_flag(line, "ht"))
			why = "it is hugetlbfs memory (already huge pages)";
		else if (!has_flag(line, "hg"))
			*advised = false;
	}
	fclose(f);
	if (!seen)
		*advised = false; /* no mapping found: let madvise answer */
	return why;
}

/* MADV_COLLAPSE of one run of whole huge pages; false when the kernel did not (logged once per range). */
static bool
collapse_run(uint8_t *lo, size_t n, const char *api)
{
	if (madvise(lo, n, MADV_COLLAPSE) == 0)
		return true;
	/* EINVAL: a kernel before 6.1 or pages it cannot collapse; EAGAIN / ENOMEM: busy or no free huge page */
	DOCA_LOG_DBG("%s: MADV_COLLAPSE of %zu bytes at %p not done (%s); the pages stay as they are, new faults "
		     "may still be huge",
		     api, n, (void *)lo, strerror(errno));
	return false;
}

/* Are all base pages of the huge page at p resident?  vec: mincore's bytes for it. */
static bool
all_resident(const unsigned char *vec, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		if ((vec[i] & 1) == 0)
			return false;
	return true;
}

/*
 * MADV_COLLAPSE of the huge pages of [lo, hi) whose base pages are all present
 * (mincore): the pages already there become huge now, and no page the range
 * did not have is added (a collapse fills the holes of its 2 MiB).  Returns the
 * bytes collapsed.
 */
static size_t
collapse(uint8_t *lo, uint8_t *hi, const char *api)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), per = SD_THP_BYTES / page, done = 0;
	unsigned char *vec = malloc(per);
	uint8_t *run = NULL;

	if (vec == NULL)
		return 0;
	for (uint8_t *p = lo; p <= hi; p += SD_THP_BYTES) {
		bool whole = p < hi && mincore(p, SD_THP_BYTES, vec) == 0 && all_resident(vec, per);

		if (whole && run == NULL)
			run = p;
		if (whole || run == NULL)
			continue;
		if (!collapse_run(run, (size_t)(p - run), api))
			break;
		done += (size_t)(p - run);
		run = NULL;
	}
	free(vec);
	DOCA_LOG_DBG("%s: %zu of %zu bytes at %p collapsed into huge pages (SOFTDOCA_MMAP_HUGEPAGES)", api, done,
		     (size_t)(hi - lo), (void *)lo);
	return done;
}

size_t
sd_thp_advise(void *addr, size_t len, const char *api)
{
	enum sd_thp_mode mode = sd_thp_mode();
	uintptr_t lo = ((uintptr_t)addr + SD_THP_BYTES - 1) & ~(uintptr_t)(SD_THP_BYTES - 1);
	uintptr_t hi = ((uintptr_t)addr + len) & ~(uintptr_t)(SD_THP_BYTES - 1);
	uint64_t min = sd_env_u64("SOFTDOCA_MMAP_HUGEPAGES_MIN_BYTES", THP_MIN_BYTES_DEFAULT, SD_THP_BYTES, UINT64_MAX);
	const char *policy, *why;
	bool advised;
	char buf[128];

	if (mode == SD_THP_OFF || len < min || hi <= lo)
		return 0;
	policy = kernel_policy(buf, sizeof(buf));
	if (policy == NULL || strcmp(policy, "never") == 0) {
		DOCA_LOG_DBG("%s: no huge pages for %zu bytes at %p: transparent huge pages are %s (%s)", api, len,
			     addr, policy == NULL ? "not in this kernel" : "off", THP_ENABLED);
		return 0;
	}
	why = app_advice(lo, hi, &advised);
	if (why != NULL) {
		DOCA_LOG_DBG("%s: no huge pages for %zu bytes at %p: %s", api, len, addr, why);
		return 0;
	}
	if (mode != SD_THP_COLLAPSE) {
		if (!advised && madvise((void *)lo, hi - lo, MADV_HUGEPAGE) != 0) {
			DOCA_LOG_DBG("%s: MADV_HUGEPAGE of %zu bytes at %p not done (%s)", api, (size_t)(hi - lo),
				     (void *)lo, strerror(errno));
			return 0;
		}
		DOCA_LOG_DBG("%s: %zu bytes at %p advised for huge pages (THP policy %s%s)", api, (size_t)(hi - lo),
			     (void *)lo, policy, advised ? ", advised already" : "");
	}
	if (mode != SD_THP_ADVISE)
		(void)collapse((uint8_t *)lo, (uint8_t *)hi, api);
	return hi - lo;
}
