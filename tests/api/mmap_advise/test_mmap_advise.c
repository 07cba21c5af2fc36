/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_mmap_advise.h contract: capabilities from the device, create/destroy, the
 * context's states (IDLE -> RUNNING directly, stop, a failed task stopping it),
 * task configuration and allocation, completion through the PE only, a stop
 * flushing a task not yet reported, and every refusal of the cache invalidate task
 * with its code (submit: through the error callback; try_submit: returned) and
 * its log line.
 */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "../mmap/mmap_test.h"

/*
 * mlx5_0: cache invalidate up to 4 KiB per task; mlx5_1: none; mlx5_3: another
 * host function (an mmap of its own is not the advise context's); 03:00.0 (mlx5_2):
 * the DPU function that imports mlx5_0's PCI export.
 */
static const char advise_topology[] =
	"{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"netdev\": \"lo\",\n"
	" \"caps\": {\"cache_invalidate_max_buf_size\": 4096}, \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\"},\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.1\", \"ibdev\": \"mlx5_1\", \"iface\": \"ens1f1np1\",\n"
	"   \"caps\": {\"cache_invalidate\": false}},\n"
	"  {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.0\", \"ibdev\": \"mlx5_2\", \"iface\": \"p0\"},\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.2\", \"ibdev\": \"mlx5_3\", \"iface\": \"ens1f2np2\"}]}]}\n";

#define MAX_BUF 4096u
#define NUM_TASKS 4u
#define BUF_LEN (4 * MAX_BUF)

/* What the callbacks saw. */
static struct {
	unsigned ok, err;
	doca_error_t last_status;
	union doca_data last_task_ud, last_ctx_ud;
	enum doca_ctx_states states[8];
	unsigned num_states;
} seen;

static void
record(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_ud, union doca_data ctx_ud, bool ok)
{
	seen.last_status = doca_task_get_status(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
	seen.last_task_ud = task_ud;
	seen.last_ctx_ud = ctx_ud;
	if (ok)
		seen.ok++;
	else
		seen.err++;
}

static void
task_ok(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_ud, union doca_data ctx_ud)
{
	record(task, task_ud, ctx_ud, true);
}

static void
task_err(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_ud, union doca_data ctx_ud)
{
	record(task, task_ud, ctx_ud, false);
}

static void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	if (seen.num_states < 8)
		seen.states[seen.num_states++] = next;
}

struct env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_mmap_advise *adv;
	struct doca_ctx *ctx;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
};

static struct doca_dev *
open_advise_dev(const char *ibdev)
{
	use_topology_text(advise_topology);
	return open_ibdev(ibdev);
}

/* A PE and a configured (not started) context on mlx5_0, and a started LOCAL_READ_WRITE mmap with it. */
static void
env_open(struct env *e)
{
	union doca_data ud = {.u64 = 0xc0ffee};

	memset(e, 0, sizeof(*e));
	memset(&seen, 0, sizeof(seen));
	e->dev = open_advise_dev("mlx5_0");
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_mmap_advise_create(e->dev, &e->adv));
	e->ctx = doca_mmap_advise_as_ctx(e->adv);
	ASSERT_NOT_NULL(e->ctx);
	ASSERT_OK(doca_pe_connect_ctx(e->pe, e->ctx));
	ASSERT_OK(doca_ctx_set_user_data(e->ctx, ud));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_changed));
	ASSERT_OK(doca_mmap_advise_task_invalidate_cache_set_conf(e->adv, task_ok, task_err, NUM_TASKS));
	e->mem = calloc(1, BUF_LEN);
	ASSERT_NOT_NULL(e->mem);
	e->mmap = started_mmap(e->mem, BUF_LEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, e->dev);
	e->inv = started_inventory(16);
}

static struct doca_buf *
buf_by_data(struct env *e, struct doca_mmap *m, void *data, size_t len)
{
	struct doca_buf *b = NULL;

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, m, data, len, &b));
	return b;
}

static struct doca_mmap_advise_task_invalidate_cache *
alloc_task(struct env *e, struct doca_buf *buf, uint64_t ud)
{
	struct doca_mmap_advise_task_invalidate_cache *t = NULL;
	union doca_data d = {.u64 = ud};

	ASSERT_OK(doca_mmap_advise_task_invalidate_cache_alloc_init(e->adv, buf, d, &t));
	ASSERT_NOT_NULL(t);
	return t;
}

static struct doca_task *
as_task(struct doca_mmap_advise_task_invalidate_cache *t)
{
	return doca_mmap_advise_task_invalidate_cache_as_doca_task(t);
}

/* Progress until n callbacks ran in total (10 s at most). */
static void
progress_until(struct env *e, unsigned n)
{
	for (int i = 0; seen.ok + seen.err < n; i++) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(100);
		ASSERT(i < 100000);
	}
}

static enum doca_ctx_states
ctx_state(struct env *e)
{
	enum doca_ctx_states st;

	ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
	return st;
}

/*
 * Submit a task whose buffer is at fault: submit accepts it and its error callback
 * carries the code, after which the context stops by itself.  try_submit, tried
 * first on a fresh task, returns the code and leaves the context RUNNING.
 */
static void
expect_refusal(struct env *e, struct doca_buf *buf, doca_error_t code)
{
	struct doca_mmap_advise_task_invalidate_cache *t = alloc_task(e, buf, 7);

	seen.ok = seen.err = 0;
	ASSERT_OK(doca_ctx_start(e->ctx));
	ASSERT_ERR(doca_task_try_submit(as_task(t)), code);
	ASSERT_EQ(ctx_state(e), DOCA_CTX_STATE_RUNNING);
	ASSERT_OK(doca_task_submit(as_task(t)));
	ASSERT_EQ(seen.err, 0); /* reported by progress, not by submit */
	progress_until(e, 1);
	ASSERT_EQ(seen.err, 1);
	ASSERT_ERR(seen.last_status, code);
	ASSERT_EQ(seen.last_task_ud.u64, 7);
	doca_task_free(as_task(t));
	for (int i = 0; ctx_state(e) != DOCA_CTX_STATE_IDLE; i++) {
		(void)doca_pe_progress(e->pe);
		ASSERT(i < 1000);
	}
}

/* ---- capabilities, create, destroy ------------------------------------------------------ */

TEST(caps_follow_the_device)
{
	struct doca_dev *dev = open_advise_dev("mlx5_0");
	struct doca_dev *none = open_ibdev("mlx5_1");
	uint64_t size = 0, untouched = 7;

	ASSERT_OK(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(dev)));
	ASSERT_ERR(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(none)),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_mmap_advise_cap_task_cache_invalidate_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), &size));
	ASSERT_EQ(size, MAX_BUF);
	ASSERT_ERR(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(none), &untouched),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(untouched, 7);
	ASSERT_ERR(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(NULL, &size), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dev_close(dev));
	ASSERT_OK(doca_dev_close(none));
}

TEST(builtin_devices_invalidate_caches)
{
	struct doca_devinfo **list;
	uint32_t n;
	uint64_t size = 0;

	use_builtin_topology();
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++) {
		ASSERT_OK(doca_mmap_advise_cap_task_cache_invalidate_is_supported(list[i]));
		ASSERT_OK(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(list[i], &size));
		ASSERT_EQ(size, UINT64_C(1) << 30);
	}
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(create_and_destroy)
{
	struct doca_dev *dev = open_advise_dev("mlx5_0");
	struct doca_dev *none = open_ibdev("mlx5_1");
	struct doca_mmap_advise *adv = SENTINEL_PTR;
	int log = capture_sdk_log();

	ASSERT_ERR(doca_mmap_advise_create(NULL, &adv), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_create(none, &adv), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "cannot invalidate caches");
	ASSERT_PTR_EQ(adv, SENTINEL_PTR);
	ASSERT_ERR(doca_mmap_advise_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_mmap_advise_as_ctx(NULL), NULL);

	ASSERT_OK(doca_mmap_advise_create(dev, &adv));
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE); /* the context uses the device */
	ASSERT_OK(doca_mmap_advise_destroy(adv));
	ASSERT_OK(doca_dev_close(dev));
	ASSERT_OK(doca_dev_close(none));
}

/* ---- states and configuration ------------------------------------------------------------- */

TEST(start_goes_straight_to_running_and_stop_to_idle)
{
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(seen.num_states, 1);
	ASSERT_EQ(seen.states[0], DOCA_CTX_STATE_RUNNING);
	ASSERT_ERR(doca_mmap_advise_destroy(e.adv), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_IDLE);
	ASSERT_EQ(seen.states[seen.num_states - 1], DOCA_CTX_STATE_IDLE);
	/* Stopping an IDLE context succeeds (DOCA's samples stop twice); it starts again. */
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_mmap_advise_destroy(e.adv));
	ASSERT_OK(doca_pe_destroy(e.pe));
}

TEST(start_needs_the_task_configured)
{
	struct doca_dev *dev = open_advise_dev("mlx5_0");
	struct doca_mmap_advise *adv;
	struct doca_pe *pe;
	enum doca_ctx_states st;
	int log = capture_sdk_log();

	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_mmap_advise_create(dev, &adv));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_mmap_advise_as_ctx(adv)));
	ASSERT_ERR(doca_ctx_start(doca_mmap_advise_as_ctx(adv)), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "doca_mmap_advise_task_invalidate_cache_set_conf() before doca_ctx_start()");
	ASSERT_OK(doca_ctx_get_state(doca_mmap_advise_as_ctx(adv), &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_mmap_advise_destroy(adv));
	ASSERT_OK(doca_pe_destroy(pe));
}

TEST(set_conf_rules)
{
	struct env e;

	env_open(&e);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_set_conf(NULL, task_ok, task_err, 1),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_set_conf(e.adv, NULL, task_err, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_set_conf(e.adv, task_ok, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_set_conf(e.adv, task_ok, task_err, 0),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ctx_start(e.ctx));
	/* Not IDLE: DOCA's code for this context is NOT_PERMITTED. */
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_set_conf(e.adv, task_ok, task_err, 2),
		   DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_mmap_advise_task_invalidate_cache_set_conf(e.adv, task_ok, task_err, 2));
	ASSERT_OK(doca_mmap_advise_destroy(e.adv));
}

TEST(alloc_init_rules_and_accessors)
{
	struct doca_mmap_advise_task_invalidate_cache *t[NUM_TASKS], *extra = SENTINEL_PTR;
	struct doca_mmap_advise *bare;
	struct env e;
	struct doca_buf *b;
	union doca_data ud = {.u64 = 1};

	env_open(&e);
	b = buf_by_data(&e, e.mmap, e.mem, 64);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_alloc_init(NULL, b, ud, &extra), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_alloc_init(e.adv, b, ud, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_mmap_advise_create(e.dev, &bare));
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_alloc_init(bare, b, ud, &extra), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_advise_destroy(bare));

	for (unsigned i = 0; i < NUM_TASKS; i++)
		t[i] = alloc_task(&e, i == 0 ? NULL : b, i);
	ASSERT_ERR(doca_mmap_advise_task_invalidate_cache_alloc_init(e.adv, b, ud, &extra), DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(extra, SENTINEL_PTR);

	ASSERT_PTR_EQ(doca_mmap_advise_task_invalidate_cache_get_buf(t[0]), NULL);
	doca_mmap_advise_task_invalidate_cache_set_buf(t[0], b);
	ASSERT_PTR_EQ(doca_mmap_advise_task_invalidate_cache_get_buf(t[0]), b);
	ASSERT_PTR_EQ(doca_mmap_advise_task_invalidate_cache_get_buf(NULL), NULL);
	doca_mmap_advise_task_invalidate_cache_set_buf(NULL, b); /* logged, no crash */
	ASSERT_PTR_EQ(doca_mmap_advise_task_invalidate_cache_as_doca_task(NULL), NULL);
	ASSERT_PTR_EQ(doca_task_get_ctx(as_task(t[1])), e.ctx);
	ASSERT_EQ(doca_task_get_user_data(as_task(t[2])).u64, 2);
	for (unsigned i = 0; i < NUM_TASKS; i++)
		doca_task_free(as_task(t[i]));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
}

/* ---- completion ------------------------------------------------------------------------------- */

TEST(task_completes_through_the_pe)
{
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct env e;
	size_t inflight = 9;

	env_open(&e);
	t = alloc_task(&e, buf_by_data(&e, e.mmap, e.mem, MAX_BUF), 42);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_task_submit(as_task(t)));
	/* Callbacks run inside doca_pe_progress() only. */
	ASSERT_EQ(seen.ok + seen.err, 0);
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(e.ctx, &inflight));
	ASSERT_EQ(inflight, 1);
	ASSERT_ERR(doca_task_submit(as_task(t)), DOCA_ERROR_BAD_STATE); /* already in flight */
	progress_until(&e, 1);
	ASSERT_EQ(seen.ok, 1);
	ASSERT_OK(seen.last_status);
	ASSERT_EQ(seen.last_task_ud.u64, 42);
	ASSERT_EQ(seen.last_ctx_ud.u64, 0xc0ffee);
	ASSERT_OK(doca_ctx_get_num_inflight_tasks(e.ctx, &inflight));
	ASSERT_EQ(inflight, 0);
	/* The task is reusable; try_submit validates, then runs it the same way. */
	ASSERT_OK(doca_task_try_submit(as_task(t)));
	progress_until(&e, 2);
	ASSERT_EQ(seen.ok, 2);
	doca_task_free(as_task(t));
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_IDLE);
}

/* A buffer list within the limit; the bytes are the data windows, not the regions. */
TEST(list_of_data_windows)
{
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct doca_buf *head, *second;
	struct env e;

	env_open(&e);
	head = buf_by_data(&e, e.mmap, e.mem, MAX_BUF / 2);
	ASSERT_OK(doca_buf_inventory_buf_get_by_args(e.inv, e.mmap, e.mem + MAX_BUF, 3 * MAX_BUF, e.mem + MAX_BUF,
						     MAX_BUF / 2, &second));
	ASSERT_OK(doca_buf_chain_list(head, second));
	t = alloc_task(&e, head, 1);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_task_submit(as_task(t)));
	progress_until(&e, 1);
	ASSERT_EQ(seen.ok, 1);
	doca_task_free(as_task(t));
	ASSERT_OK(doca_ctx_stop(e.ctx));
}

/* A stop before progress reported the task: DOCA flushes it through the error callback. */
TEST(stop_flushes_a_task_not_yet_reported)
{
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct env e;

	env_open(&e);
	t = alloc_task(&e, buf_by_data(&e, e.mmap, e.mem, 64), 5);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_task_submit(as_task(t)));
	ASSERT_ERR(doca_ctx_stop(e.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_STOPPING);
	progress_until(&e, 1);
	ASSERT_EQ(seen.err, 1);
	ASSERT_ERR(seen.last_status, DOCA_ERROR_IO_FAILED);
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_IDLE);
	doca_task_free(as_task(t));
}

/* ---- refusals -------------------------------------------------------------------------------------- */

TEST(no_buffer_is_returned_to_the_submitter)
{
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	t = alloc_task(&e, NULL, 1);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_task_submit(as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_try_submit(as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "doca_mmap_advise_task_invalidate_cache_set_buf()");
	/* The submitter kept the task and the context runs on. */
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_RUNNING);
	doca_task_free(as_task(t));
	ASSERT_OK(doca_ctx_stop(e.ctx));
}

TEST(released_buffer_refused)
{
	struct doca_buf *b;
	struct env e;

	env_open(&e);
	b = buf_by_data(&e, e.mmap, e.mem, 64);
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	expect_refusal(&e, b, DOCA_ERROR_INVALID_VALUE);
	ASSERT_EQ(seen.states[seen.num_states - 2], DOCA_CTX_STATE_STOPPING); /* the failure stopped it */
}

TEST(empty_buffer_refused)
{
	struct doca_buf *b = NULL;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, e.mmap, e.mem, 64, &b));
	expect_refusal(&e, b, DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "holds no data (data_len 0)");
}

TEST(over_max_buf_size_refused)
{
	struct doca_buf *head, *second;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	expect_refusal(&e, buf_by_data(&e, e.mmap, e.mem, MAX_BUF + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "holds 4097 bytes, more than max_buf_size 4096");
	/* The limit is on the list's total. */
	head = buf_by_data(&e, e.mmap, e.mem, MAX_BUF);
	second = buf_by_data(&e, e.mmap, e.mem + MAX_BUF, 1);
	ASSERT_OK(doca_buf_chain_list(head, second));
	expect_refusal(&e, head, DOCA_ERROR_INVALID_VALUE);
}

TEST(read_only_memory_refused)
{
	struct doca_mmap *ro;
	struct doca_buf *head;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ro = started_mmap(e.mem + 2 * MAX_BUF, MAX_BUF, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, e.dev);
	expect_refusal(&e, buf_by_data(&e, ro, e.mem + 2 * MAX_BUF, 64), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "has no write permission");
	/* Any segment of the list. */
	head = buf_by_data(&e, e.mmap, e.mem, 64);
	ASSERT_OK(doca_buf_chain_list(head, buf_by_data(&e, ro, e.mem + 2 * MAX_BUF, 64)));
	expect_refusal(&e, head, DOCA_ERROR_NOT_PERMITTED);
}

TEST(mmap_without_the_device_refused)
{
	struct doca_dev *other;
	struct doca_mmap *m;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	other = open_ibdev("mlx5_3");
	m = started_mmap(e.mem + 2 * MAX_BUF, MAX_BUF, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, other);
	expect_refusal(&e, buf_by_data(&e, m, e.mem + 2 * MAX_BUF, 64), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "call doca_mmap_add_dev() with that device");
	m = started_mmap(e.mem + 3 * MAX_BUF, MAX_BUF, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	expect_refusal(&e, buf_by_data(&e, m, e.mem + 3 * MAX_BUF, 64), DOCA_ERROR_NOT_PERMITTED);
}

/* Another process's memory (an mmap from a PCI export): the owner invalidates its own caches. */
TEST(imported_memory_refused)
{
	struct doca_mmap *exported, *imported = NULL;
	struct doca_mmap_advise_task_invalidate_cache *t;
	struct doca_mmap_advise *adv;
	struct doca_dev *dpu;
	struct doca_buf *b = NULL;
	const void *desc;
	size_t len;
	struct env e;

	env_open(&e);
	exported = started_mmap(e.mem + 2 * MAX_BUF, MAX_BUF, DOCA_ACCESS_FLAG_PCI_READ_WRITE, e.dev);
	ASSERT_OK(doca_mmap_export_pci(exported, e.dev, &desc, &len));
	dpu = sd_test_open_pci("0000:03:00.0");
	ASSERT_OK(doca_mmap_create_from_export(NULL, desc, len, dpu, &imported));
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, imported, e.mem + 2 * MAX_BUF, 64, &b));

	ASSERT_OK(doca_mmap_advise_create(dpu, &adv));
	ASSERT_OK(doca_pe_connect_ctx(e.pe, doca_mmap_advise_as_ctx(adv)));
	ASSERT_OK(doca_mmap_advise_task_invalidate_cache_set_conf(adv, task_ok, task_err, 1));
	ASSERT_OK(doca_ctx_start(doca_mmap_advise_as_ctx(adv)));
	ASSERT_OK(doca_mmap_advise_task_invalidate_cache_alloc_init(adv, b, (union doca_data){.u64 = 3}, &t));
	ASSERT_ERR(doca_task_try_submit(as_task(t)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_task_submit(as_task(t)));
	progress_until(&e, 1);
	ASSERT_EQ(seen.err, 1);
	ASSERT_ERR(seen.last_status, DOCA_ERROR_NOT_SUPPORTED);
	doca_task_free(as_task(t));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
