/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Symbol stability markers and struct-versioning helpers.
 *
 * DOCA_STABLE symbols are part of the supported ABI.  DOCA_EXPERIMENTAL and
 * DOCA_DEPRECATED symbols warn at every use unless the program opts in with
 * DOCA_ALLOW_EXPERIMENTAL_API / DOCA_ALLOW_DEPRECATED_API before including any
 * DOCA header (DOCA's samples define the former on the compiler command line).
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#include <doca_config.h>

#ifdef DOCA_COMPAT_HELPERS
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <assert.h>
#endif

#if defined(__linux__)
#define DOCA_USED __attribute__((used))
#define DOCA_STABLE __attribute__((visibility("default"))) DOCA_USED

#ifndef DOCA_ALLOW_EXPERIMENTAL_API
#define DOCA_EXPERIMENTAL                                                                                              \
	__attribute__((deprecated("Symbol is defined as experimental"), section(".text.experimental"))) DOCA_STABLE
#else
#define DOCA_EXPERIMENTAL __attribute__((section(".text.experimental"))) DOCA_STABLE
#endif

#ifndef DOCA_ALLOW_DEPRECATED_API
#define DOCA_DEPRECATED __attribute__((deprecated("Symbol is deprecated"), section(".text.deprecated"))) DOCA_STABLE
#else
#define DOCA_DEPRECATED __attribute__((section(".text.deprecated"))) DOCA_STABLE
#endif
#else
#define DOCA_USED
#define DOCA_STABLE
#define DOCA_EXPERIMENTAL
#define DOCA_DEPRECATED
#endif

#ifdef DOCA_COMPAT_HELPERS
/*
 * Versioned structs start with a size_t __doca_api_version member that records
 * the DOCA version the caller was compiled against, so a newer library can tell
 * which fields the caller knows about.
 */
#define DOCA_STRUCT_START size_t __doca_api_version
#define DOCA_STRUCT_GET_VERSION(ptr) ((ptr)->__doca_api_version)
#define DOCA_STRUCT_CTOR(type) ((type){.__doca_api_version = DOCA_VERSION_EXACT})
#define DOCA_STRUCT_PTR_CTOR(ptr) ((ptr)->__doca_api_version = DOCA_VERSION_EXACT)
#define DOCA_STRUCT_MEMSET_CTOR(var) (memset(&(var), 0, sizeof(var)), (var).__doca_api_version = DOCA_VERSION_EXACT)
#define DOCA_STRUCT_PTR_MEMSET_CTOR(ptr)                                                                               \
	(memset((ptr), 0, sizeof(*(ptr))), (ptr)->__doca_api_version = DOCA_VERSION_EXACT)
#define DOCA_STRUCT_CTOR_LIST_START .__doca_api_version = DOCA_VERSION_EXACT
#define DOCA_STRUCT_DEF(type, name) type name = DOCA_STRUCT_CTOR(type)
#endif

/* Last: doca_version.h itself uses the markers above. */
#ifdef DOCA_COMPAT_HELPERS
#include <doca_version.h>
#endif

#endif /* DOCA_COMPAT_H_ */
