/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA Copy: copy a file between a host process and a DPU process.  The two sides
 * agree over Comch (direction, size, the host's exported memory, the result) and
 * the DPU side moves the bytes with one DMA memcpy task.  The side holding the
 * file sends it; the other side creates it, only after a successful copy.
 */
#ifndef DMA_COPY_CORE_H_
#define DMA_COPY_CORE_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

#define DMA_COPY_MAX_FILE_NAME 128 /* -f, NUL included */
#define DMA_COPY_SERVER_NAME "dma copy server"
#define DMA_COPY_NUM_SEND_TASKS 1024

struct dma_copy_cfg {
	char file_path[DMA_COPY_MAX_FILE_NAME];	      /* -f */
	char comch_pci[DOCA_DEVINFO_PCI_ADDR_SIZE];   /* -p */
	char rep_pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE]; /* -r (DPU) */
	bool is_dpu;
};

/*
 * Messages over Comch.  type is a native 32-bit value; 64-bit fields travel
 * big-endian.  An export descriptor message is the 24-byte header followed by
 * export_desc_len descriptor bytes.
 */
enum comch_msg_type {
	COMCH_MSG_DIRECTION = 1,
	COMCH_MSG_EXPORT_DESCRIPTOR = 2,
	COMCH_MSG_STATUS = 3,
};

struct comch_msg_dma_direction {
	enum comch_msg_type type;
	bool file_in_host;  /* the host holds the file (host -> DPU copy) */
	uint64_t file_size; /* big-endian; the holder's file size */
};

struct comch_msg_dma_export_discriptor {
	enum comch_msg_type type;
	uint64_t host_addr;	  /* big-endian; start of the exported buffer */
	uint64_t export_desc_len; /* big-endian */
	uint8_t exported_mmap[];
};

struct comch_msg_dma_status {
	enum comch_msg_type type;
	bool is_success;
};

_Static_assert(sizeof(struct comch_msg_dma_direction) == 16, "direction message is 16 bytes");
_Static_assert(sizeof(struct comch_msg_dma_export_discriptor) == 24, "descriptor header is 24 bytes");
_Static_assert(sizeof(struct comch_msg_dma_status) == 8, "status message is 8 bytes");

/* The two roles; each returns SUCCESS only when the file was copied. */
doca_error_t dma_copy_host(const struct dma_copy_cfg *cfg);
doca_error_t dma_copy_dpu(const struct dma_copy_cfg *cfg);

/* --- dma_copy_file.c: the file on each side --- */

/* A file mapped for the copy: the source (read-only) or the destination (created unnamed). */
struct dma_copy_file {
	int fd;
	void *addr; /* NULL for a 0-byte file */
	uint64_t size;
	bool is_dest;
	bool in_file;				    /* destination: addr maps the file itself (no write at commit) */
	char tmp_path[DMA_COPY_MAX_FILE_NAME + 16]; /* fallback when O_TMPFILE is unavailable */
};

/* The peer's last message, waiting for the main loop (dma_copy_msg.c). */
struct dma_copy_inbox {
	const char *peer; /* "host" or "DPU", for log lines */
	uint8_t msg[4096];
	uint32_t len;
	bool full;   /* a message waits: the handler clears it */
	bool broken; /* one too long, or one more before the last was taken */
};

struct comch_channel;

/* The Comch receive callback (cb_arg: the inbox): keep msg for the main loop. */
void dma_copy_inbox_recv(void *inbox, const uint8_t *msg, uint32_t len);
/*
 * The main loop of either side: hand each message to handle(st) until *done
 * (SUCCESS), the peer breaks the protocol (UNEXPECTED) or the connection
 * drops (CONNECTION_ABORTED, logged: "Failure was detected in dma copy: lost").
 */
doca_error_t dma_copy_serve(struct comch_channel *ch, struct dma_copy_inbox *in, void (*handle)(void *st), void *st,
			    const bool *done, const char *lost);
/* Send STATUS{ok} to the peer; a failure to send is logged. */
void dma_copy_send_status(struct comch_channel *ch, const struct dma_copy_inbox *in, bool ok);

/* Is path a readable regular file here?  Sets *size. */
bool dma_copy_file_present(const char *path, uint64_t *size);
/* Map the source file read-only. */
doca_error_t dma_copy_file_open_src(const char *path, struct dma_copy_file *f);
/* Create an unnamed file of size bytes in path's directory and map it writable. */
doca_error_t dma_copy_file_open_dst(const char *path, uint64_t size, struct dma_copy_file *f);
/* Give the destination its name (after a successful copy). */
doca_error_t dma_copy_file_commit(struct dma_copy_file *f, const char *path);
/* Unmap and close; a destination never committed disappears. */
void dma_copy_file_close(struct dma_copy_file *f);

/* The largest file one DMA task copies on dev. */
doca_error_t dma_copy_max_size(struct doca_dev *dev, uint64_t *max);
/* Open the first device that can DMA and export (host) / import (DPU) PCI memory. */
doca_error_t dma_copy_open_dma_dev(bool dpu, struct doca_dev **dev);

#endif /* DMA_COPY_CORE_H_ */
