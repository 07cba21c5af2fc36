/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch fast path: consumer start result and the new/expired-consumer events on
 * the peer, ids, producer AGAIN until a buffer is posted (cleared without
 * progress on the producer side), bytes, data length, producer id and immediate
 * data on the consumer's completion, in order, and stop flushing posted buffers.
 */
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>

#include "comch_pair.h"

static uint32_t new_ids[8], gone_ids[8];
static int num_new, num_gone;

static void
consumer_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	new_ids[num_new++ & 7] = id;
}

static void
consumer_gone(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	gone_ids[num_gone++ & 7] = id;
}

struct recv_rec {
	int done, failed;
	doca_error_t status;
	uint32_t producer_id, imm_len;
	uint8_t imm[32];
	size_t len;
	int order[16];
};

static void
recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	struct recv_rec *r = cud.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);

	r->order[r->done & 15] = (int)tud.u64;
	r->done++;
	r->producer_id = doca_comch_consumer_task_post_recv_get_producer_id(t);
	r->imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(t);
	if (r->imm_len != 0)
		memcpy(r->imm, doca_comch_consumer_task_post_recv_get_imm_data(t), r->imm_len);
	ASSERT_OK(doca_buf_get_data_len(buf, &r->len));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	struct recv_rec *r = cud.ptr;

	(void)tud;
	r->failed++;
	r->status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static bool
flag_set(void *arg)
{
	return *(int *)arg != 0;
}

static bool
two_done(void *arg)
{
	return ((struct recv_rec *)arg)->done >= 2;
}

TEST(producer_to_consumer)
{
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep;
	struct side s = {0}, c = {0}, cons_side = {0}, prod_side = {0};
	struct side *all[4] = {&s, &c, &cons_side, &prod_side};
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_comch_consumer_task_post_recv *rt[2];
	struct doca_comch_producer_task_send *st;
	struct doca_buf_inventory *inv;
	struct doca_mmap *rx_mmap, *tx_mmap;
	struct doca_buf *rx[2], *tx;
	static uint8_t rx_mem[2][1 << 20], tx_mem[1 << 20];
	struct recv_rec rec = {0};
	uint8_t imm[5] = {1, 2, 3, 4, 5};
	uint32_t cid;

	pair_connect_fastpath(&s, &c, &host, &dpu, &rep, consumer_new, consumer_gone);

	/* memory: two 1 MiB receive buffers on the server side, one send buffer on the client side */
	ASSERT_OK(doca_mmap_create(&rx_mmap));
	ASSERT_OK(doca_mmap_add_dev(rx_mmap, dpu));
	ASSERT_OK(doca_mmap_set_memrange(rx_mmap, rx_mem, sizeof(rx_mem)));
	ASSERT_OK(doca_mmap_set_permissions(rx_mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(rx_mmap));
	ASSERT_OK(doca_mmap_create(&tx_mmap));
	ASSERT_OK(doca_mmap_add_dev(tx_mmap, host));
	ASSERT_OK(doca_mmap_set_memrange(tx_mmap, tx_mem, sizeof(tx_mem)));
	ASSERT_OK(doca_mmap_set_permissions(tx_mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(tx_mmap));
	ASSERT_OK(doca_buf_inventory_create(4, &inv));
	ASSERT_OK(doca_buf_inventory_start(inv));
	for (unsigned i = 0; i < sizeof(tx_mem); i++)
		tx_mem[i] = (uint8_t)(i * 31 + 7);

	/* consumer on the server's connection: IN_PROGRESS, then RUNNING; the client hears of it */
	ASSERT_OK(doca_comch_consumer_create(s.conn, rx_mmap, &cons));
	ASSERT_OK(doca_pe_create(&cons_side.pe));
	cons_side.ctx = doca_comch_consumer_as_ctx(cons);
	ASSERT_OK(doca_pe_connect_ctx(cons_side.pe, cons_side.ctx));
	ASSERT_OK(doca_ctx_set_user_data(cons_side.ctx, (union doca_data){.ptr = &rec}));
	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(cons, recv_ok, recv_err, 2));
	ASSERT_ERR(doca_ctx_start(cons_side.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(all, 3, flag_set, &num_new, 5000);
	ASSERT_OK(doca_comch_consumer_get_id(cons, &cid));
	ASSERT_NE(cid, 0);
	ASSERT_NE(cid, 0xffff);
	ASSERT_EQ(new_ids[0], cid);

	/* producer on the client's connection: SUCCESS, RUNNING at once */
	ASSERT_OK(doca_comch_producer_create(c.conn, &prod));
	ASSERT_OK(doca_pe_create(&prod_side.pe));
	prod_side.ctx = doca_comch_producer_as_ctx(prod);
	ASSERT_OK(doca_pe_connect_ctx(prod_side.pe, prod_side.ctx));
	ASSERT_OK(doca_comch_producer_task_send_set_conf(prod, pair_fp_send_ok, pair_fp_send_err, 4));
	ASSERT_OK(doca_ctx_start(prod_side.ctx));

	/* nothing posted yet: AGAIN */
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(inv, tx_mmap, tx_mem, 65536, &tx));
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(prod, tx, imm, sizeof(imm), cid, &st));
	ASSERT_ERR(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_ERROR_AGAIN);

	/* post two buffers; the retry succeeds with no progress on the producer side in between */
	for (int i = 0; i < 2; i++) {
		ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, rx_mmap, rx_mem[i], sizeof(rx_mem[i]), &rx[i]));
		ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(cons, rx[i], &rt[i]));
		doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(rt[i]),
					(union doca_data){.u64 = (uint64_t)i});
		ASSERT_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt[i])));
	}
	ASSERT_OK(doca_task_submit(doca_comch_producer_task_send_as_task(st)));
	/* the bytes are in the first posted buffer already */
	ASSERT_MEM_EQ(rx_mem[0], tx_mem, 65536);
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(prod, tx, NULL, 0, cid, &st));
	ASSERT_OK(doca_buf_set_data(tx, tx_mem + 1, 1000));
	ASSERT_OK(doca_task_submit(doca_comch_producer_task_send_as_task(st)));
	progress_until(all, 4, two_done, &rec, 5000);
	ASSERT_EQ(rec.order[0], 0);
	ASSERT_EQ(rec.order[1], 1);
	ASSERT_EQ(rec.len, 1000);
	ASSERT_EQ(rec.imm_len, 0);
	ASSERT_MEM_EQ(rx_mem[1], tx_mem + 1, 1000);
	{
		uint32_t pid;

		ASSERT_OK(doca_comch_producer_get_id(prod, &pid));
		ASSERT_EQ(rec.producer_id, pid);
	}
	progress_for(all, 4, 20);
	ASSERT_EQ(pair_fp_sends_ok, 2);
	ASSERT_EQ(pair_fp_sends_err, 0);

	/* a posted buffer is flushed by the consumer's stop; the client hears it expired */
	{
		struct doca_buf *b;
		struct doca_comch_consumer_task_post_recv *t;

		ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, rx_mmap, rx_mem[0], 100, &b));
		ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(cons, b, &t));
		ASSERT_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
		pair_stop_idle(&cons_side);
		ASSERT_EQ(rec.failed, 1);
		ASSERT_ERR(rec.status, DOCA_ERROR_IO_FAILED);
		doca_buf_dec_refcount(b, NULL);
	}
	ASSERT_ERR(doca_comch_server_disconnect(s.server, s.conn), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_comch_consumer_destroy(cons));
	ASSERT_OK(doca_pe_destroy(cons_side.pe));
	progress_until(all, 2, flag_set, &num_gone, 5000);
	ASSERT_EQ(gone_ids[0], cid);
	pair_stop_idle(&prod_side);
	ASSERT_OK(doca_comch_producer_destroy(prod));
	ASSERT_OK(doca_pe_destroy(prod_side.pe));
	doca_buf_dec_refcount(tx, NULL);
	doca_buf_dec_refcount(rx[0], NULL);
	doca_buf_dec_refcount(rx[1], NULL);
	side_fini(&c);
	side_fini(&s);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
