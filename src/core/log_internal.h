/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to log.c and log_backend.c: the backend object, the process-wide
 * logging state and the helpers the two files share.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_LOG_INTERNAL_H_
#define SD_LOG_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_log.h>

#include "../util/sd_util.h"
#include "sd_log.h"

/*
 * Source ids are registry indexes; SDK sources also carry this bit, so doca_log()
 * knows a line's family from the id alone, without reading the registry.
 */
#define LOG_SDK_SOURCE_BIT (1 << 30)

enum log_family {
	LOG_FAMILY_APP,
	LOG_FAMILY_SDK,
	LOG_FAMILY_COUNT,
};

enum log_backend_kind {
	LOG_BACKEND_FILE,
	LOG_BACKEND_STDOUT, /* stdout/stderr are looked up at write time (freopen-safe) */
	LOG_BACKEND_STDERR,
	LOG_BACKEND_FD,
	LOG_BACKEND_BUF,
	LOG_BACKEND_SYSLOG,
};

/*
 * A line of level L is written when max(upper, clamp_upper) <= L <= min(lower,
 * clamp_lower).  lower/upper follow the family's global limits unless made
 * strict; the clamps are fixed bounds (standard stdout: INFO.., stderr: ..WARNING,
 * the SDK fallback: ..WARNING) and CRIT..TRACE otherwise, so DISABLE lines never show.
 */
struct doca_log_backend {
	struct sd_list node; /* in sd_log_state.backends */
	enum log_family family;
	enum log_backend_kind kind;
	uint32_t lower;
	uint32_t upper;
	bool lower_strict;
	bool upper_strict;
	uint32_t clamp_upper;
	uint32_t clamp_lower;
	union {
		FILE *file;
		int fd;
		struct {
			char *buf;
			size_t capacity;
			log_flush_callback handler;
		} buf;
	} out;
	char ident[]; /* syslog identity (openlog keeps the pointer) */
};

/* Everything below lock is protected by it; family_max is also read without it. */
struct sd_log_state {
	pthread_mutex_t lock;
	struct sd_list backends;
	uint32_t global_lower;
	uint32_t global_upper;
	uint32_t global_sdk;
	/*
	 * DOCA_LOG_LEVEL as the operator's override (0 when unset): every SDK backend
	 * the program made takes SDK lines at least this verbose, whatever SDK level
	 * the program gave it.
	 */
	uint32_t env_sdk_floor;
	bool have_sdk_backend; /* once true, the fallback is gone */
	bool standard_created;
	bool syslog_opened;
	bool shut_down;
	struct doca_log_backend *fallback; /* the stderr backend of SDK lines until one exists */
	/* Per family, the most verbose level some backend accepts (0: none). */
	uint32_t family_max[LOG_FAMILY_COUNT];
};

extern struct sd_log_state sd_log_state;

bool sd_log_level_valid(uint32_t level);
int sd_log_level_syslog_priority(uint32_t level);
/* Log and return the INVALID_VALUE refusal of a level outside 10..70. */
doca_error_t sd_log_refuse_level(const char *api, uint32_t level);
/* Read DOCA_LOG_LEVEL once; call without the lock. */
void sd_log_ensure_init(void);
/* Refresh family_max after any change of backends or limits; lock held. */
void sd_log_recompute_locked(void);
/* Write one formatted line (len bytes, ends in '\n'); lock held. */
void sd_log_backend_write(struct doca_log_backend *b, uint32_t level, const char *line, size_t len, size_t doca_off);
/* Release a backend taken off the list; lock held. */
void sd_log_backend_free(struct doca_log_backend *b);

#endif /* SD_LOG_INTERNAL_H_ */
