/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct copies between processes of one kernel, checked by the owner's own
 * record.
 *
 * A peer on the same host and pid namespace can be written and read with one
 * process_vm_writev/readv (Core's copy loop, xproc.h): the kernel copies, the target process does not
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
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/capability.h>
#include <linux/futex.h>

#include "fabric_internal.h"
#include "../core/sd_core.h"
#include "../core/xproc.h"
#include "../util/sd_random.h"
#include "../util/sd_time.h"

SD_LOG_REGISTER(fabric.direct);

#define RECS_BYTES (FABRIC_RECS_CAP * sizeof(struct fabric_mr_rec))
#define RECS_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)
#define FABRIC_RECS_MAGIC 0x5344524543534e32ull /* "2NSCERDS": record 0 of a table (2: 128-byte records) */

/*
 * The life lock (struct fabric_recs_tail).  Before each batch of direct
 * copies the initiator must know the pid still runs the image whose table it
 * mapped: the pid may have been reused, or the process exec'd (a pidfd sees
 * neither an exec nor, alone, the moment before a reuse).  The nonce read
 * through the pid answers that at the price of a process_vm_readv.  A robust
 * mutex our service thread holds answers it with one load: the kernel writes
 * FUTEX_OWNER_DIED into the futex word of every robust mutex a thread holds
 * when the thread ends - its return, a kill of the process, or an exec, which
 * ends every thread before the new program's first instruction - and only
 * this process maps the table writable.  A word held by a live thread means
 * the same image; anything else (not locked yet, released, OWNER_DIED) sends
 * the peer to the nonce.  The check and the copy are two steps, as the nonce
 * read and the copy are.  A peer believes the word only where a lie gains
 * nothing (life_trusted()).
 */
static pthread_mutex_t *
life_lock(struct fabric_dev *dev)
{
	return (pthread_mutex_t *)(void *)((struct fabric_recs_tail *)(void *)&dev->recs[FABRIC_STAMP_SLOT])
		->life.bytes;
}

static_assert(sizeof(pthread_mutex_t) <= sizeof(((struct fabric_recs_tail *)0)->life.bytes), "the lock fits");

static void
life_init(struct fabric_dev *dev)
{
	pthread_mutexattr_t a;

	if (pthread_mutexattr_init(&a) != 0)
		return;
	dev->life_ok = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0 &&
		       pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) == 0 &&
		       pthread_mutex_init(life_lock(dev), &a) == 0;
	pthread_mutexattr_destroy(&a);
	if (!dev->life_ok)
		DOCA_LOG_DBG("No robust mutexes here: same-host peers read our table's nonce before each batch");
}

void
fabric_recs_life_hold(struct fabric_dev *dev)
{
	struct fabric_recs_tail *t;
	int rc;

	if (!dev->life_ok || dev->recs_pid != (uint32_t)getpid())
		return;
	t = (struct fabric_recs_tail *)(void *)&dev->recs[FABRIC_STAMP_SLOT];
	rc = pthread_mutex_lock(life_lock(dev));
	if (rc == EOWNERDEAD)
		rc = pthread_mutex_consistent(life_lock(dev));
	if (rc != 0) {
		dev->life_ok = false;
		return;
	}
	if ((atomic_load_explicit((_Atomic uint32_t *)&t->life.futex, memory_order_relaxed) & FUTEX_TID_MASK) ==
	    (uint32_t)gettid())
		return;
	/* this libc's mutex does not start with its futex word: peers must not trust what is there */
	DOCA_LOG_DBG("The robust mutex's futex word is not where the kernel's ABI has it; peers read our nonce");
	pthread_mutex_unlock(life_lock(dev));
	pthread_mutex_destroy(life_lock(dev));
	memset(t->life.bytes, 0, sizeof(t->life.bytes));
	dev->life_ok = false;
}

void
fabric_recs_life_release(struct fabric_dev *dev)
{
	if (dev->life_ok && dev->recs_pid == (uint32_t)getpid())
		pthread_mutex_unlock(life_lock(dev));
}

/*
 * May this thread rely on a peer's life lock?  The word is the peer's to
 * write: a hostile peer can leave it "held" and then exec, or die and have its
 * pid taken.  So only while the thread holds no CAP_SYS_PTRACE (effective or
 * permitted).  Without it the kernel refuses the thread a copy into an image
 * whose credentials rose (a set-uid exec) and into another user's process,
 * so a lying peer reaches only what its own user could.  The liveness round
 * still reads the nonce (fabric_direct_peer_replaced), so the lie also ends the
 * connection within one round.  With the capability (root) every batch reads
 * the nonce, as before.  Cached per thread: capabilities are per thread, and a
 * thread can raise only what it has permitted.
 */
static bool
life_trusted(void)
{
	static __thread int8_t trusted = -1;

	if (trusted < 0) {
		struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
		struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
		uint32_t i = CAP_TO_INDEX(CAP_SYS_PTRACE), bit = CAP_TO_MASK(CAP_SYS_PTRACE);

		trusted = syscall(SYS_capget, &h, d) == 0 && ((d[i].effective | d[i].permitted) & bit) == 0;
	}
	return trusted == 1;
}

/* The peer's life lock is held by a live thread of the image that connected, and we may believe it. */
static bool
peer_life_held(const struct fabric_ep *ep)
{
	const struct fabric_recs_tail *t = (const void *)&ep->peer_recs[ep->peer_recs_cap - 1];
	uint32_t v = atomic_load_explicit((const _Atomic uint32_t *)&t->life.futex, memory_order_acquire);

	return (v & FUTEX_TID_MASK) != 0 && (v & FUTEX_OWNER_DIED) == 0 && life_trusted();
}

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
	if (fcntl(fd, F_ADD_SEALS, RECS_SEALS) != 0) {
		munmap(p, RECS_BYTES);
		goto no_records;
	}
	/* a fork child must not write its registrations into the parent's table */
	(void)madvise(p, RECS_BYTES, MADV_DONTFORK);
	dev->recs = p;
	dev->recs_fd = fd;
	dev->recs_ino = (uint64_t)st.st_ino;
	dev->recs_pid = (uint32_t)getpid();
	/* record 0: the table's identity, a random nonce a peer compares through our address space */
	dev->recs[0].addr = FABRIC_RECS_MAGIC;
	if (sd_random_bytes(dev->recs[0].key, sizeof(dev->recs[0].key)) != DOCA_SUCCESS) {
		fabric_recs_fini(dev);
		goto no_records;
	}
	life_init(dev);
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
	if (dev->life_ok && dev->recs_pid == (uint32_t)getpid())
		pthread_mutex_destroy(life_lock(dev));
	dev->life_ok = false;
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
		r->domain = mr->domain;
		memcpy(r->key, mr->key, sizeof(r->key));
		r->share_fd = mr->share.fd;
		r->share_off = mr->share.off;
		r->share_ino = mr->share.ino;
		r->share_dev = mr->share.dev;
	} else {
		r->addr = 0;
		r->len = 0;
		r->perms = 0;
		r->mr_id = 0;
		r->domain = 0;
		memset(r->key, 0, sizeof(r->key));
		r->share_fd = -1;
		r->share_off = r->share_ino = r->share_dev = 0;
	}
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)&r->seq, s + 2, memory_order_relaxed);
	atomic_store_explicit((_Atomic uint64_t *)&r->seq_end, s + 2, memory_order_release);
}

/* The table is ours to write (not a fork child's view of its parent's) and has a slot for id. */
static bool
recs_slot(const struct fabric_dev *dev, uint32_t id)
{
	return dev->recs != NULL && id < FABRIC_STAMP_SLOT && dev->recs_pid == (uint32_t)getpid();
}

void
fabric_recs_stamp(struct fabric_dev *dev, bool check_pid)
{
	if (dev->recs != NULL && (!check_pid || dev->recs_pid == (uint32_t)getpid()))
		atomic_store_explicit((_Atomic uint64_t *)&dev->recs[FABRIC_STAMP_SLOT].progress_ns, sd_now_ns(),
				      memory_order_relaxed);
}

void
fabric_rec_publish(struct fabric_dev *dev, const struct fabric_mr *mr)
{
	if (recs_slot(dev, mr->id))
		rec_write(&dev->recs[mr->id], mr);
}

void
fabric_rec_revoke(struct fabric_dev *dev, const struct fabric_mr *mr)
{
	if (recs_slot(dev, mr->id))
		rec_write(&dev->recs[mr->id], NULL);
}

/* Map the peer's record table named by a HELLO whose sender is the peer the connection blob named. */
static void
direct_accept(struct fabric_ep *ep, const struct fabric_am_hello *hello)
{
	struct fabric_dev *dev = ep->ctx->dev;
	struct stat st;
	void *view;
	int fd, seals;

	if (!dev->direct_enabled || ep->pidfd < 0 || ep->peer_recs != NULL || hello->recs_cap < 2 ||
	    hello->recs_cap > FABRIC_RECS_CAP || hello->recs_fd < 0 || hello->recs_addr == 0 ||
	    hello->pid != ep->peer_pid || hello->pid_ns != dev->pid_ns)
		return;
	fd = (int)syscall(SYS_pidfd_getfd, ep->pidfd, hello->recs_fd, 0);
	if (fd < 0) {
		DOCA_LOG_INFO("Connection %u: cannot take the peer's record table (%s); using active messages", ep->id,
			      strerror(errno));
		return;
	}
	/*
	 * It must be that memfd (inode), sealed so nobody can shrink it under our
	 * mapping (a SIGBUS here) or write it through a new mapping, and as large
	 * as the table the HELLO announces.
	 */
	seals = fcntl(fd, F_GET_SEALS);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != hello->recs_ino || seals < 0 ||
	    (seals & RECS_SEALS) != RECS_SEALS ||
	    (uint64_t)st.st_size < hello->recs_cap * sizeof(struct fabric_mr_rec)) {
		DOCA_LOG_INFO("Connection %u: the peer's fd %d is not a sealed record table; using active messages",
			      ep->id, hello->recs_fd);
		close(fd);
		return;
	}
	view = mmap(NULL, hello->recs_cap * sizeof(struct fabric_mr_rec), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (view == MAP_FAILED)
		return;
	ep->peer_recs = view;
	ep->peer_recs_cap = hello->recs_cap;
	ep->peer_recs_addr = hello->recs_addr;
	if (ep->peer_recs[0].addr != FABRIC_RECS_MAGIC) {
		fabric_direct_forget(ep);
		return;
	}
	ep->tx = &fabric_tx_direct;
	ep->direct_drain = ep->onesided > 0 || ep->n_requests > 0;
}

/*
 * The peer's HELLO.  Its sender must be the endpoint the peer's connection
 * blob named (id and cookie: not in our own descriptor, so a third party that
 * only holds ours cannot pose as the peer).  Before our connect() we do not
 * know that yet: the HELLO is kept and judged by fabric_direct_connected().
 */
void
fabric_direct_hello(struct fabric_ep *ep, const struct fabric_am_hdr *h, const struct fabric_am_hello *hello)
{
	if (ep->uep == NULL) {
		ep->early_hello = *hello;
		ep->early_hello_src_id = h->src_id;
		ep->early_hello_src_cookie = h->src_cookie;
		ep->early_hello_valid = true;
		return;
	}
	if (h->src_id == ep->peer_id && h->src_cookie == ep->peer_cookie)
		direct_accept(ep, hello);
}

void
fabric_direct_connected(struct fabric_ep *ep)
{
	if (!ep->early_hello_valid)
		return;
	ep->early_hello_valid = false;
	if (ep->early_hello_src_id == ep->peer_id && ep->early_hello_src_cookie == ep->peer_cookie)
		direct_accept(ep, &ep->early_hello);
}

void
fabric_direct_forget(struct fabric_ep *ep)
{
	if (ep->peer_recs != NULL)
		munmap((void *)(uintptr_t)ep->peer_recs, ep->peer_recs_cap * sizeof(struct fabric_mr_rec));
	ep->peer_recs = NULL;
	fabric_wins_fini(ep);
	ep->early_hello_valid = false;
	ep->direct_drain = false;
	ep->tx = &fabric_tx_am;
}

bool
fabric_direct_grants_rec(const struct fabric_ep *ep, const struct fabric_rmr *rmr, uint64_t raddr, size_t len,
			 bool write, struct fabric_mr_rec *rec)
{
	uint32_t perm = write ? FABRIC_PERM_REMOTE_WRITE : FABRIC_PERM_REMOTE_READ;
	const struct fabric_mr_rec *r;
	uint64_t s1, s2;

	if (rmr->mr_id == 0 || rmr->mr_id >= ep->peer_recs_cap)
		return false;
	r = &ep->peer_recs[rmr->mr_id];
	s1 = atomic_load_explicit((const _Atomic uint64_t *)&r->seq, memory_order_acquire);
	memcpy(rec, r, sizeof(*rec));
	atomic_thread_fence(memory_order_acquire);
	s2 = atomic_load_explicit((const _Atomic uint64_t *)&r->seq_end, memory_order_relaxed);
	if (s1 != s2 || (s1 & 1) != 0 || rec->mr_id != rmr->mr_id || (rec->perms & perm) != perm)
		return false;
	if (!sd_secret_equal(rec->key, rmr->key, sizeof(rec->key)))
		return false;
	/* a registration of a domain: only for the peer's connection of that domain (the AM path refuses) */
	if (rec->domain != 0 && rec->domain != ep->peer_domain)
		return false;
	return raddr >= rec->addr && len <= rec->len && raddr - rec->addr <= rec->len - len;
}

/* The peer's application progressed its soft NIC within FABRIC_PEER_BUSY_NS (its table's last slot). */
static bool
peer_busy(const struct fabric_ep *ep)
{
	const struct fabric_mr_rec *slot = &ep->peer_recs[ep->peer_recs_cap - 1];
	uint64_t at = atomic_load_explicit((const _Atomic uint64_t *)&slot->progress_ns, memory_order_relaxed);

	return at != 0 && (int64_t)(sd_now_ns() - at) < (int64_t)FABRIC_PEER_BUSY_NS;
}

/*
 * A write or read of up to eager_rma_max bytes that would cost a system call
 * of its own goes faster as one active message the peer places or answers in
 * the progress call it is already in: 1.2-4x the rate of process_vm_writev
 * and readv for one op at 256 B-4 KiB on the guests of docs/results (from 8
 * KiB UCX sends it by rendezvous and the kernel's copy wins).  A batch of two
 * or more shares one syscall, which beats the messages' copies through shared
 * memory where crossing between CPUs is dear (AMD family 25 model 17: 6.0
 * against 3.8 GB/s at 4 KiB, 16 in flight).  A peer that is not progressing
 * would serve messages from its service thread, later; a range mapped here is
 * a memcpy: both are copied by us.
 */
static bool
eager_better(struct fabric_ep *ep, const struct fabric_op *op, const struct fabric_mr_rec *rec)
{
	uint32_t max = ep->ctx->dev->eager_rma_max;

	return max != 0 && op->buf_len <= max && fabric_win_get(ep, rec) == NULL && peer_busy(ep);
}

bool
fabric_direct_wanted(struct fabric_ep *ep, const struct fabric_op *op, bool write)
{
	struct fabric_mr_rec rec;

	if (!fabric_direct_grants_rec(ep, op->rmr, op->raddr, op->buf_len, write, &rec))
		return false;
	/* WRITE and READ are batched: the flush sees whether one is alone (fabric_direct_flush_before) */
	if (op->type != FABRIC_OP_WRITE_IMM || !eager_better(ep, op, &rec))
		return true;
	ep->n_eager++;
	return false;
}

/* The kernel refused us the peer (ptrace policy, no process_vm_*): no more direct copies on this ep. */
static void
direct_refused(struct fabric_ep *ep, doca_error_t err, const char *reason)
{
	if (err != DOCA_ERROR_NOT_PERMITTED && err != DOCA_ERROR_NOT_SUPPORTED)
		return;
	DOCA_LOG_INFO("Connection %u: direct copies to the peer refused by the kernel (%s); using active messages",
		      ep->id, reason);
	ep->tx = &fabric_tx_am;
}

/* The peer as Core's cross-process copy knows it (xproc.h): the pid its HELLO and the blob agree on. */
static inline struct sd_xproc_peer
direct_peer(const struct fabric_ep *ep)
{
	return (struct sd_xproc_peer){.pid = (pid_t)ep->peer_pid, .uid = (uid_t)-1, .pidfd = ep->pidfd};
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

	/* a copy the other way waits for the batch (and behind what of it must go as messages) */
	if (ep->n_batch > 0 && ep->batch_write != write && fabric_direct_flush_before(ep, op))
		return;
	sd_list_insert_tail(&ep->batch, &op->node);
	ep->batch_write = write;
	if (ep->n_batch++ == 0) {
		sd_list_insert_tail(&ctx->batched, &ep->batch_node);
		/* an application asleep on the PE's notification must come and progress */
		fabric_ctx_signal(ctx);
	}
	if (ep->n_batch == FABRIC_DIRECT_BATCH)
		(void)fabric_direct_flush_before(ep, NULL); /* what it requeues the caller's kick issues */
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

/*
 * Is the process behind peer_pid still the image whose record table we
 * mapped?  It may have died and its pid been reused, or exec'd: the memfd
 * outlives both in our mapping.  Record 0 (its random nonce) read through
 * the peer's address space (err, *hdr) is compared with our view; another
 * image stops direct copies on the ep.
 */
static bool
nonce_verdict(struct fabric_ep *ep, doca_error_t err, const char *reason, const struct fabric_mr_rec *hdr)
{
	if (err == DOCA_SUCCESS && memcmp(hdr, ep->peer_recs, sizeof(*hdr)) == 0)
		return true;
	direct_refused(ep, err, reason);
	/* another nonce, or no table where it was: another image (a dead peer is the liveness check's) */
	if (err == DOCA_SUCCESS || err == DOCA_ERROR_DRIVER) {
		DOCA_LOG_INFO("Connection %u: the peer process is no longer the one that connected; using active "
			      "messages",
			      ep->id);
		fabric_direct_forget(ep);
		/* nothing of the peer's soft NIC answers any more: the next liveness round (soon) fails the ep */
		ep->peer_replaced = true;
		ep->ctx->dev->next_liveness_ns = 0;
	}
	return false;
}

/* The peer's life lock held, else one process_vm_readv of the nonce alone. */
static bool
peer_same_image(struct fabric_ep *ep)
{
	struct fabric_mr_rec hdr;
	struct iovec l = {.iov_base = &hdr, .iov_len = sizeof(hdr)};
	struct iovec r = {.iov_base = (void *)(uintptr_t)ep->peer_recs_addr, .iov_len = sizeof(hdr)};
	struct sd_xproc_peer peer = direct_peer(ep);
	const char *reason = "";
	doca_error_t err;

	if (peer_life_held(ep))
		return true;
	ep->n_image_reads++;
	err = sd_xproc_copy(&peer, false, &l, 1, &r, 1, sizeof(hdr), &reason);
	return nonce_verdict(ep, err, reason, &hdr);
}

/* stat of /proc/<pid>/exe: the program a process runs (same user: no ptrace attach needed, Yama allows it) */
static int
peer_exe(uint32_t pid, struct stat *st)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	return stat(path, st);
}

void
fabric_direct_note_peer_exe(struct fabric_ep *ep)
{
	struct stat st;

	ep->peer_exe_dev = ep->peer_exe_ino = 0;
	if (peer_exe(ep->peer_pid, &st) == 0) {
		ep->peer_exe_dev = (uint64_t)st.st_dev;
		ep->peer_exe_ino = (uint64_t)st.st_ino;
	}
}

/*
 * Another program under the peer's pid, seen without its record table (which
 * a HELLO not yet handled leaves unmapped): its executable changed, or became
 * unreadable (a set-uid image).  A gone process is the pidfd's to report.
 */
static bool
peer_exe_changed(const struct fabric_ep *ep)
{
	struct stat st;

	if (ep->peer_exe_ino == 0)
		return false;
	if (peer_exe(ep->peer_pid, &st) != 0)
		return errno == EACCES || errno == EPERM;
	return (uint64_t)st.st_dev != ep->peer_exe_dev || (uint64_t)st.st_ino != ep->peer_exe_ino;
}

bool
fabric_direct_peer_replaced(const struct fabric_ep *ep)
{
	struct fabric_mr_rec hdr;
	struct iovec l = {.iov_base = &hdr, .iov_len = sizeof(hdr)};
	struct iovec r = {.iov_base = (void *)(uintptr_t)ep->peer_recs_addr, .iov_len = sizeof(hdr)};
	struct sd_xproc_peer peer = direct_peer(ep);
	const char *reason = "";
	doca_error_t err;

	if (ep->peer_replaced || peer_exe_changed(ep))
		return true;
	if (ep->peer_recs == NULL)
		return false;
	err = sd_xproc_copy(&peer, false, &l, 1, &r, 1, sizeof(hdr), &reason);
	if (err == DOCA_SUCCESS)
		return memcmp(&hdr, ep->peer_recs, sizeof(hdr)) != 0;
	/* the table is not where it was: another image; other errors (death, policy) are not ours to judge */
	return err == DOCA_ERROR_DRIVER;
}

bool
fabric_direct_copy(struct fabric_ep *ep, void *buf, size_t len, uint64_t raddr, bool write)
{
	struct iovec l = {.iov_base = buf, .iov_len = len};
	struct iovec r = {.iov_base = (void *)(uintptr_t)raddr, .iov_len = len};
	struct sd_xproc_peer peer = direct_peer(ep);
	const char *reason = "";
	doca_error_t err;

	if (!peer_same_image(ep))
		return false;
	err = sd_xproc_copy(&peer, write, &l, 1, &r, 1, len, &reason);
	/*
	 * Granted but not copyable (the peer unmapped what it registered, or
	 * died): the active-message path reports what the peer says.  A partial
	 * write is harmless: that path writes it all again.
	 */
	direct_refused(ep, err, reason);
	return err == DOCA_SUCCESS;
}

/* Copy ops[0..n) through the kernel in one go (Core's copy loop): all or none. */
static bool
kernel_copy(struct fabric_ep *ep, struct fabric_op **ops, uint32_t n, bool write)
{
	struct iovec l[FABRIC_DIRECT_BATCH], r[FABRIC_DIRECT_BATCH];
	struct sd_xproc_peer peer = direct_peer(ep);
	const char *reason = "";
	doca_error_t err;
	size_t len = 0;
	uint32_t k;

	for (k = 0; k < n; k++) {
		l[k].iov_base = ops[k]->buf;
		l[k].iov_len = ops[k]->buf_len;
		r[k].iov_base = (void *)(uintptr_t)ops[k]->raddr;
		r[k].iov_len = ops[k]->buf_len;
		len += ops[k]->buf_len;
	}
	err = sd_xproc_copy(&peer, write, l, n, r, n, len, &reason);
	/* what did land on a failure is written (or read) again by the active-message path */
	direct_refused(ep, err, reason);
	return err == DOCA_SUCCESS;
}

/*
 * A batch of reads through the kernel with the nonce of the peer's record
 * table read in the same system call, ahead of the data (xproc.h rule 3): one
 * syscall per batch instead of two.  Another image behind the pid: what was
 * read is not the peer's, the local buffers are cleared and nothing completes.
 */
static bool
kernel_read_checked(struct fabric_ep *ep, struct fabric_op **ops, uint32_t n)
{
	struct iovec l[FABRIC_DIRECT_BATCH + 1], r[FABRIC_DIRECT_BATCH + 1];
	struct sd_xproc_peer peer = direct_peer(ep);
	struct fabric_mr_rec hdr;
	const char *reason = "";
	size_t len = sizeof(hdr);
	doca_error_t err;

	l[0] = (struct iovec){.iov_base = &hdr, .iov_len = sizeof(hdr)};
	r[0] = (struct iovec){.iov_base = (void *)(uintptr_t)ep->peer_recs_addr, .iov_len = sizeof(hdr)};
	for (uint32_t k = 0; k < n; k++) {
		l[k + 1] = (struct iovec){.iov_base = ops[k]->buf, .iov_len = ops[k]->buf_len};
		r[k + 1] = (struct iovec){.iov_base = (void *)(uintptr_t)ops[k]->raddr, .iov_len = ops[k]->buf_len};
		len += ops[k]->buf_len;
	}
	err = sd_xproc_copy(&peer, false, l, n + 1, r, n + 1, len, &reason);
	if (err == DOCA_ERROR_DRIVER) {
		/* the table or a range is gone: which one, the nonce alone says (and the AM path re-reads) */
		(void)peer_same_image(ep);
		return false;
	}
	if (nonce_verdict(ep, err, reason, &hdr))
		return true;
	if (err == DOCA_SUCCESS)
		for (uint32_t k = 0; k < n; k++)
			memset(ops[k]->buf, 0, ops[k]->buf_len);
	return false;
}

/* Op k's region is mapped here (fabric_mapped.c) in the direction of the copy. */
static const struct sd_xproc_window *
op_window(struct fabric_ep *ep, const struct fabric_mr_rec *rec, bool write)
{
	const struct sd_xproc_window *w = fabric_win_get(ep, rec);

	return w != NULL && (w->writable || !write) ? w : NULL;
}

/*
 * Copy ops[0..n) in order (recs: the records they were just granted by):
 * memcpy through a window where the region is mapped, one kernel copy for
 * each run of the others.  Returns how many are done; they complete.
 */
static uint32_t
batch_copy(struct fabric_ep *ep, struct fabric_op **ops, const struct fabric_mr_rec *recs, uint32_t n, bool write)
{
	uint32_t done = 0, k;

	while (done < n) {
		const struct sd_xproc_window *w = op_window(ep, &recs[done], write);

		if (w != NULL) {
			if (sd_xproc_window_copy(w, write, ops[done]->raddr - recs[done].addr, ops[done]->buf,
						 ops[done]->buf_len) == DOCA_SUCCESS) {
				ep->n_mapped++;
				done++;
				continue;
			}
			/* the object shrank, or the guard is gone: the kernel's copy (or the target) says what holds */
			fabric_win_drop(ep, recs[done].mr_id);
		}
		for (k = done + 1; k < n && op_window(ep, &recs[k], write) == NULL; k++)
			;
		if (!kernel_copy(ep, ops + done, k - done, write))
			break;
		done = k;
	}
	for (k = 0; k < done; k++)
		direct_done(ops[k]);
	return done;
}

/*
 * Copy the granted ops[0..n) once the peer is known to be the image that
 * connected: reads that all go through the kernel check that in their own
 * syscall, everything else first reads the nonce.  Returns how many are done.
 */
static uint32_t
batch_run(struct fabric_ep *ep, struct fabric_op **ops, const struct fabric_mr_rec *recs, uint32_t n, bool write)
{
	uint32_t k = 0;

	if (n == 0)
		return 0;
	if (!write && !peer_life_held(ep)) {
		while (k < n && op_window(ep, &recs[k], false) == NULL)
			k++;
		if (k == n) {
			if (!kernel_read_checked(ep, ops, n))
				return 0;
			for (k = 0; k < n; k++)
				direct_done(ops[k]);
			return n;
		}
	}
	return peer_same_image(ep) ? batch_copy(ep, ops, recs, n, write) : 0;
}

bool
fabric_direct_flush_before(struct fabric_ep *ep, struct fabric_op *next)
{
	struct fabric_op *ops[FABRIC_DIRECT_BATCH];
	struct fabric_mr_rec recs[FABRIC_DIRECT_BATCH];
	bool write = ep->batch_write;
	uint32_t n = batch_take(ep, ops), done = 0, granted = 0;

	if (n == 0)
		return false;
	/*
	 * The target's record is read again now, right before the copy: a region
	 * revoked since the op was posted is not touched.
	 */
	if (fabric_ep_direct(ep)) {
		while (granted < n && fabric_direct_grants_rec(ep, ops[granted]->rmr, ops[granted]->raddr,
							       ops[granted]->buf_len, write, &recs[granted]))
			granted++;
		if (n == 1 && granted == 1 && eager_better(ep, ops[0], &recs[0]))
			ep->n_eager++; /* alone: a message instead of a syscall (done stays 0) */
		else
			done = batch_run(ep, ops, recs, granted, write);
	}
	if (done == n)
		return false;
	/*
	 * The rest (or the small op alone) go back to the front of the deferred
	 * queue, in order and ahead of next, as active messages: the target
	 * answers for them, and the window and ordering rules apply when
	 * fabric_ep_kick() issues them.
	 */
	if (next != NULL)
		sd_list_insert_head(&ep->deferred, &next->node);
	for (uint32_t i = n; i-- > done;) {
		ops[i]->am_only = true;
		sd_list_insert_head(&ep->deferred, &ops[i]->node);
	}
	return true;
}

void
fabric_direct_flush(struct fabric_ep *ep)
{
	if (fabric_direct_flush_before(ep, NULL))
		fabric_ep_kick(ep);
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
