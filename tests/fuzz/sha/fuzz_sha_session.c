/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target of DOCA SHA's partial hash session (and of its parameters):
 * the input is a program of operations on one partial hash task and a hash task
 * (segments of random lengths, final marks, resets, algorithm and destination
 * changes, frees, invalid algorithms) run through the public API against one
 * SHA context.  Whatever the program, nothing crashes or hangs, every accepted
 * submission completes exactly once, no byte lands past a destination's room,
 * refusals have the documented statuses, and a session's final digest equals
 * OpenSSL's over the segments that completed since its start.
 *
 * A broken invariant aborts (libFuzzer reports it; the replay's case fails).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sha.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEM_LEN (64u << 10)
#define SRC_LEN (32u << 10) /* sources in [0, SRC_LEN), destinations above */
#define DST_OFF SRC_LEN
#define DST_ROOM_MAX 160u
#define GUARD_END (DST_OFF + DST_ROOM_MAX + 256u) /* [DST_OFF + room, GUARD_END) stays GUARD */
#define GUARD 0x5c

#define REQUIRE(cond)                                                                                                  \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "fuzz_sha_session: %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
			abort();                                                                                       \
		}                                                                                                      \
	} while (0)

static struct {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_sha *sha;
	struct doca_ctx *ctx;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	unsigned done;	     /* callbacks seen */
	doca_error_t status; /* of the last one */
} g;

static void
hash_cb(struct doca_sha_task_hash *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	g.status = doca_task_get_status(doca_sha_task_hash_as_task(task));
	g.done++;
}

static void
partial_cb(struct doca_sha_task_partial_hash *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	g.status = doca_task_get_status(doca_sha_task_partial_hash_as_task(task));
	g.done++;
}

static void
setup(void)
{
	struct doca_devinfo **list;
	uint32_t n;

	setenv("SOFTDOCA_TOPOLOGY", "builtin", 0);
	REQUIRE(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS && n > 0);
	REQUIRE(doca_dev_open(list[0], &g.dev) == DOCA_SUCCESS);
	REQUIRE(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);
	REQUIRE(doca_pe_create(&g.pe) == DOCA_SUCCESS);
	REQUIRE(doca_sha_create(g.dev, &g.sha) == DOCA_SUCCESS);
	g.ctx = doca_sha_as_ctx(g.sha);
	REQUIRE(doca_pe_connect_ctx(g.pe, g.ctx) == DOCA_SUCCESS);
	REQUIRE(doca_sha_task_hash_set_conf(g.sha, hash_cb, hash_cb, 1) == DOCA_SUCCESS);
	REQUIRE(doca_sha_task_partial_hash_set_conf(g.sha, partial_cb, partial_cb, 1) == DOCA_SUCCESS);
	g.mem = malloc(MEM_LEN);
	REQUIRE(g.mem != NULL);
	for (size_t i = 0; i < SRC_LEN; i++)
		g.mem[i] = (uint8_t)(i * 131u + (i >> 7));
	REQUIRE(doca_mmap_create(&g.mmap) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_set_memrange(g.mmap, g.mem, MEM_LEN) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_set_permissions(g.mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_add_dev(g.mmap, g.dev) == DOCA_SUCCESS);
	REQUIRE(doca_mmap_start(g.mmap) == DOCA_SUCCESS);
	REQUIRE(doca_buf_inventory_create(16, &g.inv) == DOCA_SUCCESS);
	REQUIRE(doca_buf_inventory_start(g.inv) == DOCA_SUCCESS);
}

static enum doca_ctx_states
state(void)
{
	enum doca_ctx_states st;

	REQUIRE(doca_ctx_get_state(g.ctx, &st) == DOCA_SUCCESS);
	return st;
}

/* Progress until n callbacks ran, then (a failure stops the context) until it is IDLE or RUNNING. */
static void
wait_done(unsigned n)
{
	for (unsigned i = 0; g.done < n || state() == DOCA_CTX_STATE_STOPPING; i++) {
		(void)doca_pe_progress(g.pe);
		REQUIRE(i < 10000000u);
	}
	REQUIRE(g.done == n);
}

static uint32_t
digest_len(enum doca_sha_algorithm alg)
{
	return alg == DOCA_SHA_ALGORITHM_SHA1 ? 20 : alg == DOCA_SHA_ALGORITHM_SHA256 ? 32 : 64;
}

static const EVP_MD *
evp(enum doca_sha_algorithm alg)
{
	return alg == DOCA_SHA_ALGORITHM_SHA1	  ? EVP_sha1()
	       : alg == DOCA_SHA_ALGORITHM_SHA256 ? EVP_sha256()
						  : EVP_sha512();
}

/* The program's view of the partial task: what the library must do with each submission. */
struct model {
	struct doca_sha_task_partial_hash *t;
	struct doca_buf *src, *dst;
	enum doca_sha_algorithm alg;
	uint32_t room;	   /* the destination's */
	uint32_t used;	   /* its data_len: digests of the sessions that ended into it */
	bool started;	   /* a segment completed since the start of the session */
	bool final, ended; /* marked final; the final segment completed */
	EVP_MD_CTX *oracle;
};

/* An input's next byte, 0 past its end. */
struct reader {
	const uint8_t *p;
	size_t n;
};

static uint8_t
next(struct reader *r)
{
	uint8_t b = 0;

	if (r->n > 0) {
		b = *r->p++;
		r->n--;
	}
	return b;
}

static void
new_dst(struct model *m, uint32_t room)
{
	if (m->dst != NULL)
		REQUIRE(doca_buf_dec_refcount(m->dst, NULL) == DOCA_SUCCESS);
	memset(g.mem + DST_OFF, GUARD, GUARD_END - DST_OFF);
	m->room = room;
	m->used = 0;
	REQUIRE(doca_buf_inventory_buf_get_by_addr(g.inv, g.mmap, g.mem + DST_OFF, room, &m->dst) == DOCA_SUCCESS);
}

/* Nothing past the room, nothing past the digests; data_len counts the digests. */
static void
check_dst(const struct model *m)
{
	size_t len = 99;

	for (size_t i = DST_OFF + m->used; i < GUARD_END; i++)
		REQUIRE(g.mem[i] == GUARD);
	REQUIRE(doca_buf_get_data_len(m->dst, &len) == DOCA_SUCCESS);
	REQUIRE(len == m->used);
}

static void
session_start(struct model *m)
{
	m->started = m->final = m->ended = false;
	REQUIRE(EVP_DigestInit_ex(m->oracle, evp(m->alg), NULL) == 1);
}

/* Submit the partial task over [mem + off, + len) and judge the outcome against the model. */
static void
submit_segment(struct model *m, size_t off, size_t len, bool try_first)
{
	uint32_t block = m->alg == DOCA_SHA_ALGORITHM_SHA512 ? 128 : 64;
	struct doca_task *task = doca_sha_task_partial_hash_as_task(m->t);
	doca_error_t expect = DOCA_SUCCESS;
	unsigned before = g.done;

	REQUIRE(doca_buf_set_data(m->src, g.mem + off, len) == DOCA_SUCCESS);
	if (m->ended)
		expect = DOCA_ERROR_BAD_STATE; /* returned: nothing runs */
	else if (!m->final && len % block != 0)
		expect = DOCA_ERROR_INVALID_VALUE;
	else if (m->room - m->used < digest_len(m->alg))
		expect = DOCA_ERROR_TOO_BIG;
	if (try_first || expect == DOCA_ERROR_BAD_STATE) {
		REQUIRE(doca_task_try_submit(task) == expect);
		if (expect == DOCA_SUCCESS) {
			wait_done(before + 1);
			REQUIRE(g.status == DOCA_SUCCESS);
		}
	} else {
		REQUIRE(doca_task_submit(task) == DOCA_SUCCESS);
		wait_done(before + 1);
		REQUIRE(g.status == expect);
	}
	if (expect == DOCA_SUCCESS) {
		REQUIRE(EVP_DigestUpdate(m->oracle, g.mem + off, len) == 1);
		m->started = true;
		m->ended = m->final;
	}
	if (m->ended && expect == DOCA_SUCCESS) {
		uint8_t want[64];
		unsigned int n = 0;

		REQUIRE(EVP_DigestFinal_ex(m->oracle, want, &n) == 1);
		REQUIRE(memcmp(g.mem + DST_OFF + m->used, want, n) == 0);
		REQUIRE(doca_sha_task_partial_hash_get_has_result(m->t) == 1);
		m->used += n;
	}
	check_dst(m);
	if (state() == DOCA_CTX_STATE_IDLE)
		REQUIRE(doca_ctx_start(g.ctx) == DOCA_SUCCESS); /* a failed task stopped it */
}

/* A one-shot hash task with a random algorithm (invalid ones included) and length. */
static void
one_shot(struct reader *r)
{
	enum doca_sha_algorithm alg = (enum doca_sha_algorithm)(next(r) % 5);
	size_t len = ((size_t)next(r) << 7 | next(r)) % SRC_LEN;
	struct doca_sha_task_hash *t = NULL;
	struct doca_buf *src, *dst;
	union doca_data ud = {0};
	uint8_t want[64];
	unsigned int n = 0;
	void *got;
	unsigned before = g.done;

	REQUIRE(doca_buf_inventory_buf_get_by_data(g.inv, g.mmap, g.mem, len, &src) == DOCA_SUCCESS);
	REQUIRE(doca_buf_inventory_buf_get_by_addr(g.inv, g.mmap, g.mem + MEM_LEN - 64, 64, &dst) == DOCA_SUCCESS);
	if (alg > DOCA_SHA_ALGORITHM_SHA512) {
		REQUIRE(doca_sha_task_hash_alloc_init(g.sha, alg, src, dst, ud, &t) == DOCA_ERROR_INVALID_VALUE);
	} else {
		REQUIRE(doca_sha_task_hash_alloc_init(g.sha, alg, src, dst, ud, &t) == DOCA_SUCCESS);
		REQUIRE(doca_task_submit(doca_sha_task_hash_as_task(t)) == DOCA_SUCCESS);
		wait_done(before + 1);
		REQUIRE(g.status == DOCA_SUCCESS);
		REQUIRE(EVP_Digest(g.mem, len, want, &n, evp(alg), NULL) == 1);
		REQUIRE(doca_buf_get_data(dst, &got) == DOCA_SUCCESS);
		REQUIRE(memcmp(got, want, n) == 0);
		doca_task_free(doca_sha_task_hash_as_task(t));
	}
	REQUIRE(doca_buf_dec_refcount(src, NULL) == DOCA_SUCCESS);
	REQUIRE(doca_buf_dec_refcount(dst, NULL) == DOCA_SUCCESS);
}

static void
alloc_partial(struct model *m)
{
	union doca_data ud = {0};

	REQUIRE(doca_sha_task_partial_hash_alloc_init(g.sha, m->alg, m->src, m->dst, ud, &m->t) == DOCA_SUCCESS);
	session_start(m);
}

/* One operation of the program. */
static void
step(struct model *m, struct reader *r)
{
	uint8_t op = next(r) % 9;
	size_t len = ((size_t)next(r) << 5 | next(r) % 32) % (SRC_LEN / 2);
	size_t off = (size_t)next(r) * 64 % (SRC_LEN / 2);
	enum doca_sha_algorithm alg = (enum doca_sha_algorithm)(next(r) % 4);

	switch (op) {
	case 0: /* a block-sized segment (or a multiple) */
		len -= len % 128;
		/* fall through */
	case 1: /* a segment of any length */
		submit_segment(m, off, len, false);
		break;
	case 2: /* the final mark: refused on a first segment and after the end */
		REQUIRE(doca_sha_task_partial_hash_set_is_final_buf(m->t) ==
			(m->started && !m->ended ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE));
		m->final = m->final || (m->started && !m->ended);
		REQUIRE(doca_sha_task_partial_hash_get_is_final(m->t) == m->final);
		break;
	case 3:
		REQUIRE(doca_sha_task_partial_hash_reset(m->t) == DOCA_SUCCESS);
		session_start(m);
		break;
	case 4: /* another algorithm: only before the first segment; an invalid one never */
		REQUIRE(doca_sha_task_partial_hash_set_algorithm(m->t, alg) == (alg > DOCA_SHA_ALGORITHM_SHA512
											? DOCA_ERROR_INVALID_VALUE
										: m->started ? DOCA_ERROR_BAD_STATE
											     : DOCA_SUCCESS));
		if (alg <= DOCA_SHA_ALGORITHM_SHA512 && !m->started) {
			m->alg = alg;
			session_start(m);
		}
		break;
	case 5: /* another destination, of any room: only before the first segment */
		if (m->started) {
			REQUIRE(doca_sha_task_partial_hash_set_dst(m->t, m->dst) == DOCA_ERROR_BAD_STATE);
			break;
		}
		new_dst(m, (uint32_t)(len % DST_ROOM_MAX));
		REQUIRE(doca_sha_task_partial_hash_set_dst(m->t, m->dst) == DOCA_SUCCESS);
		break;
	case 6: /* free mid-session, take a new task */
		doca_task_free(doca_sha_task_partial_hash_as_task(m->t));
		alloc_partial(m);
		break;
	case 7:
		submit_segment(m, off, len - len % 64, true);
		break;
	default:
		one_shot(r);
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = {data, size};
	struct model m = {.alg = (enum doca_sha_algorithm)(next(&r) % 3)};
	unsigned steps = 0;

	if (g.sha == NULL)
		setup();
	if (state() == DOCA_CTX_STATE_IDLE)
		REQUIRE(doca_ctx_start(g.ctx) == DOCA_SUCCESS);
	m.oracle = EVP_MD_CTX_new();
	REQUIRE(m.oracle != NULL);
	REQUIRE(doca_buf_inventory_buf_get_by_addr(g.inv, g.mmap, g.mem, SRC_LEN, &m.src) == DOCA_SUCCESS);
	new_dst(&m, DST_ROOM_MAX);
	alloc_partial(&m);
	while (r.n > 0 && steps++ < 64)
		step(&m, &r);
	doca_task_free(doca_sha_task_partial_hash_as_task(m.t));
	REQUIRE(doca_buf_dec_refcount(m.src, NULL) == DOCA_SUCCESS);
	REQUIRE(doca_buf_dec_refcount(m.dst, NULL) == DOCA_SUCCESS);
	EVP_MD_CTX_free(m.oracle);
	return 0;
}
