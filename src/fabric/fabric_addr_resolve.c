/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The asking side of the Verbs address service (fabric_addr.h,
 * sd_fabric_addr_resolve): one TCP connection per attempt from the local GID's
 * address to port (base + slot) of the remote GID's, one request, one answer;
 * "not ready", "no such QP" and refused connections are retried until the
 * caller's timeout.  Nothing here is shared between threads.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../util/sd_time.h"
#include "fabric_addr.h"
#include "fabric_addr_internal.h"
#include "fabric_addr_proto.h"

#define RETRY_MS 10 /* pause between attempts */

/* What one attempt ended with. */
enum attempt {
	ATTEMPT_OK,
	ATTEMPT_NO_QP,	   /* retried; NOT_FOUND at the end */
	ATTEMPT_NOT_READY, /* retried; NOT_FOUND at the end */
	ATTEMPT_REFUSED,   /* nobody listens: retried; NOT_FOUND at the end */
	ATTEMPT_LOST,	   /* no answer in time, unreachable, cut: retried; TIME_OUT at the end */
	ATTEMPT_FATAL,	   /* *err says what */
};

/* The calling thread's last reason (fabric_addr.h: valid until its next resolve). */
static __thread char reason_buf[192];
static __thread char answered_why[192];

static const char *say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static const char *
say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason_buf, sizeof(reason_buf), fmt, ap);
	va_end(ap);
	return reason_buf;
}

/* Sleep up to RETRY_MS, never past the deadline; false when it has passed. */
static bool
pause_until(uint64_t deadline_ns)
{
	uint64_t now = sd_now_ns(), ns;
	struct timespec ts;

	if (now >= deadline_ns)
		return false;
	ns = SD_MIN(deadline_ns - now, RETRY_MS * 1000000ull);
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	nanosleep(&ts, NULL);
	return true;
}

/* Wait until fd is ready for events or deadline; 0, ETIMEDOUT, or poll's errno. */
static int
wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = events};
		uint64_t now = sd_now_ns();
		int r;

		r = poll(&p, 1, now >= deadline_ns ? 0 : (int)((deadline_ns - now + 999999) / 1000000));
		if (r > 0)
			return 0;
		if (r == 0)
			return ETIMEDOUT;
		if (errno != EINTR)
			return errno;
	}
}

/* Move exactly len bytes (send when out, else receive); 0, ETIMEDOUT, EPIPE (peer closed) or an errno. */
static int
xfer(int fd, void *buf, size_t len, bool out, uint64_t deadline_ns)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? send(fd, (uint8_t *)buf + done, len - done, MSG_NOSIGNAL)
				: recv(fd, (uint8_t *)buf + done, len - done, 0);
		int err;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n == 0)
			return EPIPE;
		if (errno != EAGAIN && errno != EINTR)
			return errno;
		err = wait_fd(fd, out ? POLLOUT : POLLIN, deadline_ns);
		if (err != 0)
			return err;
	}
	return 0;
}

/* Connect from src to dst (non-blocking, bounded by deadline); the fd, or -errno. */
static int
connect_to(const struct sd_fabric_addr_ip *src, const struct sd_fabric_addr_ip *dst, uint64_t deadline_ns)
{
	int one = 1, err = 0;
	socklen_t elen = sizeof(err);
	int fd = socket(dst->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	/* The port is chosen at connect(), per destination: no ephemeral port is held per bind. */
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&src->ss, src->len) != 0) {
		err = errno;
		goto fail;
	}
	if (connect(fd, (const struct sockaddr *)&dst->ss, dst->len) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		err = errno;
		goto fail;
	}
	err = wait_fd(fd, POLLOUT, deadline_ns);
	if (err == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0)
		err = errno;
	if (err == 0)
		return fd;
fail:
	close(fd);
	return -err;
}

/* One connection, one request, one answer. */
static enum attempt
attempt_once(const struct sd_fabric_addr_ip *src, const struct sd_fabric_addr_ip *dst,
	     const struct sd_fabric_addr_req *req, uint8_t *blob, uint32_t *blob_len, uint64_t deadline_ns,
	     doca_error_t *err, const char **why)
{
	uint8_t reqb[sizeof(struct sd_fabric_addr_req_wire)], hdr[sizeof(struct sd_fabric_addr_resp_wire)];
	struct sd_fabric_addr_resp resp;
	char name[SD_FABRIC_ADDR_IP_STRLEN];
	const char *perr = NULL;
	enum attempt res;
	int fd, e;

	sd_fabric_addr_ip_str(dst, name, sizeof(name));
	fd = connect_to(src, dst, deadline_ns);
	if (fd < 0) {
		e = -fd;
		*why = say("connect to %s: %s", name, strerror(e));
		if (e == ECONNREFUSED)
			return ATTEMPT_REFUSED;
		if (e == EADDRNOTAVAIL || e == EAFNOSUPPORT || e == EINVAL) {
			*why = say("cannot send from the local GID's address to %s: %s (is the local device's address "
				   "on this host?)",
				   name, strerror(e));
			*err = DOCA_ERROR_INVALID_VALUE;
			return ATTEMPT_FATAL;
		}
		return ATTEMPT_LOST;
	}
	sd_fabric_addr_req_encode(req, reqb);
	e = xfer(fd, reqb, sizeof(reqb), true, deadline_ns);
	if (e == 0)
		e = xfer(fd, hdr, sizeof(hdr), false, deadline_ns);
	if (e != 0) {
		*why = say("%s did not answer: %s", name, e == EPIPE ? "connection closed" : strerror(e));
		res = ATTEMPT_LOST;
		goto out;
	}
	*err = sd_fabric_addr_resp_parse(hdr, sizeof(hdr), &resp, &perr);
	if (*err != DOCA_SUCCESS) {
		*why = say("malformed answer from %s: %s", name, perr);
		res = ATTEMPT_FATAL;
		goto out;
	}
	switch (resp.status) {
	case SD_FABRIC_ADDR_OK:
		e = xfer(fd, blob, resp.blob_len, false, deadline_ns);
		if (e != 0) {
			*why = say("%s cut its answer short: %s", name, e == EPIPE ? "connection closed" : strerror(e));
			res = ATTEMPT_LOST;
			break;
		}
		*blob_len = resp.blob_len;
		res = ATTEMPT_OK;
		break;
	case SD_FABRIC_ADDR_NO_QP:
		*why = say("%s has no QP %#x", name, req->dest_qpn);
		res = ATTEMPT_NO_QP;
		break;
	case SD_FABRIC_ADDR_NOT_READY:
		*why = say("QP %#x at %s is not ready (its address is not published yet)", req->dest_qpn, name);
		res = ATTEMPT_NOT_READY;
		break;
	case SD_FABRIC_ADDR_BOUND:
	default:
		*why = say("QP %#x at %s is bound to another peer", req->dest_qpn, name);
		*err = DOCA_ERROR_CONNECTION_ABORTED;
		res = ATTEMPT_FATAL;
		break;
	}
out:
	close(fd);
	return res;
}

doca_error_t
sd_fabric_addr_resolve(const struct doca_devinfo *local, const uint8_t gid[16], uint32_t qpn, uint32_t src_qpn,
		       void *blob, size_t cap, size_t *len, uint32_t timeout_ms, const char **reason)
{
	uint64_t deadline_ns = sd_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct sd_fabric_addr_req req = {.dest_qpn = qpn, .src_qpn = src_qpn};
	uint8_t buf[SD_FABRIC_ADDR_BLOB_MAX];
	const char *why = NULL;
	struct sd_fabric_addr_ip src, dst;
	enum attempt res;
	enum attempt answered = ATTEMPT_LOST; /* the last "no", "not ready" or refusal */
	uint32_t got = 0;
	doca_error_t err = DOCA_SUCCESS;

	if (local == NULL || gid == NULL || blob == NULL || len == NULL) {
		why = "NULL argument";
		err = DOCA_ERROR_INVALID_VALUE;
		goto out;
	}
	why = sd_fabric_addr_ip_of_gid(&dst, gid, sd_devinfo_netdev(local));
	if (why == NULL && sd_fabric_addr_ip_of_gid(&src, sd_devinfo_gid(local), sd_devinfo_netdev(local)) != NULL)
		why = say("local device %s has no IP address (its GID is not one)", sd_devinfo_ibdev_name(local));
	if (why == NULL && src.ss.ss_family != dst.ss.ss_family)
		why = "local and remote GIDs are of different families (IPv4-mapped and IPv6)";
	if (why == NULL && (src_qpn == 0 || src_qpn > 0xffffffu))
		why = "source QPN is 0 or wider than 24 bits";
	if (why != NULL) {
		err = DOCA_ERROR_INVALID_VALUE;
		goto out;
	}
	if (!sd_fabric_addr_qpn_valid(qpn)) {
		why = say("QPN %#x is not a softdoca QPN (slot and index must be non-zero)", qpn);
		err = DOCA_ERROR_NOT_FOUND;
		goto out;
	}
	sd_fabric_addr_ip_set_port(&dst, (uint16_t)(sd_fabric_addr_port_base() + sd_fabric_addr_qpn_slot(qpn)));
	memcpy(req.src_gid, sd_devinfo_gid(local), sizeof(req.src_gid));
	for (;;) {
		res = attempt_once(&src, &dst, &req, buf, &got, deadline_ns, &err, &why);
		if (res == ATTEMPT_OK || res == ATTEMPT_FATAL)
			break;
		if (res != ATTEMPT_LOST) {
			answered = res;
			snprintf(answered_why, sizeof(answered_why), "%s", why);
		}
		if (!pause_until(deadline_ns))
			break;
	}
	/*
	 * An attempt the deadline cut short says nothing new: when the owner (or
	 * its kernel) answered before, that answer is the cause.
	 */
	if (res == ATTEMPT_LOST && answered != ATTEMPT_LOST) {
		res = answered;
		why = answered_why;
	}
	if (res == ATTEMPT_OK) {
		if (got > cap) {
			why = say("blob of %u bytes does not fit the %zu-byte buffer", got, cap);
			err = DOCA_ERROR_TOO_BIG;
			goto out;
		}
		memcpy(blob, buf, got);
		*len = got;
		return DOCA_SUCCESS;
	}
	if (res != ATTEMPT_FATAL)
		err = res == ATTEMPT_LOST ? DOCA_ERROR_TIME_OUT : DOCA_ERROR_NOT_FOUND;
out:
	if (reason != NULL)
		*reason = why;
	return err;
}
