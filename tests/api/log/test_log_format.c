/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA log output: the exact line format, the buffer, fd, FILE *, standard and syslog
 * backends, truncation, long lines, concurrency, re-entrant flush callbacks,
 * registration before main() and argument checks.
 */
#include <pthread.h>
#include <stdlib.h>

#include "log_capture.h"

DOCA_LOG_REGISTER(TEST::LOG_FORMAT);

/* A unique, fresh start for each case: defaults regardless of the caller's environment. */
static void
fresh(void)
{
	unsetenv("DOCA_LOG_LEVEL");
}

TEST(source_registered_before_main)
{
	/* The constructor ran with no backend; id 0 is never handed out. */
	ASSERT_NE(log_source, 0);
}

static const char *
this_file(void)
{
	const char *s = strrchr(__FILE__, '/');

	return s ? s + 1 : __FILE__;
}

TEST(line_format_exact)
{
	char tail[256];
	int line;

	fresh();
	app_buffer_backend();
	line = __LINE__ + 1;
	DOCA_LOG_INFO("hello %d %s", 42, "world");
	ASSERT_EQ(app_rec.n, 1);
	snprintf(tail, sizeof(tail), "[DOCA][INF][%s:%d][%s] hello 42 world\n", this_file(), line, __func__);
	assert_line(app_rec.lines[0], tail);
}

TEST(level_tags)
{
	static const char *const tags[] = {"[CRT]", "[ERR]", "[WRN]", "[INF]", "[DBG]", "[TRC]"};

	fresh();
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE));
	app_buffer_backend();
	DOCA_LOG_CRIT("m");
	DOCA_LOG_ERR("m");
	DOCA_LOG_WARN("m");
	DOCA_LOG_INFO("m");
	DOCA_LOG_DBG("m");
	DOCA_LOG_TRC("m");
	ASSERT_EQ(app_rec.n, 6);
	for (int i = 0; i < 6; i++)
		ASSERT(strstr(app_rec.lines[i], tags[i]) == strstr(app_rec.lines[i], "[DOCA]") + 6);
}

TEST(microseconds_are_six_digits_and_time_is_local)
{
	char expect[16];
	time_t now;
	struct tm tm;

	fresh();
	app_buffer_backend();
	now = time(NULL);
	localtime_r(&now, &tm);
	DOCA_LOG_WARN("t");
	ASSERT_EQ(app_rec.n, 1);
	/* Same hour and minute as localtime() (unless the minute just turned). */
	snprintf(expect, sizeof(expect), "[%02d:%02d:", tm.tm_hour, tm.tm_min);
	if (strncmp(app_rec.lines[0], expect, strlen(expect)) != 0 && tm.tm_sec != 59)
		sd_test_fail(__FILE__, __LINE__, "\"%s\" does not start with %s", app_rec.lines[0], expect);
	ASSERT_EQ(app_rec.lines[0][9], ':');
	ASSERT_EQ(app_rec.lines[0][16], ']');
}

static int long_calls;
static char guard_area[64];

static void
guard_flush(char *buf)
{
	(void)buf;
	long_calls++;
}

TEST(buffer_backend_truncates_safely)
{
	struct doca_log_backend *b = NULL;

	fresh();
	memset(guard_area, 'G', sizeof(guard_area));
	ASSERT_OK(doca_log_backend_create_with_buf(guard_area, 16, guard_flush, &b));
	DOCA_LOG_INFO("a message much longer than sixteen bytes");
	ASSERT_EQ(long_calls, 1);
	ASSERT_EQ(strlen(guard_area), 15);
	ASSERT_EQ(guard_area[0], '[');
	for (size_t i = 16; i < sizeof(guard_area); i++)
		ASSERT_EQ(guard_area[i], 'G');
}

TEST(buffer_backend_capacity_one_gives_empty_string)
{
	struct doca_log_backend *b = NULL;

	fresh();
	memset(guard_area, 'G', sizeof(guard_area));
	ASSERT_OK(doca_log_backend_create_with_buf(guard_area, 1, guard_flush, &b));
	DOCA_LOG_ERR("x");
	ASSERT_EQ(long_calls, 1);
	ASSERT_EQ(guard_area[0], '\0');
	ASSERT_EQ(guard_area[1], 'G');
}

TEST(long_message_is_not_cut)
{
	char msg[5000];

	fresh();
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	app_buffer_backend();
	DOCA_LOG_INFO("<%s>", msg);
	ASSERT_EQ(app_rec.n, 1);
	ASSERT(strstr(app_rec.lines[0], msg) != NULL);
	ASSERT(strstr(app_rec.lines[0], ">\n") != NULL);
	ASSERT_EQ(app_rec.lines[0][strlen(app_rec.lines[0]) - 1], '\n');
}

TEST(fd_backend_writes_whole_lines)
{
	struct doca_log_backend *b = NULL;
	char out[1024], tail[256];
	int p[2], line;
	ssize_t n;

	fresh();
	ASSERT_EQ(pipe(p), 0);
	ASSERT_OK(doca_log_backend_create_with_fd(p[1], &b));
	ASSERT_NOT_NULL(b);
	line = __LINE__ + 1;
	DOCA_LOG_ERR("via fd %u", 7u);
	DOCA_LOG_DBG("not shown at the default INFO limit");
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	ASSERT(n > 0);
	out[n] = '\0';
	snprintf(tail, sizeof(tail), "[DOCA][ERR][%s:%d][%s] via fd 7\n", this_file(), line, __func__);
	assert_line(out, tail);
}

TEST(file_backend_writes_and_flushes)
{
	struct doca_log_backend *b = NULL;
	char out[1024];
	FILE *f = tmpfile();
	size_t n;

	fresh();
	ASSERT_NOT_NULL(f);
	ASSERT_OK(doca_log_backend_create_with_file(f, &b));
	DOCA_LOG_WARN("to a file");
	DOCA_LOG_INFO("second");
	/* Read through a second descriptor: the lines must already be flushed. */
	{
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(f));
		fd = open(path, O_RDONLY);
		ASSERT(fd >= 0);
		n = (size_t)read(fd, out, sizeof(out) - 1);
		close(fd);
	}
	out[n] = '\0';
	ASSERT_EQ(count_of(out, "\n"), 2);
	ASSERT(strstr(out, "[WRN]") != NULL && strstr(out, "] to a file\n") != NULL);
	ASSERT(strstr(out, "[INF]") != NULL && strstr(out, "] second\n") != NULL);
	fclose(f);
}

TEST(standard_backend_splits_stdout_and_stderr)
{
	static char out[4096], err[4096];
	struct capture co, ce;

	fresh();
	ASSERT_OK(doca_log_backend_create_standard());
	capture_begin(&co, 1);
	capture_begin(&ce, 2);
	DOCA_LOG_CRIT("c1");
	DOCA_LOG_ERR("e1");
	DOCA_LOG_WARN("w1");
	DOCA_LOG_INFO("i1");
	DOCA_LOG_DBG("d1");
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE));
	DOCA_LOG_DBG("d2");
	DOCA_LOG_TRC("t2");
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR));
	DOCA_LOG_WARN("w3");
	DOCA_LOG_INFO("i3");
	DOCA_LOG_ERR("e3");
	capture_end(&ce, err, sizeof(err));
	capture_end(&co, out, sizeof(out));
	/* stdout: INFO and more verbose, down to the global lower limit. */
	ASSERT_EQ(count_of(out, "\n"), 3);
	ASSERT(strstr(out, "[INF]") && strstr(out, "] i1\n"));
	ASSERT(strstr(out, "[DBG]") && strstr(out, "] d2\n"));
	ASSERT(strstr(out, "[TRC]") && strstr(out, "] t2\n"));
	/* stderr: WARNING and more severe, still bounded by the global lower limit. */
	ASSERT_EQ(count_of(err, "\n"), 4);
	ASSERT(strstr(err, "] c1\n") && strstr(err, "] e1\n") && strstr(err, "] w1\n") && strstr(err, "] e3\n"));
	ASSERT(strstr(err, "w3") == NULL);
}

TEST(standard_backend_twice_prints_once)
{
	static char out[1024];
	struct capture co;

	fresh();
	ASSERT_OK(doca_log_backend_create_standard());
	ASSERT_OK(doca_log_backend_create_standard());
	capture_begin(&co, 1);
	DOCA_LOG_INFO("once");
	capture_end(&co, out, sizeof(out));
	ASSERT_EQ(count_of(out, "] once\n"), 1);
}

TEST(standard_backend_follows_global_upper_limit)
{
	static char err[1024];
	struct capture ce;

	fresh();
	ASSERT_OK(doca_log_backend_create_standard());
	ASSERT_OK(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR));
	capture_begin(&ce, 2);
	DOCA_LOG_CRIT("crit hidden");
	DOCA_LOG_ERR("err shown");
	capture_end(&ce, err, sizeof(err));
	ASSERT(strstr(err, "crit hidden") == NULL);
	ASSERT_EQ(count_of(err, "] err shown\n"), 1);
}

TEST(syslog_backends_are_created)
{
	struct doca_log_backend *app = NULL, *sdk = NULL;

	fresh();
	ASSERT_OK(doca_log_backend_create_with_syslog("softdoca-test", &app));
	ASSERT_NOT_NULL(app);
	ASSERT_OK(doca_log_backend_create_with_syslog_sdk("softdoca-test-sdk", &sdk));
	ASSERT_NOT_NULL(sdk);
	ASSERT(app != sdk);
	ASSERT_OK(doca_log_backend_set_level_lower_limit(app, DOCA_LOG_LEVEL_DEBUG));
	ASSERT_OK(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_ERROR));
	/* Logging through them must not fail, whether or not a syslog daemon listens. */
	ASSERT_OK(doca_log(DOCA_LOG_LEVEL_DEBUG, log_source, __FILE__, __LINE__, __func__, "to syslog"));
}

#define THREADS 4
#define PER_THREAD 200

static void *
log_worker(void *arg)
{
	for (int i = 0; i < PER_THREAD; i++)
		DOCA_LOG_INFO("worker %ld line %d padding-padding-padding-padding-padding", (long)(intptr_t)arg, i);
	return NULL;
}

TEST(concurrent_lines_do_not_interleave)
{
	struct doca_log_backend *b = NULL;
	pthread_t th[THREADS];
	static char out[THREADS * PER_THREAD * 200];
	char path[256];
	ssize_t n;
	int fd, lines = 0;

	fresh();
	snprintf(path, sizeof(path), "%s/log", sd_test_tmpdir());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT(fd >= 0);
	ASSERT_OK(doca_log_backend_create_with_fd(fd, &b));
	for (long i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, log_worker, (void *)(intptr_t)i), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	n = pread(fd, out, sizeof(out) - 1, 0);
	ASSERT(n > 0);
	out[n] = '\0';
	for (char *line = out, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		ASSERT(strstr(line, "[DOCA][INF]") != NULL);
		ASSERT(strstr(line, "padding-padding-padding-padding-padding") == nl - 39);
		lines++;
	}
	ASSERT_EQ(lines, THREADS * PER_THREAD);
	close(fd);
}

static int reentrant_calls;

static void
reentrant_flush(char *buf)
{
	(void)buf;
	reentrant_calls++;
	/* Logging from a flush callback must neither deadlock nor recurse. */
	DOCA_LOG_ERR("from inside the flush callback");
}

TEST(flush_callback_may_log)
{
	static char buf[512];
	struct doca_log_backend *b = NULL;

	fresh();
	ASSERT_OK(doca_log_backend_create_with_buf(buf, sizeof(buf), reentrant_flush, &b));
	DOCA_LOG_INFO("outer");
	ASSERT_EQ(reentrant_calls, 1);
	ASSERT(strstr(buf, "] outer\n") != NULL);
}

TEST(bad_arguments_are_refused_and_outputs_untouched)
{
	struct doca_log_backend *const sentinel = (struct doca_log_backend *)(uintptr_t)0x1234;
	struct doca_log_backend *b = sentinel;
	char buf[16];

	fresh();
	ASSERT_ERR(doca_log_backend_create_with_file(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_file(stderr, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_fd(-1, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_fd(2, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_buf(NULL, 16, guard_flush, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_buf(buf, 0, guard_flush, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_buf(buf, 16, NULL, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_buf(buf, 16, guard_flush, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_syslog(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_file_sdk(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_fd_sdk(-5, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_buf_sdk(buf, 0, guard_flush, &b), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_create_with_syslog_sdk("x", NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(b, sentinel);

	ASSERT_ERR(doca_log_backend_set_level_lower_limit(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_level_upper_limit(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_level_lower_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_level_upper_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
}

TEST(register_and_unregister_sources)
{
	int a = -7, b = -7, same = -7;

	fresh();
	ASSERT_ERR(doca_log_register_source(NULL, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_register_source("x", NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(a, -7);
	ASSERT_OK(doca_log_register_source("A", &a));
	ASSERT_OK(doca_log_register_source("B", &b));
	ASSERT_OK(doca_log_register_source("A", &same));
	ASSERT(a > 0 && b > 0 && same > 0);
	ASSERT(a != b && a != same && a != log_source);
	ASSERT_OK(doca_log_unregister_source(a));
	ASSERT_ERR(doca_log_unregister_source(a), DOCA_ERROR_NOT_FOUND);
	ASSERT_ERR(doca_log_unregister_source(0), DOCA_ERROR_NOT_FOUND);
	ASSERT_ERR(doca_log_unregister_source(-1), DOCA_ERROR_NOT_FOUND);
	ASSERT_ERR(doca_log_unregister_source(1 << 20), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(doca_log_unregister_source(b));
	ASSERT_OK(doca_log_unregister_source(same));
	/* Many registrations grow the registry without limit problems. */
	for (int i = 0; i < 1000; i++)
		ASSERT_OK(doca_log_register_source("many", &a));
}

TEST(doca_log_refuses_bad_level_and_format)
{
	fresh();
	app_buffer_backend();
	ASSERT_ERR(doca_log(0, log_source, __FILE__, __LINE__, __func__, "x"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log(9, log_source, __FILE__, __LINE__, __func__, "x"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log(71, log_source, __FILE__, __LINE__, __func__, "x"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log(1000, log_source, __FILE__, __LINE__, __func__, "x"), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log(DOCA_LOG_LEVEL_ERROR, log_source, __FILE__, __LINE__, __func__, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	/* A DISABLE-level line is valid but never shown; filtered lines still succeed. */
	ASSERT_OK(doca_log(DOCA_LOG_LEVEL_DISABLE, log_source, __FILE__, __LINE__, __func__, "x"));
	ASSERT_OK(doca_log(DOCA_LOG_LEVEL_TRACE, log_source, __FILE__, __LINE__, __func__, "x"));
	ASSERT_EQ(app_rec.n, 0);
	/* NULL file and function names do not crash. */
	ASSERT_OK(doca_log(DOCA_LOG_LEVEL_ERROR, log_source, NULL, 3, NULL, "nameless"));
	ASSERT_EQ(app_rec.n, 1);
	ASSERT(strstr(app_rec.lines[0], "[ERR][?:3][?] nameless\n") != NULL);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
