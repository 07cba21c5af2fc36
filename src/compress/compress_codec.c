/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compress engine's work (compress_codec.h): libdeflate for DEFLATE (faster
 * than zlib both ways on the measured corpus, docs/compress.md), liblz4 for
 * LZ4, libxxhash for XXH32.  A thread keeps one libdeflate compressor and one
 * decompressor (they hold the matcher's tables: allocating them per task would
 * cost more than a small task), freed when the thread ends.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <lz4.h>
#include <xxhash.h>

#include "compress_codec.h"

/* Output a DEFLATE or LZ4 block refers back to: LZ4's window. */
#define LZ4_WINDOW (64u * 1024u)
/* The most an LZ4 block expands (a 1-byte token and a match of 255 bytes per byte), plus slack. */
#define LZ4_MAX_RATIO 255u

struct cz_thread {
	struct libdeflate_compressor *comp;
	int comp_level;
	struct libdeflate_decompressor *decomp;
};

static pthread_once_t cz_once = PTHREAD_ONCE_INIT;
static pthread_key_t cz_key;
static bool cz_key_ok;

static void
cz_thread_free(void *arg)
{
	struct cz_thread *t = arg;

	if (t->comp != NULL)
		libdeflate_free_compressor(t->comp);
	if (t->decomp != NULL)
		libdeflate_free_decompressor(t->decomp);
	free(t);
}

static void
cz_key_init(void)
{
	cz_key_ok = pthread_key_create(&cz_key, cz_thread_free) == 0;
}

/* This thread's libdeflate objects (NULL: out of memory). */
static struct cz_thread *
cz_thread(void)
{
	struct cz_thread *t;

	(void)pthread_once(&cz_once, cz_key_init);
	if (!cz_key_ok)
		return NULL;
	t = pthread_getspecific(cz_key);
	if (t != NULL)
		return t;
	t = calloc(1, sizeof(*t));
	if (t != NULL && pthread_setspecific(cz_key, t) != 0) {
		free(t);
		t = NULL;
	}
	return t;
}

static enum sd_cz_status
fault(struct sd_cz_fault *f, enum sd_cz_status status, uint64_t a, uint64_t b, uint64_t c)
{
	f->status = status;
	f->a = a;
	f->b = b;
	f->c = c;
	return status;
}

enum sd_cz_status
sd_cz_deflate(int level, const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out, struct sd_cz_fault *f)
{
	struct cz_thread *t = cz_thread();
	size_t got;

	if (t != NULL && (t->comp == NULL || t->comp_level != level)) {
		if (t->comp != NULL)
			libdeflate_free_compressor(t->comp);
		t->comp = libdeflate_alloc_compressor(level);
		t->comp_level = level;
	}
	if (t == NULL || t->comp == NULL)
		return fault(f, SD_CZ_NO_MEMORY, sizeof(*t), 0, 0);
	got = libdeflate_deflate_compress(t->comp, src, n, dst, cap);
	if (got == 0)
		return fault(f, SD_CZ_NO_ROOM, cap, 0, 0);
	*out = got;
	return SD_CZ_OK;
}

enum sd_cz_status
sd_cz_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out, struct sd_cz_fault *f)
{
	struct cz_thread *t = cz_thread();
	enum libdeflate_result r;
	size_t in_used = 0, got = 0;

	if (t != NULL && t->decomp == NULL)
		t->decomp = libdeflate_alloc_decompressor();
	if (t == NULL || t->decomp == NULL)
		return fault(f, SD_CZ_NO_MEMORY, sizeof(*t), 0, 0);
	/* Bytes after the final block are not looked at, as zlib's inflate leaves them. */
	r = libdeflate_deflate_decompress_ex(t->decomp, src, n, dst, cap, &in_used, &got);
	if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
		return fault(f, SD_CZ_NO_ROOM, cap, 0, 0);
	if (r != LIBDEFLATE_SUCCESS)
		return fault(f, SD_CZ_DEFLATE_CORRUPT, n, 0, 0);
	*out = got;
	return SD_CZ_OK;
}

/*
 * One compressed LZ4 block, src[0, n) -> dst[0, cap), with the dict bytes
 * before dst as its history (dict_len 0: an independent block).  The bytes
 * written, or -1 if it does not decode into cap bytes.
 */
static int
lz4_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, const uint8_t *dict, size_t dict_len)
{
	int room = cap > (size_t)INT32_MAX ? INT32_MAX : (int)cap;

	if (n > (size_t)INT32_MAX)
		return -1;
	if (dict_len == 0)
		return LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, room);
	return LZ4_decompress_safe_usingDict((const char *)src, (char *)dst, (int)n, room, (const char *)dict,
					     (int)dict_len);
}

/*
 * A block that failed with cap bytes of room: would it decode with up to limit
 * bytes?  Then the room was the fault (NO_ROOM), else the data (LZ4_CORRUPT).
 */
static enum sd_cz_status
lz4_why(const uint8_t *src, size_t n, size_t cap, uint64_t limit, const uint8_t *dict, size_t dict_len, uint64_t room,
	uint64_t index, uint64_t offset, struct sd_cz_fault *f)
{
	uint64_t bound = (uint64_t)n * LZ4_MAX_RATIO + 16;
	uint8_t *scratch;
	int r;

	if (bound > limit)
		bound = limit;
	if (bound > (uint64_t)INT32_MAX)
		bound = INT32_MAX;
	if (bound <= cap)
		return fault(f, SD_CZ_LZ4_CORRUPT, index, offset, 0);
	scratch = malloc(bound);
	if (scratch == NULL)
		return fault(f, SD_CZ_NO_MEMORY, bound, 0, 0);
	r = lz4_decode(src, n, scratch, bound, dict, dict_len);
	free(scratch);
	if (r >= 0)
		return fault(f, SD_CZ_NO_ROOM, room, 0, 0);
	return fault(f, SD_CZ_LZ4_CORRUPT, index, offset, 0);
}

enum sd_cz_status
sd_cz_lz4_block(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, uint64_t limit, size_t *out,
		struct sd_cz_fault *f)
{
	int r = lz4_decode(src, n, dst, cap, NULL, 0);

	if (r < 0)
		return lz4_why(src, n, cap, limit, NULL, 0, cap, 0, 0, f);
	*out = (size_t)r;
	return SD_CZ_OK;
}

static uint32_t
load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where the stream decoder is: input position, output written, block index. */
struct lz4_walk {
	const uint8_t *src;
	size_t n, pos;
	uint8_t *dst;
	size_t cap, done;
	uint64_t limit, index;
	struct sd_cz_lz4_layout layout;
};

/* The block at w->pos, of size word `word` (already read); its data starts at w->pos + 4. */
static enum sd_cz_status
lz4_stream_block(struct lz4_walk *w, uint32_t word, struct sd_cz_fault *f)
{
	size_t len = word & 0x7fffffffu, at = w->pos + 4, csum = w->layout.has_block_checksum ? 4 : 0;
	const uint8_t *data = w->src + at;
	uint8_t *to = w->dst + w->done;
	size_t room = w->cap - w->done;
	int r;

	if (len + csum > w->n - at)
		return fault(f, SD_CZ_LZ4_TRUNCATED, w->index, w->pos, len + csum - (w->n - at));
	if (csum != 0 && load_le32(data + len) != XXH32(data, len, 0))
		return fault(f, SD_CZ_LZ4_BAD_CHECKSUM, w->index, load_le32(data + len), w->pos);
	if (word & 0x80000000u) {
		/* stored: the data is the output */
		if (len > room)
			return fault(f, SD_CZ_NO_ROOM, w->cap, 0, 0);
		memcpy(to, data, len);
		r = (int)len;
	} else {
		size_t dict_len = w->layout.blocks_independent ? 0 : w->done < LZ4_WINDOW ? w->done : LZ4_WINDOW;

		r = lz4_decode(data, len, to, room, to - dict_len, dict_len);
		if (r < 0)
			return lz4_why(data, len, room, w->limit - w->done, to - dict_len, dict_len, w->cap, w->index,
				       w->pos, f);
	}
	w->done += (size_t)r;
	w->pos = at + len + csum;
	w->index++;
	return SD_CZ_OK;
}

enum sd_cz_status
sd_cz_lz4_stream(const uint8_t *src, size_t n, struct sd_cz_lz4_layout layout, uint8_t *dst, size_t cap, uint64_t limit,
		 size_t *out, struct sd_cz_fault *f)
{
	struct lz4_walk w = {
		.src = src, .n = n, .dst = dst, .cap = cap, .limit = limit < cap ? cap : limit, .layout = layout};

	while (w.pos < n) {
		uint32_t word;
		enum sd_cz_status st;

		if (n - w.pos < 4)
			return fault(f, SD_CZ_LZ4_TRUNCATED, w.index, w.pos, 4 - (n - w.pos));
		word = load_le32(src + w.pos);
		/* A zero size word is the frame's end mark: accepted as the last word only. */
		if (word == 0) {
			if (n - w.pos > 4)
				return fault(f, SD_CZ_LZ4_AFTER_END, w.pos, n - w.pos - 4, 0);
			break;
		}
		st = lz4_stream_block(&w, word, f);
		if (st != SD_CZ_OK)
			return st;
	}
	*out = w.done;
	return SD_CZ_OK;
}

uint32_t
sd_cz_crc32(const uint8_t *p, size_t n)
{
	return libdeflate_crc32(0, p, n);
}

uint32_t
sd_cz_adler32(const uint8_t *p, size_t n)
{
	return libdeflate_adler32(1, p, n);
}

uint32_t
sd_cz_xxh32_doca(const uint8_t *p, size_t n)
{
	return __builtin_bswap32(XXH32(p, n, 0));
}
