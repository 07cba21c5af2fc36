/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA buffer inventories: fixed pools of doca_buf descriptors from which
 * buffers over doca_mmaps are taken.
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

/* Programs that take bufs from an inventory also use them: doca_buf.h comes along. */
#include <doca_buf.h>
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
 *   doca_buf_inventory_create(n) -> [set_user_data] -> start -> buf_get_by_* /
 *   buf_dup ... doca_buf_dec_refcount -> stop -> destroy
 *
 * An inventory holds n doca_buf descriptors (more with doca_buf_inventory_expand).
 * Taking a buf needs a started inventory and a started (or from-export) mmap;
 * each buf counts as a user of its mmap until it returns to the inventory.  One
 * inventory may serve many mmaps, and several bufs may cover the same bytes.
 * Bufs may still be released after the inventory is stopped.  An inventory is
 * not synchronised: use it from one thread at a time.
 */

struct doca_buf;
struct doca_buf_inventory;
struct doca_mmap;

/*
 * Create an inventory of num_elements doca_bufs (at least 1, at most UINT32_MAX).
 * INVALID_VALUE: NULL inventory or num_elements out of range.  NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory);

/*
 * Stop (implicitly) and free.
 * INVALID_VALUE: NULL.  IN_USE: some of its bufs are still taken.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);

/* INVALID_VALUE: NULL.  BAD_STATE: already started. */
DOCA_STABLE doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);

/* Taken bufs stay valid.  INVALID_VALUE: NULL.  BAD_STATE: not started. */
DOCA_STABLE doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);

/*
 * Take a buf over [addr, addr + len) of mmap with data window [data, data + data_len).
 * Both ranges must lie inside the mmap's range, and the window inside [addr, addr + len).
 * INVALID_VALUE: NULL argument, mmap not started, or a range outside its bounds.
 * BAD_STATE: inventory not started.  NO_MEMORY: no free element.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
							    struct doca_mmap *mmap, void *addr, size_t len, void *data,
							    size_t data_len, struct doca_buf **buf);

/* An empty buf over [addr, addr + len) (data = addr, data_len = 0): a destination. */
static inline doca_error_t
doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr, size_t len,
				   struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/* A full buf over [data, data + data_len) (window = the whole region): a source. */
static inline doca_error_t
doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *data,
				   size_t data_len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

/*
 * Re-point a taken buf to another region of its own mmap, keeping its
 * refcount and its place in a list (storage programs re-point the heads of
 * their lists per I/O): by_addr an empty buf over [addr, addr + len)
 * (data = addr, data_len 0); by_data a full one over [data, data + data_len).
 * INVALID_VALUE: NULL buf or address, a free buf, or a region outside the
 * mmap's range (the buf unchanged).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr, size_t len);
DOCA_STABLE doca_error_t doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data, size_t data_len);

/*
 * Take a buf (or, for a list head, as many bufs as the list has elements)
 * describing the same region and data window as src_buf.  The copy is a new head.
 * INVALID_VALUE: NULL argument or src_buf free.  BAD_STATE: inventory not started.
 * NO_MEMORY: not enough free elements (nothing is taken).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
						    const struct doca_buf *src_buf, struct doca_buf **dst_buf);

/* Any time.  INVALID_VALUE: NULL inventory. */
DOCA_STABLE doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
							  union doca_data user_data);

/* INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
							  union doca_data *user_data);

/* Total elements.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
							     uint32_t *num_of_elements);

/* Elements not taken.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
								  uint32_t *num_of_free_elements);

/*
 * Add num_elements elements (any state).
 * INVALID_VALUE: NULL, 0, or the total would pass UINT32_MAX.  NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
