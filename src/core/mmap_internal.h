/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory maps, buffers and buffer inventories as the data-path libraries see
 * them.  The facades (DMA, RDMA, Verbs) read these fields directly; only
 * core/mmap.c, core/buf.c and core/buf_inventory.c write them.
 */
#ifndef SD_MMAP_INTERNAL_H_
#define SD_MMAP_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_mmap.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>

#include "../util/sd_util.h"

#define SD_MMAP_MAX_DEVS 16
#define SD_KEY_LEN 16

/* Where the bytes of an mmap live. */
enum sd_mmap_kind {
	SD_MMAP_LOCAL,		/* this process's memory (doca_mmap_set_memrange) */
	SD_MMAP_PCI_REMOTE,	/* another process's memory, from doca_mmap_export_pci */
	SD_MMAP_RDMA_REMOTE,	/* a peer's memory, from doca_mmap_export_rdma */
};

/* The exporter of a from-export mmap (PCI kind): how to reach its memory. */
struct sd_mmap_peer {
	pid_t pid;
	uint64_t start_time;	/* /proc/<pid>/stat start time: guards against pid reuse */
	uint32_t dev_index;	/* exporting device in the shared topology */
	uint8_t key[SD_KEY_LEN];
};

struct doca_mmap {
	enum sd_mmap_kind kind;
	uint8_t *addr;		/* local: our pointer; remote: the exporter's virtual address */
	size_t len;
	bool memrange_set;
	uint32_t permissions;	/* enum doca_access_flag mask; default LOCAL_READ_WRITE */
	bool started;
	struct doca_dev *devs[SD_MMAP_MAX_DEVS];
	uint32_t num_devs;
	uint32_t max_num_devs;
	atomic_uint num_bufs;	/* doca_bufs currently pointing into this mmap */
	atomic_uint pins;	/* running contexts that used it (destroy -> BAD_STATE) */
	union doca_data user_data;
	doca_mmap_memrange_free_cb_t *free_cb;
	void *free_opaque;
	bool thread_safe;
	/* export side */
	bool exported_pci;
	bool exported_rdma;
	uint8_t key[SD_KEY_LEN];	/* random, created at first export */
	void *pci_desc;			/* owned; valid until stop/destroy */
	size_t pci_desc_len;
	void *rdma_desc;		/* owned by the RDMA layer's export hook */
	size_t rdma_desc_len;
	/* import side */
	bool from_export;
	struct sd_mmap_peer peer;	/* SD_MMAP_PCI_REMOTE */
	void *remote;			/* SD_MMAP_RDMA_REMOTE: the fabric's rkey object */
	void (*remote_release)(void *remote);
};

struct doca_buf {
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	uint8_t *head;		/* start of the region (remote VA for remote mmaps) */
	size_t len;
	uint8_t *data;		/* data window: [data, data + data_len) inside [head, head + len) */
	size_t data_len;
	uint16_t refcount;	/* 0: free, in the inventory */
	struct doca_buf *next;	/* next segment of the list this buf heads or belongs to */
	struct doca_buf *last;	/* head only: last segment */
	uint32_t list_len;	/* head only: number of segments */
	bool is_head;		/* false for a segment chained behind another buf */
	struct doca_buf *free_next;	/* inventory free list */
};

struct doca_buf_inventory {
	struct doca_buf *bufs;	/* storage chunks are kept in chunks[] */
	struct doca_buf **chunks;
	uint32_t num_chunks;
	uint32_t num_elements;
	uint32_t num_free;
	struct doca_buf *free_list;
	bool started;
	union doca_data user_data;
};

/* Pin an mmap for as long as a running context may touch it (see doca_mmap_destroy). */
static inline void
sd_mmap_pin(struct doca_mmap *mmap)
{
	atomic_fetch_add_explicit(&mmap->pins, 1, memory_order_relaxed);
}

static inline void
sd_mmap_unpin(struct doca_mmap *mmap)
{
	atomic_fetch_sub_explicit(&mmap->pins, 1, memory_order_relaxed);
}

/* Does [addr, addr + len) lie inside the mmap's range?  Overflow-safe. */
static inline bool
sd_mmap_contains(const struct doca_mmap *mmap, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, base = (uintptr_t)mmap->addr;

	return a >= base && len <= mmap->len && a - base <= mmap->len - len;
}

/* Total data_len over a buffer list (head or single buf). */
static inline size_t
sd_buf_list_data_len(const struct doca_buf *buf)
{
	size_t total = 0;

	for (; buf != NULL; buf = buf->next)
		total += buf->data_len;
	return total;
}

/* Total free space after data + data_len over a buffer list. */
static inline size_t
sd_buf_list_tail_room(const struct doca_buf *buf)
{
	size_t total = 0;

	for (; buf != NULL; buf = buf->next)
		total += (size_t)((buf->head + buf->len) - (buf->data + buf->data_len));
	return total;
}

/*
 * RDMA hooks: the RDMA library installs these at load time so that
 * doca_mmap_export_rdma / create_from_export (in libdoca_common) can reach the
 * fabric without libdoca_common depending on libdoca_rdma.  Unset hooks make
 * those calls return NOT_SUPPORTED with a log line.
 */
struct sd_mmap_rdma_hooks {
	doca_error_t (*export_rdma)(struct doca_mmap *mmap, const struct doca_dev *dev, const void **desc,
				    size_t *desc_len);
	doca_error_t (*create_from_export)(const void *desc, size_t desc_len, struct doca_dev *dev,
					   struct doca_mmap *mmap);
};
SD_EXPORT void sd_mmap_set_rdma_hooks(const struct sd_mmap_rdma_hooks *hooks);

#endif /* SD_MMAP_INTERNAL_H_ */
