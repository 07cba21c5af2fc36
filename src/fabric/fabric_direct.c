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
 * Each process keeps the records of its registrations (struct fabric_mr_rec,
 * slot mr_id - 1) in a sealed memfd and names it (fd number, inode) in the
 * HELLO it sends itself over each connection right after connecting.  The
 * peer takes the fd with pidfd_getfd - granted under the same ptrace rule as
 * process_vm_writev - checks the inode, maps it read-only and from then on
 * checks each access against the record with a few loads (seqlock) before
 * the one copy syscall.  Anything else - no HELLO yet, a HELLO whose pid is
 * not the descriptor's, an fd that is not that memfd, a torn or mismatching
 * record - falls back to the active-message path, where the target itself
 * checks and refuses.  The application's memory is never remapped or shared.
 * A revocation racing a copy that already passed its check can still land,
 * as a DMA already past the HCA's key check does (docs/security.md).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "fabric_internal.h"
#include "../core/sd_log.h"

SD_LOG_REGISTER(fabric.direct);

#define RECS_BYTES (FABRIC_RECS_CAP * sizeof(struct fabric_mr_rec))

void
fabric_recs_init(struct fabric_dev *dev)
{
	struct stat st;
	void *p;
	int fd;

	dev->recs = NULL;
	dev->recs_fd = -1;
	fd = memfd_create("softdoca-mr-records", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, RECS_BYTES) != 0 || fstat(fd, &st) != 0)
		goto no_records;
	p = mmap(NULL, RECS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto no_records;
	/* peers may map it, read-only: no one can resize it or map it writable again */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) != 0) {
		munmap(p, RECS_BYTES);
		goto no_records;
	}
	dev->recs = p;
	dev->recs_fd = fd;
	dev->recs_ino = (uint64_t)st.st_ino;
	return;

no_records:
	/* without records peers use active messages only: slower, never wrong */
	DOCA_LOG_INFO("No registration records for same-host peers (%s); they will use active messages",
		      strerror(errno));
	if (fd >= 0)
		close(fd);
}

void
fabric_recs_fini(struct fabric_dev *dev)
{
	if (dev->recs != NULL)
		munmap(dev->recs, RECS_BYTES);
	if (dev->recs_fd >= 0)
		close(dev->recs_fd);
	dev->recs = NULL;
	dev->recs_fd = -1;
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
	struct stat st;
	void *view;
	int fd;

	if (!dev->direct_enabled || ep->pidfd < 0 || ep->peer_recs != NULL || hello->recs_cap == 0 ||
	    hello->recs_cap > FABRIC_RECS_CAP || hello->recs_fd < 0 || hello->pid != ep->peer_pid ||
	    hello->pid_ns != dev->pid_ns)
		return;
	fd = (int)syscall(SYS_pidfd_getfd, ep->pidfd, hello->recs_fd, 0);
	if (fd < 0) {
		DOCA_LOG_INFO("Connection %u: cannot take the peer's record table (%s); using active messages", ep->id,
			      strerror(errno));
		return;
	}
	/* the number must still be that memfd (checked by inode), of the size a table has */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != hello->recs_ino ||
	    (uint64_t)st.st_size < hello->recs_cap * sizeof(struct fabric_mr_rec)) {
		DOCA_LOG_INFO("Connection %u: the peer's fd %d is not its record table; using active messages", ep->id,
			      hello->recs_fd);
		close(fd);
		return;
	}
	view = mmap(NULL, hello->recs_cap * sizeof(struct fabric_mr_rec), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (view == MAP_FAILED)
		return;
	ep->peer_recs = view;
	ep->peer_recs_cap = hello->recs_cap;
	ep->tx = &fabric_tx_direct;
}

void
fabric_direct_forget(struct fabric_ep *ep)
{
	if (ep->peer_recs != NULL)
		munmap((void *)(uintptr_t)ep->peer_recs, ep->peer_recs_cap * sizeof(struct fabric_mr_rec));
	ep->peer_recs = NULL;
	ep->tx = &fabric_tx_am;
}

bool
fabric_direct_grants(const struct fabric_ep *ep, const struct fabric_rmr *rmr, uint64_t raddr, size_t len, bool write)
{
	uint32_t perm = write ? FABRIC_PERM_REMOTE_WRITE : FABRIC_PERM_REMOTE_READ;
	const struct fabric_mr_rec *r;
	struct fabric_mr_rec rec;
	uint64_t s1, s2;

	if (rmr->mr_id == 0 || rmr->mr_id > ep->peer_recs_cap)
		return false;
	r = &ep->peer_recs[rmr->mr_id - 1];
	s1 = atomic_load_explicit((const _Atomic uint64_t *)&r->seq, memory_order_acquire);
	memcpy(&rec, r, sizeof(rec));
	atomic_thread_fence(memory_order_acquire);
	s2 = atomic_load_explicit((const _Atomic uint64_t *)&r->seq_end, memory_order_relaxed);
	if (s1 != s2 || (s1 & 1) != 0 || rec.mr_id != rmr->mr_id || (rec.perms & perm) != perm)
		return false;
	if (!sd_secret_equal(rec.key, rmr->key, sizeof(rec.key)))
		return false;
	return raddr >= rec.addr && len <= rec.len && raddr - rec.addr <= rec.len - len;
}

/* The kernel refused us the peer (ptrace policy): no more direct copies on this ep. */
static void
direct_refused(struct fabric_ep *ep)
{
	if (errno != EPERM && errno != ENOSYS)
		return;
	DOCA_LOG_INFO("Connection %u: direct copies to the peer refused by the kernel (%s); using active messages",
		      ep->id, strerror(errno));
	ep->tx = &fabric_tx_am;
}

bool
fabric_direct_copy(struct fabric_ep *ep, void *buf, size_t len, uint64_t raddr, bool write)
{
	size_t done = 0;

	while (done < len) {
		struct iovec l = {.iov_base = (uint8_t *)buf + done, .iov_len = len - done};
		struct iovec r = {.iov_base = (void *)(uintptr_t)(raddr + done), .iov_len = len - done};
		ssize_t n = write ? process_vm_writev((pid_t)ep->peer_pid, &l, 1, &r, 1, 0)
				  : process_vm_readv((pid_t)ep->peer_pid, &l, 1, &r, 1, 0);

		if (n <= 0) {
			/*
			 * Granted but not copyable (the peer unmapped what it registered,
			 * or died): the active-message path reports what the peer says.
			 * A partial write is harmless: that path writes it all again.
			 */
			if (n < 0)
				direct_refused(ep);
			return false;
		}
		done += (size_t)n;
	}
	return true;
}

/*
 * Gather a granted WRITE or READ into the ep's batch, done by the next
 * progress call (or at once when the batch is full, another kind of op
 * follows, or the ep goes away): one syscall for up to FABRIC_DIRECT_BATCH
 * copies, like a doorbell rung once for a burst of work requests.  The
 * completion is delivered by that same progress call, so no completion comes
 * later than without the batch.
 */
void
fabric_direct_batch(struct fabric_ep *ep, struct fabric_op *op, bool write)
{
	struct fabric_ctx *ctx = ep->ctx;

	if (ep->n_batch > 0 && ep->batch_write != write)
		fabric_direct_flush(ep);
	sd_list_insert_tail(&ep->batch, &op->node);
	ep->batch_write = write;
	if (ep->n_batch++ == 0) {
		sd_list_insert_tail(&ctx->batched, &ep->batch_node);
		/* an application asleep on the PE's notification must come and progress */
		fabric_ctx_signal(ctx);
	}
	if (ep->n_batch == FABRIC_DIRECT_BATCH)
		fabric_direct_flush(ep);
}

/* Take the batch off the ep (dev->w.lock held); returns how many ops went into ops[]. */
static uint32_t
batch_take(struct fabric_ep *ep, struct fabric_op **ops)
{
	struct sd_list *pos;
	uint32_t n = 0;

	while ((pos = sd_list_pop_head(&ep->batch)) != NULL)
		ops[n++] = sd_container_of(pos, struct fabric_op, node);
	if (ep->n_batch > 0)
		sd_list_del(&ep->batch_node);
	ep->n_batch = 0;
	return n;
}

static void
direct_done(struct fabric_op *op)
{
	if (op->type == FABRIC_OP_READ)
		op->len = (uint32_t)op->buf_len;
	fabric_complete(op, DOCA_SUCCESS);
}

void
fabric_direct_flush(struct fabric_ep *ep)
{
	struct fabric_op *ops[FABRIC_DIRECT_BATCH];
	struct iovec l[FABRIC_DIRECT_BATCH], r[FABRIC_DIRECT_BATCH];
	bool write = ep->batch_write;
	uint32_t n = batch_take(ep, ops), i = 0;
	size_t off = 0;
	ssize_t done;

	if (n == 0)
		return;
	for (uint32_t k = 0; k < n; k++) {
		l[k].iov_base = ops[k]->buf;
		l[k].iov_len = ops[k]->buf_len;
		r[k].iov_base = (void *)(uintptr_t)ops[k]->raddr;
		r[k].iov_len = ops[k]->buf_len;
	}
	done = write ? process_vm_writev((pid_t)ep->peer_pid, l, n, r, n, 0)
		     : process_vm_readv((pid_t)ep->peer_pid, l, n, r, n, 0);
	if (done < 0)
		direct_refused(ep);
	/* the kernel copies the iovecs in order: those wholly inside `done` are there */
	for (; i < n && done >= 0 && off + ops[i]->buf_len <= (size_t)done; i++) {
		off += ops[i]->buf_len;
		direct_done(ops[i]);
	}
	/* the rest one by one, in order; what still cannot be copied goes as an active message */
	for (; i < n; i++) {
		if (fabric_ep_direct(ep) && ep->onesided == 0 && ep->n_requests == 0 &&
		    fabric_direct_copy(ep, ops[i]->buf, ops[i]->buf_len, ops[i]->raddr, write))
			direct_done(ops[i]);
		else
			fabric_ep_redo_am(ep, ops[i]);
	}
}

/* The ep failed: its batched copies never happened. */
void
fabric_direct_drop(struct fabric_ep *ep, doca_error_t err)
{
	struct fabric_op *ops[FABRIC_DIRECT_BATCH];
	uint32_t n = batch_take(ep, ops);

	for (uint32_t i = 0; i < n; i++)
		fabric_complete(ops[i], err);
}
