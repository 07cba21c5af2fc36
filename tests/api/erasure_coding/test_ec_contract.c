/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_erasure_coding.h contract: capabilities from the device's model and
 * caps, the context's states (IDLE -> RUNNING directly, allocate only while
 * RUNNING), matrix parameters and their refusals (with the rule in the log),
 * the task refusals - returned by submit when there is nothing to report
 * against, through the error callback for buffers and geometry (the context
 * then stops), returned by try_submit - and the lifetimes of matrices.
 */
#include "ec_test.h"

#define MIB (1024u * 1024u)

static const char topology_fmt[] =
	"{\"version\": 1, \"devices\": [{\"name\": \"card\", \"model\": \"%s\", \"netdev\": \"lo\"%s,\n"
	" \"functions\": [{\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", "
	"\"iface\": \"ens1f0np0\"}]}]}\n";

static void
use_card(const char *model, const char *caps)
{
	char json[1024];

	snprintf(json, sizeof(json), topology_fmt, model, caps);
	use_topology_text(json);
}

static struct doca_devinfo *
mlx5_0_info(struct doca_devinfo ***list)
{
	uint32_t n = 0;
	struct doca_devinfo *info;

	ASSERT_OK(doca_devinfo_create_list(list, &n));
	info = find_ibdev(*list, n, "mlx5_0");
	ASSERT_NOT_NULL(info);
	return info;
}

static void
assert_caps(doca_error_t want, uint64_t block, uint32_t list_len)
{
	struct doca_devinfo **list = NULL, *info = mlx5_0_info(&list);
	uint64_t got_block = 0;
	uint32_t got_len = 0;

	ASSERT_ERR(doca_ec_cap_task_create_is_supported(info), want);
	ASSERT_ERR(doca_ec_cap_task_recover_is_supported(info), want);
	ASSERT_ERR(doca_ec_cap_task_update_is_supported(info), want);
	ASSERT_ERR(doca_ec_cap_task_galois_mul_is_supported(info), want);
	ASSERT_ERR(doca_ec_cap_get_max_block_size(info, &got_block), want);
	ASSERT_ERR(doca_ec_cap_get_max_buf_list_len(info, &got_len), want);
	if (want == DOCA_SUCCESS) {
		ASSERT_EQ(got_block, block);
		ASSERT_EQ(got_len, list_len);
	}
	ASSERT_ERR(doca_ec_cap_task_create_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_cap_get_max_block_size(NULL, &got_block), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_cap_get_max_block_size(info, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_cap_get_max_buf_list_len(info, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_devinfo_destroy_list(list));
}

TEST(caps_of_the_soft_device)
{
	use_builtin_topology();
	assert_caps(DOCA_SUCCESS, 128 * MIB, 128);
}

/* BlueField-2 has no erasure coding: every query says so and the context is refused with the reason. */
TEST(bluefield2_has_no_engine)
{
	int log = capture_sdk_log();
	struct doca_ec *ec = SENTINEL_PTR;
	struct doca_dev *dev;

	use_card("bluefield-2", "");
	assert_caps(DOCA_ERROR_NOT_SUPPORTED, 0, 0);
	dev = open_ibdev("mlx5_0");
	ASSERT_ERR(doca_ec_create(dev, &ec), DOCA_ERROR_NOT_SUPPORTED);
	ASSERT_PTR_EQ(ec, SENTINEL_PTR);
	ASSERT_LOG_HAS(log, "doca_ec_create: device 0000:b1:00.0 (model bluefield-2) has no erasure coding engine");
	ASSERT_OK(doca_dev_close(dev));
}

TEST(bluefield3_has_it)
{
	use_card("bluefield-3", "");
	assert_caps(DOCA_SUCCESS, 128 * MIB, 128);
}

TEST(connectx7_has_it)
{
	struct ec_env e;

	use_card("connectx-7", "");
	assert_caps(DOCA_SUCCESS, 128 * MIB, 128);
	ec_env_open(&e, MIB, 2);
	ec_env_close(&e);
}

TEST(context_states)
{
	int log = capture_sdk_log();
	struct doca_ec *ec = NULL;
	struct doca_dev *dev;
	struct doca_pe *pe = NULL;
	enum doca_ctx_states st;

	use_builtin_topology();
	dev = open_ibdev("mlx5_0");
	ASSERT_ERR(doca_ec_create(NULL, &ec), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT(doca_ec_as_ctx(NULL) == NULL);
	ASSERT_OK(doca_ec_create(dev, &ec));
	ASSERT_ERR(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	ASSERT_OK(doca_pe_create(&pe));
	ASSERT_OK(doca_pe_connect_ctx(pe, doca_ec_as_ctx(ec)));
	ASSERT_ERR(doca_ctx_start(doca_ec_as_ctx(ec)), DOCA_ERROR_BAD_STATE);
	ASSERT_LOG_HAS(log, "erasure coding context has no task type enabled");
	ASSERT_ERR(doca_ec_task_create_set_conf(NULL, NULL, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_task_recover_set_conf(ec, NULL, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_task_create_set_conf(ec, (doca_ec_task_create_completion_cb_t)abort,
						(doca_ec_task_create_completion_cb_t)abort, 0),
		   DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ec_task_create_set_conf(ec, (doca_ec_task_create_completion_cb_t)abort,
					       (doca_ec_task_create_completion_cb_t)abort, 4));
	ASSERT_OK(doca_ctx_start(doca_ec_as_ctx(ec)));
	ASSERT_OK(doca_ctx_get_state(doca_ec_as_ctx(ec), &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_RUNNING);
	ASSERT_ERR(doca_ec_task_update_set_conf(ec, (doca_ec_task_update_completion_cb_t)abort,
						(doca_ec_task_update_completion_cb_t)abort, 4),
		   DOCA_ERROR_BAD_STATE);
	ASSERT_ERR(doca_ec_destroy(ec), DOCA_ERROR_BAD_STATE);
	ASSERT_OK(doca_ctx_stop(doca_ec_as_ctx(ec)));
	ASSERT_OK(doca_ctx_stop(doca_ec_as_ctx(ec))); /* DOCA's samples stop twice */
	ASSERT_OK(doca_ec_destroy(ec));
	ASSERT_OK(doca_pe_destroy(pe));
	ASSERT_OK(doca_dev_close(dev));
}

/* The state callback sees RUNNING straight after IDLE (DOCA's samples log an error on STARTING). */
TEST(start_goes_straight_to_running)
{
	struct ec_env e;

	ec_env_open(&e, MIB, 2);
	ASSERT_EQ(ec_seen.num_states, 1);
	ASSERT_EQ(ec_seen.states[0], DOCA_CTX_STATE_RUNNING);
	ec_env_close(&e);
	ASSERT_EQ(ec_seen.states[ec_seen.num_states - 1], DOCA_CTX_STATE_IDLE);
}

TEST(allocate_needs_running_and_a_free_task)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;
	struct doca_task *t[3] = {NULL};
	struct doca_ec_task_create *ct = SENTINEL_PTR;
	union doca_data ud = {.u64 = 0};

	ec_env_open_idle(&e, MIB, 2);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat)); /* before start: allowed */
	ASSERT_ERR(doca_ec_task_create_allocate_init(e.ec, mat, NULL, NULL, ud, &ct), DOCA_ERROR_BAD_STATE);
	ASSERT_PTR_EQ(ct, SENTINEL_PTR);
	ASSERT_LOG_HAS(log, "doca_ec_task_create_allocate_init: the erasure coding context is not RUNNING");
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_ERR(doca_ec_task_create_allocate_init(NULL, mat, NULL, NULL, ud, &ct), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(doca_ec_task_create_allocate_init(e.ec, mat, NULL, NULL, ud, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, NULL, NULL, 1, &t[0]));
	ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, NULL, NULL, 2, &t[1]));
	ASSERT_ERR(ec_alloc(&e, EC_CREATE, mat, NULL, NULL, 3, &t[2]), DOCA_ERROR_NO_MEMORY);
	doca_task_free(t[0]);
	ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, NULL, NULL, 3, &t[2]));
	ASSERT_EQ(doca_task_get_user_data(t[2]).u64, 3);
	doca_task_free(t[1]);
	doca_task_free(t[2]);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* One family's accessors, named as DOCA names them (the recover getter differs from its setter). */
#define CHECK_ACCESSORS(T, MAT, SRC, DST_SET, DST_GET)                                                                 \
	do {                                                                                                           \
		struct doca_ec_task_##T *t = NULL;                                                                     \
		ASSERT_OK(doca_ec_task_##T##_allocate_init(e.ec, m1, a, b, ud, &t));                                   \
		ASSERT_PTR_EQ(doca_ec_task_##T##_get_##MAT(t), m1);                                                    \
		ASSERT_PTR_EQ(doca_ec_task_##T##_get_##SRC(t), a);                                                     \
		ASSERT_PTR_EQ(doca_ec_task_##T##_get_##DST_GET(t), b);                                                 \
		doca_ec_task_##T##_set_##MAT(t, m2);                                                                   \
		doca_ec_task_##T##_set_##SRC(t, b);                                                                    \
		doca_ec_task_##T##_set_##DST_SET(t, a);                                                                \
		ASSERT_PTR_EQ(doca_ec_task_##T##_get_##MAT(t), m2);                                                    \
		ASSERT_PTR_EQ(doca_ec_task_##T##_get_##SRC(t), b);                                                     \
		ASSERT_PTR_EQ(doca_ec_task_##T##_get_##DST_GET(t), a);                                                 \
		ASSERT_EQ(doca_task_get_user_data(doca_ec_task_##T##_as_task(t)).u64, ud.u64);                         \
		doca_task_free(doca_ec_task_##T##_as_task(t));                                                         \
	} while (0)

TEST(setters_and_getters)
{
	struct ec_env e;
	struct doca_ec_matrix *m1 = NULL, *m2 = NULL;
	struct doca_buf *a, *b;
	union doca_data ud = {.u64 = 42};
	uint8_t zero[64] = {0};

	ec_env_open(&e, MIB, 2);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &m1));
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_VANDERMONDE, 2, 1, &m2));
	a = ec_src(&e, zero, 64, 1);
	b = ec_dst(&e, 64, 1, NULL);
	CHECK_ACCESSORS(galois_mul, coding_matrix, src_buf, dst_buf, dst_buf);
	CHECK_ACCESSORS(create, coding_matrix, original_data_blocks, rdnc_blocks, rdnc_blocks);
	CHECK_ACCESSORS(update, update_matrix, original_updated_and_rdnc_blocks, updated_rdnc_blocks,
			updated_rdnc_blocks);
	CHECK_ACCESSORS(recover, recover_matrix, available_blocks, recovered_data_blocks, recovered_data);
	ASSERT(doca_ec_task_create_as_task(NULL) == NULL);
	ASSERT(doca_ec_task_recover_get_recovered_data(NULL) == NULL);
	ec_release(a);
	ec_release(b);
	ASSERT_OK(doca_ec_matrix_destroy(m1));
	ASSERT_OK(doca_ec_matrix_destroy(m2));
	ec_env_close(&e);
}

#define ASSERT_MATRIX_REFUSED(call, needle)                                                                            \
	do {                                                                                                           \
		struct doca_ec_matrix *out_ = SENTINEL_PTR;                                                            \
		ASSERT_ERR(call, DOCA_ERROR_INVALID_VALUE);                                                            \
		ASSERT_PTR_EQ(out_, SENTINEL_PTR);                                                                     \
		ASSERT_LOG_HAS(log, needle);                                                                           \
	} while (0)

TEST(matrix_refusals)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *coding = NULL, *rec = NULL, *upd = NULL;
	uint8_t raw[4] = {1, 2, 3, 4};
	uint32_t two[] = {0, 1}, dup[] = {1, 1}, far[] = {5}, rdnc_only[] = {2, 3}, three[] = {0, 1, 2};

	ec_env_open(&e, MIB, 2);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, &coding));
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 0, 2, &out_),
			      "data_block_count 0 is out of range [1, 128]");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 129, 2, &out_),
			      "data_block_count 129");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 0, &out_),
			      "rdnc_block_count 0 is out of range [1, 32]");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_VANDERMONDE, 2, 33, &out_),
			      "rdnc_block_count 33");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create(e.ec, (enum doca_ec_matrix_type)3, 2, 2, &out_),
			      "matrix type 3 is unknown");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create(NULL, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, &out_), "NULL argument");
	ASSERT_ERR(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_from_raw(e.ec, NULL, 2, 2, &out_), "NULL argument");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_from_raw(e.ec, raw, 0, 4, &out_), "data_block_count 0");
	/* recover */
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, coding, two, 0, &out_), "0 blocks missing");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, coding, three, 3, &out_),
			      "3 blocks missing; between 1 and rdnc_block_count (2) can be recovered");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, coding, dup, 2, &out_),
			      "missing_indices[1] = 1 is given twice");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, coding, far, 1, &out_),
			      "missing_indices[0] = 5 is out of range [0, 4)");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, coding, rdnc_only, 2, &out_),
			      "no data block (index below 2) is missing");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, NULL, two, 2, &out_), "NULL argument");
	ASSERT_OK(doca_ec_matrix_create_recover(e.ec, coding, two, 2, &rec));
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, rec, two, 1, &out_),
			      "coding_matrix is a recover matrix");
	/* update */
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_update(e.ec, coding, two, 0, &out_), "0 update indices");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_update(e.ec, coding, three, 3, &out_), "3 update indices");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_update(e.ec, coding, dup, 2, &out_),
			      "update_indices[1] = 1 is given twice");
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_update(e.ec, coding, rdnc_only, 1, &out_),
			      "update_indices[0] = 2 is out of range [0, 2)");
	ASSERT_OK(doca_ec_matrix_create_update(e.ec, coding, two, 2, &upd));
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_update(e.ec, upd, two, 1, &out_),
			      "coding_matrix is an update matrix");
	ASSERT_ERR(doca_ec_matrix_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	ASSERT_OK(doca_ec_matrix_destroy(upd));
	ASSERT_OK(doca_ec_matrix_destroy(rec));
	ASSERT_OK(doca_ec_matrix_destroy(coding));
	ec_env_close(&e);
}

/* Vandermonde is not MDS: k 3, m 4 with d0 d1 d2 r2 lost leaves r0 r1 r3, which do not determine the data. */
TEST(singular_vandermonde_choice_is_refused)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *v = NULL, *c = NULL, *rec = NULL;
	uint32_t lost[] = {0, 1, 2, 5};

	ec_env_open(&e, MIB, 2);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_VANDERMONDE, 3, 4, &v));
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 3, 4, &c));
	ASSERT_MATRIX_REFUSED(doca_ec_matrix_create_recover(e.ec, v, lost, 4, &out_), "a singular choice");
	ASSERT_OK(doca_ec_matrix_create_recover(e.ec, c, lost, 4, &rec));
	ASSERT_OK(doca_ec_matrix_destroy(rec));
	ASSERT_OK(doca_ec_matrix_destroy(v));
	ASSERT_OK(doca_ec_matrix_destroy(c));
	ec_env_close(&e);
}

/* One create task (k 2, m 1) over src_len source bytes into dst_room: its status through the callback. */
static doca_error_t
create_status(struct ec_env *e, struct doca_ec_matrix *mat, size_t src_len, unsigned nsrc, size_t dst_room,
	      unsigned ndst)
{
	uint8_t data[64 * 1024], *at = NULL;
	struct doca_buf *src, *dst;
	doca_error_t err;
	enum doca_ctx_states st;

	ASSERT(src_len <= sizeof(data));
	ec_fill(data, src_len, 1);
	src = ec_src(e, data, src_len, nsrc);
	dst = ec_dst(e, dst_room, ndst, &at);
	err = ec_run(e, EC_CREATE, mat, src, dst);
	ec_assert_guard(at, dst_room);
	if (err != DOCA_SUCCESS) {
		/* nothing written, and the failure stopped the context */
		ASSERT_EQ(ec_list_data_len(dst), 0);
		for (size_t i = 0; i < dst_room; i++)
			ASSERT_EQ(at[i], 0);
		ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
		ASSERT(st != DOCA_CTX_STATE_RUNNING);
		ec_env_restart(e);
	}
	ec_release(src);
	ec_release(dst);
	return err;
}

TEST(bad_geometry_fails_the_task)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;

	ec_env_open(&e, 4 * MIB, 4);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat));
	ASSERT_OK(create_status(&e, mat, 128, 1, 64, 1));
	ASSERT_ERR(create_status(&e, mat, 64, 1, 64, 1), DOCA_ERROR_INVALID_VALUE); /* 32-byte blocks */
	ASSERT_LOG_HAS(log, "create task's 2 blocks in 64 source bytes are not a multiple of 64 bytes each");
	ASSERT_ERR(create_status(&e, mat, 200, 1, 128, 1), DOCA_ERROR_INVALID_VALUE); /* 100-byte blocks */
	ASSERT_ERR(create_status(&e, mat, 192, 1, 128, 1), DOCA_ERROR_INVALID_VALUE); /* 96-byte blocks */
	ASSERT_ERR(create_status(&e, mat, 129, 1, 128, 1), DOCA_ERROR_INVALID_VALUE); /* not 2 equal blocks */
	ASSERT_LOG_HAS(log, "create task's source holds 129 bytes, not 2 blocks of one size");
	ASSERT_ERR(create_status(&e, mat, 0, 1, 128, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "create task's source holds no data");
	/* dst too small: TOO_BIG, nothing written past it (guard) */
	ASSERT_ERR(create_status(&e, mat, 256, 1, 64, 1), DOCA_ERROR_TOO_BIG);
	ASSERT_LOG_HAS(log, "create task's destination has room for 64 bytes after data + data_len; its 1 output "
			    "blocks need 128");
	ASSERT_ERR(create_status(&e, mat, 1024, 2, 500, 2), DOCA_ERROR_TOO_BIG);
	ASSERT_OK(create_status(&e, mat, 1024, 2, 512, 2));
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* A card whose engine takes 4 KiB blocks and 3 segments: both limits are the device's. */
TEST(device_limits)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;

	use_card("soft", ", \"caps\": {\"ec_max_block_size\": 4096, \"ec_max_buf_list_len\": 3}");
	assert_caps(DOCA_SUCCESS, 4096, 3);
	ec_env_open(&e, 4 * MIB, 4);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat));
	ASSERT_OK(create_status(&e, mat, 8192, 1, 4096, 1));
	ASSERT_ERR(create_status(&e, mat, 16384, 1, 8192, 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "create task's block size 8192 exceeds max_block_size 4096");
	ASSERT_OK(create_status(&e, mat, 1024, 2, 512, 1));
	ASSERT_ERR(create_status(&e, mat, 1024, 2, 512, 2), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "create task's 2 source + 2 destination segments exceed max_buf_list_len 3");
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* Nothing to report a fault against (no matrix, buffer, or a matrix of another context): submit returns it. */
TEST(submit_keeps_a_task_it_cannot_report)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL, *foreign = NULL;
	struct doca_ec *other = NULL;
	uint8_t data[128] = {0};
	struct doca_buf *src, *dst;
	struct doca_task *t = NULL;
	enum doca_ctx_states st;

	ec_env_open(&e, MIB, 4);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat));
	ASSERT_OK(doca_ec_create(e.dev, &other));
	ASSERT_OK(doca_ec_matrix_create(other, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &foreign));
	src = ec_src(&e, data, sizeof(data), 1);
	dst = ec_dst(&e, 64, 1, NULL);
	ASSERT_OK(ec_alloc(&e, EC_RECOVER, NULL, src, dst, 1, &t));
	ASSERT_ERR(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "doca_task_submit: recover task has no matrix");
	doca_ec_task_recover_set_recover_matrix((struct doca_ec_task_recover *)t, mat);
	doca_ec_task_recover_set_available_blocks((struct doca_ec_task_recover *)t, NULL);
	ASSERT_ERR(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "recover task has no source buffer");
	doca_ec_task_recover_set_available_blocks((struct doca_ec_task_recover *)t, src);
	doca_ec_task_recover_set_recovered_data_blocks((struct doca_ec_task_recover *)t, NULL);
	ASSERT_ERR(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "recover task has no destination buffer");
	doca_ec_task_recover_set_recovered_data_blocks((struct doca_ec_task_recover *)t, dst);
	doca_ec_task_recover_set_recover_matrix((struct doca_ec_task_recover *)t, foreign);
	ASSERT_ERR(doca_task_submit(t), DOCA_ERROR_INVALID_VALUE);
	ASSERT_LOG_HAS(log, "recover task's matrix was made on another erasure coding context");
	ASSERT_EQ(ec_seen.n, 0);
	ASSERT_OK(doca_ctx_get_state(e.ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_RUNNING);
	doca_ec_task_recover_set_recover_matrix((struct doca_ec_task_recover *)t, mat);
	ASSERT_OK(doca_task_submit(t));
	ec_progress_until(&e, 1);
	ASSERT_ERR(ec_seen.status[0], DOCA_SUCCESS);
	/* the other context goes first: its matrix stays valid, unattached */
	ASSERT_OK(doca_ec_destroy(other));
	ASSERT_OK(doca_ec_matrix_destroy(foreign));
	ec_release(src);
	ec_release(dst);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

TEST(try_submit_returns_the_fault)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;
	uint8_t data[256] = {0};
	struct doca_buf *src, *dst;
	struct doca_task *t = NULL;
	enum doca_ctx_states st;

	ec_env_open(&e, MIB, 4);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, &mat));
	src = ec_src(&e, data, sizeof(data), 1);
	dst = ec_dst(&e, 128, 1, NULL);
	ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, src, dst, 1, &t));
	ASSERT_ERR(doca_task_try_submit(t), DOCA_ERROR_TOO_BIG);
	ASSERT_LOG_HAS(log, "doca_task_try_submit: create task's destination has room for 128 bytes");
	doca_pe_progress(e.pe);
	ASSERT_EQ(ec_seen.n, 0);
	ASSERT_OK(doca_ctx_get_state(e.ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_RUNNING);
	doca_task_free(t);
	ec_release(src);
	ec_release(dst);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* Memory rules: a destination without write permission, an mmap without the context's device. */
TEST(buffer_permissions)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;
	uint8_t *ro = aligned_alloc(64, 4096), *nodev = aligned_alloc(64, 4096);
	struct doca_mmap *ro_map, *nodev_map;
	struct doca_buf *src, *dst = NULL;
	uint8_t data[128] = {0};

	ASSERT(ro != NULL && nodev != NULL);
	ec_env_open(&e, MIB, 4);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat));
	ro_map = started_mmap(ro, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, e.dev);
	nodev_map = started_mmap(nodev, 4096, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, NULL);
	src = ec_src(&e, data, sizeof(data), 1);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, ro_map, ro, 4096, &dst));
	ASSERT_ERR(ec_run(&e, EC_CREATE, mat, src, dst), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "create task's destination mmap has no write permission");
	ec_release(dst);
	ec_env_restart(&e);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e.inv, nodev_map, nodev, 4096, &dst));
	ASSERT_ERR(ec_run(&e, EC_CREATE, mat, src, dst), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_LOG_HAS(log, "not added to; call doca_mmap_add_dev()");
	ec_release(dst);
	ec_release(src);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ASSERT_OK(doca_mmap_destroy(ro_map));
	ASSERT_OK(doca_mmap_destroy(nodev_map));
	ec_env_close(&e);
	free(ro);
	free(nodev);
}

/* A matrix a submitted task uses cannot go until that task's callback. */
TEST(matrix_destroy_waits_for_its_tasks)
{
	int log = capture_sdk_log();
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;
	uint8_t data[128] = {0};
	struct doca_buf *src, *dst;
	struct doca_task *t = NULL;

	ec_env_open(&e, MIB, 4);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat));
	src = ec_src(&e, data, sizeof(data), 1);
	dst = ec_dst(&e, 64, 1, NULL);
	ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, src, dst, 1, &t));
	ASSERT_OK(doca_task_submit(t));
	ASSERT_ERR(doca_ec_matrix_destroy(mat), DOCA_ERROR_IN_USE);
	ASSERT_LOG_HAS(log, "doca_ec_matrix_destroy: a submitted task still uses the matrix");
	ec_progress_until(&e, 1);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_release(src);
	ec_release(dst);
	ec_env_close(&e);
}

/* A failed task stops the context: the tasks behind it are flushed through their error callbacks. */
TEST(failure_stops_and_flushes)
{
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;
	uint8_t data[4096] = {0};
	struct doca_buf *bufs[8];
	struct doca_task *t = NULL;
	enum doca_ctx_states st;

	ec_env_open(&e, MIB, 8);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 1, &mat));
	for (unsigned i = 0; i < 4; i++) {
		bufs[2 * i] = ec_src(&e, data, i == 1 ? 96 : sizeof(data), 1); /* task 1: 48-byte blocks */
		bufs[2 * i + 1] = ec_dst(&e, 2048, 1, NULL);
		ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, bufs[2 * i], bufs[2 * i + 1], i, &t));
		ASSERT_OK(doca_task_submit(t));
	}
	ec_progress_until(&e, 4);
	for (unsigned i = 0; i < 4; i++)
		ASSERT_EQ(ec_seen.order[i], i);
	ASSERT_ERR(ec_seen.status[0], DOCA_SUCCESS);
	ASSERT_ERR(ec_seen.status[1], DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(ec_seen.status[2], DOCA_ERROR_IO_FAILED);
	ASSERT_ERR(ec_seen.status[3], DOCA_ERROR_IO_FAILED);
	for (int i = 0; i < 100; i++)
		doca_pe_progress(e.pe);
	ASSERT_OK(doca_ctx_get_state(e.ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	for (unsigned i = 0; i < 8; i++)
		ec_release(bufs[i]);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	ec_env_close(&e);
}

/* doca_ctx_stop with large tasks in flight: each completes exactly once, then the context is IDLE. */
TEST(stop_flushes_tasks_in_flight)
{
	struct ec_env e;
	struct doca_ec_matrix *mat = NULL;
	uint8_t *data = calloc(1, 2 * MIB);
	struct doca_buf *bufs[16];
	struct doca_task *t = NULL;
	enum doca_ctx_states st;
	doca_error_t err;

	ASSERT_NOT_NULL(data);
	ec_env_open(&e, 40 * MIB, 8);
	ASSERT_OK(doca_ec_matrix_create(e.ec, DOCA_EC_MATRIX_TYPE_CAUCHY, 2, 2, &mat));
	for (unsigned i = 0; i < 8; i++) {
		bufs[2 * i] = ec_src(&e, data, 2 * MIB, 1);
		bufs[2 * i + 1] = ec_dst(&e, 2 * MIB, 1, NULL);
		ASSERT_OK(ec_alloc(&e, EC_CREATE, mat, bufs[2 * i], bufs[2 * i + 1], i, &t));
		ASSERT_OK(doca_task_submit(t));
	}
	err = doca_ctx_stop(e.ctx);
	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	ec_progress_until(&e, 8);
	for (unsigned i = 0; i < 8; i++) {
		ASSERT_EQ(ec_seen.order[i], i);
		ASSERT(ec_seen.status[i] == DOCA_SUCCESS || ec_seen.status[i] == DOCA_ERROR_IO_FAILED);
	}
	for (int i = 0; i < 100; i++)
		doca_pe_progress(e.pe);
	ASSERT_OK(doca_ctx_get_state(e.ctx, &st));
	ASSERT_EQ(st, DOCA_CTX_STATE_IDLE);
	ASSERT_OK(doca_ec_matrix_destroy(mat));
	for (unsigned i = 0; i < 16; i++)
		ec_release(bufs[i]);
	ec_env_close(&e);
	free(data);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
