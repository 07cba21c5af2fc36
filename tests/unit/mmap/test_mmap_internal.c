/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of the mmap/buf contract that only the other softdoca libraries
 * see (mmap_internal.h): pins by running contexts, the list fields the DMA
 * engine walks, the data-placement helpers, and the RDMA hooks.
 */
#include "mmap_internal.h"
#include "mmap_pci_proto.h"
#include "mmap_test.h"

static uint8_t mem[4096];

/* Pinned: stop is refused (a running context caches it), destroy is not; the last unpin frees it. */
TEST(pinned_mmap_cannot_stop_and_outlives_its_destroy)
{
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	int fd = capture_sdk_log();

	sd_mmap_pin(m);
	sd_mmap_pin(m);
	ASSERT_ERR(doca_mmap_stop(m), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(fd, "running context(s) still use the mmap");
	ASSERT(m->started);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_EQ(atomic_load(&m->refs), 2); /* the two pins: the struct stays (ASan sees a use after free else) */
	sd_mmap_unpin(m);
	ASSERT_EQ(atomic_load(&m->refs), 1);
	sd_mmap_unpin(m); /* frees it */
}

/* Walk a list from its head and check every field the engines rely on. */
static void
check_list(struct doca_buf *head, struct doca_buf **expect, uint32_t n)
{
	struct doca_buf *b = head;

	ASSERT(head->is_head);
	ASSERT_EQ(head->list_len, n);
	ASSERT_PTR_EQ(head->last, expect[n - 1]);
	for (uint32_t i = 0; i < n; i++, b = b->next) {
		ASSERT_PTR_EQ(b, expect[i]);
		if (i > 0) {
			ASSERT(!b->is_head);
			ASSERT_PTR_EQ(b->last, NULL);
			ASSERT_EQ(b->list_len, 0);
		}
	}
	ASSERT_PTR_EQ(b, NULL);
}

TEST(list_fields_stay_truthful)
{
	struct doca_buf_inventory *inv = started_inventory(4);
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	struct doca_buf *b[4];

	for (int i = 0; i < 4; i++)
		ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, m, mem + 16 * i, 16, &b[i]));
	check_list(b[0], &b[0], 1);
	ASSERT_OK(doca_buf_chain_list(b[2], b[3]));
	check_list(b[2], &b[2], 2);
	ASSERT_OK(doca_buf_chain_list(b[0], b[1]));
	ASSERT_OK(doca_buf_chain_list(b[0], b[2]));
	check_list(b[0], b, 4);
	ASSERT_OK(doca_buf_unchain_list(b[0], b[1]));
	check_list(b[0], b, 1);
	check_list(b[1], &b[1], 3);
	ASSERT_OK(doca_buf_dec_refcount(b[1], NULL));
	ASSERT_EQ(inv->num_free, 3);
	ASSERT_EQ(atomic_load(&m->num_bufs), 1);
	ASSERT_OK(doca_buf_dec_refcount(b[0], NULL));
	ASSERT_OK(doca_buf_inventory_destroy(inv));
	ASSERT_OK(doca_mmap_destroy(m));
}

/*
 * Data placement: a source list offers the concatenation of its windows, a
 * destination list its tailroom after data + data_len (what the engines use).
 */
TEST(data_placement_helpers)
{
	struct doca_buf_inventory *inv = started_inventory(4);
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	struct doca_buf *s1, *s2, *d1, *d2;

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(inv, m, mem, 10, &s1));
	ASSERT_OK(doca_buf_inventory_buf_get_by_args(inv, m, mem + 100, 50, mem + 110, 20, &s2));
	ASSERT_OK(doca_buf_chain_list(s1, s2));
	ASSERT_EQ(sd_buf_list_data_len(s1), 30);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, m, mem + 1000, 16, &d1));
	ASSERT_OK(doca_buf_inventory_buf_get_by_args(inv, m, mem + 2000, 100, mem + 2010, 5, &d2));
	ASSERT_OK(doca_buf_chain_list(d1, d2));
	ASSERT_EQ(sd_buf_list_tail_room(d1), 16 + (100 - 10 - 5));
	ASSERT(sd_mmap_contains(m, mem, sizeof(mem)));
	ASSERT(!sd_mmap_contains(m, mem + 1, sizeof(mem)));
	ASSERT(!sd_mmap_contains(m, mem + 8, SIZE_MAX));
	ASSERT_OK(doca_buf_dec_refcount(s1, NULL));
	ASSERT_OK(doca_buf_dec_refcount(d1, NULL));
}

/* A fake RDMA library, to check the hook contract from the core side. */
static uint8_t fake_desc[40] = "fake rdma descriptor";
static int revoked, released;
static struct doca_dev *hook_dev;

static doca_error_t
fake_export(struct doca_mmap *mmap, const struct doca_dev *dev, const void **desc, size_t *desc_len)
{
	*desc = fake_desc;
	*desc_len = sizeof(fake_desc);
	return DOCA_SUCCESS;
}

static void
fake_release(void *remote)
{
	released++;
}

static doca_error_t
fake_import(const void *desc, size_t desc_len, struct doca_dev *dev, struct doca_mmap *mmap)
{
	if (desc_len != sizeof(fake_desc))
		return DOCA_ERROR_INVALID_VALUE;
	hook_dev = mmap->devs[0];
	mmap->kind = SD_MMAP_RDMA_REMOTE;
	mmap->addr = (uint8_t *)(uintptr_t)0x10000;
	mmap->len = 4096;
	mmap->memrange_set = true;
	mmap->permissions = DOCA_ACCESS_FLAG_RDMA_READ;
	mmap->remote = &released;
	mmap->remote_release = fake_release;
	return DOCA_SUCCESS;
}

static void
fake_revoke(struct doca_mmap *mmap)
{
	revoked++;
}

static const struct sd_mmap_rdma_hooks fake_hooks = {
	.export_rdma = fake_export,
	.create_from_export = fake_import,
	.export_revoke = fake_revoke,
};

TEST(rdma_hooks_contract)
{
	struct doca_dev *dev = open_host_dev();
	struct doca_mmap *m = started_mmap(mem, sizeof(mem), DOCA_ACCESS_FLAG_RDMA_READ, dev), *r = NULL;
	const void *desc = NULL;
	size_t len = 0;
	void *addr = NULL;
	uint8_t v = 0;

	sd_mmap_set_rdma_hooks(&fake_hooks);
	ASSERT_OK(doca_mmap_export_rdma(m, dev, &desc, &len));
	ASSERT_PTR_EQ(desc, fake_desc);
	ASSERT_EQ(len, sizeof(fake_desc));
	ASSERT_OK(doca_mmap_get_exported(m, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_EQ(revoked, 1);
	ASSERT_OK(doca_mmap_get_exported(m, &v));
	ASSERT_EQ(v, 0);

	/* A foreign descriptor goes to the hook; its refusal is returned as is. */
	ASSERT_ERR(doca_mmap_create_from_export(NULL, desc, 3, dev, &r), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_create_from_export(NULL, desc, sizeof(fake_desc), dev, &r));
	ASSERT_PTR_EQ(hook_dev, dev);
	ASSERT_OK(doca_mmap_get_memrange(r, &addr, &len));
	ASSERT_PTR_EQ(addr, (void *)(uintptr_t)0x10000);
	ASSERT_EQ(len, 4096);
	ASSERT_OK(doca_mmap_get_from_export(r, &v));
	ASSERT_EQ(v, 1);
	ASSERT_ERR(doca_mmap_start(r), DOCA_ERROR_NOT_PERMITTED);
	/* [I] stop on a from-export mmap succeeds and releases the remote once */
	ASSERT_OK(doca_mmap_stop(r));
	ASSERT_EQ(released, 1);
	ASSERT_OK(doca_mmap_destroy(r));
	ASSERT_EQ(released, 1);
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(dev));

	sd_mmap_set_rdma_hooks(NULL);
}

TEST(descriptor_layout_is_pinned)
{
	/* The wire format must not drift silently: sizes and offsets are part of version 1. */
	ASSERT_EQ(sizeof(struct sd_mmap_desc_hdr), 16);
	ASSERT_EQ(sizeof(struct sd_mmap_pci_desc), 96);
	ASSERT_EQ(offsetof(struct sd_mmap_pci_desc, pid), 16);
	ASSERT_EQ(offsetof(struct sd_mmap_pci_desc, start_time), 24);
	ASSERT_EQ(offsetof(struct sd_mmap_pci_desc, addr), 32);
	ASSERT_EQ(offsetof(struct sd_mmap_pci_desc, perm), 48);
	ASSERT_EQ(offsetof(struct sd_mmap_pci_desc, record_addr), 56);
	ASSERT_EQ(sizeof(struct sd_xproc_rec), 64);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
