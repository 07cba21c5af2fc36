/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soft rdma-core devices and contexts (verbs_ibv_internal.h): one ibv_device +
 * ibv_context per devinfo (a struct verbs_context, so rdma-core's inline
 * ibv_query_port finds its op), the context's ops (everything but query_port
 * "not supported") and the device, port and GID queries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

#include "verbs_ibv_internal.h"

SD_LOG_REGISTER(verbs.ibv);

pthread_mutex_t sd_ibv_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_ibv_dev **devs; /* by devinfo index, made on first use, never freed */
static uint32_t num_devs;

/* ---- the soft context's ops: everything but query_port is "not supported" ---- */

static int
ctx_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t attr_len)
{
	return sd_verbs_ibv_query_port(ctx, port, attr, attr_len);
}

static int
ctx_compat_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	return sd_verbs_ibv_query_device(ctx, attr);
}

static int
ctx_compat_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr)
{
	/* the old layout is struct ibv_port_attr up to link_layer (the header leaves it incomplete) */
	return sd_verbs_ibv_query_port(ctx, port, (struct ibv_port_attr *)(void *)attr,
				       offsetof(struct ibv_port_attr, flags));
}

static void *
ctx_compat_none(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static struct ibv_mw *
ctx_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	errno = EOPNOTSUPP;
	return NULL;
}

static int
ctx_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	return EOPNOTSUPP;
}

static int
ctx_dealloc_mw(struct ibv_mw *mw)
{
	return EOPNOTSUPP;
}

static int
ctx_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return -1; /* no ibv_cq is ever made on a soft context */
}

static int
ctx_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return EOPNOTSUPP;
}

static int
ctx_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	*bad = wr;
	return EOPNOTSUPP;
}

static int
ctx_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	*bad = wr;
	return EOPNOTSUPP;
}

static int
ctx_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	*bad = wr;
	return EOPNOTSUPP;
}

static void
fill_ops(struct ibv_context_ops *ops)
{
	void *(*none)(void) = ctx_compat_none;

	ops->_compat_query_device = ctx_compat_query_device;
	ops->_compat_query_port = ctx_compat_query_port;
	ops->_compat_alloc_pd = ops->_compat_dealloc_pd = ops->_compat_reg_mr = none;
	ops->_compat_rereg_mr = ops->_compat_dereg_mr = ops->_compat_create_cq = none;
	ops->_compat_cq_event = ops->_compat_resize_cq = ops->_compat_destroy_cq = none;
	ops->_compat_create_srq = ops->_compat_modify_srq = ops->_compat_query_srq = none;
	ops->_compat_destroy_srq = ops->_compat_create_qp = ops->_compat_query_qp = none;
	ops->_compat_modify_qp = ops->_compat_destroy_qp = ops->_compat_create_ah = none;
	ops->_compat_destroy_ah = ops->_compat_attach_mcast = ops->_compat_detach_mcast = none;
	ops->_compat_async_event = none;
	ops->alloc_mw = ctx_alloc_mw;
	ops->bind_mw = ctx_bind_mw;
	ops->dealloc_mw = ctx_dealloc_mw;
	ops->poll_cq = ctx_poll_cq;
	ops->req_notify_cq = ctx_req_notify_cq;
	ops->post_srq_recv = ctx_post_srq_recv;
	ops->post_send = ctx_post_send;
	ops->post_recv = ctx_post_recv;
}

/* ---- devices and contexts ---- */

/* sd_ibv_dev_lock held.  The device of devinfo, made on first use. */
struct sd_ibv_dev *
sd_ibv_dev_get_locked(struct doca_devinfo *devinfo)
{
	const struct sd_topology *topo = sd_topology_get();
	uint32_t idx = devinfo != NULL ? sd_devinfo_index(devinfo) : 0;
	struct sd_ibv_dev *sdev;

	if (topo == NULL || devinfo == NULL || idx >= sd_topology_num_devs(topo))
		return NULL;
	if (devs == NULL) {
		devs = calloc(sd_topology_num_devs(topo), sizeof(*devs));
		if (devs == NULL)
			return NULL;
		num_devs = sd_topology_num_devs(topo);
	}
	if (devs[idx] != NULL)
		return devs[idx];
	sdev = calloc(1, sizeof(*sdev));
	if (sdev == NULL)
		return NULL;
	sdev->devinfo = devinfo;
	sdev->dev.node_type = IBV_NODE_CA;
	sdev->dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(sdev->dev.name, sizeof(sdev->dev.name), "%s", sd_devinfo_ibdev_name(devinfo));
	snprintf(sdev->dev.dev_name, sizeof(sdev->dev.dev_name), "softdoca%u", idx);
	snprintf(sdev->dev.dev_path, sizeof(sdev->dev.dev_path), "/softdoca/%s", sd_devinfo_ibdev_name(devinfo));
	snprintf(sdev->dev.ibdev_path, sizeof(sdev->dev.ibdev_path), "/softdoca/%s", sd_devinfo_ibdev_name(devinfo));
	/* rdma-core's inlines reach extended ops through verbs_get_ctx_op: sz and abi_compat */
	sdev->vctx.sz = sizeof(sdev->vctx);
	sdev->vctx.query_port = ctx_query_port;
	sdev->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	sdev->vctx.context.device = &sdev->dev;
	sdev->vctx.context.cmd_fd = -1;
	sdev->vctx.context.async_fd = -1;
	sdev->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&sdev->vctx.context.mutex, NULL);
	fill_ops(&sdev->vctx.context.ops);
	devs[idx] = sdev;
	return sdev;
}

struct sd_ibv_dev *
sd_ibv_dev_get(struct doca_devinfo *devinfo)
{
	struct sd_ibv_dev *sdev;

	pthread_mutex_lock(&sd_ibv_dev_lock);
	sdev = sd_ibv_dev_get_locked(devinfo);
	pthread_mutex_unlock(&sd_ibv_dev_lock);
	if (sdev == NULL)
		DOCA_LOG_ERR("Failed to make the soft ibv_device of %s: out of memory or not a device of this "
			     "process",
			     devinfo != NULL ? sd_devinfo_ibdev_name(devinfo) : "(NULL devinfo)");
	return sdev;
}

/* The soft device whose ibv_device or ibv_context is p (compares pointers only). */
static struct sd_ibv_dev *
dev_find(const void *p)
{
	struct sd_ibv_dev *found = NULL;

	pthread_mutex_lock(&sd_ibv_dev_lock);
	for (uint32_t i = 0; i < num_devs && found == NULL; i++)
		if (devs[i] != NULL && (p == (const void *)&devs[i]->dev || p == (const void *)&devs[i]->vctx.context))
			found = devs[i];
	pthread_mutex_unlock(&sd_ibv_dev_lock);
	return found;
}

bool
sd_verbs_ibv_is_device(const struct ibv_device *dev)
{
	struct sd_ibv_dev *sdev = dev_find(dev);

	return sdev != NULL && dev == &sdev->dev;
}

bool
sd_verbs_ibv_is_context(const struct ibv_context *ctx)
{
	struct sd_ibv_dev *sdev = dev_find(ctx);

	return sdev != NULL && ctx == &sdev->vctx.context;
}

struct ibv_context *
sd_verbs_ibv_context_of(struct doca_devinfo *devinfo)
{
	struct sd_ibv_dev *sdev = sd_ibv_dev_get(devinfo);

	return sdev == NULL ? NULL : &sdev->vctx.context;
}

struct ibv_context *
sd_verbs_ibv_device_context(struct ibv_device *dev)
{
	return sd_verbs_ibv_is_device(dev) ? &sd_container_of(dev, struct sd_ibv_dev, dev)->vctx.context : NULL;
}

struct doca_devinfo *
sd_verbs_ibv_device_devinfo(const struct ibv_device *dev)
{
	return sd_verbs_ibv_is_device(dev) ? sd_container_of(dev, struct sd_ibv_dev, dev)->devinfo : NULL;
}

struct sd_ibv_dev *
sd_ibv_ctx_dev(const struct ibv_context *ctx)
{
	return sd_verbs_ibv_is_context(ctx) ? sd_container_of(ctx, struct sd_ibv_dev, vctx.context) : NULL;
}

struct doca_devinfo *
sd_verbs_ibv_context_devinfo(const struct ibv_context *ctx)
{
	struct sd_ibv_dev *sdev = sd_ibv_ctx_dev(ctx);

	return sdev == NULL ? NULL : sdev->devinfo;
}

/* ---- queries ---- */

/* What mlx5 reports for a BlueField-3's ConnectX-7: Mellanox's IEEE OUI and PCI device id 0xa2dc. */
#define SOFT_VENDOR_OUI 0x0002c9u
#define SOFT_VENDOR_PART_ID 41692u

__be64
sd_verbs_ibv_device_guid(const struct ibv_device *dev)
{
	struct doca_devinfo *devinfo = sd_verbs_ibv_device_devinfo(dev);
	const uint8_t *mac;
	uint32_t serial;
	uint8_t b[8];
	__be64 guid;

	if (devinfo == NULL)
		return 0;
	/*
	 * mlx5's layout, OUI : 03 : 00 : 24-bit serial.  The serial is the low half
	 * of the MAC plus the function's topology index, so functions that share a
	 * netdev (and its MAC: the built-in topology's lo) still differ.
	 */
	mac = sd_devinfo_mac(devinfo);
	serial = ((uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5]) + sd_devinfo_index(devinfo);
	b[0] = (uint8_t)(SOFT_VENDOR_OUI >> 16);
	b[1] = (uint8_t)(SOFT_VENDOR_OUI >> 8);
	b[2] = (uint8_t)SOFT_VENDOR_OUI;
	b[3] = 0x03;
	b[4] = 0x00;
	b[5] = (uint8_t)(serial >> 16);
	b[6] = (uint8_t)(serial >> 8);
	b[7] = (uint8_t)serial;
	memcpy(&guid, b, sizeof(guid)); /* the bytes in wire order: big-endian */
	return guid;
}

uint32_t
sd_verbs_ibv_gid_tbl_len(struct ibv_context *ctx)
{
	(void)ctx;
	return 1; /* index 0: the device's GID (dev_internal.h) */
}

int
sd_verbs_ibv_query_gid(struct ibv_context *ctx, uint32_t port, uint32_t index, union ibv_gid *gid)
{
	struct sd_ibv_dev *sdev = sd_ibv_ctx_dev(ctx);

	if (sdev == NULL || gid == NULL || port != SD_VERBS_PORT || index >= sd_verbs_ibv_gid_tbl_len(ctx)) {
		DOCA_LOG_ERR("ibv_query_gid: %s (port %u, index %u): a softdoca device has port 1 and GID index 0 "
			     "only",
			     sdev == NULL || gid == NULL ? "NULL argument" : "no such entry", port, index);
		errno = EINVAL;
		return -1;
	}
	memcpy(gid->raw, sd_devinfo_gid(sdev->devinfo), sizeof(gid->raw));
	return 0;
}

int
sd_verbs_ibv_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t attr_len)
{
	struct sd_ibv_dev *sdev = sd_ibv_ctx_dev(ctx);
	struct ibv_port_attr a = {0};

	if (sdev == NULL || attr == NULL)
		return EINVAL;
	if (port != SD_VERBS_PORT) {
		DOCA_LOG_ERR("ibv_query_port: port %u: a softdoca device has port 1 only", port);
		return EINVAL;
	}
	a.state = IBV_PORT_ACTIVE;
	a.max_mtu = IBV_MTU_4096;
	a.active_mtu = IBV_MTU_1024;
	a.gid_tbl_len = (int)sd_verbs_ibv_gid_tbl_len(ctx);
	a.port_cap_flags = IBV_PORT_IP_BASED_GIDS;
	a.max_msg_sz = sd_devinfo_caps(sdev->devinfo)->rdma_max_message_size;
	a.pkey_tbl_len = SD_VERBS_MAX_PKEYS;
	a.lid = 0; /* RoCE: no LID */
	a.max_vl_num = 1;
	a.active_width = 2;  /* 4X */
	a.active_speed = 32; /* EDR */
	a.phys_state = 5;    /* LinkUp */
	a.link_layer = IBV_LINK_LAYER_ETHERNET;
	memcpy(attr, &a, SD_MIN(attr_len, sizeof(a)));
	return 0;
}

int
sd_verbs_ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	struct sd_ibv_dev *sdev = sd_ibv_ctx_dev(ctx);
	const struct sd_dev_caps *caps;

	if (sdev == NULL || attr == NULL)
		return EINVAL;
	caps = sd_devinfo_caps(sdev->devinfo);
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "softdoca %s", DOCA_VERSION_STRING);
	attr->node_guid = sd_verbs_ibv_device_guid(&sdev->dev);
	attr->sys_image_guid = attr->node_guid;
	attr->vendor_id = SOFT_VENDOR_OUI;
	attr->vendor_part_id = SOFT_VENDOR_PART_ID;
	attr->max_mr_size = UINT64_MAX;
	attr->page_size_cap = 4096;
	attr->max_qp = SD_VERBS_MAX_QP;
	attr->max_qp_wr = (int)SD_MIN(caps->rdma_max_send_queue_size, caps->rdma_max_recv_queue_size);
	attr->max_sge = (int)SD_MIN(caps->rdma_max_send_buf_list_len, caps->rdma_max_recv_buf_list_len);
	attr->max_cq = SD_VERBS_MAX_CQ;
	attr->max_cqe = SD_VERBS_MAX_CQE;
	attr->max_mr = SD_VERBS_MAX_MR;
	attr->max_pd = SD_VERBS_MAX_PD;
	attr->max_qp_rd_atom = SD_VERBS_MAX_RD_ATOM;
	attr->max_qp_init_rd_atom = SD_VERBS_MAX_RD_ATOM;
	attr->atomic_cap = IBV_ATOMIC_HCA;
	attr->max_ah = SD_VERBS_MAX_AH;
	attr->max_srq = SD_VERBS_MAX_SRQ;
	attr->max_srq_wr = (int)caps->rdma_max_recv_queue_size;
	attr->max_srq_sge = (int)caps->rdma_max_recv_buf_list_len;
	attr->max_pkeys = SD_VERBS_MAX_PKEYS;
	attr->phys_port_cnt = 1;
	return 0;
}

void
sd_verbs_ibv_refuse(const struct ibv_context *ctx, const char *call, const char *instead)
{
	DOCA_LOG_ERR("%s: not supported on softdoca's %s: %s (docs/verbs.md, \"rdma-core interoperability\")", call,
		     ctx != NULL && ctx->device != NULL ? ctx->device->name : "device", instead);
	errno = EOPNOTSUPP;
}

/* ---- the bridge's shared Verbs context ---- */

/*
 * The shared context is made without sd_ibv_dev_lock held: making it opens the
 * soft NIC (UCX), whose libraries may call back into rdma-core's entry points
 * (librdmacm's ibv_get_device_list) and so into this lock.  Two threads
 * racing for the first one: the second's is freed, it takes the first's.
 */
doca_error_t
sd_verbs_ibv_bridge_ctx_get(struct doca_devinfo *devinfo, struct doca_verbs_context **ctx)
{
	struct doca_verbs_context *made = NULL;
	struct sd_ibv_dev *sdev;
	doca_error_t err;

	pthread_mutex_lock(&sd_ibv_dev_lock);
	sdev = sd_ibv_dev_get_locked(devinfo);
	if (sdev != NULL && sdev->bridge_ctx != NULL) {
		sdev->bridge_refs++;
		*ctx = sdev->bridge_ctx;
		pthread_mutex_unlock(&sd_ibv_dev_lock);
		return DOCA_SUCCESS;
	}
	pthread_mutex_unlock(&sd_ibv_dev_lock);
	if (sdev == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = doca_verbs_context_create(devinfo, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &made);
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&sd_ibv_dev_lock); /* sdev is permanent */
	if (sdev->bridge_ctx == NULL) {
		made->bridged = true;
		sdev->bridge_ctx = made;
		made = NULL;
	}
	sdev->bridge_refs++;
	*ctx = sdev->bridge_ctx;
	pthread_mutex_unlock(&sd_ibv_dev_lock);
	if (made != NULL) /* another thread's came first: ours is an ordinary empty context */
		(void)doca_verbs_context_destroy(made);
	return DOCA_SUCCESS;
}

bool
sd_verbs_ibv_bridge_ctx_put(struct doca_verbs_context *ctx)
{
	bool last = false;

	pthread_mutex_lock(&sd_ibv_dev_lock);
	for (uint32_t i = 0; i < num_devs; i++) {
		if (devs[i] == NULL || devs[i]->bridge_ctx != ctx)
			continue;
		if (--devs[i]->bridge_refs == 0) {
			devs[i]->bridge_ctx = NULL;
			last = true;
		}
		break;
	}
	pthread_mutex_unlock(&sd_ibv_dev_lock);
	return last;
}
