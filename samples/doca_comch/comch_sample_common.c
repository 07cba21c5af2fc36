/* SPDX-License-Identifier: BSD-3-Clause */
/* Comch sample plumbing: flags, main(), devices, state lines, sending, progress. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "common.h"
#include "comch_sample_common.h"

DOCA_LOG_REGISTER(COMCH_COMMON);

static doca_error_t
pci_callback(void *param, void *config)
{
	struct comch_config *cfg = config;

	return copy_string_param("PCI address (-p)", param, cfg->pci_addr, sizeof(cfg->pci_addr));
}

static doca_error_t
rep_pci_callback(void *param, void *config)
{
	struct comch_config *cfg = config;

	return copy_string_param("Representor PCI address (-r)", param, cfg->rep_pci_addr, sizeof(cfg->rep_pci_addr));
}

static doca_error_t
text_callback(void *param, void *config)
{
	struct comch_config *cfg = config;
	doca_error_t result = copy_string_param("Text (-t)", param, cfg->text, sizeof(cfg->text));

	if (result == DOCA_SUCCESS)
		cfg->text_len = (uint32_t)strlen(cfg->text);
	return result;
}

static doca_error_t
register_param(const char *short_name, const char *long_name, const char *arguments, const char *description,
	       doca_argp_param_cb_t callback)
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
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to register ARGP param %s: %s", long_name, doca_error_get_descr(result));
	return result;
}

static doca_error_t
register_comch_params(void)
{
	doca_error_t result;

	result = register_param("p", "pci-addr", "<PCI-ADDRESS>", "DOCA Comm Channel device PCI address", pci_callback);
	if (result != DOCA_SUCCESS)
		return result;
	result = register_param("r", "rep-pci", "<PCI-ADDRESS>", "DOCA Comm Channel device representor PCI address",
				rep_pci_callback);
	if (result != DOCA_SUCCESS)
		return result;
	return register_param("t", "text", "<TEXT>", "Text to be sent to the other side of channel", text_callback);
}

int
comch_sample_main(const struct comch_sample *sample, int argc, char **argv)
{
	struct comch_config cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	memset(&cfg, 0, sizeof(cfg));
	snprintf(cfg.pci_addr, sizeof(cfg.pci_addr), "%s",
		 sample->on_dpu ? COMCH_DEFAULT_DPU_PCI : COMCH_DEFAULT_HOST_PCI);
	snprintf(cfg.rep_pci_addr, sizeof(cfg.rep_pci_addr), "%s", COMCH_DEFAULT_REP_PCI);
	snprintf(cfg.text, sizeof(cfg.text), "%s", COMCH_DEFAULT_TEXT);
	cfg.text_len = (uint32_t)strlen(cfg.text);

	if (sample_logging_init(DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	DOCA_LOG_INFO("Starting the sample");

	if (sample->on_dpu != sample->built_for_dpu) {
		DOCA_LOG_ERR("%s runs only on the %s: build it with the %s personality (DOCA_ARCH_%s)", sample->name,
			     sample->on_dpu ? "DPU" : "host", sample->on_dpu ? "DPU" : "host",
			     sample->on_dpu ? "DPU" : "HOST");
		goto sample_exit;
	}
	result = doca_argp_init(sample->name, &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to init ARGP resources: %s", doca_error_get_descr(result));
		goto sample_exit;
	}
	result = register_comch_params();
	if (result != DOCA_SUCCESS)
		goto destroy_argp;
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to parse sample input: %s", doca_error_get_descr(result));
		goto destroy_argp;
	}
	result = sample->run(&cfg);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("%s() encountered an error: %s", sample->name, doca_error_get_descr(result));
	else
		exit_status = EXIT_SUCCESS;
destroy_argp:
	doca_argp_destroy();
sample_exit:
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}

doca_error_t
comch_open_server_dev(const char *pci, const char *rep_pci, struct doca_dev **dev, struct doca_dev_rep **rep)
{
	doca_error_t result;

	result = open_doca_device_with_pci(pci, doca_comch_cap_server_is_supported, dev);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open Comm Channel DOCA device based on PCI address %s: %s", pci,
			     doca_error_get_descr(result));
		return result;
	}
	result = open_doca_device_rep_with_pci(*dev, DOCA_DEVINFO_REP_FILTER_NET, rep_pci, rep);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to open Comm Channel DOCA device representor based on PCI address %s: %s", rep_pci,
			     doca_error_get_descr(result));
		doca_dev_close(*dev);
		return result;
	}
	return DOCA_SUCCESS;
}

doca_error_t
comch_open_client_dev(const char *pci, struct doca_dev **dev)
{
	doca_error_t result = open_doca_device_with_pci(pci, doca_comch_cap_client_is_supported, dev);

	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to open Comm Channel DOCA device based on PCI address %s: %s", pci,
			     doca_error_get_descr(result));
	return result;
}

doca_error_t
comch_check_text_len(struct doca_dev *dev, uint32_t text_len)
{
	uint32_t max_msg;
	doca_error_t result = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(dev), &max_msg);

	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to get the maximum message size: %s", doca_error_get_descr(result));
		return result;
	}
	if (text_len > max_msg) {
		DOCA_LOG_ERR("Failed to run sample, text size is larger than supported message size. text_len = %u, "
			     "supported message size = %u",
			     text_len, max_msg);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

doca_error_t
comch_objects_open(const struct comch_config *cfg, bool server, struct comch_objects *obj)
{
	doca_error_t result;

	memset(obj, 0, sizeof(*obj));
	if (server)
		result = comch_open_server_dev(cfg->pci_addr, cfg->rep_pci_addr, &obj->dev, &obj->rep);
	else
		result = comch_open_client_dev(cfg->pci_addr, &obj->dev);
	if (result != DOCA_SUCCESS)
		return result;
	result = comch_check_text_len(obj->dev, cfg->text_len);
	if (result != DOCA_SUCCESS)
		goto close;
	(void)doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(obj->dev), &obj->max_msg);
	result = doca_pe_create(&obj->pe);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to create progress engine: %s", doca_error_get_descr(result));
		goto close;
	}
	return DOCA_SUCCESS;
close:
	comch_objects_close(obj);
	return result;
}

void
comch_objects_close(struct comch_objects *obj)
{
	if (obj->pe != NULL)
		(void)doca_pe_destroy(obj->pe);
	if (obj->rep != NULL)
		(void)doca_dev_rep_close(obj->rep);
	if (obj->dev != NULL)
		(void)doca_dev_close(obj->dev);
	memset(obj, 0, sizeof(*obj));
}

void
comch_log_state(bool server, enum doca_ctx_states next_state, const char *running)
{
	const char *end = server ? "server" : "client";

	switch (next_state) {
	case DOCA_CTX_STATE_IDLE:
		DOCA_LOG_INFO("CC %s context has been stopped", end);
		break;
	case DOCA_CTX_STATE_STARTING:
		/* A server starts at once; a client waits in STARTING for its server. */
		if (server)
			DOCA_LOG_ERR("CC server context entered into starting state. Unexpected transition");
		else
			DOCA_LOG_INFO("CC client context entered into starting state. Waiting for connection "
				      "establishment");
		break;
	case DOCA_CTX_STATE_RUNNING:
		DOCA_LOG_INFO("CC %s context is running. %s", end, running);
		break;
	case DOCA_CTX_STATE_STOPPING:
		if (server)
			DOCA_LOG_INFO("CC server context entered into stopping state. Terminating connections with "
				      "clients");
		else
			DOCA_LOG_INFO("CC client context entered into stopping state. Waiting for connection "
				      "termination");
		break;
	default:
		break;
	}
}

doca_error_t
comch_send(struct doca_comch_server *server, struct doca_comch_client *client, struct doca_comch_connection *conn,
	   const char *msg, uint32_t len)
{
	const char *end = server != NULL ? "server" : "client";
	struct doca_comch_task_send *task;
	doca_error_t result;

	if (server != NULL)
		result = doca_comch_server_task_send_alloc_init(server, conn, msg, len, &task);
	else
		result = doca_comch_client_task_send_alloc_init(client, conn, msg, len, &task);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to allocate task in %s with error = %s", end, doca_error_get_name(result));
		return result;
	}
	result = doca_task_submit(doca_comch_task_send_as_task(task));
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send message from %s with error = %s", end, doca_error_get_name(result));
		doca_task_free(doca_comch_task_send_as_task(task));
	}
	return result;
}

void
comch_send_done(struct doca_comch_task_send *task, const char *what)
{
	DOCA_LOG_INFO("%s sent successfully", what);
	doca_task_free(doca_comch_task_send_as_task(task));
}

doca_error_t
comch_send_failed(struct doca_comch_task_send *task)
{
	doca_error_t status = doca_task_get_status(doca_comch_task_send_as_task(task));

	DOCA_LOG_ERR("Message failed to send with error = %s", doca_error_get_name(status));
	doca_task_free(doca_comch_task_send_as_task(task));
	return status;
}

void
comch_progress_until(struct doca_pe *pe, const bool *done, const bool *done2)
{
	while (!*done && (done2 == NULL || !*done2))
		if (doca_pe_progress(pe) == 0)
			usleep(10);
}
