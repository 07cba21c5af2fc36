/* SPDX-License-Identifier: BSD-3-Clause */
/* Write one valid descriptor of a kind (0 conn, 1 mmap, 2 sync event) as a libFuzzer seed. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_rdma_desc.h"

int
main(int argc, char **argv)
{
	static uint8_t d[SD_RDMA_DESC_MAX];
	size_t len;
	FILE *f;

	if (argc != 3)
		return 2;
	len = fuzz_valid_desc((enum fuzz_kind)atoi(argv[1]), d);
	f = fopen(argv[2], "wb");
	if (f == NULL || fwrite(d, 1, len, f) != len || fclose(f) != 0)
		return 1;
	return 0;
}
