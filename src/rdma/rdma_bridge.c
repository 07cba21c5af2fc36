/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma_bridge.h: softdoca devices are not rdma-core verbs devices, so
 * there is no ibv_pd or mkey to hand out.  Each call says so.
 */
#include <doca_rdma_bridge.h>

#include "../core/sd_log.h"

SD_LOG_REGISTER(rdma.bridge);

DOCA_STABLE doca_error_t
doca_rdma_bridge_get_dev_pd(const struct doca_dev *dev, struct ibv_pd **pd)
{
	if (dev == NULL || pd == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_get_dev_pd: NULL argument (dev %p, pd %p)", (const void *)dev,
			     (void *)pd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_bridge_get_dev_pd: softdoca devices are not rdma-core verbs devices and have "
		     "no ibv_pd; use the doca_rdma / doca_verbs objects instead");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_STABLE doca_error_t
doca_rdma_bridge_open_dev_from_pd(struct ibv_pd *pd, struct doca_dev **dev)
{
	if (pd == NULL || dev == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_open_dev_from_pd: NULL argument (pd %p, dev %p)", (void *)pd,
			     (void *)dev);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_bridge_open_dev_from_pd: softdoca devices are not backed by rdma-core; open "
		     "devices with doca_devinfo_create_list() + doca_dev_open()");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_STABLE doca_error_t
doca_rdma_bridge_get_buf_mkey(const struct doca_buf *buf, struct doca_dev *dev, uint32_t *mkey)
{
	if (buf == NULL || dev == NULL || mkey == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_get_buf_mkey: NULL argument (buf %p, dev %p, mkey %p)",
			     (const void *)buf, (void *)dev, (void *)mkey);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_bridge_get_buf_mkey: softdoca memory has no hardware mkey; pass doca_bufs to "
		     "doca_rdma tasks instead");
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_bridge_get_mmap_mkey_from_pd(const struct doca_mmap *mmap, struct ibv_pd *pd, uint32_t *mkey)
{
	if (mmap == NULL || pd == NULL || mkey == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_get_mmap_mkey_from_pd: NULL argument (mmap %p, pd %p, mkey %p)",
			     (const void *)mmap, (void *)pd, (void *)mkey);
		return DOCA_ERROR_INVALID_VALUE;
	}
	DOCA_LOG_ERR("doca_rdma_bridge_get_mmap_mkey_from_pd: softdoca memory has no hardware mkey; export "
		     "the mmap with doca_mmap_export_rdma() instead");
	return DOCA_ERROR_NOT_SUPPORTED;
}
