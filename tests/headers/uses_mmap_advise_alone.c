/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DOCA's cache_invalidate sample: doca_mmap_advise.h beside the Core and DMA
 * headers, malloc / free / memset without <string.h>, and the task's callback type.
 */
#include <stdbool.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>
#include <doca_types.h>

int sd_uses_mmap_advise_alone(struct doca_mmap_advise *advise, struct doca_buf *buf,
			      doca_mmap_advise_task_invalidate_cache_completion_cb_t cb);

int
sd_uses_mmap_advise_alone(struct doca_mmap_advise *advise, struct doca_buf *buf,
			  doca_mmap_advise_task_invalidate_cache_completion_cb_t cb)
{
	struct doca_mmap_advise_task_invalidate_cache *task = NULL;
	union doca_data ud = {0};
	uint8_t *mem = malloc(16);
	int ret;

	if (mem == NULL)
		return -1;
	memset(mem, 0, 16);
	ret = (int)doca_mmap_advise_task_invalidate_cache_set_conf(advise, cb, cb, 1);
	ret += (int)doca_mmap_advise_task_invalidate_cache_alloc_init(advise, buf, ud, &task);
	ret += (int)doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
	ret += doca_ctx_start(doca_mmap_advise_as_ctx(advise)) == DOCA_SUCCESS;
	free(mem);
	return ret;
}
