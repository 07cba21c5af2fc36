/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soft memory regions (verbs_ibv_internal.h): an MR is a fabric registration
 * addressed by rkey (src/fabric), lkey == rkey, so a program may use mr->rkey
 * for its own SGEs, as DOCA's samples do; the local checks of SGEs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_version.h>

#include "verbs_ibv_internal.h"
#include "../../util/sd_thp.h"

SD_LOG_REGISTER(verbs.ibv.mr);

/* ---- memory regions ---- */

bool
sd_verbs_ibv_is_mr(const struct ibv_mr *mr)
{
	bool ours;

	pthread_rwlock_rdlock(&sd_ibv_reg_lock);
	ours = mr != NULL && sd_ptab_get(&sd_ibv_mrs, PTR_KEY(mr)) != NULL;
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
	return ours;
}

#define SD_IBV_ACCESS_KNOWN                                                                                            \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |        \
	 IBV_ACCESS_MW_BIND | IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB | IBV_ACCESS_OPTIONAL_RANGE)

/* What rdma-core and a softdoca PD accept of a registration: 0, or the errno of the refusal (logged). */
static int
mr_args_check(const void *addr, size_t len, uint64_t iova, unsigned int access)
{
	if (addr == NULL || len == 0) {
		DOCA_LOG_ERR("ibv_reg_mr: %s; register a non-empty range of this process's memory",
			     addr == NULL ? "addr is NULL" : "length is 0");
		return EINVAL;
	}
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) != 0 &&
	    (access & IBV_ACCESS_LOCAL_WRITE) == 0) {
		DOCA_LOG_ERR("ibv_reg_mr: access 0x%x asks for remote write or atomic without "
			     "IBV_ACCESS_LOCAL_WRITE, which rdma-core refuses; add IBV_ACCESS_LOCAL_WRITE",
			     access);
		return EINVAL;
	}
	if ((access & ~(unsigned int)SD_IBV_ACCESS_KNOWN) != 0 || iova != (uint64_t)(uintptr_t)addr) {
		DOCA_LOG_ERR("ibv_reg_mr: %s is not supported on a softdoca PD (access 0x%x); register with the "
			     "range's own address and the LOCAL_WRITE / REMOTE_* flags",
			     iova != (uint64_t)(uintptr_t)addr ? "an iova other than the address" : "an access flag",
			     access);
		return EOPNOTSUPP;
	}
	return 0;
}

/* The fabric permissions of the remote IBV_ACCESS_* flags. */
static uint32_t
mr_perms(unsigned int access)
{
	uint32_t perms = 0;

	if (access & IBV_ACCESS_REMOTE_READ)
		perms |= FABRIC_PERM_REMOTE_READ;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		perms |= FABRIC_PERM_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		perms |= FABRIC_PERM_REMOTE_ATOMIC;
	return perms;
}

/*
 * Fill the ibv_mr of a registered smr and make it findable by pointer and by
 * key: 0, or the errno of the failed insertion (the PD's reservation then
 * given back, the smr in no table).
 */
static int
mr_publish(struct sd_ibv_mr *smr, struct ibv_pd *pd, struct sd_ibv_pd *spd, void *addr, size_t len, unsigned int access,
	   const void *tag)
{
	int err;

	smr->mr.context = pd->context;
	smr->mr.pd = pd;
	smr->mr.addr = addr;
	smr->mr.length = len;
	smr->mr.handle = smr->mr.rkey;
	smr->mr.lkey = smr->mr.rkey;
	smr->spd = spd;
	smr->access = access;
	smr->tag = tag;
	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	err = sd_ptab_put(&sd_ibv_mrs, PTR_KEY(&smr->mr), smr);
	if (err == 0 && (err = sd_ptab_put(&sd_ibv_mr_keys, RKEY_KEY(pd->handle, smr->mr.rkey), smr)) != 0)
		sd_ptab_del(&sd_ibv_mrs, PTR_KEY(&smr->mr));
	if (err != 0)
		spd->num_mrs--;
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
	return err;
}

static struct ibv_mr *
mr_register(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access, const void *tag)
{
	struct sd_ibv_pd *spd;
	struct sd_ibv_mr *smr;
	doca_error_t derr;
	int err;

	err = mr_args_check(addr, len, iova, access);
	if (err != 0) {
		errno = err;
		return NULL;
	}
	smr = calloc(1, sizeof(*smr));
	if (smr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* reserve: the PD cannot go while the registration is in flight */
	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	spd = sd_ibv_pd_find_locked(pd);
	if (spd != NULL)
		spd->num_mrs++;
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
	if (spd == NULL) {
		free(smr);
		errno = EINVAL;
		return NULL;
	}
	derr = sd_fabric_dev_open(sd_devinfo_netdev(spd->sdev->devinfo), &smr->fdev);
	if (derr == DOCA_SUCCESS) {
		/* the PD is the protection domain: the rkey serves only QPs of this PD */
		derr = sd_fabric_mr_register_rkey(smr->fdev, addr, len, mr_perms(access), pd->handle, &smr->fmr,
						  &smr->mr.rkey);
		if (derr != DOCA_SUCCESS)
			sd_fabric_dev_close(smr->fdev);
	}
	if (derr == DOCA_SUCCESS) {
		err = mr_publish(smr, pd, spd, addr, len, access, tag);
		/* a tagged range is a doca_mmap's, advised at doca_mmap_start */
		if (err == 0 && tag == NULL)
			(void)sd_thp_advise(addr, len, "ibv_reg_mr");
		if (err == 0)
			return &smr->mr;
		sd_fabric_mr_deregister(smr->fmr);
		sd_fabric_dev_close(smr->fdev);
	} else {
		DOCA_LOG_ERR("ibv_reg_mr: failed to register %zu bytes at %p on the soft NIC of %s: %s", len, addr,
			     sd_devinfo_netdev(spd->sdev->devinfo), doca_error_get_descr(derr));
		err = derr == DOCA_ERROR_NO_MEMORY ? ENOMEM : EINVAL;
		pthread_rwlock_wrlock(&sd_ibv_reg_lock);
		spd->num_mrs--;
		pthread_rwlock_unlock(&sd_ibv_reg_lock);
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

	pthread_rwlock_wrlock(&sd_ibv_reg_lock);
	smr = mr == NULL ? NULL : sd_ptab_get(&sd_ibv_mrs, PTR_KEY(mr));
	if (smr != NULL) {
		sd_ptab_del(&sd_ibv_mrs, PTR_KEY(mr));
		sd_ptab_del(&sd_ibv_mr_keys, RKEY_KEY(mr->pd->handle, mr->rkey));
		smr->spd->num_mrs--;
		__atomic_add_fetch(&sd_ibv_mr_gen, 1, __ATOMIC_RELEASE);
	}
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
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

/* The memo's range and access cover the request (the memo is current). */
static bool
memo_covers(const struct sd_verbs_mr_memo *m, uint32_t lkey, uint64_t addr, uint64_t len, bool write)
{
	return m->lkey == lkey && addr >= m->base && len <= m->length && addr - m->base <= m->length - len &&
	       (!write || m->local_write);
}

bool
sd_verbs_mr_check_local(const struct doca_verbs_pd *pd, struct sd_verbs_mr_memo *memo, uint32_t lkey, uint64_t addr,
			uint64_t len, bool write)
{
	const struct sd_ibv_mr *smr;
	bool ok;

	if (pd == NULL)
		return false;
	/* acquire: a deregistration that finished before this call is seen, and the memo dropped */
	if (memo != NULL && memo->gen == __atomic_load_n(&sd_ibv_mr_gen, __ATOMIC_ACQUIRE) &&
	    memo_covers(memo, lkey, addr, len, write))
		return true;
	pthread_rwlock_rdlock(&sd_ibv_reg_lock);
	smr = sd_ptab_get(&sd_ibv_mr_keys, RKEY_KEY(pd->ibv_pd->handle, lkey));
	ok = smr != NULL && &smr->spd->pd == pd->ibv_pd && mr_covers(smr, addr, len) &&
	     (!write || (smr->access & IBV_ACCESS_LOCAL_WRITE) != 0);
	if (ok && memo != NULL)
		*memo = (struct sd_verbs_mr_memo){
			.gen = __atomic_load_n(&sd_ibv_mr_gen, __ATOMIC_RELAXED), /* stable under the read lock */
			.base = (uint64_t)(uintptr_t)smr->mr.addr,
			.length = smr->mr.length,
			.lkey = lkey,
			.local_write = (smr->access & IBV_ACCESS_LOCAL_WRITE) != 0,
		};
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
	return ok;
}

doca_error_t
sd_verbs_ibv_key_for_range(struct ibv_pd *pd, const void *tag, void *addr, size_t len, void *reg_addr, size_t reg_len,
			   unsigned int access, uint32_t *key)
{
	struct sd_ibv_mr *found = NULL, *stale = NULL;
	struct ibv_mr *mr;

	pthread_rwlock_rdlock(&sd_ibv_reg_lock);
	for (uint32_t i = 0; i < sd_ibv_mrs.cap && found == NULL; i++) {
		struct sd_ibv_mr *smr = sd_ibv_mrs.vals[i];

		if (sd_ibv_mrs.keys[i] == 0 || smr->mr.pd != pd)
			continue;
		if (mr_covers(smr, (uint64_t)(uintptr_t)addr, len) && (smr->access & access) == access)
			found = smr;
		if (tag != NULL && smr->tag == tag && found != smr)
			stale = smr; /* the tag's earlier range (an mmap address reused) */
	}
	if (found != NULL)
		*key = found->mr.lkey;
	pthread_rwlock_unlock(&sd_ibv_reg_lock);
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
