/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The error walk (tests/harness/sd_errwalk.h) of doca_comch.h,
 * doca_comch_consumer.h and doca_comch_producer.h: a row per (function,
 * error), each checking the status and the one explained line
 * ("<function>: <rule>; <fix>").  Out-of-memory rows go through the
 * library's own path with SOFTDOCA_FAULTS=comch.create=nomem.  The last
 * cases fail when a header declares a function that has no row.
 */
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>

#include "comch_pair.h"
#include "sd_errwalk.h"

#define DPU_PCI "03:00.0"
#define HOST_PCI "b1:00.0"

static void
errwalk_setup(void)
{
	pair_env();
}

static struct side srv, cli;

/* The DPU-side (true) or host-side function, opened once per case. */
static struct doca_dev *
side_dev(bool dpu_side)
{
	static struct doca_dev *d[2];

	if (d[dpu_side] == NULL)
		d[dpu_side] = open_dev(dpu_side ? DPU_PCI : HOST_PCI);
	return d[dpu_side];
}

#define dpu() side_dev(true)
#define host() side_dev(false)

static struct doca_dev_rep *
rep(void)
{
	return open_rep(dpu(), HOST_PCI);
}

/* An IDLE server and client, configured as the pair tests do. */
static struct doca_comch_server *
server(void)
{
	if (srv.server == NULL)
		server_init(&srv, dpu(), rep(), PAIR_NAME);
	return srv.server;
}

static struct doca_comch_client *
client(void)
{
	if (cli.client == NULL)
		client_init(&cli, host(), PAIR_NAME);
	return cli.client;
}

static bool
connected(void *arg)
{
	(void)arg;
	return srv.conn != NULL && cli.state == DOCA_CTX_STATE_RUNNING;
}

/* Start both and wait for the connection; returns the server's end of it. */
static struct doca_comch_connection *
conn(void)
{
	struct side *both[2] = {&srv, &cli};

	(void)server();
	(void)client();
	ASSERT_OK(doca_ctx_start(srv.ctx));
	ASSERT_ERR(doca_ctx_start(cli.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(both, 2, connected, NULL, 5000);
	return srv.conn;
}

static struct doca_devinfo *
devinfo(struct doca_dev *d)
{
	return doca_dev_as_devinfo(d);
}

static struct doca_comch_producer *
producer(void)
{
	struct doca_comch_producer *p;

	ASSERT_OK(doca_comch_producer_create(conn(), &p));
	return p;
}

/* The server's receive memory for a consumer. */
static struct doca_mmap *
rx_mmap(void)
{
	static char mem[4096];
	struct doca_mmap *m;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_add_dev(m, dpu()));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, sizeof(mem)));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(m));
	return m;
}

static struct doca_comch_consumer *
consumer(void)
{
	struct doca_comch_consumer *c;

	ASSERT_OK(doca_comch_consumer_create(conn(), rx_mmap(), &c));
	return c;
}

static void no_fp_send(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud);
static void no_fp_recv(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud);

/* Start a producer's or consumer's context on the server's PE (its tasks configured first). */
static void
start_fp(struct doca_ctx *ctx)
{
	doca_error_t err;

	ASSERT_OK(doca_pe_connect_ctx(srv.pe, ctx));
	err = doca_ctx_start(ctx);
	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
}

static struct doca_comch_consumer *
started_consumer(void)
{
	struct doca_comch_consumer *c = consumer();

	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(c, no_fp_recv, no_fp_recv, 4));
	start_fp(doca_comch_consumer_as_ctx(c));
	return c;
}

static struct doca_comch_producer *
started_producer(void)
{
	struct doca_comch_producer *p = producer();

	ASSERT_OK(doca_comch_producer_task_send_set_conf(p, no_fp_send, no_fp_send, 4));
	start_fp(doca_comch_producer_as_ctx(p));
	return p;
}

static bool
client_left(void *arg)
{
	(void)arg;
	return cli.state != DOCA_CTX_STATE_RUNNING;
}

/* The client's end of a connection the server ended (the client keeps its connection object). */
static struct doca_comch_connection *
ended_conn(void)
{
	struct side *both[2] = {&srv, &cli};
	struct doca_comch_connection *c;

	ASSERT_OK(doca_comch_server_disconnect(server(), conn()));
	ASSERT_OK(doca_comch_client_get_connection(client(), &c));
	progress_until(both, 2, client_left, NULL, 5000);
	errwalk_mark(); /* the client's report of the disconnection */
	return c;
}

static void
no_send(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
}

static void
no_conn(struct doca_comch_event_connection_status_changed *e, struct doca_comch_connection *c, uint8_t ok)
{
	(void)e;
	(void)c;
	(void)ok;
}

static void
no_consumer(struct doca_comch_event_consumer *e, struct doca_comch_connection *c, uint32_t id)
{
	(void)e;
	(void)c;
	(void)id;
}

static void
no_recv(struct doca_comch_event_msg_recv *e, uint8_t *msg, uint32_t len, struct doca_comch_connection *c)
{
	(void)e;
	(void)msg;
	(void)len;
	(void)c;
}

static void
no_fp_send(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
}

static void
no_fp_recv(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)t;
	(void)tud;
	(void)cud;
}

/*
 * A create through the library's out-of-memory path (the fault knob is read at the first DOCA call); skip: how many
 * Comch creates of the case pass first (a producer's or consumer's comes after the server's and the client's).
 */
#define NOMEM_ROW(fn, skip, ...)                                                                                       \
	ERR_ROW(fn, NO_MEMORY, {                                                                                       \
		ASSERT_EQ(setenv("SOFTDOCA_FAULTS", "comch.create=nomem@" #skip, 1), 0);                               \
		__VA_ARGS__                                                                                            \
	})

/* Capabilities: a NULL devinfo or output is refused; a side that has no server / client is an answer. */
#define CAP_U32(fn)                                                                                                    \
	ERR_NULL(fn, NULL)                                                                                             \
	ERR_ROW_N(fn, INVALID_VALUE, _out, { return fn(devinfo(dpu()), NULL); })
CAP_U32(doca_comch_cap_get_max_msg_size)
CAP_U32(doca_comch_cap_get_max_recv_queue_size)
CAP_U32(doca_comch_cap_get_max_name_len)
CAP_U32(doca_comch_cap_get_max_clients)
CAP_U32(doca_comch_cap_get_max_send_tasks)
CAP_U32(doca_comch_consumer_cap_get_max_num_tasks)
CAP_U32(doca_comch_consumer_cap_get_max_buf_size)
CAP_U32(doca_comch_consumer_cap_get_max_buf_list_len)
CAP_U32(doca_comch_consumer_cap_get_max_consumers)
CAP_U32(doca_comch_consumer_cap_get_max_imm_data_len)
CAP_U32(doca_comch_producer_cap_get_max_num_tasks)
CAP_U32(doca_comch_producer_cap_get_max_buf_size)
CAP_U32(doca_comch_producer_cap_get_max_buf_list_len)
CAP_U32(doca_comch_producer_cap_get_max_producers)
ERR_NULL(doca_comch_cap_server_is_supported)
ERR_ANSWER(doca_comch_cap_server_is_supported, NOT_SUPPORTED,
	   { return doca_comch_cap_server_is_supported(devinfo(host())); })
ERR_NULL(doca_comch_cap_client_is_supported)
ERR_ANSWER(doca_comch_cap_client_is_supported, NOT_SUPPORTED,
	   { return doca_comch_cap_client_is_supported(devinfo(dpu())); })
ERR_NULL(doca_comch_consumer_cap_is_supported)
ERR_NULL(doca_comch_producer_cap_is_supported)

/* Connections */
ERR_ROW_N(doca_comch_connection_set_user_data, INVALID_VALUE, _null,
	  { return doca_comch_connection_set_user_data(NULL, (union doca_data){.u64 = 1}); })
ERR_NULL(doca_comch_connection_update_info)
ERR_NULL(doca_comch_connection_get_counter, DOCA_COMCH_COUNTER_SENT_MESSAGES, NULL)
ERR_ROW_N(doca_comch_connection_get_counter, INVALID_VALUE, _counter, {
	uint64_t v;

	return doca_comch_connection_get_counter(conn(), (enum doca_comch_counter)77, &v);
})

/* Servers */
ERR_NULL(doca_comch_server_create, NULL, NULL, NULL)
ERR_ROW(doca_comch_server_create, NOT_SUPPORTED, {
	struct doca_comch_server *s;

	return doca_comch_server_create(host(), rep(), PAIR_NAME, &s);
})
ERR_ROW_N(doca_comch_server_create, INVALID_VALUE, _name, {
	struct doca_comch_server *s;

	return doca_comch_server_create(dpu(), rep(), "", &s);
})
ERR_NOT_PROVOKED_N(doca_comch_server_create, INVALID_VALUE, _rep,
		   "a representor of another DPU needs a second DPU in the topology")
NOMEM_ROW(doca_comch_server_create, 0, {
	struct doca_comch_server *s;

	return doca_comch_server_create(dpu(), rep(), PAIR_NAME, &s);
})
ERR_NULL(doca_comch_server_destroy)
ERR_ROW(doca_comch_server_destroy, BAD_STATE, {
	(void)conn();
	return doca_comch_server_destroy(srv.server);
})
#define EP_SIZE(fn, ep, bad)                                                                                           \
	ERR_NULL(fn, 1)                                                                                                \
	ERR_ROW_N(fn, INVALID_VALUE, _range, { return fn(ep(), bad); })                                                \
	ERR_ROW(fn, BAD_STATE, {                                                                                       \
		(void)conn();                                                                                          \
		return fn(ep(), 64);                                                                                   \
	})
EP_SIZE(doca_comch_server_set_max_msg_size, server, 0)
EP_SIZE(doca_comch_server_set_recv_queue_size, server, 0)
EP_SIZE(doca_comch_client_set_max_msg_size, client, 0)
EP_SIZE(doca_comch_client_set_recv_queue_size, client, 0)
#define OUT_NULL(fn, ep)                                                                                               \
	ERR_NULL(fn, NULL)                                                                                             \
	ERR_ROW_N(fn, INVALID_VALUE, _out, { return fn(ep(), NULL); })
OUT_NULL(doca_comch_server_get_max_msg_size, server)
OUT_NULL(doca_comch_server_get_recv_queue_size, server)
OUT_NULL(doca_comch_server_get_device, server)
OUT_NULL(doca_comch_server_get_device_repr, server)
OUT_NULL(doca_comch_client_get_max_msg_size, client)
OUT_NULL(doca_comch_client_get_recv_queue_size, client)
OUT_NULL(doca_comch_client_get_device, client)
OUT_NULL(doca_comch_client_get_connection, client)
ERR_ROW(doca_comch_client_get_connection, BAD_STATE, {
	struct doca_comch_connection *c;

	return doca_comch_client_get_connection(client(), &c);
})

/* Send tasks of servers and clients (the task pool's checks are Core's, named after the call) */
#define SEND_CONF(fn, ep)                                                                                              \
	ERR_NULL(fn, no_send, no_send, 4)                                                                              \
	ERR_ROW_N(fn, INVALID_VALUE, _cb, { return fn(ep(), no_send, NULL, 4); })                                      \
	ERR_ROW_N(fn, INVALID_VALUE, _num, { return fn(ep(), no_send, no_send, 0); })                                  \
	ERR_ROW(fn, BAD_STATE, {                                                                                       \
		(void)conn();                                                                                          \
		return fn(ep(), no_send, no_send, 4);                                                                  \
	})
SEND_CONF(doca_comch_server_task_send_set_conf, server)
SEND_CONF(doca_comch_client_task_send_set_conf, client)
ERR_NULL(doca_comch_server_task_send_alloc_init, NULL, NULL, 0, NULL)
ERR_ROW_N(doca_comch_server_task_send_alloc_init, INVALID_VALUE, _args,
	  { return doca_comch_server_task_send_alloc_init(server(), NULL, NULL, 0, NULL); })
ERR_ROW_N(doca_comch_server_task_send_alloc_init, INVALID_VALUE, _size, {
	static char big[1 << 16];
	struct doca_comch_task_send *t;

	return doca_comch_server_task_send_alloc_init(server(), conn(), big, sizeof(big), &t);
})
ERR_ROW_N(doca_comch_client_task_send_alloc_init, INVALID_VALUE, _other, {
	struct doca_comch_task_send *t;

	return doca_comch_client_task_send_alloc_init(client(), conn(), "x", 1, &t);
})
ERR_ROW(doca_comch_client_task_send_alloc_init, BAD_STATE, {
	struct doca_comch_task_send *t;

	return doca_comch_client_task_send_alloc_init(client(), ended_conn(), "x", 1, &t);
})
ERR_ROW_N(doca_comch_client_task_send_alloc_init, INVALID_VALUE, _null,
	  { return doca_comch_client_task_send_alloc_init(NULL, NULL, NULL, 0, NULL); })
ERR_NOT_PROVOKED(doca_comch_server_task_send_alloc_init, BAD_STATE,
		 "needs a connection of this server that is not open: a closed one is freed at once")

/* Event registrations: NULL, and after doca_ctx_start() */
ERR_NULL(doca_comch_server_event_msg_recv_register, no_recv)
ERR_ROW(doca_comch_server_event_msg_recv_register, BAD_STATE, {
	(void)conn();
	return doca_comch_server_event_msg_recv_register(server(), no_recv);
})
ERR_NULL(doca_comch_client_event_msg_recv_register, no_recv)
ERR_ROW(doca_comch_client_event_msg_recv_register, BAD_STATE, {
	(void)conn();
	return doca_comch_client_event_msg_recv_register(client(), no_recv);
})
#define CONN_REGISTER(fn)                                                                                              \
	ERR_NULL(fn, no_conn, no_conn)                                                                                 \
	ERR_ROW(fn, BAD_STATE, {                                                                                       \
		(void)conn();                                                                                          \
		return fn(server(), no_conn, no_conn);                                                                 \
	})
CONN_REGISTER(doca_comch_server_event_connection_status_changed_register)
CONN_REGISTER(doca_comch_server_event_connection_register)
#define CONSUMER_REGISTER(fn, ep)                                                                                      \
	ERR_NULL(fn, no_consumer, no_consumer)                                                                         \
	ERR_ROW_N(fn, INVALID_VALUE, _cb, { return fn(ep(), no_consumer, NULL); })                                     \
	ERR_ROW(fn, BAD_STATE, {                                                                                       \
		(void)conn();                                                                                          \
		return fn(ep(), no_consumer, no_consumer);                                                             \
	})
CONSUMER_REGISTER(doca_comch_server_event_consumer_register, server)
CONSUMER_REGISTER(doca_comch_client_event_consumer_register, client)
ERR_NULL(doca_comch_server_disconnect, NULL)
ERR_ROW(doca_comch_server_disconnect, IN_USE, {
	(void)producer();
	return doca_comch_server_disconnect(server(), srv.conn);
})
ERR_NOT_PROVOKED(doca_comch_server_disconnect, BAD_STATE,
		 "needs a connection that ended but is not freed yet (events pending): a timing window")

/* Clients */
ERR_NULL(doca_comch_client_create, NULL, NULL)
ERR_ROW(doca_comch_client_create, NOT_SUPPORTED, {
	struct doca_comch_client *c;

	return doca_comch_client_create(dpu(), PAIR_NAME, &c);
})
ERR_ROW_N(doca_comch_client_create, INVALID_VALUE, _name, {
	struct doca_comch_client *c;

	return doca_comch_client_create(host(), "", &c);
})
NOMEM_ROW(doca_comch_client_create, 0, {
	struct doca_comch_client *c;

	return doca_comch_client_create(host(), PAIR_NAME, &c);
})
ERR_NULL(doca_comch_client_destroy)
ERR_ROW(doca_comch_client_destroy, BAD_STATE, {
	(void)conn();
	return doca_comch_client_destroy(client());
})

/* Producers */
ERR_NULL(doca_comch_producer_create, NULL)
ERR_ROW(doca_comch_producer_create, BAD_STATE, {
	struct doca_comch_producer *p;

	return doca_comch_producer_create(ended_conn(), &p);
})
NOMEM_ROW(doca_comch_producer_create, 2, {
	struct doca_comch_producer *p;

	return doca_comch_producer_create(conn(), &p);
})
ERR_NULL(doca_comch_producer_destroy)
ERR_ROW(doca_comch_producer_destroy, BAD_STATE, { return doca_comch_producer_destroy(started_producer()); })
ERR_NULL(doca_comch_producer_get_id, NULL)
ERR_ROW_N(doca_comch_producer_get_id, INVALID_VALUE, _out, { return doca_comch_producer_get_id(producer(), NULL); })
ERR_NULL(doca_comch_producer_task_send_set_conf, no_fp_send, no_fp_send, 4)
ERR_ROW_N(doca_comch_producer_task_send_set_conf, INVALID_VALUE, _num,
	  { return doca_comch_producer_task_send_set_conf(producer(), no_fp_send, no_fp_send, 0); })
ERR_NULL(doca_comch_producer_task_send_alloc_init, NULL, NULL, 0, 1, NULL)
ERR_ROW(doca_comch_producer_task_send_alloc_init, BAD_STATE, {
	struct doca_comch_producer_task_send *t;

	return doca_comch_producer_task_send_alloc_init(producer(), NULL, NULL, 0, 1, &t);
})
/* Every task allocated: flow control, logged at DBG only (free one or raise num_tasks). */
ERR_ANSWER(doca_comch_producer_task_send_alloc_init, NO_MEMORY, {
	struct doca_comch_producer *p = producer();
	struct doca_comch_producer_task_send *t;

	ASSERT_OK(doca_comch_producer_task_send_set_conf(p, no_fp_send, no_fp_send, 1));
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(p, NULL, NULL, 0, 1, &t));
	return doca_comch_producer_task_send_alloc_init(p, NULL, NULL, 0, 1, &t);
})
ERR_ROW_N(doca_comch_producer_task_send_alloc_init, INVALID_VALUE, _imm, {
	static uint8_t imm[1024];
	struct doca_comch_producer_task_send *t;

	return doca_comch_producer_task_send_alloc_init(producer(), NULL, imm, sizeof(imm), 1, &t);
})

/* Consumers */
ERR_NULL(doca_comch_consumer_create, NULL, NULL)
NOMEM_ROW(doca_comch_consumer_create, 2, {
	struct doca_comch_consumer *c;
	struct doca_comch_connection *cn = conn();

	return doca_comch_consumer_create(cn, rx_mmap(), &c);
})
ERR_NULL(doca_comch_consumer_destroy)
ERR_ROW(doca_comch_consumer_destroy, BAD_STATE, { return doca_comch_consumer_destroy(started_consumer()); })
ERR_ROW(doca_comch_consumer_create, BAD_STATE, {
	struct doca_comch_consumer *c;

	return doca_comch_consumer_create(ended_conn(), rx_mmap(), &c);
})
ERR_NULL(doca_comch_consumer_get_id, NULL)
ERR_NULL(doca_comch_consumer_set_imm_data_len, 0)
ERR_ROW_N(doca_comch_consumer_set_imm_data_len, INVALID_VALUE, _len,
	  { return doca_comch_consumer_set_imm_data_len(consumer(), 1u << 20); })
ERR_ROW(doca_comch_consumer_set_imm_data_len, BAD_STATE,
	{ return doca_comch_consumer_set_imm_data_len(started_consumer(), 8); })
ERR_NULL(doca_comch_consumer_get_imm_data_len, NULL)
ERR_NULL(doca_comch_consumer_task_post_recv_set_conf, no_fp_recv, no_fp_recv, 4)
ERR_ROW_N(doca_comch_consumer_task_post_recv_set_conf, INVALID_VALUE, _num,
	  { return doca_comch_consumer_task_post_recv_set_conf(consumer(), no_fp_recv, no_fp_recv, 0); })
ERR_NULL(doca_comch_consumer_task_post_recv_alloc_init, NULL, NULL)
ERR_ROW(doca_comch_consumer_task_post_recv_alloc_init, BAD_STATE, {
	struct doca_comch_consumer_task_post_recv *t;

	return doca_comch_consumer_task_post_recv_alloc_init(consumer(), NULL, &t);
})
ERR_ANSWER(doca_comch_consumer_task_post_recv_alloc_init, NO_MEMORY, {
	struct doca_comch_consumer *c = consumer();
	struct doca_comch_consumer_task_post_recv *t;

	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(c, no_fp_recv, no_fp_recv, 1));
	ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(c, NULL, &t));
	return doca_comch_consumer_task_post_recv_alloc_init(c, NULL, &t);
})

TEST(every_function_of_the_comch_headers_has_a_row)
{
	printf("# doca_comch.h: %u, doca_comch_consumer.h: %u, doca_comch_producer.h: %u functions return a "
	       "doca_error_t, all walked\n",
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_comch.h"),
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_comch_consumer.h"),
	       errwalk_check_header(SD_INCLUDE_DIR "/doca_comch_producer.h"));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
