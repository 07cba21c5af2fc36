/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the Verbs contract tests: a context on the first RDMA-capable
 * device, and the objects DOCA's Verbs samples make before connecting.
 */
#ifndef VERBS_TEST_H_
#define VERBS_TEST_H_

#include <doca_dev.h>
#include <doca_verbs.h>

#include "sd_test.h"

static inline struct doca_verbs_context *
open_verbs_ctx(void)
{
	struct doca_verbs_context *ctx = NULL;
	struct doca_devinfo **list;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && ctx == NULL; i++)
		if (doca_verbs_context_create(list[i], DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &ctx) != DOCA_SUCCESS)
			ctx = NULL;
	ASSERT_OK(doca_devinfo_destroy_list(list));
	if (ctx == NULL)
		SKIP("no RDMA-capable device in the topology");
	return ctx;
}

static inline struct doca_verbs_cq *
make_cq(struct doca_verbs_context *ctx, struct doca_verbs_comp_channel *ch, void *cq_context)
{
	struct doca_verbs_cq_attr *attr;
	struct doca_verbs_cq *cq;

	ASSERT_OK(doca_verbs_cq_attr_create(&attr));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_size(attr, 64));
	ASSERT_OK(doca_verbs_cq_attr_set_entry_size(attr, DOCA_VERBS_CQ_ENTRY_SIZE_64));
	ASSERT_OK(doca_verbs_cq_attr_set_comp_channel(attr, ch));
	ASSERT_OK(doca_verbs_cq_attr_set_cq_context(attr, cq_context));
	ASSERT_OK(doca_verbs_cq_create(ctx, attr, &cq));
	ASSERT_OK(doca_verbs_cq_attr_destroy(attr));
	return cq;
}

static inline struct doca_verbs_qp *
make_qp(struct doca_verbs_context *ctx, struct doca_verbs_pd *pd, struct doca_verbs_cq *cq, uint32_t type)
{
	struct doca_verbs_qp_init_attr *ia;
	struct doca_verbs_qp *qp;

	ASSERT_OK(doca_verbs_qp_init_attr_create(&ia));
	ASSERT_OK(doca_verbs_qp_init_attr_set_pd(ia, pd));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_cq(ia, cq));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_cq(ia, cq));
	ASSERT_OK(doca_verbs_qp_init_attr_set_sq_wr(ia, 16));
	ASSERT_OK(doca_verbs_qp_init_attr_set_rq_wr(ia, 16));
	ASSERT_OK(doca_verbs_qp_init_attr_set_send_max_sges(ia, 1));
	ASSERT_OK(doca_verbs_qp_init_attr_set_receive_max_sges(ia, 1));
	ASSERT_OK(doca_verbs_qp_init_attr_set_qp_type(ia, type));
	ASSERT_OK(doca_verbs_qp_create(ctx, ia, &qp));
	ASSERT_OK(doca_verbs_qp_init_attr_destroy(ia));
	return qp;
}

#endif /* VERBS_TEST_H_ */
