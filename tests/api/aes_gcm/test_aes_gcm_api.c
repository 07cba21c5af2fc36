/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_aes_gcm.h contract: capabilities and NOT_SUPPORTED following the
 * device's model, create/destroy (IN_USE while keys live), the context's
 * states, task configuration and allocation with every parameter refusal,
 * accessors, keys, a stop flushing queued tasks, and every submit refusal
 * with its code (submit: through the error callback, in order; try_submit:
 * returned) and its log line.
 */
#include "aes_gcm_test.h"

static const uint8_t zero_key[32];
static const uint8_t iv12[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

/* ---- capabilities and models ----------------------------------------------------------- */

static void
expect_caps(const struct doca_devinfo *info, bool has)
{
	doca_error_t want = has ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
	uint32_t iv = 0, list = 0;
	uint64_t size = 0;

	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_is_supported(info), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_is_supported(info), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_is_tag_96_supported(info), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_is_tag_128_supported(info), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_is_key_type_supported(info, DOCA_AES_GCM_KEY_128), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_is_key_type_supported(info, DOCA_AES_GCM_KEY_256), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_get_max_iv_len(info, &iv), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_get_max_buf_size(info, &size), want);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_get_max_list_buf_num_elem(info, &list), want);
	if (has) {
		ASSERT_EQ(iv, 12);
		ASSERT_EQ(size, 128u << 20);
		ASSERT_EQ(list, 16);
	} else {
		ASSERT_EQ(iv + size + list, 0); /* outputs untouched */
	}
}

TEST(caps_follow_the_model)
{
	const char *names[] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
	const bool has[] = {true, false, true, true}; /* soft, bluefield-2, bluefield-3, connectx-7 */
	struct doca_devinfo **list;
	uint32_t n, v = 0;
	uint64_t size = 0;

	use_topology_text(aes_topology);
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (unsigned i = 0; i < 4; i++)
		expect_caps(find_ibdev(list, n, names[i]), has[i]);
	/* The topology's overrides. */
	ASSERT_OK(doca_aes_gcm_cap_task_decrypt_get_max_buf_size(find_ibdev(list, n, "mlx5_4"), &size));
	ASSERT_EQ(size, 4096);
	ASSERT_OK(doca_aes_gcm_cap_task_decrypt_get_max_list_buf_num_elem(find_ibdev(list, n, "mlx5_4"), &v));
	ASSERT_EQ(v, 3);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(cap_argument_rules)
{
	struct doca_dev *dev = open_aes_dev("mlx5_0");
	const struct doca_devinfo *info = doca_dev_as_devinfo(dev);
	uint32_t v;
	uint64_t size;

	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_is_tag_96_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_get_max_iv_len(info, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_get_max_iv_len(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_get_max_buf_size(NULL, &size), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_get_max_list_buf_num_elem(info, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_is_key_type_supported(info, (enum doca_aes_gcm_key_type)3),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_ERR(doca_aes_gcm_cap_task_decrypt_is_key_type_supported(info, (enum doca_aes_gcm_key_type)0),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_OK(doca_dev_close(dev));
}

TEST(builtin_devices_have_aes_gcm)
{
	struct doca_devinfo **list;
	uint32_t n;

	use_builtin_topology();
	ASSERT_OK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n; i++)
		expect_caps(list[i], true);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(bluefield2_refuses_the_context)
{
	struct doca_dev *bf2 = open_aes_dev("mlx5_1");
	struct doca_aes_gcm *aes = SENTINEL_PTR;
	uint64_t size = 7;
	int log = capture_sdk_log();

	ASSERT_ERR(doca_aes_gcm_create(bf2, &aes), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(aes, SENTINEL_PTR);
	ASSERT_LOG_HAS(log, "device 0000:b2:00.0 (model bluefield-2) has no AES-GCM engine");
	ASSERT_ERR(doca_aes_gcm_cap_task_encrypt_get_max_buf_size(doca_dev_as_devinfo(bf2), &size),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_EQ(size, 7);
	ASSERT_LOG_HAS(log, "(model bluefield-2) has no AES-GCM engine; check");
	ASSERT_OK(doca_dev_close(bf2));
}

/* ---- create, destroy, states ---------------------------------------------------------- */

TEST(create_and_destroy)
{
	struct doca_dev *dev = open_aes_dev("mlx5_0");
	struct doca_aes_gcm *aes = SENTINEL_PTR;
	uint32_t max = 0;

	ASSERT_ERR(doca_aes_gcm_create(NULL, &aes), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_PTR_EQ(doca_aes_gcm_as_ctx(NULL), NULL);
	ASSERT_OK(doca_aes_gcm_create(dev, &aes));
	ASSERT_OK(doca_aes_gcm_cap_get_max_num_tasks(aes, &max));
	ASSERT_EQ(max, 16384);
	ASSERT_ERR(doca_aes_gcm_cap_get_max_num_tasks(aes, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_cap_get_max_num_tasks(NULL, &max), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE); /* the context holds the device */
	ASSERT_OK(doca_aes_gcm_destroy(aes));
	ASSERT_OK(doca_dev_close(dev));
}

TEST(start_goes_straight_to_running_and_stop_to_idle)
{
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_EQ(seen.num_states, 1);
	ASSERT_EQ(seen.states[0], DOCA_CTX_STATE_RUNNING);
	ASSERT_ERR(doca_aes_gcm_destroy(e.aes), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_IDLE);
	/* DOCA's samples stop twice: stopping an IDLE context succeeds; it starts again. */
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_aes_gcm_destroy(e.aes));
	ASSERT_OK(doca_pe_destroy(e.pe));
}

TEST(start_needs_a_task_type)
{
	struct doca_dev *dev = open_aes_dev("mlx5_0");
	struct doca_aes_gcm *aes;
	struct doca_pe *pe;
	int log = capture_sdk_log();

	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_aes_gcm_create(dev, &aes));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_aes_gcm_as_ctx(aes)));
	ASSERT_ERR(doca_ctx_start(doca_aes_gcm_as_ctx(aes)), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "doca_aes_gcm_task_decrypt_set_conf() before doca_ctx_start()");
	/* One family is enough. */
	ASSERT_OK(doca_aes_gcm_task_decrypt_set_conf(aes, dec_ok, dec_err, 1));
	ASSERT_OK(doca_ctx_start(doca_aes_gcm_as_ctx(aes)));
	ASSERT_OK(doca_ctx_stop(doca_aes_gcm_as_ctx(aes)));
	ASSERT_OK(doca_aes_gcm_destroy(aes));
	ASSERT_OK(doca_pe_destroy(pe));
}

TEST(set_conf_rules)
{
	struct env e;

	env_open(&e);
	ASSERT_ERR(doca_aes_gcm_task_encrypt_set_conf(NULL, enc_ok, enc_err, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_task_encrypt_set_conf(e.aes, NULL, enc_err, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_task_decrypt_set_conf(e.aes, dec_ok, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_task_decrypt_set_conf(e.aes, dec_ok, dec_err, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_task_encrypt_set_conf(e.aes, enc_ok, enc_err, 16385), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_aes_gcm_task_encrypt_set_conf(e.aes, enc_ok, enc_err, 2), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_OK(doca_aes_gcm_task_encrypt_set_conf(e.aes, enc_ok, enc_err, 2));
	ASSERT_OK(doca_aes_gcm_destroy(e.aes));
}

/* ---- keys ------------------------------------------------------------------------------- */

TEST(key_rules)
{
	struct doca_aes_gcm_key *k = SENTINEL_PTR, *k2;
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ASSERT_ERR(doca_aes_gcm_key_create(NULL, zero_key, DOCA_AES_GCM_KEY_128, &k), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_key_create(e.aes, NULL, DOCA_AES_GCM_KEY_128, &k), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_key_create(e.aes, zero_key, DOCA_AES_GCM_KEY_128, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_key_create(e.aes, zero_key, (enum doca_aes_gcm_key_type)3, &k),
		   DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_LOG_HAS(log, "key type 3 is not supported");
	ASSERT_PTR_EQ(k, SENTINEL_PTR);
	ASSERT_ERR(doca_aes_gcm_key_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Keys live in any state; the context cannot go while they do. */
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, zero_key, DOCA_AES_GCM_KEY_128, &k));
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, zero_key, DOCA_AES_GCM_KEY_256, &k2));
	ASSERT_OK(doca_ctx_stop(e.ctx));
	ASSERT_ERR(doca_aes_gcm_destroy(e.aes), DOCA_ERROR_IN_USE);
	ASSERT_LOG_HAS(log, "destroy them with doca_aes_gcm_key_destroy() first");
	ASSERT_OK(doca_aes_gcm_key_destroy(k));
	ASSERT_ERR(doca_aes_gcm_destroy(e.aes), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_aes_gcm_key_destroy(k2));
	ASSERT_OK(doca_aes_gcm_destroy(e.aes));
}

TEST(key_of_a_task_in_flight_cannot_go)
{
	struct doca_buf *src, *dst;
	struct doca_task *task;
	struct env e;
	struct job j;
	int log;

	env_start(&e, DOCA_AES_GCM_KEY_256, zero_key);
	log = capture_sdk_log();
	j = (struct job){.key = e.key, .iv = iv12, .iv_len = 12, .tag_size = 16, .ud = 1};
	src = buf_data(&e, e.src_mmap, e.src_mem, 64);
	dst = dst_buf(&e, 0, 128);
	task = job_task(&e, &j, src, dst);
	ASSERT_OK(doca_task_submit(task));
	ASSERT_ERR(doca_aes_gcm_key_destroy(e.key), DOCA_ERROR_IN_USE);
	ASSERT_LOG_HAS(log, "a task submitted with this key has not completed");
	progress_until(&e, 1);
	ASSERT_EQ(seen.ok, 1);
	/* The callback ran: the key may go, the task is still allocated. */
	ASSERT_OK(doca_aes_gcm_key_destroy(e.key));
	doca_task_free(task);
}

/* ---- alloc_init and accessors -------------------------------------------------------------- */

TEST(alloc_init_refusals)
{
	struct doca_aes_gcm_task_encrypt *t = SENTINEL_PTR;
	struct doca_aes_gcm_task_decrypt *d = SENTINEL_PTR;
	struct doca_aes_gcm *other;
	struct doca_aes_gcm_key *foreign;
	struct doca_buf *src;
	union doca_data ud = {.u64 = 1};
	struct env e;
	int log;

	env_open(&e);
	log = capture_sdk_log();
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, zero_key, DOCA_AES_GCM_KEY_256, &e.key));
	src = buf_data(&e, e.src_mmap, e.src_mem, 64);
	/* Not running yet. */
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, src, NULL, e.key, iv12, 12, 12, 0, ud, &t),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "allocate tasks after doca_ctx_start()");
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(NULL, src, NULL, e.key, iv12, 12, 12, 0, ud, &t),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, src, NULL, e.key, iv12, 12, 12, 0, ud, NULL),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, src, NULL, e.key, iv12, 13, 12, 0, ud, &t),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "IV is 13 bytes, more than the 12 supported");
	ASSERT_ERR(doca_aes_gcm_task_decrypt_alloc_init(e.aes, src, NULL, e.key, NULL, 4, 12, 0, ud, &d),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "IV is NULL but iv_length is 4");
	for (uint32_t tag = 0; tag <= 20; tag++) {
		if (tag == 12 || tag == 16)
			continue;
		ASSERT_ERR(doca_aes_gcm_task_decrypt_alloc_init(e.aes, src, NULL, e.key, iv12, 12, tag, 0, ud, &d),
			   DOCA_ERROR_INVALID_VALUE);
	}
	ASSERT_LOG_HAS(log, "tag size is 8 bytes; AES-GCM tasks use a 12-byte (96-bit) or 16-byte (128-bit) tag");
	/* A key belongs to its context. */
	ASSERT_OK(doca_aes_gcm_create(e.dev, &other));
	ASSERT_OK(doca_aes_gcm_key_create(other, zero_key, DOCA_AES_GCM_KEY_128, &foreign));
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, src, NULL, foreign, iv12, 12, 12, 0, ud, &t),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "key belongs to another AES-GCM context");
	ASSERT_PTR_EQ(t, SENTINEL_PTR);
	ASSERT_PTR_EQ(d, SENTINEL_PTR);
	ASSERT_OK(doca_aes_gcm_key_destroy(foreign));
	ASSERT_OK(doca_aes_gcm_destroy(other));
	/* A zero-length IV may be NULL. */
	ASSERT_OK(doca_aes_gcm_task_encrypt_alloc_init(e.aes, src, NULL, e.key, NULL, 0, 16, 0, ud, &t));
	doca_task_free(doca_aes_gcm_task_encrypt_as_task(t));
}

TEST(alloc_init_limits_of_the_device)
{
	struct doca_aes_gcm_task_encrypt *t[8], *extra = SENTINEL_PTR;
	struct doca_buf *big, *head;
	union doca_data ud = {.u64 = 1};
	struct env e;
	int log;

	env_open_on(&e, "mlx5_4"); /* max 4096 bytes, 3 segments, 8 tasks */
	log = capture_sdk_log();
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, zero_key, DOCA_AES_GCM_KEY_256, &e.key));
	big = buf_data(&e, e.src_mmap, e.src_mem, 4097);
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, big, NULL, e.key, iv12, 12, 12, 0, ud, &extra),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source holds 4097 bytes, more than max_buf_size 4096");
	head = buf_data(&e, e.src_mmap, e.src_mem, 16);
	for (int i = 1; i < 4; i++)
		ASSERT_OK(doca_buf_chain_list(head, buf_data(&e, e.src_mmap, e.src_mem + 16 * i, 16)));
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, head, NULL, e.key, iv12, 12, 12, 0, ud, &extra),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source list has 4 segments, more than the 3 allowed");
	for (int i = 0; i < 8; i++)
		ASSERT_OK(doca_aes_gcm_task_encrypt_alloc_init(e.aes, NULL, NULL, e.key, iv12, 12, 12, 0, ud, &t[i]));
	ASSERT_ERR(doca_aes_gcm_task_encrypt_alloc_init(e.aes, NULL, NULL, e.key, iv12, 12, 12, 0, ud, &extra),
		   DOCA_ERROR_NO_MEMORY);
	ASSERT_PTR_EQ(extra, SENTINEL_PTR);
	for (int i = 0; i < 8; i++)
		doca_task_free(doca_aes_gcm_task_encrypt_as_task(t[i]));
}

TEST(accessors)
{
	struct doca_aes_gcm_task_decrypt *t;
	struct doca_buf *src, *dst;
	union doca_data ud = {.u64 = 77};
	uint8_t iv[12] = {9, 8, 7, 6, 5};
	uint32_t len = 0;
	struct env e;

	env_start(&e, DOCA_AES_GCM_KEY_128, zero_key);
	src = buf_data(&e, e.src_mmap, e.src_mem, 64);
	dst = dst_buf(&e, 0, 64);
	ASSERT_OK(doca_aes_gcm_task_decrypt_alloc_init(e.aes, NULL, NULL, NULL, iv, 5, 12, 3, ud, &t));
	ASSERT_PTR_EQ(doca_aes_gcm_task_decrypt_get_src(t), NULL);
	ASSERT_PTR_EQ(doca_aes_gcm_task_decrypt_get_key(t), NULL);
	doca_aes_gcm_task_decrypt_set_src(t, src);
	doca_aes_gcm_task_decrypt_set_dst(t, dst);
	doca_aes_gcm_task_decrypt_set_key(t, e.key);
	ASSERT_PTR_EQ(doca_aes_gcm_task_decrypt_get_src(t), src);
	ASSERT_PTR_EQ(doca_aes_gcm_task_decrypt_get_dst(t), dst);
	ASSERT_PTR_EQ(doca_aes_gcm_task_decrypt_get_key(t), e.key);
	/* The IV is the task's copy, zero-padded. */
	memset(iv, 0xee, sizeof(iv));
	ASSERT_MEM_EQ(doca_aes_gcm_task_decrypt_get_iv(t, &len), ((uint8_t[12]){9, 8, 7, 6, 5}), 12);
	ASSERT_EQ(len, 5);
	doca_aes_gcm_task_decrypt_set_iv(t, iv12, 12);
	ASSERT_MEM_EQ(doca_aes_gcm_task_decrypt_get_iv(t, &len), iv12, 12);
	ASSERT_EQ(len, 12);
	doca_aes_gcm_task_decrypt_set_iv(t, NULL, 3); /* refused and logged: the IV stays */
	ASSERT_MEM_EQ(doca_aes_gcm_task_decrypt_get_iv(t, &len), iv12, 12);
	ASSERT_EQ(doca_aes_gcm_task_decrypt_get_tag_size(t), 12);
	doca_aes_gcm_task_decrypt_set_tag_size(t, 16);
	ASSERT_EQ(doca_aes_gcm_task_decrypt_get_tag_size(t), 16);
	ASSERT_EQ(doca_aes_gcm_task_decrypt_get_aad_size(t), 3);
	doca_aes_gcm_task_decrypt_set_aad_size(t, 9);
	ASSERT_EQ(doca_aes_gcm_task_decrypt_get_aad_size(t), 9);
	ASSERT_EQ(doca_task_get_user_data(doca_aes_gcm_task_decrypt_as_task(t)).u64, 77);
	ASSERT_PTR_EQ(doca_task_get_ctx(doca_aes_gcm_task_decrypt_as_task(t)), e.ctx);
	/* NULL tasks: NULL / 0, setters log and return. */
	ASSERT_PTR_EQ(doca_aes_gcm_task_decrypt_as_task(NULL), NULL);
	ASSERT_PTR_EQ(doca_aes_gcm_task_encrypt_as_task(NULL), NULL);
	ASSERT_PTR_EQ(doca_aes_gcm_task_encrypt_get_dst(NULL), NULL);
	ASSERT_PTR_EQ(doca_aes_gcm_task_encrypt_get_iv(NULL, &len), NULL);
	ASSERT_EQ(doca_aes_gcm_task_encrypt_get_tag_size(NULL), 0);
	ASSERT_EQ(doca_aes_gcm_task_encrypt_get_aad_size(NULL), 0);
	doca_aes_gcm_task_encrypt_set_src(NULL, src);
	doca_aes_gcm_task_encrypt_set_iv(NULL, iv12, 12);
	doca_aes_gcm_task_encrypt_set_tag_size(NULL, 12);
	doca_task_free(doca_aes_gcm_task_decrypt_as_task(t));
}

/* ---- submit refusals --------------------------------------------------------------------- */

/*
 * Submit a task whose buffers or parameters are at fault: try_submit (first) returns
 * the code and leaves the context RUNNING; submit accepts it, its error callback
 * carries the code after progress, and the failure stops the context.
 */
static void
expect_refusal(struct env *e, struct doca_task *task, doca_error_t code)
{
	seen.ok = seen.err = 0;
	ASSERT_ERR(doca_task_try_submit(task), code);
	ASSERT_EQ(ctx_state(e), DOCA_CTX_STATE_RUNNING);
	ASSERT_OK(doca_task_submit(task));
	ASSERT_EQ(seen.err, 0); /* reported by progress, not by submit */
	progress_until(e, 1);
	ASSERT_EQ(seen.err, 1);
	ASSERT_ERR(seen.status[0], code);
	doca_task_free(task);
	progress_until_idle(e);
	ASSERT_OK(doca_ctx_start(e->ctx));
}

/* A task of e's key over src and dst with a 12-byte IV. */
static struct doca_task *
task_of(struct env *e, bool decrypt, struct doca_buf *src, struct doca_buf *dst, uint32_t tag, uint32_t aad)
{
	const struct job j = {.decrypt = decrypt,
			      .key = e->key,
			      .iv = iv12,
			      .iv_len = 12,
			      .tag_size = tag,
			      .aad_size = aad,
			      .ud = decrypt ? 4 : 3};

	return job_task(e, &j, src, dst);
}

#define enc_task(e, src, dst, tag, aad) task_of((e), false, (src), (dst), (tag), (aad))
#define dec_task(e, src, dst, tag, aad) task_of((e), true, (src), (dst), (tag), (aad))

/* The same, as the encrypt task itself (for its setters). */
static struct doca_aes_gcm_task_encrypt *
enc_alloc(struct env *e, struct doca_buf *src, struct doca_buf *dst)
{
	struct doca_aes_gcm_task_encrypt *t = NULL;

	ASSERT_OK(doca_aes_gcm_task_encrypt_alloc_init(e->aes, src, dst, e->key, iv12, 12, 12, 0,
						       (union doca_data){.u64 = 3}, &t));
	return t;
}

TEST(layout_refusals)
{
	struct doca_buf *src, *empty;
	struct env e;
	int log;

	env_start(&e, DOCA_AES_GCM_KEY_256, zero_key);
	log = capture_sdk_log();
	src = buf_data(&e, e.src_mmap, e.src_mem, 40);
	/* Encrypt: the AAD is part of the source. */
	expect_refusal(&e, enc_task(&e, src, dst_buf(&e, 0, 256), 16, 41), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "aad_size 41 is larger than its source (40 bytes)");
	/* Decrypt: the source holds AAD and tag. */
	expect_refusal(&e, dec_task(&e, src, dst_buf(&e, 0, 256), 16, 25), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source holds 40 bytes, fewer than aad_size + tag_size (41)");
	/* The destination's room: encrypt needs source + tag, decrypt source - tag. */
	expect_refusal(&e, enc_task(&e, src, dst_buf(&e, 0, 55), 16, 0), DOCA_ERROR_TOO_BIG);
	ASSERT_LOG_HAS(log, "destination has room for 55 bytes after data + data_len, 56 are needed");
	expect_refusal(&e, dec_task(&e, src, dst_buf(&e, 0, 27), 12, 0), DOCA_ERROR_TOO_BIG);
	/* An empty source. */
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, e.src_mmap, e.src_mem, 64, &empty));
	expect_refusal(&e, enc_task(&e, empty, dst_buf(&e, 0, 256), 12, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source holds no data (data_len 0)");
}

TEST(parameter_refusals_at_submit)
{
	struct doca_aes_gcm_task_encrypt *t;
	struct doca_buf *src;
	struct env e;
	int log;

	env_start(&e, DOCA_AES_GCM_KEY_128, zero_key);
	log = capture_sdk_log();
	src = buf_data(&e, e.src_mmap, e.src_mem, 40);
	/* Setters are checked at submit. */
	t = enc_alloc(&e, src, dst_buf(&e, 0, 256));
	doca_aes_gcm_task_encrypt_set_iv(t, iv12, 16);
	expect_refusal(&e, doca_aes_gcm_task_encrypt_as_task(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "doca_task_submit: AES-GCM encrypt task's IV is 16 bytes, more than the 12 supported");
	t = enc_alloc(&e, src, dst_buf(&e, 0, 256));
	doca_aes_gcm_task_encrypt_set_tag_size(t, 4);
	expect_refusal(&e, doca_aes_gcm_task_encrypt_as_task(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "tag size is 4 bytes");
}

TEST(missing_buffers_and_keys_are_returned_to_the_submitter)
{
	struct doca_aes_gcm_task_encrypt *t;
	struct doca_aes_gcm_key *foreign;
	struct doca_aes_gcm *other;
	struct doca_buf *src;
	struct env e;
	int log;

	env_start(&e, DOCA_AES_GCM_KEY_256, zero_key);
	log = capture_sdk_log();
	src = buf_data(&e, e.src_mmap, e.src_mem, 40);
	t = enc_alloc(&e, NULL, dst_buf(&e, 0, 256));
	ASSERT_ERR(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "has no source buffer; set one with doca_aes_gcm_task_*_set_src()");
	doca_aes_gcm_task_encrypt_set_src(t, src);
	doca_aes_gcm_task_encrypt_set_dst(t, NULL);
	ASSERT_ERR(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "has no destination buffer");
	doca_aes_gcm_task_encrypt_set_dst(t, dst_buf(&e, 0, 256));
	doca_aes_gcm_task_encrypt_set_key(t, NULL);
	ASSERT_ERR(doca_task_try_submit(doca_aes_gcm_task_encrypt_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "task has no key; create one with doca_aes_gcm_key_create()");
	ASSERT_OK(doca_aes_gcm_create(e.dev, &other));
	ASSERT_OK(doca_aes_gcm_key_create(other, zero_key, DOCA_AES_GCM_KEY_128, &foreign));
	doca_aes_gcm_task_encrypt_set_key(t, foreign);
	ASSERT_ERR(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	/* The submitter kept the task and the context runs on. */
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_RUNNING);
	ASSERT_EQ(seen.ok + seen.err, 0);
	doca_aes_gcm_task_encrypt_set_key(t, e.key);
	ASSERT_OK(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t)));
	progress_until(&e, 1);
	ASSERT_EQ(seen.ok, 1);
	doca_task_free(doca_aes_gcm_task_encrypt_as_task(t));
	ASSERT_OK(doca_aes_gcm_key_destroy(foreign));
	ASSERT_OK(doca_aes_gcm_destroy(other));
}

TEST(buffer_refusals)
{
	struct doca_mmap *ro, *foreign_mmap;
	struct doca_dev *other;
	struct doca_buf *src, *b, *dst;
	struct env e;
	int log;

	env_start(&e, DOCA_AES_GCM_KEY_256, zero_key);
	log = capture_sdk_log();
	src = buf_data(&e, e.src_mmap, e.src_mem, 40);
	/* A destination without write permission. */
	ro = started_mmap(e.dst_mem + (4u << 20), 4096, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, e.dev);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, ro, e.dst_mem + (4u << 20), 4096, &b));
	expect_refusal(&e, enc_task(&e, src, b, 12, 0), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "destination mmap has no write permission");
	/* An mmap the context's device was not added to. */
	other = open_ibdev("mlx5_5");
	foreign_mmap = started_mmap(e.src_mem + (4u << 20), 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, other);
	expect_refusal(&e,
		       enc_task(&e, buf_data(&e, foreign_mmap, e.src_mem + (4u << 20), 64), dst_buf(&e, 0, 256), 12, 0),
		       DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "source buffer lies in an mmap the context's device was not added to");
	/* A released source. */
	b = buf_data(&e, e.src_mmap, e.src_mem + 64, 64);
	dst = dst_buf(&e, 0, 256); /* before the release: the inventory would hand b out again */
	ASSERT_OK(doca_buf_dec_refcount(b, NULL));
	expect_refusal(&e, enc_task(&e, b, dst, 12, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source buffer was released");
}

TEST(device_limits_at_submit)
{
	struct doca_aes_gcm_task_encrypt *t;
	struct doca_buf *src, *dst;
	struct env e;
	int log;

	env_open_on(&e, "mlx5_4"); /* max 4096 bytes, 3 segments */
	log = capture_sdk_log();
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, zero_key, DOCA_AES_GCM_KEY_256, &e.key));
	src = buf_data(&e, e.src_mmap, e.src_mem, 100);
	t = enc_alloc(&e, src, dst_buf(&e, 0, 8192));
	doca_aes_gcm_task_encrypt_set_src(t, buf_data(&e, e.src_mmap, e.src_mem, 4097));
	expect_refusal(&e, doca_aes_gcm_task_encrypt_as_task(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "source holds 4097 bytes, more than max_buf_size 4096");
	dst = dst_buf(&e, 0, 100);
	for (int i = 1; i < 4; i++)
		ASSERT_OK(doca_buf_chain_list(dst, dst_buf(&e, 200 * i, 100)));
	t = enc_alloc(&e, src, NULL);
	doca_aes_gcm_task_encrypt_set_dst(t, dst);
	expect_refusal(&e, doca_aes_gcm_task_encrypt_as_task(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "destination list has 4 segments, more than the 3 allowed");
}

/* ---- stop ------------------------------------------------------------------------------------ */

/* Tasks not yet reported when the context stops are flushed through their error callbacks. */
TEST(stop_flushes_queued_tasks)
{
	struct doca_task *t[4];
	struct env e;

	env_start(&e, DOCA_AES_GCM_KEY_256, zero_key);
	for (int i = 0; i < 4; i++) {
		struct doca_buf *src = buf_data(&e, e.src_mmap, e.src_mem + 1024 * i, 1024);
		const struct job j = {.key = e.key, .iv = iv12, .iv_len = 12, .tag_size = 12, .ud = (uint64_t)i};

		t[i] = job_task(&e, &j, src, dst_buf(&e, 2048 * i, 1024 + 12));
		ASSERT_OK(doca_task_submit(t[i]));
	}
	ASSERT_ERR(doca_ctx_stop(e.ctx), DOCA_ERROR_IN_PROGRESS);
	ASSERT_EQ(ctx_state(&e), DOCA_CTX_STATE_STOPPING);
	progress_until(&e, 4);
	ASSERT_EQ(seen.err, 4);
	for (int i = 0; i < 4; i++) {
		ASSERT_ERR(seen.status[i], DOCA_ERROR_IO_FAILED);
		ASSERT_EQ(seen.order[i], i);
	}
	progress_until_idle(&e);
	for (int i = 0; i < 4; i++)
		doca_task_free(t[i]);
	ASSERT_OK(doca_aes_gcm_key_destroy(e.key));
	ASSERT_OK(doca_aes_gcm_destroy(e.aes));
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
