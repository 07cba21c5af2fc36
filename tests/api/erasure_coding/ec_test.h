/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the erasure coding tests (public API, plus ISA-L and an
 * independent GF(2^8) for the expected bytes): a started context on
 * mlx5_0 with every task type enabled, an arena of memory in one mmap with
 * bufs taken from it (destinations get a guard region after them), one task
 * run to its callback, and the reference arithmetic.
 */
#ifndef EC_TEST_H_
#define EC_TEST_H_

#include <stdint.h>
#include <time.h>

#include <doca_ctx.h>
#include <doca_erasure_coding.h>
#include <doca_pe.h>

#include "../mmap/mmap_test.h"

#define EC_GUARD 64u
#define EC_GUARD_BYTE 0xa5
#define EC_MAX_SEEN 512u

enum ec_family { EC_GALOIS_MUL, EC_CREATE, EC_UPDATE, EC_RECOVER };

/* What the callbacks saw (every callback frees its task, as DOCA's samples do). */
struct ec_seen {
	unsigned n, ok, err;
	uint64_t order[EC_MAX_SEEN]; /* task user data, in callback order */
	doca_error_t status[EC_MAX_SEEN];
	doca_error_t last; /* the status of the latest callback */
	enum doca_ctx_states states[16];
	unsigned num_states;
};
extern struct ec_seen ec_seen;

struct ec_env {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_ec *ec;
	struct doca_ctx *ctx;
	uint8_t *mem;
	size_t len, used;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
};

/*
 * A context on mlx5_0 of the topology set (the built-in one unless the case
 * chose another), num_tasks of each type, started; an arena of mem_len bytes.
 */
void ec_env_open(struct ec_env *e, size_t mem_len, uint32_t num_tasks);
/* The same without doca_ctx_start(). */
void ec_env_open_idle(struct ec_env *e, size_t mem_len, uint32_t num_tasks);
/* Progress until the context is IDLE (a failed task stops it), then start it again. */
void ec_env_restart(struct ec_env *e);
void ec_env_close(struct ec_env *e);

/* 64-byte aligned arena bytes. */
uint8_t *ec_arena(struct ec_env *e, size_t len);
/* A source buf holding a copy of len bytes of data, in nsegs chained segments of uneven sizes. */
struct doca_buf *ec_src(struct ec_env *e, const void *data, size_t len, unsigned nsegs);
/* An empty destination of room bytes in nsegs segments, followed by EC_GUARD guard bytes; *at its start. */
struct doca_buf *ec_dst(struct ec_env *e, size_t room, unsigned nsegs, uint8_t **at);
/* The guard after a destination of room bytes at at is intact. */
void ec_assert_guard(const uint8_t *at, size_t room);
/* Total data_len of a list. */
size_t ec_list_data_len(struct doca_buf *list);

/* Allocate a task of fam with these parameters (RUNNING context). */
doca_error_t ec_alloc(struct ec_env *e, enum ec_family fam, const struct doca_ec_matrix *m, struct doca_buf *src,
		      struct doca_buf *dst, uint64_t ud, struct doca_task **task);
/* Allocate, submit, progress to its callback: the task's status. */
doca_error_t ec_run(struct ec_env *e, enum ec_family fam, const struct doca_ec_matrix *m, struct doca_buf *src,
		    struct doca_buf *dst);
/* Progress until n callbacks were seen in all (fails the case after 20 s). */
void ec_progress_until(struct ec_env *e, unsigned n);
void ec_release(struct doca_buf *buf);

/* Deterministic bytes. */
void ec_fill(uint8_t *p, size_t n, uint32_t seed);

/* --- reference GF(2^8), polynomial 0x11D: shift-and-add, no tables, no ISA-L --------- */
uint8_t ref_mul(uint8_t a, uint8_t b);
uint8_t ref_inv(uint8_t a);
/* DOCA's a[i][j] of a coding matrix, the test's own way. */
uint8_t ref_coef(int type, size_t k, size_t i, size_t j);
/* out_r = sum_c coef[r * in + c] * in_c over blocks of len bytes (back to back). */
void ref_apply(const uint8_t *coef, size_t in, size_t out, const uint8_t *src, uint8_t *dst, size_t len);

#endif /* EC_TEST_H_ */
