/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device lists libsoftdoca_ibverbs's ibv_get_device_list() hands out:
 * rdma-core's own devices first, then the soft device of every RDMA-capable
 * function of this process's side (those doca_devinfo_create_list() lists), and
 * the registry that lets ibv_free_device_list() tell such a list from one
 * rdma-core made and give rdma-core its part back.
 */
#include <errno.h>
#include <stdlib.h>

#include "verbs_ibv_internal.h"

SD_LOG_REGISTER(verbs.ibv_list);

/*
 * A list as handed out: devs[] (NULL-terminated) is what the program sees; real
 * is the list rdma-core returned (NULL if it had none), whose devices come
 * first in devs[] and which only rdma-core may free.
 */
struct sd_ibv_list {
	struct ibv_device **real;
	struct ibv_device *devs[];
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_ptab lists; /* devs pointer -> struct sd_ibv_list (list_lock) */

/* The soft devices of side's functions into out[0 .. n) (out may be NULL to count them). */
static uint32_t
side_devices(enum sd_dev_side side, struct ibv_device **out)
{
	const struct sd_topology *topo = sd_topology_get();
	uint32_t n = 0;

	if (topo == NULL) /* why was logged when the topology was read */
		return 0;
	for (uint32_t i = 0; i < sd_topology_num_devs(topo); i++) {
		struct doca_devinfo *devinfo = sd_topology_dev(topo, i);
		struct sd_ibv_dev *sdev;

		/* what doca_verbs_context_create takes: this side's functions with RDMA */
		if (sd_devinfo_side(devinfo) != side || !sd_devinfo_caps(devinfo)->rdma)
			continue;
		if (out != NULL) {
			sdev = sd_ibv_dev_get(devinfo); /* logs when out of memory */
			if (sdev == NULL)
				continue;
			out[n] = &sdev->dev;
		}
		n++;
	}
	return n;
}

struct ibv_device **
sd_verbs_ibv_device_list(struct ibv_device **real, int *num)
{
	enum sd_dev_side side = sd_dev_process_side(); /* read once: both passes see the same functions */
	uint32_t nreal = 0, nsoft = side_devices(side, NULL);
	struct sd_ibv_list *l;
	int err;

	while (real != NULL && real[nreal] != NULL)
		nreal++;
	l = calloc(1, sizeof(*l) + (nreal + nsoft + 1) * sizeof(l->devs[0]));
	if (l == NULL)
		goto no_memory;
	for (uint32_t i = 0; i < nreal; i++)
		l->devs[i] = real[i];
	nsoft = side_devices(side, &l->devs[nreal]);
	l->real = real;
	pthread_mutex_lock(&list_lock);
	err = sd_ptab_put(&lists, PTR_KEY(l->devs), l);
	pthread_mutex_unlock(&list_lock);
	if (err != 0) {
		free(l);
		goto no_memory;
	}
	*num = (int)(nreal + nsoft);
	return l->devs;

no_memory:
	DOCA_LOG_ERR("Failed to list the soft ibv devices: out of memory for a list of %u devices; free memory or ask "
		     "for fewer",
		     nreal + nsoft);
	errno = ENOMEM;
	return NULL;
}

bool
sd_verbs_ibv_device_list_free(struct ibv_device **list, struct ibv_device ***real)
{
	struct sd_ibv_list *l;

	if (list == NULL)
		return false;
	pthread_mutex_lock(&list_lock);
	l = sd_ptab_get(&lists, PTR_KEY(list));
	if (l != NULL)
		sd_ptab_del(&lists, PTR_KEY(list));
	pthread_mutex_unlock(&list_lock);
	if (l == NULL)
		return false;
	*real = l->real;
	free(l);
	return true;
}
