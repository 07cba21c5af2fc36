/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The out-of-band TCP channel of doca_verbs_server_client: the server listens on
 * 0.0.0.0:5000 for one client, the client connects (10 s limit), and both sides
 * swap fixed-size fields, each sending its own before reading the peer's.
 * Fields travel in host byte order, as DOCA's sample sends them.  POLLRDHUP
 * needs _GNU_SOURCE, which the build defines.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doca_log.h>

#include "verbs_server_client_oob.h"

DOCA_LOG_REGISTER(VERBS_SERVER_CLIENT_OOB);

#define VERBS_OOB_CONNECT_TIMEOUT_MS 10000

doca_error_t
verbs_oob_server_accept(uint16_t port, int *listen_fd, int *conn_fd)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = INADDR_ANY};
	int one = 1;
	int lfd, cfd;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		DOCA_LOG_ERR("Failed to create the server socket: %s", strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
		DOCA_LOG_ERR("Failed to set SO_REUSEADDR/SO_REUSEPORT on the server socket: %s", strerror(errno));
		goto close_listen;
	}
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		DOCA_LOG_ERR("Failed to bind the server socket to 0.0.0.0:%u: %s", port, strerror(errno));
		goto close_listen;
	}
	if (listen(lfd, 1) != 0) {
		DOCA_LOG_ERR("Failed to listen on TCP port %u: %s", port, strerror(errno));
		goto close_listen;
	}
	DOCA_LOG_INFO("Waiting for a client to connect on TCP port %u", port);
	do {
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	} while (cfd < 0 && errno == EINTR);
	if (cfd < 0) {
		DOCA_LOG_ERR("Failed to accept the client's connection: %s", strerror(errno));
		goto close_listen;
	}
	DOCA_LOG_INFO("Client connected");
	*listen_fd = lfd;
	*conn_fd = cfd;
	return DOCA_SUCCESS;

close_listen:
	close(lfd);
	return DOCA_ERROR_IO_FAILED;
}

/* Wait for a non-blocking connect() in progress; 0 or the errno it failed with. */
static int
finish_connect(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	socklen_t len = sizeof(int);
	int err = 0, n;

	do {
		n = poll(&pfd, 1, VERBS_OOB_CONNECT_TIMEOUT_MS);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if (n == 0)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		return errno;
	return err;
}

doca_error_t
verbs_oob_client_connect(const char *server_ip, uint16_t port, int *conn_fd)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd, err, flags;

	if (inet_pton(AF_INET, server_ip, &addr.sin_addr) != 1) {
		DOCA_LOG_ERR("Server address %s is not an IPv4 address", server_ip);
		return DOCA_ERROR_INVALID_VALUE;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		DOCA_LOG_ERR("Failed to create the client socket: %s", strerror(errno));
		return DOCA_ERROR_IO_FAILED;
	}
	/* Non-blocking only for the connect, so that an unreachable server fails in bounded time. */
	err = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 ? 0 : errno;
	if (err == EINPROGRESS)
		err = finish_connect(fd);
	if (err != 0) {
		DOCA_LOG_ERR("Failed to connect to the server at %s:%u: %s%s", server_ip, port, strerror(err),
			     err == ECONNREFUSED ? " (is the server running and waiting for a client?)" : "");
		close(fd);
		return err == ETIMEDOUT ? DOCA_ERROR_TIME_OUT : DOCA_ERROR_CONNECTION_ABORTED;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		DOCA_LOG_ERR("Failed to make the client socket blocking: %s", strerror(errno));
		close(fd);
		return DOCA_ERROR_IO_FAILED;
	}
	DOCA_LOG_INFO("Connected to the server at %s:%u", server_ip, port);
	*conn_fd = fd;
	return DOCA_SUCCESS;
}

static doca_error_t
send_all(int fd, const void *data, size_t len, const char *what)
{
	const char *p = data;
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			DOCA_LOG_ERR("Failed to send the %s to the peer: %s", what, strerror(errno));
			return DOCA_ERROR_CONNECTION_RESET;
		}
		p += n;
		len -= (size_t)n;
	}
	return DOCA_SUCCESS;
}

static doca_error_t
recv_all(int fd, void *data, size_t len, const char *what)
{
	char *p = data;
	ssize_t n;

	while (len > 0) {
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			DOCA_LOG_ERR("Failed to receive the peer's %s: %s", what, strerror(errno));
			return DOCA_ERROR_CONNECTION_RESET;
		}
		if (n == 0) {
			DOCA_LOG_ERR("The peer closed the connection before sending its %s", what);
			return DOCA_ERROR_CONNECTION_ABORTED;
		}
		p += n;
		len -= (size_t)n;
	}
	return DOCA_SUCCESS;
}

doca_error_t
verbs_oob_exchange(int fd, const void *local, void *remote, size_t len, const char *what)
{
	doca_error_t result = send_all(fd, local, len, what);

	if (result != DOCA_SUCCESS)
		return result;
	return recv_all(fd, remote, len, what);
}

doca_error_t
verbs_oob_peer_alive(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLRDHUP};

	if (poll(&pfd, 1, 0) < 0 || (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) == 0)
		return DOCA_SUCCESS;
	DOCA_LOG_ERR("The peer closed the out-of-band connection while this side was still waiting for it");
	return DOCA_ERROR_CONNECTION_ABORTED;
}

void
verbs_oob_close(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}
