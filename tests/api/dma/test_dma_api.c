/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA DMA API contract: creation, caps, configuration, task allocation, and one
 * case per row of the DMA error taxonomy, each asserting the exact doca_error_t
 * and that no byte outside the destination range changed.
 */
#include "dma_test.h"

static union doca_data
ud(uint64_t v)
{
	union doca_data d = {.u64 = v};

	return d;
}

/* Submit one task and progress until it completed; returns its status. */
static doca_error_t
run_task(struct env *e, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_dma_task_memcpy *t = NULL;
	unsigned before = results.ok + results.err;

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e->dma, src, dst, ud(0), &t));
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	for (double end = now_s() + 10; results.ok + results.err == before;) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(10);
		ASSERT(now_s() < end);
	}
	return results.last_status;
}

/* ---- create / destroy / caps ------------------------------------------------------ */

TEST(create_null_arguments)
{
	struct doca_dma *dma = (struct doca_dma *)0x1;

	use_dma_test_topology();
	ASSERT_ERR(doca_dma_create(NULL, &dma), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(dma, (struct doca_dma *)0x1);
	ASSERT_ERR(doca_dma_create(open_dev(T_HOST_PCI), NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_dma_as_ctx(NULL), NULL);
}

/* Taxonomy: a device without DMA -> NOT_SUPPORTED (create and caps). */
TEST(device_without_dma_not_supported)
{
	struct doca_dma *dma = (struct doca_dma *)0x1;
	struct doca_dev *dev;
	uint32_t list_len = 7;
	uint64_t size = 7;

	use_dma_test_topology();
	dev = open_dev(T_NODMA_PCI);
	ASSERT_ERR(doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(dev)), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_dma_create(dev, &dma), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(dma, (struct doca_dma *)0x1);
	ASSERT_ERR(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &size),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &list_len),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(size, 7);
	ASSERT_EQ(list_len, 7);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(caps_come_from_the_device)
{
	struct doca_dev *dev;
	struct doca_dma *dma;
	uint32_t list_len = 0, max_tasks = 0;
	uint64_t size = 0;

	use_dma_test_topology();
	dev = open_dev(T_HOST_PCI);
	ASSERT_OK(doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(dev)));
	ASSERT_OK(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), &size));
	ASSERT_OK(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &list_len));
	ASSERT_EQ(size, T_MAX_BUF_SIZE);
	ASSERT_EQ(list_len, T_MAX_LIST_LEN);
	ASSERT_ERR(doca_dma_cap_task_memcpy_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(dev), NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_cap_task_memcpy_get_max_buf_list_len(NULL, &list_len), DOCA_ERROR_INVALID_VALUE);

	ASSERT_OK(doca_dma_create(dev, &dma));
	ASSERT_OK(doca_dma_cap_get_max_num_tasks(dma, &max_tasks));
	ASSERT_EQ(max_tasks, T_MAX_TASKS);
	ASSERT_ERR(doca_dma_cap_get_max_num_tasks(dma, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_cap_get_max_num_tasks(NULL, &max_tasks), DOCA_ERROR_INVALID_VALUE);
	/* The device is in use while the context exists. */
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_dma_destroy(dma));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(gpu_handle_not_supported)
{
	struct doca_gpu_dma *g = (struct doca_gpu_dma *)0x1;
	struct doca_dma *dma;

	use_dma_test_topology();
	ASSERT_OK(doca_dma_create(open_dev(T_HOST_PCI), &dma));
	ASSERT_ERR(doca_dma_get_gpu_handle(dma, &g), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(g, (struct doca_gpu_dma *)0x1);
	ASSERT_ERR(doca_dma_get_gpu_handle(NULL, &g), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dma_destroy(dma));
}

TEST(destroy_needs_idle)
{
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	ASSERT_ERR(doca_dma_destroy(e.dma), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_dma_destroy(e.dma));
	ASSERT_OK(doca_pe_destroy(e.pe));
}

TEST(start_without_task_conf_refused)
{
	struct doca_dma *dma;
	struct doca_pe *pe;
	enum doca_ctx_states st;

	use_dma_test_topology();
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_dma_create(open_dev(T_HOST_PCI), &dma));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
	ASSERT_ERR(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_get_state(doca_dma_as_ctx(dma), &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_dma_destroy(dma));
	ASSERT_OK(doca_pe_destroy(pe));
}

/* ---- configuration and allocation ------------------------------------------------------ */

TEST(set_conf_rules)
{
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	ASSERT_ERR(doca_dma_task_memcpy_set_conf(NULL, ok_cb, err_cb, 4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_task_memcpy_set_conf(e.dma, NULL, err_cb, 4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_task_memcpy_set_conf(e.dma, ok_cb, NULL, 4), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_task_memcpy_set_conf(e.dma, ok_cb, err_cb, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_task_memcpy_set_conf(e.dma, ok_cb, err_cb, T_MAX_TASKS + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dma_task_memcpy_set_conf(e.dma, ok_cb, err_cb, T_MAX_TASKS));
	env_start(&e);
	ASSERT_ERR(doca_dma_task_memcpy_set_conf(e.dma, ok_cb, err_cb, 4), DOCA_ERROR_BAD_STATE);
	env_close(&e);
}

TEST(alloc_init_pool_exhausted_then_free)
{
	struct doca_dma_task_memcpy *t[3] = {NULL}, *extra = (struct doca_dma_task_memcpy *)0x1;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 3);
	env_start(&e);
	for (int i = 0; i < 3; i++)
		ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, NULL, NULL, ud(i), &t[i]));
	ASSERT_ERR(doca_dma_task_memcpy_alloc_init(e.dma, NULL, NULL, ud(9), &extra), DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(extra, (struct doca_dma_task_memcpy *)0x1);
	doca_task_free(doca_dma_task_memcpy_as_task(t[1]));
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, NULL, NULL, ud(9), &extra));
	ASSERT_EQ(doca_task_get_user_data(doca_dma_task_memcpy_as_task(extra)).u64, 9);
	doca_task_free(doca_dma_task_memcpy_as_task(t[0]));
	doca_task_free(doca_dma_task_memcpy_as_task(t[2]));
	doca_task_free(doca_dma_task_memcpy_as_task(extra));
	ASSERT_ERR(doca_dma_task_memcpy_alloc_init(NULL, NULL, NULL, ud(0), &extra), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_task_memcpy_alloc_init(e.dma, NULL, NULL, ud(0), NULL), DOCA_ERROR_INVALID_VALUE);
	env_close(&e);
}

/* Buffers may be given later; getters return what was set; task <-> generic task. */
TEST(alloc_null_buffers_set_later)
{
	struct doca_dma_task_memcpy *t = NULL;
	struct doca_buf *s, *d;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	s = src_buf(&e, 0, 1000, 3);
	d = dst_buf(&e, 4096, 1000);
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, NULL, NULL, ud(5), &t));
	ASSERT_PTR_EQ(doca_dma_task_memcpy_get_src(t), NULL);
	ASSERT_PTR_EQ(doca_dma_task_memcpy_get_dst(t), NULL);
	/* Without buffers the submitter keeps the task. */
	ASSERT_ERR(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	doca_dma_task_memcpy_set_src(t, s);
	doca_dma_task_memcpy_set_dst(t, d);
	ASSERT_PTR_EQ(doca_dma_task_memcpy_get_src(t), s);
	ASSERT_PTR_EQ(doca_dma_task_memcpy_get_dst(t), d);
	ASSERT_PTR_EQ(doca_task_get_ctx(doca_dma_task_memcpy_as_task(t)), e.ctx);
	ASSERT_PTR_EQ(doca_dma_task_memcpy_as_task(NULL), NULL);
	ASSERT_PTR_EQ(doca_dma_task_memcpy_get_src(NULL), NULL);
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	progress_until(e.pe, &results.ok, 1);
	ASSERT_MEM_EQ(e.mem + 4096, e.mem, 1000);
	ASSERT(all_guard(e.mem + 5096, 8192 - 5096));
	env_close(&e);
}

/* Taxonomy: an oversize buffer at alloc_init -> INVALID_VALUE, no task taken. */
TEST(alloc_init_oversize_buffer_invalid)
{
	struct doca_dma_task_memcpy *t = (struct doca_dma_task_memcpy *)0x1;
	struct doca_buf *big_src, *big_dst, *s, *d;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 4 * T_MAX_BUF_SIZE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 1);
	env_start(&e);
	big_src = src_buf(&e, 0, T_MAX_BUF_SIZE + 1, 1);
	big_dst = dst_buf(&e, 2 * T_MAX_BUF_SIZE, T_MAX_BUF_SIZE + 1);
	s = src_buf(&e, 0, 16, 1);
	d = dst_buf(&e, 2 * T_MAX_BUF_SIZE, 16);
	ASSERT_ERR(doca_dma_task_memcpy_alloc_init(e.dma, big_src, d, ud(0), &t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dma_task_memcpy_alloc_init(e.dma, s, big_dst, ud(0), &t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(t, (struct doca_dma_task_memcpy *)0x1);
	/* Nothing was taken from the 1-task pool. */
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, s, d, ud(0), &t));
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	env_close(&e);
}

/* Taxonomy: a list longer than max_buf_list_len (src + dst segments) -> INVALID_VALUE. */
TEST(alloc_init_oversize_list_invalid)
{
	struct doca_dma_task_memcpy *t = (struct doca_dma_task_memcpy *)0x1;
	struct doca_buf *s[4], *d;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	for (int i = 0; i < 4; i++)
		s[i] = src_buf(&e, (size_t)i * 100, 100, i);
	for (int i = 1; i < 4; i++)
		ASSERT_OK(doca_buf_chain_list(s[0], s[i]));
	d = dst_buf(&e, 4096, 1000);
	/* 4 source + 1 destination segments > 4 */
	ASSERT_ERR(doca_dma_task_memcpy_alloc_init(e.dma, s[0], d, ud(0), &t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(t, (struct doca_dma_task_memcpy *)0x1);
	ASSERT(all_guard(e.mem + 4096, 4096));
	env_close(&e);
}

/* ---- per-task statuses: submit accepts, the error callback reports --------------------- */

/* Taxonomy: oversize source set after alloc -> completion INVALID_VALUE; try_submit says so. */
TEST(oversize_source_task_error_and_try_submit)
{
	struct doca_dma_task_memcpy *t = NULL;
	struct doca_buf *big, *s, *d;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 4 * T_MAX_BUF_SIZE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	big = src_buf(&e, 0, T_MAX_BUF_SIZE + 1, 2);
	s = src_buf(&e, 0, 10, 2);
	d = dst_buf(&e, 2 * T_MAX_BUF_SIZE, T_MAX_BUF_SIZE);
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, s, d, ud(0), &t));
	doca_dma_task_memcpy_set_src(t, big);
	ASSERT_ERR(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t)));
	progress_until(e.pe, &results.err, 1);
	ASSERT_ERR(results.last_status, DOCA_ERROR_INVALID_VALUE);
	ASSERT(all_guard(e.mem + 2 * T_MAX_BUF_SIZE, 2 * T_MAX_BUF_SIZE));
	/* A failed task stops the context by itself. */
	progress_until_idle(e.pe, e.ctx);
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/* Taxonomy (data placement): source larger than the destination's tail room -> INVALID_VALUE, nothing written. */
TEST(destination_too_small_invalid_nothing_written)
{
	struct doca_buf *s, *d;
	struct env e;
	size_t len;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	s = src_buf(&e, 0, 600, 4);
	d = dst_buf(&e, 4096, 1000);
	ASSERT_OK(doca_buf_set_data(d, e.mem + 4096 + 100, 500)); /* tail room 400 < 600 */
	ASSERT_ERR(run_task(&e, s, d), DOCA_ERROR_INVALID_VALUE);
	ASSERT(all_guard(e.mem + 4096, 4096));
	ASSERT_OK(doca_buf_get_data_len(d, &len));
	ASSERT_EQ(len, 500);
	progress_until_idle(e.pe, e.ctx);
}

/* pe_task_error's condition: a zero-length source fails through the error callback. */
TEST(zero_length_source_invalid)
{
	struct doca_buf *s, *d;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	s = src_buf(&e, 0, 100, 4);
	ASSERT_OK(doca_buf_reset_data_len(s));
	d = dst_buf(&e, 4096, 1000);
	ASSERT_ERR(run_task(&e, s, d), DOCA_ERROR_INVALID_VALUE);
	ASSERT(all_guard(e.mem + 4096, 4096));
	ASSERT_EQ(results.err, 1);
	ASSERT_EQ(results.ok, 0);
	progress_until_idle(e.pe, e.ctx);
}

/* Taxonomy: destination mmap without LOCAL_READ_WRITE -> NOT_PERMITTED, nothing written. */
TEST(destination_without_write_permission_not_permitted)
{
	struct doca_mmap *ro;
	struct doca_buf *s, *d;
	struct doca_dma_task_memcpy *t;
	uint8_t *romem = malloc(4096);
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	memset(romem, GUARD_BYTE, 4096);
	ASSERT_OK(doca_mmap_create(&ro));
	ASSERT_OK(doca_mmap_set_memrange(ro, romem, 4096));
	ASSERT_OK(doca_mmap_set_permissions(ro, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY));
	ASSERT_OK(doca_mmap_add_dev(ro, e.dev));
	ASSERT_OK(doca_mmap_start(ro));
	env_start(&e);
	s = src_buf(&e, 0, 100, 4);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, ro, romem, 4096, &d));

	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, s, d, ud(0), &t));
	ASSERT_ERR(doca_task_try_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_NOT_PERMITTED);
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	ASSERT_ERR(run_task(&e, s, d), DOCA_ERROR_NOT_PERMITTED);
	ASSERT(all_guard(romem, 4096));

	/* The same mmap works as a source (LOCAL_READ_ONLY is enough to be read). */
	progress_until_idle(e.pe, e.ctx);
	env_start(&e);
	ASSERT_OK(doca_buf_set_data(d, romem, 64));
	ASSERT_ERR(run_task(&e, d, dst_buf(&e, 4096, 64)), DOCA_SUCCESS);
	ASSERT_MEM_EQ(e.mem + 4096, romem, 64);
	env_close(&e);
}

/* Taxonomy: queue full -> AGAIN, and it works again after progress. */
TEST(queue_full_again_then_progress)
{
	struct doca_dma_task_memcpy *t[5];
	struct env e;

	use_dma_test_topology();
	ASSERT_EQ(setenv("SOFTDOCA_DMA_QUEUE_DEPTH", "4", 1), 0);
	env_open(&e, T_HOST_PCI, 16384, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 8);
	env_start(&e);
	for (int i = 0; i < 5; i++)
		ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, src_buf(&e, (size_t)i * 1024, 1024, i),
							  dst_buf(&e, 8192 + (size_t)i * 1024, 1024), ud(i), &t[i]));
	for (int i = 0; i < 4; i++)
		ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t[i])));
	ASSERT_ERR(doca_task_submit(doca_dma_task_memcpy_as_task(t[4])), DOCA_ERROR_AGAIN);
	ASSERT(all_guard(e.mem + 8192 + 4 * 1024, 1024));
	progress_until(e.pe, &results.ok, 4);
	ASSERT_OK(doca_task_submit(doca_dma_task_memcpy_as_task(t[4])));
	progress_until(e.pe, &results.ok, 5);
	ASSERT_EQ(results.err, 0);
	for (int i = 0; i < 5; i++)
		ASSERT_MEM_EQ(e.mem + 8192 + i * 1024, e.mem + i * 1024, 1024);
	env_close(&e);
}

/* Taxonomy: submit before start and after stop -> BAD_STATE; the task stays the caller's. */
TEST(submit_outside_running_bad_state)
{
	struct doca_dma_task_memcpy *t;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	ASSERT_OK(doca_dma_task_memcpy_alloc_init(e.dma, src_buf(&e, 0, 64, 1), dst_buf(&e, 4096, 64), ud(0), &t));
	ASSERT_ERR(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_BAD_STATE);
	env_start(&e);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_ERR(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_BAD_STATE);
	ASSERT(all_guard(e.mem + 4096, 64));
	doca_task_free(doca_dma_task_memcpy_as_task(t));
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/*
 * DOCA's rule: an mmap outlives its bufs (and the tasks in flight on them), not
 * the contexts that used it.  DMA Copy's DPU side destroys its mmap, then stops
 * the context: every call succeeds.  Stopping the mmap (it could be restarted
 * with another range) stays refused while a running context used it.
 */
TEST(mmap_destroy_under_running_ctx_then_stop)
{
	struct doca_mmap *other;
	struct doca_buf *s, *d;
	uint8_t *mem = malloc(4096);
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	memset(mem, 0x5A, 4096);
	ASSERT_OK(doca_mmap_create(&other));
	ASSERT_OK(doca_mmap_set_memrange(other, mem, 4096));
	ASSERT_OK(doca_mmap_add_dev(other, e.dev));
	ASSERT_OK(doca_mmap_start(other));
	env_start(&e);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e.inv, other, mem, 256, &s));
	d = dst_buf(&e, 0, 256);
	ASSERT_ERR(run_task(&e, s, d), DOCA_SUCCESS);
	ASSERT_MEM_EQ(e.mem, mem, 256);
	ASSERT_OK(doca_buf_dec_refcount(s, NULL));
	/* No buffer left on it, but the running context touched it: stop no, destroy yes. */
	ASSERT_ERR(doca_mmap_stop(other), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_mmap_destroy(other));
	free(mem); /* the range is the application's again at once */
	/* the context goes on with its other mmaps */
	s = src_buf(&e, 0, 256, 1);
	d = dst_buf(&e, 4096, 256);
	ASSERT_ERR(run_task(&e, s, d), DOCA_SUCCESS);
	ASSERT_MEM_EQ(e.mem + 4096, e.mem, 256);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_dma_destroy(e.dma));
}

/* With a buf still held the destroy is refused, before and after the context stops. */
TEST(mmap_destroy_with_a_buf_held_not_permitted)
{
	struct doca_buf *s, *d;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	s = src_buf(&e, 0, 256, 2);
	d = dst_buf(&e, 4096, 256);
	ASSERT_ERR(run_task(&e, s, d), DOCA_SUCCESS);
	ASSERT_ERR(doca_mmap_destroy(e.mmap), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_ERR(doca_mmap_destroy(e.mmap), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_OK(doca_buf_dec_refcount(s, NULL));
	ASSERT_OK(doca_buf_dec_refcount(d, NULL));
	ASSERT_OK(doca_mmap_destroy(e.mmap));
	ASSERT_OK(doca_dma_destroy(e.dma));
	ASSERT_OK(doca_pe_destroy(e.pe));
}

/*
 * A destination registered with PCI_READ_WRITE alone, as programs measured on
 * BlueField-2 register theirs: the device may write it.  PCI_READ_ONLY alone is
 * no write permission: NOT_PERMITTED, nothing written.
 */
TEST(pci_read_write_alone_lets_the_engine_write)
{
	static const uint32_t perms[2] = {DOCA_ACCESS_FLAG_PCI_READ_WRITE, DOCA_ACCESS_FLAG_PCI_READ_ONLY};
	struct doca_mmap *dst[2];
	struct doca_buf *s, *d;
	uint8_t *mem[2];
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 8192, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	for (int i = 0; i < 2; i++) {
		mem[i] = malloc(4096);
		memset(mem[i], GUARD_BYTE, 4096);
		ASSERT_OK(doca_mmap_create(&dst[i]));
		ASSERT_OK(doca_mmap_set_memrange(dst[i], mem[i], 4096));
		ASSERT_OK(doca_mmap_set_permissions(dst[i], perms[i]));
		ASSERT_OK(doca_mmap_add_dev(dst[i], e.dev));
		ASSERT_OK(doca_mmap_start(dst[i]));
	}
	env_start(&e);
	s = src_buf(&e, 0, 100, 5);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, dst[0], mem[0], 4096, &d));
	ASSERT_ERR(run_task(&e, s, d), DOCA_SUCCESS);
	ASSERT_MEM_EQ(mem[0], e.mem, 100);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, dst[1], mem[1], 4096, &d));
	ASSERT_ERR(run_task(&e, s, d), DOCA_ERROR_NOT_PERMITTED);
	ASSERT(all_guard(mem[1], 4096));
	env_close(&e);
}

/* ---- data placement --------------------------------------------------------------------- */

/* Sources 3 segments, destinations 1: concatenation of data windows at the tail. */
TEST(lists_concatenate_into_tail_room)
{
	struct doca_buf *s[3], *d, *d2;
	size_t len;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 16384, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	s[0] = src_buf(&e, 0, 300, 1);
	s[1] = src_buf(&e, 1000, 1, 2);
	s[2] = src_buf(&e, 2000, 700, 3);
	ASSERT_OK(doca_buf_chain_list(s[0], s[1]));
	ASSERT_OK(doca_buf_chain_list(s[0], s[2]));
	d = dst_buf(&e, 8192, 2000);
	memset(e.mem + 8192, 0x22, 50);
	ASSERT_OK(doca_buf_set_data(d, e.mem + 8192, 50)); /* existing data stays */
	ASSERT_ERR(run_task(&e, s[0], d), DOCA_SUCCESS);
	ASSERT_OK(doca_buf_get_data_len(d, &len));
	ASSERT_EQ(len, 50 + 1001);
	ASSERT_EQ(e.mem[8192 + 49], 0x22);
	ASSERT_MEM_EQ(e.mem + 8192 + 50, e.mem, 300);
	ASSERT_MEM_EQ(e.mem + 8192 + 350, e.mem + 1000, 1);
	ASSERT_MEM_EQ(e.mem + 8192 + 351, e.mem + 2000, 700);
	ASSERT(all_guard(e.mem + 8192 + 1051, 16384 - 8192 - 1051));

	/* The last segment alone (700 bytes) into 600 + 50 bytes of room: refused, nothing written. */
	d = dst_buf(&e, 12000, 600);
	d2 = dst_buf(&e, 13000, 50);
	ASSERT_OK(doca_buf_chain_list(d, d2));
	ASSERT_ERR(run_task(&e, s[2], d), DOCA_ERROR_INVALID_VALUE);
	ASSERT(all_guard(e.mem + 12000, 1500));
	env_close(&e);
}

TEST(one_source_scattered_over_destinations)
{
	struct doca_buf *s, *d, *d2, *d3;
	size_t l1, l2, l3;
	struct env e;

	use_dma_test_topology();
	env_open(&e, T_HOST_PCI, 16384, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4);
	env_start(&e);
	s = src_buf(&e, 0, 1000, 5);
	d = dst_buf(&e, 4096, 300);
	d2 = dst_buf(&e, 8192, 600);
	d3 = dst_buf(&e, 12288, 600);
	ASSERT_OK(doca_buf_chain_list(d, d2));
	ASSERT_OK(doca_buf_chain_list(d, d3));
	ASSERT_ERR(run_task(&e, s, d), DOCA_SUCCESS);
	ASSERT_OK(doca_buf_get_data_len(d, &l1));
	ASSERT_OK(doca_buf_get_data_len(d2, &l2));
	ASSERT_OK(doca_buf_get_data_len(d3, &l3));
	ASSERT_EQ(l1, 300);
	ASSERT_EQ(l2, 600);
	ASSERT_EQ(l3, 100);
	ASSERT_MEM_EQ(e.mem + 4096, e.mem, 300);
	ASSERT_MEM_EQ(e.mem + 8192, e.mem + 300, 600);
	ASSERT_MEM_EQ(e.mem + 12288, e.mem + 900, 100);
	ASSERT(all_guard(e.mem + 12288 + 100, 16384 - 12288 - 100));
	ASSERT(all_guard(e.mem + 4096 + 300, 8192 - 4096 - 300));
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
