/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the AES-GCM tests (public API only): a topology with one device
 * of each model, a running context with both task types and a key, buffers
 * over one mmap with a guard region after every destination, a task run to its
 * callback, and an independent AES-GCM (OpenSSL EVP called directly, a
 * separate code path from the library's) as the oracle.
 */
#ifndef AES_GCM_TEST_H_
#define AES_GCM_TEST_H_

#include <stdint.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <doca_aes_gcm.h>
#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "../mmap/mmap_test.h"

/*
 * mlx5_0: the soft model; mlx5_1 a BlueField-2 (no AES-GCM), mlx5_2 a
 * BlueField-3, mlx5_3 a ConnectX-7; mlx5_4 soft with small limits; mlx5_5
 * another soft function (its mmaps are not the context's device's).
 */
static const char aes_topology[] =
	"{\"version\": 1, \"devices\": [\n"
	" {\"name\": \"soft\", \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": \"ens1f0np0\"}]},\n"
	" {\"name\": \"bf2\", \"model\": \"bluefield-2\", \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b2:00.0\", \"ibdev\": \"mlx5_1\", \"iface\": \"ens2f0np0\"}]},\n"
	" {\"name\": \"bf3\", \"model\": \"bluefield-3\", \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b3:00.0\", \"ibdev\": \"mlx5_2\", \"iface\": \"ens3f0np0\"}]},\n"
	" {\"name\": \"cx7\", \"model\": \"connectx-7\", \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b4:00.0\", \"ibdev\": \"mlx5_3\", \"iface\": \"ens4f0np0\"}]},\n"
	" {\"name\": \"small\", \"caps\": {\"aes_gcm_max_buf_size\": 4096, \"aes_gcm_max_list_num_elem\": 3,\n"
	"   \"aes_gcm_max_num_tasks\": 8}, \"functions\": [\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b5:00.0\", \"ibdev\": \"mlx5_4\", \"iface\": \"ens5f0np0\"},\n"
	"  {\"side\": \"host\", \"pci_addr\": \"0000:b5:00.1\", \"ibdev\": \"mlx5_5\", \"iface\": \"ens5f1np1\"}]}]}\n";

#define MEM_LEN (8u << 20) /* each of the source and destination regions */
#define GUARD 64u	   /* bytes after every destination that no task may touch */
#define GUARD_BYTE 0xa5
#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define NUM_TASKS 32u

/* Callbacks a case may see and look back at (the interop cases run hundreds of jobs). */
#define SEEN_MAX 4096u

/* What the callbacks saw, in order. */
static struct {
	unsigned ok, err;
	doca_error_t status[SEEN_MAX];
	uint64_t order[SEEN_MAX]; /* task user data of each callback */
	enum doca_ctx_states states[16];
	unsigned num_states;
} seen;

static inline void
note(struct doca_task *task, union doca_data ud, bool ok)
{
	unsigned i = seen.ok + seen.err;

	if (i < SEEN_MAX) {
		seen.status[i] = doca_task_get_status(task);
		seen.order[i] = ud.u64;
	}
	if (ok)
		seen.ok++;
	else
		seen.err++;
}

static inline void
enc_ok(struct doca_aes_gcm_task_encrypt *t, union doca_data ud, union doca_data ctx_ud)
{
	note(doca_aes_gcm_task_encrypt_as_task(t), ud, true);
}

static inline void
enc_err(struct doca_aes_gcm_task_encrypt *t, union doca_data ud, union doca_data ctx_ud)
{
	note(doca_aes_gcm_task_encrypt_as_task(t), ud, false);
}

static inline void
dec_ok(struct doca_aes_gcm_task_decrypt *t, union doca_data ud, union doca_data ctx_ud)
{
	note(doca_aes_gcm_task_decrypt_as_task(t), ud, true);
}

static inline void
dec_err(struct doca_aes_gcm_task_decrypt *t, union doca_data ud, union doca_data ctx_ud)
{
	note(doca_aes_gcm_task_decrypt_as_task(t), ud, false);
}

static inline void
state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev, enum doca_ctx_states next)
{
	if (seen.num_states < 16)
		seen.states[seen.num_states++] = next;
}

struct env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_aes_gcm *aes;
	struct doca_ctx *ctx;
	uint8_t *src_mem, *dst_mem;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_aes_gcm_key *key;
};

static inline struct doca_dev *
open_aes_dev(const char *ibdev)
{
	use_topology_text(aes_topology);
	return open_ibdev(ibdev);
}

/* A configured (not started) context on ibdev with both task types, and the two regions' mmaps. */
static inline void
env_open_on(struct env *e, const char *ibdev)
{
	uint32_t num = 0;

	memset(e, 0, sizeof(*e));
	memset(&seen, 0, sizeof(seen));
	e->dev = open_aes_dev(ibdev);
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_aes_gcm_create(e->dev, &e->aes));
	e->ctx = doca_aes_gcm_as_ctx(e->aes);
	ASSERT_NOT_NULL(e->ctx);
	ASSERT_OK(doca_pe_connect_ctx(e->pe, e->ctx));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_changed));
	ASSERT_OK(doca_aes_gcm_cap_get_max_num_tasks(e->aes, &num));
	num = num < NUM_TASKS ? num : NUM_TASKS;
	ASSERT_OK(doca_aes_gcm_task_encrypt_set_conf(e->aes, enc_ok, enc_err, num));
	ASSERT_OK(doca_aes_gcm_task_decrypt_set_conf(e->aes, dec_ok, dec_err, num));
	e->src_mem = calloc(1, MEM_LEN);
	e->dst_mem = calloc(1, MEM_LEN);
	ASSERT(e->src_mem != NULL && e->dst_mem != NULL);
	e->src_mmap = started_mmap(e->src_mem, MEM_LEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, e->dev);
	e->dst_mmap = started_mmap(e->dst_mem, MEM_LEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, e->dev);
	e->inv = started_inventory(256);
}

static inline void
env_open(struct env *e)
{
	env_open_on(e, "mlx5_0");
}

static inline enum doca_ctx_states
ctx_state(struct env *e)
{
	enum doca_ctx_states st;

	ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
	return st;
}

/* env_open, started, with a key of this type and bytes. */
static inline void
env_start(struct env *e, enum doca_aes_gcm_key_type type, const uint8_t *raw)
{
	env_open(e);
	ASSERT_OK(doca_ctx_start(e->ctx));
	ASSERT_EQ(ctx_state(e), DOCA_CTX_STATE_RUNNING);
	ASSERT_OK(doca_aes_gcm_key_create(e->aes, raw, type, &e->key));
}

/* Progress until n callbacks ran in total (20 s at most). */
static inline void
progress_until(struct env *e, unsigned n)
{
	for (int i = 0; seen.ok + seen.err < n; i++) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(50);
		ASSERT(i < 400000);
	}
}

/* Progress until the context is IDLE (after a failure stopped it). */
static inline void
progress_until_idle(struct env *e)
{
	for (int i = 0; ctx_state(e) != DOCA_CTX_STATE_IDLE; i++) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(50);
		ASSERT(i < 400000);
	}
}

static inline struct doca_buf *
buf_data(struct env *e, struct doca_mmap *m, void *data, size_t len)
{
	struct doca_buf *b = NULL;

	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, m, data, len, &b));
	return b;
}

/* An empty destination of cap bytes at off in the destination region, with a guard after it. */
static inline struct doca_buf *
dst_buf(struct env *e, size_t off, size_t cap)
{
	struct doca_buf *b = NULL;

	ASSERT(off + cap + GUARD <= MEM_LEN);
	memset(e->dst_mem + off + cap, GUARD_BYTE, GUARD);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->dst_mmap, e->dst_mem + off, cap, &b));
	return b;
}

static inline void
assert_guard(struct env *e, size_t off, size_t cap)
{
	for (size_t i = 0; i < GUARD; i++)
		ASSERT_EQ(e->dst_mem[off + cap + i], GUARD_BYTE);
}

/* One task's parameters. */
struct job {
	bool decrypt;
	struct doca_aes_gcm_key *key;
	const uint8_t *iv;
	uint32_t iv_len, tag_size, aad_size;
	uint64_t ud;
};

/* Allocate (alloc_init must succeed) the task of j over src and dst. */
static inline struct doca_task *
job_task(struct env *e, const struct job *j, struct doca_buf *src, struct doca_buf *dst)
{
	union doca_data ud = {.u64 = j->ud};

	if (j->decrypt) {
		struct doca_aes_gcm_task_decrypt *t = NULL;

		ASSERT_OK(doca_aes_gcm_task_decrypt_alloc_init(e->aes, src, dst, j->key, j->iv, j->iv_len, j->tag_size,
							       j->aad_size, ud, &t));
		return doca_aes_gcm_task_decrypt_as_task(t);
	}
	struct doca_aes_gcm_task_encrypt *t = NULL;

	ASSERT_OK(doca_aes_gcm_task_encrypt_alloc_init(e->aes, src, dst, j->key, j->iv, j->iv_len, j->tag_size,
						       j->aad_size, ud, &t));
	return doca_aes_gcm_task_encrypt_as_task(t);
}

/*
 * Run j on in[0, len) (copied into the source region) into a destination of cap
 * bytes; the result is at e->dst_mem, *out_len its data_len.  Returns the status.
 */
static inline doca_error_t
run_job(struct env *e, const struct job *j, const uint8_t *in, size_t len, size_t cap, size_t *out_len)
{
	struct doca_buf *src, *dst;
	struct doca_task *task;
	unsigned before = seen.ok + seen.err;
	doca_error_t st;

	memcpy(e->src_mem, in, len);
	src = buf_data(e, e->src_mmap, e->src_mem, len);
	dst = dst_buf(e, 0, cap);
	task = job_task(e, j, src, dst);
	ASSERT_OK(doca_task_submit(task));
	progress_until(e, before + 1);
	ASSERT(before < SEEN_MAX);
	st = seen.status[before];
	ASSERT_OK(doca_buf_get_data_len(dst, out_len));
	assert_guard(e, 0, cap);
	doca_task_free(task);
	ASSERT_OK(doca_buf_dec_refcount(src, NULL));
	ASSERT_OK(doca_buf_dec_refcount(dst, NULL));
	return st;
}

/* --- the oracle: OpenSSL EVP directly, legacy cipher objects, a new context per call ------ */

/*
 * AES-GCM of in[0, n) with aad[0, aad_len), key of key_len bytes, a 12-byte IV:
 * encrypt writes the ciphertext to out and the 16-byte tag to tag; decrypt checks
 * the first tag_len bytes of tag.  Returns 1 on success (tag verified).
 */
static inline int
ref_gcm(bool encrypt, const uint8_t *key, size_t key_len, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
	const uint8_t *in, size_t n, uint8_t *out, uint8_t *tag, size_t tag_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	const EVP_CIPHER *cipher = key_len == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
	int l = 0, ok;

	ASSERT_NOT_NULL(c);
	ok = EVP_CipherInit_ex(c, cipher, NULL, NULL, NULL, encrypt) == 1 &&
	     EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
	     EVP_CipherInit_ex(c, NULL, NULL, key, iv, encrypt) == 1;
	if (ok && aad_len > 0)
		ok = EVP_CipherUpdate(c, NULL, &l, aad, (int)aad_len) == 1;
	if (ok && n > 0)
		ok = EVP_CipherUpdate(c, out, &l, in, (int)n) == 1;
	if (ok && !encrypt)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, (int)tag_len, tag) == 1;
	if (ok)
		ok = EVP_CipherFinal_ex(c, out + n, &l) == 1;
	if (ok && encrypt)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
	EVP_CIPHER_CTX_free(c);
	return ok;
}

/* DOCA's encrypt layout from the oracle: AAD | ciphertext | tag[0, tag_size). */
static inline void
ref_encrypt(const uint8_t *key, size_t key_len, const uint8_t iv[12], const uint8_t *src, size_t len, size_t aad,
	    size_t tag_size, uint8_t *out)
{
	uint8_t tag[16];

	memcpy(out, src, aad);
	ASSERT_EQ(ref_gcm(true, key, key_len, iv, src, aad, src + aad, len - aad, out + aad, tag, tag_size), 1);
	memcpy(out + len, tag, tag_size);
}

/* Deterministic bytes. */
static inline void
fill_random(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t s = seed ? seed : 1;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)sd_test_rand(&s);
}

#endif /* AES_GCM_TEST_H_ */
