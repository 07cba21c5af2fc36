/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aes_gcm_bench: AES-256-GCM encrypt through DOCA AES-GCM beside OpenSSL's EVP
 * called directly on the same buffers (one EVP_CIPHER_CTX, re-initialised per
 * message, the fastest way a program calls it), alternated in one process.
 *
 *   aes_gcm_bench [SIZE [TASKS [IN_FLIGHT]]]     defaults: 1048576 512 4
 *
 * Prints one line per side and the ratio (softdoca / EVP, higher is better).
 * SOFTDOCA_ENGINE_WORKERS and SOFTDOCA_ENGINE_INLINE_MAX choose where tasks run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include <doca_aes_gcm.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define MAX_IN_FLIGHT 64
#define ROUNDS 5

#define DIE_IF(cond, what)                                                                                             \
	do {                                                                                                           \
		if (cond) {                                                                                            \
			fprintf(stderr, "aes_gcm_bench: %s failed\n", what);                                           \
			exit(1);                                                                                       \
		}                                                                                                      \
	} while (0)

static struct {
	struct doca_pe *pe;
	struct doca_aes_gcm *aes;
	struct doca_aes_gcm_key *key;
	struct doca_buf_inventory *inv;
	struct doca_mmap *src_mmap, *dst_mmap;
	uint8_t *src, *dst;
	size_t size;
	unsigned done;
} b;

static const uint8_t key_bytes[32] = {1, 2, 3};
static const uint8_t iv[12] = {4, 5, 6};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
task_cb(struct doca_aes_gcm_task_encrypt *t, union doca_data ud, union doca_data cud)
{
	DIE_IF(doca_task_get_status(doca_aes_gcm_task_encrypt_as_task(t)) != DOCA_SUCCESS, "an encrypt task");
	b.done++;
}

static struct doca_mmap *
mmap_over(struct doca_dev *dev, void *p, size_t len)
{
	struct doca_mmap *m;

	DIE_IF(doca_mmap_create(&m) || doca_mmap_set_memrange(m, p, len) || doca_mmap_add_dev(m, dev) ||
		       doca_mmap_start(m),
	       "mmap");
	return m;
}

static void
setup(size_t size, unsigned in_flight)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	uint32_t n;

	b.size = size;
	b.src = calloc(in_flight, size);
	b.dst = calloc(in_flight, size + 16);
	DIE_IF(b.src == NULL || b.dst == NULL, "malloc");
	for (size_t i = 0; i < in_flight * size; i++)
		b.src[i] = (uint8_t)(i * 131);
	DIE_IF(doca_devinfo_create_list(&list, &n) || n == 0 || doca_dev_open(list[0], &dev), "device");
	doca_devinfo_destroy_list(list);
	DIE_IF(doca_pe_create(&b.pe) || doca_aes_gcm_create(dev, &b.aes) ||
		       doca_pe_connect_ctx(b.pe, doca_aes_gcm_as_ctx(b.aes)) ||
		       doca_aes_gcm_task_encrypt_set_conf(b.aes, task_cb, task_cb, in_flight) ||
		       doca_ctx_start(doca_aes_gcm_as_ctx(b.aes)) ||
		       doca_aes_gcm_key_create(b.aes, key_bytes, DOCA_AES_GCM_KEY_256, &b.key),
	       "AES-GCM context");
	DIE_IF(doca_buf_inventory_create(2 * in_flight, &b.inv) || doca_buf_inventory_start(b.inv), "inventory");
	b.src_mmap = mmap_over(dev, b.src, in_flight * size);
	b.dst_mmap = mmap_over(dev, b.dst, in_flight * (size + 16));
}

/* tasks encrypt tasks of b.size bytes, in_flight at a time: seconds. */
static double
run_doca(unsigned tasks, unsigned in_flight)
{
	struct doca_aes_gcm_task_encrypt *t[MAX_IN_FLIGHT];
	struct doca_buf *src[MAX_IN_FLIGHT], *dst[MAX_IN_FLIGHT];
	union doca_data ud = {.u64 = 0};
	unsigned submitted = 0;
	double t0;

	for (unsigned i = 0; i < in_flight; i++) {
		DIE_IF(doca_buf_inventory_buf_get_by_data(b.inv, b.src_mmap, b.src + i * b.size, b.size, &src[i]) ||
			       doca_buf_inventory_buf_get_by_addr(b.inv, b.dst_mmap, b.dst + i * (b.size + 16),
								  b.size + 16, &dst[i]) ||
			       doca_aes_gcm_task_encrypt_alloc_init(b.aes, src[i], dst[i], b.key, iv, 12, 16, 0, ud,
								    &t[i]),
		       "task");
	}
	b.done = 0;
	t0 = now();
	for (; submitted < in_flight && submitted < tasks; submitted++)
		DIE_IF(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t[submitted])), "submit");
	while (b.done < tasks) {
		unsigned before = b.done;

		(void)doca_pe_progress(b.pe);
		/* Resubmit each finished slot (completions come in submission order). */
		for (unsigned i = before; i < b.done && submitted < tasks; i++, submitted++) {
			unsigned slot = submitted % in_flight;

			doca_buf_reset_data_len(dst[slot]);
			DIE_IF(doca_task_submit(doca_aes_gcm_task_encrypt_as_task(t[slot])), "resubmit");
		}
	}
	t0 = now() - t0;
	for (unsigned i = 0; i < in_flight; i++) {
		doca_task_free(doca_aes_gcm_task_encrypt_as_task(t[i]));
		doca_buf_dec_refcount(src[i], NULL);
		doca_buf_dec_refcount(dst[i], NULL);
	}
	return t0;
}

/* The same work with EVP directly on one thread: seconds. */
static double
run_evp(unsigned tasks, unsigned in_flight)
{
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t tag[16];
	double t0 = now();
	int l;

	DIE_IF(cipher == NULL || c == NULL || !EVP_EncryptInit_ex2(c, cipher, key_bytes, iv, NULL), "EVP");
	for (unsigned i = 0; i < tasks; i++) {
		unsigned slot = i % in_flight;
		uint8_t *out = b.dst + slot * (b.size + 16);

		DIE_IF(!EVP_EncryptInit_ex2(c, NULL, NULL, iv, NULL) ||
			       !EVP_EncryptUpdate(c, out, &l, b.src + slot * b.size, (int)b.size) ||
			       !EVP_EncryptFinal_ex(c, out + l, &l) ||
			       EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1,
		       "EVP encrypt");
		memcpy(out + b.size, tag, 16);
	}
	t0 = now() - t0;
	EVP_CIPHER_CTX_free(c);
	EVP_CIPHER_free(cipher);
	return t0;
}

int
main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	unsigned tasks = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 512;
	unsigned in_flight = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 4;
	double best_doca = 1e30, best_evp = 1e30;

	DIE_IF(size == 0 || size > (64u << 20) || tasks == 0 || in_flight == 0 || in_flight > MAX_IN_FLIGHT,
	       "arguments (SIZE 1..64 MiB, TASKS >= 1, IN_FLIGHT 1..64)");
	setup(size, in_flight);
	for (int r = 0; r < ROUNDS; r++) {
		double d = run_doca(tasks, in_flight), e = run_evp(tasks, in_flight);

		best_doca = d < best_doca ? d : best_doca;
		best_evp = e < best_evp ? e : best_evp;
	}
	printf("aes-256-gcm encrypt %zu B x %u, %u in flight\n", size, tasks, in_flight);
	printf("  softdoca  %9.1f MB/s  %8.2f us/task\n", size * tasks / best_doca / 1e6, best_doca / tasks * 1e6);
	printf("  evp       %9.1f MB/s  %8.2f us/task\n", size * tasks / best_evp / 1e6, best_evp / tasks * 1e6);
	printf("  ratio     %9.3f\n", best_evp / best_doca);
	return 0;
}
