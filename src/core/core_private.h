/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How Core keeps its object layouts to itself (docs/architecture.md "The Core
 * boundary").  The libraries embed struct doca_ctx and struct doca_task in their
 * own objects, so the layouts stay complete types; but every field of a Core
 * object is declared as SD_CORE_PRIVATE(name), which is the plain name only
 * while compiling libdoca_common (SD_CORE_BUILD, src/core/meson.build) or a
 * white-box test (SD_CORE_FRIEND, tests/meson.build).  Anywhere else the field
 * has a mangled name, so "buf->data" does not compile; the libraries read the
 * fields through the inline accessors of sd_core.h, which name them with the
 * same macro and cost nothing at run time.
 *
 * Every Core-internal header includes this file outside its include guard, so
 * each inclusion is checked: outside Core and its tests, Core's internal headers
 * are reached only through sd_core.h (or xproc.h, which has no Core object).
 */
#if !defined(SD_CORE_BUILD) && !defined(SD_CORE_FRIEND) && !defined(SD_CORE_INCLUDING)
#error "outside libdoca_common, include src/core/sd_core.h (the Core boundary), not Core's internal headers"
#endif

#ifndef SD_CORE_PRIVATE_H_
#define SD_CORE_PRIVATE_H_

#if defined(SD_CORE_BUILD) || defined(SD_CORE_FRIEND)
#define SD_CORE_PRIVATE(name) name
#else
#define SD_CORE_PRIVATE(name) sd_core_private_##name
#endif

#endif /* SD_CORE_PRIVATE_H_ */
