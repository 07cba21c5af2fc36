/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA devices: discovering the PCI functions of the (emulated) BlueField /
 * ConnectX devices, opening them, and the representors a DPU-side function has
 * of the host's functions.
 *
 * Object model
 * ------------
 *   struct doca_devinfo      one PCI function (host side or DPU side), as found by
 *                            doca_devinfo_create_list().  Read-only; queried with
 *                            the doca_devinfo_get_* and *_cap_* functions.
 *   struct doca_dev          an opened function: what mmaps, DMA and RDMA contexts
 *                            are bound to.  doca_dev_open() on the same devinfo
 *                            returns the same object and counts references.
 *   struct doca_devinfo_rep  a representor, on the DPU side, of a function that
 *                            the host (or an emulated device) sees.
 *   struct doca_dev_rep      an opened representor.
 *
 * Call order
 * ----------
 *   doca_devinfo_create_list(&list, &n);
 *   pick list[i] (by PCI address, IB device name, interface name or capability);
 *   doca_dev_open(list[i], &dev);
 *   doca_devinfo_destroy_list(list);        (dev and doca_dev_as_devinfo(dev) stay valid)
 *   ... use dev ...
 *   doca_dev_close(dev);
 *
 * In softdoca the devices come from an emulated topology (built-in default, or a
 * JSON file named by the SOFTDOCA_TOPOLOGY environment variable or found at
 * /etc/softdoca/topology.json): see docs/devices.md.
 *
 * Errors common to every function: DOCA_ERROR_INVALID_VALUE for a NULL object or
 * output pointer, or an output buffer smaller than the documented size.  Output
 * parameters are written only on DOCA_SUCCESS.
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_devinfo_rep;
struct doca_dev;
struct doca_dev_rep;

/* Which representors doca_devinfo_rep_create_list() returns (bit mask; 0 = all). */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,
	DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,	   /* network functions (PF/VF/SF representors) */
	DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2, /* emulated PCI devices (e.g. virtio) */
};

/* Buffer sizes in bytes; string sizes include the terminating NUL. */
#define DOCA_DEVINFO_VUID_SIZE 128
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13 /* "DDDD:BB:DD.F" + NUL */
#define DOCA_DEVINFO_PCI_BDF_SIZE 8   /* "BB:DD.F" + NUL */
#define DOCA_DEVINFO_REP_VUID_SIZE 128
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8

/*
 * Device lists
 */

/*
 * Allocate the list of all device functions of the machine.  (*dev_list)[i] for
 * i < *nb_devs are the functions; the array is NULL-terminated as well.
 * Returns DOCA_ERROR_NOT_FOUND when there is no device, DOCA_ERROR_BAD_CONFIG when
 * the topology file cannot be used (the log names the file and the problem),
 * DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);

/*
 * Free a list from doca_devinfo_create_list().  The devinfo pointers must not be
 * used afterwards, except through a doca_dev opened from one of them:
 * doca_dev_as_devinfo() keeps returning a valid devinfo for as long as the dev is
 * open.
 */
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/*
 * Allocate the list of representors of an opened DPU-side function, restricted by
 * filter (a mask of enum doca_devinfo_rep_filter; 0 = all).  An empty match is a
 * success with *nb_devs_rep = 0.
 * Returns DOCA_ERROR_NOT_SUPPORTED on a host-side function (representors exist
 * only on the DPU side) or for a filter the function does not support,
 * DOCA_ERROR_INVALID_VALUE for unknown filter bits, DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
						      struct doca_devinfo_rep ***dev_list_rep, uint32_t *nb_devs_rep);

/* Free a list from doca_devinfo_rep_create_list(). */
DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/*
 * Opening and closing
 */

/*
 * Open a device function.  Opening a devinfo that is already open returns the
 * same struct doca_dev and takes one more reference; each open needs one close.
 * Returns DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);

/*
 * Drop one reference; the last one frees the device.  Closing NULL is a no-op
 * that returns DOCA_SUCCESS (cleanup paths close devices they may not have opened).
 * Returns DOCA_ERROR_IN_USE when dropping the last reference while mmaps or
 * contexts still use the device (the dev stays open; destroy them first).
 */
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);

/*
 * Ask the device to release cached resources sooner.  softdoca caches nothing,
 * so this succeeds at once.  Returns DOCA_ERROR_NOT_SUPPORTED when the device
 * reports the capability as unsupported.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dev_accelerate_resource_reclaim(struct doca_dev *dev);

/* Open a representor; each call gives a new object.  Returns DOCA_ERROR_NO_MEMORY. */
DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);

/* Close a representor opened with doca_dev_rep_open(). */
DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/* The devinfo of an opened device; NULL if dev is NULL. Valid while dev is open. */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/* The devinfo of an opened representor; NULL if dev_rep is NULL. */
DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/*
 * Device function properties
 */

/* PCI address as "DDDD:BB:DD.F" (lower-case hex); pci_addr_str holds DOCA_DEVINFO_PCI_ADDR_SIZE bytes. */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);

/*
 * *is_equal = 1 when pci_addr_str names this function's PCI address.  Accepts
 * "DDDD:BB:DD.F" and "BB:DD.F" (domain 0000), hex digits in either case.
 * Returns DOCA_ERROR_INVALID_VALUE for a malformed address.
 */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
							uint8_t *is_equal);

/*
 * Addresses of the port's netdev.  size must be at least DOCA_DEVINFO_IPV4_ADDR_SIZE /
 * _IPV6_ADDR_SIZE / _MAC_ADDR_SIZE.  The IPv4 / IPv6 getters return
 * DOCA_ERROR_NOT_FOUND when the netdev has no address of that family.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
						    uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
						    uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
						   uint32_t size);

/* Interface name, NUL-terminated; size must be at least DOCA_DEVINFO_IFACE_NAME_SIZE. */
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
						     uint32_t size);

/* IB device name ("mlx5_0"), NUL-terminated; size must be at least DOCA_DEVINFO_IBDEV_NAME_SIZE. */
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
						     uint32_t size);

/* Port LID (0 on an Ethernet / RoCE port, which is what softdoca emulates). */
DOCA_STABLE doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid);

/* Port active rate in bits per second. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_active_rate(const struct doca_devinfo *devinfo, uint64_t *active_rate);

/* Virtual HCA id of the function. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_vhca_id(const struct doca_devinfo *devinfo, uint16_t *vhca_id);

/* PF, VF or SF. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							      enum doca_pci_func_type *pci_func_type);

/* Index of a scalable function.  Returns DOCA_ERROR_NOT_SUPPORTED if the function is not an SF. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index);

/*
 * Device function capabilities: each writes 1 (supported) or 0 to its output.
 */

/* Whether the function can manage hot-plugged emulated devices (DPU side). */
DOCA_STABLE doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
								       uint8_t *is_hotplug_manager);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_cap_is_notification_moderation_supported(const struct doca_devinfo *devinfo,
										     uint8_t *is_supported);
/* Whether doca_devinfo_rep_create_list() accepts the filter (DPU-side functions only). */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_all_supported);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_net_supported);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
									   uint8_t *filter_emulated_supported);
DOCA_EXPERIMENTAL doca_error_t
doca_devinfo_cap_is_accelerate_resource_reclaim_supported(const struct doca_devinfo *devinfo, uint8_t *is_supported);

/*
 * Representor properties
 */

/* Vendor unique id; size must be at least DOCA_DEVINFO_REP_VUID_SIZE. */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
						   uint32_t size);
/* PCI address of the represented function, "DDDD:BB:DD.F" (DOCA_DEVINFO_REP_PCI_ADDR_SIZE bytes). */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
							   char *pci_addr_str);
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
							    enum doca_pci_func_type *pci_func_type);
/* Whether the represented function was hot-plugged. */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
							 uint8_t *is_hotplug);
/* Representor netdev name; size must be at least DOCA_DEVINFO_IFACE_NAME_SIZE. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep,
							       char *iface_name, uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vhca_id(const struct doca_devinfo_rep *devinfo_rep,
							    uint16_t *vhca_id);
/* Same address forms as doca_devinfo_is_equal_pci_addr(). */
DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
							    const char *pci_addr_str, uint8_t *is_equal);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
