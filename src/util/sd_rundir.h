/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdoca's runtime directory: where processes of one user find each other's
 * Unix sockets (Comch servers, the doors of exporting processes).  One per
 * user: $SOFTDOCA_RUNTIME_DIR, else $XDG_RUNTIME_DIR/softdoca, else
 * /tmp/softdoca-<uid>; created 0700 and refused unless private all the way up
 * (docs/security.md).
 */
#ifndef SD_RUNDIR_H_
#define SD_RUNDIR_H_

#include <stddef.h>

#include <doca_error.h>

#include "sd_util.h"

/*
 * The directory's path into dir (size bytes), created if missing.
 * INVALID_VALUE when the path does not fit; NOT_PERMITTED when it cannot be
 * created or is not private.  Failures are logged with the fix, naming what
 * for ("Comch", "PCI export") the caller needs it.
 */
SD_EXPORT doca_error_t sd_rundir(const char *what, char *dir, size_t size);

#endif /* SD_RUNDIR_H_ */
