/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA logging: the source registry, the global and per-backend level windows,
 * and the emission path shared by every backend.  The backends' constructors and
 * writers are in log_backend.c; both files meet in log_internal.h.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "log_internal.h"

/* This file's own source: slot 0 of the registry, reserved, SDK family. */
static const int log_source = LOG_SDK_SOURCE_BIT | 0;

#define LOG_SOURCE_NAME_MAX 64
#define LOG_LINE_STACK 1024

struct log_source_entry {
	char name[LOG_SOURCE_NAME_MAX];
	bool in_use;
	bool sdk;
};

/*
 * Before the first SDK backend exists, SDK messages of WARNING and more severe go
 * to stderr through this backend, so that library refusals are never lost in a
 * program that set up no SDK logging.  (A separate object: a backend ends in a
 * flexible array, so it cannot be a member in the middle of sd_log_state.)
 */
static struct doca_log_backend log_fallback = {
	.family = LOG_FAMILY_SDK,
	.kind = LOG_BACKEND_STDERR,
	.lower = DOCA_LOG_LEVEL_INFO,
	.upper = DOCA_LOG_LEVEL_CRIT,
	.clamp_upper = DOCA_LOG_LEVEL_CRIT,
	.clamp_lower = DOCA_LOG_LEVEL_WARNING,
};

struct sd_log_state sd_log_state = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.backends = SD_LIST_INIT(sd_log_state.backends),
	.global_lower = DOCA_LOG_LEVEL_INFO,
	.global_upper = DOCA_LOG_LEVEL_CRIT,
	.global_sdk = DOCA_LOG_LEVEL_INFO,
	.fallback = &log_fallback,
	/* Consistent with the state above: no app backend, the fallback's WARNING. */
	.family_max = {0, DOCA_LOG_LEVEL_WARNING},
};

/* Registry of sources; ids are indexes (never reused) plus the SDK bit. */
static struct log_source_entry *sources;
static size_t num_sources;
static size_t cap_sources;

static int initialized;

/*
 * Set while this thread emits a line (holding the lock): a flush callback or a
 * FILE* hook that logs again would otherwise deadlock, so nested lines are dropped.
 */
static __thread bool in_emit;

/* Three-letter tags by (level + 9) / 10, i.e. a level between two names takes the more verbose one. */
static const char *const level_tags[] = {"???", "DIS", "CRT", "ERR", "WRN", "INF", "DBG", "TRC"};

bool
sd_log_level_valid(uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE;
}

int
sd_log_level_syslog_priority(uint32_t level)
{
	static const int prio[] = {LOG_DEBUG, LOG_CRIT, LOG_CRIT, LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG, LOG_DEBUG};

	return prio[(level + 9) / 10];
}

/*
 * A backend's lower limit as applied: DOCA_LOG_LEVEL raises (never lowers) that
 * of every SDK backend the program made; the program's own calls
 * (doca_log_backend_set_sdk_level, --sdk-log-level) act below that floor.
 */
static inline uint32_t
effective_lower(const struct doca_log_backend *b)
{
	if (b->family == LOG_FAMILY_SDK && b != sd_log_state.fallback)
		return SD_MAX(b->lower, sd_log_state.env_sdk_floor);
	return b->lower;
}

static bool
backend_accepts(const struct doca_log_backend *b, uint32_t level)
{
	return level >= SD_MAX(b->upper, b->clamp_upper) && level <= SD_MIN(effective_lower(b), b->clamp_lower);
}

/* Most verbose level a backend accepts, 0 when its window is empty. */
static uint32_t
backend_max_level(const struct doca_log_backend *b)
{
	uint32_t up = SD_MAX(b->upper, b->clamp_upper);
	uint32_t lo = SD_MIN(effective_lower(b), b->clamp_lower);

	return up <= lo ? lo : 0;
}

void
sd_log_recompute_locked(void)
{
	uint32_t max[LOG_FAMILY_COUNT] = {0, 0};
	struct sd_list *it;

	for (it = sd_log_state.backends.next; it != &sd_log_state.backends; it = it->next) {
		struct doca_log_backend *b = sd_container_of(it, struct doca_log_backend, node);

		max[b->family] = SD_MAX(max[b->family], backend_max_level(b));
	}
	if (!sd_log_state.have_sdk_backend)
		max[LOG_FAMILY_SDK] = SD_MAX(max[LOG_FAMILY_SDK], backend_max_level(sd_log_state.fallback));
	for (int f = 0; f < LOG_FAMILY_COUNT; f++)
		__atomic_store_n(&sd_log_state.family_max[f], max[f], __ATOMIC_RELAXED);
}

/* DOCA_LOG_LEVEL: a number 10..70 or a level name, case-insensitive. */
static bool
parse_level(const char *s, uint32_t *level)
{
	static const struct {
		const char *name;
		uint32_t level;
	} names[] = {
		{"disable", DOCA_LOG_LEVEL_DISABLE}, {"crit", DOCA_LOG_LEVEL_CRIT},
		{"critical", DOCA_LOG_LEVEL_CRIT},   {"error", DOCA_LOG_LEVEL_ERROR},
		{"warning", DOCA_LOG_LEVEL_WARNING}, {"warn", DOCA_LOG_LEVEL_WARNING},
		{"info", DOCA_LOG_LEVEL_INFO},	     {"debug", DOCA_LOG_LEVEL_DEBUG},
		{"trace", DOCA_LOG_LEVEL_TRACE},
	};
	char *end;
	unsigned long v;

	for (size_t i = 0; i < SD_ARRAY_SIZE(names); i++)
		if (strcasecmp(s, names[i].name) == 0) {
			*level = names[i].level;
			return true;
		}
	if (*s < '0' || *s > '9')
		return false;
	v = strtoul(s, &end, 10);
	if (*end != '\0' || v < DOCA_LOG_LEVEL_DISABLE || v > DOCA_LOG_LEVEL_TRACE)
		return false;
	*level = (uint32_t)v;
	return true;
}

static void
atfork_prepare(void)
{
	pthread_mutex_lock(&sd_log_state.lock);
}

static void
atfork_parent(void)
{
	pthread_mutex_unlock(&sd_log_state.lock);
}

/*
 * The child's only thread is the copy of the one that took the lock in atfork_prepare: it
 * releases it.  Re-initialising a locked mutex is undefined (POSIX), and ThreadSanitizer then
 * sees the lock held for ever and reports every later lock of it (make test-tsan).
 */
static void
atfork_child(void)
{
	pthread_mutex_unlock(&sd_log_state.lock);
}

void
sd_log_ensure_init(void)
{
	char bad[32];
	bool report = false;

	if (sd_likely(__atomic_load_n(&initialized, __ATOMIC_ACQUIRE)))
		return;
	pthread_mutex_lock(&sd_log_state.lock);
	if (!initialized) {
		const char *env = getenv("DOCA_LOG_LEVEL");
		uint32_t level;

		if (env != NULL && parse_level(env, &level)) {
			sd_log_state.global_lower = level;
			sd_log_state.global_sdk = level;
			sd_log_state.env_sdk_floor = level;
			sd_log_state.fallback->lower = level;
		} else if (env != NULL) {
			snprintf(bad, sizeof(bad), "%s", env);
			report = true;
		}
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
		sd_log_recompute_locked();
		__atomic_store_n(&initialized, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sd_log_state.lock);
	/* Outside the lock: this line goes through doca_log() like any other. */
	if (report)
		DOCA_LOG_WARN("DOCA_LOG_LEVEL=\"%s\" is not a log level; expected 10..70 or disable, crit, error, "
			      "warning, info, debug or trace; keeping the default limits",
			      bad);
}

/* ---- sources ---------------------------------------------------------- */

static doca_error_t
register_source(const char *api, const char *source_name, int *source, bool sdk)
{
	size_t idx;

	if (source_name == NULL || source == NULL) {
		DOCA_LOG_ERR("%s: %s is NULL; pass a source name and a pointer to store the source id", api,
			     source_name == NULL ? "source_name" : "source");
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&sd_log_state.lock);
	if (sd_log_state.shut_down) {
		pthread_mutex_unlock(&sd_log_state.lock);
		return DOCA_ERROR_BAD_STATE;
	}
	if (num_sources == cap_sources) {
		size_t cap = cap_sources ? cap_sources * 2 : 64;
		struct log_source_entry *grown = NULL;

		if (cap < LOG_SDK_SOURCE_BIT)
			grown = realloc(sources, cap * sizeof(*grown));
		if (grown == NULL) {
			pthread_mutex_unlock(&sd_log_state.lock);
			DOCA_LOG_ERR("%s: cannot grow the source registry to %zu entries; source \"%s\" not registered",
				     api, cap, source_name);
			return DOCA_ERROR_NO_MEMORY;
		}
		sources = grown;
		cap_sources = cap;
	}
	if (num_sources == 0) {
		snprintf(sources[0].name, LOG_SOURCE_NAME_MAX, "core.log");
		sources[0].in_use = true;
		sources[0].sdk = true;
		num_sources = 1;
	}
	idx = num_sources++;
	snprintf(sources[idx].name, LOG_SOURCE_NAME_MAX, "%s", source_name);
	sources[idx].in_use = true;
	sources[idx].sdk = sdk;
	*source = (int)idx | (sdk ? LOG_SDK_SOURCE_BIT : 0);
	pthread_mutex_unlock(&sd_log_state.lock);
	return DOCA_SUCCESS;
}

doca_error_t
doca_log_register_source(const char *source_name, int *source)
{
	return register_source(__func__, source_name, source, false);
}

doca_error_t
sd_log_register_sdk_source(const char *source_name, int *source)
{
	return register_source(__func__, source_name, source, true);
}

doca_error_t
doca_log_unregister_source(int source)
{
	size_t idx = (size_t)(source & ~LOG_SDK_SOURCE_BIT);
	bool sdk = (source & LOG_SDK_SOURCE_BIT) != 0;
	bool found;

	pthread_mutex_lock(&sd_log_state.lock);
	found = source > 0 && idx > 0 && idx < num_sources && sources[idx].in_use && sources[idx].sdk == sdk;
	if (found)
		sources[idx].in_use = false;
	pthread_mutex_unlock(&sd_log_state.lock);
	if (!found) {
		DOCA_LOG_ERR("doca_log_unregister_source: source %d is not registered; pass an id returned by "
			     "doca_log_register_source() and unregister it once",
			     source);
		return DOCA_ERROR_NOT_FOUND;
	}
	return DOCA_SUCCESS;
}

/* ---- global limits ---------------------------------------------------- */

doca_error_t
sd_log_refuse_level(const char *api, uint32_t level)
{
	DOCA_LOG_ERR("%s: level %u is out of range; use a DOCA_LOG_LEVEL_* value from 10 (DISABLE) to 70 (TRACE)", api,
		     level);
	return DOCA_ERROR_INVALID_VALUE;
}

/* Set a global limit and every non-strict backend of the family that follows it. */
static doca_error_t
set_global(const char *api, uint32_t level, uint32_t *global, enum log_family family, bool lower)
{
	struct sd_list *it;

	if (!sd_log_level_valid(level))
		return sd_log_refuse_level(api, level);
	sd_log_ensure_init();
	pthread_mutex_lock(&sd_log_state.lock);
	*global = level;
	for (it = sd_log_state.backends.next; it != &sd_log_state.backends; it = it->next) {
		struct doca_log_backend *b = sd_container_of(it, struct doca_log_backend, node);

		if (b->family != family)
			continue;
		if (lower && !b->lower_strict)
			b->lower = level;
		else if (!lower && !b->upper_strict)
			b->upper = level;
	}
	if (family == LOG_FAMILY_SDK)
		sd_log_state.fallback->lower = level;
	sd_log_recompute_locked();
	pthread_mutex_unlock(&sd_log_state.lock);
	return DOCA_SUCCESS;
}

doca_error_t
doca_log_level_set_global_lower_limit(uint32_t lower_limit)
{
	return set_global(__func__, lower_limit, &sd_log_state.global_lower, LOG_FAMILY_APP, true);
}

doca_error_t
doca_log_level_set_global_upper_limit(uint32_t upper_limit)
{
	return set_global(__func__, upper_limit, &sd_log_state.global_upper, LOG_FAMILY_APP, false);
}

doca_error_t
doca_log_level_set_global_sdk_limit(uint32_t level)
{
	return set_global(__func__, level, &sd_log_state.global_sdk, LOG_FAMILY_SDK, true);
}

static uint32_t
get_global(const uint32_t *global)
{
	uint32_t v;

	sd_log_ensure_init();
	pthread_mutex_lock(&sd_log_state.lock);
	v = *global;
	pthread_mutex_unlock(&sd_log_state.lock);
	return v;
}

uint32_t
doca_log_level_get_global_lower_limit(void)
{
	return get_global(&sd_log_state.global_lower);
}

uint32_t
doca_log_level_get_global_upper_limit(void)
{
	return get_global(&sd_log_state.global_upper);
}

uint32_t
doca_log_level_get_global_sdk_limit(void)
{
	return get_global(&sd_log_state.global_sdk);
}

/* ---- emission --------------------------------------------------------- */

/*
 * Format "[HH:MM:SS:micro][pid][DOCA][TAG][file:line][func] message\n" into buf
 * (size > 0).  Returns the full length the line needs, like vsnprintf; *doca_off
 * is where "[DOCA]" starts (syslog adds its own time and pid).
 */
static size_t __attribute__((format(printf, 9, 0)))
format_line(char *buf, size_t size, const struct timespec *ts, uint32_t level, const char *fname, int line,
	    const char *func, size_t *doca_off, const char *format, va_list ap)
{
	const char *base = fname ? strrchr(fname, '/') : NULL;
	struct tm tm;
	int head, body;
	size_t used;

	base = base ? base + 1 : (fname ? fname : "?");
	localtime_r(&ts->tv_sec, &tm);
	head = snprintf(buf, size, "[%02d:%02d:%02d:%06ld][%d]", tm.tm_hour, tm.tm_min, tm.tm_sec, ts->tv_nsec / 1000,
			(int)getpid());
	*doca_off = (size_t)head;
	head += snprintf(buf + SD_MIN((size_t)head, size - 1), size - SD_MIN((size_t)head, size - 1),
			 "[DOCA][%s][%s:%d][%s] ", level_tags[(level + 9) / 10], base, line, func ? func : "?");
	used = SD_MIN((size_t)head, size - 1);
	body = vsnprintf(buf + used, size - used, format, ap);
	if (body < 0)
		body = 0;
	used = (size_t)head + (size_t)body;
	/* The newline always ends the line, even a truncated one. */
	if (used + 1 < size) {
		buf[used] = '\n';
		buf[used + 1] = '\0';
	} else if (size >= 2) {
		buf[size - 2] = '\n';
		buf[size - 1] = '\0';
	}
	return used + 1;
}

static void __attribute__((format(printf, 6, 0))) emit(uint32_t level, enum log_family family, const char *fname,
						       int line, const char *func, const char *format, va_list ap)
{
	char stack[LOG_LINE_STACK];
	char *text = stack;
	struct timespec ts;
	size_t need, len, doca_off;
	struct sd_list *it;
	va_list again;

	clock_gettime(CLOCK_REALTIME, &ts);
	va_copy(again, ap);
	need = format_line(stack, sizeof(stack), &ts, level, fname, line, func, &doca_off, format, ap);
	len = SD_MIN(need, sizeof(stack) - 1);
	if (need >= sizeof(stack)) {
		/* A long line: format again in full; on allocation failure keep the truncated one. */
		char *heap = malloc(need + 1);

		if (heap != NULL) {
			len = format_line(heap, need + 1, &ts, level, fname, line, func, &doca_off, format, again);
			text = heap;
		}
	}
	va_end(again);

	pthread_mutex_lock(&sd_log_state.lock);
	in_emit = true;
	for (it = sd_log_state.backends.next; it != &sd_log_state.backends; it = it->next) {
		struct doca_log_backend *b = sd_container_of(it, struct doca_log_backend, node);

		if (b->family == family && backend_accepts(b, level))
			sd_log_backend_write(b, level, text, len, doca_off);
	}
	if (family == LOG_FAMILY_SDK && !sd_log_state.have_sdk_backend && backend_accepts(sd_log_state.fallback, level))
		sd_log_backend_write(sd_log_state.fallback, level, text, len, doca_off);
	in_emit = false;
	pthread_mutex_unlock(&sd_log_state.lock);
	if (text != stack)
		free(text);
}

doca_error_t
doca_log(uint32_t level, int source, const char *fname, int line, const char *func, const char *format, ...)
{
	enum log_family family = (source > 0 && (source & LOG_SDK_SOURCE_BIT)) ? LOG_FAMILY_SDK : LOG_FAMILY_APP;
	va_list ap;

	if (sd_unlikely(!sd_log_level_valid(level)))
		return sd_log_refuse_level(__func__, level);
	/* Hot path: no backend of this family would take the line. */
	if (sd_likely(level > __atomic_load_n(&sd_log_state.family_max[family], __ATOMIC_RELAXED)))
		return DOCA_SUCCESS;
	if (format == NULL) {
		DOCA_LOG_ERR("doca_log: format is NULL (%s:%d); pass a printf format", fname ? fname : "?", line);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (in_emit)
		return DOCA_SUCCESS;
	/* The first line that may be shown reads DOCA_LOG_LEVEL, which may narrow the windows. */
	sd_log_ensure_init();
	if (level > __atomic_load_n(&sd_log_state.family_max[family], __ATOMIC_RELAXED))
		return DOCA_SUCCESS;
	va_start(ap, format);
	emit(level, family, fname, line, func, format, ap);
	va_end(ap);
	return DOCA_SUCCESS;
}

/*
 * DOCA has no way to destroy a backend: free them when the library unloads so
 * leak checkers stay quiet.  Later lines (other libraries' destructors) still
 * reach stderr through the fallback for SDK WARNING and worse; app lines are dropped.
 */
__attribute__((destructor)) static void
log_fini(void)
{
	pthread_mutex_lock(&sd_log_state.lock);
	sd_log_state.shut_down = true;
	while (!sd_list_empty(&sd_log_state.backends)) {
		struct sd_list *it = sd_log_state.backends.next;

		sd_list_del(it);
		sd_log_backend_free(sd_container_of(it, struct doca_log_backend, node));
	}
	sd_log_state.have_sdk_backend = false;
	sd_log_state.standard_created = false;
	free(sources);
	sources = NULL;
	num_sources = 0;
	cap_sources = 0;
	sd_log_recompute_locked();
	pthread_mutex_unlock(&sd_log_state.lock);
}
