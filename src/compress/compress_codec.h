/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work of the compress engine on flat byte ranges, with no DOCA object:
 * raw DEFLATE both ways (libdeflate), LZ4 blocks and the block sequence of an
 * LZ4 frame (liblz4), and the checksums (libdeflate's CRC-32 and Adler-32,
 * which are zlib's; libxxhash's XXH32).  Every function here may run on any
 * thread at once (a worker's compressor is its own) and never writes outside
 * [dst, dst + cap).  The fuzz targets (tests/fuzz/compress) compile this file
 * alone.
 */
#ifndef SD_COMPRESS_CODEC_H_
#define SD_COMPRESS_CODEC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why the data made a task fail; the values its line shows are in struct sd_cz_fault. */
enum sd_cz_status {
	SD_CZ_OK,
	SD_CZ_NO_ROOM,		/* the output does not fit: a: room (bytes) */
	SD_CZ_DEFLATE_CORRUPT,	/* not a raw DEFLATE stream, or cut short: a: source bytes */
	SD_CZ_LZ4_TRUNCATED,	/* a: block index, b: its offset, c: bytes it needs past the end */
	SD_CZ_LZ4_CORRUPT,	/* a: block index, b: its offset */
	SD_CZ_LZ4_BAD_CHECKSUM, /* a: block index, b: the checksum found, c: its offset */
	SD_CZ_LZ4_AFTER_END,	/* a: offset of the end mark, b: bytes after it */
	SD_CZ_NO_MEMORY,	/* a: bytes that could not be allocated */
};

struct sd_cz_fault {
	enum sd_cz_status status;
	uint64_t a, b, c;
};

/* How an LZ4 block sequence is laid out (the stream task's two flags). */
struct sd_cz_lz4_layout {
	bool has_block_checksum;
	bool blocks_independent;
};

/*
 * Each call: src[0, n) -> dst[0, cap), *out the bytes written on success.
 * SD_CZ_OK, or the fault (f says which values).  limit is the most output the
 * task may produce whatever the room (the device's max_buf_size); when an LZ4
 * block fails with less room than that, it is decoded once more into scratch
 * memory to tell "no room" from "corrupt".
 */
enum sd_cz_status sd_cz_deflate(int level, const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out,
				struct sd_cz_fault *f);
enum sd_cz_status sd_cz_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out,
				struct sd_cz_fault *f);
enum sd_cz_status sd_cz_lz4_block(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, uint64_t limit, size_t *out,
				  struct sd_cz_fault *f);
enum sd_cz_status sd_cz_lz4_stream(const uint8_t *src, size_t n, struct sd_cz_lz4_layout layout, uint8_t *dst,
				   size_t cap, uint64_t limit, size_t *out, struct sd_cz_fault *f);

/* zlib's crc32(0, p, n) and adler32(1, p, n). */
uint32_t sd_cz_crc32(const uint8_t *p, size_t n);
uint32_t sd_cz_adler32(const uint8_t *p, size_t n);
/* XXH32(p, n, 0) as DOCA reports it (byte-swapped: doca_compress.h "Checksums"). */
uint32_t sd_cz_xxh32_doca(const uint8_t *p, size_t n);

/* The compression level: SOFTDOCA_COMPRESS_LEVEL is read by the library (0..12, libdeflate's). */
#define SD_CZ_LEVEL_DEFAULT 6
#define SD_CZ_LEVEL_MAX 12

#endif /* SD_COMPRESS_CODEC_H_ */
