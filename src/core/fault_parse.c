/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SOFTDOCA_FAULTS parser (grammar in docs/diagnostics.md):
 *
 *   spec   := item (';' item)*            empty items and blanks around tokens are ignored
 *   item   := 'seed=' UINT | lib '.' op '=' action
 *   action := kind (':' arg)* ('@' when)?
 *
 * Foreign input (an environment variable): every byte is checked, numbers are
 * parsed by hand (no locale, no overflow), and a refusal names what is wrong.
 */
#include <stddef.h>
#include <string.h>

#include "fault_parse.h"

/* One row per kind: its name, status and what it accepts. */
struct kind_row {
	const char *name;
	enum sd_fault_kind kind;
	doca_error_t status;
	unsigned int max_args; /* delay: duration [, prob|count]; others: [prob|count] */
};

static const struct kind_row kinds[] = {
	{"again", SD_FAULT_AGAIN, DOCA_ERROR_AGAIN, 1},
	{"error", SD_FAULT_ERROR, DOCA_ERROR_IO_FAILED, 1},
	{"io_failed", SD_FAULT_ERROR, DOCA_ERROR_IO_FAILED, 1},
	{"driver", SD_FAULT_ERROR, DOCA_ERROR_DRIVER, 1},
	{"remote_access", SD_FAULT_ERROR, DOCA_ERROR_NOT_PERMITTED, 1},
	{"delay", SD_FAULT_DELAY, DOCA_SUCCESS, 2},
	{"nomem", SD_FAULT_NOMEM, DOCA_ERROR_NO_MEMORY, 1},
	{"down", SD_FAULT_DOWN, DOCA_ERROR_DRIVER, 0},
	{"vanish", SD_FAULT_VANISH, DOCA_ERROR_CONNECTION_RESET, 0},
};

static const char *const libs[] = {"dma", "rdma",    "verbs",	   "comch",	  "compress", "sha",
				   "ec",  "aes_gcm", "sync_event", "mmap_advise", "*",	      "dev"};

/* A byte range of the spec being parsed. */
struct span {
	const char *p;
	size_t n;
};

struct parser {
	const char *base; /* the plan's copy: offsets for *at */
	const char *reason;
	size_t at;
};

static bool
fail(struct parser *ps, const char *where, const char *reason)
{
	ps->reason = reason;
	ps->at = (size_t)(where - ps->base);
	return false;
}

static struct span
trim(struct span s)
{
	while (s.n > 0 && (s.p[0] == ' ' || s.p[0] == '\t')) {
		s.p++;
		s.n--;
	}
	while (s.n > 0 && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
		s.n--;
	return s;
}

static bool
span_is(struct span s, const char *word)
{
	return strlen(word) == s.n && memcmp(s.p, word, s.n) == 0;
}

/* Split s at the first c: head before it, s after it.  false when c is absent (head = s). */
static bool
split(struct span *s, char c, struct span *head)
{
	const char *hit = s->n != 0 ? memchr(s->p, c, s->n) : NULL;

	if (hit == NULL) {
		*head = *s;
		s->p += s->n;
		s->n = 0;
		return false;
	}
	head->p = s->p;
	head->n = (size_t)(hit - s->p);
	s->n -= head->n + 1;
	s->p = hit + 1;
	return true;
}

/* Leading decimal digits of s into *v; returns how many were read (0: none or overflow). */
static size_t
digits(struct span s, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
		uint64_t d = (uint64_t)(s.p[i] - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return 0;
		*v = *v * 10 + d;
	}
	return i;
}

/* "250ms", "3s", "100us", "5ns": a time in nanoseconds; false when s is not one. */
static bool
duration(struct span s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t scale;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	uint64_t v;
	size_t n = digits(s, &v);
	struct span unit = {s.p + n, s.n - n};

	if (n == 0)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (span_is(unit, units[i].unit)) {
			if (v > UINT64_MAX / units[i].scale)
				return false;
			*ns = v * units[i].scale;
			return true;
		}
	return false;
}

/* "0.25" (a probability in [0, 1]) or "3" (an exact count, at least 1). */
static bool
amount(struct parser *ps, struct span s, struct sd_fault_rule *r)
{
	uint64_t whole, frac;
	size_t n = digits(s, &whole), m;
	double scale = 1.0;

	if (n == 0)
		return fail(ps, s.p, "expected a probability (0.25) or a count (3)");
	if (n == s.n) {
		if (whole == 0)
			return fail(ps, s.p, "a count of 0 injects nothing; remove the rule or give a probability");
		r->count = whole;
		return true;
	}
	if (s.p[n] != '.' || n > 1 || whole > 1)
		return fail(ps, s.p, "a probability is 0.x or 1.0");
	s.p += n + 1;
	s.n -= n + 1;
	m = digits(s, &frac);
	if (m == 0 || m != s.n || m > 9)
		return fail(ps, s.p, "a probability has 1 to 9 digits after the point");
	for (size_t i = 0; i < m; i++)
		scale *= 10.0;
	r->prob = (double)whole + (double)frac / scale;
	if (r->prob > 1.0)
		return fail(ps, s.p, "a probability is at most 1.0");
	return true;
}

static bool
when(struct parser *ps, struct span s, struct sd_fault_rule *r)
{
	uint64_t v;

	if (duration(s, &r->after_ns))
		return true;
	if (digits(s, &v) == s.n && s.n != 0) {
		r->after_ops = v;
		return true;
	}
	return fail(ps, s.p, "after '@' expected a time (3s, 250ms) or an operation count (100)");
}

/* Which phase a kind on this op acts at; false when the pairing makes no sense. */
static bool
phase_of(struct parser *ps, struct sd_fault_rule *r)
{
	static const enum sd_fault_phase by_kind[] = {
		[SD_FAULT_AGAIN] = SD_FAULT_AT_SUBMIT,	 [SD_FAULT_ERROR] = SD_FAULT_AT_COMPLETE,
		[SD_FAULT_DELAY] = SD_FAULT_AT_COMPLETE, [SD_FAULT_NOMEM] = SD_FAULT_AT_CREATE,
		[SD_FAULT_DOWN] = SD_FAULT_AT_PROGRESS,	 [SD_FAULT_VANISH] = SD_FAULT_AT_PROGRESS,
	};
	bool dev = strcmp(r->lib, "dev") == 0;
	const char *op = r->op;

	r->phase = by_kind[r->kind];
	if (dev != (r->kind == SD_FAULT_DOWN))
		return fail(ps, r->text, "'down' is for dev.<device> and dev.<device> takes only 'down'");
	if (dev)
		return true;
	if ((strcmp(op, "submit") == 0 && r->phase != SD_FAULT_AT_SUBMIT) ||
	    (strcmp(op, "complete") == 0 && r->phase != SD_FAULT_AT_COMPLETE))
		return fail(ps, r->text, "submit takes 'again'; complete takes an error kind or 'delay'");
	if ((strcmp(op, "create") == 0) != (r->kind == SD_FAULT_NOMEM))
		return fail(ps, r->text, "create takes only 'nomem', and 'nomem' only create");
	if ((strcmp(op, "peer") == 0) != (r->kind == SD_FAULT_VANISH))
		return fail(ps, r->text, "peer takes only 'vanish', and 'vanish' only peer");
	return true;
}

static bool
target(struct parser *ps, struct span key, struct sd_fault_rule *r)
{
	struct span lib, op = key;
	bool known = false;

	if (!split(&op, '.', &lib))
		return fail(ps, key.p, "expected <library>.<operation>=<kind>, e.g. dma.submit=again:0.2");
	lib = trim(lib);
	op = trim(op);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		known |= span_is(lib, libs[i]);
	if (!known)
		return fail(ps, lib.p,
			    "unknown library; use dma, rdma, verbs, comch, compress, sha, ec, aes_gcm, "
			    "sync_event, mmap_advise, * or dev");
	if (op.n == 0 || op.n >= SD_FAULT_NAME_MAX)
		return fail(ps, op.p, "the operation name is empty or longer than 31 bytes");
	for (size_t i = 0; i < op.n; i++)
		if ((unsigned char)op.p[i] <= ' ' || op.p[i] == '=' || (unsigned char)op.p[i] >= 0x7f)
			return fail(ps, op.p + i, "the operation name has a blank or non-ASCII byte");
	memcpy(r->lib, lib.p, lib.n);
	r->lib[lib.n] = '\0';
	memcpy(r->op, op.p, op.n);
	r->op[op.n] = '\0';
	return true;
}

static bool
action(struct parser *ps, struct span val, struct sd_fault_rule *r)
{
	struct span body, name, arg;
	const struct kind_row *row = NULL;
	unsigned int nargs = 0;
	bool more;

	if (split(&val, '@', &body) && !when(ps, trim(val), r))
		return false;
	more = split(&body, ':', &name);
	name = trim(name);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (span_is(name, kinds[i].name))
			row = &kinds[i];
	if (row == NULL)
		return fail(ps, name.p,
			    "unknown kind; use again, error, io_failed, driver, remote_access, delay, "
			    "nomem, down or vanish");
	r->kind = row->kind;
	r->status = row->status;
	r->prob = 1.0;
	while (more) {
		more = split(&body, ':', &arg);
		arg = trim(arg);
		if (++nargs > row->max_args)
			return fail(ps, arg.p, "too many ':' arguments for this kind");
		if (r->kind == SD_FAULT_DELAY && nargs == 1) {
			if (!duration(arg, &r->delay_ns) || r->delay_ns == 0 || r->delay_ns > 60000000000ull)
				return fail(ps, arg.p, "delay takes a time from 1ns to 60s first, e.g. delay:2ms");
		} else if (!amount(ps, arg, r)) {
			return false;
		}
	}
	if (r->kind == SD_FAULT_DELAY && r->delay_ns == 0)
		return fail(ps, name.p, "delay needs its time, e.g. delay:2ms");
	return true;
}

static bool
item(struct parser *ps, struct span it, struct sd_fault_plan *plan)
{
	struct span key, val = it;
	struct sd_fault_rule *r;
	uint64_t seed;

	if (!split(&val, '=', &key))
		return fail(ps, it.p, "expected seed=N or <library>.<operation>=<kind>");
	key = trim(key);
	val = trim(val);
	if (span_is(key, "seed")) {
		if (val.n == 0 || digits(val, &seed) != val.n)
			return fail(ps, val.p, "seed takes a decimal number");
		plan->seed = seed;
		return true;
	}
	if (plan->num_rules == SD_FAULT_MAX_RULES)
		return fail(ps, it.p, "more than 32 rules");
	r = &plan->rules[plan->num_rules];
	memset(r, 0, sizeof(*r));
	r->text = it.p;
	r->text_len = it.n;
	if (!target(ps, key, r) || !action(ps, val, r) || !phase_of(ps, r))
		return false;
	plan->num_rules++;
	return true;
}

bool
sd_fault_parse(const char *spec, size_t len, struct sd_fault_plan *plan, const char **reason, size_t *at)
{
	struct parser ps = {.base = plan->text};
	struct span rest, it;
	bool more = true;

	memset(plan, 0, offsetof(struct sd_fault_plan, text));
	if (len >= sizeof(plan->text)) {
		*reason = "longer than 1023 bytes";
		*at = sizeof(plan->text) - 1;
		return false;
	}
	memcpy(plan->text, spec, len);
	plan->text[len] = '\0';
	if (memchr(plan->text, '\0', len) != NULL) {
		*reason = "a NUL byte inside the value";
		*at = (size_t)((const char *)memchr(plan->text, '\0', len) - plan->text);
		return false;
	}
	rest = (struct span){plan->text, len};
	while (more) {
		more = split(&rest, ';', &it);
		it = trim(it);
		if (it.n != 0 && !item(&ps, it, plan)) {
			*reason = ps.reason;
			*at = ps.at;
			return false;
		}
	}
	return true;
}

const char *
sd_fault_kind_name(enum sd_fault_kind kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].kind == kind)
			return kinds[i].name;
	return "?";
}
