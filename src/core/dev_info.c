/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Property and capability getters of device functions (doca_devinfo_*) and of
 * representors (doca_devinfo_rep_*): read-only views of the topology.
 */
#include <string.h>

#include <softdoca_dev.h>

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

/* --- softdoca's own getters (include/softdoca_dev.h) --------------------------------- */

doca_error_t
softdoca_devinfo_get_side(const struct doca_devinfo *devinfo, enum softdoca_side *side)
{
	CHECK_ARGS(devinfo, side);
	*side = devinfo->side == SD_DEV_SIDE_DPU ? SOFTDOCA_SIDE_DPU : SOFTDOCA_SIDE_HOST;
	return DOCA_SUCCESS;
}

doca_error_t
softdoca_devinfo_get_device_name(const struct doca_devinfo *devinfo, char *name, uint32_t size)
{
	_Static_assert(sizeof(devinfo->device_name) <= SOFTDOCA_DEVICE_NAME_SIZE, "device name fits");
	CHECK_ARGS(devinfo, name);
	return copy_str(__func__, devinfo->device_name, name, size, SOFTDOCA_DEVICE_NAME_SIZE,
			"SOFTDOCA_DEVICE_NAME_SIZE");
}

doca_error_t
softdoca_devinfo_get_model(const struct doca_devinfo *devinfo, char *name, uint32_t size)
{
	_Static_assert(sizeof(devinfo->model) <= SOFTDOCA_MODEL_NAME_SIZE, "model name fits");
	CHECK_ARGS(devinfo, name);
	return copy_str(__func__, devinfo->model, name, size, SOFTDOCA_MODEL_NAME_SIZE, "SOFTDOCA_MODEL_NAME_SIZE");
}

doca_error_t
softdoca_devinfo_get_netdev(const struct doca_devinfo *devinfo, char *name, uint32_t size)
{
	_Static_assert(sizeof(devinfo->netdev) <= SOFTDOCA_NETDEV_NAME_SIZE, "netdev name fits");
	CHECK_ARGS(devinfo, name);
	return copy_str(__func__, devinfo->netdev, name, size, SOFTDOCA_NETDEV_NAME_SIZE, "SOFTDOCA_NETDEV_NAME_SIZE");
}

doca_error_t
softdoca_devinfo_get_gid(const struct doca_devinfo *devinfo, uint8_t *gid, uint32_t size)
{
	_Static_assert(sizeof(devinfo->gid) == SOFTDOCA_GID_SIZE, "one GID");
	CHECK_ARGS(devinfo, gid);
	return copy_bytes(__func__, devinfo->gid, gid, size, SOFTDOCA_GID_SIZE, "SOFTDOCA_GID_SIZE");
}

doca_error_t
softdoca_devinfo_get_has_ip_addr(const struct doca_devinfo *devinfo, uint8_t *has_ipv4, uint8_t *has_ipv6)
{
	CHECK_ARGS(devinfo, has_ipv4);
	if (has_ipv6 == NULL)
		return sd_dev_null_arg(__func__, "has_ipv6");
	*has_ipv4 = devinfo->has_ipv4;
	*has_ipv6 = devinfo->has_ipv6;
	return DOCA_SUCCESS;
}

doca_error_t
softdoca_cap_get_num(uint32_t *num_caps)
{
	if (num_caps == NULL)
		return sd_dev_null_arg(__func__, "num_caps");
	sd_dev_cap_descs(num_caps);
	return DOCA_SUCCESS;
}

/* Entry index of the capability table, or NULL (logged under api). */
static const struct sd_dev_cap_desc *
cap_desc(uint32_t index, const char *api)
{
	uint32_t n;
	const struct sd_dev_cap_desc *descs = sd_dev_cap_descs(&n);

	if (index >= n) {
		DOCA_LOG_ERR("%s: capability %u is past the table of %u; ask softdoca_cap_get_num() first", api, index,
			     n);
		return NULL;
	}
	return &descs[index];
}

doca_error_t
softdoca_cap_get_info(uint32_t index, const char **name, enum softdoca_cap_type *type, const char **doca_api)
{
	static const enum softdoca_cap_type types[] = {
		[SD_DEV_CAP_BOOL] = SOFTDOCA_CAP_BOOL,
		[SD_DEV_CAP_U32] = SOFTDOCA_CAP_U32,
		[SD_DEV_CAP_U64] = SOFTDOCA_CAP_U64,
	};
	const struct sd_dev_cap_desc *d;

	if (name == NULL || type == NULL || doca_api == NULL)
		return sd_dev_null_arg(__func__, name == NULL ? "name" : type == NULL ? "type" : "doca_api");
	d = cap_desc(index, __func__);
	if (d == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*name = d->name;
	*type = types[d->kind];
	*doca_api = d->doca_api;
	return DOCA_SUCCESS;
}

doca_error_t
softdoca_devinfo_get_cap(const struct doca_devinfo *devinfo, uint32_t index, uint64_t *value)
{
	const struct sd_dev_cap_desc *d;
	const char *field;

	CHECK_ARGS(devinfo, value);
	d = cap_desc(index, __func__);
	if (d == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	field = (const char *)&devinfo->caps + d->offset;
	switch (d->kind) {
	case SD_DEV_CAP_BOOL:
		*value = *(const bool *)field;
		break;
	case SD_DEV_CAP_U32:
		*value = *(const uint32_t *)field;
		break;
	case SD_DEV_CAP_U64:
		*value = *(const uint64_t *)field;
		break;
	}
	return DOCA_SUCCESS;
}
