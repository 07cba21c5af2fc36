/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA logging.
 *
 * Every file that logs declares a source with DOCA_LOG_REGISTER(NAME) and then
 * uses DOCA_LOG_ERR() and friends.  A message goes to every backend whose level
 * window contains it.  Two families of backends exist:
 *  - application backends (doca_log_backend_create_standard / _with_file / _fd /
 *    _buf / _syslog) receive messages of program sources, filtered by the global
 *    lower/upper limits and their own limits;
 *  - SDK backends (the *_sdk variants) receive messages of the DOCA libraries,
 *    filtered by the global SDK limit and their own SDK level.
 *
 * Levels: a larger number is more verbose.  A message of level L passes a window
 * [upper, lower] when upper <= L <= lower; the defaults are CRIT..INFO.
 *
 * Environment: DOCA_LOG_LEVEL (a number 10..70 or a name such as "debug")
 * sets the initial global lower limit and SDK limit of the process.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10,
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

struct doca_log_backend;

/* Called by a buffer backend with the formatted, NUL-terminated line. */
typedef void (*log_flush_callback)(char *buf);

/* Per-backend limits of application messages. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *logger,
								       uint32_t lower_limit);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *logger,
								       uint32_t upper_limit);
/* Strict: later changes of the global limit no longer move this backend's limit. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *logger);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *logger);

/* Global limits of application messages (apply to non-strict backends). */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t lower_limit);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);

/* Sources: a name shown in no line today but kept for filtering and tools. */
DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);

/* Application backends. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity,
								 log_flush_callback handler,
								 struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name,
								    struct doca_log_backend **backend);

/* SDK backends. */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
								     log_flush_callback handler,
								     struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
									struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void);

/* Emit one message.  Prefer the DOCA_LOG_* macros. */
DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line,
					 const char *func, const char *format, ...)
	__attribute__((format(printf, 6, 7)));

#define DOCA_LOG(level, format, ...) \
	doca_log(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__)
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__)
#else
#define DOCA_LOG_TRC(format, ...) \
	do { \
	} while (0)
#endif

/*
 * Declare this file's log source.  Registration runs from a constructor, before
 * main() and before any backend exists.
 */
#define DOCA_LOG_REGISTER(source) \
	static int log_source; \
	__attribute__((constructor(101), used)) static void doca_log_source_ctor(void) \
	{ \
		doca_log_register_source(#source, &log_source); \
	}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
