/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_compress inside: the context (compress.c) and its four task families
 * (compress_task.c, compress_task_api.c) on Core's engine context
 * (accel_internal.h), the work itself in compress_codec.c.
 *
 * Threads: the families' check and every public call run on the PE's thread;
 * run runs on an engine worker or inside doca_pe_progress() and reads only its
 * task, the task's buffers and what is fixed once the context exists (caps,
 * level).
 */
#ifndef SD_COMPRESS_INTERNAL_H_
#define SD_COMPRESS_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_compress.h>

#include "../core/sd_core.h"
#include "compress_codec.h"

/* The task families, in doca_compress.h's order. */
enum sd_compress_family {
	SD_COMPRESS_DEFLATE,
	SD_DECOMPRESS_DEFLATE,
	SD_DECOMPRESS_LZ4_STREAM,
	SD_DECOMPRESS_LZ4_BLOCK,
	SD_COMPRESS_NUM_FAMILIES,
};

struct doca_compress {
	struct sd_accel accel;		/* first: doca_compress_as_ctx() */
	const struct sd_dev_caps *caps; /* the device's, read-only */
	const struct doca_devinfo *devinfo;
	struct sd_task_pool *pools[SD_COMPRESS_NUM_FAMILIES];
	int level;	      /* SOFTDOCA_COMPRESS_LEVEL at create */
	bool eager_checksums; /* SOFTDOCA_COMPRESS_CHECKSUMS=eager at create */
};

/* What every family's task holds; the public task types wrap it. */
struct sd_compress_task {
	struct sd_accel_task base; /* first: *_as_task() */
	enum sd_compress_family family;
	const struct doca_buf *src;
	struct doca_buf *dst;
	struct sd_cz_lz4_layout layout; /* the LZ4 stream task's flags */
	/*
	 * The checksums, valid after a success.  A decompress task whose output went
	 * to one segment computes them when first asked for, from the output where it
	 * was written (out, out_len): a program that reads no checksum does not pay
	 * for it (docs/compress.md "Checksums").  Otherwise run computes them.
	 */
	uint32_t crc, adler, xxh;
	bool crc_ready, second_ready;
	const uint8_t *out;
	size_t out_len;
};

/* The task's CRC-32, and its Adler-32 or xxHash (the family's), computed now if not yet. */
uint32_t sd_compress_task_crc(struct sd_compress_task *t);
uint32_t sd_compress_task_second(struct sd_compress_task *t);

/* The families' names and capabilities (compress.c). */
struct sd_compress_family_desc {
	const char *name;      /* "compress deflate": log lines */
	const char *supported; /* "doca_compress_cap_task_compress_deflate_is_supported" */
	bool (*is_supported)(const struct sd_dev_caps *caps);
	uint64_t (*max_buf_size)(const struct sd_dev_caps *caps);
	size_t task_size; /* sizeof the public task struct */
};

extern const struct sd_compress_family_desc sd_compress_families[SD_COMPRESS_NUM_FAMILIES];
/* The accel kind of each family (compress_task.c). */
extern const struct sd_accel_kind sd_compress_kinds[SD_COMPRESS_NUM_FAMILIES];

/* *_set_conf of family: refusals logged with api. */
doca_error_t sd_compress_set_conf(struct doca_compress *compress, enum sd_compress_family family,
				  doca_task_completion_cb_t ok_cb, doca_task_completion_cb_t err_cb, uint32_t num_tasks,
				  const char *api);

/* *_alloc_init of family: a task with src, dst and user data set (LZ4 flags cleared). */
doca_error_t sd_compress_alloc(struct doca_compress *compress, enum sd_compress_family family,
			       const struct doca_buf *src, struct doca_buf *dst, union doca_data user_data,
			       const char *api, struct sd_compress_task **task);

#endif /* SD_COMPRESS_INTERNAL_H_ */
