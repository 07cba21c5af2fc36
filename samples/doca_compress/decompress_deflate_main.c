/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_decompress_deflate: decompress a raw DEFLATE file with DOCA Compress.
 * Flags: -p -f -o -c -wf (docs/compress.md "Samples").  With -wf the input is
 * in the zlib format: its header is checked and its Adler-32 trailer compared
 * with the task's.
 */
#include <doca_log.h>

#include "compress_common.h"

DOCA_LOG_REGISTER(DECOMPRESS_DEFLATE);

/* -wf: the header is valid; the stream lies between it and the trailer. */
static doca_error_t
unframe(uint8_t **data, size_t *size, uint32_t *adler)
{
	const uint8_t *t;

	if (*size < ZLIB_HEADER_SIZE + ZLIB_TRAILER_SIZE) {
		DOCA_LOG_ERR("Failed to verify Zlib header: %zu bytes are too few for a zlib frame", *size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (compress_verify_zlib_header(*data) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	t = *data + *size - ZLIB_TRAILER_SIZE;
	*adler = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
	*data += ZLIB_HEADER_SIZE;
	*size -= ZLIB_HEADER_SIZE + ZLIB_TRAILER_SIZE;
	return DOCA_SUCCESS;
}

/* The task's Adler against the trailer (-wf), then the file. */
static doca_error_t
finish(const struct compress_cfg *cfg, FILE *out, const struct compress_resources *res, uint8_t *dst, size_t len,
       void *arg)
{
	uint32_t adler = *(const uint32_t *)arg;

	if (cfg->is_with_frame && res->second != adler) {
		DOCA_LOG_ERR("The given Adler checksum=%u doesn't match the calculated checksum=%u", adler,
			     res->second);
		return DOCA_ERROR_UNEXPECTED;
	}
	return compress_save(cfg, out, res, dst, len, "decompressed");
}

static doca_error_t
decompress_file(struct compress_cfg *cfg, uint8_t *file, size_t size)
{
	uint32_t adler = 0;
	struct compress_job job = {
		.mode = COMPRESS_MODE_DECOMPRESS_DEFLATE,
		.map = file,
		.data = file,
		.map_len = size,
		.data_len = size,
		.finish = finish,
		.arg = &adler,
	};

	if (cfg->is_with_frame && unframe(&job.data, &job.data_len, &adler) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	return compress_run_job(cfg, &job);
}

int
main(int argc, char **argv)
{
	return compress_sample_main(COMPRESS_MODE_DECOMPRESS_DEFLATE, "doca_decompress_deflate", argc, argv,
				    decompress_file);
}
