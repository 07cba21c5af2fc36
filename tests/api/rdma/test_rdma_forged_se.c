/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forged remote sync-event descriptors through the DOCA API: get, notify_set
 * and notify_add against an event exported with
 * doca_sync_event_export_to_remote_net(), its descriptor edited three ways -
 * the value's address moved to the next word, aimed at other memory of the
 * exporter (its RDMA context's buffer), a key bit flipped.  Each task
 * completes with NOT_PERMITTED, the event's value and the exporter's buffer
 * stay as they were, the exporter keeps running.  Over same-host shared
 * memory and over tcp.
 */
#include "rdma_test.h"

enum se_family { SE_GET, SE_SET, SE_ADD, SE_FAMILIES };
enum se_forgery { SE_SHIFTED, SE_OTHER_MEMORY, SE_KEY_FLIPPED, SE_FORGERIES };
/* One legal get before the forgeries: the checks do not refuse everything. */
#define SE_CONNECTIONS (SE_FAMILIES * SE_FORGERIES + 1)

/* Offsets in the descriptor (rdma_proto.h, fabric_proto.h): outer address, fabric blob address and key. */
#define SE_ADDR_OFF 16
#define SE_FABRIC_ADDR_OFF (32 + 16)
#define SE_FABRIC_KEY_OFF (32 + 40)

#define VALUE 0x5151515151515151ull

static void
set_addr(uint8_t *desc, uint64_t addr)
{
	memcpy(desc + SE_ADDR_OFF, &addr, 8);
	memcpy(desc + SE_FABRIC_ADDR_OFF, &addr, 8);
}

static void
exporter(struct node *n)
{
	struct doca_sync_event *se;
	const uint8_t *desc;
	uint64_t mem_addr, v;
	size_t len;

	node_open(n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE,
		  SE_CONNECTIONS);
	memset(n->mem, 0x3c, 4096);
	ASSERT_OK(doca_sync_event_create(&se));
	ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(se));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(se, n->dev));
	ASSERT_OK(doca_sync_event_start(se));
	ASSERT_OK(doca_sync_event_update_set(se, VALUE));
	node_start(n);
	ASSERT_OK(doca_sync_event_export_to_remote_net(se, &desc, &len));
	send_blob(n->sock, desc, len);
	mem_addr = (uintptr_t)n->mem;
	send_blob(n->sock, &mem_addr, sizeof(mem_addr));
	for (int c = 0; c < SE_CONNECTIONS; c++) {
		node_connect(n);
		sync_send(n->sock);
		sync_wait(n->sock); /* the task failed over there */
		ASSERT_OK(doca_sync_event_get(se, &v));
		ASSERT_EQ(v, VALUE);
		for (size_t i = 0; i < 4096; i++)
			ASSERT_EQ(n->mem[i], 0x3c);
		sync_send(n->sock);
	}
	node_close(n);
	ASSERT_OK(doca_sync_event_stop(se));
	ASSERT_OK(doca_sync_event_destroy(se));
	_exit(0);
}

/* Submit one task of family f on rse; returns its status. */
static doca_error_t
run_task(struct node *n, enum se_family f, struct doca_sync_event_remote_net *rse, struct doca_buf *buf)
{
	struct result r = {0};
	struct doca_task *t;

	switch (f) {
	case SE_GET: {
		struct doca_rdma_task_remote_net_sync_event_get *gt;

		ASSERT_OK(doca_rdma_task_remote_net_sync_event_get_allocate_init(n->rdma, n->conn, rse, buf,
										 (union doca_data){.ptr = &r}, &gt));
		t = doca_rdma_task_remote_net_sync_event_get_as_task(gt);
		break;
	}
	case SE_SET: {
		struct doca_rdma_task_remote_net_sync_event_notify_set *st;

		ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
			n->rdma, n->conn, rse, buf, (union doca_data){.ptr = &r}, &st));
		t = doca_rdma_task_remote_net_sync_event_notify_set_as_task(st);
		break;
	}
	default: {
		struct doca_rdma_task_remote_net_sync_event_notify_add *at;

		ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
			n->rdma, n->conn, rse, buf, 5, (union doca_data){.ptr = &r}, &at));
		t = doca_rdma_task_remote_net_sync_event_notify_add_as_task(at);
		break;
	}
	}
	ASSERT_OK(doca_task_submit(t));
	ASSERT(node_wait(n, &r.done, 1, 20));
	doca_task_free(t);
	return r.status;
}

static void
run_forged_sync_event(int tcp)
{
	struct node n = {0};
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &n.sock))
		exporter(&n);

	uint8_t desc[BLOB_MAX], forged[BLOB_MAX];
	uint64_t mem_addr, addr, v = 0x0101010101010101ull;
	size_t len;

	node_open(&n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	node_conf_all(&n);
	len = recv_blob(n.sock, desc, sizeof(desc));
	ASSERT_EQ(recv_blob(n.sock, &mem_addr, sizeof(mem_addr)), sizeof(mem_addr));
	memcpy(&addr, desc + SE_ADDR_OFF, 8);
	{
		/* the untouched descriptor: a get returns the exporter's value */
		struct doca_sync_event_remote_net *rse;
		struct doca_buf *buf;
		uint64_t got;

		ASSERT_OK(doca_sync_event_remote_net_create_from_export(n.dev, desc, len, &rse));
		buf = buf_at(&n, n.mmap, n.mem, 8, 0);
		node_start(&n);
		node_connect(&n);
		sync_wait(n.sock);
		ASSERT_OK(run_task(&n, SE_GET, rse, buf));
		memcpy(&got, n.mem, 8);
		ASSERT_EQ(got, VALUE);
		ASSERT_OK(doca_ctx_stop(n.ctx));
		wait_idle(&n);
		ASSERT_OK(doca_buf_dec_refcount(buf, NULL));
		ASSERT_OK(doca_sync_event_remote_net_destroy(rse));
		sync_send(n.sock);
		sync_wait(n.sock);
	}
	for (int f = 0; f < SE_FAMILIES; f++) {
		for (int c = 0; c < SE_FORGERIES; c++) {
			struct doca_sync_event_remote_net *rse;
			struct doca_buf *buf;
			doca_error_t st;

			memcpy(forged, desc, len);
			if (c == SE_SHIFTED)
				set_addr(forged, addr + 8);
			else if (c == SE_OTHER_MEMORY)
				set_addr(forged, mem_addr);
			else
				forged[SE_FABRIC_KEY_OFF + 9] ^= 0x02;
			ASSERT_OK(doca_sync_event_remote_net_create_from_export(n.dev, forged, len, &rse));
			memcpy(n.mem, &v, 8);
			buf = buf_at(&n, n.mmap, n.mem, 8,
				     f == SE_SET ? 8 : 0); /* set: the value; get, add: room for it */
			node_start(&n);
			node_connect(&n);
			sync_wait(n.sock); /* the exporter connected too */
			st = run_task(&n, (enum se_family)f, rse, buf);
			if (st != DOCA_ERROR_NOT_PERMITTED)
				fprintf(stderr, "# family %d, forgery %d: %s\n", f, c, doca_error_get_name(st));
			ASSERT_ERR(st, DOCA_ERROR_NOT_PERMITTED);
			/* a failed get brought nothing back */
			ASSERT_EQ(memcmp(n.mem, &v, 8), 0);
			wait_idle(&n);
			ASSERT_OK(doca_buf_dec_refcount(buf, NULL));
			ASSERT_OK(doca_sync_event_remote_net_destroy(rse));
			sync_send(n.sock);
			sync_wait(n.sock); /* the exporter checked its value and memory */
		}
	}
	sd_test_reap(pid);
	node_close(&n);
}
BOTH(forged_sync_event)

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
