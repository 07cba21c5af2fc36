/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work of both task families, done by OpenSSL 3's EVP AES-GCM (the
 * ciphers fetched once per process).  The library writes no cipher or Galois
 * arithmetic of its own: it lays out AAD, ciphertext and tag as DOCA does
 * (doca_aes_gcm.h) and hands the bytes to EVP.
 *
 * Cipher state is per thread, not per task (docs/aes_gcm.md measures both):
 * each thread that runs tasks - an engine worker, or a PE thread running them
 * inline - keeps one EVP_CIPHER_CTX in a slot, re-keyed only when a task
 * brings another key and otherwise given only the task's IV.  A slot holds
 * the last key's schedule, so slots are registered: key destroy wipes every
 * slot still keyed with it.  Lock order: registry.lock, then a slot's lock;
 * a task holds its thread's slot lock while it runs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "aes_gcm_internal.h"

/* Bytes per EVP update call (its lengths are int). */
#define UPDATE_CHUNK (1u << 30)

struct slot {
	pthread_mutex_t lock;
	EVP_CIPHER_CTX *ctx;
	const EVP_CIPHER *cipher; /* what ctx was initialised with; NULL: nothing */
	uint64_t key_id;	  /* the key its schedule holds; 0: none */
	struct sd_list link;	  /* in registry.slots */
};

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	struct sd_list slots;
	pthread_key_t key; /* this thread's slot; its destructor frees it */
	bool key_ok;
	EVP_CIPHER *aes128, *aes256;
} registry = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Thread exit: the slot leaves the registry; freeing the EVP context wipes its key schedule. */
static void
slot_free(void *p)
{
	struct slot *s = p;

	pthread_mutex_lock(&registry.lock);
	sd_list_del(&s->link);
	pthread_mutex_unlock(&registry.lock);
	EVP_CIPHER_CTX_free(s->ctx);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * A forked child has one thread: the slots of the parent's other threads may be
 * locked forever, so the registry starts again with only this thread's slot.
 */
static void
registry_after_fork(void)
{
	struct slot *s = registry.key_ok ? pthread_getspecific(registry.key) : NULL;

	pthread_mutex_init(&registry.lock, NULL);
	sd_list_init(&registry.slots);
	if (s != NULL) {
		pthread_mutex_init(&s->lock, NULL);
		sd_list_insert_tail(&registry.slots, &s->link);
	}
}

static void
registry_init(void)
{
	sd_list_init(&registry.slots);
	registry.key_ok = pthread_key_create(&registry.key, slot_free) == 0;
	(void)pthread_atfork(NULL, NULL, registry_after_fork);
	/* Fetched once: an implicit fetch per EVP init would cost a lookup per task. */
	registry.aes128 = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
	registry.aes256 = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
}

const void *
sd_aes_gcm_cipher(uint32_t key_len)
{
	pthread_once(&registry.once, registry_init);
	return key_len == 16 ? registry.aes128 : key_len == 32 ? registry.aes256 : NULL;
}

/* This thread's slot, created on first use; NULL when out of memory. */
static struct slot *
this_slot(void)
{
	struct slot *s;

	pthread_once(&registry.once, registry_init);
	if (!registry.key_ok)
		return NULL;
	s = pthread_getspecific(registry.key);
	if (s != NULL)
		return s;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->ctx = EVP_CIPHER_CTX_new();
	if (s->ctx == NULL || pthread_setspecific(registry.key, s) != 0) {
		EVP_CIPHER_CTX_free(s->ctx);
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_lock(&registry.lock);
	sd_list_insert_tail(&registry.slots, &s->link);
	pthread_mutex_unlock(&registry.lock);
	return s;
}

void
sd_aes_gcm_forget_key(uint64_t id)
{
	struct sd_list *pos;

	pthread_once(&registry.once, registry_init);
	pthread_mutex_lock(&registry.lock);
	sd_list_for_each(pos, &registry.slots)
	{
		struct slot *s = sd_container_of(pos, struct slot, link);

		pthread_mutex_lock(&s->lock);
		if (s->key_id == id) {
			/* Frees the provider's context, which clears it (the key schedule) first. */
			EVP_CIPHER_CTX_reset(s->ctx);
			s->cipher = NULL;
			s->key_id = 0;
		}
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&registry.lock);
}

/* Point the slot at the task's key, IV and direction, re-keying only for another key. */
static bool
slot_begin(struct slot *s, const struct sd_aes_gcm_task *t)
{
	const struct doca_aes_gcm_key *k = t->key;
	const EVP_CIPHER *cipher = k->cipher;
	int enc = t->dir == SD_AES_GCM_ENCRYPT;
	int ok;

	if (s->cipher != cipher)
		ok = EVP_CipherInit_ex2(s->ctx, cipher, k->raw, t->iv, enc, NULL);
	else if (s->key_id != k->id)
		ok = EVP_CipherInit_ex2(s->ctx, NULL, k->raw, t->iv, enc, NULL);
	else
		ok = EVP_CipherInit_ex2(s->ctx, NULL, NULL, t->iv, enc, NULL);
	s->cipher = ok ? cipher : NULL;
	s->key_id = ok ? k->id : 0;
	return ok == 1;
}

/* Feed n bytes (out NULL: AAD); GCM writes exactly what it reads. */
static bool
update(EVP_CIPHER_CTX *ctx, uint8_t *out, const uint8_t *in, uint64_t n)
{
	while (n > 0) {
		int len = (int)(n < UPDATE_CHUNK ? n : UPDATE_CHUNK), outl = 0;

		if (EVP_CipherUpdate(ctx, out, &outl, in, len) != 1 || (out != NULL && outl != len))
			return false;
		in += len;
		if (out != NULL)
			out += len;
		n -= (uint64_t)len;
	}
	return true;
}

static bool
failed(struct sd_buf_verdict *v)
{
	return sd_buf_refuse(v, SD_AES_GCM_CIPHER_FAILED, NULL, ERR_peek_last_error(), 0, 0);
}

/* in = AAD | plaintext -> out = AAD | ciphertext | tag. */
static bool
encrypt(EVP_CIPHER_CTX *ctx, const struct sd_aes_gcm_task *t, const uint8_t *in, uint8_t *out, struct sd_buf_verdict *v)
{
	uint64_t aad = t->aad_size, n = t->src_len - aad;
	uint8_t tag[SD_AES_GCM_TAG_MAX];
	int outl = 0;

	if (!update(ctx, NULL, in, aad) || !update(ctx, out + aad, in + aad, n) ||
	    EVP_CipherFinal_ex(ctx, out + aad + n, &outl) != 1 || outl != 0 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, (int)sizeof(tag), tag) != 1)
		return failed(v);
	/* A 96-bit tag is the first 12 bytes of the 128-bit one. */
	memcpy(out + aad + n, tag, t->tag_size);
	memmove(out, in, aad);
	return true;
}

/* in = AAD | ciphertext | tag -> out = AAD | plaintext, or nothing if the tag does not verify. */
static bool
decrypt(EVP_CIPHER_CTX *ctx, const struct sd_aes_gcm_task *t, const uint8_t *in, uint8_t *out, struct sd_buf_verdict *v)
{
	uint64_t aad = t->aad_size, n = t->src_len - aad - t->tag_size;
	uint8_t tag[SD_AES_GCM_TAG_MAX];
	int outl = 0;

	memcpy(tag, in + aad + n, t->tag_size);
	if (!update(ctx, NULL, in, aad) || !update(ctx, out + aad, in + aad, n) ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, (int)t->tag_size, tag) != 1) {
		OPENSSL_cleanse(out + aad, n);
		return failed(v);
	}
	if (EVP_CipherFinal_ex(ctx, out + aad + n, &outl) != 1) {
		/* Unauthenticated plaintext must not stay where the application reads. */
		OPENSSL_cleanse(out + aad, n);
		return sd_buf_refuse(v, SD_AES_GCM_TAG_MISMATCH, NULL, 0, 0, 0);
	}
	memmove(out, in, aad);
	return true;
}

bool
sd_aes_gcm_run(struct sd_aes_gcm_task *t, struct sd_buf_verdict *v)
{
	uint64_t out_len = t->dir == SD_AES_GCM_ENCRYPT ? t->src_len + t->tag_size : t->src_len - t->tag_size;
	struct sd_accel_src src;
	struct sd_accel_dst dst;
	struct slot *s;
	bool ok;

	if (!sd_accel_src_open(&src, t->src))
		return sd_buf_refuse(v, SD_AES_GCM_NO_MEMORY, "source", t->src_len, 0, 0);
	if (!sd_accel_dst_open(&dst, t->dst)) {
		sd_accel_src_close(&src);
		return sd_buf_refuse(v, SD_AES_GCM_NO_MEMORY, "destination", out_len, 0, 0);
	}
	s = this_slot();
	if (s == NULL) {
		ok = sd_buf_refuse(v, SD_AES_GCM_NO_MEMORY, "cipher state", sizeof(*s), 0, 0);
	} else {
		pthread_mutex_lock(&s->lock);
		ok = slot_begin(s, t) ? (t->dir == SD_AES_GCM_ENCRYPT ? encrypt(s->ctx, t, src.p, dst.p, v)
								      : decrypt(s->ctx, t, src.p, dst.p, v))
				      : failed(v);
		pthread_mutex_unlock(&s->lock);
	}
	if (!ok)
		ERR_clear_error();
	if (ok)
		sd_accel_dst_commit(&dst, out_len);
	else
		sd_accel_dst_close(&dst);
	sd_accel_src_close(&src);
	return ok;
}
