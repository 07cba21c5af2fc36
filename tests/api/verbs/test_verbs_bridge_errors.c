/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The error walk (tests/harness/sd_errwalk.h) of doca_verbs_bridge.h,
 * doca_verbs_multi_rail.h and the Verbs library's doca_uar.h / doca_umem.h:
 * a row per (function, error), each checking the
 * status and the one explained line ("<function>: <rule>; <fix>").  The last
 * cases fail when either header declares a function that has no row.
 */
#include <infiniband/verbs.h>

#include <doca_uar.h>
#include <doca_umem.h>
#include <doca_verbs_bridge.h>
#include <doca_verbs_multi_rail.h>

#include "sd_errwalk.h"
#include "verbs_test.h"

static void
errwalk_setup(void)
{
}

/* An rdma-core object softdoca did not make (never dereferenced as one of its own). */
static struct ibv_device foreign_dev;
static struct ibv_context foreign_ctx;
static struct ibv_pd foreign_pd;

static struct doca_verbs_qp_attr *
qp_attr(void)
{
	struct doca_verbs_qp_attr *a;

	ASSERT_OK(doca_verbs_qp_attr_create(&a));
	return a;
}

static struct doca_verbs_multi_rail_cfg *
cfg(void)
{
	struct doca_verbs_multi_rail_cfg *c;

	ASSERT_OK(doca_verbs_multi_rail_cfg_create(&c));
	return c;
}

/* A multi-rail object of n rails, with the default configuration applied unless raw. */
static struct doca_verbs_multi_rail *
mr(uint32_t n, bool raw)
{
	struct doca_verbs_multi_rail *m;

	ASSERT_OK(doca_verbs_multi_rail_create(n, &m));
	if (!raw)
		ASSERT_OK(doca_verbs_multi_rail_apply_cfg(m, cfg()));
	return m;
}

/* The first device of the topology. */
static struct doca_dev *
dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *d;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	ASSERT(n > 0);
	ASSERT_OK(doca_dev_open(list[0], &d));
	return d;
}

/* apply_cfg of the default configuration with one field changed by set. */
#define APPLY_WITH(tag, set)                                                                                           \
	ERR_ROW_N(doca_verbs_multi_rail_apply_cfg, INVALID_VALUE, tag, {                                               \
		struct doca_verbs_multi_rail_cfg *c = cfg();                                                           \
                                                                                                                       \
		ASSERT_OK(set);                                                                                        \
		return doca_verbs_multi_rail_apply_cfg(mr(2, true), c);                                                \
	})

/* doca_verbs_bridge.h */
ERR_NULL(doca_verbs_bridge_verbs_context_create, 0, NULL)
ERR_ROW(doca_verbs_bridge_verbs_context_create, NOT_SUPPORTED, {
	struct doca_verbs_context *c;

	return doca_verbs_bridge_verbs_context_create(&foreign_dev, 0, &c);
})
ERR_NULL(doca_verbs_bridge_verbs_context_import, 0, NULL)
ERR_ROW_N(doca_verbs_bridge_verbs_context_import, INVALID_VALUE, _flags, {
	struct doca_verbs_context *c;

	return doca_verbs_bridge_verbs_context_import(&foreign_ctx, 0x80, &c);
})
ERR_ROW(doca_verbs_bridge_verbs_context_import, NOT_SUPPORTED, {
	struct doca_verbs_context *c;

	return doca_verbs_bridge_verbs_context_import(&foreign_ctx, 0, &c);
})
ERR_NULL(doca_verbs_bridge_verbs_query_device, NULL)
ERR_ROW(doca_verbs_bridge_verbs_query_device, NOT_SUPPORTED, {
	struct doca_verbs_device_attr *a;

	return doca_verbs_bridge_verbs_query_device(&foreign_ctx, &a);
})
ERR_NULL(doca_verbs_bridge_verbs_pd_import, NULL)
ERR_ROW(doca_verbs_bridge_verbs_pd_import, NOT_SUPPORTED, {
	struct doca_verbs_pd *p;

	return doca_verbs_bridge_verbs_pd_import(&foreign_pd, &p);
})
ERR_NOT_PROVOKED(doca_verbs_bridge_verbs_pd_import, NO_MEMORY, "needs an allocation to fail")
ERR_NULL(doca_verbs_bridge_qp_attr_set, NULL, 0)
ERR_ROW_N(doca_verbs_bridge_qp_attr_set, INVALID_VALUE, _av, {
	struct ibv_qp_attr ia = {0};

	return doca_verbs_bridge_qp_attr_set(qp_attr(), &ia, IBV_QP_AV);
})
ERR_ROW_N(doca_verbs_bridge_qp_attr_set, INVALID_VALUE, _mtu, {
	struct ibv_qp_attr ia = {.path_mtu = (enum ibv_mtu)77};

	return doca_verbs_bridge_qp_attr_set(qp_attr(), &ia, IBV_QP_PATH_MTU);
})
ERR_ROW(doca_verbs_bridge_qp_attr_set, NOT_SUPPORTED, {
	struct ibv_qp_attr ia = {.qp_state = IBV_QPS_SQD};

	return doca_verbs_bridge_qp_attr_set(qp_attr(), &ia, IBV_QP_STATE);
})
ERR_NULL(doca_verbs_bridge_qp_attr_get, NULL)

/* doca_verbs_multi_rail.h: configuration records (setters take any value; apply_cfg validates) */
ERR_NULL(doca_verbs_multi_rail_cfg_create)
ERR_NOT_PROVOKED(doca_verbs_multi_rail_cfg_create, NO_MEMORY, "needs an allocation to fail")
ERR_NULL(doca_verbs_multi_rail_cfg_destroy)
ERR_NULL(doca_verbs_multi_rail_cfg_set_bw_decay_factor, 0.5)
ERR_NULL(doca_verbs_multi_rail_cfg_set_max_bw_drop_factor, 0.5)
ERR_NULL(doca_verbs_multi_rail_cfg_set_min_chunk_size, 4096)
ERR_NULL(doca_verbs_multi_rail_cfg_set_chunk_alignment, 64)
ERR_NULL(doca_verbs_multi_rail_cfg_set_min_splitable_message_size, 16384)
ERR_NULL(doca_verbs_multi_rail_cfg_set_lb_mode, DOCA_VERBS_MULTI_RAIL_LB_MODE_ROUND_ROBIN)
ERR_NULL(doca_verbs_multi_rail_cfg_set_probe_count, 1)
ERR_NULL(doca_verbs_multi_rail_cfg_set_probe_timeout_s, 1)
ERR_NULL(doca_verbs_multi_rail_cfg_set_readmit_interval_ms, 1)

/* The object */
ERR_ROW_N(doca_verbs_multi_rail_create, INVALID_VALUE, _null, { return doca_verbs_multi_rail_create(2, NULL); })
ERR_ROW_N(doca_verbs_multi_rail_create, INVALID_VALUE, _rails, {
	struct doca_verbs_multi_rail *m;

	return doca_verbs_multi_rail_create(DOCA_VERBS_MULTI_RAIL_MAX_RAILS + 1, &m);
})
ERR_NOT_PROVOKED(doca_verbs_multi_rail_create, NO_MEMORY, "needs an allocation to fail")
ERR_NOT_PROVOKED(doca_verbs_multi_rail_create, OPERATING_SYSTEM, "needs pthread_mutex_init() to fail")
ERR_NULL(doca_verbs_multi_rail_destroy)
ERR_NULL(doca_verbs_multi_rail_apply_cfg, NULL)
ERR_ROW_N(doca_verbs_multi_rail_apply_cfg, INVALID_VALUE, _null_cfg,
	  { return doca_verbs_multi_rail_apply_cfg(mr(2, true), NULL); })
APPLY_WITH(_decay, doca_verbs_multi_rail_cfg_set_bw_decay_factor(c, 0))
APPLY_WITH(_drop, doca_verbs_multi_rail_cfg_set_max_bw_drop_factor(c, 2))
APPLY_WITH(_alignment, doca_verbs_multi_rail_cfg_set_chunk_alignment(c, 3))
APPLY_WITH(_chunk, doca_verbs_multi_rail_cfg_set_min_chunk_size(c, 1))
APPLY_WITH(_lb_mode, doca_verbs_multi_rail_cfg_set_lb_mode(c, (enum doca_verbs_multi_rail_lb_mode)7))
APPLY_WITH(_probe, doca_verbs_multi_rail_cfg_set_probe_timeout_s(c, 0))

/* Probing */
ERR_NULL(doca_verbs_multi_rail_set_probe_qp, 0, NULL, NULL, NULL, 0, 0, 0)
ERR_ROW_N(doca_verbs_multi_rail_set_probe_qp, INVALID_VALUE, _rail,
	  { return doca_verbs_multi_rail_set_probe_qp(mr(2, false), 2, NULL, NULL, NULL, 0, 0, 0); })
ERR_ROW_N(doca_verbs_multi_rail_set_probe_qp, INVALID_VALUE, _no_cq, {
	return doca_verbs_multi_rail_set_probe_qp(mr(2, false), 0, (struct doca_verbs_qp *)&foreign_pd, NULL, NULL, 0,
						  0, 0);
})
ERR_ROW(doca_verbs_multi_rail_set_probe_qp, BAD_STATE,
	{ return doca_verbs_multi_rail_set_probe_qp(mr(2, true), 0, NULL, NULL, NULL, 0, 0, 0); })
ERR_NULL(doca_verbs_multi_rail_probe_start)
ERR_ROW(doca_verbs_multi_rail_probe_start, BAD_STATE, { return doca_verbs_multi_rail_probe_start(mr(2, true)); })
ERR_ROW(doca_verbs_multi_rail_probe_start, NOT_FOUND, { return doca_verbs_multi_rail_probe_start(mr(2, false)); })
ERR_NULL(doca_verbs_multi_rail_probe_get_status, 0, NULL)
ERR_ROW_N(doca_verbs_multi_rail_probe_get_status, INVALID_VALUE, _rail, {
	enum doca_verbs_multi_rail_rail_status st;

	return doca_verbs_multi_rail_probe_get_status(mr(2, false), 2, &st);
})
ERR_ROW(doca_verbs_multi_rail_probe_get_status, BAD_STATE, {
	enum doca_verbs_multi_rail_rail_status st;

	return doca_verbs_multi_rail_probe_get_status(mr(2, true), 0, &st);
})

/* Splitting and load balancing */
ERR_NULL(doca_verbs_multi_rail_get_post_split, 100, NULL, 0, NULL)
ERR_ROW(doca_verbs_multi_rail_get_post_split, BAD_STATE, {
	struct doca_verbs_multi_rail_chunk c[2];
	uint32_t n;

	return doca_verbs_multi_rail_get_post_split(mr(2, true), 100, c, 2, &n);
})
ERR_ROW(doca_verbs_multi_rail_get_post_split, NOT_CONNECTED, {
	struct doca_verbs_multi_rail *m = mr(1, false);
	struct doca_verbs_multi_rail_chunk c[1];
	uint32_t n;

	ASSERT_OK(doca_verbs_multi_rail_update_qp(m, 0, 0, 0, IBV_WC_RETRY_EXC_ERR));
	errwalk_mark(); /* the rail's DOWN warning */
	return doca_verbs_multi_rail_get_post_split(m, 100, c, 1, &n);
})
ERR_NULL(doca_verbs_multi_rail_update_qp, 0, 1, 1, IBV_WC_SUCCESS)
ERR_ROW_N(doca_verbs_multi_rail_update_qp, INVALID_VALUE, _status,
	  { return doca_verbs_multi_rail_update_qp(mr(2, false), 0, 1, 1, -1); })
ERR_ROW_N(doca_verbs_multi_rail_update_qp, INVALID_VALUE, _rail,
	  { return doca_verbs_multi_rail_update_qp(mr(2, false), 2, 1, 1, IBV_WC_SUCCESS); })
ERR_ROW(doca_verbs_multi_rail_update_qp, BAD_STATE,
	{ return doca_verbs_multi_rail_update_qp(mr(2, true), 0, 1, 1, IBV_WC_SUCCESS); })
ERR_NULL(doca_verbs_multi_rail_update, 1)
ERR_ROW_N(doca_verbs_multi_rail_update, INVALID_VALUE, _clock, {
	struct doca_verbs_multi_rail *m = mr(2, false);

	ASSERT_OK(doca_verbs_multi_rail_update(m, 1000));
	return doca_verbs_multi_rail_update(m, 10);
})
ERR_ROW(doca_verbs_multi_rail_update, BAD_STATE, { return doca_verbs_multi_rail_update(mr(2, true), 1); })
ERR_ROW_N(doca_verbs_multi_rail_error_is_recoverable, INVALID_VALUE, _null,
	  { return doca_verbs_multi_rail_error_is_recoverable(NULL, IBV_WC_RETRY_EXC_ERR, NULL); })
ERR_ROW_N(doca_verbs_multi_rail_error_is_recoverable, INVALID_VALUE, _success, {
	uint8_t r;

	return doca_verbs_multi_rail_error_is_recoverable(NULL, IBV_WC_SUCCESS, &r);
})
/* A per-rail query (bandwidth, share): NULL output, a rail past the last, before apply_cfg. */
#define RAIL_QUERY(fn)                                                                                                 \
	ERR_NULL(fn, 0, NULL)                                                                                          \
	ERR_ROW_N(fn, INVALID_VALUE, _rail, {                                                                          \
		double v;                                                                                              \
                                                                                                                       \
		return fn(mr(2, false), 2, &v);                                                                        \
	})                                                                                                             \
	ERR_ROW(fn, BAD_STATE, {                                                                                       \
		double v;                                                                                              \
                                                                                                                       \
		return fn(mr(2, true), 0, &v);                                                                         \
	})
RAIL_QUERY(doca_verbs_multi_rail_get_rail_bw)
RAIL_QUERY(doca_verbs_multi_rail_get_rail_share)

/* doca_uar.h: software queues have no doorbells to map */
ERR_NULL(doca_uar_create, DOCA_UAR_ALLOCATION_TYPE_NONCACHE, NULL)
ERR_ROW_N(doca_uar_create, INVALID_VALUE, _type, {
	struct doca_uar *u;

	return doca_uar_create(dev(), (enum doca_uar_allocation_type)77, &u);
})
ERR_NOT_PROVOKED(doca_uar_create, NO_MEMORY, "needs an allocation to fail")
ERR_ROW(doca_uar_dpa_create, NOT_SUPPORTED, {
	struct doca_uar *u;

	return doca_uar_dpa_create(NULL, &u);
})
ERR_NULL(doca_uar_destroy)
ERR_NULL(doca_uar_id_get, NULL)
ERR_ROW(doca_uar_page_get, NOT_SUPPORTED, {
	void *page;

	return doca_uar_page_get(NULL, &page);
})
ERR_ROW(doca_uar_reg_addr_get, NOT_SUPPORTED, {
	void *reg;

	return doca_uar_reg_addr_get(NULL, &reg);
})

/* doca_umem.h */
ERR_NULL(doca_umem_create, NULL, 0, 0, NULL)
ERR_ROW_N(doca_umem_create, INVALID_VALUE, _size, {
	static char mem[64];
	struct doca_umem *u;

	return doca_umem_create(dev(), mem, 0, 0, &u);
})
ERR_NOT_PROVOKED(doca_umem_create, NO_MEMORY, "needs an allocation to fail")
ERR_ROW(doca_umem_dpa_create, NOT_SUPPORTED, {
	struct doca_umem *u;

	return doca_umem_dpa_create(NULL, 0, 64, 0, &u);
})
ERR_ROW(doca_umem_gpu_create, NOT_SUPPORTED, {
	static char mem[64];
	struct doca_umem *u;

	return doca_umem_gpu_create(NULL, dev(), mem, sizeof(mem), 0, &u);
})
ERR_NULL(doca_umem_destroy)
ERR_NULL(doca_umem_get_id, NULL)
ERR_NULL(doca_umem_get_size, NULL)
ERR_NULL(doca_umem_get_address, NULL)

TEST(every_function_of_doca_uar_h_and_doca_umem_h_has_a_row)
{
	unsigned int uar = errwalk_check_header(SD_INCLUDE_DIR "/doca_uar.h");

	printf("# doca_uar.h: %u, doca_umem.h: %u functions return a doca_error_t, all walked\n", uar,
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_umem.h"));
}

TEST(every_function_of_doca_verbs_bridge_h_has_a_row)
{
	printf("# doca_verbs_bridge.h: %u functions return a doca_error_t, all walked\n",
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_verbs_bridge.h"));
}

TEST(every_function_of_doca_verbs_multi_rail_h_has_a_row)
{
	printf("# doca_verbs_multi_rail.h: %u functions return a doca_error_t, all walked\n",
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_verbs_multi_rail.h"));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
