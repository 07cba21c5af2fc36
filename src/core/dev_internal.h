/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device objects as the other modules see them.
 *
 * The emulated topology (topology.c) is loaded once per process and never
 * freed: every struct doca_devinfo lives as long as the process, so a devinfo
 * stays usable after doca_devinfo_destroy_list() and doca_dev_as_devinfo() can
 * return it.  Lists returned to the user are arrays of pointers into it.
 */
#ifndef SD_DEV_INTERNAL_H_
#define SD_DEV_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#include <doca_dev.h>

#include "../util/sd_util.h"

/* What the emulated hardware can do; read by the DMA / RDMA / Verbs facades. */
struct sd_dev_caps {
	/* DMA */
	bool dma_memcpy;	       /* doca_dma_cap_task_memcpy_is_supported */
	uint64_t dma_max_buf_size;     /* bytes per task, summed over a list */
	uint32_t dma_max_buf_list_len; /* src segments + dst segments */
	uint32_t dma_max_num_tasks;    /* per DMA context */
	bool pci_export;	       /* doca_mmap_export_pci (host-side functions) */
	bool pci_import;	       /* doca_mmap_create_from_export (DPU-side functions) */
	/* RDMA */
	bool rdma; /* every RDMA task family */
	uint32_t rdma_max_send_queue_size;
	uint32_t rdma_max_recv_queue_size;
	uint32_t rdma_max_send_buf_list_len;
	uint32_t rdma_max_recv_buf_list_len;
	uint32_t rdma_max_message_size;
	uint32_t rdma_max_connections;
	bool rdma_dc; /* DC transport accepted */
	uint32_t gid_table_size;
	/* Core (added by the devices module) */
	bool accelerate_resource_reclaim; /* doca_devinfo_cap_is_accelerate_resource_reclaim_supported */
	bool notification_moderation;	  /* doca_devinfo_cap_is_notification_moderation_supported */
};

/*
 * One capability as data: its name in the topology file and in doca_caps output,
 * where it lives in struct sd_dev_caps, and the DOCA function that reports it.
 */
enum sd_dev_cap_kind {
	SD_DEV_CAP_BOOL,
	SD_DEV_CAP_U32,
	SD_DEV_CAP_U64,
};

struct sd_dev_cap_desc {
	const char *name; /* "dma_max_buf_size" (the struct field's name) */
	enum sd_dev_cap_kind kind;
	size_t offset;	      /* offsetof(struct sd_dev_caps, <name>) */
	const char *doca_api; /* the DOCA call that reports it */
};

/* The table of every capability, in documentation order. */
SD_EXPORT const struct sd_dev_cap_desc *sd_dev_cap_descs(uint32_t *num_descs);

enum sd_dev_side {
	SD_DEV_SIDE_HOST, /* a PCI function seen from the host */
	SD_DEV_SIDE_DPU,  /* a function seen from the DPU's Arm cores */
};

struct doca_devinfo_rep {
	struct doca_devinfo *owner; /* the DPU-side function this representor belongs to */
	char vuid[128];
	char pci_addr[16]; /* "DDDD:BB:DD.F" */
	char iface_name[IF_NAMESIZE + 1];
	enum doca_pci_func_type func_type;
	bool is_hotplug;
	uint16_t vhca_id;
	uint32_t filter; /* DOCA_DEVINFO_REP_FILTER_* bits it matches */
};

struct doca_devinfo {
	uint32_t index; /* position in the topology, stable across processes */
	enum sd_dev_side side;
	char pci_addr[16];		  /* "DDDD:BB:DD.F" */
	char ibdev_name[64];		  /* "mlx5_0" */
	char iface_name[IF_NAMESIZE + 1]; /* interface shown to the user */
	char netdev[IF_NAMESIZE + 1];	  /* Linux netdev carrying this device's RDMA traffic */
	uint8_t mac[6];
	uint8_t ipv4[4];
	uint8_t ipv6[16];
	uint8_t gid[16]; /* port 1, index 0 */
	uint16_t lid;
	uint64_t active_rate; /* bits per second */
	uint16_t vhca_id;
	enum doca_pci_func_type func_type;
	uint32_t sf_index;
	bool hotplug_manager;
	struct sd_dev_caps caps;
	struct doca_devinfo_rep *reps; /* representors (DPU side only) */
	uint32_t num_reps;
	/* Added by the devices module */
	bool has_ipv4; /* the netdev had an IPv4 address when the topology loaded */
	bool has_ipv6;
	char device_name[32];  /* the BlueField this function belongs to ("bf0") */
	uint32_t device_index; /* position of that BlueField in the topology */
	struct doca_dev *dev;  /* the open doca_dev, or NULL (dev.c's lock guards it) */
};

struct doca_dev {
	struct doca_devinfo *devinfo;
	uint32_t refcount; /* doca_dev_open() on the same devinfo shares the object */
	uint32_t users;	   /* mmaps / contexts holding it (doca_dev_close -> IN_USE) */
};

struct doca_dev_rep {
	struct doca_devinfo_rep *devinfo_rep;
};

/*
 * The process-wide topology (loaded on first use).  NULL on a load failure (logged
 * once); sd_topology_status() then says why (DOCA_ERROR_BAD_CONFIG, NO_MEMORY).
 */
struct sd_topology {
	struct doca_devinfo *devs;
	uint32_t num_devs;
	char source[256]; /* "built-in" or the config file path */
};
SD_EXPORT const struct sd_topology *sd_topology_get(void);
SD_EXPORT doca_error_t sd_topology_status(void);

/*
 * The side this process's program was built for (docs/personalities.md): host
 * unless the DPU personality's doca_build_config.h declared DPU while the program
 * loaded (softdoca_personality_dpu()).  doca_devinfo_create_list() lists only the
 * functions of this side.
 */
SD_EXPORT enum sd_dev_side sd_dev_process_side(void);

/*
 * For softdoca's own tests and tools that play both sides of a BlueField in one
 * program (a forked child that becomes the host, a test opening both ends of a
 * PCI export): change the side later lists are made for.  DOCA programs never
 * need it; their build chooses.
 */
SD_EXPORT void sd_dev_process_side_set(enum sd_dev_side side);

/* Find a device of this process's topology by index (descriptors carry it). */
SD_EXPORT struct doca_devinfo *sd_devinfo_by_index(uint32_t index);

/* Users of a device (mmaps that added it, contexts created on it). */
SD_EXPORT void sd_dev_get(struct doca_dev *dev);
SD_EXPORT void sd_dev_put(struct doca_dev *dev);

#endif /* SD_DEV_INTERNAL_H_ */
