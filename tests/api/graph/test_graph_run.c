/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contract of doca_graph.h, the runs: dependency order in a diamond, a failing
 * user node (reported only after the node still in flight finished), a failing
 * task, reuse of an instance, sub-graph nodes, and the PE's notification.
 * A sync-event wait task is the context node that stays in flight until the
 * test sets the event.
 */
#include <sys/epoll.h>

#include <doca_sync_event.h>

#include "graph_test.h"

/* A DMA destination whose data length every user node records when it runs. */
static struct doca_buf *watched[2];
static size_t watched_len[64][2];

static doca_error_t
watching_node(void *cookie)
{
	unsigned at = glog.n;

	for (int i = 0; i < 2; i++)
		if (watched[i] != NULL && at < 64)
			ASSERT_OK(doca_buf_get_data_len(watched[i], &watched_len[at][i]));
	return user_node(cookie);
}

static struct doca_graph_node *
add_user(struct doca_graph *g, doca_graph_user_node_cb_t cb)
{
	struct doca_graph_node *n = NULL;

	ASSERT_OK(doca_graph_node_create_from_user(g, cb, &n));
	return n;
}

static struct doca_graph_node *
add_ctx(struct doca_graph *g, struct doca_ctx *ctx)
{
	struct doca_graph_node *n = NULL;

	ASSERT_OK(doca_graph_node_create_from_ctx(g, ctx, &n));
	return n;
}

static void
depend(struct doca_graph *g, struct doca_graph_node *from, struct doca_graph_node *to)
{
	ASSERT_OK(doca_graph_add_dependency(g, from, to));
}

static void
teardown(struct doca_graph *g, struct doca_graph_instance *inst)
{
	ASSERT_OK(doca_graph_instance_destroy(inst));
	ASSERT_OK(doca_graph_stop(g));
	ASSERT_OK(doca_graph_destroy(g));
}

/*
 *   R (copy) -> A -> B ----> D
 *               |--> C ---/  ^
 *               '--> X (copy) '
 */
TEST(graph_diamond_runs_in_dependency_order)
{
	struct doca_graph_node *r, *a, *b, *c, *x, *d;
	struct doca_graph_instance *inst;
	struct doca_buf *r_dst, *x_dst;
	struct doca_graph *g;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	ASSERT_OK(doca_graph_set_user_data(g, (union doca_data){.u64 = 0x6a}));
	/* Created out of order on purpose: the order comes from the dependencies. */
	d = add_user(g, watching_node);
	b = add_user(g, watching_node);
	x = add_ctx(g, e.ctx);
	a = add_user(g, watching_node);
	c = add_user(g, watching_node);
	r = add_ctx(g, e.ctx);
	depend(g, r, a);
	depend(g, a, b);
	depend(g, a, c);
	depend(g, a, x);
	depend(g, b, d);
	depend(g, c, d);
	depend(g, x, d);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, r, copy_task(&e, 0, 4096, 256, &r_dst)));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, x, copy_task(&e, 1024, 8192, 512, &x_dst)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, a, COOKIE(1)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, b, COOKIE(2)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, c, COOKIE(3)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, d, COOKIE(4)));
	ASSERT_OK(doca_graph_instance_set_user_data(inst, (union doca_data){.u64 = 0x1e}));
	watched[0] = r_dst;
	watched[1] = x_dst;

	ASSERT_OK(doca_graph_instance_submit(inst));
	ASSERT_EQ(glog.n, 0); /* user nodes run only inside doca_pe_progress() */
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.completed, 1);
	ASSERT_EQ(glog.failed, 0);
	ASSERT_PTR_EQ(glog.last_instance, inst);
	ASSERT_EQ(glog.last_instance_data.u64, 0x1e);
	ASSERT_EQ(glog.last_graph_data.u64, 0x6a);
	ASSERT_EQ(glog.n, 4);
	ASSERT_EQ(ran_at(1), 0);
	ASSERT(ran_at(2) > ran_at(1) && ran_at(3) > ran_at(1));
	ASSERT_EQ(ran_at(4), 3);
	/* A ran after R's copy and before X's; D after X's. */
	ASSERT_EQ(watched_len[0][0], 256);
	ASSERT_EQ(watched_len[0][1], 0);
	ASSERT_EQ(watched_len[3][1], 512);
	ASSERT_MEM_EQ(e.mem + 8192, e.mem + 1024, 512);
	/* The tasks completed into the graph: no task callback ran. */
	ASSERT_EQ(results.ok + results.err, 0);
	watched[0] = watched[1] = NULL;
	teardown(g, inst);
	env_close(&e);
}

/* A sync event started as a context with room for wait_eq tasks. */
struct waiter {
	struct doca_sync_event *ev;
	struct doca_ctx *ctx;
};

static void
wait_eq_cb(struct doca_sync_event_task_wait_eq *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task;
	(void)task_ud;
	(void)ctx_ud;
	sd_test_fail(__FILE__, __LINE__, "a graph's task called its own completion callback");
}

static struct doca_task *
waiter_open(struct waiter *w, struct env *e, uint64_t value)
{
	struct doca_sync_event_task_wait_eq *task = NULL;

	ASSERT_OK(doca_sync_event_create(&w->ev));
	ASSERT_OK(doca_sync_event_add_publisher_location_cpu(w->ev, e->dev));
	ASSERT_OK(doca_sync_event_add_subscriber_location_cpu(w->ev, e->dev));
	ASSERT_OK(doca_sync_event_task_wait_eq_set_conf(w->ev, wait_eq_cb, wait_eq_cb, 4));
	w->ctx = doca_sync_event_as_ctx(w->ev);
	ASSERT_OK(doca_pe_connect_ctx(e->pe, w->ctx));
	ASSERT_OK(doca_ctx_start(w->ctx));
	ASSERT_OK(
		doca_sync_event_task_wait_eq_alloc_init(w->ev, value, UINT64_MAX, (union doca_data){.u64 = 0}, &task));
	return doca_sync_event_task_wait_eq_as_doca_task(task);
}

static void
waiter_close(struct waiter *w, struct env *e)
{
	doca_error_t err = doca_ctx_stop(w->ctx);

	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	progress_until_idle(e->pe, w->ctx);
	ASSERT_OK(doca_sync_event_destroy(w->ev));
}

/*
 *   W (wait for the event) -> 5        6 (fails) -> 7
 */
TEST(graph_user_node_failure_waits_for_in_flight_nodes)
{
	struct doca_graph_node *w, *n5, *n6, *n7;
	struct doca_graph_instance *inst;
	struct doca_graph *g;
	struct waiter wt;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	struct doca_task *wait_task = waiter_open(&wt, &e, 1);
	w = add_ctx(g, wt.ctx);
	n5 = add_user(g, user_node);
	n6 = add_user(g, user_node);
	n7 = add_user(g, user_node);
	depend(g, w, n5);
	depend(g, n6, n7);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, w, wait_task));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, n5, COOKIE(5)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, n6, COOKIE(6)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, n7, COOKIE(7)));
	glog.fail_id = 6;
	glog.fail_id_status = DOCA_ERROR_UNEXPECTED;

	ASSERT_OK(doca_graph_instance_submit(inst));
	for (int i = 0; i < 100; i++)
		(void)doca_pe_progress(e.pe);
	/* 6 failed, 7 never starts, and the instance waits for W. */
	ASSERT_EQ(glog.n, 1);
	ASSERT_EQ(glog.order[0], 6);
	ASSERT_EQ(glog.failed + glog.completed, 0);
	ASSERT_OK(doca_sync_event_update_set(wt.ev, 1));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.failed, 1);
	ASSERT_EQ(glog.completed, 0);
	ASSERT_EQ(glog.n, 1); /* 5 did not run either: W finished after the failure */
	ASSERT_OK(doca_task_get_status(wait_task));

	/* The same instance, run again without the failure: every node runs. */
	glog.fail_id = -1;
	ASSERT_OK(doca_graph_instance_submit(inst));
	progress_until_reported(e.pe, 2);
	ASSERT_EQ(glog.completed, 1);
	ASSERT_EQ(glog.n, 4);
	ASSERT(ran_at(7) > ran_at(6) && ran_at(5) > 0);
	teardown(g, inst);
	waiter_close(&wt, &e);
	env_close(&e);
}

TEST(graph_failed_task_fails_the_instance)
{
	struct doca_graph_instance *inst;
	struct doca_graph_node *t, *u;
	enum doca_ctx_states st;
	struct doca_task *task;
	struct doca_graph *g;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	t = add_ctx(g, e.ctx);
	u = add_user(g, user_node);
	depend(g, t, u);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	/* 256 bytes into a 64-byte destination: an execution error of the task. */
	task = copy_task_to(&e, 0, 256, dst_buf(&e, 8192, 64));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, t, task));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, u, COOKIE(1)));
	ASSERT_OK(doca_graph_instance_submit(inst));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.failed, 1);
	ASSERT_EQ(glog.n, 0);
	ASSERT_NE(doca_task_get_status(task), DOCA_SUCCESS);
	ASSERT_EQ(results.err + results.ok, 0);
	/* As for any failed task, its context stops. */
	progress_until_idle(e.pe, e.ctx);
	ASSERT_OK(doca_ctx_get_state(e.ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	teardown(g, inst);
	env_close(&e);
}

/* Each completion empties the copy's destination, so that the instance can run again. */
static struct doca_buf *reuse_dst;

static void
done_and_reset(struct doca_graph_instance *inst, union doca_data inst_data, union doca_data graph_data)
{
	ASSERT_OK(doca_buf_reset_data_len(reuse_dst));
	graph_done(inst, inst_data, graph_data);
}

TEST(graph_instance_runs_again_after_completion)
{
	struct doca_graph_instance *inst;
	struct doca_graph_node *r, *a;
	struct doca_graph *g = NULL;
	struct env e;

	graph_env_open(&e);
	ASSERT_OK(doca_graph_create(e.pe, &g));
	ASSERT_OK(doca_graph_set_conf(g, done_and_reset, graph_failed, 1));
	r = add_ctx(g, e.ctx);
	a = add_user(g, user_node);
	depend(g, r, a);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, r, copy_task(&e, 0, 4096, 128, &reuse_dst)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, a, COOKIE(1)));

	/* Twice resubmitted from its own completion callback. */
	glog.resubmits = 2;
	ASSERT_OK(doca_graph_instance_submit(inst));
	progress_until_reported(e.pe, 3);
	ASSERT_EQ(glog.completed, 3);
	ASSERT_EQ(glog.n, 3);
	ASSERT_MEM_EQ(e.mem + 4096, e.mem, 128);

	/* Then from outside, with new source bytes. */
	memset(e.mem, 0x42, 128);
	ASSERT_OK(doca_graph_instance_submit(inst));
	progress_until_reported(e.pe, 4);
	ASSERT_EQ(glog.completed, 4);
	ASSERT_EQ(e.mem[4096], 0x42);
	ASSERT_EQ(e.mem[4096 + 127], 0x42);
	ASSERT_EQ(results.ok + results.err, 0);
	teardown(g, inst);
	env_close(&e);
}

static unsigned sub_reports;

static void
sub_cb(struct doca_graph_instance *inst, union doca_data inst_data, union doca_data graph_data)
{
	(void)inst;
	(void)inst_data;
	(void)graph_data;
	sub_reports++;
}

/*
 *   sub:     SC (copy) -> 20
 *   parent:  10 -> [sub] -> 30
 */
TEST(graph_sub_graph_node_runs_its_instance)
{
	struct doca_graph_instance *pi, *si, *si2;
	struct doca_graph_node *sc, *su, *p10, *ps, *p30;
	struct doca_graph *sub = NULL, *parent;
	struct doca_buf *dst, *dst2;
	struct env e;

	graph_env_open(&e);
	ASSERT_OK(doca_graph_create(e.pe, &sub));
	ASSERT_OK(doca_graph_set_conf(sub, sub_cb, sub_cb, 2));
	sc = add_ctx(sub, e.ctx);
	su = add_user(sub, user_node);
	depend(sub, sc, su);
	ASSERT_OK(doca_graph_start(sub));
	parent = new_graph(&e, 1);
	p10 = add_user(parent, user_node);
	ASSERT_OK(doca_graph_node_create_from_graph(parent, sub, &ps));
	p30 = add_user(parent, user_node);
	depend(parent, p10, ps);
	depend(parent, ps, p30);
	ASSERT_OK(doca_graph_start(parent));

	ASSERT_OK(doca_graph_instance_create(sub, &si));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(si, sc, copy_task(&e, 0, 4096, 64, &dst)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(si, su, COOKIE(20)));
	ASSERT_OK(doca_graph_instance_create(parent, &pi));
	ASSERT_OK(doca_graph_instance_set_user_node_data(pi, p10, COOKIE(10)));
	ASSERT_ERR(doca_graph_instance_set_sub_graph_node_data(pi, ps, pi), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_graph_instance_set_sub_graph_node_data(pi, ps, si));
	ASSERT_OK(doca_graph_instance_set_user_node_data(pi, p30, COOKIE(30)));

	ASSERT_OK(doca_graph_instance_submit(pi));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.completed, 1);
	ASSERT_PTR_EQ(glog.last_instance, pi);
	ASSERT_EQ(glog.n, 3);
	ASSERT_EQ(ran_at(10), 0);
	ASSERT_EQ(ran_at(20), 1);
	ASSERT_EQ(ran_at(30), 2);
	ASSERT_MEM_EQ(e.mem + 4096, e.mem, 64);
	ASSERT_EQ(sub_reports, 0); /* the sub-graph's own callbacks are not called */

	/* A failure inside the sub-graph fails the parent; 30 does not run. */
	ASSERT_OK(doca_buf_reset_data_len(dst));
	glog.fail_id = 20;
	glog.fail_id_status = DOCA_ERROR_IO_FAILED;
	ASSERT_OK(doca_graph_instance_submit(pi));
	progress_until_reported(e.pe, 2);
	ASSERT_EQ(glog.failed, 1);
	ASSERT_EQ(glog.n, 5);
	ASSERT_EQ(glog.order[4], 20);

	/* Another sub-graph instance takes the node; the first one is free again. */
	ASSERT_OK(doca_graph_instance_create(sub, &si2));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(si2, sc, copy_task(&e, 256, 8192, 64, &dst2)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(si2, su, COOKIE(21)));
	ASSERT_OK(doca_graph_instance_set_sub_graph_node_data(pi, ps, si2));
	ASSERT_OK(doca_graph_instance_destroy(si));
	glog.fail_id = -1;
	ASSERT_OK(doca_graph_instance_submit(pi));
	progress_until_reported(e.pe, 3);
	ASSERT_EQ(glog.completed, 2);
	ASSERT_EQ(glog.order[glog.n - 2], 21);
	ASSERT_EQ(glog.order[glog.n - 1], 30);
	ASSERT_EQ(results.ok + results.err, 0);
	ASSERT_OK(doca_graph_instance_destroy(pi));
	ASSERT_OK(doca_graph_instance_destroy(si2));
	ASSERT_OK(doca_graph_stop(parent));
	ASSERT_OK(doca_graph_stop(sub));
	ASSERT_OK(doca_graph_destroy(parent));
	ASSERT_OK(doca_graph_destroy(sub));
	env_close(&e);
}

/*
 *   sub:     W (wait for the event) -> 20
 *   parent:  [sub]     6 (fails)
 * The parent's failure stops the sub-graph instance too: 20 never runs.
 */
TEST(graph_failure_reaches_a_running_sub_graph)
{
	struct doca_graph_node *w, *su, *ps, *f;
	struct doca_graph_instance *pi, *si;
	struct doca_graph *sub = NULL, *parent;
	struct waiter wt;
	struct env e;

	graph_env_open(&e);
	struct doca_task *wait_task = waiter_open(&wt, &e, 1);
	ASSERT_OK(doca_graph_create(e.pe, &sub));
	ASSERT_OK(doca_graph_set_conf(sub, sub_cb, sub_cb, 1));
	w = add_ctx(sub, wt.ctx);
	su = add_user(sub, user_node);
	depend(sub, w, su);
	ASSERT_OK(doca_graph_start(sub));
	parent = new_graph(&e, 1);
	ASSERT_OK(doca_graph_node_create_from_graph(parent, sub, &ps));
	f = add_user(parent, user_node);
	ASSERT_OK(doca_graph_start(parent));
	ASSERT_OK(doca_graph_instance_create(sub, &si));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(si, w, wait_task));
	ASSERT_OK(doca_graph_instance_set_user_node_data(si, su, COOKIE(20)));
	ASSERT_OK(doca_graph_instance_create(parent, &pi));
	ASSERT_OK(doca_graph_instance_set_sub_graph_node_data(pi, ps, si));
	ASSERT_OK(doca_graph_instance_set_user_node_data(pi, f, COOKIE(6)));
	glog.fail_id = 6;
	glog.fail_id_status = DOCA_ERROR_UNEXPECTED;
	sub_reports = 0;

	ASSERT_OK(doca_graph_instance_submit(pi));
	for (int i = 0; i < 50; i++)
		(void)doca_pe_progress(e.pe);
	ASSERT_EQ(glog.n, 1);
	ASSERT_EQ(glog.failed + glog.completed, 0); /* W is still in flight */
	ASSERT_ERR(doca_graph_instance_destroy(si), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_sync_event_update_set(wt.ev, 1));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.failed, 1);
	ASSERT_PTR_EQ(glog.last_instance, pi);
	ASSERT_EQ(glog.n, 1); /* 20 did not start */
	ASSERT_EQ(sub_reports, 0);
	ASSERT_OK(doca_graph_instance_destroy(pi));
	ASSERT_OK(doca_graph_instance_destroy(si));
	ASSERT_OK(doca_graph_stop(parent));
	ASSERT_OK(doca_graph_destroy(parent));
	ASSERT_OK(doca_graph_stop(sub));
	ASSERT_OK(doca_graph_destroy(sub));
	waiter_close(&wt, &e);
	env_close(&e);
}

/* A memcpy task without a source: the DMA context refuses it at submit. */
static struct doca_task *
sourceless_task(struct env *e, size_t dst_off)
{
	struct doca_dma_task_memcpy *t = NULL;

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, NULL, dst_buf(e, dst_off, 64), (union doca_data){.u64 = 0},
						  &t));
	return doca_dma_task_memcpy_as_task(t);
}

/*
 *   n1 (copy)   n2 (copy)   u
 * The first root refused: submit returns the refusal and nothing runs.  A later
 * root refused (the first one already runs): the error callback reports it.
 */
TEST(graph_root_refusal_is_returned_or_reported)
{
	struct doca_graph_instance *first_bad, *second_bad;
	struct doca_graph_node *n1, *n2, *u;
	struct doca_graph *g;
	struct doca_buf *dst;
	size_t inflight = 9;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 2);
	n1 = add_ctx(g, e.ctx);
	n2 = add_ctx(g, e.ctx);
	u = add_user(g, user_node);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &first_bad));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(first_bad, n1, sourceless_task(&e, 0)));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(first_bad, n2, copy_task(&e, 1024, 4096, 64, &dst)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(first_bad, u, COOKIE(1)));
	ASSERT_OK(doca_graph_instance_create(g, &second_bad));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(second_bad, n1, copy_task(&e, 2048, 8192, 64, &dst)));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(second_bad, n2, sourceless_task(&e, 12288)));
	ASSERT_OK(doca_graph_instance_set_user_node_data(second_bad, u, COOKIE(2)));

	ASSERT_ERR(doca_graph_instance_submit(first_bad), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(e.ctx, &inflight));
	ASSERT_EQ(inflight, 0); /* n2's task was not submitted */
	for (int i = 0; i < 10; i++)
		(void)doca_pe_progress(e.pe);
	ASSERT_EQ(glog.completed + glog.failed + glog.n, 0);
	ASSERT_OK(doca_graph_instance_set_user_node_data(first_bad, u, COOKIE(3))); /* not submitted */

	ASSERT_OK(doca_graph_instance_submit(second_bad));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.failed, 1);
	ASSERT_PTR_EQ(glog.last_instance, second_bad);
	ASSERT_EQ(glog.n, 0); /* the user root had not started yet */
	ASSERT_OK(doca_graph_instance_destroy(first_bad));
	teardown(g, second_bad);
	env_close(&e);
}

/* Is the PE's notification handle readable right now? */
static bool
handle_readable(struct doca_pe *pe)
{
	doca_notification_handle_t h;
	struct epoll_event ev;

	ASSERT_OK(doca_pe_get_notification_handle(pe, &h));
	return epoll_wait((int)h, &ev, 1, 0) == 1;
}

TEST(graph_pending_user_node_wakes_the_pe)
{
	struct doca_graph_instance *inst;
	struct doca_graph_node *w, *u;
	struct doca_graph *g;
	struct waiter wt;
	struct env e;

	graph_env_open(&e);
	g = new_graph(&e, 1);
	struct doca_task *wait_task = waiter_open(&wt, &e, 3);
	w = add_ctx(g, wt.ctx);
	u = add_user(g, user_node);
	ASSERT_OK(doca_graph_start(g));
	ASSERT_OK(doca_graph_instance_create(g, &inst));
	ASSERT_OK(doca_graph_instance_set_ctx_node_data(inst, w, wait_task));
	ASSERT_OK(doca_graph_instance_set_user_node_data(inst, u, COOKIE(1)));
	ASSERT_OK(doca_pe_request_notification(e.pe));
	ASSERT(!handle_readable(e.pe));
	ASSERT_OK(doca_pe_clear_notification(e.pe, 0));
	/* The user root waits for progress: arming the PE must wake it at once. */
	ASSERT_OK(doca_graph_instance_submit(inst));
	ASSERT_OK(doca_pe_request_notification(e.pe));
	ASSERT(handle_readable(e.pe));
	ASSERT_OK(doca_pe_clear_notification(e.pe, 0));
	ASSERT_EQ(doca_pe_progress(e.pe), 1);
	ASSERT_EQ(glog.n, 1);
	ASSERT_OK(doca_sync_event_update_set(wt.ev, 3));
	progress_until_reported(e.pe, 1);
	ASSERT_EQ(glog.completed, 1);
	teardown(g, inst);
	waiter_close(&wt, &e);
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
