/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_bridge.h: argument checks, then the provider libdoca_verbs
 * installs when it is loaded (rdma_bridge_internal.h).  Without it there is no
 * soft ibv_pd to hand out and every call says which library to link.
 */
#include "rdma_bridge_internal.h"
#include "sd_log.h"

SD_LOG_REGISTER(core.rdma_bridge);

static const struct sd_rdma_bridge_ops *bridge_ops;

void
sd_rdma_bridge_set_ops(const struct sd_rdma_bridge_ops *ops)
{
	__atomic_store_n(&bridge_ops, ops, __ATOMIC_RELEASE);
}

static const struct sd_rdma_bridge_ops *
provider(const char *func)
{
	const struct sd_rdma_bridge_ops *ops = __atomic_load_n(&bridge_ops, __ATOMIC_ACQUIRE);

	if (ops == NULL)
		DOCA_LOG_ERR("%s: not supported without libdoca_verbs, which makes softdoca's ibv_pd objects; link "
			     "doca-verbs (pkg-config doca-verbs)",
			     func);
	return ops;
}

DOCA_STABLE doca_error_t
doca_rdma_bridge_get_dev_pd(const struct doca_dev *dev, struct ibv_pd **pd)
{
	const struct sd_rdma_bridge_ops *ops;

	if (dev == NULL || pd == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (dev %p, pd %p)", __func__, (const void *)dev, (void *)pd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ops = provider(__func__);
	return ops == NULL ? DOCA_ERROR_NOT_SUPPORTED : ops->get_dev_pd(dev, pd);
}

DOCA_STABLE doca_error_t
doca_rdma_bridge_open_dev_from_pd(struct ibv_pd *pd, struct doca_dev **dev)
{
	const struct sd_rdma_bridge_ops *ops;

	if (pd == NULL || dev == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (pd %p, dev %p)", __func__, (void *)pd, (void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ops = provider(__func__);
	return ops == NULL ? DOCA_ERROR_NOT_SUPPORTED : ops->open_dev_from_pd(pd, dev);
}

DOCA_STABLE doca_error_t
doca_rdma_bridge_get_buf_mkey(const struct doca_buf *buf, struct doca_dev *dev, uint32_t *mkey)
{
	const struct sd_rdma_bridge_ops *ops;

	if (buf == NULL || dev == NULL || mkey == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (buf %p, dev %p, mkey %p)", __func__, (const void *)buf, (void *)dev,
			     (void *)mkey);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ops = provider(__func__);
	return ops == NULL ? DOCA_ERROR_NOT_SUPPORTED : ops->get_buf_mkey(buf, dev, mkey);
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_bridge_get_mmap_mkey_from_pd(const struct doca_mmap *mmap, struct ibv_pd *pd, uint32_t *mkey)
{
	const struct sd_rdma_bridge_ops *ops;

	if (mmap == NULL || pd == NULL || mkey == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (mmap %p, pd %p, mkey %p)", __func__, (const void *)mmap, (void *)pd,
			     (void *)mkey);
		return DOCA_ERROR_INVALID_VALUE;
	}
	ops = provider(__func__);
	return ops == NULL ? DOCA_ERROR_NOT_SUPPORTED : ops->get_mmap_mkey_from_pd(mmap, pd, mkey);
}
