/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random bytes from getrandom(2), retried on EINTR and short reads.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

#include "sd_errno.h"
#include "sd_random.h"

doca_error_t
sd_random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sd_errno_to_doca(errno);
		}
		p += n;
		len -= (size_t)n;
	}
	return DOCA_SUCCESS;
}
