/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the soft NIC tests between forked processes: one side of a
 * connection (device, ctx, ep, the socket to the peer), blob exchange over a
 * socketpair, waiting on completions, and checks that work in a forked peer.
 */
#ifndef FABRIC_TEST_H_
#define FABRIC_TEST_H_

#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "sd_test_peer.h"
#include "fabric.h"
#include "fabric_proto.h"

struct side {
	struct fabric_dev *dev;
	struct fabric_ctx *ctx;
	struct fabric_ep *ep;
	int sock;
	doca_error_t ep_err;
	int ep_errs;
};

static inline void
ep_error(struct fabric_ep *ep, doca_error_t status, void *user)
{
	struct side *s = user;

	s->ep_err = status;
	s->ep_errs++;
}

static inline void
op_done(struct fabric_op *op)
{
	(*(int *)op->user)++;
}

static inline void
use_transport(int tcp)
{
	if (tcp) {
		setenv("UCX_TLS", "tcp", 1);
		setenv("UCX_NET_DEVICES", "lo", 1);
	}
}

static inline void
send_blob(int fd, const void *buf, size_t len)
{
	uint32_t l = (uint32_t)len;

	CHECK(write(fd, &l, sizeof(l)) == sizeof(l));
	CHECK(write(fd, buf, len) == (ssize_t)len);
}

static inline size_t
recv_blob(int fd, void *buf, size_t cap)
{
	uint32_t l;
	size_t got = 0;

	CHECK(read(fd, &l, sizeof(l)) == sizeof(l));
	CHECK(l <= cap);
	while (got < l) {
		ssize_t r = read(fd, (char *)buf + got, l - got);

		CHECK(r > 0);
		got += (size_t)r;
	}
	return l;
}

/* One byte of synchronisation between peers. */
static inline void
sync_send(int fd)
{
	char c = 's';

	CHECK(write(fd, &c, 1) == 1);
}

static inline void
sync_wait(int fd)
{
	char c;

	CHECK(read(fd, &c, 1) == 1);
}

static inline void
side_open(struct side *s, uint32_t rnr_ms)
{
	struct fabric_ctx_attr attr = {.rnr_timeout_ms = rnr_ms, .ep_error_cb = ep_error, .user = s};
	const char *nd = getenv("UCX_NET_DEVICES");

	CHECK_ERR(sd_fabric_dev_open(nd, &s->dev), DOCA_SUCCESS);
	CHECK_ERR(sd_fabric_ctx_create(s->dev, &attr, &s->ctx), DOCA_SUCCESS);
	CHECK_ERR(sd_fabric_ep_create(s->ctx, s, &s->ep), DOCA_SUCCESS);
}

/* Exchange connection blobs over the socket and connect (both sides call this). */
static inline void
side_connect(struct side *s)
{
	uint8_t peer[FABRIC_BLOB_MAX];
	const void *blob;
	size_t len, plen;

	CHECK_ERR(sd_fabric_ep_export(s->ep, &blob, &len), DOCA_SUCCESS);
	CHECK(len <= FABRIC_BLOB_MAX);
	send_blob(s->sock, blob, len);
	plen = recv_blob(s->sock, peer, sizeof(peer));
	CHECK_ERR(sd_fabric_ep_connect(s->ep, peer, plen, NULL), DOCA_SUCCESS);
}

static inline void
side_close(struct side *s)
{
	sd_fabric_ep_destroy(s->ep);
	CHECK_ERR(sd_fabric_ctx_destroy(s->ctx), DOCA_SUCCESS);
	sd_fabric_dev_close(s->dev);
}

static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Progress until *flag reaches want; returns the op's status or TIME_OUT. */
static inline doca_error_t
wait_flag(struct side *s, int *flag, int want, struct fabric_op *op, double secs)
{
	double end = now_s() + secs;

	while (*flag < want) {
		sd_fabric_ctx_progress(s->ctx);
		if (now_s() > end)
			return DOCA_ERROR_TIME_OUT;
	}
	return op ? op->status : DOCA_SUCCESS;
}

static inline doca_error_t
wait_op(struct side *s, struct fabric_op *op, int *flag)
{
	return wait_flag(s, flag, 1, op, 10.0);
}

static inline void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
}

/* Register a range and send its blob to the peer. */
static inline struct fabric_mr *
export_mr(struct side *s, void *addr, size_t len, uint32_t perms)
{
	struct fabric_mr *mr;
	const void *blob;
	size_t blen;

	CHECK_ERR(sd_fabric_mr_register(s->dev, addr, len, perms, &mr), DOCA_SUCCESS);
	CHECK_ERR(sd_fabric_mr_export(mr, &blob, &blen), DOCA_SUCCESS);
	send_blob(s->sock, blob, blen);
	return mr;
}

static inline struct fabric_rmr *
import_mr(struct side *s, uint8_t *blob_out, size_t *len_out)
{
	uint8_t blob[FABRIC_BLOB_MAX];
	struct fabric_rmr *rmr;
	size_t len = recv_blob(s->sock, blob, sizeof(blob));

	CHECK_ERR(sd_fabric_rmr_import(s->dev, blob, len, &rmr), DOCA_SUCCESS);
	if (blob_out != NULL) {
		memcpy(blob_out, blob, len);
		*len_out = len;
	}
	return rmr;
}

/*
 * A target's end: once the initiator says it is done, compare the len bytes
 * at mem (written by a peer) with fill(seed), send 'y' or 'n', wait for the
 * initiator to read it, deregister mr, close and exit.
 */
static inline void
target_verdict(struct side *s, struct fabric_mr *mr, const uint8_t *mem, size_t len, uint8_t seed)
{
	uint8_t *want = malloc(len), *got = malloc(len);
	char verdict;

	CHECK(want != NULL && got != NULL);
	sync_wait(s->sock);
	fill(want, len, seed);
	sd_test_read_foreign(got, mem, len); /* written by the soft NIC's threads or a peer */
	verdict = memcmp(got, want, len) == 0 ? 'y' : 'n';
	CHECK(write(s->sock, &verdict, 1) == 1);
	sync_wait(s->sock);
	sd_fabric_mr_deregister(mr);
	side_close(s);
	_exit(0);
}

/* The initiator's end against target_verdict(): the target found every byte, both sides close. */
static inline void
initiator_verdict(struct side *s, pid_t pid, struct fabric_rmr *rmr)
{
	char verdict = 0;

	sync_send(s->sock);
	ASSERT_EQ(read(s->sock, &verdict, 1), 1);
	ASSERT_EQ(verdict, 'y');
	sync_send(s->sock);
	sd_test_reap(pid);
	sd_fabric_rmr_destroy(rmr);
	side_close(s);
}

#define BOTH(name)                                                                                                     \
	TEST(name##_shm)                                                                                               \
	{                                                                                                              \
		run_##name(0);                                                                                         \
	}                                                                                                              \
	TEST(name##_tcp)                                                                                               \
	{                                                                                                              \
		run_##name(1);                                                                                         \
	}

#endif /* FABRIC_TEST_H_ */
