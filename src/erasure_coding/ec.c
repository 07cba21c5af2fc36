/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The erasure coding context: created on a device whose model has the engine,
 * its capabilities (the device's, struct sd_dev_caps), and the start check.
 * Everything else of a context (states, submit, in-order delivery, workers,
 * flush) is Core's engine context, sd_accel (src/core/accel_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "ec_internal.h"

SD_LOG_REGISTER(erasure_coding);

const char *
sd_ec_dev_name(const struct doca_devinfo *devinfo, char *out, size_t cap)
{
	snprintf(out, cap, "device %s (model %s)", sd_devinfo_pci_addr(devinfo), sd_devinfo_model(devinfo));
	return out;
}

/* doca_ctx_start: at least one task type must be enabled (DOCA's contexts refuse an empty start). */
static doca_error_t
ec_may_start(struct sd_accel *accel)
{
	struct doca_ec *ec = sd_ec_from_accel(accel);

	for (int f = 0; f < SD_EC_NUM_FAMILIES; f++)
		if (ec->pools[f] != NULL)
			return DOCA_SUCCESS;
	DOCA_LOG_ERR("doca_ctx_start: erasure coding context has no task type enabled; call "
		     "doca_ec_task_create_set_conf() (or _recover_, _update_, _galois_mul_) before doca_ctx_start()");
	return DOCA_ERROR_BAD_STATE;
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_create(struct doca_dev *dev, struct doca_ec **ec)
{
	const struct doca_devinfo *devinfo;
	char name[96];
	struct doca_ec *e;

	if (dev == NULL || ec == NULL) {
		DOCA_LOG_ERR("doca_ec_create: NULL argument (dev %p, ec %p)", (void *)dev, (void *)ec);
		return DOCA_ERROR_INVALID_VALUE;
	}
	devinfo = sd_dev_devinfo(dev);
	if (!sd_devinfo_caps(devinfo)->ec) {
		DOCA_LOG_ERR("doca_ec_create: %s has no erasure coding engine; pick a device for which "
			     "doca_ec_cap_task_create_is_supported() returns DOCA_SUCCESS",
			     sd_ec_dev_name(devinfo, name, sizeof(name)));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	e = sd_fault_create("ec", "doca_ec_create") ? NULL : calloc(1, sizeof(*e));
	if (e == NULL) {
		DOCA_LOG_ERR("doca_ec_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	e->caps = sd_devinfo_caps(devinfo);
	sd_list_init(&e->matrices);
	sd_accel_init(&e->accel, dev, "erasure coding", log_source, ec_may_start);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*ec = e;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_destroy(struct doca_ec *ec)
{
	struct doca_dev *dev;
	doca_error_t err;

	if (ec == NULL) {
		DOCA_LOG_ERR("doca_ec_destroy: ec is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	dev = sd_ctx_dev(&ec->accel.ctx);
	/* BAD_STATE unless IDLE (logged by Core). */
	err = sd_accel_fini(&ec->accel, "doca_ec_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_ec_matrices_detach(ec);
	sd_dev_put(dev);
	free(ec);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_ec_as_ctx(struct doca_ec *ec)
{
	if (ec == NULL) {
		DOCA_LOG_ERR("doca_ec_as_ctx: ec is NULL");
		return NULL;
	}
	return &ec->accel.ctx;
}

/* --- capabilities ----------------------------------------------------------------------- */

/* The device's caps for a query named api, or NULL (logged) when it has no engine. */
static const struct sd_dev_caps *
engine_caps(const char *api, const struct doca_devinfo *devinfo, const void *out)
{
	char name[96];

	if (devinfo == NULL || out == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, output %p)", api, (const void *)devinfo, out);
		return NULL;
	}
	if (!sd_devinfo_caps(devinfo)->ec) {
		DOCA_LOG_ERR("%s: %s has no erasure coding engine; check doca_ec_cap_task_create_is_supported() "
			     "first",
			     api, sd_ec_dev_name(devinfo, name, sizeof(name)));
		return NULL;
	}
	return sd_devinfo_caps(devinfo);
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_cap_get_max_block_size(const struct doca_devinfo *devinfo, uint64_t *max_block_size)
{
	const struct sd_dev_caps *caps = engine_caps("doca_ec_cap_get_max_block_size", devinfo, max_block_size);

	if (caps == NULL)
		return devinfo == NULL || max_block_size == NULL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_SUPPORTED;
	*max_block_size = caps->ec_max_block_size;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_ec_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)
{
	const struct sd_dev_caps *caps = engine_caps("doca_ec_cap_get_max_buf_list_len", devinfo, max_buf_list_len);

	if (caps == NULL)
		return devinfo == NULL || max_buf_list_len == NULL ? DOCA_ERROR_INVALID_VALUE
								   : DOCA_ERROR_NOT_SUPPORTED;
	*max_buf_list_len = caps->ec_max_buf_list_len;
	return DOCA_SUCCESS;
}

/* Every task type is the one engine: supported exactly when the device has it. */
static doca_error_t
task_supported(const char *api, const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* An expected answer for device filters: not logged as an error. */
	return sd_devinfo_caps(devinfo)->ec ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

#define EC_TASK_SUPPORTED(T)                                                                                           \
	DOCA_EXPERIMENTAL doca_error_t doca_ec_cap_task_##T##_is_supported(const struct doca_devinfo *devinfo)         \
	{                                                                                                              \
		return task_supported(__func__, devinfo);                                                              \
	}

EC_TASK_SUPPORTED(galois_mul)
EC_TASK_SUPPORTED(create)
EC_TASK_SUPPORTED(update)
EC_TASK_SUPPORTED(recover)
