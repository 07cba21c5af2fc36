/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Huge pages for registrations (src/util/sd_thp.h, SOFTDOCA_MMAP_HUGEPAGES):
 * off by default, MADV_HUGEPAGE on the 2 MiB-aligned interior only, the
 * application's MADV_NOHUGEPAGE respected, MADV_COLLAPSE of pages already
 * present, doca_mmap_start as the caller, and no byte of the range changed -
 * also across fork and MADV_DONTNEED of part of a huge page.  What the kernel
 * decides is read back from /proc/self/smaps.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_mmap.h>

#include "sd_test.h"
#include "sd_thp.h"

#define MIB ((size_t)1 << 20)

/* The smaps entry of the mapping holding addr: its VmFlags line and AnonHugePages (kB). */
struct vma_info {
	char flags[512];
	unsigned long huge_kb;
	unsigned long rss_kb;
};

static struct vma_info
vma_of(const void *addr)
{
	struct vma_info v = {{0}, 0, 0};
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long start = 0, end = 0, s, e;
	bool in = false;
	char line[512];

	ASSERT(f != NULL);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
			start = s;
			end = e;
			in = (uintptr_t)addr >= start && (uintptr_t)addr < end;
		} else if (in && strncmp(line, "AnonHugePages:", 14) == 0) {
			v.huge_kb = strtoul(line + 14, NULL, 10);
		} else if (in && strncmp(line, "Rss:", 4) == 0) {
			v.rss_kb = strtoul(line + 4, NULL, 10);
		} else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(v.flags, sizeof(v.flags), "%s", line + 8);
		}
	}
	fclose(f);
	return v;
}

static bool
has_flag(const void *addr, const char *flag)
{
	char want[8];

	snprintf(want, sizeof(want), " %s ", flag);
	return strstr(vma_of(addr).flags, want) != NULL;
}

/* THP as this kernel offers it: skip the case when it cannot give huge pages. */
static void
need_thp(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");

	if (f == NULL)
		SKIP("this kernel has no transparent huge pages (/sys/kernel/mm/transparent_hugepage)");
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	if (strstr(buf, "[never]") != NULL || buf[0] == '\0')
		SKIP("transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/enabled: never)");
}

/* An anonymous mapping of len bytes starting on a 2 MiB boundary, filled with a pattern; the knobs unset. */
static uint8_t *
aligned_region(size_t len)
{
	uint8_t *raw = mmap(NULL, len + SD_THP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *p;

	unsetenv("SOFTDOCA_MMAP_HUGEPAGES"); /* each case sets what it tests, whatever the caller's environment */
	unsetenv("SOFTDOCA_MMAP_HUGEPAGES_MIN_BYTES");
	ASSERT(raw != MAP_FAILED);
	p = (uint8_t *)(((uintptr_t)raw + SD_THP_BYTES - 1) & ~(uintptr_t)(SD_THP_BYTES - 1));
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + 7);
	return p;
}

static bool
pattern_intact(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != (uint8_t)(i * 31 + 7))
			return false;
	return true;
}

TEST(off_by_default)
{
	uint8_t *p = aligned_region(8 * MIB);

	unsetenv("SOFTDOCA_MMAP_HUGEPAGES");
	ASSERT_EQ(sd_thp_mode(), SD_THP_OFF);
	ASSERT_EQ(sd_thp_advise(p, 8 * MIB, "test"), 0);
	ASSERT(!has_flag(p, "hg"));
}

TEST(advise_marks_the_aligned_interior_only)
{
	uint8_t *p = aligned_region(8 * MIB);

	need_thp();
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "advise", 1);
	/* [p + 4 KiB, p + 8 MiB - 4 KiB): its interior is [p + 2 MiB, p + 6 MiB) */
	ASSERT_EQ(sd_thp_advise(p + 4096, 8 * MIB - 8192, "test"), 4 * MIB);
	ASSERT(has_flag(p + 2 * MIB, "hg"));
	ASSERT(has_flag(p + 6 * MIB - 1, "hg"));
	ASSERT(!has_flag(p + 2 * MIB - 1, "hg"));
	ASSERT(!has_flag(p + 6 * MIB, "hg"));
	ASSERT(pattern_intact(p, 0, 8 * MIB));
}

TEST(small_ranges_are_left_alone)
{
	uint8_t *p = aligned_region(8 * MIB);

	need_thp();
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "advise", 1);
	ASSERT_EQ(sd_thp_advise(p, 4 * MIB - 4096, "test"), 0); /* under the 4 MiB default */
	ASSERT(!has_flag(p, "hg"));
	setenv("SOFTDOCA_MMAP_HUGEPAGES_MIN_BYTES", "2097152", 1);
	ASSERT_EQ(sd_thp_advise(p, 2 * MIB, "test"), 2 * MIB);
	ASSERT(has_flag(p, "hg"));
}

TEST(the_applications_no_is_kept)
{
	uint8_t *p = aligned_region(8 * MIB);

	need_thp();
	ASSERT_EQ(madvise(p, 8 * MIB, MADV_NOHUGEPAGE), 0);
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "collapse", 1);
	ASSERT_EQ(sd_thp_advise(p, 8 * MIB, "test"), 0);
	ASSERT(has_flag(p, "nh"));
	ASSERT(!has_flag(p, "hg"));
	ASSERT_EQ(vma_of(p).huge_kb, 0);
}

/* Collapse the pattern-filled region; skip when this kernel cannot (before 6.1, no free huge page). */
static uint8_t *
collapsed_region(size_t len)
{
	uint8_t *p = aligned_region(len);

	need_thp();
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "collapse", 1);
	ASSERT_EQ(sd_thp_advise(p, len, "test"), len);
	if (vma_of(p).huge_kb == 0)
		SKIP("MADV_COLLAPSE made no huge page here (a kernel before 6.1, or no free 2 MiB page)");
	return p;
}

TEST(collapse_makes_present_pages_huge_and_keeps_bytes)
{
	uint8_t *p = collapsed_region(4 * MIB);

	ASSERT(vma_of(p).huge_kb >= 2048);
	ASSERT(pattern_intact(p, 0, 4 * MIB));
}

TEST(both_advises_then_collapses)
{
	uint8_t *p = aligned_region(4 * MIB);

	need_thp();
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "both", 1);
	ASSERT_EQ(sd_thp_advise(p, 4 * MIB, "test"), 4 * MIB);
	ASSERT(has_flag(p, "hg"));
	if (vma_of(p).huge_kb == 0)
		SKIP("MADV_COLLAPSE made no huge page here (a kernel before 6.1, or no free 2 MiB page)");
	ASSERT_EQ(vma_of(p).huge_kb, 4096);
	ASSERT(pattern_intact(p, 0, 4 * MIB));
}

TEST(collapse_adds_no_page)
{
	uint8_t *p = mmap(NULL, 6 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *a;
	struct vma_info v;

	need_thp();
	ASSERT(p != MAP_FAILED);
	unsetenv("SOFTDOCA_MMAP_HUGEPAGES_MIN_BYTES");
	a = (uint8_t *)(((uintptr_t)p + SD_THP_BYTES - 1) & ~(uintptr_t)(SD_THP_BYTES - 1));
	memset(a, 1, 2 * MIB); /* the first huge page whole, the second one byte */
	a[2 * MIB] = 1;
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "collapse", 1);
	ASSERT_EQ(sd_thp_advise(a, 4 * MIB, "test"), 4 * MIB);
	ASSERT(!has_flag(a, "hg")); /* collapse alone: khugepaged is not invited to fill the sparse one */
	v = vma_of(a + 2 * MIB);
	if (vma_of(a).huge_kb == 0)
		SKIP("MADV_COLLAPSE made no huge page here (a kernel before 6.1, or no free 2 MiB page)");
	ASSERT_EQ(v.huge_kb, 2048);	  /* the whole one only (one mapping holds both) */
	ASSERT(v.rss_kb <= 2048 + 4 * 4); /* the sparse one kept its single page */
	ASSERT_EQ(a[2 * MIB], 1);
	ASSERT_EQ(a[2 * MIB + 4096], 0);
}

TEST(fork_sees_the_bytes_and_keeps_them_private)
{
	uint8_t *p = collapsed_region(4 * MIB);
	pid_t pid = fork();
	int status;

	ASSERT(pid >= 0);
	if (pid == 0) {
		bool ok = pattern_intact(p, 0, 4 * MIB);

		p[MIB] ^= 0xff; /* copy-on-write: the parent must not see it */
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT(pattern_intact(p, 0, 4 * MIB));
}

TEST(dontneed_of_part_of_a_huge_page_zeroes_that_part_only)
{
	uint8_t *p = collapsed_region(4 * MIB);

	ASSERT_EQ(madvise(p + 8192, 4096, MADV_DONTNEED), 0);
	for (size_t i = 8192; i < 8192 + 4096; i++)
		ASSERT_EQ(p[i], 0);
	ASSERT(pattern_intact(p, 0, 8192));
	ASSERT(pattern_intact(p, 8192 + 4096, 4 * MIB));
}

TEST(doca_mmap_start_advises_its_range)
{
	uint8_t *p = aligned_region(8 * MIB);
	struct doca_mmap *m;

	need_thp();
	setenv("SOFTDOCA_MMAP_HUGEPAGES", "advise", 1);
	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, p, 8 * MIB));
	ASSERT(!has_flag(p, "hg"));
	ASSERT_OK(doca_mmap_start(m));
	ASSERT(has_flag(p, "hg"));
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT(has_flag(p, "hg")); /* not undone: docs/memory.md says why */
	ASSERT(pattern_intact(p, 0, 8 * MIB));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
