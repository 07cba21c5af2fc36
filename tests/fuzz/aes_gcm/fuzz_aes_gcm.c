/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of libdoca_aes_gcm's parameter parsing and decrypt path, through
 * the public API (the library's sources are compiled into the binary, so the
 * fuzzer instruments them).  An input is a header and data:
 *
 *   [0]     flags: 1 decrypt, 2 source as a 3-segment list, 4 destination as a
 *           2-segment list, 8 decrypt the library's own encryption of the data,
 *           16 (with 8) flip the byte at [7] % length of that encryption
 *   [1]     key type, as an enum value   [2] iv_length   [3] tag_size
 *   [4..5]  aad_size (LE)   [6] destination capacity / 16 (+ [7] % 16; at least 1)
 *   [8..]   the data (at most MAX_DATA bytes)
 *
 * Every outcome is predicted from the rules of doca_aes_gcm.h before the task
 * runs (alloc_init's refusal, the task's status, the bytes produced); a
 * difference, a write into the guard after the destination, or a task that
 * never completes aborts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_aes_gcm.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DATA 2048u
#define DST_MAX (MAX_DATA + 64u)
#define GUARD 64u
#define GUARD_BYTE 0xa5

#define REQUIRE(cond)                                                                                                  \
	do {                                                                                                           \
		if (!(cond))                                                                                           \
			abort();                                                                                       \
	} while (0)

static struct {
	bool ready;
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_aes_gcm *aes;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct doca_mmap *src_mmap, *dst_mmap;
	uint8_t src[MAX_DATA + 16];
	uint8_t dst[DST_MAX + GUARD];
	uint8_t tmp[MAX_DATA + 16];
	int done;
	doca_error_t status;
} fx;

static void
on_done(struct doca_task *task)
{
	fx.status = doca_task_get_status(task);
	fx.done++;
}

static void
enc_cb(struct doca_aes_gcm_task_encrypt *t, union doca_data ud, union doca_data cud)
{
	on_done(doca_aes_gcm_task_encrypt_as_task(t));
}

static void
dec_cb(struct doca_aes_gcm_task_decrypt *t, union doca_data ud, union doca_data cud)
{
	on_done(doca_aes_gcm_task_decrypt_as_task(t));
}

static struct doca_mmap *
mmap_over(void *p, size_t len)
{
	struct doca_mmap *m;

	REQUIRE(doca_mmap_create(&m) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_set_memrange(m, p, len) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_add_dev(m, fx.dev) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_start(m) == DOCA_SUCCESS);
	return m;
}

/* The first device with AES-GCM, a running context with both task types, the two mmaps. */
static void
setup(void)
{
	struct doca_devinfo **list;
	uint32_t n;

	setenv("SOFTDOCA_TOPOLOGY", "builtin", 0);
	REQUIRE(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS && n > 0);
	REQUIRE(doca_aes_gcm_cap_task_decrypt_is_supported(list[0]) == DOCA_SUCCESS);
	REQUIRE(doca_dev_open(list[0], &fx.dev) == DOCA_SUCCESS);
	REQUIRE(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);
	REQUIRE(doca_pe_create(&fx.pe) == DOCA_SUCCESS);
	REQUIRE(doca_aes_gcm_create(fx.dev, &fx.aes) == DOCA_SUCCESS);
	fx.ctx = doca_aes_gcm_as_ctx(fx.aes);
	REQUIRE(doca_pe_connect_ctx(fx.pe, fx.ctx) == DOCA_SUCCESS);
	REQUIRE(doca_aes_gcm_task_encrypt_set_conf(fx.aes, enc_cb, enc_cb, 4) == DOCA_SUCCESS);
	REQUIRE(doca_aes_gcm_task_decrypt_set_conf(fx.aes, dec_cb, dec_cb, 4) == DOCA_SUCCESS);
	REQUIRE(doca_ctx_start(fx.ctx) == DOCA_SUCCESS);
	REQUIRE(doca_buf_inventory_create(16, &fx.inv) == DOCA_SUCCESS);
	REQUIRE(doca_buf_inventory_start(fx.inv) == DOCA_SUCCESS);
	fx.src_mmap = mmap_over(fx.src, sizeof(fx.src));
	fx.dst_mmap = mmap_over(fx.dst, sizeof(fx.dst));
	fx.ready = true;
}

struct params {
	bool decrypt, src_list, dst_list;
	int key_type;
	uint32_t iv_len, tag, aad;
	size_t cap, len; /* destination capacity, source bytes */
};

/* bufs over [p, p + len) as data (src) or as empty room (dst), split in segs segments. */
static struct doca_buf *
bufs(struct doca_mmap *m, uint8_t *p, size_t len, unsigned segs, bool data)
{
	struct doca_buf *head = NULL;
	size_t off = 0;

	for (unsigned i = 0; i < segs; i++) {
		size_t n = i + 1 == segs ? len - off : len / segs;
		struct doca_buf *b;

		if (data)
			REQUIRE(doca_buf_inventory_buf_get_by_data(fx.inv, m, p + off, n, &b) == DOCA_SUCCESS);
		else
			REQUIRE(doca_buf_inventory_buf_get_by_addr(fx.inv, m, p + off, n, &b) == DOCA_SUCCESS);
		if (head == NULL)
			head = b;
		else
			REQUIRE(doca_buf_chain_list(head, b) == DOCA_SUCCESS);
		off += n;
	}
	return head;
}

static size_t
list_data_len(struct doca_buf *b)
{
	size_t total = 0, n;

	while (b != NULL) {
		REQUIRE(doca_buf_get_data_len(b, &n) == DOCA_SUCCESS);
		total += n;
		REQUIRE(doca_buf_get_next_in_list(b, &b) == DOCA_SUCCESS);
	}
	return total;
}

/* The status the rules predict for a task that alloc_init accepted. */
static doca_error_t
predict(const struct params *p)
{
	if (p->len == 0)
		return DOCA_ERROR_INVALID_VALUE;
	if (!p->decrypt)
		return p->aad > p->len		  ? DOCA_ERROR_INVALID_VALUE
		       : p->len + p->tag > p->cap ? DOCA_ERROR_TOO_BIG
						  : DOCA_SUCCESS;
	if ((size_t)p->aad + p->tag > p->len)
		return DOCA_ERROR_INVALID_VALUE;
	return p->len - p->tag > p->cap ? DOCA_ERROR_TOO_BIG : DOCA_SUCCESS;
}

/* Run one task of p over fx.src[0, p->len): its status, *out_len the destination's data_len. */
static doca_error_t
run(const struct params *p, struct doca_aes_gcm_key *key, const uint8_t *iv, size_t *out_len)
{
	bool split_src = p->src_list && p->len >= 3, split_dst = p->dst_list && p->cap >= 2;
	struct doca_buf *src, *dst;
	struct doca_task *task;
	union doca_data ud = {.u64 = 0};
	bool params_ok = p->iv_len <= 12 && (p->tag == 12 || p->tag == 16);
	doca_error_t err;

	src = p->len > 0 ? bufs(fx.src_mmap, fx.src, p->len, split_src ? 3 : 1, true)
			 : bufs(fx.src_mmap, fx.src, 1, 1, false);
	memset(fx.dst + p->cap, GUARD_BYTE, GUARD);
	dst = bufs(fx.dst_mmap, fx.dst, p->cap, split_dst ? 2 : 1, false);
	if (p->decrypt) {
		struct doca_aes_gcm_task_decrypt *t;

		err = doca_aes_gcm_task_decrypt_alloc_init(fx.aes, src, dst, key, iv, p->iv_len, p->tag, p->aad, ud,
							   &t);
		task = err == DOCA_SUCCESS ? doca_aes_gcm_task_decrypt_as_task(t) : NULL;
	} else {
		struct doca_aes_gcm_task_encrypt *t;

		err = doca_aes_gcm_task_encrypt_alloc_init(fx.aes, src, dst, key, iv, p->iv_len, p->tag, p->aad, ud,
							   &t);
		task = err == DOCA_SUCCESS ? doca_aes_gcm_task_encrypt_as_task(t) : NULL;
	}
	REQUIRE(err == (params_ok ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE));
	if (task != NULL) {
		int before = fx.done;

		REQUIRE(doca_task_submit(task) == DOCA_SUCCESS);
		for (long i = 0; fx.done == before; i++) {
			(void)doca_pe_progress(fx.pe);
			REQUIRE(i < 100000000L); /* a task that never completes */
		}
		err = fx.status;
		doca_task_free(task);
	}
	for (unsigned i = 0; i < GUARD; i++)
		REQUIRE(fx.dst[p->cap + i] == GUARD_BYTE);
	*out_len = list_data_len(dst);
	REQUIRE(doca_buf_dec_refcount(src, NULL) == DOCA_SUCCESS);
	REQUIRE(doca_buf_dec_refcount(dst, NULL) == DOCA_SUCCESS);
	/* A failed task stops the context, as on hardware: start it again. */
	for (enum doca_ctx_states st = DOCA_CTX_STATE_STOPPING; st != DOCA_CTX_STATE_RUNNING;) {
		REQUIRE(doca_ctx_get_state(fx.ctx, &st) == DOCA_SUCCESS);
		if (st == DOCA_CTX_STATE_IDLE)
			REQUIRE(doca_ctx_start(fx.ctx) == DOCA_SUCCESS);
		else if (st != DOCA_CTX_STATE_RUNNING)
			(void)doca_pe_progress(fx.pe);
	}
	return task != NULL ? err : DOCA_ERROR_INVALID_VALUE;
}

/* Replace the data with the library's own encryption of it (the decrypt then has a real tag). */
static bool
self_encrypt(struct params *p, struct doca_aes_gcm_key *key, const uint8_t *iv, bool flip, size_t at)
{
	struct params e = *p;
	size_t n;

	e.decrypt = false;
	e.cap = DST_MAX;
	if (predict(&e) != DOCA_SUCCESS || run(&e, key, iv, &n) != DOCA_SUCCESS)
		return false;
	REQUIRE(n == p->len + p->tag);
	memcpy(fx.tmp, fx.src, p->len);
	memcpy(fx.src, fx.dst, n);
	if (flip)
		fx.src[at % n] ^= 0x01;
	p->len = n;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t raw_key[32] = {0x42, 0x17, 0x99};
	static const uint8_t iv[12] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
	struct doca_aes_gcm_key *key = NULL;
	struct params p;
	bool self = false;
	doca_error_t want, got, kerr;
	size_t out;

	if (size < 8)
		return 0;
	if (!fx.ready)
		setup();
	p = (struct params){.decrypt = data[0] & 1,
			    .src_list = data[0] & 2,
			    .dst_list = data[0] & 4,
			    .key_type = data[1],
			    .iv_len = data[2],
			    .tag = data[3],
			    .aad = (uint32_t)data[4] | (uint32_t)data[5] << 8,
			    .cap = (size_t)data[6] * 16 + data[7] % 16};
	p.cap = p.cap < 1 ? 1 : p.cap < DST_MAX ? p.cap : DST_MAX;
	p.len = size - 8 < MAX_DATA ? size - 8 : MAX_DATA;
	memcpy(fx.src, data + 8, p.len);
	kerr = doca_aes_gcm_key_create(fx.aes, raw_key, (enum doca_aes_gcm_key_type)p.key_type, &key);
	REQUIRE(kerr == (p.key_type == 1 || p.key_type == 2 ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED));
	if (kerr != DOCA_SUCCESS)
		return 0;
	if (p.decrypt && (data[0] & 8))
		self = self_encrypt(&p, key, iv, data[0] & 16, data[7]);
	want = p.iv_len <= 12 && (p.tag == 12 || p.tag == 16) ? predict(&p) : DOCA_ERROR_INVALID_VALUE;
	got = run(&p, key, iv, &out);
	/* A decrypt that may run fails authentication unless the data is our own, unaltered, encryption. */
	if (want == DOCA_SUCCESS && p.decrypt && !(self && !(data[0] & 16)))
		want = DOCA_ERROR_AUTHENTICATION;
	REQUIRE(got == want);
	if (got == DOCA_SUCCESS)
		REQUIRE(out == (p.decrypt ? p.len - p.tag : p.len + p.tag));
	else
		REQUIRE(out == 0);
	if (got == DOCA_SUCCESS && self)
		REQUIRE(memcmp(fx.dst, fx.tmp, out) == 0);
	REQUIRE(doca_aes_gcm_key_destroy(key) == DOCA_SUCCESS);
	return 0;
}
