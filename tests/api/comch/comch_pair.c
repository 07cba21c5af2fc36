/* SPDX-License-Identifier: BSD-3-Clause */
/* The Comch test fixture (comch_pair.h). */
#include <stdio.h>
#include <time.h>

#include "comch_pair.h"

void
pair_env(void)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/rt", sd_test_tmpdir());
	setenv("SOFTDOCA_RUNTIME_DIR", dir, 1);
	setenv("SOFTDOCA_TOPOLOGY", "builtin", 1);
}

struct doca_dev *
open_dev(const char *pci)
{
	return sd_test_open_pci(pci);
}

struct doca_dev_rep *
open_rep(struct doca_dev *dpu, const char *pci)
{
	struct doca_devinfo_rep **list;
	struct doca_dev_rep *rep = NULL;
	uint32_t n;

	ASSERT_OK(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &list, &n));
	for (uint32_t i = 0; i < n && rep == NULL; i++) {
		uint8_t is = 0;

		ASSERT_OK(doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &is));
		if (is)
			ASSERT_OK(doca_dev_rep_open(list[i], &rep));
	}
	ASSERT_OK(doca_devinfo_rep_destroy_list(list));
	ASSERT_NOT_NULL(rep);
	return rep;
}

void
log_line(struct cb_log *log, char tag, const char *what)
{
	if (log == NULL || log->n >= LOG_MAX)
		return;
	snprintf(log->lines[log->n++], sizeof(log->lines[0]), "%c:%s", tag, what);
}

static struct side *
side_of_ctx(struct doca_ctx *ctx)
{
	union doca_data ud;

	ASSERT_OK(doca_ctx_get_user_data(ctx, &ud));
	return ud.ptr;
}

static struct side *
side_of_conn(struct doca_comch_connection *conn)
{
	struct doca_comch_server *s = doca_comch_server_get_server_ctx(conn);

	if (s != NULL)
		return side_of_ctx(doca_comch_server_as_ctx(s));
	return side_of_ctx(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)));
}

void
pair_send_ok(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	struct side *x = cud.ptr;

	(void)tud;
	x->num_send_ok++;
	x->last_send_status = DOCA_SUCCESS;
	log_line(x->log, x->tag, "send_ok");
	doca_task_free(doca_comch_task_send_as_task(t));
}

void
pair_send_err(struct doca_comch_task_send *t, union doca_data tud, union doca_data cud)
{
	struct side *x = cud.ptr;

	(void)tud;
	x->num_send_err++;
	x->last_send_status = doca_task_get_status(doca_comch_task_send_as_task(t));
	log_line(x->log, x->tag, "send_err");
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void
recv_cb(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct side *x = side_of_conn(conn);
	char what[40];

	(void)ev;
	x->num_recv++;
	x->last_len = len;
	memcpy(x->last_msg, buf, len);
	snprintf(what, sizeof(what), "recv:%.*s", len < 24 ? (int)len : 24, (const char *)buf);
	log_line(x->log, x->tag, what);
	if (x->reply)
		ASSERT_OK(side_send(x, conn, buf, len));
}

static void
connect_cb(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn, uint8_t ok)
{
	struct side *x = side_of_conn(conn);

	(void)ev;
	ASSERT_EQ(ok, 1);
	x->num_connect++;
	x->conn = conn;
	log_line(x->log, x->tag, "connect");
}

static void
disconnect_cb(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn, uint8_t ok)
{
	struct side *x = side_of_conn(conn);

	(void)ev;
	(void)ok;
	x->num_disconnect++;
	if (x->conn == conn)
		x->conn = NULL;
	log_line(x->log, x->tag, "disconnect");
}

static void
state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	struct side *x = ud.ptr;

	(void)ctx;
	ASSERT_EQ(prev, x->state);
	x->state = next;
	if (x->num_transitions < 8)
		x->transitions[x->num_transitions++] = next;
	if (next == DOCA_CTX_STATE_RUNNING && x->client != NULL)
		ASSERT_OK(doca_comch_client_get_connection(x->client, &x->conn));
}

static void
common_conf(struct side *x)
{
	ASSERT_OK(doca_pe_create(&x->pe));
	ASSERT_OK(doca_pe_connect_ctx(x->pe, x->ctx));
	ASSERT_OK(doca_ctx_set_state_changed_cb(x->ctx, state_cb));
	ASSERT_OK(doca_ctx_set_user_data(x->ctx, (union doca_data){.ptr = x}));
}

void
server_init(struct side *s, struct doca_dev *dev, struct doca_dev_rep *rep, const char *name)
{
	s->tag = 'S';
	ASSERT_OK(doca_comch_server_create(dev, rep, name, &s->server));
	s->ctx = doca_comch_server_as_ctx(s->server);
	common_conf(s);
	ASSERT_OK(doca_comch_server_task_send_set_conf(s->server, pair_send_ok, pair_send_err, 1024));
	ASSERT_OK(doca_comch_server_event_msg_recv_register(s->server, recv_cb));
	ASSERT_OK(doca_comch_server_event_connection_status_changed_register(s->server, connect_cb, disconnect_cb));
}

void
client_init(struct side *c, struct doca_dev *dev, const char *name)
{
	c->tag = 'C';
	ASSERT_OK(doca_comch_client_create(dev, name, &c->client));
	c->ctx = doca_comch_client_as_ctx(c->client);
	common_conf(c);
	ASSERT_OK(doca_comch_client_task_send_set_conf(c->client, pair_send_ok, pair_send_err, 1024));
	ASSERT_OK(doca_comch_client_event_msg_recv_register(c->client, recv_cb));
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
progress_until(struct side **sides, int n, bool (*cond)(void *), void *arg, int ms)
{
	int64_t end = now_ms() + ms;

	while (!cond(arg)) {
		if (now_ms() > end)
			sd_test_fail(__FILE__, __LINE__, "condition not reached within %d ms", ms);
		for (int i = 0; i < n; i++)
			(void)doca_pe_progress(sides[i]->pe);
	}
}

void
progress_for(struct side **sides, int n, int ms)
{
	int64_t end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < n; i++)
			if (doca_pe_progress(sides[i]->pe) == 0)
				usleep(50);
}

doca_error_t
side_send(struct side *x, struct doca_comch_connection *conn, const void *msg, uint32_t len)
{
	struct doca_comch_task_send *t;
	doca_error_t r;

	r = x->server != NULL ? doca_comch_server_task_send_alloc_init(x->server, conn, msg, len, &t)
			      : doca_comch_client_task_send_alloc_init(x->client, conn, msg, len, &t);
	if (r != DOCA_SUCCESS)
		return r;
	r = doca_task_submit(doca_comch_task_send_as_task(t));
	if (r != DOCA_SUCCESS)
		doca_task_free(doca_comch_task_send_as_task(t));
	return r;
}

void
side_fini(struct side *x)
{
	enum doca_ctx_states st;

	if (doca_ctx_stop(x->ctx) == DOCA_ERROR_IN_PROGRESS) {
		for (int i = 0; i < 1000000; i++) {
			(void)doca_pe_progress(x->pe);
			ASSERT_OK(doca_ctx_get_state(x->ctx, &st));
			if (st == DOCA_CTX_STATE_IDLE)
				break;
		}
	}
	ASSERT_OK(doca_ctx_get_state(x->ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	if (x->server != NULL)
		ASSERT_OK(doca_comch_server_destroy(x->server));
	else
		ASSERT_OK(doca_comch_client_destroy(x->client));
	ASSERT_OK(doca_pe_destroy(x->pe));
}

struct doca_mmap *
pair_mmap(struct doca_dev *dev, void *mem, size_t len)
{
	struct doca_mmap *m;

	ASSERT_OK(doca_mmap_create(&m));
	ASSERT_OK(doca_mmap_add_dev(m, dev));
	ASSERT_OK(doca_mmap_set_memrange(m, mem, len));
	ASSERT_OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE));
	ASSERT_OK(doca_mmap_start(m));
	return m;
}

void
pair_stop_idle(struct side *x)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING;

	if (doca_ctx_stop(x->ctx) == DOCA_ERROR_IN_PROGRESS)
		for (int i = 0; i < 100000 && st != DOCA_CTX_STATE_IDLE; i++) {
			(void)doca_pe_progress(x->pe);
			ASSERT_OK(doca_ctx_get_state(x->ctx, &st));
		}
	ASSERT_OK(doca_ctx_get_state(x->ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
}

void
pair_connect_fastpath(struct side *s, struct side *c, struct doca_dev **host, struct doca_dev **dpu,
		      struct doca_dev_rep **rep, doca_comch_event_consumer_cb_t new_cb,
		      doca_comch_event_consumer_cb_t gone_cb)
{
	pair_env();
	*host = open_dev("b1:00.0");
	*dpu = open_dev("03:00.0");
	*rep = open_rep(*dpu, "b1:00.0");
	server_init(s, *dpu, *rep, PAIR_NAME);
	client_init(c, *host, PAIR_NAME);
	ASSERT_OK(doca_comch_client_event_consumer_register(c->client, new_cb, gone_cb));
	ASSERT_OK(doca_ctx_start(s->ctx));
	ASSERT_ERR(doca_ctx_start(c->ctx), DOCA_ERROR_IN_PROGRESS);
	while (s->conn == NULL || c->state != DOCA_CTX_STATE_RUNNING) {
		(void)doca_pe_progress(s->pe);
		(void)doca_pe_progress(c->pe);
	}
}

int pair_fp_sends_ok, pair_fp_sends_err;
doca_error_t pair_fp_send_status;

void
pair_fp_send_ok(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	pair_fp_sends_ok++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

void
pair_fp_send_err(struct doca_comch_producer_task_send *t, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	pair_fp_sends_err++;
	pair_fp_send_status = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}
