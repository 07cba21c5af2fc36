/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mapped path of the Comch fast path (docs/comch.md "The mapped path").
 * A consumer whose buffer mmap lies in a shared object (a memfd, shared
 * memory, a MAP_SHARED file) names it in its shared ring (comch_proto.h, the
 * share field): its own descriptor number, inode, device and offset.  The
 * producer maps that object's range of the buffer grant once per consumer
 * announcement (one grant), taking the descriptor from the connected process
 * (pidfd_getfd, xproc_share.c), and then writes each message with memcpy
 * instead of process_vm_writev.  The grant is read and checked through the
 * kernel when the window is made; before every later copy the consumer's
 * granted flag in the shared ring stands for it (sd_comch_mapped_grant), and a
 * cleared flag sends the producer back to the kernel's read, where a revoked
 * grant is never written and drops the window.  Any failure falls back to the
 * kernel's copy.
 * SOFTDOCA_COMCH_MAPPED=0 turns the path off on either side.
 */
#include <inttypes.h>
#include <stdatomic.h>

#include "../core/sd_core.h"
#include "../util/sd_env.h"
#include "comch_internal.h"

SD_LOG_REGISTER(comch.mapped);

static _Atomic uint64_t mapped_copies, flag_grants;

uint64_t
sd_comch_mapped_copies(void)
{
	return atomic_load_explicit(&mapped_copies, memory_order_relaxed);
}

uint64_t
sd_comch_mapped_flag_grants(void)
{
	return atomic_load_explicit(&flag_grants, memory_order_relaxed);
}

static bool
mapped_enabled(void)
{
	return sd_env_bool("SOFTDOCA_COMCH_MAPPED", true);
}

void
sd_comch_mapped_name(struct doca_comch_consumer *c, const void *addr, size_t len)
{
	const char *what = "";

	c->share = SD_XPROC_SHARE_NONE;
	if (!c->shared || !mapped_enabled())
		return;
	sd_xproc_share_find(addr, len, &c->share, &what);
	if (c->share.fd < 0)
		DOCA_LOG_DBG("Comch consumer %u: buffers not shareable (%s); the producer stages or copies through the "
			     "kernel",
			     c->id, what);
	sd_comch_shring_set_share(c->ring, c->cap, &c->share);
}

/* Map rc's buffers once, sized by the grant just read (v->buf_rec), from the object the ring names. */
static void
window_try(const struct doca_comch_connection *conn, struct sd_comch_remote_consumer *rc,
	   const struct sd_comch_ring_view *v)
{
	struct sd_xproc_share share;
	const char *reason = "";

	rc->win_tried = true;
	if (rc->shared == NULL || !mapped_enabled())
		return;
	sd_comch_shring_get_share(rc->shared, rc->info.ring_cap, &share);
	if (share.fd < 0)
		return; /* private memory: the kernel copies */
	if (sd_xproc_window_map(&conn->peer, &share, v->buf_rec.len, &rc->win, &reason) != DOCA_SUCCESS ||
	    !rc->win.writable) {
		DOCA_LOG_INFO("Comch consumer %u of pid %d: its buffers are shareable but not mapped here (%s); "
			      "copying through the kernel",
			      rc->id, (int)conn->peer.pid, rc->win.base != NULL ? "read-only descriptor" : reason);
		sd_xproc_window_unmap(&rc->win);
		return;
	}
	rc->win_addr = v->buf_rec.addr;
	rc->win_rec = v->buf_rec;
	DOCA_LOG_DBG("Comch consumer %u: its buffers (%" PRIu64 " bytes) mapped%s", rc->id, rc->win.len,
		     rc->win.guarded ? ", copies guarded" : "");
}

bool
sd_comch_mapped_grant(const struct sd_comch_remote_consumer *rc, struct sd_xproc_rec *rec)
{
	/*
	 * The window was mapped by this grant, read through the kernel; the
	 * consumer clears the flag before it revokes it.  A stale 1 only lets
	 * the copy land in the consumer's own object (the window maps nothing
	 * else), as a copy racing the revocation would anyway.
	 */
	if (rc->win.base == NULL || rc->shared == NULL || !sd_comch_shring_granted(rc->shared, rc->info.ring_cap))
		return false;
	*rec = rc->win_rec;
	atomic_fetch_add_explicit(&flag_grants, 1, memory_order_relaxed);
	return true;
}

doca_error_t
sd_comch_mapped_write(const struct doca_comch_connection *conn, struct sd_comch_remote_consumer *rc,
		      const struct sd_comch_ring_view *v, void *data, size_t len)
{
	uint64_t off;
	doca_error_t err;

	if (!rc->win_tried)
		window_try(conn, rc, v);
	/* The window is of the grant just checked: same range, and the slot inside it. */
	if (rc->win.base == NULL || v->buf_rec.addr != rc->win_addr || v->buf_rec.len != rc->win.len)
		return DOCA_ERROR_NOT_SUPPORTED;
	off = v->slot.addr - rc->win_addr;
	if (off > rc->win.len || len > rc->win.len - off)
		return DOCA_ERROR_NOT_SUPPORTED;
	err = sd_xproc_window_copy(&rc->win, true, off, data, len);
	if (err != DOCA_SUCCESS) {
		/* The object shrank (or the guard is gone): the kernel's copy says what the consumer maps. */
		DOCA_LOG_INFO("Comch consumer %u: a copy through its mapped buffers failed (%s); copying through the "
			      "kernel from now on",
			      rc->id, doca_error_get_descr(err));
		sd_xproc_window_unmap(&rc->win);
		return err;
	}
	atomic_fetch_add_explicit(&mapped_copies, 1, memory_order_relaxed);
	return DOCA_SUCCESS;
}

void
sd_comch_mapped_drop(struct sd_comch_remote_consumer *rc)
{
	sd_xproc_window_unmap(&rc->win);
	rc->win_tried = true;
}
