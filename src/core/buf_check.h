/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a data-path library checks on the bufs of a task before it moves bytes:
 * the buf is still held, its list is not too long, every segment lies inside
 * its mmap and, when it receives bytes, may be written, and a destination has
 * room after data + data_len.  DMA (dma_task_memcpy.c) and RDMA
 * (rdma_task_check.c) share these checks and one verdict type; the status and
 * log line of each fault are Core's rows in refusal.h, and each library adds
 * its own reasons, numbered from SD_BUF_NUM_FAULTS, as rows of its table.
 *
 * The checks are inline: they run on every submit, and RDMA's validation is
 * inlined into its submit path (an 8-byte ping-pong shows a call).
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

#ifndef SD_BUF_CHECK_H_
#define SD_BUF_CHECK_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#include "sd_core.h"

/* Faults of a buf that both libraries refuse, with the status a task gets for each. */
enum sd_buf_fault {
	SD_BUF_OK,	       /* no fault */
	SD_BUF_RELEASED,       /* refcount 0: the application gave the buf back */
	SD_BUF_LIST_TOO_LONG,  /* a: segments, b: the limit (c: the other list's segments, DMA) */
	SD_BUF_OUTSIDE_MMAP,   /* a segment's [head, head + len) leaves its mmap's range */
	SD_BUF_NO_LOCAL_WRITE, /* a local segment that receives bytes lacks LOCAL_READ_WRITE; a: permissions */
	SD_BUF_NO_ROOM,	       /* a: bytes needed, b: room after data + data_len */
	SD_BUF_NUM_FAULTS,     /* a library's own reasons start here */
};

/* Why a task is refused: a buf fault or a library's own reason, and the values its log line shows. */
struct sd_buf_verdict {
	unsigned int why; /* enum sd_buf_fault, or a library reason >= SD_BUF_NUM_FAULTS */
	const char *what; /* which buf of the task: "source", "destination", "result"; or NULL */
	uint64_t a, b, c;
};

/* Record a refusal; false, so that checks read "return sd_buf_refuse(...)". */
static inline bool
sd_buf_refuse(struct sd_buf_verdict *v, unsigned int why, const char *what, uint64_t a, uint64_t b, uint64_t c)
{
	v->why = why;
	v->what = what;
	v->a = a;
	v->b = b;
	v->c = c;
	return false;
}

/* The task still holds buf (the head of a list carries the count). */
static inline bool
sd_buf_check_held(const struct doca_buf *buf, const char *what, struct sd_buf_verdict *v)
{
	if (sd_unlikely(sd_buf_refcount(buf) == 0))
		return sd_buf_refuse(v, SD_BUF_RELEASED, what, 0, 0, 0);
	return true;
}

/* A list of n segments where max are allowed. */
static inline bool
sd_buf_check_list_len(uint64_t n, uint64_t max, const char *what, struct sd_buf_verdict *v)
{
	if (sd_unlikely(n > max))
		return sd_buf_refuse(v, SD_BUF_LIST_TOO_LONG, what, n, max, 0);
	return true;
}

/*
 * What lets the device write a local range: LOCAL_READ_WRITE, or PCI_READ_WRITE
 * (on BlueField the PCI write permission lets the DMA engine write the range,
 * and programs measured there register their destinations with it alone;
 * docs/memory.md "Permissions").
 */
#define SD_LOCAL_WRITE_FLAGS (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE)

/*
 * One segment: inside its mmap's range and, if it is local memory that
 * receives bytes (writable), in an mmap with a local write flag.  Other kinds'
 * permissions (PCI, RDMA exports) are the library's to check.
 */
static inline bool
sd_buf_check_seg(const struct doca_buf *seg, bool writable, const char *what, struct sd_buf_verdict *v)
{
	const struct doca_mmap *m = sd_buf_mmap(seg);
	uint32_t perms = sd_mmap_permissions(m);

	if (sd_unlikely(!sd_mmap_contains(m, sd_buf_head(seg), sd_buf_len(seg))))
		return sd_buf_refuse(v, SD_BUF_OUTSIDE_MMAP, what, 0, 0, 0);
	if (writable && sd_mmap_kind(m) == SD_MMAP_LOCAL && sd_unlikely(!(perms & SD_LOCAL_WRITE_FLAGS)))
		return sd_buf_refuse(v, SD_BUF_NO_LOCAL_WRITE, what, perms, 0, 0);
	return true;
}

/* Bytes after data + data_len of one buf (not a list: sd_buf_list_tail_room). */
static inline uint64_t
sd_buf_tail_room(const struct doca_buf *buf)
{
	return (uint64_t)((sd_buf_head(buf) + sd_buf_len(buf)) - (sd_buf_data(buf) + sd_buf_data_len(buf)));
}

/* need bytes fit in room. */
static inline bool
sd_buf_check_room(uint64_t room, uint64_t need, const char *what, struct sd_buf_verdict *v)
{
	if (sd_unlikely(need > room))
		return sd_buf_refuse(v, SD_BUF_NO_ROOM, what, need, room, 0);
	return true;
}

#endif /* SD_BUF_CHECK_H_ */
