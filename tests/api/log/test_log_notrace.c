/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built without DOCA_LOGGING_ALLOW_TRACE: DOCA_LOG_TRC must vanish entirely
 * (its arguments are not even evaluated) while the other levels still log.
 */
#ifdef DOCA_LOGGING_ALLOW_TRACE
#error "this file must be compiled without DOCA_LOGGING_ALLOW_TRACE"
#endif

#include <stdlib.h>

#include "log_capture.h"

DOCA_LOG_REGISTER(TEST::LOG_NOTRACE);

static int evaluated;

static int
side_effect(void)
{
	return ++evaluated;
}

TEST(trace_macro_is_a_no_op)
{
	unsetenv("DOCA_LOG_LEVEL");
	ASSERT_OK(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_TRACE));
	app_buffer_backend();
	DOCA_LOG_TRC("trace %d", side_effect());
	ASSERT_EQ(evaluated, 0);
	ASSERT_EQ(app_rec.n, 0);
	/* The same level through doca_log() itself is shown: only the macro is compiled out. */
	ASSERT_OK(doca_log(DOCA_LOG_LEVEL_TRACE, log_source, __FILE__, __LINE__, __func__, "direct"));
	DOCA_LOG_DBG("debug %d", side_effect());
	ASSERT_EQ(evaluated, 1);
	ASSERT_EQ(app_rec.n, 2);
	ASSERT(recorded(&app_rec, "[TRC]"));
	ASSERT(recorded(&app_rec, "] debug 1\n"));
}

TEST(trace_macro_is_a_statement)
{
	/* Usable as the body of an if without braces. */
	if (evaluated == 0)
		DOCA_LOG_TRC("x");
	else
		evaluated = 5;
	ASSERT_EQ(evaluated, 0);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
