/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_error_get_name/descr: every enumerator maps to its own name, every
 * description is a distinct non-empty phrase, and out-of-range values never
 * yield NULL.  The list below is written from doca_error.h, not from the table.
 */
#include <doca_error.h>

#include "sd_test.h"

#define E(x)                                                                                                           \
	{                                                                                                              \
		x, #x                                                                                                  \
	}
static const struct {
	doca_error_t code;
	const char *name;
} all_errors[] = {
	E(DOCA_SUCCESS),
	E(DOCA_ERROR_UNKNOWN),
	E(DOCA_ERROR_NOT_PERMITTED),
	E(DOCA_ERROR_IN_USE),
	E(DOCA_ERROR_NOT_SUPPORTED),
	E(DOCA_ERROR_AGAIN),
	E(DOCA_ERROR_INVALID_VALUE),
	E(DOCA_ERROR_NO_MEMORY),
	E(DOCA_ERROR_INITIALIZATION),
	E(DOCA_ERROR_TIME_OUT),
	E(DOCA_ERROR_SHUTDOWN),
	E(DOCA_ERROR_CONNECTION_RESET),
	E(DOCA_ERROR_CONNECTION_ABORTED),
	E(DOCA_ERROR_CONNECTION_INPROGRESS),
	E(DOCA_ERROR_NOT_CONNECTED),
	E(DOCA_ERROR_NO_LOCK),
	E(DOCA_ERROR_NOT_FOUND),
	E(DOCA_ERROR_IO_FAILED),
	E(DOCA_ERROR_BAD_STATE),
	E(DOCA_ERROR_UNSUPPORTED_VERSION),
	E(DOCA_ERROR_OPERATING_SYSTEM),
	E(DOCA_ERROR_DRIVER),
	E(DOCA_ERROR_UNEXPECTED),
	E(DOCA_ERROR_ALREADY_EXIST),
	E(DOCA_ERROR_FULL),
	E(DOCA_ERROR_EMPTY),
	E(DOCA_ERROR_IN_PROGRESS),
	E(DOCA_ERROR_TOO_BIG),
	E(DOCA_ERROR_AUTHENTICATION),
	E(DOCA_ERROR_BAD_CONFIG),
	E(DOCA_ERROR_SKIPPED),
};
#undef E

TEST(values_are_abi)
{
	/* The numbers are ABI: 0..30 in this order, as doca-api.md lists them. */
	ASSERT_EQ(sizeof(all_errors) / sizeof(all_errors[0]), 31);
	for (int i = 0; i < 31; i++)
		ASSERT_EQ(all_errors[i].code, i);
}

TEST(every_code_has_its_enumerator_name)
{
	for (size_t i = 0; i < sizeof(all_errors) / sizeof(all_errors[0]); i++)
		ASSERT_STR_EQ(doca_error_get_name(all_errors[i].code), all_errors[i].name);
}

TEST(every_code_has_a_distinct_description)
{
	size_t n = sizeof(all_errors) / sizeof(all_errors[0]);

	for (size_t i = 0; i < n; i++) {
		const char *d = doca_error_get_descr(all_errors[i].code);

		ASSERT_NOT_NULL(d);
		ASSERT(strlen(d) > 3);
		ASSERT(strcmp(d, "Unrecognized error") != 0);
		for (size_t j = 0; j < i; j++)
			ASSERT(strcmp(d, doca_error_get_descr(all_errors[j].code)) != 0);
	}
}

TEST(out_of_range_is_unrecognized)
{
	const int bad[] = {31, 32, 100, 1 << 20, -1, -31};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_STR_EQ(doca_error_get_name((doca_error_t)bad[i]), "DOCA_ERROR_UNRECOGNIZED");
		ASSERT_STR_EQ(doca_error_get_descr((doca_error_t)bad[i]), "Unrecognized error");
	}
}

TEST(is_error_macro)
{
	ASSERT(!DOCA_IS_ERROR(DOCA_SUCCESS));
	ASSERT(DOCA_IS_ERROR(DOCA_ERROR_AGAIN));
	ASSERT(DOCA_IS_ERROR((doca_error_t)77));
}

TEST(propagate_keeps_first_error)
{
	doca_error_t r = DOCA_SUCCESS;

	DOCA_ERROR_PROPAGATE(r, DOCA_SUCCESS);
	ASSERT_ERR(r, DOCA_SUCCESS);
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_NOT_FOUND);
	ASSERT_ERR(r, DOCA_ERROR_NOT_FOUND);
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_IO_FAILED);
	ASSERT_ERR(r, DOCA_ERROR_NOT_FOUND);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
