/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compress context: creation on a device whose model has a compress
 * engine, the capability queries (answered from the device's caps, which the
 * model decides: src/core/dev_caps.c), the families' set_conf and
 * alloc_init, and the check doca_ctx_start() makes (docs/compress.md).
 */
#include <stdlib.h>

#include "../util/sd_env.h"
#include "compress_internal.h"

SD_LOG_REGISTER(compress);

static bool
has_compress_deflate(const struct sd_dev_caps *caps)
{
	return caps->compress_deflate;
}

static bool
has_decompress_deflate(const struct sd_dev_caps *caps)
{
	return caps->decompress_deflate;
}

static bool
has_lz4_stream(const struct sd_dev_caps *caps)
{
	return caps->decompress_lz4_stream;
}

static bool
has_lz4_block(const struct sd_dev_caps *caps)
{
	return caps->decompress_lz4_block;
}

static uint64_t
compress_max(const struct sd_dev_caps *caps)
{
	return caps->compress_max_buf_size;
}

static uint64_t
decompress_max(const struct sd_dev_caps *caps)
{
	return caps->decompress_max_buf_size;
}

/* The public task types are struct sd_compress_task itself (compress_task_api.c). */
const struct sd_compress_family_desc sd_compress_families[SD_COMPRESS_NUM_FAMILIES] = {
	[SD_COMPRESS_DEFLATE] = {"compress deflate", "doca_compress_cap_task_compress_deflate_is_supported",
				 has_compress_deflate, compress_max, sizeof(struct sd_compress_task)},
	[SD_DECOMPRESS_DEFLATE] = {"decompress deflate", "doca_compress_cap_task_decompress_deflate_is_supported",
				   has_decompress_deflate, decompress_max, sizeof(struct sd_compress_task)},
	[SD_DECOMPRESS_LZ4_STREAM] = {"decompress LZ4 stream",
				      "doca_compress_cap_task_decompress_lz4_stream_is_supported", has_lz4_stream,
				      decompress_max, sizeof(struct sd_compress_task)},
	[SD_DECOMPRESS_LZ4_BLOCK] = {"decompress LZ4 block", "doca_compress_cap_task_decompress_lz4_block_is_supported",
				     has_lz4_block, decompress_max, sizeof(struct sd_compress_task)},
};

static bool
has_any_family(const struct sd_dev_caps *caps)
{
	for (int f = 0; f < SD_COMPRESS_NUM_FAMILIES; f++)
		if (sd_compress_families[f].is_supported(caps))
			return true;
	return false;
}

/* doca_ctx_start(): at least one family must be configured. */
static doca_error_t
compress_may_start(struct sd_accel *accel)
{
	struct doca_compress *compress = sd_container_of(accel, struct doca_compress, accel);

	for (int f = 0; f < SD_COMPRESS_NUM_FAMILIES; f++)
		if (compress->pools[f] != NULL)
			return DOCA_SUCCESS;
	DOCA_LOG_ERR("doca_ctx_start: compress context has no task type enabled; call one of the "
		     "doca_compress_task_*_set_conf() functions before doca_ctx_start()");
	return DOCA_ERROR_BAD_STATE;
}

/* SOFTDOCA_COMPRESS_CHECKSUMS: when a decompress task's checksums are computed. */
static const char *const checksum_modes[] = {"lazy", "eager"};

/* --- context ----------------------------------------------------------------------------- */

DOCA_EXPERIMENTAL doca_error_t
doca_compress_create(struct doca_dev *dev, struct doca_compress **compress)
{
	const struct doca_devinfo *devinfo;
	struct doca_compress *c;

	if (dev == NULL || compress == NULL) {
		DOCA_LOG_ERR("doca_compress_create: NULL argument (dev %p, compress %p)", (void *)dev,
			     (void *)compress);
		return DOCA_ERROR_INVALID_VALUE;
	}
	devinfo = sd_dev_devinfo(dev);
	if (!has_any_family(sd_devinfo_caps(devinfo))) {
		DOCA_LOG_ERR("doca_compress_create: device %s (model %s) has no compress engine; pick a device for "
			     "which one of the doca_compress_cap_task_*_is_supported() functions returns DOCA_SUCCESS",
			     sd_devinfo_pci_addr(devinfo), sd_devinfo_model(devinfo));
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	c = sd_fault_create("compress", "doca_compress_create") ? NULL : calloc(1, sizeof(*c));
	if (c == NULL) {
		DOCA_LOG_ERR("doca_compress_create: out of memory");
		return DOCA_ERROR_NO_MEMORY;
	}
	c->devinfo = devinfo;
	c->caps = sd_devinfo_caps(devinfo);
	c->level = (int)sd_env_u64("SOFTDOCA_COMPRESS_LEVEL", SD_CZ_LEVEL_DEFAULT, 0, SD_CZ_LEVEL_MAX);
	c->eager_checksums = sd_env_choice("SOFTDOCA_COMPRESS_CHECKSUMS", checksum_modes, 2, 1) == 1;
	sd_accel_init(&c->accel, dev, "compress", log_source, compress_may_start);
	sd_dev_get(dev); /* doca_dev_close() -> IN_USE while the context exists */
	*compress = c;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t
doca_compress_destroy(struct doca_compress *compress)
{
	doca_error_t err;

	if (compress == NULL) {
		DOCA_LOG_ERR("doca_compress_destroy: compress is NULL");
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* BAD_STATE unless IDLE (logged by Core). */
	err = sd_accel_fini(&compress->accel, "doca_compress_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	sd_dev_put(sd_ctx_dev(&compress->accel.ctx));
	free(compress);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_ctx *
doca_compress_as_ctx(struct doca_compress *compress)
{
	if (compress == NULL) {
		DOCA_LOG_ERR("doca_compress_as_ctx: compress is NULL");
		return NULL;
	}
	return &compress->accel.ctx;
}

DOCA_EXPERIMENTAL doca_error_t
doca_compress_cap_get_max_num_tasks(struct doca_compress *compress, uint32_t *max_num_tasks)
{
	if (compress == NULL || max_num_tasks == NULL) {
		DOCA_LOG_ERR("doca_compress_cap_get_max_num_tasks: NULL argument (compress %p, max_num_tasks %p)",
			     (void *)compress, (void *)max_num_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*max_num_tasks = compress->caps->compress_max_num_tasks;
	return DOCA_SUCCESS;
}

/* --- capabilities ------------------------------------------------------------------------ */

static doca_error_t
cap_supported(const struct doca_devinfo *devinfo, enum sd_compress_family family)
{
	if (devinfo == NULL) {
		DOCA_LOG_ERR("%s: devinfo is NULL", sd_compress_families[family].supported);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* An expected answer for device filters: not logged as an error. */
	return sd_compress_families[family].is_supported(sd_devinfo_caps(devinfo)) ? DOCA_SUCCESS
										   : DOCA_ERROR_NOT_SUPPORTED;
}

static doca_error_t
cap_max_buf_size(const struct doca_devinfo *devinfo, enum sd_compress_family family, uint64_t *size, const char *api)
{
	const struct sd_compress_family_desc *d = &sd_compress_families[family];

	if (devinfo == NULL || size == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, max_buffer_size %p)", api, (const void *)devinfo,
			     (void *)size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!d->is_supported(sd_devinfo_caps(devinfo))) {
		DOCA_LOG_ERR("%s: device %s (model %s) has no %s task; check %s() first", api,
			     sd_devinfo_pci_addr(devinfo), sd_devinfo_model(devinfo), d->name, d->supported);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*size = d->max_buf_size(sd_devinfo_caps(devinfo));
	return DOCA_SUCCESS;
}

static doca_error_t
cap_max_list_len(const struct doca_devinfo *devinfo, uint32_t *len, const char *api)
{
	if (devinfo == NULL || len == NULL) {
		DOCA_LOG_ERR("%s: NULL argument (devinfo %p, max_buf_list_len %p)", api, (const void *)devinfo,
			     (void *)len);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*len = sd_devinfo_caps(devinfo)->compress_max_buf_list_len;
	return DOCA_SUCCESS;
}

/* The three capability calls of one family. */
#define SD_COMPRESS_CAPS(fam, family)                                                                                  \
	DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_##fam##_is_supported(const struct doca_devinfo *devinfo) \
	{                                                                                                              \
		return cap_supported(devinfo, family);                                                                 \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_##fam##_get_max_buf_size(                                \
		const struct doca_devinfo *devinfo, uint64_t *max_buffer_size)                                         \
	{                                                                                                              \
		return cap_max_buf_size(devinfo, family, max_buffer_size,                                              \
					"doca_compress_cap_task_" #fam "_get_max_buf_size");                           \
	}                                                                                                              \
	DOCA_EXPERIMENTAL doca_error_t doca_compress_cap_task_##fam##_get_max_buf_list_len(                            \
		const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)                                        \
	{                                                                                                              \
		return cap_max_list_len(devinfo, max_buf_list_len,                                                     \
					"doca_compress_cap_task_" #fam "_get_max_buf_list_len");                       \
	}

SD_COMPRESS_CAPS(compress_deflate, SD_COMPRESS_DEFLATE)
SD_COMPRESS_CAPS(decompress_deflate, SD_DECOMPRESS_DEFLATE)
SD_COMPRESS_CAPS(decompress_lz4_stream, SD_DECOMPRESS_LZ4_STREAM)
SD_COMPRESS_CAPS(decompress_lz4_block, SD_DECOMPRESS_LZ4_BLOCK)

/* --- set_conf and alloc_init ------------------------------------------------------------------ */

doca_error_t
sd_compress_set_conf(struct doca_compress *compress, enum sd_compress_family family, doca_task_completion_cb_t ok_cb,
		     doca_task_completion_cb_t err_cb, uint32_t num_tasks, const char *api)
{
	const struct sd_compress_family_desc *d = &sd_compress_families[family];
	uint32_t others = 0, max;

	if (compress == NULL) {
		DOCA_LOG_ERR("%s: compress is NULL", api);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (!d->is_supported(compress->caps)) {
		DOCA_LOG_ERR("%s: device %s (model %s) has no %s task; pick a device for which %s() returns "
			     "DOCA_SUCCESS",
			     api, sd_devinfo_pci_addr(compress->devinfo), sd_devinfo_model(compress->devinfo), d->name,
			     d->supported);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	/* The limit is on every family's pool together. */
	for (int f = 0; f < SD_COMPRESS_NUM_FAMILIES; f++)
		if (f != (int)family && compress->pools[f] != NULL)
			others += sd_task_pool_size(compress->pools[f]);
	max = compress->caps->compress_max_num_tasks;
	if (others >= max || num_tasks > max - others) {
		DOCA_LOG_ERR("%s: %u %s tasks and the %u of the context's other task types exceed "
			     "doca_compress_cap_get_max_num_tasks() (%u); lower num_tasks",
			     api, num_tasks, d->name, others, max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return sd_task_pool_configure(&compress->accel.ctx, &compress->pools[family], d->name, d->task_size, num_tasks,
				      max - others, ok_cb, err_cb, api);
}

doca_error_t
sd_compress_alloc(struct doca_compress *compress, enum sd_compress_family family, const struct doca_buf *src,
		  struct doca_buf *dst, union doca_data user_data, const char *api, struct sd_compress_task **task)
{
	struct doca_task *base;
	struct sd_compress_task *t;
	doca_error_t err;

	if (sd_unlikely(compress == NULL || task == NULL)) {
		DOCA_LOG_ERR("%s: NULL argument (compress %p, task %p)", api, (void *)compress, (void *)task);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (sd_unlikely(sd_ctx_state(&compress->accel.ctx) != DOCA_CTX_STATE_RUNNING)) {
		DOCA_LOG_ERR("%s: the compress context is not running; allocate tasks after doca_ctx_start()", api);
		return DOCA_ERROR_BAD_STATE;
	}
	/* BAD_STATE when the family is not configured, NO_MEMORY when its pool is empty (logged by Core). */
	err = sd_task_alloc(compress->pools[family], user_data, api, &base);
	if (err != DOCA_SUCCESS)
		return err;
	t = (struct sd_compress_task *)base;
	sd_accel_task_init(&t->base, &compress->accel, &sd_compress_kinds[family]);
	t->family = family;
	t->src = src;
	t->dst = dst;
	t->layout = (struct sd_cz_lz4_layout){false, false};
	t->crc = t->adler = t->xxh = 0;
	t->crc_ready = t->second_ready = true; /* 0 until a success */
	t->out = NULL;
	*task = t;
	return DOCA_SUCCESS;
}
