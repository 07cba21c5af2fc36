/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DOCA Verbs program built the way DOCA's samples are (meson, pkg-config
 * doca-verbs + libibverbs + libmlx5): rdma-core calls on softdoca's ibv_pd
 * and ibv_context.  If rdma-core's own ibv_reg_mr got the soft PD it would
 * crash; softdoca's libibverbs.pc must have put the interposer first.
 */
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <doca_dev.h>
#include <doca_verbs.h>
#include <doca_verbs_bridge.h>

int
main(void)
{
	struct doca_verbs_context *ctx = NULL;
	struct doca_devinfo **list;
	struct doca_verbs_pd *pd;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct ibv_pd *ipd;
	struct ibv_mr *mr;
	static char buf[4096];
	uint32_t n, key;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return 2;
	for (uint32_t i = 0; i < n && ctx == NULL; i++)
		if (doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &ctx) != DOCA_SUCCESS)
			ctx = NULL;
	doca_devinfo_destroy_list(list);
	if (ctx == NULL || doca_verbs_pd_create(ctx, &pd) != DOCA_SUCCESS)
		return 3;
	ipd = doca_verbs_bridge_verbs_pd_get_ibv_pd(pd);
	mr = ibv_reg_mr(ipd, buf, sizeof(buf),
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (mr == NULL || mr->lkey != mr->rkey)
		return 4;
	if (ibv_query_port(ipd->context, 1, &port) != 0 || port.state != IBV_PORT_ACTIVE ||
	    port.link_layer != IBV_LINK_LAYER_ETHERNET)
		return 5;
	if (ibv_query_gid(ipd->context, 1, 0, &gid) != 0)
		return 6;
	key = mr->rkey;
	if (ibv_dereg_mr(mr) != 0)
		return 7;
	printf("ibv: registered key 0x%x, status string '%s'\n", key, ibv_wc_status_str(IBV_WC_SUCCESS));
	if (doca_verbs_pd_destroy(pd) != DOCA_SUCCESS || doca_verbs_context_destroy(ctx) != DOCA_SUCCESS)
		return 8;
	return 0;
}
