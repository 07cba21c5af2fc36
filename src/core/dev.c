/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_devinfo lists, doca_dev open/close with shared references, and the device
 * function getters.  The devinfos themselves belong to the topology (topology.c)
 * and live as long as the process.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <softdoca_dev.h>

#include "sd_log.h"
#include "topology_internal.h"

SD_LOG_REGISTER(core.dev);

/* Guards doca_devinfo.dev and every doca_dev's refcount and users. */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

/* enum sd_dev_side of the program; set before main() by a DPU-built program. */
static int process_side = SD_DEV_SIDE_HOST;

/* Called by the constructor in the DPU personality's doca_build_config.h. */
SD_EXPORT void softdoca_personality_dpu(void);

void
softdoca_personality_dpu(void)
{
	__atomic_store_n(&process_side, SD_DEV_SIDE_DPU, __ATOMIC_RELAXED);
}

enum sd_dev_side
sd_dev_process_side(void)
{
	return (enum sd_dev_side)__atomic_load_n(&process_side, __ATOMIC_RELAXED);
}

void
sd_dev_process_side_set(enum sd_dev_side side)
{
	__atomic_store_n(&process_side, (int)side, __ATOMIC_RELAXED);
}

void
softdoca_process_set_side(enum softdoca_side side)
{
	if (side == SOFTDOCA_SIDE_HOST || side == SOFTDOCA_SIDE_DPU)
		sd_dev_process_side_set(side == SOFTDOCA_SIDE_DPU ? SD_DEV_SIDE_DPU : SD_DEV_SIDE_HOST);
}

static const char *
side_name(enum sd_dev_side side)
{
	return side == SD_DEV_SIDE_DPU ? "DPU" : "host";
}

doca_error_t
sd_dev_null_arg(const char *api, const char *arg)
{
	DOCA_LOG_ERR("%s: %s is NULL; pass a valid pointer", api, arg);
	return DOCA_ERROR_INVALID_VALUE;
}

/* A devinfo this process's topology handed out (not a stale or foreign pointer). */
static bool
devinfo_is_ours(const struct doca_devinfo *devinfo)
{
	const struct sd_topology *topo = sd_topology_get();

	return topo != NULL && devinfo >= topo->devs && devinfo < topo->devs + topo->num_devs;
}

doca_error_t
doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	enum sd_dev_side side = sd_dev_process_side();
	const struct sd_topology *topo;
	struct doca_devinfo **list;
	uint32_t i, n = 0;

	if (dev_list == NULL)
		return sd_dev_null_arg(__func__, "dev_list");
	if (nb_devs == NULL)
		return sd_dev_null_arg(__func__, "nb_devs");
	topo = sd_topology_get();
	if (topo == NULL) {
		DOCA_LOG_ERR("%s: the device topology could not be loaded (the reason was logged when it was first "
			     "read); fix the file named there or unset SOFTDOCA_TOPOLOGY",
			     __func__);
		return sd_topology_status();
	}
	if (topo->num_devs == 0) {
		DOCA_LOG_WARN("%s: topology %s has no device; add one to the file (docs/devices.md)", __func__,
			      topo->source);
		return DOCA_ERROR_NOT_FOUND;
	}
	/* NULL-terminated as a convenience; callers index up to *nb_devs. */
	list = calloc(topo->num_devs + 1, sizeof(*list));
	if (list == NULL) {
		DOCA_LOG_ERR("%s: out of memory for a list of %u devices", __func__, topo->num_devs);
		return DOCA_ERROR_NO_MEMORY;
	}
	/* Each side sees its own functions; the DPU reaches the host's as representors. */
	for (i = 0; i < topo->num_devs; i++)
		if (topo->devs[i].side == side)
			list[n++] = &topo->devs[i];
	if (n == 0) {
		DOCA_LOG_WARN("%s: topology %s has no %s-side function, and a program built for the %s sees only "
			      "those; add one to the file or build with the other personality (docs/personalities.md)",
			      __func__, topo->source, side_name(side), side_name(side));
		free(list);
		return DOCA_ERROR_NOT_FOUND;
	}
	*dev_list = list;
	*nb_devs = n;
	return DOCA_SUCCESS;
}

doca_error_t
doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	if (dev_list == NULL)
		return sd_dev_null_arg(__func__, "dev_list");
	/* Only the array goes: the devinfos are the topology's. */
	free(dev_list);
	return DOCA_SUCCESS;
}

doca_error_t
doca_devinfo_rep_create_list(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
			     uint32_t *nb_devs_rep)
{
	const int known = DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED;
	struct doca_devinfo_rep **list;
	struct doca_devinfo *info;
	uint32_t i, n = 0;

	if (dev == NULL)
		return sd_dev_null_arg(__func__, "dev");
	if (dev_list_rep == NULL)
		return sd_dev_null_arg(__func__, "dev_list_rep");
	if (nb_devs_rep == NULL)
		return sd_dev_null_arg(__func__, "nb_devs_rep");
	info = dev->devinfo;
	if ((filter & ~known) != 0) {
		DOCA_LOG_ERR("%s: unknown filter bits 0x%x; combine DOCA_DEVINFO_REP_FILTER_NET / _EMULATED, or pass "
			     "DOCA_DEVINFO_REP_FILTER_ALL",
			     __func__, (unsigned int)(filter & ~known));
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (info->side != SD_DEV_SIDE_DPU) {
		DOCA_LOG_ERR("%s: representors are available only on the DPU side (%s, %s, is a host-side function); "
			     "open a DPU-side function",
			     __func__, info->ibdev_name, info->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	list = calloc(info->num_reps + 1, sizeof(*list));
	if (list == NULL) {
		DOCA_LOG_ERR("%s: out of memory for a list of %u representors", __func__, info->num_reps);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (i = 0; i < info->num_reps; i++)
		if (filter == DOCA_DEVINFO_REP_FILTER_ALL || (info->reps[i].filter & (uint32_t)filter) != 0)
			list[n++] = &info->reps[i];
	*dev_list_rep = list;
	*nb_devs_rep = n;
	return DOCA_SUCCESS;
}

doca_error_t
doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
	if (dev_list_rep == NULL)
		return sd_dev_null_arg(__func__, "dev_list_rep");
	free(dev_list_rep);
	return DOCA_SUCCESS;
}

doca_error_t
doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	struct doca_dev *d;

	if (devinfo == NULL)
		return sd_dev_null_arg(__func__, "devinfo");
	if (dev == NULL)
		return sd_dev_null_arg(__func__, "dev");
	if (!devinfo_is_ours(devinfo)) {
		DOCA_LOG_ERR("%s: devinfo %p is not a device of this process; take it from doca_devinfo_create_list()",
			     __func__, (void *)devinfo);
		return DOCA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&dev_lock);
	d = devinfo->dev;
	if (d != NULL) {
		d->refcount++;
	} else {
		d = calloc(1, sizeof(*d));
		if (d == NULL) {
			pthread_mutex_unlock(&dev_lock);
			DOCA_LOG_ERR("%s: out of memory opening %s", __func__, devinfo->ibdev_name);
			return DOCA_ERROR_NO_MEMORY;
		}
		d->devinfo = devinfo;
		d->refcount = 1;
		devinfo->dev = d;
	}
	pthread_mutex_unlock(&dev_lock);
	DOCA_LOG_TRC("opened %s (%s), %u references", devinfo->ibdev_name, devinfo->pci_addr, d->refcount);
	*dev = d;
	return DOCA_SUCCESS;
}

doca_error_t
doca_dev_close(struct doca_dev *dev)
{
	struct doca_devinfo *info;
	uint32_t users;

	/* Cleanup paths close devices they never opened: closing NULL is harmless. */
	if (dev == NULL)
		return DOCA_SUCCESS;
	info = dev->devinfo;
	pthread_mutex_lock(&dev_lock);
	if (dev->refcount > 1) {
		dev->refcount--;
		pthread_mutex_unlock(&dev_lock);
		return DOCA_SUCCESS;
	}
	users = dev->users;
	if (users > 0) {
		pthread_mutex_unlock(&dev_lock);
		DOCA_LOG_ERR("%s: device %s (%s) is still used by %u mmap(s)/context(s); destroy them before closing "
			     "the device",
			     __func__, info->ibdev_name, info->pci_addr, users);
		return DOCA_ERROR_IN_USE;
	}
	info->dev = NULL;
	pthread_mutex_unlock(&dev_lock);
	free(dev);
	return DOCA_SUCCESS;
}

void
sd_dev_get(struct doca_dev *dev)
{
	pthread_mutex_lock(&dev_lock);
	dev->users++;
	pthread_mutex_unlock(&dev_lock);
}

void
sd_dev_put(struct doca_dev *dev)
{
	pthread_mutex_lock(&dev_lock);
	if (dev->users > 0)
		dev->users--;
	else
		DOCA_LOG_ERR("Failed to release device %s: no user holds it (unbalanced sd_dev_put)",
			     dev->devinfo->ibdev_name);
	pthread_mutex_unlock(&dev_lock);
}

doca_error_t
doca_dev_accelerate_resource_reclaim(struct doca_dev *dev)
{
	if (dev == NULL)
		return sd_dev_null_arg(__func__, "dev");
	if (!dev->devinfo->caps.accelerate_resource_reclaim) {
		DOCA_LOG_ERR("%s: not supported by %s (capability accelerate_resource_reclaim is off); check "
			     "doca_devinfo_cap_is_accelerate_resource_reclaim_supported() first",
			     __func__, dev->devinfo->ibdev_name);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	/* Nothing is cached per device, so there is nothing to reclaim sooner. */
	return DOCA_SUCCESS;
}

doca_error_t
doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
	struct doca_dev_rep *r;

	if (devinfo == NULL)
		return sd_dev_null_arg(__func__, "devinfo");
	if (dev_rep == NULL)
		return sd_dev_null_arg(__func__, "dev_rep");
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		DOCA_LOG_ERR("%s: out of memory opening representor %s", __func__, devinfo->vuid);
		return DOCA_ERROR_NO_MEMORY;
	}
	r->devinfo_rep = devinfo;
	*dev_rep = r;
	return DOCA_SUCCESS;
}

doca_error_t
doca_dev_rep_close(struct doca_dev_rep *dev)
{
	if (dev == NULL)
		return sd_dev_null_arg(__func__, "dev");
	free(dev);
	return DOCA_SUCCESS;
}

struct doca_devinfo *
doca_dev_as_devinfo(const struct doca_dev *dev)
{
	return dev == NULL ? NULL : dev->devinfo;
}

struct doca_devinfo_rep *
doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	return dev_rep == NULL ? NULL : dev_rep->devinfo_rep;
}
