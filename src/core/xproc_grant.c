/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Grants (xproc.h): the records of what this process lets its peers read or
 * write, in one static table of libdoca_common (one per process, whichever
 * libraries it loads), and the peer side's fetch and check of such a record.
 *
 * Peers read a record by its address, so the table never moves; a slot is
 * reused only after its grant was revoked (and its key zeroed).  slot_used is
 * private bookkeeping under grants_lock; records[] is what other processes see.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "sd_log.h"
#include "xproc.h"
#include "../util/sd_random.h"

static struct sd_xproc_rec records[SD_XPROC_GRANTS] __attribute__((aligned(64)));
static bool slot_used[SD_XPROC_GRANTS];
static uint32_t next_slot;
static pthread_mutex_t grants_lock = PTHREAD_MUTEX_INITIALIZER;

doca_error_t
sd_xproc_grant(const void *addr, size_t len, uint32_t perm, uint32_t tag, struct sd_xproc_ref *ref)
{
	struct sd_xproc_rec *rec;
	uint8_t key[SD_XPROC_KEY_LEN];
	doca_error_t err;
	uint32_t i, n;

	err = sd_random_bytes(key, sizeof(key));
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&grants_lock);
	for (n = 0, i = next_slot; n < SD_XPROC_GRANTS && slot_used[i]; n++)
		i = (i + 1) % SD_XPROC_GRANTS;
	if (n == SD_XPROC_GRANTS) {
		pthread_mutex_unlock(&grants_lock);
		explicit_bzero(key, sizeof(key));
		return DOCA_ERROR_NO_MEMORY;
	}
	slot_used[i] = true;
	next_slot = (i + 1) % SD_XPROC_GRANTS;
	rec = &records[i];
	rec->magic = SD_XPROC_REC_MAGIC;
	rec->perm = perm;
	rec->addr = (uint64_t)(uintptr_t)addr;
	rec->len = len;
	rec->tag = tag;
	memcpy(rec->key, key, sizeof(rec->key));
	/* Every field above is visible before live (see xproc.h). */
	__atomic_store_n(&rec->live, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&grants_lock);
	ref->rec_addr = (uint64_t)(uintptr_t)rec;
	memcpy(ref->key, key, sizeof(ref->key));
	explicit_bzero(key, sizeof(key));
	return DOCA_SUCCESS;
}

void
sd_xproc_revoke(struct sd_xproc_ref *ref)
{
	uintptr_t a = (uintptr_t)ref->rec_addr;
	struct sd_xproc_rec *rec;

	if (a < (uintptr_t)records || a >= (uintptr_t)(records + SD_XPROC_GRANTS))
		return; /* never granted, or revoked already */
	rec = (struct sd_xproc_rec *)a;
	pthread_mutex_lock(&grants_lock);
	if (slot_used[rec - records] && sd_secret_equal(rec->key, ref->key, sizeof(rec->key))) {
		__atomic_store_n(&rec->live, 0, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		explicit_bzero(rec->key, sizeof(rec->key));
		slot_used[rec - records] = false;
	}
	pthread_mutex_unlock(&grants_lock);
	explicit_bzero(ref, sizeof(*ref));
}

bool
sd_xproc_grant_live(const struct sd_xproc_ref *ref)
{
	uintptr_t a = (uintptr_t)ref->rec_addr;
	bool live = false;
	size_t i;

	if (a < (uintptr_t)records || a >= (uintptr_t)(records + SD_XPROC_GRANTS) ||
	    (a - (uintptr_t)records) % sizeof(records[0]) != 0)
		return false;
	i = (a - (uintptr_t)records) / sizeof(records[0]);
	pthread_mutex_lock(&grants_lock);
	live = slot_used[i] && records[i].live == 1 && sd_secret_equal(records[i].key, ref->key, SD_XPROC_KEY_LEN);
	pthread_mutex_unlock(&grants_lock);
	return live;
}

doca_error_t
sd_xproc_rec_check(const struct sd_xproc_rec *rec, const struct sd_xproc_ref *ref, uint64_t addr, uint64_t len,
		   uint32_t perm, const char **reason)
{
	if (rec->magic != SD_XPROC_REC_MAGIC) {
		*reason = "the peer has no grant record where it said (not a record its softdoca published)";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (rec->live != 1 || !sd_secret_equal(rec->key, ref->key, sizeof(rec->key))) {
		*reason = "the peer's grant is revoked or its key does not match";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((rec->perm & perm) != perm) {
		*reason = (perm & SD_XPROC_WRITE) != 0 ? "the peer's grant does not allow writing"
						       : "the peer's grant does not allow reading";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (addr < rec->addr || len > rec->len || addr - rec->addr > rec->len - len) {
		*reason = "the range lies outside what the peer granted";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t
sd_xproc_rec_fetch(const struct sd_xproc_peer *peer, const struct sd_xproc_ref *ref, struct sd_xproc_rec *rec,
		   const char **reason)
{
	struct iovec l = {.iov_base = rec, .iov_len = sizeof(*rec)};
	struct iovec r = {.iov_base = (void *)(uintptr_t)ref->rec_addr, .iov_len = sizeof(*rec)};
	doca_error_t err;

	if (ref->rec_addr == 0 || ref->rec_addr % 8 != 0) {
		*reason = "the grant record address is null or misaligned";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	err = sd_xproc_copy(peer, false, &l, 1, &r, 1, sizeof(*rec), reason);
	if (err == DOCA_ERROR_DRIVER) {
		*reason = "the peer has no grant record where it said (unmapped address)";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return err;
}
