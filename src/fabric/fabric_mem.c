/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration: a local range with permissions and a random 128-bit
 * key, exported as a blob (fabric_proto.h), and its record (fabric_direct.c)
 * that same-host peers read before copying.  The imported side (struct
 * fabric_rmr) is what the blob says; the owner's record has the last word on
 * every access (fabric_mr_check on the target, peer_grants on the initiator).
 * No UCX memory mapping: nothing reaches the range but the checked paths.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"
#include "../core/sd_core.h"
#include "../util/sd_random.h"

SD_LOG_REGISTER(fabric.mem);

static_assert(sizeof(((struct fabric_op *)0)->wire) >= FABRIC_AM_HDR_MAX, "fabric_op.wire holds any header");

struct fabric_mr *
fabric_mr_lookup(struct fabric_dev *dev, uint32_t id)
{
	return fabric_id_lookup((void **)dev->mrs, dev->mrs_cap, id);
}

static const char *
perm_missing(uint32_t perm)
{
	switch (perm) {
	case FABRIC_PERM_REMOTE_READ:
		return "the range is not registered for remote read";
	case FABRIC_PERM_REMOTE_WRITE:
		return "the range is not registered for remote write";
	default:
		return "the range is not registered for remote atomics";
	}
}

const char *
fabric_mr_check(struct fabric_dev *dev, const struct fabric_ep *ep, const struct fabric_am_rma *rma, uint64_t len,
		uint32_t perm, struct fabric_mr **out)
{
	struct fabric_mr *mr = fabric_mr_lookup(dev, rma->mr_id);
	uint64_t base;

	if (mr == NULL)
		return "no such registration (deregistered, or a forged region id)";
	if (!sd_secret_equal(mr->key, rma->key, sizeof(mr->key)))
		return "wrong key";
	if ((mr->perms & perm) != perm)
		return perm_missing(perm);
	if (ep != NULL && mr->domain != 0 && mr->domain != ep->domain)
		return "the registration belongs to another protection domain than the connection";
	base = (uintptr_t)mr->addr;
	if (rma->raddr < base || len > mr->len || rma->raddr - base > mr->len - len)
		return "outside the registered range";
	*out = mr;
	return NULL;
}

/* The key of an rkey-addressed range: the rkey, then zeros (a random key matches it with odds 2^-96). */
static void
rkey_to_key(uint32_t rkey, uint8_t key[16])
{
	memset(key, 0, 16);
	memcpy(key, &rkey, sizeof(rkey));
}

/*
 * A range that lies in a shared object (memfd, shm, hugetlbfs, a MAP_SHARED
 * file) is named in its record so same-host peers can map it
 * (fabric_mapped.c); private memory is copied by the kernel as before.
 */
static void
mr_find_share(struct fabric_dev *dev, struct fabric_mr *mr)
{
	const char *what = "";

	if (!dev->direct_enabled || !dev->mapped_enabled || dev->recs == NULL)
		return;
	sd_xproc_share_find(mr->addr, mr->len, &mr->share, &what);
	if (mr->share.fd >= 0)
		DOCA_LOG_DBG("Region %p+%zu lies in a shared object: same-host peers may map it", mr->addr, mr->len);
	else
		DOCA_LOG_DBG("Region %p+%zu is not mapped by peers: %s", mr->addr, mr->len, what);
}

static doca_error_t
mr_register(struct fabric_dev *dev, void *addr, size_t len, uint32_t perms, uint32_t domain, struct fabric_mr **out,
	    uint32_t *rkey)
{
	struct fabric_mr_blob *b;
	struct fabric_mr *mr;
	doca_error_t err;

	if (dev == NULL || out == NULL || addr == NULL || len == 0 || (perms & ~FABRIC_PERM_ALL) != 0 ||
	    (uintptr_t)addr + len < (uintptr_t)addr)
		return DOCA_ERROR_INVALID_VALUE;
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	mr->dev = dev;
	mr->addr = addr;
	mr->len = len;
	mr->perms = perms;
	mr->domain = domain;
	mr->share = SD_XPROC_SHARE_NONE;
	err = sd_random_bytes(mr->key, sizeof(mr->key));
	if (err != DOCA_SUCCESS)
		goto cleanup_mr;
	mr_find_share(dev, mr);

	fabric_dev_lock(dev);
	err = fabric_id_alloc((void ***)&dev->mrs, &dev->mrs_cap, mr, &mr->id);
	if (err == DOCA_SUCCESS && rkey != NULL) {
		if (mr->id > FABRIC_RKEY_MAX_ID) {
			fabric_id_free((void **)dev->mrs, dev->mrs_cap, mr->id);
			err = DOCA_ERROR_FULL;
		} else {
			/* the random key's first byte becomes the tag; never 0, so no rkey is 0 */
			*rkey = mr->id << 8 | (mr->key[0] != 0 ? mr->key[0] : 1u);
			rkey_to_key(*rkey, mr->key);
		}
	}
	if (err == DOCA_SUCCESS)
		fabric_rec_publish(dev, mr);
	fabric_dev_unlock(dev);
	if (err != DOCA_SUCCESS)
		goto cleanup_mr;

	b = &mr->blob;
	b->hdr.magic = FABRIC_MR_MAGIC;
	b->hdr.version = FABRIC_PROTO_VERSION;
	b->hdr.hdr_len = sizeof(*b);
	b->hdr.total_len = sizeof(*b);
	b->addr = (uintptr_t)addr;
	b->len = len;
	b->perms = perms;
	b->mr_id = mr->id;
	memcpy(b->key, mr->key, sizeof(b->key));
	*out = mr;
	return DOCA_SUCCESS;

cleanup_mr:
	sd_xproc_share_drop(&mr->share);
	free(mr);
	return err;
}

doca_error_t
sd_fabric_mr_register(struct fabric_dev *dev, void *addr, size_t len, uint32_t perms, struct fabric_mr **out)
{
	return mr_register(dev, addr, len, perms, 0, out, NULL);
}

doca_error_t
sd_fabric_mr_register_rkey(struct fabric_dev *dev, void *addr, size_t len, uint32_t perms, uint32_t domain,
			   struct fabric_mr **out, uint32_t *rkey)
{
	if (rkey == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return mr_register(dev, addr, len, perms, domain, out, rkey);
}

void
sd_fabric_rmr_init_rkey(struct fabric_rmr *rmr, struct fabric_dev *dev, uint32_t rkey)
{
	rmr->dev = dev;
	rmr->addr = 0;
	rmr->len = UINT64_MAX;
	rmr->perms = FABRIC_PERM_ALL;
	rmr->mr_id = rkey >> 8;
	rkey_to_key(rkey, rmr->key);
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
	fabric_rec_revoke(dev, mr);
	fabric_id_free((void **)dev->mrs, dev->mrs_cap, mr->id);
	fabric_dev_unlock(dev);
	/* after the revocation: a peer that takes the descriptor now finds no record to use it with */
	sd_xproc_share_drop(&mr->share);
	explicit_bzero(mr->key, sizeof(mr->key));
	explicit_bzero(mr->blob.key, sizeof(mr->blob.key));
	free(mr);
}

doca_error_t
sd_fabric_mr_export(struct fabric_mr *mr, const void **blob, size_t *len)
{
	if (mr == NULL || blob == NULL || len == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*blob = &mr->blob;
	*len = sizeof(mr->blob);
	return DOCA_SUCCESS;
}

doca_error_t
sd_fabric_rmr_import(struct fabric_dev *dev, const void *blob, size_t len, struct fabric_rmr **out)
{
	struct fabric_mr_blob b;
	struct fabric_rmr *rmr;
	const char *why = NULL;
	doca_error_t err;

	if (dev == NULL || blob == NULL || out == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* the caller logged the reason when it parsed the descriptor around the blob */
	err = sd_fabric_mr_blob_parse(blob, len, &b, &why);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_DBG("Memory blob refused: %s", why);
		return err;
	}
	rmr = calloc(1, sizeof(*rmr));
	if (rmr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	rmr->dev = dev;
	rmr->addr = b.addr;
	rmr->len = b.len;
	rmr->perms = b.perms;
	rmr->mr_id = b.mr_id;
	memcpy(rmr->key, b.key, sizeof(rmr->key));
	*out = rmr;
	return DOCA_SUCCESS;
}

void
sd_fabric_rmr_destroy(struct fabric_rmr *rmr)
{
	if (rmr == NULL)
		return;
	explicit_bzero(rmr->key, sizeof(rmr->key));
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
