/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration: a local range mapped with ucp_mem_map and exported as a
 * blob (packed rkey + range + permissions + 128-bit key), and the imported
 * side (struct fabric_rmr) whose rkeys are unpacked per UCP endpoint on first
 * use.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "../core/sd_log.h"
#include "../util/sd_random.h"

SD_LOG_REGISTER(fabric.mem);

static_assert(sizeof(((struct fabric_op *)0)->wire) >= FABRIC_AM_HDR_MAX, "fabric_op.wire holds any header");

struct fabric_mr *
fabric_mr_lookup(struct fabric_dev *dev, uint32_t id)
{
	return fabric_id_lookup((void **)dev->mrs, dev->mrs_cap, id);
}

doca_error_t
sd_fabric_mr_register(struct fabric_dev *dev, void *addr, size_t len, uint32_t perms, struct fabric_mr **out)
{
	ucp_mem_map_params_t mp = {0};
	struct fabric_mr_blob *b;
	struct fabric_mr *mr;
	void *rkey_buf;
	size_t rkey_len;
	ucs_status_t st;
	doca_error_t err;

	if (dev == NULL || out == NULL || addr == NULL || len == 0 || (perms & ~FABRIC_PERM_ALL) != 0)
		return DOCA_ERROR_INVALID_VALUE;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	mr->dev = dev;
	mr->addr = addr;
	mr->len = len;
	mr->perms = perms;
	err = sd_random_bytes(mr->key, sizeof(mr->key));
	if (err != DOCA_SUCCESS)
		goto cleanup_mr;

	/*
	 * Before UCX sees the range: the window replaces its pages.  Only for
	 * remote access (a window is what a peer maps) and when shm may be used.
	 */
	mr->win.fd = -1;
	if ((perms & (FABRIC_PERM_REMOTE_READ | FABRIC_PERM_REMOTE_WRITE)) != 0 && dev->shm_enabled)
		(void)fabric_window_create(addr, len, &mr->win);

	mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
	mp.address = addr;
	mp.length = len;
	fabric_dev_lock(dev);
	st = ucp_mem_map(dev->ucp, &mp, &mr->memh);
	if (st != UCS_OK) {
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to register %zu bytes at %p: %s", len, addr, ucs_status_string(st));
		err = fabric_ucs_to_doca(st);
		goto cleanup_mr;
	}
	st = ucp_rkey_pack(dev->ucp, mr->memh, &rkey_buf, &rkey_len);
	if (st != UCS_OK) {
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to pack remote key: %s", ucs_status_string(st));
		err = fabric_ucs_to_doca(st);
		goto cleanup_map;
	}
	mr->blob_len = sizeof(*b) + rkey_len;
	if (mr->blob_len > FABRIC_BLOB_MAX) {
		ucp_rkey_buffer_release(rkey_buf);
		fabric_dev_unlock(dev);
		DOCA_LOG_ERR("Failed to export memory: packed rkey of %zu bytes exceeds the %u-byte descriptor",
			     rkey_len, FABRIC_BLOB_MAX);
		err = DOCA_ERROR_TOO_BIG;
		goto cleanup_map;
	}
	mr->blob = calloc(1, mr->blob_len);
	if (mr->blob == NULL) {
		ucp_rkey_buffer_release(rkey_buf);
		fabric_dev_unlock(dev);
		err = DOCA_ERROR_NO_MEMORY;
		goto cleanup_map;
	}
	memcpy(mr->blob + sizeof(*b), rkey_buf, rkey_len);
	ucp_rkey_buffer_release(rkey_buf);
	err = fabric_id_alloc((void ***)&dev->mrs, &dev->mrs_cap, mr, &mr->id);
	fabric_dev_unlock(dev);
	if (err != DOCA_SUCCESS)
		goto cleanup_blob;

	b = (struct fabric_mr_blob *)mr->blob;
	b->hdr.magic = FABRIC_MR_MAGIC;
	b->hdr.version = FABRIC_PROTO_VERSION;
	b->hdr.hdr_len = sizeof(*b);
	b->hdr.total_len = (uint32_t)mr->blob_len;
	b->addr = (uintptr_t)addr;
	b->len = len;
	b->perms = perms;
	b->mr_id = mr->id;
	memcpy(b->key, mr->key, sizeof(b->key));
	b->rkey_len = (uint32_t)rkey_len;
	b->win.fd = -1;
	if (mr->win.fd >= 0) {
		b->win.addr = mr->win.addr;
		b->win.len = mr->win.len;
		b->win.ino = mr->win.ino;
		b->win.fd = mr->win.fd;
		b->win.pid = (uint32_t)getpid();
		b->win.pid_ns = dev->pid_ns;
	}
	*out = mr;
	return DOCA_SUCCESS;

cleanup_blob:
	free(mr->blob);
cleanup_map:
	fabric_dev_lock(dev);
	ucp_mem_unmap(dev->ucp, mr->memh);
	fabric_dev_unlock(dev);
cleanup_mr:
	fabric_window_destroy(&mr->win);
	free(mr);
	return err;
}

void
sd_fabric_mr_set_notify(struct fabric_mr *mr, fabric_mr_notify_cb cb, void *arg)
{
	if (mr == NULL)
		return;
	fabric_dev_lock(mr->dev);
	mr->notify = cb;
	mr->notify_arg = arg;
	fabric_dev_unlock(mr->dev);
}

void
sd_fabric_mr_deregister(struct fabric_mr *mr)
{
	struct fabric_dev *dev;

	if (mr == NULL)
		return;
	dev = mr->dev;
	fabric_dev_lock(dev);
	fabric_id_free((void **)dev->mrs, dev->mrs_cap, mr->id);
	ucp_mem_unmap(dev->ucp, mr->memh);
	fabric_dev_unlock(dev);
	fabric_window_destroy(&mr->win);
	free(mr->blob);
	free(mr);
}

doca_error_t
sd_fabric_mr_export(struct fabric_mr *mr, const void **blob, size_t *len)
{
	if (mr == NULL || blob == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*blob = mr->blob;
	*len = mr->blob_len;
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_rmr_import(struct fabric_dev *dev, const void *blob, size_t len, struct fabric_rmr **out)
{
	const struct fabric_mr_blob *b = blob;
	struct fabric_rmr *rmr;

	if (dev == NULL || blob == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (len < FABRIC_MR_BLOB_V1_LEN || len > FABRIC_BLOB_MAX || b->hdr.magic != FABRIC_MR_MAGIC) {
		DOCA_LOG_ERR("Failed to import memory: not a memory descriptor (%zu bytes)", len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (b->hdr.version != FABRIC_PROTO_VERSION) {
		DOCA_LOG_ERR("Failed to import memory: descriptor version %u, this build speaks %u", b->hdr.version,
			     FABRIC_PROTO_VERSION);
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (b->hdr.hdr_len < FABRIC_MR_BLOB_V1_LEN || b->hdr.total_len != len || b->hdr.hdr_len > len ||
	    b->rkey_len == 0 || b->rkey_len > len - b->hdr.hdr_len || b->len == 0 || b->addr + b->len < b->addr ||
	    (b->perms & ~FABRIC_PERM_ALL) != 0 || b->mr_id == 0 ||
	    (b->hdr.hdr_len >= sizeof(*b) && !sd_fabric_window_desc_ok(b))) {
		DOCA_LOG_ERR("Failed to import memory: malformed descriptor (%zu bytes)", len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	rmr = calloc(1, sizeof(*rmr));
	if (rmr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	rmr->rkey_buf = malloc(b->rkey_len);
	if (rmr->rkey_buf == NULL) {
		free(rmr);
		return DOCA_ERROR_NO_MEMORY;
	}
	memcpy(rmr->rkey_buf, (const uint8_t *)blob + b->hdr.hdr_len, b->rkey_len);
	rmr->rkey_len = b->rkey_len;
	rmr->dev = dev;
	rmr->addr = b->addr;
	rmr->len = b->len;
	rmr->perms = b->perms;
	rmr->mr_id = b->mr_id;
	memcpy(rmr->key, b->key, sizeof(rmr->key));
	if (b->hdr.hdr_len >= sizeof(*b) && fabric_window_enabled())
		rmr->win = b->win;
	fabric_dev_lock(dev);
	sd_list_insert_tail(&dev->rmrs, &rmr->node);
	fabric_dev_unlock(dev);
	*out = rmr;
	return DOCA_SUCCESS;
}

static void
rmr_drop_rkey(struct fabric_rmr *rmr, uint32_t i)
{
	ucp_rkey_destroy(rmr->rkeys[i].rkey);
	rmr->rkeys[i] = rmr->rkeys[--rmr->n_rkeys];
}

void
sd_fabric_rmr_destroy(struct fabric_rmr *rmr)
{
	struct fabric_dev *dev;

	if (rmr == NULL)
		return;
	dev = rmr->dev;
	fabric_dev_lock(dev);
	while (rmr->n_rkeys > 0)
		rmr_drop_rkey(rmr, 0);
	sd_list_del(&rmr->node);
	fabric_dev_unlock(dev);
	free(rmr->rkeys);
	free(rmr->rkey_buf);
	if (rmr->win_view != NULL)
		munmap(rmr->win_view, rmr->win.len);
	free(rmr);
}

void
sd_fabric_rmr_get_range(const struct fabric_rmr *rmr, uint64_t *addr, uint64_t *len, uint32_t *perms)
{
	if (addr != NULL)
		*addr = rmr->addr;
	if (len != NULL)
		*len = rmr->len;
	if (perms != NULL)
		*perms = rmr->perms;
}

/* The rkey of rmr usable on ep's UCP endpoint (dev->lock held); NULL if UCX refuses it. */
ucp_rkey_h
fabric_rmr_rkey(struct fabric_rmr *rmr, struct fabric_ep *ep)
{
	struct fabric_rkey_cache *c;
	ucp_rkey_h rkey;
	ucs_status_t st;
	uint32_t i;

	for (i = 0; i < rmr->n_rkeys; i++)
		if (rmr->rkeys[i].ep == ep)
			return rmr->rkeys[i].rkey;
	st = ucp_ep_rkey_unpack(ep->uep, rmr->rkey_buf, &rkey);
	if (st != UCS_OK) {
		DOCA_LOG_ERR("Failed to unpack remote key on connection %u: %s", ep->id, ucs_status_string(st));
		return NULL;
	}
	c = realloc(rmr->rkeys, sizeof(*c) * (rmr->n_rkeys + 1));
	if (c == NULL) {
		ucp_rkey_destroy(rkey);
		return NULL;
	}
	rmr->rkeys = c;
	c[rmr->n_rkeys].ep = ep;
	c[rmr->n_rkeys].rkey = rkey;
	rmr->n_rkeys++;
	return rkey;
}

/* An ep goes away: rkeys unpacked for it go too (dev->lock held). */
void
fabric_rmr_forget_ep(struct fabric_dev *dev, struct fabric_ep *ep)
{
	struct sd_list *pos;
	uint32_t i;

	sd_list_for_each(pos, &dev->rmrs)
	{
		struct fabric_rmr *rmr = sd_container_of(pos, struct fabric_rmr, node);

		for (i = 0; i < rmr->n_rkeys;) {
			if (rmr->rkeys[i].ep == ep)
				rmr_drop_rkey(rmr, i);
			else
				i++;
		}
	}
}
