/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File Compression, both sides (file_compression_core.h): the host client
 * reads, compresses and sends the file, then waits for the server's reply; the
 * DPU server collects the segments, decompresses, compares the checksum,
 * writes the file, replies and waits for the client to leave (the host leaves
 * first, so the connection never ends under a message on its way).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_compress.h>
#include <doca_log.h>

#include "comch_utils.h"
#include "common.h"
#include "file_compression_core.h"

DOCA_LOG_REGISTER(FILE_COMPRESSION::CORE);

/* The most a DEFLATE stream expands to (zlib's bound on the ratio). */
#define FC_MAX_RATIO 1032u

/* What a side learnt from the other over Comch. */
struct fc_state {
	const struct fc_cfg *cfg;
	struct comch_channel *ch;
	/* server */
	bool have_header, complete, failed;
	uint64_t checksum;
	uint32_t num_segs, segs_seen;
	uint8_t *buf;
	size_t buf_cap, buf_len;
	/* client */
	bool got_reply;
};

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Progress until *flag, the peer left (NOT_CONNECTED) or the timeout passed (TIME_OUT). */
static doca_error_t
wait_for(struct fc_state *st, const bool *flag, const char *what)
{
	double deadline = now_sec() + st->cfg->timeout_sec;

	while (!*flag && !st->failed) {
		if (!comch_channel_connected(st->ch)) {
			DOCA_LOG_ERR("The other side left before %s", what);
			return DOCA_ERROR_NOT_CONNECTED;
		}
		if (now_sec() > deadline) {
			DOCA_LOG_ERR("No %s within %d seconds (-t)", what, st->cfg->timeout_sec);
			return DOCA_ERROR_TIME_OUT;
		}
		if (comch_channel_progress(st->ch) == 0)
			usleep(10);
	}
	return st->failed ? DOCA_ERROR_INVALID_VALUE : DOCA_SUCCESS;
}

static doca_error_t
open_channel(struct fc_state *st, comch_channel_recv_cb recv_cb)
{
	struct comch_channel_cfg ccfg = {
		.name = FC_SERVER_NAME,
		.server = st->cfg->is_server,
		.pci_addr = st->cfg->comch_pci,
		.rep_pci_addr = st->cfg->is_server ? st->cfg->rep_pci : NULL,
		.num_send_tasks = 16,
		.recv_cb = recv_cb,
		.cb_arg = st,
	};
	doca_error_t r = comch_channel_create(&ccfg, &st->ch);

	if (r != DOCA_SUCCESS)
		return r;
	r = comch_channel_wait_connected(st->ch, (unsigned)st->cfg->timeout_sec);
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to establish the Comch connection: %s", doca_error_get_descr(r));
	return r;
}

/* --- client -------------------------------------------------------------------------------------- */

static void
client_recv(void *arg, const uint8_t *msg, uint32_t len)
{
	struct fc_state *st = arg;

	DOCA_LOG_INFO("Received message: %.*s", (int)strnlen((const char *)msg, len), (const char *)msg);
	st->got_reply = true;
}

static doca_error_t
read_input(const char *path, uint8_t **data, size_t *size)
{
	doca_error_t r = DOCA_SUCCESS;
	struct stat stbuf;
	ssize_t n = 0;
	int fd = sample_open_regular_file(path, O_RDONLY, 0, "file to send", &stbuf, &r);

	if (fd < 0)
		return r;
	*size = (size_t)stbuf.st_size;
	*data = malloc(*size > 0 ? *size : 1);
	if (*data != NULL)
		for (size_t got = 0; got < *size; got += (size_t)n)
			if ((n = read(fd, *data + got, *size - got)) <= 0)
				break;
	close(fd);
	if (*data == NULL || n < 0 || (*size > 0 && n == 0)) {
		DOCA_LOG_ERR("Failed to read %s", path);
		free(*data);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/* The file compressed on a device that can, else with zlib; *out bytes in *dst (malloc'd). */
static doca_error_t
compress_file(uint8_t *data, size_t size, uint8_t **dst, size_t *out, uint64_t *checksum)
{
	struct doca_dev *dev = NULL;
	uint64_t limit = FC_SW_MAX_FILE_SIZE;
	size_t cap;
	doca_error_t r;

	if (open_doca_device_with_capabilities(doca_compress_cap_task_compress_deflate_is_supported, &dev) !=
	    DOCA_SUCCESS) {
		DOCA_LOG_INFO("Failed to find device for compress task, running SW compress with zlib");
		dev = NULL;
	} else if (doca_compress_cap_task_compress_deflate_get_max_buf_size(doca_dev_as_devinfo(dev), &limit) !=
		   DOCA_SUCCESS) {
		limit = FC_SW_MAX_FILE_SIZE;
	}
	if (size == 0 || size > limit) {
		DOCA_LOG_ERR("Invalid file size: %zu bytes; it must be between 1 and %" PRIu64, size, limit);
		r = DOCA_ERROR_INVALID_VALUE;
		goto close;
	}
	cap = size + 16 > 2 * size ? size + 16 : 2 * size;
	cap = cap > limit ? (size_t)limit : cap;
	*dst = malloc(cap);
	if (*dst == NULL) {
		r = DOCA_ERROR_NO_MEMORY;
		goto close;
	}
	r = dev != NULL ? fc_engine_run(dev, true, data, size, *dst, cap, out, checksum)
			: fc_zlib_compress(data, size, *dst, cap, out, checksum);
close:
	if (dev != NULL)
		(void)doca_dev_close(dev);
	return r;
}

static doca_error_t
send_file(struct fc_state *st, const uint8_t *z, size_t len, uint64_t checksum)
{
	uint32_t max = comch_channel_max_msg_size(st->ch);
	uint32_t segs = (uint32_t)((len + max - 1) / max);
	uint8_t hdr[FC_HEADER_LEN];
	uint64_t be_sum = htobe64(checksum);
	uint32_t be_segs = htobe32(segs);
	doca_error_t r;

	memcpy(hdr, &be_sum, 8);
	memcpy(hdr + 8, &be_segs, 4);
	r = comch_channel_send(st->ch, hdr, sizeof(hdr));
	for (size_t off = 0; r == DOCA_SUCCESS && off < len; off += max)
		r = comch_channel_send(st->ch, z + off, (uint32_t)(len - off < max ? len - off : max));
	if (r != DOCA_SUCCESS)
		DOCA_LOG_ERR("Failed to send the file to the server: %s", doca_error_get_descr(r));
	return r;
}

doca_error_t
fc_client_run(const struct fc_cfg *cfg)
{
	struct fc_state st = {.cfg = cfg};
	uint8_t *data = NULL, *z = NULL;
	size_t size = 0, len = 0;
	uint64_t checksum = 0;
	doca_error_t r = read_input(cfg->file_path, &data, &size);

	if (r != DOCA_SUCCESS)
		return r;
	r = compress_file(data, size, &z, &len, &checksum);
	if (r == DOCA_SUCCESS)
		r = open_channel(&st, client_recv);
	if (r == DOCA_SUCCESS)
		r = send_file(&st, z, len, checksum);
	if (r == DOCA_SUCCESS)
		r = wait_for(&st, &st.got_reply, "the server's reply");
	if (st.ch != NULL)
		(void)comch_channel_destroy(st.ch);
	free(z);
	free(data);
	return r;
}

/* --- server -------------------------------------------------------------------------------------- */

static void
server_recv(void *arg, const uint8_t *msg, uint32_t len)
{
	struct fc_state *st = arg;
	uint64_t sum;
	uint32_t segs;

	if (st->failed || st->complete)
		return;
	if (!st->have_header) {
		if (len != FC_HEADER_LEN) {
			DOCA_LOG_ERR("Unexpected first message of %u bytes from the client (a %d-byte header)", len,
				     FC_HEADER_LEN);
			st->failed = true;
			return;
		}
		memcpy(&sum, msg, 8);
		memcpy(&segs, msg + 8, 4);
		st->checksum = be64toh(sum);
		st->num_segs = be32toh(segs);
		st->have_header = true;
		st->complete = st->num_segs == 0;
		return;
	}
	if (len > st->buf_cap - st->buf_len) {
		DOCA_LOG_ERR("The compressed file exceeds the %zu bytes the device decompresses", st->buf_cap);
		st->failed = true;
		return;
	}
	memcpy(st->buf + st->buf_len, msg, len);
	st->buf_len += len;
	st->complete = ++st->segs_seen == st->num_segs;
}

static doca_error_t
write_output(const char *path, const uint8_t *data, size_t len)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0440);
	size_t done = 0;

	if (fd < 0) {
		DOCA_LOG_ERR("Failed to open %s: %s", path, strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (done != len) {
		DOCA_LOG_ERR("Failed to write %s", path);
		return DOCA_ERROR_IO_FAILED;
	}
	return DOCA_SUCCESS;
}

/* Decompress what arrived, compare the checksum, write the file. */
static doca_error_t
decompress_received(struct fc_state *st, struct doca_dev *dev)
{
	uint64_t max_out = (uint64_t)st->buf_len * FC_MAX_RATIO, sum = 0;
	size_t cap = max_out < st->buf_cap ? (size_t)max_out : st->buf_cap, len = 0;
	uint8_t *out = malloc(cap > 0 ? cap : 1);
	doca_error_t r;

	if (out == NULL)
		return DOCA_ERROR_NO_MEMORY;
	r = fc_engine_run(dev, false, st->buf, st->buf_len, out, cap, &len, &sum);
	if (r == DOCA_SUCCESS && sum != st->checksum) {
		DOCA_LOG_ERR("ERROR: file checksum is different. received: 0x%" PRIx64 ", calculated: 0x%" PRIx64,
			     st->checksum, sum);
		r = DOCA_ERROR_BAD_STATE;
	}
	if (r == DOCA_SUCCESS)
		r = write_output(st->cfg->file_path, out, len);
	if (r == DOCA_SUCCESS)
		DOCA_LOG_INFO("SUCCESS: file was received and decompressed successfully");
	free(out);
	return r;
}

doca_error_t
fc_server_run(const struct fc_cfg *cfg)
{
	struct fc_state st = {.cfg = cfg};
	struct doca_dev *dev = NULL;
	uint64_t max = 0;
	doca_error_t r, sent;

	r = open_doca_device_with_capabilities(doca_compress_cap_task_decompress_deflate_is_supported, &dev);
	if (r != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to find device for decompress task: %s", doca_error_get_descr(r));
		return r;
	}
	r = doca_compress_cap_task_decompress_deflate_get_max_buf_size(doca_dev_as_devinfo(dev), &max);
	if (r == DOCA_SUCCESS) {
		st.buf_cap = (size_t)max;
		st.buf = malloc(st.buf_cap);
		r = st.buf == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
	}
	if (r == DOCA_SUCCESS)
		r = open_channel(&st, server_recv);
	if (r == DOCA_SUCCESS)
		r = wait_for(&st, &st.complete, "the whole file from the client");
	if (r == DOCA_SUCCESS)
		r = decompress_received(&st, dev);
	/* The reply goes whatever the outcome, then the client leaves first. */
	if (st.ch != NULL && comch_channel_connected(st.ch)) {
		sent = comch_channel_send(st.ch, FC_DONE_MSG, sizeof(FC_DONE_MSG));
		if (sent != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to send the reply to the client: %s", doca_error_get_descr(sent));
		else if (comch_channel_wait_disconnected(st.ch, (unsigned)cfg->timeout_sec) != DOCA_SUCCESS)
			DOCA_LOG_WARN("The client did not disconnect within %d seconds", cfg->timeout_sec);
	}
	if (st.ch != NULL)
		(void)comch_channel_destroy(st.ch);
	free(st.buf);
	(void)doca_dev_close(dev);
	return r;
}
