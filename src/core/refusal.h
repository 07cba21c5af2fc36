/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Refusal tables and the one log-once rule of the data-path libraries.
 *
 * A library that refuses tasks (DMA, RDMA) keeps one table, indexed by its
 * reasons: each row is the status the task gets and the line that names the
 * rule broken, the values and the fix.  The buffer faults every library
 * shares (buf_check.h) have their rows here, in Core; a library row at a
 * buffer fault's index overrides Core's when the fix is the library's own
 * (which limit to raise).  Adding a reason is one enum value and one row.
 *
 * A row's text is a template, not a printf format: {api} the DOCA call,
 * {task} the task family ("memcpy", "send"), {what} the verdict's buffer,
 * {a} {b} {c} its values in decimal, {ax} {bx} in hex (write "0x{ax}"), and
 * {berr} / {bdescr} the name / description of the doca_error_t in b.
 *
 * The log-once rule (SD_REFUSAL_LOG): a refusal a task's error callback
 * reports (doca_task_submit) is logged at ERR the first time per context and
 * reason in a run (from doca_ctx_start), then at DBG; a refusal returned to
 * the caller (doca_task_try_submit, a task submit keeps) is logged at ERR
 * every time.  Lines go to the including library's log source.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_REFUSAL_H_
#define SD_REFUSAL_H_

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <doca_error.h>

#include "buf_check.h"
#include "ctx_internal.h"

/* One reason: the status a refused task completes with and the line that explains it. */
struct sd_refusal {
	doca_error_t status; /* ignored when status_in_b */
	bool status_in_b;    /* the verdict's b carries the status (a connection's own error) */
	const char *text;    /* template (above); NULL: Core's row for a buffer fault */
};

/* Core's rows for the buffer faults of buf_check.h. */
static inline const struct sd_refusal *
sd_buf_refusal(unsigned int fault)
{
	static const struct sd_refusal rows[SD_BUF_NUM_FAULTS] = {
		[SD_BUF_RELEASED] = {DOCA_ERROR_INVALID_VALUE, false,
				     "{api}: {task} task's {what} buffer was released (refcount 0); give the task a "
				     "buffer you hold"},
		[SD_BUF_LIST_TOO_LONG] = {DOCA_ERROR_INVALID_VALUE, false,
					  "{api}: {task} task's {what} list has {a} segments, more than the {b} "
					  "allowed; chain fewer buffers"},
		[SD_BUF_OUTSIDE_MMAP] = {DOCA_ERROR_INVALID_VALUE, false,
					 "{api}: {task} task's {what} buffer lies outside its mmap's range; take "
					 "buffers inside the mmap"},
		[SD_BUF_NO_LOCAL_WRITE] = {DOCA_ERROR_NOT_PERMITTED, false,
					   "{api}: {task} task's {what} mmap has no write permission (permissions "
					   "0x{ax}); set DOCA_ACCESS_FLAG_LOCAL_READ_WRITE (or PCI_READ_WRITE) with "
					   "doca_mmap_set_permissions() before doca_mmap_start()"},
		[SD_BUF_NO_ROOM] = {DOCA_ERROR_INVALID_VALUE, false,
				    "{api}: {task} task's {what} has room for {b} bytes after data + data_len, {a} "
				    "are needed; use a larger buffer or reset its data_len (doca_buf_reset_data_len)"},
	};

	return fault > SD_BUF_OK && fault < SD_BUF_NUM_FAULTS ? &rows[fault] : NULL;
}

/* The row of reason why: the library's, else Core's for a buffer fault. */
static inline const struct sd_refusal *
sd_refusal_row(const struct sd_refusal *rows, unsigned int why)
{
	if (rows[why].text != NULL || why >= SD_BUF_NUM_FAULTS)
		return &rows[why];
	return sd_buf_refusal(why);
}

/* The status a task refused for v completes with. */
static inline doca_error_t
sd_refusal_status(const struct sd_refusal *rows, const struct sd_buf_verdict *v)
{
	const struct sd_refusal *r;

	if (v->why == SD_BUF_OK)
		return DOCA_SUCCESS;
	r = sd_refusal_row(rows, v->why);
	return r->status_in_b ? (doca_error_t)v->b : r->status;
}

/* One placeholder's value into out (at most cap bytes, NUL-terminated); false if name is unknown. */
static inline bool
sd_refusal_field(char *out, size_t cap, const char *name, size_t n, const char *api, const char *task,
		 const struct sd_buf_verdict *v)
{
#define SD_REFUSAL_IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
	if (SD_REFUSAL_IS("api"))
		snprintf(out, cap, "%s", api);
	else if (SD_REFUSAL_IS("task"))
		snprintf(out, cap, "%s", task);
	else if (SD_REFUSAL_IS("what"))
		snprintf(out, cap, "%s", v->what != NULL ? v->what : "");
	else if (SD_REFUSAL_IS("a") || SD_REFUSAL_IS("b") || SD_REFUSAL_IS("c"))
		snprintf(out, cap, "%" PRIu64, name[0] == 'a' ? v->a : name[0] == 'b' ? v->b : v->c);
	else if (SD_REFUSAL_IS("ax") || SD_REFUSAL_IS("bx"))
		snprintf(out, cap, "%" PRIx64, name[0] == 'a' ? v->a : v->b);
	else if (SD_REFUSAL_IS("berr"))
		snprintf(out, cap, "%s", doca_error_get_name((doca_error_t)v->b));
	else if (SD_REFUSAL_IS("bdescr"))
		snprintf(out, cap, "%s", doca_error_get_descr((doca_error_t)v->b));
	else
		return false;
	return true;
#undef SD_REFUSAL_IS
}

/* The line of the refusal v into out (cap bytes, truncated if need be). */
static inline void
sd_refusal_render(char *out, size_t cap, const struct sd_refusal *row, const char *api, const char *task,
		  const struct sd_buf_verdict *v)
{
	const char *p = row->text;
	size_t len = 0;

	while (*p != '\0' && len + 1 < cap) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;

		if (end != NULL && sd_refusal_field(out + len, cap - len, p + 1, (size_t)(end - p - 1), api, task, v)) {
			len += strlen(out + len);
			p = end + 1;
			continue;
		}
		out[len++] = *p++;
	}
	out[len] = '\0';
}

/* The log-once rule: is this refusal logged at ERR (true) or DBG? */
static inline bool
sd_refusal_at_err(struct doca_ctx *ctx, unsigned int why, bool once)
{
	uint64_t bit = 1ull << (why & 63);

	if (!once)
		return true;
	if (ctx->SD_CORE_PRIVATE(refusals_logged) & bit)
		return false;
	ctx->SD_CORE_PRIVATE(refusals_logged) |= bit;
	return true;
}

/*
 * Log refusal v of a task of family task on ctx, with the row from rows;
 * once: the task's error callback reports it (the log-once rule above).
 */
#define SD_REFUSAL_LOG(ctx, rows, api, task, v, once)                                                                  \
	do {                                                                                                           \
		char sd_line_[640];                                                                                    \
                                                                                                                       \
		sd_refusal_render(sd_line_, sizeof(sd_line_), sd_refusal_row((rows), (v)->why), (api), (task), (v));   \
		if (sd_refusal_at_err((ctx), (v)->why, (once)))                                                        \
			DOCA_LOG_ERR("%s", sd_line_);                                                                  \
		else                                                                                                   \
			DOCA_LOG_DBG("%s", sd_line_);                                                                  \
	} while (0)

#endif /* SD_REFUSAL_H_ */
