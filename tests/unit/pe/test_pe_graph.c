/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Graphs on the fake backend (pe_fake.h): what a real context does not let a test
 * provoke at will - a full queue (AGAIN delays a node, it does not fail it), a
 * task completed inside submit, a stop that flushes a graph's tasks - and that a
 * graph's tasks never reach their pool's callbacks.
 */
#include <doca_graph.h>

#include "pe_fake.h"

static unsigned completed, failed, user_runs;

static void
done(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	completed++;
}

static void
fail(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	failed++;
}

static doca_error_t
user(void *cookie)
{
	user_runs++;
	return DOCA_SUCCESS;
}

/* n fake-task roots, all parents of one user node; an instance with n tasks set. */
struct fixture {
	struct doca_pe *pe;
	struct fake *f;
	struct doca_graph *g;
	struct doca_graph_instance *inst;
};

static void
fixture_open(struct fixture *x, int n)
{
	struct doca_graph_node *u, *roots[8];

	completed = failed = user_runs = 0;
	nev = 0;
	x->pe = pe_new();
	x->f = fake_new(x->pe, 16);
	ASSERT_OK(doca_ctx_start(&x->f->ctx));
	ASSERT_OK(doca_graph_create(x->pe, &x->g));
	ASSERT_OK(doca_graph_set_conf(x->g, done, fail, 1));
	ASSERT_OK(doca_graph_node_create_from_user(x->g, user, &u));
	for (int i = 0; i < n; i++) {
		ASSERT_OK(doca_graph_node_create_from_ctx(x->g, &x->f->ctx, &roots[i]));
		ASSERT_OK(doca_graph_add_dependency(x->g, roots[i], u));
	}
	ASSERT_OK(doca_graph_start(x->g));
	ASSERT_OK(doca_graph_instance_create(x->g, &x->inst));
	ASSERT_OK(doca_graph_instance_set_user_node_data(x->inst, u, NULL));
	for (int i = 0; i < n; i++)
		ASSERT_OK(doca_graph_instance_set_ctx_node_data(x->inst, roots[i], &fake_alloc(x->f, i)->task));
}

static void
fixture_close(struct fixture *x)
{
	doca_error_t err;

	ASSERT_OK(doca_graph_instance_destroy(x->inst));
	ASSERT_OK(doca_graph_stop(x->g));
	ASSERT_OK(doca_graph_destroy(x->g));
	err = doca_ctx_stop(&x->f->ctx);
	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	while (state_of(x->f) != DOCA_CTX_STATE_IDLE)
		(void)doca_pe_progress(x->pe);
	ASSERT_OK(sd_ctx_fini(&x->f->ctx, "test"));
	free(x->f);
	ASSERT_OK(doca_pe_destroy(x->pe));
}

/* Only state edges were logged: no task callback ran. */
static void
expect_no_task_callback(void)
{
	for (int i = 0; i < nev; i++)
		ASSERT_EQ(evs[i].kind, EV_STATE);
}

TEST(graph_full_queue_delays_nodes)
{
	struct fixture x;

	fixture_open(&x, 3);
	x.f->max_queue = 1;
	x.f->per_progress = 1;
	ASSERT_OK(doca_graph_instance_submit(x.inst));
	ASSERT_EQ(inflight(x.f), 1); /* the other two roots wait for room */
	for (int i = 0; i < 20 && completed + failed == 0; i++)
		(void)doca_pe_progress(x.pe);
	ASSERT_EQ(completed, 1);
	ASSERT_EQ(failed, 0);
	ASSERT_EQ(user_runs, 1);
	ASSERT_EQ(inflight(x.f), 0);
	expect_no_task_callback();
	fixture_close(&x);
}

TEST(graph_task_completed_inside_submit)
{
	struct fixture x;

	fixture_open(&x, 2);
	x.f->complete_in_submit = true;
	ASSERT_OK(doca_graph_instance_submit(x.inst));
	ASSERT_EQ(user_runs, 0); /* reported, and the user node run, only from progress */
	ASSERT_EQ(doca_pe_progress(x.pe), 1);
	ASSERT_EQ(user_runs, 1);
	ASSERT_EQ(doca_pe_progress(x.pe), 1);
	ASSERT_EQ(completed, 1);
	expect_no_task_callback();
	fixture_close(&x);
}

TEST(graph_tasks_flushed_by_a_stop_fail_the_instance)
{
	struct fixture x;

	fixture_open(&x, 2);
	ASSERT_OK(doca_graph_instance_submit(x.inst));
	ASSERT_ERR(doca_ctx_stop(&x.f->ctx), DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 10 && completed + failed == 0; i++)
		(void)doca_pe_progress(x.pe);
	ASSERT_EQ(failed, 1);
	ASSERT_EQ(completed, 0);
	ASSERT_EQ(user_runs, 0);
	ASSERT_EQ(state_of(x.f), DOCA_CTX_STATE_IDLE);
	expect_no_task_callback();
	/* Resubmitting now is refused: the context is not RUNNING. */
	ASSERT_ERR(doca_graph_instance_submit(x.inst), DOCA_ERROR_BAD_STATE);
	fixture_close(&x);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
