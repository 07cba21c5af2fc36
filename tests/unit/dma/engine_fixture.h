/* SPDX-License-Identifier: BSD-3-Clause */
/* The fixture of the DMA engine contract suite (engine_fixture.c): engines opened by hand, bufs and mmaps built by
 * hand. */
#ifndef ENGINE_FIXTURE_H_
#define ENGINE_FIXTURE_H_

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sd_test.h"

#include "core/mmap_internal.h"
#include "dma/engine.h"

#define FLUSH_STATUS DOCA_ERROR_IO_FAILED
#define GUARD 0xEE

extern struct doca_mmap local_mmap;
extern atomic_uint wakes;

struct sd_dma_engine *engine_open(const struct sd_dma_engine_ops *ops, uint32_t depth);
void buf_init(struct doca_buf *b, struct doca_mmap *m, void *head, size_t len, size_t off, size_t data_len);
void buf_chain(struct doca_buf *segs, unsigned n);
void fill_pattern(uint8_t *p, size_t n, unsigned seed);
void poll_until(struct sd_dma_engine *eng, struct sd_dma_jobq *done, unsigned n);
void run_one(struct sd_dma_engine *eng, struct sd_dma_job *job);

#endif /* ENGINE_FIXTURE_H_ */
