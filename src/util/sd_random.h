/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random bytes for export keys.
 */
#ifndef SD_RANDOM_H_
#define SD_RANDOM_H_

#include <stddef.h>

#include <doca_error.h>

#include "sd_util.h"

/* Fill buf with len bytes from the kernel's CSPRNG (getrandom). */
SD_EXPORT doca_error_t sd_random_bytes(void *buf, size_t len);

#endif /* SD_RANDOM_H_ */
