/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA host<->DPU traffic of the soak: the peer plays the host (function b1:00.0) and exports
 * 128 KiB with doca_mmap_export_pci(); the long-lived process plays the DPU (03:00.0), imports
 * it and per round copies host -> DPU (64 KiB the host filled with the round's pattern,
 * checked here) and DPU -> host (64 KiB checked by the host, which then fills the next
 * round's).  The control channel is the socketpair: 'r' and the round number, one byte back.
 * A killed host fails the next copy (the exporter is gone) or ends the control channel; the
 * DPU side has no connection object, so either is its report (docs/robustness.md).
 */
#include <signal.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "sd_test_peer.h"
#include "soak.h"

#define DM_LEN (64u * 1024u)
#define DM_HOST "0000:b1:00.0"
#define DM_DPU "0000:03:00.0"

struct dm {
	struct doca_dev *dev;
	struct doca_mmap *local, *remote;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	uint8_t *mem, *host_addr; /* host_addr: the export's start in the host's address space */
	int done;
	doca_error_t status;
};

static void
dm_done(struct doca_dma_task_memcpy *t, union doca_data ud, union doca_data cud)
{
	struct dm *m = cud.ptr;

	(void)ud;
	m->status = doca_task_get_status(doca_dma_task_memcpy_as_task(t));
	m->done++;
	doca_task_free(doca_dma_task_memcpy_as_task(t));
}

static struct doca_mmap *
dm_mmap(struct doca_dev *dev, void *mem, size_t len, uint32_t perms)
{
	struct doca_mmap *m;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, len));
	ASSERT_OK(doca_mmap_set_permissions(m, perms));
	ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_start(m));
	return m;
}

static void
dma_up(struct soak_cycle *c)
{
	struct dm *m = calloc(1, sizeof(*m));
	uint8_t desc[1024];
	uint32_t len;
	uint64_t first = c->first;
	uint8_t ok = 0;

	ASSERT_NOT_NULL(m);
	c->state = m;
	ASSERT(soak_xfer(c->sock, &len, sizeof(len), false) && len <= sizeof(desc));
	ASSERT(soak_xfer(c->sock, desc, len, false) && soak_xfer(c->sock, &m->host_addr, sizeof(m->host_addr), false));
	ASSERT(soak_xfer(c->sock, &first, sizeof(first), true) &&
	       soak_xfer(c->sock, &ok, 1, false)); /* the host filled it */
	m->dev = sd_test_open_pci(DM_DPU);
	m->mem = calloc(1, 2 * DM_LEN);
	ASSERT_NOT_NULL(m->mem);
	m->local = dm_mmap(m->dev, m->mem, 2 * DM_LEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	ASSERT_OK(doca_mmap_create_from_export(NULL, desc, len, m->dev, &m->remote));
	ASSERT_OK(doca_buf_inventory_create(8, &m->inv));
	ASSERT_OK(doca_buf_inventory_start(m->inv));
	ASSERT_OK(doca_pe_create(&m->pe));
	ASSERT_OK(doca_dma_create(m->dev, &m->dma));
	ASSERT_OK(doca_dma_task_memcpy_set_conf(m->dma, dm_done, dm_done, 8));
	ASSERT_OK(doca_ctx_set_user_data(doca_dma_as_ctx(m->dma), (union doca_data){.ptr = m}));
	ASSERT_OK(doca_pe_connect_ctx(m->pe, doca_dma_as_ctx(m->dma)));
	ASSERT_OK(doca_ctx_start(doca_dma_as_ctx(m->dma)));
}

/* One copy, waited for under the watchdog. */
static doca_error_t
dm_copy(struct dm *m, struct doca_mmap *from, uint8_t *src, struct doca_mmap *to, uint8_t *dst)
{
	struct doca_dma_task_memcpy *t;
	struct doca_buf *s, *d;
	double start = soak_now();
	doca_error_t err;

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(m->inv, from, src, DM_LEN, &s));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(m->inv, to, dst, DM_LEN, &d));
	m->done = 0;
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(m->dma, s, d, (union doca_data){.u64 = 0}, &t));
	err = doca_task_submit(doca_dma_task_memcpy_as_task(t));
	if (err != DOCA_SUCCESS) {
		doca_task_free(doca_dma_task_memcpy_as_task(t));
	} else {
		while (m->done == 0) {
			if (doca_pe_progress(m->pe) == 0)
				usleep(20);
			soak_watchdog(start, "a DMA copy");
		}
		err = m->status;
	}
	soak_op_took(start);
	ASSERT_OK(doca_buf_dec_refcount(s, NULL));
	ASSERT_OK(doca_buf_dec_refcount(d, NULL));
	return err;
}

static doca_error_t
dma_round(struct soak_cycle *c, uint64_t r)
{
	struct dm *m = c->state;
	doca_error_t err;
	uint8_t ok = 0;
	char cmd = 'r';

	memset(m->mem, 0, DM_LEN);
	err = dm_copy(m, m->remote, m->host_addr, m->local, m->mem);
	if (err != DOCA_SUCCESS)
		return err;
	soak_verify(m->mem, DM_LEN, r, "DMA host->DPU");
	soak_fill(m->mem + DM_LEN, DM_LEN, r);
	err = dm_copy(m, m->local, m->mem + DM_LEN, m->remote, m->host_addr + DM_LEN);
	if (err != DOCA_SUCCESS)
		return err;
	/* the host checks what landed and fills the next round's */
	if (!soak_xfer(c->sock, &cmd, 1, true) || !soak_xfer(c->sock, &r, sizeof(r), true) ||
	    !soak_xfer(c->sock, &ok, 1, false))
		return DOCA_ERROR_CONNECTION_RESET;
	ASSERT_EQ(ok, 1);
	soak_count(K_DMA, 2 * DM_LEN);
	return DOCA_SUCCESS;
}

static void
dma_down(struct soak_cycle *c)
{
	struct dm *m = c->state;
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;

	if (doca_ctx_stop(doca_dma_as_ctx(m->dma)) == DOCA_ERROR_IN_PROGRESS)
		for (double start = soak_now(); st != DOCA_CTX_STATE_IDLE;) {
			(void)doca_pe_progress(m->pe);
			ASSERT_OK(doca_ctx_get_state(doca_dma_as_ctx(m->dma), &st));
			soak_watchdog(start, "a DMA context stop");
		}
	ASSERT_OK(doca_dma_destroy(m->dma));
	ASSERT_OK(doca_pe_destroy(m->pe));
	ASSERT_OK(doca_buf_inventory_stop(m->inv));
	ASSERT_OK(doca_buf_inventory_destroy(m->inv));
	ASSERT_OK(doca_mmap_destroy(m->remote));
	ASSERT_OK(doca_mmap_stop(m->local));
	ASSERT_OK(doca_mmap_destroy(m->local));
	ASSERT_OK(doca_dev_close(m->dev));
	free(m->mem);
	free(m);
}

/* The host: export, then per command check the DPU's bytes and fill the next round's. */
static int
dma_peer(struct soak_cycle *c)
{
	uint8_t *mem = calloc(1, 2 * DM_LEN);
	struct doca_dev *dev = sd_test_open_pci(DM_HOST);
	struct doca_mmap *m;
	const void *desc;
	size_t dlen;
	uint32_t len;
	uint64_t r;
	char cmd;

	ASSERT_NOT_NULL(mem);
	m = dm_mmap(dev, mem, 2 * DM_LEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	ASSERT_OK(doca_mmap_export_pci(m, dev, &desc, &dlen));
	len = (uint32_t)dlen;
	ASSERT(soak_xfer(c->sock, &len, sizeof(len), true) && soak_xfer(c->sock, (void *)desc, dlen, true));
	ASSERT(soak_xfer(c->sock, &mem, sizeof(mem), true));
	ASSERT(soak_xfer(c->sock, &r, sizeof(r), false));
	soak_fill(mem, DM_LEN, r);
	ASSERT(soak_xfer(c->sock, &len, 1, true));
	while (soak_xfer(c->sock, &cmd, 1, false) && cmd == 'r') {
		uint8_t ok = 1;

		ASSERT(soak_xfer(c->sock, &r, sizeof(r), false));
		/* the DPU's copy is done (its completion came before this command): plain reads */
		soak_verify(mem + DM_LEN, DM_LEN, r, "DMA DPU->host");
		soak_fill(mem, DM_LEN, r + 1);
		ASSERT(soak_xfer(c->sock, &ok, 1, true));
	}
	ASSERT_OK(doca_mmap_stop(m));
	ASSERT_OK(doca_mmap_destroy(m));
	ASSERT_OK(doca_dev_close(dev));
	free(mem);
	return 0;
}

const struct soak_kind_ops soak_dma_ops = {
	.name = "DMA",
	.peer = dma_peer,
	.up = dma_up,
	.round = dma_round,
	.down = dma_down,
};
