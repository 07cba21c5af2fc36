/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA memory maps: a registered range of memory (local, or another process's /
 * peer's range imported from an export descriptor) that doca_bufs point into.
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Object model and call order
 * ---------------------------
 *
 *   doca_mmap_create -> set_memrange (mandatory, once) -> [set_permissions,
 *   add_dev, set_user_data, set_free_cb, set_max_num_devices,
 *   enable_thread_safety] -> doca_mmap_start -> (doca_bufs, exports)
 *   -> doca_mmap_stop -> doca_mmap_destroy
 *
 * Configuration is frozen by doca_mmap_start(): every setter called on a
 * started mmap returns DOCA_ERROR_BAD_STATE.  doca_mmap_stop() unfreezes it
 * (the memrange stays set: it can be set only once per mmap).
 *
 * Exports.  A started local mmap can be exported for the DPU side of the same
 * machine (doca_mmap_export_pci, needs a PCI access flag and a device added to
 * the mmap) or for an RDMA peer (doca_mmap_export_rdma, needs libdoca_rdma).
 * The descriptor is a byte string owned by the mmap: valid until the mmap is
 * stopped or destroyed, at which point the export is revoked and importers'
 * later accesses fail.  The PCI descriptor is at most 512 bytes, the RDMA one
 * at most 4096 bytes; both are binary and may travel through files.
 *
 * Imports.  doca_mmap_create_from_export() builds an mmap that describes the
 * exporter's memory: it is usable at once (no start; doca_mmap_start on it
 * returns NOT_PERMITTED), doca_mmap_get_memrange() returns the exporter's
 * address and length, and doca_bufs over that address range are the source or
 * destination of DMA / RDMA tasks.
 *
 * Lifetime.  An mmap cannot be destroyed (NOT_PERMITTED) or stopped while
 * doca_bufs still point into it, nor (BAD_STATE) while a running context is
 * using it.  doca_mmap_stop() on an exported mmap and on a from-export mmap
 * returns DOCA_SUCCESS when no doca_buf is outstanding.
 *
 * Threads: an mmap is not synchronised; configure it from one thread.  Once
 * started it is read-only except for its doca_buf count (atomic), so bufs may
 * be taken from it by several threads using different inventories.
 */

struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_mmap;

/* Handle of an mmap on a DPA device (not supported by softdoca). */
typedef uint32_t doca_dpa_dev_mmap_t;

/* Called by doca_mmap_destroy() with the memrange and the opaque given to doca_mmap_set_free_cb(). */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

/*
 * Create an empty, unstarted mmap (permissions LOCAL_READ_WRITE, up to 16 devices).
 * INVALID_VALUE: mmap is NULL.  NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);

/*
 * Stop (implicitly) and free the mmap; releases its devices and calls the free
 * callback, if any, with the memrange.
 * INVALID_VALUE: NULL.  NOT_PERMITTED: doca_bufs still point into it.
 * BAD_STATE: a running context still uses it.
 */
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);

/*
 * Freeze the configuration; required before doca_bufs and exports.
 * INVALID_VALUE: NULL.  BAD_STATE: memrange not set, or already started.
 * NOT_PERMITTED: the mmap was created from an export.
 */
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);

/*
 * Stop the mmap: revokes its exports and frees their descriptors.  SUCCESS on
 * an unstarted, exported or from-export mmap as long as no doca_buf is left.
 * INVALID_VALUE: NULL.  NOT_PERMITTED: doca_bufs still point into it.
 * BAD_STATE: a running context still uses it.
 */
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);

/*
 * Allow a device to access the mmap's memory (before start).
 * INVALID_VALUE: NULL argument.  BAD_STATE: started or from-export.
 * ALREADY_EXIST: the device was already added.  NO_MEMORY: max_num_devices reached.
 */
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/*
 * Remove a device added with doca_mmap_add_dev() (before start).
 * INVALID_VALUE: NULL argument.  BAD_STATE: started or from-export.
 * NOT_FOUND: the device was not added.
 */
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/*
 * Export a started mmap to the DPU side of the machine.  The mmap needs
 * DOCA_ACCESS_FLAG_PCI_READ_ONLY or _PCI_READ_WRITE and dev must have been added
 * to it.  *export_desc (at most 512 bytes) stays owned by the mmap until stop/destroy.
 * INVALID_VALUE: NULL argument, or dev not added to the mmap.
 * BAD_STATE: not started.  NOT_PERMITTED: no PCI permission, or from-export mmap.
 * NOT_SUPPORTED: the device cannot export over PCI (see
 * doca_mmap_cap_is_export_pci_supported).  NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
					      const void **export_desc, size_t *export_desc_len);

/*
 * Export a started mmap to RDMA peers (needs an RDMA access flag and
 * libdoca_rdma).  *export_desc (at most 4096 bytes) stays owned by the mmap.
 * INVALID_VALUE, BAD_STATE, NOT_PERMITTED as for doca_mmap_export_pci.
 * NOT_SUPPORTED: libdoca_rdma is not loaded in this process.
 */
DOCA_STABLE doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
					       const void **export_desc, size_t *export_desc_len);

/* DPA handles: always NOT_SUPPORTED (no DPA in softdoca). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, const struct doca_dev *dev,
							    doca_dpa_dev_mmap_t *dpa_mmap_handle);

/*
 * Create an mmap describing the memory of another process (PCI descriptor) or
 * of an RDMA peer (RDMA descriptor).  user_data may be NULL.  The result is
 * already usable (no start); its memrange is the exporter's address and length
 * and its permissions are the exported ones.
 * INVALID_VALUE: NULL argument, or a malformed descriptor.
 * UNSUPPORTED_VERSION: a descriptor of another softdoca wire version.
 * NOT_SUPPORTED: dev cannot import this kind of export, or libdoca_rdma is not
 * loaded (RDMA descriptor).
 * NOT_FOUND: the exporting process no longer exists.
 * NOT_PERMITTED: the export was revoked, its key does not match, or the kernel
 * refused this process access to the exporter's memory (different user, or
 * ptrace restrictions).
 */
DOCA_STABLE doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
						      size_t export_desc_len, struct doca_dev *dev,
						      struct doca_mmap **mmap);

/*
 * Set the memory range (mandatory, once, before start).
 * INVALID_VALUE: NULL mmap, NULL addr, len 0 or addr + len wrapping.
 * BAD_STATE: started, from-export, or memrange already set.
 */
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);

/* dma-buf ranges: always NOT_SUPPORTED (reason logged). */
DOCA_STABLE doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
						       size_t dmabuf_offset, size_t len);

/* DPA ranges: always NOT_SUPPORTED (reason logged). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa,
							  uint64_t dpa_addr, size_t len);

/*
 * The memory range; for a from-export mmap, the exporter's address and length.
 * INVALID_VALUE: NULL argument.  BAD_STATE: memrange not set.
 */
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);

/*
 * Called at destroy with (addr, len, opaque) to free the memrange (before start).
 * INVALID_VALUE: NULL mmap.  BAD_STATE: started or from-export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
					       void *opaque);

/* INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);

/* Before start only.  INVALID_VALUE: NULL mmap.  BAD_STATE: started. */
DOCA_STABLE doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

/* INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices);

/*
 * Before start; between the number of devices already added (at least 1) and 16.
 * INVALID_VALUE: NULL mmap or value out of range.  BAD_STATE: started or from-export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);

/* Number of doca_bufs currently pointing into the mmap.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);

/* 1 while the mmap has a live PCI or RDMA export.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);

/* 1 for an mmap made by doca_mmap_create_from_export.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export);

/*
 * Access rights (enum doca_access_flag bits; before start).  Default
 * DOCA_ACCESS_FLAG_LOCAL_READ_WRITE.
 * INVALID_VALUE: NULL mmap, unknown bits, or PCI_READ_ONLY together with PCI_READ_WRITE.
 * BAD_STATE: started or from-export.
 */
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);

/* softdoca addition: the access mask in force.  INVALID_VALUE: NULL argument. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_get_permissions(const struct doca_mmap *mmap, uint32_t *access_mask);

/* Capabilities of a device: can it export over PCI (host side) / import PCI exports (DPU side)? */
DOCA_STABLE doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
							       uint8_t *is_supported);
DOCA_STABLE doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
									   uint8_t *is_supported);

/*
 * Declare that the mmap will be used from several threads (before start).
 * INVALID_VALUE: NULL.  BAD_STATE: started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
