/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixtures of the doca_sha.h tests (public API only): a SHA context on a
 * device of a chosen model, one big LOCAL_READ_WRITE mmap for sources and
 * destinations (a destination is followed by a guard region the tests check),
 * the callbacks' record (order, statuses, user data), and the independent
 * oracle, OpenSSL's one-shot EVP_Digest().
 */
#ifndef SHA_TEST_H_
#define SHA_TEST_H_

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sha.h>

#include "../mmap/mmap_test.h"

#define MEM_LEN (8u << 20) /* the fixture's mmap */
#define GUARD_LEN 64u	   /* bytes after a destination's room that must stay GUARD_BYTE */
#define GUARD_BYTE 0xa5
#define MAX_SEEN 8192u

static const enum doca_sha_algorithm all_algs[] = {DOCA_SHA_ALGORITHM_SHA1, DOCA_SHA_ALGORITHM_SHA256,
						   DOCA_SHA_ALGORITHM_SHA512};

static inline uint32_t
alg_digest_len(enum doca_sha_algorithm alg)
{
	return alg == DOCA_SHA_ALGORITHM_SHA1 ? 20 : alg == DOCA_SHA_ALGORITHM_SHA256 ? 32 : 64;
}

static inline uint32_t
alg_block_len(enum doca_sha_algorithm alg)
{
	return alg == DOCA_SHA_ALGORITHM_SHA512 ? 128 : 64;
}

/* The oracle: OpenSSL's one-shot digest of [data, data + len). */
static inline void
oracle(enum doca_sha_algorithm alg, const void *data, size_t len, uint8_t *out)
{
	const EVP_MD *md = alg == DOCA_SHA_ALGORITHM_SHA1     ? EVP_sha1()
			   : alg == DOCA_SHA_ALGORITHM_SHA256 ? EVP_sha256()
							      : EVP_sha512();
	unsigned int n = 0;

	ASSERT_EQ(EVP_Digest(data, len, out, &n, md, NULL), 1);
	ASSERT_EQ(n, alg_digest_len(alg));
}

/* What the callbacks saw, in delivery order. */
static struct {
	unsigned ok, err;
	uint64_t order[MAX_SEEN]; /* task user data */
	doca_error_t status[MAX_SEEN];
	union doca_data last_ctx_ud;
	enum doca_ctx_states states[16];
	unsigned num_states;
	/* A partial session a callback drives (see drive_cb in test_sha_digest.c); NULL: none. */
	void (*partial_next)(struct doca_sha_task_partial_hash *task, union doca_data ud);
} seen;

static inline void
record(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud, bool ok)
{
	unsigned n = seen.ok + seen.err;

	if (n < MAX_SEEN) {
		seen.order[n] = task_ud.u64;
		seen.status[n] = doca_task_get_status(task);
	}
	seen.last_ctx_ud = ctx_ud;
	if (ok)
		seen.ok++;
	else
		seen.err++;
}

static inline void
hash_ok(struct doca_sha_task_hash *task, union doca_data task_ud, union doca_data ctx_ud)
{
	record(doca_sha_task_hash_as_task(task), task_ud, ctx_ud, true);
}

static inline void
hash_err(struct doca_sha_task_hash *task, union doca_data task_ud, union doca_data ctx_ud)
{
	record(doca_sha_task_hash_as_task(task), task_ud, ctx_ud, false);
}

static inline void
partial_ok(struct doca_sha_task_partial_hash *task, union doca_data task_ud, union doca_data ctx_ud)
{
	record(doca_sha_task_partial_hash_as_task(task), task_ud, ctx_ud, true);
	if (seen.partial_next != NULL)
		seen.partial_next(task, task_ud);
}

static inline void
partial_err(struct doca_sha_task_partial_hash *task, union doca_data task_ud, union doca_data ctx_ud)
{
	record(doca_sha_task_partial_hash_as_task(task), task_ud, ctx_ud, false);
}

static inline void
state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
	      enum doca_ctx_states next)
{
	(void)user_data;
	(void)ctx;
	(void)prev;
	if (seen.num_states < 16)
		seen.states[seen.num_states++] = next;
}

struct env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_sha *sha;
	struct doca_ctx *ctx;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
};

/* A one-BlueField topology of this model; caps: "" or a JSON object's members for the device. */
static inline void
use_model(const char *model, const char *caps)
{
	static char json[2048];

	snprintf(
		json, sizeof(json),
		"{\"version\": 1, \"devices\": [{\"name\": \"bf0\", \"model\": \"%s\", \"netdev\": \"lo\",\n"
		" \"caps\": {%s}, \"functions\": [\n"
		"  {\"side\": \"host\", \"pci_addr\": \"0000:b1:00.0\", \"ibdev\": \"mlx5_0\", \"iface\": "
		"\"ens1f0np0\"},\n"
		"  {\"side\": \"dpu\", \"pci_addr\": \"0000:03:00.0\", \"ibdev\": \"mlx5_2\", \"iface\": \"p0\"}]}]}\n",
		model, caps);
	use_topology_text(json);
}

/*
 * A PE, a SHA context on mlx5_0 with 2^log_num tasks of each family configured
 * (not started), and a started LOCAL_READ_WRITE mmap of MEM_LEN bytes with the
 * device added.  Call use_model() or use_builtin_topology() first.
 */
/* The case's fixture, kept reachable: what env_close() leaves goes with the process, not as a leak. */
static struct env *open_env;

static inline void
env_open_log(struct env *e, uint8_t log_num)
{
	union doca_data ud = {.u64 = 0x5aa};

	memset(e, 0, sizeof(*e));
	open_env = malloc(sizeof(*open_env));
	ASSERT_NOT_NULL(open_env);
	memset(&seen, 0, sizeof(seen));
	e->dev = open_ibdev("mlx5_0");
	ASSERT_OK(doca_pe_create(&e->pe));
	ASSERT_OK(doca_sha_create(e->dev, &e->sha));
	e->ctx = doca_sha_as_ctx(e->sha);
	ASSERT_NOT_NULL(e->ctx);
	ASSERT_OK(doca_pe_connect_ctx(e->pe, e->ctx));
	ASSERT_OK(doca_ctx_set_user_data(e->ctx, ud));
	ASSERT_OK(doca_ctx_set_state_changed_cb(e->ctx, state_changed));
	ASSERT_OK(doca_sha_task_hash_set_conf(e->sha, hash_ok, hash_err, log_num));
	ASSERT_OK(doca_sha_task_partial_hash_set_conf(e->sha, partial_ok, partial_err, log_num));
	e->mem = malloc(MEM_LEN);
	ASSERT_NOT_NULL(e->mem);
	memset(e->mem, GUARD_BYTE, MEM_LEN);
	e->mmap = started_mmap(e->mem, MEM_LEN, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, e->dev);
	e->inv = started_inventory(256);
	*open_env = *e;
}

static inline void
env_open(struct env *e)
{
	use_builtin_topology();
	env_open_log(e, 4);
}

static inline enum doca_ctx_states
ctx_state(struct env *e)
{
	enum doca_ctx_states st;

	ASSERT_OK(doca_ctx_get_state(e->ctx, &st));
	return st;
}

/* Progress until n callbacks ran in total (20 s at most). */
static inline void
progress_until(struct env *e, unsigned n)
{
	for (int i = 0; seen.ok + seen.err < n; i++) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(100);
		ASSERT(i < 200000);
	}
}

/* Progress until the context is IDLE. */
static inline void
progress_until_idle(struct env *e)
{
	for (int i = 0; ctx_state(e) != DOCA_CTX_STATE_IDLE; i++) {
		if (doca_pe_progress(e->pe) == 0)
			usleep(100);
		ASSERT(i < 200000);
	}
}

/* A source holding [mem + off, mem + off + len). */
static inline struct doca_buf *
src_buf(struct env *e, size_t off, size_t len)
{
	struct doca_buf *b = NULL;

	ASSERT(off + len <= MEM_LEN);
	ASSERT_OK(doca_buf_inventory_buf_get_by_data(e->inv, e->mmap, e->mem + off, len, &b));
	return b;
}

/* A buffer over [mem + off, mem + off + len) with an empty data window (sources move it with doca_buf_set_data). */
static inline struct doca_buf *
region_buf(struct env *e, size_t off, size_t len)
{
	struct doca_buf *b = NULL;

	ASSERT(off + len <= MEM_LEN);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, e->mem + off, len, &b));
	return b;
}

/* An empty destination with room bytes at mem + off, then GUARD_LEN guard bytes. */
static inline struct doca_buf *
dst_buf(struct env *e, size_t off, size_t room)
{
	struct doca_buf *b = NULL;

	ASSERT(off + room + GUARD_LEN <= MEM_LEN);
	memset(e->mem + off, GUARD_BYTE, room + GUARD_LEN);
	ASSERT_OK(doca_buf_inventory_buf_get_by_addr(e->inv, e->mmap, e->mem + off, room, &b));
	return b;
}

/* Nothing was written after the room of the destination at mem + off. */
static inline void
assert_guard(struct env *e, size_t off, size_t room)
{
	for (size_t i = 0; i < GUARD_LEN; i++)
		ASSERT_EQ(e->mem[off + room + i], GUARD_BYTE);
}

/* Fill [mem + off, + len) with bytes of a seed. */
static inline void
fill(struct env *e, size_t off, size_t len, uint32_t seed)
{
	uint32_t s = seed | 1;

	for (size_t i = 0; i < len; i++)
		e->mem[off + i] = (uint8_t)sd_test_rand(&s);
}

/* The destination holds exactly the digest of [data, data + len). */
static inline void
assert_digest(enum doca_sha_algorithm alg, struct doca_buf *dst, const void *data, size_t len)
{
	uint8_t want[64];
	size_t n = 0;
	void *got = NULL;

	oracle(alg, data, len, want);
	ASSERT_OK(doca_buf_get_data_len(dst, &n));
	ASSERT_EQ(n, alg_digest_len(alg));
	ASSERT_OK(doca_buf_get_data(dst, &got));
	ASSERT_MEM_EQ(got, want, n);
}

static inline void
env_close(struct env *e)
{
	doca_error_t err = doca_ctx_stop(e->ctx);

	ASSERT(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	progress_until_idle(e);
	ASSERT_OK(doca_sha_destroy(e->sha));
	ASSERT_OK(doca_pe_destroy(e->pe));
	/* The buffers, mmap and device a case still holds go with its process (each case is one). */
	*open_env = *e;
}

#endif /* SHA_TEST_H_ */
