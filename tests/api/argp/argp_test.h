/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the doca_argp contract tests: argv builders, callbacks that
 * record what they received (in order) into one event string, a standard set
 * of flags shaped like the DMA/RDMA samples', and a runner that captures the
 * stdout/stderr and exit status of a child (for -h, -v and the usage).
 */
#ifndef ARGP_TEST_H_
#define ARGP_TEST_H_

#include <fcntl.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_argp.h>

#include "sd_test.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* argv with "prog" as argv[0], NULL-terminated. */
#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})

static inline doca_error_t
start_argv(char **argv)
{
	int n = 0;

	while (argv[n] != NULL)
		n++;
	return doca_argp_start(n, argv);
}

#define START(...) start_argv(ARGV(__VA_ARGS__))
#define START0() start_argv((char *[]){"prog", NULL})

/* The program config every callback must receive. */
static int test_cfg;

/* "name=value;" per callback, in call order. */
static char events[8192];

static inline void __attribute__((format(printf, 1, 2))) event(const char *fmt, ...)
{
	size_t n = strlen(events);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(events + n, sizeof(events) - n, fmt, ap);
	va_end(ap);
	n = strlen(events);
	snprintf(events + n, sizeof(events) - n, ";");
}

static inline void
check_cfg(void *cfg)
{
	if (cfg != &test_cfg)
		event("WRONG-CONFIG");
}

#define DEF_STR_CB(tag)                                                                                                \
	static __attribute__((unused)) doca_error_t cb_##tag(void *param, void *cfg)                                   \
	{                                                                                                              \
		check_cfg(cfg);                                                                                        \
		event(#tag "=%s", (char *)param);                                                                      \
		return DOCA_SUCCESS;                                                                                   \
	}
#define DEF_INT_CB(tag)                                                                                                \
	static __attribute__((unused)) doca_error_t cb_##tag(void *param, void *cfg)                                   \
	{                                                                                                              \
		check_cfg(cfg);                                                                                        \
		event(#tag "=%d", *(int *)param);                                                                      \
		return DOCA_SUCCESS;                                                                                   \
	}
#define DEF_BOOL_CB(tag)                                                                                               \
	static __attribute__((unused)) doca_error_t cb_##tag(void *param, void *cfg)                                   \
	{                                                                                                              \
		check_cfg(cfg);                                                                                        \
		event(#tag "=%s", *(bool *)param ? "true" : "false");                                                  \
		return DOCA_SUCCESS;                                                                                   \
	}

DEF_STR_CB(text)
DEF_STR_CB(device)
DEF_STR_CB(tt)
DEF_INT_CB(ns)
DEF_INT_CB(nd)
DEF_BOOL_CB(cm)

static __attribute__((unused)) doca_error_t
cb_validate(void *cfg)
{
	check_cfg(cfg);
	event("validate");
	return DOCA_SUCCESS;
}

/* Create a param with the given names, type and callback (names may be NULL). */
static inline struct doca_argp_param *
mk_param(const char *short_name, const char *long_name, enum doca_argp_type type, doca_argp_param_cb_t cb)
{
	struct doca_argp_param *p = NULL;

	ASSERT_OK(doca_argp_param_create(&p));
	ASSERT_NOT_NULL(p);
	if (short_name != NULL)
		doca_argp_param_set_short_name(p, short_name);
	if (long_name != NULL)
		doca_argp_param_set_long_name(p, long_name);
	doca_argp_param_set_type(p, type);
	doca_argp_param_set_callback(p, cb);
	return p;
}

static inline void
reg_param(const char *short_name, const char *long_name, enum doca_argp_type type, doca_argp_param_cb_t cb)
{
	ASSERT_OK(doca_argp_register_param(mk_param(short_name, long_name, type, cb)));
}

/* init("prog") plus flags shaped like the samples': -t -d -tt STRING, -ns -nd INT, -cm BOOLEAN. */
static inline void
setup_std(void)
{
	ASSERT_OK(doca_argp_init("prog", &test_cfg));
	reg_param("t", "text", DOCA_ARGP_TYPE_STRING, cb_text);
	reg_param("d", "device", DOCA_ARGP_TYPE_STRING, cb_device);
	reg_param("tt", "transport-type", DOCA_ARGP_TYPE_STRING, cb_tt);
	reg_param("ns", "num-src-buf", DOCA_ARGP_TYPE_INT, cb_ns);
	reg_param("nd", "num-dst-buf", DOCA_ARGP_TYPE_INT, cb_nd);
	reg_param("cm", "use-rdma-cm", DOCA_ARGP_TYPE_BOOLEAN, cb_cm);
}

struct capture {
	int exit_code; /* -1 when killed by a signal */
	char out[16384];
	char err[16384];
};

static inline void
read_whole(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/*
 * Run fn in a child with stdout/stderr sent to files.  When fn returns, the
 * child exits with 100 + the doca_error_t it returned, so a returned error and
 * an exit(0) can be told apart.
 */
static inline void
capture_run(doca_error_t (*fn)(void), struct capture *c)
{
	char out_path[512], err_path[512];
	int status;
	pid_t pid;

	snprintf(out_path, sizeof(out_path), "%s/stdout", sd_test_tmpdir());
	snprintf(err_path, sizeof(err_path), "%s/stderr", sd_test_tmpdir());
	fflush(NULL);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(99);
		status = 100 + (int)fn();
		fflush(NULL);
		_exit(status);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	c->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	read_whole(out_path, c->out, sizeof(c->out));
	read_whole(err_path, c->err, sizeof(c->err));
}

/* Write text to <tmpdir>/name and return the path (static buffer per call site is the caller's). */
static inline void
write_tmp(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", sd_test_tmpdir(), name);
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fwrite(text, 1, strlen(text), f), strlen(text));
	ASSERT_EQ(fclose(f), 0);
}

#define ASSERT_CONTAINS(hay, needle)                                                                                   \
	do {                                                                                                           \
		if (strstr((hay), (needle)) == NULL)                                                                   \
			sd_test_fail(__FILE__, __LINE__, "\"%s\" not found in:\n%s", (needle), (hay));                 \
	} while (0)

#define ASSERT_NOT_CONTAINS(hay, needle)                                                                               \
	do {                                                                                                           \
		if (strstr((hay), (needle)) != NULL)                                                                   \
			sd_test_fail(__FILE__, __LINE__, "\"%s\" unexpectedly found in:\n%s", (needle), (hay));        \
	} while (0)

#endif /* ARGP_TEST_H_ */
