/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Written as DOCA's DMA samples are: only doca_dma.h and the log header, then
 * PRIu64/PRIx64 in log lines, fixed-width and size types, and the buffer,
 * context and PE calls doca_dma.h brings with it.
 */
#include <doca_dma.h>
#include <doca_log.h>

DOCA_LOG_REGISTER(USES_DMA_ALONE);

int sd_uses_dma_alone(struct doca_dma_task_memcpy *task, struct doca_pe *pe);

int
sd_uses_dma_alone(struct doca_dma_task_memcpy *task, struct doca_pe *pe)
{
	const struct doca_buf *src = doca_dma_task_memcpy_get_src(task);
	size_t len = 0;
	uint64_t max = 0;
	union doca_data ud = doca_task_get_user_data(doca_dma_task_memcpy_as_task(task));

	(void)doca_buf_get_data_len(src, &len);
	(void)doca_ctx_stop(doca_task_get_ctx(doca_dma_task_memcpy_as_task(task)));
	DOCA_LOG_INFO("task %" PRIu64 " copied %zu bytes (max %" PRIx64 ")", ud.u64, len, max);
	return doca_pe_progress(pe);
}
