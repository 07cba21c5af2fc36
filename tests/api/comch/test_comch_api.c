/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Comch control-path contract: personalities, caps, start results and state
 * order, connect before messages, byte-exact ordered delivery, completion before
 * the answer, over-size and pool limits, queue full -> AGAIN, delivery without
 * sender progress and across stop, a server appearing late, wrong names, 64
 * clients, disconnect, and a peer process that dies.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/select.h>
#include <stdio.h>
#include <sys/wait.h>

#include "comch_pair.h"
#include "sd_test_peer.h"

struct world {
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep;
	struct side s, c;
	struct cb_log log;
};

static struct world *
world_new(void)
{
	struct world *w = calloc(1, sizeof(*w));

	ASSERT_NOT_NULL(w);
	pair_env();
	w->host = open_dev("b1:00.0");
	w->dpu = open_dev("03:00.0");
	w->rep = open_rep(w->dpu, "b1:00.0");
	w->s.log = w->c.log = &w->log;
	return w;
}

static bool
client_running(void *arg)
{
	return ((struct side *)arg)->state == DOCA_CTX_STATE_RUNNING;
}

static bool
server_has_conn(void *arg)
{
	return ((struct side *)arg)->num_connect > 0;
}

/* Server started, client started and connected. */
static struct world *
connected_world(void)
{
	struct world *w = world_new();
	struct side *both[2];

	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	both[0] = &w->s;
	both[1] = &w->c;
	progress_until(both, 2, client_running, &w->c, 5000);
	progress_until(both, 2, server_has_conn, &w->s, 5000);
	return w;
}

TEST(personality_server_on_dpu_client_on_host)
{
	struct world *w = world_new();
	struct doca_comch_server *s = NULL;
	struct doca_comch_client *c = NULL;
	struct doca_dev_rep *rep;

	ASSERT_ERR(doca_comch_client_create(w->dpu, PAIR_NAME, &c), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(c, NULL);
	rep = w->rep;
	ASSERT_ERR(doca_comch_server_create(w->host, rep, PAIR_NAME, &s), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(s, NULL);
	ASSERT_OK(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(w->dpu)));
	ASSERT_ERR(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(w->host)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(w->host)));
	ASSERT_ERR(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(w->dpu)), DOCA_ERROR_NOT_SUPPORTED);
}

TEST(caps_and_setters)
{
	struct world *w = world_new();
	uint32_t v;

	ASSERT_OK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(w->host), &v));
	ASSERT(v >= 4080);
	ASSERT_OK(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(w->dpu), &v));
	ASSERT(v >= 32);
	ASSERT_OK(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(w->dpu), &v));
	ASSERT(v >= 64);
	ASSERT_ERR(doca_comch_cap_get_max_msg_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	ASSERT_OK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(w->dpu), &v));
	ASSERT_ERR(doca_comch_server_set_max_msg_size(w->s.server, v + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_comch_server_set_max_msg_size(w->s.server, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_comch_server_set_max_msg_size(w->s.server, 100));
	ASSERT_OK(doca_comch_server_get_max_msg_size(w->s.server, &v));
	ASSERT_EQ(v, 100);
	ASSERT_OK(doca_comch_server_set_recv_queue_size(w->s.server, 10));
	ASSERT_OK(doca_comch_server_get_recv_queue_size(w->s.server, &v));
	ASSERT_EQ(v, 10);
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	ASSERT_ERR(doca_comch_server_set_recv_queue_size(w->s.server, 8), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_comch_server_destroy(w->s.server), DOCA_ERROR_BAD_STATE);
	side_fini(&w->s);
}

TEST(start_results_and_state_order)
{
	struct world *w = connected_world();

	/* server: IDLE -> RUNNING inside doca_ctx_start; client: STARTING then RUNNING from progress */
	ASSERT_EQ(w->s.num_transitions, 1);
	ASSERT_EQ(w->s.transitions[0], DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(w->c.num_transitions, 2);
	ASSERT_EQ(w->c.transitions[0], DOCA_CTX_STATE_STARTING);
	ASSERT_EQ(w->c.transitions[1], DOCA_CTX_STATE_RUNNING);
	ASSERT_PTR_EQ(doca_comch_client_get_client_ctx(w->c.conn), w->c.client);
	ASSERT_PTR_EQ(doca_comch_server_get_server_ctx(w->c.conn), NULL);
	ASSERT_PTR_EQ(doca_comch_server_get_server_ctx(w->s.conn), w->s.server);
	ASSERT_PTR_EQ(doca_comch_client_get_client_ctx(w->s.conn), NULL);
	side_fini(&w->c);
	side_fini(&w->s);
	/* client: STOPPING, IDLE after its stop; server: straight to IDLE or via STOPPING */
	ASSERT_EQ(w->c.transitions[w->c.num_transitions - 1], DOCA_CTX_STATE_IDLE);
}

TEST(get_connection_before_running_is_bad_state)
{
	struct world *w = world_new();
	struct doca_comch_connection *conn = NULL;

	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_ERR(doca_comch_client_get_connection(w->c.client, &conn), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_ERR(doca_comch_client_get_connection(w->c.client, &conn), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(conn, NULL);
	side_fini(&w->c);
}

struct want {
	struct side *x;
	int n;
};

static bool
recv_at_least(void *arg)
{
	struct want *wt = arg;

	return wt->x->num_recv >= wt->n;
}

TEST(messages_exact_ordered_connect_first)
{
	struct world *w = connected_world();
	struct side *both[2] = {&w->s, &w->c};
	struct want wt = {&w->s, 100};
	char msg[64];

	for (int i = 0; i < 100; i++) {
		int n = snprintf(msg, sizeof(msg), "m%03d", i);

		ASSERT_OK(side_send(&w->c, w->c.conn, msg, (uint32_t)n));
	}
	progress_until(both, 2, recv_at_least, &wt, 5000);
	ASSERT_STR_EQ(w->log.lines[0], "S:connect");
	for (int i = 0, k = 0; i < w->log.n; i++) {
		char want_line[48];

		if (strncmp(w->log.lines[i], "S:recv:", 7) != 0)
			continue;
		snprintf(want_line, sizeof(want_line), "S:recv:m%03d", k++);
		ASSERT_STR_EQ(w->log.lines[i], want_line);
	}
	ASSERT_EQ(w->s.last_len, 4);
	ASSERT_MEM_EQ(w->s.last_msg, "m099", 4);
	/* binary payload, 0 bytes and the maximum */
	{
		uint8_t big[4080];
		uint32_t max;

		for (unsigned i = 0; i < sizeof(big); i++)
			big[i] = (uint8_t)(i * 7 + 1);
		big[100] = 0;
		ASSERT_OK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(w->host), &max));
		ASSERT_OK(side_send(&w->s, w->s.conn, big, max));
		wt.x = &w->c;
		wt.n = 1;
		progress_until(both, 2, recv_at_least, &wt, 5000);
		ASSERT_EQ(w->c.last_len, max);
		ASSERT_MEM_EQ(w->c.last_msg, big, max);
		ASSERT_OK(side_send(&w->s, w->s.conn, big, 0));
		wt.n = 2;
		progress_until(both, 2, recv_at_least, &wt, 5000);
		ASSERT_EQ(w->c.last_len, 0);
	}
	{
		uint64_t v = 0;

		ASSERT_OK(doca_comch_connection_get_counter(w->c.conn, DOCA_COMCH_COUNTER_SENT_MESSAGES, &v));
		ASSERT_EQ(v, 100);
		ASSERT_OK(doca_comch_connection_get_counter(w->s.conn, DOCA_COMCH_COUNTER_RECV_BYTES, &v));
		ASSERT_EQ(v, 400);
	}
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(send_completion_reported_before_the_answer)
{
	struct world *w = connected_world();
	struct side *both[2] = {&w->s, &w->c};
	struct want wt = {&w->c, 1};
	int first_ok = -1, first_recv = -1;

	w->s.reply = true;
	ASSERT_OK(side_send(&w->c, w->c.conn, "ping", 4));
	progress_until(both, 2, recv_at_least, &wt, 5000);
	for (int i = 0; i < w->log.n; i++) {
		if (first_ok < 0 && strcmp(w->log.lines[i], "C:send_ok") == 0)
			first_ok = i;
		if (first_recv < 0 && strcmp(w->log.lines[i], "C:recv:ping") == 0)
			first_recv = i;
	}
	ASSERT(first_ok >= 0 && first_recv >= 0);
	ASSERT(first_ok < first_recv);
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(oversized_message_and_exhausted_pool)
{
	struct world *w = connected_world();
	struct doca_comch_task_send *t[3], *extra = NULL;
	static uint8_t big[5000];
	uint32_t max;

	ASSERT_OK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(w->host), &max));
	ASSERT_ERR(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, big, max + 1, &extra),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(extra, NULL);
	side_fini(&w->c);
	side_fini(&w->s);
	/* the peer's limit counts too: a server accepting 16 bytes gets no 17-byte message */
	w = world_new();
	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	ASSERT_OK(doca_comch_server_set_max_msg_size(w->s.server, 16));
	client_init(&w->c, w->host, PAIR_NAME);
	{
		struct side *both[2] = {&w->s, &w->c};

		ASSERT_OK(doca_ctx_start(w->s.ctx));
		ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
		progress_until(both, 2, client_running, &w->c, 5000);
	}
	ASSERT_ERR(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, big, 17, &extra),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, big, 16, &t[0]));
	doca_task_free(doca_comch_task_send_as_task(t[0]));
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(pool_exhausted_is_no_memory)
{
	struct world *w = world_new();
	struct doca_comch_task_send *t[3];
	struct side *both[2] = {&w->s, &w->c};

	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_ERR(doca_comch_client_task_send_set_conf(w->c.client, NULL, pair_send_err, 2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_comch_client_task_send_set_conf(w->c.client, pair_send_ok, pair_send_err, 2));
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(both, 2, client_running, &w->c, 5000);
	ASSERT_OK(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, "a", 1, &t[0]));
	ASSERT_OK(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, "b", 1, &t[1]));
	ASSERT_ERR(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, "c", 1, &t[2]), DOCA_ERROR_NO_MEMORY);
	doca_task_free(doca_comch_task_send_as_task(t[0]));
	doca_task_free(doca_comch_task_send_as_task(t[1]));
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(queue_full_is_again_and_nothing_is_lost)
{
	struct world *w = connected_world();
	struct side *both[2] = {&w->s, &w->c};
	struct want wt = {&w->s, 0};
	char msg[32];
	int sent = 0;
	doca_error_t r = DOCA_SUCCESS;

	/* the server does not progress: its queue fills */
	while (sent < 1000000) {
		int n = snprintf(msg, sizeof(msg), "%d", sent);

		r = side_send(&w->c, w->c.conn, msg, (uint32_t)n);
		if (r != DOCA_SUCCESS)
			break;
		sent++;
		if (sent % 512 == 0)
			(void)doca_pe_progress(w->c.pe); /* report completions, free tasks */
	}
	ASSERT_ERR(r, DOCA_ERROR_AGAIN);
	ASSERT(sent > 0);
	wt.n = sent;
	progress_until(both, 2, recv_at_least, &wt, 10000);
	ASSERT_EQ(w->s.num_recv, sent);
	snprintf(msg, sizeof(msg), "%d", sent - 1);
	ASSERT_EQ(w->s.last_len, strlen(msg));
	ASSERT_MEM_EQ(w->s.last_msg, msg, strlen(msg));
	/* and the queue drained: sending works again */
	ASSERT_OK(side_send(&w->c, w->c.conn, "again", 5));
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(delivered_without_sender_progress_and_across_stop)
{
	struct world *w = connected_world();
	struct side *srv[1] = {&w->s};
	struct side *cli[1] = {&w->c};
	struct want wt = {&w->s, 1};

	/* the client never progresses after submitting */
	ASSERT_OK(side_send(&w->c, w->c.conn, "no-progress", 11));
	progress_until(srv, 1, recv_at_least, &wt, 5000);
	ASSERT_MEM_EQ(w->s.last_msg, "no-progress", 11);
	/* submitted, then stopped at once: still delivered, and reported as a success */
	ASSERT_OK(side_send(&w->c, w->c.conn, "before-stop", 11));
	ASSERT_ERR(doca_ctx_stop(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	wt.n = 2;
	progress_until(srv, 1, recv_at_least, &wt, 5000);
	ASSERT_MEM_EQ(w->s.last_msg, "before-stop", 11);
	progress_for(cli, 1, 50);
	ASSERT_EQ(w->c.state, DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(w->c.num_send_ok, 2);
	ASSERT_EQ(w->c.num_send_err, 0);
	progress_for(srv, 1, 50);
	ASSERT_EQ(w->s.num_disconnect, 1);
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(client_before_server_waits_in_starting)
{
	struct world *w = world_new();
	struct side *cli[1] = {&w->c};
	struct side *both[2] = {&w->s, &w->c};

	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_for(cli, 1, 300);
	ASSERT_EQ(w->c.state, DOCA_CTX_STATE_STARTING);
	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	progress_until(both, 2, client_running, &w->c, 5000);
	progress_until(both, 2, server_has_conn, &w->s, 5000);
	ASSERT_OK(side_send(&w->c, w->c.conn, "late", 4));
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(notification_handle_wakes_when_the_server_appears)
{
	struct world *w = world_new();
	doca_notification_handle_t fd;
	pid_t child;

	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(w->c.pe);
	ASSERT_OK(doca_pe_get_notification_handle(w->c.pe, &fd));
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct side *srv[1];

		usleep(200000);
		server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
		ASSERT_OK(doca_ctx_start(w->s.ctx));
		srv[0] = &w->s;
		progress_for(srv, 1, 1000);
		_exit(0);
	}
	ASSERT_OK(doca_pe_request_notification(w->c.pe));
	{
		/* sleep on the handle (no busy loop): it must become readable */
		fd_set set;
		struct timeval tv = {.tv_sec = 5};

		FD_ZERO(&set);
		FD_SET(fd, &set);
		ASSERT_EQ(select(fd + 1, &set, NULL, NULL, &tv), 1);
	}
	ASSERT_OK(doca_pe_clear_notification(w->c.pe, fd));
	{
		struct side *cli[1] = {&w->c};

		progress_until(cli, 1, client_running, &w->c, 5000);
	}
	sd_test_reap(child);
	side_fini(&w->c);
}

/* Runtime-directory entries whose name starts with prefix. */
static int
rundir_entries(const char *prefix)
{
	char dir[512];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/rt", sd_test_tmpdir());
	d = opendir(dir);
	ASSERT_NOT_NULL(d);
	while ((e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* A server that stops leaves nothing of its name behind, its lock file included; a second one starts. */
TEST(a_stopped_server_leaves_nothing_in_the_runtime_directory)
{
	struct world *w = world_new();

	for (int i = 0; i < 2; i++) {
		memset(&w->s, 0, sizeof(w->s));
		server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
		ASSERT_OK(doca_ctx_start(w->s.ctx));
		ASSERT_EQ(rundir_entries("comch-"), 2); /* the socket and its lock */
		side_fini(&w->s);
		ASSERT_EQ(rundir_entries("comch-"), 0);
	}
}

TEST(wrong_service_name_never_connects)
{
	struct world *w = world_new();
	struct side *both[2] = {&w->s, &w->c};

	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	client_init(&w->c, w->host, "another_service");
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_for(both, 2, 300);
	ASSERT_EQ(w->c.state, DOCA_CTX_STATE_STARTING);
	ASSERT_EQ(w->s.num_connect, 0);
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(second_server_with_the_same_name_is_in_use)
{
	struct world *w = world_new();
	struct side other = {0};

	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	server_init(&other, w->dpu, w->rep, PAIR_NAME);
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	ASSERT_ERR(doca_ctx_start(other.ctx), DOCA_ERROR_IN_USE);
	side_fini(&w->s);
	/* the name is free again */
	ASSERT_OK(doca_ctx_start(other.ctx));
	side_fini(&other);
}

#define NUM_CLIENTS 64

struct many {
	struct side *s;
	struct side *c;
};

static bool
all_answered(void *arg)
{
	struct many *m = arg;

	for (int i = 0; i < NUM_CLIENTS; i++)
		if (m->c[i].num_recv < 1)
			return false;
	return true;
}

TEST(sixty_four_clients_on_one_server)
{
	struct world *w = world_new();
	struct side *c = calloc(NUM_CLIENTS, sizeof(*c));
	struct side *all[NUM_CLIENTS + 1];
	struct many m = {&w->s, c};

	ASSERT_NOT_NULL(c);
	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	w->s.reply = true;
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	all[0] = &w->s;
	for (int i = 0; i < NUM_CLIENTS; i++) {
		client_init(&c[i], w->host, PAIR_NAME);
		ASSERT_ERR(doca_ctx_start(c[i].ctx), DOCA_ERROR_IN_PROGRESS);
		all[i + 1] = &c[i];
	}
	for (int i = 0; i < NUM_CLIENTS; i++) {
		char msg[16];
		int n = snprintf(msg, sizeof(msg), "client-%02d", i);

		progress_until(all, NUM_CLIENTS + 1, client_running, &c[i], 5000);
		ASSERT_OK(side_send(&c[i], c[i].conn, msg, (uint32_t)n));
	}
	progress_until(all, NUM_CLIENTS + 1, all_answered, &m, 10000);
	ASSERT_EQ(w->s.num_connect, NUM_CLIENTS);
	ASSERT_EQ(w->s.num_recv, NUM_CLIENTS);
	for (int i = 0; i < NUM_CLIENTS; i++) {
		char msg[16];
		int n = snprintf(msg, sizeof(msg), "client-%02d", i);

		/* each answer went back on the connection it came from */
		ASSERT_EQ(c[i].last_len, n);
		ASSERT_MEM_EQ(c[i].last_msg, msg, (size_t)n);
		side_fini(&c[i]);
	}
	progress_for(all, 1, 100);
	ASSERT_EQ(w->s.num_disconnect, NUM_CLIENTS);
	side_fini(&w->s);
}

static bool
client_idle(void *arg)
{
	return ((struct side *)arg)->state == DOCA_CTX_STATE_IDLE;
}

TEST(server_disconnect_stops_the_client)
{
	struct world *w = connected_world();
	struct side *both[2] = {&w->s, &w->c};

	ASSERT_OK(doca_comch_server_disconnect(w->s.server, w->s.conn));
	progress_until(both, 2, client_idle, &w->c, 5000);
	ASSERT_EQ(w->c.transitions[w->c.num_transitions - 2], DOCA_CTX_STATE_STOPPING);
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(server_stop_ends_clients)
{
	struct world *w = connected_world();
	struct side *both[2] = {&w->s, &w->c};

	ASSERT_OK(doca_ctx_stop(w->s.ctx));
	progress_until(both, 2, client_idle, &w->c, 5000);
	side_fini(&w->c);
	side_fini(&w->s);
}

static bool
server_saw_disconnect(void *arg)
{
	return ((struct side *)arg)->num_disconnect > 0;
}

static bool
server_saw_disconnect_or_msg(void *arg)
{
	return ((struct side *)arg)->num_recv > 0 || ((struct side *)arg)->num_disconnect > 0;
}

TEST(client_process_dies_server_gets_disconnect)
{
	struct world *w = world_new();
	struct side *srv[1] = {&w->s};
	pid_t child;

	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct side *cli[1] = {&w->c};

		client_init(&w->c, w->host, PAIR_NAME);
		(void)doca_ctx_start(w->c.ctx);
		progress_until(cli, 1, client_running, &w->c, 5000);
		(void)side_send(&w->c, w->c.conn, "bye", 3);
		kill(getpid(), SIGKILL);
	}
	progress_until(srv, 1, server_saw_disconnect, &w->s, 5000);
	ASSERT_EQ(sd_test_wait_exit(child), SD_TEST_EXIT_SIGNAL(SIGKILL));
	ASSERT_EQ(w->s.num_connect, 1);
	ASSERT_EQ(w->s.num_recv, 1);
	side_fini(&w->s);
}

static bool
server_served_twice(void *arg)
{
	return ((struct side *)arg)->num_recv >= 2;
}

/*
 * A process forked while a connection is open holds its socket too: after the
 * client leaves and the server frees the connection, the server's epoll set must
 * not report the socket again (it did, with the freed connection as its pointer).
 */
TEST(a_forked_process_holding_a_connection_is_harmless)
{
	struct world *w = world_new();
	struct side *srv[1] = {&w->s}, *both[2] = {&w->s, &w->c};
	int hold[2], go[2];
	pid_t client, holder;
	char c = 0;

	server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
	ASSERT_OK(doca_ctx_start(w->s.ctx));
	ASSERT_EQ(pipe(go), 0);
	client = fork();
	ASSERT(client >= 0);
	if (client == 0) {
		struct side *cli[1] = {&w->c};

		client_init(&w->c, w->host, PAIR_NAME);
		(void)doca_ctx_start(w->c.ctx);
		progress_until(cli, 1, client_running, &w->c, 5000);
		(void)side_send(&w->c, w->c.conn, "one", 3);
		progress_for(cli, 1, 50);
		(void)read(go[0], &c, 1); /* leave once the holder holds the server's socket */
		_exit(0);
	}
	progress_until(srv, 1, server_saw_disconnect_or_msg, &w->s, 5000);
	ASSERT_EQ(pipe(hold), 0);
	holder = fork();
	ASSERT(holder >= 0);
	if (holder == 0) {
		close(hold[1]);
		(void)read(hold[0], &c, 1); /* keeps the server's descriptors until told */
		_exit(0);
	}
	close(hold[0]);
	ASSERT_EQ(write(go[1], &c, 1), 1);
	ASSERT_EQ(sd_test_wait_exit(client), 0);
	progress_until(srv, 1, server_saw_disconnect, &w->s, 5000);
	progress_for(srv, 1, 200); /* the freed connection's socket is still open in the holder */
	/* a new client is served */
	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(both, 2, client_running, &w->c, 5000);
	ASSERT_OK(side_send(&w->c, w->c.conn, "two", 3));
	progress_until(both, 2, server_served_twice, &w->s, 5000);
	ASSERT_MEM_EQ(w->s.last_msg, "two", 3);
	close(hold[1]);
	ASSERT_EQ(sd_test_wait_exit(holder), 0);
	side_fini(&w->c);
	side_fini(&w->s);
}

TEST(server_process_dies_client_stops_with_errors)
{
	struct world *w = world_new();
	struct side *cli[1] = {&w->c};
	int to_child[2];
	pid_t child;
	char ch;

	ASSERT_EQ(pipe(to_child), 0);
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct side *srv[1] = {&w->s};

		server_init(&w->s, w->dpu, w->rep, PAIR_NAME);
		ASSERT_OK(doca_ctx_start(w->s.ctx));
		progress_until(srv, 1, server_has_conn, &w->s, 5000);
		(void)read(to_child[0], &ch, 1); /* die when told */
		kill(getpid(), SIGKILL);
	}
	client_init(&w->c, w->host, PAIR_NAME);
	ASSERT_ERR(doca_ctx_start(w->c.ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(cli, 1, client_running, &w->c, 5000);
	ASSERT_EQ(write(to_child[1], "x", 1), 1);
	ASSERT_EQ(sd_test_wait_exit(child), SD_TEST_EXIT_SIGNAL(SIGKILL));
	progress_until(cli, 1, client_idle, &w->c, 5000);
	ASSERT_EQ(w->c.transitions[w->c.num_transitions - 2], DOCA_CTX_STATE_STOPPING);
	/* nothing left to send on: refused, no hang */
	{
		struct doca_comch_task_send *t = NULL;

		ASSERT_ERR(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, "x", 1, &t),
			   DOCA_ERROR_BAD_STATE);
	}
	side_fini(&w->c);
}

/*
 * SOFTDOCA_FAULTS comch.peer=vanish (docs/diagnostics.md): the peers vanish as
 * processes that died, so each side sees what the two cases above see - the
 * server a disconnect, the client STOPPING then IDLE and nothing to send on.
 */
TEST(injected_vanish_reports_as_dead_peers)
{
	struct world *w;
	struct side *both[2];

	/* read at the first doca_ctx_start() of this case's process; counts the submissions: after the first */
	ASSERT_EQ(setenv("SOFTDOCA_FAULTS", "comch.peer=vanish@1", 1), 0);
	w = connected_world();
	both[0] = &w->s;
	both[1] = &w->c;
	ASSERT_OK(side_send(&w->c, w->c.conn, "bye", 3));
	progress_until(both, 2, server_saw_disconnect, &w->s, 5000);
	progress_until(both, 2, client_idle, &w->c, 5000);
	ASSERT_EQ(w->s.num_connect, 1);
	ASSERT_EQ(w->s.num_disconnect, 1);
	ASSERT_EQ(w->c.transitions[w->c.num_transitions - 2], DOCA_CTX_STATE_STOPPING);
	{
		struct doca_comch_task_send *t = NULL;

		ASSERT_ERR(doca_comch_client_task_send_alloc_init(w->c.client, w->c.conn, "x", 1, &t),
			   DOCA_ERROR_BAD_STATE);
	}
	side_fini(&w->c);
	side_fini(&w->s);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
