/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DOCA API version softdoca implements, and helpers to compare versions.
 */
#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <stddef.h>
#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_VERSION_MAJOR 3
#define DOCA_VERSION_MINOR 0
#define DOCA_VERSION_PATCH 58
#define DOCA_VERSION_STRING "3.0.0058"

/* Exact version number: major, minor and patch packed into one integer. */
#define DOCA_VERSION_CALC_EXACT(major, minor, patch)                                                                   \
	((size_t)(((size_t)(major) << 24) | ((size_t)(minor) << 16) | (size_t)(patch)))
#define DOCA_VERSION_EXACT DOCA_VERSION_CALC_EXACT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH)

/* Release version number: the patch level counts in thousands. */
#define DOCA_VERSION_CALC(major, minor, patch)                                                                         \
	((size_t)(((size_t)(major) << 24) | ((size_t)(minor) << 16) | ((size_t)(patch)*1000)))
#define DOCA_VERSION_OFFICIAL DOCA_VERSION_CALC(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, 0)

#define DOCA_VERSION_EQ_CURRENT(major, minor, patch)                                                                   \
	(DOCA_VERSION_CALC_EXACT(major, minor, patch) == DOCA_VERSION_EXACT)
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch)                                                                  \
	(DOCA_VERSION_CALC_EXACT(major, minor, patch) <= DOCA_VERSION_EXACT)

/* The version the program was compiled against. */
static inline const char *
doca_version(void)
{
	return DOCA_VERSION_STRING;
}

/* The version of the library the program runs with. */
DOCA_EXPERIMENTAL const char *doca_version_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
