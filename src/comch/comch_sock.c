/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The carrier of Comch between two processes of one machine: one listening
 * SOCK_SEQPACKET Unix socket per (host function, service name) in the runtime
 * directory (sd_rundir.h), and records sent and received without blocking.  errno becomes
 * doca_error_t here and nowhere else in libdoca_comch.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../core/sd_core.h"
#include "comch_internal.h"
#include "../util/sd_rundir.h"

SD_LOG_REGISTER(comch.sock);

/* FNV-1a 64: names may hold any byte and be long; the HELLO carries the full name. */
static uint64_t
fnv1a(const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *s = a; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;
	for (const char *s = b; *s != '\0'; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

doca_error_t
sd_comch_sock_path(const char *host_pci, const char *name, char *path, size_t size)
{
	char dir[108];
	doca_error_t err;
	int n;

	err = sd_rundir("Comch", dir, sizeof(dir) - 52); /* room for "/comch-<pci>-<hash>.<pid>" */
	if (err != DOCA_SUCCESS)
		return err;
	n = snprintf(path, size, "%s/comch-%s-%016llx", dir, host_pci, (unsigned long long)fnv1a(host_pci, name));
	if (n < 0 || (size_t)n >= size) {
		DOCA_LOG_ERR("Comch socket path under %s is too long for a Unix socket; set SOFTDOCA_RUNTIME_DIR to "
			     "a shorter path",
			     dir);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/*
 * Open and flock the server's lock file.  A stopping server unlinks the file while it holds
 * the lock (sd_comch_unlock), so a lock taken on a file that is no longer under its name is
 * the old one's: open the name again.
 */
static doca_error_t
lock_take(const char *lock_path, int *lfd_out)
{
	for (int tries = 0; tries < 8; tries++) {
		struct stat held, named;
		int lfd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (lfd < 0) {
			DOCA_LOG_ERR(
				"doca_ctx_start: cannot open the Comch server lock %s: %s; make SOFTDOCA_RUNTIME_DIR "
				"writable",
				lock_path, strerror(errno));
			return DOCA_ERROR_NOT_PERMITTED;
		}
		if (flock(lfd, LOCK_EX | LOCK_NB) != 0) {
			DOCA_LOG_ERR("doca_ctx_start: another running Comch server already serves this host function "
				     "under this name (lock %s); stop it or choose another name",
				     lock_path);
			close(lfd);
			return DOCA_ERROR_IN_USE;
		}
		if (fstat(lfd, &held) == 0 && stat(lock_path, &named) == 0 && held.st_ino == named.st_ino &&
		    held.st_dev == named.st_dev) {
			*lfd_out = lfd;
			return DOCA_SUCCESS;
		}
		close(lfd);
	}
	DOCA_LOG_ERR("doca_ctx_start: the Comch server lock %s kept being replaced; another server is starting and "
		     "stopping under this name",
		     lock_path);
	return DOCA_ERROR_IN_USE;
}

void
sd_comch_unlock(const char *path, int lock_fd)
{
	char lock_path[128];

	snprintf(lock_path, sizeof(lock_path), "%s.lock", path);
	(void)unlink(lock_path); /* still held: a server that opened the old file sees it was replaced */
	close(lock_fd);
}

doca_error_t
sd_comch_listen(const char *path, int *listen_fd, int *lock_fd)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	char lock_path[128], tmp[sizeof(addr.sun_path)];
	doca_error_t err;
	int lfd, fd;

	snprintf(lock_path, sizeof(lock_path), "%s.lock", path);
	err = lock_take(lock_path, &lfd);
	if (err != DOCA_SUCCESS)
		return err;
	if (snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		err = DOCA_ERROR_INVALID_VALUE;
		goto close_lock;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		DOCA_LOG_ERR("doca_ctx_start: cannot create the Comch server socket: %s; raise the process's "
			     "open-file limit",
			     strerror(errno));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto close_lock;
	}
	/* A dead server's socket may remain: we hold the lock, so it is stale. */
	(void)unlink(tmp);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", tmp);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, SOMAXCONN) != 0) {
		DOCA_LOG_ERR("doca_ctx_start: cannot listen on %s: %s; make SOFTDOCA_RUNTIME_DIR writable", tmp,
			     strerror(errno));
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto close_sock;
	}
	/* Only this user may connect (the directory says so too); then it appears under its final name. */
	if (chmod(tmp, 0600) != 0 || rename(tmp, path) != 0) {
		DOCA_LOG_ERR("doca_ctx_start: cannot publish the Comch server socket %s: %s; make "
			     "SOFTDOCA_RUNTIME_DIR writable",
			     path, strerror(errno));
		(void)unlink(tmp);
		err = DOCA_ERROR_OPERATING_SYSTEM;
		goto close_sock;
	}
	*listen_fd = fd;
	*lock_fd = lfd;
	return DOCA_SUCCESS;

close_sock:
	close(fd);
close_lock:
	sd_comch_unlock(path, lfd);
	return err;
}

doca_error_t
sd_comch_connect(const char *path, int *fd_out)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd, e;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		DOCA_LOG_ERR("Comch client: cannot create a socket: %s; raise the process's open-file limit",
			     strerror(errno));
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
		*fd_out = fd;
		return DOCA_SUCCESS;
	}
	e = errno;
	close(fd);
	if (e == EAGAIN || e == EINPROGRESS)
		return DOCA_ERROR_AGAIN;
	if (e == ENOENT || e == ECONNREFUSED)
		return DOCA_ERROR_NOT_FOUND;
	DOCA_LOG_ERR("Comch client: cannot connect to the server socket %s: %s; check the server runs with "
		     "the same SOFTDOCA_RUNTIME_DIR",
		     path, strerror(e));
	return DOCA_ERROR_OPERATING_SYSTEM;
}

void
sd_comch_size_sndbuf(int fd, uint32_t peer_queue, uint32_t peer_max)
{
	/* The kernel doubles the value and charges per-record overhead: an estimate. */
	uint64_t bytes = (uint64_t)peer_queue * (peer_max + sizeof(struct sd_comch_hdr) + 256u);
	int v = bytes > (1u << 24) ? 1 << 24 : (int)bytes;

	if (v < 8192)
		v = 8192;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

doca_error_t
sd_comch_send_record_fd(int fd, enum sd_comch_type type, uint32_t arg, const void *p1, uint32_t l1, const void *p2,
			uint32_t l2, int pass_fd)
{
	struct sd_comch_hdr hdr;
	struct iovec iov[3] = {
		{.iov_base = &hdr, .iov_len = sizeof(hdr)},
		{.iov_base = (void *)(uintptr_t)p1, .iov_len = l1},
		{.iov_base = (void *)(uintptr_t)p2, .iov_len = l2},
	};
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 3};
	ssize_t n;

	if (pass_fd >= 0) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	sd_comch_hdr_init(&hdr, type, l1 + l2, arg);
	do
		n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return DOCA_SUCCESS; /* SOCK_SEQPACKET: all or nothing */
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return DOCA_ERROR_AGAIN;
	DOCA_LOG_DBG("Comch send on fd %d failed: %s", fd, strerror(errno));
	return DOCA_ERROR_NOT_CONNECTED;
}

doca_error_t
sd_comch_send_record(int fd, enum sd_comch_type type, uint32_t arg, const void *p1, uint32_t l1, const void *p2,
		     uint32_t l2)
{
	return sd_comch_send_record_fd(fd, type, arg, p1, l1, p2, l2, -1);
}

/* The descriptor a record carried (SCM_RIGHTS), or -1; any other (or extra) descriptor is closed. */
static int
passed_fd(struct msghdr *mh)
{
	int got = -1;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(0))
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (got < 0)
				got = f;
			else
				close(f);
		}
	}
	return got;
}

doca_error_t
sd_comch_recv_record(int fd, uint8_t *buf, struct sd_comch_msg *msg, int *fd_out)
{
	const char *reason = NULL;
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = {.iov_base = buf, .iov_len = SD_COMCH_MAX_RECORD + 1};
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	doca_error_t err;
	ssize_t n;

	*fd_out = -1;
	do
		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		*fd_out = passed_fd(&mh);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return DOCA_ERROR_AGAIN;
		DOCA_LOG_DBG("Comch receive on fd %d failed: %s", fd, strerror(errno));
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (n == 0)
		return DOCA_ERROR_CONNECTION_RESET;
	if ((size_t)n > SD_COMCH_MAX_RECORD) {
		DOCA_LOG_ERR("Comch peer sent a record of %zd bytes (at most %u); closing the connection", n,
			     SD_COMCH_MAX_RECORD);
		sd_comch_close_fd(fd_out);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	err = sd_comch_parse(buf, (size_t)n, msg, &reason);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Comch peer sent a malformed record (%s); closing the connection", reason);
		sd_comch_close_fd(fd_out);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	return DOCA_SUCCESS;
}

void
sd_comch_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
