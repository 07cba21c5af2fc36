/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File Integrity's client (the host): hash -f with one SHA hash task over the
 * mmapped file, send the metadata message and the file in chunks over Comch,
 * then wait for the server's last message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_log.h>

#include "comch_utils.h"
#include "file_integrity_core.h"

DOCA_LOG_REGISTER(FILE_INTEGRITY::CLIENT);

struct client {
	struct comch_channel *ch;
	bool server_done; /* its last message arrived */
};

static void
client_recv(void *arg, const uint8_t *msg, uint32_t len)
{
	struct client *c = arg;

	/* The server speaks once, when it has finished with the file. */
	DOCA_LOG_INFO("Received message: %.*s", (int)strnlen((const char *)msg, len), (const char *)msg);
	c->server_done = true;
}

/* The metadata message, then the file in chunks of the largest block multiple a message holds. */
static doca_error_t
send_file(struct client *c, const uint8_t *data, size_t size, const uint8_t *digest, size_t digest_len,
	  uint32_t block_size)
{
	uint32_t max_msg = comch_channel_max_msg_size(c->ch);
	size_t chunk, total;
	struct fi_metadata_msg *meta;
	doca_error_t result;

	if (max_msg == 0 || block_size > max_msg) {
		DOCA_LOG_ERR("Comch message size too small for minimum SHA block. Comch size: %u, partial SHA min: %u",
			     max_msg, block_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	chunk = max_msg - max_msg % block_size;
	total = 1 + (size - 1) / chunk;
	meta = malloc(sizeof(*meta) + digest_len);
	if (meta == NULL)
		return DOCA_ERROR_NO_MEMORY;
	meta->total_file_chunks = htonl((uint32_t)total);
	memcpy(meta->sha_data, digest, digest_len);
	result = comch_channel_send(c->ch, meta, (uint32_t)(sizeof(*meta) + digest_len));
	free(meta);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to send file meta message: %s", doca_error_get_descr(result));
		return result;
	}
	for (size_t i = 0; i < total && !c->server_done; i++) {
		size_t len = size - i * chunk < chunk ? size - i * chunk : chunk;

		result = comch_channel_send(c->ch, data + i * chunk, (uint32_t)len);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("File data was not sent: %s", doca_error_get_descr(result));
			return result;
		}
	}
	return DOCA_SUCCESS;
}

/* Map the file (1 byte to max_src bytes) for the hash task and the chunks. */
static doca_error_t
map_file(const char *path, uint64_t max_src, uint8_t **data, size_t *size)
{
	struct stat st;
	doca_error_t result = DOCA_SUCCESS;
	int fd = sample_open_regular_file(path, O_RDONLY, 0, "file", &st, &result);

	if (fd < 0)
		return result;
	if (st.st_size <= 0 || (uint64_t)st.st_size > max_src) {
		DOCA_LOG_ERR("Invalid file size. Should be greater then zero and smaller than %" PRIu64, max_src);
		close(fd);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (*data == MAP_FAILED) {
		DOCA_LOG_ERR("Unable to map file content: %s", strerror(errno));
		return DOCA_ERROR_NO_MEMORY;
	}
	*size = (size_t)st.st_size;
	return DOCA_SUCCESS;
}

doca_error_t
fi_client(const struct fi_cfg *cfg)
{
	struct client c = {0};
	struct fi_sha s = {0};
	struct comch_channel_cfg ccfg = {
		.name = FI_SERVER_NAME,
		.server = false,
		.pci_addr = cfg->comch_pci,
		.num_send_tasks = 32,
		.recv_cb = client_recv,
		.cb_arg = &c,
	};
	const uint8_t *digest;
	uint8_t *data = NULL;
	size_t size = 0, digest_len = 0;
	doca_error_t result;

	result = fi_sha_init(&s, false);
	if (result == DOCA_SUCCESS)
		result = map_file(cfg->file_path, s.max_src, &data, &size);
	/* The source mmap unmaps the file when it goes. */
	if (result == DOCA_SUCCESS)
		result = fi_sha_hash_file(&s, data, size);
	if (result == DOCA_SUCCESS)
		result = fi_sha_print(&s, &digest, &digest_len);
	if (result == DOCA_SUCCESS)
		result = comch_channel_create(&ccfg, &c.ch);
	if (result == DOCA_SUCCESS) {
		result = comch_channel_wait_connected(c.ch, 0);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Failed to connect to the server: %s", doca_error_get_descr(result));
	}
	if (result == DOCA_SUCCESS)
		result = send_file(&c, data, size, digest, digest_len, s.block_size);
	while (result == DOCA_SUCCESS && !c.server_done) {
		if (!comch_channel_connected(c.ch)) {
			DOCA_LOG_ERR("Comch connection unexpectedly dropped");
			result = DOCA_ERROR_CONNECTION_ABORTED;
		} else if (comch_channel_progress(c.ch) == 0) {
			usleep(10);
		}
	}
	if (c.ch != NULL)
		(void)comch_channel_destroy(c.ch);
	fi_sha_cleanup(&s);
	return result;
}
