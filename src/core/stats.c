/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SOFTDOCA_STATS=1 (docs/diagnostics.md): per context, tasks by type and
 * status, AGAIN returns, the in-flight high-water mark and submit-to-callback
 * latency percentiles from an HDR-style histogram (16 sub-buckets per power
 * of two: every value within 1/16 of its bucket), printed when the context is
 * destroyed.  PE thread only, like the context.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../util/sd_time.h"
#include "diag.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.stats)

#define SUB_BITS 4
#define SUB (1u << SUB_BITS)
#define NUM_BUCKETS (64 * SUB)

struct sd_diag_stats {
	uint64_t ok[SD_ARRAY_SIZE(((struct doca_ctx *)0)->pools)];
	uint64_t failed[SD_ARRAY_SIZE(((struct doca_ctx *)0)->pools)];
	uint64_t again;
	size_t max_inflight;
	uint64_t samples;
	uint64_t max_ns;
	uint64_t hist[NUM_BUCKETS];
};

/* Values below 16 have a bucket each; above, a power of two is split in 16. */
static unsigned int
bucket_of(uint64_t v)
{
	unsigned int msb;

	if (v < SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	return (msb - SUB_BITS + 1) * SUB + (unsigned int)((v >> (msb - SUB_BITS)) & (SUB - 1));
}

/* The middle of a bucket's range. */
static uint64_t
bucket_value(unsigned int b)
{
	unsigned int msb, shift;

	if (b < SUB)
		return b;
	msb = b / SUB + SUB_BITS - 1;
	shift = msb - SUB_BITS;
	return (((uint64_t)SUB + b % SUB) << shift) + ((1ull << shift) >> 1);
}

uint64_t
sd_stats_percentile(const struct sd_diag_stats *s, double q)
{
	uint64_t want = (uint64_t)((double)s->samples * q), seen = 0;

	if (want >= s->samples)
		want = s->samples - 1;
	for (unsigned int b = 0; b < NUM_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen > want)
			return bucket_value(b) < s->max_ns ? bucket_value(b) : s->max_ns;
	}
	return s->max_ns;
}

void
sd_stats_ctx_start(struct doca_ctx *ctx)
{
	if (ctx->stats == NULL)
		ctx->stats = calloc(1, sizeof(*ctx->stats));
	if (ctx->stats == NULL) {
		DOCA_LOG_WARN("SOFTDOCA_STATS: out of memory for the %s context's statistics; none kept", ctx->lib);
		return;
	}
	ctx->diag |= SD_DIAG_STATS;
}

void
sd_stats_submit(struct doca_task *task)
{
	struct doca_ctx *ctx = task->ctx;

	if (ctx->num_inflight + 1 > ctx->stats->max_inflight)
		ctx->stats->max_inflight = ctx->num_inflight + 1;
}

void
sd_stats_again(struct doca_ctx *ctx)
{
	ctx->stats->again++;
}

void
sd_stats_report(struct doca_task *task, doca_error_t status)
{
	struct sd_diag_stats *s = task->ctx->stats;
	uint64_t ns = sd_now_ns() - task->diag_t0;
	uint32_t p = 0;

	while (p < task->ctx->num_pools && task->ctx->pools[p] != task->pool)
		p++;
	if (p < task->ctx->num_pools) {
		if (status == DOCA_SUCCESS)
			s->ok[p]++;
		else
			s->failed[p]++;
	}
	s->hist[bucket_of(ns)]++;
	s->samples++;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

void
sd_stats_print(struct doca_ctx *ctx)
{
	struct sd_diag_stats *s = ctx->stats;

	for (uint32_t p = 0; p < ctx->num_pools; p++)
		DOCA_LOG_WARN("[softdoca-stats] %s ctx %p: %s tasks: %" PRIu64 " succeeded, %" PRIu64 " failed",
			      ctx->lib, (void *)ctx, ctx->pools[p]->name, s->ok[p], s->failed[p]);
	DOCA_LOG_WARN("[softdoca-stats] %s ctx %p: %" PRIu64 " AGAIN returns, at most %zu tasks in flight", ctx->lib,
		      (void *)ctx, s->again, s->max_inflight);
	if (s->samples != 0)
		DOCA_LOG_WARN("[softdoca-stats] %s ctx %p: latency submit->callback ns: p50 %" PRIu64 " p99 %" PRIu64
			      " p99.9 %" PRIu64 " max %" PRIu64 " (%" PRIu64 " tasks)",
			      ctx->lib, (void *)ctx, sd_stats_percentile(s, 0.5), sd_stats_percentile(s, 0.99),
			      sd_stats_percentile(s, 0.999), s->max_ns, s->samples);
	free(s);
	ctx->stats = NULL;
}
