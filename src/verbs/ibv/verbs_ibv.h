/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soft rdma-core objects: the struct ibv_device / ibv_context / ibv_pd /
 * ibv_mr softdoca hands to programs (docs/verbs.md, "rdma-core
 * interoperability").  One device and one context per devinfo, made on first
 * use and kept for the life of the process; PDs and MRs come and go.  A
 * registry answers "is this pointer ours?" by comparing pointers under a
 * lock, never by reading through a pointer that may belong to rdma-core.
 *
 * The sd_verbs_ibv_* calls follow rdma-core's conventions (they back
 * libsoftdoca_ibverbs.so's ibv_* functions): NULL / -1 with errno set, or an
 * errno value, as the ibv_* call they implement returns.
 */
#ifndef SD_VERBS_IBV_H_
#define SD_VERBS_IBV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "../verbs_internal.h"

/*
 * Is [addr, addr+len) inside a live MR registered on the ibv_pd behind pd with
 * this lkey (and LOCAL_WRITE if write)?  A lookup by key under a read lock:
 * safe against a concurrent ibv_dereg_mr (which takes the write lock before it
 * revokes the range).  With a memo (or NULL), a key found before and not
 * deregistered since is checked against the memo, without the lock.
 */
SD_EXPORT bool sd_verbs_mr_check_local(const struct doca_verbs_pd *pd, struct sd_verbs_mr_memo *memo, uint32_t lkey,
				       uint64_t addr, uint64_t len, bool write);

/* ---- registry (no pointer is dereferenced unless it is found) ---- */
SD_EXPORT bool sd_verbs_ibv_is_device(const struct ibv_device *dev);
SD_EXPORT bool sd_verbs_ibv_is_context(const struct ibv_context *ctx);
SD_EXPORT bool sd_verbs_ibv_is_pd(const struct ibv_pd *pd);
SD_EXPORT bool sd_verbs_ibv_is_mr(const struct ibv_mr *mr);

/* ---- the soft objects, rdma-core style (libsoftdoca_ibverbs.so) ---- */
SD_EXPORT struct ibv_mr *sd_verbs_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
					     unsigned int access);
SD_EXPORT int sd_verbs_ibv_dereg_mr(struct ibv_mr *mr);
SD_EXPORT struct ibv_pd *sd_verbs_ibv_alloc_pd(struct ibv_context *ctx);
SD_EXPORT int sd_verbs_ibv_dealloc_pd(struct ibv_pd *pd);
/* Returns 0 or -1 with errno (as ibv_query_gid). */
SD_EXPORT int sd_verbs_ibv_query_gid(struct ibv_context *ctx, uint32_t port, uint32_t index, union ibv_gid *gid);
/* Fill the first attr_len bytes of a struct ibv_port_attr; 0 or an errno value. */
SD_EXPORT int sd_verbs_ibv_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
				      size_t attr_len);
SD_EXPORT int sd_verbs_ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr);
/* The number of GID table entries of a soft context's port (1). */
SD_EXPORT uint32_t sd_verbs_ibv_gid_tbl_len(struct ibv_context *ctx);
/* The soft context of a soft device (ibv_open_device; the context is shared and permanent). */
SD_EXPORT struct ibv_context *sd_verbs_ibv_device_context(struct ibv_device *dev);
/* A soft device's node GUID, big-endian (ibv_get_device_guid; ibv_query_device's node_guid). */
SD_EXPORT __be64 sd_verbs_ibv_device_guid(const struct ibv_device *dev);

/*
 * ibv_get_device_list (verbs_ibv_list.c): rdma-core's devices (real, NULL when
 * it had none) followed by the soft devices of this process's side,
 * NULL-terminated, their number in *num.  The list keeps real until
 * sd_verbs_ibv_device_list_free; on NULL (errno ENOMEM, logged) real is still
 * the caller's.
 */
SD_EXPORT struct ibv_device **sd_verbs_ibv_device_list(struct ibv_device **real, int *num);
/*
 * If list came from sd_verbs_ibv_device_list: free it, hand back rdma-core's
 * part in *real (NULL if none) for rdma-core to free, and return true.  Any
 * other pointer (rdma-core's own list): false, nothing read through it.
 */
SD_EXPORT bool sd_verbs_ibv_device_list_free(struct ibv_device **list, struct ibv_device ***real);

/*
 * An rdma-core call softdoca's objects do not take (ibv_create_cq, ...; their
 * real functions would use provider state a soft context has not): log the
 * refusal with what to call instead and set errno to EOPNOTSUPP.
 */
SD_EXPORT void sd_verbs_ibv_refuse(const struct ibv_context *ctx, const char *call, const char *instead);

/* ---- for libdoca_verbs (verbs_context.c, verbs_bridge.c) ---- */

/* The soft context of a devinfo (made on first use; NULL only when out of memory, logged). */
struct ibv_context *sd_verbs_ibv_context_of(struct doca_devinfo *devinfo);
/* The devinfo behind a soft device, context or PD (NULL if not ours). */
struct doca_devinfo *sd_verbs_ibv_device_devinfo(const struct ibv_device *dev);
struct doca_devinfo *sd_verbs_ibv_context_devinfo(const struct ibv_context *ctx);
struct doca_devinfo *sd_verbs_ibv_pd_devinfo(const struct ibv_pd *pd);

/*
 * A soft ibv_pd for doca_verbs_pd_create (owner = the Verbs context) and its
 * release (IN_USE while MRs are registered on it or a DOCA PD imports it).
 */
doca_error_t sd_verbs_ibv_pd_create(struct doca_devinfo *devinfo, struct doca_verbs_context *owner, struct ibv_pd **pd);
doca_error_t sd_verbs_ibv_pd_destroy(struct ibv_pd *pd);
/*
 * doca_verbs_bridge_verbs_pd_import: hold pd (its dealloc / destroy is refused
 * until the matching unimport) and say which Verbs context the DOCA PD
 * belongs to: the owner of a PD made by doca_verbs_pd_create, else the
 * device's shared bridge context (a reference is taken: *bridged is true).
 */
doca_error_t sd_verbs_ibv_pd_import(struct ibv_pd *pd, struct doca_verbs_context **ctx, bool *bridged);
void sd_verbs_ibv_pd_unimport(struct ibv_pd *pd);

/*
 * The shared Verbs context of a device for the bridge (context_import and
 * PDs imported from ibv_pds no Verbs context owns): one per devinfo,
 * refcounted.  put drops a reference and returns true when it was the last
 * (the caller then frees the context).
 */
doca_error_t sd_verbs_ibv_bridge_ctx_get(struct doca_devinfo *devinfo, struct doca_verbs_context **ctx);
bool sd_verbs_ibv_bridge_ctx_put(struct doca_verbs_context *ctx);

/* The permanent PD doca_rdma_bridge_get_dev_pd hands out for a device. */
doca_error_t sd_verbs_ibv_dev_pd(struct doca_devinfo *devinfo, struct ibv_pd **pd);
/*
 * The key of [addr, addr+len) on a soft pd: an MR already covering it with at
 * least access, else a registration of [reg_addr, reg_addr+reg_len) (which
 * holds the range) with access, made once per tag (e.g. an mmap): a tag seen
 * again with another range has its earlier MR replaced.  These registrations
 * live as long as the pd (docs/verbs.md).
 */
doca_error_t sd_verbs_ibv_key_for_range(struct ibv_pd *pd, const void *tag, void *addr, size_t len, void *reg_addr,
					size_t reg_len, unsigned int access, uint32_t *key);

#endif /* SD_VERBS_IBV_H_ */
