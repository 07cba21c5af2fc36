/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging inside the softdoca libraries.
 *
 * Library files declare their source with SD_LOG_REGISTER(dotted.name) instead of
 * DOCA_LOG_REGISTER: the source is then an SDK source, so its messages go to the
 * SDK backends (doca_log_backend_create_*_sdk) and obey the SDK limit, exactly
 * as DOCA's own libraries do.  The DOCA_LOG_* macros are used unchanged; the
 * libraries are built with DOCA_LOGGING_ALLOW_TRACE, and a filtered line (e.g. a
 * per-task DOCA_LOG_TRC) costs one atomic load.  While the program has created no
 * SDK backend, WARNING and worse still reach stderr (docs/logging.md).
 *
 * Refusals at the API boundary are logged once, where detected, as
 *   "<api>: <rule broken> (<offending values>); <what to do>"
 * e.g. "doca_mmap_start: memrange not set; call doca_mmap_set_memrange() first".
 */
#ifndef SD_LOG_H_
#define SD_LOG_H_

#include <doca_log.h>

#include "../util/sd_util.h"

/* Register an SDK (library) log source; same contract as doca_log_register_source(). */
SD_EXPORT doca_error_t sd_log_register_sdk_source(const char *source_name, int *source);

#define SD_LOG_REGISTER(source)                                                                                        \
	static int log_source;                                                                                         \
	__attribute__((constructor(101), used)) static void sd_log_source_ctor(void)                                   \
	{                                                                                                              \
		sd_log_register_sdk_source(#source, &log_source);                                                      \
	}

#endif /* SD_LOG_H_ */
