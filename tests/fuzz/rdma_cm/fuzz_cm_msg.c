/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the CM handshake parser (src/fabric/fabric_cm_proto.h): any
 * bytes must be refused or parse into a message whose parts lie inside the
 * input and which rebuilds to the same bytes.  Built as a libFuzzer target
 * when the compiler can (clang), and always as a replay driver (main() below:
 * valid messages of every type, then 200000 seeded mutations).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_cm_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t rebuilt[FABRIC_CM_MSG_MAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabric_cm_msg m;
	size_t len;

	if (fabric_cm_msg_parse(data, size, &m) != DOCA_SUCCESS)
		return 0;
	/* accepted: every part inside the input, and the bytes are canonical */
	if (m.priv < data || m.desc < m.priv || m.desc + m.desc_len != data + size || m.priv + m.priv_len != m.desc ||
	    m.token == 0)
		abort();
	len = fabric_cm_msg_build(rebuilt, sizeof(rebuilt), m.type, m.token, m.conn_id, m.reason, m.priv, m.priv_len,
				  m.desc, m.desc_len);
	if (len != size || memcmp(rebuilt, data, size) != 0)
		abort();
	return 0;
}

#ifndef SD_LIBFUZZER
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

int
main(void)
{
	static uint8_t seeds[8][FABRIC_CM_MSG_MAX], buf[FABRIC_CM_MSG_MAX + 64];
	static const uint8_t types[] = {FABRIC_CM_MSG_REQUEST, FABRIC_CM_MSG_ACCEPT,	 FABRIC_CM_MSG_REJECT,
					FABRIC_CM_MSG_RTU,     FABRIC_CM_MSG_DISCONNECT, FABRIC_CM_MSG_PING};
	size_t seed_len[8];
	uint8_t priv[255], desc[512];
	struct fabric_cm_msg m;
	unsigned i, n_seeds = 0, accepted = 0;

	memset(priv, 0x11, sizeof(priv));
	memset(desc, 0x22, sizeof(desc));
	for (i = 0; i < sizeof(types); i++) {
		uint8_t t = types[i];
		bool carries = t == FABRIC_CM_MSG_REQUEST || t == FABRIC_CM_MSG_ACCEPT;

		seed_len[n_seeds] =
			fabric_cm_msg_build(seeds[n_seeds], sizeof(seeds[0]), t, 0x1234 + i, i,
					    t == FABRIC_CM_MSG_REJECT ? FABRIC_CM_REJ_FULL : 0, carries ? priv : NULL,
					    carries ? 200 : 0, carries ? desc : NULL, carries ? 300 : 0);
		if (seed_len[n_seeds] == 0 ||
		    fabric_cm_msg_parse(seeds[n_seeds], seed_len[n_seeds], &m) != DOCA_SUCCESS) {
			printf("not ok 1 - seed of type %u does not round-trip\n", t);
			return 1;
		}
		LLVMFuzzerTestOneInput(seeds[n_seeds], seed_len[n_seeds]);
		n_seeds++;
	}
	for (i = 0; i < 200000; i++) {
		unsigned s = next() % n_seeds, k, flips = 1 + next() % 8;
		size_t len = seed_len[s];

		memcpy(buf, seeds[s], len);
		for (k = 0; k < flips; k++) {
			if (len == 0)
				break;
			switch (next() % 4) {
			case 0: /* byte flip anywhere, header-biased */
				buf[next() % (next() % 2 && len > 32 ? 32 : len)] ^= (uint8_t)(1u << (next() % 8));
				break;
			case 1: /* random byte */
				buf[next() % len] = (uint8_t)next();
				break;
			case 2: /* truncate */
				len = next() % (len + 1);
				break;
			default: /* extend */
				if (len + 16 <= sizeof(buf)) {
					for (unsigned j = 0; j < 16; j++)
						buf[len + j] = (uint8_t)next();
					len += 16;
				}
				break;
			}
		}
		if (fabric_cm_msg_parse(buf, len, &m) == DOCA_SUCCESS)
			accepted++;
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("1..1\nok 1 - 200000 mutated CM messages, %u accepted and canonical, none out of bounds\n", accepted);
	return 0;
}
#endif
