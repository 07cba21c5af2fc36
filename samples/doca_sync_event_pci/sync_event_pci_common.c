/* SPDX-License-Identifier: BSD-3-Clause */
/* Flags and main() of the PCI sync-event samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_build_config.h>
#include <doca_log.h>

#include "common.h"
#include "sync_event_pci_common.h"

DOCA_LOG_REGISTER(SYNC_EVENT_PCI_COMMON);

doca_error_t se_pci_run_local(const struct se_pci_cfg *cfg);
doca_error_t se_pci_run_remote(const struct se_pci_cfg *cfg);

static doca_error_t
pci_cb(void *param, void *config)
{
	return copy_string_param("PCI address (-d)", param, ((struct se_pci_cfg *)config)->pci_addr,
				 sizeof(((struct se_pci_cfg *)config)->pci_addr));
}

static doca_error_t
rep_cb(void *param, void *config)
{
	return copy_string_param("Representor PCI address (-r)", param, ((struct se_pci_cfg *)config)->rep_pci_addr,
				 sizeof(((struct se_pci_cfg *)config)->rep_pci_addr));
}

static doca_error_t
async_cb(void *param, void *config)
{
	((struct se_pci_cfg *)config)->is_async = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
num_tasks_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v < 0) {
		DOCA_LOG_ERR("--async-num-tasks cannot be negative (got %d)", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct se_pci_cfg *)config)->async_num_tasks = v;
	return DOCA_SUCCESS;
}

static doca_error_t
atomic_cb(void *param, void *config)
{
	((struct se_pci_cfg *)config)->is_update_atomic = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t
reg(const char *s, const char *l, const char *arg, const char *desc, doca_argp_param_cb_t cb, enum doca_argp_type t,
    bool mandatory)
{
	struct doca_argp_param *p;
	doca_error_t r = doca_argp_param_create(&p);

	if (r != DOCA_SUCCESS)
		return r;
	if (s != NULL)
		doca_argp_param_set_short_name(p, s);
	doca_argp_param_set_long_name(p, l);
	if (arg != NULL)
		doca_argp_param_set_arguments(p, arg);
	doca_argp_param_set_description(p, desc);
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, t);
	if (mandatory)
		doca_argp_param_set_mandatory(p);
	return doca_argp_register_param(p);
}

static doca_error_t
register_params(bool dpu)
{
	doca_error_t r;

	r = reg("d", "pci-addr", "<PCI-ADDRESS>", "Device PCI address", pci_cb, DOCA_ARGP_TYPE_STRING, true);
	if (r == DOCA_SUCCESS && dpu)
		r = reg("r", "rep-pci", "<PCI-ADDRESS>", "DPU representor PCI address", rep_cb, DOCA_ARGP_TYPE_STRING,
			true);
	if (r == DOCA_SUCCESS)
		r = reg(NULL, "async", NULL, "Wait and signal with tasks on a progress engine (asynchronous mode)",
			async_cb, DOCA_ARGP_TYPE_BOOLEAN, false);
	if (r == DOCA_SUCCESS)
		r = reg(NULL, "async-num-tasks", "<num>", "Number of tasks of each type in asynchronous mode",
			num_tasks_cb, DOCA_ARGP_TYPE_INT, false);
	if (r == DOCA_SUCCESS)
		r = reg(NULL, "atomic", NULL, "Signal with an atomic add of 1 instead of setting the value", atomic_cb,
			DOCA_ARGP_TYPE_BOOLEAN, false);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register the sample's parameters: %s", doca_error_get_descr(r));
	return r;
}

int
se_pci_main(bool local, int argc, char **argv)
{
	struct se_pci_cfg cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t r;

	memset(&cfg, 0, sizeof(cfg));
#ifdef DOCA_ARCH_DPU
	cfg.is_dpu = true;
#endif
	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	DOCA_LOG_INFO("Starting the sample");
	r = doca_argp_init(local ? "doca_sync_event_local_pci" : "doca_sync_event_remote_pci", &cfg);
	if (r != DOCA_SUCCESS)
		goto sample_exit;
	r = register_params(cfg.is_dpu);
	if (r == DOCA_SUCCESS)
		r = doca_argp_start(argc, argv);
	if (r == DOCA_SUCCESS && cfg.is_async && cfg.async_num_tasks < 1) {
		DOCA_LOG_ERR("--async needs --async-num-tasks of at least 1");
		r = DOCA_ERROR_INVALID_VALUE;
	}
	if (r == DOCA_SUCCESS) {
		r = local ? se_pci_run_local(&cfg) : se_pci_run_remote(&cfg);
		if (r == DOCA_SUCCESS)
			exit_status = EXIT_SUCCESS;
	}
	doca_argp_destroy();
sample_exit:
	DOCA_LOG_INFO("Sample finished %s", exit_status == EXIT_SUCCESS ? "successfully" : "with errors");
	return exit_status;
}
