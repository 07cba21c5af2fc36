/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one table of DOCA error codes: each row is the enumerator and its
 * description.  error.c expands it into the name and description arrays, so
 * names are the stringified enumerators and cannot drift from doca_error.h.
 */
#ifndef SD_ERROR_TABLE_H_
#define SD_ERROR_TABLE_H_

/* X(enumerator, description); rows in numeric order, no gaps (checked in error.c). */
#define SD_ERROR_TABLE(X)                                                                                              \
	X(DOCA_SUCCESS, "Success")                                                                                     \
	X(DOCA_ERROR_UNKNOWN, "Unknown error")                                                                         \
	X(DOCA_ERROR_NOT_PERMITTED, "Operation not permitted")                                                         \
	X(DOCA_ERROR_IN_USE, "Resource already in use")                                                                \
	X(DOCA_ERROR_NOT_SUPPORTED, "Operation not supported")                                                         \
	X(DOCA_ERROR_AGAIN, "Resource temporarily unavailable, try again")                                             \
	X(DOCA_ERROR_INVALID_VALUE, "Invalid input")                                                                   \
	X(DOCA_ERROR_NO_MEMORY, "Memory allocation failure")                                                           \
	X(DOCA_ERROR_INITIALIZATION, "Resource initialization failure")                                                \
	X(DOCA_ERROR_TIME_OUT, "Timer expired waiting for resource")                                                   \
	X(DOCA_ERROR_SHUTDOWN, "Shut down in process or completed")                                                    \
	X(DOCA_ERROR_CONNECTION_RESET, "Connection reset by peer")                                                     \
	X(DOCA_ERROR_CONNECTION_ABORTED, "Connection aborted")                                                         \
	X(DOCA_ERROR_CONNECTION_INPROGRESS, "Connection in progress")                                                  \
	X(DOCA_ERROR_NOT_CONNECTED, "Not connected")                                                                   \
	X(DOCA_ERROR_NO_LOCK, "Unable to acquire required lock")                                                       \
	X(DOCA_ERROR_NOT_FOUND, "Resource not found")                                                                  \
	X(DOCA_ERROR_IO_FAILED, "Input/output operation failed")                                                       \
	X(DOCA_ERROR_BAD_STATE, "Bad state")                                                                           \
	X(DOCA_ERROR_UNSUPPORTED_VERSION, "Unsupported version")                                                       \
	X(DOCA_ERROR_OPERATING_SYSTEM, "Operating system call failure")                                                \
	X(DOCA_ERROR_DRIVER, "Driver (device or emulation backend) failure")                                           \
	X(DOCA_ERROR_UNEXPECTED, "Unexpected behavior")                                                                \
	X(DOCA_ERROR_ALREADY_EXIST, "Resource already exists")                                                         \
	X(DOCA_ERROR_FULL, "No more space in resource")                                                                \
	X(DOCA_ERROR_EMPTY, "No entry is available in resource")                                                       \
	X(DOCA_ERROR_IN_PROGRESS, "Operation in progress")                                                             \
	X(DOCA_ERROR_TOO_BIG, "Requested operation too big to be contained")                                           \
	X(DOCA_ERROR_AUTHENTICATION, "Authentication failure")                                                         \
	X(DOCA_ERROR_BAD_CONFIG, "Configuration is not valid")                                                         \
	X(DOCA_ERROR_SKIPPED, "Operation was skipped")

#endif /* SD_ERROR_TABLE_H_ */
