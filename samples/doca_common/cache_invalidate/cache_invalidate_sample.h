/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_cache_invalidate: DMA-copy 1 KiB inside one buffer, then invalidate the
 * CPU cache lines of the copy's source with a doca_mmap_advise task.
 */
#ifndef CACHE_INVALIDATE_SAMPLE_H_
#define CACHE_INVALIDATE_SAMPLE_H_

#include <doca_error.h>

/* Build everything, run the two tasks, tear everything down. */
doca_error_t run_cache_invalidate_sample(void);

#endif /* CACHE_INVALIDATE_SAMPLE_H_ */
