/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA log filtering: global lower/upper limits, per-backend limits and strict
 * mode, application vs SDK routing and limits, the stderr fallback for SDK lines
 * when no SDK backend exists, and DOCA_LOG_LEVEL.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "log_capture.h"

DOCA_LOG_REGISTER(TEST::LOG_FILTER);

/* A second source in this binary that plays the part of a library file. */
static int sdk_source;

__attribute__((constructor)) static void
register_fake_sdk_source(void)
{
	sd_log_register_sdk_source("test.fake_sdk", &sdk_source);
}

#define SDK_LOG(level, fmt) doca_log(DOCA_LOG_LEVEL_##level, sdk_source, __FILE__, __LINE__, __func__, fmt)

static void
fresh(void)
{
	unsetenv("DOCA_LOG_LEVEL");
}

/* Log one line per level CRIT..TRACE tagged with its level name. */
static void
log_every_level(void)
{
	DOCA_LOG_CRIT("lvl-crit");
	DOCA_LOG_ERR("lvl-error");
	DOCA_LOG_WARN("lvl-warning");
	DOCA_LOG_INFO("lvl-info");
	DOCA_LOG_DBG("lvl-debug");
	DOCA_LOG_TRC("lvl-trace");
}

/* The recorder holds exactly the lines whose names are in the list. */
static void
expect_levels(const struct recorder *r, const char *const *names, int n)
{
	if (r->n != n)
		sd_test_fail(__FILE__, __LINE__, "got %d lines, expected %d (first: %s)", r->n, n,
			     r->n ? r->lines[0] : "-");
	for (int i = 0; i < n; i++)
		if (!recorded(r, names[i]))
			sd_test_fail(__FILE__, __LINE__, "no line \"%s\"", names[i]);
}

TEST(defaults)
{
	fresh();
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	ASSERT_EQ(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_INFO);
}

TEST(default_window_is_crit_to_info)
{
	static const char *const want[] = {"lvl-crit", "lvl-error", "lvl-warning", "lvl-info"};

	fresh();
	app_buffer_backend();
	log_every_level();
	expect_levels(&app_rec, want, 4);
}

TEST(global_lower_limit)
{
	static const char *const want[] = {"lvl-crit", "lvl-error", "lvl-warning"};

	fresh();
	app_buffer_backend();
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_WARNING));
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_WARNING);
	log_every_level();
	expect_levels(&app_rec, want, 3);
}

TEST(global_limits_apply_to_later_backends_too)
{
	static const char *const want[] = {"lvl-error", "lvl-warning", "lvl-info", "lvl-debug", "lvl-trace"};

	fresh();
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE));
	ASSERT_OK(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR));
	app_buffer_backend();
	log_every_level();
	expect_levels(&app_rec, want, 5);
}

TEST(global_upper_limit)
{
	static const char *const want[] = {"lvl-warning", "lvl-info"};

	fresh();
	app_buffer_backend();
	ASSERT_OK(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_WARNING));
	ASSERT_EQ(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_WARNING);
	log_every_level();
	expect_levels(&app_rec, want, 2);
}

TEST(disable_turns_everything_off)
{
	fresh();
	app_buffer_backend();
	sdk_buffer_backend();
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE));
	ASSERT_OK(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE));
	log_every_level();
	ASSERT_OK(SDK_LOG(CRIT, "sdk crit"));
	ASSERT_EQ(app_rec.n, 0);
	ASSERT_EQ(sdk_rec.n, 0);
}

TEST(invalid_global_levels)
{
	const uint32_t bad[] = {0, 9, 71, 80, 0xffffffffu};

	fresh();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_ERR(doca_log_level_set_global_lower_limit(bad[i]), DOCA_ERROR_INVALID_VALUE);
		ASSERT_ERR(doca_log_level_set_global_upper_limit(bad[i]), DOCA_ERROR_INVALID_VALUE);
		ASSERT_ERR(doca_log_level_set_global_sdk_limit(bad[i]), DOCA_ERROR_INVALID_VALUE);
	}
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	ASSERT_EQ(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_INFO);
	ASSERT_OK(doca_log_level_set_global_lower_limit(10));
	ASSERT_OK(doca_log_level_set_global_lower_limit(70));
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), 70);
}

TEST(invalid_backend_levels)
{
	struct doca_log_backend *app, *sdk;

	fresh();
	app = app_buffer_backend();
	sdk = sdk_buffer_backend();
	ASSERT_ERR(doca_log_backend_set_level_lower_limit(app, 9), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_level_lower_limit(app, 71), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_level_upper_limit(app, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_log_backend_set_sdk_level(sdk, 75), DOCA_ERROR_INVALID_VALUE);
	/* The SDK level belongs to SDK backends only. */
	ASSERT_ERR(doca_log_backend_set_sdk_level(app, DOCA_LOG_LEVEL_DEBUG), DOCA_ERROR_INVALID_VALUE);
	/* Nothing changed: still CRIT..INFO. */
	DOCA_LOG_DBG("lvl-debug");
	DOCA_LOG_INFO("lvl-info");
	ASSERT_EQ(app_rec.n, 1);
	ASSERT(recorded(&app_rec, "lvl-info"));
}

/* A second application recorder, to tell two backends apart. */
static struct recorder other_rec;

static void
other_flush(char *buf)
{
	record(&other_rec, buf);
}

static struct doca_log_backend *
other_buffer_backend(void)
{
	struct doca_log_backend *b = NULL;

	ASSERT_OK(doca_log_backend_create_with_buf(other_rec.buf, sizeof(other_rec.buf), other_flush, &b));
	return b;
}

TEST(per_backend_limits)
{
	static const char *const verbose_want[] = {"lvl-crit", "lvl-error", "lvl-warning", "lvl-info", "lvl-debug"};
	static const char *const narrow_want[] = {"lvl-error"};
	struct doca_log_backend *verbose, *narrow;

	fresh();
	verbose = app_buffer_backend();
	narrow = other_buffer_backend();
	ASSERT_OK(doca_log_backend_set_level_lower_limit(verbose, DOCA_LOG_LEVEL_DEBUG));
	ASSERT_OK(doca_log_backend_set_level_upper_limit(narrow, DOCA_LOG_LEVEL_ERROR));
	ASSERT_OK(doca_log_backend_set_level_lower_limit(narrow, DOCA_LOG_LEVEL_ERROR));
	log_every_level();
	expect_levels(&app_rec, verbose_want, 5);
	expect_levels(&other_rec, narrow_want, 1);
}

TEST(non_strict_backend_follows_later_global_change)
{
	static const char *const want[] = {"lvl-crit", "lvl-error"};
	struct doca_log_backend *b;

	fresh();
	b = app_buffer_backend();
	ASSERT_OK(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_TRACE));
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR));
	log_every_level();
	expect_levels(&app_rec, want, 2);
}

TEST(strict_lower_limit_ignores_global_changes)
{
	static const char *const strict_want[] = {"lvl-crit", "lvl-error"};
	static const char *const loose_want[] = {"lvl-crit", "lvl-error", "lvl-warning",
						 "lvl-info", "lvl-debug", "lvl-trace"};
	struct doca_log_backend *strict, *loose;

	fresh();
	strict = app_buffer_backend();
	loose = other_buffer_backend();
	ASSERT_OK(doca_log_backend_set_level_lower_limit(strict, DOCA_LOG_LEVEL_ERROR));
	ASSERT_OK(doca_log_backend_set_level_lower_limit_strict(strict));
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE));
	log_every_level();
	expect_levels(&app_rec, strict_want, 2);
	expect_levels(&other_rec, loose_want, 6);
	(void)loose;
}

TEST(strict_upper_limit_ignores_global_changes)
{
	static const char *const strict_want[] = {"lvl-crit", "lvl-error", "lvl-warning", "lvl-info"};
	static const char *const loose_want[] = {"lvl-info"};
	struct doca_log_backend *strict;

	fresh();
	strict = app_buffer_backend();
	other_buffer_backend();
	ASSERT_OK(doca_log_backend_set_level_upper_limit_strict(strict));
	ASSERT_OK(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_INFO));
	log_every_level();
	expect_levels(&app_rec, strict_want, 4);
	expect_levels(&other_rec, loose_want, 1);
}

TEST(app_and_sdk_lines_are_routed_apart)
{
	fresh();
	app_buffer_backend();
	sdk_buffer_backend();
	ASSERT(sdk_source != 0 && sdk_source != log_source);
	DOCA_LOG_WARN("from the application");
	ASSERT_OK(SDK_LOG(WARNING, "from the library"));
	ASSERT_EQ(app_rec.n, 1);
	ASSERT_EQ(sdk_rec.n, 1);
	ASSERT(recorded(&app_rec, "] from the application\n"));
	ASSERT(recorded(&sdk_rec, "[DOCA][WRN]"));
	ASSERT(recorded(&sdk_rec, "] from the library\n"));
}

TEST(app_limits_do_not_touch_sdk_backends)
{
	fresh();
	sdk_buffer_backend();
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE));
	ASSERT_OK(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_INFO));
	ASSERT_OK(SDK_LOG(ERROR, "sdk error"));
	ASSERT_EQ(sdk_rec.n, 1);
}

TEST(sdk_level_and_global_sdk_limit)
{
	struct doca_log_backend *sdk;

	fresh();
	sdk = sdk_buffer_backend();
	/* Default SDK limit INFO. */
	ASSERT_OK(SDK_LOG(INFO, "s-info-1"));
	ASSERT_OK(SDK_LOG(DEBUG, "s-debug-1"));
	/* As the samples do: this backend only WARNING and worse. */
	ASSERT_OK(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING));
	ASSERT_OK(SDK_LOG(INFO, "s-info-2"));
	ASSERT_OK(SDK_LOG(WARNING, "s-warn-2"));
	/* --sdk-log-level: the global SDK limit resets every SDK backend. */
	ASSERT_OK(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DEBUG));
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_DEBUG);
	ASSERT_OK(SDK_LOG(DEBUG, "s-debug-3"));
	ASSERT_OK(SDK_LOG(TRACE, "s-trace-3"));
	ASSERT_EQ(sdk_rec.n, 3);
	ASSERT(recorded(&sdk_rec, "s-info-1"));
	ASSERT(recorded(&sdk_rec, "s-warn-2"));
	ASSERT(recorded(&sdk_rec, "s-debug-3"));
	/* The global SDK limit leaves application backends alone. */
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
}

TEST(strict_sdk_backend_keeps_its_level)
{
	struct doca_log_backend *sdk;

	fresh();
	sdk = sdk_buffer_backend();
	ASSERT_OK(doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_ERROR));
	ASSERT_OK(doca_log_backend_set_level_lower_limit_strict(sdk));
	ASSERT_OK(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_TRACE));
	ASSERT_OK(SDK_LOG(WARNING, "hidden"));
	ASSERT_OK(SDK_LOG(ERROR, "shown"));
	ASSERT_EQ(sdk_rec.n, 1);
	ASSERT(recorded(&sdk_rec, "shown"));
}

TEST(sdk_fallback_to_stderr_without_sdk_backend)
{
	static char err[4096], out[1024];
	struct capture ce, co;

	fresh();
	/* An application backend does not stop the fallback: only an SDK backend does. */
	app_buffer_backend();
	capture_begin(&co, 1);
	capture_begin(&ce, 2);
	ASSERT_OK(SDK_LOG(CRIT, "fb-crit"));
	ASSERT_OK(SDK_LOG(ERROR, "fb-error"));
	ASSERT_OK(SDK_LOG(WARNING, "fb-warning"));
	ASSERT_OK(SDK_LOG(INFO, "fb-info"));
	ASSERT_OK(SDK_LOG(DEBUG, "fb-debug"));
	capture_end(&ce, err, sizeof(err));
	capture_end(&co, out, sizeof(out));
	ASSERT_EQ(count_of(err, "\n"), 3);
	ASSERT(strstr(err, "[CRT]") && strstr(err, "] fb-crit\n"));
	ASSERT(strstr(err, "[ERR]") && strstr(err, "] fb-error\n"));
	ASSERT(strstr(err, "[WRN]") && strstr(err, "] fb-warning\n"));
	ASSERT_EQ(out[0], '\0');
	/* SDK lines never reach application backends. */
	ASSERT_EQ(app_rec.n, 0);
}

TEST(sdk_fallback_follows_global_sdk_limit)
{
	static char err[1024];
	struct capture ce;

	fresh();
	ASSERT_OK(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_ERROR));
	capture_begin(&ce, 2);
	ASSERT_OK(SDK_LOG(WARNING, "fb-warning"));
	ASSERT_OK(SDK_LOG(ERROR, "fb-error"));
	capture_end(&ce, err, sizeof(err));
	ASSERT(strstr(err, "fb-warning") == NULL);
	ASSERT_EQ(count_of(err, "] fb-error\n"), 1);
}

TEST(sdk_fallback_ends_with_first_sdk_backend)
{
	static char err[1024];
	struct capture ce;

	fresh();
	capture_begin(&ce, 2);
	ASSERT_OK(SDK_LOG(ERROR, "before"));
	sdk_buffer_backend();
	ASSERT_OK(SDK_LOG(ERROR, "after"));
	capture_end(&ce, err, sizeof(err));
	ASSERT_EQ(count_of(err, "] before\n"), 1);
	ASSERT(strstr(err, "after") == NULL);
	ASSERT_EQ(sdk_rec.n, 1);
	ASSERT(recorded(&sdk_rec, "] after\n"));
}

TEST(library_refusals_reach_the_fallback)
{
	static char err[1024];
	struct capture ce;

	fresh();
	capture_begin(&ce, 2);
	ASSERT_ERR(doca_log_level_set_global_lower_limit(99), DOCA_ERROR_INVALID_VALUE);
	capture_end(&ce, err, sizeof(err));
	ASSERT(strstr(err, "[ERR]") != NULL);
	ASSERT(strstr(err, "doca_log_level_set_global_lower_limit: level 99 is out of range") != NULL);
}

TEST(app_lines_without_backend_print_nothing)
{
	static char err[1024], out[1024];
	struct capture ce, co;

	fresh();
	capture_begin(&co, 1);
	capture_begin(&ce, 2);
	log_every_level();
	capture_end(&ce, err, sizeof(err));
	capture_end(&co, out, sizeof(out));
	ASSERT_EQ(err[0], '\0');
	ASSERT_EQ(out[0], '\0');
}

TEST(env_level_by_name)
{
	static const char *const want[] = {"lvl-crit", "lvl-error", "lvl-warning", "lvl-info", "lvl-debug"};

	setenv("DOCA_LOG_LEVEL", "DeBuG", 1);
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_DEBUG);
	ASSERT_EQ(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);
	app_buffer_backend();
	log_every_level();
	expect_levels(&app_rec, want, 5);
}

TEST(env_level_names)
{
	static const struct {
		const char *text;
		uint32_t level;
	} cases[] = {{"disable", 10}, {"CRIT", 20},  {"error", 30}, {"Warning", 40},
		     {"info", 50},    {"debug", 60}, {"TRACE", 70}};

	/* Each value in its own process: the variable is read once per process. */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid_t pid = fork();
		int status;

		ASSERT(pid >= 0);
		if (pid == 0) {
			setenv("DOCA_LOG_LEVEL", cases[i].text, 1);
			_exit(doca_log_level_get_global_lower_limit() == cases[i].level &&
					      doca_log_level_get_global_sdk_limit() == cases[i].level
				      ? 0
				      : 1);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			sd_test_fail(__FILE__, __LINE__, "DOCA_LOG_LEVEL=%s not parsed as %u", cases[i].text,
				     cases[i].level);
	}
}

TEST(env_level_by_number)
{
	setenv("DOCA_LOG_LEVEL", "30", 1);
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_ERROR);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_ERROR);
}

TEST(env_disable_silences_the_fallback)
{
	static char err[1024];
	struct capture ce;

	setenv("DOCA_LOG_LEVEL", "10", 1);
	capture_begin(&ce, 2);
	ASSERT_OK(SDK_LOG(CRIT, "fb-crit"));
	capture_end(&ce, err, sizeof(err));
	ASSERT_EQ(err[0], '\0');
}

TEST(env_invalid_keeps_defaults_and_warns)
{
	static const char *const bad[] = {"verbose", "5", "75", "50x", "", "-60"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		static char err[1024];
		struct capture ce;
		pid_t pid;
		int status;

		capture_begin(&ce, 2);
		pid = fork();
		ASSERT(pid >= 0);
		if (pid == 0) {
			setenv("DOCA_LOG_LEVEL", bad[i], 1);
			_exit(doca_log_level_get_global_lower_limit() == DOCA_LOG_LEVEL_INFO &&
					      doca_log_level_get_global_sdk_limit() == DOCA_LOG_LEVEL_INFO
				      ? 0
				      : 1);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		capture_end(&ce, err, sizeof(err));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			sd_test_fail(__FILE__, __LINE__, "DOCA_LOG_LEVEL=\"%s\" changed the limits", bad[i]);
		/* The refusal is explained once, on stderr through the SDK fallback. */
		ASSERT_EQ(count_of(err, "is not a log level"), 1);
		ASSERT(strstr(err, "[WRN]") != NULL);
	}
}

TEST(env_is_read_once_at_first_use)
{
	fresh();
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	setenv("DOCA_LOG_LEVEL", "trace", 1);
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	app_buffer_backend();
	DOCA_LOG_DBG("lvl-debug");
	ASSERT_EQ(app_rec.n, 0);
}

TEST(env_read_at_first_line_too)
{
	/* Sources registered before main(); the first log line is the first use. */
	static const char *const want[] = {"lvl-crit"};

	setenv("DOCA_LOG_LEVEL", "crit", 1);
	ASSERT_OK(SDK_LOG(ERROR, "first line, hidden by DOCA_LOG_LEVEL=crit"));
	app_buffer_backend();
	log_every_level();
	expect_levels(&app_rec, want, 1);
}

TEST(explicit_setting_after_env_wins)
{
	setenv("DOCA_LOG_LEVEL", "error", 1);
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG));
	ASSERT_EQ(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_ERROR);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
