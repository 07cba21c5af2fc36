/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device objects as the other modules see them.
 *
 * The emulated topology (topology.c) is loaded once per process and never
 * freed: every struct doca_devinfo lives as long as the process, so a devinfo
 * stays usable after doca_devinfo_destroy_list() and doca_dev_as_devinfo() can
 * return it.  Lists returned to the user are arrays of pointers into it.
 */
#include "core_private.h" /* outside the guard: checks every inclusion */

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
	/* Core: clocks and mmap advise (clock.c, mmap_advise.c) */
	bool clock_nic_free_running;		/* doca_clock_cap_nic_free_running_is_supported */
	bool clock_nic_real_time;		/* doca_clock_cap_nic_real_time_is_supported */
	bool cache_invalidate;			/* doca_mmap_advise_cap_task_cache_invalidate_is_supported */
	uint64_t cache_invalidate_max_buf_size; /* bytes per cache invalidate task, summed over a list */
	/* Verbs (doca_verbs_context_create) */
	bool verbs;
	/* Compress (src/compress) */
	bool compress_deflate;		    /* doca_compress_cap_task_compress_deflate_is_supported */
	bool decompress_deflate;	    /* doca_compress_cap_task_decompress_deflate_is_supported */
	bool decompress_lz4_stream;	    /* doca_compress_cap_task_decompress_lz4_stream_is_supported */
	bool decompress_lz4_block;	    /* doca_compress_cap_task_decompress_lz4_block_is_supported */
	uint64_t compress_max_buf_size;	    /* compress deflate: bytes per task, either buffer */
	uint64_t decompress_max_buf_size;   /* every decompress task: bytes per task, either buffer */
	uint32_t compress_max_buf_list_len; /* segments per buffer list, every task */
	uint32_t compress_max_num_tasks;    /* doca_compress_cap_get_max_num_tasks */
	/* SHA (src/sha) */
	bool sha_hash;			/* doca_sha_cap_task_hash_get_supported (SHA-1/256/512) */
	bool sha_partial_hash;		/* doca_sha_cap_task_partial_hash_get_supported */
	uint64_t sha_max_src_buf_size;	/* doca_sha_cap_get_max_src_buf_size */
	uint32_t sha_max_list_num_elem; /* doca_sha_cap_get_max_list_buf_num_elem */
	/* Erasure coding (src/erasure_coding) */
	bool ec;		      /* every doca_ec_cap_task_*_is_supported */
	uint64_t ec_max_block_size;   /* doca_ec_cap_get_max_block_size */
	uint32_t ec_max_buf_list_len; /* doca_ec_cap_get_max_buf_list_len */
	/* AES-GCM (src/aes_gcm) */
	bool aes_gcm;			    /* encrypt and decrypt, 128/256-bit keys, 96/128-bit tags */
	uint64_t aes_gcm_max_buf_size;	    /* doca_aes_gcm_cap_task_*_get_max_buf_size */
	uint32_t aes_gcm_max_list_num_elem; /* doca_aes_gcm_cap_task_*_get_max_list_buf_num_elem */
	uint32_t aes_gcm_max_num_tasks;	    /* doca_aes_gcm_cap_get_max_num_tasks */
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

/*
 * The capabilities a function of this model has before the
 * topology's overrides (docs/devices.md "Models").  false for a name that is no
 * model; sd_dev_model_names() lists them for the error line.
 */
SD_EXPORT bool sd_dev_model_caps(const char *model, struct sd_dev_caps *caps);
SD_EXPORT const char *sd_dev_model_names(void);

enum sd_dev_side {
	SD_DEV_SIDE_HOST, /* a PCI function seen from the host */
	SD_DEV_SIDE_DPU,  /* a function seen from the DPU's Arm cores */
};

struct doca_devinfo_rep {
	struct doca_devinfo *SD_CORE_PRIVATE(owner); /* the DPU-side function this representor belongs to */
	char SD_CORE_PRIVATE(vuid)[128];
	char SD_CORE_PRIVATE(pci_addr)[16]; /* "DDDD:BB:DD.F" */
	char SD_CORE_PRIVATE(iface_name)[IF_NAMESIZE + 1];
	enum doca_pci_func_type SD_CORE_PRIVATE(func_type);
	bool SD_CORE_PRIVATE(is_hotplug);
	uint16_t SD_CORE_PRIVATE(vhca_id);
	uint32_t SD_CORE_PRIVATE(filter); /* DOCA_DEVINFO_REP_FILTER_* bits it matches */
};

struct doca_devinfo {
	uint32_t SD_CORE_PRIVATE(index); /* position in the topology, stable across processes */
	enum sd_dev_side SD_CORE_PRIVATE(side);
	char SD_CORE_PRIVATE(pci_addr)[16];		   /* "DDDD:BB:DD.F" */
	char SD_CORE_PRIVATE(ibdev_name)[64];		   /* "mlx5_0" */
	char SD_CORE_PRIVATE(iface_name)[IF_NAMESIZE + 1]; /* interface shown to the user */
	char SD_CORE_PRIVATE(netdev)[IF_NAMESIZE + 1];	   /* Linux netdev carrying this device's RDMA traffic */
	uint8_t SD_CORE_PRIVATE(mac)[6];
	uint8_t SD_CORE_PRIVATE(ipv4)[4];
	uint8_t SD_CORE_PRIVATE(ipv6)[16];
	uint8_t SD_CORE_PRIVATE(gid)[16]; /* port 1, index 0 */
	uint16_t SD_CORE_PRIVATE(lid);
	uint64_t SD_CORE_PRIVATE(active_rate); /* bits per second */
	uint16_t SD_CORE_PRIVATE(vhca_id);
	enum doca_pci_func_type SD_CORE_PRIVATE(func_type);
	uint32_t SD_CORE_PRIVATE(sf_index);
	bool SD_CORE_PRIVATE(hotplug_manager);
	struct sd_dev_caps SD_CORE_PRIVATE(caps);
	char SD_CORE_PRIVATE(model)[24]; /* the card it stands for: "soft", "bluefield-3", ... (dev_caps.c) */
	struct doca_devinfo_rep *SD_CORE_PRIVATE(reps); /* representors (DPU side only) */
	uint32_t SD_CORE_PRIVATE(num_reps);
	/* Added by the devices module */
	bool SD_CORE_PRIVATE(has_ipv4); /* the netdev had an IPv4 address when the topology loaded */
	bool SD_CORE_PRIVATE(has_ipv6);
	char SD_CORE_PRIVATE(device_name)[32];	/* the BlueField this function belongs to ("bf0") */
	uint32_t SD_CORE_PRIVATE(device_index); /* position of that BlueField in the topology */
	struct doca_dev *SD_CORE_PRIVATE(dev);	/* the open doca_dev, or NULL (dev.c's lock guards it) */
};

struct doca_dev {
	struct doca_devinfo *SD_CORE_PRIVATE(devinfo);
	uint32_t SD_CORE_PRIVATE(refcount); /* doca_dev_open() on the same devinfo shares the object */
	uint32_t SD_CORE_PRIVATE(users);    /* mmaps / contexts holding it (doca_dev_close -> IN_USE) */
};

struct doca_dev_rep {
	struct doca_devinfo_rep *SD_CORE_PRIVATE(devinfo_rep);
};

/*
 * The process-wide topology (loaded on first use).  NULL on a load failure (logged
 * once); sd_topology_status() then says why (DOCA_ERROR_BAD_CONFIG, NO_MEMORY).
 */
struct sd_topology {
	struct doca_devinfo *SD_CORE_PRIVATE(devs);
	uint32_t SD_CORE_PRIVATE(num_devs);
	char SD_CORE_PRIVATE(source)[256]; /* "built-in" or the config file path */
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
