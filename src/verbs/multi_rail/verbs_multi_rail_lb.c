/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail load balancing: per-rail bandwidth estimates (EWMA of the samples
 * update_qp feeds), which rails are left out for being slow, the weight of each
 * rail, and the cut of a message into chunks.
 *
 * A message at least min_splitable_message_size long is cut into k chunks on
 * k rails (k <= usable rails, max_chunks, msg_len / min_chunk_size), chunk i
 * ending at the aligned-down cumulative weight share; if a chunk would fall
 * below min_chunk_size, the lightest rail is dropped and the cut retried.  A
 * message that is not cut goes whole on one rail: the next in turn
 * (ROUND_ROBIN) or the one smooth weighted round robin picks (BW_WEIGHTED:
 * over many messages each rail gets its weight's share, interleaved).
 */
#include <stdlib.h>

#include "../verbs_internal.h"
#include "verbs_multi_rail.h"

SD_LOG_REGISTER(verbs.multi_rail_lb);

#define NS_PER_S 1000000000.0

/*
 * Fold the samples since the last update into the estimate; true if there were any.
 *
 * The sample is the rate the rail delivered while it had work: the bytes completed in the
 * period over the time it was busy.  Busy time is the sum of the chunks' post-to-completion
 * durations, capped by the period's wall time (window_ns, 0 = unknown): with one chunk at a
 * time the two are the same and the sample is the per-chunk rate; with many chunks queued on
 * the rail their durations overlap, the sum exceeds the period and the sample is the delivered
 * throughput (bytes / period), not chunk / (queue delay), which would shrink with the queue.
 * A period without a completion adds its time to the next one's (a slow rail completing a
 * chunk every 1.2 periods would otherwise read 1 chunk per period).
 */
static bool
fold_samples(struct sd_mr_rail *r, double factor, uint64_t window_ns)
{
	uint64_t busy_ns;
	double sample;

	r->window_ns = window_ns == 0 ? 0 : r->window_ns + window_ns;
	if (r->sample_bytes == 0 || r->sample_ns == 0) {
		r->sample_bytes = 0;
		r->sample_ns = 0;
		return false;
	}
	busy_ns = r->window_ns != 0 && r->window_ns < r->sample_ns ? r->window_ns : r->sample_ns;
	r->window_ns = 0;
	sample = (double)r->sample_bytes * NS_PER_S / (double)busy_ns;
	r->bw = r->bw == 0 ? sample : (1.0 - factor) * r->bw + factor * sample;
	r->sample_bytes = 0;
	r->sample_ns = 0;
	return true;
}

/*
 * BW_WEIGHTED: leave out a rail below max_bw_drop_factor x best; after
 * readmit_interval_ms give it a trial share; when the trial's samples put it
 * back above the line (or the best rail went away), it is in again.
 */
static void
judge_rail(struct doca_verbs_multi_rail *mr, uint32_t i, bool sampled, double best, uint64_t now_ns)
{
	struct sd_mr_rail *r = &mr->rails[i];
	double line = mr->cfg.max_bw_drop_factor * best;

	if (!r->excluded) {
		if (r->bw < line) {
			r->excluded = true;
			r->excluded_ns = now_ns;
			DOCA_LOG_INFO("multi-rail: rail %u left out: %.3g B/s is below max_bw_drop_factor %.3g x the "
				      "fastest rail's %.3g B/s",
				      i, r->bw, mr->cfg.max_bw_drop_factor, best);
		}
		return;
	}
	if (r->bw >= line && (sampled || !r->trial)) {
		r->excluded = false;
		r->trial = false;
		DOCA_LOG_INFO("multi-rail: rail %u re-admitted at %.3g B/s", i, r->bw);
		return;
	}
	if (r->trial) {
		if (sampled) { /* measured and still slow: wait another interval */
			r->trial = false;
			r->excluded_ns = now_ns;
		}
		return;
	}
	if (now_ns - r->excluded_ns >= (uint64_t)mr->cfg.readmit_interval_ms * 1000000u)
		r->trial = true;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_update(struct doca_verbs_multi_rail *mr, uint64_t now_ns)
{
	bool sampled[DOCA_VERBS_MULTI_RAIL_MAX_RAILS];
	doca_error_t err;
	double best = 0;

	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check(mr, __func__);
	if (err != DOCA_SUCCESS)
		goto unlock;
	if (now_ns < mr->last_now_ns) {
		DOCA_LOG_ERR("%s: now_ns %lu is before the previous call's %lu; pass a monotonic clock", __func__,
			     (unsigned long)now_ns, (unsigned long)mr->last_now_ns);
		err = DOCA_ERROR_INVALID_VALUE;
		goto unlock;
	}
	for (uint32_t i = 0; i < mr->num_rails; i++) {
		sampled[i] = fold_samples(&mr->rails[i], mr->cfg.bw_decay_factor,
					  mr->last_now_ns == 0 ? 0 : now_ns - mr->last_now_ns);
		if (mr->rails[i].up && mr->rails[i].bw > best)
			best = mr->rails[i].bw;
	}
	if (mr->cfg.lb_mode == DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED)
		for (uint32_t i = 0; i < mr->num_rails; i++)
			if (mr->rails[i].up && mr->rails[i].bw > 0)
				judge_rail(mr, i, sampled[i], best, now_ns);
	mr->last_now_ns = now_ns;
unlock:
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}

double
sd_mr_weights(const struct doca_verbs_multi_rail *mr, double *w)
{
	const bool rr = mr->cfg.lb_mode == DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN;
	double best = 0, sum = 0;

	for (uint32_t i = 0; i < mr->num_rails; i++) {
		const struct sd_mr_rail *r = &mr->rails[i];

		if (r->up && (!r->excluded || r->trial) && r->bw > best)
			best = r->bw;
	}
	for (uint32_t i = 0; i < mr->num_rails; i++) {
		const struct sd_mr_rail *r = &mr->rails[i];

		if (!r->up || (!rr && r->excluded && !r->trial))
			w[i] = 0;
		else if (rr)
			w[i] = 1;
		else if (r->bw == 0) /* not measured yet: as good as the best, so it gets measured */
			w[i] = best > 0 ? best : 1;
		else if (r->trial)
			w[i] = r->bw > best * SD_MR_TRIAL_MIN_WEIGHT ? r->bw : best * SD_MR_TRIAL_MIN_WEIGHT;
		else
			w[i] = r->bw;
		sum += w[i];
	}
	if (sum > 0)
		return sum;
	/* Only left-out rails are UP (the fast ones went DOWN): better slow than nothing. */
	for (uint32_t i = 0; i < mr->num_rails; i++) {
		w[i] = !mr->rails[i].up ? 0 : mr->rails[i].bw > 0 ? mr->rails[i].bw : 1;
		sum += w[i];
	}
	return sum;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_get_rail_share(struct doca_verbs_multi_rail *mr, uint32_t rail, double *share)
{
	double w[DOCA_VERBS_MULTI_RAIL_MAX_RAILS], sum;
	doca_error_t err;

	if (share == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass where to store the answer", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check_rail(mr, rail, __func__);
	if (err == DOCA_SUCCESS) {
		sum = sd_mr_weights(mr, w);
		*share = sum > 0 ? w[rail] / sum : 0;
	}
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}

/*
 * The rails a cut may use, best first: ROUND_ROBIN from the cursor on,
 * BW_WEIGHTED by weight (ties by index).  Returns how many.
 */
static uint32_t
candidates(const struct doca_verbs_multi_rail *mr, const double *w, uint32_t *order)
{
	uint32_t n = 0;

	for (uint32_t j = 0; j < mr->num_rails; j++) {
		uint32_t i = (mr->rr_cursor + j) % mr->num_rails;

		if (w[i] > 0)
			order[n++] = i;
	}
	if (mr->cfg.lb_mode == DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED) {
		for (uint32_t a = 1; a < n; a++) { /* insertion sort: at most 64 rails */
			uint32_t x = order[a], b = a;

			while (b > 0 && (w[order[b - 1]] < w[x] || (w[order[b - 1]] == w[x] && order[b - 1] > x))) {
				order[b] = order[b - 1];
				b--;
			}
			order[b] = x;
		}
	}
	return n;
}

/* Cut len bytes over the first k candidates by weight; false if a chunk would be too short. */
static bool
try_cut(const struct doca_verbs_multi_rail_cfg *cfg, uint64_t len, const uint32_t *order, const double *w, uint32_t k,
	struct doca_verbs_multi_rail_chunk *out)
{
	double total = 0, cum = 0;
	uint64_t prev = 0;

	for (uint32_t i = 0; i < k; i++)
		total += w[order[i]];
	for (uint32_t i = 0; i < k; i++) {
		uint64_t end = len;

		cum += w[order[i]];
		if (i < k - 1) {
			double share = (double)len * (cum / total);

			end = share >= (double)len ? len : (uint64_t)share & ~(cfg->chunk_alignment - 1);
		}
		if (end < prev || end - prev < cfg->min_chunk_size)
			return false;
		out[i] = (struct doca_verbs_multi_rail_chunk){.rail = order[i], .offset = prev, .length = end - prev};
		prev = end;
	}
	return true;
}

/* The rail for a message sent whole. */
static uint32_t
pick_one(struct doca_verbs_multi_rail *mr, const double *w, double sum, const uint32_t *order)
{
	uint32_t pick = order[0];

	if (mr->cfg.lb_mode == DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN)
		return pick;
	/* Smooth weighted round robin: credit every rail its weight, take the richest, charge it the sum. */
	for (uint32_t i = 0; i < mr->num_rails; i++)
		if (w[i] > 0)
			mr->rails[i].swrr += w[i];
	for (uint32_t i = 0; i < mr->num_rails; i++)
		if (w[i] > 0 && mr->rails[i].swrr > mr->rails[pick].swrr)
			pick = i;
	mr->rails[pick].swrr -= sum;
	return pick;
}

static doca_error_t
split_locked(struct doca_verbs_multi_rail *mr, uint64_t len, struct doca_verbs_multi_rail_chunk *chunks,
	     uint32_t max_chunks, uint32_t *num_chunks)
{
	struct doca_verbs_multi_rail_chunk cut[DOCA_VERBS_MULTI_RAIL_MAX_RAILS];
	double w[DOCA_VERBS_MULTI_RAIL_MAX_RAILS], sum;
	uint32_t order[DOCA_VERBS_MULTI_RAIL_MAX_RAILS], n, k = 1;

	sum = sd_mr_weights(mr, w);
	n = candidates(mr, w, order);
	if (n == 0) {
		if (!mr->none_up_logged)
			DOCA_LOG_ERR("doca_verbs_multi_rail_get_post_split: no rail is UP (all %u DOWN); recover the "
				     "rails' QPs and run doca_verbs_multi_rail_probe_start()",
				     mr->num_rails);
		mr->none_up_logged = true;
		return DOCA_ERROR_NOT_CONNECTED;
	}
	if (len >= mr->cfg.min_splitable_message_size) {
		uint64_t fit = len / mr->cfg.min_chunk_size;

		k = SD_MIN(n, max_chunks);
		if (fit < k)
			k = (uint32_t)fit;
		while (k >= 2 && !try_cut(&mr->cfg, len, order, w, k, cut))
			k--;
	}
	if (k < 2) {
		k = 1;
		cut[0] = (struct doca_verbs_multi_rail_chunk){.rail = pick_one(mr, w, sum, order), .length = len};
	}
	if (mr->cfg.lb_mode == DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN)
		mr->rr_cursor = (order[0] + 1) % mr->num_rails;
	for (uint32_t i = 0; i < k; i++)
		chunks[i] = cut[i];
	*num_chunks = k;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_get_post_split(struct doca_verbs_multi_rail *mr, uint64_t msg_len,
				     struct doca_verbs_multi_rail_chunk *chunks, uint32_t max_chunks,
				     uint32_t *num_chunks)
{
	doca_error_t err;

	if (chunks == NULL || num_chunks == NULL || max_chunks == 0) {
		DOCA_LOG_ERR("%s: chunks and num_chunks must not be NULL and max_chunks (%u) at least 1; pass an array "
			     "of num_rails chunks",
			     __func__, max_chunks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check(mr, __func__);
	if (err == DOCA_SUCCESS)
		err = split_locked(mr, msg_len, chunks, max_chunks, num_chunks);
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}
