/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The acceleration engines against their libraries called directly, in one
 * process on the same buffers (P28-P35, docs/benchmarks.md).  Prints one JSON
 * object: bytes of payload per second and per CPU-second, for ours and the peer.
 *
 *   engine_bench ROW SIZE SECONDS WORKERS INFLIGHT
 *
 * ROW: deflate, inflate, lz4, sha256, aesgcm, ec (k=4, m=2, SIZE per block).
 * Ours: the DOCA context with SOFTDOCA_ENGINE_WORKERS=WORKERS and INFLIGHT
 * tasks kept in flight (each completion resubmits its task); the thread sleeps
 * on the PE's notification handle when nothing completed, as a program that
 * leaves the CPUs to the engine does.  Peer: the library on this thread, one
 * call per task's worth of work.  Payload: the uncompressed bytes (deflate,
 * inflate, lz4), the bytes hashed or encrypted, the k data blocks (ec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <doca_aes_gcm.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_erasure_coding.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sha.h>

#include "engine_bench.h"

#define EC_K 4
#define EC_M 2
#define DEFLATE_LEVEL 6
#define MAX_INFLIGHT 64

volatile uint32_t eb_sink;

static void
die(const char *what, doca_error_t r)
{
	fprintf(stderr, "engine_bench: %s: %s\n", what, doca_error_get_descr(r));
	exit(1);
}

#define CHECK(x)                                                                                                       \
	do {                                                                                                           \
		doca_error_t r_ = (x);                                                                                 \
		if (r_ != DOCA_SUCCESS)                                                                                \
			die(#x, r_);                                                                                   \
	} while (0)

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* One row's buffers: the source all tasks read, and one destination per task. */
struct run {
	const char *row;
	size_t size;	/* task size (ec: per block) */
	uint8_t *src;	/* what a task reads */
	size_t src_len; /* its bytes */
	size_t dst_cap; /* room per task's destination */
	size_t payload; /* bytes a task counts for */
	uint8_t *dst;	/* inflight destinations */
	uint8_t *plain; /* the corpus */
	uint64_t done;	/* completions */
	unsigned outstanding;
	bool stopping;
	/* the DOCA side */
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_ctx *ctx;
	void *engine; /* doca_compress / doca_sha / doca_aes_gcm / doca_ec */
	struct doca_aes_gcm_key *key;
	struct doca_ec_matrix *matrix;
};

static const uint8_t key[32], iv[12];

static void
on_done(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct run *r = ctx_ud.ptr;

	if (doca_task_get_status(task) != DOCA_SUCCESS)
		die("task", doca_task_get_status(task));
	r->done++;
	if (r->stopping) {
		r->outstanding--;
		return;
	}
	doca_buf_reset_data_len(task_ud.ptr);
	CHECK(doca_task_submit(task));
}

#define CB(type) ((type)(void (*)(void))on_done)

/* Create the row's context on r->dev and configure its task family for n tasks. */
static void
create_ctx(struct run *r, unsigned n)
{
	if (strcmp(r->row, "sha256") == 0) {
		uint8_t log = 0;

		while ((1u << log) < n)
			log++;
		CHECK(doca_sha_create(r->dev, (struct doca_sha **)&r->engine));
		CHECK(doca_sha_task_hash_set_conf(r->engine, CB(doca_sha_task_hash_completion_cb_t),
						  CB(doca_sha_task_hash_completion_cb_t), log));
		r->ctx = doca_sha_as_ctx(r->engine);
	} else if (strcmp(r->row, "aesgcm") == 0) {
		CHECK(doca_aes_gcm_create(r->dev, (struct doca_aes_gcm **)&r->engine));
		CHECK(doca_aes_gcm_task_encrypt_set_conf(r->engine, CB(doca_aes_gcm_task_encrypt_completion_cb_t),
							 CB(doca_aes_gcm_task_encrypt_completion_cb_t), n));
		r->ctx = doca_aes_gcm_as_ctx(r->engine);
	} else if (strcmp(r->row, "ec") == 0) {
		CHECK(doca_ec_create(r->dev, (struct doca_ec **)&r->engine));
		CHECK(doca_ec_task_create_set_conf(r->engine, CB(doca_ec_task_create_completion_cb_t),
						   CB(doca_ec_task_create_completion_cb_t), n));
		r->ctx = doca_ec_as_ctx(r->engine);
	} else {
		CHECK(doca_compress_create(r->dev, (struct doca_compress **)&r->engine));
		if (strcmp(r->row, "deflate") == 0)
			CHECK(doca_compress_task_compress_deflate_set_conf(
				r->engine, CB(doca_compress_task_compress_deflate_completion_cb_t),
				CB(doca_compress_task_compress_deflate_completion_cb_t), n));
		else if (strcmp(r->row, "inflate") == 0)
			CHECK(doca_compress_task_decompress_deflate_set_conf(
				r->engine, CB(doca_compress_task_decompress_deflate_completion_cb_t),
				CB(doca_compress_task_decompress_deflate_completion_cb_t), n));
		else
			CHECK(doca_compress_task_decompress_lz4_stream_set_conf(
				r->engine, CB(doca_compress_task_decompress_lz4_stream_completion_cb_t),
				CB(doca_compress_task_decompress_lz4_stream_completion_cb_t), n));
		r->ctx = doca_compress_as_ctx(r->engine);
	}
}

/* One task of the row over src and dst (the context is running). */
static struct doca_task *
alloc_task(struct run *r, struct doca_buf *src, struct doca_buf *dst)
{
	union doca_data ud = {.ptr = dst};

	if (strcmp(r->row, "deflate") == 0) {
		struct doca_compress_task_compress_deflate *t;

		CHECK(doca_compress_task_compress_deflate_alloc_init(r->engine, src, dst, ud, &t));
		return doca_compress_task_compress_deflate_as_task(t);
	}
	if (strcmp(r->row, "inflate") == 0) {
		struct doca_compress_task_decompress_deflate *t;

		CHECK(doca_compress_task_decompress_deflate_alloc_init(r->engine, src, dst, ud, &t));
		return doca_compress_task_decompress_deflate_as_task(t);
	}
	if (strcmp(r->row, "lz4") == 0) {
		struct doca_compress_task_decompress_lz4_stream *t;

		CHECK(doca_compress_task_decompress_lz4_stream_alloc_init(r->engine, 0, 1, src, dst, ud, &t));
		return doca_compress_task_decompress_lz4_stream_as_task(t);
	}
	if (strcmp(r->row, "sha256") == 0) {
		struct doca_sha_task_hash *t;

		CHECK(doca_sha_task_hash_alloc_init(r->engine, DOCA_SHA_ALGORITHM_SHA256, src, dst, ud, &t));
		return doca_sha_task_hash_as_task(t);
	}
	if (strcmp(r->row, "aesgcm") == 0) {
		struct doca_aes_gcm_task_encrypt *t;

		CHECK(doca_aes_gcm_task_encrypt_alloc_init(r->engine, src, dst, r->key, iv, sizeof(iv), 16, 0, ud, &t));
		return doca_aes_gcm_task_encrypt_as_task(t);
	}
	struct doca_ec_task_create *t;

	CHECK(doca_ec_task_create_allocate_init(r->engine, r->matrix, src, dst, ud, &t));
	return doca_ec_task_create_as_task(t);
}

/* Sleep on the PE's notification handle until something completes (or 1 ms). */
static void
wait_event(struct run *r, int ep)
{
	struct epoll_event ev;

	if (doca_pe_request_notification(r->pe) != DOCA_SUCCESS)
		return;
	epoll_wait(ep, &ev, 1, 1);
	doca_pe_clear_notification(r->pe, 0);
}

static void
ours(struct run *r, double secs, unsigned inflight, double *bps, double *cpu)
{
	struct doca_buf_inventory *inv;
	struct doca_buf *src[MAX_INFLIGHT], *dst[MAX_INFLIGHT];
	struct doca_task *tasks[MAX_INFLIGHT];
	struct doca_mmap *mm_src, *mm_dst;
	doca_notification_handle_t fd;
	struct epoll_event ev = {.events = EPOLLIN};
	double t0, c0, t1;
	int ep;

	CHECK(doca_pe_create(&r->pe));
	create_ctx(r, inflight);
	CHECK(doca_ctx_set_user_data(r->ctx, (union doca_data){.ptr = r}));
	CHECK(doca_pe_connect_ctx(r->pe, r->ctx));
	CHECK(doca_ctx_start(r->ctx));
	if (strcmp(r->row, "aesgcm") == 0)
		CHECK(doca_aes_gcm_key_create(r->engine, key, DOCA_AES_GCM_KEY_256, &r->key));
	if (strcmp(r->row, "ec") == 0)
		CHECK(doca_ec_matrix_create(r->engine, DOCA_EC_MATRIX_TYPE_CAUCHY, EC_K, EC_M, &r->matrix));
	CHECK(doca_mmap_create(&mm_src));
	CHECK(doca_mmap_set_memrange(mm_src, r->src, r->src_len));
	CHECK(doca_mmap_add_dev(mm_src, r->dev));
	CHECK(doca_mmap_start(mm_src));
	CHECK(doca_mmap_create(&mm_dst));
	CHECK(doca_mmap_set_memrange(mm_dst, r->dst, r->dst_cap * inflight));
	CHECK(doca_mmap_set_permissions(mm_dst, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_add_dev(mm_dst, r->dev));
	CHECK(doca_mmap_start(mm_dst));
	CHECK(doca_buf_inventory_create(2 * inflight, &inv));
	CHECK(doca_buf_inventory_start(inv));
	for (unsigned i = 0; i < inflight; i++) {
		CHECK(doca_buf_inventory_buf_get_by_data(inv, mm_src, r->src, r->src_len, &src[i]));
		CHECK(doca_buf_inventory_buf_get_by_addr(inv, mm_dst, r->dst + i * r->dst_cap, r->dst_cap, &dst[i]));
		tasks[i] = alloc_task(r, src[i], dst[i]);
	}
	CHECK(doca_pe_get_notification_handle(r->pe, &fd));
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	r->done = 0;
	r->stopping = false;
	r->outstanding = inflight;
	t0 = now();
	c0 = cpu_now();
	for (unsigned i = 0; i < inflight; i++)
		CHECK(doca_task_submit(tasks[i]));
	while (now() - t0 < secs || r->done < inflight) /* at least one task each */
		if (doca_pe_progress(r->pe) == 0)
			wait_event(r, ep);
	r->stopping = true;
	t1 = now();
	*bps = (double)r->done * (double)r->payload / (t1 - t0);
	*cpu = (double)r->done * (double)r->payload / (cpu_now() - c0);
	while (r->outstanding > 0)
		if (doca_pe_progress(r->pe) == 0)
			wait_event(r, ep);
	for (unsigned i = 0; i < inflight; i++) {
		doca_task_free(tasks[i]);
		doca_buf_dec_refcount(src[i], NULL);
		doca_buf_dec_refcount(dst[i], NULL);
	}
	if (r->key != NULL)
		doca_aes_gcm_key_destroy(r->key);
	if (r->matrix != NULL)
		doca_ec_matrix_destroy(r->matrix);
	CHECK(doca_ctx_stop(r->ctx));
	close(ep);
}

/* One task's worth of the row's work by the library on this thread. */
static void
peer_once(struct run *r)
{
	uint8_t digest[32];

	if (strcmp(r->row, "deflate") == 0)
		eb_sink ^= (uint32_t)eb_peer_deflate(r->src, r->src_len, r->dst, r->dst_cap, DEFLATE_LEVEL);
	else if (strcmp(r->row, "inflate") == 0)
		eb_sink ^= (uint32_t)eb_peer_inflate(r->src, r->src_len, r->dst, r->dst_cap);
	else if (strcmp(r->row, "lz4") == 0)
		eb_sink ^= (uint32_t)eb_peer_lz4(r->src, r->src_len, r->dst, r->dst_cap);
	else if (strcmp(r->row, "sha256") == 0)
		eb_peer_sha256(r->src, r->src_len, digest), eb_sink ^= digest[0];
	else if (strcmp(r->row, "aesgcm") == 0)
		eb_sink ^= (uint32_t)eb_peer_gcm_encrypt(key, iv, r->src, r->src_len, r->dst);
	else
		eb_peer_ec(EC_K, EC_M, r->size, r->src, r->dst);
}

static void
peer(struct run *r, double secs, double *bps, double *cpu)
{
	double t0 = now(), c0 = cpu_now();
	uint64_t n = 0;

	if (strcmp(r->row, "ec") == 0)
		eb_peer_ec_init(EC_K, EC_M);
	do {
		peer_once(r);
		n++;
	} while (now() - t0 < secs);
	*bps = (double)n * (double)r->payload / (now() - t0);
	*cpu = (double)n * (double)r->payload / (cpu_now() - c0);
}

/* The row's source, destination room and payload for task size r->size. */
static void
prepare(struct run *r, unsigned inflight)
{
	size_t plain_len = strcmp(r->row, "ec") == 0 ? EC_K * r->size : r->size;

	r->plain = malloc(plain_len);
	eb_corpus(r->plain, plain_len);
	r->payload = plain_len;
	r->src = r->plain;
	r->src_len = plain_len;
	r->dst_cap = plain_len + plain_len / 8 + 1024; /* deflate and GCM grow a little */
	if (strcmp(r->row, "inflate") == 0 || strcmp(r->row, "lz4") == 0) {
		uint8_t *z = malloc(r->dst_cap);

		r->src_len = strcmp(r->row, "lz4") == 0 ? eb_lz4_stream(r->plain, plain_len, z, r->dst_cap)
							: eb_peer_deflate(r->plain, plain_len, z, r->dst_cap, 6);
		r->src = z;
	} else if (strcmp(r->row, "sha256") == 0) {
		r->dst_cap = 64;
	} else if (strcmp(r->row, "ec") == 0) {
		r->dst_cap = EC_M * r->size;
	}
	r->dst = aligned_alloc(64, (r->dst_cap * inflight + 63) / 64 * 64);
	memset(r->dst, 0, r->dst_cap * inflight);
}

int
main(int argc, char **argv)
{
	struct doca_devinfo **list;
	struct run r = {0};
	double ob, oc, pb, pc, secs;
	unsigned workers, inflight;
	uint32_t n;

	if (argc != 6) {
		fprintf(stderr, "usage: engine_bench deflate|inflate|lz4|sha256|aesgcm|ec SIZE SECONDS WORKERS "
				"INFLIGHT\n");
		return 2;
	}
	r.row = argv[1];
	r.size = strtoul(argv[2], NULL, 0);
	secs = strtod(argv[3], NULL);
	workers = (unsigned)strtoul(argv[4], NULL, 0);
	inflight = (unsigned)strtoul(argv[5], NULL, 0);
	if (r.size == 0 || inflight == 0 || inflight > MAX_INFLIGHT)
		return 2;
	setenv("SOFTDOCA_ENGINE_WORKERS", argv[4], 1);
	prepare(&r, inflight);
	CHECK(doca_devinfo_create_list(&list, &n));
	CHECK(doca_dev_open(list[0], &r.dev));
	peer(&r, secs / 4, &pb, &pc); /* warm the caches and the library */
	ours(&r, secs, inflight, &ob, &oc);
	peer(&r, secs, &pb, &pc);
	printf("{\"row\": \"%s\", \"size\": %zu, \"workers\": %u, \"inflight\": %u, \"ours_bps\": %.0f, "
	       "\"ours_bps_per_cpu\": %.0f, \"peer_bps\": %.0f, \"peer_bps_per_cpu\": %.0f}\n",
	       r.row, r.size, workers, inflight, ob, oc, pb, pc);
	return 0;
}
