/* SPDX-License-Identifier: BSD-3-Clause */
/* Write the valid header part of one active-message type (argv[1]) as a libFuzzer seed. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_fabric_am.h"

int
main(int argc, char **argv)
{
	uint8_t d[128];
	size_t len;
	FILE *f;

	if (argc != 3)
		return 2;
	len = fuzz_am_valid((uint8_t)atoi(argv[1]), d);
	f = fopen(argv[2], "wb");
	if (f == NULL || fwrite(d, 1, len, f) != len || fclose(f) != 0)
		return 1;
	return 0;
}
