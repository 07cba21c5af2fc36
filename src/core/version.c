/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The version of the library at run time (doca_version() in the header gives
 * the version a program was compiled against).
 */
#include <doca_version.h>

const char *
doca_version_runtime(void)
{
	return DOCA_VERSION_STRING;
}
