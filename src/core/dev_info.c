/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Property and capability getters of device functions (doca_devinfo_*) and of
 * representors (doca_devinfo_rep_*): read-only views of the topology.
 */
#include <string.h>

#include "sd_log.h"
#include "topology_internal.h"

SD_LOG_REGISTER(core.devinfo);

/* Copy a NUL-terminated string into a caller buffer that must hold min_size bytes. */
static doca_error_t
copy_str(const char *api, const char *src, char *out, uint32_t size, uint32_t min_size, const char *macro)
{
	if (size < min_size) {
		DOCA_LOG_ERR("%s: output buffer of %u bytes is too small; pass %s (%u) bytes", api, size, macro,
			     min_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(out, src, strlen(src) + 1);
	return DOCA_SUCCESS;
}

static doca_error_t
copy_bytes(const char *api, const void *src, uint8_t *out, uint32_t size, uint32_t len, const char *macro)
{
	if (size < len) {
		DOCA_LOG_ERR("%s: output buffer of %u bytes is too small; pass %s (%u) bytes", api, size, macro, len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(out, src, len);
	return DOCA_SUCCESS;
}

/* Compare a user-given address (either form) with a canonical one. */
static doca_error_t
pci_equal(const char *api, const char *ours, const char *theirs, uint8_t *is_equal)
{
	char norm[13];

	if (!sd_pci_addr_normalize(theirs, norm)) {
		DOCA_LOG_ERR("%s: \"%s\" is not a PCI address; use \"DDDD:BB:DD.F\" or \"BB:DD.F\" (hex)", api, theirs);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*is_equal = strcmp(ours, norm) == 0;
	return DOCA_SUCCESS;
}

#define CHECK_ARGS(obj, out)                                                                                           \
	do {                                                                                                           \
		if ((obj) == NULL)                                                                                     \
			return sd_dev_null_arg(__func__, #obj);                                                        \
		if ((out) == NULL)                                                                                     \
			return sd_dev_null_arg(__func__, #out);                                                        \
	} while (0)

/* A getter that only copies one value out: the object is "o" in expr. */
#define GETTER(api, obj_type, out_type, expr)                                                                          \
	doca_error_t api(const struct obj_type *o, out_type *out)                                                      \
	{                                                                                                              \
		if (o == NULL)                                                                                         \
			return sd_dev_null_arg(__func__, #obj_type);                                                   \
		if (out == NULL)                                                                                       \
			return sd_dev_null_arg(__func__, "output pointer");                                            \
		*out = (expr);                                                                                         \
		return DOCA_SUCCESS;                                                                                   \
	}

doca_error_t
doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	CHECK_ARGS(devinfo, pci_addr_str);
	memcpy(pci_addr_str, devinfo->pci_addr, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

doca_error_t
doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str, uint8_t *is_equal)
{
	CHECK_ARGS(devinfo, is_equal);
	if (pci_addr_str == NULL)
		return sd_dev_null_arg(__func__, "pci_addr_str");
	return pci_equal(__func__, devinfo->pci_addr, pci_addr_str, is_equal);
}

doca_error_t
doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr, uint32_t size)
{
	CHECK_ARGS(devinfo, ipv4_addr);
	if (!devinfo->has_ipv4) {
		DOCA_LOG_WARN("%s: netdev %s of %s has no IPv4 address; assign one (ip addr add) or use "
			      "doca_devinfo_get_ipv6_addr()",
			      __func__, devinfo->netdev, devinfo->ibdev_name);
		return DOCA_ERROR_NOT_FOUND;
	}
	return copy_bytes(__func__, devinfo->ipv4, ipv4_addr, size, DOCA_DEVINFO_IPV4_ADDR_SIZE,
			  "DOCA_DEVINFO_IPV4_ADDR_SIZE");
}

doca_error_t
doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr, uint32_t size)
{
	CHECK_ARGS(devinfo, ipv6_addr);
	if (!devinfo->has_ipv6) {
		DOCA_LOG_WARN("%s: netdev %s of %s has no IPv6 address; assign one or use doca_devinfo_get_ipv4_addr()",
			      __func__, devinfo->netdev, devinfo->ibdev_name);
		return DOCA_ERROR_NOT_FOUND;
	}
	return copy_bytes(__func__, devinfo->ipv6, ipv6_addr, size, DOCA_DEVINFO_IPV6_ADDR_SIZE,
			  "DOCA_DEVINFO_IPV6_ADDR_SIZE");
}

doca_error_t
doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr, uint32_t size)
{
	CHECK_ARGS(devinfo, mac_addr);
	return copy_bytes(__func__, devinfo->mac, mac_addr, size, DOCA_DEVINFO_MAC_ADDR_SIZE,
			  "DOCA_DEVINFO_MAC_ADDR_SIZE");
}

doca_error_t
doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name, uint32_t size)
{
	CHECK_ARGS(devinfo, iface_name);
	return copy_str(__func__, devinfo->iface_name, iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE,
			"DOCA_DEVINFO_IFACE_NAME_SIZE");
}

doca_error_t
doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name, uint32_t size)
{
	CHECK_ARGS(devinfo, ibdev_name);
	return copy_str(__func__, devinfo->ibdev_name, ibdev_name, size, DOCA_DEVINFO_IBDEV_NAME_SIZE,
			"DOCA_DEVINFO_IBDEV_NAME_SIZE");
}

/* Ethernet (RoCE) ports have LID 0, which is what the default topology gives. */
GETTER(doca_devinfo_get_lid, doca_devinfo, uint16_t, o->lid)

GETTER(doca_devinfo_get_active_rate, doca_devinfo, uint64_t, o->active_rate)

GETTER(doca_devinfo_get_vhca_id, doca_devinfo, uint16_t, o->vhca_id)

GETTER(doca_devinfo_get_pci_func_type, doca_devinfo, enum doca_pci_func_type, o->func_type)

doca_error_t
doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
	CHECK_ARGS(devinfo, sf_index);
	if (devinfo->func_type != DOCA_PCI_FUNC_TYPE_SF) {
		DOCA_LOG_ERR("%s: %s (%s) is not a scalable function; check doca_devinfo_get_pci_func_type() first",
			     __func__, devinfo->ibdev_name, devinfo->pci_addr);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*sf_index = devinfo->sf_index;
	return DOCA_SUCCESS;
}

GETTER(doca_devinfo_cap_is_hotplug_manager_supported, doca_devinfo, uint8_t, o->hotplug_manager)

GETTER(doca_devinfo_cap_is_notification_moderation_supported, doca_devinfo, uint8_t, o->caps.notification_moderation)

GETTER(doca_devinfo_cap_is_accelerate_resource_reclaim_supported, doca_devinfo, uint8_t,
       o->caps.accelerate_resource_reclaim)

/* Every filter works where representors exist: on DPU-side functions. */
GETTER(doca_devinfo_rep_cap_is_filter_all_supported, doca_devinfo, uint8_t, o->side == SD_DEV_SIDE_DPU)

GETTER(doca_devinfo_rep_cap_is_filter_net_supported, doca_devinfo, uint8_t, o->side == SD_DEV_SIDE_DPU)

GETTER(doca_devinfo_rep_cap_is_filter_emulated_supported, doca_devinfo, uint8_t, o->side == SD_DEV_SIDE_DPU)

doca_error_t
doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid, uint32_t size)
{
	CHECK_ARGS(devinfo_rep, rep_vuid);
	return copy_str(__func__, devinfo_rep->vuid, rep_vuid, size, DOCA_DEVINFO_REP_VUID_SIZE,
			"DOCA_DEVINFO_REP_VUID_SIZE");
}

doca_error_t
doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep, char *pci_addr_str)
{
	CHECK_ARGS(devinfo_rep, pci_addr_str);
	memcpy(pci_addr_str, devinfo_rep->pci_addr, DOCA_DEVINFO_REP_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

GETTER(doca_devinfo_rep_get_pci_func_type, doca_devinfo_rep, enum doca_pci_func_type, o->func_type)

GETTER(doca_devinfo_rep_get_is_hotplug, doca_devinfo_rep, uint8_t, o->is_hotplug)

doca_error_t
doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep, char *iface_name, uint32_t size)
{
	CHECK_ARGS(devinfo_rep, iface_name);
	return copy_str(__func__, devinfo_rep->iface_name, iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE,
			"DOCA_DEVINFO_IFACE_NAME_SIZE");
}

GETTER(doca_devinfo_rep_get_vhca_id, doca_devinfo_rep, uint16_t, o->vhca_id)

doca_error_t
doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr_str,
				   uint8_t *is_equal)
{
	CHECK_ARGS(devinfo_rep, is_equal);
	if (pci_addr_str == NULL)
		return sd_dev_null_arg(__func__, "pci_addr_str");
	return pci_equal(__func__, devinfo_rep->pci_addr, pci_addr_str, is_equal);
}
