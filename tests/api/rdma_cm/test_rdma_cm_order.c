/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An orderly RDMA-CM disconnect never overtakes the data path: the peer's
 * DISCONNECT travels on the CM's own channel, yet the operations that the
 * peer answered before disconnecting complete successfully, receives it
 * filled are delivered before the disconnect callback, and remote sync-event
 * tasks leave the imported event destroyable.  Each case runs many rounds
 * (a new connection each) over shm and over tcp, because the race it guards
 * against showed up about once in twenty sample runs.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../rdma/rdma_test.h"

#define ROUNDS 25
#define MSGS 8

struct ord_node {
	struct node n;			   /* first: the ctx user data points here */
	struct doca_rdma_connection *conn; /* the current round's connection */
	int n_established, n_disconnect, n_failure;
	int n_recv;				     /* receives completed this round */
	int recv_bad;				     /* receives that failed or named another connection */
	bool disconnect_on_last;		     /* server: disconnect from the MSGS-th receive callback */
	bool many;				     /* several connections at once: check per connection */
	const struct doca_rdma_connection *got[256]; /* many: connections whose message was delivered */
	int n_got;
	int disconnect_before_recv; /* many: disconnect callback of a connection before its message */
};

static bool
ord_got(const struct ord_node *o, const struct doca_rdma_connection *conn)
{
	for (int i = 0; i < o->n_got; i++)
		if (o->got[i] == conn)
			return true;
	return false;
}

static void
ord_request_cb(struct doca_rdma_connection *conn, union doca_data ctx_user_data)
{
	(void)ctx_user_data;
	ASSERT_OK(doca_rdma_connection_accept(conn, NULL, 0));
}

static void
ord_established_cb(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_user_data)
{
	struct ord_node *o = ctx_user_data.ptr;

	(void)conn_ud;
	o->conn = conn;
	o->n_established++;
}

static void
ord_failure_cb(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_user_data)
{
	struct ord_node *o = ctx_user_data.ptr;

	(void)conn;
	(void)conn_ud;
	o->n_failure++;
}

static void
ord_disconnect_cb(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_user_data)
{
	struct ord_node *o = ctx_user_data.ptr;

	(void)conn_ud;
	o->n_disconnect++;
	if (o->many && !ord_got(o, conn))
		o->disconnect_before_recv++;
	ASSERT_OK(doca_rdma_connection_disconnect(conn));
}

static void
ord_receive_cb(struct doca_rdma_task_receive *task, union doca_data ud, union doca_data cud)
{
	struct ord_node *o = cud.ptr;
	struct doca_task *t = doca_rdma_task_receive_as_task(task);

	(void)ud;
	if (doca_task_get_status(t) != DOCA_SUCCESS) {
		/* receives still posted when the context stops are flushed */
		if (o->n.state == DOCA_CTX_STATE_RUNNING)
			o->recv_bad++;
		return;
	}
	if (o->many) {
		if (o->n_got < (int)(sizeof(o->got) / sizeof(o->got[0])))
			o->got[o->n_got++] = doca_rdma_task_receive_get_result_rdma_connection(task);
	} else if (doca_rdma_task_receive_get_result_rdma_connection(task) != o->conn) {
		o->recv_bad++;
	}
	o->n_recv++;
	/* what the DOCA samples do: answer the last message by disconnecting, from its callback */
	if (o->disconnect_on_last && o->n_recv == MSGS)
		ASSERT_OK(doca_rdma_connection_disconnect(o->conn));
}

static void
ord_open(struct ord_node *o, bool server, uint16_t max_conns)
{
	node_open(&o->n, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, max_conns);
	ASSERT_OK(doca_rdma_task_receive_set_conf(o->n.rdma, ord_receive_cb, ord_receive_cb, 64));
	ASSERT_OK(doca_rdma_task_send_set_conf(o->n.rdma, send_cb, send_cb, 64));
	ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
		o->n.rdma, remote_net_sync_event_notify_set_cb, remote_net_sync_event_notify_set_cb, 4));
	ASSERT_OK(doca_rdma_set_connection_state_callbacks(o->n.rdma, server ? ord_request_cb : NULL,
							   ord_established_cb, ord_failure_cb, ord_disconnect_cb));
}

static void
ord_connect(struct ord_node *o, uint16_t port)
{
	struct doca_rdma_addr *addr;
	int want = o->n_established + 1;

	ASSERT_OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", port, &addr));
	ASSERT_OK(doca_rdma_connect_to_addr(o->n.rdma, addr, (union doca_data){0}));
	ASSERT_OK(doca_rdma_addr_destroy(addr));
	ASSERT(node_wait(&o->n, &o->n_established, want, 10));
}

/* Send src on the current connection and wait until the peer acknowledged it. */
static struct doca_rdma_task_send *
ord_send_acked(struct ord_node *o, struct doca_buf *src)
{
	static struct result sr;
	struct doca_rdma_task_send *st;

	sr.done = 0;
	ASSERT_OK(doca_rdma_task_send_allocate_init(o->n.rdma, o->conn, src, (union doca_data){.ptr = &sr}, &st));
	ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	ASSERT(node_wait(&o->n, &sr.done, 1, 10));
	ASSERT_OK(sr.status);
	return st;
}

/*
 * The receiver disconnects from the receive callback of the last of MSGS
 * messages; the sender must see every send succeed (the receiver's ack went
 * out before its DISCONNECT), then its disconnect callback.
 */
static void
run_disconnect_from_receive_callback(int tcp)
{
	static struct ord_node o;
	uint16_t port = free_port();
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &o.n.sock)) {
		struct doca_rdma_task_receive *rt[MSGS];
		struct doca_buf *dst[MSGS];

		o.disconnect_on_last = true;
		ord_open(&o, true, 4);
		node_start(&o.n);
		ASSERT_OK(doca_rdma_start_listen_to_port(o.n.rdma, port));
		for (int i = 0; i < MSGS; i++) {
			dst[i] = buf_at(&o.n, o.n.mmap, o.n.mem + i * 64, 64, 0);
			ASSERT_OK(doca_rdma_task_receive_allocate_init(o.n.rdma, dst[i], (union doca_data){0}, &rt[i]));
		}
		sync_send(o.n.sock);
		for (int r = 0; r < ROUNDS; r++) {
			o.n_recv = 0;
			for (int i = 0; i < MSGS; i++) {
				doca_buf_reset_data_len(dst[i]);
				ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
			}
			sync_send(o.n.sock); /* receives posted: connect */
			ASSERT(node_wait(&o.n, &o.n_recv, MSGS, 10));
			/* the sender reports its round, then we go on */
			sync_wait(o.n.sock);
		}
		ASSERT_EQ(o.recv_bad, 0);
		ASSERT_EQ(o.n_established, ROUNDS);
		ASSERT_EQ(o.n_failure, 0);
		for (int i = 0; i < MSGS; i++) {
			doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
			doca_buf_dec_refcount(dst[i], NULL);
		}
		node_close(&o.n);
		_exit(0);
	}
	ord_open(&o, false, 1);
	node_start(&o.n);
	sync_wait(o.n.sock);
	for (int r = 0; r < ROUNDS; r++) {
		static struct result sr[MSGS];
		struct doca_rdma_task_send *st[MSGS];
		struct doca_buf *src[MSGS];
		int done = 0;

		sync_wait(o.n.sock);
		ord_connect(&o, port);
		memset(sr, 0, sizeof(sr));
		for (int i = 0; i < MSGS; i++) {
			src[i] = buf_at(&o.n, o.n.mmap, o.n.mem + i * 64, 64, 16);
			ASSERT_OK(doca_rdma_task_send_allocate_init(o.n.rdma, o.conn, src[i],
								    (union doca_data){.ptr = &sr[i]}, &st[i]));
			ASSERT_OK(doca_task_submit(doca_rdma_task_send_as_task(st[i])));
		}
		ASSERT(node_wait(&o.n, &o.n_disconnect, r + 1, 10));
		for (double end = now_s() + 5; done < MSGS && now_s() < end; doca_pe_progress(o.n.pe)) {
			done = 0;
			for (int i = 0; i < MSGS; i++)
				done += sr[i].done;
		}
		for (int i = 0; i < MSGS; i++) {
			if (sr[i].status != DOCA_SUCCESS)
				sd_test_fail(__FILE__, __LINE__, "round %d: send %d completed with %s", r, i,
					     doca_error_get_name(sr[i].status));
			ASSERT_EQ(sr[i].done, 1);
			doca_task_free(doca_rdma_task_send_as_task(st[i]));
			doca_buf_dec_refcount(src[i], NULL);
		}
		ASSERT_EQ(o.n.state, DOCA_CTX_STATE_RUNNING);
		sync_send(o.n.sock);
	}
	ASSERT_EQ(o.n_failure, 0);
	sd_test_reap(pid);
	node_close(&o.n);
}
BOTH(disconnect_from_receive_callback)

/*
 * Several senders each send one message and disconnect as soon as it is
 * acknowledged; the receiver must get every message, naming its connection,
 * before that connection's disconnect callback.
 */
static void
run_messages_before_disconnect_callbacks(int tcp)
{
	static struct ord_node o;
	uint16_t port = free_port();
	enum { SENDERS = 4 };
	pid_t pid[SENDERS];
	struct doca_rdma_task_receive *rt[SENDERS * ROUNDS / 5];
	struct doca_buf *dst[SENDERS * ROUNDS / 5];
	const int total = SENDERS * ROUNDS / 5;
	int sock[SENDERS];

	use_transport(tcp);
	for (int k = 0; k < SENDERS; k++) {
		if (sd_test_fork_peer(&pid[k], &o.n.sock)) {
			/* sender k: ROUNDS / 5 connections, one message each, disconnect once it is acked */
			struct doca_rdma_task_send *st;
			struct doca_buf *src;

			ord_open(&o, false, 1);
			node_start(&o.n);
			sync_wait(o.n.sock);
			src = buf_at(&o.n, o.n.mmap, o.n.mem, 64, 16);
			for (int r = 0; r < ROUNDS / 5; r++) {
				ord_connect(&o, port);
				st = ord_send_acked(&o, src);
				ASSERT_OK(doca_rdma_connection_disconnect(o.conn));
				doca_task_free(doca_rdma_task_send_as_task(st));
			}
			doca_buf_dec_refcount(src, NULL);
			node_close(&o.n);
			_exit(0);
		}
		sock[k] = o.n.sock;
	}
	/* a sender reconnects at once: its previous connection may still hold a slot */
	o.many = true;
	ord_open(&o, true, 64);
	node_start(&o.n);
	ASSERT_OK(doca_rdma_start_listen_to_port(o.n.rdma, port));
	for (int i = 0; i < total; i++) {
		dst[i] = buf_at(&o.n, o.n.mmap, o.n.mem + i * 64, 64, 0);
		ASSERT_OK(doca_rdma_task_receive_allocate_init(o.n.rdma, dst[i], (union doca_data){0}, &rt[i]));
		ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])));
	}
	for (int k = 0; k < SENDERS; k++)
		sync_send(sock[k]);
	ASSERT(node_wait(&o.n, &o.n_disconnect, total, 30));
	for (int i = 0; i < total; i++) {
		const struct doca_rdma_connection *from = doca_rdma_task_receive_get_result_rdma_connection(rt[i]);
		uint32_t id;

		ASSERT_OK(doca_task_get_status(doca_rdma_task_receive_as_task(rt[i])));
		ASSERT_NOT_NULL(from);
		ASSERT_OK(doca_rdma_connection_get_id(from, &id));
	}
	ASSERT_EQ(o.n_recv, total);
	ASSERT_EQ(o.recv_bad, 0);
	ASSERT_EQ(o.disconnect_before_recv, 0);
	for (int k = 0; k < SENDERS; k++)
		sd_test_reap(pid[k]);
	for (int i = 0; i < total; i++) {
		doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
		doca_buf_dec_refcount(dst[i], NULL);
	}
	node_close(&o.n);
}
BOTH(messages_before_disconnect_callbacks)

/*
 * A sender's message lands (the receiver's service thread places and acks it
 * while the application sleeps), then the sender dies without disconnecting.
 * When the receiver progresses again, the receive completion and the loss are
 * both waiting: the receive callback comes first, then the disconnect one.
 */
static void
run_receive_before_callback_of_dead_peer(int tcp)
{
	static struct ord_node o;
	uint16_t port = free_port();
	struct doca_rdma_task_receive *rt;
	struct doca_buf *dst;
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &o.n.sock)) {
		ord_open(&o, false, 1);
		node_start(&o.n);
		sync_wait(o.n.sock);
		ord_connect(&o, port);
		sync_wait(o.n.sock); /* the receiver stopped progressing */
		ord_send_acked(&o, buf_at(&o.n, o.n.mmap, o.n.mem, 64, 16));
		sync_send(o.n.sock);
		_exit(0); /* no disconnect, no teardown: the process is gone */
	}
	o.many = true;
	ord_open(&o, true, 4);
	node_start(&o.n);
	ASSERT_OK(doca_rdma_start_listen_to_port(o.n.rdma, port));
	dst = buf_at(&o.n, o.n.mmap, o.n.mem, 64, 0);
	ASSERT_OK(doca_rdma_task_receive_allocate_init(o.n.rdma, dst, (union doca_data){0}, &rt));
	ASSERT_OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	sync_send(o.n.sock);
	ASSERT(node_wait(&o.n, &o.n_established, 1, 10));
	sync_send(o.n.sock);
	sync_wait(o.n.sock); /* the message was acked: it is placed */
	sd_test_reap(pid);
	usleep(500 * 1000); /* the service thread sees the loss too */
	ASSERT_EQ(o.n_recv, 0);
	ASSERT(node_wait(&o.n, &o.n_disconnect, 1, 10));
	ASSERT_EQ(o.n_recv, 1);
	ASSERT_EQ(o.recv_bad, 0);
	ASSERT_EQ(o.disconnect_before_recv, 0);
	ASSERT_OK(doca_task_get_status(doca_rdma_task_receive_as_task(rt)));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_buf_dec_refcount(dst, NULL);
	node_close(&o.n);
}
BOTH(receive_before_callback_of_dead_peer)

/*
 * The requester sets the exporter's sync event over a CM connection and reads
 * it back; the exporter, which sees the value without progressing, disconnects
 * once told the read is answered.  Both must succeed every round, the context
 * must stay running across the disconnects, and the imported event must be
 * destroyable at the end (its task count balanced).
 */
static void
run_sync_event_set_then_disconnect(int tcp)
{
	static struct ord_node o;
	uint16_t port = free_port();
	const int rounds = ROUNDS;
	pid_t pid;

	use_transport(tcp);
	if (sd_test_fork_peer(&pid, &o.n.sock)) {
		struct doca_sync_event *se;
		const uint8_t *blob;
		size_t len;

		ord_open(&o, true, 4);
		ASSERT_OK(doca_rdma_set_permissions(
			o.n.rdma, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
					  DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC));
		ASSERT_OK(doca_sync_event_create(&se));
		ASSERT_OK(doca_sync_event_add_publisher_location_remote_net(se));
		ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(se, o.n.dev));
		ASSERT_OK(doca_sync_event_start(se));
		node_start(&o.n);
		ASSERT_OK(doca_sync_event_export_to_remote_net(se, &blob, &len));
		send_blob(o.n.sock, blob, len);
		ASSERT_OK(doca_rdma_start_listen_to_port(o.n.rdma, port));
		for (int r = 0; r < rounds; r++) {
			uint64_t v = 0;

			sync_send(o.n.sock);
			ASSERT(node_wait(&o.n, &o.n_established, r + 1, 10));
			/* like the sample's responder: spin on the value, no progress */
			ASSERT_OK(doca_sync_event_wait_gt(se, (uint64_t)r, UINT64_MAX));
			ASSERT_OK(doca_sync_event_get(se, &v));
			ASSERT_EQ(v, (uint64_t)r + 1);
			/* the requester's read is answered before the disconnect (a read racing it would fail,
			 * and any failed task stops the requester's context) */
			sync_wait(o.n.sock);
			ASSERT_OK(doca_rdma_connection_disconnect(o.conn));
			sync_wait(o.n.sock);
		}
		node_close(&o.n);
		ASSERT_OK(doca_sync_event_stop(se));
		ASSERT_OK(doca_sync_event_destroy(se));
		_exit(0);
	}
	{
		uint8_t blob[BLOB_MAX];
		struct doca_sync_event_remote_net *rse;
		struct doca_buf *src, *dst;
		size_t len;

		ord_open(&o, false, 1);
		ASSERT_OK(doca_rdma_task_remote_net_sync_event_get_set_conf(o.n.rdma, remote_net_sync_event_get_cb,
									    remote_net_sync_event_get_cb, 4));
		node_start(&o.n);
		len = recv_blob(o.n.sock, blob, sizeof(blob));
		ASSERT_OK(doca_sync_event_remote_net_create_from_export(o.n.dev, blob, len, &rse));
		src = buf_at(&o.n, o.n.mmap, o.n.mem, 8, 8);
		dst = buf_at(&o.n, o.n.mmap, o.n.mem + 64, 8, 0);
		for (int r = 0; r < rounds; r++) {
			static struct result sr, gr;
			struct doca_rdma_task_remote_net_sync_event_notify_set *set;
			struct doca_rdma_task_remote_net_sync_event_get *get;
			uint64_t v = (uint64_t)r + 1;

			sync_wait(o.n.sock);
			ord_connect(&o, port);
			memcpy(o.n.mem, &v, sizeof(v));
			doca_buf_reset_data_len(dst);
			sr.done = gr.done = 0;
			ASSERT_OK(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
				o.n.rdma, o.conn, rse, src, (union doca_data){.ptr = &sr}, &set));
			ASSERT_OK(doca_rdma_task_remote_net_sync_event_get_allocate_init(
				o.n.rdma, o.conn, rse, dst, (union doca_data){.ptr = &gr}, &get));
			ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set)));
			ASSERT_OK(doca_task_submit(doca_rdma_task_remote_net_sync_event_get_as_task(get)));
			ASSERT(node_wait(&o.n, &sr.done, 1, 5));
			ASSERT(node_wait(&o.n, &gr.done, 1, 5));
			if (sr.status != DOCA_SUCCESS || gr.status != DOCA_SUCCESS)
				sd_test_fail(__FILE__, __LINE__, "round %d: notify_set completed with %s, get with %s",
					     r, doca_error_get_name(sr.status), doca_error_get_name(gr.status));
			sync_send(o.n.sock);
			ASSERT(node_wait(&o.n, &o.n_disconnect, r + 1, 10));
			doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set));
			doca_task_free(doca_rdma_task_remote_net_sync_event_get_as_task(get));
			ASSERT_EQ(o.n.state, DOCA_CTX_STATE_RUNNING);
			sync_send(o.n.sock);
		}
		/* every task is accounted for: the import goes */
		ASSERT_OK(doca_sync_event_remote_net_destroy(rse));
		doca_buf_dec_refcount(src, NULL);
		doca_buf_dec_refcount(dst, NULL);
		sd_test_reap(pid);
		node_close(&o.n);
	}
}
BOTH(sync_event_set_then_disconnect)

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
