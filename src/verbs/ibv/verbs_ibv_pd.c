/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soft protection domains (verbs_ibv_internal.h): PDs of a soft context,
 * the device PD doca_rdma_bridge_get_dev_pd hands out, the bridge's shared
 * Verbs context, and a PD imported into DOCA Verbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

#include "verbs_ibv_internal.h"

SD_LOG_REGISTER(verbs.ibv.pd);

pthread_rwlock_t sd_ibv_reg_lock = PTHREAD_RWLOCK_INITIALIZER;
struct sd_ptab sd_ibv_pds, sd_ibv_mrs, sd_ibv_mr_keys;
uint64_t sd_ibv_mr_gen = 1;

/* ---- protection domains ---- */

struct sd_ibv_pd *
sd_ibv_pd_find_locked(const struct ibv_pd *pd)
{
	return pd == NULL ? NULL : sd_ptab_get(&sd_ibv_pds, PTR_KEY(pd));
}

bool
sd_verbs_ibv_is_pd(const struct ibv_pd *pd)
{
	bool ours;

	pthread_rwlock_rdlock(&sd_ibv_reg_lock);
	ours = sd_ibv_pd_find_locked(pd) != NULL;
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
	return ours;
}

struct doca_devinfo *
sd_verbs_ibv_pd_devinfo(const struct ibv_pd *pd)
{
	struct sd_ibv_pd *spd;

	pthread_rwlock_rdlock(&sd_ibv_reg_lock);
	spd = sd_ibv_pd_find_locked(pd);
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
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
	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	err = sd_ptab_put(&sd_ibv_pds, PTR_KEY(&spd->pd), spd);
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
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

	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	spd = sd_ibv_pd_find_locked(pd);
	if (spd == NULL || (spd->permanent && !permanent_ok))
		err = EINVAL;
	else if (spd->num_mrs != 0 || spd->imports != 0)
		err = EBUSY;
	else
		sd_ptab_del(&sd_ibv_pds, PTR_KEY(pd));
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
	if (err == 0)
		free(spd);
	return err;
}

struct ibv_pd *
sd_verbs_ibv_alloc_pd(struct ibv_context *ctx)
{
	struct sd_ibv_dev *sdev = sd_ibv_ctx_dev(ctx);

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
	struct sd_ibv_dev *sdev = sd_ibv_dev_get(devinfo);
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

	pthread_mutex_lock(&sd_ibv_dev_lock);
	sdev = sd_ibv_dev_get_locked(devinfo);
	if (sdev != NULL && sdev->dev_pd == NULL)
		sdev->dev_pd = pd_new(sdev, NULL, true);
	pthread_mutex_unlock(&sd_ibv_dev_lock);
	if (sdev == NULL || sdev->dev_pd == NULL) {
		DOCA_LOG_ERR("doca_rdma_bridge_get_dev_pd: out of memory; free memory and retry");
		return DOCA_ERROR_NO_MEMORY;
	}
	*pd = sdev->dev_pd;
	return DOCA_SUCCESS;
}

doca_error_t
sd_verbs_ibv_pd_import(struct ibv_pd *pd, struct doca_verbs_context **ctx, bool *bridged)
{
	struct doca_verbs_context *owner = NULL;
	struct doca_devinfo *devinfo = NULL;
	struct sd_ibv_pd *spd;
	doca_error_t err;

	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	spd = sd_ibv_pd_find_locked(pd);
	if (spd != NULL) {
		spd->imports++;
		owner = spd->owner;
		devinfo = spd->sdev->devinfo;
	}
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
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

	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	spd = sd_ibv_pd_find_locked(pd);
	if (spd != NULL && spd->imports > 0)
		spd->imports--;
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
}
