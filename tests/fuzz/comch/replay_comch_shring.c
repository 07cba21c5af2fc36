/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver of the shared post ring fuzz target (fuzz_comch_shring.c), run
 * by `make test` on every compiler: targeted forgeries of a consumer's ring
 * (a destination outside the grant, a count past the ring, a room that wraps
 * the address space, data larger than the room, a revoked or forged grant, an
 * over-long completion, staged bytes outside the staging area, a freed count
 * ahead of the producer) with their verdicts, then random rings from a fixed seed.
 */
#include "comch_shring.h"
#include "sd_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SEED 0x5badu
#define ROUNDS 20000

static uint32_t rng = SEED;
static _Alignas(64) uint8_t mem[8192];
static uint8_t granted[4096];

static struct sd_comch_ring *
ring_of(uint32_t cap, uint64_t posted, uint64_t addr, uint64_t len)
{
	struct sd_comch_ring *r = (struct sd_comch_ring *)mem;

	memset(mem, 0, sizeof(mem));
	r->cap = cap;
	r->posted = posted;
	for (uint32_t i = 0; i < cap; i++) {
		r->slot[i].addr = addr;
		r->slot[i].len = len;
	}
	return r;
}

static void
grant_of(struct sd_xproc_rec *rec, struct sd_xproc_ref *ref)
{
	memset(rec, 0, sizeof(*rec));
	memset(ref, 0, sizeof(*ref));
	rec->magic = SD_XPROC_REC_MAGIC;
	rec->live = 1;
	rec->perm = SD_XPROC_WRITE;
	rec->addr = (uint64_t)(uintptr_t)granted;
	rec->len = sizeof(granted);
	memset(rec->key, 0x77, sizeof(rec->key));
	memset(ref->key, 0x77, sizeof(ref->key));
}

/* take + check, as the producer calls them */
static doca_error_t
verdict(const struct sd_comch_ring *r, uint32_t cap, uint64_t consumed, const struct sd_xproc_rec *rec,
	const struct sd_xproc_ref *ref, size_t len, const char **reason)
{
	struct sd_comch_ring_slot s;
	doca_error_t err = sd_comch_shring_take(r, cap, consumed, &s, reason);

	return err != DOCA_SUCCESS ? err : sd_comch_shring_check(rec, ref, &s, len, reason);
}

TEST(ring_forgeries_refused)
{
	uint64_t g = (uint64_t)(uintptr_t)granted;
	struct sd_xproc_rec rec;
	struct sd_xproc_ref ref;
	const char *reason = NULL;

	grant_of(&rec, &ref);
	/* A slot inside the grant is taken; one past what is posted is not. */
	ASSERT_OK(verdict(ring_of(4, 1, g + 64, 1024), 4, 0, &rec, &ref, 1024, &reason));
	ASSERT_ERR(verdict(ring_of(4, 1, g + 64, 1024), 4, 1, &rec, &ref, 16, &reason), DOCA_ERROR_AGAIN);
	/* Destination outside the grant: before, across its end, wrapping the address space. */
	ASSERT_ERR(verdict(ring_of(4, 1, g - 8, 16), 4, 0, &rec, &ref, 16, &reason), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(verdict(ring_of(4, 1, g + 4090, 16), 4, 0, &rec, &ref, 16, &reason), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_ERR(verdict(ring_of(4, 1, g + 64, UINT64_MAX - 32), 4, 0, &rec, &ref, 16, &reason),
		   DOCA_ERROR_NOT_PERMITTED);
	ASSERT(reason != NULL && reason[0] != '\0');
	/* A count more than a ring ahead (out-of-range index). */
	reason = NULL;
	ASSERT_ERR(verdict(ring_of(4, 9, g, 16), 4, 0, &rec, &ref, 16, &reason), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_STR_EQ(reason, "the consumer's shared ring claims more posted buffers than it has slots");
	/* Data larger than the posted room. */
	ASSERT_ERR(verdict(ring_of(4, 1, g, 16), 4, 0, &rec, &ref, 17, &reason), DOCA_ERROR_INVALID_VALUE);
	/* A revoked grant, a read-only one, a wrong key. */
	rec.live = 0;
	ASSERT_ERR(verdict(ring_of(4, 1, g, 16), 4, 0, &rec, &ref, 16, &reason), DOCA_ERROR_NOT_PERMITTED);
	grant_of(&rec, &ref);
	rec.perm = SD_XPROC_READ;
	ASSERT_ERR(verdict(ring_of(4, 1, g, 16), 4, 0, &rec, &ref, 16, &reason), DOCA_ERROR_NOT_PERMITTED);
	grant_of(&rec, &ref);
	ref.key[15] ^= 0x80;
	ASSERT_ERR(verdict(ring_of(4, 1, g, 16), 4, 0, &rec, &ref, 16, &reason), DOCA_ERROR_NOT_PERMITTED);
}

TEST(completions_bounded)
{
	struct sd_comch_ring *r = ring_of(2, 0, 0, 0);
	struct sd_comch_fp_data d = {.len = 77, .producer_id = 5, .imm_len = 3}, got;
	uint8_t imm[SD_COMCH_MAX_IMM];
	struct sd_comch_staged st;
	const char *reason = NULL;

	/* Published completions come back field for field, and the consumer was not armed. */
	ASSERT(!sd_comch_shring_complete(r, 2, 0, &d, (const uint8_t *)"abc", NULL));
	ASSERT_EQ(sd_comch_shring_done(r, 2), 1);
	ASSERT_OK(sd_comch_shring_comp_get(r, 2, true, 0, &got, imm, &st, &reason));
	ASSERT_EQ(got.len, 77);
	ASSERT_EQ(got.producer_id, 5);
	ASSERT_MEM_EQ(imm, "abc", 3);
	ASSERT(!st.staged);
	/* Armed: the next completion says ring the doorbell, once. */
	ASSERT(!sd_comch_shring_arm(r, 2, 1));
	ASSERT(sd_comch_shring_complete(r, 2, 1, &d, (const uint8_t *)"abc", NULL));
	ASSERT(!sd_comch_shring_complete(r, 2, 2, &d, (const uint8_t *)"abc", NULL));
	ASSERT(sd_comch_shring_arm(r, 2, 1)); /* work already there: do not sleep */
	/* An over-long immediate length is refused. */
	d.imm_len = SD_COMCH_MAX_IMM + 1;
	memset((uint8_t *)r + sd_comch_shring_tail(2) + 64 + 12, 0xff, 4);
	ASSERT_ERR(sd_comch_shring_comp_get(r, 2, true, 0, &got, imm, &st, &reason), DOCA_ERROR_NOT_PERMITTED);
}

TEST(staged_completions_bounded)
{
	struct sd_comch_ring *r = ring_of(2, 0, 0, 0);
	struct sd_comch_fp_data d = {.len = 100, .producer_id = 1, .imm_len = 0}, got;
	uint8_t imm[SD_COMCH_MAX_IMM];
	uint64_t at = 3 * (uint64_t)SD_COMCH_STAGE_LEN + 4096;
	struct sd_comch_staged st;
	const char *reason = NULL;

	/* Where the bytes are comes back as an offset into the area and the count to free after. */
	(void)sd_comch_shring_complete(r, 2, 0, &d, (const uint8_t *)"", &at);
	ASSERT_OK(sd_comch_shring_comp_get(r, 2, true, 0, &got, imm, &st, &reason));
	ASSERT(st.staged);
	ASSERT_EQ(st.off, 4096);
	ASSERT_EQ(st.end, at + 100);
	/* A consumer without an area never takes staged bytes. */
	reason = NULL;
	ASSERT_ERR(sd_comch_shring_comp_get(r, 2, false, 0, &got, imm, &st, &reason), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_STR_EQ(reason, "a completion names staged bytes but the consumer has no staging area");
	/* Bytes that would run past the area's end, or longer than the area. */
	at = SD_COMCH_STAGE_LEN - 99;
	(void)sd_comch_shring_complete(r, 2, 1, &d, (const uint8_t *)"", &at);
	ASSERT_ERR(sd_comch_shring_comp_get(r, 2, true, 1, &got, imm, &st, &reason), DOCA_ERROR_NOT_PERMITTED);
	ASSERT_STR_EQ(reason, "a completion's staged bytes run past the staging area");
	d.len = 2ull * SD_COMCH_STAGE_LEN;
	at = 0;
	(void)sd_comch_shring_complete(r, 2, 0, &d, (const uint8_t *)"", &at);
	ASSERT_ERR(sd_comch_shring_comp_get(r, 2, true, 0, &got, imm, &st, &reason), DOCA_ERROR_NOT_PERMITTED);
}

TEST(staging_room)
{
	struct sd_comch_ring *r = ring_of(2, 0, 0, 0);
	uint64_t at = 0, end = SD_COMCH_STAGE_LEN - 100;

	/* An empty area takes a message at the start; none larger than the largest staged. */
	ASSERT(sd_comch_shring_stage_alloc(r, 2, 0, 1000, &at));
	ASSERT_EQ(at, 0);
	ASSERT(!sd_comch_shring_stage_alloc(r, 2, 0, SD_COMCH_STAGE_MAX + 1, &at));
	/* Bytes never wrap: a message that does not fit before the end goes to the start, once freed. */
	ASSERT(!sd_comch_shring_stage_alloc(r, 2, end, 1000, &at));
	sd_comch_shring_stage_free(r, 2, end);
	ASSERT(sd_comch_shring_stage_alloc(r, 2, end, 1000, &at));
	ASSERT_EQ(at, (uint64_t)SD_COMCH_STAGE_LEN);
	ASSERT(sd_comch_shring_stage_alloc(r, 2, end, 100, &at));
	ASSERT_EQ(at, end);
	/* A freed count ahead of what was staged is no room, not a wrap. */
	sd_comch_shring_stage_free(r, 2, 5000);
	ASSERT(!sd_comch_shring_stage_alloc(r, 2, 4000, 64, &at));
}

TEST(random_rings)
{
	static uint8_t buf[5000];

	for (int round = 0; round < ROUNDS; round++) {
		size_t n = sd_test_rand(&rng) % sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)sd_test_rand(&rng);
		/* Half the rounds: a small count and posted near it, so slots are taken and checked. */
		if (n > 40 && (round & 1)) {
			uint64_t c = sd_test_rand(&rng) % 4, p = c + sd_test_rand(&rng) % 3;

			memcpy(buf + 2, &c, 8);
			memcpy(buf + 18, &p, 8);
		}
		ASSERT_EQ(LLVMFuzzerTestOneInput(buf, n), 0);
	}
}

int
main(int argc, char **argv)
{
	return sd_test_main(argc, argv);
}
