/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection (SOFTDOCA_FAULTS, docs/diagnostics.md): the rules of the
 * plan (fault_parse.c) applied where every library's tasks pass through Core -
 * submit (AGAIN, nothing queued), completion (an error status, which stops the
 * ctx as a hardware error does; a delay), progress (a device going down: the
 * ctx fails and flushes; a peer vanishing: the backend's path for a peer
 * process that died, or a failed ctx) - and in the libraries' *_create
 * (NO_MEMORY).  Whether the k-th operation a rule matches is hit depends only
 * on the seed, the rule's position and k, so a run is replayed exactly by
 * giving the same value again; every hit logs one "[softdoca-fault]" line.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

#include "../util/sd_time.h"
#include "dev_internal.h"
#include "diag.h"
#include "pe_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.fault)

/* Matching operations each rule has seen (all PEs of the process). */
static _Atomic uint64_t seen[SD_FAULT_MAX_RULES];
/* down / vanish rules whose moment has come: stays true for the process. */
static _Atomic bool latched[SD_FAULT_MAX_RULES];

/* Core's context names (ops->name, or the accel's "what") to the rules' library names. */
static const struct {
	const char *ctx_name;
	const char *lib;
} lib_names[] = {
	{"compress", "compress"},
	{"SHA", "sha"},
	{"erasure coding", "ec"},
	{"AES-GCM", "aes_gcm"},
};

const char *
sd_fault_lib_of(const char *ctx_name)
{
	if (strncmp(ctx_name, "comch", 5) == 0)
		return "comch";
	for (size_t i = 0; i < SD_ARRAY_SIZE(lib_names); i++)
		if (strcmp(ctx_name, lib_names[i].ctx_name) == 0)
			return lib_names[i].lib;
	return ctx_name; /* "dma", "rdma", "sync_event", "mmap_advise" */
}

/* Task type names compare with case folded and ' ' or '-' read as '_'. */
static char
fold(char c)
{
	if (c == ' ' || c == '-')
		return '_';
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
folded_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fold(a[i]) != fold(b[i]))
			return false;
	return true;
}

/* op names the task type: its whole name ("memcpy") or its last words ("hash" for "SHA hash"). */
static bool
op_names_task(const char *op, const char *task_name)
{
	size_t n = strlen(op), m = strlen(task_name);

	if (strcmp(op, "*") == 0 || strcmp(op, "submit") == 0 || strcmp(op, "complete") == 0)
		return true;
	if (n > m)
		return false;
	if (n == m)
		return folded_eq(op, task_name, n);
	return fold(task_name[m - n - 1]) == '_' && folded_eq(op, task_name + m - n, n);
}

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * One more operation matched rule i: is it hit?  *k receives its number (from
 * 1).  Operations before the rule's @<time> are not counted.
 */
static bool
decide(const struct sd_diag_config *c, unsigned int i, uint64_t *k)
{
	const struct sd_fault_rule *r = &c->plan.rules[i];
	uint64_t n;

	if (r->after_ns != 0 && sd_now_ns() - c->t0_ns < r->after_ns)
		return false;
	n = atomic_fetch_add_explicit(&seen[i], 1, memory_order_relaxed);
	*k = n + 1;
	if (n < r->after_ops)
		return false;
	n -= r->after_ops;
	if (r->count != 0)
		return n < r->count;
	if (r->prob >= 1.0)
		return true;
	return (double)(mix(c->plan.seed ^ mix(i + 1) ^ n) >> 11) * 0x1.0p-53 < r->prob;
}

static void
log_hit(const struct sd_diag_config *c, unsigned int i, uint64_t k, const char *who, const char *what)
{
	const struct sd_fault_rule *r = &c->plan.rules[i];

	DOCA_LOG_WARN("[softdoca-fault] seed=%" PRIu64 " rule %u '%.*s' hit %" PRIu64 ": %s: %s", c->plan.seed, i + 1,
		      (int)r->text_len, r->text, k, who, what);
}

/* "dma ctx 0x...": how a context is named in the log lines. */
static const char *
ctx_who(const struct doca_ctx *ctx, char *buf, size_t len)
{
	snprintf(buf, len, "%s ctx %p", ctx->lib, (const void *)ctx);
	return buf;
}

static const char *
devinfo_name(const struct doca_devinfo *devinfo)
{
	return devinfo != NULL ? devinfo->ibdev_name : "";
}

static const char *
dev_name(const struct doca_ctx *ctx)
{
	return ctx->dev != NULL ? devinfo_name(ctx->dev->devinfo) : "";
}

static bool
dev_matches(const struct sd_fault_rule *r, const struct doca_devinfo *devinfo)
{
	return devinfo != NULL && (strcmp(r->op, devinfo->ibdev_name) == 0 || strcmp(r->op, devinfo->pci_addr) == 0 ||
				   strcmp(r->op, "*") == 0);
}

/* The rules (a bit each) that act on lib's operations on devinfo, past their create. */
static uint32_t
watch(const struct sd_diag_config *c, const char *lib, const struct doca_devinfo *devinfo)
{
	uint32_t rules = 0;

	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];
		bool hit = strcmp(r->lib, "dev") == 0 ? dev_matches(r, devinfo)
						      : strcmp(r->lib, "*") == 0 || strcmp(r->lib, lib) == 0;

		if (hit && r->phase != SD_FAULT_AT_CREATE)
			rules |= 1u << i;
	}
	return rules;
}

void
sd_fault_ctx_start(struct doca_ctx *ctx)
{
	ctx->diag_rules = watch(sd_diag_config(), ctx->lib, ctx->dev != NULL ? ctx->dev->devinfo : NULL);
	if (ctx->diag_rules != 0)
		ctx->diag |= SD_DIAG_FAULT;
}

doca_error_t
sd_fault_ctx_check(struct doca_ctx *ctx)
{
	const struct sd_diag_config *c = sd_diag_config();

	for (unsigned int i = 0; i < c->plan.num_rules; i++)
		if ((ctx->diag_rules & (1u << i)) != 0 && c->plan.rules[i].kind == SD_FAULT_DOWN &&
		    atomic_load(&latched[i])) {
			DOCA_LOG_ERR("doca_ctx_start: [softdoca-fault] device %s is down (rule '%.*s'); a device "
				     "that went down stays down for the process",
				     dev_name(ctx), (int)c->plan.rules[i].text_len, c->plan.rules[i].text);
			return DOCA_ERROR_DRIVER;
		}
	return DOCA_SUCCESS;
}

bool
sd_fault_submit(struct doca_task *task)
{
	const struct sd_diag_config *c = sd_diag_config();
	struct doca_ctx *ctx = task->ctx;
	char what[96], who[48];
	uint64_t k;

	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];

		if ((ctx->diag_rules & (1u << i)) == 0)
			continue;
		/* down@N and vanish@N count the submissions of the contexts they watch. */
		if (r->phase == SD_FAULT_AT_PROGRESS) {
			atomic_fetch_add_explicit(&seen[i], 1, memory_order_relaxed);
			continue;
		}
		if (r->phase != SD_FAULT_AT_SUBMIT || !op_names_task(r->op, task->pool->name) || !decide(c, i, &k))
			continue;
		snprintf(what, sizeof(what), "%s task %p submit returns DOCA_ERROR_AGAIN (nothing queued)",
			 task->pool->name, (void *)task);
		log_hit(c, i, k, ctx_who(ctx, who, sizeof(who)), what);
		return true;
	}
	return false;
}

/* Postpone task's completion until due (or until the delayed tasks ahead of it are released). */
static void
postpone(struct doca_ctx *ctx, struct doca_task *task, doca_error_t status, uint64_t delay_ns)
{
	uint64_t due = sd_now_ns() + delay_ns;

	/* Completions leave in the order they came: a task never overtakes a delayed one. */
	if (!sd_list_empty(&ctx->delayed)) {
		uint64_t last = sd_container_of(ctx->delayed.prev, struct doca_task, link)->diag_due;

		due = last > due ? last : due;
	}
	sd_list_del(&task->link);
	task->status = status;
	task->diag_due = due;
	sd_list_insert_tail(&ctx->delayed, &task->link);
}

bool
sd_fault_complete(struct doca_task *task, doca_error_t *status)
{
	const struct sd_diag_config *c = sd_diag_config();
	struct doca_ctx *ctx = task->ctx;
	uint64_t delay_ns = 0, k;
	char what[128], who[48];

	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];

		if ((ctx->diag_rules & (1u << i)) == 0 || r->phase != SD_FAULT_AT_COMPLETE ||
		    !op_names_task(r->op, task->pool->name))
			continue;
		if (r->kind == SD_FAULT_ERROR && *status != DOCA_SUCCESS)
			continue; /* already failed (flushed): not an operation the rule can hit */
		if (!decide(c, i, &k))
			continue;
		if (r->kind == SD_FAULT_ERROR) {
			*status = r->status;
			snprintf(what, sizeof(what), "%s task %p completes with %s", task->pool->name, (void *)task,
				 doca_error_get_name(r->status));
		} else {
			delay_ns = r->delay_ns > delay_ns ? r->delay_ns : delay_ns;
			snprintf(what, sizeof(what), "%s task %p completion delayed %.3f ms", task->pool->name,
				 (void *)task, (double)r->delay_ns / 1e6);
		}
		log_hit(c, i, k, ctx_who(ctx, who, sizeof(who)), what);
	}
	if (delay_ns == 0 && sd_list_empty(&ctx->delayed))
		return false;
	postpone(ctx, task, *status, delay_ns);
	return true;
}

/* A down or vanish rule of lib's object who on dev: has its moment come?  Latches (and logs) once per process. */
static bool
moment_came(const struct sd_diag_config *c, unsigned int i, const char *dev, const char *lib, const char *who)
{
	const struct sd_fault_rule *r = &c->plan.rules[i];
	char what[128];
	bool no = false;

	if (atomic_load_explicit(&latched[i], memory_order_relaxed))
		return true;
	if ((r->after_ns != 0 && sd_now_ns() - c->t0_ns < r->after_ns) ||
	    atomic_load_explicit(&seen[i], memory_order_relaxed) < r->after_ops)
		return false;
	if (!atomic_compare_exchange_strong(&latched[i], &no, true))
		return true;
	if (r->kind == SD_FAULT_DOWN)
		snprintf(what, sizeof(what), "device %s goes down", dev);
	else
		snprintf(what, sizeof(what), "the peers of every %s object vanish", lib);
	log_hit(c, i, 1, who, what);
	return true;
}

unsigned
sd_fault_progress(struct doca_ctx *ctx)
{
	const struct sd_diag_config *c = sd_diag_config();
	unsigned int events = 0;
	char who[48];

	if (!sd_list_empty(&ctx->delayed)) {
		uint64_t now = sd_now_ns();

		while (!sd_list_empty(&ctx->delayed)) {
			struct doca_task *task = sd_container_of(ctx->delayed.next, struct doca_task, link);

			if (task->diag_due > now)
				break;
			sd_task_complete_now(task, task->status);
			events++;
		}
	}
	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];

		if ((ctx->diag_rules & (1u << i)) == 0 || r->phase != SD_FAULT_AT_PROGRESS ||
		    (ctx->state != DOCA_CTX_STATE_RUNNING && ctx->state != DOCA_CTX_STATE_STARTING) ||
		    !moment_came(c, i, dev_name(ctx), ctx->lib, ctx_who(ctx, who, sizeof(who))))
			continue;
		events++;
		if (r->kind == SD_FAULT_VANISH && ctx->run_ops.vanish != NULL) {
			DOCA_LOG_WARN("[softdoca-fault] seed=%" PRIu64 " rule %u '%.*s': %s: its peers vanish, as "
				      "processes that died",
				      c->plan.seed, i + 1, (int)r->text_len, r->text, who);
			ctx->diag_rules &= ~(1u << i); /* once: its later peers are left alone */
			ctx->run_ops.vanish(ctx);
			continue;
		}
		DOCA_LOG_WARN(
			"[softdoca-fault] seed=%" PRIu64 " rule %u '%.*s': %s fails; its tasks are flushed with %s",
			c->plan.seed, i + 1, (int)r->text_len, r->text, who, doca_error_get_name(SD_TASK_FLUSH_STATUS));
		sd_ctx_fail(ctx);
	}
	return events;
}

bool
sd_fault_create(const char *lib, const char *api)
{
	const struct sd_diag_config *c = sd_diag_config();
	uint64_t k;

	if (!c->faults_on)
		return false;
	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];

		if (r->phase != SD_FAULT_AT_CREATE || (strcmp(r->lib, "*") != 0 && strcmp(r->lib, lib) != 0) ||
		    !decide(c, i, &k))
			continue;
		DOCA_LOG_WARN("[softdoca-fault] seed=%" PRIu64 " rule %u '%.*s' hit %" PRIu64 ": %s returns "
			      "DOCA_ERROR_NO_MEMORY",
			      c->plan.seed, i + 1, (int)r->text_len, r->text, k, api);
		return true;
	}
	return false;
}

/* ---- operations that are not Core tasks (Verbs work requests): ctx_internal.h ---- */

uint32_t
sd_fault_watch(const char *lib, const struct doca_devinfo *devinfo)
{
	const struct sd_diag_config *c = sd_diag_config();

	return c->faults_on ? watch(c, lib, devinfo) : 0;
}

/* op names the rule's operation: a wildcard, or one of its names (case-blind, '-' or ' ' as '_'). */
static bool
op_named(const char *rule_op, const struct sd_fault_op *op)
{
	size_t n = strlen(rule_op);

	if (strcmp(rule_op, "*") == 0 || strcmp(rule_op, "submit") == 0 || strcmp(rule_op, "complete") == 0)
		return true;
	for (unsigned int j = 0; j < SD_ARRAY_SIZE(op->names) && op->names[j] != NULL; j++)
		if (strlen(op->names[j]) == n && folded_eq(rule_op, op->names[j], n))
			return true;
	return false;
}

/* One rule's hit on op: fill *hit and log the line. */
static void
op_hit(const struct sd_diag_config *c, unsigned int i, uint64_t k, const struct sd_fault_op *op,
       struct sd_fault_hit *hit)
{
	const struct sd_fault_rule *r = &c->plan.rules[i];
	char what[192];

	if (r->kind == SD_FAULT_AGAIN) {
		hit->status = DOCA_ERROR_AGAIN;
		snprintf(what, sizeof(what), "%s %s", op->what, op->again);
	} else if (r->kind == SD_FAULT_ERROR) {
		hit->status = r->status;
		snprintf(what, sizeof(what), "%s completes with %s", op->what, op->status_str(r->status));
	} else {
		hit->delay_ns = r->delay_ns > hit->delay_ns ? r->delay_ns : hit->delay_ns;
		snprintf(what, sizeof(what), "%s completion delayed %.3f ms", op->what, (double)r->delay_ns / 1e6);
	}
	log_hit(c, i, k, op->who, what);
}

bool
sd_fault_op(uint32_t rules, const struct sd_fault_op *op, struct sd_fault_hit *hit)
{
	const struct sd_diag_config *c = sd_diag_config();
	bool any = false;
	uint64_t k;

	hit->status = DOCA_SUCCESS;
	hit->delay_ns = 0;
	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];

		if ((rules & (1u << i)) == 0)
			continue;
		/* down@N and vanish@N count the posts of the objects they watch, as a context's submissions */
		if (r->phase == SD_FAULT_AT_PROGRESS && op->phase == SD_FAULT_AT_SUBMIT) {
			atomic_fetch_add_explicit(&seen[i], 1, memory_order_relaxed);
			continue;
		}
		if (r->phase != op->phase || !op_named(r->op, op) ||
		    (r->kind == SD_FAULT_ERROR && (op->failed || hit->status != DOCA_SUCCESS)) || !decide(c, i, &k))
			continue;
		op_hit(c, i, k, op, hit);
		any = true;
		if (r->kind == SD_FAULT_AGAIN)
			break; /* refused: no later rule sees this post */
	}
	return any;
}

doca_error_t
sd_fault_lost(uint32_t rules, const struct doca_devinfo *devinfo, const char *lib, const char *who)
{
	const struct sd_diag_config *c = sd_diag_config();

	for (unsigned int i = 0; i < c->plan.num_rules; i++) {
		const struct sd_fault_rule *r = &c->plan.rules[i];

		if ((rules & (1u << i)) == 0 || r->phase != SD_FAULT_AT_PROGRESS ||
		    !moment_came(c, i, devinfo_name(devinfo), lib, who))
			continue;
		DOCA_LOG_WARN("[softdoca-fault] seed=%" PRIu64 " rule %u '%.*s': %s %s", c->plan.seed, i + 1,
			      (int)r->text_len, r->text, who,
			      r->kind == SD_FAULT_DOWN ? "fails: its device is down" : "fails: its peer vanished");
		return r->status;
	}
	return DOCA_SUCCESS;
}
