/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What DOCA's three compress samples share (docs/compress.md "Samples"): the
 * flags, main(), the compress context with its callbacks on a device chosen by
 * PCI address and task capability, one task submitted and progressed until the
 * context stops, the zlib framing of -wf for deflate and the LZ4 frame reader
 * of -wf for the LZ4 stream sample.  Only the public DOCA API is used.
 */
#ifndef COMPRESS_COMMON_H_
#define COMPRESS_COMMON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_compress.h>
#include <doca_dev.h>
#include <doca_error.h>

#include "common.h"

#define COMPRESS_MAX_FILE_NAME 256
#define ZLIB_HEADER_SIZE 2
#define ZLIB_TRAILER_SIZE 4

/* Which sample this is: its flags, defaults and task. */
enum compress_mode {
	COMPRESS_MODE_COMPRESS_DEFLATE,
	COMPRESS_MODE_DECOMPRESS_DEFLATE,
	COMPRESS_MODE_DECOMPRESS_LZ4_STREAM,
};

struct compress_cfg {
	char file_path[COMPRESS_MAX_FILE_NAME];	      /* -f */
	char output_path[COMPRESS_MAX_FILE_NAME];     /* -o */
	char pci_address[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* -p */
	enum compress_mode mode;
	bool is_with_frame;	     /* -wf: zlib (deflate) or LZ4 frame format */
	bool has_block_checksum;     /* -bc (LZ4, without -wf) */
	bool are_blocks_independent; /* -bi (LZ4, without -wf) */
	bool output_checksum;	     /* -c */
};

/* The context, its Core objects and the state of the one task in flight. */
struct compress_resources {
	struct program_core_objects state;
	struct doca_compress *compress;
	size_t num_remaining_tasks;
	bool run_pe_progress; /* cleared by the state callback on IDLE */
	doca_error_t task_result;
	uint32_t crc, second; /* Adler (deflate) or xxHash (LZ4) of the finished task */
};

/*
 * main() of a compress sample: defaults of mode, logging, "Starting the
 * sample", the flags, run(cfg, file bytes, file size) on the whole input file,
 * and the final line.  Returns the exit status.
 */
int compress_sample_main(enum compress_mode mode, const char *name, int argc, char **argv,
			 doca_error_t (*run)(struct compress_cfg *cfg, uint8_t *file, size_t size));

/* The zlib header DOCA's deflate samples write (78 9C) and its check on input. */
void compress_zlib_header(uint8_t hdr[ZLIB_HEADER_SIZE]);
doca_error_t compress_verify_zlib_header(const uint8_t hdr[ZLIB_HEADER_SIZE]);

/* What the LZ4 frame header says (-wf of the LZ4 stream sample). */
struct lz4_frame_info {
	size_t data_offset, data_len; /* the blocks, without end mark and content checksum */
	bool has_block_checksum, are_blocks_independent;
	bool has_content_size, has_content_checksum;
	uint64_t content_size;
	uint32_t content_checksum; /* as stored (little-endian value) */
};

/* Read an LZ4 frame of len bytes; NOT_SUPPORTED for a dictionary, INVALID_VALUE for a malformed frame. */
doca_error_t parse_lz4_frame(const uint8_t *frame, size_t len, struct lz4_frame_info *info);

/*
 * One sample's run: open the output file (before the device, as DOCA's do),
 * the resources, the size check against max_buf_size, the destination
 * (max_buf_size bytes at dst_offset of a buffer with dst_extra more), start,
 * the task over [data, data + data_len) of the mapped [map, map + map_len),
 * then finish(len bytes of output at dst_buf + dst_offset), and the cleanup.
 */
struct compress_job {
	enum compress_mode mode;
	uint8_t *map, *data;
	size_t map_len, data_len;
	size_t dst_offset, dst_extra;
	bool has_block_checksum, are_blocks_independent;
	doca_error_t (*finish)(const struct compress_cfg *cfg, FILE *out, const struct compress_resources *res,
			       uint8_t *dst_buf, size_t len, void *arg);
	void *arg;
};

doca_error_t compress_run_job(const struct compress_cfg *cfg, const struct compress_job *job);

/*
 * The end of a sample: len bytes to the output file, "File was <done>
 * successfully and saved in: <path>", and with -c the checksum line(s) of mode.
 */
doca_error_t compress_save(const struct compress_cfg *cfg, FILE *out, const struct compress_resources *res,
			   const uint8_t *data, size_t len, const char *done);

#endif /* COMPRESS_COMMON_H_ */
