/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf_inventory: pools of doca_buf descriptors, grown in chunks that never
 * move (bufs handed out stay valid across doca_buf_inventory_expand).
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf_inventory.h>

#include "mmap_core.h"
#include "mmap_internal.h"
#include "sd_log.h"
#include "strict.h"

SD_LOG_REGISTER(core.buf_inventory);

/* Add a chunk of n free bufs.  NO_MEMORY leaves the inventory unchanged. */
static doca_error_t
inventory_add_chunk(struct doca_buf_inventory *inv, uint32_t n)
{
	struct doca_buf **chunks, *bufs;

	bufs = calloc(n, sizeof(*bufs));
	if (bufs == NULL)
		return DOCA_ERROR_NO_MEMORY;
	chunks = realloc(inv->chunks, (inv->num_chunks + 1) * sizeof(*chunks));
	if (chunks == NULL) {
		free(bufs);
		return DOCA_ERROR_NO_MEMORY;
	}
	inv->chunks = chunks;
	inv->chunks[inv->num_chunks++] = bufs;
	if (inv->bufs == NULL)
		inv->bufs = bufs;
	/* Push in reverse so bufs are handed out in address order. */
	for (uint32_t i = n; i-- > 0;) {
		bufs[i].inv = inv;
		bufs[i].is_head = true;
		bufs[i].free_next = inv->free_list;
		inv->free_list = &bufs[i];
	}
	inv->num_elements += n;
	inv->num_free += n;
	return DOCA_SUCCESS;
}

static void
inventory_free(struct doca_buf_inventory *inv)
{
	for (uint32_t i = 0; i < inv->num_chunks; i++)
		free(inv->chunks[i]);
	free(inv->chunks);
	free(inv);
}

doca_error_t
doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
	struct doca_buf_inventory *inv;

	if (inventory == NULL || num_elements == 0 || num_elements > UINT32_MAX) {
		DOCA_LOG_ERR("doca_buf_inventory_create: invalid argument (num_elements %zu, inventory %p); pass 1.."
			     "%u elements and an output pointer",
			     num_elements, (void *)inventory, UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	inv = calloc(1, sizeof(*inv));
	if (inv == NULL || inventory_add_chunk(inv, (uint32_t)num_elements) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_buf_inventory_create: out of memory for %zu elements", num_elements);
		free(inv);
		return DOCA_ERROR_NO_MEMORY;
	}
	*inventory = inv;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_destroy: inventory is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inventory->num_free != inventory->num_elements) {
		DOCA_LOG_ERR("doca_buf_inventory_destroy: %u of %u bufs are still taken; release them with "
			     "doca_buf_dec_refcount() first",
			     inventory->num_elements - inventory->num_free, inventory->num_elements);
		return DOCA_ERROR_IN_USE;
	}
	/* Strict mode only: a released buf a task still uses would be freed under it. */
	if (sd_unlikely(sd_strict_on) && sd_strict_inventory_in_use(inventory, SD_STRICT_CALLER()))
		return DOCA_ERROR_IN_USE;
	inventory_free(inventory);
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_start: inventory is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inventory->started) {
		DOCA_LOG_ERR("doca_buf_inventory_start: inventory is already started");
		return DOCA_ERROR_BAD_STATE;
	}
	inventory->started = true;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
	if (inventory == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_stop: inventory is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!inventory->started) {
		DOCA_LOG_ERR("doca_buf_inventory_stop: inventory is not started");
		return DOCA_ERROR_BAD_STATE;
	}
	inventory->started = false;
	return DOCA_SUCCESS;
}

/* Pop a free buf (the caller checked num_free). */
static struct doca_buf *
inventory_take(struct doca_buf_inventory *inv)
{
	struct doca_buf *buf = inv->free_list;

	inv->free_list = buf->free_next;
	buf->free_next = NULL;
	inv->num_free--;
	return buf;
}

/* A fresh single-element list of refcount 1 over [addr, addr + len). */
static void
buf_init(struct doca_buf *buf, struct doca_mmap *mmap, uint8_t *addr, size_t len, uint8_t *data, size_t data_len)
{
	buf->mmap = mmap;
	buf->head = addr;
	buf->len = len;
	buf->data = data;
	buf->data_len = data_len;
	buf->refcount = 1;
	buf->next = NULL;
	buf->last = buf;
	buf->list_len = 1;
	buf->is_head = true;
	atomic_fetch_add(&mmap->num_bufs, 1);
}

void
sd_buf_inventory_put(struct doca_buf *buf)
{
	struct doca_buf_inventory *inv = buf->inv;

	/*
	 * buf->mmap stays: a task still in flight on a buf released too early (strict mode's
	 * buf-released-in-flight) reads it when it runs (the cross-process engine asks it for the
	 * exporter), and the running context's pin keeps that mmap alive.
	 */
	atomic_fetch_sub(&buf->mmap->num_bufs, 1);
	buf->refcount = 0;
	buf->next = NULL;
	buf->last = NULL;
	buf->list_len = 0;
	buf->is_head = true;
	buf->free_next = inv->free_list;
	inv->free_list = buf;
	inv->num_free++;
}

static doca_error_t
check_started(const struct doca_buf_inventory *inv, const char *api)
{
	if (!inv->started) {
		DOCA_LOG_ERR("%s: inventory is not started; call doca_buf_inventory_start() first", api);
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr, size_t len,
				   void *data, size_t data_len, struct doca_buf **buf)
{
	static const char api[] = "doca_buf_inventory_buf_get_by_args";
	uintptr_t a = (uintptr_t)addr, d = (uintptr_t)data;
	doca_error_t err;

	if (inventory == NULL || mmap == NULL || buf == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (inventory %p, mmap %p, buf %p)", api, (void *)inventory, (void *)mmap,
			     (void *)buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_started(inventory, api);
	if (err != DOCA_SUCCESS)
		return err;
	if (!mmap->started) {
		DOCA_LOG_ERR("%s: mmap is not started; call doca_mmap_start() before taking bufs from it", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_mmap_contains(mmap, addr, len)) {
		DOCA_LOG_ERR("%s: buffer [%p, +%zu) is not inside the mmap's range [%p, +%zu); take bufs inside the "
			     "memrange",
			     api, addr, len, (void *)mmap->addr, mmap->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d < a || data_len > len || d - a > len - data_len) {
		DOCA_LOG_ERR("%s: data window [%p, +%zu) is not inside the buffer [%p, +%zu)", api, data, data_len,
			     addr, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inventory->num_free == 0) {
		/* Expected under load: debug level, no flood. */
		DOCA_LOG_DBG("%s: inventory is empty (%u elements); release bufs or doca_buf_inventory_expand()", api,
			     inventory->num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	*buf = inventory_take(inventory);
	buf_init(*buf, mmap, addr, len, data, data_len);
	return DOCA_SUCCESS;
}

/* Re-point a taken buf within its mmap (doca_buf_inventory.h): api names the caller for the log line. */
static doca_error_t
buf_reuse(struct doca_buf *buf, uint8_t *addr, size_t len, size_t data_len, const char *api)
{
	if (buf == NULL || addr == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (buf %p, address %p)", api, (void *)buf, (void *)addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (buf->refcount == 0) {
		DOCA_LOG_ERR("%s: buf %p is free (back in its inventory); reuse a buf you hold", api, (void *)buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!sd_mmap_contains(buf->mmap, addr, len)) {
		DOCA_LOG_ERR("%s: region [%p, +%zu) is not inside the buf's mmap range [%p, +%zu); a buf stays in "
			     "its own mmap (take one from another mmap's range instead)",
			     api, (void *)addr, len, (void *)buf->mmap->addr, buf->mmap->len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* the list linkage (next, last, list_len, is_head) and the refcount stay as they are */
	buf->head = addr;
	buf->len = len;
	buf->data = addr;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr, size_t len)
{
	return buf_reuse(buf, addr, len, 0, "doca_buf_inventory_buf_reuse_by_addr");
}

doca_error_t
doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data, size_t data_len)
{
	return buf_reuse(buf, data, data_len, data_len, "doca_buf_inventory_buf_reuse_by_data");
}

doca_error_t
doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory, const struct doca_buf *src_buf,
			   struct doca_buf **dst_buf)
{
	static const char api[] = "doca_buf_inventory_buf_dup";
	struct doca_buf *head = NULL, *tail = NULL, *copy;
	const struct doca_buf *src;
	uint32_t count;
	doca_error_t err;

	if (inventory == NULL || src_buf == NULL || dst_buf == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (inventory %p, src_buf %p, dst_buf %p)", api, (void *)inventory,
			     (const void *)src_buf, (void *)dst_buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (src_buf->refcount == 0) {
		DOCA_LOG_ERR("%s: src_buf is free (refcount 0); duplicate a buf you hold", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_started(inventory, api);
	if (err != DOCA_SUCCESS)
		return err;
	/* A head is duplicated with its whole list; an inner element alone. */
	count = src_buf->is_head ? src_buf->list_len : 1;
	if (inventory->num_free < count) {
		DOCA_LOG_DBG("%s: inventory has %u free elements, the copy needs %u", api, inventory->num_free, count);
		return DOCA_ERROR_NO_MEMORY;
	}
	src = src_buf;
	for (uint32_t i = 0; i < count; i++, src = src->next) {
		copy = inventory_take(inventory);
		buf_init(copy, src->mmap, src->head, src->len, src->data, src->data_len);
		if (head == NULL) {
			head = copy;
		} else {
			copy->is_head = false;
			copy->last = NULL;
			copy->list_len = 0;
			tail->next = copy;
		}
		tail = copy;
	}
	head->last = tail;
	head->list_len = count;
	*dst_buf = head;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory, union doca_data user_data)
{
	if (inventory == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_set_user_data: inventory is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	inventory->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory, union doca_data *user_data)
{
	if (inventory == NULL || user_data == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_get_user_data: NULL argument (inventory %p, user_data %p)",
			     (const void *)inventory, (void *)user_data);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*user_data = inventory->user_data;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory, uint32_t *num_of_elements)
{
	if (inventory == NULL || num_of_elements == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_get_num_elements: NULL argument (inventory %p, num_of_elements %p)",
			     (const void *)inventory, (void *)num_of_elements);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*num_of_elements = inventory->num_elements;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory, uint32_t *num_of_free_elements)
{
	if (inventory == NULL || num_of_free_elements == NULL) {
		DOCA_LOG_ERR("doca_buf_inventory_get_num_free_elements: NULL argument (inventory %p, "
			     "num_of_free_elements %p)",
			     (const void *)inventory, (void *)num_of_free_elements);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*num_of_free_elements = inventory->num_free;
	return DOCA_SUCCESS;
}

doca_error_t
doca_buf_inventory_expand(struct doca_buf_inventory *inventory, uint32_t num_elements)
{
	if (inventory == NULL || num_elements == 0 || num_elements > UINT32_MAX - inventory->num_elements) {
		DOCA_LOG_ERR("doca_buf_inventory_expand: invalid argument (inventory %p, num_elements %u); add at "
			     "least 1 element, at most %u in total",
			     (void *)inventory, num_elements, UINT32_MAX);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (inventory_add_chunk(inventory, num_elements) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("doca_buf_inventory_expand: out of memory for %u more elements", num_elements);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}
