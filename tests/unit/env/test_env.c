/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The environment knob reader (src/util/sd_env.h): values, ranges, refused
 * values (the default applies, one WARNING naming what is accepted), one INFO
 * line per value read, and the deprecated SD_* names.  Each case is its own
 * process, so "once" starts afresh in each.
 */
#include <doca_log.h>

#include "sd_env.h"
#include "sd_test.h"

static char log_buf[1024];
static char lines[64][256];
static unsigned int num_lines;

static void
flush_line(char *line)
{
	if (num_lines < SD_ARRAY_SIZE(lines))
		snprintf(lines[num_lines++], sizeof(lines[0]), "%s", line);
}

/* Library lines at INFO and above land in lines[]. */
static void
capture(void)
{
	struct doca_log_backend *b = NULL;

	ASSERT_OK(doca_log_backend_create_with_buf_sdk(log_buf, sizeof(log_buf), flush_line, &b));
	ASSERT_OK(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_INFO));
	num_lines = 0;
}

/* Lines at tag ("WRN", "INF") containing every one of up to three strings. */
static unsigned int
count(const char *tag, const char *s1, const char *s2, const char *s3)
{
	char t[8];
	unsigned int n = 0;

	snprintf(t, sizeof(t), "[%s]", tag);
	for (unsigned int i = 0; i < num_lines; i++)
		if (strstr(lines[i], t) != NULL && strstr(lines[i], s1) != NULL &&
		    (s2 == NULL || strstr(lines[i], s2) != NULL) && (s3 == NULL || strstr(lines[i], s3) != NULL))
			n++;
	return n;
}

#define U64 "SOFTDOCA_TEST_U64"

TEST(u64_values_in_range)
{
	capture();
	unsetenv(U64);
	ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 7);
	setenv(U64, "", 1);
	ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 7);
	setenv(U64, "1", 1);
	ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 1);
	setenv(U64, "100", 1);
	ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 100);
	setenv(U64, "18446744073709551615", 1);
	ASSERT(sd_env_u64(U64, 7, 0, UINT64_MAX) == UINT64_MAX);
	ASSERT_EQ(count("WRN", U64, NULL, NULL), 0);
	ASSERT_EQ(count("INF", U64 "=100", "read from the environment", NULL), 1);
}

TEST(u64_refuses_out_of_range_and_malformed)
{
	static const char *const bad[] = {"0", "101", "-1", " 5", "5x", "0x10", "+3", "1e3", "99999999999999999999999"};

	capture();
	for (size_t i = 0; i < SD_ARRAY_SIZE(bad); i++) {
		char want[64];

		setenv(U64, bad[i], 1);
		ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 7);
		snprintf(want, sizeof(want), U64 "=\"%s\" refused", bad[i]);
		ASSERT_EQ(count("WRN", want, "[1, 100]", "using 7"), 1);
	}
	ASSERT_EQ(count("INF", U64, NULL, NULL), 0);
}

TEST(u64_logs_each_value_once)
{
	capture();
	setenv(U64, "5", 1);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 5);
	setenv(U64, "banana", 1);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 7);
	setenv(U64, "6", 1);
	ASSERT_EQ(sd_env_u64(U64, 7, 1, 100), 6);
	ASSERT_EQ(count("INF", U64 "=5", NULL, NULL), 1);
	ASSERT_EQ(count("INF", U64 "=6", NULL, NULL), 1);
	ASSERT_EQ(count("WRN", U64 "=\"banana\"", NULL, NULL), 1);
}

#define BOOL "SOFTDOCA_TEST_BOOL"

TEST(bool_accepts_the_usual_spellings)
{
	static const char *const yes[] = {"1", "true", "TRUE", "yes", "On"};
	static const char *const no[] = {"0", "false", "No", "off", "OFF"};

	capture();
	for (size_t i = 0; i < SD_ARRAY_SIZE(yes); i++) {
		setenv(BOOL, yes[i], 1);
		ASSERT(sd_env_bool(BOOL, false));
		setenv(BOOL, no[i], 1);
		ASSERT(!sd_env_bool(BOOL, true));
	}
	unsetenv(BOOL);
	ASSERT(sd_env_bool(BOOL, true));
	ASSERT(!sd_env_bool(BOOL, false));
	ASSERT_EQ(count("WRN", BOOL, NULL, NULL), 0);
}

TEST(bool_refuses_other_values)
{
	capture();
	setenv(BOOL, "2", 1);
	ASSERT(sd_env_bool(BOOL, true));
	setenv(BOOL, "maybe", 1);
	ASSERT(!sd_env_bool(BOOL, false));
	ASSERT_EQ(count("WRN", BOOL "=\"2\" refused", "true/false", "using 1"), 1);
	ASSERT_EQ(count("WRN", BOOL "=\"maybe\" refused", "yes/no", "using 0"), 1);
}

#define CHOICE "SOFTDOCA_TEST_CHOICE"

TEST(choice_returns_the_index_or_refuses_with_the_list)
{
	static const char *const names[] = {"auto", "inline", "worker"};

	capture();
	setenv(CHOICE, "worker", 1);
	ASSERT_EQ(sd_env_choice(CHOICE, names, 3, 0), 2);
	setenv(CHOICE, "inline", 1);
	ASSERT_EQ(sd_env_choice(CHOICE, names, 3, 0), 1);
	setenv(CHOICE, "Worker", 1); /* exact match only */
	ASSERT_EQ(sd_env_choice(CHOICE, names, 3, 0), 0);
	ASSERT_EQ(count("WRN", CHOICE "=\"Worker\" refused", "expected one of auto, inline, worker", "using auto"), 1);
	unsetenv(CHOICE);
	ASSERT_EQ(sd_env_choice(CHOICE, names, 3, 1), 1);
}

TEST(str_returns_the_value_or_null)
{
	capture();
	setenv("SOFTDOCA_TEST_STR", "/etc/x.json", 1);
	ASSERT_STR_EQ(sd_env_str("SOFTDOCA_TEST_STR"), "/etc/x.json");
	setenv("SOFTDOCA_TEST_STR", "", 1);
	ASSERT_PTR_EQ(sd_env_str("SOFTDOCA_TEST_STR"), NULL);
	unsetenv("SOFTDOCA_TEST_STR");
	ASSERT_PTR_EQ(sd_env_str("SOFTDOCA_TEST_STR"), NULL);
	ASSERT_EQ(count("INF", "SOFTDOCA_TEST_STR=/etc/x.json", NULL, NULL), 1);
}

TEST(deprecated_name_read_with_one_warning)
{
	capture();
	unsetenv("SOFTDOCA_FABRIC_CMA");
	setenv("SD_FABRIC_CMA", "0", 1);
	ASSERT(!sd_env_bool("SOFTDOCA_FABRIC_CMA", true));
	ASSERT(!sd_env_bool("SOFTDOCA_FABRIC_CMA", true));
	ASSERT_EQ(count("WRN", "SD_FABRIC_CMA is deprecated", "set SOFTDOCA_FABRIC_CMA", NULL), 1);
	/* The log names the variable the value came from. */
	ASSERT_EQ(count("INF", "SD_FABRIC_CMA=0", NULL, NULL), 1);

	unsetenv("SOFTDOCA_RDMA_CM_LIVENESS_MS");
	setenv("SD_RDMA_CM_LIVENESS_MS", "banana", 1);
	ASSERT_EQ(sd_env_u64("SOFTDOCA_RDMA_CM_LIVENESS_MS", 1500, 100, 60000), 1500);
	ASSERT_EQ(count("WRN", "SD_RDMA_CM_LIVENESS_MS=\"banana\" refused", NULL, NULL), 1);
	setenv("SD_RDMA_CM_LIVENESS_MS", "400", 1);
	ASSERT_EQ(sd_env_u64("SOFTDOCA_RDMA_CM_LIVENESS_MS", 1500, 100, 60000), 400);
}

TEST(new_name_wins_over_deprecated_one)
{
	capture();
	setenv("SD_FABRIC_UCX_MT", "1", 1);
	setenv("SOFTDOCA_FABRIC_UCX_MT", "0", 1);
	ASSERT(!sd_env_bool("SOFTDOCA_FABRIC_UCX_MT", true));
	ASSERT_EQ(count("WRN", "deprecated", NULL, NULL), 0);
	/* A name without an alias does not read an SD_ twin. */
	unsetenv("SOFTDOCA_DMA_ENGINE");
	setenv("SD_DMA_ENGINE", "worker", 1);
	{
		static const char *const names[] = {"auto", "inline", "worker", "xproc"};

		ASSERT_EQ(sd_env_choice("SOFTDOCA_DMA_ENGINE", names, 4, 0), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
