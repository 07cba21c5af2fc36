/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDOCA_STRICT=1 (strict.h, docs/diagnostics.md "Strict mode"): the rules,
 * their counters, the call-site names and the report at exit.
 */

#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmap_internal.h"
#include "pe_internal.h"
#include "sd_core.h"
#include "sd_log.h"
#include "strict.h"

SD_LOG_REGISTER(core.strict)

/* Lines per rule; later violations are counted only (the exit line has them all). */
#define LOG_LIMIT 64

bool sd_strict_on;

static const struct {
	const char *name;
	const char *fix;
} rules[SD_STRICT_NUM_RULES] = {
	[SD_STRICT_TASK_FREED_IN_FLIGHT] = {"task-freed-in-flight",
					    "free a task in its completion or error callback, or once its context "
					    "is IDLE"},
	[SD_STRICT_BUF_RELEASED_IN_FLIGHT] = {"buf-released-in-flight",
					      "release a task's bufs after its completion callback ran"},
	[SD_STRICT_MMAP_UNDER_BUFS] = {"mmap-destroyed-under-bufs",
				       "release every buf of the mmap (doca_buf_dec_refcount) first"},
	[SD_STRICT_CROSS_DEVICE] =
		{"buf-cross-device",
		 "add the context's device to the mmap (doca_mmap_add_dev) before doca_mmap_start()"},
	[SD_STRICT_COPY_OVERLAP] = {"copy-overlap",
				    "copy between disjoint ranges: a device copies in no defined order"},
	[SD_STRICT_PROGRESS_REENTRY] = {"progress-reentry", "return from the callback and progress from the main loop"},
	[SD_STRICT_CONCURRENT_PE] = {"pe-concurrent-use",
				     "use a PE from one thread at a time (one PE per thread, or one lock around "
				     "every call on it)"},
};

static atomic_uint_fast64_t counts[SD_STRICT_NUM_RULES];

/* "module(symbol+0xoff)" of a return address (dladdr: the program needs -rdynamic for its own symbols). */
static void
site_name(const void *caller, char *out, size_t n)
{
	const char *ra = caller, *mod;
	Dl_info info;

	/* ra - 1: the call instruction, inside the caller even when the call is its last one. */
	if (ra == NULL || dladdr(ra - 1, &info) == 0 || info.dli_fname == NULL) {
		snprintf(out, n, "%p", caller);
		return;
	}
	mod = strrchr(info.dli_fname, '/');
	mod = mod != NULL ? mod + 1 : info.dli_fname;
	if (info.dli_sname != NULL && info.dli_saddr != NULL)
		snprintf(out, n, "%s(%s+0x%tx)", mod, info.dli_sname, ra - (const char *)info.dli_saddr);
	else
		snprintf(out, n, "%s(+0x%tx)", mod, ra - (const char *)info.dli_fbase);
}

void
sd_strict_report(enum sd_strict_rule rule, const void *caller, const char *fmt, ...)
{
	uint_fast64_t nth = atomic_fetch_add_explicit(&counts[rule], 1, memory_order_relaxed) + 1;
	char what[384], site[256];
	va_list ap;

	if (nth > LOG_LIMIT)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	site_name(caller, site, sizeof(site));
	DOCA_LOG_ERR("[softdoca-strict] %s: %s; %s; called from %s%s", rules[rule].name, what, rules[rule].fix, site,
		     nth == LOG_LIMIT ? " (further ones are counted, not logged)" : "");
}

static void
report_at_exit(void)
{
	char list[512];
	size_t at = 0;
	uint64_t total = 0;

	list[0] = '\0';
	for (int r = 0; r < SD_STRICT_NUM_RULES; r++) {
		uint64_t n = atomic_load_explicit(&counts[r], memory_order_relaxed);

		if (n == 0)
			continue;
		total += n;
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s=%" PRIu64, at != 0 ? ", " : "",
				       rules[r].name, n);
	}
	if (total != 0)
		DOCA_LOG_ERR("[softdoca-strict] %" PRIu64 " violations: %s", total, list);
	else
		DOCA_LOG_INFO("[softdoca-strict] 0 violations");
}

void
sd_strict_enable(void)
{
	sd_strict_on = true;
	if (atexit(report_at_exit) != 0)
		DOCA_LOG_WARN("SOFTDOCA_STRICT: atexit() failed; the violation count is not printed at exit");
}

/* --- tasks ---------------------------------------------------------------------------- */

void
sd_strict_task_freed(struct doca_task *task, bool dropped, const void *caller)
{
	sd_strict_report(SD_STRICT_TASK_FREED_IN_FLIGHT, caller,
			 "%s %s task %p freed while in flight (submitted, its callback not yet run): %s",
			 task->ctx->run_ops.name, task->pool->name, (void *)task,
			 dropped ? "dropped, it never completes" : "refused, it stays in flight");
	if (dropped)
		sd_strict_untrack(task);
}

/* First buf of list whose mmap does not have dev (the rule is the mmap's device list). */
static const struct doca_buf *
foreign_seg(const struct doca_buf *list, const struct doca_dev *dev)
{
	for (; list != NULL; list = list->next)
		if (list->mmap != NULL && list->mmap->kind != SD_MMAP_RDMA_REMOTE && !sd_mmap_has_dev(list->mmap, dev))
			return list;
	return NULL;
}

static bool
overlap(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return alen != 0 && blen != 0 && a < b + blen && b < a + alen;
}

static bool
is_local(const struct doca_buf *b)
{
	return b->mmap != NULL && b->mmap->kind == SD_MMAP_LOCAL;
}

/* A copy of src's data into dst's tail rooms: the first source segment a written range overlaps. */
static const struct doca_buf *
copy_overlap(const struct doca_buf *src, const struct doca_buf *dst, const struct doca_buf **dseg)
{
	uint64_t left = 0;

	for (const struct doca_buf *s = src; s != NULL; s = s->next)
		left += s->data_len;
	for (const struct doca_buf *d = dst; d != NULL && left != 0; d = d->next) {
		const uint8_t *at = d->data + d->data_len;
		size_t room = (size_t)(d->head + d->len - at), take = left < room ? (size_t)left : room;

		for (const struct doca_buf *s = src; s != NULL && is_local(d); s = s->next)
			if (is_local(s) && overlap(s->data, s->data_len, at, take)) {
				*dseg = d;
				return s;
			}
		left -= take;
	}
	return NULL;
}

void
sd_strict_submit_check(struct doca_task *task, const void *caller)
{
	struct doca_ctx *ctx = task->ctx;
	struct sd_task_bufs b = {0};
	const struct doca_buf *bad, *d;

	ctx->run_ops.bufs(task, &b);
	if (ctx->dev != NULL) {
		for (int i = 0; i < 2; i++) {
			bad = foreign_seg(i == 0 ? b.src : b.dst, ctx->dev);
			if (bad != NULL)
				sd_strict_report(SD_STRICT_CROSS_DEVICE, caller,
						 "buf %p of mmap %p (%s of %s %s task %p): the mmap does not include "
						 "the context's device %p",
						 (const void *)bad, (const void *)bad->mmap,
						 i == 0 ? "source" : "destination", ctx->run_ops.name, task->pool->name,
						 (void *)task, (void *)ctx->dev);
		}
	}
	if (b.copy && b.src != NULL && b.dst != NULL && (bad = copy_overlap(b.src, b.dst, &d)) != NULL)
		sd_strict_report(SD_STRICT_COPY_OVERLAP, caller,
				 "%s %s task %p: source buf %p of mmap %p overlaps the range it writes in destination "
				 "buf %p",
				 ctx->run_ops.name, task->pool->name, (void *)task, (const void *)bad,
				 (const void *)bad->mmap, (const void *)d);
}

void
sd_strict_track(struct doca_task *task)
{
	struct sd_task_bufs b = {0};

	task->ctx->run_ops.bufs(task, &b);
	task->strict_bufs[0] = (struct doca_buf *)b.src;
	task->strict_bufs[1] = (struct doca_buf *)b.dst;
	for (int i = 0; i < 2; i++)
		if (task->strict_bufs[i] != NULL)
			task->strict_bufs[i]->strict_uses++;
}

void
sd_strict_untrack(struct doca_task *task)
{
	for (int i = 0; i < 2; i++) {
		if (task->strict_bufs[i] != NULL)
			task->strict_bufs[i]->strict_uses--;
		task->strict_bufs[i] = NULL;
	}
}

/* --- bufs and mmaps --------------------------------------------------------------------- */

void
sd_strict_buf_release(const struct doca_buf *buf, const void *caller)
{
	if (buf->strict_uses != 0)
		sd_strict_report(SD_STRICT_BUF_RELEASED_IN_FLIGHT, caller,
				 "buf %p of mmap %p released (refcount 0) while %u submitted task(s) use it",
				 (const void *)buf, (const void *)buf->mmap, buf->strict_uses);
}

bool
sd_strict_inventory_in_use(const struct doca_buf_inventory *inv, const void *caller)
{
	for (const struct doca_buf *b = inv->free_list; b != NULL; b = b->free_next) {
		if (b->strict_uses == 0)
			continue;
		sd_strict_report(SD_STRICT_BUF_RELEASED_IN_FLIGHT, caller,
				 "doca_buf_inventory_destroy of inventory %p while its buf %p, released, is used by %u "
				 "submitted task(s) (refused in strict mode)",
				 (const void *)inv, (const void *)b, b->strict_uses);
		return true;
	}
	return false;
}

void
sd_strict_mmap_in_use(const struct doca_mmap *mmap, const char *api, const void *caller)
{
	sd_strict_report(SD_STRICT_MMAP_UNDER_BUFS, caller, "%s of mmap %p while %u buf(s) from it are alive (refused)",
			 api, (const void *)mmap, atomic_load(&mmap->num_bufs));
}

/* --- the PE's owner ------------------------------------------------------------------------ */

static unsigned
self_tid(void)
{
	static _Thread_local unsigned tid;

	if (tid == 0)
		tid = (unsigned)gettid();
	return tid;
}

bool
sd_strict_pe_enter(struct doca_pe *pe, const char *api, const void *caller)
{
	unsigned me = self_tid(), cur = 0;

	if (atomic_compare_exchange_strong(&pe->strict_owner, &cur, me)) {
		atomic_store_explicit(&pe->strict_api, api, memory_order_relaxed);
		return true;
	}
	if (cur != me)
		sd_strict_report(SD_STRICT_CONCURRENT_PE, caller,
				 "%s on pe %p while thread %u is inside %s of the same PE", api, (void *)pe, cur,
				 atomic_load_explicit(&pe->strict_api, memory_order_relaxed));
	return false;
}

void
sd_strict_pe_leave(struct doca_pe *pe)
{
	atomic_store(&pe->strict_owner, 0);
}
