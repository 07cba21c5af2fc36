/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The error walk: a table of (public function, error it returns, a case that
 * provokes it), one TAP case per row, each in its own process (so a
 * log-once-per-process refusal logs in every row).  A row checks that
 *  - the call returns exactly the expected doca_error_t, and
 *  - exactly one WARNING-or-worse SDK line was logged while the case ran, and
 *    that line follows the explained-error convention (docs/diagnostics.md):
 *
 *        <doca_function>: <the rule broken, with the values>; <the fix>
 *
 *    i.e. the message (the text after the line's [file:line][function] prefix)
 *    names the DOCA function the program called, and after that name holds
 *    "; " followed by the fix (an imperative: "call X before Y", "use a value
 *    <= N", "pass a non-NULL pointer").
 *
 * Rows:
 *   ERR_ROW(doca_x, INVALID_VALUE, { return doca_x(NULL); })
 *   ERR_ROW_N(doca_x, INVALID_VALUE, _range, { ... })  second case of one error
 *   ERR_NULL(doca_x_set_y, 0)                           doca_x_set_y(NULL, 0): INVALID_VALUE
 *   ERR_ANSWER(doca_x_cap_is_supported, NOT_SUPPORTED, { ... })   an answer, not a
 *                   refusal: the status, and no line at WARNING or worse
 *   ERR_NOT_PROVOKED(doca_x, NO_MEMORY, "why a unit test cannot provoke it")
 * A case body may build objects first (the setup must log nothing at WARNING
 * or worse, or call errwalk_mark() after it); it returns the status of the
 * one call under test.
 *
 * A [softdoca-fault] line (an injected fault, SOFTDOCA_FAULTS) is not counted.
 * The including test defines errwalk_setup() and is built with tests/api/dev
 * on its include path (dev_test.h: the SDK log capture).
 *
 * Coverage: every row notes its function; errwalk_check_header(path) fails
 * unless every function the header declares as returning doca_error_t has a
 * row (functions returning a value - getters - have no error to explain).
 */
#ifndef SD_ERRWALK_H_
#define SD_ERRWALK_H_

#include <ctype.h>

#include "dev_test.h"

#define ERRWALK_MAX_FNS 512

/* The including test defines it: what every row needs before its first DOCA call (a topology, say). */
static void errwalk_setup(void);

static const char *errwalk_fns[ERRWALK_MAX_FNS];
static int errwalk_log_fd = -1;
static unsigned int errwalk_num_fns;

/* Note that fn has a row (called by each row's constructor). */
static inline void
errwalk_note(const char *fn)
{
	for (unsigned int i = 0; i < errwalk_num_fns; i++)
		if (strcmp(errwalk_fns[i], fn) == 0)
			return;
	if (errwalk_num_fns < ERRWALK_MAX_FNS)
		errwalk_fns[errwalk_num_fns++] = fn;
}

static inline bool
errwalk_has_row(const char *fn, size_t len)
{
	for (unsigned int i = 0; i < errwalk_num_fns; i++)
		if (strlen(errwalk_fns[i]) == len && memcmp(errwalk_fns[i], fn, len) == 0)
			return true;
	return false;
}

/* The message of a log line: after the sixth ']' ([time][pid][DOCA][TAG][file:line][function]). */
static inline const char *
errwalk_message(const char *line, const char *end)
{
	int brackets = 0;

	while (line < end && brackets < 6)
		if (*line++ == ']')
			brackets++;
	while (line < end && *line == ' ')
		line++;
	return line;
}

/* Does msg .. end name fn and, after it, hold "; " and a fix of a word or more? */
static inline bool
errwalk_explains(const char *msg, const char *end, const char *fn)
{
	size_t n = strlen(fn);
	const char *p;

	for (p = msg; p + n <= end; p++)
		if (memcmp(p, fn, n) == 0 && (p + n == end || !(isalnum((unsigned char)p[n]) || p[n] == '_')))
			break;
	if (p + n > end)
		return false;
	for (p += n; p + 2 < end; p++)
		if (p[0] == ';' && p[1] == ' ' && isalpha((unsigned char)p[2]))
			return true;
	return false;
}

/* The check of one row, once the call returned got; log: everything captured. */
static inline void
errwalk_check(const char *fn, doca_error_t expected, doca_error_t got, const char *log)
{
	const char *line = log, *found = NULL;
	int lines = 0;

	if (got != expected)
		sd_test_fail(__FILE__, __LINE__, "%s returned %s, expected %s; log:\n%s", fn, doca_error_get_name(got),
			     doca_error_get_name(expected), log);
	while (*line != '\0') {
		const char *end = strchr(line, '\n');

		if (end == NULL)
			end = line + strlen(line);
		/* A [softdoca-fault] line records an injected fault (SOFTDOCA_FAULTS), not a refusal. */
		if (end > line &&
		    strstr(errwalk_message(line, end), "[softdoca-fault]") != errwalk_message(line, end)) {
			lines++;
			if (errwalk_explains(errwalk_message(line, end), end, fn))
				found = line;
		}
		line = *end != '\0' ? end + 1 : end;
	}
	if (found == NULL)
		sd_test_fail(__FILE__, __LINE__,
			     "%s (%s): no WARNING/ERR line of the form \"%s: <rule>; <fix>\"; log:\n%s", fn,
			     doca_error_get_name(expected), fn, log);
	if (lines != 1)
		sd_test_fail(__FILE__, __LINE__, "%s (%s): %d lines logged for one refusal (log it once); log:\n%s", fn,
			     doca_error_get_name(expected), lines, log);
}

/* Forget what the case's setup logged (a setup that must log, such as taking every rail down): call it just before
 * the call under test. */
static inline void
errwalk_mark(void)
{
	ASSERT_EQ(ftruncate(errwalk_log_fd, 0), 0);
}

/*
 * Run one row: capture the SDK log at WARNING and worse, provoke, check.  An answer row's status answers a
 * question (a capability softdoca lacks, nothing queued yet) and refuses nothing: it logs no line at all.
 */
static inline void
errwalk_run(const char *fn, doca_error_t expected, doca_error_t (*provoke)(void), bool answer)
{
	int fd;
	doca_error_t got;
	const char *log;

	errwalk_setup();
	fd = errwalk_log_fd = capture_sdk_log_at(DOCA_LOG_LEVEL_WARNING);
	got = provoke();
	log = captured_log(fd);
	if (!answer)
		errwalk_check(fn, expected, got, log);
	else if (got != expected || log[0] != '\0')
		sd_test_fail(__FILE__, __LINE__, "%s returned %s (expected the answer %s), log (should be empty):\n%s",
			     fn, doca_error_get_name(got), doca_error_get_name(expected), log);
}

#define ERRWALK_CASE(fn, err, tag, answer, ...)                                                                        \
	static doca_error_t errwalk_case_##fn##__##err##tag(void);                                                     \
	__attribute__((constructor(200))) static void errwalk_note_##fn##__##err##tag(void)                            \
	{                                                                                                              \
		errwalk_note(#fn);                                                                                     \
	}                                                                                                              \
	TEST(fn##__##err##tag)                                                                                         \
	{                                                                                                              \
		errwalk_run(#fn, DOCA_ERROR_##err, errwalk_case_##fn##__##err##tag, answer);                           \
	}                                                                                                              \
	static doca_error_t errwalk_case_##fn##__##err##tag(void) __VA_ARGS__

#define ERR_ROW_N(fn, err, tag, ...) ERRWALK_CASE(fn, err, tag, false, __VA_ARGS__)
#define ERR_ROW(fn, err, ...) ERRWALK_CASE(fn, err, , false, __VA_ARGS__)
#define ERR_ANSWER(fn, err, ...) ERRWALK_CASE(fn, err, _answer, true, __VA_ARGS__)

/* A function that takes a NULL first argument: the row calls fn(NULL, rest...). */
#define ERR_NULL(fn, ...) ERR_ROW_N(fn, INVALID_VALUE, _null, { return fn(NULL, ##__VA_ARGS__); })

/* An error no unit test can provoke: a TAP skip with the reason, and the function still counts as covered. */
#define ERR_NOT_PROVOKED_N(fn, err, tag, why)                                                                          \
	__attribute__((constructor(200))) static void errwalk_note_##fn##__##err##tag##_np(void)                       \
	{                                                                                                              \
		errwalk_note(#fn);                                                                                     \
	}                                                                                                              \
	TEST(fn##__##err##tag)                                                                                         \
	{                                                                                                              \
		(void)fn;                                                                                              \
		SKIP(#fn " -> DOCA_ERROR_" #err " not provoked: " why);                                                \
	}

#define ERR_NOT_PROVOKED(fn, err, why) ERR_NOT_PROVOKED_N(fn, err, , why)

/* Fail unless every "doca_error_t name(" the header at path declares has a row; returns how many it declares. */
static inline unsigned int
errwalk_check_header(const char *path)
{
	static char text[131072];
	static const char marker[] = "doca_error_t";
	FILE *f = fopen(path, "r");
	size_t len;
	unsigned int declared = 0;

	if (f == NULL)
		sd_test_fail(__FILE__, __LINE__, "cannot open %s", path);
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	for (const char *p = strstr(text, marker); p != NULL; p = strstr(p, marker)) {
		const char *name = p += sizeof(marker) - 1, *q;

		if (!isspace((unsigned char)*name))
			continue;
		while (isspace((unsigned char)*name))
			name++;
		q = name;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (*q != '(' || strncmp(name, "doca_", 5) != 0)
			continue;
		declared++;
		if (!errwalk_has_row(name, (size_t)(q - name)))
			sd_test_fail(__FILE__, __LINE__,
				     "%s declares %.*s, which has no row in the error walk: add one", path,
				     (int)(q - name), name);
	}
	ASSERT(declared > 0);
	return declared;
}

#endif /* SD_ERRWALK_H_ */
