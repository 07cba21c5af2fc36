/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cross-process DMA engine: copies between this process and the exporter of a
 * from-export (PCI) mmap with process_vm_readv / process_vm_writev, the software
 * stand-in for a PCIe DMA between host and DPU memory.  Jobs run in poll(), on the
 * caller's thread, in FIFO order, about conf.poll_budget bytes per poll; iovecs are
 * batched IOV_MAX at a time and partial transfers are continued.  A failing system call (exporter gone, address
 * unmapped, no ptrace right) ends the job with DOCA_ERROR_DRIVER and its errno text logged.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "../core/xproc.h"
#include "engine.h"

SD_LOG_REGISTER(dma.engine.xproc);

#define XPROC_IOV_BATCH IOV_MAX
#define XPROC_BOUNCE_SIZE (1u << 20) /* remote -> remote copies go through this buffer */

struct xproc_engine {
	struct sd_dma_engine base;
	struct sd_dma_jobq queue;
	bool flushing;
	bool logged;			    /* one ERR line per engine; later failures at DBG */
	uint8_t *bounce;		    /* allocated on the first remote -> remote job */
	const struct doca_mmap *checked[4]; /* exports found standing during this poll */
	unsigned next_checked;
	struct iovec liov[XPROC_IOV_BATCH];
	struct iovec riov[XPROC_IOV_BATCH];
};

static inline struct xproc_engine *
to_xproc(struct sd_dma_engine *eng)
{
	return sd_container_of(eng, struct xproc_engine, base);
}

/* The process whose memory a list lives in; 0 for this process. (One per list: facade rule.) */
static inline pid_t
list_pid(const struct doca_buf *list)
{
	return sd_mmap_pci_pid(sd_buf_mmap(list));
}

/*
 * Move len bytes between the local windows and the windows of process pid, both walked
 * by cursors, IOV_MAX segments at a time; write selects local -> pid.  The copy itself
 * is Core's one cross-process loop (xproc.h), after check_exports() found the grants.
 */
static doca_error_t
xfer(struct xproc_engine *e, pid_t pid, bool write, struct sd_dma_sg_cur *local, struct sd_dma_sg_cur *remote,
     uint64_t len, const char **reason)
{
	struct sd_xproc_peer peer = {.pid = pid, .uid = (uid_t)-1, .pidfd = -1};

	while (len > 0) {
		size_t lb, rb;
		int ln = sd_dma_sg_cur_iov(local, len, e->liov, XPROC_IOV_BATCH, &lb);
		int rn = sd_dma_sg_cur_iov(remote, lb, e->riov, XPROC_IOV_BATCH, &rb);
		doca_error_t err;

		if (ln == 0 || rn == 0 || rb == 0) {
			*reason = "windows shorter than the job"; /* impossible on validated jobs */
			return DOCA_ERROR_DRIVER;
		}
		err = sd_xproc_copy(&peer, write, e->liov, (size_t)ln, e->riov, (size_t)rn, rb, reason);
		if (err != DOCA_SUCCESS)
			return err;
		sd_dma_sg_cur_advance(local, rb);
		sd_dma_sg_cur_advance(remote, rb);
		len -= rb;
	}
	return DOCA_SUCCESS;
}

/* Both lists in other processes: read a chunk into the bounce buffer, then write it out. */
static doca_error_t
xfer_bounce(struct xproc_engine *e, pid_t spid, pid_t dpid, struct sd_dma_sg_cur *src, struct sd_dma_sg_cur *dst,
	    uint64_t len, const char **reason)
{
	struct doca_buf bounce = {0};
	struct sd_dma_sg_cur bc;
	doca_error_t err;

	if (e->bounce == NULL) {
		e->bounce = malloc(XPROC_BOUNCE_SIZE);
		if (e->bounce == NULL) {
			*reason = "out of memory for the bounce buffer";
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	while (len > 0) {
		size_t chunk = len < XPROC_BOUNCE_SIZE ? (size_t)len : XPROC_BOUNCE_SIZE;

		sd_buf_init_scratch(&bounce, e->bounce, chunk, 0);
		sd_dma_sg_cur_init(&bc, &bounce, true);
		err = xfer(e, spid, false, &bc, src, chunk, reason);
		if (err != DOCA_SUCCESS)
			return err;
		sd_buf_init_scratch(&bounce, e->bounce, chunk, chunk);
		sd_dma_sg_cur_init(&bc, &bounce, false);
		err = xfer(e, dpid, true, &bc, dst, chunk, reason);
		if (err != DOCA_SUCCESS)
			return err;
		len -= chunk;
	}
	return DOCA_SUCCESS;
}

/*
 * Is every export behind the list still standing?  Checked once per mmap per poll
 * batch: the check costs a system call, a batch of jobs on one mmap pays it once.
 */
static doca_error_t
check_exports(struct xproc_engine *e, const struct doca_buf *list)
{
	for (; list != NULL; list = sd_buf_next(list)) {
		const struct doca_mmap *m = sd_buf_mmap(list);
		doca_error_t err;
		unsigned i;

		if (sd_mmap_kind(m) != SD_MMAP_PCI_REMOTE)
			continue;
		for (i = 0; i < SD_ARRAY_SIZE(e->checked); i++)
			if (e->checked[i] == m)
				break;
		if (i < SD_ARRAY_SIZE(e->checked))
			continue;
		err = e->base.conf.check_remote(m); /* logs the cause itself */
		if (err == DOCA_ERROR_NOT_PERMITTED)
			return err; /* export revoked or key mismatch */
		if (err != DOCA_SUCCESS)
			return DOCA_ERROR_DRIVER; /* exporter gone: the layer below failed */
		e->checked[e->next_checked++ % SD_ARRAY_SIZE(e->checked)] = m;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
xproc_copy(struct xproc_engine *e, struct sd_dma_job *job)
{
	pid_t spid = list_pid(job->src), dpid = list_pid(job->dst);
	struct sd_dma_sg_cur s, d;
	const char *reason = "";
	doca_error_t status, err;
	pid_t peer;

	if (e->base.conf.check_remote != NULL) {
		status = check_exports(e, job->src);
		if (status == DOCA_SUCCESS)
			status = check_exports(e, job->dst);
		if (status != DOCA_SUCCESS)
			return status;
	}

	sd_dma_sg_cur_init(&s, job->src, false);
	sd_dma_sg_cur_init(&d, job->dst, true);
	if (dpid == 0) {
		/*
		 * Into local memory; a local source (engine forced) is read from ourselves,
		 * asked each time: a fork()ed child inherits the engine.
		 */
		peer = spid != 0 ? spid : getpid();
		err = xfer(e, peer, false, &d, &s, job->len, &reason);
	} else if (spid == 0) {
		peer = dpid;
		err = xfer(e, peer, true, &s, &d, job->len, &reason);
	} else {
		peer = spid;
		err = xfer_bounce(e, spid, dpid, &s, &d, job->len, &reason);
	}
	if (sd_unlikely(err != DOCA_SUCCESS)) {
		if (!e->logged)
			DOCA_LOG_ERR(
				"Failed to copy %" PRIu64 " bytes %s process %d: %s; "
				"the exporting process must be alive, keep its buffer mapped and allow ptrace access",
				job->len, dpid != 0 ? "into" : "from", (int)peer, reason);
		else
			DOCA_LOG_DBG("Failed to copy %" PRIu64 " bytes with process %d: %s", job->len, (int)peer,
				     reason);
		e->logged = true;
		return DOCA_ERROR_DRIVER;
	}
	sd_dma_sg_commit(job->dst, job->len);
	return DOCA_SUCCESS;
}

static doca_error_t
xproc_create(const struct sd_dma_engine_conf *conf, struct sd_dma_engine **eng)
{
	struct xproc_engine *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return DOCA_ERROR_NO_MEMORY;
	e->base.ops = &sd_dma_engine_xproc_ops;
	e->base.conf = *conf;
	sd_dma_jobq_init(&e->queue);
	*eng = &e->base;
	return DOCA_SUCCESS;
}

static void
xproc_destroy(struct sd_dma_engine *eng)
{
	struct xproc_engine *e = to_xproc(eng);

	free(e->bounce);
	free(e);
}

static doca_error_t
xproc_enqueue(struct sd_dma_engine *eng, struct sd_dma_job *job)
{
	struct xproc_engine *e = to_xproc(eng);

	if (sd_unlikely(e->queue.count >= e->base.conf.depth))
		return DOCA_ERROR_AGAIN;
	sd_dma_jobq_push(&e->queue, job);
	return DOCA_SUCCESS;
}

static unsigned
xproc_poll(struct sd_dma_engine *eng, struct sd_dma_jobq *done)
{
	struct xproc_engine *e = to_xproc(eng);
	uint64_t budget = e->base.conf.poll_budget, copied = 0;
	struct sd_dma_job *job, *last = NULL;
	unsigned n = e->queue.count;

	if (n == 0)
		return 0;
	memset(e->checked, 0, sizeof(e->checked));
	if (sd_unlikely(e->flushing)) {
		for (job = e->queue.head; job != NULL; job = job->next)
			job->status = e->base.conf.flush_status;
		sd_dma_jobq_splice(done, &e->queue);
		return n;
	}
	/* Up to the poll budget (at least one job), as the inline engine. */
	n = 0;
	for (job = e->queue.head; job != NULL; job = job->next) {
		job->status = xproc_copy(e, job);
		last = job;
		n++;
		copied += job->len;
		if (budget != 0 && copied >= budget)
			break;
	}
	sd_dma_jobq_splice_head(done, &e->queue, last, n);
	return n;
}

static void
xproc_flush(struct sd_dma_engine *eng)
{
	to_xproc(eng)->flushing = true;
}

static void
xproc_quiesce(struct sd_dma_engine *eng)
{
	struct xproc_engine *e = to_xproc(eng);

	e->flushing = false;
	e->logged = false;
}

static bool
xproc_pending(struct sd_dma_engine *eng)
{
	return to_xproc(eng)->queue.count != 0;
}

const struct sd_dma_engine_ops sd_dma_engine_xproc_ops = {
	.name = "xproc",
	.create = xproc_create,
	.destroy = xproc_destroy,
	.enqueue = xproc_enqueue,
	.poll = xproc_poll,
	.flush = xproc_flush,
	.quiesce = xproc_quiesce,
	.pending = xproc_pending,
};
