/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct copies between processes of one kernel, checked by the owner's own
 * record.
 *
 * A peer on the same host and pid namespace can be written and read with one
 * process_vm_writev/readv: the kernel copies, the target process does not
 * run (a responder blocked on stdin still sees the write).  The kernel only
 * asks whether we may ptrace the target, so the key, range and permission of
 * the access must be verified before the copy - and against what the target
 * says, not against the descriptor, which anyone may have edited.
 *
 * Each process keeps an array of records of its registrations (struct
 * fabric_mr_rec, slot mr_id - 1) and tells each peer where it is in its HELLO,
 * a message it sends itself over the connection right after connecting.  The
 * initiator reads the slot with process_vm_readv (one syscall), checks it as
 * the target would (fabric_mr_check) and only then copies.  Anything else -
 * no HELLO yet, a HELLO whose pid is not the descriptor's, a torn or
 * mismatching record - falls back to the active-message path, where the
 * target itself checks and refuses.  A revocation racing a copy that already
 * passed its check can still land, as a DMA already past the HCA's key check
 * does; docs/security.md.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "fabric_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(fabric.direct);

void
fabric_recs_init(struct fabric_dev *dev)
{
	void *p = mmap(NULL, FABRIC_RECS_CAP * sizeof(struct fabric_mr_rec), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	/* without records peers use active messages only: slower, never wrong */
	dev->recs = p == MAP_FAILED ? NULL : p;
}

void
fabric_recs_fini(struct fabric_dev *dev)
{
	if (dev->recs != NULL)
		munmap(dev->recs, FABRIC_RECS_CAP * sizeof(struct fabric_mr_rec));
	dev->recs = NULL;
}

/* Rewrite a record so a concurrent reader sees the old or the new one whole, or a torn one it rejects. */
static void
rec_write(struct fabric_mr_rec *r, const struct fabric_mr *mr)
{
	uint64_t s = atomic_load_explicit((_Atomic uint64_t *)&r->seq, memory_order_relaxed);

	/* readers copy from the lowest address up: seq first, seq_end last */
	atomic_store_explicit((_Atomic uint64_t *)&r->seq_end, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	if (mr != NULL) {
		r->addr = (uintptr_t)mr->addr;
		r->len = mr->len;
		r->perms = mr->perms;
		r->mr_id = mr->id;
		memcpy(r->key, mr->key, sizeof(r->key));
	} else {
		r->addr = 0;
		r->len = 0;
		r->perms = 0;
		r->mr_id = 0;
		memset(r->key, 0, sizeof(r->key));
	}
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&r->seq, s + 2, memory_order_relaxed);
	atomic_store_explicit((_Atomic uint64_t *)&r->seq_end, s + 2, memory_order_release);
}

void
fabric_rec_publish(struct fabric_dev *dev, const struct fabric_mr *mr)
{
	if (dev->recs != NULL && mr->id <= FABRIC_RECS_CAP)
		rec_write(&dev->recs[mr->id - 1], mr);
}

void
fabric_rec_revoke(struct fabric_dev *dev, const struct fabric_mr *mr)
{
	if (dev->recs != NULL && mr->id <= FABRIC_RECS_CAP)
		rec_write(&dev->recs[mr->id - 1], NULL);
}

/* The peer's HELLO: direct copies are offered when it is the process the connection blob named. */
void
fabric_direct_hello(struct fabric_ep *ep, const struct fabric_am_hello *hello)
{
	struct fabric_dev *dev = ep->ctx->dev;

	if (!dev->direct_enabled || ep->pidfd < 0 || hello->recs_cap == 0 || hello->recs_addr == 0 ||
	    hello->pid != ep->peer_pid || hello->pid_ns != dev->pid_ns)
		return;
	ep->peer_recs_addr = hello->recs_addr;
	ep->peer_recs_cap = hello->recs_cap;
	ep->direct = true;
}

/* Read the peer's record of rmr's region: true when it grants [raddr, +len) with perm under rmr's key. */
static bool
peer_grants(struct fabric_ep *ep, const struct fabric_rmr *rmr, uint64_t raddr, size_t len, uint32_t perm)
{
	struct fabric_mr_rec rec;
	struct iovec l = {.iov_base = &rec, .iov_len = sizeof(rec)};
	struct iovec r;
	ssize_t n;

	if (rmr->mr_id == 0 || rmr->mr_id > ep->peer_recs_cap)
		return false;
	r.iov_base = (void *)(uintptr_t)(ep->peer_recs_addr + (uint64_t)(rmr->mr_id - 1) * sizeof(rec));
	r.iov_len = sizeof(rec);
	n = process_vm_readv((pid_t)ep->peer_pid, &l, 1, &r, 1, 0);
	if (n != (ssize_t)sizeof(rec)) {
		if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
			DOCA_LOG_INFO("Connection %u: direct copies to the peer refused by the kernel (%s); "
				      "using active messages",
				      ep->id, strerror(errno));
			ep->direct = false;
		}
		return false;
	}
	if (rec.seq != rec.seq_end || (rec.seq & 1) != 0 || rec.mr_id != rmr->mr_id || (rec.perms & perm) != perm)
		return false;
	if (!sd_secret_equal(rec.key, rmr->key, sizeof(rec.key)))
		return false;
	return raddr >= rec.addr && len <= rec.len && raddr - rec.addr <= rec.len - len;
}

bool
fabric_direct_copy(struct fabric_ep *ep, const struct fabric_rmr *rmr, void *buf, size_t len, uint64_t raddr,
		   bool write)
{
	size_t done = 0;

	if (!peer_grants(ep, rmr, raddr, len, write ? FABRIC_PERM_REMOTE_WRITE : FABRIC_PERM_REMOTE_READ))
		return false;
	while (done < len) {
		struct iovec l = {.iov_base = (uint8_t *)buf + done, .iov_len = len - done};
		struct iovec r = {.iov_base = (void *)(uintptr_t)(raddr + done), .iov_len = len - done};
		ssize_t n = write ? process_vm_writev((pid_t)ep->peer_pid, &l, 1, &r, 1, 0)
				  : process_vm_readv((pid_t)ep->peer_pid, &l, 1, &r, 1, 0);

		if (n <= 0) {
			/*
			 * Granted but not copyable (the peer unmapped what it registered,
			 * or died): the active-message path reports what the peer says.
			 * A partial write is harmless: the AM path writes it all again.
			 */
			if (n < 0 && (errno == EPERM || errno == ENOSYS))
				ep->direct = false;
			return false;
		}
		done += (size_t)n;
	}
	return true;
}
