/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdoca's own device calls: what its emulated topology says about a device
 * function beyond DOCA's doca_devinfo_* getters, for tools and benchmarks
 * (doca_caps, doca_perf).  Not part of NVIDIA's DOCA: a program that calls these
 * builds against softdoca only (test DOCA_SOFTDOCA from doca_build_config.h).
 * They are softdoca's stable ABI (version node SOFTDOCA_1 of libdoca_common,
 * docs/personalities.md), in libdoca_common alone.
 *
 * Every getter checks its arguments and writes its output only on success:
 * DOCA_ERROR_INVALID_VALUE for a NULL argument, a too small output buffer or an
 * index past the capability table; nothing else.
 */
#ifndef SOFTDOCA_DEV_H_
#define SOFTDOCA_DEV_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which side of a BlueField a function (or a program) is on. */
enum softdoca_side {
	SOFTDOCA_SIDE_HOST = 0, /* a PCI function seen from the host */
	SOFTDOCA_SIDE_DPU = 1,	/* a function seen from the DPU's Arm cores */
};

/* Output sizes, terminating NUL included. */
#define SOFTDOCA_DEVICE_NAME_SIZE 32 /* "bf0" */
#define SOFTDOCA_NETDEV_NAME_SIZE 17 /* IF_NAMESIZE + 1 */
#define SOFTDOCA_GID_SIZE 16
#define SOFTDOCA_MODEL_NAME_SIZE 24 /* "bluefield-3" */

/* The side the function belongs to. */
DOCA_STABLE doca_error_t softdoca_devinfo_get_side(const struct doca_devinfo *devinfo, enum softdoca_side *side);

/* The BlueField the function belongs to, as the topology names it ("bf0"); size >= SOFTDOCA_DEVICE_NAME_SIZE. */
DOCA_STABLE doca_error_t softdoca_devinfo_get_device_name(const struct doca_devinfo *devinfo, char *name,
							  uint32_t size);

/*
 * The card the function stands for, which decides its engines (docs/devices.md "Models"):
 * "soft", "bluefield-2", "bluefield-3" or "connectx-7"; size >= SOFTDOCA_MODEL_NAME_SIZE.
 */
DOCA_STABLE doca_error_t softdoca_devinfo_get_model(const struct doca_devinfo *devinfo, char *name, uint32_t size);

/* The Linux netdev that carries the function's RDMA traffic; size >= SOFTDOCA_NETDEV_NAME_SIZE. */
DOCA_STABLE doca_error_t softdoca_devinfo_get_netdev(const struct doca_devinfo *devinfo, char *name, uint32_t size);

/* The GID of port 1, index 0 (16 bytes, network order); size >= SOFTDOCA_GID_SIZE. */
DOCA_STABLE doca_error_t softdoca_devinfo_get_gid(const struct doca_devinfo *devinfo, uint8_t *gid, uint32_t size);

/*
 * Whether the netdev had an IPv4 / IPv6 address when the topology loaded, i.e.
 * whether doca_devinfo_get_ipv4_addr() / _ipv6_addr() answer (they log a
 * warning and return DOCA_ERROR_NOT_FOUND otherwise).  1 or 0 in each.
 */
DOCA_STABLE doca_error_t softdoca_devinfo_get_has_ip_addr(const struct doca_devinfo *devinfo, uint8_t *has_ipv4,
							  uint8_t *has_ipv6);

/*
 * The capability table: every capability the topology gives a function, in
 * documentation order (docs/devices.md).  Entry index has a name (the key in
 * the topology file and in doca_caps' output, "dma_max_buf_size"), a type, and
 * the DOCA call that reports it ("doca_dma_cap_task_memcpy_get_max_buf_size");
 * the strings live as long as the library.
 */
enum softdoca_cap_type {
	SOFTDOCA_CAP_BOOL = 0, /* value 0 or 1 */
	SOFTDOCA_CAP_U32 = 1,
	SOFTDOCA_CAP_U64 = 2,
};

/* The number of entries of the table. */
DOCA_STABLE doca_error_t softdoca_cap_get_num(uint32_t *num_caps);

/* Entry index < softdoca_cap_get_num(). */
DOCA_STABLE doca_error_t softdoca_cap_get_info(uint32_t index, const char **name, enum softdoca_cap_type *type,
					       const char **doca_api);

/* The value of entry index for one function. */
DOCA_STABLE doca_error_t softdoca_devinfo_get_cap(const struct doca_devinfo *devinfo, uint32_t index, uint64_t *value);

/*
 * For programs that play both sides of a BlueField in one process (a
 * benchmark's forked exporter, a tool): the side that later device lists are
 * made for (doca_devinfo_create_list()).  A DOCA program never needs it: the
 * personality it is built with chooses (docs/personalities.md).  Any other value
 * is ignored.
 */
DOCA_STABLE void softdoca_process_set_side(enum softdoca_side side);

#ifdef __cplusplus
}
#endif

#endif /* SOFTDOCA_DEV_H_ */
