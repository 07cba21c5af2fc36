/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared post ring (comch_shring.c; layout in comch_proto.h).  Needs only
 * the wire format and xproc's record check, so the fuzz target links it alone.
 */
#ifndef SD_COMCH_SHRING_H_
#define SD_COMCH_SHRING_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comch_proto.h"

/* --- the consumer's side --- */

/*
 * A new sealed memfd ring of cap slots (and a staging area after it when staged),
 * mapped; *fd_out its descriptor.  NULL (nothing logged) when the kernel refuses.
 */
struct sd_comch_ring *sd_comch_shring_create(uint32_t cap, bool staged, int *fd_out);
/* Completions the producer published (acquire). */
uint64_t sd_comch_shring_done(const struct sd_comch_ring *ring, uint32_t cap);

/* Where a completion's bytes are: in the buffer, or staged at off of the staging area (end: stage_freed after). */
struct sd_comch_staged {
	bool staged;
	uint64_t off;
	uint64_t end;
};
/*
 * Copy out and check the completion of ring position pos (staged: the ring has a
 * staging area): SUCCESS, NOT_PERMITTED (*reason).  Staged bytes lie inside the
 * area.
 */
doca_error_t sd_comch_shring_comp_get(const struct sd_comch_ring *ring, uint32_t cap, bool staged, uint64_t pos,
				      struct sd_comch_fp_data *d, uint8_t imm[SD_COMCH_MAX_IMM],
				      struct sd_comch_staged *st, const char **reason);
/* The staged bytes before end were copied out (release): the producer may stage there again. */
void sd_comch_shring_stage_free(struct sd_comch_ring *ring, uint32_t cap, uint64_t end);
/* About to sleep: armed for one FP_DOORBELL; true when completions past arrived are already there. */
bool sd_comch_shring_arm(struct sd_comch_ring *ring, uint32_t cap, uint64_t arrived);

/* Name the object the consumer's buffers lie in (before the descriptor is passed). */
void sd_comch_shring_set_share(struct sd_comch_ring *ring, uint32_t cap, const struct sd_xproc_share *share);
/* The buffer grant is live (after it is made) or about to be revoked (before: release). */
void sd_comch_shring_set_granted(struct sd_comch_ring *ring, uint32_t cap, bool granted);

/* --- both --- */

void sd_comch_shring_unmap(struct sd_comch_ring *ring, uint32_t cap, bool staged);
/* The staging area of a ring mapped with one (SD_COMCH_STAGE_LEN bytes). */
uint8_t *sd_comch_shring_stage_area(const struct sd_comch_ring *ring, uint32_t cap);

/* --- the producer's side --- */

/*
 * Map the peer's ring descriptor after checking its size and seals (*staged: it
 * has a staging area); NULL with *reason otherwise.
 */
struct sd_comch_ring *sd_comch_shring_map(int fd, uint32_t cap, bool *staged, const char **reason);
/*
 * The slot of ring position consumed, copied out of the map once: SUCCESS; AGAIN
 * (nothing posted); NOT_PERMITTED (*reason: the ring breaks its rules).  cap is
 * the announced size, never the map's.
 */
doca_error_t sd_comch_shring_take(const struct sd_comch_ring *ring, uint32_t cap, uint64_t consumed,
				  struct sd_comch_ring_slot *slot, const char **reason);
/*
 * The slot lies inside the buffer grant buf_rec (read from the consumer right
 * before the copy) names, and holds len bytes: SUCCESS, NOT_PERMITTED,
 * INVALID_VALUE (*reason).  Pure.
 */
doca_error_t sd_comch_shring_check(const struct sd_xproc_rec *buf_rec, const struct sd_xproc_ref *buf_ref,
				   const struct sd_comch_ring_slot *slot, size_t len, const char **reason);
/* The consumer says its buffer grant is still live (acquire); false: read the grant through the kernel. */
bool sd_comch_shring_granted(const struct sd_comch_ring *ring, uint32_t cap);
/* The consumer's share field, copied out of the map once (fd -1: none named). */
void sd_comch_shring_get_share(const struct sd_comch_ring *ring, uint32_t cap, struct sd_xproc_share *share);
/*
 * Room for len staged bytes in the area after head (this producer's running
 * count): true with *at where they go (head moves to *at + len); false when len
 * is over SD_COMCH_STAGE_MAX or the consumer has not freed enough.
 */
bool sd_comch_shring_stage_alloc(const struct sd_comch_ring *ring, uint32_t cap, uint64_t head, size_t len,
				 uint64_t *at);
/* The consumer's count of staged bytes copied out (acquire; foreign: compare, never index). */
uint64_t sd_comch_shring_stage_freed(const struct sd_comch_ring *ring, uint32_t cap);
/*
 * Publish the completion of position pos (release), staged at *stage_at or in
 * the buffer (NULL); true when the consumer was armed: send one FP_DOORBELL.
 */
bool sd_comch_shring_complete(struct sd_comch_ring *ring, uint32_t cap, uint64_t pos, const struct sd_comch_fp_data *d,
			      const uint8_t *imm, const uint64_t *stage_at);

#endif /* SD_COMCH_SHRING_H_ */
