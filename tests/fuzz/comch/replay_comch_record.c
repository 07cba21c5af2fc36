/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the Comch record fuzz target, run by `make test` on every
 * compiler: one valid record of each type with known verdicts and decoded
 * fields, targeted forgeries, then thousands of random and mutated inputs from
 * a fixed seed (a failure replays exactly).
 */
#include <endian.h>

#include "comch_proto.h"
#include "sd_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0xc0c4u
#define ROUNDS 20000

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

/* header + payload into buf; returns the record length */
static size_t
record(uint8_t *buf, enum sd_comch_type type, uint32_t arg, const void *payload, uint32_t len)
{
	sd_comch_hdr_init((struct sd_comch_hdr *)buf, type, len, arg);
	memcpy(buf + sizeof(struct sd_comch_hdr), payload, len);
	return sizeof(struct sd_comch_hdr) + len;
}

static size_t
hello(uint8_t *buf, const char *name)
{
	uint8_t p[32 + 128] = {0};
	uint32_t v[4] = {htole32(4242), htole32(4080), htole32(10), htole32((uint32_t)strlen(name))};

	memcpy(p, v, sizeof(v));
	memcpy(p + 16, "0000:b1:00.0", 12);
	memcpy(p + 32, name, strlen(name));
	return record(buf, SD_COMCH_HELLO, 0, p, 32 + (uint32_t)strlen(name));
}

/* A CONSUMER_NEW payload (64 bytes, little-endian) with keys 0xa0.. (ring) and 0xb0.. (buffers). */
static void
consumer_new(uint8_t *p, uint32_t cap, uint64_t ring, uint64_t ring_rec, uint64_t buf_rec)
{
	uint64_t v;
	uint32_t w = htole32(cap);

	memset(p, 0, 64);
	memcpy(p, &w, 4);
	v = htole64(ring);
	memcpy(p + 8, &v, 8);
	v = htole64(ring_rec);
	memcpy(p + 16, &v, 8);
	v = htole64(buf_rec);
	memcpy(p + 40, &v, 8);
	for (int i = 0; i < 16; i++) {
		p[24 + i] = (uint8_t)(0xa0 + i);
		p[48 + i] = (uint8_t)(0xb0 + i);
	}
}

static doca_error_t
parse(const uint8_t *buf, size_t len, struct sd_comch_msg *m)
{
	ASSERT_EQ(LLVMFuzzerTestOneInput(buf, len), 0);
	return sd_comch_parse(buf, len, m, NULL);
}

TEST(valid_records_decode)
{
	uint8_t b[SD_COMCH_MAX_RECORD + 16];
	struct sd_comch_msg m;
	size_t n;

	n = hello(b, "dma copy server");
	ASSERT_OK(parse(b, n, &m));
	ASSERT_EQ(m.type, SD_COMCH_HELLO);
	ASSERT_EQ(m.u.hello.pid, 4242);
	ASSERT_EQ(m.u.hello.max_msg, 4080);
	ASSERT_EQ(m.u.hello.recv_queue, 10);
	ASSERT_EQ(m.u.hello.name_len, 15);
	ASSERT_MEM_EQ(m.name, "dma copy server", 15);
	ASSERT_STR_EQ(m.u.hello.pci_addr, "0000:b1:00.0");
	ASSERT_MEM_EQ(b, "SDCC", 4); /* little-endian magic */

	{
		static uint8_t big[SD_COMCH_MAX_MSG];

		memset(big, 0x5a, sizeof(big));
		n = record(b, SD_COMCH_MSG, 0, big, SD_COMCH_MAX_MSG);
	}
	ASSERT_OK(parse(b, n, &m));
	ASSERT_EQ(m.payload_len, SD_COMCH_MAX_MSG);
	n = record(b, SD_COMCH_MSG, 0, "", 0);
	ASSERT_OK(parse(b, n, &m));
	ASSERT_EQ(m.payload_len, 0);
	n = record(b, SD_COMCH_BYE, 0, "", 0);
	ASSERT_OK(parse(b, n, &m));
	ASSERT_EQ(m.type, SD_COMCH_BYE);
	{
		uint32_t w[4] = {0, htole32(4080), htole32(77), htole32(3)};

		n = record(b, SD_COMCH_WELCOME, 0, w, sizeof(w));
		ASSERT_OK(parse(b, n, &m));
		ASSERT_EQ(m.u.welcome.conn_id, 3);
		ASSERT_EQ(m.u.welcome.pid, 77);
	}
	{
		uint8_t d[16 + 5] = {0};
		uint64_t len = htole64(65536);
		uint32_t pid = htole32(9), imm = htole32(5);

		memcpy(d, &len, 8);
		memcpy(d + 8, &pid, 4);
		memcpy(d + 12, &imm, 4);
		memcpy(d + 16, "abcde", 5);
		n = record(b, SD_COMCH_FP_DATA, 7, d, sizeof(d));
		ASSERT_OK(parse(b, n, &m));
		ASSERT_EQ(m.arg, 7);
		ASSERT_EQ(m.u.data.len, 65536);
		ASSERT_MEM_EQ(m.imm, "abcde", 5);
	}
}

TEST(forgeries_refused)
{
	uint8_t b[SD_COMCH_MAX_RECORD + 16], c[SD_COMCH_MAX_RECORD + 16];
	struct sd_comch_msg m;
	const char *reason = NULL;
	size_t n = hello(b, "svc");

	memcpy(c, b, n);
	c[0] ^= 1; /* magic */
	ASSERT_ERR(parse(c, n, &m), DOCA_ERROR_INVALID_VALUE);
	memcpy(c, b, n);
	c[4] = 2; /* version: the previous one */
	ASSERT_ERR(sd_comch_parse(c, n, &m, &reason), DOCA_ERROR_UNSUPPORTED_VERSION);
	ASSERT_NOT_NULL(reason);
	memcpy(c, b, n);
	c[7] = 1; /* flags */
	ASSERT_ERR(parse(c, n, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(b, n - 1, &m), DOCA_ERROR_INVALID_VALUE); /* total_len mismatch */
	memcpy(c, b, n);
	c[6] = 99; /* type */
	ASSERT_ERR(parse(c, n, &m), DOCA_ERROR_INVALID_VALUE);
	memcpy(c, b, n);
	c[16 + 12] = 200; /* name_len beyond the record */
	ASSERT_ERR(parse(c, n, &m), DOCA_ERROR_INVALID_VALUE);
	memcpy(c, b, n);
	memset(c + 16 + 16, 'x', 16); /* PCI address without NUL */
	ASSERT_ERR(parse(c, n, &m), DOCA_ERROR_INVALID_VALUE);
	memcpy(c, b, n);
	c[n - 1] = 0; /* NUL inside the name */
	ASSERT_ERR(parse(c, n, &m), DOCA_ERROR_INVALID_VALUE);
	consumer_new(c, 3, 0x7f0000001040ull, 0x7f0000002000ull, 0x7f0000002040ull);
	n = record(b, SD_COMCH_CONSUMER_NEW, 2, c, 64);
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE); /* ring of 3 slots */
	consumer_new(c, 4, 0x7f0000001040ull, 0x7f0000002000ull, 0x7f0000002044ull);
	n = record(b, SD_COMCH_CONSUMER_NEW, 2, c, 64);
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE); /* misaligned grant record */
	consumer_new(c, 4, 0x7f0000001040ull, 0x7f0000002000ull, 0x7f0000002040ull);
	c[4] = 1; /* reserved */
	n = record(b, SD_COMCH_CONSUMER_NEW, 2, c, 64);
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE);
	n = record(b, SD_COMCH_CONSUMER_NEW, 2, c, 16); /* the version 1 layout (a pid and a ring) */
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE);
	consumer_new(c, 4, 0x7f0000001040ull, 0x7f0000002000ull, 0x7f0000002040ull);
	n = record(b, SD_COMCH_CONSUMER_NEW, 2, c, 64);
	ASSERT_OK(parse(b, n, &m));
	ASSERT_EQ(m.u.consumer.ring_cap, 4);
	ASSERT_EQ(m.u.consumer.ring_addr, 0x7f0000001040ull);
	ASSERT_EQ(m.u.consumer.ring.rec_addr, 0x7f0000002000ull);
	ASSERT_EQ(m.u.consumer.buf.rec_addr, 0x7f0000002040ull);
	ASSERT_EQ(m.u.consumer.buf.key[0], 0xb0);
	n = record(b, SD_COMCH_CONSUMER_GONE, 0, "", 0); /* consumer id 0 */
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE);
	n = record(b, SD_COMCH_BYE, 5, "", 0); /* arg on a record that takes none */
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE);
	memset(c, 0, sizeof(c));
	n = record(b, SD_COMCH_MSG, 0, c, SD_COMCH_MAX_MSG + 1); /* too long */
	ASSERT_ERR(parse(b, n, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(b, 3, &m), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(sd_comch_parse(NULL, 16, &m, NULL), DOCA_ERROR_INVALID_VALUE);
}

TEST(random_and_mutated_inputs)
{
	uint8_t seeds[4][SD_COMCH_MAX_RECORD + 16];
	size_t lens[4];
	uint8_t buf[SD_COMCH_MAX_RECORD + 64];
	struct sd_comch_msg m;

	lens[0] = hello(seeds[0], "comch_ctrl_path_sample_server");
	lens[1] = record(seeds[1], SD_COMCH_MSG, 0, "hello", 5);
	consumer_new(buf, 16, 0x7f0000001040ull, 0x7f0000002000ull, 0x7f0000002040ull);
	lens[2] = record(seeds[2], SD_COMCH_CONSUMER_NEW, 3, buf, 64);
	lens[3] = record(seeds[3], SD_COMCH_BYE, 0, "", 0);
	for (int r = 0; r < ROUNDS; r++) {
		size_t len;

		if (r % 4 == 0) {
			len = next_rand() % sizeof(buf);
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)next_rand();
		} else {
			int s = (int)(next_rand() % 4);

			len = lens[s];
			memcpy(buf, seeds[s], len);
			for (int k = 0, flips = 1 + (int)(next_rand() % 4); k < flips && len > 0; k++)
				buf[next_rand() % len] = (uint8_t)next_rand();
			if (next_rand() % 8 == 0)
				len = next_rand() % (len + 8);
		}
		(void)parse(buf, len, &m);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
