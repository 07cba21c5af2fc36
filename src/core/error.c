/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_error_get_name() and doca_error_get_descr(), both expanded from the
 * single table in error_table.h.
 */
#include <doca_error.h>

#include "../util/sd_util.h"
#include "error_table.h"

struct error_info {
	const char *name;
	const char *descr;
};

/* Indexed by value: a row placed at the wrong value would leave a hole (NULL name). */
#define ERROR_ROW(code, text) [code] = {#code, text},
static const struct error_info error_infos[] = {SD_ERROR_TABLE(ERROR_ROW)};
#undef ERROR_ROW

/* Every enumerator has exactly one row: as many rows as values 0..SKIPPED. */
#define ERROR_COUNT(code, text) +1
_Static_assert(0 SD_ERROR_TABLE(ERROR_COUNT) == DOCA_ERROR_SKIPPED + 1, "error table has duplicates or gaps");
_Static_assert(SD_ARRAY_SIZE(error_infos) == DOCA_ERROR_SKIPPED + 1, "error table does not end at DOCA_ERROR_SKIPPED");
#undef ERROR_COUNT

static const struct error_info unrecognized = {"DOCA_ERROR_UNRECOGNIZED", "Unrecognized error"};

static const struct error_info *
error_lookup(doca_error_t error)
{
	/* Through unsigned so negative values from a cast int are out of range too. */
	unsigned int idx = (unsigned int)error;

	if (idx >= SD_ARRAY_SIZE(error_infos) || error_infos[idx].name == NULL)
		return &unrecognized;
	return &error_infos[idx];
}

const char *
doca_error_get_name(doca_error_t error)
{
	return error_lookup(error)->name;
}

const char *
doca_error_get_descr(doca_error_t error)
{
	return error_lookup(error)->descr;
}
