/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA_LOG_LEVEL is the operator's override of what the library logs.  A program
 * set up as DOCA's samples are (a standard backend, an SDK backend whose level the
 * program sets to WARNING) shows the library's TRACE lines for a DMA context
 * start/stop when run with DOCA_LOG_LEVEL=trace, and none without it;
 * doca_log_backend_set_sdk_level() stays the program's own control below that.
 */
#include <doca_log.h>

#include "dma_test.h"

DOCA_LOG_REGISTER(DMA_LOG_ENV::MAIN);

static char sdk_buf[4096];
static unsigned trace_lines, other_lines;

static void
sdk_flush(char *line)
{
	if (strstr(line, "][TRC][") != NULL)
		trace_lines++;
	else
		other_lines++;
}

/* The samples' logging setup, then a DMA context started and stopped. */
static void
run_sample_like(uint32_t sdk_level)
{
	struct doca_log_backend *sdk_log = NULL;
	struct env e;

	ASSERT_OK(doca_log_backend_create_standard());
	ASSERT_OK(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &sdk_log));
	ASSERT_OK(doca_log_backend_set_sdk_level(sdk_log, sdk_level));
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
	env_open(&e, T_HOST_PCI, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	env_close(&e);
}

TEST(env_trace_overrides_program_sdk_level)
{
	ASSERT_EQ(setenv("DOCA_LOG_LEVEL", "trace", 1), 0);
	run_sample_like(DOCA_LOG_LEVEL_WARNING);
	ASSERT(trace_lines >= 2); /* IDLE -> RUNNING, RUNNING -> IDLE at least */
}

TEST(no_env_program_sdk_level_applies)
{
	ASSERT_EQ(unsetenv("DOCA_LOG_LEVEL"), 0);
	run_sample_like(DOCA_LOG_LEVEL_WARNING);
	ASSERT_EQ(trace_lines, 0);
}

TEST(env_never_lowers_program_sdk_level)
{
	/* The program asked for TRACE (--sdk-log-level 70): a quieter DOCA_LOG_LEVEL does not hide it. */
	ASSERT_EQ(setenv("DOCA_LOG_LEVEL", "error", 1), 0);
	run_sample_like(DOCA_LOG_LEVEL_TRACE);
	ASSERT(trace_lines >= 2);
}

TEST(env_trace_with_sdk_level_set_through_global_limit)
{
	struct doca_log_backend *sdk_log = NULL;

	/* --sdk-log-level 40 after the backend exists: still raised by the operator. */
	ASSERT_EQ(setenv("DOCA_LOG_LEVEL", "trace", 1), 0);
	ASSERT_OK(doca_log_backend_create_with_buf_sdk(sdk_buf, sizeof(sdk_buf), sdk_flush, &sdk_log));
	ASSERT_OK(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING));
	DOCA_LOG_INFO("program line");
	ASSERT_EQ(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_WARNING);
	{
		struct env e;

		ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", "builtin", 1), 0);
		env_open(&e, T_HOST_PCI, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
		env_start(&e);
		env_close(&e);
	}
	ASSERT(trace_lines >= 2);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
