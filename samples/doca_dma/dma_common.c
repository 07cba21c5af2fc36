/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA sample plumbing: flag registration (with the DPU-only checks), the DMA
 * context and its callbacks, and the host-side resources.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <doca_argp.h>
#include <doca_ctx.h>
#include <doca_log.h>
#include <doca_pe.h>

#include "dma_common.h"

DOCA_LOG_REGISTER(DMA_COMMON);

void
dma_config_set_defaults(struct dma_config *cfg, bool dpu)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->pci_address, sizeof(cfg->pci_address), "%s", dpu ? DMA_DEFAULT_DPU_PCI : DMA_DEFAULT_HOST_PCI);
	snprintf(cfg->cpy_txt, sizeof(cfg->cpy_txt), "%s", DMA_DEFAULT_TEXT);
	snprintf(cfg->export_desc_path, sizeof(cfg->export_desc_path), "%s", DMA_DEFAULT_DESC_PATH);
	snprintf(cfg->buf_info_path, sizeof(cfg->buf_info_path), "%s", DMA_DEFAULT_BUF_PATH);
	cfg->num_src_buf = 1;
	cfg->num_dst_buf = 1;
	cfg->num_tasks = 1;
	cfg->max_num_ranges = 0;
}

static doca_error_t
pci_callback(void *param, void *config)
{
	struct dma_config *cfg = config;

	return copy_string_param("PCI address (-p)", param, cfg->pci_address, sizeof(cfg->pci_address));
}

static doca_error_t
text_callback(void *param, void *config)
{
	struct dma_config *cfg = config;

	return copy_string_param("Text (-t)", param, cfg->cpy_txt, sizeof(cfg->cpy_txt));
}

#ifdef DOCA_ARCH_DPU
/* On the DPU the files come from the host sample: they must exist already. */
static doca_error_t
check_file_exists(const char *flag, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		DOCA_LOG_ERR("%s: file %s does not exist (%s); run the host sample first and copy its files here", flag,
			     path, strerror(errno));
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* A FIFO would block the read that follows: refuse it here already. */
	if (!S_ISREG(st.st_mode)) {
		DOCA_LOG_ERR("%s: %s is not a regular file (a FIFO, a device or a directory); give the path of "
			     "the file the host sample wrote",
			     flag, path);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}
#endif

static doca_error_t
descriptor_path_callback(void *param, void *config)
{
	struct dma_config *cfg = config;
	doca_error_t result;

	result = copy_string_param("Descriptor path (-d)", param, cfg->export_desc_path, sizeof(cfg->export_desc_path));
#ifdef DOCA_ARCH_DPU
	if (result == DOCA_SUCCESS)
		result = check_file_exists("Descriptor path (-d)", cfg->export_desc_path);
#endif
	return result;
}

static doca_error_t
buf_info_path_callback(void *param, void *config)
{
	struct dma_config *cfg = config;
	doca_error_t result;

	result = copy_string_param("Buffer path (-b)", param, cfg->buf_info_path, sizeof(cfg->buf_info_path));
#ifdef DOCA_ARCH_DPU
	if (result == DOCA_SUCCESS)
		result = check_file_exists("Buffer path (-b)", cfg->buf_info_path);
#endif
	return result;
}

static doca_error_t
positive_int_param(const char *flag, int value, int *dst)
{
	if (value < 1) {
		DOCA_LOG_ERR("%s must be at least 1 (got %d)", flag, value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*dst = value;
	return DOCA_SUCCESS;
}

static doca_error_t
num_src_buf_callback(void *param, void *config)
{
	return positive_int_param("Number of source buffers (-ns)", *(int *)param,
				  &((struct dma_config *)config)->num_src_buf);
}

static doca_error_t
num_dst_buf_callback(void *param, void *config)
{
	return positive_int_param("Number of destination buffers (-nd)", *(int *)param,
				  &((struct dma_config *)config)->num_dst_buf);
}

static doca_error_t
num_tasks_callback(void *param, void *config)
{
	return positive_int_param("Number of tasks (-nt)", *(int *)param, &((struct dma_config *)config)->num_tasks);
}

static doca_error_t
max_num_ranges_callback(void *param, void *config)
{
	struct dma_config *cfg = config;
	int value = *(int *)param;

	if (value < 0) {
		DOCA_LOG_ERR("Number of profiling ranges (-mnr) cannot be negative (got %d)", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->max_num_ranges = value;
	return DOCA_SUCCESS;
}

/* Create, describe and register one flag. */
static doca_error_t
register_param(const char *short_name, const char *long_name, const char *arguments, const char *description,
	       enum doca_argp_type type, doca_argp_param_cb_t callback)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create ARGP param %s: %s", long_name, doca_error_get_descr(result));
		return result;
	}
	doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, type);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register ARGP param %s: %s", long_name, doca_error_get_descr(result));
	return result;
}

doca_error_t
register_dma_params(enum dma_params kind)
{
	doca_error_t result;

	result = register_param("p", "pci-addr", "<PCI-ADDRESS>", "DOCA device PCI address", DOCA_ARGP_TYPE_STRING,
				pci_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = register_param("t", "text", "<TEXT>", "Text to DMA copy (up to 4096 characters)",
				DOCA_ARGP_TYPE_STRING, text_callback);
	if (result != DOCA_SUCCESS)
		return result;

	if (kind == DMA_PARAMS_REMOTE) {
		result = register_param("d", "descriptor-path", "<PATH>",
					"Exported descriptor file path to save (host) or to read from (DPU)",
					DOCA_ARGP_TYPE_STRING, descriptor_path_callback);
		if (result != DOCA_SUCCESS)
			return result;
		result = register_param("b", "buffer-path", "<PATH>",
					"Buffer information file path to save (host) or to read from (DPU)",
					DOCA_ARGP_TYPE_STRING, buf_info_path_callback);
		if (result != DOCA_SUCCESS)
			return result;
	}

#ifdef DOCA_ARCH_DPU
	/* Only the DPU side builds buffer lists. */
	result = register_param("ns", "num-src-buf", "<NUM>", "Number of linked buffers for the source (default 1)",
				DOCA_ARGP_TYPE_INT, num_src_buf_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result =
		register_param("nd", "num-dst-buf", "<NUM>", "Number of linked buffers for the destination (default 1)",
			       DOCA_ARGP_TYPE_INT, num_dst_buf_callback);
	if (result != DOCA_SUCCESS)
		return result;
#else
	(void)num_src_buf_callback;
	(void)num_dst_buf_callback;
#endif

	if (kind == DMA_PARAMS_LOCAL) {
		result = register_param("nt", "num-tasks", "<NUM>",
					"Number of memcpy tasks, each copying the text to its own destination "
					"(default 1)",
					DOCA_ARGP_TYPE_INT, num_tasks_callback);
		if (result != DOCA_SUCCESS)
			return result;
		result = register_param("mnr", "max-num-range-profiling-displayed", "<NUM>",
					"Accepted for compatibility; NVTX range profiling does not exist in softdoca",
					DOCA_ARGP_TYPE_INT, max_num_ranges_callback);
		if (result != DOCA_SUCCESS)
			return result;
	}
	return DOCA_SUCCESS;
}

/* doca_argp_init(), the flags of kind, doca_argp_start(); ARGP is destroyed on failure. */
static doca_error_t
dma_parse_args(const char *program_name, struct dma_config *cfg, enum dma_params kind, int argc, char **argv)
{
	doca_error_t result;

	result = doca_argp_init(program_name, cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to initialize ARGP: %s", doca_error_get_descr(result));
		return result;
	}
	result = register_dma_params(kind);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to register the sample's parameters: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse the sample's input: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}
	return DOCA_SUCCESS;

destroy_argp:
	doca_argp_destroy();
	return result;
}

int
dma_sample_main(const struct dma_sample *sample, int argc, char **argv)
{
	struct dma_config cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	dma_config_set_defaults(&cfg, sample->on_dpu);

	/* Without a log there is no way to report anything: fail silently. */
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;

	DOCA_LOG_INFO("Starting the sample");

	if (sample->on_dpu != sample->built_for_dpu) {
		DOCA_LOG_ERR("%s runs only on the %s: build it with the %s personality (DOCA_ARCH_%s)", sample->name,
			     sample->on_dpu ? "DPU" : "host", sample->on_dpu ? "DPU" : "host",
			     sample->on_dpu ? "DPU" : "HOST");
		goto sample_exit;
	}

	if (dma_parse_args(sample->name, &cfg, sample->params, argc, argv) != DOCA_SUCCESS)
		goto sample_exit;

	result = sample->run(&cfg);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("%s encountered an error: %s (%s)", sample->name, doca_error_get_descr(result),
			     doca_error_get_name(result));
	else
		exit_status = EXIT_SUCCESS;

	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}

doca_error_t
dma_task_is_supported(const struct doca_devinfo *devinfo)
{
	return doca_dma_cap_task_memcpy_is_supported(devinfo);
}

/* Common end of both completion callbacks: free the task, stop after the last one. */
static void
dma_task_done(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data, union doca_data ctx_user_data,
	      doca_error_t status)
{
	struct dma_resources *resources = ctx_user_data.ptr;
	doca_error_t *result = task_user_data.ptr;

	*result = status;
	doca_task_free(doca_dma_task_memcpy_as_task(dma_task));
	if (--resources->num_remaining_tasks == 0)
		(void)doca_ctx_stop(resources->state.ctx);
}

static void
dma_memcpy_completed_callback(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data,
			      union doca_data ctx_user_data)
{
	DOCA_LOG_INFO("DMA task was completed successfully");
	dma_task_done(dma_task, task_user_data, ctx_user_data, DOCA_SUCCESS);
}

static void
dma_memcpy_error_callback(struct doca_dma_task_memcpy *dma_task, union doca_data task_user_data,
			  union doca_data ctx_user_data)
{
	doca_error_t status = doca_task_get_status(doca_dma_task_memcpy_as_task(dma_task));

	DOCA_LOG_ERR("DMA task failed: %s (%s)", doca_error_get_descr(status), doca_error_get_name(status));
	dma_task_done(dma_task, task_user_data, ctx_user_data, status);
}

static void
dma_state_changed_callback(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev_state,
			   enum doca_ctx_states next_state)
{
	struct dma_resources *resources = user_data.ptr;

	(void)ctx;
	(void)prev_state;
	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("DMA context has been stopped");
		resources->run_pe_progress = false;
		break;
	case DOCA_CTX_STATE_STARTING:
		/* A DMA context goes from IDLE to RUNNING directly. */
		DOCA_LOG_ERR("DMA context entered the starting state: unexpected transition");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("DMA context is running");
		break;
	case DOCA_CTX_STATE_STOPPING:
		DOCA_LOG_INFO("DMA context entered the stopping state: in-flight tasks will be flushed");
		break;
	default:
		break;
	}
}

/* A task may chain at most max_buf_list_len buffers, source and destination together. */
static doca_error_t
check_buf_list_len(struct doca_dev *dev, uint32_t num_buf)
{
	uint32_t max_list_len;
	doca_error_t result;

	result = doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &max_list_len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read max_buf_list_len: %s", doca_error_get_descr(result));
		return result;
	}
	if (num_buf > max_list_len) {
		DOCA_LOG_ERR("A task may use at most %u buffers (source + destination, max_buf_list_len) "
			     "but %u were requested; lower -ns/-nd",
			     max_list_len, num_buf);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
check_num_tasks(struct doca_dma *dma, uint32_t num_tasks)
{
	uint32_t max_tasks;
	doca_error_t result;

	result = doca_dma_cap_get_max_num_tasks(dma, &max_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the maximum number of DMA tasks: %s", doca_error_get_descr(result));
		return result;
	}
	if (num_tasks > max_tasks) {
		DOCA_LOG_ERR("The DMA context accepts at most %u tasks (doca_dma_cap_get_max_num_tasks) but %u were "
			     "requested; lower -nt",
			     max_tasks, num_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
dma_check_caps(const char *pcie_addr, uint32_t num_buf, uint32_t num_tasks, uint64_t task_len)
{
	struct doca_dev *dev;
	struct doca_dma *dma;
	uint64_t max_buf_size;
	doca_error_t result, tmp;

	result = open_doca_device_with_pci(pcie_addr, dma_task_is_supported, &dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open a DMA-capable device at PCI address %s: %s", pcie_addr,
			     doca_error_get_descr(result));
		return result;
	}
	result = check_buf_list_len(dev, num_buf);
	if (result != DOCA_SUCCESS)
		goto close_dev;
	result = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &max_buf_size);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to read the maximum DMA buffer size: %s", doca_error_get_descr(result));
		goto close_dev;
	}
	if (task_len > max_buf_size) {
		DOCA_LOG_ERR("A task would copy %" PRIu64 " bytes but the device's max_buf_size is %" PRIu64, task_len,
			     max_buf_size);
		result = DOCA_ERROR_INVALID_VALUE;
		goto close_dev;
	}
	/* The task limit is a property of a DMA context: make one just to ask. */
	result = doca_dma_create(dev, &dma);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the DMA context: %s", doca_error_get_descr(result));
		goto close_dev;
	}
	result = check_num_tasks(dma, num_tasks);
	tmp = doca_dma_destroy(dma);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the DMA context: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
close_dev:
	tmp = doca_dev_close(dev);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to close the device: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

doca_error_t
allocate_dma_resources(const char *pcie_addr, uint32_t num_buf, uint32_t inv_size, uint32_t num_tasks,
		       struct dma_resources *resources)
{
	struct program_core_objects *state = &resources->state;
	union doca_data ctx_user_data;
	doca_error_t result, tmp;

	memset(resources, 0, sizeof(*resources));

	result = open_doca_device_with_pci(pcie_addr, dma_task_is_supported, &state->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open a DMA-capable device at PCI address %s: %s", pcie_addr,
			     doca_error_get_descr(result));
		return result;
	}

	result = check_buf_list_len(state->dev, num_buf);
	if (result != DOCA_SUCCESS)
		goto destroy_core;

	/* Context and its task limit first: the inventory below is sized by num_tasks. */
	result = doca_dma_create(state->dev, &resources->dma_ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the DMA context: %s", doca_error_get_descr(result));
		goto destroy_core;
	}
	state->ctx = doca_dma_as_ctx(resources->dma_ctx);
	result = check_num_tasks(resources->dma_ctx, num_tasks);
	if (result != DOCA_SUCCESS)
		goto destroy_dma;

	result = create_core_objects(state, inv_size);
	if (result != DOCA_SUCCESS)
		goto destroy_dma;

	result = doca_ctx_set_state_changed_cb(state->ctx, dma_state_changed_callback);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the DMA state callback: %s", doca_error_get_descr(result));
		goto destroy_dma;
	}
	result = doca_dma_task_memcpy_set_conf(resources->dma_ctx, dma_memcpy_completed_callback,
					       dma_memcpy_error_callback, num_tasks);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to configure DMA memcpy tasks: %s", doca_error_get_descr(result));
		goto destroy_dma;
	}
	ctx_user_data.ptr = resources;
	result = doca_ctx_set_user_data(state->ctx, ctx_user_data);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set the DMA context user data: %s", doca_error_get_descr(result));
		goto destroy_dma;
	}
	return DOCA_SUCCESS;

destroy_dma:
	tmp = doca_dma_destroy(resources->dma_ctx);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy the DMA context: %s", doca_error_get_descr(tmp));
	resources->dma_ctx = NULL;
	state->ctx = NULL;
destroy_core:
	/* Destroys what exists (NULL members are skipped) and closes the device. */
	destroy_core_objects(state);
	return result;
}

doca_error_t
destroy_dma_resources(struct dma_resources *resources)
{
	struct program_core_objects *state = &resources->state;
	doca_error_t result = DOCA_SUCCESS, tmp;

	if (resources->dma_ctx != NULL) {
		tmp = doca_dma_destroy(resources->dma_ctx);
		if (tmp != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to destroy the DMA context: %s", doca_error_get_descr(tmp));
		DOCA_ERROR_PROPAGATE(result, tmp);
		resources->dma_ctx = NULL;
		state->ctx = NULL;
	}
	/* DOCA_ERROR_PROPAGATE evaluates its second argument only while r is SUCCESS. */
	tmp = destroy_core_objects(state);
	DOCA_ERROR_PROPAGATE(result, tmp);

	/*
	 * DOCA's sample closes the (by now NULL) device once more and keeps the
	 * result: doca_dev_close(NULL) must succeed.  Kept as a conformance check.
	 */
	tmp = doca_dev_close(state->dev);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("doca_dev_close(NULL) failed: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

doca_error_t
allocate_dma_host_resources(const char *pcie_addr, struct program_core_objects *state)
{
	doca_error_t result;

	memset(state, 0, sizeof(*state));
	result = open_doca_device_with_pci(pcie_addr, dma_task_is_supported, &state->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open a DMA-capable device at PCI address %s: %s", pcie_addr,
			     doca_error_get_descr(result));
		return result;
	}
	result = doca_mmap_create(&state->src_mmap);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create the mmap: %s", doca_error_get_descr(result));
		goto destroy_core;
	}
	result = doca_mmap_add_dev(state->src_mmap, state->dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to add the device to the mmap: %s", doca_error_get_descr(result));
		goto destroy_core;
	}
	return DOCA_SUCCESS;

destroy_core:
	destroy_core_objects(state);
	return result;
}

doca_error_t
destroy_dma_host_resources(struct program_core_objects *state)
{
	return destroy_core_objects(state);
}

doca_error_t
dma_resources_start(struct dma_resources *resources)
{
	struct program_core_objects *state = &resources->state;
	doca_error_t result;

	result = doca_pe_connect_ctx(state->pe, state->ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect the DMA context to the progress engine: %s",
			     doca_error_get_descr(result));
		return result;
	}
	/* Set before the start: the RUNNING callback may come from inside doca_ctx_start(). */
	resources->run_pe_progress = true;
	result = doca_ctx_start(state->ctx);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to start the DMA context: %s", doca_error_get_descr(result));
		resources->run_pe_progress = false;
	}
	return result;
}

doca_error_t
dma_resources_finish(struct dma_resources *resources)
{
	doca_error_t result, tmp;

	result = request_stop_ctx(resources->state.pe, resources->state.ctx);
	tmp = destroy_dma_resources(resources);
	if (tmp != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to destroy DMA resources: %s", doca_error_get_descr(tmp));
	DOCA_ERROR_PROPAGATE(result, tmp);
	return result;
}

void
dma_progress_until_idle(struct dma_resources *resources)
{
	while (resources->run_pe_progress) {
		if (doca_pe_progress(resources->state.pe) == 0)
			usleep(10);
	}
}
