/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsoftdoca_ibverbs.so: rdma-core's entry points DOCA Verbs programs call on
 * the ibv_context / ibv_pd / ibv_mr softdoca hands them.  Each function
 * carries rdma-core's own symbol version (softdoca_ibverbs.map), so a program
 * linked with this library before -libverbs (softdoca's libibverbs.pc and
 * libmlx5.pc do that) binds here; a softdoca object is served by libdoca_verbs
 * (verbs_ibv.h), anything else goes to the next definition, the real
 * libibverbs, found once with dlvsym(RTLD_NEXT).  Functions not defined here
 * reach the real library directly.  ibv_get_device_list() lists rdma-core's
 * devices and then softdoca's, so rdma-core's own tools (ibv_devices,
 * ibv_devinfo) run with this library in LD_PRELOAD show them.  docs/verbs.md,
 * "rdma-core interoperability".
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../verbs/ibv/verbs_ibv.h"

/* The macros and inlines of verbs.h must not rename the functions defined here. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port
#undef ibv_get_device_list

#define SHIM_EXPORT __attribute__((visibility("default")))

/* The real function: the next definition after this library, else libibverbs.so.1 loaded by name. */
static void *
real_sym(const char *name, const char *version)
{
	void *sym = dlvsym(RTLD_NEXT, name, version);

	if (sym == NULL) {
		void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_GLOBAL);

		if (lib != NULL)
			sym = dlvsym(lib, name, version);
	}
	if (sym == NULL)
		fprintf(stderr, "libsoftdoca_ibverbs: %s@%s not found in rdma-core's libibverbs.so.1\n", name, version);
	return sym;
}

/* One resolved pointer per function, looked up on first use. */
#define REAL(type, name, version)                                                                                      \
	static type real_;                                                                                             \
	if (__atomic_load_n(&real_, __ATOMIC_ACQUIRE) == NULL)                                                         \
		__atomic_store_n(&real_, (type)real_sym(name, version), __ATOMIC_RELEASE);

typedef struct ibv_mr *(*reg_mr_fn)(struct ibv_pd *, void *, size_t, int);
typedef struct ibv_mr *(*reg_mr_iova_fn)(struct ibv_pd *, void *, size_t, uint64_t, int);
typedef struct ibv_mr *(*reg_mr_iova2_fn)(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);
typedef int (*dereg_mr_fn)(struct ibv_mr *);
typedef struct ibv_pd *(*alloc_pd_fn)(struct ibv_context *);
typedef int (*dealloc_pd_fn)(struct ibv_pd *);
typedef int (*query_gid_fn)(struct ibv_context *, uint8_t, int, union ibv_gid *);
typedef int (*query_gid_ex_fn)(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t, size_t);
typedef ssize_t (*query_gid_table_fn)(struct ibv_context *, struct ibv_gid_entry *, size_t, uint32_t, size_t);
typedef int (*query_port_fn)(struct ibv_context *, uint8_t, struct _compat_ibv_port_attr *);
typedef int (*query_device_fn)(struct ibv_context *, struct ibv_device_attr *);
typedef const char *(*device_name_fn)(struct ibv_device *);
typedef struct ibv_context *(*open_device_fn)(struct ibv_device *);
typedef int (*close_device_fn)(struct ibv_context *);
typedef struct ibv_device **(*get_device_list_fn)(int *);
typedef void (*free_device_list_fn)(struct ibv_device **);
typedef __be64 (*device_guid_fn)(struct ibv_device *);
typedef int (*device_index_fn)(struct ibv_device *);
typedef int (*query_gid_type_fn)(struct ibv_context *, uint8_t, unsigned int, int *);
typedef struct ibv_comp_channel *(*create_comp_channel_fn)(struct ibv_context *);
typedef struct ibv_cq *(*create_cq_fn)(struct ibv_context *, int, void *, struct ibv_comp_channel *, int);
typedef struct ibv_qp *(*create_qp_fn)(struct ibv_pd *, struct ibv_qp_init_attr *);
typedef struct ibv_srq *(*create_srq_fn)(struct ibv_pd *, struct ibv_srq_init_attr *);
typedef struct ibv_ah *(*create_ah_fn)(struct ibv_pd *, struct ibv_ah_attr *);
typedef int (*query_pkey_fn)(struct ibv_context *, uint8_t, int, __be16 *);
typedef int (*rereg_mr_fn)(struct ibv_mr *, int, struct ibv_pd *, void *, size_t, int);
typedef struct ibv_mr *(*reg_dmabuf_mr_fn)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);

/*
 * rdma-core's private ibv_query_gid_type() and its enum ibv_gid_type_sysfs
 * (infiniband/driver.h, not installed), RoCE v2's value.
 */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type);
#define GID_TYPE_SYSFS_ROCE_V2 1

#define FORWARD_OR_FAIL(fail)                                                                                          \
	if (real_ == NULL) {                                                                                           \
		errno = ENOSYS;                                                                                        \
		return fail;                                                                                           \
	}

SHIM_EXPORT struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (sd_verbs_ibv_is_pd(pd))
		return sd_verbs_ibv_reg_mr(pd, addr, length, (uint64_t)(uintptr_t)addr, (unsigned int)access);
	REAL(reg_mr_fn, "ibv_reg_mr", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, addr, length, access);
}

SHIM_EXPORT struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	if (sd_verbs_ibv_is_pd(pd))
		return sd_verbs_ibv_reg_mr(pd, addr, length, iova, (unsigned int)access);
	REAL(reg_mr_iova_fn, "ibv_reg_mr_iova", "IBVERBS_1.7")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, addr, length, iova, access);
}

SHIM_EXPORT struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	if (sd_verbs_ibv_is_pd(pd))
		return sd_verbs_ibv_reg_mr(pd, addr, length, iova, access);
	REAL(reg_mr_iova2_fn, "ibv_reg_mr_iova2", "IBVERBS_1.8")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, addr, length, iova, access);
}

SHIM_EXPORT int
ibv_dereg_mr(struct ibv_mr *mr)
{
	if (sd_verbs_ibv_is_mr(mr))
		return sd_verbs_ibv_dereg_mr(mr);
	REAL(dereg_mr_fn, "ibv_dereg_mr", "IBVERBS_1.1")
	FORWARD_OR_FAIL(ENOSYS)
	return real_(mr);
}

SHIM_EXPORT struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	if (sd_verbs_ibv_is_context(context))
		return sd_verbs_ibv_alloc_pd(context);
	REAL(alloc_pd_fn, "ibv_alloc_pd", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(context);
}

SHIM_EXPORT int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (sd_verbs_ibv_is_pd(pd))
		return sd_verbs_ibv_dealloc_pd(pd);
	REAL(dealloc_pd_fn, "ibv_dealloc_pd", "IBVERBS_1.1")
	FORWARD_OR_FAIL(ENOSYS)
	return real_(pd);
}

SHIM_EXPORT int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	if (sd_verbs_ibv_is_context(context))
		return index < 0 ? (errno = EINVAL, -1)
				 : sd_verbs_ibv_query_gid(context, port_num, (uint32_t)index, gid);
	REAL(query_gid_fn, "ibv_query_gid", "IBVERBS_1.1")
	FORWARD_OR_FAIL(-1)
	return real_(context, port_num, index, gid);
}

static void
fill_gid_entry(struct ibv_context *context, uint32_t port, uint32_t index, struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	sd_verbs_ibv_query_gid(context, port, index, &e->gid);
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
}

SHIM_EXPORT int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry,
		  uint32_t flags, size_t entry_size)
{
	if (sd_verbs_ibv_is_context(context)) {
		union ibv_gid probe;

		if (entry == NULL || flags != 0 || entry_size < sizeof(*entry))
			return EINVAL;
		if (sd_verbs_ibv_query_gid(context, port_num, gid_index, &probe) != 0)
			return ENODATA;
		fill_gid_entry(context, port_num, gid_index, entry);
		return 0;
	}
	REAL(query_gid_ex_fn, "_ibv_query_gid_ex", "IBVERBS_1.11")
	FORWARD_OR_FAIL(ENOSYS)
	return real_(context, port_num, gid_index, entry, flags, entry_size);
}

SHIM_EXPORT ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags,
		     size_t entry_size)
{
	if (sd_verbs_ibv_is_context(context)) {
		uint32_t n = sd_verbs_ibv_gid_tbl_len(context);

		if (entries == NULL || flags != 0 || entry_size < sizeof(*entries))
			return -EINVAL;
		if (max_entries < n)
			return -EINVAL;
		for (uint32_t i = 0; i < n; i++)
			fill_gid_entry(context, 1, i, (struct ibv_gid_entry *)((char *)entries + i * entry_size));
		return n;
	}
	REAL(query_gid_table_fn, "_ibv_query_gid_table", "IBVERBS_1.11")
	FORWARD_OR_FAIL(-ENOSYS)
	return real_(context, entries, max_entries, flags, entry_size);
}

SHIM_EXPORT int
ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr)
{
	/* the old entry point: struct ibv_port_attr up to link_layer */
	if (sd_verbs_ibv_is_context(context))
		return sd_verbs_ibv_query_port(context, port_num, (struct ibv_port_attr *)(void *)port_attr,
					       offsetof(struct ibv_port_attr, flags));
	REAL(query_port_fn, "ibv_query_port", "IBVERBS_1.1")
	FORWARD_OR_FAIL(ENOSYS)
	return real_(context, port_num, port_attr);
}

SHIM_EXPORT int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	if (sd_verbs_ibv_is_context(context))
		return sd_verbs_ibv_query_device(context, device_attr);
	REAL(query_device_fn, "ibv_query_device", "IBVERBS_1.1")
	FORWARD_OR_FAIL(ENOSYS)
	return real_(context, device_attr);
}

SHIM_EXPORT const char *
ibv_get_device_name(struct ibv_device *device)
{
	if (sd_verbs_ibv_is_device(device))
		return device->name;
	REAL(device_name_fn, "ibv_get_device_name", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(device);
}

SHIM_EXPORT struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	/* a soft device has one context, shared and kept for the life of the process */
	if (sd_verbs_ibv_is_device(device))
		return sd_verbs_ibv_device_context(device);
	REAL(open_device_fn, "ibv_open_device", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(device);
}

SHIM_EXPORT int
ibv_close_device(struct ibv_context *context)
{
	if (sd_verbs_ibv_is_context(context))
		return 0;
	REAL(close_device_fn, "ibv_close_device", "IBVERBS_1.1")
	FORWARD_OR_FAIL(ENOSYS)
	return real_(context);
}

/* ---- device lists: rdma-core's devices, then the soft ones ---- */

/*
 * Libraries shown rdma-core's devices only, by file name.  The soft NIC itself
 * runs on UCX, whose IB transport (libuct_ib*) would take a soft device for
 * hardware (DevX, its own CQs, the async fd).  librdmacm maps addresses to
 * devices through the kernel's RDMA CM, which knows no soft device; UCX's
 * rdmacm transport calls it while softdoca opens its soft NIC.
 */
static const char *const real_only_callers[] = {"libuct", "librdmacm"};

static bool
caller_sees_real_only(const void *ret_addr)
{
	Dl_info info;
	const char *base;

	if (dladdr(ret_addr, &info) == 0 || info.dli_fname == NULL)
		return false;
	base = strrchr(info.dli_fname, '/');
	base = base != NULL ? base + 1 : info.dli_fname;
	for (size_t i = 0; i < sizeof(real_only_callers) / sizeof(real_only_callers[0]); i++)
		if (strncmp(base, real_only_callers[i], strlen(real_only_callers[i])) == 0)
			return true;
	return false;
}

/* rdma-core's ibv_free_device_list, which does not take NULL. */
static void
real_free_device_list(struct ibv_device **list)
{
	REAL(free_device_list_fn, "ibv_free_device_list", "IBVERBS_1.1")
	if (real_ != NULL && list != NULL)
		real_(list);
}

SHIM_EXPORT struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	const bool real_only = caller_sees_real_only(__builtin_return_address(0));
	struct ibv_device **real, **list;
	int n, real_errno;

	REAL(get_device_list_fn, "ibv_get_device_list", "IBVERBS_1.1")
	if (real_only) {
		FORWARD_OR_FAIL(NULL)
		return real_(num_devices);
	}
	/* without rdma-core's devices (none, no RDMA subsystem, no libibverbs) the soft ones still come */
	real = real_ != NULL ? real_(NULL) : NULL;
	real_errno = real_ == NULL ? ENOSYS : errno;
	list = sd_verbs_ibv_device_list(real, &n);
	if (list == NULL) {
		real_free_device_list(real);
		errno = ENOMEM;
		return NULL;
	}
	if (n == 0 && real == NULL) {
		/* nothing at all: rdma-core's answer, and its errno */
		sd_verbs_ibv_device_list_free(list, &real);
		errno = real_errno;
		return NULL;
	}
	if (num_devices != NULL)
		*num_devices = n;
	return list;
}

SHIM_EXPORT void
ibv_free_device_list(struct ibv_device **list)
{
	struct ibv_device **real = list;

	/* ours: free it and give rdma-core back its part; else rdma-core's own list */
	(void)sd_verbs_ibv_device_list_free(list, &real);
	real_free_device_list(real);
}

SHIM_EXPORT __be64
ibv_get_device_guid(struct ibv_device *device)
{
	if (sd_verbs_ibv_is_device(device))
		return sd_verbs_ibv_device_guid(device);
	REAL(device_guid_fn, "ibv_get_device_guid", "IBVERBS_1.1")
	FORWARD_OR_FAIL(0)
	return real_(device);
}

SHIM_EXPORT int
ibv_get_device_index(struct ibv_device *device)
{
	/* a soft device has no kernel index: rdma-core's "not supported" answer */
	if (sd_verbs_ibv_is_device(device))
		return -1;
	REAL(device_index_fn, "ibv_get_device_index", "IBVERBS_1.9")
	FORWARD_OR_FAIL(-1)
	return real_(device);
}

/*
 * rdma-core's private ibv_query_gid_type (ibv_devinfo -v calls it for every
 * GID); exported only when the real library has a private version node to
 * match (softdoca_ibverbs.map.in, src/ibverbs/meson.build).
 */
SHIM_EXPORT int
ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type)
{
	if (sd_verbs_ibv_is_context(context)) {
		union ibv_gid gid;

		if (type == NULL) {
			errno = EINVAL;
			return -1;
		}
		if (sd_verbs_ibv_query_gid(context, port_num, index, &gid) != 0)
			return -1;
		*type = GID_TYPE_SYSFS_ROCE_V2; /* every soft GID is IP-based: RoCE v2 */
		return 0;
	}
	REAL(query_gid_type_fn, "ibv_query_gid_type", IBVERBS_PRIVATE_VERSION)
	FORWARD_OR_FAIL(-1)
	return real_(context, port_num, index, type);
}

/*
 * ---- calls a soft object refuses ----
 *
 * Once a program finds a soft device through ibv_get_device_list it may make
 * the objects rdma-core's providers make; the real functions would reach for
 * provider state a soft context has not (and crash).  Each is refused with
 * EOPNOTSUPP and the DOCA Verbs call that makes the object instead.
 */

#define SOFT_CTX_OF_PD(pd) (sd_verbs_ibv_is_pd(pd) ? (pd)->context : NULL)
#define USE_DOCA_CTX "make it with doca_verbs_* on doca_verbs_bridge_verbs_context_import(context)"
#define USE_DOCA_PD "make it with doca_verbs_* on the DOCA PD of doca_verbs_bridge_verbs_pd_import(pd)"

SHIM_EXPORT struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	if (sd_verbs_ibv_is_context(context)) {
		sd_verbs_ibv_refuse(context, "ibv_create_comp_channel", USE_DOCA_CTX);
		return NULL;
	}
	REAL(create_comp_channel_fn, "ibv_create_comp_channel", "IBVERBS_1.0")
	FORWARD_OR_FAIL(NULL)
	return real_(context);
}

SHIM_EXPORT struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector)
{
	if (sd_verbs_ibv_is_context(context)) {
		sd_verbs_ibv_refuse(context, "ibv_create_cq", USE_DOCA_CTX);
		return NULL;
	}
	REAL(create_cq_fn, "ibv_create_cq", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(context, cqe, cq_context, channel, comp_vector);
}

SHIM_EXPORT struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_context *soft = SOFT_CTX_OF_PD(pd);

	if (soft != NULL) {
		sd_verbs_ibv_refuse(soft, "ibv_create_qp", USE_DOCA_PD);
		return NULL;
	}
	REAL(create_qp_fn, "ibv_create_qp", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, qp_init_attr);
}

SHIM_EXPORT struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	struct ibv_context *soft = SOFT_CTX_OF_PD(pd);

	if (soft != NULL) {
		sd_verbs_ibv_refuse(soft, "ibv_create_srq", USE_DOCA_PD);
		return NULL;
	}
	REAL(create_srq_fn, "ibv_create_srq", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, srq_init_attr);
}

SHIM_EXPORT struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_context *soft = SOFT_CTX_OF_PD(pd);

	if (soft != NULL) {
		sd_verbs_ibv_refuse(soft, "ibv_create_ah",
				    "RC and UC QPs take the peer's address as a doca_verbs_ah_attr at INIT->RTR");
		return NULL;
	}
	REAL(create_ah_fn, "ibv_create_ah", "IBVERBS_1.1")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, attr);
}

SHIM_EXPORT int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	/* one P_Key, the default full-membership 0xffff (max_pkeys 1) */
	if (sd_verbs_ibv_is_context(context)) {
		if (pkey == NULL || port_num != SD_VERBS_PORT || index != 0) {
			errno = EINVAL;
			return -1;
		}
		*pkey = htobe16(0xffff);
		return 0;
	}
	REAL(query_pkey_fn, "ibv_query_pkey", "IBVERBS_1.1")
	FORWARD_OR_FAIL(-1)
	return real_(context, port_num, index, pkey);
}

SHIM_EXPORT int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (sd_verbs_ibv_is_mr(mr) || ((flags & IBV_REREG_MR_CHANGE_PD) && sd_verbs_ibv_is_pd(pd))) {
		sd_verbs_ibv_refuse(sd_verbs_ibv_is_mr(mr) ? mr->context : pd->context, "ibv_rereg_mr",
				    "deregister the MR and register the new range with ibv_reg_mr");
		return IBV_REREG_MR_ERR_INPUT;
	}
	REAL(rereg_mr_fn, "ibv_rereg_mr", "IBVERBS_1.1")
	FORWARD_OR_FAIL(IBV_REREG_MR_ERR_INPUT)
	return real_(mr, flags, pd, addr, length, access);
}

SHIM_EXPORT struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access)
{
	struct ibv_context *soft = SOFT_CTX_OF_PD(pd);

	if (soft != NULL) {
		sd_verbs_ibv_refuse(soft, "ibv_reg_dmabuf_mr",
				    "softdoca has no dma-buf; register host memory with ibv_reg_mr");
		return NULL;
	}
	REAL(reg_dmabuf_mr_fn, "ibv_reg_dmabuf_mr", "IBVERBS_1.12")
	FORWARD_OR_FAIL(NULL)
	return real_(pd, offset, length, iova, fd, access);
}
