/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdoca's test harness: each test case runs in its own forked process with a
 * timeout, prints a TAP line, and asserts print both sides of a failed check.
 *
 *   TEST(mmap_start_needs_memrange) { ASSERT_ERR(doca_mmap_start(m), DOCA_ERROR_BAD_STATE); }
 *   int main(int argc, char **argv) { return sd_test_main(argc, argv); }
 *
 * Run one case: ./test_x <case-name> (exit 77 if it skipped).  SKIP("why") ends a
 * case as skipped: its TAP line is "ok N name # SKIP why", and the file exits 0
 * even when every case skipped (TAP carries the skips).  SD_TEST_TIMEOUT
 * (seconds, default 30) bounds each case.
 */
#ifndef SD_TEST_H_
#define SD_TEST_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_error.h>

typedef void (*sd_test_fn)(void);

void sd_test_register(const char *name, sd_test_fn fn);
int sd_test_main(int argc, char **argv);
void sd_test_fail(const char *file, int line, const char *fmt, ...) __attribute__((noreturn, format(printf, 3, 4)));
void sd_test_skip(const char *reason) __attribute__((noreturn));
/* A private temporary directory for this case (removed by the harness). */
const char *sd_test_tmpdir(void);
/*
 * Copy n bytes that a library thread wrote with no synchronisation this process can see: the
 * soft NIC's service thread placing a peer's one-sided write or atomic (the ordering reached the
 * test through the peer process), a DMA worker's copy polled without a progress call.  Each byte
 * is read atomically, and ThreadSanitizer (make test-tsan) is told to ignore these reads: they
 * stand for a CPU reading memory a NIC wrote.  Then compare or assert on dst.
 */
void sd_test_read_foreign(void *dst, const void *src, size_t n);
/* The same for bytes the test writes that such a thread reads (a peer's one-sided read). */
void sd_test_write_foreign(void *dst, const void *src, size_t n);

struct doca_dev;
/* Open the function at pci on whichever side it is (sd_test_dev.c); fails the test if there is none. */
struct doca_dev *sd_test_open_pci(const char *pci);

#define TEST(name)                                                                                                     \
	static void test_##name(void);                                                                                 \
	__attribute__((constructor)) static void test_register_##name(void)                                            \
	{                                                                                                              \
		sd_test_register(#name, test_##name);                                                                  \
	}                                                                                                              \
	static void test_##name(void)

#define SKIP(reason) sd_test_skip(reason)

#define ASSERT(cond)                                                                                                   \
	do {                                                                                                           \
		if (!(cond))                                                                                           \
			sd_test_fail(__FILE__, __LINE__, "assertion failed: %s", #cond);                               \
	} while (0)

#define ASSERT_EQ(a, b)                                                                                                \
	do {                                                                                                           \
		long long sd_a_ = (long long)(a), sd_b_ = (long long)(b);                                              \
		if (sd_a_ != sd_b_)                                                                                    \
			sd_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, sd_a_, sd_b_);              \
	} while (0)

#define ASSERT_NE(a, b)                                                                                                \
	do {                                                                                                           \
		long long sd_a_ = (long long)(a), sd_b_ = (long long)(b);                                              \
		if (sd_a_ == sd_b_)                                                                                    \
			sd_test_fail(__FILE__, __LINE__, "%s != %s: both %lld", #a, #b, sd_a_);                        \
	} while (0)

#define ASSERT_PTR_EQ(a, b)                                                                                            \
	do {                                                                                                           \
		const void *sd_a_ = (const void *)(a), *sd_b_ = (const void *)(b);                                     \
		if (sd_a_ != sd_b_)                                                                                    \
			sd_test_fail(__FILE__, __LINE__, "%s == %s: %p != %p", #a, #b, sd_a_, sd_b_);                  \
	} while (0)

#define ASSERT_NOT_NULL(p)                                                                                             \
	do {                                                                                                           \
		if ((p) == NULL)                                                                                       \
			sd_test_fail(__FILE__, __LINE__, "%s is NULL", #p);                                            \
	} while (0)

#define ASSERT_STR_EQ(a, b)                                                                                            \
	do {                                                                                                           \
		const char *sd_a_ = (a), *sd_b_ = (b);                                                                 \
		if (sd_a_ == NULL || sd_b_ == NULL || strcmp(sd_a_, sd_b_) != 0)                                       \
			sd_test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,                         \
				     sd_a_ ? sd_a_ : "(null)", sd_b_ ? sd_b_ : "(null)");                              \
	} while (0)

#define ASSERT_MEM_EQ(a, b, n)                                                                                         \
	do {                                                                                                           \
		if (memcmp((a), (b), (n)) != 0)                                                                        \
			sd_test_fail(__FILE__, __LINE__, "memcmp(%s, %s, %zu) != 0", #a, #b, (size_t)(n));             \
	} while (0)

/* Assert a doca_error_t, printing both names. */
#define ASSERT_ERR(expr, expected)                                                                                     \
	do {                                                                                                           \
		doca_error_t sd_got_ = (expr), sd_exp_ = (expected);                                                   \
		if (sd_got_ != sd_exp_)                                                                                \
			sd_test_fail(__FILE__, __LINE__, "%s: got %s, expected %s", #expr,                             \
				     doca_error_get_name(sd_got_), doca_error_get_name(sd_exp_));                      \
	} while (0)

#define ASSERT_OK(expr) ASSERT_ERR(expr, DOCA_SUCCESS)

/* A deterministic xorshift32 step for fuzz replays and random tests: a failing run replays from its seed. */
static inline uint32_t
sd_test_rand(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

#endif /* SD_TEST_H_ */
