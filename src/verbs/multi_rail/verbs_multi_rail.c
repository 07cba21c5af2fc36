/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Multi-Rail object: create / apply / destroy, rail UP / DOWN changes,
 * completion feedback (update_qp) and which failed completions another rail
 * can recover from.  Splitting and bandwidth live in verbs_multi_rail_lb.c,
 * probes in verbs_multi_rail_probe.c.
 */
#include <infiniband/verbs.h>
#include <stdlib.h>

#include "../verbs_internal.h"
#include "verbs_multi_rail.h"

SD_LOG_REGISTER(verbs.multi_rail);

/*
 * enum ibv_wc_status, and whether a chunk that failed with it may be re-posted
 * on another rail.  Recoverable: the rail (link, port, NIC, the path to the
 * peer) failed, not the request — transport retries exhausted, no or a bad
 * response, the responder aborted, a catastrophic local error, and the flushes
 * of requests queued behind such a failure.  Everything else names a fault of
 * the program (keys, lengths, opcodes) or of the peer (no receive posted: RNR,
 * remote operation errors) that the same request would meet on any rail.
 */
static const struct {
	const char *name;
	bool recoverable;
} wc_status_table[] = {
	[IBV_WC_SUCCESS] = {"IBV_WC_SUCCESS", false},
	[IBV_WC_LOC_LEN_ERR] = {"IBV_WC_LOC_LEN_ERR", false},
	[IBV_WC_LOC_QP_OP_ERR] = {"IBV_WC_LOC_QP_OP_ERR", false},
	[IBV_WC_LOC_EEC_OP_ERR] = {"IBV_WC_LOC_EEC_OP_ERR", false},
	[IBV_WC_LOC_PROT_ERR] = {"IBV_WC_LOC_PROT_ERR", false},
	[IBV_WC_WR_FLUSH_ERR] = {"IBV_WC_WR_FLUSH_ERR", true},
	[IBV_WC_MW_BIND_ERR] = {"IBV_WC_MW_BIND_ERR", false},
	[IBV_WC_BAD_RESP_ERR] = {"IBV_WC_BAD_RESP_ERR", true},
	[IBV_WC_LOC_ACCESS_ERR] = {"IBV_WC_LOC_ACCESS_ERR", false},
	[IBV_WC_REM_INV_REQ_ERR] = {"IBV_WC_REM_INV_REQ_ERR", false},
	[IBV_WC_REM_ACCESS_ERR] = {"IBV_WC_REM_ACCESS_ERR", false},
	[IBV_WC_REM_OP_ERR] = {"IBV_WC_REM_OP_ERR", false},
	[IBV_WC_RETRY_EXC_ERR] = {"IBV_WC_RETRY_EXC_ERR", true},
	[IBV_WC_RNR_RETRY_EXC_ERR] = {"IBV_WC_RNR_RETRY_EXC_ERR", false},
	[IBV_WC_LOC_RDD_VIOL_ERR] = {"IBV_WC_LOC_RDD_VIOL_ERR", false},
	[IBV_WC_REM_INV_RD_REQ_ERR] = {"IBV_WC_REM_INV_RD_REQ_ERR", false},
	[IBV_WC_REM_ABORT_ERR] = {"IBV_WC_REM_ABORT_ERR", true},
	[IBV_WC_INV_EECN_ERR] = {"IBV_WC_INV_EECN_ERR", false},
	[IBV_WC_INV_EEC_STATE_ERR] = {"IBV_WC_INV_EEC_STATE_ERR", false},
	[IBV_WC_FATAL_ERR] = {"IBV_WC_FATAL_ERR", true},
	[IBV_WC_RESP_TIMEOUT_ERR] = {"IBV_WC_RESP_TIMEOUT_ERR", true},
	[IBV_WC_GENERAL_ERR] = {"IBV_WC_GENERAL_ERR", false},
};

#define WC_STATUS_KNOWN(s) ((s) >= 0 && (size_t)(s) < SD_ARRAY_SIZE(wc_status_table))

const char *
sd_mr_wc_status_name(int wc_status)
{
	return WC_STATUS_KNOWN(wc_status) ? wc_status_table[wc_status].name : "unknown ibv_wc_status";
}

static bool
wc_recoverable(int wc_status)
{
	return WC_STATUS_KNOWN(wc_status) && wc_status_table[wc_status].recoverable;
}

doca_error_t
sd_mr_check(const struct doca_verbs_multi_rail *mr, const char *func)
{
	if (mr == NULL)
		return SD_VERBS_NULL_OBJ(func, "multi_rail");
	if (!mr->applied) {
		DOCA_LOG_ERR("%s: no configuration applied; call doca_verbs_multi_rail_apply_cfg() first", func);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_mr_check_rail(const struct doca_verbs_multi_rail *mr, uint32_t rail, const char *func)
{
	doca_error_t err = sd_mr_check(mr, func);

	if (err != DOCA_SUCCESS)
		return err;
	if (rail >= mr->num_rails) {
		DOCA_LOG_ERR("%s: rail %u does not exist (the object has %u rails); use a rail number <= %u", func,
			     rail, mr->num_rails, mr->num_rails - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

void
sd_mr_rail_set_down(struct doca_verbs_multi_rail *mr, uint32_t rail, const char *why)
{
	struct sd_mr_rail *r = &mr->rails[rail];

	/* A probe round in flight predates the failure: its late successes must not revive the rail. */
	r->round_active = false;
	if (!r->up)
		return;
	r->up = false;
	DOCA_LOG_WARN("multi-rail: rail %u DOWN: %s; its traffic moves to the other rails until a probe round "
		      "on it succeeds",
		      rail, why);
}

void
sd_mr_rail_set_up(struct doca_verbs_multi_rail *mr, uint32_t rail)
{
	struct sd_mr_rail *r = &mr->rails[rail];

	if (r->up)
		return;
	/* What was measured before the outage says nothing about the rail now: measure it afresh. */
	r->up = true;
	r->bw = 0;
	r->sample_bytes = 0;
	r->sample_ns = 0;
	r->window_ns = 0;
	r->excluded = false;
	r->trial = false;
	r->swrr = 0;
	mr->none_up_logged = false;
	DOCA_LOG_INFO("multi-rail: rail %u UP: its probes completed; it carries traffic again", rail);
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_create(uint32_t num_rails, struct doca_verbs_multi_rail **mr)
{
	struct doca_verbs_multi_rail *m;

	if (mr == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass the address of a pointer to fill", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (num_rails == 0 || num_rails > DOCA_VERBS_MULTI_RAIL_MAX_RAILS) {
		DOCA_LOG_ERR("%s: num_rails must be 1 .. %u (is %u); one rail per NIC or port", __func__,
			     DOCA_VERBS_MULTI_RAIL_MAX_RAILS, num_rails);
		return DOCA_ERROR_INVALID_VALUE;
	}
	m = calloc(1, sizeof(*m) + num_rails * sizeof(m->rails[0]));
	if (m == NULL) {
		DOCA_LOG_ERR("%s: out of memory; free memory and retry", __func__);
		return DOCA_ERROR_NO_MEMORY;
	}
	if (pthread_mutex_init(&m->lock, NULL) != 0) {
		DOCA_LOG_ERR("%s: pthread_mutex_init failed; check the process's resource limits", __func__);
		free(m);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	m->num_rails = num_rails;
	sd_mr_cfg_defaults(&m->cfg);
	for (uint32_t i = 0; i < num_rails; i++)
		m->rails[i].up = true; /* the program connected them: trusted until shown otherwise */
	*mr = m;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_destroy(struct doca_verbs_multi_rail *mr)
{
	if (mr == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "multi_rail");
	pthread_mutex_destroy(&mr->lock);
	free(mr);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_apply_cfg(struct doca_verbs_multi_rail *mr, const struct doca_verbs_multi_rail_cfg *cfg)
{
	doca_error_t err;

	if (mr == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "multi_rail");
	if (cfg == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "multi_rail_cfg");
	err = sd_mr_cfg_validate(cfg);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&mr->lock);
	mr->cfg = *cfg;
	mr->applied = true;
	pthread_mutex_unlock(&mr->lock);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_update_qp(struct doca_verbs_multi_rail *mr, uint32_t rail, uint64_t bytes, uint64_t duration_ns,
				int wc_status)
{
	doca_error_t err;
	char why[96];

	if (wc_status < 0) {
		DOCA_LOG_ERR("%s: wc_status %d is not an enum ibv_wc_status; pass the completion's status", __func__,
			     wc_status);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check_rail(mr, rail, __func__);
	if (err != DOCA_SUCCESS)
		goto unlock;
	if (wc_status == IBV_WC_SUCCESS) {
		mr->rails[rail].sample_bytes += bytes;
		mr->rails[rail].sample_ns += duration_ns;
	} else if (wc_recoverable(wc_status)) {
		snprintf(why, sizeof(why), "a chunk completed with %s", sd_mr_wc_status_name(wc_status));
		sd_mr_rail_set_down(mr, rail, why);
	} else {
		DOCA_LOG_DBG("multi-rail: rail %u: %s is not a rail failure; the program handles it", rail,
			     sd_mr_wc_status_name(wc_status));
	}
unlock:
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_error_is_recoverable(const struct doca_verbs_multi_rail *mr, int wc_status, uint8_t *recoverable)
{
	if (mr == NULL)
		return SD_VERBS_NULL_OBJ(__func__, "multi_rail");
	if (recoverable == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass where to store the answer", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (wc_status <= IBV_WC_SUCCESS) {
		DOCA_LOG_ERR("%s: wc_status %d is not a failed completion's status; ask only for wc.status != "
			     "IBV_WC_SUCCESS",
			     __func__, wc_status);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*recoverable = wc_recoverable(wc_status) ? 1 : 0;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_verbs_multi_rail_get_rail_bw(struct doca_verbs_multi_rail *mr, uint32_t rail, double *bytes_per_s)
{
	doca_error_t err;

	if (bytes_per_s == NULL) {
		DOCA_LOG_ERR("%s: the output pointer is NULL; pass where to store the answer", __func__);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (mr != NULL)
		pthread_mutex_lock(&mr->lock);
	err = sd_mr_check_rail(mr, rail, __func__);
	if (err == DOCA_SUCCESS)
		*bytes_per_s = mr->rails[rail].bw;
	if (mr != NULL)
		pthread_mutex_unlock(&mr->lock);
	return err;
}
