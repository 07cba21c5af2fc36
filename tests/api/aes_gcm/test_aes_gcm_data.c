/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AES-GCM correctness against independent implementations: the published GCM
 * test vectors (McGrew & Viega, "The Galois/Counter Mode of Operation", the
 * AES-128 and AES-256 Test Cases with 96-bit IVs, as used in NIST SP 800-38D
 * validation), and OpenSSL's EVP called directly (aes_gcm_test.h): softdoca's
 * output decrypts with it and its output decrypts with softdoca, for both key
 * sizes, both tag sizes, with and without AAD, over buffer lists.  A wrong tag,
 * key, IV or AAD fails the task with DOCA_ERROR_AUTHENTICATION and leaves no
 * plaintext behind; callbacks come in submission order.
 *
 * meson runs this file twice: SOFTDOCA_ENGINE_WORKERS=0 (every task inside
 * doca_pe_progress) and =2 with SOFTDOCA_ENGINE_INLINE_MAX=0 (every task on the
 * pool's workers); the expected bytes are the same in both runs.
 */
#include "aes_gcm_test.h"

/* --- the published vectors ------------------------------------------------------------------ */

struct vector {
	const char *name, *key, *iv, *pt, *aad, *ct, *tag;
};

#define K3 "feffe9928665731c6d6a8f9467308308"
#define P3                                                                                                             \
	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0d" \
	"e6"                                                                                                           \
	"57ba637b391aafd255"
#define P4                                                                                                             \
	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0d" \
	"e6"                                                                                                           \
	"57ba637b39"
#define A4 "feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define IV3 "cafebabefacedbaddecaf888"
#define C15                                                                                                            \
	"522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba" \
	"7a0a"                                                                                                         \
	"bcc9f662898015ad"

static const struct vector vectors[] = {
	{"Test Case 2", "00000000000000000000000000000000", "000000000000000000000000",
	 "00000000000000000000000000000000", "", "0388dace60b6a392f328c2b971b2fe78",
	 "ab6e47d42cec13bdf53a67b21257bddf"},
	{"Test Case 3", K3, IV3, P3, "",
	 "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aa"
	 "c9"
	 "73d58e091473f5985",
	 "4d5c2af327cd64a62cf35abd2ba6fab4"},
	{"Test Case 4", K3, IV3, P4, A4,
	 "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aa"
	 "c9"
	 "73d58e091",
	 "5bc94fbc3221a5db94fae95ae7121a47"},
	{"Test Case 14", "0000000000000000000000000000000000000000000000000000000000000000", "000000000000000000000000",
	 "00000000000000000000000000000000", "", "cea7403d4d606b6e074ec5d3baf39d18",
	 "d0d1c8a799996bf0265b98b5d48ab919"},
	{"Test Case 15", K3 K3, IV3, P3, "", C15, "b094dac5d93471bdec1a502270e3cc6c"},
	{"Test Case 16", K3 K3, IV3, P4, A4,
	 "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7"
	 "a0"
	 "abcc9f662",
	 "76fc6ece0f4e1768cddf8853bb2d551b"},
};

static size_t
unhex(const char *h, uint8_t *out)
{
	size_t n = strlen(h) / 2;

	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(sscanf(h + 2 * i, "%2hhx", &out[i]), 1);
	return n;
}

static enum doca_aes_gcm_key_type
key_type(size_t len)
{
	return len == 16 ? DOCA_AES_GCM_KEY_128 : DOCA_AES_GCM_KEY_256;
}

/* Each vector as DOCA lays it out, both tag sizes: encrypt gives AAD | C | T, decrypt gives back AAD | P. */
TEST(gcm_spec_test_vectors)
{
	uint8_t key[32], iv[12], pt[64], aad[32], ct[64], tag[16], src[128], want[128];
	struct env e;
	size_t out;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t v = 0; v < N_ELEMS(vectors); v++) {
		const struct vector *tv = &vectors[v];
		size_t kl = unhex(tv->key, key), pl = unhex(tv->pt, pt), al = unhex(tv->aad, aad);
		struct doca_aes_gcm_key *k;

		unhex(tv->iv, iv);
		unhex(tv->ct, ct);
		unhex(tv->tag, tag);
		ASSERT_OK(doca_aes_gcm_key_create(e.aes, key, key_type(kl), &k));
		for (uint32_t ts = 12; ts <= 16; ts += 4) {
			struct job j = {.key = k, .iv = iv, .iv_len = 12, .tag_size = ts, .aad_size = (uint32_t)al};

			memcpy(src, aad, al);
			memcpy(src + al, pt, pl);
			memcpy(want, aad, al);
			memcpy(want + al, ct, pl);
			memcpy(want + al + pl, tag, ts);
			ASSERT_OK(run_job(&e, &j, src, al + pl, 256, &out));
			ASSERT_EQ(out, al + pl + ts);
			if (memcmp(e.dst_mem, want, out) != 0)
				sd_test_fail(__FILE__, __LINE__, "%s, %u-byte tag: output differs", tv->name, ts);
			j.decrypt = true;
			ASSERT_OK(run_job(&e, &j, want, al + pl + ts, 256, &out));
			ASSERT_EQ(out, al + pl);
			ASSERT_MEM_EQ(e.dst_mem, src, out);
		}
		ASSERT_OK(doca_aes_gcm_key_destroy(k));
	}
	ASSERT_EQ(seen.err, 0);
}

/* --- OpenSSL both ways ---------------------------------------------------------------------- */

struct shape {
	size_t len, aad;
};

static const struct shape shapes[] = {
	{1, 0}, {1, 1}, {15, 0}, {16, 3}, {17, 16}, {64, 64}, {4095, 100}, {4096, 0}, {65537, 13}, {(1u << 20) + 3, 7},
};

/* One case: softdoca's encryption equals OpenSSL's, and each side's output decrypts on the other. */
static void
both_ways(struct env *e, const uint8_t *key, size_t kl, const struct shape *s, uint32_t ts, uint32_t seed)
{
	size_t n = s->len - s->aad, out;
	uint8_t *src = malloc(s->len), *want = malloc(s->len + 16), *back = malloc(s->len + 16), tag[16], iv[12];
	struct doca_aes_gcm_key *k;
	struct job j = {.iv = iv, .iv_len = 12, .tag_size = ts, .aad_size = (uint32_t)s->aad};

	ASSERT(src != NULL && want != NULL && back != NULL);
	fill_random(src, s->len, seed);
	fill_random(iv, sizeof(iv), seed * 7 + 1);
	ASSERT_OK(doca_aes_gcm_key_create(e->aes, key, key_type(kl), &k));
	j.key = k;
	ref_encrypt(key, kl, iv, src, s->len, s->aad, ts, want);
	ASSERT_OK(run_job(e, &j, src, s->len, s->len + 16, &out));
	ASSERT_EQ(out, s->len + ts);
	if (memcmp(e->dst_mem, want, out) != 0)
		sd_test_fail(__FILE__, __LINE__,
			     "encrypt of %zu bytes (aad %zu, tag %u, key %zu) differs from OpenSSL's", s->len, s->aad,
			     ts, kl * 8);
	/* softdoca's ciphertext through OpenSSL. */
	memcpy(tag, e->dst_mem + s->len, ts);
	ASSERT_EQ(ref_gcm(false, key, kl, iv, e->dst_mem, s->aad, e->dst_mem + s->aad, n, back, tag, ts), 1);
	ASSERT_MEM_EQ(back, src + s->aad, n);
	/* OpenSSL's ciphertext through softdoca. */
	j.decrypt = true;
	ASSERT_OK(run_job(e, &j, want, s->len + ts, s->len, &out));
	ASSERT_EQ(out, s->len);
	ASSERT_MEM_EQ(e->dst_mem, src, s->len);
	ASSERT_OK(doca_aes_gcm_key_destroy(k));
	free(src);
	free(want);
	free(back);
}

TEST(openssl_interop_both_keys_both_tags)
{
	uint8_t key[32];
	uint32_t seed = 1;
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	for (size_t kl = 16; kl <= 32; kl += 16)
		for (uint32_t ts = 12; ts <= 16; ts += 4)
			for (size_t i = 0; i < N_ELEMS(shapes); i++) {
				fill_random(key, sizeof(key), ++seed);
				both_ways(&e, key, kl, &shapes[i], ts, seed);
			}
	ASSERT_EQ(seen.err, 0);
}

/* GMAC: all of the source is AAD; the output is the AAD and the tag. */
TEST(aad_only_source_is_a_gmac)
{
	const struct shape s = {300, 300};
	uint8_t key[32];
	struct env e;

	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	fill_random(key, sizeof(key), 99);
	both_ways(&e, key, 32, &s, 16, 5);
	both_ways(&e, key, 16, &s, 12, 6);
}

/* doca-accel.md §9 item 7: an IV shorter than 12 bytes is zero-padded to 12. */
TEST(short_iv_is_zero_padded)
{
	uint8_t key[16], iv[12] = {0}, src[100], want[116];
	struct env e;
	size_t out;

	env_start(&e, DOCA_AES_GCM_KEY_128, (const uint8_t *)"0123456789abcdef");
	memcpy(key, "0123456789abcdef", 16);
	fill_random(src, sizeof(src), 3);
	for (uint32_t len = 0; len <= 12; len += 4) {
		struct job j = {.key = e.key,
				.iv = len ? (const uint8_t *)"\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc" : NULL,
				.iv_len = len,
				.tag_size = 16};

		memset(iv, 0, sizeof(iv));
		memcpy(iv, "\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc", len);
		ref_encrypt(key, 16, iv, src, sizeof(src), 0, 16, want);
		ASSERT_OK(run_job(&e, &j, src, sizeof(src), sizeof(want), &out));
		ASSERT_MEM_EQ(e.dst_mem, want, sizeof(want));
	}
}

/* --- failures ---------------------------------------------------------------------------------- */

/* Decrypt src (len bytes) expecting an authentication failure: no data_len, no plaintext left, log line. */
static void
expect_auth_failure(struct env *e, const struct job *j, const uint8_t *src, size_t len, int log)
{
	size_t aad = j->aad_size, n = len - aad - j->tag_size, out = 99;

	seen.ok = seen.err = 0;
	memset(e->dst_mem, 0x5a, len);
	ASSERT_ERR(run_job(e, j, src, len, len, &out), DOCA_ERROR_AUTHENTICATION);
	ASSERT_EQ(seen.err, 1);
	ASSERT_EQ(out, 0);
	for (size_t i = 0; i < aad; i++)
		ASSERT_EQ(e->dst_mem[i], 0x5a); /* nothing written there */
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ(e->dst_mem[aad + i], 0); /* what was decrypted is wiped */
	ASSERT_LOG_HAS(log, "AES-GCM decrypt task's tag does not match");
	/* The failure stops the context, as on hardware. */
	progress_until_idle(e);
	ASSERT_OK(doca_ctx_start(e->ctx));
}

TEST(wrong_tag_key_iv_or_aad_fails_authentication)
{
	uint8_t key[32], iv[12], src[1000], ct[1016], bad[1016];
	struct doca_aes_gcm_key *other;
	struct job j;
	struct env e;
	size_t out;
	int log;

	fill_random(key, sizeof(key), 11);
	fill_random(iv, sizeof(iv), 12);
	fill_random(src, sizeof(src), 13);
	env_start(&e, DOCA_AES_GCM_KEY_256, key);
	log = capture_sdk_log();
	j = (struct job){.key = e.key, .iv = iv, .iv_len = 12, .tag_size = 16, .aad_size = 24};
	ASSERT_OK(run_job(&e, &j, src, sizeof(src), sizeof(ct), &out));
	memcpy(ct, e.dst_mem, sizeof(ct));
	j.decrypt = true;
	/* A flipped bit in the tag, the ciphertext or the AAD. */
	for (size_t at = 0; at < sizeof(ct); at += sizeof(ct) / 5 - 1) {
		memcpy(bad, ct, sizeof(ct));
		bad[at] ^= 0x10;
		expect_auth_failure(&e, &j, bad, sizeof(bad), log);
	}
	/* A 12-byte tag checks the first 12 bytes of the 16 (the truncated tag), not the last ones. */
	j.tag_size = 12;
	memcpy(bad, ct, sizeof(ct) - 4);
	ASSERT_OK(run_job(&e, &j, bad, sizeof(ct) - 4, sizeof(ct), &out));
	ASSERT_MEM_EQ(e.dst_mem, src, sizeof(src));
	memcpy(bad + sizeof(ct) - 16, ct + sizeof(ct) - 4, 4);
	expect_auth_failure(&e, &j, bad, sizeof(ct) - 4, log);
	j.tag_size = 16;
	/* Another key, another IV, another AAD size. */
	key[0] ^= 1;
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, key, DOCA_AES_GCM_KEY_256, &other));
	j.key = other;
	expect_auth_failure(&e, &j, ct, sizeof(ct), log);
	j.key = e.key;
	j.iv_len = 11;
	expect_auth_failure(&e, &j, ct, sizeof(ct), log);
	j.iv_len = 12;
	j.aad_size = 23;
	expect_auth_failure(&e, &j, ct, sizeof(ct), log);
	/* After all the failures, the same key still decrypts. */
	j.aad_size = 24;
	ASSERT_OK(run_job(&e, &j, ct, sizeof(ct), sizeof(ct), &out));
	ASSERT_MEM_EQ(e.dst_mem, src, sizeof(src));
	ASSERT_OK(doca_aes_gcm_key_destroy(other));
}

/* Random ciphertext and tags of every short length: always AUTHENTICATION, never a write past dst. */
TEST(random_ciphertext_never_authenticates)
{
	uint8_t src[256];
	uint8_t key[16] = {1};
	struct env e;
	int log;

	env_start(&e, DOCA_AES_GCM_KEY_128, key);
	log = capture_sdk_log();
	for (uint32_t len = 21; len < 200; len += 37) {
		struct job j = {.decrypt = true, .key = e.key, .iv_len = 0, .tag_size = 16, .aad_size = len % 5};

		fill_random(src, len, len);
		expect_auth_failure(&e, &j, src, len, log);
	}
}

/* --- lists, order, keys ------------------------------------------------------------------------ */

/* Chain bufs of these lengths over mem; dst: empty bufs of these capacities, guards after each. */
static struct doca_buf *
chain(struct env *e, bool dst, const size_t *lens, size_t n)
{
	struct doca_buf *head = NULL;
	size_t off = 0;

	for (size_t i = 0; i < n; i++) {
		struct doca_buf *b =
			dst ? dst_buf(e, off, lens[i]) : buf_data(e, e->src_mmap, e->src_mem + off, lens[i]);

		if (head == NULL)
			head = b;
		else
			ASSERT_OK(doca_buf_chain_list(head, b));
		off += lens[i] + GUARD;
	}
	return head;
}

/* Gather the data windows of a destination list. */
static size_t
gather(struct env *e, const size_t *caps, size_t n, uint8_t *out)
{
	size_t off = 0, total = 0;

	for (size_t i = 0; i < n; i++) {
		memcpy(out + total, e->dst_mem + off, caps[i]);
		assert_guard(e, off, caps[i]);
		total += caps[i];
		off += caps[i] + GUARD;
	}
	return total;
}

TEST(buffer_lists_both_ways)
{
	const size_t src_lens[] = {100, 7, 3000}, dst_caps[] = {50, 1, 2000, 1100}, len = 3107;
	uint8_t key[32], iv[12], plain[3107], want[3123], got[3151];
	size_t src_off = 0, data_len;
	struct doca_buf *src, *dst;
	struct doca_task *task;
	struct job j;
	struct env e;

	fill_random(key, sizeof(key), 21);
	fill_random(iv, sizeof(iv), 22);
	fill_random(plain, sizeof(plain), 23);
	env_start(&e, DOCA_AES_GCM_KEY_256, key);
	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *in = pass == 0 ? plain : want;
		size_t in_len = pass == 0 ? len : len + 16;
		size_t lens[3] = {100, 7, in_len - 107};

		src_off = 0;
		for (int i = 0; i < 3; i++) {
			memcpy(e.src_mem + src_off, in, lens[i]);
			in += lens[i];
			src_off += lens[i] + GUARD;
		}
		j = (struct job){.decrypt = pass == 1,
				 .key = e.key,
				 .iv = iv,
				 .iv_len = 12,
				 .tag_size = 16,
				 .aad_size = 120,
				 .ud = (uint64_t)pass};
		src = chain(&e, false, pass == 0 ? src_lens : lens, 3);
		dst = chain(&e, true, dst_caps, 4);
		task = job_task(&e, &j, src, dst);
		ASSERT_OK(doca_task_submit(task));
		progress_until(&e, (unsigned)pass + 1);
		ASSERT_OK(seen.status[pass]);
		ASSERT_OK(doca_buf_get_data_len(dst, &data_len)); /* the head's segment: full */
		ASSERT_EQ(data_len, 50);
		gather(&e, dst_caps, 4, got);
		if (pass == 0) {
			ref_encrypt(key, 32, iv, plain, len, 120, 16, want);
			ASSERT_MEM_EQ(got, want, len + 16);
		} else {
			ASSERT_MEM_EQ(got, plain, len);
		}
		doca_task_free(task);
		ASSERT_OK(doca_buf_dec_refcount(src, NULL));
		ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	}
}

/* Tasks of mixed sizes and directions complete in the order they were submitted. */
TEST(callbacks_in_submission_order)
{
	static const size_t sizes[] = {1u << 20, 10, 300000, 1, 70000, 4096, 2u << 20, 5, 100000, 33};
	uint8_t key[16], iv[12], *want;
	struct doca_task *tasks[N_ELEMS(sizes)];
	struct doca_buf *dsts[N_ELEMS(sizes)];
	size_t src_off = 0, dst_off = 0, data_len;
	struct env e;

	fill_random(key, sizeof(key), 31);
	fill_random(iv, sizeof(iv), 32);
	env_start(&e, DOCA_AES_GCM_KEY_128, key);
	fill_random(e.src_mem, 4u << 20, 33);
	for (size_t i = 0; i < N_ELEMS(sizes); i++) {
		const struct job j = {
			.key = e.key, .iv = iv, .iv_len = 12, .tag_size = 12, .aad_size = 1, .ud = 1000 + i};
		struct doca_buf *src = buf_data(&e, e.src_mmap, e.src_mem + src_off, sizes[i]);

		dsts[i] = dst_buf(&e, dst_off, sizes[i] + 12);
		tasks[i] = job_task(&e, &j, src, dsts[i]);
		ASSERT_OK(doca_task_submit(tasks[i]));
		src_off += sizes[i] / 2;
		dst_off += sizes[i] + 12 + GUARD;
	}
	progress_until(&e, N_ELEMS(sizes));
	want = malloc((2u << 20) + 12);
	ASSERT_NOT_NULL(want);
	src_off = dst_off = 0;
	for (size_t i = 0; i < N_ELEMS(sizes); i++) {
		ASSERT_EQ(seen.order[i], 1000 + i);
		ASSERT_OK(seen.status[i]);
		ASSERT_OK(doca_buf_get_data_len(dsts[i], &data_len));
		ASSERT_EQ(data_len, sizes[i] + 12);
		ref_encrypt(key, 16, iv, e.src_mem + src_off, sizes[i], 1, 12, want);
		ASSERT_MEM_EQ(e.dst_mem + dst_off, want, sizes[i] + 12);
		assert_guard(&e, dst_off, sizes[i] + 12);
		doca_task_free(tasks[i]);
		src_off += sizes[i] / 2;
		dst_off += sizes[i] + 12 + GUARD;
	}
	free(want);
}

/* Keys of both sizes in turn, a key destroyed and another made (the engine's cipher state follows). */
TEST(keys_in_turn_and_replaced)
{
	uint8_t k1[16], k2[32], k3[32], iv[12], src[777], want[793];
	struct doca_aes_gcm_key *a, *b, *c;
	struct env e;
	size_t out;

	fill_random(k1, sizeof(k1), 41);
	fill_random(k2, sizeof(k2), 42);
	fill_random(k3, sizeof(k3), 43);
	fill_random(iv, sizeof(iv), 44);
	fill_random(src, sizeof(src), 45);
	env_open(&e);
	ASSERT_OK(doca_ctx_start(e.ctx));
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, k1, DOCA_AES_GCM_KEY_128, &a));
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, k2, DOCA_AES_GCM_KEY_256, &b));
	for (int round = 0; round < 6; round++) {
		struct doca_aes_gcm_key *k = round % 3 == 1 ? b : a;
		const struct job j = {.key = k, .iv = iv, .iv_len = 12, .tag_size = 16, .aad_size = 5};

		ref_encrypt(k == a ? k1 : k2, k == a ? 16 : 32, iv, src, sizeof(src), 5, 16, want);
		ASSERT_OK(run_job(&e, &j, src, sizeof(src), sizeof(want), &out));
		ASSERT_MEM_EQ(e.dst_mem, want, sizeof(want));
	}
	ASSERT_OK(doca_aes_gcm_key_destroy(b));
	ASSERT_OK(doca_aes_gcm_key_create(e.aes, k3, DOCA_AES_GCM_KEY_256, &c)); /* may reuse b's memory */
	for (int round = 0; round < 3; round++) {
		const struct job j = {.key = c, .iv = iv, .iv_len = 12, .tag_size = 12};

		ref_encrypt(k3, 32, iv, src, sizeof(src), 0, 12, want);
		ASSERT_OK(run_job(&e, &j, src, sizeof(src), sizeof(want), &out));
		ASSERT_MEM_EQ(e.dst_mem, want, sizeof(src) + 12);
	}
	ASSERT_OK(doca_aes_gcm_key_destroy(a));
	ASSERT_OK(doca_aes_gcm_key_destroy(c));
}

/* A large task (one worker, not split): 16 MiB less a little, against OpenSSL. */
TEST(large_task)
{
	const size_t len = MEM_LEN - 64 - GUARD;
	uint8_t key[32], iv[12], *want;
	struct env e;
	size_t out;

	fill_random(key, sizeof(key), 51);
	fill_random(iv, sizeof(iv), 52);
	env_start(&e, DOCA_AES_GCM_KEY_256, key);
	want = malloc(len + 16);
	ASSERT_NOT_NULL(want);
	fill_random(want, len, 53);
	{
		const struct job j = {.key = e.key, .iv = iv, .iv_len = 12, .tag_size = 16, .aad_size = 4096};
		uint8_t *plain = malloc(len);

		ASSERT_NOT_NULL(plain);
		memcpy(plain, want, len);
		ref_encrypt(key, 32, iv, plain, len, 4096, 16, want);
		ASSERT_OK(run_job(&e, &j, plain, len, len + 16, &out));
		ASSERT_EQ(out, len + 16);
		ASSERT_MEM_EQ(e.dst_mem, want, len + 16);
		free(plain);
	}
	free(want);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
