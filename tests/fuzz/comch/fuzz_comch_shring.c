/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target of the producer's reading of a consumer's shared post ring
 * (sd_comch_shring_take + sd_comch_shring_check, comch_shring.c, and the staging
 * room, sd_comch_shring_stage_alloc) and of the consumer's reading of a
 * completion (sd_comch_shring_comp_get, staged bytes inside the area).  The input is
 * the ring's bytes, the producer's count, the data length and edits of the
 * grant record; the grant covers the middle of an arena.  The producer "copies"
 * (memset) only what was accepted: anything accepted outside the grant, or a
 * byte written outside it, or a crash, is a failure.
 */
#include <stdlib.h>
#include <string.h>

#include "comch_shring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ARENA 4096u
#define GRANT_OFF 1024u
#define GRANT_LEN 2048u
#define CANARY 0xc3

static uint8_t arena[ARENA];
static _Alignas(64) uint8_t map[16384]; /* the largest ring below: cap 8 */

static uint64_t
take_u64(const uint8_t **p, size_t *n)
{
	uint64_t v = 0;
	size_t k = *n < 8 ? *n : 8;

	memcpy(&v, *p, k);
	*p += k;
	*n -= k;
	return v;
}

/* The grant the consumer published, edited by the input's flag bits. */
static void
grant(uint8_t flags, struct sd_xproc_rec *rec, struct sd_xproc_ref *ref)
{
	memset(rec, 0, sizeof(*rec));
	memset(ref, 0, sizeof(*ref));
	rec->magic = SD_XPROC_REC_MAGIC;
	rec->live = (flags & 1) ? 0 : 1;
	rec->perm = (flags & 2) ? SD_XPROC_READ : SD_XPROC_WRITE;
	rec->addr = (uint64_t)(uintptr_t)arena + GRANT_OFF;
	rec->len = GRANT_LEN;
	for (int i = 0; i < SD_XPROC_KEY_LEN; i++)
		rec->key[i] = ref->key[i] = (uint8_t)(0x40 + i);
	if (flags & 4)
		ref->key[3] ^= 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sd_comch_ring *ring = (struct sd_comch_ring *)map;
	uint8_t imm[SD_COMCH_MAX_IMM];
	struct sd_comch_ring_slot slot;
	struct sd_comch_staged st;
	struct sd_comch_fp_data d;
	struct sd_xproc_rec rec;
	struct sd_xproc_ref ref;
	const char *reason = NULL;
	uint64_t consumed, len, n, at;
	uint32_t cap;
	uint8_t flags;
	doca_error_t err;

	if (size < 2)
		return 0;
	cap = 1u << (data[0] % 4);
	flags = data[1];
	data += 2;
	size -= 2;
	consumed = take_u64(&data, &size);
	len = take_u64(&data, &size) % (2 * GRANT_LEN + 2);
	/* The slot addresses the input names are offsets into the arena (or anywhere, with bit 3). */
	memset(map, 0, sizeof(map));
	n = size < sd_comch_shring_size(cap) ? size : sd_comch_shring_size(cap);
	memcpy(map, data, n);
	if (!(flags & 8))
		for (uint32_t i = 0; i < cap; i++)
			ring->slot[i].addr = (uint64_t)(uintptr_t)arena + ring->slot[i].addr % (2 * ARENA);
	grant(flags, &rec, &ref);
	memset(arena, CANARY, sizeof(arena));

	err = sd_comch_shring_take(ring, cap, consumed, &slot, &reason);
	if (err == DOCA_SUCCESS)
		err = sd_comch_shring_check(&rec, &ref, &slot, len, &reason);
	if (err == DOCA_SUCCESS) {
		uintptr_t lo = (uintptr_t)arena + GRANT_OFF;

		if (rec.live != 1 || rec.perm != SD_XPROC_WRITE || (flags & 4) || slot.addr < lo ||
		    slot.len > GRANT_LEN || slot.addr - lo > GRANT_LEN - slot.len || len > slot.len)
			abort();
		memset((void *)(uintptr_t)slot.addr, 0x5a, len); /* the copy the producer makes */
	} else if (err != DOCA_ERROR_AGAIN && (reason == NULL || reason[0] == '\0')) {
		abort();
	}
	for (uint32_t i = 0; i < ARENA; i++)
		if ((i < GRANT_OFF || i >= GRANT_OFF + GRANT_LEN) && arena[i] != CANARY)
			abort();

	/* The producer's room in the staging area, from the consumer's freed count in the same bytes. */
	if (sd_comch_shring_stage_alloc(ring, cap, consumed, len, &at)) {
		const struct sd_comch_shring_tail *tail = (const void *)(map + sd_comch_shring_tail(cap));

		if ((at & (SD_COMCH_STAGE_LEN - 1)) + len > SD_COMCH_STAGE_LEN ||
		    at + len - tail->stage_freed > SD_COMCH_STAGE_LEN || len > SD_COMCH_STAGE_MAX)
			abort();
	}

	/* The consumer's side: a completion from the same bytes is refused or bounded (flag 16: it has an area). */
	reason = NULL;
	err = sd_comch_shring_comp_get(ring, cap, (flags & 16) != 0, consumed, &d, imm, &st, &reason);
	if (err == DOCA_SUCCESS ? d.imm_len > SD_COMCH_MAX_IMM : (reason == NULL || err != DOCA_ERROR_NOT_PERMITTED))
		abort();
	if (err == DOCA_SUCCESS && st.staged && (!(flags & 16) || st.off + d.len > SD_COMCH_STAGE_LEN))
		abort();
	return 0;
}
