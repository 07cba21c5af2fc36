/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soft rdma-core objects (verbs_ibv.h): one ibv_device + ibv_context per
 * devinfo (a struct verbs_context, so rdma-core's inline ibv_query_port finds
 * its op), PDs and MRs, and the registry that tells them from rdma-core's.
 * An MR is a fabric registration addressed by rkey (src/fabric): lkey ==
 * rkey, so a program may use mr->rkey for its own SGEs, as DOCA's samples do.
 *
 * Locking: reg_lock (a rwlock) guards the PD and MR tables and every PD's
 * counters; readers are the ownership checks and sd_verbs_mr_check_local.
 * dev_lock guards the device table and the shared bridge contexts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

#include "verbs_ibv.h"

SD_LOG_REGISTER(verbs.ibv);

struct sd_ibv_dev {
	struct ibv_device dev;
	struct verbs_context vctx; /* the device's one soft ibv_context: vctx.context */
	struct doca_devinfo *devinfo;
	struct doca_verbs_context *bridge_ctx; /* dev_lock */
	uint32_t bridge_refs;
	struct ibv_pd *dev_pd; /* doca_rdma_bridge_get_dev_pd's, permanent (dev_lock) */
};

struct sd_ibv_pd {
	struct ibv_pd pd;
	struct sd_ibv_dev *sdev;
	struct doca_verbs_context *owner; /* doca_verbs_pd_create's context, else NULL */
	uint32_t num_mrs, imports;	  /* reg_lock */
	bool permanent;			  /* the device PD of doca_rdma_bridge_get_dev_pd */
};

struct sd_ibv_mr {
	struct ibv_mr mr;
	struct sd_ibv_pd *spd;
	struct fabric_dev *fdev; /* one reference per MR */
	struct fabric_mr *fmr;
	unsigned int access;
	const void *tag; /* sd_verbs_ibv_key_for_range's cache, else NULL */
};

/* ---- a small open-addressing map, uint64 key (never 0) -> pointer ---- */

struct ptab {
	uint64_t *keys;
	void **vals;
	uint32_t cap, n; /* cap: a power of two */
};

static uint32_t
ptab_slot(const struct ptab *t, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (t->cap - 1);
}

static void *
ptab_get(const struct ptab *t, uint64_t key)
{
	if (t->cap == 0)
		return NULL;
	for (uint32_t i = ptab_slot(t, key);; i = (i + 1) & (t->cap - 1)) {
		if (t->keys[i] == key)
			return t->vals[i];
		if (t->keys[i] == 0)
			return NULL;
	}
}

static int ptab_put(struct ptab *t, uint64_t key, void *val);

static int
ptab_grow(struct ptab *t)
{
	struct ptab bigger = {.cap = t->cap == 0 ? 64 : t->cap * 2};

	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (bigger.keys == NULL || bigger.vals == NULL) {
		free(bigger.keys);
		free(bigger.vals);
		return ENOMEM;
	}
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->keys[i] != 0)
			ptab_put(&bigger, t->keys[i], t->vals[i]);
	free(t->keys);
	free(t->vals);
	*t = bigger;
	return 0;
}

static int
ptab_put(struct ptab *t, uint64_t key, void *val)
{
	uint32_t i;

	if ((t->n + 1) * 2 > t->cap && ptab_grow(t) != 0)
		return ENOMEM;
	for (i = ptab_slot(t, key); t->keys[i] != 0 && t->keys[i] != key; i = (i + 1) & (t->cap - 1))
		;
	if (t->keys[i] == 0)
		t->n++;
	t->keys[i] = key;
	t->vals[i] = val;
	return 0;
}

/* Linear probing delete: move later members of the run back so no lookup stops early. */
static void
ptab_del(struct ptab *t, uint64_t key)
{
	uint32_t i, j, home;

	if (t->cap == 0)
		return;
	for (i = ptab_slot(t, key); t->keys[i] != key; i = (i + 1) & (t->cap - 1))
		if (t->keys[i] == 0)
			return;
	t->keys[i] = 0;
	t->n--;
	for (j = (i + 1) & (t->cap - 1); t->keys[j] != 0; j = (j + 1) & (t->cap - 1)) {
		home = ptab_slot(t, t->keys[j]);
		/* keys[j] may move to the hole i if its home is not in (i, j] (cyclically) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->keys[i] = t->keys[j];
			t->vals[i] = t->vals[j];
			t->keys[j] = 0;
			i = j;
		}
	}
}

#define PTR_KEY(p) ((uint64_t)(uintptr_t)(p))
#define RKEY_KEY(k) ((uint64_t)(k) | (1ull << 32))

static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct ptab pds, mrs, mr_keys; /* soft PD / MR pointers; MRs by rkey */

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
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

/* dev_lock held.  The device of devinfo, made on first use. */
static struct sd_ibv_dev *
dev_get_locked(struct doca_devinfo *devinfo)
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

static struct sd_ibv_dev *
dev_get(struct doca_devinfo *devinfo)
{
	struct sd_ibv_dev *sdev;

	pthread_mutex_lock(&dev_lock);
	sdev = dev_get_locked(devinfo);
	pthread_mutex_unlock(&dev_lock);
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

	pthread_mutex_lock(&dev_lock);
	for (uint32_t i = 0; i < num_devs && found == NULL; i++)
		if (devs[i] != NULL && (p == (const void *)&devs[i]->dev || p == (const void *)&devs[i]->vctx.context))
			found = devs[i];
	pthread_mutex_unlock(&dev_lock);
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
	struct sd_ibv_dev *sdev = dev_get(devinfo);

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

static struct sd_ibv_dev *
ctx_dev(const struct ibv_context *ctx)
{
	return sd_verbs_ibv_is_context(ctx) ? sd_container_of(ctx, struct sd_ibv_dev, vctx.context) : NULL;
}

struct doca_devinfo *
sd_verbs_ibv_context_devinfo(const struct ibv_context *ctx)
{
	struct sd_ibv_dev *sdev = ctx_dev(ctx);

	return sdev == NULL ? NULL : sdev->devinfo;
}

/* ---- queries ---- */

uint32_t
sd_verbs_ibv_gid_tbl_len(struct ibv_context *ctx)
{
	(void)ctx;
	return 1; /* index 0: the device's GID (dev_internal.h) */
}

int
sd_verbs_ibv_query_gid(struct ibv_context *ctx, uint32_t port, uint32_t index, union ibv_gid *gid)
{
	struct sd_ibv_dev *sdev = ctx_dev(ctx);

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
	struct sd_ibv_dev *sdev = ctx_dev(ctx);
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
	struct sd_ibv_dev *sdev = ctx_dev(ctx);
	const struct sd_dev_caps *caps;

	if (sdev == NULL || attr == NULL)
		return EINVAL;
	caps = sd_devinfo_caps(sdev->devinfo);
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "softdoca %s", DOCA_VERSION_STRING);
	for (int i = 0; i < 6; i++)
		attr->node_guid = attr->node_guid << 8 | sd_devinfo_mac(sdev->devinfo)[i];
	attr->sys_image_guid = attr->node_guid;
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

/* ---- protection domains ---- */

static struct sd_ibv_pd *
pd_find_locked(const struct ibv_pd *pd)
{
	return pd == NULL ? NULL : ptab_get(&pds, PTR_KEY(pd));
}

bool
sd_verbs_ibv_is_pd(const struct ibv_pd *pd)
{
	bool ours;

	pthread_rwlock_rdlock(&reg_lock);
	ours = pd_find_locked(pd) != NULL;
	pthread_rwlock_unlock(&reg_lock);
	return ours;
}

struct doca_devinfo *
sd_verbs_ibv_pd_devinfo(const struct ibv_pd *pd)
{
	struct sd_ibv_pd *spd;

	pthread_rwlock_rdlock(&reg_lock);
	spd = pd_find_locked(pd);
	pthread_rwlock_unlock(&reg_lock);
	return spd == NULL ? NULL : spd->sdev->devinfo;
}

static struct ibv_pd *
pd_new(struct sd_ibv_dev *sdev, struct doca_verbs_context *owner, bool permanent)
{
	static uint32_t next_handle;
	struct sd_ibv_pd *spd = calloc(1, sizeof(*spd));
	int err;

	if (spd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	spd->pd.context = &sdev->vctx.context;
	spd->pd.handle = __atomic_add_fetch(&next_handle, 1, __ATOMIC_RELAXED);
	spd->sdev = sdev;
	spd->owner = owner;
	spd->permanent = permanent;
	pthread_rwlock_wrlock(&reg_lock);
	err = ptab_put(&pds, PTR_KEY(&spd->pd), spd);
	pthread_rwlock_unlock(&reg_lock);
	if (err != 0) {
		free(spd);
		errno = err;
		return NULL;
	}
	return &spd->pd;
}

/* Remove a PD no MR or import uses: 0, or EBUSY / EINVAL (logged by the caller). */
static int
pd_free(struct ibv_pd *pd, bool permanent_ok)
{
	struct sd_ibv_pd *spd;
	int err = 0;

	pthread_rwlock_wrlock(&reg_lock);
	spd = pd_find_locked(pd);
	if (spd == NULL || (spd->permanent && !permanent_ok))
		err = EINVAL;
	else if (spd->num_mrs != 0 || spd->imports != 0)
		err = EBUSY;
	else
		ptab_del(&pds, PTR_KEY(pd));
	pthread_rwlock_unlock(&reg_lock);
	if (err == 0)
		free(spd);
	return err;
}

struct ibv_pd *
sd_verbs_ibv_alloc_pd(struct ibv_context *ctx)
{
	struct sd_ibv_dev *sdev = ctx_dev(ctx);

	if (sdev == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return pd_new(sdev, NULL, false);
}

int
sd_verbs_ibv_dealloc_pd(struct ibv_pd *pd)
{
	int err = pd_free(pd, false);

	if (err == EBUSY)
		DOCA_LOG_ERR("ibv_dealloc_pd: memory regions or an imported DOCA PD still use the PD; deregister / "
			     "destroy them first");
	else if (err == EINVAL)
		DOCA_LOG_ERR("ibv_dealloc_pd: the PD of doca_rdma_bridge_get_dev_pd() or of doca_verbs_pd_create() "
			     "belongs to softdoca; it goes with its device / doca_verbs_pd_destroy()");
	return err;
}

doca_error_t
sd_verbs_ibv_pd_create(struct doca_devinfo *devinfo, struct doca_verbs_context *owner, struct ibv_pd **pd)
{
	struct sd_ibv_dev *sdev = dev_get(devinfo);
	struct ibv_pd *p;

	if (sdev == NULL)
		return DOCA_ERROR_NO_MEMORY;
	p = pd_new(sdev, owner, true);
	if (p == NULL)
		return DOCA_ERROR_NO_MEMORY;
	*pd = p;
	return DOCA_SUCCESS;
}

doca_error_t
sd_verbs_ibv_pd_destroy(struct ibv_pd *pd)
{
	int err = pd_free(pd, true);

	if (err == EBUSY) {
		DOCA_LOG_ERR("doca_verbs_pd_destroy: memory is still registered on the PD's ibv_pd (or a DOCA PD "
			     "imports it); ibv_dereg_mr() / destroy the imported PD first");
		return DOCA_ERROR_IN_USE;
	}
	return err == 0 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t
sd_verbs_ibv_dev_pd(struct doca_devinfo *devinfo, struct ibv_pd **pd)
{
	struct sd_ibv_dev *sdev;

	pthread_mutex_lock(&dev_lock);
	sdev = dev_get_locked(devinfo);
	if (sdev != NULL && sdev->dev_pd == NULL)
		sdev->dev_pd = pd_new(sdev, NULL, true);
	pthread_mutex_unlock(&dev_lock);
	if (sdev == NULL || sdev->dev_pd == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_get_dev_pd: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	*pd = sdev->dev_pd;
	return DOCA_SUCCESS;
}

/* ---- the bridge's shared Verbs context ---- */

doca_error_t
sd_verbs_ibv_bridge_ctx_get(struct doca_devinfo *devinfo, struct doca_verbs_context **ctx)
{
	doca_error_t err = DOCA_SUCCESS;
	struct sd_ibv_dev *sdev;

	pthread_mutex_lock(&dev_lock);
	sdev = dev_get_locked(devinfo);
	if (sdev == NULL)
		err = DOCA_ERROR_NO_MEMORY;
	else if (sdev->bridge_ctx == NULL)
		err = doca_verbs_context_create(devinfo, DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE, &sdev->bridge_ctx);
	if (err == DOCA_SUCCESS) {
		sdev->bridge_ctx->bridged = true;
		sdev->bridge_refs++;
		*ctx = sdev->bridge_ctx;
	}
	pthread_mutex_unlock(&dev_lock);
	return err;
}

bool
sd_verbs_ibv_bridge_ctx_put(struct doca_verbs_context *ctx)
{
	bool last = false;

	pthread_mutex_lock(&dev_lock);
	for (uint32_t i = 0; i < num_devs; i++) {
		if (devs[i] == NULL || devs[i]->bridge_ctx != ctx)
			continue;
		if (--devs[i]->bridge_refs == 0) {
			devs[i]->bridge_ctx = NULL;
			last = true;
		}
		break;
	}
	pthread_mutex_unlock(&dev_lock);
	return last;
}

doca_error_t
sd_verbs_ibv_pd_import(struct ibv_pd *pd, struct doca_verbs_context **ctx, bool *bridged)
{
	struct doca_verbs_context *owner = NULL;
	struct doca_devinfo *devinfo = NULL;
	struct sd_ibv_pd *spd;
	doca_error_t err;

	pthread_rwlock_wrlock(&reg_lock);
	spd = pd_find_locked(pd);
	if (spd != NULL) {
		spd->imports++;
		owner = spd->owner;
		devinfo = spd->sdev->devinfo;
	}
	pthread_rwlock_unlock(&reg_lock);
	if (spd == NULL)
		return DOCA_ERROR_NOT_SUPPORTED;
	*bridged = owner == NULL;
	if (owner != NULL) {
		*ctx = owner;
		return DOCA_SUCCESS;
	}
	err = sd_verbs_ibv_bridge_ctx_get(devinfo, ctx);
	if (err != DOCA_SUCCESS)
		sd_verbs_ibv_pd_unimport(pd);
	return err;
}

void
sd_verbs_ibv_pd_unimport(struct ibv_pd *pd)
{
	struct sd_ibv_pd *spd;

	pthread_rwlock_wrlock(&reg_lock);
	spd = pd_find_locked(pd);
	if (spd != NULL && spd->imports > 0)
		spd->imports--;
	pthread_rwlock_unlock(&reg_lock);
}

/* ---- memory regions ---- */

bool
sd_verbs_ibv_is_mr(const struct ibv_mr *mr)
{
	bool ours;

	pthread_rwlock_rdlock(&reg_lock);
	ours = mr != NULL && ptab_get(&mrs, PTR_KEY(mr)) != NULL;
	pthread_rwlock_unlock(&reg_lock);
	return ours;
}

#define SD_IBV_ACCESS_KNOWN                                                                                            \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |        \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB | IBV_ACCESS_OPTIONAL_RANGE)

static struct ibv_mr *
mr_register(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access, const void *tag)
{
	struct sd_ibv_pd *spd;
	struct sd_ibv_mr *smr;
	uint32_t perms = 0;
	doca_error_t derr;
	int err = 0;

	if (addr == NULL || len == 0) {
		DOCA_LOG_ERR("ibv_reg_mr: %s; register a non-empty range of this process's memory",
			     addr == NULL ? "addr is NULL" : "length is 0");
		errno = EINVAL;
		return NULL;
	}
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) != 0 &&
	    (access & IBV_ACCESS_LOCAL_WRITE) == 0) {
		DOCA_LOG_ERR("ibv_reg_mr: access 0x%x asks for remote write or atomic without "
			     "IBV_ACCESS_LOCAL_WRITE, which rdma-core refuses; add IBV_ACCESS_LOCAL_WRITE",
			     access);
		errno = EINVAL;
		return NULL;
	}
	if ((access & ~(unsigned int)SD_IBV_ACCESS_KNOWN) != 0 || iova != (uint64_t)(uintptr_t)addr) {
		DOCA_LOG_ERR("ibv_reg_mr: %s is not supported on a softdoca PD (access 0x%x); register with the "
			     "range's own address and the LOCAL_WRITE / REMOTE_* flags",
			     iova != (uint64_t)(uintptr_t)addr ? "an iova other than the address" : "an access flag",
			     access);
		errno = EOPNOTSUPP;
		return NULL;
	}
	smr = calloc(1, sizeof(*smr));
	if (smr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* reserve: the PD cannot go while the registration is in flight */
	pthread_rwlock_wrlock(&reg_lock);
	spd = pd_find_locked(pd);
	if (spd != NULL)
		spd->num_mrs++;
	pthread_rwlock_unlock(&reg_lock);
	if (spd == NULL) {
		free(smr);
		errno = EINVAL;
		return NULL;
	}
	if (access & IBV_ACCESS_REMOTE_READ)
		perms |= FABRIC_PERM_REMOTE_READ;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		perms |= FABRIC_PERM_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		perms |= FABRIC_PERM_REMOTE_ATOMIC;
	derr = sd_fabric_dev_open(sd_devinfo_netdev(spd->sdev->devinfo), &smr->fdev);
	if (derr == DOCA_SUCCESS) {
		/* the PD is the protection domain: the rkey serves only QPs of this PD */
		derr = sd_fabric_mr_register_rkey(smr->fdev, addr, len, perms, pd->handle, &smr->fmr, &smr->mr.rkey);
		if (derr != DOCA_SUCCESS)
			sd_fabric_dev_close(smr->fdev);
	}
	if (derr == DOCA_SUCCESS) {
		smr->mr.context = pd->context;
		smr->mr.pd = pd;
		smr->mr.addr = addr;
		smr->mr.length = len;
		smr->mr.handle = smr->mr.rkey;
		smr->mr.lkey = smr->mr.rkey;
		smr->spd = spd;
		smr->access = access;
		smr->tag = tag;
		pthread_rwlock_wrlock(&reg_lock);
		err = ptab_put(&mrs, PTR_KEY(&smr->mr), smr);
		if (err == 0 && (err = ptab_put(&mr_keys, RKEY_KEY(smr->mr.rkey), smr)) != 0)
			ptab_del(&mrs, PTR_KEY(&smr->mr));
		if (err != 0)
			spd->num_mrs--;
		pthread_rwlock_unlock(&reg_lock);
		if (err == 0)
			return &smr->mr;
		sd_fabric_mr_deregister(smr->fmr);
		sd_fabric_dev_close(smr->fdev);
	} else {
		DOCA_LOG_ERR("ibv_reg_mr: failed to register %zu bytes at %p on the soft NIC of %s: %s", len, addr,
			     sd_devinfo_netdev(spd->sdev->devinfo), doca_error_get_descr(derr));
		err = derr == DOCA_ERROR_NO_MEMORY ? ENOMEM : EINVAL;
		pthread_rwlock_wrlock(&reg_lock);
		spd->num_mrs--;
		pthread_rwlock_unlock(&reg_lock);
	}
	free(smr);
	errno = err;
	return NULL;
}

struct ibv_mr *
sd_verbs_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access)
{
	return mr_register(pd, addr, len, iova, access, NULL);
}

int
sd_verbs_ibv_dereg_mr(struct ibv_mr *mr)
{
	struct sd_ibv_mr *smr;

	pthread_rwlock_wrlock(&reg_lock);
	smr = mr == NULL ? NULL : ptab_get(&mrs, PTR_KEY(mr));
	if (smr != NULL) {
		ptab_del(&mrs, PTR_KEY(mr));
		ptab_del(&mr_keys, RKEY_KEY(mr->rkey));
		smr->spd->num_mrs--;
	}
	pthread_rwlock_unlock(&reg_lock);
	if (smr == NULL)
		return EINVAL;
	/* no lookup finds it now: revoke the range for remote peers too */
	sd_fabric_mr_deregister(smr->fmr);
	sd_fabric_dev_close(smr->fdev);
	free(smr);
	return 0;
}

static bool
mr_covers(const struct sd_ibv_mr *smr, uint64_t addr, uint64_t len)
{
	uint64_t base = (uint64_t)(uintptr_t)smr->mr.addr;

	return addr >= base && len <= smr->mr.length && addr - base <= smr->mr.length - len;
}

bool
sd_verbs_mr_check_local(const struct doca_verbs_pd *pd, uint32_t lkey, uint64_t addr, uint64_t len, bool write)
{
	const struct sd_ibv_mr *smr;
	bool ok;

	if (pd == NULL)
		return false;
	pthread_rwlock_rdlock(&reg_lock);
	smr = ptab_get(&mr_keys, RKEY_KEY(lkey));
	ok = smr != NULL && &smr->spd->pd == pd->ibv_pd && mr_covers(smr, addr, len) &&
	     (!write || (smr->access & IBV_ACCESS_LOCAL_WRITE) != 0);
	pthread_rwlock_unlock(&reg_lock);
	return ok;
}

doca_error_t
sd_verbs_ibv_key_for_range(struct ibv_pd *pd, const void *tag, void *addr, size_t len, void *reg_addr, size_t reg_len,
			   unsigned int access, uint32_t *key)
{
	struct sd_ibv_mr *found = NULL, *stale = NULL;
	struct ibv_mr *mr;

	pthread_rwlock_rdlock(&reg_lock);
	for (uint32_t i = 0; i < mrs.cap && found == NULL; i++) {
		struct sd_ibv_mr *smr = mrs.vals[i];

		if (mrs.keys[i] == 0 || smr->mr.pd != pd)
			continue;
		if (mr_covers(smr, (uint64_t)(uintptr_t)addr, len) && (smr->access & access) == access)
			found = smr;
		if (tag != NULL && smr->tag == tag && found != smr)
			stale = smr; /* the tag's earlier range (an mmap address reused) */
	}
	if (found != NULL)
		*key = found->mr.lkey;
	pthread_rwlock_unlock(&reg_lock);
	if (found != NULL)
		return DOCA_SUCCESS;
	if (stale != NULL)
		sd_verbs_ibv_dereg_mr(&stale->mr);
	mr = mr_register(pd, reg_addr, reg_len, (uint64_t)(uintptr_t)reg_addr, access, tag);
	if (mr == NULL)
		return errno == ENOMEM ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_INVALID_VALUE;
	*key = mr->lkey;
	return DOCA_SUCCESS;
}
