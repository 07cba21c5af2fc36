/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the three DMA samples share: the command-line configuration and its
 * registration with ARGP, the DMA context with its memcpy callbacks, and the
 * resources of the host side (a device and one mmap, no context).
 */
#ifndef DMA_COMMON_H_
#define DMA_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>

#include "common.h"

#define DMA_MAX_TEXT_SIZE 4096 /* -t accepts up to this many characters */
#define DMA_MAX_PATH_SIZE 4096 /* -d / -b */
#define DMA_MAX_DESC_SIZE 512  /* the DPU reads at most this much of the descriptor file */
#define DMA_DEFAULT_TEXT "This is a sample piece of text"
#define DMA_DEFAULT_DPU_PCI "03:00.0"
#define DMA_DEFAULT_HOST_PCI "b1:00.0"
#define DMA_DEFAULT_DESC_PATH "/tmp/export_desc.txt"
#define DMA_DEFAULT_BUF_PATH "/tmp/buffer_info.txt"

/* Which flags a sample takes (register_dma_params). */
enum dma_params {
	DMA_PARAMS_LOCAL,  /* -p -t -ns -nd -nt -mnr */
	DMA_PARAMS_REMOTE, /* -p -t -d -b, and -ns -nd on the DPU */
};

struct dma_config {
	char pci_address[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p */
	char cpy_txt[DMA_MAX_TEXT_SIZE + 1];	      /* -t */
	char export_desc_path[DMA_MAX_PATH_SIZE];     /* -d */
	char buf_info_path[DMA_MAX_PATH_SIZE];	      /* -b */
	int num_src_buf;			      /* -ns, >= 1 */
	int num_dst_buf;			      /* -nd, >= 1 */
	int num_tasks;				      /* -nt (local copy), >= 1 */
	int max_num_ranges;			      /* -mnr: accepted, no NVTX here */
};

/* Fill cfg with DOCA's defaults for a sample running on the DPU or on the host. */
void dma_config_set_defaults(struct dma_config *cfg, bool dpu);

/* Register the flags of kind with ARGP; the ARGP program config must be a struct dma_config. */
doca_error_t register_dma_params(enum dma_params kind);

/* What differs between the three programs' main(). */
struct dma_sample {
	const char *name;			     /* program name shown in the usage */
	enum dma_params params;			     /* flags it takes */
	bool on_dpu;				     /* DPU program (defaults, required personality) */
	bool built_for_dpu;			     /* this build defines DOCA_ARCH_DPU (else DOCA_ARCH_HOST) */
	doca_error_t (*run)(struct dma_config *cfg); /* the sample proper */
};

/*
 * The main() of every DMA sample: defaults, logging (standard backend + SDK
 * backend on stderr at WARNING), "Starting the sample", the personality check,
 * ARGP, run, and the final "Sample finished successfully" / "... with errors".
 * Returns the process exit status.
 */
int dma_sample_main(const struct dma_sample *sample, int argc, char **argv);

/* One DMA context on one device, with the Core objects around it. */
struct dma_resources {
	struct program_core_objects state; /* dev, src/dst mmap, inventory, pe, ctx */
	struct doca_dma *dma_ctx;
	size_t num_remaining_tasks; /* the ctx is stopped when this reaches 0 */
	bool run_pe_progress;	    /* cleared by the state callback on IDLE */
};

/*
 * Open the device at pcie_addr (it must support memcpy tasks), check that a task
 * may use num_buf buffers in total, create the Core objects with an inventory of
 * inv_size buffers, the DMA context with num_tasks memcpy tasks, and set the
 * callbacks.  The task user data of every task must point at a doca_error_t that
 * receives the task's result.
 */
doca_error_t allocate_dma_resources(const char *pcie_addr, uint32_t num_buf, uint32_t inv_size, uint32_t num_tasks,
				    struct dma_resources *resources);
doca_error_t destroy_dma_resources(struct dma_resources *resources);

/*
 * Before allocating anything sized by the flags: check on the device at
 * pcie_addr that a task may chain num_buf buffers (max_buf_list_len), copy
 * task_len bytes (max_buf_size) and that a DMA context takes num_tasks tasks
 * (doca_dma_cap_get_max_num_tasks).  INVALID_VALUE, with the limit logged, when
 * one is exceeded.
 */
doca_error_t dma_check_caps(const char *pcie_addr, uint32_t num_buf, uint32_t num_tasks, uint64_t task_len);

/* Connect the context to the PE and start it (progress is then wanted until IDLE). */
doca_error_t dma_resources_start(struct dma_resources *resources);

/* Stop the context (SUCCESS when already IDLE), then destroy_dma_resources(). */
doca_error_t dma_resources_finish(struct dma_resources *resources);

/* Host side: open the device and create one mmap (state->src_mmap) with it added. */
doca_error_t allocate_dma_host_resources(const char *pcie_addr, struct program_core_objects *state);
doca_error_t destroy_dma_host_resources(struct program_core_objects *state);

/* Progress the PE until the context is IDLE again (set by the state callback). */
void dma_progress_until_idle(struct dma_resources *resources);

/* Device filter: memcpy tasks supported. */
doca_error_t dma_task_is_supported(const struct doca_devinfo *devinfo);

#endif /* DMA_COMMON_H_ */
