/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libsoftdoca_ibverbs.so: rdma-core's entry points DOCA Verbs programs call on
 * the ibv_context / ibv_pd / ibv_mr softdoca hands them.  Each function
 * carries rdma-core's own symbol version (softdoca_ibverbs.map), so a program
 * linked with this library before -libverbs (softdoca's libibverbs.pc and
 * libmlx5.pc do that) binds here; a softdoca object is served by libdoca_verbs
 * (verbs_ibv.h), anything else goes to the next definition, the real
 * libibverbs, found once with dlvsym(RTLD_NEXT).  Functions not defined here
 * reach the real library directly.  docs/verbs.md, "rdma-core interoperability".
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../verbs/ibv/verbs_ibv.h"

/* The macros and inlines of verbs.h must not rename the functions defined here. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port

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
