/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the log tests: a buffer backend that records every flushed
 * line, redirection of stdout/stderr into pipes, and the line-format regex.
 */
#ifndef LOG_CAPTURE_H_
#define LOG_CAPTURE_H_

#include <fcntl.h>
#include <regex.h>
#include <unistd.h>

#include <doca_log.h>

#include "sd_test.h"

/* Exported by libdoca_common for the SDK's own files; here it simulates a library source. */
doca_error_t sd_log_register_sdk_source(const char *source_name, int *source);

#define CAP_LINES 64
#define CAP_LINE_MAX 8192

/* One recorder per backend family, filled by its flush callback. */
struct recorder {
	char buf[CAP_LINE_MAX];
	char lines[CAP_LINES][CAP_LINE_MAX];
	int n;
};

static struct recorder app_rec __attribute__((unused)), sdk_rec __attribute__((unused));

static inline void
record(struct recorder *r, const char *line)
{
	if (r->n < CAP_LINES)
		snprintf(r->lines[r->n], CAP_LINE_MAX, "%s", line);
	r->n++;
}

static inline void
app_flush(char *buf)
{
	record(&app_rec, buf);
}

static inline void
sdk_flush(char *buf)
{
	record(&sdk_rec, buf);
}

static inline struct doca_log_backend *
app_buffer_backend(void)
{
	struct doca_log_backend *b = NULL;

	ASSERT_OK(doca_log_backend_create_with_buf(app_rec.buf, sizeof(app_rec.buf), app_flush, &b));
	ASSERT_NOT_NULL(b);
	return b;
}

static inline struct doca_log_backend *
sdk_buffer_backend(void)
{
	struct doca_log_backend *b = NULL;

	ASSERT_OK(doca_log_backend_create_with_buf_sdk(sdk_rec.buf, sizeof(sdk_rec.buf), sdk_flush, &b));
	ASSERT_NOT_NULL(b);
	return b;
}

/* True when the recorder holds a line containing needle. */
static inline bool
recorded(const struct recorder *r, const char *needle)
{
	for (int i = 0; i < r->n && i < CAP_LINES; i++)
		if (strstr(r->lines[i], needle) != NULL)
			return true;
	return false;
}

/* Redirect fd (1 or 2) into a pipe until capture_end(). */
struct capture {
	int fd;
	int saved;
	int rd;
};

static inline void
capture_begin(struct capture *c, int fd)
{
	int p[2];

	fflush(NULL);
	ASSERT_EQ(pipe(p), 0);
	c->fd = fd;
	c->saved = dup(fd);
	c->rd = p[0];
	ASSERT(c->saved >= 0);
	ASSERT(dup2(p[1], fd) == fd);
	close(p[1]);
}

/* Restore fd and return what was written to it (NUL-terminated, static storage per call site). */
static inline void
capture_end(struct capture *c, char *out, size_t size)
{
	size_t used = 0;
	ssize_t n;

	fflush(NULL);
	ASSERT(dup2(c->saved, c->fd) == c->fd);
	close(c->saved);
	while (used + 1 < size && (n = read(c->rd, out + used, size - 1 - used)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(c->rd);
}

/* Count non-overlapping occurrences of needle in hay. */
static inline int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + strlen(needle), needle))
		n++;
	return n;
}

/* The time and pid part of every line; the rest is compared literally. */
#define LINE_HEAD_RE "^\\[[0-2][0-9]:[0-5][0-9]:[0-6][0-9]:[0-9]{6}\\]\\[[0-9]+\\]"

/* Check line against "[time][pid]" + tail where pid must equal getpid(). */
static inline void
assert_line(const char *line, const char *tail)
{
	regex_t re;
	regmatch_t m;
	char pid[32];
	const char *rest;

	ASSERT_EQ(regcomp(&re, LINE_HEAD_RE, REG_EXTENDED), 0);
	if (regexec(&re, line, 1, &m, 0) != 0)
		sd_test_fail(__FILE__, __LINE__, "line does not start with [HH:MM:SS:micro][pid]: \"%s\"", line);
	regfree(&re);
	snprintf(pid, sizeof(pid), "][%d]", (int)getpid());
	rest = line + m.rm_eo - strlen(pid);
	ASSERT(strncmp(rest, pid, strlen(pid)) == 0);
	ASSERT_STR_EQ(line + m.rm_eo, tail);
}

#endif /* LOG_CAPTURE_H_ */
