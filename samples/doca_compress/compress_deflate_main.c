/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_compress_deflate: compress a file with DOCA Compress (raw DEFLATE).
 * Flags: -p -f -o -c -wf (docs/compress.md "Samples").  With -wf the output is
 * in the zlib format: the 2-byte header, the stream, the big-endian Adler-32
 * of the input, so that zlib reads it.
 */
#include <doca_log.h>

#include "compress_common.h"

DOCA_LOG_REGISTER(COMPRESS_DEFLATE);

/* The stream is at dst + 2 with -wf: the header before it, the trailer after it. */
static doca_error_t
write_output(const struct compress_cfg *cfg, FILE *out, const struct compress_resources *res, uint8_t *dst, size_t len,
	     void *arg)
{
	(void)arg;
	if (!cfg->is_with_frame)
		return compress_save(cfg, out, res, dst, len, "compressed");
	compress_zlib_header(dst);
	for (int i = 0; i < 4; i++)
		dst[ZLIB_HEADER_SIZE + len + (size_t)i] = (uint8_t)(res->second >> (24 - 8 * i));
	return compress_save(cfg, out, res, dst, ZLIB_HEADER_SIZE + len + ZLIB_TRAILER_SIZE, "compressed");
}

static doca_error_t
compress_file(struct compress_cfg *cfg, uint8_t *file, size_t size)
{
	struct compress_job job = {
		.mode = COMPRESS_MODE_COMPRESS_DEFLATE,
		.map = file,
		.data = file,
		.map_len = size,
		.data_len = size,
		.dst_offset = cfg->is_with_frame ? ZLIB_HEADER_SIZE : 0,
		.dst_extra = ZLIB_TRAILER_SIZE,
		.finish = write_output,
	};

	return compress_run_job(cfg, &job);
}

int
main(int argc, char **argv)
{
	return compress_sample_main(COMPRESS_MODE_COMPRESS_DEFLATE, "doca_compress_deflate", argc, argv, compress_file);
}
