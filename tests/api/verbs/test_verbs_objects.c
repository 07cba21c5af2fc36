/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Verbs object contract: context and PD lifetime, the doca_dev of a PD and
 * the samples' teardown order, device attributes, CQ and SRQ creation rules,
 * completion channels and async events as pollable fds, and the hardware-only
 * calls that refuse.
 */
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "verbs_test.h"

/*
 * softdoca-internal datapath hooks (src/verbs/verbs_internal.h): the datapath
 * will call them; here they stand in for a completion and an async error.
 */
void sd_verbs_cq_completion_added(struct doca_verbs_cq *cq, bool solicited);
doca_error_t sd_verbs_async_event_post(struct doca_verbs_context *ctx, int event_type, void *element);

static bool
readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

TEST(context_create_rules)
{
	struct doca_verbs_context *a = (struct doca_verbs_context *)(uintptr_t)0x1, *b;
	struct doca_devinfo **list;
	struct doca_devinfo *di = NULL;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n > 0);
	di = list[0];
	ASSERT_ERR(doca_verbs_context_create(NULL, 0, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_context_create(di, 0, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_context_create(di, 0x4, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_context_create((struct doca_devinfo *)&n, 0, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(a, (void *)0x1);
	ASSERT_OK(doca_verbs_context_create(di, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &a));
	ASSERT_OK(doca_verbs_context_create(di, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &b));
	ASSERT(a != b); /* a new instance each call */
	ASSERT_OK(doca_devinfo_destroy_list(list));
	/* the context outlives the list */
	struct doca_verbs_pd *pd;
	ASSERT_OK(doca_verbs_pd_create(a, &pd));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(b));
	ASSERT_OK(doca_verbs_context_destroy(a));
	ASSERT_ERR(doca_verbs_context_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(context_refuses_device_without_rdma)
{
	char path[512];
	struct doca_devinfo **list;
	struct doca_verbs_context *ctx;
	FILE *f;
	uint32_t n;

	snprintf(path, sizeof(path), "%s/topo.json", sd_test_tmpdir());
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	fputs("{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"netdev\": \"lo\", \"caps\": {\"rdma\": false},\n"
	      " \"functions\": [{\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": "
	      "\"ens1f0np0\"},\n"
	      "                 {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.0\", \"ibdev\": \"mlx5_1\", \"iface\": "
	      "\"p0\"}]}]}\n",
	      f);
	fclose(f);
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", path, 1), 0);
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n >= 1);
	ASSERT_ERR(doca_verbs_context_create(list[0], 0, &ctx), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(pd_as_doca_dev_and_sample_teardown)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_dev *dev, *dev2;
	struct doca_verbs_ah_attr *ah;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;

	ASSERT_ERR(doca_verbs_pd_create(NULL, &pd), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_pd_create(ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	ASSERT_ERR(doca_verbs_pd_as_doca_dev(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_pd_as_doca_dev(pd, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_pd_as_doca_dev(pd, &dev));
	ASSERT_OK(doca_verbs_pd_as_doca_dev(pd, &dev2));
	ASSERT_PTR_EQ(dev, dev2); /* the same doca_dev on repeated calls */
	ASSERT_OK(doca_dev_close(dev2));
	cq = make_cq(ctx, NULL, NULL);
	qp = make_qp(ctx, pd, cq, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_OK(doca_verbs_ah_attr_create(ctx, &ah));
	/* IN_USE while objects exist */
	ASSERT_ERR(doca_verbs_context_destroy(ctx), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_verbs_pd_destroy(pd), DOCA_ERROR_IN_USE);
	/* the samples' order: qp, ah_attr, cq, doca_dev_close, pd, context */
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT_OK(doca_verbs_ah_attr_destroy(ah));
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_dev_close(dev));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
	ASSERT_ERR(doca_verbs_pd_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(device_attributes)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_device_attr *a;

	ASSERT_ERR(doca_verbs_query_device(NULL, &a), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_query_device(ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_query_device(ctx, &a));
	ASSERT(doca_verbs_device_attr_get_max_qp(a) >= 256);
	ASSERT(doca_verbs_device_attr_get_max_qp_wr(a) >= 64);
	ASSERT(doca_verbs_device_attr_get_max_sge(a) >= 1);
	ASSERT(doca_verbs_device_attr_get_max_cq(a) >= 256);
	ASSERT(doca_verbs_device_attr_get_max_cqe(a) >= 64);
	ASSERT(doca_verbs_device_attr_get_max_mr(a) > 0);
	ASSERT(doca_verbs_device_attr_get_max_pd(a) > 0);
	ASSERT(doca_verbs_device_attr_get_max_ah(a) > 0);
	ASSERT(doca_verbs_device_attr_get_max_srq(a) > 0);
	ASSERT(doca_verbs_device_attr_get_max_srq_wr(a) >= 64);
	ASSERT(doca_verbs_device_attr_get_max_srq_sge(a) >= 1);
	ASSERT_EQ(doca_verbs_device_attr_get_max_cc_group(a), 0);
	ASSERT_EQ(doca_verbs_device_attr_get_max_eth_sq_wr_num(a), 0);
	ASSERT_EQ(doca_verbs_device_attr_get_max_eth_rq_wr_num(a), 0);
	ASSERT_EQ(doca_verbs_device_attr_get_ts_free_running_clock_frequency(a), 1000000000u);
	ASSERT_EQ(doca_verbs_device_attr_get_max_pkeys(a), 1);
	ASSERT(doca_verbs_device_attr_get_max_qp_rd_atom(a) > 0);
	ASSERT(doca_verbs_device_attr_get_max_qp_init_rd_atom(a) > 0);
	ASSERT_EQ(doca_verbs_device_attr_get_max_cc_group_hint_max_size(a), 0);
	ASSERT_EQ(doca_verbs_device_attr_get_atomic_cap(a), DOCA_VERBS_ATOMIC_CAP_HCA);
	ASSERT_OK(doca_verbs_device_attr_get_is_qp_type_supported(a, DOCA_VERBS_QP_TYPE_RC));
	ASSERT_OK(doca_verbs_device_attr_get_is_qp_type_supported(a, DOCA_VERBS_QP_TYPE_UC));
	ASSERT_ERR(doca_verbs_device_attr_get_is_qp_type_supported(a, 7), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_dpa_external_datapath_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_gpu_external_datapath_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_ece_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_cc_group_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_cqe_inline_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_allow_multi_pkt_send_wqe_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_plane_index_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_eth_sq_ts_source_type_supported(a, DOCA_VERBS_TS_SOURCE_DEFAULT),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_eth_rq_srq_supported(a), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_eth_rq_ts_source_type_supported(a, DOCA_VERBS_TS_SOURCE_DEFAULT),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_device_attr_get_is_send_dbr_mode_supported(a, DOCA_VERBS_QP_SEND_DBR_MODE_DBR_VALID));
	ASSERT_ERR(doca_verbs_device_attr_get_is_send_dbr_mode_supported(a, DOCA_VERBS_QP_SEND_DBR_MODE_NO_DBR_EXT),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_device_attr_get_is_ece_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_device_attr_get_is_qp_type_supported(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_device_attr_get_max_qp(NULL), 0);
	ASSERT_OK(doca_verbs_device_attr_free(a));
	ASSERT_ERR(doca_verbs_device_attr_free(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(cq_create_rules)
{
	struct doca_verbs_context *ctx = open_verbs_ctx(), *other = open_verbs_ctx();
	struct doca_verbs_cq *cq = (struct doca_verbs_cq *)(uintptr_t)0x1, *cq2;
	struct doca_verbs_comp_channel *ch;
	struct doca_verbs_cq_attr *attr;

	ASSERT_OK(doca_verbs_cq_attr_create(&attr));
	ASSERT_ERR(doca_verbs_cq_create(ctx, attr, &cq), DOCA_ERROR_INVALID_VALUE); /* size 0 */
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(attr, 1u << 30));
	ASSERT_ERR(doca_verbs_cq_create(ctx, attr, &cq), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(attr, 128));
	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(attr, DOCA_VERBS_CQ_ENTRY_SIZE_128));
	ASSERT_ERR(doca_verbs_cq_create(ctx, attr, &cq), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(attr, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	ASSERT_OK(doca_verbs_cq_attr_set_external_datapath_en(attr, 1));
	ASSERT_ERR(doca_verbs_cq_create(ctx, attr, &cq), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_cq_attr_set_external_datapath_en(attr, 0));
	ASSERT_OK(doca_verbs_comp_channel_create(other, &ch));
	ASSERT_OK(doca_verbs_cq_attr_set_comp_channel(attr, ch));
	ASSERT_ERR(doca_verbs_cq_create(ctx, attr, &cq), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_cq_attr_set_comp_channel(attr, NULL));
	ASSERT_ERR(doca_verbs_cq_create(NULL, attr, &cq), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_cq_create(ctx, NULL, &cq), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(cq, (void *)0x1);
	ASSERT_OK(doca_verbs_cq_create(ctx, attr, &cq));
	ASSERT_OK(doca_verbs_cq_create(ctx, attr, &cq2));
	ASSERT_NE(doca_verbs_cq_get_cqn(cq), 0);
	ASSERT_NE(doca_verbs_cq_get_cqn(cq), doca_verbs_cq_get_cqn(cq2));
	ASSERT_EQ(doca_verbs_cq_get_cqn(NULL), 0);
	ASSERT_ERR(doca_verbs_context_destroy(ctx), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_verbs_cq_destroy(cq2));
	ASSERT_ERR(doca_verbs_cq_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_cq_attr_destroy(attr));
	ASSERT_OK(doca_verbs_comp_channel_destroy(ch));
	ASSERT_OK(doca_verbs_context_destroy(other));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(completion_channel_events)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_comp_channel *ch;
	struct doca_verbs_cq *cq, *plain, *got = NULL;
	int marker;
	void *cq_ctx = NULL;
	int fd;

	ASSERT_ERR(doca_verbs_comp_channel_create(NULL, &ch), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_comp_channel_create(ctx, &ch));
	fd = doca_verbs_comp_channel_get_handle(ch);
	ASSERT(fd >= 0);
	ASSERT_EQ(doca_verbs_comp_channel_get_handle(NULL), doca_event_invalid_handle);
	cq = make_cq(ctx, ch, &marker);
	plain = make_cq(ctx, NULL, NULL);
	/* empty channel */
	ASSERT(!readable(fd));
	ASSERT_ERR(doca_verbs_get_cq_event(ch, &got, &cq_ctx), DOCA_ERROR_AGAIN);
	ASSERT_ERR(doca_verbs_get_cq_event(NULL, &got, &cq_ctx), DOCA_ERROR_INVALID_VALUE);
	/* a completion on an unarmed CQ raises nothing */
	sd_verbs_cq_completion_added(cq, false);
	ASSERT(!readable(fd));
	ASSERT_ERR(doca_verbs_req_notify_cq(plain, 0), DOCA_ERROR_BAD_STATE); /* no channel */
	ASSERT_ERR(doca_verbs_req_notify_cq(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	/* solicited-only arm ignores an unsolicited completion */
	ASSERT_OK(doca_verbs_req_notify_cq(cq, 1));
	sd_verbs_cq_completion_added(cq, false);
	ASSERT(!readable(fd));
	sd_verbs_cq_completion_added(cq, true);
	ASSERT(readable(fd));
	/* one event per arm */
	sd_verbs_cq_completion_added(cq, true);
	ASSERT_OK(doca_verbs_get_cq_event(ch, &got, &cq_ctx));
	ASSERT_PTR_EQ(got, cq);
	ASSERT_PTR_EQ(cq_ctx, &marker);
	ASSERT(!readable(fd));
	ASSERT_ERR(doca_verbs_get_cq_event(ch, &got, &cq_ctx), DOCA_ERROR_AGAIN);
	/* unacknowledged events keep the CQ; the CQ keeps the channel */
	ASSERT_ERR(doca_verbs_cq_destroy(cq), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_verbs_comp_channel_destroy(ch), DOCA_ERROR_IN_USE);
	doca_verbs_ack_cq_events(cq, 1);
	/* arm again: the next completion raises a second event */
	ASSERT_OK(doca_verbs_req_notify_cq(cq, 0));
	sd_verbs_cq_completion_added(cq, false);
	ASSERT(readable(fd));
	ASSERT_OK(doca_verbs_get_cq_event(ch, &got, &cq_ctx));
	doca_verbs_ack_cq_events(cq, 1);
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_verbs_cq_destroy(plain));
	ASSERT_OK(doca_verbs_comp_channel_destroy(ch));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(async_events)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_async_event ev;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;
	int fd = doca_verbs_get_async_event_handle(ctx);

	ASSERT(fd >= 0);
	ASSERT_EQ(doca_verbs_get_async_event_handle(NULL), doca_event_invalid_handle);
	ASSERT(!readable(fd));
	ASSERT_ERR(doca_verbs_get_async_event(ctx, &ev), DOCA_ERROR_AGAIN);
	ASSERT_ERR(doca_verbs_get_async_event(NULL, &ev), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_verbs_get_async_event(ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	cq = make_cq(ctx, NULL, NULL);
	qp = make_qp(ctx, pd, cq, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_OK(sd_verbs_async_event_post(ctx, DOCA_VERBS_EVENT_QP_FATAL, qp));
	ASSERT_OK(sd_verbs_async_event_post(ctx, DOCA_VERBS_EVENT_CQ_ERR, cq));
	ASSERT(readable(fd));
	ASSERT_OK(doca_verbs_get_async_event(ctx, &ev));
	ASSERT_EQ(ev.event_type, DOCA_VERBS_EVENT_QP_FATAL);
	ASSERT_PTR_EQ(ev.element.qp, qp);
	doca_verbs_ack_async_event(&ev);
	ASSERT(readable(fd));
	ASSERT_OK(doca_verbs_get_async_event(ctx, &ev));
	ASSERT_EQ(ev.event_type, DOCA_VERBS_EVENT_CQ_ERR);
	ASSERT_PTR_EQ(ev.element.cq, cq);
	doca_verbs_ack_async_event(&ev);
	ASSERT(!readable(fd));
	ASSERT_ERR(doca_verbs_get_async_event(ctx, &ev), DOCA_ERROR_AGAIN);
	/* an event of a destroyed QP is dropped, never handed out */
	ASSERT_OK(sd_verbs_async_event_post(ctx, DOCA_VERBS_EVENT_QP_REQ_ERR, qp));
	ASSERT(readable(fd));
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT(!readable(fd));
	ASSERT_ERR(doca_verbs_get_async_event(ctx, &ev), DOCA_ERROR_AGAIN);
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(srq)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_srq_init_attr *a, *q;
	struct doca_verbs_qp_init_attr *ia;
	struct doca_verbs_srq *srq = (struct doca_verbs_srq *)(uintptr_t)0x1, *srq2;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	ASSERT_OK(doca_verbs_srq_init_attr_create(&a));
	ASSERT_EQ(doca_verbs_srq_init_attr_get_type(a), DOCA_VERBS_SRQ_TYPE_LINKED_LIST);
	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(a, 64));
	ASSERT_OK(doca_verbs_srq_init_attr_set_receive_max_sges(a, 1));
	ASSERT_ERR(doca_verbs_srq_create(ctx, a, &srq), DOCA_ERROR_INVALID_VALUE); /* no pd */
	ASSERT_OK(doca_verbs_srq_init_attr_set_pd(a, pd));
	ASSERT_OK(doca_verbs_srq_init_attr_set_type(a, DOCA_VERBS_SRQ_TYPE_CONTIGUOUS));
	ASSERT_ERR(doca_verbs_srq_create(ctx, a, &srq), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_srq_init_attr_set_type(a, DOCA_VERBS_SRQ_TYPE_LINKED_LIST));
	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(a, 0));
	ASSERT_ERR(doca_verbs_srq_create(ctx, a, &srq), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_srq_init_attr_set_srq_wr(a, 64));
	ASSERT_OK(doca_verbs_srq_init_attr_set_external_datapath_en(a, 1));
	ASSERT_ERR(doca_verbs_srq_create(ctx, a, &srq), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_srq_init_attr_set_external_datapath_en(a, 0));
	ASSERT_PTR_EQ(srq, (void *)0x1);
	ASSERT_OK(doca_verbs_srq_create(ctx, a, &srq));
	ASSERT_OK(doca_verbs_srq_create(ctx, a, &srq2));
	ASSERT_NE(doca_verbs_srq_get_srqn(srq), 0);
	ASSERT_NE(doca_verbs_srq_get_srqn(srq), doca_verbs_srq_get_srqn(srq2));
	ASSERT_OK(doca_verbs_srq_init_attr_create(&q));
	ASSERT_OK(doca_verbs_srq_query(srq, q));
	ASSERT_EQ(doca_verbs_srq_init_attr_get_srq_wr(q), 64);
	ASSERT_PTR_EQ(doca_verbs_srq_init_attr_get_pd(q), pd);
	ASSERT_ERR(doca_verbs_srq_query(srq, NULL), DOCA_ERROR_INVALID_VALUE);
	/* a QP on the SRQ needs no receive CQ and holds the SRQ */
	cq = make_cq(ctx, NULL, NULL);
	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(ia, pd));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(ia, cq));
	ASSERT_OK(doca_verbs_qp_init_attr_set_srq(ia, srq));
	ASSERT_OK(doca_verbs_qp_create(ctx, ia, &qp));
	ASSERT_ERR(doca_verbs_srq_destroy(srq), DOCA_ERROR_IN_USE);
	ASSERT_ERR(doca_verbs_pd_destroy(pd), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT_OK(doca_verbs_srq_destroy(srq));
	ASSERT_ERR(doca_verbs_pd_destroy(pd), DOCA_ERROR_IN_USE); /* srq2 */
	ASSERT_OK(doca_verbs_srq_destroy(srq2));
	ASSERT_ERR(doca_verbs_srq_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	ASSERT_OK(doca_verbs_srq_init_attr_destroy(q));
	ASSERT_OK(doca_verbs_srq_init_attr_destroy(a));
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(hardware_only_calls_refuse)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_context *imported = NULL;
	struct doca_verbs_cc_group_attr *cca = NULL;
	struct doca_verbs_cc_group_caps *caps = NULL;
	doca_dpa_dev_verbs_qp_t h = 0;
	struct doca_verbs_pd *pd;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;
	void *sq = (void *)1, *rq = (void *)1;
	uint32_t n1 = 9, n2 = 9, sz = 9;

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	cq = make_cq(ctx, NULL, NULL);
	qp = make_qp(ctx, pd, cq, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_EQ(doca_verbs_context_export_handle(ctx), -1);
	ASSERT_ERR(doca_verbs_context_import_from_handle(3, 0, &imported), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(doca_verbs_pd_export_handle(pd), -1);
	ASSERT_ERR(doca_verbs_qp_set_ece(qp, 1), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(doca_verbs_qp_query_ece(qp), 0);
	ASSERT_ERR(doca_verbs_qp_get_dpa_handle(qp, NULL, &h), DOCA_ERROR_NOT_SUPPORTED);
	doca_verbs_qp_get_wq(qp, &sq, &n1, &rq, &n2, &sz);
	ASSERT(sq == NULL && rq == NULL && n1 == 0 && n2 == 0 && sz == 0);
	ASSERT(doca_verbs_qp_get_uar_addr(qp) == NULL);
	ASSERT(doca_verbs_qp_get_dbr_addr(qp) == NULL);
	ASSERT_ERR(doca_verbs_cc_group_attr_create(&cca), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_query_cc_group_caps(ctx, &caps), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
