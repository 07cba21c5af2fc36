/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP channels of verbs_multi_rail_server_client.  The client opens two connections to the
 * server's --tcp-port: the first carries the handshake, the set-up exchange and the data
 * thread's messages, the second the recovery thread's (so neither thread reads the other's
 * replies).  A message is a fixed 24-byte header (struct mr_msg, host byte order, as DOCA's
 * samples send their fields) optionally followed by a body whose length the type implies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doca_log.h>

#include "mr_app.h"

DOCA_LOG_REGISTER(MR_APP_OOB);

#define MR_CONNECT_TIMEOUT_MS 10000
#define MR_HELLO_VERSION 1

doca_error_t
mr_oob_listen(uint16_t port, int *listen_fd)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = INADDR_ANY};
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		DOCA_LOG_ERR("Failed to create the server socket: %s", strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, 2) != 0) {
		DOCA_LOG_ERR("Failed to listen on TCP port %u: %s", port, strerror(errno));
		close(fd);
		return DOCA_ERROR_IO_FAILED;
	}
	DOCA_LOG_INFO("Waiting for the client on TCP port %u", port);
	*listen_fd = fd;
	return DOCA_SUCCESS;
}

static void
nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

doca_error_t
mr_oob_accept(int listen_fd, int *conn_fd)
{
	int fd;

	do {
		fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		DOCA_LOG_ERR("Failed to accept the client's connection: %s", strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	nodelay(fd);
	*conn_fd = fd;
	return DOCA_SUCCESS;
}

doca_error_t
mr_oob_connect(const char *ip, uint16_t port, int *conn_fd)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
	uint64_t deadline = mr_now_ns() + (uint64_t)MR_CONNECT_TIMEOUT_MS * 1000000;
	int fd, err;

	if (inet_pton(AF_INET, ip, &addr.sin_addr) != 1) {
		DOCA_LOG_ERR("Server address %s (--server-ip) is not an IPv4 address", ip);
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* The server may not be listening yet: retry refused connections until the deadline. */
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			DOCA_LOG_ERR("Failed to create the client socket: %s", strerror(errno));
			return DOCA_ERROR_IO_FAILED;
		}
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			break;
		err = errno;
		close(fd);
		if ((err != ECONNREFUSED && err != EINTR) || mr_now_ns() > deadline) {
			DOCA_LOG_ERR("Failed to connect to the server at %s:%u: %s", ip, port, strerror(err));
			return err == ETIMEDOUT ? DOCA_ERROR_TIME_OUT : DOCA_ERROR_CONNECTION_ABORTED;
		}
		usleep(20000);
	}
	nodelay(fd);
	*conn_fd = fd;
	return DOCA_SUCCESS;
}

static doca_error_t
send_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			DOCA_LOG_ERR("Failed to send to the peer over TCP: %s", strerror(errno));
			return DOCA_ERROR_CONNECTION_RESET;
		}
		p += n;
		len -= (size_t)n;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
recv_all(int fd, void *data, size_t len)
{
	char *p = data;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			DOCA_LOG_ERR("Failed to receive from the peer over TCP: %s", strerror(errno));
			return DOCA_ERROR_CONNECTION_RESET;
		}
		if (n == 0) {
			DOCA_LOG_ERR("The peer closed the TCP connection");
			return DOCA_ERROR_CONNECTION_ABORTED;
		}
		p += n;
		len -= (size_t)n;
	}
	return DOCA_SUCCESS;
}

doca_error_t
mr_oob_send(int fd, const struct mr_msg *msg, const void *body, size_t body_len)
{
	doca_error_t result = send_all(fd, msg, sizeof(*msg));

	if (result == DOCA_SUCCESS && body_len > 0)
		result = send_all(fd, body, body_len);
	return result;
}

doca_error_t
mr_oob_recv(int fd, struct mr_msg *msg, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int n;

	do {
		n = poll(&pfd, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		DOCA_LOG_ERR("Failed to wait for the peer's message: %s", strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	if (n == 0)
		return DOCA_ERROR_TIME_OUT;
	return recv_all(fd, msg, sizeof(*msg));
}

doca_error_t
mr_oob_recv_body(int fd, void *body, size_t len)
{
	return recv_all(fd, body, len);
}

static const char *
traffic_name(uint32_t t)
{
	return t == MR_TRAFFIC_SEND ? "send" : t == MR_TRAFFIC_WRITE ? "write" : "?";
}

/* Log the first field that differs and return BAD_CONFIG; SUCCESS when all match. */
static doca_error_t
compare_hello(const struct mr_hello *l, const struct mr_hello *r)
{
	if (memcmp(r->magic, "MRAP", 4) != 0 || r->version != MR_HELLO_VERSION) {
		DOCA_LOG_ERR("The peer is not verbs_multi_rail_server_client version %d", MR_HELLO_VERSION);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (l->num_qps != r->num_qps) {
		DOCA_LOG_ERR("Configuration differs from the peer's: num_qps (--num-qps) is %u here, %u on the peer",
			     l->num_qps, r->num_qps);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (l->chunks_total != r->chunks_total) {
		DOCA_LOG_ERR("Configuration differs from the peer's: chunks_total (--chunks-total) is %llu here, %llu "
			     "on the peer",
			     (unsigned long long)l->chunks_total, (unsigned long long)r->chunks_total);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (l->traffic != r->traffic) {
		DOCA_LOG_ERR("Configuration differs from the peer's: traffic (--traffic) is %s here, %s on the peer",
			     traffic_name(l->traffic), traffic_name(r->traffic));
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (l->use_multi_rail != r->use_multi_rail) {
		DOCA_LOG_ERR("Configuration differs from the peer's: use_multi_rail (--use-multi-rail) is %s here, %s "
			     "on the peer",
			     l->use_multi_rail ? "on" : "off", r->use_multi_rail ? "on" : "off");
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (l->num_rails != r->num_rails) {
		DOCA_LOG_ERR("Configuration differs from the peer's: num_rails (devices in --dev-json) is %u here, %u "
			     "on the peer",
			     l->num_rails, r->num_rails);
		return DOCA_ERROR_BAD_CONFIG;
	}
	if (l->chunk_size != r->chunk_size) {
		DOCA_LOG_ERR("Configuration differs from the peer's: chunk_size (--multi-rail-json) is %u here, %u on "
			     "the peer",
			     l->chunk_size, r->chunk_size);
		return DOCA_ERROR_BAD_CONFIG;
	}
	return DOCA_SUCCESS;
}

doca_error_t
mr_oob_handshake(int fd, const struct mr_config *cfg)
{
	struct mr_hello l = {.magic = {'M', 'R', 'A', 'P'},
			     .version = MR_HELLO_VERSION,
			     .num_qps = cfg->num_qps,
			     .traffic = cfg->traffic,
			     .use_multi_rail = cfg->use_multi_rail,
			     .num_rails = cfg->use_multi_rail ? cfg->devs.num_devs : 1,
			     .chunks_total = cfg->chunks_total,
			     .chunk_size = cfg->rail.chunk_size};
	struct mr_hello r;
	doca_error_t result;

	result = send_all(fd, &l, sizeof(l));
	if (result == DOCA_SUCCESS)
		result = recv_all(fd, &r, sizeof(r));
	if (result != DOCA_SUCCESS)
		return result;
	return compare_hello(&l, &r);
}

void
mr_oob_close(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}
