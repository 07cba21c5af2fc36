/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Build-wide configuration: pulls in the personality (host or DPU) and turns on
 * the struct-versioning helpers of doca_compat.h.
 */
#ifndef DOCA_CONFIG_H_
#define DOCA_CONFIG_H_

#include <doca_build_config.h>

#define DOCA_COMPAT_HELPERS
#ifdef DOCA_DPA_DEVICE
#undef DOCA_COMPAT_HELPERS
#endif

#endif /* DOCA_CONFIG_H_ */
