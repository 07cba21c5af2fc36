/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter-gather walking for the DMA engines: cursors over the data windows of a
 * source list and the tail rooms of a destination list, turned into iovecs or
 * copied segment by segment.
 */
#include <string.h>

#include "../core/sd_core.h"
#include "engine.h"

/* Start and size of the window a cursor walks in seg. */
static inline uint8_t *
window_base(const struct doca_buf *seg, bool tail)
{
	return tail ? sd_buf_data(seg) + sd_buf_data_len(seg) : sd_buf_data(seg);
}

static inline size_t
window_len(const struct doca_buf *seg, bool tail)
{
	return tail ? (size_t)((sd_buf_head(seg) + sd_buf_len(seg)) - (sd_buf_data(seg) + sd_buf_data_len(seg)))
		    : sd_buf_data_len(seg);
}

void
sd_dma_sg_cur_init(struct sd_dma_sg_cur *cur, const struct doca_buf *list, bool tail)
{
	cur->seg = list;
	cur->off = 0;
	cur->tail = tail;
}

int
sd_dma_sg_cur_iov(const struct sd_dma_sg_cur *cur, size_t len, struct iovec *iov, int max, size_t *bytes)
{
	const struct doca_buf *seg = cur->seg;
	size_t off = cur->off, covered = 0;
	int n = 0;

	while (seg != NULL && n < max && covered < len) {
		size_t avail = window_len(seg, cur->tail) - off;
		size_t take = SD_MIN(avail, len - covered);

		if (take > 0) {
			iov[n].iov_base = window_base(seg, cur->tail) + off;
			iov[n].iov_len = take;
			n++;
			covered += take;
		}
		seg = sd_buf_next(seg);
		off = 0;
	}
	*bytes = covered;
	return n;
}

void
sd_dma_sg_cur_advance(struct sd_dma_sg_cur *cur, size_t n)
{
	while (cur->seg != NULL) {
		size_t avail = window_len(cur->seg, cur->tail) - cur->off;

		/* Stop on a segment with room left; an exhausted one is skipped next time. */
		if (n < avail) {
			cur->off += n;
			return;
		}
		n -= avail;
		cur->seg = sd_buf_next(cur->seg);
		cur->off = 0;
		if (n == 0)
			return;
	}
}

void
sd_dma_sg_commit(struct doca_buf *dst, uint64_t len)
{
	for (; dst != NULL && len > 0; dst = sd_buf_next(dst)) {
		size_t room = window_len(dst, true);
		size_t take = len < room ? (size_t)len : room;

		sd_buf_add_data_len(dst, take);
		len -= take;
	}
}

void
sd_dma_sg_copy_list(const struct doca_buf *src, struct doca_buf *dst, uint64_t len)
{
	struct sd_dma_sg_cur s, d;

	/*
	 * Windows are read before data_len is committed, so the destination's tail rooms do
	 * not move under the cursor.  memmove: DOCA allows overlapping buffers.
	 */
	sd_dma_sg_cur_init(&s, src, false);
	sd_dma_sg_cur_init(&d, dst, true);
	for (uint64_t left = len; left > 0;) {
		struct iovec si, di;
		size_t sb, db, n;

		sd_dma_sg_cur_iov(&s, left, &si, 1, &sb);
		sd_dma_sg_cur_iov(&d, sb, &di, 1, &db);
		if (db == 0)
			break; /* cannot happen on validated jobs; never loop forever */
		n = SD_MIN(sb, db);
		memmove(di.iov_base, si.iov_base, n);
		sd_dma_sg_cur_advance(&s, n);
		sd_dma_sg_cur_advance(&d, n);
		left -= n;
	}
	sd_dma_sg_commit(dst, len);
}
