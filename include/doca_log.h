/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA logging.
 *
 * Sources.  Every file that logs declares a source with DOCA_LOG_REGISTER(NAME)
 * and then uses DOCA_LOG_CRIT/ERR/WARN/INFO/DBG/TRC.  Sources are registered by
 * constructors before main(); no backend is needed for that.
 *
 * Families.  A line belongs to the family of its source:
 *  - application lines (sources of the program) go to application backends:
 *    doca_log_backend_create_standard / _with_file / _with_fd / _with_buf /
 *    _with_syslog;
 *  - SDK lines (the DOCA libraries' own sources) go to SDK backends: the *_sdk
 *    variants.
 * A program that creates no application backend prints none of its own lines.
 * A program that creates no SDK backend still sees SDK lines of level WARNING
 * and more severe on stderr (softdoca's fallback, so refusals are never lost);
 * the fallback ends when the first SDK backend is created.
 *
 * Levels and windows.  A larger number is more verbose.  Each backend has a
 * window [upper, lower] and takes a line of level L when upper <= L <= lower.
 *  - Application backends start with the global limits (defaults: upper CRIT,
 *    lower INFO) and follow every later change of them, unless made strict.
 *  - SDK backends start with the global SDK limit (default INFO) as their lower
 *    limit ("SDK level") and follow its later changes unless made strict; their
 *    upper limit starts at CRIT and ignores the global upper limit.
 * DOCA_LOG_LEVEL_DISABLE as a lower limit closes the window: nothing shows.
 * Every level argument must be within DISABLE (10)..TRACE (70), otherwise the
 * call returns DOCA_ERROR_INVALID_VALUE and changes nothing.
 *
 * Line format (every backend but syslog, which adds its own time and pid):
 *   [HH:MM:SS:micro][pid][DOCA][TAG][file.c:line][function] message\n
 * local time with 6-digit microseconds, the file's basename, and TAG one of
 * CRT ERR WRN INF DBG TRC.
 *
 * Environment: DOCA_LOG_LEVEL (a number 10..70 or disable, crit, error, warning,
 * info, debug, trace; case-insensitive) sets the initial global lower limit and
 * the global SDK limit.  It is read once, at the first use of the log API other
 * than source registration (a log line that could be shown, a backend creation,
 * a limit get or set).  An unusable value keeps the defaults and is reported as
 * an SDK warning.
 *
 * Threads: every function is thread-safe; lines are written whole.  Backends
 * cannot be destroyed (as in DOCA); softdoca frees them when the library
 * unloads.  A line logged from inside a buffer backend's flush callback is dropped.
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

/*
 * Called by a buffer backend after each line: buf is the backend's own buffer
 * holding the line (with its newline), NUL-terminated and truncated to the
 * buffer's capacity.  Runs with the log lock held: it must not create backends
 * or change limits; a line it logs is dropped.
 */
typedef void (*log_flush_callback)(char *buf);

/*
 * Per-backend limits.  lower_limit is the most verbose level the backend takes,
 * upper_limit the most severe.  On an SDK backend the lower limit is its SDK
 * level (same as doca_log_backend_set_sdk_level()).  The value holds until the
 * matching global limit changes, unless the backend was made strict.
 * Returns DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for a NULL backend or a level
 * outside 10..70.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *logger,
								      uint32_t lower_limit);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *logger,
								      uint32_t upper_limit);
/*
 * Strict: later changes of the global limit (global lower limit, or global SDK
 * limit for an SDK backend; global upper limit) no longer move this backend's
 * limit; its current value stays.  Returns DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *logger);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *logger);

/*
 * Global limits of application lines: set the value new application backends
 * start with and move every non-strict application backend to it.  Defaults:
 * lower INFO, upper CRIT (or DOCA_LOG_LEVEL).  Setters return DOCA_SUCCESS or
 * DOCA_ERROR_INVALID_VALUE (level outside 10..70, nothing changed).
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t lower_limit);
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);

/*
 * Sources.  register stores a positive id in *source (never 0: a static
 * log_source left at 0 by a failed registration still logs as an application
 * line).  The name is copied (up to 63 bytes) and shown in no line.  Returns
 * DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL argument) or DOCA_ERROR_NO_MEMORY.
 * unregister returns DOCA_ERROR_NOT_FOUND for an id that is not registered
 * (never was, or already unregistered); ids are not reused.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);

/*
 * Application backends.  Each returns DOCA_SUCCESS and stores the backend, or
 * DOCA_ERROR_INVALID_VALUE (NULL pointer, fd < 0, capacity 0, NULL handler),
 * DOCA_ERROR_NO_MEMORY, or DOCA_ERROR_BAD_STATE once the library is unloading;
 * *backend is written only on success.
 *  - standard: two backends, stdout taking INFO and more verbose lines down to
 *    the global lower limit, stderr taking WARNING and more severe ones (both
 *    also within the global limits).  A second call does nothing.
 *  - file: fwrite + fflush to fptr, which must stay open while logging goes on.
 *  - fd: write(2) of each whole line.
 *  - buf: each line is copied into buf (capacity bytes including the NUL,
 *    truncated if longer), then handler(buf) is called.
 *  - syslog: openlog(name, LOG_PID, LOG_USER) and syslog() with CRIT->LOG_CRIT,
 *    ERROR->LOG_ERR, WARNING->LOG_WARNING, INFO->LOG_INFO, DEBUG/TRACE->LOG_DEBUG.
 *    syslog has one identity per process: the last syslog backend's name wins.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
								struct doca_log_backend **backend);
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);

/*
 * SDK backends: same outputs and errors as above, for the lines of the DOCA
 * libraries.  Creating the first one ends the stderr fallback.
 * doca_log_backend_set_sdk_level() returns DOCA_ERROR_INVALID_VALUE for NULL, a
 * level outside 10..70, or an application backend.  The global SDK limit
 * (default INFO, or DOCA_LOG_LEVEL) moves every non-strict SDK backend and the
 * fallback, as --sdk-log-level does.
 */
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

/*
 * Emit one line.  Prefer the DOCA_LOG_* macros.  Returns DOCA_SUCCESS whether or
 * not a backend took the line (a failing output loses the line silently), or
 * DOCA_ERROR_INVALID_VALUE for a level outside 10..70, or for a NULL format when
 * some backend would take the line.  A DISABLE-level line is accepted and never
 * shown.  Cheap when filtered: a line no backend of its family would take costs
 * one atomic load.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					const char *format, ...) __attribute__((format(printf, 6, 7)));

#define DOCA_LOG(level, format, ...)                                                                                   \
	doca_log(DOCA_LOG_LEVEL_##level, log_source, __FILE__, __LINE__, __func__, format, ##__VA_ARGS__)

#define DOCA_LOG_CRIT(format, ...) DOCA_LOG(CRIT, format, ##__VA_ARGS__)
#define DOCA_LOG_ERR(format, ...) DOCA_LOG(ERROR, format, ##__VA_ARGS__)
#define DOCA_LOG_WARN(format, ...) DOCA_LOG(WARNING, format, ##__VA_ARGS__)
#define DOCA_LOG_INFO(format, ...) DOCA_LOG(INFO, format, ##__VA_ARGS__)
#define DOCA_LOG_DBG(format, ...) DOCA_LOG(DEBUG, format, ##__VA_ARGS__)
/*
 * DOCA_LOG_TRC is compiled out (arguments not evaluated) unless
 * DOCA_LOGGING_ALLOW_TRACE is defined before this header is included.
 */
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(format, ...) DOCA_LOG(TRACE, format, ##__VA_ARGS__)
#else
#define DOCA_LOG_TRC(format, ...)                                                                                      \
	do {                                                                                                           \
	} while (0)
#endif

/*
 * Declare this file's log source.  Registration runs from a constructor, before
 * main() and before any backend exists.
 */
#define DOCA_LOG_REGISTER(source)                                                                                      \
	static int log_source;                                                                                         \
	__attribute__((constructor(101), used)) static void doca_log_source_ctor(void)                                 \
	{                                                                                                              \
		doca_log_register_source(#source, &log_source);                                                        \
	}

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
