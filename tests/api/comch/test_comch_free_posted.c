/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Freeing a posted Comch receive (the teardown of DOCA's Secure Channel: free the
 * posted post_recv tasks, drop their bufs, then stop the consumer): no error line,
 * one INFO line at the stop, no callback for a freed task, the freed buf never
 * touched again even when data arrives for it before the stop.  Other in-flight
 * tasks keep the refusal.  The consumer's mmap cannot be destroyed while the peer
 * may write into it.  A filled receive is known from the shared ring before any
 * record (so it can no longer be freed); the producer rings the doorbell only
 * for a consumer that sleeps.
 */
#include <poll.h>

#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "comch_pair.h"
#include "dev_test.h"

#define SLOT 4096
#define NUM_SLOTS 8
#define DROP_LINE "before stopping the consumer"

/* What the consumer's callbacks saw: the tag (task user data) of each task, in order. */
struct seen {
	int ok, failed;
	uint64_t ok_tags[16], failed_tags[16];
	size_t ok_len[16];
	doca_error_t last_status;
};

static void
recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	struct seen *s = cud.ptr;
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);

	ASSERT_OK(doca_buf_get_data_len(buf, &s->ok_len[s->ok & 15]));
	s->ok_tags[s->ok++ & 15] = tud.u64;
	doca_buf_dec_refcount(buf, NULL);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void
recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tud, union doca_data cud)
{
	struct seen *s = cud.ptr;
	struct doca_task *task = doca_comch_consumer_task_post_recv_as_task(t);

	s->last_status = doca_task_get_status(task);
	s->failed_tags[s->failed++ & 15] = tud.u64;
	doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(t), NULL);
	doca_task_free(task);
}

static int sends_ok, sends_err;

static void
send_done(struct doca_comch_producer_task_send *t, int *counter)
{
	(*counter)++;
	doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(t), NULL);
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void
send_ok(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	send_done(t, &sends_ok);
}

static void
send_err(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	send_done(t, &sends_err);
}

static int gone;
static uint32_t new_id;

static void
consumer_new(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	new_id = id;
}

static void
consumer_gone(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
	gone++;
}

/* Server-side consumer, client-side producer, each on its own PE; the library's lines go to a file. */
struct fixture {
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep;
	struct side s, c, cons_side, prod_side;
	struct side *all[4];
	struct doca_comch_consumer *cons;
	struct doca_comch_producer *prod;
	struct doca_buf_inventory *inv;
	struct doca_mmap *rx_mmap, *tx_mmap;
	uint8_t *rx_mem, *tx_mem; /* NUM_SLOTS slots of SLOT bytes each */
	uint32_t cid;
	struct seen seen;
	int log_fd;
};

static bool
nonzero(void *arg)
{
	return *(int *)arg != 0;
}

static bool
id_known(void *arg)
{
	return *(uint32_t *)arg != 0;
}

static void
fixture_init(struct fixture *f, uint32_t num_recv_tasks)
{
	memset(f, 0, sizeof(*f));
	f->log_fd = capture_sdk_log_at(DOCA_LOG_LEVEL_INFO);
	f->all[0] = &f->s;
	f->all[1] = &f->c;
	f->all[2] = &f->cons_side;
	f->all[3] = &f->prod_side;
	pair_connect_fastpath(&f->s, &f->c, &f->host, &f->dpu, &f->rep, consumer_new, consumer_gone);
	f->rx_mem = calloc(NUM_SLOTS, SLOT);
	f->tx_mem = calloc(NUM_SLOTS, SLOT);
	ASSERT_NOT_NULL(f->rx_mem);
	ASSERT_NOT_NULL(f->tx_mem);
	f->rx_mmap = pair_mmap(f->dpu, f->rx_mem, NUM_SLOTS * SLOT);
	f->tx_mmap = pair_mmap(f->host, f->tx_mem, NUM_SLOTS * SLOT);
	ASSERT_OK(doca_buf_inventory_create(2 * NUM_SLOTS, &f->inv));
	ASSERT_OK(doca_buf_inventory_start(f->inv));

	ASSERT_OK(doca_comch_consumer_create(f->s.conn, f->rx_mmap, &f->cons));
	ASSERT_OK(doca_pe_create(&f->cons_side.pe));
	f->cons_side.ctx = doca_comch_consumer_as_ctx(f->cons);
	ASSERT_OK(doca_pe_connect_ctx(f->cons_side.pe, f->cons_side.ctx));
	ASSERT_OK(doca_ctx_set_user_data(f->cons_side.ctx, (union doca_data){.ptr = &f->seen}));
	ASSERT_OK(doca_comch_consumer_task_post_recv_set_conf(f->cons, recv_ok, recv_err, num_recv_tasks));
	ASSERT_ERR(doca_ctx_start(f->cons_side.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(f->all, 3, id_known, &new_id, 5000);
	ASSERT_OK(doca_comch_consumer_get_id(f->cons, &f->cid));
	ASSERT_EQ(new_id, f->cid);

	ASSERT_OK(doca_comch_producer_create(f->c.conn, &f->prod));
	ASSERT_OK(doca_pe_create(&f->prod_side.pe));
	f->prod_side.ctx = doca_comch_producer_as_ctx(f->prod);
	ASSERT_OK(doca_pe_connect_ctx(f->prod_side.pe, f->prod_side.ctx));
	ASSERT_OK(doca_comch_producer_task_send_set_conf(f->prod, send_ok, send_err, 16));
	ASSERT_OK(doca_ctx_start(f->prod_side.ctx));
}

/* Post a receive of slot i's memory, tagged; returns the task. */
static struct doca_comch_consumer_task_post_recv *
post(struct fixture *f, int i, uint64_t tag)
{
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_buf *b;

	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(f->inv, f->rx_mmap, f->rx_mem + (size_t)i * SLOT, SLOT, &b));
	ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(f->cons, b, &t));
	doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(t), (union doca_data){.u64 = tag});
	ASSERT_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)));
	return t;
}

/* Send len bytes of tx slot i, all of value byte; the producer's result. */
static doca_error_t
send_bytes(struct fixture *f, int i, uint8_t byte, size_t len)
{
	struct doca_comch_producer_task_send *t;
	struct doca_buf *b;
	doca_error_t r;

	memset(f->tx_mem + (size_t)i * SLOT, byte, len);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(f->inv, f->tx_mmap, f->tx_mem + (size_t)i * SLOT, len, &b));
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(f->prod, b, NULL, 0, f->cid, &t));
	r = doca_task_submit(doca_comch_producer_task_send_as_task(t));
	if (r != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(t));
		doca_buf_dec_refcount(b, NULL);
	}
	return r;
}

/* Free a posted task and drop its buf, as the Secure Channel's teardown does. */
static void
free_posted(struct doca_comch_consumer_task_post_recv *t)
{
	struct doca_buf *b = doca_comch_consumer_task_post_recv_get_buf(t);

	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	doca_buf_dec_refcount(b, NULL);
}

static size_t
inflight(struct side *x)
{
	size_t n = 99;

	ASSERT_OK(doca_ctx_get_num_inflight_tasks(x->ctx, &n));
	return n;
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

static bool
tags_exclude(const struct seen *s, uint64_t tag)
{
	for (int i = 0; i < s->ok && i < 16; i++)
		if (s->ok_tags[i] == tag)
			return false;
	for (int i = 0; i < s->failed && i < 16; i++)
		if (s->failed_tags[i] == tag)
			return false;
	return true;
}

/* Stop a context, progressing every side until it is IDLE; returns doca_ctx_stop's result. */
static doca_error_t
stop_idle(struct fixture *f, struct side *x)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
	doca_error_t r = doca_ctx_stop(x->ctx);

	for (int i = 0; i < 100000 && st != DOCA_CTX_STATE_IDLE; i++) {
		ASSERT_OK(doca_ctx_get_state(x->ctx, &st));
		for (int j = 0; j < 4; j++)
			(void)doca_pe_progress(f->all[j]->pe);
	}
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	return r;
}

static void
fixture_fini(struct fixture *f)
{
	progress_until(f->all, 2, nonzero, &gone, 5000);
	ASSERT_OK(stop_idle(f, &f->prod_side));
	ASSERT_OK(doca_comch_producer_destroy(f->prod));
	ASSERT_OK(doca_pe_destroy(f->prod_side.pe));
	ASSERT_OK(doca_comch_consumer_destroy(f->cons));
	ASSERT_OK(doca_pe_destroy(f->cons_side.pe));
	side_fini(&f->c);
	side_fini(&f->s);
	ASSERT_OK(doca_buf_inventory_destroy(f->inv));
	ASSERT_OK(doca_mmap_destroy(f->rx_mmap));
	ASSERT_OK(doca_mmap_destroy(f->tx_mmap));
	free(f->rx_mem);
	free(f->tx_mem);
	ASSERT_OK(doca_dev_rep_close(f->rep));
	ASSERT_OK(doca_dev_close(f->dpu));
	ASSERT_OK(doca_dev_close(f->host));
}

static int want_ok;

static bool
ok_reached(void *arg)
{
	return ((struct seen *)arg)->ok >= want_ok;
}

/* The line naming the freed tasks: exactly one, at INFO, with the count. */
static void
assert_one_drop_line(const char *log, const char *count_text)
{
	const char *at = strstr(log, DROP_LINE), *start = at;

	if (at == NULL || count(log, DROP_LINE) != 1 || strstr(log, count_text) == NULL)
		sd_test_fail(__FILE__, __LINE__, "expected one line on the freed tasks (\"%s\"); log was:\n%s",
			     count_text, log);
	while (start > log && start[-1] != '\n')
		start--;
	if (strstr(start, "[INF]") == NULL || strstr(start, "[INF]") > at)
		sd_test_fail(__FILE__, __LINE__, "the line on the freed tasks is not at INFO:\n%s", log);
	if (count(log, "[ERR]") != 0)
		sd_test_fail(__FILE__, __LINE__, "an error line was logged:\n%s", log);
}

/* The exact order of DOCA's Secure Channel: post, exchange, free the posted ones + their bufs, stop, destroy. */
TEST(free_posted_receives_then_stop)
{
	struct fixture f;
	struct doca_comch_consumer_task_post_recv *t[4];

	fixture_init(&f, 4);
	for (int i = 0; i < 4; i++)
		t[i] = post(&f, i, 100 + (uint64_t)i);
	ASSERT_OK(send_bytes(&f, 0, 0x11, 300));
	ASSERT_OK(send_bytes(&f, 1, 0x22, 500));
	want_ok = 2;
	progress_until(f.all, 4, ok_reached, &f.seen, 5000);
	ASSERT_EQ(f.seen.ok_tags[0], 100);
	ASSERT_EQ(f.seen.ok_tags[1], 101);
	ASSERT_EQ(f.seen.ok_len[1], 500);
	ASSERT_EQ(f.rx_mem[SLOT + 499], 0x22);
	ASSERT_EQ(inflight(&f.cons_side), 2);

	free_posted(t[2]);
	free_posted(t[3]);
	ASSERT_EQ(inflight(&f.cons_side), 0);
	/* Nothing is left in flight: the stop is synchronous, and no callback names a freed task. */
	ASSERT_OK(stop_idle(&f, &f.cons_side));
	progress_for(f.all, 4, 20);
	ASSERT_EQ(f.seen.ok, 2);
	ASSERT_EQ(f.seen.failed, 0);
	ASSERT(tags_exclude(&f.seen, 102));
	ASSERT(tags_exclude(&f.seen, 103));
	fixture_fini(&f);
	ASSERT_EQ(sends_ok, 2);
	ASSERT_EQ(sends_err, 0);

	assert_one_drop_line(captured_log(f.log_fd), "freed 2 posted post_recv tasks");
}

/*
 * Data for a freed receive (it arrives between the free and the stop): it fills that
 * ring slot and is discarded - no callback, and the buf the program dropped (handed
 * out again over the same memory) is not touched.  A receive posted afterwards gets
 * the next message; one still posted at the stop is flushed; one INFO line.
 */
TEST(data_for_a_freed_receive_is_discarded)
{
	struct fixture f;
	struct doca_comch_consumer_task_post_recv *t[2];
	struct doca_buf *again;
	size_t len = 99;

	fixture_init(&f, 2);
	t[0] = post(&f, 0, 200);
	t[1] = post(&f, 1, 201);
	free_posted(t[0]);
	free_posted(t[1]);
	ASSERT_EQ(inflight(&f.cons_side), 0);

	/* The program takes the same memory again; the peer then fills both freed slots. */
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(f.inv, f.rx_mmap, f.rx_mem, SLOT, &again));
	ASSERT_OK(send_bytes(&f, 0, 0x33, 64));
	ASSERT_OK(send_bytes(&f, 1, 0x44, 128));
	progress_for(f.all, 4, 50);
	ASSERT_EQ(f.seen.ok + f.seen.failed, 0);
	ASSERT_OK(doca_buf_get_data_len(again, &len));
	ASSERT_EQ(len, 0);
	ASSERT_EQ(f.rx_mem[0], 0x33); /* the bytes are in the program's memory, as on hardware */
	/* Both slots are used up: nothing is posted. */
	ASSERT_ERR(send_bytes(&f, 2, 0x55, 32), DOCA_ERROR_AGAIN);

	/* A new receive (the same memory) takes the next message. */
	{
		struct doca_comch_consumer_task_post_recv *nt;

		ASSERT_OK(doca_comch_consumer_task_post_recv_alloc_init(f.cons, again, &nt));
		doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(nt), (union doca_data){.u64 = 202});
		ASSERT_OK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(nt)));
	}
	ASSERT_OK(send_bytes(&f, 2, 0x55, 32));
	want_ok = 1;
	progress_until(f.all, 4, ok_reached, &f.seen, 5000);
	ASSERT_EQ(f.seen.ok_tags[0], 202);
	ASSERT_EQ(f.seen.ok_len[0], 32);
	ASSERT_EQ(f.rx_mem[0], 0x55);

	/* One still posted at the stop is flushed through its error callback. */
	(void)post(&f, 3, 203);
	ASSERT_ERR(stop_idle(&f, &f.cons_side), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(f.seen.failed, 1);
	ASSERT_EQ(f.seen.failed_tags[0], 203);
	ASSERT_ERR(f.seen.last_status, DOCA_ERROR_IO_FAILED);
	ASSERT_EQ(f.seen.ok, 1);
	ASSERT(tags_exclude(&f.seen, 200));
	ASSERT(tags_exclude(&f.seen, 201));
	fixture_fini(&f);
	ASSERT_EQ(sends_ok, 3);
	assert_one_drop_line(captured_log(f.log_fd), "freed 2 posted post_recv tasks");
}

/* Only a posted receive may be freed in flight: a filled one not yet reported, and a producer send, are refused. */
TEST(other_in_flight_frees_are_refused)
{
	struct fixture f;
	struct doca_comch_consumer_task_post_recv *t;
	struct doca_comch_producer_task_send *st;
	struct doca_buf *b;

	fixture_init(&f, 2);
	t = post(&f, 0, 300);
	/* Sent, its completion not reported (no progress of the producer's PE): in flight. */
	memset(f.tx_mem, 0x66, 16);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(f.inv, f.tx_mmap, f.tx_mem, 16, &b));
	ASSERT_OK(doca_comch_producer_task_send_alloc_init(f.prod, b, NULL, 0, f.cid, &st));
	ASSERT_OK(doca_task_submit(doca_comch_producer_task_send_as_task(st)));
	doca_task_free(doca_comch_producer_task_send_as_task(st));
	ASSERT_EQ(inflight(&f.prod_side), 1);
	/* The FP_DATA record is handled by the server's PE; the consumer's own PE has not reported it. */
	for (int i = 0; i < 200; i++)
		(void)doca_pe_progress(f.s.pe);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	ASSERT_EQ(inflight(&f.cons_side), 1);
	ASSERT_EQ(count(captured_log(f.log_fd), "is in flight; free it in its completion or error callback"), 2);

	/* Both callbacks still come, with their results. */
	want_ok = 1;
	progress_until(f.all, 4, ok_reached, &f.seen, 5000);
	ASSERT_EQ(f.seen.ok_tags[0], 300);
	ASSERT_EQ(f.seen.ok_len[0], 16);
	progress_until(f.all, 4, nonzero, &sends_ok, 5000);
	ASSERT_OK(stop_idle(&f, &f.cons_side));
	fixture_fini(&f);
	ASSERT_EQ(count(captured_log(f.log_fd), DROP_LINE), 0);
}

/*
 * SOFTDOCA_STRICT=1 (docs/diagnostics.md "Strict mode"): the same teardown is rule 1, a task freed in
 * flight - one [softdoca-strict] line per freed receive, naming the consumer's task and this program
 * as the call site; the receives are still dropped as by default and nothing else is reported.
 */
TEST(strict_names_freed_posted_receives)
{
	struct fixture f;
	struct doca_comch_consumer_task_post_recv *t[2];
	const char *log;

	ASSERT_EQ(setenv("SOFTDOCA_STRICT", "1", 1), 0);
	fixture_init(&f, 2);
	for (int i = 0; i < 2; i++)
		t[i] = post(&f, i, 100 + (uint64_t)i);
	free_posted(t[0]);
	free_posted(t[1]);
	ASSERT_EQ(inflight(&f.cons_side), 0);
	ASSERT_OK(stop_idle(&f, &f.cons_side));
	fixture_fini(&f);
	log = captured_log(f.log_fd);
	ASSERT_EQ(count(log, "[softdoca-strict] task-freed-in-flight: comch_consumer post_recv task 0x"), 2);
	ASSERT_EQ(count(log, "dropped, it never completes"), 2);
	ASSERT_EQ(count(log, "called from test_comch_free_posted("), 2);
	ASSERT_EQ(count(log, "[softdoca-strict]"), 2);
	ASSERT_EQ(count(log, DROP_LINE), 1);
}

/* The peer may write into the consumer's mmap while the consumer is announced: the mmap cannot go before. */
TEST(consumer_pins_its_mmap)
{
	struct fixture f;

	fixture_init(&f, 2);
	ASSERT_ERR(doca_mmap_destroy(f.rx_mmap), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(stop_idle(&f, &f.cons_side));
	fixture_fini(&f);
}

static bool
readable(doca_notification_handle_t h)
{
	struct pollfd pfd = {.fd = (int)h, .events = POLLIN};

	return poll(&pfd, 1, 0) == 1;
}

/* Awake: a send costs the consumer's side no record.  Asleep on its PE: one doorbell record wakes it. */
TEST(sleeping_consumer_is_woken_by_the_doorbell)
{
	struct fixture f;
	doca_notification_handle_t srv, cons;

	fixture_init(&f, 2);
	ASSERT_OK(doca_pe_get_notification_handle(f.s.pe, &srv));
	ASSERT_OK(doca_pe_get_notification_handle(f.cons_side.pe, &cons));
	(void)post(&f, 0, 400);
	(void)post(&f, 1, 401);
	progress_for(f.all, 4, 20);
	ASSERT(!readable(srv));

	/* Awake (not armed): the completion is in the shared ring, nothing arrives on the connection. */
	ASSERT_OK(send_bytes(&f, 0, 0x71, 100));
	ASSERT(!readable(srv));
	want_ok = 1;
	for (int i = 0; i < 5000 && f.seen.ok < want_ok; i++)
		(void)doca_pe_progress(f.cons_side.pe);
	ASSERT_EQ(f.seen.ok, 1);
	ASSERT_EQ(f.seen.ok_tags[0], 400);
	ASSERT_EQ(f.seen.ok_len[0], 100);

	/* Asleep: the producer's next send rings the doorbell; the server's PE hears it and wakes the consumer's. */
	ASSERT_OK(doca_pe_request_notification(f.cons_side.pe));
	ASSERT(!readable(cons));
	ASSERT_OK(send_bytes(&f, 1, 0x72, 200));
	ASSERT(readable(srv));
	for (int i = 0; i < 5000 && !readable(cons); i++)
		(void)doca_pe_progress(f.s.pe);
	ASSERT(readable(cons));
	ASSERT_OK(doca_pe_clear_notification(f.cons_side.pe, cons));
	want_ok = 2;
	progress_until(f.all, 4, ok_reached, &f.seen, 5000);
	ASSERT_EQ(f.seen.ok_tags[1], 401);
	ASSERT_EQ(f.seen.ok_len[1], 200);
	ASSERT_EQ(f.rx_mem[SLOT], 0x72);
	ASSERT_OK(stop_idle(&f, &f.cons_side));
	fixture_fini(&f);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
