/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA's File Compression application (docs/compress.md "File Compression"):
 * the host client compresses a file (DOCA Compress, or zlib when its device
 * cannot compress) and sends it over Comch to the DPU server, which
 * decompresses it with DOCA Compress, checks the checksum and writes the file.
 *
 * The wire, in order: the client's header {u64 checksum, u32 segment count},
 * both big-endian, packed (12 bytes); the compressed bytes in that many
 * messages of at most the channel's message size; the server's reply, the
 * string "Server was done receiving messages" with its NUL.  The checksum is
 * (Adler-32 << 32) | CRC-32 of the file, zlib's functions.
 */
#ifndef FILE_COMPRESSION_CORE_H_
#define FILE_COMPRESSION_CORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

#define FC_SERVER_NAME "file_compression_server"
#define FC_MAX_PATH 4096
#define FC_SW_MAX_FILE_SIZE (128u * 1024u * 1024u) /* the zlib path's limit */
#define FC_DONE_MSG "Server was done receiving messages"
#define FC_HEADER_LEN 12

struct fc_cfg {
	char file_path[FC_MAX_PATH];		      /* -f: the client's input, the server's output */
	char comch_pci[DOCA_DEVINFO_PCI_ADDR_SIZE];   /* -p */
	char rep_pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r (server) */
	int timeout_sec;			      /* -t */
	bool is_server;				      /* the DPU build */
};

doca_error_t fc_client_run(const struct fc_cfg *cfg);
doca_error_t fc_server_run(const struct fc_cfg *cfg);

/*
 * One DOCA Compress task on dev (compress deflate, or decompress deflate):
 * src[0, n) -> dst[0, cap), *out the bytes produced, *checksum as above.  The
 * context lives for the task only (file_compression_engine.c).
 */
doca_error_t fc_engine_run(struct doca_dev *dev, bool compress, uint8_t *src, size_t n, uint8_t *dst, size_t cap,
			   size_t *out, uint64_t *checksum);

/* The client's fallback: zlib's raw DEFLATE (interchangeable with the engine's) and its checksums. */
doca_error_t fc_zlib_compress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out, uint64_t *checksum);

#endif /* FILE_COMPRESSION_CORE_H_ */
