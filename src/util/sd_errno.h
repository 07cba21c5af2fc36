/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one place where errno values become doca_error_t.
 */
#ifndef SD_ERRNO_H_
#define SD_ERRNO_H_

#include <doca_error.h>

/* Map a positive errno value to the closest doca_error_t. */
doca_error_t sd_errno_to_doca(int err);

#endif /* SD_ERRNO_H_ */
