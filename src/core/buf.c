/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf: reference counts, the data window, and buffer lists.
 *
 * List invariants (mmap_internal.h): the head has is_head, last = its final
 * element and list_len = the number of elements; other elements have
 * is_head = false, last = NULL, list_len = 0; next links them in order.
 */
#include <doca_buf.h>

#include "mmap_core.h"
#include "mmap_internal.h"
#include "sd_log.h"
#include "strict.h"

SD_LOG_REGISTER(core.buf);

/* Most getters only refuse NULL arguments: one check, one log line. */
#define CHECK_ARGS(api, a, b)                                                                                          \
	do {                                                                                                           \
		if ((a) == NULL || (b) == NULL) {                                                                      \
			DOCA_LOG_ERR("%s: NULL argument (%s %p, %s %p)", api, #a, (const void *)(a), #b,               \
				     (const void *)(b));                                                               \
			return DOCA_ERROR_INVALID_VALUE;                                                               \
		}                                                                                                      \
	} while (0)

doca_error_t
doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	if (buf == NULL) {
		DOCA_LOG_ERR("doca_buf_inc_refcount: buf is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf->refcount == 0) {
		DOCA_LOG_ERR("doca_buf_inc_refcount: buf is free (refcount 0); take a new one from an inventory");
		return DOCA_ERROR_BAD_STATE;
	}
	if (buf->refcount == UINT16_MAX) {
		DOCA_LOG_ERR("doca_buf_inc_refcount: refcount is already %u, the maximum", UINT16_MAX);
		return DOCA_ERROR_TOO_BIG;
	}
	if (refcount != NULL)
		*refcount = buf->refcount;
	buf->refcount++;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	struct doca_buf *next;

	if (buf == NULL) {
		DOCA_LOG_ERR("doca_buf_dec_refcount: buf is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf->refcount == 0) {
		DOCA_LOG_ERR("doca_buf_dec_refcount: buf is already free (refcount 0); release each reference once");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!buf->is_head) {
		DOCA_LOG_ERR("doca_buf_dec_refcount: buf is an inner element of a list; release the list head (or "
			     "doca_buf_unchain_list() it first)");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (refcount != NULL)
		*refcount = buf->refcount;
	if (--buf->refcount > 0)
		return DOCA_SUCCESS;
	if (sd_unlikely(sd_strict_on))
		sd_strict_buf_release(buf, SD_STRICT_CALLER());
	/* The head reached 0: the whole list goes back, element by element. */
	for (; buf != NULL; buf = next) {
		next = buf->next;
		sd_buf_inventory_put(buf);
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
	CHECK_ARGS("doca_buf_get_refcount", buf, refcount);
	*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
	CHECK_ARGS("doca_buf_get_len", buf, len);
	*len = buf->len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_head(const struct doca_buf *buf, void **head)
{
	CHECK_ARGS("doca_buf_get_head", buf, head);
	*head = buf->head;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
	CHECK_ARGS("doca_buf_get_data_len", buf, data_len);
	*data_len = buf->data_len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_data(const struct doca_buf *buf, void **data)
{
	CHECK_ARGS("doca_buf_get_data", buf, data);
	*data = buf->data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
	uintptr_t d = (uintptr_t)data, h;

	if (buf == NULL) {
		DOCA_LOG_ERR("doca_buf_set_data: buf is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	h = (uintptr_t)buf->head;
	if (d < h || data_len > buf->len || d - h > buf->len - data_len) {
		DOCA_LOG_ERR("doca_buf_set_data: data window [%p, +%zu) is not inside the buffer [%p, +%zu)", data,
			     data_len, (void *)buf->head, buf->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
	size_t room;

	if (buf == NULL) {
		DOCA_LOG_ERR("doca_buf_set_data_len: buf is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	room = buf->len - (size_t)(buf->data - buf->head);
	if (data_len > room) {
		DOCA_LOG_ERR("doca_buf_set_data_len: %zu bytes from the data pointer pass the buffer's end (%zu bytes "
			     "left); move the data pointer with doca_buf_set_data()",
			     data_len, room);
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_reset_data_len(struct doca_buf *buf)
{
	if (buf == NULL) {
		DOCA_LOG_ERR("doca_buf_reset_data_len: buf is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	buf->data_len = 0;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf)
{
	CHECK_ARGS("doca_buf_get_next_in_list", buf, next_buf);
	*next_buf = buf->next;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
	CHECK_ARGS("doca_buf_get_last_in_list", buf, last_buf);
	if (buf->is_head && buf->last != NULL) {
		*last_buf = buf->last;
		return DOCA_SUCCESS;
	}
	while (buf->next != NULL)
		buf = buf->next;
	*last_buf = buf;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
	CHECK_ARGS("doca_buf_is_last_in_list", buf, is_last);
	*is_last = buf->next == NULL;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
	CHECK_ARGS("doca_buf_is_first_in_list", buf, is_first);
	*is_first = buf->is_head;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
	CHECK_ARGS("doca_buf_is_in_list", buf, is_in_list);
	*is_in_list = !buf->is_head || buf->list_len > 1;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
	CHECK_ARGS("doca_buf_get_list_len", buf, num_elements);
	if (!buf->is_head) {
		DOCA_LOG_ERR("doca_buf_get_list_len: buf is an inner element of a list; ask the list head");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*num_elements = buf->list_len;
	return DOCA_SUCCESS;
}

/* What doca_buf_chain_list and _chain_list_tail require of their lists. */
static doca_error_t
check_chainable(const struct doca_buf *list1, const struct doca_buf *list2, const char *api)
{
	if (list1 == NULL || list2 == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (list1 %p, list2 %p)", api, (const void *)list1, (const void *)list2);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (list1->refcount == 0 || list2->refcount == 0) {
		DOCA_LOG_ERR("%s: %s is free (refcount 0); chain bufs you hold", api,
			     list1->refcount == 0 ? "list1" : "list2");
		return DOCA_ERROR_BAD_STATE;
	}
	if (!list1->is_head || !list2->is_head) {
		DOCA_LOG_ERR("%s: %s is an inner element of a list; chain list heads only", api,
			     !list1->is_head ? "list1" : "list2");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (list1 == list2) {
		DOCA_LOG_ERR("%s: list1 and list2 are the same list; a list cannot be chained to itself", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (list2->refcount != 1) {
		DOCA_LOG_ERR("%s: list2 has refcount %u; it must be 1 (its only owner hands it to list1)", api,
			     list2->refcount);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (list1->list_len > UINT32_MAX - list2->list_len) {
		DOCA_LOG_ERR("%s: the joined list would exceed %u elements", api, UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* Append list2 behind list1 whose last element is tail (all checked). */
static void
chain(struct doca_buf *list1, struct doca_buf *tail, struct doca_buf *list2)
{
	tail->next = list2;
	list1->last = list2->last;
	list1->list_len += list2->list_len;
	list2->is_head = false;
	list2->last = NULL;
	list2->list_len = 0;
}

doca_error_t
doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	doca_error_t err = check_chainable(list1, list2, "doca_buf_chain_list");

	if (err != DOCA_SUCCESS)
		return err;
	chain(list1, list1->last, list2);
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_chain_list_tail(struct doca_buf *list1_head, struct doca_buf *list1_tail, struct doca_buf *list2)
{
	doca_error_t err = check_chainable(list1_head, list2, "doca_buf_chain_list_tail");

	if (err != DOCA_SUCCESS)
		return err;
	if (list1_tail == NULL || list1_tail != list1_head->last) {
		DOCA_LOG_ERR("doca_buf_chain_list_tail: list1_tail %p is not the last element of list1 (%p); pass "
			     "the tail from doca_buf_get_last_in_list()",
			     (void *)list1_tail, (void *)list1_head->last);
		return DOCA_ERROR_INVALID_VALUE;
	}
	chain(list1_head, list1_tail, list2);
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	struct doca_buf *prev;
	uint32_t pos = 1; /* elements before list2 */

	if (list1 == NULL || list2 == NULL) {
		DOCA_LOG_ERR("doca_buf_unchain_list: NULL argument (list1 %p, list2 %p)", (void *)list1, (void *)list2);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!list1->is_head) {
		DOCA_LOG_ERR("doca_buf_unchain_list: list1 is an inner element of a list; pass the list head");
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (prev = list1; prev->next != NULL && prev->next != list2; prev = prev->next)
		pos++;
	if (prev->next != list2) {
		DOCA_LOG_ERR("doca_buf_unchain_list: list2 is not an element after the head of list1");
		return DOCA_ERROR_INVALID_VALUE;
	}
	prev->next = NULL;
	list2->is_head = true;
	list2->last = list1->last;
	list2->list_len = list1->list_len - pos;
	list2->refcount = 1;
	list1->last = prev;
	list1->list_len = pos;
	return DOCA_SUCCESS;
}
