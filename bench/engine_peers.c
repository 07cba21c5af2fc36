/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engines' peers for engine_bench.c: the corpus, and each library called
 * directly on one thread, doing the same work a task does: a compress task also
 * returns the CRC-32 and Adler-32 of the uncompressed data, an LZ4 task its CRC-32 and
 * XXH32, so the peers compute them too (with libdeflate's CRC-32 and Adler-32, which the
 * engine uses).
 */
#include <stdlib.h>
#include <string.h>

#include <isa-l/erasure_code.h>
#include <libdeflate.h>
#include <lz4.h>
#include <xxhash.h>
#include <openssl/evp.h>

#include "engine_bench.h"

/*
 * A mixed text / binary corpus: alternating 4 KiB runs of English-like words and of
 * binary records (counters, small integers, a few random bytes), as a file system
 * block or a log of structured data holds.  Deterministic (xorshift, fixed seed).
 */
void
eb_corpus(uint8_t *p, size_t len)
{
	static const char *const words[] = {"the",    "of",	 "and",	    "data",  "block",  "engine",
					    "memory", "network", "request", "queue", "buffer", "device",
					    "host",   "packet",	 "stream",  "table", "index",  "value"};
	uint32_t x = 2463534242u;
	size_t i = 0;

	while (i < len) {
		size_t end = i + 4096 < len ? i + 4096 : len;
		bool text = (i / 4096) % 2 == 0;

		while (i < end) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			if (text) {
				const char *w = words[x % (sizeof(words) / sizeof(words[0]))];

				for (; *w != '\0' && i < end; w++)
					p[i++] = (uint8_t)*w;
				if (i < end)
					p[i++] = (x >> 8) % 11 == 0 ? '\n' : ' ';
			} else {
				uint32_t rec[4] = {(uint32_t)i, x & 0xff, (x >> 8) & 0xffff, x};

				for (size_t k = 0; k < sizeof(rec) && i < end; k++)
					p[i++] = ((uint8_t *)rec)[k];
			}
		}
	}
}

/* --- deflate --------------------------------------------------------------------------- */

static struct libdeflate_compressor *ldc;
static struct libdeflate_decompressor *ldd;

size_t
eb_peer_deflate(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, int level)
{
	size_t n;

	if (ldc == NULL)
		ldc = libdeflate_alloc_compressor(level);
	n = libdeflate_deflate_compress(ldc, src, len, dst, cap);
	eb_sink ^= libdeflate_crc32(0, src, len) ^ libdeflate_adler32(1, src, len);
	return n;
}

size_t
eb_peer_inflate(const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
	size_t n = 0;

	if (ldd == NULL)
		ldd = libdeflate_alloc_decompressor();
	if (libdeflate_deflate_decompress(ldd, src, len, dst, cap, &n) != LIBDEFLATE_SUCCESS)
		return 0;
	eb_sink ^= libdeflate_crc32(0, dst, n) ^ libdeflate_adler32(1, dst, n);
	return n;
}

/* --- LZ4 -------------------------------------------------------------------------------- */

/* The stream task's input: independent 64 KiB blocks, each a 4-byte LE size word then its data. */
size_t
eb_lz4_stream(const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
	size_t out = 0;

	for (size_t off = 0; off < len; off += 65536) {
		int in = (int)(len - off < 65536 ? len - off : 65536);
		int n = LZ4_compress_default((const char *)src + off, (char *)dst + out + 4, in, (int)(cap - out - 4));
		uint32_t w = (uint32_t)n;

		memcpy(dst + out, &w, 4); /* little-endian host */
		out += 4 + (size_t)n;
	}
	return out;
}

size_t
eb_peer_lz4(const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
	size_t in = 0, out = 0;

	while (in + 4 <= len) {
		uint32_t w;
		int n;

		memcpy(&w, src + in, 4);
		n = LZ4_decompress_safe((const char *)src + in + 4, (char *)dst + out, (int)w, (int)(cap - out));
		if (n < 0)
			return 0;
		in += 4 + w;
		out += (size_t)n;
	}
	eb_sink ^= libdeflate_crc32(0, dst, out) ^ XXH32(dst, out, 0);
	return out;
}

/* --- SHA-256, AES-256-GCM --------------------------------------------------------------------- */

void
eb_peer_sha256(const uint8_t *src, size_t len, uint8_t *digest)
{
	unsigned int n = 0;

	EVP_Digest(src, len, digest, &n, EVP_sha256(), NULL);
}

static EVP_CIPHER_CTX *gcm;

size_t
eb_peer_gcm_encrypt(const uint8_t *key, const uint8_t *iv, const uint8_t *src, size_t len, uint8_t *dst)
{
	int n = 0, fin = 0;

	if (gcm == NULL)
		gcm = EVP_CIPHER_CTX_new();
	EVP_EncryptInit_ex(gcm, EVP_aes_256_gcm(), NULL, key, iv);
	EVP_EncryptUpdate(gcm, dst, &n, src, (int)len);
	EVP_EncryptFinal_ex(gcm, dst + n, &fin);
	EVP_CIPHER_CTX_ctrl(gcm, EVP_CTRL_GCM_GET_TAG, 16, dst + n + fin);
	return (size_t)n + (size_t)fin + 16;
}

/* --- erasure coding ------------------------------------------------------------------------ */

static uint8_t ec_tables[32 * 16 * 16];

void
eb_peer_ec_init(int k, int m)
{
	uint8_t a[(16 + 16) * 16];

	gf_gen_cauchy1_matrix(a, k + m, k);
	ec_init_tables(k, m, a + k * k, ec_tables);
}

void
eb_peer_ec(int k, int m, size_t block, uint8_t *src, uint8_t *dst)
{
	uint8_t *data[16], *coding[16];

	for (int i = 0; i < k; i++)
		data[i] = src + (size_t)i * block;
	for (int j = 0; j < m; j++)
		coding[j] = dst + (size_t)j * block;
	ec_encode_data((int)block, k, m, ec_tables, data, coding);
}
