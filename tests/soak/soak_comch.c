/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch traffic of the soak: the long-lived process is the server (DPU function 03:00.0,
 * representor of b1:00.0), the peer a client on b1:00.0 (tests/api/comch shows the pair).
 * Per round the server posts a 16 KiB buffer to a consumer on its connection and sends a
 * 1 KiB control message (the round number, then its pattern); the client echoes the message
 * (K_COMCH_MSG) and sends the round's pattern from a producer to that consumer, with the round
 * number as immediate data (K_COMCH_FAST).  The server checks every byte of both.  A killed
 * client shows as the connection's disconnect event or a failed send.
 */
#include <poll.h>
#include <string.h>

#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "../api/comch/comch_pair.h"
#include "sd_test_peer.h"
#include "soak.h"

#define CC_MSG 1024u
#define CC_FAST (16u * 1024u)
#define CC_HOST "0000:b1:00.0"
#define CC_DPU "0000:03:00.0"

struct cc {
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_pe *pe;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;
	uint8_t *mem;
	uint8_t msg[CC_MSG], sent[CC_MSG];
	uint32_t msg_len, cons_id;
	int msgs, gone, send_err, fast_done, prod_busy;
	bool buf_held; /* the server's consumer buffer, until the round or the stop released it */
	doca_error_t fast_status;
	uint64_t fast_imm;
};

static struct cc *cur; /* one Comch pair per process at a time: the callbacks' state */

static void
msg_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	(void)ev;
	(void)conn;
	cur->msg_len = len <= CC_MSG ? len : CC_MSG;
	memcpy(cur->msg, buf, cur->msg_len);
	cur->msgs++;
}

static void
conn_up(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn, uint8_t ok)
{
	(void)ev;
	ASSERT_EQ(ok, 1);
	cur->conn = conn;
}

static void
conn_down(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn, uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	cur->gone++;
}

static void
send_done(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (doca_task_get_status(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
		cur->send_err++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void
fast_recv(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	cur->fast_status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));
	if (cur->fast_status == DOCA_SUCCESS &&
	    doca_comch_consumer_task_post_recv_get_imm_data_len(t) == sizeof(cur->fast_imm))
		memcpy(&cur->fast_imm, doca_comch_consumer_task_post_recv_get_imm_data(t), sizeof(cur->fast_imm));
	cur->fast_done++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
fast_sent(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (doca_task_get_status(doca_comch_producer_task_send_as_task(t)) != DOCA_SUCCESS)
		cur->send_err++;
	cur->prod_busy = 0;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void
consumer_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	cur->cons_id = id;
}

static void
consumer_gone(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

/* Progress until *flag >= want, or the peer is gone / a send failed (false). */
static bool
cc_wait(const int *flag, int want, const char *what)
{
	double start = soak_now();

	while (*flag < want) {
		if (cur->gone != 0 || cur->send_err != 0)
			return false;
		if (doca_pe_progress(cur->pe) == 0)
			usleep(20);
		soak_watchdog(start, what);
	}
	soak_op_took(start);
	return true;
}

static void
cc_ctx_stop(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
	double start = soak_now();

	if (doca_ctx_stop(ctx) != DOCA_ERROR_IN_PROGRESS)
		return;
	while (st != DOCA_CTX_STATE_IDLE) {
		(void)doca_pe_progress(cur->pe);
		ASSERT_OK(doca_ctx_get_state(ctx, &st));
		soak_watchdog(start, "a Comch context stop");
	}
}

static void
cc_ctx_running(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_STARTING;
	double start = soak_now();
	doca_error_t err = doca_ctx_start(ctx);

	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	while (st != DOCA_CTX_STATE_RUNNING) {
		(void)doca_pe_progress(cur->pe);
		ASSERT_OK(doca_ctx_get_state(ctx, &st));
		soak_watchdog(start, "a Comch context start");
	}
}

static void
cc_mem(struct cc *c, size_t len)
{
	c->mem = calloc(1, len);
	ASSERT_NOT_NULL(c->mem);
	ASSERT_OK(doca_mmap_create(&c->mmap));
	ASSERT_OK(doca_mmap_add_dev(c->mmap, c->dev));
	ASSERT_OK(doca_mmap_set_memrange(c->mmap, c->mem, len));
	ASSERT_OK(doca_mmap_set_permissions(c->mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(c->mmap));
	ASSERT_OK(doca_buf_inventory_create(4, &c->inv));
	ASSERT_OK(doca_buf_inventory_start(c->inv));
	ASSERT_OK(doca_pe_create(&c->pe));
}

/* The server: start, hand the client its name, accept it, start a consumer on the connection. */
static void
comch_up(struct soak_cycle *sc)
{
	struct cc *c = calloc(1, sizeof(*c));
	char name[64];

	ASSERT_NOT_NULL(c);
	sc->state = cur = c;
	c->dev = sd_test_open_pci(CC_DPU);
	c->rep = open_rep(c->dev, CC_HOST);
	cc_mem(c, CC_FAST);
	snprintf(name, sizeof(name), "soak-%d-%llu", (int)getpid(), (unsigned long long)soak->cycles);
	ASSERT_OK(doca_comch_server_create(c->dev, c->rep, name, &c->server));
	ASSERT_OK(doca_comch_server_task_send_set_conf(c->server, send_done, send_done, 64));
	ASSERT_OK(doca_comch_server_event_msg_recv_register(c->server, msg_recv));
	ASSERT_OK(doca_comch_server_event_connection_status_changed_register(c->server, conn_up, conn_down));
	ASSERT_OK(doca_pe_connect_ctx(c->pe, doca_comch_server_as_ctx(c->server)));
	cc_ctx_running(doca_comch_server_as_ctx(c->server));
	ASSERT_EQ(write(sc->sock, name, sizeof(name)), (ssize_t)sizeof(name));
	for (double start = soak_now(); c->conn == NULL;) {
		if (doca_pe_progress(c->pe) == 0)
			usleep(20);
		soak_watchdog(start, "a Comch client's connection");
	}
	ASSERT_OK(doca_comch_consumer_create(c->conn, c->mmap, &c->cons));
	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(c->cons, fast_recv, fast_recv, 4));
	ASSERT_OK(doca_comch_consumer_set_imm_data_len(c->cons, sizeof(uint64_t)));
	ASSERT_OK(doca_pe_connect_ctx(c->pe, doca_comch_consumer_as_ctx(c->cons)));
	cc_ctx_running(doca_comch_consumer_as_ctx(c->cons));
}

static doca_error_t
comch_round(struct soak_cycle *sc, uint64_t r)
{
	struct cc *c = sc->state;
	struct doca_comch_consumer_task_post_recv *pt;
	struct doca_comch_task_send *st;
	int msgs = c->msgs, fast = c->fast_done;

	memset(c->mem, 0, CC_FAST);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(c->inv, c->mmap, c->mem, CC_FAST, &c->buf));
	c->buf_held = true;
	ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(c->cons, c->buf, &pt));
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(pt)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(pt));
		return DOCA_ERROR_CONNECTION_RESET;
	}
	soak_fill(c->sent, CC_MSG, r);
	memcpy(c->sent, &r, sizeof(r));
	if (doca_comch_server_task_send_alloc_init(c->server, c->conn, c->sent, CC_MSG, &st) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(st)) != DOCA_SUCCESS)
		c->send_err++;
	if (!cc_wait(&c->msgs, msgs + 1, "a Comch echo") ||
	    !cc_wait(&c->fast_done, fast + 1, "a Comch fast-path buffer"))
		return DOCA_ERROR_CONNECTION_RESET; /* the consumer's stop flushes the posted buffer */
	ASSERT_OK(doca_buf_dec_refcount(c->buf, NULL));
	c->buf_held = false;
	if (c->fast_status != DOCA_SUCCESS)
		return c->fast_status;
	if (c->msg_len != CC_MSG || memcmp(c->msg, c->sent, CC_MSG) != 0) {
		__atomic_add_fetch(&soak->corrupted, 1, __ATOMIC_SEQ_CST);
		sd_test_fail(__FILE__, __LINE__, "Comch round %llu: the echo differs", (unsigned long long)r);
	}
	soak_count(K_COMCH_MSG, 2 * CC_MSG);
	ASSERT_EQ(c->fast_imm, r);
	soak_verify(c->mem, CC_FAST, r, "Comch fast path");
	soak_count(K_COMCH_FAST, CC_FAST);
	return DOCA_SUCCESS;
}

static void
cc_free(struct cc *c)
{
	ASSERT_OK(doca_pe_destroy(c->pe));
	ASSERT_OK(doca_buf_inventory_stop(c->inv));
	ASSERT_OK(doca_buf_inventory_destroy(c->inv));
	ASSERT_OK(doca_mmap_stop(c->mmap));
	ASSERT_OK(doca_mmap_destroy(c->mmap));
	if (c->rep != NULL)
		ASSERT_OK(doca_dev_rep_close(c->rep));
	ASSERT_OK(doca_dev_close(c->dev));
	free(c->mem);
	free(c);
	cur = NULL;
}

static void
comch_down(struct soak_cycle *sc)
{
	struct cc *c = sc->state;

	cc_ctx_stop(doca_comch_consumer_as_ctx(c->cons)); /* flushes a posted buffer */
	if (c->buf_held)
		ASSERT_OK(doca_buf_dec_refcount(c->buf, NULL));
	ASSERT_OK(doca_comch_consumer_destroy(c->cons));
	cc_ctx_stop(doca_comch_server_as_ctx(c->server));
	ASSERT_OK(doca_comch_server_destroy(c->server));
	cc_free(c);
}

/* The client's turn: echo the message, then send the round's pattern to the consumer. */
static bool
client_echo(struct cc *c, uint8_t *imm)
{
	struct doca_comch_producer_task_send *pt;
	struct doca_comch_task_send *st;
	uint64_t r;

	memcpy(&r, c->msg, sizeof(r));
	if (doca_comch_client_task_send_alloc_init(c->client, c->conn, c->msg, c->msg_len, &st) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(st)) != DOCA_SUCCESS)
		return false;
	soak_fill(c->mem, CC_FAST, r);
	memcpy(imm, &r, sizeof(r));
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(c->prod, c->buf, imm, sizeof(r), c->cons_id, &pt));
	for (double start = soak_now();;) {
		doca_error_t err = doca_task_submit(doca_comch_producer_task_send_as_task(pt));

		if (err == DOCA_SUCCESS)
			break;
		if (err != DOCA_ERROR_AGAIN) {
			doca_task_free(doca_comch_producer_task_send_as_task(pt));
			return false;
		}
		(void)doca_pe_progress(c->pe);
		soak_watchdog(start, "a Comch producer waiting for a posted buffer");
	}
	c->prod_busy = 1;
	return true;
}

static void
client_open(struct cc *c, int sock)
{
	char name[64];

	c->dev = sd_test_open_pci(CC_HOST);
	cc_mem(c, CC_FAST);
	ASSERT_EQ(read(sock, name, sizeof(name)), (ssize_t)sizeof(name));
	ASSERT_OK(doca_comch_client_create(c->dev, name, &c->client));
	ASSERT_OK(doca_comch_client_task_send_set_conf(c->client, send_done, send_done, 64));
	ASSERT_OK(doca_comch_client_event_msg_recv_register(c->client, msg_recv));
	ASSERT_OK(doca_comch_client_event_consumer_register(c->client, consumer_new, consumer_gone));
	ASSERT_OK(doca_pe_connect_ctx(c->pe, doca_comch_client_as_ctx(c->client)));
	cc_ctx_running(doca_comch_client_as_ctx(c->client));
	ASSERT_OK(doca_comch_client_get_connection(c->client, &c->conn));
	ASSERT_OK(doca_comch_producer_create(c->conn, &c->prod));
	ASSERT_OK(doca_comch_producer_task_send_set_conf(c->prod, fast_sent, fast_sent, 4));
	ASSERT_OK(doca_pe_connect_ctx(c->pe, doca_comch_producer_as_ctx(c->prod)));
	cc_ctx_running(doca_comch_producer_as_ctx(c->prod));
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(c->inv, c->mmap, c->mem, CC_FAST, &c->buf));
}

static int
comch_peer(struct soak_cycle *sc)
{
	struct cc *c = calloc(1, sizeof(*c));
	uint8_t imm[sizeof(uint64_t)];
	int handled = 0, code = 0;

	ASSERT_NOT_NULL(c);
	cur = c;
	client_open(c, sc->sock);
	for (;;) {
		struct pollfd p = {.fd = sc->sock, .events = POLLIN};

		if (doca_pe_progress(c->pe) == 0)
			usleep(20);
		if (c->send_err != 0) {
			code = 3;
			break;
		}
		/* one round at a time: the producer's buffer is refilled only after its send completed */
		if (c->msgs > handled && !c->prod_busy && c->cons_id != 0) {
			handled++;
			if (!client_echo(c, imm)) {
				code = 3;
				break;
			}
		}
		if (poll(&p, 1, 0) == 1)
			break; /* 'q', or EOF */
	}
	cc_ctx_stop(doca_comch_producer_as_ctx(c->prod));
	ASSERT_OK(doca_comch_producer_destroy(c->prod));
	cc_ctx_stop(doca_comch_client_as_ctx(c->client));
	ASSERT_OK(doca_comch_client_destroy(c->client));
	ASSERT_OK(doca_buf_dec_refcount(c->buf, NULL));
	cc_free(c);
	return code;
}

const struct soak_kind_ops soak_comch_ops = {
	.name = "Comch",
	.peer = comch_peer,
	.up = comch_up,
	.round = comch_round,
	.down = comch_down,
};
