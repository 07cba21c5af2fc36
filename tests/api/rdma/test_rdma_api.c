/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA contract inside one process: creation, capabilities, every
 * property's default / range / state rule, the STARTING -> RUNNING start,
 * export limits and descriptor refusals, RDMA mmap and sync-event exports,
 * task allocation and accessors, buffer lists (two contexts of one process
 * connected to each other), and stop with tasks in flight.
 */
#include <poll.h>

#include "rdma_test.h"

/* The node's address is the context's user data: open it in place. */
static void
fresh(struct node *n)
{
	node_open(n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
		  DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
}

TEST(create_refusals)
{
	struct doca_dev *dev = open_rdma_dev();
	struct doca_rdma *rdma = (struct doca_rdma *)(uintptr_t)0x1;

	ASSERT_ERR(doca_rdma_create(NULL, &rdma), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(rdma, (void *)0x1); /* untouched on failure */
	ASSERT_ERR(doca_rdma_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT(doca_rdma_as_ctx(NULL) == NULL);
	ASSERT_OK(doca_rdma_create(dev, &rdma));
	/* the context holds the device */
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_rdma_destroy(rdma));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(caps)
{
	struct doca_dev *dev = open_rdma_dev();
	const struct doca_devinfo *di = doca_dev_as_devinfo(dev);
	struct doca_rdma_gid gid[2];
	uint32_t v;

	ASSERT_OK(doca_rdma_cap_get_max_recv_queue_size(di, &v));
	ASSERT(v >= 64);
	ASSERT_OK(doca_rdma_cap_get_max_send_queue_size(di, &v));
	ASSERT(v >= 64);
	ASSERT_OK(doca_rdma_cap_get_max_send_buf_list_len(di, &v));
	ASSERT(v >= 1);
	ASSERT_OK(doca_rdma_cap_get_max_message_size(di, &v));
	ASSERT(v >= (1u << 20));
	ASSERT_OK(doca_rdma_cap_task_receive_get_max_dst_buf_list_len(di, DOCA_RDMA_TRANSPORT_TYPE_RC, &v));
	ASSERT(v >= 1);
	ASSERT_OK(doca_rdma_cap_get_gid_table_size(di, &v));
	ASSERT(v >= 1);
	ASSERT_OK(doca_rdma_cap_get_gid(di, 0, 1, gid));
	ASSERT_ERR(doca_rdma_cap_get_gid(di, v, 1, gid), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_cap_get_gid(di, 0, v + 1, gid), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_cap_transport_type_is_supported(di, DOCA_RDMA_TRANSPORT_TYPE_RC));
	ASSERT_ERR(doca_rdma_cap_transport_type_is_supported(di, (enum doca_rdma_transport_type)7),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_cap_get_max_message_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_cap_get_max_message_size(di, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_cap_task_receive_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_send_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_send_imm_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_read_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_write_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_write_imm_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_atomic_cmp_swp_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_atomic_fetch_add_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_remote_net_sync_event_get_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(di));
	ASSERT_OK(doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(di));
	ASSERT_ERR(doca_rdma_cap_task_send_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(properties)
{
	struct node n = {0};

	fresh(&n);
	enum doca_rdma_transport_type tt;
	enum doca_mtu_size mtu;
	uint32_t v, maxq;
	uint16_t v16;
	uint8_t v8;

	/* defaults */
	ASSERT_OK(doca_rdma_get_send_queue_size(n.rdma, &v));
	ASSERT_EQ(v, 64);
	ASSERT_OK(doca_rdma_get_recv_queue_size(n.rdma, &v));
	ASSERT_EQ(v, 64);
	ASSERT_OK(doca_rdma_get_max_send_buf_list_len(n.rdma, &v));
	ASSERT_EQ(v, 1);
	ASSERT_OK(doca_rdma_get_transport_type(n.rdma, &tt));
	ASSERT_EQ(tt, DOCA_RDMA_TRANSPORT_TYPE_RC);
	ASSERT_OK(doca_rdma_get_mtu(n.rdma, &mtu));
	ASSERT_EQ(mtu, DOCA_MTU_SIZE_1K_BYTES);
	ASSERT_OK(doca_rdma_get_permissions(n.rdma, &v));
	ASSERT_EQ(v, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE); /* set by node_open */
	ASSERT_OK(doca_rdma_get_rnr_retry_count(n.rdma, &v8));
	ASSERT_EQ(v8, 7);
	ASSERT_OK(doca_rdma_task_receive_get_dst_buf_list_len(n.rdma, &v));
	ASSERT_EQ(v, 1);

	/* ranges */
	ASSERT_OK(doca_rdma_cap_get_max_send_queue_size(doca_dev_as_devinfo(n.dev), &maxq));
	ASSERT_ERR(doca_rdma_set_send_queue_size(n.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_set_send_queue_size(n.rdma, maxq + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_send_queue_size(n.rdma, 128));
	ASSERT_OK(doca_rdma_get_send_queue_size(n.rdma, &v));
	ASSERT_EQ(v, 128);
	ASSERT_OK(doca_rdma_set_recv_queue_size(n.rdma, 32));
	ASSERT_OK(doca_rdma_set_max_send_buf_list_len(n.rdma, 4));
	ASSERT_ERR(doca_rdma_set_max_send_buf_list_len(n.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_set_mtu(n.rdma, DOCA_MTU_SIZE_RAW_ETHERNET), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_mtu(n.rdma, DOCA_MTU_SIZE_4K_BYTES));
	ASSERT_OK(doca_rdma_set_permissions(n.rdma, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE));
	ASSERT_ERR(doca_rdma_set_permissions(n.rdma, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_get_permissions(n.rdma, &v));
	ASSERT_EQ(v, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE);
	ASSERT_OK(doca_rdma_set_grh_enabled(n.rdma, 1));
	ASSERT_OK(doca_rdma_get_grh_enabled(n.rdma, &v8));
	ASSERT_EQ(v8, 1);
	ASSERT_OK(doca_rdma_set_gid_index(n.rdma, 0));
	ASSERT_OK(doca_rdma_cap_get_gid_table_size(doca_dev_as_devinfo(n.dev), &v));
	ASSERT_ERR(doca_rdma_set_gid_index(n.rdma, v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_sl(n.rdma, 15));
	ASSERT_ERR(doca_rdma_set_sl(n.rdma, 16), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_get_sl(n.rdma, &v));
	ASSERT_EQ(v, 15);
	ASSERT_ERR(doca_rdma_set_max_num_connections(n.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_max_num_connections(n.rdma, 8));
	ASSERT_OK(doca_rdma_get_max_num_connections(n.rdma, &v16));
	ASSERT_EQ(v16, 8);
	ASSERT_ERR(doca_rdma_set_rnr_retry_count(n.rdma, 8), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_rnr_retry_count(n.rdma, 3));
	ASSERT_ERR(doca_rdma_task_receive_set_dst_buf_list_len(n.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_task_receive_set_dst_buf_list_len(n.rdma, 4));
	ASSERT_ERR(doca_rdma_set_transport_type(n.rdma, (enum doca_rdma_transport_type)5), DOCA_ERROR_INVALID_VALUE);

	/* DC: one out-of-band connection, in either setter order */
	ASSERT_ERR(doca_rdma_set_transport_type(n.rdma, DOCA_RDMA_TRANSPORT_TYPE_DC), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_max_num_connections(n.rdma, 1));
	ASSERT_OK(doca_rdma_set_transport_type(n.rdma, DOCA_RDMA_TRANSPORT_TYPE_DC));
	ASSERT_ERR(doca_rdma_set_max_num_connections(n.rdma, 2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_set_transport_type(n.rdma, DOCA_RDMA_TRANSPORT_TYPE_RC));

	/* NULLs */
	ASSERT_ERR(doca_rdma_set_sl(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_get_sl(n.rdma, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_get_sl(NULL, &v), DOCA_ERROR_INVALID_VALUE);

	/* device-side datapaths */
	{
		doca_dpa_dev_rdma_t h;
		struct doca_gpu_dev_rdma *g;

		ASSERT_ERR(doca_rdma_get_dpa_handle(n.rdma, &h), DOCA_ERROR_NOT_SUPPORTED);
		ASSERT_ERR(doca_rdma_get_gpu_handle(n.rdma, &g), DOCA_ERROR_NOT_SUPPORTED);
		ASSERT_ERR(doca_ctx_set_datapath_on_gpu(n.ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
		ASSERT_ERR(doca_ctx_set_datapath_on_dpa(n.ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	}

	/* setters refuse once started; getters still answer */
	node_start(&n);
	ASSERT_ERR(doca_rdma_set_sl(n.rdma, 1), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_rdma_set_permissions(n.rdma, DOCA_ACCESS_FLAG_RDMA_READ), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_rdma_task_send_set_conf(n.rdma, send_cb, send_cb, 4), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_rdma_get_sl(n.rdma, &v));
	ASSERT_EQ(v, 15);
	ASSERT_ERR(doca_rdma_destroy(n.rdma), DOCA_ERROR_BAD_STATE);
	node_close(&n);
}

TEST(start_goes_through_starting)
{
	struct node n = {0};

	fresh(&n);

	ASSERT_OK(doca_ctx_start(n.ctx));
	ASSERT_EQ(n.state, DOCA_CTX_STATE_STARTING);
	ASSERT_EQ(n.state_changes, 1);
	/* RUNNING comes from progress */
	ASSERT_EQ(doca_pe_progress(n.pe), 1);
	ASSERT_EQ(n.state, DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(n.state_changes, 2);
	/* nothing in flight: stop is immediate, and again on IDLE */
	ASSERT_OK(doca_ctx_stop(n.ctx));
	ASSERT_EQ(n.state, DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_ctx_stop(n.ctx));
	/* and it starts again */
	node_start(&n);
	node_close(&n);
}

TEST(export_rules)
{
	struct node n = {0};

	fresh(&n);
	struct doca_rdma_connection *c1, *c2, *c3 = (struct doca_rdma_connection *)(uintptr_t)0x1;
	const void *b1, *b2, *b3 = NULL;
	size_t l1, l2, l3 = 0;
	uint8_t copy[BLOB_MAX];
	uint32_t id1, id2;

	ASSERT_OK(doca_rdma_set_max_num_connections(n.rdma, 2));
	/* not started */
	ASSERT_ERR(doca_rdma_export(n.rdma, &b1, &l1, &c1), DOCA_ERROR_BAD_STATE);
	node_start(&n);
	ASSERT_ERR(doca_rdma_export(NULL, &b1, &l1, &c1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_export(n.rdma, NULL, &l1, &c1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_export(n.rdma, &b1, &l1, &c1));
	ASSERT_OK(doca_rdma_export(n.rdma, &b2, &l2, &c2));
	ASSERT(c1 != c2);
	ASSERT(l1 > 48 && l1 <= 4096);
	ASSERT(l2 > 48 && l2 <= 4096);
	/* a new random key each call: descriptors differ */
	ASSERT(l1 != l2 || memcmp(b1, b2, l1) != 0);
	ASSERT_OK(doca_rdma_connection_get_id(c1, &id1));
	ASSERT_OK(doca_rdma_connection_get_id(c2, &id2));
	ASSERT(id1 != id2);
	/* the context is full */
	ASSERT_ERR(doca_rdma_export(n.rdma, &b3, &l3, &c3), DOCA_ERROR_FULL);
	ASSERT(b3 == NULL && l3 == 0 && c3 == (void *)0x1);
	/* malformed peer descriptors */
	memcpy(copy, b2, l2);
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, 0, c1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, 47, c1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, l2 - 1, c1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, 5000, c1), DOCA_ERROR_INVALID_VALUE);
	copy[0] ^= 1;
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, l2, c1), DOCA_ERROR_INVALID_VALUE);
	copy[0] ^= 1;
	copy[4] = 9; /* version */
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, l2, c1), DOCA_ERROR_UNSUPPORTED_VERSION);
	copy[4] = 1;
	copy[16] = 1; /* transport DC vs our RC */
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, l2, c1), DOCA_ERROR_INVALID_VALUE);
	copy[16] = 0;
	ASSERT_ERR(doca_rdma_connect(n.rdma, NULL, l2, c1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, l2, NULL), DOCA_ERROR_INVALID_VALUE);
	/* the two connections of one context connect to each other (loopback) */
	ASSERT_OK(doca_rdma_connect(n.rdma, copy, l2, c1));
	ASSERT_ERR(doca_rdma_connect(n.rdma, copy, l2, c1), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_rdma_connect(n.rdma, b1, l1, c2));
	node_close(&n);
}

TEST(mmap_export_rdma)
{
	struct node n = {0};

	fresh(&n);
	struct doca_mmap *imp, *local_only;
	const void *desc, *desc2;
	size_t len, len2, rlen;
	void *raddr;
	uint8_t copy[BLOB_MAX];

	ASSERT_OK(doca_mmap_export_rdma(n.mmap, n.dev, &desc, &len));
	ASSERT(len > 40 && len <= 4096);
	/* a second export hands out the same descriptor */
	ASSERT_OK(doca_mmap_export_rdma(n.mmap, n.dev, &desc2, &len2));
	ASSERT_EQ(len2, len);
	ASSERT_MEM_EQ(desc2, desc, len);
	ASSERT_OK(doca_mmap_create_from_export(NULL, desc, len, n.dev, &imp));
	ASSERT_OK(doca_mmap_get_memrange(imp, &raddr, &rlen));
	ASSERT_PTR_EQ(raddr, n.mem);
	ASSERT_EQ(rlen, MEM_LEN);
	/* malformed descriptors */
	memcpy(copy, desc, len);
	{
		struct doca_mmap *bad = NULL;

		ASSERT_ERR(doca_mmap_create_from_export(NULL, copy, len - 1, n.dev, &bad), DOCA_ERROR_INVALID_VALUE);
		copy[24] ^= 0x10; /* length disagrees with the fabric blob */
		ASSERT_ERR(doca_mmap_create_from_export(NULL, copy, len, n.dev, &bad), DOCA_ERROR_INVALID_VALUE);
		copy[24] ^= 0x10;
		copy[4] = 7; /* version */
		ASSERT_ERR(doca_mmap_create_from_export(NULL, copy, len, n.dev, &bad), DOCA_ERROR_UNSUPPORTED_VERSION);
		ASSERT(bad == NULL);
	}
	/* an mmap without RDMA permission cannot be exported for RDMA */
	ASSERT_OK(doca_mmap_create(&local_only));
	ASSERT_OK(doca_mmap_set_memrange(local_only, n.mem, 4096));
	ASSERT_OK(doca_mmap_add_dev(local_only, n.dev));
	ASSERT_OK(doca_mmap_start(local_only));
	ASSERT_ERR(doca_mmap_export_rdma(local_only, n.dev, &desc2, &len2), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_mmap_destroy(local_only));
	/* stop on both sides succeeds (the samples' teardown) */
	ASSERT_OK(doca_mmap_stop(imp));
	ASSERT_OK(doca_mmap_destroy(imp));
	node_close(&n);
}

TEST(sync_event_export)
{
	struct node n = {0};

	fresh(&n);
	struct doca_sync_event *se;
	struct doca_sync_event_remote_net *r;
	const uint8_t *desc, *desc2;
	size_t len, len2;
	uint8_t copy[BLOB_MAX];

	ASSERT_OK(doca_sync_event_create(&se));
	ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(se));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(se, n.dev));
	ASSERT_OK(doca_sync_event_start(se));
	ASSERT_OK(doca_sync_event_export_to_remote_net(se, &desc, &len));
	ASSERT(len > 32 && len <= 4096);
	ASSERT_OK(doca_sync_event_export_to_remote_net(se, &desc2, &len2));
	ASSERT_EQ(len, len2);
	ASSERT_OK(doca_sync_event_remote_net_create_from_export(n.dev, desc, len, &r));
	ASSERT_OK(doca_sync_event_remote_net_destroy(r));
	memcpy(copy, desc, len);
	copy[0] ^= 0xff;
	ASSERT_ERR(doca_sync_event_remote_net_create_from_export(n.dev, copy, len, &r), DOCA_ERROR_INVALID_VALUE);
	copy[0] ^= 0xff;
	ASSERT_ERR(doca_sync_event_remote_net_create_from_export(n.dev, copy, len + 1, &r), DOCA_ERROR_INVALID_VALUE);
	copy[16] |= 4; /* misaligned value address */
	ASSERT_ERR(doca_sync_event_remote_net_create_from_export(n.dev, copy, len, &r), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sync_event_stop(se));
	ASSERT_OK(doca_sync_event_destroy(se));
	node_close(&n);
}

TEST(task_alloc_and_accessors)
{
	struct node n = {0};

	fresh(&n);
	struct doca_rdma_task_send *st;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_atomic_fetch_add *ft;
	struct doca_rdma_task_write_imm *wt;
	struct doca_buf *b = NULL;

	/* no set_conf: BAD_STATE */
	ASSERT_ERR(doca_rdma_task_send_allocate_init(n.rdma, NULL, NULL, (union doca_data){0}, &st),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_rdma_task_send_set_conf(n.rdma, NULL, send_cb, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_task_send_set_conf(n.rdma, send_cb, send_cb, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_rdma_task_send_set_conf(NULL, send_cb, send_cb, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_task_send_set_conf(n.rdma, send_cb, send_cb, 1));
	ASSERT_OK(doca_rdma_task_receive_set_conf(n.rdma, receive_cb, receive_cb, 2));
	ASSERT_OK(doca_rdma_task_atomic_fetch_add_set_conf(n.rdma, atomic_fetch_add_cb, atomic_fetch_add_cb, 1));
	ASSERT_OK(doca_rdma_task_write_imm_set_conf(n.rdma, write_imm_cb, write_imm_cb, 1));
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, NULL, NULL, (union doca_data){.u64 = 7}, &st));
	/* pool of one */
	{
		struct doca_rdma_task_send *st2;

		ASSERT_ERR(doca_rdma_task_send_allocate_init(n.rdma, NULL, NULL, (union doca_data){0}, &st2),
			   DOCA_ERROR_NO_MEMORY);
	}
	ASSERT_EQ(doca_task_get_user_data(doca_rdma_task_send_as_task(st)).u64, 7);
	ASSERT_PTR_EQ(doca_task_get_ctx(doca_rdma_task_send_as_task(st)), n.ctx);
	b = buf_at(&n, n.mmap, n.mem, 64, 8);
	doca_rdma_task_send_set_src_buf(st, b);
	ASSERT_PTR_EQ(doca_rdma_task_send_get_src_buf(st), b);
	ASSERT(doca_rdma_task_send_get_rdma_connection(st) == NULL);
	ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, NULL, (union doca_data){0}, &rt));
	ASSERT(doca_rdma_task_receive_get_dst_buf(rt) == NULL);
	doca_rdma_task_receive_set_dst_buf(rt, b);
	ASSERT_PTR_EQ(doca_rdma_task_receive_get_dst_buf(rt), b);
	ASSERT_EQ(doca_rdma_task_receive_get_result_len(rt), 0);
	ASSERT_OK(doca_rdma_task_atomic_fetch_add_allocate_init(n.rdma, NULL, NULL, b, 5, (union doca_data){0}, &ft));
	ASSERT_EQ(doca_rdma_task_atomic_fetch_add_get_add_data(ft), 5);
	doca_rdma_task_atomic_fetch_add_set_add_data(ft, 9);
	ASSERT_EQ(doca_rdma_task_atomic_fetch_add_get_add_data(ft), 9);
	ASSERT_PTR_EQ(doca_rdma_task_atomic_fetch_add_get_result_buf(ft), b);
	ASSERT_OK(doca_rdma_task_write_imm_allocate_init(n.rdma, NULL, b, NULL, 0x12345678, (union doca_data){0}, &wt));
	ASSERT_EQ(doca_rdma_task_write_imm_get_immediate_data(wt), 0x12345678);
	/* NULL tasks: NULL / 0, no crash */
	ASSERT(doca_rdma_task_send_as_task(NULL) == NULL);
	ASSERT(doca_rdma_task_send_get_src_buf(NULL) == NULL);
	ASSERT_EQ(doca_rdma_task_receive_get_result_len(NULL), 0);
	doca_rdma_task_send_set_src_buf(NULL, b);
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(ft));
	doca_task_free(doca_rdma_task_write_imm_as_task(wt));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	node_close(&n);
}

/* A task whose buffers break a rule fails through the error callback and stops the context. */
TEST(submit_refusal_is_an_error_completion)
{
	struct node n = {0};

	fresh(&n);
	struct doca_rdma_task_send *st;
	struct result r = {0};

	ASSERT_OK(doca_rdma_task_send_set_conf(n.rdma, send_cb, send_cb, 1));
	node_start(&n);
	/* no connection */
	ASSERT_OK(doca_rdma_task_send_allocate_init(n.rdma, NULL, NULL, (union doca_data){.ptr = &r}, &st));
	ASSERT_ERR(doca_task_try_submit(doca_rdma_task_send_as_task(st)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(r.done, 0);
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	ASSERT(node_wait(&n, &r.done, 1, 5));
	ASSERT_ERR(r.status, DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_rdma_task_send_as_task(st));
	for (int i = 0; i < 1000 && n.state != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(n.pe);
	ASSERT_EQ(n.state, DOCA_CTX_STATE_IDLE);
	node_close(&n);
}

/*
 * Buffer lists between two contexts of this process: a 3-segment source sent
 * into a 2-segment destination, a list written to a remote range, and a read
 * scattered into a list.
 */
/* Configure and start a and b, and connect them to each other (descriptors in this process). */
static void
connect_pair(struct node *a, struct node *b, struct doca_rdma_connection **ca, struct doca_rdma_connection **cb)
{
	const void *da, *db;
	size_t la, lb;

	node_conf_all(a);
	node_conf_all(b);
	node_start(a);
	node_start(b);
	ASSERT_OK(doca_rdma_export(a->rdma, &da, &la, ca));
	ASSERT_OK(doca_rdma_export(b->rdma, &db, &lb, cb));
	ASSERT_OK(doca_rdma_connect(a->rdma, db, lb, *ca));
	ASSERT_OK(doca_rdma_connect(b->rdma, da, la, *cb));
}

TEST(buffer_lists_loopback)
{
	struct node a = {0}, b = {0};
	struct doca_rdma_connection *ca, *cb;
	const void *md;
	size_t ml, dl;
	struct doca_buf *s[3], *d[2], *rd, *rs, *ld[2];
	struct doca_rdma_task_send *st;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rdt;
	struct result sr = {0}, rr = {0}, wr = {0}, rdr = {0};
	struct doca_mmap *imp;

	fresh(&a);
	fresh(&b);
	ASSERT_OK(doca_rdma_set_max_send_buf_list_len(a.rdma, 3));
	ASSERT_OK(doca_rdma_task_receive_set_dst_buf_list_len(b.rdma, 2));
	ASSERT_OK(doca_rdma_set_permissions(b.rdma, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE));
	connect_pair(&a, &b, &ca, &cb);

	/* send: "abc" + "defgh" + "ij" -> [6 bytes][rest] */
	memcpy(a.mem, "abc", 3);
	memcpy(a.mem + 100, "defgh", 5);
	memcpy(a.mem + 200, "ij", 2);
	s[0] = buf_at(&a, a.mmap, a.mem, 16, 3);
	s[1] = buf_at(&a, a.mmap, a.mem + 100, 16, 5);
	s[2] = buf_at(&a, a.mmap, a.mem + 200, 16, 2);
	ASSERT_OK(doca_buf_chain_list(s[0], s[1]));
	ASSERT_OK(doca_buf_chain_list(s[0], s[2]));
	d[0] = buf_at(&b, b.mmap, b.mem, 6, 0);
	d[1] = buf_at(&b, b.mmap, b.mem + 64, 64, 0);
	ASSERT_OK(doca_buf_chain_list(d[0], d[1]));
	ASSERT_OK(doca_rdma_task_receive_allocate_init(b.rdma, d[0], (union doca_data){.ptr = &rr}, &rt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	ASSERT_OK(doca_rdma_task_send_allocate_init(a.rdma, ca, s[0], (union doca_data){.ptr = &sr}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	for (double end = now_s() + 10; (sr.done == 0 || rr.done == 0) && now_s() < end;) {
		doca_pe_progress(a.pe);
		doca_pe_progress(b.pe);
	}
	ASSERT_OK(sr.status);
	ASSERT_OK(rr.status);
	ASSERT_EQ(doca_rdma_task_receive_get_result_len(rt), 10);
	ASSERT_PTR_EQ(doca_rdma_task_receive_get_result_rdma_connection(rt), cb);
	ASSERT_MEM_EQ(b.mem, "abcdef", 6);
	ASSERT_MEM_EQ(b.mem + 64, "ghij", 4);
	ASSERT_OK(doca_buf_get_data_len(d[0], &dl));
	ASSERT_EQ(dl, 6);
	ASSERT_OK(doca_buf_get_data_len(d[1], &dl));
	ASSERT_EQ(dl, 4);

	/* write the 3-segment list into b's memory at offset 4096 */
	ASSERT_OK(doca_mmap_export_rdma(b.mmap, b.dev, &md, &ml));
	ASSERT_OK(doca_mmap_create_from_export(NULL, md, ml, a.dev, &imp));
	rd = buf_at(&a, imp, b.mem + 4096, 64, 0);
	ASSERT_OK(doca_rdma_task_write_allocate_init(a.rdma, ca, s[0], rd, (union doca_data){.ptr = &wr}, &wt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	for (double end = now_s() + 10; wr.done == 0 && now_s() < end;)
		doca_pe_progress(a.pe);
	ASSERT_OK(wr.status);
	ASSERT_MEM_EQ(b.mem + 4096, "abcdefghij", 10);
	ASSERT_OK(doca_buf_get_data_len(rd, &dl));
	ASSERT_EQ(dl, 10);

	/* read those 10 bytes back, scattered into [4][rest] */
	rs = buf_at(&a, imp, b.mem + 4096, 10, 10);
	ld[0] = buf_at(&a, a.mmap, a.mem + 8192, 4, 0);
	ld[1] = buf_at(&a, a.mmap, a.mem + 9000, 32, 0);
	ASSERT_OK(doca_buf_chain_list(ld[0], ld[1]));
	ASSERT_OK(doca_rdma_task_read_allocate_init(a.rdma, ca, rs, ld[0], (union doca_data){.ptr = &rdr}, &rdt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_read_as_task(rdt)));
	for (double end = now_s() + 10; rdr.done == 0 && now_s() < end;)
		doca_pe_progress(a.pe);
	ASSERT_OK(rdr.status);
	ASSERT_MEM_EQ(a.mem + 8192, "abcd", 4);
	ASSERT_MEM_EQ(a.mem + 9000, "efghij", 6);

	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rdt));
	ASSERT_OK(doca_buf_dec_refcount(s[0], NULL));
	ASSERT_OK(doca_buf_dec_refcount(d[0], NULL));
	ASSERT_OK(doca_buf_dec_refcount(rd, NULL));
	ASSERT_OK(doca_buf_dec_refcount(rs, NULL));
	ASSERT_OK(doca_buf_dec_refcount(ld[0], NULL));
	ASSERT_OK(doca_mmap_destroy(imp));
	node_close(&a);
	node_close(&b);
}

/* Stop with receives in flight: IN_PROGRESS, each flushed with IO_FAILED, then IDLE. */
TEST(stop_flushes_receives)
{
	struct node n = {0};

	fresh(&n);
	struct doca_rdma_task_receive *rt[4];
	struct result r[4] = {0};
	size_t inflight;

	ASSERT_OK(doca_rdma_task_receive_set_conf(n.rdma, receive_cb, receive_cb, 4));
	node_start(&n);
	for (int i = 0; i < 4; i++) {
		ASSERT_OK(doca_rdma_task_receive_allocate_init(n.rdma, NULL, (union doca_data){.ptr = &r[i]}, &rt[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
	}
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(n.ctx, &inflight));
	ASSERT_EQ(inflight, 4);
	ASSERT_ERR(doca_ctx_stop(n.ctx), DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 1000 && n.state != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(n.pe);
	ASSERT_EQ(n.state, DOCA_CTX_STATE_IDLE);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(r[i].done, 1);
		ASSERT_ERR(r[i].status, DOCA_ERROR_IO_FAILED);
		doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
	}
	node_close(&n);
}

/* The PE's notification handle wakes on a completion the service thread produced. */
TEST(notification_handle_wakes)
{
	struct node a = {0}, b = {0};
	struct doca_rdma_connection *ca, *cb;
	struct doca_rdma_task_send *st;
	struct doca_rdma_task_receive *rt;
	struct result sr = {0}, rr = {0};
	doca_notification_handle_t h;

	fresh(&a);
	fresh(&b);
	connect_pair(&a, &b, &ca, &cb);
	ASSERT_OK(doca_rdma_task_receive_allocate_init(b.rdma, NULL, (union doca_data){.ptr = &rr}, &rt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	ASSERT_OK(doca_rdma_task_send_allocate_init(a.rdma, ca, NULL, (union doca_data){.ptr = &sr}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	/* only a progresses; b sleeps on its handle until the service thread delivers */
	ASSERT_OK(doca_pe_get_notification_handle(b.pe, &h));
	for (double end = now_s() + 10; rr.done == 0 && now_s() < end;) {
		struct pollfd pfd = {.fd = h, .events = POLLIN};

		doca_pe_progress(a.pe);
		ASSERT_OK(doca_pe_request_notification(b.pe));
		if (poll(&pfd, 1, 50) > 0) {
			ASSERT_OK(doca_pe_clear_notification(b.pe, h));
			doca_pe_progress(b.pe);
		}
	}
	ASSERT_EQ(rr.done, 1);
	ASSERT_OK(rr.status);
	for (double end = now_s() + 10; sr.done == 0 && now_s() < end;)
		doca_pe_progress(a.pe);
	ASSERT_OK(sr.status);
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	node_close(&a);
	node_close(&b);
}

/*
 * A polling PE's writes write no event fd (the handle stays quiet: the fd is
 * signalled only while the PE is armed); arming with the write pending wakes
 * the handle at once, and the write completes with its bytes.
 */
TEST(write_signals_only_an_armed_pe)
{
	struct node a = {0}, b = {0};
	struct doca_rdma_connection *ca, *cb;
	const void *md;
	size_t ml;
	struct doca_buf *src, *dst;
	struct doca_rdma_task_write *wt;
	struct result wr = {0};
	struct doca_mmap *imp;
	doca_notification_handle_t h;
	struct pollfd pfd;

	fresh(&a);
	fresh(&b);
	ASSERT_OK(doca_rdma_set_permissions(b.rdma, DOCA_ACCESS_FLAG_RDMA_WRITE));
	connect_pair(&a, &b, &ca, &cb);
	ASSERT_OK(doca_mmap_export_rdma(b.mmap, b.dev, &md, &ml));
	ASSERT_OK(doca_mmap_create_from_export(NULL, md, ml, a.dev, &imp));
	memcpy(a.mem, "armed-flag", 10);
	src = buf_at(&a, a.mmap, a.mem, 16, 10);
	dst = buf_at(&a, imp, b.mem + 4096, 64, 0);
	ASSERT_OK(doca_pe_get_notification_handle(a.pe, &h));
	pfd = (struct pollfd){.fd = h, .events = POLLIN};
	doca_pe_progress(a.pe); /* awake and polling: not armed */
	ASSERT_OK(doca_rdma_task_write_allocate_init(a.rdma, ca, src, dst, (union doca_data){.ptr = &wr}, &wt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	ASSERT_EQ(poll(&pfd, 1, 20), 0);
	ASSERT_EQ(wr.done, 0); /* completions run only in doca_pe_progress */
	/* the arm re-checks: the pending write makes the handle readable at once, no completion lost */
	ASSERT_OK(doca_pe_request_notification(a.pe));
	ASSERT_EQ(poll(&pfd, 1, 5000), 1);
	ASSERT_OK(doca_pe_clear_notification(a.pe, h));
	for (double end = now_s() + 10; wr.done == 0 && now_s() < end;)
		doca_pe_progress(a.pe);
	ASSERT_EQ(wr.done, 1);
	ASSERT_OK(wr.status);
	ASSERT_MEM_EQ(b.mem + 4096, "armed-flag", 10);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_mmap_destroy(imp));
	node_close(&a);
	node_close(&b);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
