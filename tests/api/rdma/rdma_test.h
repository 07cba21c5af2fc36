/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the RDMA API tests: a "node" is one process's device, PE, RDMA
 * context, 1 MiB local mmap and buffer inventory; two nodes (parent and a forked
 * child) exchange descriptors over a socketpair the way the samples exchange
 * files.  Public API only.
 */
#ifndef RDMA_TEST_H_
#define RDMA_TEST_H_

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>

#include "sd_test_peer.h"

#define MEM_LEN (1u << 20)
#define BLOB_MAX 4096u

struct node {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rdma;
	struct doca_ctx *ctx;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_rdma_connection *conn;
	int sock;
	enum doca_ctx_states state;
	int state_changes;
};

/* What a task callback records (task user data points at one). */
struct result {
	int done;
	doca_error_t status;
};

static inline double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline void
use_transport(int tcp)
{
	if (tcp) {
		setenv("UCX_TLS", "tcp", 1);
		setenv("UCX_NET_DEVICES", "lo", 1);
	}
}

static inline struct doca_dev *
open_rdma_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_rdma_cap_task_send_is_supported(list[i]) == DOCA_SUCCESS)
			ASSERT_OK(doca_dev_open(list[i], &dev));
	ASSERT_OK(doca_devinfo_destroy_list(list));
	if (dev == NULL)
		SKIP("no RDMA-capable device in the topology");
	return dev;
}

static inline void
state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct node *n = user_data.ptr;

	(void)ctx;
	(void)prev;
	n->state = next;
	n->state_changes++;
}

/* Generic task callbacks, one pair per family (the typedefs differ only in the task type). */
static inline void
record(struct doca_task *task, union doca_data task_user_data)
{
	struct result *r = task_user_data.ptr;

	r->status = doca_task_get_status(task);
	r->done++;
}

#define RESULT_CB(type)                                                                                                \
	static inline void type##_cb(struct doca_rdma_task_##type *task, union doca_data ud, union doca_data cud)      \
	{                                                                                                              \
		(void)cud;                                                                                             \
		record(doca_rdma_task_##type##_as_task(task), ud);                                                     \
	}
RESULT_CB(receive)
RESULT_CB(send)
RESULT_CB(send_imm)
RESULT_CB(read)
RESULT_CB(write)
RESULT_CB(write_imm)
RESULT_CB(atomic_cmp_swp)
RESULT_CB(atomic_fetch_add)
RESULT_CB(remote_net_sync_event_get)
RESULT_CB(remote_net_sync_event_notify_set)
RESULT_CB(remote_net_sync_event_notify_add)

/* Device, PE, context (not started), local mmap with perms, inventory. */
static inline void
node_open(struct node *n, uint32_t mmap_perms, uint32_t rdma_perms, uint16_t max_conns)
{
	n->dev = open_rdma_dev();
	n->mem = calloc(1, MEM_LEN);
	ASSERT_NOT_NULL(n->mem);
	ASSERT_OK(doca_mmap_create(&n->mmap));
	ASSERT_OK(doca_mmap_set_permissions(n->mmap, mmap_perms));
	ASSERT_OK(doca_mmap_set_memrange(n->mmap, n->mem, MEM_LEN));
	ASSERT_OK(doca_mmap_add_dev(n->mmap, n->dev));
	ASSERT_OK(doca_mmap_start(n->mmap));
	ASSERT_OK(doca_buf_inventory_create(256, &n->inv));
	ASSERT_OK(doca_buf_inventory_start(n->inv));
	ASSERT_OK(doca_pe_create(&n->pe));
	ASSERT_OK(doca_rdma_create(n->dev, &n->rdma));
	n->ctx = doca_rdma_as_ctx(n->rdma);
	ASSERT_OK(doca_rdma_set_permissions(n->rdma, rdma_perms));
	ASSERT_OK(doca_rdma_set_max_num_connections(n->rdma, max_conns));
	ASSERT_OK(doca_ctx_set_state_changed_cb(n->ctx, state_cb));
	ASSERT_OK(doca_ctx_set_user_data(n->ctx, (union doca_data){.ptr = n}));
	ASSERT_OK(doca_pe_connect_ctx(n->pe, n->ctx));
}

/* Every family enabled with 64 tasks. */
static inline void
node_conf_all(struct node *n)
{
	ASSERT_OK(doca_rdma_task_receive_set_conf(n->rdma, receive_cb, receive_cb, 128));
	ASSERT_OK(doca_rdma_task_send_set_conf(n->rdma, send_cb, send_cb, 128));
	ASSERT_OK(doca_rdma_task_send_imm_set_conf(n->rdma, send_imm_cb, send_imm_cb, 64));
	ASSERT_OK(doca_rdma_task_read_set_conf(n->rdma, read_cb, read_cb, 64));
	ASSERT_OK(doca_rdma_task_write_set_conf(n->rdma, write_cb, write_cb, 64));
	ASSERT_OK(doca_rdma_task_write_imm_set_conf(n->rdma, write_imm_cb, write_imm_cb, 64));
	ASSERT_OK(doca_rdma_task_atomic_cmp_swp_set_conf(n->rdma, atomic_cmp_swp_cb, atomic_cmp_swp_cb, 64));
	ASSERT_OK(doca_rdma_task_atomic_fetch_add_set_conf(n->rdma, atomic_fetch_add_cb, atomic_fetch_add_cb, 256));
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_get_set_conf(n->rdma, remote_net_sync_event_get_cb,
								    remote_net_sync_event_get_cb, 8));
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_set_set_conf(n->rdma, remote_net_sync_event_notify_set_cb,
									   remote_net_sync_event_notify_set_cb, 8));
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_add_set_conf(n->rdma, remote_net_sync_event_notify_add_cb,
									   remote_net_sync_event_notify_add_cb, 8));
}

/* Progress until the predicate flag reaches want, or secs pass (returns false then). */
static inline bool
node_wait(struct node *n, const int *flag, int want, double secs)
{
	double end = now_s() + secs;

	while (*flag < want) {
		if (doca_pe_progress(n->pe) == 0)
			usleep(10);
		if (now_s() > end)
			return false;
	}
	return true;
}

/* Progress until the context stopped by itself (a failed task stops it). */
static inline void
wait_idle(struct node *n)
{
	double end = now_s() + 10;

	while (n->state != DOCA_CTX_STATE_IDLE && now_s() < end)
		doca_pe_progress(n->pe);
	ASSERT_EQ(n->state, DOCA_CTX_STATE_IDLE);
}

static inline void
node_start(struct node *n)
{
	ASSERT_OK(doca_ctx_start(n->ctx));
	ASSERT_EQ(n->state, DOCA_CTX_STATE_STARTING);
	for (int i = 0; i < 100000 && n->state != DOCA_CTX_STATE_RUNNING; i++)
		doca_pe_progress(n->pe);
	ASSERT_EQ(n->state, DOCA_CTX_STATE_RUNNING);
}

static inline void
send_blob(int fd, const void *buf, size_t len)
{
	uint32_t l = (uint32_t)len;

	ASSERT_EQ(write(fd, &l, sizeof(l)), (ssize_t)sizeof(l));
	ASSERT_EQ(write(fd, buf, len), (ssize_t)len);
}

static inline size_t
recv_blob(int fd, void *buf, size_t cap)
{
	uint32_t l;
	size_t got = 0;

	ASSERT_EQ(read(fd, &l, sizeof(l)), (ssize_t)sizeof(l));
	ASSERT(l <= cap);
	while (got < l) {
		ssize_t r = read(fd, (char *)buf + got, l - got);

		ASSERT(r > 0);
		got += (size_t)r;
	}
	return l;
}

static inline void
sync_send(int fd)
{
	char c = 's';

	ASSERT_EQ(write(fd, &c, 1), 1);
}

static inline void
sync_wait(int fd)
{
	char c;

	ASSERT_EQ(read(fd, &c, 1), 1);
}

/* Export a connection, swap descriptors with the peer and connect. */
static inline struct doca_rdma_connection *
node_connect(struct node *n)
{
	uint8_t peer[BLOB_MAX];
	struct doca_rdma_connection *conn;
	const void *blob;
	size_t len, plen;

	ASSERT_OK(doca_rdma_export(n->rdma, &blob, &len, &conn));
	ASSERT(len <= BLOB_MAX);
	send_blob(n->sock, blob, len);
	plen = recv_blob(n->sock, peer, sizeof(peer));
	ASSERT_OK(doca_rdma_connect(n->rdma, peer, plen, conn));
	n->conn = conn;
	return conn;
}

/* Export the local mmap to the peer. */
static inline void
node_send_mmap(struct node *n)
{
	const void *desc;
	size_t len;

	ASSERT_OK(doca_mmap_export_rdma(n->mmap, n->dev, &desc, &len));
	ASSERT(len <= BLOB_MAX);
	send_blob(n->sock, desc, len);
}

static inline struct doca_mmap *
node_recv_mmap(struct node *n)
{
	uint8_t desc[BLOB_MAX];
	struct doca_mmap *remote;
	size_t len = recv_blob(n->sock, desc, sizeof(desc));

	ASSERT_OK(doca_mmap_create_from_export(NULL, desc, len, n->dev, &remote));
	return remote;
}

static inline struct doca_buf *
buf_at(struct node *n, struct doca_mmap *mmap, void *addr, size_t len, size_t data_len)
{
	struct doca_buf *b;

	ASSERT_OK(doca_buf_inventory_buf_get_by_args(n->inv, mmap, addr, len, addr, data_len, &b));
	return b;
}

/* Stop (progressing until IDLE) and release everything. */
static inline void
node_close(struct node *n)
{
	doca_error_t err = doca_ctx_stop(n->ctx);

	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 1000000 && n->state != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(n->pe);
	ASSERT_EQ(n->state, DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_rdma_destroy(n->rdma));
	ASSERT_OK(doca_pe_destroy(n->pe));
	ASSERT_OK(doca_buf_inventory_stop(n->inv));
	ASSERT_OK(doca_buf_inventory_destroy(n->inv));
	ASSERT_OK(doca_mmap_stop(n->mmap));
	ASSERT_OK(doca_mmap_destroy(n->mmap));
	ASSERT_OK(doca_dev_close(n->dev));
	free(n->mem);
}

/*
 * A TCP port free a moment ago (RDMA-CM listeners), below the ephemeral
 * range: a port from bind(0) is ephemeral, and any outgoing connection on the
 * machine (UCX opens many) may take it as its source port before the listener
 * binds it ("Address already in use" with parallel runs).  Random, so
 * parallel runs do not pick the same one.
 */
static inline uint16_t
free_port(void)
{
	unsigned low = 20000, high = 32767, lo_eph = 0, hi_eph = 0;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	struct timespec ts;

	if (f != NULL) {
		if (fscanf(f, "%u %u", &lo_eph, &hi_eph) == 2 && lo_eph > 21000 && lo_eph <= 65536)
			high = lo_eph - 1;
		fclose(f);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	srand((unsigned)getpid() ^ (unsigned)ts.tv_nsec);
	for (int i = 0; i < 200; i++) {
		struct sockaddr_in a = {.sin_family = AF_INET};
		uint16_t port = (uint16_t)(low + (unsigned)rand() % (high - low + 1));
		int s = socket(AF_INET, SOCK_STREAM, 0);
		int rc;

		ASSERT(s >= 0);
		a.sin_addr.s_addr = htonl(INADDR_ANY);
		a.sin_port = htons(port);
		rc = bind(s, (struct sockaddr *)&a, sizeof(a));
		close(s);
		if (rc == 0)
			return port;
	}
	sd_test_fail(__FILE__, __LINE__, "no free TCP port in %u..%u", low, high);
	return 0;
}

static inline void
fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
}

/* Run a case over the default transports (shm/cma) and over tcp on loopback. */
#define BOTH(name)                                                                                                     \
	TEST(name##_shm)                                                                                               \
	{                                                                                                              \
		run_##name(0);                                                                                         \
	}                                                                                                              \
	TEST(name##_tcp)                                                                                               \
	{                                                                                                              \
		run_##name(1);                                                                                         \
	}

#endif /* RDMA_TEST_H_ */
