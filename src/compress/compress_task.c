/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The four task families as the engine runs them: what a task is checked for
 * at submit (buffers, sizes), the work (compress_codec.c on the flat views of
 * the buffer lists) and every reason a task fails, with its status and line
 * (docs/compress.md "Failures").  The statuses where DOCA documents none follow
 * doca-accel's safest choice: corrupt or cut-short data IO_FAILED, output that
 * does not fit TOO_BIG, what submit sees INVALID_VALUE.
 */
#include "compress_internal.h"

/* Why a task fails: Core's buffer faults, the engines' two, then the compress engine's own. */
enum compress_refusal {
	NO_SRC = SD_ACCEL_NUM_FAULTS,
	NO_DST,
	SRC_EMPTY,
	SRC_TOO_BIG,
	OUT_NO_ROOM,
	DEFLATE_CORRUPT,
	LZ4_TRUNCATED,
	LZ4_CORRUPT,
	LZ4_BLOCK_CORRUPT,
	LZ4_BAD_CHECKSUM,
	LZ4_AFTER_END,
	NO_MEMORY,
	NUM_REFUSALS,
};

#define ROW(status, text)                                                                                              \
	{                                                                                                              \
		(status), false, (text)                                                                                \
	}

static const struct sd_refusal compress_refusals[NUM_REFUSALS] = {
	SD_ACCEL_REFUSAL_ROWS,
	[NO_SRC] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no source buffer; give it one at alloc_init or with its set_src()"),
	[NO_DST] = ROW(DOCA_ERROR_INVALID_VALUE,
		       "{api}: {task} task has no destination buffer; give it one at alloc_init or with its set_dst()"),
	[SRC_EMPTY] = ROW(DOCA_ERROR_INVALID_VALUE,
			  "{api}: {task} task's source holds no data (data_len 0); set its data window with "
			  "doca_buf_set_data() or take it with doca_buf_inventory_buf_get_by_data()"),
	[SRC_TOO_BIG] = ROW(DOCA_ERROR_INVALID_VALUE,
			    "{api}: {task} task's source holds {a} bytes, more than the device's max_buf_size {b}; "
			    "split the data over several tasks (doca_compress_cap_task_*_get_max_buf_size)"),
	[OUT_NO_ROOM] = ROW(DOCA_ERROR_TOO_BIG,
			    "{api}: {task} task's output does not fit the {a} bytes of room of its destination (the "
			    "tail room after data + data_len, at most max_buf_size); nothing was appended; give it a "
			    "larger destination"),
	[DEFLATE_CORRUPT] = ROW(DOCA_ERROR_IO_FAILED,
				"{api}: {task} task's source ({a} bytes) is not a raw DEFLATE stream (RFC 1951): "
				"corrupt, cut short, or still wrapped in a zlib or gzip header; give the stream "
				"without header and trailer"),
	[LZ4_TRUNCATED] = ROW(DOCA_ERROR_IO_FAILED,
			      "{api}: {task} task's source ends inside LZ4 block {a} (at offset {b}), {c} bytes short; "
			      "give the whole block sequence, with has_block_checksum as it was written"),
	[LZ4_CORRUPT] = ROW(DOCA_ERROR_IO_FAILED,
			    "{api}: {task} task's LZ4 block {a} (at offset {b}) does not decode: the data is corrupt, "
			    "or are_blocks_independent or has_block_checksum does not match how it was written"),
	[LZ4_BLOCK_CORRUPT] = ROW(DOCA_ERROR_IO_FAILED,
				  "{api}: {task} task's source ({a} bytes) is not one LZ4 block's data: corrupt or "
				  "cut short (give the block without its size word and checksum)"),
	[LZ4_BAD_CHECKSUM] = ROW(DOCA_ERROR_IO_FAILED,
				 "{api}: {task} task's LZ4 block {a} (at offset {c}) fails its XXH32 block checksum "
				 "(0x{bx} found): the data is corrupt, or has_block_checksum is set for blocks written "
				 "without one"),
	[LZ4_AFTER_END] = ROW(DOCA_ERROR_IO_FAILED,
			      "{api}: {task} task's source goes on for {b} bytes after the end mark at offset {a}; "
			      "give the blocks of one frame, without its content checksum"),
	[NO_MEMORY] = ROW(DOCA_ERROR_NO_MEMORY,
			  "{api}: {task} task: out of memory for {a} bytes of working memory (a buffer list is "
			  "gathered into one buffer); use single-segment buffers or free memory"),
};

/* NULL buffers: doca_task_submit returns the error and the submitter keeps the task. */
#define KEEP_MASK ((1ull << NO_SRC) | (1ull << NO_DST))

static inline struct sd_compress_task *
compress_task(struct sd_accel_task *t)
{
	return (struct sd_compress_task *)t;
}

static inline const struct doca_compress *
task_compress(const struct sd_accel_task *t)
{
	return sd_container_of(t->accel, struct doca_compress, accel);
}

static uint64_t
task_max(const struct sd_compress_task *t)
{
	return sd_compress_families[t->family].max_buf_size(task_compress(&t->base)->caps);
}

static bool
compress_check(struct sd_accel_task *base, struct sd_buf_verdict *v)
{
	struct sd_compress_task *t = compress_task(base);
	const struct doca_compress *c = task_compress(base);
	uint32_t max_segs = c->caps->compress_max_buf_list_len;
	uint64_t bytes;

	/*
	 * A task submitted again forgets its last output: checksums are 0 until a success
	 * (a failed or flushed task's are undefined), never computed from an old output.
	 */
	t->crc = t->adler = t->xxh = 0;
	t->crc_ready = t->second_ready = true;
	t->out = NULL;
	if (sd_unlikely(t->src == NULL))
		return sd_buf_refuse(v, NO_SRC, "source", 0, 0, 0);
	if (sd_unlikely(t->dst == NULL))
		return sd_buf_refuse(v, NO_DST, "destination", 0, 0, 0);
	if (!sd_accel_check_list(base->accel, t->src, false, max_segs, "source", v) ||
	    !sd_accel_check_list(base->accel, t->dst, true, max_segs, "destination", v))
		return false;
	bytes = sd_accel_list_data_len(t->src);
	if (sd_unlikely(bytes == 0))
		return sd_buf_refuse(v, SRC_EMPTY, "source", 0, 0, 0);
	if (sd_unlikely(bytes > task_max(t)))
		return sd_buf_refuse(v, SRC_TOO_BIG, "source", bytes, task_max(t), 0);
	return true;
}

/* The verdict of a codec fault. */
static bool
refuse_fault(struct sd_buf_verdict *v, const struct sd_compress_task *t, const struct sd_cz_fault *f)
{
	static const unsigned int reasons[] = {
		[SD_CZ_NO_ROOM] = OUT_NO_ROOM,
		[SD_CZ_DEFLATE_CORRUPT] = DEFLATE_CORRUPT,
		[SD_CZ_LZ4_TRUNCATED] = LZ4_TRUNCATED,
		[SD_CZ_LZ4_CORRUPT] = LZ4_CORRUPT,
		[SD_CZ_LZ4_BAD_CHECKSUM] = LZ4_BAD_CHECKSUM,
		[SD_CZ_LZ4_AFTER_END] = LZ4_AFTER_END,
		[SD_CZ_NO_MEMORY] = NO_MEMORY,
	};
	unsigned int why = reasons[f->status];

	/* The block task has one block, no sequence: its own line. */
	if (why == LZ4_CORRUPT && t->family == SD_DECOMPRESS_LZ4_BLOCK)
		return sd_buf_refuse(v, LZ4_BLOCK_CORRUPT, "source", sd_accel_list_data_len(t->src), 0, 0);
	return sd_buf_refuse(v, why, why == OUT_NO_ROOM ? "destination" : "source", f->a, f->b, f->c);
}

/* The work of t from s into d's first cap bytes. */
static enum sd_cz_status
run_codec(struct sd_compress_task *t, const struct sd_accel_src *s, struct sd_accel_dst *d, uint64_t cap, size_t *out,
	  struct sd_cz_fault *f)
{
	uint64_t limit = task_max(t);

	switch (t->family) {
	case SD_COMPRESS_DEFLATE:
		return sd_cz_deflate(task_compress(&t->base)->level, s->p, s->len, d->p, cap, out, f);
	case SD_DECOMPRESS_DEFLATE:
		return sd_cz_inflate(s->p, s->len, d->p, cap, out, f);
	case SD_DECOMPRESS_LZ4_STREAM:
		return sd_cz_lz4_stream(s->p, s->len, t->layout, d->p, cap, limit, out, f);
	default:
		return sd_cz_lz4_block(s->p, s->len, d->p, cap, limit, out, f);
	}
}

static bool
compress_run(struct sd_accel_task *base, struct sd_buf_verdict *v)
{
	struct sd_compress_task *t = compress_task(base);
	struct sd_accel_src s;
	struct sd_accel_dst d;
	struct sd_cz_fault f = {SD_CZ_OK, 0, 0, 0};
	size_t out = 0;
	uint64_t cap;

	if (!sd_accel_src_open(&s, t->src))
		return sd_buf_refuse(v, NO_MEMORY, "source", sd_accel_list_data_len(t->src), 0, 0);
	if (!sd_accel_dst_open(&d, t->dst)) {
		sd_accel_src_close(&s);
		return sd_buf_refuse(v, NO_MEMORY, "destination", d.cap, 0, 0);
	}
	/* A task never produces more than max_buf_size, whatever the room. */
	cap = d.cap < task_max(t) ? d.cap : task_max(t);
	if (run_codec(t, &s, &d, cap, &out, &f) != SD_CZ_OK) {
		sd_accel_dst_close(&d);
		sd_accel_src_close(&s);
		return refuse_fault(v, t, &f);
	}
	/* Checksums of the uncompressed side: the source when compressing, else the output. */
	t->crc_ready = t->second_ready = false;
	if (t->family == SD_COMPRESS_DEFLATE) {
		t->out = s.p;
		t->out_len = s.len;
	} else {
		t->out = d.p;
		t->out_len = out;
	}
	/* Compressing costs far more than its checksums; a bounce buffer goes at commit. */
	if (t->family == SD_COMPRESS_DEFLATE || d.bounce != NULL || task_compress(base)->eager_checksums) {
		(void)sd_compress_task_crc(t);
		(void)sd_compress_task_second(t);
		t->out = NULL; /* may be a bounce buffer, freed below */
	}
	sd_accel_dst_commit(&d, out);
	sd_accel_src_close(&s);
	return true;
}

uint32_t
sd_compress_task_crc(struct sd_compress_task *t)
{
	if (!t->crc_ready) {
		t->crc = sd_cz_crc32(t->out, t->out_len);
		t->crc_ready = true;
	}
	return t->crc;
}

uint32_t
sd_compress_task_second(struct sd_compress_task *t)
{
	bool lz4 = t->family == SD_DECOMPRESS_LZ4_STREAM || t->family == SD_DECOMPRESS_LZ4_BLOCK;

	if (!t->second_ready) {
		if (lz4)
			t->xxh = sd_cz_xxh32_doca(t->out, t->out_len);
		else
			t->adler = sd_cz_adler32(t->out, t->out_len);
		t->second_ready = true;
	}
	return lz4 ? t->xxh : t->adler;
}

static uint64_t
compress_cost(const struct sd_accel_task *base)
{
	const struct sd_compress_task *t = (const struct sd_compress_task *)base;

	return sd_accel_list_data_len(t->src);
}

#define KIND(label)                                                                                                    \
	{                                                                                                              \
		.name = (label), .refusals = compress_refusals, .keep_mask = KEEP_MASK, .check = compress_check,       \
		.run = compress_run, .cost = compress_cost,                                                            \
	}

const struct sd_accel_kind sd_compress_kinds[SD_COMPRESS_NUM_FAMILIES] = {
	[SD_COMPRESS_DEFLATE] = KIND("compress deflate"),
	[SD_DECOMPRESS_DEFLATE] = KIND("decompress deflate"),
	[SD_DECOMPRESS_LZ4_STREAM] = KIND("decompress LZ4 stream"),
	[SD_DECOMPRESS_LZ4_BLOCK] = KIND("decompress LZ4 block"),
};
