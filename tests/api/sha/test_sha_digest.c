/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_sha.h correctness against independent implementations: every digest
 * equals OpenSSL's one-shot EVP_Digest() and the sha1sum / sha256sum /
 * sha512sum tools, for empty, 1-byte, block-boundary and 1 MiB sources,
 * source and destination lists, several tasks in flight (delivered in
 * submission order), and partial sessions of many segments driven from outside
 * and from their own callbacks, interleaved, and long.  meson runs this file
 * inline (SOFTDOCA_ENGINE_WORKERS=0) and on two engine workers with every task
 * sent to them (SOFTDOCA_ENGINE_INLINE_MAX=0): the results must be the same.
 */
#include <ctype.h>

#include "sha_test.h"

static const size_t sizes[] = {0, 1, 55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129, 1000, 4096, 1 << 20};
#define NUM_SIZES (sizeof(sizes) / sizeof(sizes[0]))

#define DST_OFF (6u << 20) /* destinations live above the sources */
#define DST_STRIDE 256u

static struct doca_sha_task_hash *
hash_task(struct env *e, enum doca_sha_algorithm alg, struct doca_buf *src, struct doca_buf *dst, uint64_t ud64)
{
	struct doca_sha_task_hash *t = NULL;
	union doca_data ud = {.u64 = ud64};

	ASSERT_OK(doca_sha_task_hash_alloc_init(e->sha, alg, src, dst, ud, &t));
	return t;
}

/* Every size of every algorithm, all of one algorithm in flight at once. */
TEST(hash_every_size_and_algorithm)
{
	struct doca_sha_task_hash *t[NUM_SIZES];
	struct doca_buf *dst[NUM_SIZES];
	struct env e;

	use_builtin_topology();
	env_open_log(&e, 5);
	fill(&e, 0, 1 << 20, 5);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t a = 0; a < 3; a++) {
		unsigned base = seen.ok + seen.err;

		for (size_t i = 0; i < NUM_SIZES; i++) {
			dst[i] = dst_buf(&e, DST_OFF + i * DST_STRIDE, 64);
			t[i] = hash_task(&e, all_algs[a], src_buf(&e, 0, sizes[i]), dst[i], i);
			ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t[i])));
		}
		progress_until(&e, base + NUM_SIZES);
		ASSERT_EQ(seen.err, 0);
		for (size_t i = 0; i < NUM_SIZES; i++) {
			ASSERT_EQ(seen.order[base + i], i);
			assert_digest(all_algs[a], dst[i], e.mem, sizes[i]);
			assert_guard(&e, DST_OFF + i * DST_STRIDE, 64);
			doca_task_free(doca_sha_task_hash_as_task(t[i]));
		}
	}
	env_close(&e);
}

/* The digest the tool prints for a file holding [data, data + len), as bytes. */
static void
tool_digest(enum doca_sha_algorithm alg, const uint8_t *data, size_t len, uint8_t *out)
{
	static const char *const tools[] = {"sha1sum", "sha256sum", "sha512sum"};
	char path[512], cmd[700], hex[160] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/msg.bin", sd_test_tmpdir());
	f = fopen(path, "wb");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fwrite(data, 1, len, f), len);
	ASSERT_EQ(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "%s %s", tools[alg], path);
	f = popen(cmd, "r");
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(fscanf(f, "%159s", hex), 1);
	ASSERT_EQ(pclose(f), 0);
	ASSERT_EQ(strlen(hex), 2 * alg_digest_len(alg));
	for (uint32_t i = 0; i < alg_digest_len(alg); i++) {
		unsigned v = 0;

		ASSERT(isxdigit((unsigned char)hex[2 * i]));
		ASSERT_EQ(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

TEST(hash_matches_the_sha_sum_tools)
{
	static const size_t tool_sizes[] = {0, 1, 56, 64, 65, 128, 1 << 20};
	struct env e;

	env_open(&e);
	fill(&e, 0, 1 << 20, 6);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t a = 0; a < 3; a++) {
		for (size_t i = 0; i < sizeof(tool_sizes) / sizeof(tool_sizes[0]); i++) {
			struct doca_buf *dst = dst_buf(&e, DST_OFF, 64);
			struct doca_sha_task_hash *t =
				hash_task(&e, all_algs[a], src_buf(&e, 0, tool_sizes[i]), dst, i);
			uint8_t want[64];
			void *got;

			ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t)));
			progress_until(&e, seen.ok + seen.err + 1);
			tool_digest(all_algs[a], e.mem, tool_sizes[i], want);
			ASSERT_OK(doca_buf_get_data(dst, &got));
			ASSERT_MEM_EQ(got, want, alg_digest_len(all_algs[a]));
			doca_task_free(doca_sha_task_hash_as_task(t));
			ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
		}
	}
	ASSERT_EQ(seen.err, 0);
	env_close(&e);
}

/* DOCA's sample oracles (SHA-256 of the two samples' default inputs). */
TEST(hash_of_the_samples_defaults)
{
	static const char *const inputs[] = {
		"1234567890abcdef",
		"11111111222222223333333344444444555555556666666677777777888888889999999900000000",
	};
	static const uint8_t want[2][32] = {
		{0x8e, 0x99, 0x16, 0xc5, 0x34, 0x0c, 0x43, 0xfa, 0x00, 0x3f, 0xe2, 0xdd, 0x54, 0xcd, 0x4e, 0x30,
		 0x27, 0xaf, 0xfb, 0xfc, 0x0d, 0x63, 0x1e, 0x4c, 0xd8, 0x58, 0xf6, 0x4e, 0xc0, 0x9f, 0xa9, 0xed},
		{0x38, 0x7e, 0x4a, 0xf9, 0xba, 0xd5, 0xa5, 0x0c, 0x09, 0x28, 0xaa, 0x68, 0xf5, 0x14, 0xaa, 0xd8,
		 0x75, 0x60, 0x6f, 0xa0, 0x0f, 0x92, 0x43, 0xcd, 0x42, 0xcd, 0xf8, 0x1c, 0x25, 0x28, 0xc0, 0x49},
	};
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (unsigned i = 0; i < 2; i++) {
		size_t len = strlen(inputs[i]);
		struct doca_buf *dst = dst_buf(&e, DST_OFF, 32);
		struct doca_sha_task_hash *t;
		void *got;

		memcpy(e.mem, inputs[i], len);
		t = hash_task(&e, DOCA_SHA_ALGORITHM_SHA256, src_buf(&e, 0, len), dst, i);
		ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t)));
		progress_until(&e, i + 1);
		ASSERT_OK(doca_buf_get_data(dst, &got));
		ASSERT_MEM_EQ(got, want[i], 32);
		doca_task_free(doca_sha_task_hash_as_task(t));
	}
	env_close(&e);
}

/* Only the data windows of a source list are hashed, in order (an empty one included). */
TEST(hash_of_a_source_list)
{
	static const size_t lens[] = {1000, 0, 64, 7, 9000, 129};
	struct doca_buf *head = NULL;
	uint8_t *msg = malloc(20000);
	size_t total = 0;
	struct env e;

	env_open(&e);
	fill(&e, 0, 1 << 20, 7);
	for (size_t i = 0, off = 100; i < sizeof(lens) / sizeof(lens[0]); i++, off += lens[i - 1] + 333) {
		struct doca_buf *seg;

		/* Each segment's region is larger than its data window, and the gaps hold other bytes. */
		ASSERT_OK(doca_buf_inventory_buf_get_by_args(e.inv, e.mmap, e.mem + off - 50, lens[i] + 100,
							     e.mem + off, lens[i], &seg));
		memcpy(msg + total, e.mem + off, lens[i]);
		total += lens[i];
		if (head == NULL)
			head = seg;
		else
			ASSERT_OK(doca_buf_chain_list(head, seg));
	}
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t a = 0; a < 3; a++) {
		struct doca_buf *dst = dst_buf(&e, DST_OFF + a * DST_STRIDE, 64);
		struct doca_sha_task_hash *t = hash_task(&e, all_algs[a], head, dst, a);

		ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t)));
		progress_until(&e, a + 1);
		ASSERT_EQ(seen.err, 0);
		assert_digest(all_algs[a], dst, msg, total);
		doca_task_free(doca_sha_task_hash_as_task(t));
	}
	free(msg);
	env_close(&e);
}

/* A destination list receives the digest across its segments' tail rooms, in order. */
TEST(digest_into_a_destination_list)
{
	static const size_t rooms[] = {10, 10, 44};
	struct doca_buf *head = NULL;
	uint8_t want[64];
	struct env e;

	env_open(&e);
	fill(&e, 0, 5000, 8);
	for (size_t i = 0; i < 3; i++) {
		struct doca_buf *seg = dst_buf(&e, DST_OFF + i * DST_STRIDE, rooms[i]);

		if (head == NULL)
			head = seg;
		else
			ASSERT_OK(doca_buf_chain_list(head, seg));
	}
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_task_submit(
		doca_sha_task_hash_as_task(hash_task(&e, DOCA_SHA_ALGORITHM_SHA512, src_buf(&e, 0, 5000), head, 0))));
	progress_until(&e, 1);
	ASSERT_EQ(seen.ok, 1);
	oracle(DOCA_SHA_ALGORITHM_SHA512, e.mem, 5000, want);
	for (size_t i = 0, done = 0; i < 3; done += rooms[i], i++) {
		ASSERT_MEM_EQ(e.mem + DST_OFF + i * DST_STRIDE, want + done, rooms[i]);
		assert_guard(&e, DST_OFF + i * DST_STRIDE, rooms[i]);
	}
	env_close(&e);
}

/* Large tasks first, small ones after: whichever finishes first, callbacks come in submission order. */
TEST(several_in_flight_complete_in_order)
{
	struct doca_sha_task_hash *t[16];
	size_t len[16];
	struct env e;

	env_open(&e);
	fill(&e, 0, 4 << 20, 9);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (unsigned i = 0; i < 16; i++) {
		len[i] = ((size_t)(4 << 20) >> i) + i;
		t[i] = hash_task(&e, DOCA_SHA_ALGORITHM_SHA256, src_buf(&e, i * 1000, len[i]),
				 dst_buf(&e, DST_OFF + i * DST_STRIDE, 32), 100 + i);
		ASSERT_OK(doca_task_submit(doca_sha_task_hash_as_task(t[i])));
	}
	progress_until(&e, 16);
	ASSERT_EQ(seen.ok, 16);
	for (unsigned i = 0; i < 16; i++) {
		ASSERT_EQ(seen.order[i], 100 + i);
		assert_digest(DOCA_SHA_ALGORITHM_SHA256, (struct doca_buf *)(uintptr_t)doca_sha_task_hash_get_dst(t[i]),
			      e.mem + i * 1000, len[i]);
		doca_task_free(doca_sha_task_hash_as_task(t[i]));
	}
	env_close(&e);
}

/* ---- partial sessions ------------------------------------------------------------------------------ */

/*
 * A message of nsegs segments at mem + 0: every non-final one a random number of
 * blocks (0 to 8, so empty ones too), the final one final_len bytes.  Returns
 * the message length; lens[] gets the segments.
 */
static size_t
plan_segments(uint32_t *rng, enum doca_sha_algorithm alg, size_t nsegs, size_t final_len, size_t *lens)
{
	size_t total = 0;

	for (size_t i = 0; i + 1 < nsegs; i++) {
		lens[i] = (sd_test_rand(rng) % 9) * alg_block_len(alg);
		total += lens[i];
	}
	lens[nsegs - 1] = final_len;
	return total + final_len;
}

/* Drive one session from outside: each segment submitted after the previous one completed. */
static void
run_session(struct env *e, enum doca_sha_algorithm alg, const size_t *lens, size_t nsegs, struct doca_buf *dst)
{
	struct doca_buf *src = region_buf(e, 0, DST_OFF);
	struct doca_sha_task_partial_hash *t;
	union doca_data ud = {.u64 = 77};
	size_t off = 0, dlen = 9;

	ASSERT_OK(doca_sha_task_partial_hash_alloc_init(e->sha, alg, src, dst, ud, &t));
	for (size_t i = 0; i < nsegs; off += lens[i], i++) {
		unsigned before = seen.ok + seen.err;

		ASSERT_OK(doca_buf_set_data(src, e->mem + off, lens[i]));
		if (i + 1 == nsegs)
			ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t));
		ASSERT_OK(doca_task_submit(doca_sha_task_partial_hash_as_task(t)));
		progress_until(e, before + 1);
		ASSERT_ERR(seen.status[before], DOCA_SUCCESS);
		ASSERT_EQ(seen.order[before], 77); /* the user data on every completion */
		ASSERT_OK(doca_buf_get_data_len(dst, &dlen));
		ASSERT_EQ(dlen, i + 1 == nsegs ? alg_digest_len(alg) : 0);
	}
	ASSERT_EQ(doca_sha_task_partial_hash_get_has_result(t), 1);
	doca_task_free(doca_sha_task_partial_hash_as_task(t));
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
}

TEST(partial_sessions_of_many_segments)
{
	size_t lens[300];
	uint32_t rng = 0x5eed;
	struct env e;

	env_open(&e);
	fill(&e, 0, 4 << 20, 10);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t a = 0; a < 3; a++) {
		enum doca_sha_algorithm alg = all_algs[a];
		/* The final segment: empty, one full block, a random tail, and 2 segments in all. */
		const size_t finals[] = {0, alg_block_len(alg), sd_test_rand(&rng) % 1000, 1};
		const size_t counts[] = {300, 120, 250, 2};

		for (size_t k = 0; k < 4; k++) {
			size_t total = plan_segments(&rng, alg, counts[k], finals[k], lens);
			struct doca_buf *dst = dst_buf(&e, DST_OFF + k * DST_STRIDE, 64);

			ASSERT(total < DST_OFF);
			run_session(&e, alg, lens, counts[k], dst);
			assert_digest(alg, dst, e.mem, total);
			assert_guard(&e, DST_OFF + k * DST_STRIDE, 64);
			ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
		}
	}
	ASSERT_EQ(seen.err, 0);
	env_close(&e);
}

/* DOCA's sample: the completion callback moves the source's window and resubmits the same task. */
static struct {
	struct env *e;
	struct doca_buf *src;
	size_t off, len, block;
	doca_error_t result;
} drive;

static void
drive_next(struct doca_sha_task_partial_hash *task, union doca_data ud)
{
	size_t n = drive.len - drive.off > drive.block ? drive.block : drive.len - drive.off;

	(void)ud;
	if (drive.off == drive.len)
		return; /* the final segment completed */
	drive.result = doca_buf_set_data(drive.src, drive.e->mem + drive.off, n);
	if (drive.result == DOCA_SUCCESS && drive.off + n == drive.len)
		drive.result = doca_sha_task_partial_hash_set_is_final_buf(task);
	drive.off += n;
	if (drive.result == DOCA_SUCCESS)
		drive.result = doca_task_submit(doca_sha_task_partial_hash_as_task(task));
}

TEST(partial_session_driven_by_its_callback)
{
	struct doca_sha_task_partial_hash *t;
	struct doca_buf *dst;
	union doca_data ud = {.u64 = 5};
	struct env e;

	env_open(&e);
	fill(&e, 0, 1 << 20, 11);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t a = 0; a < 3; a++) {
		unsigned before = seen.ok + seen.err;

		memset(&drive, 0, sizeof(drive));
		drive.e = &e;
		drive.src = region_buf(&e, 0, DST_OFF);
		drive.len = 100000 + a;
		drive.block = 16 * alg_block_len(all_algs[a]);
		dst = dst_buf(&e, DST_OFF + a * DST_STRIDE, 64);
		seen.partial_next = drive_next;
		ASSERT_OK(doca_sha_task_partial_hash_alloc_init(e.sha, all_algs[a], drive.src, dst, ud, &t));
		drive.off = drive.block;
		ASSERT_OK(doca_buf_set_data(drive.src, e.mem, drive.block));
		ASSERT_OK(doca_task_submit(doca_sha_task_partial_hash_as_task(t)));
		progress_until(&e, before + (drive.len + drive.block - 1) / drive.block);
		ASSERT_OK(drive.result);
		ASSERT_EQ(seen.err, 0);
		assert_digest(all_algs[a], dst, e.mem, drive.len);
		doca_task_free(doca_sha_task_partial_hash_as_task(t));
	}
	env_close(&e);
}

/* Four sessions in flight at once, one segment of each per round. */
TEST(interleaved_partial_sessions)
{
	struct doca_sha_task_partial_hash *t[4];
	struct doca_buf *src[4], *dst[4];
	const size_t seg = 4096, nsegs = 40;
	struct env e;

	env_open(&e);
	fill(&e, 0, 4 << 20, 12);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (unsigned s = 0; s < 4; s++) {
		union doca_data ud = {.u64 = s};

		src[s] = region_buf(&e, s * (1u << 20), 1u << 20);
		dst[s] = dst_buf(&e, DST_OFF + s * DST_STRIDE, 64);
		ASSERT_OK(doca_sha_task_partial_hash_alloc_init(e.sha, all_algs[s % 3], src[s], dst[s], ud, &t[s]));
	}
	for (size_t i = 0; i < nsegs; i++) {
		for (unsigned s = 0; s < 4; s++) {
			ASSERT_OK(doca_buf_set_data(src[s], e.mem + s * (1u << 20) + i * seg,
						    i + 1 == nsegs ? 100 : seg));
			if (i + 1 == nsegs)
				ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t[s]));
			ASSERT_OK(doca_task_submit(doca_sha_task_partial_hash_as_task(t[s])));
		}
		progress_until(&e, (unsigned)(4 * (i + 1)));
		for (unsigned s = 0; s < 4; s++)
			ASSERT_EQ(seen.order[4 * i + s], s); /* in submission order */
	}
	ASSERT_EQ(seen.err, 0);
	for (unsigned s = 0; s < 4; s++) {
		assert_digest(all_algs[s % 3], dst[s], e.mem + s * (1u << 20), (nsegs - 1) * seg + 100);
		doca_task_free(doca_sha_task_partial_hash_as_task(t[s]));
	}
	env_close(&e);
}

/* A long message (96 MiB: one 4 MiB window hashed over and over, then a tail), as a big file would be. */
TEST(partial_session_of_a_long_message)
{
	const size_t window = 4u << 20, rounds = 24, tail = 333;
	struct doca_sha_task_partial_hash *t;
	struct doca_buf *src, *dst;
	union doca_data ud = {.u64 = 1};
	uint8_t want[64];
	unsigned int n = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	void *got;
	struct env e;

	env_open(&e);
	fill(&e, 0, window + tail, 13);
	src = src_buf(&e, 0, window);
	dst = dst_buf(&e, DST_OFF, 32);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_sha_task_partial_hash_alloc_init(e.sha, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &t));
	ASSERT_EQ(EVP_DigestInit_ex(md, EVP_sha256(), NULL), 1);
	for (size_t i = 0; i <= rounds; i++) {
		size_t len = i == rounds ? tail : window;

		ASSERT_OK(doca_buf_set_data(src, e.mem, len));
		if (i == rounds)
			ASSERT_OK(doca_sha_task_partial_hash_set_is_final_buf(t));
		ASSERT_OK(doca_task_submit(doca_sha_task_partial_hash_as_task(t)));
		progress_until(&e, (unsigned)(i + 1));
		ASSERT_EQ(EVP_DigestUpdate(md, e.mem, len), 1);
	}
	ASSERT_EQ(EVP_DigestFinal_ex(md, want, &n), 1);
	EVP_MD_CTX_free(md);
	ASSERT_EQ(seen.err, 0);
	ASSERT_OK(doca_buf_get_data(dst, &got));
	ASSERT_MEM_EQ(got, want, 32);
	doca_task_free(doca_sha_task_partial_hash_as_task(t));
	env_close(&e);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
