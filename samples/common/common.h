/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the softdoca samples: open a device by PCI address, IB device
 * name, interface name, SF index or capability; find a representor; build and tear
 * down the usual set of Core objects; stop a context; split a range into a chained
 * doca_buf list; format a hex dump.  Only the public DOCA API is used.
 */
#ifndef SAMPLES_COMMON_H_
#define SAMPLES_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/stat.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

/* The Core objects most samples need; create_core_objects() fills the first five. */
struct program_core_objects {
	struct doca_dev *dev;		    /* opened device */
	struct doca_mmap *src_mmap;	    /* source memory map, device added, not started */
	struct doca_mmap *dst_mmap;	    /* destination memory map, device added, not started */
	struct doca_buf_inventory *buf_inv; /* started inventory (NULL when max_bufs was 0) */
	struct doca_pe *pe;		    /* progress engine */
	struct doca_ctx *ctx;		    /* the library context, set by the sample */
};

/*
 * Device filter: SUCCESS when the device can do what the sample needs.  The
 * devinfo is const so DOCA capability queries (doca_dma_cap_task_memcpy_is_supported
 * ...) can be passed directly.
 */
typedef doca_error_t (*tasks_check)(const struct doca_devinfo *devinfo);

/* Open the first device whose PCI address is pci_addr ("BB:DD.F" or "DDDD:BB:DD.F")
 * and that passes func (NULL: no filter).  NOT_FOUND when none matches. */
doca_error_t open_doca_device_with_pci(const char *pci_addr, tasks_check func, struct doca_dev **retval);

/* Same, matching the IB device name (val_size <= DOCA_DEVINFO_IBDEV_NAME_SIZE). */
doca_error_t open_doca_device_with_ibdev_name(const uint8_t *value, size_t val_size, tasks_check func,
					      struct doca_dev **retval);

/* Same, matching the first val_size characters of the interface name. */
doca_error_t open_doca_device_with_iface_name(const uint8_t *value, size_t val_size, tasks_check func,
					      struct doca_dev **retval);

/* Same, among SF functions only, matching the SF index. */
doca_error_t open_doca_device_with_sf_index(uint32_t sf_index, tasks_check func, struct doca_dev **retval);

/* First device that passes func. */
doca_error_t open_doca_device_with_capabilities(tasks_check func, struct doca_dev **retval);

/* Representor of local (a DPU-side device) with this VUID / PCI address. */
doca_error_t open_doca_device_rep_with_vuid(struct doca_dev *local, enum doca_devinfo_rep_filter filter,
					    const uint8_t *value, size_t val_size, struct doca_dev_rep **retval);
doca_error_t open_doca_device_rep_with_pci(struct doca_dev *local, enum doca_devinfo_rep_filter filter,
					   const char *pci_addr, struct doca_dev_rep **retval);

/*
 * With state->dev already open: create the source and destination mmaps (device
 * added, not started), an inventory of max_bufs elements (started; none when
 * max_bufs is 0) and a PE.  On failure everything created here is destroyed.
 */
doca_error_t create_core_objects(struct program_core_objects *state, uint32_t max_bufs);

/*
 * Stop ctx; when the stop is asynchronous (IN_PROGRESS) progress pe until the ctx
 * is IDLE.  Stopping an IDLE ctx succeeds.
 */
doca_error_t request_stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/* Destroy the PE, the inventory, both mmaps and close the device; each pointer is
 * set to NULL.  Returns the first error met, but always tries every step. */
doca_error_t destroy_core_objects(struct program_core_objects *state);

/*
 * Split [addr, addr + addr_len) into num_buf consecutive segments (the first one
 * also takes the remainder of the division), get one doca_buf per segment from
 * buf_inv over mmap and chain them behind the first.  With set_data_pointer each
 * segment's data window covers the whole segment (a source); otherwise it is
 * empty (a destination).  *dbuf is the list head; releasing it releases the chain.
 * INVALID_VALUE when a segment would be empty (num_buf > addr_len).
 */
doca_error_t allocate_doca_buf_list(struct doca_buf_inventory *buf_inv, struct doca_mmap *mmap, void *addr,
				    size_t addr_len, int num_buf, bool set_data_pointer, struct doca_buf **dbuf);

/*
 * The logging set-up every sample starts with: the standard backend (INFO to
 * stdout, WARNING and worse to stderr) for the program's own messages, and an SDK
 * backend on stderr at sdk_level for the library's messages.
 */
doca_error_t sample_logging_init(uint32_t sdk_level);

/*
 * Format size bytes as DOCA's samples print them: lines of
 *   "00000000: 31 32 33 34 35 36 37 38  39 30 61 62 63 64 65 66  1234567890abcdef"
 * (offset in hex, two groups of 8 bytes, the bytes as ASCII with '.' for the
 * unprintable ones), no newline after the last.  Returns a malloc'd
 * NUL-terminated string the caller frees, or NULL when out of memory.
 */
char *hex_dump(const void *data, size_t size);

/*
 * Copy a string flag's value into dst (size bytes including the NUL) for an argp
 * callback; logs and returns INVALID_VALUE when the value is too long.
 */
doca_error_t copy_string_param(const char *flag, const char *value, char *dst, size_t size);

/*
 * Open path (flags: O_RDONLY, or O_WRONLY with O_CREAT/O_EXCL, mode for a new
 * file) and make sure it is a regular file, so that a FIFO or a device given as
 * a descriptor path fails at once instead of blocking in open() or read().
 * The open itself never blocks (O_NONBLOCK, cleared again before returning).
 * what names the file in the messages ("descriptor file ...").  On success
 * returns the descriptor and, when st is not NULL, the file's stat; on failure
 * logs the reason, sets *err (IO_FAILED, or INVALID_VALUE for a file that is
 * not a regular one, NOT_FOUND for a missing one) and returns -1.
 */
int sample_open_regular_file(const char *path, int flags, unsigned int mode, const char *what, struct stat *st,
			     doca_error_t *err);

#endif /* SAMPLES_COMMON_H_ */
