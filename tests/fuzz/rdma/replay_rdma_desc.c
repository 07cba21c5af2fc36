/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the RDMA descriptor fuzz targets, run by `make test` on
 * every compiler: known verdicts for each descriptor kind, then thousands of
 * random and mutated inputs per kind from a fixed seed (a failure replays
 * exactly).
 */
#include "fuzz_rdma_desc.h"
#include "sd_test.h"

#define SEED 0x5d0c4u
#define ROUNDS 6000

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

static doca_error_t
parse(enum fuzz_kind kind, const uint8_t *buf, size_t len)
{
	struct sd_rdma_conn_info ci;
	struct sd_rdma_mem_info mi;

	fuzz_one(kind, buf, len);
	if (kind == FUZZ_CONN)
		return sd_rdma_conn_desc_parse(buf, len, &ci, NULL);
	if (kind == FUZZ_MMAP)
		return sd_rdma_mmap_desc_parse(buf, len, &mi, NULL);
	return sd_rdma_se_desc_parse(buf, len, &mi, NULL);
}

TEST(conn_verdicts)
{
	uint8_t d[SD_RDMA_DESC_MAX + 16];
	size_t len = fuzz_valid_desc(FUZZ_CONN, d);
	struct sd_rdma_conn_info info;

	ASSERT_OK(sd_rdma_conn_desc_parse(d, len, &info, NULL));
	ASSERT_EQ(info.conn_id, 1);
	ASSERT_EQ(info.permissions, 6);
	ASSERT_PTR_EQ(info.fabric, d + sizeof(struct sd_rdma_conn_desc));
	ASSERT_EQ(info.fabric_len, len - sizeof(struct sd_rdma_conn_desc));
	ASSERT_MEM_EQ(d, "SDRC", 4);
	ASSERT_ERR(parse(FUZZ_CONN, d, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_CONN, d, 47), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_CONN, d, len - 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_CONN, d, len + 1), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_CONN, d, SD_RDMA_DESC_MAX + 1), DOCA_ERROR_INVALID_VALUE);
	d[4] = 2;
	ASSERT_ERR(parse(FUZZ_CONN, d, len), DOCA_ERROR_UNSUPPORTED_VERSION);
	d[4] = 1;
	d[20] = 0; /* conn id 0 */
	ASSERT_ERR(parse(FUZZ_CONN, d, len), DOCA_ERROR_INVALID_VALUE);
	d[20] = 1;
	d[44] = 1; /* reserved */
	ASSERT_ERR(parse(FUZZ_CONN, d, len), DOCA_ERROR_INVALID_VALUE);
	d[44] = 0;
	d[48] ^= 1; /* fabric magic */
	ASSERT_ERR(parse(FUZZ_CONN, d, len), DOCA_ERROR_INVALID_VALUE);
	d[48] ^= 1;
	d[48 + 4] = 9; /* fabric version */
	ASSERT_ERR(parse(FUZZ_CONN, d, len), DOCA_ERROR_UNSUPPORTED_VERSION);
	d[48 + 4] = FABRIC_PROTO_VERSION;
	ASSERT_OK(parse(FUZZ_CONN, d, len));
}

TEST(mmap_verdicts)
{
	uint8_t d[SD_RDMA_DESC_MAX + 16];
	size_t len = fuzz_valid_desc(FUZZ_MMAP, d);
	struct sd_rdma_mem_info info;
	uint64_t v;

	ASSERT_OK(sd_rdma_mmap_desc_parse(d, len, &info, NULL));
	ASSERT_EQ(info.addr, 0x7f0000001000ull);
	ASSERT_EQ(info.len, 4096);
	ASSERT_EQ(info.permissions, 5);
	ASSERT_EQ(info.fabric_perms, FABRIC_PERM_REMOTE_WRITE);
	ASSERT_MEM_EQ(d, "SDMM", 4);
	ASSERT_ERR(parse(FUZZ_MMAP, d, 39), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_MMAP, d, len - 1), DOCA_ERROR_INVALID_VALUE);
	d[6] = SD_MMAP_DESC_KIND_PCI;
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
	d[6] = SD_MMAP_DESC_KIND_RDMA;
	d[4] = 3;
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_UNSUPPORTED_VERSION);
	d[4] = 1;
	/* a range that disagrees with the fabric blob's */
	v = 8192;
	memcpy(d + 24, &v, 8);
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
	/* both grown: consistent again (the exporter's side checks the truth) */
	memcpy(d + 40 + 24, &v, 8);
	ASSERT_OK(parse(FUZZ_MMAP, d, len));
	/* wrapping range */
	v = ~0ull;
	memcpy(d + 24, &v, 8);
	memcpy(d + 40 + 24, &v, 8);
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
	v = 4096;
	memcpy(d + 24, &v, 8);
	memcpy(d + 40 + 24, &v, 8);
	d[40 + 32] = 0x80; /* unknown fabric permission bit */
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
	d[40 + 32] = FABRIC_PERM_REMOTE_WRITE;
	ASSERT_OK(parse(FUZZ_MMAP, d, len));
	/* region id 0, address 0 and a fabric blob with bytes past its fixed part */
	memset(d + 40 + 36, 0, 4);
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
	d[40 + 36] = 7;
	ASSERT_OK(parse(FUZZ_MMAP, d, len));
	d[40 + 8] = 60; /* fabric hdr_len beyond the blob */
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
	d[40 + 8] = 56;
	ASSERT_OK(parse(FUZZ_MMAP, d, len));
}

TEST(sync_event_verdicts)
{
	uint8_t d[SD_RDMA_DESC_MAX + 16];
	size_t len = fuzz_valid_desc(FUZZ_SE, d);
	struct sd_rdma_mem_info info;

	ASSERT_OK(sd_rdma_se_desc_parse(d, len, &info, NULL));
	ASSERT_EQ(info.addr, 0x7f0000002008ull);
	ASSERT_EQ(info.len, 8);
	ASSERT_MEM_EQ(d, "SDSE", 4);
	ASSERT_ERR(parse(FUZZ_SE, d, 31), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_SE, d, len + 1), DOCA_ERROR_INVALID_VALUE);
	d[16] |= 4; /* misaligned */
	ASSERT_ERR(parse(FUZZ_SE, d, len), DOCA_ERROR_INVALID_VALUE);
	d[16] &= (uint8_t)~4;
	d[32 + 32] = FABRIC_PERM_REMOTE_WRITE; /* no atomic access granted */
	ASSERT_ERR(parse(FUZZ_SE, d, len), DOCA_ERROR_INVALID_VALUE);
	d[32 + 32] = FABRIC_PERM_ALL;
	d[32 + 24] = 16; /* fabric range is not 8 bytes */
	ASSERT_ERR(parse(FUZZ_SE, d, len), DOCA_ERROR_INVALID_VALUE);
	d[32 + 24] = 8;
	ASSERT_OK(parse(FUZZ_SE, d, len));
	/* another kind's descriptor is refused */
	len = fuzz_valid_desc(FUZZ_CONN, d);
	ASSERT_ERR(parse(FUZZ_SE, d, len), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(parse(FUZZ_MMAP, d, len), DOCA_ERROR_INVALID_VALUE);
}

/* Random bytes, then valid descriptors with random bit flips, byte stores and truncations. */
TEST(random_and_mutated)
{
	static uint8_t d[SD_RDMA_DESC_MAX + 64];
	unsigned accepted[3] = {0};

	for (int kind = 0; kind < 3; kind++) {
		for (int i = 0; i < ROUNDS; i++) {
			size_t len;

			if (i % 4 == 0) {
				len = next_rand() % (SD_RDMA_DESC_MAX + 32);
				for (size_t j = 0; j < len; j++)
					d[j] = (uint8_t)next_rand();
			} else {
				len = fuzz_valid_desc((enum fuzz_kind)kind, d);
				for (uint32_t m = next_rand() % 4; m > 0; m--) {
					size_t at = next_rand() % len;

					if (next_rand() & 1)
						d[at] ^= (uint8_t)(1u << (next_rand() % 8));
					else
						d[at] = (uint8_t)next_rand();
				}
				if (next_rand() % 8 == 0)
					len = next_rand() % (len + 16);
			}
			if (parse((enum fuzz_kind)kind, d, len) == DOCA_SUCCESS)
				accepted[kind]++;
		}
	}
	/* mutations of unchecked bytes (keys, addresses, cookies) keep some inputs valid */
	for (int kind = 0; kind < 3; kind++)
		ASSERT(accepted[kind] > 0);
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
