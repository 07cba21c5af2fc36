/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_decompress_lz4_stream: decompress LZ4 data with DOCA Compress's LZ4
 * stream task.  Flags: -p -f -o -c -wf -bc -bi (docs/compress.md "Samples").
 * Without -wf the file is the block sequence itself, laid out as -bc and -bi
 * say; with -wf it is an LZ4 frame (what the lz4 tool writes): its header
 * gives the layout, and its content checksum and content size are checked.
 */
#include <endian.h>

#include <doca_log.h>

#include "compress_common.h"

DOCA_LOG_REGISTER(DECOMPRESS_LZ4_STREAM);

/* The frame's checks on the output (-wf), then the file. */
static doca_error_t
finish(const struct compress_cfg *cfg, FILE *out, const struct compress_resources *res, uint8_t *dst, size_t len,
       void *arg)
{
	const struct lz4_frame_info *fr = arg;

	if (cfg->is_with_frame && fr->has_content_checksum && htobe32(fr->content_checksum) != res->second) {
		DOCA_LOG_ERR("Decompress task failed: output checksum %x, doesn't match expected=%x", res->second,
			     htobe32(fr->content_checksum));
		return DOCA_ERROR_UNEXPECTED;
	}
	if (cfg->is_with_frame && fr->has_content_size && fr->content_size != len) {
		DOCA_LOG_ERR("Decompress task failed: %zu bytes of output, the frame's content size is %lu", len,
			     (unsigned long)fr->content_size);
		return DOCA_ERROR_UNEXPECTED;
	}
	return compress_save(cfg, out, res, dst, len, "decompressed");
}

static doca_error_t
decompress_file(struct compress_cfg *cfg, uint8_t *file, size_t size)
{
	struct lz4_frame_info fr = {0};
	struct compress_job job = {
		.mode = COMPRESS_MODE_DECOMPRESS_LZ4_STREAM,
		.map = file,
		.data = file,
		.map_len = size,
		.data_len = size,
		.has_block_checksum = cfg->has_block_checksum,
		.are_blocks_independent = cfg->are_blocks_independent,
		.finish = finish,
		.arg = &fr,
	};
	doca_error_t r;

	if (cfg->is_with_frame) {
		/* the frame's FLG byte overrides -bc and -bi */
		r = parse_lz4_frame(file, size, &fr);
		if (r != DOCA_SUCCESS)
			return r;
		job.data = file + fr.data_offset;
		job.data_len = fr.data_len;
		job.has_block_checksum = fr.has_block_checksum;
		job.are_blocks_independent = fr.are_blocks_independent;
	}
	return compress_run_job(cfg, &job);
}

int
main(int argc, char **argv)
{
	return compress_sample_main(COMPRESS_MODE_DECOMPRESS_LZ4_STREAM, "doca_decompress_lz4_stream", argc, argv,
				    decompress_file);
}
