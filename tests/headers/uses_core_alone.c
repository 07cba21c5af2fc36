/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Core headers each bring the standard headers their declarations use:
 * size_t, uint*_t (and the libc headers doca_compat.h pulls in: string.h,
 * stdlib.h) without the program including them.
 */
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_mmap.h>

int sd_uses_core_alone(struct doca_mmap *mmap, struct doca_dev *dev);

int
sd_uses_core_alone(struct doca_mmap *mmap, struct doca_dev *dev)
{
	uint8_t *mem = malloc(64);
	size_t len = 64;
	uint32_t n = 0;
	int ret;

	if (mem == NULL)
		return -1;
	memset(mem, 0, len);
	ret = (int)doca_mmap_set_memrange(mmap, mem, len) + (int)doca_mmap_add_dev(mmap, dev);
	(void)n;
	free(mem);
	return ret;
}
