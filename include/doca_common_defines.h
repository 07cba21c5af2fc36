/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small compiler helpers shared by every DOCA header.
 */
#ifndef DOCA_COMMON_DEFINES_H_
#define DOCA_COMMON_DEFINES_H_

#if defined(__GNUC__) || defined(__clang__)
#define doca_likely(x) __builtin_expect(!!(x), 1)
#define doca_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define doca_likely(x) (x)
#define doca_unlikely(x) (x)
#endif

#endif /* DOCA_COMMON_DEFINES_H_ */
