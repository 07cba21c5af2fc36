/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test runner: forks one child per case, enforces a timeout, prints TAP.
 */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sd_test.h"

#define SD_TEST_MAX 512
#define SD_TEST_SKIP_CODE 77

static struct {
	const char *name;
	sd_test_fn fn;
} tests[SD_TEST_MAX];
static int num_tests;
static char tmpdir[256];
/* A case's skip reason, written by the child, read by the parent for its TAP line. */
#define SD_TEST_REASON_MAX 256
static char *skip_reason;

void
sd_test_register(const char *name, sd_test_fn fn)
{
	if (num_tests == SD_TEST_MAX) {
		fprintf(stderr, "sd_test: more than %d cases in one file\n", SD_TEST_MAX);
		exit(2);
	}
	tests[num_tests].name = name;
	tests[num_tests].fn = fn;
	num_tests++;
}

void
sd_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "# FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(NULL);
	_exit(1);
}

void
sd_test_skip(const char *reason)
{
	if (skip_reason != NULL)
		snprintf(skip_reason, SD_TEST_REASON_MAX, "%s", reason);
	else
		printf("# SKIP %s\n", reason);
	fflush(NULL);
	_exit(SD_TEST_SKIP_CODE);
}

const char *
sd_test_tmpdir(void)
{
	if (tmpdir[0] == '\0') {
		const char *base = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/sd_test.XXXXXX", base ? base : "/tmp");
		if (mkdtemp(tmpdir) == NULL)
			sd_test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
	}
	return tmpdir;
}

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
run_one(int idx, unsigned timeout_s)
{
	pid_t pid;
	int status = 0;
	struct timespec start, now;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		tests[idx].fn();
		fflush(NULL);
		/* No shell: a case run under valgrind leaves no half-written report of a forked child. */
		if (tmpdir[0] != '\0' && nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
			fprintf(stderr, "# could not remove %s\n", tmpdir);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)timeout_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			printf("# TIMEOUT after %u s\n", timeout_s);
			return 1;
		}
		usleep(2000);
	}
	/* Kill helper processes the case may have left behind. */
	kill(-pid, SIGKILL);
	if (WIFSIGNALED(status)) {
		printf("# killed by signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 1;
	}
	if (WEXITSTATUS(status) == SD_TEST_SKIP_CODE)
		return SD_TEST_SKIP_CODE;
	return WEXITSTATUS(status) == 0 ? 0 : 1;
}

int
sd_test_main(int argc, char **argv)
{
	const char *env = getenv("SD_TEST_TIMEOUT");
	unsigned timeout_s = env ? (unsigned)strtoul(env, NULL, 10) : 30;
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		for (int i = 0; i < num_tests; i++)
			if (strcmp(tests[i].name, argv[1]) == 0) {
				int rc = run_one(i, timeout_s);

				printf("%s %s\n",
				       rc == 0			 ? "ok"
				       : rc == SD_TEST_SKIP_CODE ? "skip"
								 : "not ok",
				       tests[i].name);
				return rc;
			}
		fprintf(stderr, "no test case named '%s'\n", argv[1]);
		return 2;
	}
	skip_reason = mmap(NULL, SD_TEST_REASON_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (skip_reason == MAP_FAILED)
		skip_reason = NULL;
	printf("1..%d\n", num_tests);
	for (int i = 0; i < num_tests; i++) {
		int rc;

		if (skip_reason != NULL)
			snprintf(skip_reason, SD_TEST_REASON_MAX, "no reason given");
		rc = run_one(i, timeout_s);
		if (rc == SD_TEST_SKIP_CODE) {
			printf("ok %d %s # SKIP %s\n", i + 1, tests[i].name,
			       skip_reason != NULL ? skip_reason : "(reason above)");
		} else if (rc != 0) {
			failed++;
			printf("not ok %d %s\n", i + 1, tests[i].name);
		} else {
			printf("ok %d %s\n", i + 1, tests[i].name);
		}
	}
	/*
	 * Skips are in the TAP lines; an exit status of 77 would make a TAP
	 * consumer (meson) report an error, so a file whose every case skipped
	 * still exits 0.
	 */
	return failed ? 1 : 0;
}

#ifdef __SANITIZE_THREAD__
/* ThreadSanitizer's dynamic annotations (its runtime defines them). */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define IGNORE_READS_BEGIN() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define IGNORE_READS_END() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#define IGNORE_WRITES_BEGIN() AnnotateIgnoreWritesBegin(__FILE__, __LINE__)
#define IGNORE_WRITES_END() AnnotateIgnoreWritesEnd(__FILE__, __LINE__)
#else
#define IGNORE_READS_BEGIN() ((void)0)
#define IGNORE_READS_END() ((void)0)
#define IGNORE_WRITES_BEGIN() ((void)0)
#define IGNORE_WRITES_END() ((void)0)
#endif

void
sd_test_read_foreign(void *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	uint8_t *d = dst;

	IGNORE_READS_BEGIN();
	for (size_t i = 0; i < n; i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
	IGNORE_READS_END();
}

void
sd_test_write_foreign(void *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	uint8_t *d = dst;

	IGNORE_WRITES_BEGIN();
	for (size_t i = 0; i < n; i++)
		__atomic_store_n(&d[i], s[i], __ATOMIC_RELAXED);
	IGNORE_WRITES_END();
}
