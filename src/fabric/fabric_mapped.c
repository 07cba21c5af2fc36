/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapped path of same-host copies: a peer's region that lies in a shared
 * object (its record names the owner's descriptor, xproc.h "shareable
 * memory") is mapped here once per record version and copied with memcpy.
 * Every copy is still checked against the peer's record right before it is
 * done (fabric_direct.c); a window only replaces the kernel's copy.  Windows
 * are per connection (dev->w.lock held, as for the batch), at most
 * FABRIC_WINS, and unmapped when their record changes (the liveness round
 * sweeps them), so a region the peer revoked keeps none of its memory alive
 * here for long.  docs/rdma-ucx.md "The mapped path".
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"
#include "../core/sd_core.h"

SD_LOG_REGISTER(fabric.mapped);

static struct fabric_win *
win_slot(struct fabric_ep *ep)
{
	struct fabric_win *w;

	if (ep->wins == NULL) {
		ep->wins = calloc(FABRIC_WINS, sizeof(*ep->wins));
		if (ep->wins == NULL)
			return NULL;
		ep->n_wins = FABRIC_WINS;
	}
	w = &ep->wins[ep->wins_next];
	ep->wins_next = (ep->wins_next + 1) % ep->n_wins;
	sd_xproc_window_unmap(&w->win);
	w->mr_id = 0;
	return w;
}

static void
win_map(struct fabric_ep *ep, struct fabric_win *w, const struct fabric_mr_rec *rec)
{
	struct sd_xproc_peer peer = {.pid = (pid_t)ep->peer_pid, .uid = (uid_t)-1, .pidfd = ep->pidfd};
	struct sd_xproc_share share = {
		.fd = rec->share_fd, .off = rec->share_off, .ino = rec->share_ino, .dev = rec->share_dev};
	const char *reason = "";

	w->mr_id = rec->mr_id;
	w->seq = rec->seq;
	if (sd_xproc_window_map(&peer, &share, rec->len, &w->win, &reason) != DOCA_SUCCESS) {
		DOCA_LOG_INFO("Connection %u: the peer's region %u is shareable but not mapped here (%s); copying "
			      "through the kernel",
			      ep->id, rec->mr_id, reason);
		return;
	}
	DOCA_LOG_DBG("Connection %u: the peer's region %u (%" PRIu64 " bytes) mapped%s%s", ep->id, rec->mr_id, rec->len,
		     w->win.writable ? "" : " read-only", w->win.guarded ? ", copies guarded" : "");
}

const struct sd_xproc_window *
fabric_win_get(struct fabric_ep *ep, const struct fabric_mr_rec *rec)
{
	struct fabric_win *w;

	if (rec->share_fd < 0 || !ep->ctx->dev->mapped_enabled)
		return NULL;
	for (uint32_t i = 0; i < ep->n_wins; i++) {
		w = &ep->wins[i];
		if (w->mr_id == rec->mr_id && w->seq == rec->seq)
			return w->win.base != NULL ? &w->win : NULL;
	}
	w = win_slot(ep);
	if (w == NULL)
		return NULL;
	win_map(ep, w, rec);
	return w->win.base != NULL ? &w->win : NULL;
}

void
fabric_win_drop(struct fabric_ep *ep, uint32_t mr_id)
{
	for (uint32_t i = 0; i < ep->n_wins; i++) {
		if (ep->wins[i].mr_id == mr_id) {
			sd_xproc_window_unmap(&ep->wins[i].win);
			/* keep the slot's version: this record is not tried again */
		}
	}
}

void
fabric_wins_sweep(struct fabric_ep *ep)
{
	for (uint32_t i = 0; i < ep->n_wins; i++) {
		struct fabric_win *w = &ep->wins[i];
		uint64_t seq;

		if (w->mr_id == 0 || ep->peer_recs == NULL || w->mr_id >= ep->peer_recs_cap)
			continue;
		seq = atomic_load_explicit((const _Atomic uint64_t *)&ep->peer_recs[w->mr_id].seq,
					   memory_order_acquire);
		if (seq != w->seq) {
			sd_xproc_window_unmap(&w->win);
			w->mr_id = 0;
		}
	}
}

void
fabric_wins_fini(struct fabric_ep *ep)
{
	for (uint32_t i = 0; i < ep->n_wins; i++)
		sd_xproc_window_unmap(&ep->wins[i].win);
	free(ep->wins);
	ep->wins = NULL;
	ep->n_wins = 0;
	ep->wins_next = 0;
}
