/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_sha.h contract: capabilities per device model, create/destroy, the
 * context's states (IDLE -> RUNNING directly, a failed task stopping it, a stop
 * flushing), task configuration and allocation, the setters' statuses, the
 * partial session's rules, and every refusal with its status (submit: through
 * the error callback, or returned when there is nothing to run; try_submit:
 * returned), its log line, and no byte written past a destination.
 */
#include "sha_test.h"

/* ---- capabilities and models ------------------------------------------------------------------ */

TEST(caps_of_the_soft_device)
{
	struct doca_dev *dev;
	const struct doca_devinfo *info;
	uint32_t v = 0;
	uint64_t max = 0;

	use_builtin_topology();
	dev = open_ibdev("mlx5_0");
	info = doca_dev_as_devinfo(dev);
	for (size_t i = 0; i < 3; i++) {
		enum doca_sha_algorithm a = all_algs[i];

		ASSERT_OK(doca_sha_cap_task_hash_get_supported(info, a));
		ASSERT_OK(doca_sha_cap_task_partial_hash_get_supported(info, a));
		ASSERT_OK(doca_sha_cap_get_min_dst_buf_size(info, a, &v));
		ASSERT_EQ(v, alg_digest_len(a));
		ASSERT_OK(doca_sha_cap_get_partial_hash_block_size(info, a, &v));
		ASSERT_EQ(v, alg_block_len(a));
	}
	ASSERT_OK(doca_sha_cap_get_max_src_buf_size(info, &max));
	ASSERT_EQ(max, 128u << 20);
	ASSERT_OK(doca_sha_cap_get_max_list_buf_num_elem(info, &v));
	ASSERT_EQ(v, 16);
	/* Arguments */
	ASSERT_ERR(doca_sha_cap_task_hash_get_supported(NULL, DOCA_SHA_ALGORITHM_SHA256), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_cap_task_hash_get_supported(info, (enum doca_sha_algorithm)3), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_cap_task_partial_hash_get_supported(info, (enum doca_sha_algorithm) - 1),
		   DOCA_ERROR_INVALID_VALUE);
	v = 7;
	ASSERT_ERR(doca_sha_cap_get_min_dst_buf_size(info, (enum doca_sha_algorithm)9, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_cap_get_partial_hash_block_size(info, DOCA_SHA_ALGORITHM_SHA1, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_cap_get_max_src_buf_size(NULL, &max), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_cap_get_max_list_buf_num_elem(info, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(v, 7);
	ASSERT_OK(doca_dev_close(dev));
}

/* BlueField-3 and ConnectX-7 have no SHA engine: every query says so, and create names the model. */
static void
expect_no_sha(const char *model)
{
	struct doca_sha *sha = SENTINEL_PTR;
	struct doca_dev *dev;
	const struct doca_devinfo *info;
	uint32_t v = 7;
	uint64_t max = 7;
	int log;

	use_model(model, "");
	log = capture_sdk_log();
	dev = open_ibdev("mlx5_0");
	info = doca_dev_as_devinfo(dev);
	ASSERT_ERR(doca_sha_cap_task_hash_get_supported(info, DOCA_SHA_ALGORITHM_SHA256), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sha_cap_task_partial_hash_get_supported(info, DOCA_SHA_ALGORITHM_SHA1),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sha_cap_get_min_dst_buf_size(info, DOCA_SHA_ALGORITHM_SHA256, &v), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sha_cap_get_partial_hash_block_size(info, DOCA_SHA_ALGORITHM_SHA512, &v),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sha_cap_get_max_src_buf_size(info, &max), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_sha_cap_get_max_list_buf_num_elem(info, &v), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(v, 7);
	ASSERT_EQ(max, 7);
	ASSERT_ERR(doca_sha_create(dev, &sha), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(sha, SENTINEL_PTR);
	ASSERT_LOG_HAS(log, "doca_sha_create: device 0000:b1:00.0 (mlx5_0, model ");
	ASSERT_LOG_HAS(log, model);
	ASSERT_LOG_HAS(log, "has no SHA engine");
	ASSERT_OK(doca_dev_close(dev));
}

TEST(bluefield3_has_no_sha)
{
	expect_no_sha("bluefield-3");
}

TEST(connectx7_has_no_sha)
{
	expect_no_sha("connectx-7");
}

TEST(bluefield2_has_sha)
{
	struct env e;

	use_model("bluefield-2", "");
	env_open_log(&e, 0);
	ASSERT_OK(doca_sha_cap_task_hash_get_supported(doca_dev_as_devinfo(e.dev), DOCA_SHA_ALGORITHM_SHA512));
	ASSERT_OK(doca_sha_cap_task_partial_hash_get_supported(doca_dev_as_devinfo(e.dev), DOCA_SHA_ALGORITHM_SHA1));
	env_close(&e);
}

/* A card with a hash engine but no partial hash (a topology override): only that family is refused. */
TEST(partial_hash_off_refuses_its_set_conf)
{
	struct doca_sha *sha;
	struct doca_dev *dev;
	int log;

	use_model("bluefield-2", "\"sha_partial_hash\": false");
	log = capture_sdk_log();
	dev = open_ibdev("mlx5_0");
	ASSERT_OK(doca_sha_cap_task_hash_get_supported(doca_dev_as_devinfo(dev), DOCA_SHA_ALGORITHM_SHA256));
	ASSERT_ERR(doca_sha_cap_task_partial_hash_get_supported(doca_dev_as_devinfo(dev), DOCA_SHA_ALGORITHM_SHA256),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_sha_create(dev, &sha));
	ASSERT_OK(doca_sha_task_hash_set_conf(sha, hash_ok, hash_err, 0));
	ASSERT_ERR(doca_sha_task_partial_hash_set_conf(sha, partial_ok, partial_err, 0), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "model bluefield-2) cannot run SHA partial hash tasks");
	ASSERT_OK(doca_sha_destroy(sha));
	ASSERT_OK(doca_dev_close(dev));
}

/* ---- create, destroy, states, configuration ------------------------------------------------------- */

TEST(create_and_destroy)
{
	struct doca_sha *sha = SENTINEL_PTR;
	struct doca_dev *dev;

	use_builtin_topology();
	dev = open_ibdev("mlx5_0");
	ASSERT_ERR(doca_sha_create(NULL, &sha), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(sha, SENTINEL_PTR);
	ASSERT_ERR(doca_sha_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_sha_as_ctx(NULL), NULL);
	ASSERT_OK(doca_sha_create(dev, &sha));
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE); /* the context uses the device */
	ASSERT_OK(doca_sha_destroy(sha));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(start_goes_straight_to_running_and_stop_to_idle)
{
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(seen.num_states, 1);
	ASSERT_EQ(seen.states[0], DOCA_CTX_STATE_RUNNING); /* never STARTING */
	ASSERT_ERR(doca_sha_destroy(e.sha), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_IDLE);
	/* Stopping an IDLE context succeeds (DOCA's samples stop twice); it starts again. */
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_ctx_start(e.ctx));
	env_close(&e);
}

TEST(start_needs_a_task_family)
{
	struct doca_sha *sha;
	struct doca_pe *pe;
	struct doca_dev *dev;
	int log;

	use_builtin_topology();
	log = capture_sdk_log();
	dev = open_ibdev("mlx5_0");
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_sha_create(dev, &sha));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_sha_as_ctx(sha)));
	ASSERT_ERR(doca_ctx_start(doca_sha_as_ctx(sha)), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "doca_sha_task_hash_set_conf() or doca_sha_task_partial_hash_set_conf() before");
	/* One family is enough. */
	ASSERT_OK(doca_sha_task_partial_hash_set_conf(sha, partial_ok, partial_err, 0));
	ASSERT_OK(doca_ctx_start(doca_sha_as_ctx(sha)));
	ASSERT_OK(doca_ctx_stop(doca_sha_as_ctx(sha)));
	ASSERT_OK(doca_sha_destroy(sha));
	ASSERT_OK(doca_pe_destroy(pe));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(set_conf_rules)
{
	struct env e;

	env_open(&e);
	ASSERT_ERR(doca_sha_task_hash_set_conf(NULL, hash_ok, hash_err, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_hash_set_conf(e.sha, NULL, hash_err, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_partial_hash_set_conf(e.sha, partial_ok, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_hash_set_conf(e.sha, hash_ok, hash_err, 15), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_sha_task_hash_set_conf(e.sha, hash_ok, hash_err, 14)); /* 16384 tasks */
	ASSERT_OK(doca_sha_task_hash_set_conf(e.sha, hash_ok, hash_err, 1));  /* reconfigured */
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_sha_task_hash_set_conf(e.sha, hash_ok, hash_err, 2), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sha_task_partial_hash_set_conf(e.sha, partial_ok, partial_err, 2), DOCA_ERROR_BAD_STATE);
	env_close(&e);
}

TEST(alloc_init_rules_and_accessors)
{
	struct doca_sha_task_hash *h[2], *extra = SENTINEL_PTR;
	struct doca_sha_task_partial_hash *p = SENTINEL_PTR;
	struct doca_buf *src, *dst, *other;
	union doca_data ud = {.u64 = 11};
	struct env e;

	use_builtin_topology();
	env_open_log(&e, 1); /* two tasks of each family */
	src = src_buf(&e, 0, 100);
	dst = dst_buf(&e, 4096, 64);
	other = dst_buf(&e, 8192, 64);
	/* Not running yet */
	ASSERT_ERR(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &extra),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sha_task_partial_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &p),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_sha_task_hash_alloc_init(NULL, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &extra),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_hash_alloc_init(e.sha, (enum doca_sha_algorithm)3, src, dst, ud, &extra),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(extra, SENTINEL_PTR);
	ASSERT_PTR_EQ(p, SENTINEL_PTR);
	ASSERT_OK(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &h[0]));
	ASSERT_OK(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA1, NULL, NULL, ud, &h[1]));
	ASSERT_ERR(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &extra),
		   DOCA_ERROR_NO_MEMORY); /* the pool holds two */
	ASSERT_PTR_EQ(extra, SENTINEL_PTR);

	ASSERT_PTR_EQ(doca_sha_task_hash_get_src(h[0]), src);
	ASSERT_PTR_EQ(doca_sha_task_hash_get_dst(h[0]), dst);
	ASSERT_EQ(doca_sha_task_hash_get_algorithm(h[0]), DOCA_SHA_ALGORITHM_SHA256);
	ASSERT_OK(doca_sha_task_hash_set_src(h[1], src));
	ASSERT_OK(doca_sha_task_hash_set_dst(h[1], other));
	ASSERT_OK(doca_sha_task_hash_set_algorithm(h[1], DOCA_SHA_ALGORITHM_SHA512));
	ASSERT_ERR(doca_sha_task_hash_set_algorithm(h[1], (enum doca_sha_algorithm)7), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_sha_task_hash_get_algorithm(h[1]), DOCA_SHA_ALGORITHM_SHA512);
	ASSERT_PTR_EQ(doca_sha_task_hash_get_dst(h[1]), other);
	ASSERT_ERR(doca_sha_task_hash_set_src(NULL, src), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_hash_set_dst(NULL, dst), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_hash_set_algorithm(NULL, DOCA_SHA_ALGORITHM_SHA1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_sha_task_hash_get_src(NULL), NULL);
	ASSERT_PTR_EQ(doca_sha_task_hash_as_task(NULL), NULL);
	ASSERT_PTR_EQ(doca_task_get_ctx(doca_sha_task_hash_as_task(h[0])), e.ctx);
	ASSERT_EQ(doca_task_get_user_data(doca_sha_task_hash_as_task(h[0])).u64, 11);

	ASSERT_OK(doca_sha_task_partial_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA512, src, dst, ud, &p));
	ASSERT_EQ(doca_sha_task_partial_hash_get_algorithm(p), DOCA_SHA_ALGORITHM_SHA512);
	ASSERT_EQ(doca_sha_task_partial_hash_get_is_final(p), 0);
	ASSERT_EQ(doca_sha_task_partial_hash_get_has_result(p), 0);
	ASSERT_OK(doca_sha_task_partial_hash_set_dst(p, other)); /* before the first segment */
	ASSERT_OK(doca_sha_task_partial_hash_set_algorithm(p, DOCA_SHA_ALGORITHM_SHA1));
	ASSERT_ERR(doca_sha_task_partial_hash_set_algorithm(p, (enum doca_sha_algorithm)3), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_sha_task_partial_hash_get_dst(p), other);
	ASSERT_ERR(doca_sha_task_partial_hash_reset(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_sha_task_partial_hash_set_is_final_buf(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(doca_sha_task_partial_hash_get_is_final(NULL), 0);
	ASSERT_PTR_EQ(doca_sha_task_partial_hash_as_task(NULL), NULL);
	doca_task_free(doca_sha_task_hash_as_task(h[0]));
	doca_task_free(doca_sha_task_hash_as_task(h[1]));
	doca_task_free(doca_sha_task_partial_hash_as_task(p));
	/* Freed tasks come back to the pool. */
	ASSERT_OK(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &h[0]));
	doca_task_free(doca_sha_task_hash_as_task(h[0]));
	env_close(&e);
}

/* ---- completion, stop, failure ---------------------------------------------------------------------- */

TEST(hash_completes_through_the_pe)
{
	struct doca_sha_task_hash *t;
	struct doca_buf *src, *dst;
	union doca_data ud = {.u64 = 42};
	struct env e;
	size_t inflight = 9;

	env_open(&e);
	fill(&e, 0, 1000, 1);
	src = src_buf(&e, 0, 1000);
	dst = dst_buf(&e, 4096, 4096); /* much larger than the digest */
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &t));
	ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t)));
	ASSERT_EQ(seen.ok + seen.err, 0); /* callbacks run inside doca_pe_progress() only */
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(e.ctx, &inflight));
	ASSERT_EQ(inflight, 1);
	progress_until(&e, 1);
	ASSERT_EQ(seen.ok, 1);
	ASSERT_EQ(seen.order[0], 42);
	ASSERT_EQ(seen.last_ctx_ud.u64, 0x5aa);
	assert_digest(DOCA_SHA_ALGORITHM_SHA256, dst, e.mem, 1000);
	assert_guard(&e, 4096 + 32, 4096 - 32); /* nothing after the digest either */
	/* Reusable: try_submit validates, then runs it; the next digest follows the first. */
	ASSERT_OK(doca_task_try_submit(doca_sha_task_hash_as_task(t)));
	progress_until(&e, 2);
	ASSERT_EQ(seen.ok, 2);
	doca_task_free(doca_sha_task_hash_as_task(t));
	env_close(&e);
}

/* A stop before progress reported the tasks: each is flushed through its error callback. */
TEST(stop_flushes_tasks_not_yet_reported)
{
	struct doca_sha_task_hash *t[3];
	struct env e;

	env_open(&e);
	fill(&e, 0, 1 << 20, 2);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (unsigned i = 0; i < 3; i++) {
		union doca_data ud = {.u64 = i};

		ASSERT_OK(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA512, src_buf(&e, 0, 1 << 20),
							dst_buf(&e, (2u << 20) + i * 256, 64), ud, &t[i]));
		ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t[i])));
	}
	ASSERT_ERR(doca_ctx_stop(e.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_STOPPING);
	progress_until(&e, 3);
	ASSERT_EQ(seen.err, 3);
	for (unsigned i = 0; i < 3; i++) {
		ASSERT_EQ(seen.order[i], i);
		ASSERT_ERR(seen.status[i], DOCA_ERROR_IO_FAILED);
	}
	progress_until_idle(&e);
	for (unsigned i = 0; i < 3; i++)
		doca_task_free(doca_sha_task_hash_as_task(t[i]));
	env_close(&e);
}

/* A task that fails (no room for its digest) stops the context; the one after it is flushed. */
TEST(failed_task_stops_the_context)
{
	struct doca_sha_task_hash *t[3];
	size_t rooms[3] = {64, 31, 64};
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (unsigned i = 0; i < 3; i++) {
		union doca_data ud = {.u64 = 10 + i};

		ASSERT_OK(doca_sha_task_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src_buf(&e, 0, 64),
							dst_buf(&e, 4096 + i * 256, rooms[i]), ud, &t[i]));
		ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t[i])));
	}
	progress_until(&e, 3);
	ASSERT_EQ(seen.ok, 1);
	ASSERT_EQ(seen.err, 2);
	ASSERT_EQ(seen.order[0], 10);
	ASSERT_EQ(seen.order[1], 11);
	ASSERT_ERR(seen.status[1], DOCA_ERROR_TOO_BIG);
	ASSERT_ERR(seen.status[2], DOCA_ERROR_IO_FAILED);
	assert_guard(&e, 4096 + 256, 31); /* the 31-byte room was not touched at all */
	ASSERT_EQ(e.mem[4096 + 256], GUARD_BYTE);
	ASSERT_LOG_HAS(log, "32-byte digest does not fit in its destination, which has room for 31 bytes");
	progress_until_idle(&e);
	ASSERT(seen.num_states >= 3);
	ASSERT_EQ(seen.states[seen.num_states - 2], DOCA_CTX_STATE_STOPPING);
	for (unsigned i = 0; i < 3; i++)
		doca_task_free(doca_sha_task_hash_as_task(t[i]));
	env_close(&e);
}

/* ---- refusals ------------------------------------------------------------------------------------------ */

/*
 * A task at fault: try_submit returns code and leaves the context RUNNING; submit
 * accepts it and its error callback carries code, after which the context stops.
 */
static void
expect_fault(struct env *e, struct doca_task *task, doca_error_t code)
{
	unsigned before = seen.ok + seen.err;

	ASSERT_ERR(doca_task_try_submit(task), code);
	ASSERT_EQ(ctx_state(e), DOCA_CTX_STATE_RUNNING);
	ASSERT_OK(doca_task_submit(task));
	progress_until(e, before + 1);
	ASSERT_EQ(seen.err, 1);
	ASSERT_ERR(seen.status[before], code);
	progress_until_idle(e);
}

static struct doca_sha_task_hash *
hash_task(struct env *e, enum doca_sha_algorithm alg, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_sha_task_hash *t = NULL;
	union doca_data ud = {.u64 = 1};

	ASSERT_OK(doca_sha_task_hash_alloc_init(e->sha, alg, src, dst, ud, &t));
	return t;
}

TEST(no_source_or_destination_is_returned_and_kept)
{
	struct doca_sha_task_hash *t;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ASSERT_OK(doca_ctx_start(e.ctx));
	t = hash_task(&e, DOCA_SHA_ALGORITHM_SHA1, NULL, dst_buf(&e, 4096, 64));
	ASSERT_ERR(doca_task_submit(doca_sha_task_hash_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "SHA hash task has no source buffer");
	ASSERT_OK(doca_sha_task_hash_set_src(t, src_buf(&e, 0, 10)));
	ASSERT_OK(doca_sha_task_hash_set_dst(t, NULL));
	ASSERT_ERR(doca_task_try_submit(doca_sha_task_hash_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "SHA hash task has no destination buffer");
	(void)doca_pe_progress(e.pe);
	ASSERT_EQ(seen.ok + seen.err, 0);
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_RUNNING); /* nothing ran, nothing stopped */
	doca_task_free(doca_sha_task_hash_as_task(t));
	env_close(&e);
}

TEST(source_over_max_src_buf_size)
{
	struct env e;
	int log;

	use_model("soft", "\"sha_max_src_buf_size\": 1000");
	env_open_log(&e, 2);
	log = capture_sdk_log();
	ASSERT_OK(doca_ctx_start(e.ctx));
	expect_fault(&e,
		     doca_sha_task_hash_as_task(
			     hash_task(&e, DOCA_SHA_ALGORITHM_SHA256, src_buf(&e, 0, 1001), dst_buf(&e, 4096, 32))),
		     DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source holds 1001 bytes, more than max_src_buf_size 1000");
	env_close(&e);
}

TEST(source_list_over_max_list_len)
{
	struct doca_buf *head, *next;
	struct env e;
	int log;

	use_model("soft", "\"sha_max_list_num_elem\": 2");
	env_open_log(&e, 2);
	log = capture_sdk_log();
	head = src_buf(&e, 0, 10);
	for (unsigned i = 1; i < 3; i++) {
		next = src_buf(&e, i * 100, 10);
		ASSERT_OK(doca_buf_chain_list(head, next));
	}
	ASSERT_OK(doca_ctx_start(e.ctx));
	expect_fault(&e,
		     doca_sha_task_hash_as_task(hash_task(&e, DOCA_SHA_ALGORITHM_SHA1, head, dst_buf(&e, 4096, 64))),
		     DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source list has 3 segments, more than max_list_buf_num_elem 2");
	env_close(&e);
}

TEST(destination_without_write_permission)
{
	struct doca_mmap *ro;
	struct doca_buf *dst;
	struct env e;
	uint8_t *mem = calloc(1, 4096);

	env_open(&e);
	ro = started_mmap(mem, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, e.dev);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, ro, mem, 64, &dst));
	ASSERT_OK(doca_ctx_start(e.ctx));
	expect_fault(&e, doca_sha_task_hash_as_task(hash_task(&e, DOCA_SHA_ALGORITHM_SHA256, src_buf(&e, 0, 10), dst)),
		     DOCA_ERROR_NOT_PERMITTED);
	for (unsigned i = 0; i < 4096; i++)
		ASSERT_EQ(mem[i], 0);
	env_close(&e);
}

TEST(source_mmap_without_the_device)
{
	struct doca_mmap *bare;
	struct doca_buf *src;
	struct env e;
	uint8_t *mem = calloc(1, 4096);
	int log;

	env_open(&e);
	log = capture_sdk_log();
	bare = started_mmap(mem, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, bare, mem, 64, &src));
	ASSERT_OK(doca_ctx_start(e.ctx));
	expect_fault(&e, doca_sha_task_hash_as_task(hash_task(&e, DOCA_SHA_ALGORITHM_SHA256, src, dst_buf(&e, 0, 64))),
		     DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "call doca_mmap_add_dev() with that device");
	env_close(&e);
}

/* ---- partial sessions: the rules ---------------------------------------------------------------------- */

static struct doca_sha_task_partial_hash *
partial_task(struct env *e, enum doca_sha_algorithm alg, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_sha_task_partial_hash *t = NULL;
	union doca_data ud = {.u64 = 2};

	ASSERT_OK(doca_sha_task_partial_hash_alloc_init(e->sha, alg, src, dst, ud, &t));
	return t;
}

/* Submit the partial task's current segment and wait for its completion (which must succeed). */
static void
submit_segment(struct env *e, struct doca_sha_task_partial_hash *t)
{
	unsigned before = seen.ok + seen.err;

	ASSERT_OK(doca_task_submit(doca_sha_task_partial_hash_as_task(t)));
	progress_until(e, before + 1);
	ASSERT_ERR(seen.status[before], DOCA_SUCCESS);
}

TEST(partial_session_rules)
{
	struct doca_sha_task_partial_hash *t;
	struct doca_buf *src, *dst, *other;
	size_t len = 99;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	fill(&e, 0, 256, 3);
	src = src_buf(&e, 0, 256);
	dst = dst_buf(&e, 4096, 64);
	other = dst_buf(&e, 8192, 64);
	ASSERT_OK(doca_ctx_start(e.ctx));
	t = partial_task(&e, DOCA_SHA_ALGORITHM_SHA256, src, dst);
	/* The final mark never goes on a first segment. */
	ASSERT_ERR(doca_sha_task_partial_hash_set_is_final_buf(t), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "hash a one-segment message with a hash task");
	ASSERT_EQ(doca_sha_task_partial_hash_get_is_final(t), 0);
	ASSERT_OK(doca_buf_set_data(src, e.mem, 128));
	submit_segment(&e, t);
	/* A non-final segment leaves the destination as it was. */
	ASSERT_OK(doca_buf_get_data_len(dst, &len));
	ASSERT_EQ(len, 0);
	ASSERT_EQ(e.mem[4096], GUARD_BYTE);
	ASSERT_EQ(doca_sha_task_partial_hash_get_has_result(t), 0);
	/* The session is in progress: destination and algorithm are fixed. */
	ASSERT_ERR(doca_sha_task_partial_hash_set_dst(t, other), DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_sha_task_partial_hash_set_algorithm(t, DOCA_SHA_ALGORITHM_SHA1), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(doca_sha_task_partial_hash_get_dst(t), dst);
	ASSERT_OK(doca_buf_set_data(src, e.mem + 128, 100));
	ASSERT_OK(doca_sha_task_partial_hash_set_src(t, src));
	ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t));
	ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t)); /* twice is once */
	ASSERT_EQ(doca_sha_task_partial_hash_get_is_final(t), 1);
	submit_segment(&e, t);
	ASSERT_EQ(doca_sha_task_partial_hash_get_has_result(t), 1);
	assert_digest(DOCA_SHA_ALGORITHM_SHA256, dst, e.mem, 228);
	assert_guard(&e, 4096, 64);
	/* The session is over: a resubmission is returned, the final mark refused, until reset. */
	ASSERT_ERR(doca_task_submit(doca_sha_task_partial_hash_as_task(t)), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "already hashed its final segment; call doca_sha_task_partial_hash_reset()");
	ASSERT_ERR(doca_sha_task_partial_hash_set_is_final_buf(t), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_sha_task_partial_hash_reset(t));
	ASSERT_EQ(doca_sha_task_partial_hash_get_is_final(t), 0);
	ASSERT_EQ(doca_sha_task_partial_hash_get_has_result(t), 0);
	/* A new message, with another algorithm and destination. */
	ASSERT_OK(doca_sha_task_partial_hash_set_algorithm(t, DOCA_SHA_ALGORITHM_SHA512));
	ASSERT_OK(doca_sha_task_partial_hash_set_dst(t, other));
	ASSERT_OK(doca_buf_set_data(src, e.mem, 128));
	submit_segment(&e, t);
	ASSERT_OK(doca_buf_set_data(src, e.mem + 128, 0)); /* an empty final segment */
	ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t));
	submit_segment(&e, t);
	assert_digest(DOCA_SHA_ALGORITHM_SHA512, other, e.mem, 128);
	assert_guard(&e, 8192, 64);
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_RUNNING);
	doca_task_free(doca_sha_task_partial_hash_as_task(t));
	env_close(&e);
}

TEST(partial_segment_not_a_block_multiple)
{
	struct doca_sha_task_partial_hash *t;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ASSERT_OK(doca_ctx_start(e.ctx));
	t = partial_task(&e, DOCA_SHA_ALGORITHM_SHA512, src_buf(&e, 0, 192), dst_buf(&e, 4096, 64));
	expect_fault(&e, doca_sha_task_partial_hash_as_task(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "non-final segment holds 192 bytes, not a multiple of the 128-byte block");
	assert_guard(&e, 4096, 64);
	ASSERT_EQ(e.mem[4096], GUARD_BYTE);
	env_close(&e);
}

/* A partial session's destination is checked at every submission, before any byte is hashed. */
TEST(partial_destination_too_small)
{
	struct doca_sha_task_partial_hash *t;
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	t = partial_task(&e, DOCA_SHA_ALGORITHM_SHA1, src_buf(&e, 0, 64), dst_buf(&e, 4096, 19));
	expect_fault(&e, doca_sha_task_partial_hash_as_task(t), DOCA_ERROR_TOO_BIG);
	assert_guard(&e, 4096, 19);
	ASSERT_EQ(e.mem[4096], GUARD_BYTE);
	env_close(&e);
}

/* A freed task mid-session comes back with a new, empty session. */
TEST(partial_free_mid_session_then_alloc)
{
	struct doca_sha_task_partial_hash *t;
	struct doca_buf *src, *dst;
	struct env e;

	env_open_log(&e, 0);
	fill(&e, 0, 256, 4);
	src = src_buf(&e, 0, 256);
	dst = dst_buf(&e, 4096, 32);
	ASSERT_OK(doca_ctx_start(e.ctx));
	t = partial_task(&e, DOCA_SHA_ALGORITHM_SHA256, src, dst);
	ASSERT_OK(doca_buf_set_data(src, e.mem + 128, 64)); /* a segment of another message */
	submit_segment(&e, t);
	doca_task_free(doca_sha_task_partial_hash_as_task(t));
	t = partial_task(&e, DOCA_SHA_ALGORITHM_SHA256, src, dst);
	ASSERT_EQ(doca_sha_task_partial_hash_get_is_final(t), 0);
	ASSERT_OK(doca_sha_task_partial_hash_set_dst(t, dst)); /* not started */
	ASSERT_OK(doca_buf_set_data(src, e.mem, 64));
	submit_segment(&e, t);
	ASSERT_OK(doca_buf_set_data(src, e.mem + 64, 10));
	ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t));
	submit_segment(&e, t);
	assert_digest(DOCA_SHA_ALGORITHM_SHA256, dst, e.mem, 74);
	doca_task_free(doca_sha_task_partial_hash_as_task(t));
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
