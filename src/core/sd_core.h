/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Core boundary: the one header of libdoca_common that the libraries built
 * on it (src/dma, src/rdma, src/verbs, src/comch, src/fabric, src/ibverbs)
 * include - the role DPDK's rte_dmadev_pmd.h plays for its drivers.  Besides it
 * they may include xproc.h (the cross-process copy rule, no Core object) and
 * mmap_pci_proto.h (the descriptor header every mmap export starts with).
 *
 * What it offers:
 *  - contexts and tasks: struct sd_ctx_ops, sd_ctx_init/fini, task pools,
 *    sd_task_alloc, sd_task_complete, sd_task_fail_in_order, sd_ctx_set_running,
 *    sd_ctx_fail, PE wake-ups (ctx_internal.h);
 *  - devices: the topology, capabilities (struct sd_dev_caps, read-only),
 *    sides, sd_dev_get/put (dev_internal.h);
 *  - memory: mmap kinds, pins, range checks, the RDMA export hooks, PCI
 *    validation (mmap_internal.h); the buf checks and refusal tables every data
 *    path shares (buf_check.h, refusal.h);
 *  - sync events' RDMA hooks (sync_event_internal.h), the rdma-core bridge's
 *    provider table (rdma_bridge_internal.h), SD_LOG_REGISTER (sd_log.h);
 *  - below: one static inline accessor per Core field a library reads.
 *
 * How it is enforced (core_private.h): Core's fields are declared
 * SD_CORE_PRIVATE(name), a mangled name outside libdoca_common, so a library
 * that reads "buf->data" does not compile, and Core's internal headers refuse
 * to be included except through this one.  The accessors compile to the same
 * load as the field read they replace: the DMA and fabric hot paths pay nothing.
 * A library that needs a field not listed here adds an accessor here, in the
 * same commit.
 */
#ifndef SD_CORE_H_
#define SD_CORE_H_

#define SD_CORE_INCLUDING 1

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctx_internal.h"
#include "dev_internal.h"
#include "mmap_internal.h"
#include "rdma_bridge_internal.h"
#include "sd_log.h"
#include "sync_event_internal.h"

#define SD_CORE_FIELD(obj, name) ((obj)->SD_CORE_PRIVATE(name))

/* --- tasks and contexts ---------------------------------------------------------- */

static inline struct doca_ctx *
sd_task_ctx(const struct doca_task *task)
{
	return SD_CORE_FIELD(task, ctx);
}

/*
 * The task's list link: a backend may keep a task it owns (submitted, not yet
 * completed) on its own queues with it; sd_task_complete() unlinks it.
 */
static inline struct sd_list *
sd_task_link(struct doca_task *task)
{
	return &SD_CORE_FIELD(task, link);
}

static inline struct doca_task *
sd_task_from_link(struct sd_list *link)
{
	return sd_container_of(link, struct doca_task, SD_CORE_PRIVATE(link));
}

/* The number of tasks the pool was configured with (*_set_conf). */
static inline uint32_t
sd_task_pool_size(const struct sd_task_pool *pool)
{
	return SD_CORE_FIELD(pool, num_tasks);
}

static inline enum doca_ctx_states
sd_ctx_state(const struct doca_ctx *ctx)
{
	return SD_CORE_FIELD(ctx, state);
}

/* The PE the ctx is connected to (NULL before doca_pe_connect_ctx). */
static inline struct doca_pe *
sd_ctx_pe(const struct doca_ctx *ctx)
{
	return SD_CORE_FIELD(ctx, pe);
}

static inline struct doca_dev *
sd_ctx_dev(const struct doca_ctx *ctx)
{
	return SD_CORE_FIELD(ctx, dev);
}

/* What the application set with doca_ctx_set_user_data. */
static inline union doca_data
sd_ctx_user_data(const struct doca_ctx *ctx)
{
	return SD_CORE_FIELD(ctx, user_data);
}

/* Tasks completed by the backend whose callbacks doca_pe_progress() has still to run. */
static inline bool
sd_ctx_has_completed(const struct doca_ctx *ctx)
{
	return !sd_list_empty(&SD_CORE_FIELD(ctx, completed));
}

/* --- devices ------------------------------------------------------------------------ */

static inline struct doca_devinfo *
sd_dev_devinfo(const struct doca_dev *dev)
{
	return SD_CORE_FIELD(dev, devinfo);
}

static inline struct doca_devinfo_rep *
sd_dev_rep_devinfo(const struct doca_dev_rep *rep)
{
	return SD_CORE_FIELD(rep, devinfo_rep);
}

/* The DPU-side function a representor belongs to. */
static inline struct doca_devinfo *
sd_devinfo_rep_owner(const struct doca_devinfo_rep *rep)
{
	return SD_CORE_FIELD(rep, owner);
}

static inline const char *
sd_devinfo_rep_pci_addr(const struct doca_devinfo_rep *rep)
{
	return SD_CORE_FIELD(rep, pci_addr);
}

/* What the emulated function can do: read-only for every library. */
static inline const struct sd_dev_caps *
sd_devinfo_caps(const struct doca_devinfo *devinfo)
{
	return &SD_CORE_FIELD(devinfo, caps);
}

/* The card the function stands for ("soft", "bluefield-3", ...): refusals name it. */
static inline const char *
sd_devinfo_model(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, model);
}

/* Position in the topology, the same in every process (descriptors carry it). */
static inline uint32_t
sd_devinfo_index(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, index);
}

static inline enum sd_dev_side
sd_devinfo_side(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, side);
}

/* "DDDD:BB:DD.F" */
static inline const char *
sd_devinfo_pci_addr(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, pci_addr);
}

/* "mlx5_0" */
static inline const char *
sd_devinfo_ibdev_name(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, ibdev_name);
}

/* The Linux netdev that carries the function's RDMA traffic. */
static inline const char *
sd_devinfo_netdev(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, netdev);
}

/* Port 1, GID index 0: 16 bytes. */
static inline const uint8_t *
sd_devinfo_gid(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, gid);
}

/* 6 bytes. */
static inline const uint8_t *
sd_devinfo_mac(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, mac);
}

/* The netdev's IPv4 address (4 bytes), or NULL when it had none as the topology loaded. */
static inline const uint8_t *
sd_devinfo_ipv4(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, has_ipv4) ? SD_CORE_FIELD(devinfo, ipv4) : NULL;
}

/* The netdev's IPv6 address (16 bytes), or NULL. */
static inline const uint8_t *
sd_devinfo_ipv6(const struct doca_devinfo *devinfo)
{
	return SD_CORE_FIELD(devinfo, has_ipv6) ? SD_CORE_FIELD(devinfo, ipv6) : NULL;
}

static inline uint32_t
sd_topology_num_devs(const struct sd_topology *topo)
{
	return SD_CORE_FIELD(topo, num_devs);
}

/* Function i < sd_topology_num_devs() of the topology. */
static inline struct doca_devinfo *
sd_topology_dev(const struct sd_topology *topo, uint32_t i)
{
	return &SD_CORE_FIELD(topo, devs)[i];
}

/* --- memory maps -------------------------------------------------------------------- */

static inline enum sd_mmap_kind
sd_mmap_kind(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, kind);
}

/* Local: our pointer; PCI or RDMA remote: the exporter's virtual address. */
static inline uint8_t *
sd_mmap_addr(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, addr);
}

static inline size_t
sd_mmap_len(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, len);
}

static inline bool
sd_mmap_memrange_set(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, memrange_set);
}

/* enum doca_access_flag mask. */
static inline uint32_t
sd_mmap_permissions(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, permissions);
}

/* Was dev (its function) added to the mmap (doca_mmap_add_dev, or the importing device)? */
static inline bool
sd_mmap_has_dev(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < SD_CORE_FIELD(mmap, num_devs); i++)
		if (SD_CORE_FIELD(SD_CORE_FIELD(mmap, devs)[i], devinfo) == SD_CORE_FIELD(dev, devinfo))
			return true;
	return false;
}

/* The process a cross-process copy reaches the bytes in: the exporter of a PCI_REMOTE mmap, else 0 (ours). */
static inline pid_t
sd_mmap_pci_pid(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, kind) == SD_MMAP_PCI_REMOTE ? SD_CORE_FIELD(mmap, peer).SD_CORE_PRIVATE(pid) : 0;
}

/* SD_MMAP_RDMA_REMOTE: what the RDMA hook stored (sd_mmap_set_rdma_remote), else NULL. */
static inline void *
sd_mmap_remote(const struct doca_mmap *mmap)
{
	return SD_CORE_FIELD(mmap, remote);
}

/* The descriptor the RDMA export hook returned (NULL, 0 while not exported over RDMA). */
static inline const void *
sd_mmap_rdma_desc(const struct doca_mmap *mmap, size_t *len)
{
	bool exported = SD_CORE_FIELD(mmap, exported_rdma);

	*len = exported ? SD_CORE_FIELD(mmap, rdma_desc_len) : 0;
	return exported ? SD_CORE_FIELD(mmap, rdma_desc) : NULL;
}

/*
 * The RDMA create_from_export hook (sd_mmap_rdma_hooks): mmap is a peer's
 * memory [addr, addr + len) with these permissions, reached through remote,
 * which Core hands to release(remote) once, at stop or destroy.
 */
static inline void
sd_mmap_set_rdma_remote(struct doca_mmap *mmap, uint64_t addr, size_t len, uint32_t permissions, void *remote,
			void (*release)(void *remote))
{
	SD_CORE_FIELD(mmap, kind) = SD_MMAP_RDMA_REMOTE;
	SD_CORE_FIELD(mmap, addr) = (uint8_t *)(uintptr_t)addr;
	SD_CORE_FIELD(mmap, len) = len;
	SD_CORE_FIELD(mmap, memrange_set) = true;
	SD_CORE_FIELD(mmap, permissions) = permissions;
	SD_CORE_FIELD(mmap, remote) = remote;
	SD_CORE_FIELD(mmap, remote_release) = release;
}

/* --- buffers ----------------------------------------------------------------------- */

static inline struct doca_mmap *
sd_buf_mmap(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, mmap);
}

/* Start of the buf's region (the exporter's address for remote mmaps). */
static inline uint8_t *
sd_buf_head(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, head);
}

static inline size_t
sd_buf_len(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, len);
}

/* The data window [data, data + data_len) inside [head, head + len). */
static inline uint8_t *
sd_buf_data(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, data);
}

static inline size_t
sd_buf_data_len(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, data_len);
}

/* A data path appended n bytes it wrote after data + data_len (room already checked). */
static inline void
sd_buf_add_data_len(struct doca_buf *buf, size_t n)
{
	SD_CORE_FIELD(buf, data_len) += n;
}

/* The next segment of the list buf heads or belongs to, or NULL. */
static inline struct doca_buf *
sd_buf_next(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, next);
}

/* 0: the application released the buf. */
static inline uint16_t
sd_buf_refcount(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, refcount);
}

/* A segment chained behind another buf is not a head. */
static inline bool
sd_buf_is_head(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, is_head);
}

/* Head only: the number of segments of its list. */
static inline uint32_t
sd_buf_list_len(const struct doca_buf *buf)
{
	return SD_CORE_FIELD(buf, list_len);
}

/*
 * A scratch buf of a data path (DMA's bounce buffer): no inventory, no mmap, one
 * segment [head, head + len) holding data_len bytes.  Never given to the application.
 */
static inline void
sd_buf_init_scratch(struct doca_buf *buf, void *head, size_t len, size_t data_len)
{
	SD_CORE_FIELD(buf, head) = SD_CORE_FIELD(buf, data) = (uint8_t *)head;
	SD_CORE_FIELD(buf, len) = len;
	SD_CORE_FIELD(buf, data_len) = data_len;
	SD_CORE_FIELD(buf, next) = NULL;
}

/* --- sync events ---------------------------------------------------------------------- */

/* The 64-bit value (fixed once started); update it with atomics, then sd_sync_event_changed(). */
static inline _Atomic uint64_t *
sd_sync_event_value(const struct doca_sync_event *event)
{
	return SD_CORE_FIELD(event, value);
}

/* The device of the event's first CPU location (what a remote-net export registers with). */
static inline struct doca_dev *
sd_sync_event_dev(const struct doca_sync_event *event)
{
	return SD_CORE_FIELD(event, dev);
}

/* libdoca_rdma's remote-net export of the event, or NULL. */
static inline void *
sd_sync_event_remote(const struct doca_sync_event *event)
{
	return SD_CORE_FIELD(event, remote);
}

/* Attach (or with NULL, NULL detach) the remote-net export; Core calls release(event) at destroy. */
static inline void
sd_sync_event_set_remote(struct doca_sync_event *event, void *remote, void (*release)(struct doca_sync_event *event))
{
	SD_CORE_FIELD(event, remote) = remote;
	SD_CORE_FIELD(event, remote_release) = release;
}

#undef SD_CORE_FIELD

/* The shared buf checks and refusal tables, written with the accessors above. */
#include "buf_check.h"
#include "refusal.h"
/* The acceleration engines' context (Compress, SHA, Erasure Coding, AES-GCM). */
#include "accel_internal.h"

#undef SD_CORE_INCLUDING

#endif /* SD_CORE_H_ */
