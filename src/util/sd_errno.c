/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errno to doca_error_t conversion.
 */
#include <errno.h>

#include "sd_errno.h"

doca_error_t
sd_errno_to_doca(int err)
{
	switch (err) {
	case 0:
		return DOCA_SUCCESS;
	case EPERM:
	case EACCES:
		return DOCA_ERROR_NOT_PERMITTED;
	case EBUSY:
		return DOCA_ERROR_IN_USE;
	case ENOTSUP:
	case ENOSYS:
		return DOCA_ERROR_NOT_SUPPORTED;
	case EAGAIN:
	case EINTR:
		return DOCA_ERROR_AGAIN;
	case EINVAL:
	case ERANGE:
	case EFAULT:
		return DOCA_ERROR_INVALID_VALUE;
	case ENOMEM:
	case ENOBUFS:
		return DOCA_ERROR_NO_MEMORY;
	case ETIMEDOUT:
		return DOCA_ERROR_TIME_OUT;
	case ECONNRESET:
	case EPIPE:
		return DOCA_ERROR_CONNECTION_RESET;
	case ECONNABORTED:
		return DOCA_ERROR_CONNECTION_ABORTED;
	case EINPROGRESS:
		return DOCA_ERROR_CONNECTION_INPROGRESS;
	case ENOTCONN:
	case ECONNREFUSED:
		return DOCA_ERROR_NOT_CONNECTED;
	case ENOENT:
	case ESRCH:
	case ENODEV:
		return DOCA_ERROR_NOT_FOUND;
	case EIO:
		return DOCA_ERROR_IO_FAILED;
	case EEXIST:
		return DOCA_ERROR_ALREADY_EXIST;
	case ENOSPC:
		return DOCA_ERROR_FULL;
	case E2BIG:
	case EMSGSIZE:
		return DOCA_ERROR_TOO_BIG;
	default:
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
}
