/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_compress.h contract: capabilities per device model (soft, BlueField-2,
 * BlueField-3, ConnectX-7) and NOT_SUPPORTED refusals naming the model,
 * create/destroy, the context's states (IDLE -> RUNNING directly), set_conf
 * and the shared max_num_tasks, alloc_init and the accessors, every refusal
 * at submit (kept: returned; a data fault: through the error callback) with
 * its code and line, callbacks in submission order with several tasks in
 * flight, a failure stopping the context and a stop flushing.
 */
#include "compress_test.h"
#include "corpus.h"

/* One device of this model (b1:00.0 = mlx5_0), with these capability overrides. */
static void
use_model(const char *model, const char *caps)
{
	char json[1024];

	snprintf(json, sizeof(json),
		 "{\"devices\": [{\"model\": \"%s\", \"caps\": {%s}, \"functions\": [{\"side\": \"host\", "
		 "\"pci_addr\": \"b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\"}]}]}",
		 model, caps);
	use_topology_text(json);
}

static const struct doca_devinfo *
info(struct doca_dev *dev)
{
	return doca_dev_as_devinfo(dev);
}

/* is_supported for the four families, as a bit mask. */
static unsigned
supported_mask(const struct doca_devinfo *di)
{
	doca_error_t r[4] = {
		doca_compress_cap_task_compress_deflate_is_supported(di),
		doca_compress_cap_task_decompress_deflate_is_supported(di),
		doca_compress_cap_task_decompress_lz4_stream_is_supported(di),
		doca_compress_cap_task_decompress_lz4_block_is_supported(di),
	};
	unsigned m = 0;

	for (int i = 0; i < 4; i++) {
		ASSERT(r[i] == DOCA_SUCCESS || r[i] == DOCA_ERROR_NOT_SUPPORTED);
		m |= (r[i] == DOCA_SUCCESS) << i;
	}
	return m;
}

/* ---- capabilities and models ----------------------------------------------------------------- */

TEST(soft_model_has_every_family)
{
	struct doca_dev *dev;
	uint64_t size = 0;
	uint32_t len = 0, max = 0;
	struct doca_compress *c;

	use_builtin_topology();
	dev = open_ibdev("mlx5_0");
	ASSERT_EQ(supported_mask(info(dev)), 0xf);
	ASSERT_OK(doca_compress_cap_task_compress_deflate_get_max_buf_size(info(dev), &size));
	ASSERT_EQ(size, 128u << 20);
	ASSERT_OK(doca_compress_cap_task_decompress_deflate_get_max_buf_size(info(dev), &size));
	ASSERT_EQ(size, 128u << 20);
	ASSERT_OK(doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size(info(dev), &size));
	ASSERT_OK(doca_compress_cap_task_decompress_lz4_block_get_max_buf_size(info(dev), &size));
	ASSERT_EQ(size, 128u << 20);
	ASSERT_OK(doca_compress_cap_task_compress_deflate_get_max_buf_list_len(info(dev), &len));
	ASSERT_EQ(len, 16);
	ASSERT_OK(doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len(info(dev), &len));
	ASSERT_EQ(len, 16);
	ASSERT_OK(doca_compress_create(dev, &c));
	ASSERT_OK(doca_compress_cap_get_max_num_tasks(c, &max));
	ASSERT_EQ(max, 16384);
	ASSERT_ERR(doca_compress_cap_get_max_num_tasks(c, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_cap_get_max_num_tasks(NULL, &max), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_compress_destroy(c));
	/* NULL arguments */
	ASSERT_ERR(doca_compress_cap_task_compress_deflate_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_cap_task_decompress_deflate_get_max_buf_size(NULL, &size), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_cap_task_decompress_deflate_get_max_buf_size(info(dev), NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len(info(dev), NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(bluefield3_decompresses_only)
{
	struct doca_dev *dev;
	struct doca_compress *c;
	uint64_t size = 7;
	int log = capture_sdk_log();

	use_model("bluefield-3", "");
	dev = open_ibdev("mlx5_0");
	ASSERT_EQ(supported_mask(info(dev)), 0xe);
	ASSERT_ERR(doca_compress_cap_task_compress_deflate_get_max_buf_size(info(dev), &size),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(size, 7);
	ASSERT_LOG_HAS(log, "model bluefield-3) has no compress deflate task");
	ASSERT_OK(doca_compress_create(dev, &c));
	ASSERT_ERR(doca_compress_task_compress_deflate_set_conf(c, compress_deflate_cb, compress_deflate_cb, 4),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "doca_compress_task_compress_deflate_set_conf: device 0000:b1:00.0 (model bluefield-3) "
			    "has no compress deflate task");
	ASSERT_OK(doca_compress_task_decompress_deflate_set_conf(c, decompress_deflate_cb, decompress_deflate_cb, 4));
	ASSERT_OK(doca_compress_task_decompress_lz4_stream_set_conf(c, decompress_lz4_stream_cb,
								    decompress_lz4_stream_cb, 4));
	ASSERT_OK(doca_compress_destroy(c));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(bluefield2_has_no_lz4)
{
	struct doca_dev *dev;
	struct doca_compress *c;
	int log = capture_sdk_log();

	use_model("bluefield-2", "");
	dev = open_ibdev("mlx5_0");
	ASSERT_EQ(supported_mask(info(dev)), 0x3);
	ASSERT_OK(doca_compress_create(dev, &c));
	ASSERT_ERR(doca_compress_task_decompress_lz4_stream_set_conf(c, decompress_lz4_stream_cb,
								     decompress_lz4_stream_cb, 4),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_compress_task_decompress_lz4_block_set_conf(c, decompress_lz4_block_cb, decompress_lz4_block_cb,
								    4),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "(model bluefield-2) has no decompress LZ4 block task");
	ASSERT_OK(doca_compress_task_compress_deflate_set_conf(c, compress_deflate_cb, compress_deflate_cb, 4));
	ASSERT_OK(doca_compress_destroy(c));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(connectx7_has_no_compress_engine)
{
	struct doca_dev *dev;
	struct doca_compress *c = SENTINEL_PTR;
	int log = capture_sdk_log();

	use_model("connectx-7", "");
	dev = open_ibdev("mlx5_0");
	ASSERT_EQ(supported_mask(info(dev)), 0);
	ASSERT_ERR(doca_compress_create(dev, &c), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(c, SENTINEL_PTR);
	ASSERT_LOG_HAS(log, "doca_compress_create: device 0000:b1:00.0 (model connectx-7) has no compress engine");
	ASSERT_OK(doca_dev_close(dev));
}

TEST(topology_caps_override_the_model)
{
	struct doca_dev *dev;
	uint64_t size = 0;
	uint32_t len = 0;

	use_model("bluefield-3", "\"compress_deflate\": true, \"compress_max_buf_size\": 4096, "
				 "\"compress_max_buf_list_len\": 2");
	dev = open_ibdev("mlx5_0");
	ASSERT_EQ(supported_mask(info(dev)), 0xf);
	ASSERT_OK(doca_compress_cap_task_compress_deflate_get_max_buf_size(info(dev), &size));
	ASSERT_EQ(size, 4096);
	ASSERT_OK(doca_compress_cap_task_decompress_deflate_get_max_buf_list_len(info(dev), &len));
	ASSERT_EQ(len, 2);
	ASSERT_OK(doca_dev_close(dev));
}

/* ---- create, states, configuration ------------------------------------------------------------ */

TEST(create_destroy_and_states)
{
	struct cenv e;
	struct doca_compress *c = SENTINEL_PTR;
	int log = capture_sdk_log();

	use_builtin_topology();
	cenv_open_dev(&e, "mlx5_0", 64, 64, false);
	ASSERT_ERR(doca_compress_create(NULL, &c), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_create(e.dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(c, SENTINEL_PTR);
	ASSERT_ERR(doca_compress_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_compress_as_ctx(NULL), NULL);
	ASSERT_ERR(doca_dev_close(e.dev), DOCA_ERROR_IN_USE);
	/* no family configured: start refused */
	ASSERT_ERR(doca_ctx_start(e.ctx), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "call one of the doca_compress_task_*_set_conf() functions before doca_ctx_start()");
	ASSERT_EQ(cenv_state(&e), DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_compress_task_decompress_deflate_set_conf(e.c, decompress_deflate_cb, decompress_deflate_cb, 2));
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_EQ(seen.num_states, 1);
	ASSERT_EQ(seen.states[0], DOCA_CTX_STATE_RUNNING); /* never STARTING */
	ASSERT_ERR(doca_compress_task_decompress_deflate_set_conf(e.c, decompress_deflate_cb, decompress_deflate_cb, 2),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_compress_destroy(e.c), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_EQ(cenv_state(&e), DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_ctx_stop(e.ctx)); /* the samples stop twice */
	cenv_close(&e);
}

TEST(set_conf_rules_and_the_shared_task_limit)
{
	struct cenv e;
	int log = capture_sdk_log();

	use_model("soft", "\"compress_max_num_tasks\": 100");
	cenv_open_dev(&e, "mlx5_0", 64, 64, false);
	ASSERT_ERR(doca_compress_task_compress_deflate_set_conf(NULL, compress_deflate_cb, compress_deflate_cb, 1),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_task_compress_deflate_set_conf(e.c, NULL, compress_deflate_cb, 1),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_task_compress_deflate_set_conf(e.c, compress_deflate_cb, NULL, 1),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_task_compress_deflate_set_conf(e.c, compress_deflate_cb, compress_deflate_cb, 0),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_task_compress_deflate_set_conf(e.c, compress_deflate_cb, compress_deflate_cb, 101),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_compress_task_compress_deflate_set_conf(e.c, compress_deflate_cb, compress_deflate_cb, 60));
	ASSERT_OK(
		doca_compress_task_decompress_deflate_set_conf(e.c, decompress_deflate_cb, decompress_deflate_cb, 40));
	ASSERT_ERR(doca_compress_task_decompress_lz4_block_set_conf(e.c, decompress_lz4_block_cb,
								    decompress_lz4_block_cb, 1),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "exceed doca_compress_cap_get_max_num_tasks() (100)");
	/* reconfiguring a family replaces its own share */
	ASSERT_OK(doca_compress_task_compress_deflate_set_conf(e.c, compress_deflate_cb, compress_deflate_cb, 59));
	ASSERT_OK(doca_compress_task_decompress_lz4_block_set_conf(e.c, decompress_lz4_block_cb,
								   decompress_lz4_block_cb, 1));
	cenv_close(&e);
}

TEST(alloc_init_rules_and_accessors)
{
	struct doca_compress_task_decompress_lz4_stream *s = NULL, *extra = SENTINEL_PTR, *more = SENTINEL_PTR;
	struct doca_compress_task_compress_deflate *cd = NULL;
	struct doca_compress *bare;
	union doca_data ud = {.u64 = 5};
	struct doca_buf *a, *b;
	struct cenv e;

	use_builtin_topology();
	cenv_open_dev(&e, "mlx5_0", 64, 64, false);
	ASSERT_OK(doca_compress_task_decompress_lz4_stream_set_conf(e.c, decompress_lz4_stream_cb,
								    decompress_lz4_stream_cb, 2));
	a = cenv_buf(&e, e.src, 64, 10);
	b = cenv_buf(&e, e.dst, 64, 0);
	/* not running yet */
	ASSERT_ERR(doca_compress_task_decompress_lz4_stream_alloc_init(e.c, 1, 0, a, b, ud, &s), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_compress_task_decompress_lz4_stream_alloc_init(NULL, 1, 0, a, b, ud, &s),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_compress_task_decompress_lz4_stream_alloc_init(e.c, 1, 0, a, b, ud, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	/* a family not configured */
	ASSERT_ERR(doca_compress_task_compress_deflate_alloc_init(e.c, a, b, ud, &cd), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(cd, NULL);
	ASSERT_OK(doca_compress_task_decompress_lz4_stream_alloc_init(e.c, 1, 0, a, b, ud, &s));
	ASSERT_OK(doca_compress_task_decompress_lz4_stream_alloc_init(e.c, 0, 1, NULL, NULL, ud, &extra));
	ASSERT_ERR(doca_compress_task_decompress_lz4_stream_alloc_init(e.c, 0, 1, a, b, ud, &more),
		   DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(more, SENTINEL_PTR);
	/* accessors */
	ASSERT_EQ(doca_compress_task_decompress_lz4_stream_get_has_block_checksum(s), 1);
	ASSERT_EQ(doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(s), 0);
	doca_compress_task_decompress_lz4_stream_set_has_block_checksum(s, 0);
	doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(s, 7);
	ASSERT_EQ(doca_compress_task_decompress_lz4_stream_get_has_block_checksum(s), 0);
	ASSERT_EQ(doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(s), 1);
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_get_src(s), a);
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_get_dst(s), b);
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_get_src(extra), NULL);
	doca_compress_task_decompress_lz4_stream_set_src(extra, a);
	doca_compress_task_decompress_lz4_stream_set_dst(extra, b);
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_get_src(extra), a);
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_get_dst(extra), b);
	doca_compress_task_decompress_lz4_stream_set_src(NULL, a); /* logged, no crash */
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_get_src(NULL), NULL);
	ASSERT_PTR_EQ(doca_compress_task_decompress_lz4_stream_as_task(NULL), NULL);
	ASSERT_EQ(doca_compress_task_decompress_lz4_stream_get_xxh_cs(NULL), 0);
	ASSERT_PTR_EQ(doca_task_get_ctx(doca_compress_task_decompress_lz4_stream_as_task(s)), e.ctx);
	ASSERT_EQ(doca_task_get_user_data(doca_compress_task_decompress_lz4_stream_as_task(s)).u64, 5);
	doca_task_free(doca_compress_task_decompress_lz4_stream_as_task(s));
	doca_task_free(doca_compress_task_decompress_lz4_stream_as_task(extra));
	ASSERT_OK(doca_compress_create(e.dev, &bare));
	ASSERT_ERR(doca_compress_task_decompress_lz4_stream_alloc_init(bare, 0, 0, a, b, ud, &s), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_compress_destroy(bare));
	ASSERT_OK(doca_buf_dec_refcount(a, NULL));
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	cenv_close(&e);
}

/* ---- refusals ------------------------------------------------------------------------------------- */

/*
 * A task of family f on src/dst that submit accepts and its error callback
 * fails with code (after try_submit returned the code and kept the context
 * RUNNING); the line has needle.
 */
static void
expect_refusal(struct cenv *e, enum family f, struct doca_buf *src, struct doca_buf *dst, doca_error_t code,
	       const char *needle, int log)
{
	doca_error_t err;
	struct doca_task *t = cenv_alloc(e, f, src, dst, false, true, 9, &err);
	unsigned n0 = seen.n;

	ASSERT_OK(err);
	ASSERT_ERR(doca_task_try_submit(t), code);
	ASSERT_EQ(cenv_state(e), DOCA_CTX_STATE_RUNNING);
	ASSERT_OK(doca_task_submit(t));
	cenv_progress_until(e, n0 + 1);
	ASSERT_ERR(seen.status[n0], code);
	ASSERT_LOG_HAS(log, needle);
	doca_task_free(t);
	cenv_restart(e);
}

TEST(submit_refusals)
{
	struct doca_buf *src, *dst, *ro_buf, *other_buf, *big, *list, *empty, *released;
	struct doca_mmap *ro, *other;
	struct doca_task *t;
	uint8_t area[256];
	doca_error_t err;
	struct cenv e;
	int log = capture_sdk_log();

	use_model("soft", "\"decompress_max_buf_size\": 4096, \"compress_max_buf_list_len\": 3");
	cenv_open_dev(&e, "mlx5_0", 8192, 4096, true);
	ASSERT_OK(doca_ctx_start(e.ctx));
	src = cenv_buf(&e, e.src, 100, 100);
	dst = cenv_buf(&e, e.dst, 4096, 0);
	/* no source, no destination: submit returns the code and the caller keeps the task */
	t = cenv_alloc(&e, F_INFLATE, NULL, dst, false, false, 1, &err);
	ASSERT_ERR(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "decompress deflate task has no source buffer");
	doca_compress_task_decompress_deflate_set_src((void *)t, src);
	doca_compress_task_decompress_deflate_set_dst((void *)t, NULL);
	ASSERT_ERR(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "decompress deflate task has no destination buffer");
	doca_task_free(t);
	ASSERT_EQ(seen.n, 0);
	/* empty source */
	empty = cenv_buf(&e, e.src + 200, 100, 0);
	expect_refusal(&e, F_COMPRESS, empty, dst, DOCA_ERROR_INVALID_VALUE, "source holds no data (data_len 0)", log);
	/* over max_buf_size (decompress: 4096) */
	big = cenv_buf(&e, e.src, 8192, 4097);
	expect_refusal(&e, F_LZ4_BLOCK, big, dst, DOCA_ERROR_INVALID_VALUE,
		       "source holds 4097 bytes, more than the device's max_buf_size 4096", log);
	/* a destination the device may not write */
	ro = started_mmap(area, sizeof(area), DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, e.dev);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, ro, area, sizeof(area), &ro_buf));
	expect_refusal(&e, F_INFLATE, src, ro_buf, DOCA_ERROR_NOT_PERMITTED, "mmap has no write permission", log);
	/* an mmap the context's device was not added to */
	other = started_mmap(area, sizeof(area), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, other, area, sizeof(area), &other_buf));
	expect_refusal(&e, F_INFLATE, src, other_buf, DOCA_ERROR_NOT_PERMITTED, "call doca_mmap_add_dev()", log);
	/* a released buffer */
	released = cenv_buf(&e, e.src + 400, 100, 100);
	ASSERT_OK(doca_buf_dec_refcount(released, NULL));
	expect_refusal(&e, F_COMPRESS, released, dst, DOCA_ERROR_INVALID_VALUE, "source buffer was released", log);
	/* a list longer than compress_max_buf_list_len (3) */
	list = cenv_buf(&e, e.dst, 100, 0);
	for (int i = 1; i < 4; i++)
		ASSERT_OK(doca_buf_chain_list(list, cenv_buf(&e, e.dst + 100 * i, 100, 0)));
	expect_refusal(&e, F_INFLATE, src, list, DOCA_ERROR_INVALID_VALUE,
		       "destination list has 4 segments, more than the 3", log);
	ASSERT_OK(doca_buf_dec_refcount(list, NULL));
	ASSERT_OK(doca_buf_dec_refcount(empty, NULL));
	ASSERT_OK(doca_buf_dec_refcount(big, NULL));
	ASSERT_OK(doca_buf_dec_refcount(ro_buf, NULL));
	ASSERT_OK(doca_buf_dec_refcount(other_buf, NULL));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	ASSERT_OK(doca_mmap_destroy(ro));
	ASSERT_OK(doca_mmap_destroy(other));
	cenv_close(&e);
}

TEST(a_data_fault_line_says_what_was_wrong_once)
{
	static const uint8_t junk[] = {0x07, 0x01, 0x02};
	struct cenv e;
	int log = capture_sdk_log();

	cenv_open(&e, 4096, 4096);
	ASSERT_ERR(cenv_run(&e, F_INFLATE, junk, sizeof(junk), 4096, false, false).status, DOCA_ERROR_IO_FAILED);
	ASSERT_LOG_HAS(log, "doca_pe_progress: decompress deflate task's source (3 bytes) is not a raw DEFLATE "
			    "stream (RFC 1951)");
	cenv_close(&e);
}

TEST(a_task_submitted_again_forgets_its_last_checksums)
{
	static const uint8_t empty_block[] = {0x03, 0x00}, junk[] = {0xff, 0xff};
	struct doca_compress_task_decompress_deflate *t;
	struct doca_buf *good, *bad, *dst;
	union doca_data ud = {.u64 = 1};
	struct cenv e;

	cenv_open(&e, 64, 64);
	memcpy(e.src, empty_block, 2);
	memcpy(e.src + 8, junk, 2);
	good = cenv_buf(&e, e.src, 2, 2);
	bad = cenv_buf(&e, e.src + 8, 2, 2);
	dst = cenv_buf(&e, e.dst, 64, 0);
	ASSERT_OK(doca_compress_task_decompress_deflate_alloc_init(e.c, good, dst, ud, &t));
	ASSERT_OK(doca_task_submit(doca_compress_task_decompress_deflate_as_task(t)));
	cenv_progress_until(&e, 1);
	ASSERT_OK(seen.status[0]);
	ASSERT_EQ(doca_compress_task_decompress_deflate_get_adler_cs(t), 1); /* adler32(1, "", 0) */
	/* again, on bad data: the old output is not used, the checksums are 0 */
	doca_compress_task_decompress_deflate_set_src(t, bad);
	ASSERT_OK(doca_task_submit(doca_compress_task_decompress_deflate_as_task(t)));
	cenv_progress_until(&e, 2);
	ASSERT_ERR(seen.status[1], DOCA_ERROR_IO_FAILED);
	ASSERT_EQ(doca_compress_task_decompress_deflate_get_crc_cs(t), 0);
	ASSERT_EQ(doca_compress_task_decompress_deflate_get_adler_cs(t), 0);
	doca_task_free(doca_compress_task_decompress_deflate_as_task(t));
	ASSERT_OK(doca_buf_dec_refcount(good, NULL));
	ASSERT_OK(doca_buf_dec_refcount(bad, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	cenv_close(&e);
}

/* ---- several tasks in flight -------------------------------------------------------------------------- */

/* n tasks of decreasing size (the big ones first): callbacks come in submission order. */
static void
order_case(const char *workers)
{
	enum { N = 8 };
	size_t each = 128 * 1024, room = each + each / 4;
	struct doca_buf *src[N], *dst[N];
	struct doca_task *t[N];
	struct cenv e;
	doca_error_t err;

	ASSERT_EQ(setenv("SOFTDOCA_ENGINE_WORKERS", workers, 1), 0);
	cenv_open(&e, N * each, N * room);
	corpus_fill(e.src, N * each, 77);
	for (int i = 0; i < N; i++) {
		size_t len = each >> (i / 2);

		src[i] = cenv_buf(&e, e.src + i * each, each, len);
		dst[i] = cenv_buf(&e, e.dst + i * room, room, 0);
		t[i] = cenv_alloc(&e, F_COMPRESS, src[i], dst[i], false, false, 100 + i, &err);
		ASSERT_OK(err);
	}
	for (int i = 0; i < N; i++)
		ASSERT_OK(doca_task_submit(t[i]));
	cenv_progress_until(&e, N);
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(seen.ud[i], 100 + i);
		ASSERT_OK(seen.status[i]);
		doca_task_free(t[i]);
		ASSERT_OK(doca_buf_dec_refcount(src[i], NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
	}
	cenv_close(&e);
}

TEST(callbacks_in_submission_order_inline)
{
	order_case("0");
}

TEST(callbacks_in_submission_order_on_two_workers)
{
	order_case("2");
}

TEST(a_failed_task_stops_the_context_and_flushes_the_rest)
{
	static const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff};
	struct doca_buf *src[4], *dst[4];
	struct doca_task *t[4];
	struct cenv e;
	doca_error_t err;

	cenv_open(&e, 4096, 4096);
	/* task 1 is corrupt; 0 succeeds; 2 and 3 are flushed */
	memcpy(e.src, "\x03\x00", 2); /* an empty final fixed block: valid, empty output */
	memcpy(e.src + 16, junk, sizeof(junk));
	for (int i = 0; i < 4; i++) {
		src[i] = cenv_buf(&e, e.src + (i == 1 ? 16 : 0), i == 1 ? 4 : 2, i == 1 ? 4 : 2);
		dst[i] = cenv_buf(&e, e.dst + i * 1024, 1024, 0);
		t[i] = cenv_alloc(&e, F_INFLATE, src[i], dst[i], false, false, (uint64_t)i, &err);
		ASSERT_OK(err);
	}
	for (int i = 0; i < 4; i++)
		ASSERT_OK(doca_task_submit(t[i]));
	cenv_progress_until(&e, 4);
	ASSERT_OK(seen.status[0]);
	ASSERT_ERR(seen.status[1], DOCA_ERROR_IO_FAILED);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(seen.ud[i], i);
	ASSERT_ERR(seen.status[2], DOCA_ERROR_IO_FAILED); /* flushed */
	ASSERT_ERR(seen.status[3], DOCA_ERROR_IO_FAILED);
	for (int i = 0; i < 100 && cenv_state(&e) != DOCA_CTX_STATE_IDLE; i++)
		(void)doca_pe_progress(e.pe);
	ASSERT_EQ(cenv_state(&e), DOCA_CTX_STATE_IDLE);
	for (int i = 0; i < 4; i++) {
		doca_task_free(t[i]);
		ASSERT_OK(doca_buf_dec_refcount(src[i], NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
	}
	cenv_close(&e);
}

TEST(stop_flushes_tasks_in_flight)
{
	enum { N = 6 };
	size_t each = 512 * 1024;
	struct doca_buf *src[N], *dst[N];
	struct doca_task *t[N];
	struct cenv e;
	doca_error_t err;

	ASSERT_EQ(setenv("SOFTDOCA_ENGINE_WORKERS", "1", 1), 0);
	cenv_open(&e, N * each, N * each);
	corpus_fill(e.src, N * each, 1);
	for (int i = 0; i < N; i++) {
		src[i] = cenv_buf(&e, e.src + i * each, each, each);
		dst[i] = cenv_buf(&e, e.dst + i * each, each, 0);
		t[i] = cenv_alloc(&e, F_COMPRESS, src[i], dst[i], false, false, (uint64_t)i, &err);
		ASSERT_OK(err);
		ASSERT_OK(doca_task_submit(t[i]));
	}
	ASSERT_ERR(doca_ctx_stop(e.ctx), DOCA_ERROR_IN_PROGRESS);
	cenv_progress_until(&e, N);
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(seen.ud[i], i);
		ASSERT_ERR(seen.status[i], DOCA_ERROR_IO_FAILED);
	}
	for (int i = 0; i < 100 && cenv_state(&e) != DOCA_CTX_STATE_IDLE; i++)
		(void)doca_pe_progress(e.pe);
	ASSERT_EQ(cenv_state(&e), DOCA_CTX_STATE_IDLE);
	for (int i = 0; i < N; i++) {
		doca_task_free(t[i]);
		ASSERT_OK(doca_buf_dec_refcount(src[i], NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst[i], NULL));
	}
	cenv_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
