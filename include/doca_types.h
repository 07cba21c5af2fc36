/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Types shared by several DOCA libraries.
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A pollable handle: a file descriptor on Linux. */
typedef int doca_event_handle_t;
#define doca_event_invalid_handle -1
typedef doca_event_handle_t doca_notification_handle_t;

#define DOCA_GID_BYTE_LENGTH 16

/* Opaque user data, passed by value. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/* A gather list element. */
struct doca_gather_list {
	void *addr;
	uint64_t len;
	struct doca_gather_list *next;
};

typedef __be16 doca_be16_t;
typedef __be32 doca_be32_t;
typedef __be64 doca_be64_t;

/* Access rights of a memory region (bit mask). */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0,
	DOCA_PCI_FUNC_TYPE_VF,
	DOCA_PCI_FUNC_TYPE_SF,
};

enum doca_mtu_size {
	DOCA_MTU_SIZE_256_BYTES = 0x0,
	DOCA_MTU_SIZE_512_BYTES = 0x1,
	DOCA_MTU_SIZE_1K_BYTES = 0x2,
	DOCA_MTU_SIZE_2K_BYTES = 0x3,
	DOCA_MTU_SIZE_4K_BYTES = 0x4,
	DOCA_MTU_SIZE_RAW_ETHERNET = 0x5,
};

enum doca_gpu_mem_type {
	DOCA_GPU_MEM_TYPE_GPU = 0,
	DOCA_GPU_MEM_TYPE_GPU_CPU = 1,
	DOCA_GPU_MEM_TYPE_CPU_GPU = 2,
};

enum doca_eth_wait_on_time_type {
	DOCA_ETH_WAIT_ON_TIME_TYPE_NONE = 0,
	DOCA_ETH_WAIT_ON_TIME_TYPE_NATIVE = 1,
	DOCA_ETH_WAIT_ON_TIME_TYPE_DPDK = 2,
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
