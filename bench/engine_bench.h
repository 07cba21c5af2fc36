/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_bench's peers and corpus (engine_peers.c). */
#ifndef ENGINE_BENCH_H_
#define ENGINE_BENCH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Results the compiler must not drop. */
extern volatile uint32_t eb_sink;

void eb_corpus(uint8_t *p, size_t len);
size_t eb_peer_deflate(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, int level);
size_t eb_peer_inflate(const uint8_t *src, size_t len, uint8_t *dst, size_t cap);
size_t eb_lz4_stream(const uint8_t *src, size_t len, uint8_t *dst, size_t cap);
size_t eb_peer_lz4(const uint8_t *src, size_t len, uint8_t *dst, size_t cap);
void eb_peer_sha256(const uint8_t *src, size_t len, uint8_t *digest);
size_t eb_peer_gcm_encrypt(const uint8_t *key, const uint8_t *iv, const uint8_t *src, size_t len, uint8_t *dst);
void eb_peer_ec_init(int k, int m);
void eb_peer_ec(int k, int m, size_t block, uint8_t *src, uint8_t *dst);

#endif /* ENGINE_BENCH_H_ */
