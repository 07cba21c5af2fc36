/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File Integrity's server (the DPU): accept the client, read the metadata
 * message, hash every chunk as it arrives (inside the Comch receive callback:
 * copy it into the SHA source buffer, submit, progress the SHA context until
 * the task completed) and write it to -f, then compare the digests and send the
 * last message.  The messages are foreign bytes: their sizes are checked before
 * use.  -t bounds the wait for the next file message once the metadata came.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <doca_log.h>

#include "comch_utils.h"
#include "file_integrity_core.h"

DOCA_LOG_REGISTER(FILE_INTEGRITY::SERVER);

#define DISCONNECT_TIMEOUT_SEC 5

enum transfer_state {
	TRANSFER_IDLE,	      /* no metadata yet */
	TRANSFER_IN_PROGRESS, /* chunks arriving */
	TRANSFER_COMPLETE,
	TRANSFER_ERROR,
};

struct server {
	struct fi_sha sha;
	uint8_t *src_data; /* the SHA source buffer: each chunk is copied here */
	uint32_t src_cap;
	int fd;
	enum transfer_state state;
	uint32_t expected_chunks, received_chunks;
	uint8_t expected_sha[64];
	size_t expected_sha_len;
	double last_msg; /* when the last file message arrived (seconds) */
};

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The first message: how many chunks follow, and the client's digest. */
static void
recv_metadata(struct server *sv, const uint8_t *msg, uint32_t len)
{
	uint32_t chunks;

	if (len < sizeof(struct fi_metadata_msg) || len - sizeof(struct fi_metadata_msg) > sizeof(sv->expected_sha)) {
		DOCA_LOG_ERR("Unexpected file metadata message received. Size %u, expected %zu to %zu", len,
			     sizeof(struct fi_metadata_msg), sizeof(struct fi_metadata_msg) + sizeof(sv->expected_sha));
		sv->state = TRANSFER_ERROR;
		return;
	}
	memcpy(&chunks, msg, sizeof(chunks));
	sv->expected_chunks = ntohl(chunks);
	if (sv->expected_chunks == 0) {
		DOCA_LOG_ERR("Unexpected file metadata message received: a file of 0 chunks");
		sv->state = TRANSFER_ERROR;
		return;
	}
	sv->expected_sha_len = len - sizeof(struct fi_metadata_msg);
	memcpy(sv->expected_sha, msg + sizeof(struct fi_metadata_msg), sv->expected_sha_len);
	sv->state = TRANSFER_IN_PROGRESS;
}

static void
server_recv(void *arg, const uint8_t *msg, uint32_t len)
{
	struct server *sv = arg;

	/* Nothing counts after the end. */
	if (sv->state == TRANSFER_COMPLETE || sv->state == TRANSFER_ERROR)
		return;
	sv->last_msg = now_sec();
	if (sv->state == TRANSFER_IDLE) {
		recv_metadata(sv, msg, len);
		return;
	}
	if (len > sv->src_cap) {
		DOCA_LOG_ERR("File message of %u bytes, more than the %u of a Comch message", len, sv->src_cap);
		sv->state = TRANSFER_ERROR;
		return;
	}
	memcpy(sv->src_data, msg, len);
	if (fi_sha_server_chunk(&sv->sha, len, sv->received_chunks, sv->expected_chunks) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("SHA partial hash task failed: %s", doca_error_get_descr(sv->sha.result));
		sv->state = TRANSFER_ERROR;
		return;
	}
	if ((size_t)write(sv->fd, msg, len) != len) {
		DOCA_LOG_ERR("Failed to write the received message into the input file");
		sv->state = TRANSFER_ERROR;
		return;
	}
	if (++sv->received_chunks == sv->expected_chunks)
		sv->state = TRANSFER_COMPLETE;
}

/* Progress Comch until the transfer ended; TIME_OUT after -t seconds without a file message. */
static doca_error_t
receive_file(struct server *sv, struct comch_channel *ch, int timeout)
{
	while (sv->state != TRANSFER_COMPLETE && sv->state != TRANSFER_ERROR) {
		if (!comch_channel_connected(ch)) {
			DOCA_LOG_ERR("Comch connection unexpectedly dropped");
			return DOCA_ERROR_CONNECTION_ABORTED;
		}
		if (comch_channel_progress(ch) == 0)
			usleep(10);
		if (sv->state != TRANSFER_IDLE && now_sec() - sv->last_msg > timeout) {
			DOCA_LOG_ERR("Message was not received at the given timeout");
			return DOCA_ERROR_BAD_STATE;
		}
	}
	if (sv->state == TRANSFER_ERROR) {
		DOCA_LOG_ERR("Error detected during comch exchange");
		return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

/* The verdict: the two digests, and the file deleted when they differ. */
static doca_error_t
compare(struct server *sv, const char *path)
{
	const uint8_t *digest;
	size_t len = 0;
	doca_error_t result = fi_sha_print(&sv->sha, &digest, &len);

	if (result != DOCA_SUCCESS)
		return result;
	if (len == sv->expected_sha_len && memcmp(digest, sv->expected_sha, len) == 0) {
		DOCA_LOG_INFO("SUCCESS: file SHA is identical to received SHA");
	} else {
		DOCA_LOG_ERR("ERROR: SHA is not identical, file was compromised");
		if (remove(path) < 0)
			DOCA_LOG_ERR("Failed to remove %s", path);
	}
	return DOCA_SUCCESS;
}

static doca_error_t
serve(struct server *sv, const struct fi_cfg *cfg, struct comch_channel *ch)
{
	doca_error_t result;

	sv->src_cap = comch_channel_max_msg_size(ch);
	result = fi_sha_server_start(&sv->sha, sv->src_cap, &sv->src_data);
	if (result != DOCA_SUCCESS)
		return result;
	sv->fd = open(cfg->file_path, O_CREAT | O_WRONLY | O_TRUNC, S_IRUSR | S_IRGRP);
	if (sv->fd < 0) {
		DOCA_LOG_ERR("Failed to open %s", cfg->file_path);
		return DOCA_ERROR_IO_FAILED;
	}
	DOCA_LOG_INFO("Server waiting on a client to connect");
	result = comch_channel_wait_connected(ch, 0);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to accept a client: %s", doca_error_get_descr(result));
		return result;
	}
	result = receive_file(sv, ch, cfg->timeout);
	close(sv->fd);
	sv->fd = -1;
	if (result == DOCA_SUCCESS)
		result = compare(sv, cfg->file_path);
	return result;
}

doca_error_t
fi_server(const struct fi_cfg *cfg)
{
	struct server sv = {.fd = -1};
	struct comch_channel *ch = NULL;
	struct comch_channel_cfg ccfg = {
		.name = FI_SERVER_NAME,
		.server = true,
		.pci_addr = cfg->comch_pci,
		.rep_pci_addr = cfg->rep_pci,
		.num_send_tasks = 4,
		.recv_cb = server_recv,
		.cb_arg = &sv,
	};
	doca_error_t result;

	result = fi_sha_init(&sv.sha, true);
	if (result == DOCA_SUCCESS)
		result = comch_channel_create(&ccfg, &ch);
	if (result == DOCA_SUCCESS)
		result = serve(&sv, cfg, ch);
	if (sv.fd >= 0)
		close(sv.fd);
	/* The client waits for this line whatever happened, and leaves first. */
	if (ch != NULL && comch_channel_connected(ch)) {
		if (comch_channel_send(ch, FI_FINISH_MSG, sizeof(FI_FINISH_MSG)) != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to send finish message");
		else if (comch_channel_wait_disconnected(ch, DISCONNECT_TIMEOUT_SEC) != DOCA_SUCCESS)
			DOCA_LOG_WARN("The client did not disconnect within %d seconds", DISCONNECT_TIMEOUT_SEC);
	}
	if (ch != NULL)
		(void)comch_channel_destroy(ch);
	fi_sha_cleanup(&sv.sha);
	return result;
}
