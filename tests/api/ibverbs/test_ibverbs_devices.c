/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdoca's devices through rdma-core's enumeration: ibv_get_device_list()
 * (libsoftdoca_ibverbs, linked before libibverbs as softdoca's libibverbs.pc
 * makes programs do) lists rdma-core's devices and then the soft ones, which
 * must match what doca_devinfo says of the same functions; a program that
 * finds its device the rdma-core way then makes PD, MR, CQ and QPs and moves
 * bytes; the calls a soft object refuses fail cleanly; UCX's transports and
 * librdmacm are not shown the soft devices.
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include <doca_dev.h>
#include <doca_rdma.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>
#include <softdoca_dev.h>

#include "../verbs/dp_test.h"

/* What the soft devices report as their vendor (docs/verbs.md): Mellanox's OUI, a BlueField-3. */
#define MLX_VENDOR_ID 0x02c9u
#define BF3_PART_ID 41692u

/* The functions doca_devinfo_create_list() gives this program (its side's), and their names. */
struct funcs {
	struct doca_devinfo **list;
	uint32_t n;
	char names[16][DOCA_DEVINFO_IBDEV_NAME_SIZE];
};

static void
funcs_open(struct funcs *f)
{
	ASSERT_OK(doca_devinfo_create_list(&f->list, &f->n));
	ASSERT(f->n >= 1 && f->n <= 16);
	for (uint32_t i = 0; i < f->n; i++)
		ASSERT_OK(doca_devinfo_get_ibdev_name(f->list[i], f->names[i], sizeof(f->names[i])));
}

static void
funcs_close(struct funcs *f)
{
	ASSERT_OK(doca_devinfo_destroy_list(f->list));
}

/* The rdma-core device named name, among the last nsoft of list (the soft ones), or NULL. */
static struct ibv_device *
soft_by_name(struct ibv_device **list, int n, uint32_t nsoft, const char *name)
{
	for (int i = n - (int)nsoft; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			return list[i];
	return NULL;
}

/* The rdma-core way to a device: by name from a list, opened, the list freed (the context outlives it). */
static struct ibv_context *
open_soft(const struct funcs *f, const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n;

	list = ibv_get_device_list(&n);
	ASSERT_NOT_NULL(list);
	ctx = ibv_open_device(soft_by_name(list, n, f->n, name));
	ibv_free_device_list(list);
	ASSERT_NOT_NULL(ctx);
	return ctx;
}

TEST(list_matches_doca_devinfo)
{
	struct ibv_device **list;
	struct funcs f;
	int n = -1;

	funcs_open(&f);
	list = ibv_get_device_list(&n);
	ASSERT_NOT_NULL(list);
	ASSERT(n >= (int)f.n);
	ASSERT(list[n] == NULL);
	/* rdma-core's devices first, then one soft device per function, in doca_devinfo's order */
	for (uint32_t i = 0; i < f.n; i++) {
		struct ibv_device *dev = list[n - (int)f.n + (int)i];
		struct doca_rdma_gid want;
		struct ibv_device_attr attr;
		struct ibv_port_attr port;
		union ibv_gid gid;
		struct ibv_context *ctx;
		__be16 pkey = 0;
		uint8_t ipv4[4];

		ASSERT_STR_EQ(ibv_get_device_name(dev), f.names[i]);
		ASSERT_EQ(dev->node_type, IBV_NODE_CA);
		ASSERT_EQ(dev->transport_type, IBV_TRANSPORT_IB);
		ASSERT(ibv_get_device_guid(dev) != 0);
		for (uint32_t j = 0; j < i; j++)
			ASSERT(ibv_get_device_guid(dev) != ibv_get_device_guid(list[n - (int)f.n + (int)j]));
		ASSERT_EQ(ibv_get_device_index(dev), -1); /* no kernel device */

		ctx = ibv_open_device(dev);
		ASSERT_NOT_NULL(ctx);
		ASSERT_PTR_EQ(ctx->device, dev);
		memset(&attr, 0xa5, sizeof(attr));
		ASSERT_EQ(ibv_query_device(ctx, &attr), 0);
		ASSERT(strncmp(attr.fw_ver, "softdoca ", 9) == 0);
		ASSERT_EQ(attr.node_guid, ibv_get_device_guid(dev));
		ASSERT_EQ(attr.vendor_id, MLX_VENDOR_ID);
		ASSERT_EQ(attr.vendor_part_id, BF3_PART_ID);
		ASSERT_EQ(attr.phys_port_cnt, 1);
		ASSERT_EQ(attr.atomic_cap, IBV_ATOMIC_HCA);

		memset(&port, 0xa5, sizeof(port));
		ASSERT_EQ(ibv_query_port(ctx, 1, &port), 0);
		ASSERT_EQ(port.state, IBV_PORT_ACTIVE);
		ASSERT_EQ(port.link_layer, IBV_LINK_LAYER_ETHERNET);
		ASSERT_EQ(port.gid_tbl_len, 1);
		ASSERT_EQ(port.lid, 0);
		ASSERT_EQ(ibv_query_port(ctx, 2, &port), EINVAL);

		/* the GID doca_rdma reports, the netdev's IPv4 address mapped when it has one */
		ASSERT_OK(doca_rdma_cap_get_gid(f.list[i], 0, 1, &want));
		ASSERT_EQ(ibv_query_gid(ctx, 1, 0, &gid), 0);
		ASSERT_MEM_EQ(gid.raw, want.raw, 16);
		if (doca_devinfo_get_ipv4_addr(f.list[i], ipv4, sizeof(ipv4)) == DOCA_SUCCESS) {
			static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

			ASSERT_MEM_EQ(gid.raw, mapped, 12);
			ASSERT_MEM_EQ(gid.raw + 12, ipv4, 4);
		}
		ASSERT_EQ(ibv_query_gid(ctx, 1, 1, &gid), -1);
		ASSERT_EQ(ibv_query_pkey(ctx, 1, 0, &pkey), 0);
		ASSERT_EQ(be16toh(pkey), 0xffff);
		ASSERT_EQ(ibv_query_pkey(ctx, 1, 1, &pkey), -1);
		ASSERT_EQ(ibv_close_device(ctx), 0);
	}
	ibv_free_device_list(list);
	funcs_close(&f);
}

/* A program of the DPU side lists the DPU's functions, as doca_devinfo_create_list does. */
TEST(dpu_side_lists_dpu_functions)
{
	struct ibv_device **list;
	struct funcs host, dpu;
	int n;

	funcs_open(&host);
	softdoca_process_set_side(SOFTDOCA_SIDE_DPU);
	funcs_open(&dpu);
	list = ibv_get_device_list(&n);
	ASSERT_NOT_NULL(list);
	ASSERT(n >= (int)dpu.n);
	for (uint32_t i = 0; i < dpu.n; i++)
		ASSERT_STR_EQ(ibv_get_device_name(list[n - (int)dpu.n + (int)i]), dpu.names[i]);
	for (uint32_t i = 0; i < host.n; i++)
		ASSERT(soft_by_name(list, n, dpu.n, host.names[i]) == NULL);
	ibv_free_device_list(list);
	softdoca_process_set_side(SOFTDOCA_SIDE_HOST);
	funcs_close(&dpu);
	funcs_close(&host);
}

/* The device limits rdma-core reports are DOCA Verbs' own. */
TEST(attributes_match_doca_verbs)
{
	struct doca_verbs_context *vctx;
	struct doca_verbs_device_attr *va;
	struct ibv_device_attr attr;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct funcs f;
	int n;

	funcs_open(&f);
	list = ibv_get_device_list(&n);
	ASSERT_NOT_NULL(list);
	for (uint32_t i = 0; i < f.n; i++) {
		ctx = ibv_open_device(soft_by_name(list, n, f.n, f.names[i]));
		ASSERT_NOT_NULL(ctx);
		ASSERT_EQ(ibv_query_device(ctx, &attr), 0);
		ASSERT_OK(doca_verbs_bridge_verbs_context_import(ctx, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &vctx));
		ASSERT_OK(doca_verbs_query_device(vctx, &va));
		ASSERT_EQ((uint32_t)attr.max_qp, doca_verbs_device_attr_get_max_qp(va));
		ASSERT_EQ((uint32_t)attr.max_qp_wr, doca_verbs_device_attr_get_max_qp_wr(va));
		ASSERT_EQ((uint32_t)attr.max_sge, doca_verbs_device_attr_get_max_sge(va));
		ASSERT_EQ((uint32_t)attr.max_cqe, doca_verbs_device_attr_get_max_cqe(va));
		ASSERT_OK(doca_verbs_device_attr_free(va));
		ASSERT_OK(doca_verbs_context_destroy(vctx));
		ASSERT_EQ(ibv_close_device(ctx), 0);
	}
	ibv_free_device_list(list);
	funcs_close(&f);
}

/* Lists are independent: each is freed on its own, in any order, with or without a count. */
TEST(lists_free_independently)
{
	struct ibv_device **a, **b, **c;
	int na = -1, nb = -1;

	a = ibv_get_device_list(&na);
	b = ibv_get_device_list(&nb);
	c = ibv_get_device_list(NULL);
	ASSERT(a != NULL && b != NULL && c != NULL);
	ASSERT(a != b && b != c && a != c);
	ASSERT_EQ(na, nb);
	for (int i = 0; i < na; i++) {
		ASSERT_PTR_EQ(a[i], b[i]); /* the same device objects */
		ASSERT_PTR_EQ(a[i], c[i]);
	}
	ASSERT(c[na] == NULL);
	ibv_free_device_list(b);
	ibv_free_device_list(a);
	/* a device stays valid after its list is freed (rdma-core's rule: open before freeing) */
	ASSERT_NOT_NULL(ibv_get_device_name(c[na - 1]));
	ibv_free_device_list(c);
}

/*
 * rdma-core's usual pattern: the device by name from ibv_get_device_list, its
 * port and GID from ibv_query_*, PD and MR from rdma-core, CQ and QPs from DOCA
 * Verbs on the imported context and PD; then an RDMA write between the QPs.
 */
TEST(find_device_then_verbs_objects)
{
	static uint8_t src[4096], dst[4096];
	struct ibv_mr *smr, *dmr;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct doca_verbs_qp *a, *b;
	struct ibv_wc wc;
	union ibv_gid gid;
	struct funcs f;
	struct dp d;

	funcs_open(&f);
	ctx = open_soft(&f, f.names[0]);
	ASSERT_EQ(ibv_query_device(ctx, &attr), 0);
	ASSERT_EQ(ibv_query_port(ctx, 1, &port), 0);
	ASSERT_EQ(port.state, IBV_PORT_ACTIVE);
	ASSERT_EQ(ibv_query_gid(ctx, 1, 0, &gid), 0);

	memset(&d, 0, sizeof(d));
	d.ipd = ibv_alloc_pd(ctx);
	ASSERT_NOT_NULL(d.ipd);
	ASSERT_PTR_EQ(d.ipd->context, ctx);
	smr = dp_mr(&d, src, sizeof(src), DP_RW);
	dmr = dp_mr(&d, dst, sizeof(dst), DP_RW);
	ASSERT_OK(doca_verbs_bridge_verbs_context_import(ctx, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &d.ctx));
	ASSERT_OK(doca_verbs_bridge_verbs_pd_import(d.ipd, &d.pd));
	ASSERT_EQ(ibv_dealloc_pd(d.ipd), EBUSY); /* imported */
	memcpy(d.gid.raw, gid.raw, sizeof(d.gid.raw));
	d.cq = dp_cq(d.ctx, 64);
	a = dp_qp(&d, NULL);
	b = dp_qp(&d, NULL);
	dp_connect(&d, a, b, 7);

	dp_fill(src, sizeof(src), 5);
	ASSERT_EQ(dp_send(a, IBV_WR_RDMA_WRITE, 1, src, sizeof(src), smr->lkey, (uintptr_t)dst, dmr->rkey), 0);
	dp_poll1(d.cq, &wc);
	ASSERT_EQ(wc.wr_id, 1);
	ASSERT_EQ(wc.status, IBV_WC_SUCCESS);
	ASSERT_MEM_EQ(dst, src, sizeof(src));

	ASSERT_OK(doca_verbs_qp_destroy(a));
	ASSERT_OK(doca_verbs_qp_destroy(b));
	ASSERT_OK(doca_verbs_cq_destroy(d.cq));
	ASSERT_OK(doca_verbs_pd_destroy(d.pd));
	ASSERT_OK(doca_verbs_context_destroy(d.ctx));
	ASSERT_EQ(ibv_dereg_mr(smr), 0);
	ASSERT_EQ(ibv_dereg_mr(dmr), 0);
	ASSERT_EQ(ibv_dealloc_pd(d.ipd), 0);
	ASSERT_EQ(ibv_close_device(ctx), 0);
	funcs_close(&f);
}

/* A listed device also makes an ordinary Verbs context of its own. */
TEST(listed_device_makes_a_verbs_context)
{
	struct doca_verbs_context *vctx;
	struct ibv_device **list;
	struct funcs f;
	int n;

	funcs_open(&f);
	list = ibv_get_device_list(&n);
	ASSERT_NOT_NULL(list);
	ASSERT_OK(doca_verbs_bridge_verbs_context_create(soft_by_name(list, n, f.n, f.names[0]),
							 DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &vctx));
	ibv_free_device_list(list);
	ASSERT_OK(doca_verbs_context_destroy(vctx));
	funcs_close(&f);
}

/* What rdma-core's providers would make is refused with EOPNOTSUPP, not a crash in libibverbs. */
TEST(provider_objects_refused)
{
	struct ibv_qp_init_attr qa = {.qp_type = IBV_QPT_RC, .cap = {1, 1, 1, 1, 0}};
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = 1, .max_sge = 1}};
	struct ibv_ah_attr ah = {.port_num = 1};
	static uint8_t buf[64];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct funcs f;

	funcs_open(&f);
	ctx = open_soft(&f, f.names[0]);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NOT_NULL(pd);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NOT_NULL(mr);
	errno = 0;
	ASSERT(ibv_create_comp_channel(ctx) == NULL && errno == EOPNOTSUPP);
	errno = 0;
	ASSERT(ibv_create_cq(ctx, 16, NULL, NULL, 0) == NULL && errno == EOPNOTSUPP);
	errno = 0;
	ASSERT(ibv_create_qp(pd, &qa) == NULL && errno == EOPNOTSUPP);
	errno = 0;
	ASSERT(ibv_create_srq(pd, &sa) == NULL && errno == EOPNOTSUPP);
	errno = 0;
	ASSERT(ibv_create_ah(pd, &ah) == NULL && errno == EOPNOTSUPP);
	errno = 0;
	ASSERT_EQ(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE),
		  IBV_REREG_MR_ERR_INPUT);
	ASSERT_EQ(errno, EOPNOTSUPP);
	errno = 0;
	ASSERT(ibv_reg_dmabuf_mr(pd, 0, 64, 0, -1, IBV_ACCESS_LOCAL_WRITE) == NULL && errno == EOPNOTSUPP);
	/* the MR is untouched by the refused rereg */
	ASSERT_PTR_EQ(mr->addr, buf);
	ASSERT_EQ(ibv_dereg_mr(mr), 0);
	ASSERT_EQ(ibv_dealloc_pd(pd), 0);
	ASSERT_EQ(ibv_close_device(ctx), 0);
	funcs_close(&f);
}

/* What a library named name, beside this test, is shown by ibv_get_device_list. */
static int
probe(const char *name)
{
	char path[4096];
	int (*count)(void);
	void *lib;
	int n;

	ASSERT_NOT_NULL(getenv("PROBE_DIR"));
	snprintf(path, sizeof(path), "%s/%s", getenv("PROBE_DIR"), name);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		sd_test_fail(__FILE__, __LINE__, "dlopen %s: %s", path, dlerror());
	*(void **)&count = dlsym(lib, "probe_num_devices");
	ASSERT_NOT_NULL(count);
	n = count();
	dlclose(lib);
	return n;
}

/*
 * The soft NIC runs on UCX: UCX's transports (libuct*) and librdmacm calling
 * ibv_get_device_list see rdma-core's devices only; any other library sees
 * the soft ones too.  The probes are such callers by name.
 */
TEST(ucx_and_rdmacm_see_rdma_core_devices_only)
{
	struct ibv_device **list;
	struct funcs f;
	int n;

	funcs_open(&f);
	list = ibv_get_device_list(&n);
	ASSERT_NOT_NULL(list);
	ibv_free_device_list(list);
	ASSERT_EQ(probe("libuct_probe.so"), n - (int)f.n);
	ASSERT_EQ(probe("librdmacm_probe.so"), n - (int)f.n);
	ASSERT_EQ(probe("libother_probe.so"), n);
	funcs_close(&f);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
