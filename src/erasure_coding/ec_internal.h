/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libdoca_erasure_coding's objects: the context (ec.c) on Core's engine
 * context (sd_accel), its matrices (ec_matrix.c) and its four task families
 * (ec_task.c), which all apply a matrix to blocks with ISA-L.
 *
 * Threads: everything here runs on the PE's thread except a task's run
 * (ec_task.c), which reads the task, its buffers and its matrix's tables on a
 * worker.  A matrix is immutable once made, and doca_ec_matrix_destroy()
 * refuses while a submitted task of its context still uses it, so a worker
 * never reads a freed matrix.
 */
#ifndef SD_EC_INTERNAL_H_
#define SD_EC_INTERNAL_H_

#include <stdint.h>

#include <doca_erasure_coding.h>

#include "../core/sd_core.h"
#include "ec_matrix_math.h"

/* The task families, one pool each. */
enum sd_ec_family {
	SD_EC_GALOIS_MUL,
	SD_EC_CREATE,
	SD_EC_UPDATE,
	SD_EC_RECOVER,
	SD_EC_NUM_FAMILIES,
};

struct doca_ec {
	struct sd_accel accel;		/* first: doca_ec_as_ctx() */
	const struct sd_dev_caps *caps; /* the device's, read-only */
	struct sd_task_pool *pools[SD_EC_NUM_FAMILIES];
	struct sd_list matrices; /* every matrix made on this context (doca_ec_matrix.link) */
};

/* What a matrix was made as: only coding matrices derive recover and update matrices. */
enum sd_ec_matrix_kind {
	SD_EC_MATRIX_CODING,
	SD_EC_MATRIX_RECOVER,
	SD_EC_MATRIX_UPDATE,
};

struct doca_ec_matrix {
	struct doca_ec *ec; /* the context it was made on; NULL once that is destroyed */
	struct sd_list link;
	enum sd_ec_matrix_kind kind;
	uint32_t k, m;	   /* the code's data and redundancy block counts */
	uint32_t in, out;  /* blocks a task reads and writes with it */
	uint8_t *coef;	   /* out x in coefficients (ec_matrix_math.h) */
	uint8_t *tables;   /* ISA-L's expanded tables: 32 bytes per coefficient */
	uint8_t storage[]; /* coef, then tables */
};

/* One task of any family: the public task structs are this struct. */
struct sd_ec_task {
	struct sd_accel_task base; /* first: doca_ec_task_<T>_as_task() */
	const struct doca_ec_matrix *matrix;
	const struct doca_buf *src;
	struct doca_buf *dst;
	uint64_t block; /* the block size, set by the submit check */
};

static inline struct doca_ec *
sd_ec_from_accel(struct sd_accel *accel)
{
	return sd_container_of(accel, struct doca_ec, accel);
}

/* The task kind of a family (ec_task.c). */
extern const struct sd_accel_kind sd_ec_kinds[SD_EC_NUM_FAMILIES];

/* Does a task submitted on ec and not yet delivered use matrix? (PE thread) */
bool sd_ec_matrix_in_flight(const struct doca_ec *ec, const struct doca_ec_matrix *matrix);

/* ec is being destroyed: its matrices outlive it, unattached (ec_matrix.c). */
void sd_ec_matrices_detach(struct doca_ec *ec);

/* "device 0000:03:00.0 (bluefield-2)" into out, for NOT_SUPPORTED lines. */
const char *sd_ec_dev_name(const struct doca_devinfo *devinfo, char *out, size_t cap);

#endif /* SD_EC_INTERNAL_H_ */
