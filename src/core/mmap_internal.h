/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory maps, buffers and buffer inventories as the data-path libraries see
 * them.  The facades (DMA, RDMA, Verbs) read these fields directly; only
 * core/mmap.c, core/buf.c and core/buf_inventory.c write them.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

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
	SD_MMAP_LOCAL,	     /* this process's memory (doca_mmap_set_memrange) */
	SD_MMAP_PCI_REMOTE,  /* another process's memory, from doca_mmap_export_pci */
	SD_MMAP_RDMA_REMOTE, /* a peer's memory, from doca_mmap_export_rdma */
};

/* The exporter of a from-export mmap (PCI kind): how to reach its memory. */
struct sd_mmap_peer {
	pid_t SD_CORE_PRIVATE(pid);
	uint64_t SD_CORE_PRIVATE(start_time); /* /proc/<pid>/stat start time: guards against pid reuse */
	uint32_t SD_CORE_PRIVATE(dev_index);  /* exporting device in the shared topology */
	uint8_t SD_CORE_PRIVATE(key)[SD_KEY_LEN];
	uint64_t SD_CORE_PRIVATE(record_addr); /* exporter's address of its export record (mmap_pci_proto.h) */
	int SD_CORE_PRIVATE(door_fd);	       /* knocked on the exporter's door (xproc.h); -1: none */
};

struct sd_mmap_pci_export;

struct doca_mmap {
	enum sd_mmap_kind SD_CORE_PRIVATE(kind);
	uint8_t *SD_CORE_PRIVATE(addr); /* local: our pointer; remote: the exporter's virtual address */
	size_t SD_CORE_PRIVATE(len);
	bool SD_CORE_PRIVATE(memrange_set);
	uint32_t SD_CORE_PRIVATE(permissions); /* enum doca_access_flag mask; default LOCAL_READ_WRITE */
	bool SD_CORE_PRIVATE(started);
	struct doca_dev *SD_CORE_PRIVATE(devs)[SD_MMAP_MAX_DEVS];
	uint32_t SD_CORE_PRIVATE(num_devs);
	uint32_t SD_CORE_PRIVATE(max_num_devs);
	atomic_uint SD_CORE_PRIVATE(num_bufs); /* doca_bufs currently pointing into this mmap */
	/*
	 * 1 for the application's handle (until doca_mmap_destroy) + 1 per pin of
	 * a running context or task that used it: the last one frees the struct.
	 */
	atomic_uint SD_CORE_PRIVATE(refs);
	/* grants over the range another process may write into now (a Comch consumer): stop and destroy wait */
	atomic_uint SD_CORE_PRIVATE(peer_writers);
	union doca_data SD_CORE_PRIVATE(user_data);
	doca_mmap_memrange_free_cb_t *SD_CORE_PRIVATE(free_cb);
	void *SD_CORE_PRIVATE(free_opaque);
	bool SD_CORE_PRIVATE(thread_safe);
	/* export side */
	bool SD_CORE_PRIVATE(exported_pci);
	bool SD_CORE_PRIVATE(exported_rdma);
	uint8_t SD_CORE_PRIVATE(key)[SD_KEY_LEN]; /* random, created at first export */
	void *SD_CORE_PRIVATE(pci_desc);	  /* owned; valid until stop/destroy */
	size_t SD_CORE_PRIVATE(pci_desc_len);
	struct sd_mmap_pci_export *
		SD_CORE_PRIVATE(pci_export); /* private to mmap_export_pci.c: record slot, descriptors */
	void *SD_CORE_PRIVATE(rdma_desc);    /* owned by the RDMA layer's export hook */
	size_t SD_CORE_PRIVATE(rdma_desc_len);
	/* import side */
	bool SD_CORE_PRIVATE(from_export);
	struct sd_mmap_peer SD_CORE_PRIVATE(peer); /* SD_MMAP_PCI_REMOTE */
	void *SD_CORE_PRIVATE(remote);		   /* SD_MMAP_RDMA_REMOTE: the fabric's rkey object */
	void (*SD_CORE_PRIVATE(remote_release))(void *remote);
};

struct doca_buf {
	struct doca_buf_inventory *SD_CORE_PRIVATE(inv);
	struct doca_mmap *SD_CORE_PRIVATE(mmap);
	uint8_t *SD_CORE_PRIVATE(head); /* start of the region (remote VA for remote mmaps) */
	size_t SD_CORE_PRIVATE(len);
	uint8_t *SD_CORE_PRIVATE(data); /* data window: [data, data + data_len) inside [head, head + len) */
	size_t SD_CORE_PRIVATE(data_len);
	uint16_t SD_CORE_PRIVATE(refcount);	     /* 0: free, in the inventory */
	uint16_t SD_CORE_PRIVATE(strict_uses);	     /* strict mode: submitted tasks using it (strict.h) */
	struct doca_buf *SD_CORE_PRIVATE(next);	     /* next segment of the list this buf heads or belongs to */
	struct doca_buf *SD_CORE_PRIVATE(last);	     /* head only: last segment */
	uint32_t SD_CORE_PRIVATE(list_len);	     /* head only: number of segments */
	bool SD_CORE_PRIVATE(is_head);		     /* false for a segment chained behind another buf */
	struct doca_buf *SD_CORE_PRIVATE(free_next); /* inventory free list */
};

struct doca_buf_inventory {
	struct doca_buf *SD_CORE_PRIVATE(bufs); /* storage chunks are kept in chunks[] */
	struct doca_buf **SD_CORE_PRIVATE(chunks);
	uint32_t SD_CORE_PRIVATE(num_chunks);
	uint32_t SD_CORE_PRIVATE(num_elements);
	uint32_t SD_CORE_PRIVATE(num_free);
	struct doca_buf *SD_CORE_PRIVATE(free_list);
	bool SD_CORE_PRIVATE(started);
	union doca_data SD_CORE_PRIVATE(user_data);
};

/* Free an mmap whose last reference went (mmap.c). */
SD_EXPORT void sd_mmap_release(struct doca_mmap *mmap);

/*
 * Pin an mmap for as long as a running context may hold its pointer (its
 * caches, its list of mmaps to unpin at stop): doca_mmap_stop is refused while
 * pinned (the mmap could be reconfigured under the cache); doca_mmap_destroy
 * is not (DOCA's rule is bufs and tasks in flight), it leaves the struct to
 * the last unpin.
 */
static inline void
sd_mmap_pin(struct doca_mmap *mmap)
{
	atomic_fetch_add_explicit(&mmap->SD_CORE_PRIVATE(refs), 1, memory_order_relaxed);
}

static inline void
sd_mmap_unpin(struct doca_mmap *mmap)
{
	if (atomic_fetch_sub_explicit(&mmap->SD_CORE_PRIVATE(refs), 1, memory_order_acq_rel) == 1)
		sd_mmap_release(mmap);
}

/*
 * Another process may write into the mmap's range from now on (the holder
 * granted it, xproc.h): doca_mmap_stop and doca_mmap_destroy are refused
 * (BAD_STATE) until the release, since the range must not be freed under the
 * peer's copies.  Keeps the struct too (a pin).
 */
static inline void
sd_mmap_peer_write_hold(struct doca_mmap *mmap)
{
	sd_mmap_pin(mmap);
	atomic_fetch_add_explicit(&mmap->SD_CORE_PRIVATE(peer_writers), 1, memory_order_relaxed);
}

static inline void
sd_mmap_peer_write_release(struct doca_mmap *mmap)
{
	atomic_fetch_sub_explicit(&mmap->SD_CORE_PRIVATE(peer_writers), 1, memory_order_relaxed);
	sd_mmap_unpin(mmap);
}

/* Does [addr, addr + len) lie inside the mmap's range?  Overflow-safe. */
static inline bool
sd_mmap_contains(const struct doca_mmap *mmap, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr, base = (uintptr_t)mmap->SD_CORE_PRIVATE(addr);

	return a >= base && len <= mmap->SD_CORE_PRIVATE(len) && a - base <= mmap->SD_CORE_PRIVATE(len) - len;
}

/* Total data_len over a buffer list (head or single buf). */
static inline size_t
sd_buf_list_data_len(const struct doca_buf *buf)
{
	size_t total = 0;

	for (; buf != NULL; buf = buf->SD_CORE_PRIVATE(next))
		total += buf->SD_CORE_PRIVATE(data_len);
	return total;
}

/* Total free space after data + data_len over a buffer list. */
static inline size_t
sd_buf_list_tail_room(const struct doca_buf *buf)
{
	size_t total = 0;

	for (; buf != NULL; buf = buf->SD_CORE_PRIVATE(next))
		total += (size_t)((buf->SD_CORE_PRIVATE(head) + buf->SD_CORE_PRIVATE(len)) -
				  (buf->SD_CORE_PRIVATE(data) + buf->SD_CORE_PRIVATE(data_len)));
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
	/*
	 * Optional: the exported mmap is being stopped or destroyed; revoke the RDMA
	 * export and free mmap->rdma_desc.  Core clears exported_rdma, rdma_desc and
	 * rdma_desc_len afterwards.
	 */
	void (*export_revoke)(struct doca_mmap *mmap);
};

/*
 * Install (or, with NULL, remove) the hooks; the struct is copied.
 *
 * export_rdma is called after core has checked: non-NULL arguments, mmap
 * started, not from-export, dev added to the mmap, at least one RDMA access
 * flag.  On SUCCESS core sets exported_rdma and stores *desc / *desc_len in
 * rdma_desc / rdma_desc_len.
 *
 * create_from_export receives every descriptor that is not a softdoca PCI
 * descriptor (header magic SD_MMAP_DESC_MAGIC with kind PCI, see
 * mmap_pci_proto.h).  mmap is zeroed except for devs[0] = dev (with a
 * reference held by core); the hook fills kind = SD_MMAP_RDMA_REMOTE, addr, len,
 * memrange_set, permissions, remote and remote_release, and logs its own
 * refusals.  Core then sets from_export and started.  remote_release(remote) is
 * called once, at doca_mmap_stop() or doca_mmap_destroy().  Without hooks a
 * descriptor of kind SD_MMAP_DESC_KIND_RDMA gets NOT_SUPPORTED, anything else
 * that is not a PCI descriptor INVALID_VALUE.
 */
SD_EXPORT void sd_mmap_set_rdma_hooks(const struct sd_mmap_rdma_hooks *hooks);

/*
 * PCI_REMOTE mmaps: is the export still standing?  Re-reads the exporter's
 * record with one process_vm_readv of 64 bytes (about 1-2 us; no /proc access)
 * and checks magic, live flag, key, range and permission against this mmap.
 * Call it once per task before touching the exporter's memory; the copy
 * itself may still race a revocation that happens after this check (the
 * exporter's pages then still exist, or the copy gets EFAULT).
 * SUCCESS; NOT_PERMITTED (revoked, key mismatch, kernel refused access);
 * NOT_FOUND (exporter gone); INVALID_VALUE (not a PCI_REMOTE mmap).  The cause
 * is logged here (ERR): callers should not log it again.
 * Memory outside the export is never reachable through a valid mmap: its range
 * is exactly the exported range (checked at import and here), and the DMA
 * facade checks every buf against sd_mmap_contains().
 */
SD_EXPORT doca_error_t sd_mmap_pci_validate(const struct doca_mmap *remote);

#endif /* SD_MMAP_INTERNAL_H_ */
