/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA buffers: a region of a doca_mmap, a data window inside it, a reference
 * count, and an optional singly linked list of further buffers.
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Object model
 * ------------
 *
 *   head                data               data + data_len        head + len
 *    |------------------|======================|-----------------------|
 *         headroom           data window              tailroom
 *
 * A doca_buf comes from a doca_buf_inventory (doca_buf_inventory_buf_get_by_*)
 * with refcount 1 and describes [head, head + len) inside a started (or
 * from-export) doca_mmap; for a from-export mmap the addresses are the
 * exporter's.  The data window always stays inside the region.
 *
 * Data placement (what DMA / RDMA tasks do):
 *   - a source contributes its data window; a list contributes the windows of
 *     its elements in order, concatenated;
 *   - a destination receives bytes at data + data_len (its tailroom), and its
 *     data_len grows by the amount written; a list is filled element by element.
 *   So a destination from doca_buf_inventory_buf_get_by_addr() (data_len 0)
 *   holds the result at its data pointer, and doca_buf_reset_data_len() makes a
 *   used destination ready to be written again at the same place.
 *
 * Lists: doca_buf_chain_list() appends a list (or single buf) behind another.
 * The first element is the head; the list is used and released through its
 * head: doca_buf_dec_refcount() on a non-head element returns NOT_PERMITTED,
 * and the head reaching refcount 0 returns every element to its inventory.
 *
 * Threads: a doca_buf is not synchronised; use it from one thread at a time.
 */

struct doca_buf;

/*
 * Take a reference.  *refcount (may be NULL) receives the count before the call.
 * INVALID_VALUE: NULL buf.  BAD_STATE: the buf is free (refcount 0).
 * TOO_BIG: refcount already UINT16_MAX.
 */
DOCA_STABLE doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);

/*
 * Drop a reference.  *refcount (may be NULL) receives the count before the call.
 * At 0 the buf, and the whole list if it heads one, returns to its inventory.
 * INVALID_VALUE: NULL buf.  BAD_STATE: refcount already 0.
 * NOT_PERMITTED: the buf is a non-head element of a list.
 */
DOCA_STABLE doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);

/* INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

/* Region length.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);

/* Region start.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);

/* Data window length.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);

/* Data window start.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);

/*
 * Set the data window; [data, data + data_len) must lie inside [head, head + len).
 * INVALID_VALUE: NULL buf or window outside the region.
 */
DOCA_STABLE doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);

/*
 * Set data_len, keeping the data pointer; data + data_len must not pass head + len.
 * INVALID_VALUE: NULL buf or too long.
 */
DOCA_STABLE doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);

/* data_len = 0, data pointer unchanged.  INVALID_VALUE: NULL buf. */
DOCA_STABLE doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

/* Next element (NULL after the last).  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);

/* Last element of the list buf belongs to, from buf on.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);

/* 1 when nothing follows buf.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);

/* 1 when buf is a head (a buf outside any list is its own head).  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);

/* 1 when buf belongs to a list of two or more elements.  INVALID_VALUE: NULL argument. */
DOCA_STABLE doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);

/* Number of elements of the list buf heads.  INVALID_VALUE: NULL argument or buf not a head. */
DOCA_STABLE doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);

/*
 * Append list2 (a head with refcount 1) behind the last element of list1 (a head).
 * INVALID_VALUE: NULL argument, either is not a head, or list1 == list2.
 * BAD_STATE: either is free.  NOT_PERMITTED: list2's refcount is not 1.
 */
DOCA_STABLE doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);

/*
 * As doca_buf_chain_list, in O(1): list1_tail must be list1_head's last element.
 * INVALID_VALUE also when list1_tail is not that last element.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1_head, struct doca_buf *list1_tail,
							struct doca_buf *list2);

/*
 * Split list1 (a head) before list2 (a non-head element of it): list2 becomes
 * the head of the rest, with refcount 1.
 * INVALID_VALUE: NULL argument, list1 not a head, or list2 not an element after list1.
 */
DOCA_STABLE doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
