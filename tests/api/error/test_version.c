/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_version.h: the compile-time and run-time versions agree and the
 * comparison macros pack major/minor/patch as DOCA does.
 */
#include <doca_version.h>

#include "sd_test.h"

TEST(runtime_matches_compile_time)
{
	ASSERT_STR_EQ(doca_version_runtime(), DOCA_VERSION_STRING);
	ASSERT_STR_EQ(doca_version(), DOCA_VERSION_STRING);
	ASSERT_STR_EQ(DOCA_VERSION_STRING, "3.0.0058");
}

TEST(version_numbers)
{
	ASSERT_EQ(DOCA_VERSION_EXACT, (3u << 24) | (0u << 16) | 58u);
	ASSERT_EQ(DOCA_VERSION_OFFICIAL, 3u << 24);
	ASSERT_EQ(DOCA_VERSION_CALC(2, 9, 1), (2u << 24) | (9u << 16) | 1000u);
	ASSERT(DOCA_VERSION_EQ_CURRENT(3, 0, 58));
	ASSERT(!DOCA_VERSION_EQ_CURRENT(3, 0, 57));
	ASSERT(DOCA_VERSION_LTE_CURRENT(2, 10, 0));
	ASSERT(DOCA_VERSION_LTE_CURRENT(3, 0, 58));
	ASSERT(!DOCA_VERSION_LTE_CURRENT(3, 0, 59));
	ASSERT(!DOCA_VERSION_LTE_CURRENT(3, 1, 0));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
