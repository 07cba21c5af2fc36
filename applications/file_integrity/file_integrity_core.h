/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File Integrity: the host (client) hashes a file with DOCA SHA and sends its
 * SHA-256 and then its bytes over DOCA Comch to the DPU (server), which hashes
 * the chunks as they arrive (a partial hash session; one hash task for a file
 * of one chunk), writes them to its own -f file, and compares the two digests:
 * "SUCCESS: file SHA is identical to received SHA", or "ERROR: SHA is not
 * identical, file was compromised" and the written file is deleted.  The
 * server then tells the client it is done.  Both exit 0 either way.
 *
 * The wire: the first message is struct fi_metadata_msg (the number of chunks,
 * big-endian, then the client's digest); each following message is one chunk,
 * the largest multiple of the partial hash block size a Comch message holds
 * (the last chunk: what is left); the server's last message is a text line.
 */
#ifndef FILE_INTEGRITY_CORE_H_
#define FILE_INTEGRITY_CORE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_sha.h>

#include "common.h"

#define FI_SERVER_NAME "file_integrity_server"
#define FI_MAX_FILE_NAME 255
#define FI_DEFAULT_TIMEOUT 10 /* -t: seconds without a file message */
#define FI_SHA_ALGORITHM DOCA_SHA_ALGORITHM_SHA256
#define FI_FINISH_MSG "Server was done receiving messages" /* sent with its NUL */

struct fi_cfg {
	char file_path[FI_MAX_FILE_NAME + 1];	      /* -f */
	char comch_pci[DOCA_DEVINFO_PCI_ADDR_SIZE];   /* -p */
	char rep_pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r (DPU) */
	int timeout;				      /* -t, seconds */
	bool is_dpu;
};

struct fi_metadata_msg {
	uint32_t total_file_chunks; /* network byte order */
	uint8_t sha_data[];	    /* the client's digest */
};

/* Run this side to the end (client on the host, server on the DPU). */
doca_error_t fi_client(const struct fi_cfg *cfg);
doca_error_t fi_server(const struct fi_cfg *cfg);

/* --- file_integrity_sha.c: the SHA side of both ------------------------------------------ */

/* A SHA context on the first device that can run partial SHA-256 hashes, its Core objects and tasks. */
struct fi_sha {
	struct program_core_objects state;
	struct doca_sha *sha;
	struct doca_buf *dst;			    /* the digest, data_len 0 until a final task */
	struct doca_sha_task_hash *hash;	    /* server: for a 1-chunk file */
	struct doca_sha_task_partial_hash *partial; /* server: for the others */
	size_t active;				    /* tasks submitted, callbacks not yet run */
	doca_error_t result;			    /* of the last task */
	uint32_t block_size, digest_len;
	uint64_t max_src;
};

/* Open the device, create the context, configure hash (and, server, partial hash) tasks. */
doca_error_t fi_sha_init(struct fi_sha *s, bool server);

/* The client's digest of [data, data + len) (an mmap of the file, which the src mmap unmaps). */
doca_error_t fi_sha_hash_file(struct fi_sha *s, void *data, size_t len);

/*
 * Server: start the context and allocate the two tasks over one source buffer of
 * src_cap bytes (returned in *src_data) and the destination.
 */
doca_error_t fi_sha_server_start(struct fi_sha *s, size_t src_cap, uint8_t **src_data);

/* Server: hash the chunk already in *src_data (len bytes): first, middle or last of total. */
doca_error_t fi_sha_server_chunk(struct fi_sha *s, size_t len, uint32_t index, uint32_t total);

/* The digest (data_len bytes of the destination) as "SHA256 output is: <hex>"; *digest points at it. */
doca_error_t fi_sha_print(struct fi_sha *s, const uint8_t **digest, size_t *len);

/* Free the tasks, stop and destroy the context and the Core objects. */
void fi_sha_cleanup(struct fi_sha *s);

#endif /* FILE_INTEGRITY_CORE_H_ */
