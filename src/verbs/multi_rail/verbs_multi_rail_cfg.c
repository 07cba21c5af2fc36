/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-Rail configuration: a plain record of the splitting, load-balancing
 * and probing parameters.  Setters take any value; doca_verbs_multi_rail_apply_cfg
 * validates the whole record (sd_mr_cfg_validate), since rules tie fields
 * together (min_chunk_size >= chunk_alignment) and setters may come in any order.
 */
#include <stdlib.h>

#include "../verbs_internal.h"
#include "verbs_multi_rail.h"

SD_LOG_REGISTER(verbs.multi_rail_cfg);

void
sd_mr_cfg_defaults(struct doca_verbs_multi_rail_cfg *cfg)
{
	cfg->bw_decay_factor = 0.25;
	cfg->max_bw_drop_factor = 0.5;
	cfg->min_chunk_size = 4096;
	cfg->chunk_alignment = 64;
	cfg->min_splitable_message_size = 16384;
	cfg->lb_mode = DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED;
	cfg->probe_count = 3;
	cfg->probe_timeout_s = 1;
	cfg->readmit_interval_ms = 1000;
}

static bool
factor_ok(double f)
{
	return f > 0.0 && f <= 1.0; /* false for NaN too */
}

doca_error_t
sd_mr_cfg_validate(const struct doca_verbs_multi_rail_cfg *cfg)
{
	const char *fn = "doca_verbs_multi_rail_apply_cfg";

	if (!factor_ok(cfg->bw_decay_factor)) {
		DOCA_LOG_ERR("%s: bw_decay_factor must be in (0, 1] (is %g); use a value in that range (1: no "
			     "smoothing, 0.25: the default)",
			     fn, cfg->bw_decay_factor);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!factor_ok(cfg->max_bw_drop_factor)) {
		DOCA_LOG_ERR(
			"%s: max_bw_drop_factor must be in (0, 1] (is %g); use a value in that range (0.5 leaves out "
			"rails below half the fastest)",
			fn, cfg->max_bw_drop_factor);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cfg->chunk_alignment == 0 || (cfg->chunk_alignment & (cfg->chunk_alignment - 1)) != 0) {
		DOCA_LOG_ERR("%s: chunk_alignment must be a power of two (is %lu); use 1 for no alignment", fn,
			     (unsigned long)cfg->chunk_alignment);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cfg->min_chunk_size < cfg->chunk_alignment) {
		DOCA_LOG_ERR("%s: min_chunk_size (%lu) must be at least chunk_alignment (%lu); raise min_chunk_size",
			     fn, (unsigned long)cfg->min_chunk_size, (unsigned long)cfg->chunk_alignment);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cfg->lb_mode != DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN &&
	    cfg->lb_mode != DOCA_VERBS_MULTI_RAIL_LB_MODE_BW_WEIGHTED) {
		DOCA_LOG_ERR("%s: unknown lb_mode %d; use DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN or _BW_WEIGHTED",
			     fn, (int)cfg->lb_mode);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (cfg->probe_count == 0 || cfg->probe_timeout_s == 0 || cfg->readmit_interval_ms == 0) {
		DOCA_LOG_ERR("%s: probe_count (%u), probe_timeout_s (%u) and readmit_interval_ms (%u) must be at "
			     "least 1; set each to 1 or more",
			     fn, cfg->probe_count, cfg->probe_timeout_s, cfg->readmit_interval_ms);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_cfg_create(struct doca_verbs_multi_rail_cfg **cfg)
{
	struct doca_verbs_multi_rail_cfg *c;

	if (cfg == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass the address of a pointer to fill", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		DOCA_LOG_ERR("%s: out of memory; free memory and retry", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	sd_mr_cfg_defaults(c);
	*cfg = c;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_cfg_destroy(struct doca_verbs_multi_rail_cfg *cfg)
{
	if (cfg == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "multi_rail_cfg");
	free(cfg);
	return DOCA_SUCCESS;
}

/* Every setter: refuse a NULL cfg, record the value (validated by apply_cfg). */
#define SD_MR_CFG_SETTER(name, type, field)                                                                            \
	DOCA_EXPERIMENTAL doca_error_t doca_verbs_multi_rail_cfg_set_##name(struct doca_verbs_multi_rail_cfg *cfg,     \
									    type v)                                    \
	{                                                                                                              \
		if (cfg == NULL)                                                                                       \
			return SD_VERBS_NULL_OBJ(__func__, "multi_rail_cfg");                                          \
		cfg->field = v;                                                                                        \
		return DOCA_SUCCESS;                                                                                   \
	}

SD_MR_CFG_SETTER(bw_decay_factor, double, bw_decay_factor)
SD_MR_CFG_SETTER(max_bw_drop_factor, double, max_bw_drop_factor)
SD_MR_CFG_SETTER(min_chunk_size, uint64_t, min_chunk_size)
SD_MR_CFG_SETTER(chunk_alignment, uint64_t, chunk_alignment)
SD_MR_CFG_SETTER(min_splitable_message_size, uint64_t, min_splitable_message_size)
SD_MR_CFG_SETTER(lb_mode, enum doca_verbs_multi_rail_lb_mode, lb_mode)
SD_MR_CFG_SETTER(probe_count, uint32_t, probe_count)
SD_MR_CFG_SETTER(probe_timeout_s, uint32_t, probe_timeout_s)
SD_MR_CFG_SETTER(readmit_interval_ms, uint32_t, readmit_interval_ms)
