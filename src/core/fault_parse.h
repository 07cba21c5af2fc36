/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SOFTDOCA_FAULTS grammar (docs/diagnostics.md) parsed into a plan: pure
 * code over a byte string, no DOCA object, no allocation, so the fuzz target
 * (tests/fuzz/diag) links this file alone.
 */
#ifndef SD_FAULT_PARSE_H_
#define SD_FAULT_PARSE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define SD_FAULT_MAX_RULES 32
#define SD_FAULT_NAME_MAX 32

/* What a rule injects; the table in fault_parse.c gives each its phase and status. */
enum sd_fault_kind {
	SD_FAULT_AGAIN,	 /* submit returns DOCA_ERROR_AGAIN, nothing queued */
	SD_FAULT_ERROR,	 /* the task completes with rule->status (its ctx then stops) */
	SD_FAULT_DELAY,	 /* the completion is reported rule->delay_ns later */
	SD_FAULT_NOMEM,	 /* the library's *_create returns DOCA_ERROR_NO_MEMORY */
	SD_FAULT_DOWN,	 /* dev.<name>: every running ctx on the device fails */
	SD_FAULT_VANISH, /* <lib>.peer: the library's connected contexts fail (peer gone) */
};

/* Where a rule is looked at. */
enum sd_fault_phase {
	SD_FAULT_AT_SUBMIT,
	SD_FAULT_AT_COMPLETE,
	SD_FAULT_AT_CREATE,
	SD_FAULT_AT_PROGRESS, /* down, vanish: checked as progress visits the ctx */
};

struct sd_fault_rule {
	char lib[SD_FAULT_NAME_MAX]; /* "dma", ..., "*", or "dev" */
	char op[SD_FAULT_NAME_MAX];  /* submit, complete, create, peer, *, a task type; the device for dev */
	enum sd_fault_kind kind;
	enum sd_fault_phase phase;
	doca_error_t status; /* ERROR: the completion status */
	uint64_t delay_ns;   /* DELAY */
	double prob;	     /* used when count == 0 */
	uint64_t count;	     /* exactly this many faults (the first matching operations after `after_ops`) */
	uint64_t after_ops;  /* @N: the first N matching operations pass */
	uint64_t after_ns;   /* @<time>: nothing before this long after the plan was loaded */
	const char *text;    /* the rule as written, for log lines (points into the plan's copy) */
	size_t text_len;
};

struct sd_fault_plan {
	uint64_t seed; /* 0 when not given */
	unsigned int num_rules;
	struct sd_fault_rule rules[SD_FAULT_MAX_RULES];
	char text[1024]; /* the spec as given; rule->text points here */
};

/*
 * Parse spec (len bytes, need not be NUL-terminated).  true: plan is filled.
 * false: *reason (static) says what is wrong and *at the byte offset of it;
 * plan is left partly written.
 */
bool sd_fault_parse(const char *spec, size_t len, struct sd_fault_plan *plan, const char **reason, size_t *at);

/* "again", "error", ...: the name the grammar uses for kind. */
const char *sd_fault_kind_name(enum sd_fault_kind kind);

#endif /* SD_FAULT_PARSE_H_ */
