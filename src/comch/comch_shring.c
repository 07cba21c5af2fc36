/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared post ring of a consumer (layout: comch_proto.h "The shared post
 * ring"; design: docs/comch.md "Shared ring").  The consumer makes a sealed
 * memfd holding its post ring and the producer's completion half; the producer
 * maps the descriptor CONSUMER_NEW carried.  Posting and completing then cost no
 * system call: the producer's per-message calls are the grant read and the data
 * copy (comch_producer.c, through xproc.c) - none when the consumer's buffers are
 * mapped (comch_mapped.c) or the message is staged (comch_staged.c) -, plus one
 * FP_DOORBELL record only when the consumer sleeps.
 *
 * Whatever one side reads of the map, the other may have written anything into:
 * every field is loaded once into a local copy, checked, and only the copy is
 * used.  sd_comch_shring_take(), sd_comch_shring_check() and
 * sd_comch_shring_stage_alloc() are the producer's parser of those bytes,
 * sd_comch_shring_comp_get() the consumer's; tests/fuzz/comch feeds them random
 * rings.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "comch_shring.h"

#define SHRING_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

static inline struct sd_comch_shring_tail *
ring_tail(const struct sd_comch_ring *ring, uint32_t cap)
{
	return (struct sd_comch_shring_tail *)((uintptr_t)ring + sd_comch_shring_tail(cap));
}

static inline struct sd_comch_shring_comp *
ring_comp(const struct sd_comch_ring *ring, uint32_t cap, uint64_t pos)
{
	return (struct sd_comch_shring_comp *)(ring_tail(ring, cap) + 1) + (pos & (cap - 1));
}

static inline uint64_t
map_size(uint32_t cap, bool staged)
{
	return sd_comch_shring_size(cap) + (staged ? SD_COMCH_STAGE_LEN : 0u);
}

struct sd_comch_ring *
sd_comch_shring_create(uint32_t cap, bool staged, int *fd_out)
{
	uint64_t size = map_size(cap, staged);
	struct sd_comch_ring *ring;
	void *p;
	int fd;

	*fd_out = -1;
	fd = memfd_create("softdoca-comch-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return NULL;
	/* Sealed before anyone else holds it: no one can shrink it under the other's loads (SIGBUS). */
	if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, SHRING_SEALS) != 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	ring = p;
	ring->cap = cap;
	ring_tail(ring, cap)->share.fd = -1; /* no shared buffers until the consumer names them */
	*fd_out = fd;
	return ring;
}

void
sd_comch_shring_set_share(struct sd_comch_ring *ring, uint32_t cap, const struct sd_xproc_share *share)
{
	ring_tail(ring, cap)->share = *share;
}

void
sd_comch_shring_set_granted(struct sd_comch_ring *ring, uint32_t cap, bool granted)
{
	atomic_store_explicit((_Atomic uint32_t *)&ring_tail(ring, cap)->granted, granted ? 1u : 0u,
			      memory_order_release);
}

bool
sd_comch_shring_granted(const struct sd_comch_ring *ring, uint32_t cap)
{
	return atomic_load_explicit((_Atomic uint32_t *)&ring_tail(ring, cap)->granted, memory_order_acquire) == 1u;
}

void
sd_comch_shring_get_share(const struct sd_comch_ring *ring, uint32_t cap, struct sd_xproc_share *share)
{
	const struct sd_xproc_share *s = &ring_tail(ring, cap)->share;

	/* One load per field: the peer may change them under us, only the copy is used. */
	share->fd = atomic_load_explicit((_Atomic int32_t *)&s->fd, memory_order_relaxed);
	share->pad = 0;
	share->off = atomic_load_explicit((_Atomic uint64_t *)&s->off, memory_order_relaxed);
	share->ino = atomic_load_explicit((_Atomic uint64_t *)&s->ino, memory_order_relaxed);
	share->dev = atomic_load_explicit((_Atomic uint64_t *)&s->dev, memory_order_relaxed);
}

void
sd_comch_shring_unmap(struct sd_comch_ring *ring, uint32_t cap, bool staged)
{
	if (ring != NULL)
		(void)munmap(ring, map_size(cap, staged));
}

uint8_t *
sd_comch_shring_stage_area(const struct sd_comch_ring *ring, uint32_t cap)
{
	return (uint8_t *)ring + sd_comch_shring_size(cap);
}

struct sd_comch_ring *
sd_comch_shring_map(int fd, uint32_t cap, bool *staged, const char **reason)
{
	uint64_t size = sd_comch_shring_size(cap);
	struct stat st;
	int seals;
	void *p;

	*staged = false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    ((uint64_t)st.st_size != size && (uint64_t)st.st_size != map_size(cap, true))) {
		*reason = "the descriptor is not a shared ring of the announced size";
		return NULL;
	}
	/* The size says whether the consumer made a staging area; sealed, it cannot change. */
	*staged = (uint64_t)st.st_size != size;
	size = (uint64_t)st.st_size;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_SEAL)) != (F_SEAL_SHRINK | F_SEAL_SEAL)) {
		*reason = "the shared ring is not sealed against shrinking";
		return NULL;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		*reason = "the shared ring cannot be mapped";
		return NULL;
	}
	return p;
}

doca_error_t
sd_comch_shring_take(const struct sd_comch_ring *ring, uint32_t cap, uint64_t consumed, struct sd_comch_ring_slot *slot,
		     const char **reason)
{
	uint64_t posted = atomic_load_explicit((_Atomic uint64_t *)&ring->posted, memory_order_acquire);
	const struct sd_comch_ring_slot *s;

	if (posted == consumed)
		return DOCA_ERROR_AGAIN;
	/* The consumer posts only into slots whose completion it took: never more than cap ahead. */
	if (posted - consumed > cap) {
		*reason = "the consumer's shared ring claims more posted buffers than it has slots";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	/* The index comes from our own count and the announced size, never from the map. */
	s = &ring->slot[consumed & (cap - 1)];
	slot->addr = atomic_load_explicit((_Atomic uint64_t *)&s->addr, memory_order_relaxed);
	slot->len = atomic_load_explicit((_Atomic uint64_t *)&s->len, memory_order_relaxed);
	return DOCA_SUCCESS;
}

doca_error_t
sd_comch_shring_check(const struct sd_xproc_rec *buf_rec, const struct sd_xproc_ref *buf_ref,
		      const struct sd_comch_ring_slot *slot, size_t len, const char **reason)
{
	doca_error_t err;

	/* The whole posted room lies in the granted mmap, and the data fits the room. */
	err = sd_xproc_rec_check(buf_rec, buf_ref, slot->addr, slot->len, SD_XPROC_WRITE, reason);
	if (err == DOCA_SUCCESS && len > slot->len) {
		*reason = "the data does not fit the consumer's posted buffer";
		return DOCA_ERROR_INVALID_VALUE;
	}
	return err;
}

bool
sd_comch_shring_stage_alloc(const struct sd_comch_ring *ring, uint32_t cap, uint64_t head, size_t len, uint64_t *at)
{
	uint64_t freed =
		atomic_load_explicit((_Atomic uint64_t *)&ring_tail(ring, cap)->stage_freed, memory_order_acquire);
	uint64_t pos = head, off = head & (SD_COMCH_STAGE_LEN - 1);

	if (len > SD_COMCH_STAGE_MAX)
		return false;
	/* The bytes never wrap: skip the end of the area. */
	if (off + len > SD_COMCH_STAGE_LEN)
		pos += SD_COMCH_STAGE_LEN - off;
	/*
	 * freed is the consumer's word: one that ran ahead of what we staged makes the
	 * difference wrap to a huge value, which is "no room" - the buffer path.
	 */
	if (pos + len - freed > SD_COMCH_STAGE_LEN)
		return false;
	*at = pos;
	return true;
}

uint64_t
sd_comch_shring_stage_freed(const struct sd_comch_ring *ring, uint32_t cap)
{
	return atomic_load_explicit((_Atomic uint64_t *)&ring_tail(ring, cap)->stage_freed, memory_order_acquire);
}

void
sd_comch_shring_stage_free(struct sd_comch_ring *ring, uint32_t cap, uint64_t end)
{
	atomic_store_explicit((_Atomic uint64_t *)&ring_tail(ring, cap)->stage_freed, end, memory_order_release);
}

bool
sd_comch_shring_complete(struct sd_comch_ring *ring, uint32_t cap, uint64_t pos, const struct sd_comch_fp_data *d,
			 const uint8_t *imm, const uint64_t *stage_at)
{
	struct sd_comch_shring_tail *tail = ring_tail(ring, cap);
	struct sd_comch_shring_comp *comp = ring_comp(ring, cap, pos);
	_Atomic uint32_t *armed = (_Atomic uint32_t *)&tail->armed;

	comp->len = d->len;
	comp->producer_id = d->producer_id;
	comp->imm_len = d->imm_len;
	memcpy(comp->imm, imm, d->imm_len);
	comp->stage_at = stage_at != NULL ? *stage_at : 0;
	comp->staged = stage_at != NULL;
	comp->reserved = 0;
	atomic_store_explicit((_Atomic uint64_t *)&tail->done, pos + 1, memory_order_release);
	/* Publish, then look at armed (pairs with sd_comch_shring_arm): either it sees done or we see armed. */
#ifdef __SANITIZE_THREAD__
	if (atomic_fetch_or(armed, 0) == 0)
		return false;
#else
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(armed, memory_order_relaxed) == 0)
		return false;
#endif
	return atomic_exchange(armed, 0) != 0;
}

uint64_t
sd_comch_shring_done(const struct sd_comch_ring *ring, uint32_t cap)
{
	return atomic_load_explicit((_Atomic uint64_t *)&ring_tail(ring, cap)->done, memory_order_acquire);
}

doca_error_t
sd_comch_shring_comp_get(const struct sd_comch_ring *ring, uint32_t cap, bool staged, uint64_t pos,
			 struct sd_comch_fp_data *d, uint8_t imm[SD_COMCH_MAX_IMM], struct sd_comch_staged *st,
			 const char **reason)
{
	const struct sd_comch_shring_comp *comp = ring_comp(ring, cap, pos);
	uint64_t at;

	d->len = atomic_load_explicit((_Atomic uint64_t *)&comp->len, memory_order_relaxed);
	d->producer_id = atomic_load_explicit((_Atomic uint32_t *)&comp->producer_id, memory_order_relaxed);
	d->imm_len = atomic_load_explicit((_Atomic uint32_t *)&comp->imm_len, memory_order_relaxed);
	if (d->imm_len > SD_COMCH_MAX_IMM) {
		*reason = "a completion's immediate data is longer than 32 bytes";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	memcpy(imm, comp->imm, d->imm_len);
	st->staged = atomic_load_explicit((_Atomic uint32_t *)&comp->staged, memory_order_relaxed) != 0;
	if (!st->staged)
		return DOCA_SUCCESS;
	at = atomic_load_explicit((_Atomic uint64_t *)&comp->stage_at, memory_order_relaxed);
	st->off = at & (SD_COMCH_STAGE_LEN - 1);
	st->end = at + d->len;
	if (!staged) {
		*reason = "a completion names staged bytes but the consumer has no staging area";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (d->len > SD_COMCH_STAGE_LEN - st->off) {
		*reason = "a completion's staged bytes run past the staging area";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

bool
sd_comch_shring_arm(struct sd_comch_ring *ring, uint32_t cap, uint64_t arrived)
{
	struct sd_comch_shring_tail *tail = ring_tail(ring, cap);

	atomic_store((_Atomic uint32_t *)&tail->armed, 1);
	return atomic_load((_Atomic uint64_t *)&tail->done) != arrived;
}
