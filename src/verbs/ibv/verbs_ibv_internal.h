/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of softdoca's rdma-core objects share (verbs_ibv.h is their
 * face to libdoca_verbs and libsoftdoca_ibverbs): the soft device, PD and MR
 * records, the registry that tells them from rdma-core's, and its locks.
 *
 * Locking: sd_ibv_reg_lock (a rwlock) guards the PD and MR tables and every
 * PD's counters; readers are the ownership checks and sd_verbs_mr_check_local.
 * sd_ibv_dev_lock guards the device table and the shared bridge contexts.
 */
#ifndef SD_VERBS_IBV_INTERNAL_H_
#define SD_VERBS_IBV_INTERNAL_H_

#include <pthread.h>

#include "verbs_ibv.h"
#include "../../util/sd_ptab.h"

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

#define PTR_KEY(p) ((uint64_t)(uintptr_t)(p))
/*
 * An MR by (PD, key): keys are unique per soft NIC device only (two rails'
 * devices hand out the same values), as lkeys are per HCA on hardware; PD
 * handles are unique in the process and never 0.
 */
#define RKEY_KEY(pd_handle, k) ((uint64_t)(pd_handle) << 32 | (uint32_t)(k))

extern pthread_rwlock_t sd_ibv_reg_lock;
extern struct sd_ptab sd_ibv_pds, sd_ibv_mrs, sd_ibv_mr_keys; /* soft PD / MR pointers; MRs by (PD, rkey) */
/* MRs deregistered so far, plus 1 (atomic; raised under the write lock): stales every sd_verbs_mr_memo */
extern uint64_t sd_ibv_mr_gen;
extern pthread_mutex_t sd_ibv_dev_lock;

/* verbs_ibv_device.c: the soft device of a devinfo, made on first use (NULL: out of memory, logged). */
struct sd_ibv_dev *sd_ibv_dev_get_locked(struct doca_devinfo *devinfo); /* sd_ibv_dev_lock held */
struct sd_ibv_dev *sd_ibv_dev_get(struct doca_devinfo *devinfo);
/* The soft device of one of our contexts. */
struct sd_ibv_dev *sd_ibv_ctx_dev(const struct ibv_context *ctx);
/* verbs_ibv_pd.c: our record of a PD, NULL if rdma-core's (sd_ibv_reg_lock held). */
struct sd_ibv_pd *sd_ibv_pd_find_locked(const struct ibv_pd *pd);

#endif /* SD_VERBS_IBV_INTERNAL_H_ */
