/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core interoperability: softdoca's ibv_context / ibv_pd / ibv_mr used
 * through rdma-core's own calls (this program links libsoftdoca_ibverbs
 * before libibverbs, as softdoca's libibverbs.pc makes DOCA programs do), the
 * non-datapath bridge, doca_rdma_bridge.h, UAR / UMEM, and calls on rdma-core
 * objects still reaching the real library.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <net/if.h>

#include <doca_buf_inventory.h>
#include <doca_mmap.h>
#include <doca_rdma.h>
#include <doca_rdma_bridge.h>
#include <doca_uar.h>
#include <doca_umem.h>
#include <doca_verbs_bridge.h>

#include "verbs_test.h"

/* softdoca-internal, for the Verbs datapath (src/verbs/verbs_ibv.h) */
bool sd_verbs_mr_check_local(const struct doca_verbs_pd *pd, void *memo, uint32_t lkey, uint64_t addr, uint64_t len,
			     bool write);

#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static struct doca_dev *
pd_dev(struct doca_verbs_pd *pd)
{
	struct doca_dev *dev;

	ASSERT_OK(doca_verbs_pd_as_doca_dev(pd, &dev));
	return dev;
}

TEST(reg_mr_soft_pd)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	static uint8_t buf[8192];
	struct doca_verbs_pd *pd, *other;
	struct ibv_pd *ipd;
	struct ibv_mr *mr, *ro;
	uint64_t memo[8] = {0};
	uint32_t mr_lkey;
	uintptr_t b = (uintptr_t)buf;

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	ASSERT_OK(doca_verbs_pd_create(ctx, &other));
	ipd = doca_verbs_bridge_verbs_pd_get_ibv_pd(pd);
	ASSERT_NOT_NULL(ipd);
	ASSERT_PTR_EQ(ipd->context, doca_verbs_bridge_get_ibv_ctx(ctx));
	ASSERT(doca_verbs_bridge_verbs_pd_get_ibv_pd(other) != ipd);

	mr = ibv_reg_mr(ipd, buf, 4096, RW);
	ASSERT_NOT_NULL(mr);
	ASSERT_EQ(mr->lkey, mr->rkey);
	ASSERT_PTR_EQ(mr->pd, ipd);
	ASSERT_PTR_EQ(mr->context, ipd->context);
	ASSERT_PTR_EQ(mr->addr, buf);
	ASSERT_EQ(mr->length, 4096);
	ro = ibv_reg_mr(ipd, buf + 4096, 4096, IBV_ACCESS_REMOTE_READ);
	ASSERT_NOT_NULL(ro);
	ASSERT(ro->rkey != mr->rkey);

	/* the datapath's check: key, PD, range, local write */
	ASSERT(sd_verbs_mr_check_local(pd, NULL, mr->lkey, b, 4096, true));
	ASSERT(sd_verbs_mr_check_local(pd, NULL, mr->lkey, b + 100, 8, false));
	ASSERT(!sd_verbs_mr_check_local(pd, NULL, mr->lkey, b + 1, 4096, false));
	ASSERT(!sd_verbs_mr_check_local(pd, NULL, mr->lkey, b - 1, 2, false));
	ASSERT(!sd_verbs_mr_check_local(pd, NULL, mr->lkey ^ 0x100, b, 8, false));
	ASSERT(!sd_verbs_mr_check_local(other, NULL, mr->lkey, b, 8, false));
	ASSERT(!sd_verbs_mr_check_local(NULL, NULL, mr->lkey, b, 8, false));
	ASSERT(sd_verbs_mr_check_local(pd, NULL, ro->lkey, b + 4096, 4096, false));
	ASSERT(!sd_verbs_mr_check_local(pd, NULL, ro->lkey, b + 4096, 4096, true));
	/* a queue's memo of its last MR (opaque here, 32 bytes inside): it answers only what the MR allows */
	ASSERT(sd_verbs_mr_check_local(pd, memo, mr->lkey, b, 4096, true));
	ASSERT(sd_verbs_mr_check_local(pd, memo, mr->lkey, b + 8, 8, false));
	ASSERT(!sd_verbs_mr_check_local(pd, memo, mr->lkey, b + 1, 4096, false));
	ASSERT(!sd_verbs_mr_check_local(pd, memo, mr->lkey ^ 0x100, b, 8, false));
	ASSERT(sd_verbs_mr_check_local(pd, memo, ro->lkey, b + 4096, 8, false));
	ASSERT(!sd_verbs_mr_check_local(pd, memo, ro->lkey, b + 4096, 8, true));
	ASSERT(sd_verbs_mr_check_local(pd, memo, mr->lkey, b, 8, true));
	mr_lkey = mr->lkey;

	/* rdma-core's refusals */
	errno = 0;
	ASSERT(ibv_reg_mr(ipd, buf, 0, RW) == NULL && errno == EINVAL);
	errno = 0;
	ASSERT(ibv_reg_mr(ipd, NULL, 64, RW) == NULL && errno == EINVAL);
	errno = 0;
	ASSERT(ibv_reg_mr(ipd, buf, 64, IBV_ACCESS_REMOTE_WRITE) == NULL && errno == EINVAL);
	errno = 0;
	ASSERT(ibv_reg_mr(ipd, buf, 64, IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ) == NULL && errno == EINVAL);

	/* the PD goes only after its memory */
	ASSERT_ERR(doca_verbs_pd_destroy(pd), DOCA_ERROR_IN_USE);
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	/* the memo of a deregistered MR answers nothing */
	ASSERT(!sd_verbs_mr_check_local(pd, memo, mr_lkey, b, 8, true));
	ASSERT(!sd_verbs_mr_check_local(pd, NULL, ro->lkey ^ 0, b, 8, false));
	ASSERT_EQ(ibv_dereg_mr(ro), 0);
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_pd_destroy(other));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(query_gid_port_device)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct ibv_context *ictx = doca_verbs_bridge_get_ibv_ctx(ctx);
	struct doca_verbs_pd *pd;
	struct doca_rdma_gid want;
	struct ibv_port_attr port;
	struct ibv_device_attr dattr;
	struct ibv_gid_entry entry;
	union ibv_gid gid;
	char name[64];
	struct doca_dev *dev;

	ASSERT_NOT_NULL(ictx);
	ASSERT_PTR_EQ(doca_verbs_bridge_get_ibv_ctx(ctx), ictx); /* one per device */
	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	dev = pd_dev(pd);
	ASSERT_OK(doca_rdma_cap_get_gid(doca_dev_as_devinfo(dev), 0, 1, &want));
	ASSERT_EQ(ibv_query_gid(ictx, 1, 0, &gid), 0);
	ASSERT_MEM_EQ(gid.raw, want.raw, 16);
	ASSERT_EQ(ibv_query_gid(ictx, 1, 1, &gid), -1);
	ASSERT_EQ(ibv_query_gid(ictx, 2, 0, &gid), -1);
	ASSERT_EQ(ibv_query_gid_ex(ictx, 1, 0, &entry, 0), 0);
	ASSERT_MEM_EQ(entry.gid.raw, want.raw, 16);
	ASSERT(ibv_query_gid_ex(ictx, 1, 5, &entry, 0) != 0);

	/* the inline ibv_query_port of verbs.h goes through the verbs_context op */
	memset(&port, 0xa5, sizeof(port));
	ASSERT_EQ(ibv_query_port(ictx, 1, &port), 0);
	ASSERT_EQ(port.state, IBV_PORT_ACTIVE);
	ASSERT_EQ(port.link_layer, IBV_LINK_LAYER_ETHERNET);
	ASSERT_EQ(port.active_mtu, IBV_MTU_1024);
	ASSERT_EQ(port.gid_tbl_len, 1);
	ASSERT_EQ(port.flags, 0);
	ASSERT_EQ(ibv_query_port(ictx, 2, &port), EINVAL);

	ASSERT_EQ(ibv_query_device(ictx, &dattr), 0);
	ASSERT_EQ(dattr.phys_port_cnt, 1);
	ASSERT(dattr.max_qp > 0 && dattr.max_mr > 0);
	ASSERT_OK(doca_devinfo_get_ibdev_name(doca_dev_as_devinfo(dev), name, sizeof(name)));
	ASSERT_STR_EQ(ibv_get_device_name(ictx->device), name);
	ASSERT_PTR_EQ(ibv_open_device(ictx->device), ictx);
	ASSERT_EQ(ibv_close_device(ictx), 0);

	/* rdma-core's context ops are never NULL on a soft context */
	ASSERT(ictx->ops.poll_cq != NULL && ictx->ops.post_send != NULL && ictx->ops.req_notify_cq != NULL);

	ASSERT_OK(doca_dev_close(dev));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(pd_import_and_alloc_pd)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_pd *pd, *imp, *none = (struct doca_verbs_pd *)(uintptr_t)0x1;
	struct ibv_pd foreign = {0}, *ipd, *alloc;
	struct ibv_context fake_ctx = {0};
	struct doca_verbs_context *vctx;
	struct ibv_mr *mr;
	static uint8_t buf[256];

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	ipd = doca_verbs_bridge_verbs_pd_get_ibv_pd(pd);
	ASSERT_OK(doca_verbs_bridge_verbs_pd_import(ipd, &imp));
	ASSERT_PTR_EQ(doca_verbs_bridge_verbs_pd_get_ibv_pd(imp), ipd);
	/* a QP on the owner's context may use the imported PD */
	struct doca_verbs_cq *cq = make_cq(ctx, NULL, NULL);
	struct doca_verbs_qp *qp = make_qp(ctx, imp, cq, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	ASSERT_ERR(doca_verbs_pd_destroy(pd), DOCA_ERROR_IN_USE); /* imported */
	ASSERT_OK(doca_verbs_pd_destroy(imp));

	ASSERT_ERR(doca_verbs_bridge_verbs_pd_import(&foreign, &none), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(none, (void *)0x1);
	ASSERT_ERR(doca_verbs_bridge_verbs_pd_import(NULL, &none), DOCA_ERROR_INVALID_VALUE);
	ASSERT(doca_verbs_bridge_verbs_pd_get_ibv_pd(NULL) == NULL);
	ASSERT_ERR(doca_verbs_bridge_verbs_context_import(&fake_ctx, 0, &vctx), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_verbs_bridge_verbs_context_create((struct ibv_device *)&foreign, 0, &vctx),
		   DOCA_ERROR_NOT_SUPPORTED);

	/* ibv_alloc_pd on the soft context, as an rdma-core program would */
	alloc = ibv_alloc_pd(ipd->context);
	ASSERT_NOT_NULL(alloc);
	ASSERT_PTR_EQ(alloc->context, ipd->context);
	mr = ibv_reg_mr(alloc, buf, sizeof(buf), RW);
	ASSERT_NOT_NULL(mr);
	ASSERT_EQ(ibv_dealloc_pd(alloc), EBUSY);
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	ASSERT_EQ(ibv_dealloc_pd(ipd), EINVAL); /* belongs to its doca_verbs_pd */
	ASSERT_EQ(ibv_dealloc_pd(alloc), 0);

	/* a context on the soft ibv_device */
	ASSERT_OK(doca_verbs_bridge_verbs_context_create(ipd->context->device, 0, &vctx));
	ASSERT(vctx != ctx);
	ASSERT_PTR_EQ(doca_verbs_bridge_get_ibv_ctx(vctx), ipd->context);
	ASSERT_OK(doca_verbs_context_destroy(vctx));

	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

/* DOCA's wait-CQ sample: the dev's PD, imported with its context, carries QPs. */
TEST(rdma_bridge_and_context_import)
{
	struct doca_verbs_context *ctx = open_verbs_ctx(), *vctx, *vctx2;
	struct doca_verbs_device_attr *da;
	struct doca_verbs_pd *tmp, *vpd;
	struct ibv_pd *dpd, *again;
	struct doca_dev *dev, *dev2;
	struct doca_verbs_cq *cq;
	struct doca_verbs_qp *qp;

	ASSERT_OK(doca_verbs_pd_create(ctx, &tmp));
	dev = pd_dev(tmp);
	ASSERT_OK(doca_verbs_pd_destroy(tmp));
	ASSERT_OK(doca_verbs_context_destroy(ctx));

	ASSERT_OK(doca_rdma_bridge_get_dev_pd(dev, &dpd));
	ASSERT_OK(doca_rdma_bridge_get_dev_pd(dev, &again));
	ASSERT_PTR_EQ(dpd, again);
	ASSERT_ERR(doca_rdma_bridge_get_dev_pd(NULL, &again), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_rdma_bridge_open_dev_from_pd(dpd, &dev2));
	ASSERT_PTR_EQ(dev2, dev);
	ASSERT_OK(doca_dev_close(dev2));

	ASSERT_OK(doca_verbs_bridge_verbs_pd_import(dpd, &vpd));
	ASSERT_OK(doca_verbs_bridge_verbs_context_import(dpd->context, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &vctx));
	ASSERT_OK(doca_verbs_bridge_verbs_context_import(dpd->context, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &vctx2));
	ASSERT_PTR_EQ(vctx, vctx2); /* the device's shared bridge context */
	ASSERT_OK(doca_verbs_context_destroy(vctx2));
	ASSERT_OK(doca_verbs_bridge_verbs_query_device(dpd->context, &da));
	ASSERT(doca_verbs_device_attr_get_max_qp(da) > 0);
	ASSERT_OK(doca_verbs_device_attr_free(da));
	cq = make_cq(vctx, NULL, NULL);
	qp = make_qp(vctx, vpd, cq, DOCA_VERBS_QP_TYPE_RC);
	ASSERT_ERR(doca_verbs_context_destroy(vctx), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_verbs_qp_destroy(qp));
	ASSERT_OK(doca_verbs_cq_destroy(cq));
	/* the sample's order: PD, then context; the other order works as well */
	ASSERT_OK(doca_verbs_context_destroy(vctx));
	ASSERT_OK(doca_verbs_pd_destroy(vpd));

	/* memory keys: an mmap registered once per PD, a buf inside it */
	static uint8_t mem[16384];
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	struct doca_buf *buf;
	uint32_t k1, k2, k3;
	struct ibv_mr *mr;

	ASSERT_OK(doca_mmap_create(&mmap));
	ASSERT_OK(doca_mmap_set_memrange(mmap, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_add_dev(mmap, dev));
	ASSERT_OK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE));
	ASSERT_OK(doca_mmap_start(mmap));
	ASSERT_OK(doca_rdma_bridge_get_mmap_mkey_from_pd(mmap, dpd, &k1));
	ASSERT_OK(doca_rdma_bridge_get_mmap_mkey_from_pd(mmap, dpd, &k2));
	ASSERT_EQ(k1, k2);
	ASSERT_OK(doca_buf_inventory_create(4, &inv));
	ASSERT_OK(doca_buf_inventory_start(inv));
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + 4096, 512, &buf));
	ASSERT_OK(doca_rdma_bridge_get_buf_mkey(buf, dev, &k3));
	ASSERT_EQ(k3, k1);
	/* an MR the program registered on the dev's PD serves its range */
	mr = ibv_reg_mr(dpd, mem + 4096, 1024, RW);
	ASSERT_NOT_NULL(mr);
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	struct ibv_pd foreign = {0};
	ASSERT_ERR(doca_rdma_bridge_get_mmap_mkey_from_pd(mmap, &foreign, &k2), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_rdma_bridge_open_dev_from_pd(&foreign, &dev2), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_buf_dec_refcount(buf, NULL));
	ASSERT_OK(doca_buf_inventory_destroy(inv));
	ASSERT_OK(doca_mmap_destroy(mmap));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(uar_umem)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct doca_verbs_cq_attr *cqa;
	struct doca_verbs_pd *pd;
	struct doca_uar *uar, *uar2;
	struct doca_umem *umem;
	struct doca_verbs_cq *cq;
	struct doca_dev *dev;
	uint32_t id, id2, size;
	void *page, *addr;
	static uint8_t mem[4096];

	ASSERT_OK(doca_verbs_pd_create(ctx, &pd));
	dev = pd_dev(pd);
	ASSERT_OK(doca_uar_create(dev, DOCA_UAR_ALLOCATION_TYPE_NONCACHE, &uar));
	ASSERT_OK(doca_uar_create(dev, DOCA_UAR_ALLOCATION_TYPE_BLUEFLAME, &uar2));
	ASSERT_OK(doca_uar_id_get(uar, &id));
	ASSERT_OK(doca_uar_id_get(uar2, &id2));
	ASSERT(id != id2);
	ASSERT_ERR(doca_uar_page_get(uar, &page), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_uar_reg_addr_get(uar, &page), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_uar_dpa_create(NULL, &uar2), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_uar_create(NULL, DOCA_UAR_ALLOCATION_TYPE_NONCACHE, &uar2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_uar_create(dev, (enum doca_uar_allocation_type)7, &uar2), DOCA_ERROR_INVALID_VALUE);

	/* the wait-CQ sample gives its CQs an external UAR */
	ASSERT_OK(doca_verbs_cq_attr_create(&cqa));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(cqa, 64));
	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(cqa, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	ASSERT_OK(doca_verbs_cq_attr_set_external_uar(cqa, uar));
	ASSERT_OK(doca_verbs_cq_attr_set_external_datapath_en(cqa, 0));
	ASSERT_OK(doca_verbs_cq_create(ctx, cqa, &cq));
	ASSERT_OK(doca_verbs_cq_attr_destroy(cqa));
	ASSERT_OK(doca_verbs_cq_destroy(cq));

	ASSERT_OK(doca_umem_create(dev, mem, sizeof(mem), 0, &umem));
	ASSERT_OK(doca_umem_get_id(umem, &id));
	ASSERT_OK(doca_umem_get_size(umem, &size));
	ASSERT_OK(doca_umem_get_address(umem, &addr));
	ASSERT_EQ(size, sizeof(mem));
	ASSERT_PTR_EQ(addr, mem);
	ASSERT_ERR(doca_umem_create(dev, mem, 0, 0, &umem), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_umem_dpa_create(NULL, 0, 64, 0, &umem), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_umem_gpu_create(NULL, dev, mem, 64, 0, &umem), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_umem_destroy(umem));

	ASSERT_OK(doca_uar_destroy(uar2));
	ASSERT_OK(doca_uar_destroy(uar));
	ASSERT_OK(doca_dev_close(dev));
	ASSERT_OK(doca_verbs_pd_destroy(pd));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

TEST(qp_attr_bridge)
{
	struct doca_verbs_context *ctx = open_verbs_ctx();
	struct ibv_qp_attr in = {0}, out;
	struct doca_verbs_qp_attr *qa;
	struct doca_verbs_ah_attr *ah;
	int ibv_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_DEST_RD_ATOMIC;

	ASSERT_EQ(doca_verbs_bridge_get_qp_attr_mask(ibv_mask),
		  DOCA_VERBS_QP_ATTR_NEXT_STATE | DOCA_VERBS_QP_ATTR_AH_ATTR | DOCA_VERBS_QP_ATTR_PATH_MTU |
			  DOCA_VERBS_QP_ATTR_DEST_QP_NUM | DOCA_VERBS_QP_ATTR_RQ_PSN |
			  DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER | DOCA_VERBS_QP_ATTR_MAX_DEST_RD_ATOMIC);
	ASSERT_EQ(doca_verbs_bridge_get_qp_attr_mask(IBV_QP_ACCESS_FLAGS | IBV_QP_PORT | IBV_QP_PKEY_INDEX),
		  DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE | DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ |
			  DOCA_VERBS_QP_ATTR_ATOMIC_MODE | DOCA_VERBS_QP_ATTR_PORT_NUM | DOCA_VERBS_QP_ATTR_PKEY_INDEX);
	ASSERT_EQ(doca_verbs_bridge_get_qp_attr_mask(IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_CUR_STATE),
		  DOCA_VERBS_QP_ATTR_SQ_PSN | DOCA_VERBS_QP_ATTR_ACK_TIMEOUT | DOCA_VERBS_QP_ATTR_RETRY_CNT |
			  DOCA_VERBS_QP_ATTR_RNR_RETRY | DOCA_VERBS_QP_ATTR_MAX_QP_RD_ATOMIC |
			  DOCA_VERBS_QP_ATTR_CURRENT_STATE);
	ASSERT_EQ(doca_verbs_bridge_get_qp_attr_mask(IBV_QP_QKEY), 0);

	ASSERT_OK(doca_verbs_qp_attr_create(&qa));
	in.qp_state = IBV_QPS_RTR;
	in.path_mtu = IBV_MTU_2048;
	in.dest_qp_num = 0x1234;
	in.rq_psn = 77;
	in.min_rnr_timer = 12;
	in.max_dest_rd_atomic = 4;
	in.qp_access_flags = IBV_ACCESS_REMOTE_READ;
	in.ah_attr.is_global = 1;
	in.ah_attr.grh.dgid.raw[15] = 9;
	in.ah_attr.grh.hop_limit = 255;
	in.ah_attr.grh.sgid_index = 0;
	/* IBV_QP_AV needs an AH object to fill */
	ASSERT_ERR(doca_verbs_bridge_qp_attr_set(qa, &in, ibv_mask), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_verbs_ah_attr_create(ctx, &ah));
	ASSERT_OK(doca_verbs_ah_attr_set_addr_type(ah, DOCA_VERBS_ADDR_TYPE_IPv4));
	ASSERT_OK(doca_verbs_qp_attr_set_ah_attr(qa, ah));
	ASSERT_OK(doca_verbs_bridge_qp_attr_set(qa, &in, ibv_mask | IBV_QP_ACCESS_FLAGS));
	ASSERT_EQ(doca_verbs_qp_attr_get_next_state(qa), DOCA_VERBS_QP_STATE_RTR);
	ASSERT_EQ(doca_verbs_qp_attr_get_path_mtu(qa), DOCA_MTU_SIZE_2K_BYTES);
	ASSERT_EQ(doca_verbs_qp_attr_get_dest_qp_num(qa), 0x1234);
	ASSERT_EQ(doca_verbs_qp_attr_get_rq_psn(qa), 77);
	ASSERT_EQ(doca_verbs_qp_attr_get_allow_remote_read(qa), 1);
	ASSERT_EQ(doca_verbs_qp_attr_get_allow_remote_write(qa), 0);
	ASSERT_EQ(doca_verbs_ah_attr_get_hop_limit(ah), 255);
	ASSERT_EQ(doca_verbs_ah_attr_get_addr_type(ah), DOCA_VERBS_ADDR_TYPE_IPv4);
	ASSERT_EQ(doca_verbs_ah_attr_get_gid(ah).raw[15], 9);

	/* all or nothing: a bad value leaves the attributes as they were */
	in.retry_cnt = 9;
	in.rq_psn = 5;
	ASSERT_ERR(doca_verbs_bridge_qp_attr_set(qa, &in, IBV_QP_RQ_PSN | IBV_QP_RETRY_CNT), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_verbs_qp_attr_get_rq_psn(qa), 77);
	in.qp_state = IBV_QPS_SQD;
	ASSERT_ERR(doca_verbs_bridge_qp_attr_set(qa, &in, IBV_QP_STATE), DOCA_ERROR_NOT_SUPPORTED);

	ASSERT_OK(doca_verbs_bridge_qp_attr_get(qa, &out));
	ASSERT_EQ(out.qp_state, IBV_QPS_RTR);
	ASSERT_EQ(out.path_mtu, IBV_MTU_2048);
	ASSERT_EQ(out.dest_qp_num, 0x1234);
	ASSERT_EQ(out.rq_psn, 77);
	ASSERT_EQ(out.min_rnr_timer, 12);
	ASSERT_EQ(out.max_dest_rd_atomic, 4);
	ASSERT_EQ(out.qp_access_flags, IBV_ACCESS_REMOTE_READ);
	ASSERT_EQ(out.ah_attr.is_global, 1);
	ASSERT_EQ(out.ah_attr.grh.dgid.raw[15], 9);
	ASSERT_EQ(out.ah_attr.grh.hop_limit, 255);
	ASSERT_ERR(doca_verbs_bridge_qp_attr_get(NULL, &out), DOCA_ERROR_INVALID_VALUE);

	ASSERT_OK(doca_verbs_qp_attr_destroy(qa));
	ASSERT_OK(doca_verbs_ah_attr_destroy(ah));
	ASSERT_OK(doca_verbs_context_destroy(ctx));
}

/* Calls on anything softdoca did not make reach rdma-core's libibverbs. */
TEST(foreign_calls_forwarded)
{
	/* (ibv_get_device_list lists rdma-core's devices and softdoca's: tests/api/ibverbs) */
	ASSERT_STR_EQ(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
	ASSERT_STR_EQ(ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR), "remote access error");
	/* a NULL PD is not ours: the real ibv_dealloc_pd would crash on it, so only the ownership check is asserted */
	ASSERT(doca_verbs_bridge_verbs_pd_get_ibv_pd(NULL) == NULL);
}

/*
 * Keys are per device (two rails' soft NICs hand out the same values, as two
 * HCAs do): many MRs on PDs of two devices on different fabric devices, and
 * every lkey still covers its own buffer on its own PD (the Multi-Rail
 * application's first work request once failed with LOC_PROT on a collision).
 */
TEST(lkeys_are_per_device)
{
	enum { N = 8000, SAME = 4 };
	static uint8_t buf[2][N][64];
	static struct ibv_mr *mrs[2][N];
	struct doca_verbs_context *ctx[2];
	struct doca_verbs_pd *pd[2];
	struct doca_devinfo **list;
	char path[512];
	unsigned same = 0;
	int regs = 0;
	uint32_t n;
	FILE *f;

	struct if_nameindex *ifs = if_nameindex(), *other = NULL;

	/* mlx5_1 on another netdev than mlx5_0's "lo": another soft NIC device */
	for (struct if_nameindex *i = ifs; i != NULL && i->if_index != 0 && other == NULL; i++)
		if (strcmp(i->if_name, "lo") != 0)
			other = i;
	if (other == NULL) {
		if_freenameindex(ifs);
		SKIP("no network interface but lo: two devices on distinct netdevs need one");
	}
	snprintf(path, sizeof(path), "%s/topology.json", sd_test_tmpdir());
	f = fopen(path, "w");
	ASSERT_NOT_NULL(f);
	fprintf(f,
		"{\"devices\": [{\"functions\": [\n"
		" {\"side\": \"host\", \"pci_addr\": \"b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"h0\", "
		"\"netdev\": \"lo\"},\n"
		" {\"side\": \"host\", \"pci_addr\": \"b1:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"h1\", "
		"\"netdev\": \"%s\"}]}]}\n",
		other->if_name);
	if_freenameindex(ifs);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(setenv("SOFTDOCA_TOPOLOGY", path, 1), 0);
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT_EQ(n, 2);
	for (int d = 0; d < 2; d++) {
		ASSERT_OK(doca_verbs_context_create(list[d], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &ctx[d]));
		ASSERT_OK(doca_verbs_pd_create(ctx[d], &pd[d]));
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
	/*
	 * Ids run alike on both devices and tags are random bytes, so about one
	 * pair in 255 coincides: register pairs until SAME keys have (a fixed count
	 * of MRs would see none in a few runs of a thousand; N pairs miss SAME
	 * with a chance far below 1e-9).
	 */
	for (; regs < N && same < SAME; regs++) {
		for (int d = 0; d < 2; d++) {
			mrs[d][regs] = ibv_reg_mr(doca_verbs_bridge_verbs_pd_get_ibv_pd(pd[d]), buf[d][regs], 64, RW);
			ASSERT_NOT_NULL(mrs[d][regs]);
		}
		for (int j = 0; j <= regs; j++)
			same += (mrs[0][regs]->lkey == mrs[1][j]->lkey) +
				(j < regs && mrs[1][regs]->lkey == mrs[0][j]->lkey);
	}
	ASSERT(same >= SAME);
	/* and they must not matter: every key covers its own buffer on its own PD */
	for (int i = 0; i < regs; i++)
		for (int d = 0; d < 2; d++)
			ASSERT(sd_verbs_mr_check_local(pd[d], NULL, mrs[d][i]->lkey, (uintptr_t)buf[d][i], 64, true));
	for (int d = 0; d < 2; d++) {
		for (int i = 0; i < regs; i++)
			ASSERT_EQ(ibv_dereg_mr(mrs[d][i]), 0);
		ASSERT_OK(doca_verbs_pd_destroy(pd[d]));
		ASSERT_OK(doca_verbs_context_destroy(ctx[d]));
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
