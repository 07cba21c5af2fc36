/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail contract without QPs: configuration rules, state, the split
 * (checked as properties over many sizes), round robin, bandwidth weighting,
 * EWMA decay, the drop factor with re-admission, and error classes.
 */
#include <infiniband/verbs.h>
#include <math.h>

#include <doca_verbs_multi_rail.h>

#include "sd_test.h"

#define MS 1000000ull

static struct doca_verbs_multi_rail *
make_mr_drop(uint32_t rails, enum doca_verbs_multi_rail_lb_mode mode, uint64_t align, uint64_t min_chunk,
	     uint64_t min_split, double drop)
{
	struct doca_verbs_multi_rail_cfg *cfg;
	struct doca_verbs_multi_rail *mr;

	ASSERT_OK(doca_verbs_multi_rail_cfg_create(&cfg));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_lb_mode(cfg, mode));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_chunk_alignment(cfg, align));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_min_chunk_size(cfg, min_chunk));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_min_splitable_message_size(cfg, min_split));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_max_bw_drop_factor(cfg, drop));
	ASSERT_OK(doca_verbs_multi_rail_create(rails, &mr));
	ASSERT_OK(doca_verbs_multi_rail_apply_cfg(mr, cfg));
	ASSERT_OK(doca_verbs_multi_rail_cfg_destroy(cfg));
	return mr;
}

/* With the default drop factor 0.5. */
static struct doca_verbs_multi_rail *
make_mr(uint32_t rails, enum doca_verbs_multi_rail_lb_mode mode, uint64_t align, uint64_t min_chunk, uint64_t min_split)
{
	return make_mr_drop(rails, mode, align, min_chunk, min_split, 0.5);
}

/* Feed rail a sample of bytes moved at bw bytes/s. */
static void
feed(struct doca_verbs_multi_rail *mr, uint32_t rail, double bw)
{
	uint64_t bytes = 1000000; /* 1 ms at 1 GB/s: fits the 1 ms update periods below */

	ASSERT_OK(
		doca_verbs_multi_rail_update_qp(mr, rail, bytes, (uint64_t)((double)bytes * 1e9 / bw), IBV_WC_SUCCESS));
}

/* Check one split: covers [0, len) once in order, aligned, >= min (unless whole), usable rails, distinct. */
static uint32_t
check_split(struct doca_verbs_multi_rail *mr, uint64_t len, uint64_t align, uint64_t min_chunk, uint64_t min_split,
	    uint32_t max, uint64_t usable_mask, uint64_t *bytes_per_rail)
{
	struct doca_verbs_multi_rail_chunk c[DOCA_VERBS_MULTI_RAIL_MAX_RAILS];
	uint64_t next = 0, used = 0;
	uint32_t n = 0;

	ASSERT_OK(doca_verbs_multi_rail_get_post_split(mr, len, c, max, &n));
	ASSERT(n >= 1 && n <= max);
	if (len < min_split)
		ASSERT_EQ(n, 1);
	for (uint32_t i = 0; i < n; i++) {
		ASSERT_EQ(c[i].offset, next);
		ASSERT_EQ(c[i].offset % align, 0);
		if (n > 1)
			ASSERT(c[i].length >= min_chunk);
		ASSERT(usable_mask >> c[i].rail & 1);
		ASSERT((used >> c[i].rail & 1) == 0);
		used |= 1ull << c[i].rail;
		next += c[i].length;
		if (bytes_per_rail != NULL)
			bytes_per_rail[c[i].rail] += c[i].length;
	}
	ASSERT_EQ(next, len);
	return n;
}

TEST(cfg_validation)
{
	struct doca_verbs_multi_rail_cfg *cfg;
	struct doca_verbs_multi_rail *mr;
	struct doca_verbs_multi_rail_chunk c[4];
	enum doca_verbs_multi_rail_rail_status st;
	uint32_t n = 77;
	uint8_t rec;

	ASSERT_ERR(doca_verbs_multi_rail_cfg_create(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_create(0, &mr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_create(DOCA_VERBS_MULTI_RAIL_MAX_RAILS + 1, &mr), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_cfg_set_probe_count(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_create(&cfg));
	ASSERT_OK(doca_verbs_multi_rail_create(2, &mr));

	/* Run-time calls before apply: BAD_STATE, outputs untouched. */
	ASSERT_ERR(doca_verbs_multi_rail_get_post_split(mr, 100, c, 4, &n), DOCA_ERROR_BAD_STATE);
	ASSERT_EQ(n, 77);
	ASSERT_ERR(doca_verbs_multi_rail_update(mr, 1), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_verbs_multi_rail_update_qp(mr, 0, 1, 1, IBV_WC_SUCCESS), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_verbs_multi_rail_probe_start(mr), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_verbs_multi_rail_probe_get_status(mr, 0, &st), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_verbs_multi_rail_set_probe_qp(mr, 0, NULL, NULL, NULL, 0, 0, 0), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_verbs_multi_rail_error_is_recoverable(mr, IBV_WC_RETRY_EXC_ERR, &rec)); /* needs no cfg */

	/* Each rule, then fixed. */
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_chunk_alignment(cfg, 96));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_chunk_alignment(cfg, 0));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_chunk_alignment(cfg, 8192));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE); /* min_chunk 4096 < 8192 */
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_chunk_alignment(cfg, 4096));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_bw_decay_factor(cfg, 0));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_bw_decay_factor(cfg, 1.5));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_bw_decay_factor(cfg, NAN));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_bw_decay_factor(cfg, 1.0));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_max_bw_drop_factor(cfg, -0.1));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_max_bw_drop_factor(cfg, 0.5));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_probe_count(cfg, 0));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_probe_count(cfg, 1));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_probe_timeout_s(cfg, 0));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_probe_timeout_s(cfg, 1));
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_lb_mode(cfg, (enum doca_verbs_multi_rail_lb_mode)7));
	ASSERT_ERR(doca_verbs_multi_rail_apply_cfg(mr, cfg), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_cfg_set_lb_mode(cfg, DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN));
	/* Still not applied after all those refusals. */
	ASSERT_ERR(doca_verbs_multi_rail_update(mr, 1), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_verbs_multi_rail_apply_cfg(mr, cfg));
	ASSERT_OK(doca_verbs_multi_rail_cfg_destroy(cfg));

	/* Run-time argument rules. */
	ASSERT_ERR(doca_verbs_multi_rail_get_post_split(mr, 100, c, 0, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_get_post_split(mr, 100, NULL, 4, &n), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_update_qp(mr, 2, 1, 1, IBV_WC_SUCCESS), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_update_qp(mr, 0, 1, 1, -1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_probe_get_status(mr, 2, &st), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_probe_start(mr), DOCA_ERROR_NOT_FOUND);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, 10 * MS));
	ASSERT_ERR(doca_verbs_multi_rail_update(mr, 5 * MS), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_multi_rail_probe_get_status(mr, 1, &st));
	ASSERT_EQ(st, DOCA_VERBS_MULTI_RAIL_RAIL_UP); /* rails start UP */
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
	ASSERT_ERR(doca_verbs_multi_rail_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(split_properties)
{
	static const uint64_t aligns[] = {1, 64, 4096};
	static const enum doca_verbs_multi_rail_lb_mode modes[] = {DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN,
								   DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED};
	uint64_t seed = 12345;

	for (size_t m = 0; m < 2; m++)
		for (size_t a = 0; a < 3; a++)
			for (uint32_t rails = 1; rails <= 5; rails++) {
				uint64_t align = aligns[a], min_chunk = align * 3 + (align == 1 ? 100 : 0);
				uint64_t min_split = min_chunk * 2 + 7;
				struct doca_verbs_multi_rail *mr =
					make_mr(rails, modes[m], align, min_chunk, min_split);
				uint64_t mask = (1ull << rails) - 1;

				/* Unequal bandwidths so BW_WEIGHTED cuts unevenly. */
				for (uint32_t r = 0; r < rails; r++)
					feed(mr, r, 1e9 * (r + 1));
				ASSERT_OK(doca_verbs_multi_rail_update(mr, 1));
				for (int i = 0; i < 3000; i++) {
					uint64_t len;

					seed = seed * 6364136223846793005ull + 1442695040888963407ull;
					len = i < 200 ? (uint64_t)i * 97 : (seed >> 20) % (1u << (i % 24 + 1));
					check_split(mr, len, align, min_chunk, min_split, 1 + i % (rails + 1), mask,
						    NULL);
				}
				ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
			}
}

TEST(split_only_up_rails)
{
	struct doca_verbs_multi_rail *mr = make_mr(4, DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN, 64, 4096, 16384);
	struct doca_verbs_multi_rail_chunk c[4];
	uint32_t n;

	ASSERT_EQ(check_split(mr, 1 << 20, 64, 4096, 16384, 4, 0xf, NULL), 4);
	/* A recoverable failure takes the rail out; a program error does not. */
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 1, 0, 0, IBV_WC_RETRY_EXC_ERR));
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 2, 0, 0, IBV_WC_REM_ACCESS_ERR));
	for (uint64_t len = 0; len < (4u << 20); len += 4097)
		check_split(mr, len, 64, 4096, 16384, 4, 0xd, NULL);
	ASSERT_EQ(check_split(mr, 1 << 20, 64, 4096, 16384, 4, 0xd, NULL), 3);
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 0, 0, 0, IBV_WC_WR_FLUSH_ERR));
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 2, 0, 0, IBV_WC_FATAL_ERR));
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 3, 0, 0, IBV_WC_RESP_TIMEOUT_ERR));
	n = 99;
	ASSERT_ERR(doca_verbs_multi_rail_get_post_split(mr, 1 << 20, c, 4, &n), DOCA_ERROR_NOT_CONNECTED);
	ASSERT_EQ(n, 99);
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
}

TEST(round_robin_distribution)
{
	struct doca_verbs_multi_rail *mr = make_mr(3, DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN, 64, 4096, 16384);
	struct doca_verbs_multi_rail_chunk c[3];
	uint64_t bytes[3] = {0};
	uint32_t count[3] = {0}, n;

	/* Whole messages: strictly in turn, whatever the bandwidths say. */
	feed(mr, 0, 1e9);
	feed(mr, 1, 9e9);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, 1));
	for (uint32_t i = 0; i < 300; i++) {
		ASSERT_OK(doca_verbs_multi_rail_get_post_split(mr, 1000, c, 3, &n));
		ASSERT_EQ(n, 1);
		ASSERT_EQ(c[0].rail, i % 3);
		count[c[0].rail]++;
	}
	ASSERT(count[0] == 100 && count[1] == 100 && count[2] == 100);
	/* Split messages: equal shares, the larger (first) chunk rotating. */
	for (uint32_t i = 0; i < 300; i++)
		ASSERT_EQ(check_split(mr, 3 * 65536 + 64, 64, 4096, 16384, 3, 7, bytes), 3);
	ASSERT(bytes[0] == bytes[1] && bytes[1] == bytes[2]);
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
}

TEST(bw_weighted_shares_and_decay)
{
	/* Drop factor 0.2 so that 1:3 keeps both rails. */
	struct doca_verbs_multi_rail *mr =
		make_mr_drop(2, DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED, 64, 4096, 16384, 0.2);
	struct doca_verbs_multi_rail_chunk c[2];
	uint64_t bytes[2] = {0};
	uint32_t count[2] = {0}, n;
	double bw, share;

	/* Unmeasured rails share equally. */
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 1, &share));
	ASSERT(fabs(share - 0.5) < 1e-9);
	/* First sample taken as is; then EWMA with the default factor 0.25. */
	feed(mr, 0, 1e9);
	feed(mr, 1, 3e9);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, 1 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_bw(mr, 0, &bw));
	ASSERT(fabs(bw - 1e9) < 1e3);
	feed(mr, 0, 2e9);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, 2 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_bw(mr, 0, &bw));
	ASSERT(fabs(bw - 1.25e9) < 1e3);
	/* No samples in a period: the estimate stays. */
	ASSERT_OK(doca_verbs_multi_rail_update(mr, 3 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_bw(mr, 0, &bw));
	ASSERT(fabs(bw - 1.25e9) < 1e3);
	/* Converges to the fed 1:3. */
	for (int i = 0; i < 60; i++) {
		feed(mr, 0, 1e9);
		feed(mr, 1, 3e9);
		ASSERT_OK(doca_verbs_multi_rail_update(mr, (4 + i) * MS));
	}
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 1, &share));
	ASSERT(fabs(share - 0.75) < 1e-3);
	for (int i = 0; i < 1000; i++)
		check_split(mr, 1 << 20, 64, 4096, 16384, 2, 3, bytes);
	ASSERT(fabs((double)bytes[1] / (double)bytes[0] - 3.0) < 0.01);
	/* Whole messages: smooth weighted round robin gives 1 in 4 to rail 0, interleaved. */
	for (int i = 0; i < 400; i++) {
		ASSERT_OK(doca_verbs_multi_rail_get_post_split(mr, 1000, c, 2, &n));
		count[c[0].rail]++;
	}
	ASSERT(count[0] >= 99 && count[0] <= 101);
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
}

TEST(bw_of_a_queued_rail)
{
	/*
	 * Rail 0 keeps 16 chunks of 64 KiB queued at 40 MB/s: each waits 16 chunk times, so a
	 * per-chunk rate would read 2.5 MB/s; rail 1 has one chunk at a time at 10 MB/s.  The
	 * estimate is what each delivered while busy: 40 and 10 MB/s, shares 0.8 / 0.2.
	 */
	struct doca_verbs_multi_rail *mr =
		make_mr_drop(2, DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED, 64, 4096, 16384, 0.1);
	const uint64_t chunk = 65536, t0 = (uint64_t)((double)chunk * 1e9 / 40e6);
	uint64_t now = 1 * MS, t1 = (uint64_t)((double)chunk * 1e9 / 10e6);
	double bw, share;

	ASSERT_OK(doca_verbs_multi_rail_update(mr, now));
	for (int period = 0; period < 40; period++) {
		for (int i = 0; i < 50; i++) /* 50 chunks of rail 0 complete in 50 x t0 */
			ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 0, chunk, 16 * t0, IBV_WC_SUCCESS));
		for (uint64_t i = 0; i < 50 * t0 / t1; i++)
			ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 1, chunk, t1, IBV_WC_SUCCESS));
		ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 50 * t0));
	}
	ASSERT_OK(doca_verbs_multi_rail_get_rail_bw(mr, 0, &bw));
	ASSERT(fabs(bw - 40e6) < 0.01 * 40e6);
	ASSERT_OK(doca_verbs_multi_rail_get_rail_bw(mr, 1, &bw));
	ASSERT(fabs(bw - 10e6) < 0.05 * 10e6);
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 0, &share));
	ASSERT(fabs(share - 0.8) < 0.01);
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
}

TEST(drop_factor_exclusion_and_readmission)
{
	struct doca_verbs_multi_rail *mr = make_mr(3, DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED, 64, 4096, 16384);
	uint64_t bytes[3] = {0};
	uint64_t now = 0;
	double share;

	/* Rail 2 at 0.2 of the best (drop factor 0.5): left out. */
	feed(mr, 0, 4e9);
	feed(mr, 1, 4e9);
	feed(mr, 2, 0.8e9);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 10 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT_EQ(share, 0);
	for (int i = 0; i < 100; i++)
		check_split(mr, 1 << 20, 64, 4096, 16384, 3, 3, NULL);
	/* Before the readmit interval (1000 ms): still out. */
	ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 500 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT_EQ(share, 0);
	/* After it: a small trial share (1/16 of the best's weight). */
	ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 600 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT(share > 0.02 && share < 0.1);
	for (int i = 0; i < 10; i++)
		check_split(mr, 1 << 20, 64, 4096, 16384, 3, 7, bytes);
	ASSERT(bytes[2] > 0);
	/* Measured still slow: out again for another interval. */
	feed(mr, 2, 0.8e9);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 10 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT_EQ(share, 0);
	/* Next trial: it recovered (decay 0.25: one sample at 8 GB/s lifts it to 2.6 GB/s, over 2 GB/s). */
	ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 1000 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT(share > 0);
	feed(mr, 2, 8e9);
	feed(mr, 0, 4e9);
	feed(mr, 1, 4e9);
	ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 10 * MS));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT(share > 0.2 && share < 0.34); /* (0.75 * 0.8 + 0.25 * 8) = 2.6 GB/s of 10.6 */
	/* When the fast rails go DOWN, a left-out rail is all there is: used. */
	feed(mr, 2, 0.1e9);
	for (int i = 0; i < 8; i++) {
		feed(mr, 2, 0.1e9);
		ASSERT_OK(doca_verbs_multi_rail_update(mr, now += 10 * MS));
	}
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT_EQ(share, 0);
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 0, 0, 0, IBV_WC_RETRY_EXC_ERR));
	ASSERT_OK(doca_verbs_multi_rail_update_qp(mr, 1, 0, 0, IBV_WC_RETRY_EXC_ERR));
	ASSERT_OK(doca_verbs_multi_rail_get_rail_share(mr, 2, &share));
	ASSERT(fabs(share - 1.0) < 1e-9);
	check_split(mr, 1 << 20, 64, 4096, 16384, 3, 4, NULL);
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
}

TEST(error_classification)
{
	static const int recoverable[] = {IBV_WC_RETRY_EXC_ERR, IBV_WC_WR_FLUSH_ERR,  IBV_WC_RESP_TIMEOUT_ERR,
					  IBV_WC_BAD_RESP_ERR,	IBV_WC_REM_ABORT_ERR, IBV_WC_FATAL_ERR};
	static const int fatal[] = {IBV_WC_REM_ACCESS_ERR,     IBV_WC_LOC_PROT_ERR, IBV_WC_LOC_LEN_ERR,
				    IBV_WC_REM_INV_REQ_ERR,    IBV_WC_REM_OP_ERR,   IBV_WC_RNR_RETRY_EXC_ERR,
				    IBV_WC_LOC_QP_OP_ERR,      IBV_WC_MW_BIND_ERR,  IBV_WC_LOC_ACCESS_ERR,
				    IBV_WC_REM_INV_RD_REQ_ERR, IBV_WC_GENERAL_ERR,  1000};
	struct doca_verbs_multi_rail *mr;
	uint8_t rec = 7;

	ASSERT_OK(doca_verbs_multi_rail_create(1, &mr));
	for (size_t i = 0; i < sizeof(recoverable) / sizeof(recoverable[0]); i++) {
		ASSERT_OK(doca_verbs_multi_rail_error_is_recoverable(mr, recoverable[i], &rec));
		ASSERT_EQ(rec, 1);
	}
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		ASSERT_OK(doca_verbs_multi_rail_error_is_recoverable(mr, fatal[i], &rec));
		ASSERT_EQ(rec, 0);
	}
	rec = 7;
	ASSERT_ERR(doca_verbs_multi_rail_error_is_recoverable(mr, IBV_WC_SUCCESS, &rec), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_error_is_recoverable(mr, -3, &rec), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_error_is_recoverable(NULL, IBV_WC_FATAL_ERR, &rec), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_multi_rail_error_is_recoverable(mr, IBV_WC_FATAL_ERR, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(rec, 7);
	ASSERT_OK(doca_verbs_multi_rail_destroy(mr));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
