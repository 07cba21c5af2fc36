/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the Verbs address message fuzz target, run by `make test`
 * on every compiler: known verdicts for requests and responses, then
 * thousands of random and mutated messages from a fixed seed (a failure
 * replays exactly).
 */
#include "fuzz_verbs_addr.h"
#include "sd_test.h"

#define SEED 0xadd7u
#define ROUNDS 20000

static uint32_t rng = SEED;

static uint32_t
next_rand(void)
{
	return sd_test_rand(&rng);
}

static size_t
valid_req(uint8_t *buf)
{
	struct sd_fabric_addr_req r = {.dest_qpn = sd_fabric_addr_qpn(7, 9), .src_qpn = 0x123456};

	memset(r.src_gid, 0, 10);
	r.src_gid[10] = r.src_gid[11] = 0xff;
	r.src_gid[12] = 127;
	r.src_gid[15] = 1;
	sd_fabric_addr_req_encode(&r, buf);
	return sizeof(struct sd_fabric_addr_req_wire);
}

static size_t
valid_resp(uint8_t *buf, enum sd_fabric_addr_status st, uint32_t blob_len)
{
	struct sd_fabric_addr_resp r = {.status = st, .blob_len = blob_len};

	sd_fabric_addr_resp_encode(&r, buf);
	return sizeof(struct sd_fabric_addr_resp_wire);
}

static doca_error_t
req(const uint8_t *b, size_t n)
{
	struct sd_fabric_addr_req r;
	const char *why = NULL;
	doca_error_t err;

	fuzz_verbs_addr_one(false, b, n);
	err = sd_fabric_addr_req_parse(b, n, &r, &why);
	if (err != DOCA_SUCCESS)
		ASSERT_NOT_NULL(why);
	return err;
}

static doca_error_t
resp(const uint8_t *b, size_t n)
{
	struct sd_fabric_addr_resp r;

	fuzz_verbs_addr_one(true, b, n);
	return sd_fabric_addr_resp_parse(b, n, &r, NULL);
}

TEST(request_verdicts)
{
	uint8_t b[64];
	size_t n = valid_req(b);
	struct sd_fabric_addr_req r;

	ASSERT_EQ(n, 40);
	ASSERT_MEM_EQ(b, "VADR", 4);
	ASSERT_OK(sd_fabric_addr_req_parse(b, n, &r, NULL));
	ASSERT_EQ(r.dest_qpn, (7u << 14) | 9);
	ASSERT_EQ(r.src_qpn, 0x123456);
	ASSERT_EQ(r.src_gid[15], 1);
	ASSERT_ERR(req(b, 0), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(req(b, 39), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(req(b, 41), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(req(NULL, 40), DOCA_ERROR_INVALID_VALUE);
	b[0] ^= 1; /* magic */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	b[0] ^= 1;
	b[4] = 2; /* version */
	ASSERT_ERR(req(b, n), DOCA_ERROR_UNSUPPORTED_VERSION);
	b[4] = 1;
	b[6] = 41; /* hdr_len */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	b[6] = 40;
	b[8] = 0; /* dest index 0 */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	b[8] = 9;
	b[11] = 1; /* dest wider than 24 bits */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	b[11] = 0;
	b[9] = 0; /* dest slot 0 (7 << 14 lives in bytes 9-10) */
	b[10] = 0;
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	valid_req(b);
	memset(b + 12, 0, 4); /* src QPN 0 */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	b[15] = 1; /* src wider than 24 bits */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	valid_req(b);
	b[39] = 1; /* reserved */
	ASSERT_ERR(req(b, n), DOCA_ERROR_INVALID_VALUE);
	b[39] = 0;
	ASSERT_OK(req(b, n));
}

TEST(response_verdicts)
{
	uint8_t b[32];
	struct sd_fabric_addr_resp r;
	size_t n = valid_resp(b, SD_FABRIC_ADDR_OK, 4096);

	ASSERT_EQ(n, 16);
	ASSERT_OK(sd_fabric_addr_resp_parse(b, n, &r, NULL));
	ASSERT_EQ(r.status, SD_FABRIC_ADDR_OK);
	ASSERT_EQ(r.blob_len, 4096);
	ASSERT_ERR(resp(b, 15), DOCA_ERROR_INVALID_VALUE);
	ASSERT_ERR(resp(b, 17), DOCA_ERROR_INVALID_VALUE);
	valid_resp(b, SD_FABRIC_ADDR_OK, 4097);
	ASSERT_ERR(resp(b, n), DOCA_ERROR_INVALID_VALUE);
	valid_resp(b, SD_FABRIC_ADDR_OK, 0);
	ASSERT_ERR(resp(b, n), DOCA_ERROR_INVALID_VALUE);
	valid_resp(b, SD_FABRIC_ADDR_NOT_READY, 1); /* a refusal with a blob */
	ASSERT_ERR(resp(b, n), DOCA_ERROR_INVALID_VALUE);
	for (uint32_t st = SD_FABRIC_ADDR_NO_QP; st <= SD_FABRIC_ADDR_STATUS_MAX; st++) {
		valid_resp(b, (enum sd_fabric_addr_status)st, 0);
		ASSERT_OK(resp(b, n));
	}
	valid_resp(b, (enum sd_fabric_addr_status)(SD_FABRIC_ADDR_STATUS_MAX + 1), 0);
	ASSERT_ERR(resp(b, n), DOCA_ERROR_INVALID_VALUE);
	valid_resp(b, SD_FABRIC_ADDR_OK, 1);
	b[5] = 1; /* version 257 */
	ASSERT_ERR(resp(b, n), DOCA_ERROR_UNSUPPORTED_VERSION);
	b[5] = 0;
	b[7] = 1; /* hdr_len 272 */
	ASSERT_ERR(resp(b, n), DOCA_ERROR_INVALID_VALUE);
}

TEST(random_and_mutated)
{
	uint8_t b[64];

	for (int round = 0; round < ROUNDS; round++) {
		bool response = round & 1;
		size_t n = response ? valid_resp(b, (enum sd_fabric_addr_status)(next_rand() % 4), next_rand() % 5000)
				    : valid_req(b);
		uint32_t flips = next_rand() % 4;

		if (round % 7 == 0) {
			n = next_rand() % sizeof(b);
			for (size_t i = 0; i < n; i++)
				b[i] = (uint8_t)next_rand();
		}
		for (uint32_t f = 0; f < flips; f++)
			b[next_rand() % sizeof(b)] ^= (uint8_t)(1u << (next_rand() % 8));
		if (next_rand() % 5 == 0)
			n = next_rand() % sizeof(b);
		fuzz_verbs_addr_one(response, b, n);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
