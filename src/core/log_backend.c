/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA log backends: creation of the application and SDK variants (standard
 * streams, FILE*, fd, user buffer, syslog), their per-backend limits, and the
 * writers that put one formatted line out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log_internal.h"

static const int log_source = LOG_SDK_SOURCE_BIT | 0;

/* ---- writers (lock held) ---------------------------------------------- */

static void
write_fd(int fd, const char *line, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a broken sink loses the line; logging never fails the caller */
		line += n;
		len -= (size_t)n;
	}
}

static void
write_stream(FILE *f, const char *line, size_t len)
{
	fwrite(line, 1, len, f);
	fflush(f);
}

void
sd_log_backend_write(struct doca_log_backend *b, uint32_t level, const char *line, size_t len, size_t doca_off)
{
	switch (b->kind) {
	case LOG_BACKEND_FILE:
		write_stream(b->out.file, line, len);
		break;
	case LOG_BACKEND_STDOUT:
		write_stream(stdout, line, len);
		break;
	case LOG_BACKEND_STDERR:
		write_stream(stderr, line, len);
		break;
	case LOG_BACKEND_FD:
		write_fd(b->out.fd, line, len);
		break;
	case LOG_BACKEND_BUF: {
		size_t n = SD_MIN(len, b->out.buf.capacity - 1);

		memcpy(b->out.buf.buf, line, n);
		b->out.buf.buf[n] = '\0';
		b->out.buf.handler(b->out.buf.buf);
		break;
	}
	case LOG_BACKEND_SYSLOG:
		/* syslog stamps time and pid itself; drop ours and the newline. */
		syslog(sd_log_level_syslog_priority(level), "%.*s", (int)(len - doca_off - 1), line + doca_off);
		break;
	}
}

void
sd_log_backend_free(struct doca_log_backend *b)
{
	if (b->kind == LOG_BACKEND_SYSLOG && sd_log_state.syslog_opened) {
		closelog();
		sd_log_state.syslog_opened = false;
	}
	free(b);
}

/* ---- creation --------------------------------------------------------- */

static struct doca_log_backend *
backend_alloc(const char *api, enum log_family family, enum log_backend_kind kind, size_t ident_len)
{
	struct doca_log_backend *b = calloc(1, sizeof(*b) + ident_len);

	if (b == NULL) {
		DOCA_LOG_ERR("%s: cannot allocate a log backend; free memory and retry", api);
		return NULL;
	}
	b->family = family;
	b->kind = kind;
	b->clamp_upper = DOCA_LOG_LEVEL_CRIT;
	b->clamp_lower = DOCA_LOG_LEVEL_TRACE;
	return b;
}

/* Put b in service with the current global limits of its family; lock held. */
static void
backend_add_locked(struct doca_log_backend *b)
{
	if (b->family == LOG_FAMILY_APP) {
		b->lower = sd_log_state.global_lower;
		b->upper = sd_log_state.global_upper;
	} else {
		b->lower = sd_log_state.global_sdk;
		b->upper = DOCA_LOG_LEVEL_CRIT;
		sd_log_state.have_sdk_backend = true;
	}
	sd_list_insert_tail(&sd_log_state.backends, &b->node);
	sd_log_recompute_locked();
}

/* Add b unless the library is unloading; frees b on refusal. */
static doca_error_t
backend_add(const char *api, struct doca_log_backend *b, struct doca_log_backend **backend)
{
	pthread_mutex_lock(&sd_log_state.lock);
	if (sd_log_state.shut_down) {
		pthread_mutex_unlock(&sd_log_state.lock);
		free(b);
		DOCA_LOG_ERR("%s: the library is unloading; create backends before exit()", api);
		return DOCA_ERROR_BAD_STATE;
	}
	if (b->kind == LOG_BACKEND_SYSLOG) {
		/* One identity per process: the last syslog backend's name wins. */
		openlog(b->ident, LOG_PID, LOG_USER);
		sd_log_state.syslog_opened = true;
	}
	backend_add_locked(b);
	pthread_mutex_unlock(&sd_log_state.lock);
	if (backend != NULL)
		*backend = b;
	return DOCA_SUCCESS;
}

doca_error_t
doca_log_backend_create_standard(void)
{
	struct doca_log_backend *out, *err;
	bool created;

	sd_log_ensure_init();
	pthread_mutex_lock(&sd_log_state.lock);
	created = sd_log_state.standard_created;
	pthread_mutex_unlock(&sd_log_state.lock);
	if (created)
		return DOCA_SUCCESS; /* idempotent: a second pair would print every line twice */

	out = backend_alloc(__func__, LOG_FAMILY_APP, LOG_BACKEND_STDOUT, 0);
	if (out == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = backend_alloc(__func__, LOG_FAMILY_APP, LOG_BACKEND_STDERR, 0);
	if (err == NULL) {
		free(out);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* stdout: INFO and more verbose; stderr: WARNING and more severe. */
	out->clamp_upper = DOCA_LOG_LEVEL_INFO;
	err->clamp_lower = DOCA_LOG_LEVEL_WARNING;

	pthread_mutex_lock(&sd_log_state.lock);
	if (sd_log_state.shut_down || sd_log_state.standard_created) {
		bool raced = sd_log_state.standard_created;

		pthread_mutex_unlock(&sd_log_state.lock);
		free(out);
		free(err);
		return raced ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
	}
	backend_add_locked(out);
	backend_add_locked(err);
	sd_log_state.standard_created = true;
	pthread_mutex_unlock(&sd_log_state.lock);
	return DOCA_SUCCESS;
}

static doca_error_t
create_with_file(const char *api, enum log_family family, FILE *fptr, struct doca_log_backend **backend)
{
	struct doca_log_backend *b;

	if (fptr == NULL || backend == NULL) {
		DOCA_LOG_ERR("%s: %s is NULL; pass an open FILE* and a pointer to receive the backend", api,
			     fptr == NULL ? "fptr" : "backend");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_log_ensure_init();
	b = backend_alloc(api, family, LOG_BACKEND_FILE, 0);
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	b->out.file = fptr;
	return backend_add(api, b, backend);
}

static doca_error_t
create_with_fd(const char *api, enum log_family family, int fd, struct doca_log_backend **backend)
{
	struct doca_log_backend *b;

	if (fd < 0 || backend == NULL) {
		DOCA_LOG_ERR("%s: %s; pass an open file descriptor and a pointer to receive the backend", api,
			     fd < 0 ? "fd is negative" : "backend is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_log_ensure_init();
	b = backend_alloc(api, family, LOG_BACKEND_FD, 0);
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	b->out.fd = fd;
	return backend_add(api, b, backend);
}

static doca_error_t
create_with_buf(const char *api, enum log_family family, char *buf, size_t capacity, log_flush_callback handler,
		struct doca_log_backend **backend)
{
	struct doca_log_backend *b;

	if (buf == NULL || capacity == 0 || handler == NULL || backend == NULL) {
		DOCA_LOG_ERR("%s: %s; pass a buffer of at least 1 byte, a flush callback and a pointer to receive "
			     "the backend",
			     api,
			     buf == NULL       ? "buf is NULL"
			     : capacity == 0   ? "capacity is 0"
			     : handler == NULL ? "handler is NULL"
					       : "backend is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_log_ensure_init();
	b = backend_alloc(api, family, LOG_BACKEND_BUF, 0);
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	b->out.buf.buf = buf;
	b->out.buf.capacity = capacity;
	b->out.buf.handler = handler;
	return backend_add(api, b, backend);
}

static doca_error_t
create_with_syslog(const char *api, enum log_family family, const char *name, struct doca_log_backend **backend)
{
	struct doca_log_backend *b;
	size_t len;

	if (name == NULL || backend == NULL) {
		DOCA_LOG_ERR("%s: %s is NULL; pass the syslog identity and a pointer to receive the backend", api,
			     name == NULL ? "name" : "backend");
		return DOCA_ERROR_INVALID_VALUE;
	}
	sd_log_ensure_init();
	len = strlen(name) + 1;
	b = backend_alloc(api, family, LOG_BACKEND_SYSLOG, len);
	if (b == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memcpy(b->ident, name, len);
	return backend_add(api, b, backend);
}

doca_error_t
doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	return create_with_file(__func__, LOG_FAMILY_APP, fptr, backend);
}

doca_error_t
doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
	return create_with_fd(__func__, LOG_FAMILY_APP, fd, backend);
}

doca_error_t
doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
				 struct doca_log_backend **backend)
{
	return create_with_buf(__func__, LOG_FAMILY_APP, buf, capacity, handler, backend);
}

doca_error_t
doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend)
{
	return create_with_syslog(__func__, LOG_FAMILY_APP, name, backend);
}

doca_error_t
doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	return create_with_file(__func__, LOG_FAMILY_SDK, fptr, backend);
}

doca_error_t
doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
	return create_with_fd(__func__, LOG_FAMILY_SDK, fd, backend);
}

doca_error_t
doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity, log_flush_callback handler,
				     struct doca_log_backend **backend)
{
	return create_with_buf(__func__, LOG_FAMILY_SDK, buf, capacity, handler, backend);
}

doca_error_t
doca_log_backend_create_with_syslog_sdk(const char *name, struct doca_log_backend **backend)
{
	return create_with_syslog(__func__, LOG_FAMILY_SDK, name, backend);
}

/* ---- per-backend limits ----------------------------------------------- */

enum limit_op {
	LIMIT_LOWER,
	LIMIT_UPPER,
	LIMIT_LOWER_STRICT,
	LIMIT_UPPER_STRICT,
};

static doca_error_t
backend_set(const char *api, struct doca_log_backend *b, enum limit_op op, uint32_t level)
{
	if (b == NULL) {
		DOCA_LOG_ERR("%s: backend is NULL; pass a backend returned by doca_log_backend_create_*()", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((op == LIMIT_LOWER || op == LIMIT_UPPER) && !sd_log_level_valid(level))
		return sd_log_refuse_level(api, level);
	sd_log_ensure_init();
	pthread_mutex_lock(&sd_log_state.lock);
	switch (op) {
	case LIMIT_LOWER:
		b->lower = level;
		break;
	case LIMIT_UPPER:
		b->upper = level;
		break;
	case LIMIT_LOWER_STRICT:
		b->lower_strict = true;
		break;
	case LIMIT_UPPER_STRICT:
		b->upper_strict = true;
		break;
	}
	sd_log_recompute_locked();
	pthread_mutex_unlock(&sd_log_state.lock);
	return DOCA_SUCCESS;
}

doca_error_t
doca_log_backend_set_level_lower_limit(struct doca_log_backend *logger, uint32_t lower_limit)
{
	return backend_set(__func__, logger, LIMIT_LOWER, lower_limit);
}

doca_error_t
doca_log_backend_set_level_upper_limit(struct doca_log_backend *logger, uint32_t upper_limit)
{
	return backend_set(__func__, logger, LIMIT_UPPER, upper_limit);
}

doca_error_t
doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *logger)
{
	return backend_set(__func__, logger, LIMIT_LOWER_STRICT, 0);
}

doca_error_t
doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *logger)
{
	return backend_set(__func__, logger, LIMIT_UPPER_STRICT, 0);
}

doca_error_t
doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	if (backend != NULL && backend->family != LOG_FAMILY_SDK) {
		DOCA_LOG_ERR("doca_log_backend_set_sdk_level: backend %p receives application lines; use "
			     "doca_log_backend_set_level_lower_limit() or create it with a *_sdk function",
			     (void *)backend);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* An SDK backend's lower limit is its SDK level. */
	return backend_set(__func__, backend, LIMIT_LOWER, level);
}
