/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_perf rdma, the connections: doca_rdma_export/connect with descriptors
 * exchanged as files in --oob-dir (the server's memory descriptor too), or
 * RDMA-CM, where the server's memory descriptor is the first message on
 * connection 0.  Either way the side's connections end up in r->conn[].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include "perf_rdma.h"

/* Control slot i (0: messages sent, 1: the client's control receive) after the data area. */
uint8_t *
perf_rdma_ctl_mem(struct perf_rdma *r, int i)
{
	return r->mem + r->area + (size_t)i * PERF_RDMA_CTL_BYTES;
}

/* Post a receive of `len` bytes at `at`; ud PERF_RDMA_CTL_RECV marks the client's control receive. */
void
perf_rdma_post_recv(struct perf_rdma *r, uint8_t *at, size_t len, uint64_t ud_val)
{
	struct doca_rdma_task_receive *t;
	struct doca_buf *b;
	union doca_data ud = {.u64 = ud_val};

	PERF_TRY(doca_buf_inventory_buf_get_by_addr(r->inv, r->mmap, at, len, &b));
	PERF_TRY(doca_rdma_task_receive_allocate_init(r->rdma, b, ud, &t));
	PERF_TRY(perf_rdma_submit(r, doca_rdma_task_receive_as_task(t)));
}

static void
progress_until(struct perf_rdma *r, bool *flag, double timeout, const char *what)
{
	double t0 = perf_now();

	while (!*flag) {
		perf_rdma_progress(r);
		if (r->failed || perf_now() - t0 > timeout) {
			fprintf(stderr, "doca_perf: %s %s\n", what, r->failed ? "failed" : "timed out");
			exit(1);
		}
	}
}

/* Progress until all r->conns connections are established; exit 1 on a failure or (waiting_for) a dead server. */
static void
progress_until_connected(struct perf_rdma *r, const char *waiting_for)
{
	bool all;

	do {
		perf_rdma_progress(r);
		all = r->established >= r->conns;
		if (r->failed)
			exit(1);
		if (waiting_for != NULL)
			perf_child_check(waiting_for);
	} while (!all);
}

/*
 * Server: publish the connection descriptors, the memory descriptor and then a
 * ready file naming this run's nonce; wait for the client answering it.
 */
static void
oob_server_publish(struct perf_rdma *r)
{
	const char *dir = r->o->oob_dir;
	const void *desc;
	uint32_t *peer_nonce;
	size_t len;

	PERF_TRY(doca_mmap_export_rdma(r->mmap, r->dev, &desc, &len));
	perf_oob_put(dir, "server.mmap", desc, len);
	perf_oob_put(dir, "server.ready", &r->nonce, sizeof(r->nonce));
	for (;;) {
		peer_nonce = perf_oob_wait(dir, "client.ready", &len, 3600, "client");
		if (len == sizeof(r->nonce) && *peer_nonce == r->nonce)
			break;
		free(peer_nonce);
		usleep(10000);
	}
	free(peer_nonce);
}

static void
connect_oob(struct perf_rdma *r)
{
	const char *dir = r->o->oob_dir;
	const char *me = r->server ? "server" : "client", *peer = r->server ? "client" : "server";
	char name[64];
	const void *desc;
	size_t len;

	if (!r->server) {
		/* The server's ready file names its nonce: our files answer that run only. */
		uint32_t *peer_nonce = perf_oob_wait(dir, "server.ready", &len, 60, "server");

		r->nonce = *peer_nonce;
		free(peer_nonce);
	}
	for (uint32_t i = 0; i < r->conns; i++) {
		PERF_TRY(doca_rdma_export(r->rdma, &desc, &len, &r->conn[i]));
		snprintf(name, sizeof(name), "%s.conn.%u", me, i);
		perf_oob_put(dir, name, desc, len);
	}
	if (r->server) {
		oob_server_publish(r);
	} else {
		void *m = perf_oob_wait(dir, "server.mmap", &len, 10, "server");

		PERF_TRY(doca_mmap_create_from_export(NULL, m, len, r->dev, &r->remote));
		free(m);
		perf_oob_put(dir, "client.ready", &r->nonce, sizeof(r->nonce));
	}
	for (uint32_t i = 0; i < r->conns; i++) {
		void *blob;

		snprintf(name, sizeof(name), "%s.conn.%u", peer, i);
		blob = perf_oob_wait(dir, name, &len, 10, peer);
		PERF_TRY(doca_rdma_connect(r->rdma, blob, len, r->conn[i]));
		free(blob);
	}
	r->established = r->conns;
}

/* Server, CM: the memory descriptor goes to the client as the first message on connection 0. */
static void
cm_send_desc(struct perf_rdma *r)
{
	const void *desc;
	size_t len;
	struct doca_buf *b;
	struct doca_rdma_task_send *t;
	union doca_data ud = {.u64 = 0};

	PERF_TRY(doca_mmap_export_rdma(r->mmap, r->dev, &desc, &len));
	if (len > PERF_RDMA_CTL_BYTES) {
		fprintf(stderr, "doca_perf: memory descriptor larger than %d bytes\n", PERF_RDMA_CTL_BYTES);
		exit(1);
	}
	memcpy(perf_rdma_ctl_mem(r, 0), desc, len);
	PERF_TRY(doca_buf_inventory_buf_get_by_data(r->inv, r->mmap, perf_rdma_ctl_mem(r, 0), len, &b));
	PERF_TRY(doca_rdma_task_send_allocate_init(r->rdma, r->conn[0], b, ud, &t));
	PERF_TRY(perf_rdma_submit(r, doca_rdma_task_send_as_task(t)));
}

static void
connect_cm_server(struct perf_rdma *r)
{
	PERF_TRY(doca_rdma_start_listen_to_port(r->rdma, r->o->port));
	if (r->ready_fd >= 0 && (write(r->ready_fd, "L", 1) != 1 || close(r->ready_fd) != 0))
		exit(1);
	progress_until_connected(r, NULL);
	/* The send test's server needs no descriptor: nothing reaches its memory but messages. */
	if (r->op != PERF_RDMA_SEND)
		cm_send_desc(r);
}

static void
connect_cm_client(struct perf_rdma *r)
{
	struct doca_rdma_addr *addr;
	const char *ip = r->o->server_addr != NULL ? r->o->server_addr : "127.0.0.1";

	if (r->op != PERF_RDMA_SEND)
		perf_rdma_post_recv(r, perf_rdma_ctl_mem(r, 1), PERF_RDMA_CTL_BYTES, PERF_RDMA_CTL_RECV);
	if (r->ready_fd >= 0) {
		char c;

		if (perf_child_wait_byte(r->ready_fd, &c, 60, "the server to start listening") != 0)
			exit(1);
	}
	PERF_TRY(doca_rdma_addr_create(strchr(ip, ':') ? DOCA_RDMA_ADDR_TYPE_IPv6 : DOCA_RDMA_ADDR_TYPE_IPv4, ip,
				       r->o->port, &addr));
	for (uint32_t i = 0; i < r->conns; i++) {
		union doca_data ud = {.u64 = i};

		PERF_TRY(doca_rdma_connect_to_addr(r->rdma, addr, ud));
	}
	progress_until_connected(r, "its RDMA-CM connections");
	doca_rdma_addr_destroy(addr);
	if (r->op != PERF_RDMA_SEND)
		progress_until(r, &r->have_desc, 30, "waiting for the server's memory descriptor");
}

void
perf_rdma_connect(struct perf_rdma *r)
{
	if (!r->o->use_cm)
		connect_oob(r);
	else if (r->server)
		connect_cm_server(r);
	else
		connect_cm_client(r);
}
